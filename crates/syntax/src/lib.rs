//! Front end of dyngc: turns `.dyn` source text into an [`ast::File`] and syntax diagnostics.
//!
//! Entry point: [`parse`]. Pure: no file IO.
//!
//! The front end runs in two stages. A hand-written lexer turns the text into tokens
//! with byte spans, reports lexical errors, matches delimiters and enforces the nesting limit;
//! then a `chumsky` parser over the token list builds the tree, recovering from errors so that
//! one run reports every syntax error it can find. See `grammar/dyn.ebnf` for the grammar and
//! `docs/language.md` for the language.
//!
//! Spans in the tree are byte ranges into the source and never include surrounding whitespace or
//! comments. Text-valued spans have these extents:
//!
//! - `Spawn::payload` / `Spawn::count`: the tokens between the parentheses / brackets.
//! - `Stmt::If::cond`, `Stmt::Loop::header` of a `while`, `Stmt::Switch::header`: the condition or
//!   selector expression exactly as written between the keyword and the `{` (so it includes
//!   parentheses when the source has them: `if (a) {` gives `(a)`, `if a {` gives `a`).
//! - `Stmt::Loop::header` of a `for`: the text between the parentheses
//!   (`var i = 0u; i < 4u; i++`); of a `loop` or `continuing`: an empty span just after the keyword.

pub mod ast;
pub mod codes;
pub mod diagnostic;
mod lexer;
mod number;
mod parser;

pub use diagnostic::{Diagnostic, Label, Severity};

/// Limits the parser enforces (exceeding one is `DYN0004`). They keep every input, however
/// large or malformed, fast to parse and bounded in memory and stack depth.
pub mod limits {
    /// Largest accepted source file, in bytes (16 MiB).
    pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;
    /// Deepest nesting of `(`, `[`, `{` and `else if` (each counts one level), and of `<...>` in
    /// a type. Below naga's own limits, which bodies are validated with (127 nested braces in a
    /// function, 200 levels of parser recursion), with room for the block the generator wraps
    /// around a spawn site: past them naga's error had no location.
    pub const MAX_NESTING: usize = 120;
    /// Most binary operators in one size expression.
    pub const MAX_SIZE_OPERATORS: usize = 256;
    /// Most diagnostics one parse reports; further ones are summarised by a final `DYN0004`.
    pub const MAX_DIAGNOSTICS: usize = 100;
}

/// What the parser produces: the tree it could build (with error recovery) and every syntax error.
#[derive(Debug)]
pub struct Parsed {
    pub file: ast::File,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses a whole `.dyn` file.
///
/// Never panics and always returns: on errors, `file` holds every item that could be parsed and
/// `diagnostics` every syntax error found (codes `DYN0001`..`DYN0005`), sorted by position.
/// An empty file parses to an empty [`ast::File`] without diagnostics.
pub fn parse(source: &str) -> Parsed {
    use limits::*;
    if source.len() > MAX_FILE_BYTES {
        let d = Diagnostic::error(
            codes::DYN0004,
            // Callers may stop reading one byte past the limit, so the true size is not known.
            format!("file too large: more than the limit of {MAX_FILE_BYTES} bytes (16 MiB)"),
            0..0,
            "the file is not parsed",
        )
        .with_hint("split the graph's WGSL helpers into a smaller file, or generate less code");
        return Parsed {
            file: ast::File::default(),
            diagnostics: vec![d],
        };
    }
    let lexed = lexer::lex(source);
    // Lexer diagnostics first: at equal positions they are the more specific ones.
    let mut diagnostics = lexed.diagnostics;
    let file = if lexed.fatal {
        ast::File::default()
    } else {
        let (file, parse_diags) = parser::parse_tokens(source, &lexed.toks, &lexed.spans);
        let quiet = &lexed.quiet;
        diagnostics.extend(parse_diags.into_iter().filter(|d| {
            !quiet
                .iter()
                .any(|q| q.start <= d.primary.span.start && d.primary.span.start <= q.end)
        }));
        file
    };
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    // Two diagnostics with one code at one place report the same problem.
    diagnostics.dedup_by(|a, b| a.code == b.code && a.primary.span == b.primary.span);
    if diagnostics.len() > MAX_DIAGNOSTICS {
        let rest = diagnostics.len() - MAX_DIAGNOSTICS;
        let at = diagnostics[MAX_DIAGNOSTICS].primary.span.clone();
        diagnostics.truncate(MAX_DIAGNOSTICS);
        diagnostics.push(Diagnostic::error(
            codes::DYN0004,
            format!("too many syntax errors: {rest} more not shown"),
            at,
            "reporting stops here",
        ));
    }
    Parsed { file, diagnostics }
}

/// A token of WGSL text, as [`tokens`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// An identifier or a keyword (`return`, `if`, `stage`, ...).
    pub word: bool,
    /// Byte span in the text given to [`tokens`].
    pub span: ast::Span,
}

/// The tokens of `source[span]` (comments and whitespace skipped), with spans into `source`;
/// none for a span out of range. For scanning text that was parsed already, such as a stage
/// body: lexical errors are not reported, and tokens repairing unbalanced delimiters are left out.
pub fn tokens(source: &str, span: &ast::Span) -> Vec<Token> {
    let Some(text) = source.get(span.clone()) else {
        return Vec::new();
    };
    let lexed = lexer::lex(text);
    let at = |p: u32| span.start + p as usize;
    lexed
        .toks
        .iter()
        .zip(&lexed.spans)
        .filter(|(_, &(a, b))| a < b)
        .map(|(t, &(a, b))| Token {
            word: *t == lexer::Tok::Ident || t.is_keyword(),
            span: at(a)..at(b),
        })
        .collect()
}
