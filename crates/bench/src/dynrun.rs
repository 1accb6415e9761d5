//! dyngc itself: the shipped examples compiled in-process, run through `dyngc-runtime`.

use crate::gpu::Gpu;
use dyngc_runtime::{Executor, Manifest, RunSetup};
use std::time::Instant;

pub struct Compiled {
    pub manifest: Manifest,
    pub wgsl: String,
}

pub fn compile(name: &str) -> Compiled {
    let source = match name {
        "triangle" => include_str!("../../../examples/triangle.dyn"),
        "tree" => include_str!("../../../examples/tree.dyn"),
        "bfs" => include_str!("../../../examples/bfs.dyn"),
        "collatz" => include_str!("../../../examples/collatz.dyn"),
        other => panic!("no example `{other}`"),
    };
    let parsed = dyngc_syntax::parse(source);
    assert!(parsed.diagnostics.is_empty(), "{name}: {:#?}", parsed.diagnostics);
    let checked = dyngc_ir::check(&parsed.file, source, name);
    let program = checked
        .program
        .unwrap_or_else(|| panic!("{name}: {:#?}", checked.diagnostics));
    let a = dyngc_codegen::generate(&program).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
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
#[allow(clippy::too_many_arguments)]
pub fn run(
    gpu: &Gpu,
    exec: &Executor,
    arena: u64,
    workers: Option<u32>,
    timeout: std::time::Duration,
    inputs: &[(&str, &[u8])],
    params: &[(&str, u32)],
    verify: Verify<'_>,
) -> Result<DynRun, String> {
    let mut setup = RunSetup::new(arena);
    for (n, d) in inputs {
        setup.input(*n, d);
    }
    for (n, v) in params {
        setup.param(*n, *v);
    }
    if let Some(w) = workers {
        setup.workers(w);
    }
    let mut run = exec.prepare(&gpu.queue, &setup).map_err(|e| e.to_string())?;
    gpu.idle();
    let t = Instant::now();
    let stats = run
        .execute(
            &dyngc_runtime::WaitOptions {
                timeout,
                ..Default::default()
            },
            &mut |_| {},
        )
        .map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let outputs = run.read_outputs().map_err(|e| e.to_string())?;
    verify(&outputs)?;
    let plan = run.plan();
    let control_words = exec.manifest().executor.control.words as u64;
    // Every binding's buffer, the 12-byte indirect buffer and the control readback buffer.
    let peak = plan.buffers.iter().map(|b| b.alloc).sum::<u64>() + 12 + control_words * 4;
    Ok(DynRun {
        secs,
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
