//! The stage graph: components, cycle rules, recursion counters, the spawn-depth bound.

use super::body::Bodies;
use super::decls::StageSig;
use super::Checker;
use crate::id::sealed::FromIndex;
use crate::{Edge, EdgeKind, Entry, IdVec, RecursionStep, StageId};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{HashMap, VecDeque};

/// Largest `@max_depth` bound accepted.
pub(crate) const MAX_DEPTH_LIMIT: u32 = 64;

/// Per stage and per edge by position (the algorithms here work on positions).
pub(super) struct GraphInfo {
    pub scc: Vec<usize>,
    pub recursion: Vec<Option<(StageId, u32)>>,
    pub steps: Vec<RecursionStep>,
    /// Per edge: a lone spawn ([`crate::Edge::lone`]).
    pub lone: Vec<bool>,
    pub max_spawn_depth: u32,
}

/// Component of every node and the components' members, in petgraph's Kosaraju order (reverse
/// topological: a component comes after every component it has edges into).
pub(super) fn components(n: usize, edges: impl Iterator<Item = (usize, usize)>) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut g = DiGraph::<(), ()>::with_capacity(n, 0);
    for _ in 0..n {
        g.add_node(());
    }
    for (a, b) in edges {
        g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
    }
    let mut comp = vec![0; n];
    let comps: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .map(|c| {
            let mut m: Vec<usize> = c.into_iter().map(|v| v.index()).collect();
            m.sort_unstable();
            m
        })
        .collect();
    for (c, members) in comps.iter().enumerate() {
        for &v in members {
            comp[v] = c;
        }
    }
    (comp, comps)
}

/// `(from, to, weight)`.
type WeightedEdge = (usize, usize, u64);

/// A cycle made of the edges `ks` (all among `members`) that contains at least one `must`
/// edge, as edge indices in order, starting with the first such `must` edge of `ks`. Works on
/// the subgraph alone, so checking every component costs linear time overall.
fn find_cycle(members: &[usize], ks: &[usize], edges: &[Edge], must: &dyn Fn(usize) -> bool) -> Option<Vec<usize>> {
    let local: HashMap<usize, usize> = members.iter().enumerate().map(|(l, &g)| (g, l)).collect();
    let ends = |k: usize| Some((*local.get(&edges[k].from.index())?, *local.get(&edges[k].to.index())?));
    let ks: Vec<(usize, usize, usize)> = ks.iter().filter_map(|&k| ends(k).map(|(a, b)| (k, a, b))).collect();
    let n = members.len();
    let (comp, _) = components(n, ks.iter().map(|&(_, a, b)| (a, b)));
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for &(k, a, b) in &ks {
        adj[a].push((k, b));
    }
    let &(start, from, to) = ks.iter().find(|&&(k, a, b)| must(k) && comp[a] == comp[b])?;
    if from == to {
        return Some(vec![start]);
    }
    // Shortest way back from `to` to `from`.
    let mut prev: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([to]);
    seen[to] = true;
    while let Some(u) = queue.pop_front() {
        if u == from {
            break;
        }
        for &(k, v) in &adj[u] {
            if !seen[v] && comp[v] == comp[from] {
                seen[v] = true;
                prev[v] = Some((k, u));
                queue.push_back(v);
            }
        }
    }
    let mut path = Vec::new();
    let mut v = from;
    while v != to {
        let (k, u) = prev[v]?;
        path.push(k);
        v = u;
    }
    path.reverse();
    let mut cycle = vec![start];
    cycle.extend(path);
    Some(cycle)
}

/// Longest path over the components of a graph (nodes `0..n`): each component costs
/// `cost(members, edges inside it)`, edges between components add their weight, edges inside
/// a component add nothing.
fn longest(n: usize, edges: &[(usize, usize, u64)], cost: &mut dyn FnMut(&[usize], &[WeightedEdge]) -> u64) -> u64 {
    let (comp, comps) = components(n, edges.iter().map(|&(a, b, _)| (a, b)));
    let mut out: Vec<Vec<(usize, u64)>> = vec![Vec::new(); comps.len()];
    let mut inner: Vec<Vec<(usize, usize, u64)>> = vec![Vec::new(); comps.len()];
    for &(a, b, w) in edges {
        if comp[a] != comp[b] {
            out[comp[a]].push((comp[b], w));
        } else {
            inner[comp[a]].push((a, b, w));
        }
    }
    let mut dist = vec![0u64; comps.len()];
    // Reverse topological order: every successor component is finished before its predecessors.
    for (c, members) in comps.iter().enumerate() {
        let best = out[c]
            .iter()
            .map(|&(d, w)| w.saturating_add(dist[d]))
            .max()
            .unwrap_or(0);
        dist[c] = cost(members, &inner[c]).saturating_add(best);
    }
    dist.into_iter().max().unwrap_or(0)
}

