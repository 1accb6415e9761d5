//! naga validation of every body, in the WGSL context the code generator emits.

use super::body::collect_sites;
use crate::wgsl::{user_module, ModuleText};
use crate::{EdgeKind, Program};
use dyngc_syntax::ast::{self, Span};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;
use std::ops::Range;

/// The site stub for edge `k`: same parameters as the real site function, empty body.
fn site_stub(program: &Program, k: usize) -> String {
    let e = &program.edges[k];
    let mut params = Vec::new();
    if let Some((_, ty)) = program.stages.get(e.to).and_then(|s| s.payload.as_ref()) {
        params.push(format!("p: {}", ty.wgsl(&program.structs)));
    }
    if e.kind == EdgeKind::FanOut {
        params.push("n: u32".to_string());
    }
    format!("fn dyn_site_{k}({}) {{}}", params.join(", "))
}

/// True if every span the emitter copies is a valid, ordered range of the source (a tree
/// built by hand might not be; copying must never panic).
fn spans_ok(p: &Program) -> bool {
    let src = p.source.as_str();
    let ok = |s: &Span| s.start <= s.end && src.get(s.clone()).is_some();
    if !p.helpers.iter().all(ok) {
        return false;
    }
    for stage in &p.stages {
        let body = &stage.body.span;
        if !ok(body) {
            return false;
        }
        let sites = collect_sites(src, &stage.body);
        if sites.len() != stage.sites.len() {
            return false;
        }
        let mut cursor = body.start;
        for (site, &k) in sites.iter().zip(&stage.sites) {
            let s = &site.spawn.span;
            let e = &p.edges[k];
            if !ok(s) || s.start < cursor || s.end > body.end || e.span != *s {
                return false;
            }
            if !e.payload.iter().chain(&e.count).all(ok) {
                return false;
            }
            cursor = s.end;
        }
    }
    p.entry.until.as_ref().is_none_or(|u| ok(&u.span))
}

/// Validates the program's module; returns its diagnostics (empty when valid).
pub(super) fn validate(
    program: &Program,
    until: Option<&ast::Block>,
    stages: &[&ast::Stage],
    helpers: &[&ast::WgslItem],
) -> Vec<Diagnostic> {
    if !spans_ok(program) {
        return vec![Diagnostic::error(
            DYN0400,
            "the syntax tree does not match its source text",
            0..0,
            "spans out of range or out of order",
        )
        .with_note("this is a bug in whatever built the syntax tree")];
    }
    let mut out = ModuleText::default();
    user_module(program, &mut out, &|k| site_stub(program, k));
    if let Some(u) = until {
        out.push("fn dyn_until() -> bool ");
        out.copy(&program.source, u.span.clone());
        out.push("\n\n");
    }
    out.push("@compute @workgroup_size(1)\nfn dyn_check_main() {}\n");
    let m = Mapper {
        out: &out,
        program,
        stages,
        helpers,
    };
    // naga recurses over the module (e.g. along chains of declarations that use each other), so
    // it runs on a thread with a generous stack: no input may overflow the caller's stack.
    let run = || naga_check(&m);
    let result = std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(NAGA_STACK)
            .spawn_scoped(scope, run)
        {
            Ok(handle) => handle.join().ok(),
            Err(_) => Some(run()),
        }
    });
    result.unwrap_or_else(|| {
        vec![Diagnostic::error(
            DYN0401,
            "naga failed while validating this file",
            0..0,
            "naga panicked",
        )
        .with_note("this is a bug in naga or dyngc; please report it with the file")]
    })
}

/// Stack for the naga thread (address space reserved; only what is used is committed).
const NAGA_STACK: usize = 256 << 20;

fn naga_check(m: &Mapper) -> Vec<Diagnostic> {
    let module = match naga::front::wgsl::parse_str(&m.out.text) {
        Ok(module) => module,
        Err(e) => return vec![m.parse_error(&e)],
    };
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    );
    match validator.validate(&module) {
        Ok(_) => Vec::new(),
        Err(e) => vec![m.validation_error(&e, &module)],
    }
}

struct Mapper<'a> {
    out: &'a ModuleText,
    program: &'a Program,
    stages: &'a [&'a ast::Stage],
    helpers: &'a [&'a ast::WgslItem],
}

