//! Memory-against-time plots and the Markdown table.
use crate::Record;
use std::path::{Path, PathBuf};
pub fn plot_all(_r: &[(String, Record)], _out: &Path) -> Vec<PathBuf> { Vec::new() }
pub fn table(_r: &[(String, Record)]) -> String { String::new() }
