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

use crate::ast::*;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::lexer::Tok;
use crate::limits::{MAX_NESTING, MAX_SIZE_OPERATORS};
use chumsky::error::{LabelError, RichPattern, RichReason};
use chumsky::input::InputRef;
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::num::IntErrorKind;

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

// ---------------------------------------------------------------------------------------------
// Integer literals.

enum IntVal {
    Ok(u64),
    Overflow,
    /// Malformed; the lexer has reported it already.
    Malformed,
}

fn int_value(text: &str) -> IntVal {
    let t = text
        .strip_suffix('u')
        .or_else(|| text.strip_suffix('i'))
        .unwrap_or(text);
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    match r {
        Ok(v) => IntVal::Ok(v),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => IntVal::Overflow,
        Err(_) => IntVal::Malformed,
    }
}

// ---------------------------------------------------------------------------------------------
// Types: `IDENT [< TYPE {, TYPE} [,] >]`, parsed iteratively with a depth limit.

/// Parses a type. Fails (without consuming) only when no type name starts here; any later problem
/// is reported and the type built so far is returned.
fn parse_type<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<TypeExpr, PErr<'s>> {
    struct Level {
        name: Ident,
        args: Vec<TypeExpr>,
    }
    fn finish(level: Level, end: usize) -> TypeExpr {
        let span = level.name.span.start..end;
        TypeExpr {
            name: level.name,
            args: level.args,
            span,
        }
    }
    /// After an error inside `<...>`: skips what still looks like type arguments up to the `>`
    /// closing the outermost open list, and closes every open level.
    fn abandon_type(c: Ctx<'_>, inp: &mut Inp<'_, '_>, mut stack: Vec<Level>) -> TypeExpr {
        let mut depth = stack.len();
        while let Some(t) = c.tok(idx(inp)) {
            match t {
                Tok::Lt => depth += 1,
                Tok::Gt => depth -= 1,
                Tok::Ident | Tok::Int | Tok::Comma => {}
                _ => break,
            }
            inp.skip();
            if depth == 0 {
                break;
            }
        }
        let end = c.end(idx(inp).saturating_sub(1));
        let mut node: Option<TypeExpr> = None;
        loop {
            let mut top = stack.pop().expect("abandon_type with an empty stack");
            top.args.extend(node.take());
            let t = finish(top, end);
            if stack.is_empty() {
                return t;
            }
            node = Some(t);
        }
    }

    let mut stack: Vec<Level> = Vec::new();
    loop {
        // A type name.
        let i = idx(inp);
        if c.tok(i) != Some(Tok::Ident) {
            let mut err = c.expected(&[Exp::L("type")], i);
            if stack.is_empty() {
                return Err(err);
            }
            if c.tok(i) == Some(Tok::Int) {
                err = c.custom(
                    c.error(
                        codes::DYN0001,
                        format!("expected a type, found integer literal `{}`", c.text(i)),
                        c.range(i, i + 1),
                        "type arguments must be types",
                    )
                    .with_note("fixed-size arrays such as `array<f32, 4>` are not supported in this position"),
                );
            }
            inp.emit(err);
            return Ok(abandon_type(c, inp, stack));
        }
        inp.skip();
        let name = c.ident_at(i);
        let mut node = if c.tok(i + 1) == Some(Tok::Lt) {
            inp.skip();
            if stack.len() + 1 > MAX_NESTING {
                inp.emit(
                    c.custom(
                        c.error(
                            codes::DYN0004,
                            format!("type nesting exceeds the limit of {MAX_NESTING} levels"),
                            c.range(i + 1, i + 2),
                            "this `<` is nested too deeply",
                        )
                        .with_note("the rest of this type is ignored"),
                    ),
                );
                // Skip the rest of this too-deep argument list.
                let mut depth = 1usize;
                while let Some(t) = c.tok(idx(inp)) {
                    match t {
                        Tok::Lt => depth += 1,
                        Tok::Gt => depth -= 1,
                        Tok::Ident | Tok::Comma => {}
                        _ => break,
                    }
                    inp.skip();
                    if depth == 0 {
                        break;
                    }
                }
                let end = c.end(idx(inp) - 1);
                TypeExpr {
                    span: name.span.start..end,
                    name,
                    args: Vec::new(),
                }
            } else {
                stack.push(Level { name, args: Vec::new() });
                continue;
            }
        } else {
            TypeExpr {
                span: name.span.clone(),
                name,
                args: Vec::new(),
            }
        };
        // Close argument lists.
        loop {
            let Some(top) = stack.last_mut() else { return Ok(node) };
            top.args.push(node);
            let j = idx(inp);
            match c.tok(j) {
                Some(Tok::Comma) if c.tok(j + 1) == Some(Tok::Gt) => {
                    inp.skip();
                    inp.skip();
                    node = finish(stack.pop().expect("non-empty"), c.end(j + 1));
                }
                Some(Tok::Comma) => {
                    inp.skip();
                    break;
                }
                Some(Tok::Gt) => {
                    inp.skip();
                    node = finish(stack.pop().expect("non-empty"), c.end(j));
                }
                _ => {
                    inp.emit(c.expected(&[Exp::T(Tok::Comma), Exp::T(Tok::Gt)], j));
                    return Ok(abandon_type(c, inp, stack));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Size expressions: integers, `len(NAME)`, NAME, parentheses, `+ - * /` (left-associative,
// `*` and `/` binding tighter). Parsed iteratively (operator precedence with explicit stacks).

#[derive(Clone, Copy)]
enum SizeOp {
    Bin(BinOp),
    /// An open parenthesis at this byte offset.
    Paren(usize),
}

fn prec(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        BinOp::Mul | BinOp::Div => 2,
    }
}

/// `(expression, span including any parentheses around it)`
type SizeVal = (SizeExpr, Span);

fn reduce(vals: &mut Vec<SizeVal>, op: BinOp) {
    let (Some((rhs, rs)), Some((lhs, ls))) = (vals.pop(), vals.pop()) else {
        return;
    };
    let span = ls.start..rs.end;
    vals.push((
        SizeExpr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            span: span.clone(),
        },
        span,
    ));
}

/// Parses a size expression. Fails (without consuming) only when no expression starts here; any
/// later problem is reported and an expression is still returned.
fn parse_size<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<SizeExpr, PErr<'s>> {
    let first = idx(inp);
    let mut ops: Vec<SizeOp> = Vec::new();
    let mut vals: Vec<SizeVal> = Vec::new();
    let mut operators = 0usize;
    let mut expect_operand = true;
    loop {
        let i = idx(inp);
        let t = c.tok(i);
        if expect_operand {
            let sp = c.range(i, i + 1);
            match t {
                Some(Tok::Int) => {
                    inp.skip();
                    let text = c.text(i);
                    let value = match int_value(text) {
                        IntVal::Ok(v) => v,
                        IntVal::Overflow => {
                            inp.emit(
                                c.custom(
                                    c.error(
                                        codes::DYN0005,
                                        format!("integer literal `{text}` is too large"),
                                        sp.clone(),
                                        "does not fit in 64 bits",
                                    )
                                    .with_note("size expressions are evaluated as unsigned 64-bit integers"),
                                ),
                            );
                            0
                        }
                        IntVal::Malformed => 0,
                    };
                    vals.push((
                        SizeExpr::Int {
                            value,
                            span: sp.clone(),
                        },
                        sp,
                    ));
                    expect_operand = false;
                }
                Some(Tok::Ident) if c.text(i) == "len" && c.tok(i + 1) == Some(Tok::LParen) => {
                    inp.skip();
                    inp.skip();
                    let j = idx(inp);
                    let resource = if c.tok(j) == Some(Tok::Ident) {
                        inp.skip();
                        c.ident_at(j)
                    } else {
                        inp.emit(c.expected(&[Exp::L("resource name")], j));
                        let p = c.start(j);
                        Ident {
                            name: String::new(),
                            span: p..p,
                        }
                    };
                    let k = idx(inp);
                    if c.tok(k) != Some(Tok::RParen) {
                        if c.tok(j) == Some(Tok::Ident) {
                            inp.emit(c.expected(&[Exp::T(Tok::RParen)], k));
                        }
                        scan(c, inp, |_| false, false);
                    }
                    if c.tok(idx(inp)) == Some(Tok::RParen) {
                        inp.skip();
                    }
                    let span = c.range(i, idx(inp));
                    vals.push((
                        SizeExpr::Len {
                            resource,
                            span: span.clone(),
                        },
                        span,
                    ));
                    expect_operand = false;
                }
                Some(Tok::Ident) => {
                    inp.skip();
                    vals.push((SizeExpr::Param(c.ident_at(i)), sp));
                    expect_operand = false;
                }
                Some(Tok::LParen) => {
                    inp.skip();
                    ops.push(SizeOp::Paren(sp.start));
                }
                Some(Tok::Minus) if matches!(c.tok(i + 1), Some(Tok::Int | Tok::Float)) => {
                    inp.skip();
                    inp.skip();
                    let span = c.range(i, i + 2);
                    inp.emit(
                        c.custom(
                            c.error(
                                codes::DYN0005,
                                "negative number in a size expression",
                                span.clone(),
                                "sizes cannot be negative",
                            )
                            .with_note("size expressions are unsigned integers"),
                        ),
                    );
                    vals.push((
                        SizeExpr::Int {
                            value: 0,
                            span: span.clone(),
                        },
                        span,
                    ));
                    expect_operand = false;
                }
                Some(Tok::Float) => {
                    inp.skip();
                    inp.emit(
                        c.custom(
                            c.error(
                                codes::DYN0005,
                                format!("float literal `{}` in a size expression", c.text(i)),
                                sp.clone(),
                                "expected an integer",
                            )
                            .with_note("size expressions are unsigned integers"),
                        ),
                    );
                    vals.push((
                        SizeExpr::Int {
                            value: 0,
                            span: sp.clone(),
                        },
                        sp,
                    ));
                    expect_operand = false;
                }
                _ => {
                    let err = c.expected(&[Exp::L("size expression")], i);
                    if i == first {
                        return Err(err);
                    }
                    inp.emit(err);
                    let p = c.start(i);
                    vals.push((SizeExpr::Int { value: 0, span: p..p }, p..p));
                    expect_operand = false;
                }
            }
            continue;
        }
        let open_parens = ops.iter().filter(|o| matches!(o, SizeOp::Paren(_))).count();
        let op = match t {
            Some(Tok::Plus) => BinOp::Add,
            Some(Tok::Minus) => BinOp::Sub,
            Some(Tok::Star) => BinOp::Mul,
            Some(Tok::Slash) => BinOp::Div,
            Some(Tok::RParen) if open_parens > 0 => {
                inp.skip();
                while let Some(SizeOp::Bin(op)) = ops.last().copied() {
                    ops.pop();
                    reduce(&mut vals, op);
                }
                if let Some(SizeOp::Paren(start)) = ops.pop() {
                    if let Some(v) = vals.last_mut() {
                        v.1 = start..c.end(i);
                    }
                }
                continue;
            }
            _ if open_parens > 0 => {
                inp.emit(c.expected(
                    &[
                        Exp::T(Tok::Plus),
                        Exp::T(Tok::Minus),
                        Exp::T(Tok::Star),
                        Exp::T(Tok::Slash),
                        Exp::T(Tok::RParen),
                    ],
                    i,
                ));
                // Skip to this parenthesis' `)`.
                scan(c, inp, |_| false, false);
                continue;
            }
            _ => break,
        };
        operators += 1;
        if operators > MAX_SIZE_OPERATORS {
            inp.emit(c.custom(c.error(
                codes::DYN0004,
                format!("size expression has more than {MAX_SIZE_OPERATORS} operators"),
                c.range(i, i + 1),
                "too many operators",
            )));
            // Skip the rest of the expression.
            let mut open = open_parens;
            let mut depth = 0usize;
            while let Some(t) = c.tok(idx(inp)) {
                if t.is_open() {
                    depth += 1;
                } else if t.is_close() {
                    if depth > 0 {
                        depth -= 1;
                    } else if open > 0 && t == Tok::RParen {
                        open -= 1;
                    } else {
                        break;
                    }
                } else if depth == 0 && open == 0 && matches!(t, Tok::Comma | Tok::Gt | Tok::Semi) {
                    break;
                }
                inp.skip();
            }
            let span = c.range(first, idx(inp));
            return Ok(SizeExpr::Int { value: 0, span });
        }
        while let Some(SizeOp::Bin(top)) = ops.last().copied() {
            if prec(top) < prec(op) {
                break;
            }
            ops.pop();
            reduce(&mut vals, top);
        }
        ops.push(SizeOp::Bin(op));
        inp.skip();
        expect_operand = true;
    }
    while let Some(op) = ops.pop() {
        if let SizeOp::Bin(op) = op {
            reduce(&mut vals, op);
        }
    }
    Ok(vals.pop().map(|v| v.0).unwrap_or(SizeExpr::Int {
        value: 0,
        span: c.range(first, first),
    }))
}

/// `array<T[, LEN]>`, `stream<T>` or a plain type.
fn parse_rtype<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<ResourceType, PErr<'s>> {
    let i = idx(inp);
    if c.tok(i) == Some(Tok::Ident) && c.text(i) == "stream" && c.tok(i + 1) == Some(Tok::Lt) {
        inp.skip();
        inp.skip();
        let elem = parse_type(c, inp)?;
        let j = idx(inp);
        if c.tok(j) != Some(Tok::Gt) {
            return Err(c.expected(&[Exp::T(Tok::Gt)], j));
        }
        inp.skip();
        return Ok(ResourceType::Stream {
            elem,
            span: c.range(i, idx(inp)),
        });
    }
    if !(c.tok(i) == Some(Tok::Ident) && c.text(i) == "array" && c.tok(i + 1) == Some(Tok::Lt)) {
        return parse_type(c, inp).map(ResourceType::Single);
    }
    inp.skip();
    inp.skip();
    let elem = match parse_type(c, inp) {
        Ok(t) => t,
        Err(e) => {
            inp.emit(e);
            let p = c.start(idx(inp));
            TypeExpr {
                name: Ident {
                    name: String::new(),
                    span: p..p,
                },
                args: Vec::new(),
                span: p..p,
            }
        }
    };
    let mut len = None;
    if c.tok(idx(inp)) == Some(Tok::Comma) {
        inp.skip();
        if c.tok(idx(inp)) != Some(Tok::Gt) {
            match parse_size(c, inp) {
                Ok(s) => len = Some(s),
                Err(e) => inp.emit(e),
            }
            if c.tok(idx(inp)) == Some(Tok::Comma) && c.tok(idx(inp) + 1) == Some(Tok::Gt) {
                inp.skip();
            }
        }
    }
    let j = idx(inp);
    if c.tok(j) == Some(Tok::Gt) {
        inp.skip();
    } else if len.is_some() {
        inp.emit(c.expected(&[Exp::L("operator"), Exp::T(Tok::Gt)], j));
    } else {
        inp.emit(c.expected(&[Exp::T(Tok::Comma), Exp::T(Tok::Gt)], j));
    }
    Ok(ResourceType::Array {
        elem,
        len,
        span: c.range(i, idx(inp)),
    })
}

// ---------------------------------------------------------------------------------------------
// Constant trip counts.

/// Recognises `(var|let) I [: u32|i32] = A; I (<|<=) B; I++ | I += 1 | I = I + 1` over the
/// tokens `s..e` of a `for` header, with `A` and `B` integer literals.
fn trip_count(c: Ctx<'_>, s: usize, e: usize) -> Option<u64> {
    let toks = &c.toks[s..e];
    let text = |k: usize| c.text(s + k);
    let is = |k: usize, t: Tok| toks.get(k) == Some(&t);
    let int = |k: usize| match (toks.get(k), int_value(text(k))) {
        (Some(Tok::Int), IntVal::Ok(v)) => Some(v),
        _ => None,
    };
    let mut k = 0;
    if !(is(0, Tok::Ident) && matches!(text(0), "var" | "let")) {
        return None;
    }
    k += 1;
    if !is(k, Tok::Ident) {
        return None;
    }
    let var = text(k);
    let is_var = |k: usize| is(k, Tok::Ident) && text(k) == var;
    k += 1;
    if is(k, Tok::Colon) {
        if !(is(k + 1, Tok::Ident) && matches!(text(k + 1), "u32" | "i32")) {
            return None;
        }
        k += 2;
    }
    if !is(k, Tok::Eq) {
        return None;
    }
    let a = int(k + 1)?;
    if !is(k + 2, Tok::Semi) || !is_var(k + 3) {
        return None;
    }
    let inclusive = match toks.get(k + 4) {
        Some(Tok::Lt) => false,
        Some(Tok::Le) => true,
        _ => return None,
    };
    let b = int(k + 5)?;
    if !is(k + 6, Tok::Semi) {
        return None;
    }
    k += 7;
    let rest = toks.len() - k;
    let step_ok = match rest {
        // WGSL has no prefix `++`.
        2 => is_var(k) && is(k + 1, Tok::PlusPlus),
        3 => is_var(k) && is(k + 1, Tok::PlusEq) && int(k + 2) == Some(1),
        5 => is_var(k) && is(k + 1, Tok::Eq) && is_var(k + 2) && is(k + 3, Tok::Plus) && int(k + 4) == Some(1),
        _ => false,
    };
    if !step_ok {
        return None;
    }
    Some(if b < a {
        0
    } else if inclusive {
        (b - a).saturating_add(1)
    } else {
        b - a
    })
}

// ---------------------------------------------------------------------------------------------
// Small building blocks.

fn ident<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Ident, Ex<'s>> + Clone + 's {
    just(Tok::Ident)
        .map_with(move |_, e| {
            let sp: Sp = e.span();
            c.ident_at(sp.start)
        })
        .labelled("identifier")
}

/// The tokens up to the next unmatched closing delimiter (the inside of a group): their trimmed
/// byte span, or `None` when there are none.
fn inside<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Span>, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let (s, e) = scan(c, inp, |_| false, true);
        Ok((s < e).then(|| c.range(s, e)))
    })
}

