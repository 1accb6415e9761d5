//! The frame loop, short: 36 frames whose tree swings 100x on a real WebGPU device (SwiftShader
//! in CI). Every frame must equal the CPU reference, no frame may wait on the GPU, and the
//! arena must grow under the load and shrink after it.
//!
//! There is no skipping: without an adapter the test fails (install SwiftShader and set
//! `VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`; `scripts/test` does).

use dyngc_runtime::{open_gpu, Completed, Error, Executor, Gpu, PolicyConfig, RunSetup, Stream, WaitOptions};
use frame_loop::Config;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static GPU: LazyLock<Gpu> = LazyLock::new(|| {
    pollster::block_on(open_gpu()).unwrap_or_else(|e| {
        panic!("no WebGPU device for the GPU tests: {e}\n(these tests never skip; scripts/test installs SwiftShader)")
    })
});

#[test]
fn arena_follows_the_load_without_waiting_on_the_gpu() {
    let config = Config {
        frames: 36,
        min_nodes: 150,
        max_nodes: 15_000,
        max_in_flight: 3,
        policy: PolicyConfig {
            shrink_after: 3,
            ..PolicyConfig::new(0, 16 << 20)
        },
        timeout: Duration::from_secs(600),
    };
    let report = frame_loop::run(&GPU, &config, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let f = &report.frames;
    let table: String = f
        .iter()
        .map(|r| {
            format!(
                "frame {:>2}: {:>6} nodes, arena {:>8}, ring {:>6}, ring_hw {:>6}, fallbacks {:>6}\n",
                r.frame, r.tree.nodes, r.arena_bytes, r.ring_slots, r.ring_high_water, r.fallback_spawns
            )
        })
        .collect();
    assert_eq!(f.len(), config.frames, "{table}");
    for r in f {
        assert!(r.frame < config.frames);
        if let Some(m) = &r.mismatch {
            panic!(
                "frame {} (seed {}, depth {}): {m}\n{table}",
                r.frame, r.tree.seed, r.tree.max_depth
            );
        }
    }
    let nodes = |pick: fn(u64, u64) -> u64| f.iter().map(|r| r.tree.nodes).reduce(pick).unwrap();
    assert!(
        nodes(u64::max) >= 50 * nodes(u64::min),
        "the load must swing about 100x\n{table}"
    );

    assert_eq!(report.waits_in_frames, 0, "a frame waited on the GPU");
    assert_eq!(report.waits_total, 0, "the loop waited on the GPU between frames");

    let arena: Vec<u64> = f.iter().map(|r| r.arena_bytes).collect();
    let peak = *arena.iter().max().unwrap();
    let first_peak = arena.iter().position(|&a| a == peak).unwrap();
    let calm_start = config.frames / 5;
    let calm_max = *arena[..calm_start].iter().max().unwrap();
    assert!(
        peak > calm_max,
        "the arena did not grow under load beyond the calm frames' {calm_max} bytes\n{table}"
    );
    assert!(
        first_peak >= calm_start,
        "the largest arena came before the load\n{table}"
    );
    assert!(
        *arena.last().unwrap() < peak,
        "the arena did not shrink after the load\n{table}"
    );
    // It grew because runs were fallback-bound: some run before the peak ran out of ring.
    assert!(
        f[..first_peak]
            .iter()
            .any(|r| r.fallback_spawns > 0 && r.ring_high_water as f64 >= config.policy.touch * r.ring_slots as f64),
        "{table}"
    );
}

/// The count of blocking waits the loop checks is live: a synchronous run increments it.
#[test]
fn a_synchronous_run_counts_as_a_blocking_wait() {
    let manifest = frame_loop::manifest().unwrap();
    let exec = Executor::new(&GPU.device, &manifest, frame_loop::tree::WGSL).unwrap_or_else(|e| panic!("{e}"));
    let tree = frame_loop::tree_for(1, 500);
    let setup = RunSetup {
        arena_bytes: manifest.executor.arena.min_bytes,
        ..frame_loop::setup(&tree)
    };
    let mut run = exec.prepare(&GPU.queue, &setup).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exec.blocking_waits(), 0);
    run.execute(&WaitOptions::default(), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(exec.blocking_waits() > 0);
    let out = run.read("per_depth").unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, tree.per_depth);
}

