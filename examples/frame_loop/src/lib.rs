//! A frame loop over `examples/tree.dyn` whose load swings by about 100x, driven the way an
//! engine would: every frame polls the [`Stream`] (never waiting on the GPU), checks the runs
//! that finished against the CPU reference, and submits its own run with the arena size the
//! runtime's [`Policy`] chose from earlier frames' usage. `main.rs` prints and plots it;
//! `tests/frame_loop.rs` runs a short version in CI.
//!
//! The artifact is compiled at build time (`build.rs`, with `dyngc-build`) and embedded: the
//! runtime sees only the WGSL text and the manifest, and this crate names its bindings,
//! stages and parameters through the generated module [`tree`].

pub mod plot;

use dyngc_reference::{LoadCurve, SizedTree};
use dyngc_runtime::{Executor, Gpu, JobId, Manifest, Outcome, Policy, PolicyConfig, RunSetup, Stream};
use std::collections::HashMap;
use std::time::{Duration, Instant};

// The compiled `examples/tree.dyn`: `tree::WGSL`, `tree::MANIFEST`, `tree::bindings`,
// `tree::stages` and `tree::Params`.
include!(concat!(env!("OUT_DIR"), "/tree.rs"));

/// Every tree has this fan-out bound; the seed and depth change from frame to frame.
pub const MAX_CHILDREN: u32 = 4;

/// The embedded manifest.
pub fn manifest() -> Result<Manifest, String> {
    Manifest::from_json(tree::MANIFEST).map_err(|e| format!("the embedded manifest: {e}"))
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub frames: usize,
    /// Tree sizes (nodes) of the calm and the peak frames.
    pub min_nodes: u64,
    pub max_nodes: u64,
    /// Frames whose runs may be in flight at once before the loop holds the next frame back
    /// (as a swapchain does), polling and sleeping, never waiting on the device.
    pub max_in_flight: usize,
    /// The sizing policy; its floor is raised to the program's minimum arena, where the loop
    /// starts.
    pub policy: PolicyConfig,
    /// Give up when the whole loop takes longer than this.
    pub timeout: Duration,
}

/// One frame's tree: `examples/tree.dyn` with these parameters, and its CPU reference.
pub type Tree = SizedTree;

/// Scheduler steps per worker and launch: short launches, as a frame budget wants. A heavy tree
/// then needs several, which the policy reads as worker-bound when the arena holds fewer workers
/// than requested, and grows it.
pub const FRAME_FUEL: u32 = 64;

/// The run of `tree` (the arena is the stream's).
pub fn setup(tree: &Tree) -> RunSetup<'static> {
    let mut setup = RunSetup::default();
    setup.fuel(FRAME_FUEL).params = tree::Params {
        seed: tree.seed,
        max_depth: tree.max_depth,
        max_children: MAX_CHILDREN,
    }
    .bits();
    setup
}

/// The load, in nodes: `min_nodes` for the first and last fifth, `max_nodes` for the middle
/// tenth, and a raised cosine (in log space) between.
pub fn load(min_nodes: u64, max_nodes: u64) -> LoadCurve {
    LoadCurve {
        min: min_nodes,
        max: max_nodes,
        rise_start: 0.2,
        rise_len: 0.25,
        fall_end: 0.8,
        fall_len: 0.25,
    }
}

/// The tree closest in size to `target` (within 20% when a seed tried has such a depth), with
/// seeds that differ from frame to frame ([`dyngc_reference::frame_tree`]).
pub fn tree_for(frame: usize, target: u64) -> Tree {
    dyngc_reference::frame_tree(frame, target, MAX_CHILDREN)
}

