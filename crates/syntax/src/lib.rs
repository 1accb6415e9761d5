//! Front end of dyngc: turns `.dyn` source text into an [`ast::File`] and syntax diagnostics.
//!
//! Entry point: [`parse`]. Pure: no file IO.

pub mod ast;
pub mod codes;
pub mod diagnostic;

pub use diagnostic::{Diagnostic, Label, Severity};

/// What the parser produces: the tree it could build (with error recovery) and every syntax error.
#[derive(Debug)]
pub struct Parsed {
    pub file: ast::File,
    pub diagnostics: Vec<Diagnostic>,
}
