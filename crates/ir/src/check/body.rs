//! Stage bodies: spawn/become sites become edges; site-level rules.

use super::decls::StageSig;
use super::{lex, Checker, GlobalKind};
use crate::{Edge, EdgeId, EdgeKind, EmitSite, IdVec, RecursionStep, ResourceId, StageId};
use dyngc_syntax::ast::{self, Span, Stmt};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;

/// Most non-keyed spawns one unit may make.
pub(crate) const MAX_SPAWNS_PER_UNIT: u32 = 16;
/// Most elements one unit may emit into one stream (declared or counted). Small enough that the
/// executor's reservations, one per lane in flight, can never wrap a 32-bit counter.
pub const MAX_EMIT_PER_UNIT: u32 = 4096;

const BARRIERS: &[&str] = &[
    "workgroupBarrier",
    "storageBarrier",
    "textureBarrier",
    "workgroupUniformLoad",
];

/// Edges and per-stage facts from the bodies.
pub(super) struct Bodies {
    pub edges: IdVec<EdgeId, Edge>,
    pub sites: IdVec<StageId, Vec<EdgeId>>,
    pub max_spawns: IdVec<StageId, u32>,
    pub becomes: IdVec<StageId, bool>,
    pub emits: IdVec<StageId, Vec<EmitSite>>,
    pub max_emits: IdVec<StageId, Vec<(ResourceId, u32)>>,
}

/// One `emit` statement with the loops around it.
pub(super) struct EmitAt<'a> {
    pub emit: &'a ast::Emit,
    pub open_loop: Option<OpenLoop>,
    /// Product of the constant trip counts of the enclosing loops.
    pub mult: u64,
}

/// One `spawn`/`become` statement with its context.
pub(super) struct Site<'a> {
    pub spawn: &'a ast::Spawn,
    pub is_become: bool,
    /// Inside an `if`/`switch`/loop, or after a statement that may `return` or `become`.
    pub conditional: bool,
    /// The innermost enclosing loop without a constant trip count.
    pub open_loop: Option<OpenLoop>,
    /// Product of the constant trip counts of the enclosing loops.
    pub mult: u64,
    /// The `continuing` keyword, when the site is in a `continuing` block.
    pub continuing: Option<Span>,
}

/// A loop whose trip count is not a recognised constant.
#[derive(Clone, Debug)]
pub(super) struct OpenLoop {
    pub kind: ast::LoopKind,
    /// What to point at: the `for`/`while` header, or the `loop`/`continuing` keyword.
    pub at: Span,
}

impl OpenLoop {
    fn new(kind: ast::LoopKind, header: &Span, span: &Span) -> Self {
        let keyword = match kind {
            ast::LoopKind::For => "for",
            ast::LoopKind::While => "while",
            ast::LoopKind::Loop => "loop",
            ast::LoopKind::Continuing => "continuing",
        };
        // `loop` and `continuing` have no header (the parser gives an empty span after the
        // keyword): point at the keyword, which starts the statement.
        let at = if header.is_empty() {
            span.start..(span.start + keyword.len()).min(span.end)
        } else {
            header.clone()
        };
        OpenLoop { kind, at }
    }
}

/// Sites and emits of `body` in the order [`crate::wgsl::block`] meets them.
pub(super) fn collect_sites<'a>(src: &str, body: &'a ast::Block) -> (Vec<Site<'a>>, Vec<EmitAt<'a>>) {
    let exits = exits(src, body);
    let mut out = (Vec::new(), Vec::new());
    let around = Around {
        conditional: false,
        open_loop: None,
        mult: 1,
        continuing: None,
    };
    walk(&exits, &body.stmts, &around, &mut out);
    out
}

/// Where the invocation may end: `return` and `become` tokens (`become` only ever starts a
/// statement), sorted, so that "does this statement contain an exit" is a binary search (no
/// rescanning per level).
fn exits(src: &str, body: &ast::Block) -> Vec<usize> {
    lex::idents(src, &body.span)
        .into_iter()
        .filter(|(name, _)| matches!(*name, "return" | "become"))
        .map(|(_, at)| at.start)
        .collect()
}

/// True if one of the sorted `exits` lies in `span`.
fn contains_exit(exits: &[usize], span: &Span) -> bool {
    let i = exits.partition_point(|&e| e < span.start);
    exits.get(i).is_some_and(|&e| e < span.end)
}

