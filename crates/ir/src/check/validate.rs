//! naga validation of every body, in the WGSL context the code generator emits.

use super::body::collect_sites;
use super::names::with_article;
use crate::id::sealed::FromIndex;
use crate::wgsl::{emit_signature, stage_fn, user_declarations, ModuleText};
use crate::{EdgeId, EdgeKind, Program};
use dyngc_syntax::ast::{self, Span};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;
use std::ops::Range;

/// The site stub for edge `k`: same parameters as the real site function, empty body.
fn site_stub(program: &Program, k: EdgeId) -> String {
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
    for stage in p.stages.values() {
        let body = &stage.body.span;
        if !ok(body) {
            return false;
        }
        let (sites, emits) = collect_sites(src, &stage.body);
        if sites.len() != stage.sites.len() || emits.len() != stage.emits.len() {
            return false;
        }
        for (at, e) in emits.iter().zip(&stage.emits) {
            let inside = |s: &Span| ok(s) && s.start >= body.start && s.end <= body.end;
            if at.emit.span != e.span
                || !inside(&e.span)
                || !inside(&e.value)
                || !p.resources.get(e.stream).is_some_and(|r| r.stream)
            {
                return false;
            }
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

/// Validates the program's bodies; returns their diagnostics (empty when valid).
///
/// naga stops at the first error of a module. The whole module is validated first (one run
/// when the file is valid); after an error, the shared declarations alone (structs, resources,
/// parameters, helpers, site stubs: an error there is reported on its own), then each stage
/// function and the `until` block on top of them, so that every stage reports its first error.
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
    let mut shared = ModuleText::default();
    user_declarations(program, &mut shared, &|k| site_stub(program, k), &|r| {
        format!("{} {{}}", emit_signature(program, r))
    });
    let mut units = Vec::new();
    for stage in program.stages.values() {
        let mut unit = ModuleText::default();
        stage_fn(program, stage, &mut unit);
        units.push(unit);
    }
    if let Some(u) = until {
        let mut unit = ModuleText::default();
        unit.push("fn dyn_until() -> bool ");
        unit.copy(&program.source, u.span.clone());
        unit.push("\n\n");
        units.push(unit);
    }
    let cx = Context {
        program,
        stages,
        helpers,
    };
    // naga recurses over the module (e.g. along chains of declarations that use each other), so
    // it runs on a thread with a generous stack: no input may overflow the caller's stack.
    let run = || check_units(&cx, &shared, &units);
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
        vec![
            Diagnostic::error(DYN0401, "naga failed while validating this file", 0..0, "naga panicked")
                .with_note("this is a bug in naga or dyngc; please report it with the file"),
        ]
    })
}

/// Stack for the naga thread (address space reserved; only what is used is committed).
const NAGA_STACK: usize = 256 << 20;

/// The module: `shared`, then `units`, then an entry point.
fn module(shared: &ModuleText, units: &[ModuleText]) -> ModuleText {
    let mut m = ModuleText::default();
    m.append(shared);
    for u in units {
        m.append(u);
    }
    m.push("@compute @workgroup_size(1)\nfn dyn_check_main() {}\n");
    m
}

fn check_units(cx: &Context, shared: &ModuleText, units: &[ModuleText]) -> Vec<Diagnostic> {
    let whole = module(shared, units);
    let Some(first) = naga_check(cx, &whole) else {
        return Vec::new();
    };
    if units.len() <= 1 {
        return vec![first];
    }
    if let Some(d) = naga_check(cx, &module(shared, &[])) {
        return vec![d];
    }
    // Each unit is checked with a copy of the shared part; a file with a large shared part and
    // very many stages stops doing so after a few times the work of the whole module, and
    // checks the remaining units together (reporting their first error).
    let mut budget = whole.text.len().saturating_mul(8).saturating_add(1 << 20);
    let mut out = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        let cost = shared.text.len() + unit.text.len();
        if cost > budget {
            out.extend(naga_check(cx, &module(shared, &units[i..])));
            break;
        }
        budget -= cost;
        out.extend(naga_check(cx, &module(shared, std::slice::from_ref(unit))));
    }
    if out.is_empty() {
        out.push(first);
    }
    out
}

/// naga's first error in `text`, mapped to the source.
fn naga_check(cx: &Context, text: &ModuleText) -> Option<Diagnostic> {
    let m = Mapper { out: text, cx };
    let module = match naga::front::wgsl::parse_str(&text.text) {
        Ok(module) => module,
        Err(e) => return Some(m.parse_error(&e)),
    };
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    );
    match validator.validate(&module) {
        Ok(_) => None,
        Err(e) => Some(m.validation_error(&e, &module)),
    }
}