/// Like [`inside`], as a token range.
fn inside_range<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (usize, usize), Ex<'s>> + Clone + 's {
    cp(move |inp| Ok(scan(c, inp, |_| false, true)))
}

/// Non-empty WGSL text up to a `stop` token (outside groups): a condition, a type, an expression.
fn text_until<'s>(
    c: Ctx<'s>,
    stop: fn(Tok) -> bool,
    what: &'static str,
) -> impl Parser<'s, In<'s>, Span, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let i = idx(inp);
        let (s, e) = scan(c, inp, stop, true);
        if s == e {
            Err(c.expected(&[Exp::L(what)], i))
        } else {
            Ok(c.range(s, e))
        }
    })
}

/// `;` ending a statement. When missing before `}` or at the end of a line, the error is
/// reported and the `;` assumed.
fn stmt_semi<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (), Ex<'s>> + Clone + 's {
    just(Tok::Semi).ignored().recover_with(via_parser(cp(move |inp| {
        let i = idx(inp);
        match c.tok(i) {
            None | Some(Tok::RBrace) => {}
            Some(_) if i > 0 && c.newline_between(i - 1, i) => {}
            _ => return Err(c.expected(&[Exp::T(Tok::Semi)], i)),
        }
        recover_or_skip(c, inp);
        Ok(())
    })))
}

