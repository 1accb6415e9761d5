//! Size expressions: lengths, counts and key domains.

use super::*;

impl<'a> Checker<'a> {
    pub(in crate::check) fn size_expr(&mut self, e: &ast::SizeExpr, ctx: SizeCtx) -> Option<SizeExpr> {
        match e {
            ast::SizeExpr::Int { value, span } => {
                if u32::try_from(*value).is_err() {
                    self.size_range(span, format!("{value} does not fit in 32 bits"));
                    return None;
                }
                Some(SizeExpr::Int(*value))
            }
            ast::SizeExpr::Binary { op, lhs, rhs, span } => {
                let l = self.size_expr(lhs, ctx);
                let r = self.size_expr(rhs, ctx);
                let e = SizeExpr::Binary(*op, Box::new(l?), Box::new(r?));
                // Constant parts are evaluated here as the kernel will, in 32 bits; the rest at
                // run time (`LengthRule::eval`), where the values are known.
                if let Err(why) = e.constant() {
                    self.size_range(span, why);
                    return None;
                }
                Some(e)
            }
            ast::SizeExpr::Len { resource, span } => {
                let name = resource.name.as_str();
                match self.lookup(name, |k| matches!(k, GlobalKind::Resource(_))) {
                    Some(GlobalKind::Resource(j)) => {
                        let target = self.resources[j];
                        if let ast::ResourceType::Stream { .. } = target.ty {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("`len({name})` of a stream"),
                                span.clone(),
                                format!(
                                    "`{name}` is a stream: how many elements it gets is known only as the graph runs"
                                ),
                            )
                            .with_hint("size with the inputs and parameters the emits depend on, or make it an array");
                            self.error(d);
                            return None;
                        }
                        if !matches!(target.ty, ast::ResourceType::Array { .. }) {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("`len({name})` of a single value"),
                                span.clone(),
                                format!("`{name}` is not an array"),
                            );
                            self.error(d);
                            return None;
                        }
                        if let SizeCtx::Length(i) = ctx {
                            if target.kind != ResourceKind::Input && j >= i {
                                let label = if j == i {
                                    "a resource's length cannot depend on itself".to_string()
                                } else {
                                    format!("`{name}` is declared after this resource")
                                };
                                let d = Diagnostic::error(DYN0106, format!("length refers to `{name}`"), span.clone(), label)
                                    .with_note("a length may use inputs, parameters, integers and the lengths of outputs/buffers declared before it, so lengths never depend on each other in a circle")
                                    .with_hint(format!("declare `{name}` first, or use the input its length comes from"));
                                self.error(d);
                                return None;
                            }
                        }
                        Some(SizeExpr::Len(j))
                    }
                    Some(other) => {
                        let d = Diagnostic::error(
                            DYN0100,
                            format!("`len` needs a resource, `{name}` is {}", other.describe()),
                            resource.span.clone(),
                            format!("`{name}` is {}", other.describe()),
                        );
                        self.error(d);
                        None
                    }
                    None => {
                        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Resource(_)));
                        let mut d = Diagnostic::error(
                            DYN0100,
                            format!("unknown resource `{name}`"),
                            resource.span.clone(),
                            "no resource has this name",
                        );
                        if let Some(c) = hint {
                            d = d.with_hint(format!("did you mean `{c}`?"));
                        }
                        self.error(d);
                        None
                    }
                }
            }
            ast::SizeExpr::Param(id) => {
                let name = id.name.as_str();
                match self.lookup(name, |k| matches!(k, GlobalKind::Param(_))) {
                    Some(GlobalKind::Param(j)) => {
                        let p = self.params[j];
                        if p.ty.name.name != "u32" || !p.ty.args.is_empty() {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("parameter `{name}` is not a `u32`"),
                                id.span.clone(),
                                format!("`{name}` is `{}`; sizes and counts are `u32`", self.text(&p.ty.span)),
                            );
                            self.error(d);
                            return None;
                        }
                        Some(SizeExpr::Param(j))
                    }
                    Some(GlobalKind::Resource(_)) => {
                        let d = Diagnostic::error(
                            DYN0100,
                            format!("`{name}` is a resource, not a parameter"),
                            id.span.clone(),
                            "a size expression can use parameters, integers and `len(resource)`",
                        )
                        .with_hint(format!("for its element count write `len({name})`"));
                        self.error(d);
                        None
                    }
                    other => {
                        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Param(_)));
                        let label = match other {
                            Some(k) => format!("`{name}` is {}, not a parameter", k.describe()),
                            None => "no parameter has this name".to_string(),
                        };
                        let mut d =
                            Diagnostic::error(DYN0100, format!("unknown parameter `{name}`"), id.span.clone(), label);
                        if let Some(c) = hint {
                            d = d.with_hint(format!("did you mean `{c}`?"));
                        }
                        self.error(d);
                        None
                    }
                }
            }
        }
    }

    /// DYN0106: a constant size expression outside the 32 bits the kernel computes in.
    fn size_range(&mut self, span: &Span, why: String) {
        let d = Diagnostic::error(DYN0106, "size expression out of range", span.clone(), why)
            .with_note("sizes and counts are `u32`: every step of a size expression must stay within 0..=4294967295")
            .with_hint("keep every step within 32 bits: use smaller numbers, or divide before multiplying");
        self.error(d);
    }
}
