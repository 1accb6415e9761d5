//! The parser: tokens to [`ast::File`](crate::ast::File), with error recovery.
//!
//! The grammar's structure (items, attributes, declarations, statements, blocks) and the error
//! recovery are chumsky combinators over the token kinds. A few leaf parsers are hand-written
//! `custom` parsers because they must be iterative (types and size expressions, whose nesting
//! would otherwise build arbitrarily deep trees) or because they skip WGSL text (balanced token
//! runs). The lexer guarantees balanced delimiters, so balanced skipping always terminates at the
//! right closing delimiter.
//!
//! Recovery happens at four levels: a missing `;` is reported and assumed (when the next token is
//! `}` or on a new line); a broken statement is skipped up to its `;` or block; a broken struct
//! field or stage parameter is skipped up to the next `,`; a broken item is skipped up to the next
//! item keyword. Every recovery reports exactly one error.
//!
//! Here: the context the parsers share and balanced scanning; `common`: small building blocks
//! and the recoveries; `types`: the hand-written type and size parsers; `body`: statements and
//! blocks; `items`: declarations and the file; `errors`: chumsky's errors as diagnostics.

use crate::ast::*;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::lexer::Tok;
use crate::limits::{MAX_NESTING, MAX_SIZE_OPERATORS};
use crate::number::{Number, Unreadable};
use chumsky::error::{LabelError, RichPattern, RichReason};
use chumsky::input::InputRef;
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

mod body;
mod common;
mod errors;
mod items;
mod types;

use body::*;
use common::*;
use errors::*;
use items::*;
use types::*;

/// Token-index span (chumsky's view); converted to byte spans with [`Ctx::span`].
type Sp = SimpleSpan<usize>;
type PErr<'s> = Rich<'s, Tok, Sp, Custom>;
type Ex<'s> = extra::Err<PErr<'s>>;
type In<'s> = &'s [Tok];
type Inp<'s, 'p> = InputRef<'s, 'p, In<'s>, Ex<'s>>;

/// A fully formed diagnostic carried through chumsky as a custom error.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Custom(Box<Diagnostic>);

impl fmt::Display for Custom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

/// An expected pattern for hand-built errors.
#[derive(Clone, Copy)]
enum Exp {
    T(Tok),
    L(&'static str),
}

impl Exp {
    fn pattern<'s>(self) -> RichPattern<'s, Tok> {
        match self {
            Exp::T(t) => RichPattern::Token(MaybeRef::Val(t)),
            Exp::L(l) => RichPattern::Label(Cow::Borrowed(l)),
        }
    }
}

/// Most errors one parse counts before it stops reporting (see [`Ctx::count_error`]).
const MAX_ERRORS: usize = 10 * crate::limits::MAX_DIAGNOSTICS;

/// Everything the parsers need to turn token indices into text and byte spans.
#[derive(Clone, Copy)]
struct Ctx<'s> {
    src: &'s str,
    toks: &'s [Tok],
    spans: &'s [(u32, u32)],
    /// Errors counted so far.
    errors: &'s Cell<usize>,
}