/// `;` ending a declaration. When missing, the error is reported and anything up to the next
/// `;` or item is skipped.
fn item_semi<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (), Ex<'s>> + Clone + 's {
    just(Tok::Semi).ignored().recover_with(via_parser(cp(move |inp| {
        if !recover_or_skip(c, inp) {
            return Ok(());
        }
        while let Some(t) = c.tok(idx(inp)) {
            if t == Tok::Semi {
                inp.skip();
                break;
            }
            if t.starts_item() || t == Tok::At || t.is_close() {
                break;
            }
            skip_one(c, inp);
        }
        Ok(())
    })))
}

/// Recovery for a broken statement: skips it up to and including its `;`, or up to and including
/// a `{ }` group, or up to the closing `}` of the block.
fn stmt_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Stmt, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let i = idx(inp);
        let first = match c.tok(i) {
            Some(t) if !t.is_close() => t,
            _ => return Err(c.expected(&[Exp::L("statement")], i)),
        };
        if !recover_or_skip(c, inp) {
            return Ok(Stmt::Other {
                span: c.range(i, idx(inp)),
            });
        }
        skip_one(c, inp);
        if first != Tok::LBrace {
            while let Some(t) = c.tok(idx(inp)) {
                match t {
                    Tok::Semi => {
                        inp.skip();
                        break;
                    }
                    Tok::LBrace => {
                        skip_one(c, inp);
                        break;
                    }
                    _ if t.is_close() => break,
                    _ => skip_one(c, inp),
                }
            }
        }
        Ok(Stmt::Other {
            span: c.range(i, idx(inp)),
        })
    })
}