/// What encloses the statements [`walk`] visits.
#[derive(Clone)]
struct Around {
    conditional: bool,
    open_loop: Option<OpenLoop>,
    mult: u64,
    /// The `continuing` keyword, inside a `continuing` block.
    continuing: Option<Span>,
}

fn walk<'a>(exits: &[usize], stmts: &'a [Stmt], around: &Around, out: &mut (Vec<Site<'a>>, Vec<EmitAt<'a>>)) {
    let mut cut = false;
    for stmt in stmts {
        let cond = around.conditional || cut;
        let inner = |ctx: &Around| Around {
            conditional: true,
            ..ctx.clone()
        };
        match stmt {
            Stmt::Emit(e) => out.1.push(EmitAt {
                emit: e,
                open_loop: around.open_loop.clone(),
                mult: around.mult,
            }),
            Stmt::Spawn(s) | Stmt::Become(s) => out.0.push(Site {
                spawn: s,
                is_become: matches!(stmt, Stmt::Become(_)),
                conditional: cond,
                open_loop: around.open_loop.clone(),
                mult: around.mult,
                continuing: around.continuing.clone(),
            }),
            Stmt::If { then, else_, .. } => {
                walk(exits, &then.stmts, &inner(around), out);
                if let Some(e) = else_ {
                    walk(exits, std::slice::from_ref(e.as_ref()), &inner(around), out);
                }
            }
            Stmt::Loop {
                kind,
                header,
                trip_count,
                body,
                span,
            } => {
                let mut ctx = inner(around);
                match trip_count {
                    Some(n) => ctx.mult = ctx.mult.saturating_mul(*n),
                    None => ctx.open_loop = Some(OpenLoop::new(*kind, header, span)),
                }
                if *kind == ast::LoopKind::Continuing {
                    ctx.continuing = Some(OpenLoop::new(*kind, header, span).at);
                }
                walk(exits, &body.stmts, &ctx, out);
            }
            Stmt::Switch { clauses, .. } => {
                for c in clauses {
                    walk(exits, &c.stmts, &inner(around), out);
                }
            }
            Stmt::Block(b) => walk(
                exits,
                &b.stmts,
                &Around {
                    conditional: cond,
                    ..around.clone()
                },
                out,
            ),
            Stmt::Other { .. } => {}
        }
        if matches!(stmt, Stmt::Become(_)) || contains_exit(exits, &stmt.span()) {
            cut = true;
        }
    }
}

