use crate::Checked;
use dyngc_syntax::ast;

/// Resolves names, validates bodies with naga, builds the stage graph and checks it.
pub fn check(_file: &ast::File, _source: &str, _name: &str) -> Checked {
    unimplemented!("being written")
}