/// Recovery for a broken item: skips its attributes and keyword, then up to the next `;`, or a
/// `{ }` group followed by something that starts an item, or the next item keyword.
fn item_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Item>, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let i = idx(inp);
        if c.tok(i).is_none() {
            return Err(c.expected(&[Exp::L("item")], i));
        }
        if !recover_or_skip(c, inp) {
            return Ok(None);
        }
        while c.tok(idx(inp)) == Some(Tok::At) {
            inp.skip();
            if c.tok(idx(inp)) == Some(Tok::Ident) {
                inp.skip();
            }
            if c.tok(idx(inp)) == Some(Tok::LParen) {
                skip_one(c, inp);
            }
        }
        let Some(first) = c.tok(idx(inp)) else { return Ok(None) };
        skip_one(c, inp);
        if first == Tok::Semi {
            return Ok(None);
        }
        // The name after an item keyword is skipped even if it is a keyword (`input stage: u32;`).
        if first.starts_item() && c.tok(idx(inp)).is_some_and(|t| t.is_keyword() && t != Tok::Loop) {
            inp.skip();
        }
        while let Some(t) = c.tok(idx(inp)) {
            match t {
                Tok::Semi => {
                    inp.skip();
                    break;
                }
                Tok::LBrace => {
                    skip_one(c, inp);
                    match c.tok(idx(inp)) {
                        Some(Tok::Semi) => {
                            inp.skip();
                            break;
                        }
                        Some(t) if t.starts_item() || t == Tok::At => break,
                        None => break,
                        _ => {}
                    }
                }
                _ if t.starts_item() || t == Tok::At => break,
                _ => skip_one(c, inp),
            }
        }
        Ok(None)
    })
}

/// Recovery inside a list (`,`-separated, closed by `close`): skips to the next `,` or `;`.
fn list_skip<'s, O: Clone + 's>(
    c: Ctx<'s>,
    what: &'static str,
) -> impl Parser<'s, In<'s>, Option<O>, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let i = idx(inp);
        match c.tok(i) {
            None | Some(Tok::Comma | Tok::RParen | Tok::RBrace | Tok::RBracket) => {
                return Err(c.expected(&[Exp::L(what)], i));
            }
            _ => {}
        }
        if !recover_or_skip(c, inp) {
            return Ok(None);
        }
        let (s, e) = scan(c, inp, |t| matches!(t, Tok::Comma | Tok::Semi), false);
        if s == e {
            return Err(c.expected(&[Exp::L(what)], i));
        }
        Ok(None)
    })
}

/// Recovery for a broken `switch` clause: skips to the next `case`, `default` or the closing `}`.
fn clause_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Block>, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let i = idx(inp);
        match c.tok(i) {
            None | Some(Tok::RBrace) => return Err(c.expected(&[Exp::L("switch clause")], i)),
            _ => {}
        }
        if !recover_or_skip(c, inp) {
            return Ok(None);
        }
        skip_one(c, inp);
        scan(c, inp, |t| matches!(t, Tok::Case | Tok::Default), false);
        Ok(None)
    })
}

// ---------------------------------------------------------------------------------------------
// Bodies.