impl<'a> Checker<'a> {
    pub(super) fn check_bodies(&mut self, sigs: &IdVec<StageId, StageSig>) -> Bodies {
        let stages = self.stages.clone();
        let mut bodies = Bodies {
            edges: IdVec::default(),
            sites: IdVec::default(),
            max_spawns: IdVec::default(),
            becomes: IdVec::default(),
            emits: IdVec::default(),
            max_emits: IdVec::default(),
        };
        for (from, st) in stages.iter() {
            let (sites, emits) = collect_sites(self.src, &st.body);
            let (emits, max_emits) = self.check_emits(st, &sigs[from], &emits);
            bodies.emits.push(emits);
            bodies.max_emits.push(max_emits);
            let mut indices = Vec::new();
            let mut spawns: u64 = 0;
            let mut becomes = false;
            // A malformed `@width` (already reported) still marks the body as meant to be wide.
            let wide = st.attrs.iter().any(|a| a.name.name == "width");
            for site in &sites {
                becomes |= site.is_become;
                if let (Some((n, at)), true) = (&sigs[from].width, site.is_become) {
                    let d = Diagnostic::error(
                        DYN0208,
                        format!("`become` in wide stage `{}`", st.name.name),
                        site.spawn.span.clone(),
                        format!("each of the {n} lanes would continue as its own unit"),
                    )
                    .with_label(at.clone(), "the stage is wide here")
                    .with_note("a wide unit's lanes share its barriers; none of them may turn into another stage")
                    .with_hint("`spawn` the successor from one lane (`if (dyn_active() && dyn_lane() == 0u)`), or move the `become` into a one-lane stage");
                    self.error(d);
                }
                // A `become` ends the invocation, so it runs at most once whatever loop it is
                // in; only spawns multiply.
                if let (Some(open), false) = (&site.open_loop, site.is_become) {
                    self.open_loop_spawn(site.spawn, open);
                }
                if let (Some(at), true) = (&site.continuing, site.is_become) {
                    let d = Diagnostic::error(
                        DYN0401,
                        "`become` in a `continuing` block",
                        site.spawn.span.clone(),
                        "`become` ends the invocation like a `return`",
                    )
                    .with_label(at.clone(), "WGSL allows no `return` in a `continuing` block")
                    .with_hint(
                        "`become` from the loop body instead, e.g. `if (done) { become s(p); }` before `continuing`",
                    );
                    self.error(d);
                }
                let target = match self.lookup(&site.spawn.target.name, |k| matches!(k, GlobalKind::Stage(_))) {
                    Some(GlobalKind::Stage(t)) => Some(t),
                    other => {
                        self.unknown_stage(&site.spawn.target, other);
                        None
                    }
                };
                let keyed_target = target.is_some_and(|t| sigs[t].is_keyed);
                if !site.is_become && !keyed_target {
                    spawns = spawns.saturating_add(site.mult);
                }
                let Some(to) = target else { continue };
                let kind = self.site_kind(site, stages[to], &sigs[to]);
                let edge = bodies.edges.push(Edge {
                    kind,
                    from,
                    to,
                    span: site.spawn.span.clone(),
                    payload: site.spawn.payload.clone(),
                    count: site.spawn.count.clone(),
                    conditional: site.conditional,
                    recursion: RecursionStep::Keep,
                    lone: false,
                });
                indices.push(edge);
            }
            let max_spawns = u32::try_from(spawns).unwrap_or(u32::MAX);
            if max_spawns > MAX_SPAWNS_PER_UNIT {
                let d = Diagnostic::error(
                    DYN0207,
                    format!("stage `{}` can spawn up to {max_spawns} children in one run", st.name.name),
                    st.name.span.clone(),
                    format!("more than the {MAX_SPAWNS_PER_UNIT} one unit may make"),
                )
                .with_note("counted: each non-keyed spawn site once, every branch of an `if`/`switch` added, multiplied by the trip counts of constant loops around it")
                .with_hint("make one fan-out `spawn[n] stage(payload)` instead of many spawns; its children are generated lazily");
                self.error(d);
            }
            bodies.sites.push(indices);
            bodies.max_spawns.push(max_spawns);
            bodies.becomes.push(becomes);
            if wide {
                self.scan_wide_barriers(&st.body);
            } else {
                self.scan_barriers(&st.body.span, "a stage body");
                self.scan_lane_builtins(&st.body.span, &format!("one-lane stage `{}`", st.name.name));
            }
            self.scan_dyn_names(&st.body.span);
        }
        bodies
    }