impl<'s> Ctx<'s> {
    fn tok(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).copied()
    }

    /// Byte offset where token `i` starts (the end of the file past the last token).
    fn start(&self, i: usize) -> usize {
        self.spans.get(i).map_or(self.src.len(), |s| s.0 as usize)
    }

    fn end(&self, i: usize) -> usize {
        self.spans.get(i).map_or(self.src.len(), |s| s.1 as usize)
    }

    /// Byte span of the tokens `s..e`; an empty range gives an empty span where token `s` starts.
    fn range(&self, s: usize, e: usize) -> Span {
        if s < e {
            self.start(s)..self.end(e - 1)
        } else {
            let p = self.start(s);
            p..p
        }
    }

    fn span(&self, sp: Sp) -> Span {
        self.range(sp.start, sp.end)
    }

    fn text(&self, i: usize) -> &'s str {
        match self.spans.get(i) {
            Some(&(a, b)) => &self.src[a as usize..b as usize],
            None => "",
        }
    }

    fn ident_at(&self, i: usize) -> Ident {
        Ident {
            name: self.text(i).to_string(),
            span: self.range(i, i + 1),
        }
    }

    fn newline_between(&self, a: usize, b: usize) -> bool {
        let (from, to) = (self.end(a), self.start(b));
        from < to && self.src[from..to].contains('\n')
    }

    fn expected(&self, exp: &[Exp], i: usize) -> PErr<'s> {
        let n = self.toks.len();
        let found = self.tok(i).map(MaybeRef::Val);
        let span: Sp = if i < n { (i..i + 1).into() } else { (n..n).into() };
        <PErr<'s> as LabelError<'s, In<'s>, RichPattern<'s, Tok>>>::expected_found(
            exp.iter().map(|e| e.pattern()),
            found,
            span,
        )
    }

    /// Counts one error; false once [`MAX_ERRORS`] were counted. Every error is kept until the
    /// end of the parse (with a few hundred bytes of expected patterns or a whole diagnostic), and
    /// a file of nothing but errors (10 MB of `;`, of `1,` in a parameter list, of `spawn` in an
    /// expression) would otherwise take gigabytes and tens of seconds, only for all but the first
    /// `MAX_DIAGNOSTICS` to be dropped. So error recoveries count (see [`recover_or_skip`]), and
    /// so do the reports that can repeat within one construct (per token, field or attribute),
    /// which are no longer emitted past the limit.
    fn count_error(&self) -> bool {
        let n = self.errors.get() + 1;
        self.errors.set(n);
        n <= MAX_ERRORS
    }

    fn custom(&self, d: Diagnostic) -> PErr<'s> {
        Rich::custom((0..0).into(), Custom(Box::new(d)))
    }

    fn error(
        &self,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(code, message, span, label)
    }
}

fn idx(inp: &Inp<'_, '_>) -> usize {
    *inp.cursor().inner()
}

/// A `custom` parser with the closure's signature pinned down.
fn cp<'s, O, F>(f: F) -> impl Parser<'s, In<'s>, O, Ex<'s>> + Clone + 's
where
    F: Fn(&mut Inp<'s, '_>) -> Result<O, PErr<'s>> + Clone + 's,
    O: 's,
{
    custom(f)
}

/// Consumes one token, or a whole delimited group if the token opens one.
fn skip_one(c: Ctx<'_>, inp: &mut Inp<'_, '_>) {
    let Some(t) = c.tok(idx(inp)) else { return };
    inp.skip();
    if t.is_open() {
        let mut depth = 1usize;
        while let Some(t) = c.tok(idx(inp)) {
            inp.skip();
            if t.is_open() {
                depth += 1;
            } else if t.is_close() {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
        }
    }
}

/// `spawn`, `become` or `emit` (token `k`) where a statement cannot start.
fn misplaced_keyword<'s>(c: Ctx<'s>, k: usize) -> PErr<'s> {
    let kw = c.text(k);
    c.custom(
        c.error(
            codes::DYN0001,
            format!("`{kw}` can only start a statement"),
            c.range(k, k + 1),
            format!("`{kw}` is a reserved word"),
        )
        .with_hint(if kw == "emit" {
            "write `emit stream(value);` as a statement of its own".to_string()
        } else {
            format!("write `{kw} stage(payload);` as a statement of its own")
        }),
    )
}

/// Counts the error that an error recovery reports (see [`Ctx::count_error`]) and returns true
/// while under the limit. Past it, skips the rest of the enclosing group (up to its closing
/// delimiter, or the end of the file) and returns false: the recovery then succeeds there, so
/// that the parse ends after at most one more error per open group. (Failing instead would throw
/// away the errors reported so far inside the whole item, as chumsky rewinds a failed parser.)
fn recover_or_skip<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> bool {
    if c.count_error() {
        return true;
    }
    scan(c, inp, |_| false, false);
    false
}