/// One frame's run, as it came back.
#[derive(Clone, Debug)]
pub struct FrameRecord {
    /// The frame that submitted the run.
    pub frame: usize,
    pub tree: Tree,
    /// The frame during (or right after) which its result came back.
    pub resolved_in: usize,
    /// The arena its run had, and how it was split.
    pub arena_bytes: u64,
    pub workers: u32,
    pub ring_slots: u32,
    pub used_bytes: u64,
    pub ring_high_water: u32,
    pub fallback_spawns: u64,
    pub launches: u64,
    pub submissions: u64,
    /// From its submission until the frame loop saw the result.
    pub latency: Duration,
    /// `None` when `per_depth` and the `node` unit count equal the CPU reference; otherwise the
    /// first difference.
    pub mismatch: Option<String>,
}

/// The whole loop.
#[derive(Clone, Debug)]
pub struct Report {
    /// In frame order.
    pub frames: Vec<FrameRecord>,
    /// Blocking device waits inside frames (must be 0) and over the whole loop, draining
    /// included.
    pub waits_in_frames: u64,
    pub waits_total: u64,
    /// The longest time the host spent inside one frame (polling, checking, submitting).
    pub longest_frame: Duration,
    pub wall: Duration,
    pub adapter: String,
}

impl Report {
    pub fn all_correct(&self) -> bool {
        self.frames.iter().all(|f| f.mismatch.is_none())
    }
}

/// Compares a finished run with its tree: `None` when `per_depth` and the `node` unit count
/// equal the CPU reference, else the first difference.
pub fn check(tree: &Tree, outcome: &Outcome) -> Option<String> {
    let Some((_, bytes)) = outcome.outputs.iter().find(|(n, _)| n == tree::bindings::PER_DEPTH) else {
        return Some("no `per_depth` output came back".into());
    };
    let got: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if got != tree.per_depth {
        let i = (0..got.len().max(tree.per_depth.len()))
            .find(|&i| got.get(i) != tree.per_depth.get(i))
            .unwrap_or(0);
        return Some(format!(
            "per_depth[{i}]: expected {:?}, got {:?}",
            tree.per_depth.get(i),
            got.get(i)
        ));
    }
    match outcome.stats.units(tree::stages::NODE) {
        Some(n) if n == tree.nodes => None,
        other => Some(format!("`node` ran {other:?} units, expected {}", tree.nodes)),
    }
}

/// Runs in flight: their frame, tree, arena and submission time.
type Pending = HashMap<JobId, (usize, Tree, u64, Instant)>;

