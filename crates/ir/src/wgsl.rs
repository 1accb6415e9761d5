//! The WGSL text every `.dyn` program lives in, shared by the checker (which validates bodies in
//! it with naga, spawn sites lowered to empty stubs) and the code generator (real site functions
//! plus the scheduler). Keeping one emitter guarantees that what was checked is what runs.
//!
//! Each spawn/become site `k` becomes a call of `dyn_site_k(payload[, count])`; a `become` is
//! followed by `return;`; `emit r(v);` becomes `dyn_emit_R(v)`. Stage `s` becomes `fn dyn_stage_s(payload, index)`
//! (and, for the loop of a chain of `become`s, its body alone: [`chain_body`]). User names never
//! start with `dyn_` (the checker rejects that), so generated names cannot collide.

use crate::{EdgeId, Executable, Program, ResourceId, Stage};
use dyngc_syntax::ast::Span;
use std::fmt::Write;
use std::ops::Range;

/// Maps byte ranges of generated text back to the `.dyn` source, for naga's diagnostics.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// (generated start, source start, length): text copied verbatim, sorted by generated start.
    segments: Vec<(usize, usize, usize)>,
}

impl SourceMap {
    /// The source span of a generated range, if it falls in copied text. A range that starts in
    /// copied text but runs past it is clipped to that segment.
    pub fn to_source(&self, generated: Range<usize>) -> Option<Span> {
        let i = self
            .segments
            .partition_point(|&(g, _, _)| g <= generated.start)
            .checked_sub(1)?;
        let (g, s, len) = self.segments[i];
        if generated.start >= g + len && !(generated.start == g + len && len > 0) {
            return None;
        }
        let start = s + (generated.start - g);
        let end = s + (generated.end.min(g + len).max(generated.start) - g);
        Some(start..end)
    }
}

/// Generated WGSL with its map back to the source.
#[derive(Clone, Debug, Default)]
pub struct ModuleText {
    pub text: String,
    pub map: SourceMap,
}

impl ModuleText {
    pub fn push(&mut self, generated: &str) {
        self.text.push_str(generated);
    }

    /// Appends another module text, keeping its map.
    pub fn append(&mut self, other: &ModuleText) {
        let base = self.text.len();
        self.map
            .segments
            .extend(other.map.segments.iter().map(|&(g, s, len)| (base + g, s, len)));
        self.text.push_str(&other.text);
    }

    /// Appends `source[span]` verbatim and records where it came from.
    pub fn copy(&mut self, source: &str, span: Span) {
        self.map.segments.push((self.text.len(), span.start, span.len()));
        self.text.push_str(&source[span]);
    }
}

/// Emits the user-visible part of the module: structs, resources, parameters (as private
/// variables the kernel fills from the parameter uniform at start-up), file-scope helpers, the
/// site functions `site_fn(k)` returns, then one function per stage. An [`Executable`]: the
/// spans it copies and the ids it follows are the checked program's own, so none is out of range.
pub fn user_module(
    program: &Executable,
    out: &mut ModuleText,
    site_fn: &dyn Fn(EdgeId) -> String,
    emit_fn: &dyn Fn(ResourceId) -> String,
) {
    user_declarations(program, out, site_fn, emit_fn);
    for stage in program.stages.values() {
        stage_fn(program, stage, out);
    }
}

/// Functions the generated code provides to stage bodies and the `until` block; the only
/// `dyn_` names a program may use.
pub const BUILTINS: &[&str] = &["dyn_round", "dyn_lane", "dyn_group", "dyn_active"];

/// The builtins that describe a lane of a `@width` unit.
pub const LANE_BUILTINS: &[&str] = &["dyn_lane", "dyn_group", "dyn_active"];