/// Consumes balanced tokens until `stop` accepts a token outside any group, an unmatched closing
/// delimiter, or the end. Returns the consumed token range. With `reserved`, reports `spawn` and
/// `become` found on the way (they may only start a statement).
fn scan<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>, stop: impl Fn(Tok) -> bool, reserved: bool) -> (usize, usize) {
    let start = idx(inp);
    let mut depth = 0usize;
    while let Some(t) = c.tok(idx(inp)) {
        if depth == 0 && stop(t) {
            break;
        }
        if t.is_open() {
            depth += 1;
        } else if t.is_close() {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if reserved && matches!(t, Tok::Spawn | Tok::Become | Tok::Emit) && c.count_error() {
            inp.emit(misplaced_keyword(c, idx(inp)));
        }
        inp.skip();
    }
    (start, idx(inp))
}

/// Whether token `k` can only start a WGSL statement, so that a statement running into it is
/// missing its `;`: `let`, `var`, `return`, `if` (except in `break if`), `for`, `spawn`, ...
fn starts_statement(c: Ctx<'_>, k: usize) -> bool {
    match c.tok(k) {
        Some(Tok::If) => !(k > 0 && c.tok(k - 1) == Some(Tok::Ident) && c.text(k - 1) == "break"),
        Some(Tok::For | Tok::While | Tok::Loop | Tok::Switch | Tok::Spawn | Tok::Become | Tok::Emit | Tok::Const) => {
            true
        }
        Some(Tok::Ident) => matches!(c.text(k), "let" | "var" | "return" | "break" | "continue" | "discard"),
        _ => false,
    }
}

/// The text of an ordinary statement: balanced tokens up to a `;` or `{` outside brackets, or up
/// to a word that can only start the next statement (then the `;` is missing). `spawn` and
/// `become` on the same line are reported as misplaced rather than as a missing `;`.
fn scan_statement<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) {
    let first = idx(inp);
    let mut depth = 0usize;
    while let Some(t) = c.tok(idx(inp)) {
        let k = idx(inp);
        if depth == 0 {
            if matches!(t, Tok::Semi | Tok::LBrace) {
                break;
            }
            if k > first && starts_statement(c, k) {
                let same_line = !c.newline_between(k - 1, k);
                if !(matches!(t, Tok::Spawn | Tok::Become | Tok::Emit) && same_line) {
                    break;
                }
            }
        }
        if t.is_open() {
            depth += 1;
        } else if t.is_close() {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if matches!(t, Tok::Spawn | Tok::Become | Tok::Emit) && c.count_error() {
            inp.emit(misplaced_keyword(c, k));
        }
        inp.skip();
    }
}

/// Tokens that cannot start an ordinary (`Stmt::Other`) statement: statement keywords, braces,
/// and the WGSL declaration keywords that are not allowed in a function body. (The .dyn
/// declaration keywords `input`, `stage`, ... are ordinary identifiers inside WGSL code.)
fn starts_special_stmt(t: Tok) -> bool {
    matches!(
        t,
        Tok::Spawn
            | Tok::Become
            | Tok::Emit
            | Tok::If
            | Tok::Else
            | Tok::For
            | Tok::While
            | Tok::Loop
            | Tok::Continuing
            | Tok::Switch
            | Tok::Case
            | Tok::Default
            | Tok::LBrace
            | Tok::RBrace
            | Tok::RParen
            | Tok::RBracket
            | Tok::At
            | Tok::Struct
            | Tok::Fn
            | Tok::Alias
    )
}

/// Parses the lexer's tokens into a file and its syntax diagnostics.
pub(crate) fn parse_tokens(src: &str, toks: &[Tok], spans: &[(u32, u32)]) -> (File, Vec<Diagnostic>) {
    let errors = Cell::new(0);
    let c = Ctx {
        src,
        toks,
        spans,
        errors: &errors,
    };
    let (out, errs) = file_parser(c).parse(toks).into_output_errors();
    let items = out.unwrap_or_default().into_iter().flatten().collect();
    let diags = errs.into_iter().map(|e| to_diagnostic(c, e)).collect();
    (File { items }, diags)
}
