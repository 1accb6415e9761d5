//! dyngc itself: the shipped examples compiled in-process, run through `dyngc-runtime`.

use crate::gpu::Gpu;
use crate::{RunArgs, StackFrames};
use dyngc_runtime::artifact::Role;
use dyngc_runtime::{Error, Executor, Manifest, RunSetup, Snapshot};

pub struct Compiled {
    pub manifest: Manifest,
    pub wgsl: String,
}

/// The `.dyn` programs the bench runs: (name, source).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("triangle", include_str!("../../../examples/triangle.dyn")),
    ("tree", include_str!("../../../examples/tree.dyn")),
    ("bfs", include_str!("../../../examples/bfs.dyn")),
    ("bfs_levels", include_str!("../../../examples/bfs_levels.dyn")),
    ("collatz", include_str!("../../../examples/collatz.dyn")),
    ("row_sum", include_str!("../../../examples/row_sum.dyn")),
    ("row_sum_narrow", include_str!("../../../bench/dyn/row_sum_narrow.dyn")),
    ("compact", include_str!("../../../examples/compact.dyn")),
    ("tessellate", include_str!("../../../examples/tessellate.dyn")),
];

pub fn compile(name: &str, options: impl Into<dyngc_compiler::Options>) -> Compiled {
    let source = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| panic!("no example `{name}`"));
    let compiled = dyngc_compiler::compile(source, name, options);
    let a = compiled.artifact.unwrap_or_else(|| {
        panic!(
            "{}",
            dyngc_compiler::render::render(name, source, &compiled.diagnostics)
        )
    });
    Compiled {
        manifest: a.manifest,
        wgsl: a.wgsl,
    }
}

/// Checks a run's outputs (name, bytes) against the reference.
pub type Verify<'a> = &'a dyn Fn(&[(String, Vec<u8>)]) -> Result<(), String>;

/// One completed, verified run.
pub struct DynRun {
    pub secs: f64,
    pub gpu_secs: Option<f64>,
    /// Each submission's GPU time (empty without timestamps).
    pub gpu_submission_secs: Vec<f64>,
    pub peak_bytes: u64,
    pub arena_bytes: u64,
    pub workers: u32,
    pub submissions: u64,
    pub launches: u64,
    pub fallbacks: u64,
    pub stats: serde_json::Value,
}

/// Prepares (allocation and upload are not timed), runs to completion (timed: first submission
/// to the done flag read back), reads the outputs and hands them to `verify`.
///
/// The completion loop is `Run::execute`'s (record a launch chain and a copy of the control
/// block, submit, read it back, repeat until done), driven here through the manifest's protocol
/// so that the bench's encoders carry the GPU timestamps.
/// `args` supplies the run's knobs: workers, stream window, launches per submission, timeout.
pub fn run(
    gpu: &Gpu,
    exec: &Executor,
    arena: u64,
    args: &RunArgs,
    inputs: &[(&str, &[u8])],
    params: &[(&str, u32)],
    verify: Verify<'_>,
) -> Result<DynRun, String> {
    let timeout = std::time::Duration::from_secs_f64(args.timeout_s);
    let mut setup = RunSetup::new(arena);
    for (n, d) in inputs {
        setup.input(*n, d);
    }
    for (n, v) in params {
        setup.param(*n, *v);
    }
    if let Some(w) = args.workers {
        setup.workers(w);
    }
    if let Some(n) = args.chain_length {
        setup.chain_length(n);
    }
    setup.stream_capacity = args.stream_capacity;
    setup.dispatch_groups = args.dispatch_groups;
    setup.queue_frames = args.queue_frames;
    setup.ring_slots = args.ring_slots;
    let arena_layout = &exec.manifest().executor.arena;
    setup.stack_frames = args.stack_frames.map(|f| match f {
        StackFrames::Frames(n) => n,
        StackFrames::Min => arena_layout.least_stack_frames(),
        StackFrames::Max => arena_layout.stack_frames,
    });
    let mut run = exec.prepare(&gpu.queue, &setup).map_err(|e| e.to_string())?;
    let m = exec.manifest();
    let control = m
        .bindings
        .iter()
        .find(|b| b.role == Role::Control)
        .and_then(|b| run.buffer(&b.name))
        .cloned()
        .ok_or("the manifest has no control block")?;
    let control_bytes = m.executor.control.words as u64 * 4;
    let plan = run.plan().clone();
    let t = gpu.start();
    let mut submissions = 0u64;
    let mut launches = 0u64;
    let mut stats = loop {
        let mut enc = gpu.encoder();
        if submissions == 0 {
            run.record_start(&mut enc);
        } else {
            run.record_continue(&mut enc);
        }
        launches += run.chain_length() as u64;
        let snapshot = Snapshot::decode(m, &gpu.read(&control, 0, control_bytes, Some(enc)));
        submissions += 1;
        if let Some(e) = snapshot.error {
            return Err(Error::Kernel(e).to_string());
        }
        run.drain(&snapshot).map_err(|e| e.to_string())?;
        if snapshot.done {
            break snapshot.stats;
        }
        if t.elapsed() >= timeout {
            return Err(Error::Timeout {
                elapsed: t.elapsed(),
                limit: Some(timeout),
                submissions,
                launches,
            }
            .to_string());
        }
    };
    let times = gpu.stop(t);
    stats.host = run.host_stats_as_counted(submissions, launches, std::time::Duration::from_secs_f64(times.wall));
    let outputs = run.read_outputs().map_err(|e| e.to_string())?;
    verify(&outputs)?;
    let control_words = exec.manifest().executor.control.words as u64;
    // Every binding's buffer, the indirect buffer (12 bytes per kernel) and the control readback.
    let kernels = 1 + m.entry_points.dispatches.len() as u64;
    let peak = plan.buffers.iter().map(|b| b.alloc).sum::<u64>() + 12 * kernels + control_words * 4;
    Ok(DynRun {
        secs: times.wall,
        gpu_secs: times.gpu,
        gpu_submission_secs: times.per_submission,
        peak_bytes: peak,
        arena_bytes: plan.arena_bytes,
        workers: plan.workers,
        submissions: stats.host.submissions,
        launches: stats.get("launches").unwrap_or(stats.host.launches),
        fallbacks: stats.get("fallback_spawns").unwrap_or(0),
        stats: serde_json::to_value(&stats).unwrap_or_default(),
    })
}

pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
