//! Parameters, stage signatures and the entry.

use super::attrs::On;
use super::*;

impl<'a> Checker<'a> {
    pub(in crate::check) fn check_params(&mut self) -> IdVec<ParamId, Param> {
        let decls = self.params.clone();
        let mut out = Vec::new();
        for p in decls.values() {
            for a in &p.attrs {
                self.attr_on(a, On::Param);
            }
            let ty = match (p.ty.name.name.as_str(), p.ty.args.is_empty()) {
                ("u32", true) => Some(Scalar::U32),
                ("i32", true) => Some(Scalar::I32),
                ("f32", true) => Some(Scalar::F32),
                _ => {
                    let d = Diagnostic::error(
                        DYN0107,
                        format!("parameter `{}` has an unsupported type", p.name.name),
                        p.ty.span.clone(),
                        "parameters must be `u32`, `i32` or `f32`",
                    );
                    self.error(d);
                    None
                }
            };
            let default = match (&p.default, ty) {
                (Some(lit), Some(s)) => match literal_for(lit, s) {
                    Ok(t) => Some(t),
                    Err(why) => {
                        let d = Diagnostic::error(
                            DYN0107,
                            format!("default of `{}` does not match its type `{}`", p.name.name, s.wgsl()),
                            lit.span.clone(),
                            why,
                        );
                        self.error(d);
                        None
                    }
                },
                _ => None,
            };
            out.push(Param {
                name: p.name.name.clone(),
                ty: ty.unwrap_or(Scalar::U32),
                default,
                span: p.span.clone(),
            });
        }
        IdVec::from_vec(out)
    }

    // ------------------------------------------------------------ stages