    /// The emit sites of stage `st` and, per stream it emits into, the most elements one unit
    /// may emit: its `@max_emit`, else the count (each emit once, branches added, constant loops
    /// multiplied), DYN0211 when neither exists or it is too large.
    fn check_emits(
        &mut self,
        st: &ast::Stage,
        sig: &StageSig,
        emits: &[EmitAt],
    ) -> (Vec<EmitSite>, Vec<(ResourceId, u32)>) {
        let mut sites = Vec::new();
        // Per stream: (resource, counted maximum, first emit in a loop without a constant count).
        type Unbounded = Option<(Span, OpenLoop)>;
        let mut counted: Vec<(ResourceId, u64, Unbounded)> = Vec::new();
        for at in emits {
            let e = at.emit;
            let stream = match self.lookup(&e.stream.name, |k| matches!(k, GlobalKind::Resource(_))) {
                Some(GlobalKind::Resource(r)) if matches!(self.resources[r].ty, ast::ResourceType::Stream { .. }) => r,
                found => {
                    let label = match found {
                        Some(GlobalKind::Resource(_)) => {
                            format!("`{}` is an array or a single value, not a stream", e.stream.name)
                        }
                        Some(k) => format!("`{}` is {}, not a stream output", e.stream.name, k.describe()),
                        None => format!("no stream output named `{}`", e.stream.name),
                    };
                    let d = Diagnostic::error(
                        DYN0210,
                        format!("`emit` into `{}`", e.stream.name),
                        e.stream.span.clone(),
                        label,
                    )
                    .with_hint(format!(
                        "declare `output {}: stream<T>;`, or write to an array with an assignment",
                        e.stream.name
                    ));
                    self.error(d);
                    continue;
                }
            };
            let Some(value) = e.value.clone() else {
                let d = Diagnostic::error(DYN0210, "`emit` without a value", e.span.clone(), "nothing to emit")
                    .with_hint(format!("write `emit {}(value);`", e.stream.name));
                self.error(d);
                continue;
            };
            if let Some((n, at_width)) = &sig.width {
                let d = Diagnostic::error(
                    DYN0210,
                    format!("`emit` in wide stage `{}`", st.name.name),
                    e.span.clone(),
                    format!("the {n} lanes of a unit would each need room reserved for it"),
                )
                .with_label(at_width.clone(), "the stage is wide here")
                .with_hint("spawn a one-lane stage that emits, or write into an array output");
                self.error(d);
                continue;
            }
            sites.push(EmitSite {
                stream,
                value,
                span: e.span.clone(),
            });
            let open = at.open_loop.clone().map(|l| (e.span.clone(), l));
            match counted.iter_mut().find(|(r, _, _)| *r == stream) {
                Some(c) => {
                    c.1 = c.1.saturating_add(at.mult);
                    if c.2.is_none() {
                        c.2 = open;
                    }
                }
                None => counted.push((stream, at.mult, open)),
            }
        }
        let mut max_emits = Vec::new();
        for (stream, count, open) in counted {
            let name = self.resources[stream].name.name.clone();
            if let Some((_, declared, _)) = sig.max_emits.iter().find(|(r, _, _)| *r == stream) {
                max_emits.push((stream, *declared));
                continue;
            }
            if let Some((emit, lp)) = open {
                let d = Diagnostic::error(
                    DYN0211,
                    format!("stage `{}` has no bound on what it emits into `{name}`", st.name.name),
                    emit,
                    "this `emit` runs once per iteration",
                )
                .with_label(lp.at, "of this loop, which has no constant trip count")
                .with_note("the executor reserves room for a unit's emits before the unit starts")
                .with_hint(format!(
                    "declare the most one unit emits: `@max_emit({name}, N)` before `stage {}`",
                    st.name.name
                ));
                self.error(d);
                continue;
            }
            if count > u64::from(MAX_EMIT_PER_UNIT) {
                let d = Diagnostic::error(
                    DYN0211,
                    format!("stage `{}` can emit {count} elements into `{name}` in one run", st.name.name),
                    st.name.span.clone(),
                    format!("more than the {MAX_EMIT_PER_UNIT} one unit may emit"),
                )
                .with_note("counted: each emit once, every branch of an `if`/`switch` added, multiplied by the trip counts of constant loops around it")
                .with_hint("emit from a fan-out of smaller units (`spawn[n]`), each emitting a part");
                self.error(d);
                continue;
            }
            max_emits.push((stream, count as u32));
        }
        (sites, max_emits)
    }

    /// DYN0203: a spawn in a loop whose trip count is not a recognised constant.
    fn open_loop_spawn(&mut self, spawn: &ast::Spawn, open: &OpenLoop) {
        let (loop_label, help) = match open.kind {
            ast::LoopKind::For => (
                "not a recognised constant counting loop",
                "if the bounds are constants, write the loop in the recognised form (compute other values from the counter); otherwise use a fan-out `spawn[n] stage(payload)` for a data-dependent number of children",
            ),
            ast::LoopKind::While => (
                "a `while` loop has no constant trip count",
                "use a fan-out `spawn[n] stage(payload)` for a data-dependent number of children, or a constant counting `for` loop",
            ),
            ast::LoopKind::Loop => (
                "a `loop` has no constant trip count",
                "use a fan-out `spawn[n] stage(payload)` for a data-dependent number of children, or a constant counting `for` loop",
            ),
            ast::LoopKind::Continuing => (
                "runs once per iteration of its `loop`, which has no constant trip count",
                "use a fan-out `spawn[n] stage(payload)` for a data-dependent number of children, or a constant counting `for` loop",
            ),
        };
        let d = Diagnostic::error(
            DYN0203,
            "`spawn` in a loop without a recognised constant trip count",
            spawn.span.clone(),
            "dyngc cannot count how many times this `spawn` runs",
        )
        .with_label(open.at.clone(), loop_label)
        .with_note(format!("a unit's children are counted at compile time (at most {MAX_SPAWNS_PER_UNIT})"))
        .with_note("the recognised constant loops: `for (var i = A; i < B; i++)` with integer literals A and B; also `let i`, `i: u32` or `i: i32`, `i <= B`, `i += 1`, `i = i + 1`")
        .with_hint(help);
        self.error(d);
    }