impl Mapper<'_> {
    fn map(&self, r: Range<usize>) -> Option<Span> {
        if r.start > self.out.text.len() {
            return None;
        }
        self.out.map.to_source(r)
    }

    /// Where to point when naga's span lies in generated text: the stage (or helper, or the
    /// entry) whose copied text comes next.
    fn fallback(&self, generated: Option<Range<usize>>) -> (Span, String) {
        let start = generated.map_or(self.out.text.len(), |r| r.start);
        let pos = (start..self.out.text.len())
            .find_map(|o| self.map(o..o + 1))
            .map(|s| s.start);
        if let Some(pos) = pos {
            if let Some(st) = self.stages.iter().find(|s| s.span.contains(&pos)) {
                return (st.name.span.clone(), format!("in stage `{}`", st.name.name));
            }
            if let Some(h) = self.helpers.iter().find(|h| h.span.contains(&pos)) {
                return (h.name.span.clone(), format!("in `{}`", h.name.name));
            }
            if self.program.entry.span.contains(&pos) {
                return (
                    self.program.entry.span.clone(),
                    "in the `until` block".into(),
                );
            }
        }
        (0..0, "in code generated for this file".into())
    }

    /// The spawn site whose payload contains `span`, if any.
    fn payload_site(&self, span: &Span) -> Option<usize> {
        self.program.edges.iter().position(|e| {
            e.payload
                .as_ref()
                .is_some_and(|p| p.start <= span.start && span.end <= p.end)
        })
    }

    fn payload_diagnostic(&self, k: usize, span: Span, label: String) -> Diagnostic {
        let e = &self.program.edges[k];
        let target = &self.program.stages[e.to];
        let ty = target
            .payload
            .as_ref()
            .map_or("no payload".to_string(), |(_, t)| {
                format!("`{}`", t.wgsl(&self.program.structs))
            });
        Diagnostic::error(
            DYN0200,
            format!("payload mismatch: `{}` takes {ty}", target.name),
            span,
            label,
        )
    }

    fn parse_error(&self, e: &naga::front::wgsl::ParseError) -> Diagnostic {
        let labels: Vec<(Option<Range<usize>>, String)> = e
            .labels()
            .map(|(s, l)| (s.to_range(), l.to_string()))
            .collect();
        let mapped: Vec<(Span, String)> = labels
            .iter()
            .filter_map(|(r, l)| Some((self.map(r.clone()?)?, l.clone())))
            .collect();
        let message = e.message().to_string();
        let mut d = match mapped.first() {
            Some((span, label)) => {
                let label = if label.is_empty() {
                    message.clone()
                } else {
                    label.clone()
                };
                match self.payload_site(span) {
                    Some(k) => self
                        .payload_diagnostic(k, span.clone(), label)
                        .with_note(format!("naga: {message}")),
                    None => Diagnostic::error(DYN0400, message.clone(), span.clone(), label),
                }
            }
            None => {
                let (span, label) = self.fallback(labels.first().and_then(|(r, _)| r.clone()));
                Diagnostic::error(DYN0400, message.clone(), span, label)
            }
        };
        for (span, label) in mapped.iter().skip(1) {
            d = d.with_label(span.clone(), label.clone());
        }
        for note in e.notes() {
            d = d.with_note(note.to_string());
        }
        d
    }

    fn validation_error(
        &self,
        e: &naga::WithSpan<naga::valid::ValidationError>,
        module: &naga::Module,
    ) -> Diagnostic {
        let inner = e.as_inner();
        let mut chain = vec![inner.to_string()];
        let mut cur: &dyn std::error::Error = inner;
        while let Some(next) = cur.source() {
            chain.push(next.to_string());
            cur = next;
        }
        let described = describe(inner, module);
        let message = match &described {
            Some(m) => m.clone(),
            None => chain.last().cloned().unwrap_or_default(),
        };
        let spans: Vec<(Range<usize>, String)> = e
            .spans()
            .filter_map(|(s, l)| Some((s.to_range()?, l.clone())))
            .collect();
        let label_text = |l: &str| {
            if l.starts_with("naga::ir::Function") {
                "in this function".to_string()
            } else if l.is_empty() || l.starts_with("naga::") {
                message.clone()
            } else {
                l.to_string()
            }
        };
        // The most specific span naga gives is the last one.
        let mut mapped: Vec<(Span, String)> = spans
            .iter()
            .rev()
            .filter_map(|(r, l)| Some((self.map(r.clone())?, label_text(l))))
            .collect();
        mapped.dedup_by(|a, b| a.0 == b.0);
        let mut d = match mapped.first() {
            Some((span, label)) => match self.payload_site(span) {
                Some(k) => self.payload_diagnostic(
                    k,
                    span.clone(),
                    described.clone().unwrap_or_else(|| label.clone()),
                ),
                None => Diagnostic::error(DYN0401, message.clone(), span.clone(), label.clone()),
            },
            None => {
                let (span, label) = match (spans.first(), inner) {
                    (Some((r, _)), _) => self.fallback(Some(r.clone())),
                    (None, naga::valid::ValidationError::Function { name, .. }) => {
                        self.function_location(name)
                    }
                    (None, _) => self.fallback(None),
                };
                Diagnostic::error(DYN0401, message.clone(), span, label)
            }
        };
        for (span, label) in mapped.iter().skip(1) {
            d = d.with_label(span.clone(), label.clone());
        }
        d.with_note(format!("naga: {}", chain.join(": ")))
    }

    fn function_location(&self, name: &str) -> (Span, String) {
        if let Some(stage) = name.strip_prefix("dyn_stage_") {
            if let Some(st) = self.stages.iter().find(|s| s.name.name == stage) {
                return (st.name.span.clone(), format!("in stage `{stage}`"));
            }
        }
        if let Some(h) = self.helpers.iter().find(|h| h.name.name == name) {
            return (h.name.span.clone(), format!("in `{name}`"));
        }
        if name == "dyn_until" {
            return (
                self.program.entry.span.clone(),
                "in the `until` block".into(),
            );
        }
        self.fallback(None)
    }
}