/// The part of [`user_module`] every stage function depends on: everything but the stage
/// functions, which never call each other (so each can be checked on its own after these).
/// The checker's, on the program it is checking; others get [`user_module`].
pub(crate) fn user_declarations(
    program: &Program,
    out: &mut ModuleText,
    site_fn: &dyn Fn(EdgeId) -> String,
    emit_fn: &dyn Fn(ResourceId) -> String,
) {
    let src = &program.source;
    for s in program.structs.values() {
        out.push(&format!("struct {} {{\n", s.name));
        for (name, ty) in &s.fields {
            out.push(&format!("    {name}: {},\n", ty.wgsl(&program.structs)));
        }
        out.push("}\n\n");
    }
    for r in program.resources.values() {
        let access = match r.kind {
            dyngc_syntax::ast::ResourceKind::Input => "read",
            _ => "read_write",
        };
        let elem = r.elem.wgsl(&program.structs);
        let ty = if r.is_array || r.stream {
            format!("array<{elem}>")
        } else {
            elem
        };
        out.push(&format!(
            "@group({}) @binding({}) var<storage, {access}> {}: {ty};\n",
            r.group,
            r.binding,
            binding_var(r)
        ));
    }
    for p in program.params.values() {
        out.push(&format!("var<private> {}: {};\n", p.name, p.ty.wgsl()));
    }
    // The executor sets the round before it runs units or the `until` block.
    out.push("var<private> dyn_round_index: u32;\n\n");
    out.push("/// The graph-level loop's round: 0, 1, ... (always 0 without a loop).\n");
    out.push("fn dyn_round() -> u32 {\n    return dyn_round_index;\n}\n");
    // A lane's place in a wide unit, set by the executor around a wide batch; between wide
    // batches they hold what a one-lane unit is: lane 0 of group 0, active.
    out.push("var<private> dyn_lane_index: u32;\nvar<private> dyn_group_index: u32;\n");
    out.push("var<private> dyn_lane_active: bool = true;\n\n");
    out.push("/// This lane's place in its unit of a `@width(N)` stage: 0..N.\n");
    out.push("fn dyn_lane() -> u32 {\n    return dyn_lane_index;\n}\n");
    out.push("/// The unit's group in the workgroup: 0..64 / N.\n");
    out.push("fn dyn_group() -> u32 {\n    return dyn_group_index;\n}\n");
    out.push("/// False for the lanes of a group that has no unit in this batch.\n");
    out.push("fn dyn_active() -> bool {\n    return dyn_lane_active;\n}\n");
    out.push("\n");
    for span in &program.helpers {
        out.copy(src, span.clone());
        out.push("\n\n");
    }
    for k in program.edges.ids() {
        out.push(&site_fn(k));
        out.push("\n");
    }
    for r in program.streams() {
        out.push(&emit_fn(r));
        out.push("\n");
    }
}

/// `fn dyn_emit_R(v: T)`, the function an `emit` into stream resource `r` calls (its body
/// follows: empty for the checker, the executor's append for the generator).
pub fn emit_signature(program: &Program, r: ResourceId) -> String {
    format!(
        "fn dyn_emit_{r}(v: {})",
        program.resources[r].elem.wgsl(&program.structs)
    )
}

/// The WGSL variable of a resource: its name, except a stream's, which bodies reach only through
/// `emit` (the executor must count every element), so it gets a reserved name.
pub fn binding_var(r: &crate::Resource) -> String {
    if r.stream {
        format!("dyn_stream_{}", r.name)
    } else {
        r.name.clone()
    }
}

/// `fn dyn_stage_NAME(payload: T, index: u32) { BODY }`, with sites lowered. Every stage
/// function has both parameters so the scheduler can call them uniformly; the names are the
/// user's when declared. The checker's, like [`user_declarations`].
pub(crate) fn stage_fn(program: &Program, stage: &Stage, out: &mut ModuleText) {
    let payload = match &stage.payload {
        Some((name, ty)) => format!("{name}: {}", ty.wgsl(&program.structs)),
        None => "dyn_no_payload: u32".to_string(),
    };
    let index = stage.index.as_deref().unwrap_or("dyn_no_index");
    let _ = write!(out.text, "fn dyn_stage_{}({payload}, {index}: u32) ", stage.name);
    block(program, stage, out);
    out.push("\n\n");
}