    /// Edge kind of a site, reporting mismatches with the target's signature.
    fn site_kind(&mut self, site: &Site, target: &ast::Stage, sig: &StageSig) -> EdgeKind {
        let s = site.spawn;
        let name = &target.name.name;
        let verb = if site.is_become { "become" } else { "spawn" };
        // Payload presence.
        match (&s.payload, &target.payload) {
            (Some(p), None) => {
                let d = Diagnostic::error(
                    DYN0200,
                    format!("`{name}` takes no payload"),
                    p.clone(),
                    "this payload has nowhere to go",
                )
                .with_label(target.name.span.clone(), format!("`{name}` declared without a payload"))
                .with_hint(format!("write `{verb} {name}()`"));
                self.error(d);
            }
            (None, Some(tp)) => {
                let ty = self.src.get(tp.ty.span.clone()).unwrap_or("its payload");
                let d = Diagnostic::error(
                    DYN0200,
                    format!("`{name}` takes a payload of type `{ty}`"),
                    s.span.clone(),
                    "no payload given",
                )
                .with_label(tp.span.clone(), "declared here");
                self.error(d);
            }
            _ => {}
        }
        if site.is_become {
            if s.count.is_some() {
                let d = Diagnostic::error(
                    DYN0201,
                    "`become` cannot fan out",
                    s.span.clone(),
                    "a unit becomes exactly one successor",
                )
                .with_hint(format!("write `spawn[n] {name}(..)` to fan out"));
                self.error(d);
            }
            if sig.is_keyed {
                self.keyed_site(site, target, "cannot `become` a keyed stage");
            } else if let Some(ix) = &target.index {
                let d = Diagnostic::error(
                    DYN0201,
                    format!("`become {name}` to a stage with `@index`"),
                    s.span.clone(),
                    "`become` gives no index",
                )
                .with_label(ix.span.clone(), format!("`{name}` expects a fan-out index"))
                .with_hint("`@index` stages are started by a fan-out `spawn[n]` (or as the entry)");
                self.error(d);
            }
            return EdgeKind::Become;
        }
        match &s.count {
            Some(_) => {
                if sig.is_keyed {
                    self.keyed_site(site, target, "cannot fan out into a keyed stage");
                } else if target.index.is_none() {
                    let d = Diagnostic::error(
                        DYN0201,
                        format!("fan-out into `{name}`, which has no `@index`"),
                        s.span.clone(),
                        "fan-out children are told apart by their index",
                    )
                    .with_label(target.name.span.clone(), format!("`{name}` has no `@index` parameter"))
                    .with_hint(format!("add `@index j: u32` to `{name}`, or spawn it without `[n]`"));
                    self.error(d);
                }
                EdgeKind::FanOut
            }
            None if sig.is_keyed => EdgeKind::Keyed,
            None => {
                if let Some(ix) = &target.index {
                    let d = Diagnostic::error(
                        DYN0201,
                        format!("plain spawn of `{name}`, which has `@index`"),
                        s.span.clone(),
                        "no fan-out count given",
                    )
                    .with_label(ix.span.clone(), format!("`{name}` expects a fan-out index"))
                    .with_hint(format!("write `spawn[1] {name}(..)` or drop its `@index` parameter"));
                    self.error(d);
                }
                EdgeKind::Spawn
            }
        }
    }

    fn keyed_site(&mut self, site: &Site, target: &ast::Stage, msg: &str) {
        let d = Diagnostic::error(
            DYN0202,
            msg.to_string(),
            site.spawn.span.clone(),
            format!("`{}` is keyed", target.name.name),
        )
        .with_label(target.name.span.clone(), "declared `@keyed` here")
        .with_hint(format!(
            "keyed stages are reached only by a plain `spawn {}(key)`",
            target.name.name
        ));
        self.error(d);
    }

    /// Helpers and the `until` block: no sites, no barriers, no `dyn_` names.
    pub(super) fn check_other_blocks(&mut self) {
        let helpers = self.helpers.clone();
        for h in helpers {
            if let Some(body) = &h.body {
                self.report_sites_outside_stages(body, &format!("in helper function `{}`", h.name.name), |d| {
                    d.with_note("only stage bodies may spawn: the graph's edges must be visible in the stages")
                        .with_hint("return what to spawn from the helper and spawn it in the stage")
                });
            }
            if h.kind == ast::WgslItemKind::Fn {
                self.scan_barriers(&h.span, "a helper function (helpers run inside stages)");
            }
            self.scan_dyn_names(&h.span);
        }
        let entries = self.entries.clone();
        for e in entries {
            if let Some(u) = &e.until {
                self.report_sites_outside_stages(u, "in the `until` block", |d| {
                    d.with_note("the `until` block only decides whether another round runs; each round starts at the entry stage")
                });
                self.scan_dyn_names(&u.span);
                self.scan_lane_builtins(&u.span, "the `until` block");
            }
        }
    }

