//! Resource declarations: types, length rules, fills, bindings, streams.

use super::attrs::On;
use super::*;

impl<'a> Checker<'a> {
    pub(in crate::check) fn check_resources(&mut self, structs: &Structs) -> IdVec<ResourceId, Resource> {
        let decls = self.resources.clone();
        let mut out = Vec::new();
        let mut pins: Vec<Option<(u32, u32, Span)>> = Vec::new();
        for (i, r) in decls.iter() {
            // Attributes.
            // Each attribute as written (first occurrence), with its value when well-formed.
            let mut group: Option<(Option<u32>, Span)> = None;
            let mut binding: Option<(Option<u32>, Span)> = None;
            for a in &r.attrs {
                let slot = match self.attr_on(a, On::Resource) {
                    Some("group") => &mut group,
                    Some(_) => &mut binding, // `@binding`
                    None => continue,
                };
                if slot.is_some() {
                    self.duplicate_attr(a);
                } else {
                    *slot = Some((self.u32_attr(a), a.span.clone()));
                }
            }
            let pin = match (&group, &binding) {
                (Some((Some(g), gs)), Some((Some(b), bs))) => {
                    let in_range = self.binding_in_range("group", *g, MAX_BIND_GROUPS, "maxBindGroups", gs)
                        & self.binding_in_range("binding", *b, MAX_BINDING, "maxBindingsPerBindGroup", bs);
                    in_range.then(|| (*g, *b, gs.start.min(bs.start)..gs.end.max(bs.end)))
                }
                // A malformed argument was reported; its partner is there.
                (Some(_), Some(_)) => None,
                (Some((_, s)), None) | (None, Some((_, s))) => {
                    let d = Diagnostic::error(
                        DYN0104,
                        "`@group` and `@binding` go together",
                        s.clone(),
                        "this needs its partner",
                    )
                    .with_hint("pin a resource with both `@group(G) @binding(B)`, or with neither to let dyngc choose");
                    self.error(d);
                    None
                }
                (None, None) => None,
            };
            pins.push(pin);

            // Element type.
            let (elem_te, len, is_array, ty_span) = match &r.ty {
                ast::ResourceType::Array { elem, len, span } => (elem, len.as_ref(), true, span.clone()),
                ast::ResourceType::Single(te) => (te, None, false, te.span.clone()),
                ast::ResourceType::Stream { elem, span } => (elem, None, false, span.clone()),
            };
            let stream = matches!(r.ty, ast::ResourceType::Stream { .. });
            if stream {
                self.check_stream_decl(r, elem_te, &ty_span, structs);
            }
            let elem = match self.resolve_ty(elem_te) {
                Ok(t) => {
                    if r.kind == ResourceKind::Input && Self::contains_atomic(&t, structs) {
                        let d = Diagnostic::error(
                            DYN0105,
                            format!("input `{}` holds atomics", r.name.name),
                            elem_te.span.clone(),
                            "inputs are read-only storage, which cannot hold atomics",
                        )
                        .with_hint("use a non-atomic type, or make it a `buffer`/`output`");
                        self.error(d);
                    }
                    t
                }
                Err(e @ (TyError::Unsupported(_) | TyError::Array)) => {
                    let why = match e {
                        TyError::Unsupported(why) => why,
                        _ => "arrays cannot be nested".into(),
                    };
                    let d = Diagnostic::error(
                        DYN0105,
                        format!("unsupported type for resource `{}`", r.name.name),
                        elem_te.span.clone(),
                        why,
                    )
                    .with_note("resource elements may be u32, i32, f32, vectors of those, atomic<u32>/atomic<i32> (not in inputs) and structs of those");
                    self.error(d);
                    Ty::Scalar(Scalar::U32)
                }
                Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
            };

            // Length rule.
            let len = match (r.kind, is_array, len) {
                (ResourceKind::Input, _, Some(l)) => {
                    let d = Diagnostic::error(
                        DYN0106,
                        format!("input `{}` cannot declare a length", r.name.name),
                        l.span(),
                        "an input's length is the length of the data it is given",
                    )
                    .with_hint(format!(
                        "write `input {}: array<{}>;`",
                        r.name.name,
                        self.text(&elem_te.span)
                    ));
                    self.error(d);
                    None
                }
                (ResourceKind::Output | ResourceKind::Buffer, true, None) => {
                    let kind = if r.kind == ResourceKind::Output {
                        "output"
                    } else {
                        "buffer"
                    };
                    let d = Diagnostic::error(
                        DYN0106,
                        format!("{kind} array `{}` needs a length", r.name.name),
                        ty_span,
                        "no length given",
                    )
                    .with_hint(format!(
                        "write `array<{}, LEN>`, where LEN can use `len(input)`, parameters and integers",
                        self.text(&elem_te.span)
                    ));
                    self.error(d);
                    None
                }
                (_, _, Some(l)) => Some(self.size_expr(l, SizeCtx::Length(i)).unwrap_or(SizeExpr::Int(0))),
                _ => None,
            };

            // Fill (a stream's was refused above).
            let fill = match &r.fill {
                None => None,
                Some(_) if stream => None,
                Some(lit) => {
                    if r.kind == ResourceKind::Input {
                        let d = Diagnostic::error(
                            DYN0110,
                            format!("input `{}` cannot have a fill value", r.name.name),
                            lit.span.clone(),
                            "an input's contents come from its data",
                        );
                        self.error(d);
                        None
                    } else {
                        match elem {
                            Ty::Scalar(s) | Ty::Atomic(s) | Ty::Vector(_, s) => match literal_for(lit, s) {
                                Ok(t) => Some(t),
                                Err(why) => {
                                    let d = Diagnostic::error(
                                        DYN0110,
                                        format!("fill value does not fit `{}`", s.wgsl()),
                                        lit.span.clone(),
                                        why,
                                    );
                                    self.error(d);
                                    None
                                }
                            },
                            Ty::Struct(_) => {
                                let d = Diagnostic::error(
                                    DYN0110,
                                    format!("resource `{}` of struct elements cannot have a fill value", r.name.name),
                                    lit.span.clone(),
                                    "fill values are single scalar literals",
                                )
                                .with_hint("remove it (elements start as zero) and initialise the fields in a stage");
                                self.error(d);
                                None
                            }
                        }
                    }
                }
            };

            out.push(Resource {
                kind: r.kind,
                name: r.name.name.clone(),
                elem,
                is_array,
                stream,
                len,
                fill,
                group: 0,
                binding: 0,
                span: r.span.clone(),
            });
        }

        // Bindings: pinned first, then the lowest free group-0 numbers in declaration order.
        let mut taken: std::collections::HashMap<(u32, u32), Span> = Default::default();
        for (i, pin) in pins.iter().enumerate() {
            if let Some((g, b, span)) = pin {
                if let Some(first) = taken.get(&(*g, *b)) {
                    let d = Diagnostic::error(
                        DYN0109,
                        format!("two resources use `@group({g}) @binding({b})`"),
                        span.clone(),
                        format!("`{}` pinned here", out[i].name),
                    )
                    .with_label(first.clone(), "already used here");
                    self.error(d);
                } else {
                    taken.insert((*g, *b), span.clone());
                }
                out[i].group = *g;
                out[i].binding = *b;
            }
        }
        let mut next = 0u64;
        for (i, pin) in pins.iter().enumerate() {
            if pin.is_none() {
                while next < u64::from(u32::MAX) && taken.contains_key(&(0, next as u32)) {
                    next += 1;
                }
                out[i].group = 0;
                out[i].binding = u32::try_from(next).unwrap_or(u32::MAX);
                next += 1;
            }
        }
        IdVec::from_vec(out)
    }