/// Copies a stage body verbatim except for its sites, which become `dyn_site_k(..)` calls, and
/// its emits, which become `dyn_emit_R(value)` calls (R the stream's resource index).
fn block(program: &Program, stage: &Stage, out: &mut ModuleText) {
    lower_body(program, stage, None, out);
}

/// The one lowering of a stage body: sites and emits (and, in a chain's loop, `returns`)
/// numbered in source order, the order the checker's walk lists them in `stage.sites` and
/// `stage.emits`; none contains another, so merging them by position is source order. A stage
/// function's `become` is followed by `return;`; in a chain's loop ([`ChainLoop`]) a carry site
/// assigns its payload and runs `carry`, and every other way out of the unit runs `end`.
fn lower_body(program: &Program, stage: &Stage, chain: Option<(&ChainLoop, &[Span])>, out: &mut ModuleText) {
    enum Cut<'p> {
        Site(EdgeId),
        Emit(&'p crate::EmitSite),
        Return,
    }
    let src = &program.source;
    let body = &stage.body;
    let returns = chain.map_or(&[][..], |(_, r)| r);
    let mut cuts: Vec<(Span, Cut)> = stage
        .sites
        .iter()
        .map(|&k| (program.edges[k].span.clone(), Cut::Site(k)))
        .chain(stage.emits.iter().map(|e| (e.span.clone(), Cut::Emit(e))))
        .chain(returns.iter().map(|r| (r.clone(), Cut::Return)))
        .collect();
    cuts.sort_by_key(|(span, _)| span.start);
    let mut cursor = body.span.start;
    for (span, cut) in cuts {
        out.copy(src, cursor..span.start);
        cursor = span.end;
        let k = match cut {
            Cut::Emit(e) => {
                let _ = write!(out.text, "{{ dyn_emit_{}(", e.stream);
                out.copy(src, e.value.clone());
                out.push("); }");
                continue;
            }
            Cut::Return => {
                let end = chain.map_or("return;", |(how, _)| how.end);
                let _ = write!(out.text, "{{ {end} }}");
                continue;
            }
            Cut::Site(k) => k,
        };
        let edge = &program.edges[k];
        if let Some((how, _)) = chain.filter(|(how, _)| (how.carries)(k)) {
            out.push("{ ");
            if let (Some(var), Some(p)) = (how.carry_var, &edge.payload) {
                let _ = write!(out.text, "{var} = ");
                out.copy(src, p.clone());
                out.push("; ");
            }
            let _ = write!(out.text, "{} }}", how.carry);
            continue;
        }
        let _ = write!(out.text, "{{ dyn_site_{k}(");
        for (i, a) in edge.payload.iter().chain(&edge.count).enumerate() {
            if i > 0 {
                out.push(", ");
            }
            out.copy(src, a.clone());
        }
        if edge.kind == crate::EdgeKind::Become {
            let end = chain.map_or("return;", |(how, _)| how.end);
            let _ = write!(out.text, "); {end} }}");
        } else {
            out.push("); }");
        }
    }
    out.copy(src, cursor..body.span.end);
}

/// How [`chain_body`] writes a stage's body into the loop that runs its chain of `become`s to
/// itself (the code generator's chain case). Each is a statement list ending in `break` or
/// `continue` of that loop.
pub struct ChainLoop<'a> {
    /// The sites that continue the chain (a `become` of the stage itself, or a feeder's
    /// `become` of the chain).
    pub carries: &'a dyn Fn(EdgeId) -> bool,
    /// Assigned the payload of such a `become` (absent without a payload).
    pub carry_var: Option<&'a str>,
    /// Runs after that assignment: the loop's next unit.
    pub carry: &'a str,
    /// Runs where the unit ends otherwise: a `return;`, the end of the body, or after the call
    /// of another `become`'s site.
    pub end: &'a str,
    /// `carry` runs in place and control falls to the body's end, so that copies of the body
    /// can follow each other without a branch between units. Only for a body whose sites are
    /// all `carries`, each in tail position, and whose every path ends in one or in a
    /// `return` (otherwise `chain_body` gives `None`).
    pub fall_through: bool,
}