    pub(in crate::check) fn check_stage_sigs(&mut self, structs: &Structs) -> IdVec<StageId, StageSig> {
        let decls = self.stages.clone();
        let mut out = Vec::new();
        for s in decls.values() {
            let mut max_depth = None;
            let mut bad_max_depth = false;
            let mut keyed_attr: Option<&ast::Attribute> = None;
            let mut keyed = None;
            let mut width_attr: Option<&ast::Attribute> = None;
            let mut width = None;
            let mut max_emits = Vec::new();
            for a in &s.attrs {
                match self.attr_on(a, On::Stage) {
                    Some("max_depth") => {
                        if max_depth.is_some() {
                            self.duplicate_attr(a);
                        } else if let Some(v) = self.u32_attr(a) {
                            max_depth = Some((v, a.span.clone()));
                        } else {
                            bad_max_depth = true;
                        }
                    }
                    Some("keyed") => {
                        if keyed_attr.is_some() {
                            self.duplicate_attr(a);
                            continue;
                        }
                        keyed_attr = Some(a);
                        if let [domain] = a.args.as_slice() {
                            keyed = self.size_expr(domain, SizeCtx::Count);
                        } else {
                            let d = Diagnostic::error(
                                DYN0104,
                                "`@keyed` takes one size expression",
                                a.span.clone(),
                                "expected `@keyed(DOMAIN)`, e.g. `@keyed(len(dist))`",
                            );
                            self.error(d);
                        }
                    }
                    Some("width") => {
                        if width_attr.is_some() {
                            self.duplicate_attr(a);
                            continue;
                        }
                        width_attr = Some(a);
                        width = self.width_attr(a).map(|w| (w, a.span.clone()));
                    }
                    // `@max_emit`, once per stream.
                    Some(_) => {
                        if let Some((r, n)) = self.max_emit_attr(a) {
                            if max_emits.iter().any(|(q, _, _)| *q == r) {
                                self.duplicate_attr(a);
                            } else {
                                max_emits.push((r, n, a.span.clone()));
                            }
                        }
                    }
                    None => {}
                }
            }
            let payload = match &s.payload {
                None => None,
                Some(p) => {
                    self.check_reserved(&p.name);
                    let ty = match self.resolve_ty(&p.ty) {
                        Ok(t) if Self::contains_atomic(&t, structs) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("payload of `{}` holds atomics", s.name.name),
                                p.ty.span.clone(),
                                "a payload is a value copied into the work queue; it cannot be atomic",
                            );
                            self.error(d);
                            t
                        }
                        Ok(t) => t,
                        Err(TyError::Unsupported(why)) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("unsupported payload type for `{}`", s.name.name),
                                p.ty.span.clone(),
                                why,
                            )
                            .with_note("payloads may be u32, i32, f32, vectors of those, or structs of those");
                            self.error(d);
                            Ty::Scalar(Scalar::U32)
                        }
                        Err(TyError::Array) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("payload of `{}` is an array", s.name.name),
                                p.ty.span.clone(),
                                "a payload cannot be an array",
                            )
                            .with_note("a payload is copied into the work queue word by word: u32, i32, f32, vectors of those, or structs of those")
                            .with_hint("keep the values in a `buffer` (or `input`) and pass an index into it, or a `vec2<u32>` range");
                            self.error(d);
                            Ty::Scalar(Scalar::U32)
                        }
                        Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
                    };
                    Some((p.name.name.clone(), ty))
                }
            };
            let index = match &s.index {
                None => None,
                Some(p) => {
                    self.check_reserved(&p.name);
                    if p.ty.name.name != "u32" || !p.ty.args.is_empty() {
                        let d = Diagnostic::error(
                            DYN0108,
                            format!("`@index` parameter of `{}` must be `u32`", s.name.name),
                            p.ty.span.clone(),
                            "the child's position in its fan-out is a `u32`",
                        )
                        .with_hint(format!("write `@index {}: u32`", p.name.name));
                        self.error(d);
                    }
                    Some(p.name.name.clone())
                }
            };
            if let Some(a) = keyed_attr {
                let ok_payload = matches!(&payload, Some((_, Ty::Scalar(Scalar::U32))));
                if !ok_payload {
                    let span = s.payload.as_ref().map_or(s.name.span.clone(), |p| p.ty.span.clone());
                    let d = Diagnostic::error(
                        DYN0202,
                        format!("keyed stage `{}` must take a `u32` key", s.name.name),
                        span,
                        "the payload of a `@keyed` stage is its key, exactly one `u32`",
                    )
                    .with_label(a.span.clone(), "keyed here");
                    self.error(d);
                }
                if let Some(ix) = &s.index {
                    let d = Diagnostic::error(
                        DYN0202,
                        format!("keyed stage `{}` cannot have `@index`", s.name.name),
                        ix.span.clone(),
                        "keyed stages are spawned once per key, never fanned out",
                    )
                    .with_label(a.span.clone(), "keyed here");
                    self.error(d);
                }
            }
            if let (Some(k), Some(w)) = (keyed_attr, width_attr) {
                let d = Diagnostic::error(
                    DYN0112,
                    format!("keyed stage `{}` cannot be wide", s.name.name),
                    w.span.clone(),
                    "`@width` here",
                )
                .with_label(k.span.clone(), "`@keyed` here")
                .with_note("a keyed unit is claimed by clearing its key's mark, one lane at a time; a group of lanes has no such protocol")
                .with_hint("spawn a wide stage from the keyed one, or drop `@width`");
                self.error(d);
            }
            out.push(StageSig {
                payload,
                index,
                is_keyed: keyed_attr.is_some(),
                keyed,
                max_depth,
                bad_max_depth,
                width,
                max_emits,
            });
        }
        IdVec::from_vec(out)
    }

    // ------------------------------------------------------------ entry

    pub(in crate::check) fn check_entry(&mut self, sigs: &IdVec<StageId, StageSig>) -> Option<Entry> {
        let entries = self.entries.clone();
        let Some(e) = entries.first().copied() else {
            let d = Diagnostic::error(DYN0103, "no entry", 0..0, "this file declares no `entry`").with_hint(
                "add `entry STAGE(COUNT);` naming the stage that starts the graph and how many units it starts",
            );
            self.error(d);
            return None;
        };
        for extra in &entries[1..] {
            let d = Diagnostic::error(DYN0103, "more than one entry", extra.span.clone(), "second entry")
                .with_label(e.span.clone(), "first entry here")
                .with_note("a `.dyn` file is one graph with one entry");
            self.error(d);
        }
        let stage = match self.lookup(&e.stage.name, |k| matches!(k, GlobalKind::Stage(_))) {
            Some(GlobalKind::Stage(i)) => Some(i),
            other => {
                self.unknown_stage(&e.stage, other);
                None
            }
        };
        if let Some(i) = stage {
            let st = self.stages[i];
            if sigs.get(i).is_some_and(|s| s.is_keyed) {
                // A keyed stage takes a key and no `@index` by design; DYN0205's advice (drop
                // the payload, add `@index`) would contradict its declaration, so this is all.
                let mut d = Diagnostic::error(
                    DYN0202,
                    format!("entry stage `{}` is keyed", st.name.name),
                    e.stage.span.clone(),
                    "the entry stage cannot be `@keyed`",
                );
                if let Some(a) = st.attrs.iter().find(|a| a.name.name == "keyed") {
                    d = d.with_label(a.span.clone(), "declared `@keyed` here");
                }
                let d = d.with_hint("start the graph at a stage with an `@index` parameter and no payload, and spawn the keyed stage from it");
                self.error(d);
            } else {
                if let Some(p) = &st.payload {
                    let d = Diagnostic::error(
                        DYN0205,
                        format!("entry stage `{}` takes a payload", st.name.name),
                        p.span.clone(),
                        "the host starts entry units with an index only",
                    )
                    .with_label(e.stage.span.clone(), "used as the entry here")
                    .with_hint("remove the payload; the entry stage reads its inputs by `@index`");
                    self.error(d);
                }
                if st.index.is_none() {
                    let d = Diagnostic::error(
                        DYN0205,
                        format!("entry stage `{}` has no `@index` parameter", st.name.name),
                        st.name.span.clone(),
                        "the entry starts COUNT units, told apart by their index",
                    )
                    .with_label(e.stage.span.clone(), "used as the entry here")
                    .with_hint(format!("declare it as `stage {}(@index i: u32)`", st.name.name));
                    self.error(d);
                }
            }
        }
        let mut max_rounds = None;
        let on = if e.until.is_some() { On::LoopEntry } else { On::Entry };
        for a in &e.attrs {
            if on == On::Entry && a.name.name == "max_rounds" {
                let d = Diagnostic::error(
                    DYN0104,
                    "`@max_rounds` on an entry that is not a loop",
                    a.span.clone(),
                    "only `entry loop ... until { }` runs rounds",
                );
                self.error(d);
            } else if self.attr_on(a, on).is_some() {
                // `@max_rounds`
                if max_rounds.is_some() {
                    self.duplicate_attr(a);
                } else if let Some(v) = self.u32_attr(a) {
                    if v == 0 {
                        let d = Diagnostic::error(
                            DYN0304,
                            "`@max_rounds(0)` allows no round",
                            a.span.clone(),
                            "the loop could never run",
                        )
                        .with_hint("give at least 1");
                        self.error(d);
                    }
                    max_rounds = Some(v);
                }
            }
        }
        let count = self.size_expr(&e.count, SizeCtx::Count);
        if let Some(u) = &e.until {
            if !crate::check::lex::has_ident(self.src, &u.span, "return") {
                let d = Diagnostic::error(
                    DYN0304,
                    "`until` block never returns",
                    u.span.clone(),
                    "this block must `return` a `bool`: `true` ends the loop",
                )
                .with_hint("end it with `return CONDITION;`");
                self.error(d);
            }
        }
        Some(Entry {
            stage: stage?,
            count: count.unwrap_or(SizeExpr::Int(0)),
            until: e.until.clone(),
            max_rounds,
            span: e.span.clone(),
        })
    }

    pub(in crate::check) fn unknown_stage(&mut self, id: &ast::Ident, found: Option<GlobalKind>) {
        let name = id.name.as_str();
        let label = match found {
            Some(k) => format!("`{name}` is {}, not a stage", k.describe()),
            None => "no stage has this name".to_string(),
        };
        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Stage(_)));
        let mut d = Diagnostic::error(DYN0100, format!("unknown stage `{name}`"), id.span.clone(), label);
        if let Some(c) = hint {
            d = d.with_hint(format!("did you mean `{c}`?"));
        }
        self.error(d);
    }
}