    /// DYN0204 for every `spawn`/`become` in `body`, which is not a stage body (`place` says where).
    fn report_sites_outside_stages(
        &mut self,
        body: &ast::Block,
        place: &str,
        explain: impl Fn(Diagnostic) -> Diagnostic,
    ) {
        let (sites, emits) = collect_sites(self.src, body);
        for at in emits {
            let d = Diagnostic::error(
                DYN0210,
                "`emit` outside a stage body",
                at.emit.span.clone(),
                format!("`emit` {place}"),
            )
            .with_hint("emit from the stage that runs this code");
            self.error(d);
        }
        for site in sites {
            let what = if site.is_become { "become" } else { "spawn" };
            let d = Diagnostic::error(
                DYN0204,
                format!("`{what}` outside a stage body"),
                site.spawn.span.clone(),
                format!("`{what}` {place}"),
            );
            self.error(explain(d));
        }
    }

    fn scan_barriers(&mut self, span: &Span, place: &str) {
        for (name, at) in lex::calls(self.src, span) {
            if BARRIERS.contains(&name) {
                let d = Diagnostic::error(DYN0206, format!("`{name}` in {place}"), at, "barrier here")
                    .with_note("stage bodies run in divergent lanes of a persistent kernel: the other lanes of the workgroup may be running other stages, or none, so a barrier would deadlock or be undefined")
                    .with_hint("split the work into stages and communicate through buffers and atomics, or mark the stage `@width(N)` and call the barrier at the top level of its body");
                self.error(d);
            }
        }
    }

    /// DYN0206 in a `@width` body: every lane of the workgroup runs it in uniform control flow,
    /// so a barrier is allowed in a statement at the top level of the body, before anything that
    /// may `return`. (A conservative stand-in for WGSL's uniformity analysis, which Tint applies
    /// to the emitted module; what passes here also passes there.)
    fn scan_wide_barriers(&mut self, body: &ast::Block) {
        let exits = exits(self.src, body);
        let mut after_exit: Option<Span> = None;
        for stmt in &body.stmts {
            let span = stmt.span();
            let nested = !matches!(stmt, Stmt::Other { .. });
            if nested || after_exit.is_some() {
                for (name, at) in lex::calls(self.src, &span) {
                    if !BARRIERS.contains(&name) {
                        continue;
                    }
                    let mut d = Diagnostic::error(
                        DYN0206,
                        format!("`{name}` where the lanes of a wide stage may diverge"),
                        at,
                        "barrier here",
                    )
                    .with_note("every lane of the workgroup must reach a barrier: in a `@width` stage it may only be called at the top level of the body, not inside an `if`, `switch`, loop or block, nor after a possible `return`");
                    d = match &after_exit {
                        Some(exit) if !nested => d.with_label(exit.clone(), "some lanes may have returned here"),
                        _ => d.with_label(span.clone(), "inside this statement"),
                    };
                    self.error(d.with_hint("keep the barrier at the top level and put only the lane's work under the condition (`if (c) { ... }` then the barrier); unroll a loop around a barrier"));
                }
            }
            if after_exit.is_none() && contains_exit(&exits, &span) {
                after_exit = Some(span);
            }
        }
    }

    /// DYN0209: `dyn_lane`, `dyn_group` or `dyn_active` in `place`, which is not a wide body.
    fn scan_lane_builtins(&mut self, span: &Span, place: &str) {
        for (name, at) in lex::calls(self.src, span) {
            if crate::wgsl::LANE_BUILTINS.contains(&name) {
                let d = Diagnostic::error(DYN0209, format!("`{name}` in {place}"), at, "no `@width` here")
                    .with_note("`dyn_lane()`, `dyn_group()` and `dyn_active()` describe a lane of a wide unit; a one-lane unit is lane 0 of group 0, always active")
                    .with_hint("mark the stage `@width(N)`, or drop the call");
                self.error(d);
            }
        }
    }

    fn scan_dyn_names(&mut self, span: &Span) {
        for (name, at) in lex::idents(self.src, span) {
            if super::names::is_generated(name) && !crate::wgsl::BUILTINS.contains(&name) {
                let d = Diagnostic::error(
                    DYN0102,
                    format!("`{name}` is a reserved name"),
                    at,
                    super::names::GENERATED,
                )
                .with_hint("choose another name");
                self.error(d);
            }
        }
    }
}