fn block_parser<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Block, Ex<'s>> + Clone + 's {
    recursive(move |block| {
        let semi = stmt_semi(c);
        let target = ident(c).labelled("stage name");
        let payload = just(Tok::LParen).ignore_then(inside(c)).then_ignore(just(Tok::RParen));
        let count = just(Tok::LBracket)
            .ignore_then(inside(c))
            .then_ignore(just(Tok::RBracket))
            .map_with(move |inner, e| (inner, c.span(e.span())));

        let spawn = just(Tok::Spawn)
            .ignore_then(count.clone().or_not())
            .then(target.clone())
            .then(payload.clone())
            .then_ignore(semi.clone())
            .validate(move |((count, target), payload), e, emitter| {
                let count = match count {
                    Some((None, brackets)) => {
                        emitter.emit(
                            c.custom(
                                c.error(
                                    codes::DYN0001,
                                    "empty fan-out count",
                                    brackets,
                                    "expected a count between `[` and `]`",
                                )
                                .with_hint(
                                    "write `spawn[n] stage(payload);`, or `spawn stage(payload);` for a single spawn",
                                ),
                            ),
                        );
                        None
                    }
                    Some((inner, _)) => inner,
                    None => None,
                };
                Stmt::Spawn(Spawn {
                    target,
                    payload,
                    count,
                    span: c.span(e.span()),
                })
            });

        let become_ = just(Tok::Become)
            .ignore_then(count.or_not())
            .then(target)
            .then(payload)
            .then_ignore(semi.clone())
            .validate(move |((count, target), payload), e, emitter| {
                if let Some((_, brackets)) = count {
                    emitter.emit(
                        c.custom(
                            c.error(
                                codes::DYN0001,
                                "`become` cannot fan out",
                                brackets,
                                "a count is not allowed here",
                            )
                            .with_note("`become` replaces the current work item with exactly one other")
                            .with_hint("use `spawn[n] stage(payload);` to fan out"),
                        ),
                    );
                }
                Stmt::Become(Spawn {
                    target,
                    payload,
                    count: None,
                    span: c.span(e.span()),
                })
            });

        let emit = just(Tok::Emit)
            .ignore_then(ident(c).labelled("stream name"))
            .then(just(Tok::LParen).ignore_then(inside(c)).then_ignore(just(Tok::RParen)))
            .then_ignore(semi.clone())
            .map_with(move |(target, value), e| {
                Stmt::Emit(Emit {
                    stream: target,
                    value,
                    span: c.span(e.span()),
                })
            });

        let cond = text_until(c, |t| matches!(t, Tok::LBrace | Tok::Semi), "condition");

        let else_if = just(Tok::Else).ignore_then(
            just(Tok::If)
                .ignore_then(cond.clone())
                .then(block.clone())
                .map_with(move |(cond, then), e| (c.span(e.span()).start, cond, then)),
        );
        let if_ = just(Tok::If)
            .ignore_then(cond.clone())
            .then(block.clone())
            .then(else_if.repeated().collect::<Vec<_>>())
            .then(just(Tok::Else).ignore_then(block.clone()).or_not())
            .map_with(move |(((cond, then), else_ifs), else_block), e| {
                let span = c.span(e.span());
                let mut else_ = else_block.map(|b| Box::new(Stmt::Block(b)));
                for (start, cond, then) in else_ifs.into_iter().rev() {
                    else_ = Some(Box::new(Stmt::If {
                        cond,
                        then,
                        else_,
                        span: start..span.end,
                    }));
                }
                Stmt::If {
                    cond,
                    then,
                    else_,
                    span,
                }
            });

        let for_ = just(Tok::For)
            .ignore_then(
                just(Tok::LParen)
                    .ignore_then(inside_range(c))
                    .then_ignore(just(Tok::RParen)),
            )
            .then(block.clone())
            .map_with(move |((s, end), body), e| Stmt::Loop {
                kind: LoopKind::For,
                header: c.range(s, end),
                trip_count: trip_count(c, s, end),
                body,
                span: c.span(e.span()),
            });

        let while_ =
            just(Tok::While)
                .ignore_then(cond.clone())
                .then(block.clone())
                .map_with(move |(header, body), e| Stmt::Loop {
                    kind: LoopKind::While,
                    header,
                    trip_count: None,
                    body,
                    span: c.span(e.span()),
                });

        let keyword_end = move |_, e: &mut chumsky::input::MapExtra<'s, '_, In<'s>, Ex<'s>>| {
            let end = c.span(e.span()).end;
            end..end
        };
        let loop_ = just(Tok::Loop)
            .map_with(keyword_end)
            .then(block.clone())
            .map_with(move |(header, body), e| Stmt::Loop {
                kind: LoopKind::Loop,
                header,
                trip_count: None,
                body,
                span: c.span(e.span()),
            });
        let continuing = just(Tok::Continuing)
            .map_with(keyword_end)
            .then(block.clone())
            .map_with(move |(header, body), e| Stmt::Loop {
                kind: LoopKind::Continuing,
                header,
                trip_count: None,
                body,
                span: c.span(e.span()),
            });

        let case_selectors = text_until(
            c,
            |t| matches!(t, Tok::Colon | Tok::LBrace | Tok::Semi),
            "case selector",
        );
        let clause = choice((
            just(Tok::Case).ignore_then(case_selectors).ignored(),
            just(Tok::Default).ignored(),
        ))
        .then_ignore(just(Tok::Colon).or_not())
        .ignore_then(block.clone())
        .map(Some)
        .recover_with(via_parser(clause_skip(c)));
        let switch = just(Tok::Switch)
            .ignore_then(text_until(
                c,
                |t| matches!(t, Tok::LBrace | Tok::Semi),
                "selector expression",
            ))
            .then(
                clause
                    .repeated()
                    .collect::<Vec<_>>()
                    .delimited_by(just(Tok::LBrace), just(Tok::RBrace)),
            )
            .map_with(move |(header, clauses), e| Stmt::Switch {
                header,
                clauses: clauses.into_iter().flatten().collect(),
                span: c.span(e.span()),
            });

        let other = cp(move |inp| {
            let i = idx(inp);
            match c.tok(i) {
                Some(t) if !starts_special_stmt(t) => {}
                _ => return Err(c.expected(&[Exp::L("statement")], i)),
            }
            scan_statement(c, inp);
            Ok(())
        })
        .then(semi)
        .map_with(move |_, e| Stmt::Other { span: c.span(e.span()) });

        // WGSL statement attributes (`@diagnostic(..)`) are accepted and ignored.
        let stmt_attr = just(Tok::At)
            .then(just(Tok::Ident))
            .then(just(Tok::LParen).then(inside_range(c)).then(just(Tok::RParen)).or_not())
            .ignored();

        let stmt = stmt_attr
            .repeated()
            .ignore_then(choice((
                other,
                spawn,
                become_,
                emit,
                if_,
                for_,
                while_,
                loop_,
                continuing,
                switch,
                block.clone().map(Stmt::Block),
            )))
            .labelled("statement")
            .recover_with(via_parser(stmt_skip(c)))
            .boxed();

        stmt.repeated()
            .collect::<Vec<_>>()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .map_with(move |stmts, e| Block {
                stmts,
                span: c.span(e.span()),
            })
            .labelled("block")
    })
}