/// A readable message, with WGSL type names, for the validation errors a body commonly hits.
fn describe(e: &naga::valid::ValidationError, module: &naga::Module) -> Option<String> {
    use naga::common::wgsl::TypeContext;
    use naga::valid::{CallError, FunctionError, ValidationError};
    let ValidationError::Function { handle, source, .. } = e else {
        return None;
    };
    let f = module.functions.try_get(*handle).ok()?;
    let type_of = |expr: naga::Handle<naga::Expression>| -> Option<String> {
        let ctx = naga::proc::ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
        let mut typifier = naga::front::Typifier::new();
        typifier.grow(expr, &f.expressions, &ctx).ok()?;
        Some(module.types.type_resolution_to_string(&typifier[expr]))
    };
    let type_name = |ty: naga::Handle<naga::Type>| module.types.type_to_string(ty);
    match source {
        FunctionError::InvalidCall {
            error:
                CallError::ArgumentType {
                    required,
                    seen_expression,
                    ..
                },
            ..
        } => Some(format!(
            "expected `{}`, this is `{}`",
            type_name(*required),
            type_of(*seen_expression)?
        )),
        FunctionError::InvalidReturnType {
            expression: Some(expr),
            expected_ty: Some(ty),
        } => Some(format!(
            "returns `{}`, but the function returns `{}`",
            type_of(*expr)?,
            type_name(*ty)
        )),
        FunctionError::InvalidReturnType {
            expression: None,
            expected_ty: Some(ty),
        } => Some(format!(
            "missing `return`: the function must return a `{}` on every path",
            type_name(*ty)
        )),
        FunctionError::InvalidReturnType {
            expression: Some(expr),
            expected_ty: None,
        } => Some(format!(
            "returns a `{}` from a function that returns nothing",
            type_of(*expr)?
        )),
        FunctionError::InvalidIfType(expr) => Some(format!(
            "`if` condition is `{}`, not `bool`",
            type_of(*expr)?
        )),
        FunctionError::InvalidStoreTypes { pointer, value } => Some(format!(
            "cannot store a `{}` through `{}`",
            type_of(*value)?,
            type_of(*pointer)?
        )),
        _ => None,
    }
}