    /// DYN0113: a `stream<T>` is an `output` of non-atomic elements without a fill value.
    fn check_stream_decl(&mut self, r: &ast::Resource, elem: &ast::TypeExpr, ty_span: &Span, structs: &Structs) {
        if r.kind != ResourceKind::Output {
            let kind = if r.kind == ResourceKind::Input {
                "input"
            } else {
                "buffer"
            };
            let d = Diagnostic::error(
                DYN0113,
                format!("{kind} `{}` cannot be a stream", r.name.name),
                ty_span.clone(),
                "only outputs are streams",
            )
            .with_note("a stream collects what stage bodies `emit` and hands it to the host while the graph runs")
            .with_hint(format!(
                "declare it `output {}: stream<{}>;`",
                r.name.name,
                self.text(&elem.span)
            ));
            self.error(d);
        }
        if let Some(lit) = &r.fill {
            let d = Diagnostic::error(
                DYN0113,
                format!("stream `{}` cannot have a fill value", r.name.name),
                lit.span.clone(),
                "a stream holds only the elements emitted into it",
            )
            .with_hint("remove the `= ...`");
            self.error(d);
        }
        if let Ok(t) = self.resolve_ty(elem) {
            if Self::contains_atomic(&t, structs) {
                let d = Diagnostic::error(
                    DYN0113,
                    format!("stream `{}` holds atomics", r.name.name),
                    elem.span.clone(),
                    "stream elements are written once by `emit` and never updated",
                )
                .with_hint("use the plain type (`u32` for `atomic<u32>`)");
                self.error(d);
            }
        }
    }

    /// DYN0104 unless `value < limit`, WebGPU's guaranteed minimum of the device limit `name`:
    /// beyond it pipeline creation fails on some devices, long after `check`.
    fn binding_in_range(&mut self, attr: &str, value: u32, limit: u32, name: &str, span: &Span) -> bool {
        if value < limit {
            return true;
        }
        let d = Diagnostic::error(
            DYN0104,
            format!("`@{attr}({value})` is out of range"),
            span.clone(),
            format!(
                "WebGPU guarantees `@{attr}` numbers 0 to {} (`{name}` is at least {limit})",
                limit - 1
            ),
        )
        .with_hint(format!(
            "use a `@{attr}` number below {limit}, or leave the attributes out to let dyngc choose"
        ));
        self.error(d);
        false
    }
}
