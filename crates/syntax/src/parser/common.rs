//! Small building blocks and the error recoveries.

use super::*;

// ---------------------------------------------------------------------------------------------
// Small building blocks.

pub(super) fn ident<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Ident, Ex<'s>> + Clone + 's {
    just(Tok::Ident)
        .map_with(move |_, e| {
            let sp: Sp = e.span();
            c.ident_at(sp.start)
        })
        .labelled("identifier")
}

/// The tokens up to the next unmatched closing delimiter (the inside of a group): their trimmed
/// byte span, or `None` when there are none.
pub(super) fn inside<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Span>, Ex<'s>> + Clone + 's {
    cp(move |inp| {
        let (s, e) = scan(c, inp, |_| false, true);
        Ok((s < e).then(|| c.range(s, e)))
    })
}

/// Like [`inside`], as a token range.
pub(super) fn inside_range<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (usize, usize), Ex<'s>> + Clone + 's {
    cp(move |inp| Ok(scan(c, inp, |_| false, true)))
}

/// Non-empty WGSL text up to a `stop` token (outside groups): a condition, a type, an expression.
pub(super) fn text_until<'s>(
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
pub(super) fn stmt_semi<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (), Ex<'s>> + Clone + 's {
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
pub(super) fn item_semi<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, (), Ex<'s>> + Clone + 's {
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
pub(super) fn stmt_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Stmt, Ex<'s>> + Clone + 's {
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
pub(super) fn item_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Item>, Ex<'s>> + Clone + 's {
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
pub(super) fn list_skip<'s, O: Clone + 's>(
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
pub(super) fn clause_skip<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Option<Block>, Ex<'s>> + Clone + 's {
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
