//! Stream outputs against the CPU references, on a real WebGPU device (SwiftShader in CI).
//!
//! Every stream example runs at window capacities 1, 7, exactly the emitted count and large, at
//! the minimum arena (one worker) and a large one (many workers), with the default and a tiny
//! fuel; the stream must hold exactly the reference's elements (compared as sorted multisets:
//! the order is unspecified), every unit must have run exactly once, and `pending` must be 0.
//! A unit that emits more than its stage declares stops the run with the kernel's error.
//!
//! There is no skipping: without an adapter the tests fail.

mod support;

use dyngc_codegen::Schedule;
use dyngc_runtime::{open_gpu, Error, Executor, Gpu, RunSetup, Stats, Stream, WaitOptions};
use std::sync::LazyLock;
use std::time::{Duration, Instant};
use support::StreamCase;

static GPU: LazyLock<Gpu> = LazyLock::new(|| {
    pollster::block_on(open_gpu()).unwrap_or_else(|e| {
        panic!("no WebGPU device for the GPU tests: {e}\n(these tests never skip; scripts/test installs SwiftShader)")
    })
});

const RUN_TIMEOUT: Duration = Duration::from_secs(180);
const LARGE_ARENA: u64 = 64 << 20;
const LARGE_WINDOW: u64 = 1 << 20;

fn executor_for(artifact: &dyngc_codegen::Artifact) -> Executor {
    Executor::new(&GPU.device, &artifact.manifest, &artifact.wgsl).unwrap_or_else(|e| panic!("{e}"))
}

/// One run's setup: window capacity, arena, workers, fuel, and whether the asynchronous
/// `Stream` drives it (drains mapped without waiting) instead of the blocking `Run::execute`.
#[derive(Clone, Copy, Debug)]
struct Combo {
    capacity: u64,
    arena: Option<u64>,
    workers: u32,
    fuel: Option<u32>,
    asynchronous: bool,
}

/// Capacities 1, 7, `exact` and large, each at the minimum arena and a large one with 64
/// workers; the fuel alternates between the default and 2 (many launches); one more run with a
/// large arena and a single worker, and one with 256 workers, whose windows split into the most
/// sub-windows (one per ring shard of 8 workers, at most 32); then two through the asynchronous
/// `Stream`: a window of 7 with 64 workers, and the exact window with fuel 2 on one worker.
fn combos(exact: u64) -> Vec<Combo> {
    let combo = |capacity, arena, workers, fuel, asynchronous| Combo {
        capacity,
        arena,
        workers,
        fuel,
        asynchronous,
    };
    let mut out = Vec::new();
    for (i, capacity) in [1, 7, exact.max(1), LARGE_WINDOW].into_iter().enumerate() {
        for (arena, workers) in [(None, 1), (Some(LARGE_ARENA), 64)] {
            out.push(combo(capacity, arena, workers, (i % 2 == 1).then_some(2), false));
        }
    }
    out.push(combo(7, Some(LARGE_ARENA), 1, None, false));
    out.push(combo(exact.max(1), Some(LARGE_ARENA), 256, None, false));
    out.push(combo(7, Some(LARGE_ARENA), 64, None, true));
    out.push(combo(exact.max(1), None, 1, Some(2), true));
    out
}

/// Runs once; returns the stream's bytes and the statistics.
fn run(
    exec: &Executor,
    inputs: &[(&str, Vec<u8>)],
    params: &[(&str, u32)],
    stream: &str,
    combo: &Combo,
) -> Result<(Vec<u8>, Stats), Error> {
    let arena = combo.arena.unwrap_or(exec.manifest().executor.arena.min_bytes);
    let mut setup = RunSetup::new(arena);
    for (name, bytes) in inputs {
        setup.input(*name, bytes);
    }
    for (name, v) in params {
        setup.param(*name, *v);
    }
    setup.workers(combo.workers).stream_capacity(combo.capacity);
    if let Some(f) = combo.fuel {
        setup.fuel(f);
    }
    let (outputs, stats) = if combo.asynchronous {
        finish_without_waiting(exec, arena, &setup)?
    } else {
        let mut run = exec.prepare(&GPU.queue, &setup)?;
        let opts = WaitOptions {
            timeout: RUN_TIMEOUT,
            ..Default::default()
        };
        let stats = run.execute(&opts, &mut |_| {})?;
        (run.read_outputs()?, stats)
    };
    let bytes = outputs
        .into_iter()
        .find(|(n, _)| n == stream)
        .map(|(_, b)| b)
        .expect("the stream is an output");
    Ok((bytes, stats))
}

/// Output bindings by name with their bytes, in manifest order.
type Outputs = Vec<(String, Vec<u8>)>;