/// What the mapper needs besides the generated text.
struct Context<'a> {
    program: &'a Program,
    stages: &'a [&'a ast::Stage],
    helpers: &'a [&'a ast::WgslItem],
}

struct Mapper<'a> {
    out: &'a ModuleText,
    cx: &'a Context<'a>,
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
            if let Some(st) = self.cx.stages.iter().find(|s| s.span.contains(&pos)) {
                return (st.name.span.clone(), format!("in stage `{}`", st.name.name));
            }
            if let Some(h) = self.cx.helpers.iter().find(|h| h.span.contains(&pos)) {
                return (h.name.span.clone(), format!("in `{}`", h.name.name));
            }
            if self.cx.program.entry.span.contains(&pos) {
                return (self.cx.program.entry.span.clone(), "in the `until` block".into());
            }
        }
        (0..0, "in code generated for this file".into())
    }

    /// The spawn site whose payload contains `span`, if any.
    fn payload_site(&self, span: &Span) -> Option<EdgeId> {
        self.cx.program.edges.iter().find_map(|(k, e)| {
            e.payload
                .as_ref()
                .is_some_and(|p| p.start <= span.start && span.end <= p.end)
                .then_some(k)
        })
    }

    fn payload_diagnostic(&self, k: EdgeId, span: Span, label: String) -> Diagnostic {
        let e = &self.cx.program.edges[k];
        let target = &self.cx.program.stages[e.to];
        let ty = target.payload.as_ref().map_or("no payload".to_string(), |(_, t)| {
            format!("`{}`", t.wgsl(&self.cx.program.structs))
        });
        Diagnostic::error(
            DYN0200,
            format!("payload mismatch: `{}` takes {ty}", target.name),
            span,
            label,
        )
    }

    fn parse_error(&self, e: &naga::front::wgsl::ParseError) -> Diagnostic {
        let labels: Vec<(Option<Range<usize>>, String)> =
            e.labels().map(|(s, l)| (s.to_range(), l.to_string())).collect();
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

    fn validation_error(&self, e: &naga::WithSpan<naga::valid::ValidationError>, module: &naga::Module) -> Diagnostic {
        let inner = e.as_inner();
        let mut chain = vec![inner.to_string()];
        let mut cur: &dyn std::error::Error = inner;
        while let Some(next) = cur.source() {
            chain.push(next.to_string());
            cur = next;
        }
        let note = format!("naga: {}", chain.join(": "));
        if let Some(d) = self.explain(inner, module, &note) {
            return d;
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
                Some(k) => self.payload_diagnostic(k, span.clone(), described.clone().unwrap_or_else(|| label.clone())),
                None => Diagnostic::error(DYN0401, message.clone(), span.clone(), label.clone()),
            },
            None => {
                let (span, label) = match (spans.first(), inner) {
                    (Some((r, _)), _) => self.fallback(Some(r.clone())),
                    (None, naga::valid::ValidationError::Function { name, .. }) => self.function_location(name),
                    (None, _) => self.fallback(None),
                };
                Diagnostic::error(DYN0401, message.clone(), span, label)
            }
        };
        for (span, label) in mapped.iter().skip(1) {
            d = d.with_label(span.clone(), label.clone());
        }
        d.with_note(note)
    }

    /// Diagnostics for validation errors whose span naga puts somewhere unhelpful (a `let`
    /// initialiser, a function argument, the callee of a call), pointing at the construct the
    /// user wrote instead. `None`: use the generic mapping.
    fn explain(&self, e: &naga::valid::ValidationError, module: &naga::Module, note: &str) -> Option<Diagnostic> {
        use naga::valid::{CallError, FunctionError, ValidationError};
        use naga::Statement;
        let ValidationError::Function {
            handle, name, source, ..
        } = e
        else {
            return None;
        };
        let f = module.functions.try_get(*handle).ok()?;
        let type_of = |expr| expr_type(module, f, expr);
        let type_name = |ty| {
            use naga::common::wgsl::TypeContext;
            module.types.type_to_string(ty)
        };
        match source {
            // A site stub's argument: the payload (or fan-out count) of the spawn, even when the
            // value comes from a `let` (naga points at the `let`'s initialiser then).
            FunctionError::InvalidCall {
                function,
                error:
                    CallError::ArgumentType {
                        index,
                        required,
                        seen_expression,
                    },
            } => {
                let callee = module.functions.try_get(*function).ok()?.name.as_deref()?;
                let k = EdgeId::from_index(callee.strip_prefix("dyn_site_")?.parse().ok()?);
                let edge = self.cx.program.edges.get(k)?;
                let seen = type_of(*seen_expression)?;
                let label = format!("expected `{}`, this is `{seen}`", type_name(*required));
                let mut d = match (&edge.payload, *index) {
                    (Some(p), 0) => self.payload_diagnostic(k, p.clone(), label),
                    _ => Diagnostic::error(
                        DYN0401,
                        format!("fan-out count is `{seen}`, not `u32`"),
                        edge.count.clone()?,
                        label,
                    )
                    .with_hint("convert it with `u32(..)`"),
                };
                if let Some(from) = self.expr_source(f, *seen_expression) {
                    if from.end <= d.primary.span.start || from.start >= d.primary.span.end {
                        d = d.with_label(from, format!("the `{seen}` value comes from here"));
                    }
                }
                Some(d.with_note(note.to_string()))
            }
            // naga points at the condition's value, which may be a `let` or an argument.
            FunctionError::InvalidIfType(cond) => {
                let at = find_stmt(
                    &f.body,
                    &|st| matches!(st, Statement::If { condition, .. } if condition == cond),
                )?;
                // naga's span of an `else if` starts after the previous block, before `else`.
                let src = &self.cx.program.source;
                let toks = dyngc_syntax::tokens(src, &self.map(at.to_range()?)?);
                let mut toks = toks.iter().map(|t| t.span.clone());
                let mut first = toks.next()?;
                if src.get(first.clone()) == Some("else") {
                    first = toks.next()?;
                }
                let pos = first.start;
                let Some(ast::Stmt::If { cond: cond_span, .. }) =
                    self.ast_stmt_at(pos, &|st| matches!(st, ast::Stmt::If { .. }))
                else {
                    return None;
                };
                let ty = type_of(*cond)?;
                let cond_span = inside_parens(src, cond_span.clone());
                let text = src.get(cond_span.clone()).unwrap_or("x");
                let zero = match ty.as_str() {
                    "u32" => Some("0u"),
                    "i32" => Some("0i"),
                    "f32" => Some("0.0"),
                    _ => None,
                };
                let mut d = Diagnostic::error(
                    DYN0401,
                    format!("`if` condition is `{ty}`, not `bool`"),
                    cond_span.clone(),
                    format!("this is `{ty}`"),
                );
                if let Some(zero) = zero {
                    let operand = if text.contains(|c: char| "&|^<>=!+-*/%~ ".contains(c)) {
                        format!("({text})")
                    } else {
                        text.to_string()
                    };
                    d = d.with_hint(format!(
                        "WGSL does not turn numbers into `bool`s; compare explicitly, as in `if ({operand} != {zero})`"
                    ));
                }
                Some(d.with_note(note.to_string()))
            }
            // naga points at the start of the returned expression (only the callee of a call):
            // label the whole expression after `return`, and name what must be returned.
            FunctionError::InvalidReturnType {
                expression: Some(value),
                expected_ty,
            } => {
                let at = find_stmt(
                    &f.body,
                    &|st| matches!(st, Statement::Return { value: Some(v) } if v == value),
                )?;
                let pos = self.map(at.to_range()?)?.start;
                let returned = self.returned_expr(pos)?;
                let ty = type_of(*value)?;
                let (message, label) = match (expected_ty, name.as_str()) {
                    (Some(t), "dyn_until") => (
                        format!("the `until` block must return {}", with_article(&type_name(*t))),
                        format!("this is `{ty}`"),
                    ),
                    (Some(t), _) => (
                        format!(
                            "returns `{ty}`, but {} is declared to return `{}`",
                            who(name),
                            type_name(*t)
                        ),
                        format!("this is `{ty}`"),
                    ),
                    (None, _) => (
                        format!(
                            "returns {} from {}, which returns nothing",
                            with_article(&ty),
                            who(name)
                        ),
                        "this value has nowhere to go".to_string(),
                    ),
                };
                let mut d = Diagnostic::error(DYN0401, message, returned, label);
                if let (Some(t), Some(h)) = (expected_ty, self.cx.helpers.iter().find(|h| h.name.name == *name)) {
                    d = d.with_label(h.name.span.clone(), format!("declared to return `{}`", type_name(*t)));
                }
                if name == "dyn_until" {
                    d = d.with_note("the `until` block decides whether another round runs: `true` ends the loop");
                }
                Some(d.with_note(note.to_string()))
            }
            // naga reports it at the function; point at the `return`.
            FunctionError::InvalidReturnSpot => {
                let is_return = |st: &Statement| matches!(st, Statement::Return { .. });
                let found = std::cell::Cell::new(None);
                find_stmt(&f.body, &|st| match st {
                    Statement::Loop { continuing, .. } => {
                        found.set(find_stmt(continuing, &is_return));
                        found.get().is_some()
                    }
                    _ => false,
                })?;
                let span = self.map(found.get()?.to_range()?)?;
                let d = Diagnostic::error(
                    DYN0401,
                    "`return` in a `continuing` block",
                    span,
                    "WGSL allows no `return` in a `continuing` block",
                )
                .with_hint("return from the loop body instead, before `continuing`");
                Some(d.with_note(note.to_string()))
            }
            // A store through a pointer into an `input` (read-only storage).
            FunctionError::InvalidStorePointer(pointer) => {
                let mut root = *pointer;
                while let naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. } =
                    f.expressions[root]
                {
                    root = base;
                }
                let target = match f.expressions[root] {
                    naga::Expression::GlobalVariable(g) => module.global_variables.try_get(g).ok()?.name.as_deref(),
                    _ => None,
                };
                let input = target.filter(|t| {
                    self.cx
                        .program
                        .resources
                        .values()
                        .any(|r| r.name == *t && r.kind == ast::ResourceKind::Input)
                });
                let span = self.expr_source(f, *pointer)?;
                Some(match input {
                    Some(t) => Diagnostic::error(
                        DYN0401,
                        format!("`{t}` is an `input` and read-only"),
                        span,
                        "written here",
                    )
                    .with_hint(format!("declare `{t}` as a `buffer` or `output` to write to it")),
                    None => Diagnostic::error(
                        DYN0401,
                        "this cannot be written to",
                        span,
                        "not a variable or a writable resource",
                    )
                    .with_note(note.to_string()),
                })
            }
            _ => None,
        }
    }

    /// The source span of a naga expression, when it lies in copied text.
    fn expr_source(&self, f: &naga::Function, expr: naga::Handle<naga::Expression>) -> Option<Span> {
        self.map(f.expressions.get_span(expr).to_range()?)
    }

    /// The innermost statement of a stage body, helper or `until` block that contains `pos`
    /// and satisfies `pred`.
    fn ast_stmt_at(&self, pos: usize, pred: &dyn Fn(&ast::Stmt) -> bool) -> Option<&ast::Stmt> {
        let mut blocks: Vec<&ast::Block> = self.cx.stages.iter().map(|s| &s.body).collect();
        blocks.extend(self.cx.helpers.iter().filter_map(|h| h.body.as_ref()));
        blocks.extend(self.cx.program.entry.until.as_ref());
        let block = blocks.into_iter().find(|b| b.span.contains(&pos))?;
        let mut best = None;
        let mut stmts: &[ast::Stmt] = &block.stmts;
        while let Some(st) = stmts.iter().find(|s| s.span().contains(&pos)) {
            if pred(st) {
                best = Some(st);
            }
            let children: Vec<&[ast::Stmt]> = match st {
                ast::Stmt::If { then, else_, .. } => {
                    let mut v = vec![then.stmts.as_slice()];
                    v.extend(else_.as_deref().map(std::slice::from_ref));
                    v
                }
                ast::Stmt::Loop { body, .. } | ast::Stmt::Block(body) => vec![body.stmts.as_slice()],
                ast::Stmt::Switch { clauses, .. } => clauses.iter().map(|c| c.stmts.as_slice()).collect(),
                _ => Vec::new(),
            };
            match children.into_iter().find(|v| v.iter().any(|s| s.span().contains(&pos))) {
                Some(v) => stmts = v,
                None => break,
            }
        }
        best
    }

    /// The expression of the `return EXPR;` statement that contains `pos`.
    fn returned_expr(&self, pos: usize) -> Option<Span> {
        let st = self.ast_stmt_at(pos, &|st| matches!(st, ast::Stmt::Other { .. }))?;
        let span = st.span();
        let text = self.cx.program.source.get(span.clone())?;
        let rest = text.strip_prefix("return")?;
        let start = span.start + 6 + (rest.len() - rest.trim_start().len());
        let body = rest.trim_start().trim_end();
        let body = body.strip_suffix(';').unwrap_or(body).trim_end();
        (!body.is_empty()).then(|| start..start + body.len())
    }

    fn function_location(&self, name: &str) -> (Span, String) {
        if let Some(stage) = name.strip_prefix("dyn_stage_") {
            if let Some(st) = self.cx.stages.iter().find(|s| s.name.name == stage) {
                return (st.name.span.clone(), format!("in stage `{stage}`"));
            }
        }
        if let Some(h) = self.cx.helpers.iter().find(|h| h.name.name == name) {
            return (h.name.span.clone(), format!("in `{name}`"));
        }
        if name == "dyn_until" {
            return (self.cx.program.entry.span.clone(), "in the `until` block".into());
        }
        self.fallback(None)
    }
}