fn verb(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Spawn | EdgeKind::Keyed => "spawns",
        EdgeKind::FanOut => "fans out into",
        EdgeKind::Become => "becomes",
    }
}

impl<'a> Checker<'a> {
    fn stage_name(&self, i: usize) -> &'a str {
        &self.stages.raw()[i].name.name
    }

    /// naga-style rendering of a cycle: the first site primary, every other one secondary.
    fn cycle_diagnostic(&self, code: &'static str, message: String, cycle: &[usize], edges: &[Edge]) -> Diagnostic {
        let first = &edges[cycle[0]];
        let (a, b) = (self.stage_name(first.from.index()), self.stage_name(first.to.index()));
        let label = if cycle.len() == 1 {
            format!("`{a}` {} itself here, closing the cycle", verb(first.kind))
        } else {
            format!("`{a}` {} `{b}` here", verb(first.kind))
        };
        let mut d = Diagnostic::error(code, message, first.span.clone(), label);
        for (i, &k) in cycle.iter().enumerate().skip(1) {
            let e = &edges[k];
            let to = self.stage_name(e.to.index());
            let label = if i + 1 == cycle.len() {
                format!("...which {} `{to}` again, closing the cycle", verb(e.kind))
            } else {
                format!("...which {} `{to}`", verb(e.kind))
            };
            d = d.with_label(e.span.clone(), label);
        }
        let mut path: Vec<&str> = cycle.iter().map(|&k| self.stage_name(edges[k].from.index())).collect();
        path.push(a);
        d.with_note(format!("cycle: {}", path.join(" -> ")))
    }

    pub(super) fn check_graph(
        &mut self,
        sigs: &IdVec<StageId, StageSig>,
        bodies: &Bodies,
        entry: Option<&Entry>,
    ) -> GraphInfo {
        let n = self.stages.len();
        let (sigs, edges) = (sigs.raw(), bodies.edges.raw());
        let (scc, comps) = components(n, edges.iter().map(|e| (e.from.index(), e.to.index())));
        let mut recursion: Vec<Option<(StageId, u32)>> = vec![None; n];
        let mut spawn_cyclic = vec![false; comps.len()];
        let is_spawn = |k: usize| matches!(edges[k].kind, EdgeKind::Spawn | EdgeKind::FanOut);

        let mut internal: Vec<Vec<usize>> = vec![Vec::new(); comps.len()];
        for (k, e) in edges.iter().enumerate() {
            if scc[e.from.index()] == scc[e.to.index()] {
                internal[scc[e.from.index()]].push(k);
            }
        }

        for (c, members) in comps.iter().enumerate() {
            if members.len() == 1 && internal[c].is_empty() {
                continue; // not cyclic
            }
            let eprime: Vec<usize> = internal[c]
                .iter()
                .copied()
                .filter(|&k| edges[k].kind != EdgeKind::Keyed)
                .collect();

            // Rule 2: a loop of unconditional `become`s never ends.
            let tail: Vec<usize> = eprime
                .iter()
                .copied()
                .filter(|&k| edges[k].kind == EdgeKind::Become && !edges[k].conditional)
                .collect();
            if let Some(cycle) = find_cycle(members, &tail, edges, &|_| true) {
                let d = self
                    .cycle_diagnostic(DYN0301, "tail loop without an exit condition".into(), &cycle, edges)
                    .with_note("every `become` in this loop runs unconditionally, so the loop can never end")
                    .with_hint("put the `become` under an `if` (or after a conditional `return`) so the loop can end");
                self.error(d);
            }

            // Rule 3: recursion through spawns needs exactly one `@max_depth` stage.
            let Some(cycle) = find_cycle(members, &eprime, edges, &is_spawn) else {
                continue;
            };
            spawn_cyclic[c] = true;
            if members.iter().any(|&m| sigs[m].bad_max_depth) {
                // A bound was written but is malformed (reported): whether it would bound this
                // recursion cannot be told, and "add `@max_depth`" would be wrong advice.
                continue;
            }
            let mut annotated: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&m| sigs[m].max_depth.is_some())
                .collect();
            annotated.sort_by_key(|&m| sigs[m].max_depth.as_ref().map_or(0, |(_, s)| s.start));
            match annotated.as_slice() {
                [] => {
                    let d = self
                        .cycle_diagnostic(DYN0300, "undeclared cycle: these stages can spawn each other without bound".into(), &cycle, edges)
                        .with_hint("declare how it ends: add `@max_depth(N)` to one of its stages, make one of its spawns target a `@keyed` stage, or (for a loop of `become`s) put the `become` under a condition");
                    self.error(d);
                }
                [a] => {
                    let a = *a;
                    let Some((depth, span)) = sigs[a].max_depth.clone() else {
                        continue;
                    };
                    let mut ok = true;
                    if depth == 0 {
                        ok = false;
                        let d = Diagnostic::error(
                            DYN0303,
                            "`@max_depth(0)` on a recursive stage",
                            span.clone(),
                            "a bound of 0 forbids the recursion this cycle makes",
                        )
                        .with_hint("give the deepest recursion the graph may reach, at least 1");
                        self.error(d);
                    } else if depth > MAX_DEPTH_LIMIT {
                        ok = false;
                        let d = Diagnostic::error(
                            DYN0303,
                            format!("`@max_depth({depth})` is above the limit of {MAX_DEPTH_LIMIT}"),
                            span.clone(),
                            "bound too large",
                        )
                        .with_note("the serial fallback reserves stack for the deepest chain of spawns, which grows with the bound")
                        .with_hint(format!("use at most `@max_depth({MAX_DEPTH_LIMIT})`, or turn the recursion into a worklist through a `@keyed` stage"));
                        self.error(d);
                    }
                    let avoiding: Vec<usize> = eprime.iter().copied().filter(|&k| edges[k].to.index() != a).collect();
                    if let Some(cycle) = find_cycle(members, &avoiding, edges, &is_spawn) {
                        ok = false;
                        let name = self.stage_name(a);
                        let d = self
                            .cycle_diagnostic(DYN0300, format!("undeclared cycle: it never passes through `{name}`"), &cycle, edges)
                            .with_label(span.clone(), format!("the bound is on `{name}`"))
                            .with_note(format!("this cycle avoids `{name}`, the stage with `@max_depth`, so its bound never counts this recursion"))
                            .with_hint("put `@max_depth` on a stage that every recursive cycle passes through, or break this cycle with a `@keyed` stage");
                        self.error(d);
                    }
                    if ok {
                        for &m in members {
                            recursion[m] = Some((StageId::from_index(a), depth));
                        }
                    }
                }
                [first, rest @ ..] => {
                    let span_of = |m: usize| sigs[m].max_depth.as_ref().map_or(0..0, |(_, s)| s.clone());
                    let mut d = Diagnostic::error(
                        DYN0303,
                        "more than one `@max_depth` in one recursive component",
                        span_of(rest[0]),
                        format!("second bound, on `{}`", self.stage_name(rest[0])),
                    )
                    .with_label(
                        span_of(*first),
                        format!("first bound, on `{}`", self.stage_name(*first)),
                    );
                    for &m in &rest[1..] {
                        d = d.with_label(span_of(m), format!("another bound, on `{}`", self.stage_name(m)));
                    }
                    let d = d
                        .with_note(
                            "the recursion counter increments on edges into the one stage that carries the bound",
                        )
                        .with_hint("keep `@max_depth` on a single stage of the cycle");
                    self.error(d);
                }
            }
        }

        // Rule 4: a bound on a stage nothing recurses through.
        for (i, sig) in sigs.iter().enumerate() {
            if let Some((_, span)) = &sig.max_depth {
                if !spawn_cyclic[scc[i]] {
                    let name = self.stage_name(i);
                    let d = Diagnostic::error(
                        DYN0303,
                        format!("`@max_depth` on `{name}`, which does not recurse"),
                        span.clone(),
                        format!("nothing recurses through `{name}`"),
                    )
                    .with_note("`@max_depth` bounds a cycle of spawns; this stage is on none (cycles through a `@keyed` stage or of `become`s need no bound)")
                    .with_hint("remove the attribute");
                    self.error(d);
                }
            }
        }

        let steps: Vec<RecursionStep> = edges
            .iter()
            .map(|e| {
                if e.kind == EdgeKind::Keyed || scc[e.from.index()] != scc[e.to.index()] {
                    RecursionStep::Reset
                } else if recursion[e.from.index()].is_some_and(|(a, _)| a == e.to) {
                    RecursionStep::Increment
                } else {
                    RecursionStep::Keep
                }
            })
            .collect();

        // Unreachable stages.
        if let Some(entry) = entry {
            let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
            for e in edges {
                out[e.from.index()].push(e.to.index());
            }
            let mut seen = vec![false; n];
            let start = entry.stage.index();
            let mut queue = VecDeque::from([start]);
            if start < n {
                seen[start] = true;
            }
            while let Some(u) = queue.pop_front() {
                for &v in out.get(u).into_iter().flatten() {
                    if !seen[v] {
                        seen[v] = true;
                        queue.push_back(v);
                    }
                }
            }
            for (i, reached) in seen.iter().enumerate() {
                if !reached {
                    let st = self.stages.raw()[i];
                    let d = Diagnostic::warning(
                        DYN0302,
                        format!("stage `{}` is never run", st.name.name),
                        st.name.span.clone(),
                        format!("not reachable from the entry stage `{}`", self.stage_name(start)),
                    )
                    .with_hint("spawn it from a reachable stage, or remove it");
                    self.diags.push(d);
                }
            }
        }

        // A lone spawn continues its spawner's chain at the same level, as a `become` does.
        let width = |s: StageId| sigs[s.index()].width.as_ref().map_or(1, |(w, _)| *w);
        let lone: Vec<bool> = edges
            .iter()
            .map(|e| {
                let from = e.from.index();
                e.kind == EdgeKind::Spawn
                    && width(e.from) == 1
                    && width(e.to) == 1
                    && bodies.max_spawns.raw()[from] == 1
                    && !bodies.becomes.raw()[from]
            })
            .collect();

        // Bound on nested non-keyed spawns: Spawn/FanOut weigh 1, Become and lone spawns 0,
        // Keyed edges start new chains (every stage is a possible start).
        let g_edges: Vec<(usize, usize, u64)> = edges
            .iter()
            .zip(&lone)
            .filter(|(e, _)| e.kind != EdgeKind::Keyed)
            .map(|(e, &lone)| {
                (
                    e.from.index(),
                    e.to.index(),
                    u64::from(e.kind != EdgeKind::Become && !lone),
                )
            })
            .collect();
        let mut cost = |members: &[usize], inner: &[(usize, usize, u64)]| -> u64 {
            if !inner.iter().any(|&(_, _, w)| w == 1) {
                return 0; // acyclic, or a loop of `become`s and lone spawns: nothing nests inside
            }
            let Some((anchor, depth)) = members.iter().find_map(|&m| recursion[m]) else {
                return 0; // an error was reported
            };
            let local: HashMap<usize, usize> = members.iter().enumerate().map(|(l, &g)| (g, l)).collect();
            let dag: Vec<(usize, usize, u64)> = inner
                .iter()
                .filter(|&&(_, b, _)| b != anchor.index())
                .filter_map(|&(a, b, w)| Some((*local.get(&a)?, *local.get(&b)?, w)))
                .collect();
            let l = longest(members.len(), &dag, &mut |_, _| 0);
            // Each of the `depth + 1` passes through the anchor nests at most `l`, and the edge
            // back into the anchor at most its weight.
            let back = inner
                .iter()
                .filter(|&&(_, b, _)| b == anchor.index())
                .map(|&(_, _, w)| w)
                .max()
                .unwrap_or(0);
            (u64::from(depth) + 1).saturating_mul(l.saturating_add(back))
        };
        let depth = longest(n, &g_edges, &mut cost);
        let max_spawn_depth = u32::try_from(depth.saturating_add(1)).unwrap_or(u32::MAX);

        GraphInfo {
            scc,
            recursion,
            steps,
            lone,
            max_spawn_depth,
        }
    }
}