/// One run through the asynchronous `Stream`, polled (never waited on) until it completes.
fn finish_without_waiting(exec: &Executor, arena: u64, setup: &RunSetup<'_>) -> Result<(Outputs, Stats), Error> {
    let mut stream = Stream::new(exec, &GPU.queue, arena)?;
    let job = stream.submit(setup)?;
    let started = Instant::now();
    loop {
        if let Some(done) = stream.poll()?.into_iter().find(|c| c.job == job) {
            let outcome = done.result?;
            return Ok((outcome.outputs, outcome.stats));
        }
        assert!(
            started.elapsed() < RUN_TIMEOUT,
            "the asynchronous run did not finish in {RUN_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs every combination of `case` and compares with its reference (as sorted rows, through
/// `support::same_stream_row`) and its unit counts. Panics listing failures.
fn check_stream(case: &StreamCase) {
    let artifact = support::compile(case.example, Schedule::Partitioned);
    let exec = executor_for(&artifact);
    let expected = &case.expected;
    let row = expected.first().map_or(1, |r| r.len());
    let inputs: Vec<(&str, Vec<u8>)> = case.inputs.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let params: Vec<(&str, u32)> = case.params.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let mut failures = Vec::new();
    for combo in combos(expected.len() as u64) {
        let (bytes, stats) = match run(&exec, &inputs, &params, case.stream, &combo) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{combo:?}: {e}"));
                continue;
            }
        };
        let words = support::u32s(&bytes);
        let mut got: Vec<Vec<u32>> = words.chunks(row).map(<[u32]>::to_vec).collect();
        got.sort();
        let same = |(g, e): (&Vec<u32>, &Vec<u32>)| support::same_stream_row(case, g, e);
        if got.len() != expected.len() || !got.iter().zip(expected).all(same) {
            let first = got.iter().zip(expected).position(|p| !same(p));
            failures.push(format!(
                "{combo:?}: {} elements, expected {}; first difference at {first:?}",
                got.len(),
                expected.len()
            ));
        }
        for (stage, n) in &case.units {
            if stats.units(stage) != Some(*n) {
                failures.push(format!(
                    "{combo:?}: stage `{stage}` ran {:?} units, expected {n}",
                    stats.units(stage)
                ));
            }
        }
        if stats.get("pending") != Some(0) {
            failures.push(format!("{combo:?}: pending {:?} after the run", stats.get("pending")));
        }
        let drains = stats.host.stream_drains;
        let least = (expected.len() as u64).div_ceil(
            combo
                .capacity
                .max(artifact.manifest.executor.streams[0].min_capacity as u64),
        );
        if !expected.is_empty() && drains < least {
            failures.push(format!(
                "{combo:?}: {drains} drains cannot have carried {} elements",
                expected.len()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "examples/{}.dyn ({}):\n{}",
        case.example,
        case.label,
        failures.join("\n")
    );
}

#[test]
fn compact_random() {
    let x: Vec<u32> = (0..240u32).map(|i| dyngc_reference::pcg(i) % 1000).collect();
    for modulus in [7, 1, 0, 2000] {
        check_stream(&support::compact_stream_case(&x, modulus));
    }
}

#[test]
fn compact_empty_input() {
    check_stream(&support::compact_stream_case(&[], 3));
}

#[test]
fn tessellate_random_curves() {
    check_stream(&support::tessellate_stream_case(24, 3.5));
}

#[test]
fn quadtree_leaves_at_every_depth() {
    let case = support::quadtree_stream_case(1500, 6);
    let depths: std::collections::BTreeSet<u32> = case.expected.iter().map(|l| l[2]).collect();
    assert!(depths.len() >= 3, "the case should emit at several depths: {depths:?}");
    check_stream(&case);
}

/// A maximum too large for the lane's buffer: every emit takes its own position.
#[test]
fn long_emits_unbuffered() {
    let n: Vec<u32> = (0..12u32).map(|i| dyngc_reference::pcg(i) % 900).collect();
    check_stream(&support::long_emits_stream_case(&n));
}

/// A unit that emits more than its declared `@max_emit` stops the run with EMIT_BOUND.
#[test]
fn emitting_past_the_declared_maximum_is_a_kernel_error() {
    let source = "output out: stream<u32>;\n\n@max_emit(out, 2)\nstage s(@index i: u32) {\n    var k = 0u;\n    while (k < i) {\n        emit out(k);\n        k += 1u;\n    }\n}\n\nentry s(4);\n";
    let artifact = dyngc_compiler::compile(source, "over", Schedule::Partitioned)
        .artifact
        .expect("the program compiles: the bound is only known at run time");
    let exec = executor_for(&artifact);
    let combo = Combo {
        capacity: 64,
        arena: Some(LARGE_ARENA),
        workers: 4,
        fuel: None,
        asynchronous: false,
    };
    match run(&exec, &[], &[], "out", &combo) {
        Err(Error::Kernel(k)) => {
            assert_eq!(k.name, "EMIT_BOUND", "{k}");
            assert_eq!(k.stage.as_deref(), Some("s"));
            assert_eq!((k.value, k.bound), (3, 2), "{k}");
        }
        other => panic!("expected the EMIT_BOUND kernel error, got {other:?}"),
    }
}
