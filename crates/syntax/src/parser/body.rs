//! Stage bodies: statements, blocks, and constant trip counts of `for` loops.

use super::*;

// ---------------------------------------------------------------------------------------------
// Constant trip counts.

/// Recognises `(var|let) I [: u32|i32] = A; I (<|<=) B; I++ | I += 1 | I = I + 1` over the
/// tokens `s..e` of a `for` header, with `A` and `B` integer literals.
pub(super) fn trip_count(c: Ctx<'_>, s: usize, e: usize) -> Option<u64> {
    let toks = &c.toks[s..e];
    let text = |k: usize| c.text(s + k);
    let is = |k: usize, t: Tok| toks.get(k) == Some(&t);
    let int = |k: usize| match (toks.get(k), int_value(text(k))) {
        (Some(Tok::Int), Ok(v)) => Some(v),
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
// Bodies.

pub(super) fn block_parser<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Block, Ex<'s>> + Clone + 's {
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
