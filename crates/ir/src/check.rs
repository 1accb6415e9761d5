//! The checker: from an [`ast::File`] to a [`Program`] and diagnostics.
//!
//! Phases, in order (each one reports what it can even after earlier errors):
//! 1. `decls`: top-level names (duplicates, reserved names), structs, resources (types, length
//!    rules, fills, bindings), parameters, stage signatures and attributes, the entry.
//! 2. `body`: spawn/become sites in stage bodies become edges; site-level rules (payload
//!    presence, fan-out vs `@index`, keyed targets, loops, barriers, spawn counts).
//! 3. `graph`: strongly connected components, cycle rules, recursion counters, bounds.
//! 4. `validate`: once declarations and sites are sound (graph-level errors, spawn counts and
//!    barriers do not stop it), every body is validated by naga in the WGSL context the
//!    generator emits ([`crate::wgsl::user_module`]).

pub(crate) mod body;
mod decls;
mod graph;
mod lex;
mod names;
mod validate;

#[cfg(test)]
mod tests;

use crate::{Checked, IdVec, ParamId, Program, ResourceId, StageId, StructId};
use dyngc_syntax::ast::{self, Span};
use dyngc_syntax::Diagnostic;
use std::collections::HashMap;

/// Resolves names, validates bodies with naga, builds the stage graph and checks it.
///
/// `source` is the text `file` was parsed from (spans index into it); `name` becomes
/// [`Program::name`]. Diagnostics come back sorted by the start of their primary span, at most
/// 100 of them and then one `DYN0004` counting the rest. The program is present exactly when no
/// diagnostic is an error.
pub fn check(file: &ast::File, source: &str, name: &str) -> Checked {
    let mut cx = Checker::new(file, source);
    let program = cx.run(name);
    let mut diagnostics = std::mem::take(&mut cx.diags);
    diagnostics.sort_by_key(|d| d.primary.span.start);
    // The same problem found twice (e.g. a reserved name as a declaration and as a token).
    let mut seen = std::collections::HashSet::new();
    diagnostics.retain(|d| seen.insert((d.code, d.primary.span.start, d.primary.span.end)));
    let program = if diagnostics.iter().any(Diagnostic::is_error) {
        None
    } else {
        program.map(crate::Executable::new)
    };
    cap_diagnostics(&mut diagnostics);
    Checked { program, diagnostics }
}

/// Keeps the first [`MAX_DIAGNOSTICS`](dyngc_syntax::limits::MAX_DIAGNOSTICS) diagnostics, as the
/// parser does, and summarises the rest in one `DYN0004`: a file that repeats one mistake
/// thousands of times (generated or corrupted input: a 10 MB file of duplicate declarations gives
/// ~750,000) would otherwise bury the first ones and take the renderer minutes. The summary is an
/// error exactly when a dropped diagnostic was one, so whether the file has errors is unchanged.
fn cap_diagnostics(diagnostics: &mut Vec<Diagnostic>) {
    use dyngc_syntax::limits::MAX_DIAGNOSTICS;
    if diagnostics.len() <= MAX_DIAGNOSTICS {
        return;
    }
    let dropped = diagnostics.split_off(MAX_DIAGNOSTICS);
    let (message, at) = (
        format!("too many diagnostics: {} more not shown", dropped.len()),
        dropped[0].primary.span.clone(),
    );
    let summary = if dropped.iter().any(Diagnostic::is_error) {
        Diagnostic::error(dyngc_syntax::codes::DYN0004, message, at, "reporting stops here")
    } else {
        Diagnostic::warning(dyngc_syntax::codes::DYN0004, message, at, "reporting stops here")
    };
    diagnostics.push(summary);
}

/// What a top-level name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GlobalKind {
    Resource(ResourceId),
    Param(ParamId),
    Struct(StructId),
    Helper(ast::WgslItemKind),
    Stage(StageId),
}

impl GlobalKind {
    fn describe(self) -> &'static str {
        match self {
            GlobalKind::Resource(_) => "a resource",
            GlobalKind::Param(_) => "a parameter",
            GlobalKind::Struct(_) => "a struct",
            GlobalKind::Helper(ast::WgslItemKind::Fn) => "a function",
            GlobalKind::Helper(ast::WgslItemKind::Const) => "a constant",
            GlobalKind::Helper(ast::WgslItemKind::Alias) => "a type alias",
            GlobalKind::Helper(ast::WgslItemKind::Workgroup) => "a workgroup variable",
            GlobalKind::Stage(_) => "a stage",
        }
    }
}

#[derive(Clone, Debug)]
struct Global {
    /// The first definition.
    kind: GlobalKind,
    span: Span,
    /// Later definitions of the same name (each reported as DYN0101).
    redefined: Vec<GlobalKind>,
}

struct Checker<'a> {
    src: &'a str,
    file: &'a ast::File,
    diags: Vec<Diagnostic>,
    /// First definition of every top-level name.
    globals: HashMap<&'a str, Global>,
    structs: IdVec<StructId, &'a ast::StructDecl>,
    resources: IdVec<ResourceId, &'a ast::Resource>,
    params: IdVec<ParamId, &'a ast::Param>,
    helpers: Vec<&'a ast::WgslItem>,
    stages: IdVec<StageId, &'a ast::Stage>,
    entries: Vec<&'a ast::Entry>,
    /// How many "did you mean" searches were made.
    suggestions: usize,
}

const MAX_SUGGESTIONS: usize = 100;