/// Polls until every submitted run has completed; returns them in submission order. (The
/// deadline only turns a hang into a failure.)
fn drain(stream: &mut Stream<'_>) -> Vec<Completed> {
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut out = Vec::new();
    while stream.in_flight() > 0 {
        assert!(Instant::now() < deadline, "runs still in flight after 10 minutes");
        std::thread::sleep(Duration::from_millis(1));
        out.extend(stream.poll().unwrap_or_else(|e| panic!("{e}")));
    }
    out.sort_by_key(|c| c.job);
    out
}

/// A resize reaches only runs submitted after it (runs in flight keep their arena, and all
/// finish correctly); a kernel error ends its own run with the error and no other.
#[test]
fn resize_reaches_later_runs_and_kernel_errors_stay_with_their_run() {
    let manifest = frame_loop::manifest().unwrap();
    let exec = Executor::new(&GPU.device, &manifest, frame_loop::tree::WGSL).unwrap_or_else(|e| panic!("{e}"));
    let min = manifest.executor.arena.min_bytes;
    let mut stream = Stream::new(&exec, &GPU.queue, min).unwrap_or_else(|e| panic!("{e}"));
    let tree = frame_loop::tree_for(3, 3000);

    // Recursion past the declared @max_depth(24): a tree with 3 children at most that has
    // nodes at depth 24, run with max_depth 25.
    let deep_seed = (0..10_000)
        .find(|&s| {
            let t = dyngc_reference::tree(s, 24, 3);
            t[24] >= 4 && t.iter().map(|&c| c as u64).sum::<u64>() <= 20_000
        })
        .expect("a seed whose tree reaches depth 24");
    let mut deep = RunSetup::default();
    deep.param("seed", deep_seed)
        .param("max_depth", 25)
        .param("max_children", 3);

    let small = stream.submit(&frame_loop::setup(&tree)).unwrap();
    stream.resize(8 * min).unwrap();
    let failing = stream.submit(&deep).unwrap();
    // Two scheduler steps a launch, one launch a submission, two workers: this run needs many
    // submissions, each started by a poll that saw it not done. (Without the worker count, the
    // seven workers 8 * min holds since reserves may take 15/16 of it needed 10-11.)
    let mut slow = frame_loop::setup(&tree);
    slow.fuel(2).chain_length(1).workers(2);
    let large = stream.submit(&slow).unwrap();
    assert!(matches!(stream.resize(min - 1), Err(Error::ArenaTooSmall { .. })));
    assert_eq!(stream.arena_bytes(), 8 * min);

    let done = drain(&mut stream);
    assert_eq!(
        done.iter().map(|c| c.job).collect::<Vec<_>>(),
        vec![small, failing, large]
    );
    for (c, arena) in [(&done[0], min), (&done[2], 8 * min)] {
        let outcome = c.result.as_ref().unwrap_or_else(|e| panic!("{:?}: {e}", c.job));
        assert!(outcome.stats.host.arena_bytes <= arena);
        assert_eq!(outcome.usage.arena_bytes, arena);
        assert!(outcome.usage.done);
        if let Some(m) = frame_loop::check(&tree, outcome) {
            panic!("{:?} at {arena} bytes: {m}", c.job);
        }
    }
    let slow_submissions = done[2].result.as_ref().unwrap().stats.host.submissions;
    assert!(slow_submissions > 10, "{slow_submissions} submissions");
    match &done[1].result {
        Err(Error::Kernel(k)) => {
            assert_eq!(k.name, "MAX_DEPTH", "{k}");
            assert_eq!((k.stage.as_deref(), k.value, k.bound), (Some("node"), 25, 24), "{k}");
        }
        other => panic!("expected MAX_DEPTH, got {other:?}"),
    }
    assert_eq!(exec.blocking_waits(), 0);
}