// ---------------------------------------------------------------------------------------------
// Items.

/// An item before its attributes and span are attached.
enum Body {
    Resource {
        kind: ResourceKind,
        name: Ident,
        ty: ResourceType,
        fill: Option<Literal>,
    },
    Param {
        name: Ident,
        ty: TypeExpr,
        default: Option<Literal>,
    },
    Struct {
        name: Ident,
        fields: Vec<Field>,
    },
    Wgsl {
        kind: WgslItemKind,
        name: Ident,
        body: Option<Block>,
    },
    Stage {
        name: Ident,
        params: Vec<Option<(Vec<Attribute>, StageParam)>>,
        body: Block,
    },
    Entry {
        stage: Ident,
        count: SizeExpr,
        until: Option<Block>,
    },
}

fn build_item<'s>(
    c: Ctx<'s>,
    attrs: Vec<Attribute>,
    body: Body,
    span: Span,
    emitter: &mut chumsky::input::Emitter<PErr<'s>>,
) -> Item {
    let no_attrs = |what: &str, attrs: &[Attribute], emitter: &mut chumsky::input::Emitter<PErr<'s>>| {
        if let (Some(first), Some(last)) = (attrs.first(), attrs.last()) {
            emitter.emit(c.custom(c.error(
                codes::DYN0001,
                format!("attributes are not allowed on `{what}`"),
                first.span.start..last.span.end,
                "not allowed here",
            )));
        }
    };
    match body {
        Body::Resource { kind, name, ty, fill } => Item::Resource(Resource {
            attrs,
            kind,
            name,
            ty,
            fill,
            span,
        }),
        Body::Param { name, ty, default } => Item::Param(Param {
            attrs,
            name,
            ty,
            default,
            span,
        }),
        Body::Struct { name, fields } => {
            no_attrs("struct", &attrs, emitter);
            Item::Struct(StructDecl { name, fields, span })
        }
        Body::Wgsl { kind, name, body } => {
            match kind {
                WgslItemKind::Const => no_attrs("const", &attrs, emitter),
                WgslItemKind::Alias => no_attrs("alias", &attrs, emitter),
                WgslItemKind::Workgroup => no_attrs("var", &attrs, emitter),
                WgslItemKind::Fn => {}
            }
            Item::Wgsl(WgslItem { kind, name, body, span })
        }
        Body::Stage { name, params, body } => {
            let params: Vec<_> = params.into_iter().flatten().collect();
            let mut payload: Option<StageParam> = None;
            let mut index: Option<StageParam> = None;
            if params.len() > 2 {
                let extra = &params[2].1;
                emitter.emit(
                    c.custom(
                        c.error(
                            codes::DYN0001,
                            format!(
                                "stage `{}` has {} parameters; a stage takes at most two",
                                name.name,
                                params.len()
                            ),
                            extra.span.start..params[params.len() - 1].1.span.end,
                            "extra parameters",
                        )
                        .with_note("a stage takes at most one payload parameter and one `@index` parameter")
                        .with_hint("bundle the payload values in a struct"),
                    ),
                );
            }
            for (attrs, p) in params.iter().cloned() {
                let mut is_index = false;
                for a in &attrs {
                    if a.name.name == "index" && !is_index {
                        is_index = true;
                        if !a.args.is_empty() {
                            emitter.emit(c.custom(c.error(
                                codes::DYN0001,
                                "`@index` takes no arguments",
                                a.span.clone(),
                                "remove the arguments",
                            )));
                        }
                    } else if c.count_error() {
                        emitter.emit(
                            c.custom(
                                c.error(
                                    codes::DYN0001,
                                    format!("unexpected attribute `@{}` on a stage parameter", a.name.name),
                                    a.span.clone(),
                                    "not allowed here",
                                )
                                .with_note("the only attribute a stage parameter takes is `@index`, once"),
                            ),
                        );
                    }
                }
                let slot = if is_index { &mut index } else { &mut payload };
                match slot {
                    None => *slot = Some(p),
                    Some(prev) if params.len() <= 2 => {
                        let (message, note) = if is_index {
                            (
                                format!("stage `{}` has two `@index` parameters", name.name),
                                "a stage has at most one `@index` parameter: its position in a fan-out",
                            )
                        } else {
                            (
                                format!("stage `{}` has two payload parameters", name.name),
                                "a stage has at most one payload parameter; mark the fan-out index with `@index`",
                            )
                        };
                        emitter.emit(
                            c.custom(
                                c.error(codes::DYN0001, message, p.span.clone(), "second one here")
                                    .with_label(prev.span.clone(), "first one here")
                                    .with_note(note)
                                    .with_hint(if is_index {
                                        "remove one of the `@index` attributes"
                                    } else {
                                        "bundle the payload values in a struct, or mark the index parameter `@index`"
                                    }),
                            ),
                        );
                    }
                    Some(_) => {}
                }
            }
            Item::Stage(Stage {
                attrs,
                name,
                payload,
                index,
                body,
                span,
            })
        }
        Body::Entry { stage, count, until } => Item::Entry(Entry {
            attrs,
            stage,
            count,
            until,
            span,
        }),
    }
}

