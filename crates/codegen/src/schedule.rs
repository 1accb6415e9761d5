//! Which stages the persistent megakernel runs and which become ordinary dispatches
//! (`--schedule partitioned`, docs/executor.md "Partitioned schedule").

pub use dyngc_artifact::Schedule;
use dyngc_ir::{Program, StageId};
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
}

/// Splits the stages. A stage stays persistent when it is on a cycle (tail loop, recursion, a
/// keyed worklist), is keyed (its marks need the sweep), is wide (a full queue's direct call
/// would run its barriers in one lane), belongs to a graph-level loop (a round is a cycle), or
/// can reach such a stage: a dispatch runs before the persistent kernel sees its
/// spawns, and only an acyclic target can be run by a direct call when its queue is full.
pub fn partition(program: &Program, schedule: Schedule) -> Partition {
    if schedule == Schedule::Megakernel || program.entry.until.is_some() {
        return Partition::default();
    }
    let graph = &program.graph;
    let on_cycle = |s: StageId| {
        let scc = program.stages[s].scc;
        program.edges.iter().any(|e| e.from == s && e.to == s)
            || program.stages.iter().enumerate().any(|(t, st)| t != s && st.scc == scc)
    };
    let mut persistent = vec![false; program.stages.len()];
    for node in graph.node_indices() {
        let s = graph[node];
        let stage = &program.stages[s];
        if on_cycle(s) || stage.keyed.is_some() || stage.width > 1 {
            for ancestor in petgraph::visit::Dfs::new(Reversed(graph), node).iter(Reversed(graph)) {
                persistent[graph[ancestor]] = true;
            }
        }
    }
    let dispatched = NodeFiltered::from_fn(graph, |n| !persistent[graph[n]]);
    let order = petgraph::algo::toposort(&dispatched, None).expect("stages off every cycle form a DAG");
    Partition {
        dispatches: order
            .into_iter()
            .map(|n| {
                let stage = graph[n];
                let workgroup_size = if program.stages[stage].sites.is_empty() {
                    LEAF_DISPATCH_WG
                } else {
                    SPAWNER_DISPATCH_WG
                };
                Dispatch { stage, workgroup_size }
            })
            .collect(),
    }
}
