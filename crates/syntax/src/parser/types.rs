//! Integer literals, types and size expressions: hand-written iterative parsers.

use super::*;

// ---------------------------------------------------------------------------------------------
// Integer literals.

/// The value of an integer token (`4`, `0x10u`); malformed (reported by the lexer) or too large
/// (the caller reports it, [`too_large`]) otherwise.
pub(super) fn int_value(text: &str) -> Result<u64, Unreadable> {
    match crate::number::read(text)? {
        Number::Int(v, _) => Ok(v),
        Number::Float(..) => Err(Unreadable::Malformed),
    }
}

/// DYN0005: a well-formed number beyond WGSL's abstract types (64-bit integers, `f64`).
pub(super) fn too_large(text: &str, span: Span) -> Diagnostic {
    let is_int = crate::number::scan(text, 0).is_int;
    let (kind, label) = if is_int {
        ("integer", "does not fit in 64 bits")
    } else {
        ("float", "beyond the largest 64-bit float")
    };
    Diagnostic::error(
        codes::DYN0005,
        format!("{kind} literal `{text}` is too large"),
        span,
        label,
    )
}

// ---------------------------------------------------------------------------------------------
// Types: `IDENT [< TYPE {, TYPE} [,] >]`, parsed iteratively with a depth limit.

/// Parses a type. Fails (without consuming) only when no type name starts here; any later problem
/// is reported and the type built so far is returned.
pub(super) fn parse_type<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<TypeExpr, PErr<'s>> {
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
pub(super) enum SizeOp {
    Bin(BinOp),
    /// An open parenthesis at this byte offset.
    Paren(usize),
}

pub(super) fn prec(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        BinOp::Mul | BinOp::Div => 2,
    }
}

/// `(expression, span including any parentheses around it)`
pub(super) type SizeVal = (SizeExpr, Span);

pub(super) fn reduce(vals: &mut Vec<SizeVal>, op: BinOp) {
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
pub(super) fn parse_size<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<SizeExpr, PErr<'s>> {
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
                        Ok(v) => v,
                        Err(Unreadable::TooLarge) => {
                            inp.emit(
                                c.custom(
                                    too_large(text, sp.clone())
                                        .with_note("size expressions are evaluated as unsigned 64-bit integers"),
                                ),
                            );
                            0
                        }
                        Err(Unreadable::Malformed) => 0,
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
pub(super) fn parse_rtype<'s>(c: Ctx<'s>, inp: &mut Inp<'s, '_>) -> Result<ResourceType, PErr<'s>> {
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