fn file_parser<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Vec<Option<Item>>, Ex<'s>> + 's {
    let block = block_parser(c).boxed();
    let ident = ident(c);
    let ty = cp(move |inp| parse_type(c, inp)).labelled("type");
    let size = cp(move |inp| parse_size(c, inp)).labelled("size expression");
    let semi = item_semi(c);

    let attr = just(Tok::At)
        .ignore_then(ident.clone().labelled("attribute name"))
        .then(
            size.clone()
                .separated_by(just(Tok::Comma))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(just(Tok::LParen), just(Tok::RParen))
                .or_not(),
        )
        .map_with(move |(name, args), e| Attribute {
            name,
            args: args.unwrap_or_default(),
            span: c.span(e.span()),
        });
    let attrs = attr.repeated().collect::<Vec<_>>();

    let number = select! { Tok::Int => (), Tok::Float => () };
    let literal = choice((
        just(Tok::Minus).or_not().then(number).ignored(),
        just(Tok::True).ignored(),
        just(Tok::False).ignored(),
    ))
    .map_with(move |_, e| {
        let sp: Sp = e.span();
        let span = c.span(sp);
        let text = if c.tok(sp.start) == Some(Tok::Minus) {
            format!("-{}", c.text(sp.end - 1))
        } else {
            c.src[span.clone()].to_string()
        };
        Literal { text, span }
    })
    .labelled("literal");

    let kind = select! {
        Tok::Input => ResourceKind::Input,
        Tok::Output => ResourceKind::Output,
        Tok::Buffer => ResourceKind::Buffer,
    };
    let resource = kind
        .then(ident.clone())
        .then_ignore(just(Tok::Colon))
        .then(cp(move |inp| parse_rtype(c, inp)).labelled("type"))
        .then(just(Tok::Eq).ignore_then(literal).or_not())
        .then_ignore(semi.clone())
        .map(|(((kind, name), ty), fill)| Body::Resource { kind, name, ty, fill });

    let param = just(Tok::Param)
        .ignore_then(ident.clone())
        .then_ignore(just(Tok::Colon))
        .then(ty.clone())
        .then(just(Tok::Eq).ignore_then(literal).or_not())
        .then_ignore(semi.clone())
        .map(|((name, ty), default)| Body::Param { name, ty, default });

    let field = attrs
        .clone()
        .then(ident.clone())
        .then_ignore(just(Tok::Colon))
        .then(ty.clone())
        .validate(move |((attrs, name), ty), e, emitter| {
            if let Some((first, last)) = attrs.first().zip(attrs.last()).filter(|_| c.count_error()) {
                emitter.emit(
                    c.custom(
                        c.error(
                            codes::DYN0001,
                            "attributes on struct fields are not supported",
                            first.span.start..last.span.end,
                            "not allowed here",
                        )
                        .with_note("the compiler chooses the layout of every struct itself"),
                    ),
                );
            }
            let span = name.span.start..c.span(e.span()).end;
            Some(Field { name, ty, span })
        })
        .recover_with(via_parser(list_skip(c, "field")));
    let field_sep = just(Tok::Comma).ignored().or(just(Tok::Semi)
        .validate(move |_, e, emitter| {
            if c.count_error() {
                emitter.emit(
                    c.custom(
                        c.error(
                            codes::DYN0001,
                            "struct fields are separated by `,`",
                            c.span(e.span()),
                            "expected `,`",
                        )
                        .with_hint("replace this `;` with `,`"),
                    ),
                );
            }
        })
        .ignored());
    let struct_ = just(Tok::Struct)
        .ignore_then(ident.clone())
        .then(
            field
                .separated_by(field_sep)
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(just(Tok::LBrace), just(Tok::RBrace)),
        )
        .then_ignore(just(Tok::Semi).or_not())
        .map(|(name, fields)| Body::Struct {
            name,
            fields: fields.into_iter().flatten().collect(),
        });

    let params_group = just(Tok::LParen)
        .then(inside_range(c))
        .then(just(Tok::RParen))
        .ignored();
    let ret = just(Tok::Arrow).ignore_then(text_until(
        c,
        |t| matches!(t, Tok::LBrace | Tok::Semi) || t.starts_item(),
        "return type",
    ));
    let fn_ = just(Tok::Fn)
        .ignore_then(ident.clone())
        .then_ignore(params_group)
        .then_ignore(ret.or_not())
        .then(block.clone())
        .map(|(name, body)| Body::Wgsl {
            kind: WgslItemKind::Fn,
            name,
            body: Some(body),
        });

    let const_ = just(Tok::Const)
        .ignore_then(ident.clone())
        .then_ignore(
            just(Tok::Colon)
                .ignore_then(text_until(
                    c,
                    |t| matches!(t, Tok::Eq | Tok::Semi | Tok::LBrace) || t.starts_item(),
                    "type",
                ))
                .or_not(),
        )
        .then_ignore(just(Tok::Eq))
        .then_ignore(text_until(
            c,
            |t| matches!(t, Tok::Semi | Tok::LBrace) || t.starts_item(),
            "expression",
        ))
        .then_ignore(semi.clone())
        .map(|name| Body::Wgsl {
            kind: WgslItemKind::Const,
            name,
            body: None,
        });

    let alias = just(Tok::Alias)
        .ignore_then(ident.clone())
        .then_ignore(just(Tok::Eq))
        .then_ignore(text_until(
            c,
            |t| matches!(t, Tok::Semi | Tok::LBrace) || t.starts_item(),
            "type",
        ))
        .then_ignore(semi.clone())
        .map(|name| Body::Wgsl {
            kind: WgslItemKind::Alias,
            name,
            body: None,
        });

    // `var` is no keyword (WGSL bodies declare variables with it): a file-scope `var` is the
    // identifier `var` followed by `<workgroup>`, the only address space a .dyn file may declare.
    let var_kw = just(Tok::Ident).try_map(move |_, sp: Sp| {
        if c.text(sp.start) == "var" {
            Ok(())
        } else {
            Err(c.expected(&[Exp::L("item")], sp.start))
        }
    });
    let workgroup = any().try_map(move |_, sp: Sp| {
        if c.text(sp.start) == "workgroup" {
            return Ok(());
        }
        Err(c.custom(
            c.error(
                codes::DYN0001,
                format!("module-scope `var<{}>` is not part of .dyn", c.text(sp.start)),
                c.span(sp),
                "only `workgroup` is allowed here",
            )
            .with_note(
                "the only module-scope variables of .dyn are `var<workgroup> name: T;`: declare storage with \
                 `input`, `output` or `buffer`, run-time values with `param`, and constants with `const`",
            ),
        ))
    });
    let var_ = var_kw
        .ignore_then(just(Tok::Lt))
        .ignore_then(workgroup)
        .ignore_then(just(Tok::Gt))
        .ignore_then(ident.clone())
        .then_ignore(just(Tok::Colon))
        .then_ignore(text_until(
            c,
            |t| matches!(t, Tok::Semi | Tok::LBrace | Tok::Eq) || t.starts_item(),
            "type",
        ))
        .then_ignore(semi.clone())
        .map(|name| Body::Wgsl {
            kind: WgslItemKind::Workgroup,
            name,
            body: None,
        });

    let stage_param = attrs
        .clone()
        .then(ident.clone())
        .then_ignore(just(Tok::Colon))
        .then(ty.clone())
        .map_with(move |((attrs, name), ty), e| {
            Some((
                attrs,
                StageParam {
                    name,
                    ty,
                    span: c.span(e.span()),
                },
            ))
        })
        .recover_with(via_parser(list_skip(c, "parameter")));
    let stage = just(Tok::Stage)
        .ignore_then(ident.clone())
        .then(
            stage_param
                .separated_by(just(Tok::Comma))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(just(Tok::LParen), just(Tok::RParen)),
        )
        .then(block.clone())
        .map(|((name, params), body)| Body::Stage { name, params, body });

    let count = just(Tok::LParen).ignore_then(size).then_ignore(just(Tok::RParen));
    let entry = just(Tok::Entry).ignore_then(choice((
        just(Tok::Loop)
            .ignore_then(ident.clone())
            .then(count.clone())
            .then_ignore(just(Tok::Until))
            .then(block)
            .then_ignore(just(Tok::Semi).or_not())
            .map(|((stage, count), until)| Body::Entry {
                stage,
                count,
                until: Some(until),
            }),
        ident.then(count).then_ignore(semi).map(|(stage, count)| Body::Entry {
            stage,
            count,
            until: None,
        }),
    )));

    let item = attrs
        .then(choice((resource, param, struct_, fn_, const_, alias, var_, stage, entry)).labelled("item"))
        .validate(move |(attrs, body), e, emitter| Some(build_item(c, attrs, body, c.span(e.span()), emitter)))
        .labelled("item")
        .recover_with(via_parser(item_skip(c)))
        .boxed();

    item.repeated().collect::<Vec<_>>().then_ignore(end())
}

