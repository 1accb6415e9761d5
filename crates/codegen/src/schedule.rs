//! Which stages the persistent megakernel runs and which become ordinary dispatches
//! (`--schedule partitioned`, docs/executor.md "Partitioned schedule").

pub use dyngc_artifact::Schedule;
use dyngc_ir::{Executable, IdVec, Program, StageId};
use petgraph::visit::{NodeFiltered, Reversed, Walker};

/// Workgroup size of a dispatched stage that spawns nothing: no staging to share, so lanes are cheap.
pub const LEAF_DISPATCH_WG: u32 = 256;
/// Workgroup size of a dispatched stage that spawns: each lane reserves queue frames itself.
pub const SPAWNER_DISPATCH_WG: u32 = 64;

/// One dispatched stage: it owns a bounded queue of frames, and its kernel drains that queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub stage: StageId,
    pub workgroup_size: u32,
    /// `@width(N)`: the kernel's workgroup is one unit's N lanes. A spawn that finds this
    /// queue full goes to the persistent kernel, which runs wide stages too (its producers are
    /// all persistent); a one-lane stage's is run from the spawning lane's fallback stack instead.
    pub wide: bool,
}

impl Dispatch {
    /// Units a workgroup takes from the queue at a time: a few per lane, or a few wide units.
    pub fn chunk(&self) -> u32 {
        if self.wide {
            crate::layout::LEAF_UNROLL
        } else {
            self.workgroup_size * crate::layout::LEAF_UNROLL
        }
    }
}

/// The dispatched stages in topological order (queue `q` is `dispatches[q]`); every other stage
/// runs in the persistent kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Partition {
    pub dispatches: Vec<Dispatch>,
}

impl Partition {
    /// The queue of a dispatched stage.
    pub fn queue(&self, stage: StageId) -> Option<u32> {
        self.dispatches.iter().position(|d| d.stage == stage).map(|q| q as u32)
    }

    /// True if a spawn of `stage` never goes through the persistent kernel's staging: it is
    /// dispatched, and a full queue means the lane's fallback stack.
    pub fn bypasses_staging(&self, stage: StageId) -> bool {
        self.dispatches.iter().any(|d| d.stage == stage && !d.wide)
    }
}

/// Splits the stages. A stage stays persistent when it is on a cycle (tail loop, recursion, a
/// keyed worklist), is keyed (its marks need the sweep), emits into a stream, belongs to a graph-level loop (a round
/// is a cycle), has a child that spawns (so a dispatched spawner's children are leaves), produces a wide stage's units (so a full queue can hand them to the persistent
/// kernel: running it from one lane's fallback stack would run the wide body's barriers in one lane), or can reach such a
/// stage: a dispatch runs after the persistent kernel in each chain, and only a target on no
/// cycle can be run from the fallback stack when its queue is full.
pub fn partition(program: &Program, schedule: Schedule) -> Partition {
    if schedule == Schedule::Megakernel || program.entry.until.is_some() {
        return Partition::default();
    }
    let graph = &program.graph;
    let on_cycle = |s: StageId| {
        let scc = program.stages[s].scc;
        program.edges.values().any(|e| e.from == s && e.to == s)
            || program.stages.iter().any(|(t, st)| t != s && st.scc == scc)
    };
    let mut persistent = program.stages.map(|_, _| false);
    let keep_with_ancestors = |node, persistent: &mut IdVec<StageId, bool>| {
        for ancestor in petgraph::visit::Dfs::new(Reversed(graph), node).iter(Reversed(graph)) {
            persistent[graph[ancestor]] = true;
        }
    };
    for node in graph.node_indices() {
        let s = graph[node];
        // A unit that finds its stream window full must be able to wait as a frame for the
        // next launch; a dispatch's fallback stack could not keep it.
        if on_cycle(s) || program.stages[s].keyed.is_some() || !program.stages[s].max_emits.is_empty() {
            keep_with_ancestors(node, &mut persistent);
        }
    }
    // A dispatched stage's kernel runs its full-queue spawns from its own fallback stack, so it
    // compiles every dispatched body below it: with only spawn-free children below a dispatched
    // spawner, each body is compiled in its own kernel, its producers' and the persistent one,
    // and the kernels together stay linear in the graph (a chain of 24 dispatched stages
    // compiled its tail in every kernel: quadratic).
    for node in graph.node_indices() {
        let grandparent = program.stages[graph[node]]
            .sites
            .iter()
            .any(|&k| !program.stages[program.edges[k].to].sites.is_empty());
        if grandparent {
            keep_with_ancestors(node, &mut persistent);
        }
    }
    for node in graph.node_indices() {
        if program.stages[graph[node]].width > 1 && !persistent[graph[node]] {
            let producers: Vec<_> = graph.neighbors_directed(node, petgraph::Incoming).collect();
            for p in producers {
                keep_with_ancestors(p, &mut persistent);
            }
        }
    }
    let dispatched = NodeFiltered::from_fn(graph, |n| !persistent[graph[n]]);
    let order = petgraph::algo::toposort(&dispatched, None).expect("stages off every cycle form a DAG");
    Partition {
        dispatches: order
            .into_iter()
            .map(|n| {
                let stage = &program.stages[graph[n]];
                let workgroup_size = if stage.width > 1 {
                    stage.width
                } else if stage.sites.is_empty() {
                    LEAF_DISPATCH_WG
                } else {
                    SPAWNER_DISPATCH_WG
                };
                Dispatch {
                    stage: graph[n],
                    workgroup_size,
                    wide: stage.width > 1,
                }
            })
            .collect(),
    }
}

/// The default schedule for `program` (`--schedule auto`): partitioned when it dispatches any
/// stage, else the megakernel (the two then build the same kernels; the manifest says which). On
/// the H200 the partitioned triangle and row_sum were as fast or faster at every arena
/// (docs/performance.md, "Schedules").
pub fn auto(program: &Executable) -> Schedule {
    if partition(program, Schedule::Partitioned).dispatches.is_empty() {
        Schedule::Megakernel
    } else {
        Schedule::Partitioned
    }
}