/// The body of `stage` for its chain's loop: sites and emits lowered as [`stage_fn`] does,
/// except that a site of `carries` assigns its payload and runs `carry`, and every other way
/// out of the unit runs `end`. So a unit's
/// successor starts without leaving the loop, and the loop branches once per unit. `None` when
/// a `return` or a `become` sits inside a loop or `switch` of the body, where `break` and
/// `continue` would not reach the chain's loop.
pub fn chain_body(program: &Program, stage: &Stage, how: &ChainLoop) -> Option<String> {
    use dyngc_syntax::ast::Stmt;
    let src = &program.source;
    let is_return = |span: &Span| {
        let text = src[span.clone()].trim_start();
        text.strip_prefix("return")
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    // The `return` statements, and whether any exit sits where a `break` would not reach us.
    fn walk(stmts: &[Stmt], nested: bool, is_return: &dyn Fn(&Span) -> bool, returns: &mut Vec<Span>) -> bool {
        stmts.iter().all(|s| match s {
            Stmt::Become(_) => !nested,
            Stmt::Other { span } if is_return(span) => {
                returns.push(span.clone());
                !nested
            }
            Stmt::If { then, else_, .. } => {
                walk(&then.stmts, nested, is_return, returns)
                    && else_
                        .as_deref()
                        .is_none_or(|e| walk(std::slice::from_ref(e), nested, is_return, returns))
            }
            Stmt::Loop { body, .. } => walk(&body.stmts, true, is_return, returns),
            Stmt::Switch { clauses, .. } => clauses.iter().all(|c| walk(&c.stmts, true, is_return, returns)),
            Stmt::Block(b) => walk(&b.stmts, nested, is_return, returns),
            _ => true,
        })
    }
    // True when control cannot reach the end of `stmts` (so `end` after it would be unreachable
    // code, which Tint warns about).
    fn exits(stmts: &[Stmt], is_return: &dyn Fn(&Span) -> bool) -> bool {
        stmts.last().is_some_and(|s| match s {
            Stmt::Become(_) => true,
            Stmt::Other { span } => is_return(span),
            Stmt::If {
                then, else_: Some(e), ..
            } => exits(&then.stmts, is_return) && exits(std::slice::from_ref(e), is_return),
            Stmt::Block(b) => exits(&b.stmts, is_return),
            _ => false,
        })
    }
    // With `how.fall_through`, a `become` of `carries` writes no jump: each must be its body's
    // last statement on its path, and every path must end in one or in a `return`.
    fn tail_becomes(stmts: &[Stmt], tail: bool) -> bool {
        stmts.iter().enumerate().all(|(i, s)| {
            let last = tail && i + 1 == stmts.len();
            match s {
                Stmt::Become(_) => last,
                Stmt::If { then, else_, .. } => {
                    tail_becomes(&then.stmts, last)
                        && else_
                            .as_deref()
                            .is_none_or(|e| tail_becomes(std::slice::from_ref(e), last))
                }
                Stmt::Block(b) => tail_becomes(&b.stmts, last),
                _ => true,
            }
        })
    }
    if how.fall_through
        && !(stage.sites.iter().all(|&k| (how.carries)(k))
            && stage.emits.is_empty()
            && tail_becomes(&stage.body.stmts, true)
            && exits(&stage.body.stmts, &is_return))
    {
        return None;
    }
    let mut returns = Vec::new();
    if !walk(&stage.body.stmts, false, &is_return, &mut returns) {
        return None;
    }
    let mut out = ModuleText::default();
    lower_body(program, stage, Some((how, &returns)), &mut out);
    if !exits(&stage.body.stmts, &is_return) {
        let _ = write!(out.text, "\n{}", how.end);
    }
    Some(out.text)
}