impl<'a> Checker<'a> {
    fn new(file: &'a ast::File, src: &'a str) -> Self {
        Checker {
            src,
            file,
            diags: Vec::new(),
            globals: HashMap::new(),
            structs: IdVec::default(),
            resources: IdVec::default(),
            params: IdVec::default(),
            helpers: Vec::new(),
            stages: IdVec::default(),
            entries: Vec::new(),
            suggestions: 0,
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    /// Errors after which the draft program cannot be validated by naga (it would report
    /// follow-on errors of placeholders, missing payloads or misplaced spawns).
    fn has_blocking_errors(&self) -> bool {
        use dyngc_syntax::codes::*;
        const INDEPENDENT: &[&str] = &[DYN0203, DYN0206, DYN0207, DYN0300, DYN0301, DYN0303];
        self.diags
            .iter()
            .any(|d| d.is_error() && !INDEPENDENT.contains(&d.code))
    }

    /// What `name` refers to where a name of the kind `want` is expected: its first definition,
    /// unless the name is defined more than once and a later definition is of the wanted kind.
    /// A duplicate name is reported once (DYN0101); its uses must not add "is a function, not
    /// a stage" errors for whichever definition happened to come first.
    fn lookup(&self, name: &str, want: impl Fn(GlobalKind) -> bool) -> Option<GlobalKind> {
        let g = self.globals.get(name)?;
        if want(g.kind) {
            return Some(g.kind);
        }
        Some(g.redefined.iter().copied().find(|&k| want(k)).unwrap_or(g.kind))
    }

    /// The declared name of one kind closest to `name` (plus `extra` candidates), for a "did
    /// you mean" hint. Only the first [`MAX_SUGGESTIONS`] calls search, so a file full of
    /// unknown names stays fast to check.
    fn suggest(&mut self, name: &str, extra: &[&'a str], pred: impl Fn(GlobalKind) -> bool) -> Option<&'a str> {
        if self.suggestions >= MAX_SUGGESTIONS {
            return None;
        }
        self.suggestions += 1;
        let mut v: Vec<(&'a str, usize)> = self
            .globals
            .iter()
            .filter(|(_, g)| pred(g.kind))
            .map(|(n, g)| (*n, g.span.start))
            .collect();
        v.sort_by_key(|&(_, s)| s);
        names::closest(name, extra.iter().copied().chain(v.into_iter().map(|(n, _)| n)))
    }

    fn run(&mut self, name: &str) -> Option<Program> {
        self.collect_names();
        let structs = self.check_structs();
        let resources = self.check_resources(&structs);
        let params = self.check_params();
        let sigs = self.check_stage_sigs(&structs);
        let entry = self.check_entry(&sigs);
        let bodies = self.check_bodies(&sigs);
        self.check_other_blocks();
        let graph = self.check_graph(&sigs, &bodies, entry.as_ref());

        // naga still runs after errors that leave the draft program well-formed (graph rules,
        // spawn counts, barriers), so one run reports both kinds.
        if self.has_blocking_errors() || !structs.acyclic {
            return None;
        }
        let entry = entry?;
        let stages = sigs.map(|i, sig| {
            let st = self.stages[i];
            crate::Stage {
                name: st.name.name.clone(),
                payload: sig.payload.clone(),
                index: sig.index.clone(),
                keyed: sig.keyed.clone(),
                max_depth: sig.max_depth.as_ref().map(|(d, _)| *d),
                width: sig.width.as_ref().map_or(1, |(w, _)| *w),
                body: st.body.clone(),
                sites: bodies.sites[i].clone(),
                max_spawns: bodies.max_spawns[i],
                becomes: bodies.becomes[i],
                emits: bodies.emits[i].clone(),
                max_emits: bodies.max_emits[i].clone(),
                scc: graph.scc[i.index()],
                recursion: graph.recursion[i.index()],
                span: st.span.clone(),
            }
        });
        let mut edges = bodies.edges;
        for ((e, step), &lone) in edges.values_mut().zip(&graph.steps).zip(&graph.lone) {
            e.recursion = *step;
            e.lone = lone;
        }
        let mut g = petgraph::graph::DiGraph::new();
        for i in stages.ids() {
            g.add_node(i);
        }
        for (k, e) in edges.iter() {
            g.add_edge(
                petgraph::graph::NodeIndex::new(e.from.index()),
                petgraph::graph::NodeIndex::new(e.to.index()),
                k,
            );
        }
        let max_frames_per_unit = stages
            .values()
            .map(|s| s.max_spawns.saturating_add(u32::from(s.becomes)))
            .max()
            .unwrap_or(0)
            .max(1);
        // `Ty::words` without recursion or overflow.
        let words = |ty: &crate::Ty| match ty {
            crate::Ty::Struct(i) => structs.words.get(i.index()).copied().unwrap_or(0),
            crate::Ty::Vector(n, _) => u64::from(*n),
            _ => 1,
        };
        let max_payload_words = stages
            .values()
            .filter_map(|s| s.payload.as_ref())
            .map(|(_, ty)| u32::try_from(words(ty)).unwrap_or(u32::MAX))
            .max()
            .unwrap_or(0)
            .max(1);
        let program = Program {
            name: name.to_string(),
            source: self.src.to_string(),
            structs: structs.defs,
            resources,
            params,
            helpers: self.helpers.iter().map(|h| h.span.clone()).collect(),
            workgroup_vars: self
                .helpers
                .iter()
                .filter(|h| h.kind == ast::WgslItemKind::Workgroup)
                .map(|h| (h.name.name.clone(), h.span.clone()))
                .collect(),
            stages,
            edges,
            graph: g,
            entry,
            max_spawn_depth: graph.max_spawn_depth,
            max_frames_per_unit,
            max_payload_words,
        };
        let until = program.entry.until.clone();
        let naga = validate::validate(&program, until.as_ref(), self.stages.raw(), &self.helpers);
        self.diags.extend(naga);
        if self.has_errors() {
            None
        } else {
            Some(program)
        }
    }
}