/// Runs the loop on `gpu`; `on_frame` sees each record as its result arrives. Kernel and device
/// errors end the loop with an error; wrong results are recorded (see [`Report::all_correct`]).
pub fn run(gpu: &Gpu, config: &Config, mut on_frame: impl FnMut(&FrameRecord)) -> Result<Report, String> {
    let start = Instant::now();
    let manifest = manifest()?;
    let exec = Executor::new(&gpu.device, &manifest, tree::WGSL).map_err(|e| e.to_string())?;
    let policy = Policy::new(&manifest, config.policy.clone(), 0).map_err(|e| e.to_string())?;
    let mut stream = Stream::new(&exec, &gpu.queue, policy.size()).map_err(|e| e.to_string())?;
    stream.set_policy(policy).map_err(|e| e.to_string())?;
    // A tree run needs a handful of submissions; thousands means it does not terminate.
    stream.set_submission_limit(10_000);

    let waits_before = exec.blocking_waits();
    let mut pending: Pending = HashMap::new();
    let mut records: Vec<FrameRecord> = Vec::with_capacity(config.frames);
    let mut waits_in_frames = 0;
    let mut longest_frame = Duration::ZERO;

    let mut harvest = |stream: &mut Stream<'_>,
                       pending: &mut Pending,
                       now: usize,
                       records: &mut Vec<FrameRecord>|
     -> Result<(), String> {
        for done in stream.poll().map_err(|e| e.to_string())? {
            let (frame, tree, arena_bytes, submitted) = pending
                .remove(&done.job)
                .ok_or_else(|| format!("a result for unknown run {:?}", done.job))?;
            let outcome = done.result.map_err(|e| format!("frame {frame}: {e}"))?;
            let u = &outcome.usage;
            let record = FrameRecord {
                frame,
                resolved_in: now,
                arena_bytes,
                workers: u.workers,
                ring_slots: u.ring_slots,
                used_bytes: u.used_bytes,
                ring_high_water: u.ring_high_water,
                fallback_spawns: u.fallback_spawns,
                launches: u.launches,
                submissions: outcome.stats.host.submissions,
                latency: submitted.elapsed(),
                mismatch: check(&tree, &outcome),
                tree,
            };
            on_frame(&record);
            records.push(record);
        }
        Ok(())
    };
    let over_time =
        |what: &str| (start.elapsed() > config.timeout).then(|| format!("{what} took more than {:?}", config.timeout));

    let load = load(config.min_nodes, config.max_nodes);
    for frame in 0..config.frames {
        let tree = tree_for(frame, load.at(frame, config.frames));

        // The frame: take what finished, submit this frame's run. No waiting in here.
        let began = Instant::now();
        let waits = exec.blocking_waits();
        harvest(&mut stream, &mut pending, frame, &mut records)?;
        let arena_bytes = stream.arena_bytes();
        let job = stream
            .submit(&setup(&tree))
            .map_err(|e| format!("frame {frame}: {e}"))?;
        pending.insert(job, (frame, tree, arena_bytes, Instant::now()));
        waits_in_frames += exec.blocking_waits() - waits;
        longest_frame = longest_frame.max(began.elapsed());

        // Between frames: hold the next one back while too many are in flight, as presenting
        // to a swapchain would, but by polling, not by waiting on the device.
        while stream.in_flight() >= config.max_in_flight {
            std::thread::sleep(Duration::from_micros(500));
            harvest(&mut stream, &mut pending, frame, &mut records)?;
            if let Some(e) = over_time("the frame loop") {
                return Err(e);
            }
        }
    }
    while stream.in_flight() > 0 {
        std::thread::sleep(Duration::from_micros(500));
        harvest(&mut stream, &mut pending, config.frames, &mut records)?;
        if let Some(e) = over_time("draining the last frames") {
            return Err(e);
        }
    }
    records.sort_by_key(|r| r.frame);
    Ok(Report {
        frames: records,
        waits_in_frames,
        waits_total: exec.blocking_waits() - waits_before,
        longest_frame,
        wall: start.elapsed(),
        adapter: format!("{} ({:?})", gpu.info.name, gpu.info.backend),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngc_runtime::artifact::Role;
    use dyngc_runtime::{DeviceLimits, Plan};

    /// The generated module names what the manifest holds, and the runtime plans a run from
    /// the generated `Params` (an unknown, missing or repeated name would fail the plan).
    #[test]
    fn the_generated_names_are_the_manifests_and_the_runtime_takes_them() {
        let manifest = manifest().unwrap();
        let outputs: Vec<&str> = manifest
            .bindings
            .iter()
            .filter(|b| b.role == Role::Output)
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(outputs, [tree::bindings::PER_DEPTH]);
        let stages: Vec<&str> = manifest.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(stages, [tree::stages::ROOT, tree::stages::NODE, tree::stages::CHILD]);
        let t = tree_for(0, 100);
        let setup = RunSetup {
            arena_bytes: manifest.executor.arena.min_bytes,
            ..setup(&t)
        };
        let plan = Plan::new(&manifest, &setup, &DeviceLimits::unlimited()).unwrap_or_else(|e| panic!("{e}"));
        let expected = [
            ("seed", t.seed),
            ("max_depth", t.max_depth),
            ("max_children", MAX_CHILDREN),
        ];
        assert_eq!(plan.params, expected.map(|(n, v)| (n.to_string(), v)));
    }

    #[test]
    fn load_swings_from_min_to_max_and_back() {
        let at = |f| load(200, 20_000).at(f, 300);
        assert_eq!((at(0), at(59), at(150), at(240), at(299)), (200, 200, 20_000, 200, 200));
        assert!((60..135).all(|f| at(f) <= at(f + 1)), "rises");
        assert!((165..240).all(|f| at(f) >= at(f + 1)), "falls");
    }
}