/// A readable message, with WGSL type names, for the validation errors a body commonly hits.
fn describe(e: &naga::valid::ValidationError, module: &naga::Module) -> Option<String> {
    use naga::common::wgsl::TypeContext;
    use naga::valid::{CallError, FunctionError, ValidationError};
    let ValidationError::Function {
        handle, name, source, ..
    } = e
    else {
        return None;
    };
    let f = module.functions.try_get(*handle).ok()?;
    let type_of = |expr| expr_type(module, f, expr);
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
            "returns `{}`, but {} is declared to return `{}`",
            type_of(*expr)?,
            who(name),
            type_name(*ty)
        )),
        FunctionError::InvalidReturnType {
            expression: None,
            expected_ty: Some(ty),
        } => Some(format!(
            "missing `return`: {} must return {} on every path",
            who(name),
            with_article(&type_name(*ty))
        )),
        FunctionError::InvalidReturnType {
            expression: Some(expr),
            expected_ty: None,
        } => Some(format!(
            "returns {} from {}, which returns nothing",
            with_article(&type_of(*expr)?),
            who(name)
        )),
        FunctionError::InvalidIfType(expr) => Some(format!("`if` condition is `{}`, not `bool`", type_of(*expr)?)),
        FunctionError::InvalidStoreTypes { pointer, value } => Some(format!(
            "cannot store {} through `{}`",
            with_article(&type_of(*value)?),
            type_of(*pointer)?
        )),
        _ => None,
    }
}

