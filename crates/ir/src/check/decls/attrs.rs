//! Declaration attributes: where each is allowed, and their arguments.

use super::*;

/// Where a declaration attribute may be written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum On {
    Resource,
    Param,
    Stage,
    Entry,
    /// `entry loop ... until { }`.
    LoopEntry,
}

impl On {
    fn plural(self) -> &'static str {
        match self {
            On::Resource => "resources",
            On::Param => "parameters",
            On::Stage => "stages",
            On::Entry | On::LoopEntry => "entries",
        }
    }
}

/// Every declaration attribute and where it is allowed, in the order diagnostics list them.
/// Each one's arguments are read by its own rule (`u32_attr`, `width_attr`, ...), whose errors
/// show its form.
const ATTRS: &[(&str, On)] = &[
    ("group", On::Resource),
    ("binding", On::Resource),
    ("max_depth", On::Stage),
    ("keyed", On::Stage),
    ("width", On::Stage),
    ("max_emit", On::Stage),
    ("max_rounds", On::LoopEntry),
];

impl<'a> Checker<'a> {
    /// `a`'s name when [`ATTRS`] allows it on `on`; otherwise reports it as unknown there.
    pub(super) fn attr_on(&mut self, a: &ast::Attribute, on: On) -> Option<&'static str> {
        if let Some(&(name, _)) = ATTRS.iter().find(|&&(n, o)| o == on && n == a.name.name) {
            return Some(name);
        }
        let known: Vec<&str> = ATTRS.iter().filter(|&&(_, o)| o == on).map(|&(n, _)| n).collect();
        self.unknown_attr(a, on.plural(), &known);
        None
    }

    fn unknown_attr(&mut self, a: &ast::Attribute, what: &str, known: &[&str]) {
        let name = a.name.name.as_str();
        let label = if known.is_empty() {
            format!("{what} take no attributes")
        } else {
            let list: Vec<String> = known.iter().map(|k| format!("`@{k}`")).collect();
            format!("{what} accept {}", list.join(", "))
        };
        let mut d = Diagnostic::error(DYN0104, format!("unknown attribute `@{name}`"), a.span.clone(), label);
        if let Some(c) = closest(name, known.iter().copied()) {
            d = d.with_hint(format!("did you mean `@{c}`?"));
        }
        self.error(d);
    }

    pub(super) fn duplicate_attr(&mut self, a: &ast::Attribute) {
        let d = Diagnostic::error(
            DYN0104,
            format!("`@{}` given twice", a.name.name),
            a.span.clone(),
            "repeated attribute",
        );
        self.error(d);
    }

    /// The single integer argument of `@name(INT)`, reported when malformed.
    pub(super) fn u32_attr(&mut self, a: &ast::Attribute) -> Option<u32> {
        match a.args.as_slice() {
            [ast::SizeExpr::Int { value, span }] => match u32::try_from(*value) {
                Ok(v) => Some(v),
                Err(_) => {
                    let d = Diagnostic::error(
                        DYN0104,
                        format!("`@{}` argument too large", a.name.name),
                        span.clone(),
                        "must fit in 32 bits",
                    );
                    self.error(d);
                    None
                }
            },
            _ => {
                let d = Diagnostic::error(
                    DYN0104,
                    format!("`@{}` takes one integer", a.name.name),
                    a.span.clone(),
                    format!("expected `@{}(N)` with an integer N", a.name.name),
                );
                self.error(d);
                None
            }
        }
    }

    /// The lane count of `@width(N)`: a power of two in 2..=64 (DYN0111 otherwise).
    pub(super) fn width_attr(&mut self, a: &ast::Attribute) -> Option<u32> {
        let n = self.u32_attr(a)?;
        if (2..=MAX_WIDTH).contains(&n) && n.is_power_of_two() {
            return Some(n);
        }
        let d = Diagnostic::error(
            DYN0111,
            format!("`@width({n})` is not a stage width"),
            a.span.clone(),
            format!("the width must be a power of two from 2 to {MAX_WIDTH}"),
        )
        .with_note(format!(
            "a wide unit runs on N lanes of one {MAX_WIDTH}-lane workgroup, and {MAX_WIDTH} / N units share a batch"
        ))
        .with_hint(match n {
            0 | 1 => "drop `@width` for a one-lane stage".to_string(),
            _ => format!(
                "use `@width({})`",
                n.checked_next_power_of_two().unwrap_or(MAX_WIDTH).min(MAX_WIDTH)
            ),
        });
        self.error(d);
        None
    }

    /// `@max_emit(STREAM, N)`: the stream and N (1..=MAX_EMIT_PER_UNIT), or
    /// `None` after reporting why not.
    pub(super) fn max_emit_attr(&mut self, a: &ast::Attribute) -> Option<(ResourceId, u32)> {
        let usage = |c: &mut Self, span: Span, label: String| {
            let d = Diagnostic::error(DYN0211, "malformed `@max_emit`", span, label).with_hint(
                "write `@max_emit(STREAM, N)`: a stream output and the most elements one unit emits into it",
            );
            c.error(d);
        };
        let [ast::SizeExpr::Param(stream), n] = a.args.as_slice() else {
            usage(self, a.span.clone(), "expected a stream name and a count".into());
            return None;
        };
        let r = match self.lookup(&stream.name, |k| matches!(k, GlobalKind::Resource(_))) {
            Some(GlobalKind::Resource(r)) if matches!(self.resources[r].ty, ast::ResourceType::Stream { .. }) => r,
            _ => {
                usage(
                    self,
                    stream.span.clone(),
                    format!("`{}` is not a stream output", stream.name),
                );
                return None;
            }
        };
        let value = match n {
            ast::SizeExpr::Int { value, .. } => *value,
            other => {
                usage(self, other.span(), "the count must be an integer literal".into());
                return None;
            }
        };
        if value == 0 || value > u64::from(crate::check::body::MAX_EMIT_PER_UNIT) {
            let d = Diagnostic::error(
                DYN0211,
                format!("`@max_emit` of {value}"),
                n.span(),
                format!(
                    "a unit may emit 1 to {} elements into a stream",
                    crate::check::body::MAX_EMIT_PER_UNIT
                ),
            )
            .with_note("the executor reserves this much room in the stream's window before it starts a unit")
            .with_hint(if value == 0 {
                "a stage that never emits into the stream needs no `@max_emit` for it"
            } else {
                "emit from a fan-out of smaller units (`spawn[n]`), each emitting a part"
            });
            self.error(d);
            return None;
        }
        Some((r, value as u32))
    }
}
