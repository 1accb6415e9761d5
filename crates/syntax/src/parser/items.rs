//! Items: declarations, attributes and the whole file.

use super::*;

/// An item before its attributes and span are attached.
pub(super) enum Body {
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

pub(super) fn build_item<'s>(
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

pub(super) fn file_parser<'s>(c: Ctx<'s>) -> impl Parser<'s, In<'s>, Vec<Option<Item>>, Ex<'s>> + 's {
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
    .validate(move |_, e, emitter| {
        let sp: Sp = e.span();
        let negative = c.tok(sp.start) == Some(Tok::Minus);
        let token = c.text(sp.end - 1);
        let value = match c.tok(sp.end - 1) {
            Some(Tok::True) => LiteralValue::Bool(true),
            Some(Tok::False) => LiteralValue::Bool(false),
            _ => match crate::number::read(token) {
                Ok(Number::Int(magnitude, suffix)) => LiteralValue::Int {
                    negative,
                    magnitude,
                    suffix,
                },
                Ok(Number::Float(magnitude, suffix)) => LiteralValue::Float {
                    negative,
                    magnitude,
                    suffix,
                },
                Err(Unreadable::Malformed) => LiteralValue::Invalid,
                Err(Unreadable::TooLarge) => {
                    emitter.emit(c.custom(too_large(token, c.span((sp.end - 1..sp.end).into()))));
                    LiteralValue::Invalid
                }
            },
        };
        let text = if negative {
            format!("-{token}")
        } else {
            token.to_string()
        };
        Literal {
            value,
            text,
            span: c.span(sp),
        }
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