/// The WGSL spelling of an expression's type.
fn expr_type(module: &naga::Module, f: &naga::Function, expr: naga::Handle<naga::Expression>) -> Option<String> {
    use naga::common::wgsl::TypeContext;
    let ctx = naga::proc::ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
    let mut typifier = naga::front::Typifier::new();
    typifier.grow(expr, &f.expressions, &ctx).ok()?;
    Some(module.types.type_resolution_to_string(&typifier[expr]))
}

/// The span of the first statement in `block` (searched depth-first, in order) that satisfies
/// `pred`.
fn find_stmt(block: &naga::Block, pred: &dyn Fn(&naga::Statement) -> bool) -> Option<naga::Span> {
    use naga::Statement as S;
    for (st, span) in block.span_iter() {
        if pred(st) {
            return Some(*span);
        }
        let found = match st {
            S::Block(b) => find_stmt(b, pred),
            S::If { accept, reject, .. } => find_stmt(accept, pred).or_else(|| find_stmt(reject, pred)),
            S::Switch { cases, .. } => cases.iter().find_map(|c| find_stmt(&c.body, pred)),
            S::Loop { body, continuing, .. } => find_stmt(body, pred).or_else(|| find_stmt(continuing, pred)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// How to name the generated function `name` in a message.
fn who(name: &str) -> String {
    match name.strip_prefix("dyn_stage_") {
        Some(stage) => format!("stage `{stage}`"),
        None if name == "dyn_until" => "the `until` block".into(),
        None => format!("`{name}`"),
    }
}

/// `span` without one pair of parentheses around all of it (`(a + b)` but not `(a) && (b)`),
/// and without surrounding whitespace.
fn inside_parens(src: &str, span: Span) -> Span {
    let Some(text) = src.get(span.clone()) else {
        return span;
    };
    let trimmed = text.trim();
    let start = span.start + (text.len() - text.trim_start().len());
    let b = trimmed.as_bytes();
    if b.first() != Some(&b'(') || b.last() != Some(&b')') {
        return start..start + trimmed.len();
    }
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && i + 1 < b.len() {
                    return start..start + trimmed.len();
                }
            }
            _ => {}
        }
    }
    let inner = &trimmed[1..trimmed.len() - 1];
    let lead = inner.len() - inner.trim_start().len();
    start + 1 + lead..start + 1 + lead + inner.trim().len()
}