// ---------------------------------------------------------------------------------------------
// Errors to diagnostics.

fn describe_tok(t: Tok) -> String {
    match t {
        Tok::Ident => "identifier".into(),
        Tok::Int => "integer literal".into(),
        Tok::Float => "float literal".into(),
        Tok::Op => "operator".into(),
        _ => format!("`{}`", t.fixed_text().unwrap_or("?")),
    }
}

fn describe_found(c: Ctx<'_>, i: usize) -> String {
    match c.tok(i) {
        None => "end of file".into(),
        Some(t) => {
            let text = c.text(i);
            match t {
                Tok::Ident => format!("identifier `{text}`"),
                Tok::Int => format!("integer literal `{text}`"),
                Tok::Float => format!("float literal `{text}`"),
                Tok::Op => format!("`{text}`"),
                _ if t.is_keyword() => format!("keyword `{text}`"),
                _ => format!("`{}`", t.fixed_text().unwrap_or("?")),
            }
        }
    }
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => {
            let shown = &items[..items.len().min(8)];
            let (last, init) = shown.split_last().expect("non-empty");
            if items.len() > shown.len() {
                format!("one of {}, {}, ...", init.join(", "), last)
            } else {
                format!("one of {} or {}", init.join(", "), last)
            }
        }
    }
}

fn to_diagnostic(c: Ctx<'_>, err: PErr<'_>) -> Diagnostic {
    let i = err.span().start;
    let (expected, found) = match err.into_reason() {
        RichReason::Custom(Custom(d)) => return *d,
        RichReason::ExpectedFound { expected, found } => (expected, found.map(|f| *f)),
    };
    let n = c.toks.len();
    let i = if found.is_some() { i.min(n) } else { n };
    let mut exp: Vec<String> = Vec::new();
    for p in &expected {
        let s = match p {
            RichPattern::Token(t) => describe_tok(**t),
            RichPattern::Label(l) => l.to_string(),
            RichPattern::EndOfInput => "end of file".into(),
            RichPattern::Identifier(s) => format!("`{s}`"),
            RichPattern::Any => "any token".into(),
            _ => continue,
        };
        if !exp.contains(&s) {
            exp.push(s);
        }
    }
    let found_desc = describe_found(c, i);
    let span = if i < n {
        c.range(i, i + 1)
    } else {
        c.src.len()..c.src.len()
    };
    let message = if exp.is_empty() {
        format!("unexpected {found_desc}")
    } else {
        format!("expected {}, found {found_desc}", join_or(&exp))
    };
    let label = if i < n {
        format!("unexpected {}", describe_found(c, i))
    } else {
        "the file ends here".into()
    };
    let mut d = Diagnostic::error(codes::DYN0001, message, span, label);

    let expects = |s: &str| exp.iter().any(|e| e == s);
    let found_tok = c.tok(i);
    if expects("`;`")
        && i > 0
        && (found_tok.is_none()
            || found_tok == Some(Tok::RBrace)
            || found_tok.is_some_and(Tok::starts_item)
            || c.newline_between(i - 1, i))
    {
        let p = c.end(i - 1);
        d = d
            .with_label(p..p, "`;` expected here")
            .with_hint("did you forget a `;`?");
    } else if let Some(t) = found_tok {
        if t.is_keyword() && (expects("identifier") || expects("stage name") || expects("type")) {
            d = d.with_hint(format!(
                "`{}` is a reserved word and cannot be used as a name",
                c.text(i)
            ));
        } else if t == Tok::Semi && expects("`,`") && expects("`)`") {
            d = d.with_hint("list elements are separated by `,`");
        } else if expects("block") && exp.len() <= 2 {
            d = d.with_hint("write the body in braces: `{ ... }`");
        } else if t == Tok::Until {
            d = d.with_hint("a graph-level loop is written `entry loop stage(count) until { ... }`");
        } else if (expects("item") && t == Tok::Ident && matches!(c.text(i), "var" | "let" | "override"))
            || (i > 0 && c.text(i - 1) == "var" && expects("`<`"))
        {
            d = d.with_note(
                "the only module-scope variables of .dyn are `var<workgroup> name: T;`: declare storage with \
                 `input`, `output` or `buffer`, run-time values with `param`, and constants with `const`",
            );
        } else if expects("item") && matches!(t, Tok::Spawn | Tok::Become | Tok::Emit) {
            d = d.with_hint(format!("`{}` is a statement: it belongs in a stage body", c.text(i)));
        } else if expects("item") && t == Tok::Semi {
            d = d.with_hint("remove this `;`: only `struct` and `entry loop` declarations may end with one");
        } else if expects("item") && !expects("`(`") {
            d = d.with_note(
                "a .dyn file contains only `input`, `output`, `buffer`, `param`, `struct`, `fn`, `const`, \
                 `alias`, `var<workgroup>`, `stage` and `entry` declarations",
            );
        }
    }
    d
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
