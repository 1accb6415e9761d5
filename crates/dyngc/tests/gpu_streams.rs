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
use dyngc_runtime::{open_gpu, Error, Executor, Gpu, RunSetup, Stats, WaitOptions};
use std::sync::LazyLock;
use std::time::Duration;

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

/// One run's setup: window capacity, arena, workers, fuel.
#[derive(Clone, Copy, Debug)]
struct Combo {
    capacity: u64,
    arena: Option<u64>,
    workers: u32,
    fuel: Option<u32>,
}

/// Capacities 1, 7, `exact` and large, each at the minimum arena and a large one with 64
/// workers; the fuel alternates between the default and 2 (many launches); one more run with a
/// large arena and a single worker.
fn combos(exact: u64) -> Vec<Combo> {
    let mut out = Vec::new();
    for (i, capacity) in [1, 7, exact.max(1), LARGE_WINDOW].into_iter().enumerate() {
        for (arena, workers) in [(None, 1), (Some(LARGE_ARENA), 64)] {
            out.push(Combo {
                capacity,
                arena,
                workers,
                fuel: (i % 2 == 1).then_some(2),
            });
        }
    }
    out.push(Combo {
        capacity: 7,
        arena: Some(LARGE_ARENA),
        workers: 1,
        fuel: None,
    });
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
    let mut run = exec.prepare(&GPU.queue, &setup)?;
    let opts = WaitOptions {
        timeout: RUN_TIMEOUT,
        ..Default::default()
    };
    let stats = run.execute(&opts, &mut |_| {})?;
    let outputs = run.read_outputs()?;
    let bytes = outputs
        .into_iter()
        .find(|(n, _)| n == stream)
        .map(|(_, b)| b)
        .expect("the stream is an output");
    Ok((bytes, stats))
}

/// Runs every combination and compares with `expected` (sorted rows of 32-bit words, `row`
/// words each) through `same`; `units` is what each stage must run. Panics listing failures.
fn check_stream(
    example: &str,
    inputs: &[(&str, Vec<u8>)],
    params: &[(&str, u32)],
    stream: &str,
    expected: &[Vec<u32>],
    units: &[(&str, u64)],
    same: &dyn Fn(&[u32], &[u32]) -> bool,
) {
    let artifact = support::compile(example, Schedule::Partitioned);
    let exec = executor_for(&artifact);
    let row = expected.first().map_or(1, |r| r.len());
    let mut failures = Vec::new();
    for combo in combos(expected.len() as u64) {
        let (bytes, stats) = match run(&exec, inputs, params, stream, &combo) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{combo:?}: {e}"));
                continue;
            }
        };
        let words = support::u32s(&bytes);
        let mut got: Vec<Vec<u32>> = words.chunks(row).map(<[u32]>::to_vec).collect();
        got.sort();
        if got.len() != expected.len() || !got.iter().zip(expected).all(|(g, e)| same(g, e)) {
            let first = got.iter().zip(expected).position(|(g, e)| !same(g, e));
            failures.push(format!(
                "{combo:?}: {} elements, expected {}; first difference at {first:?}",
                got.len(),
                expected.len()
            ));
        }
        for (stage, n) in units {
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
    assert!(failures.is_empty(), "examples/{example}.dyn:\n{}", failures.join("\n"));
}

fn exact(a: &[u32], b: &[u32]) -> bool {
    a == b
}

#[test]
fn compact_random() {
    let x: Vec<u32> = (0..240u32).map(|i| dyngc_reference::pcg(i) % 1000).collect();
    for modulus in [7, 1, 0, 2000] {
        let mut expected: Vec<Vec<u32>> = dyngc_reference::compact(&x, modulus)
            .into_iter()
            .map(|v| vec![v])
            .collect();
        expected.sort();
        check_stream(
            "compact",
            &[("x", support::words(&x))],
            &[("modulus", modulus)],
            "kept",
            &expected,
            &[("keep", x.len() as u64)],
            &exact,
        );
    }
}

#[test]
fn compact_empty_input() {
    check_stream(
        "compact",
        &[("x", Vec::new())],
        &[("modulus", 3)],
        "kept",
        &[],
        &[("keep", 0)],
        &exact,
    );
}

/// Positions agree to a few ulps (the GPU may fuse multiply-adds); curve and k exactly.
fn same_vertex(a: &[u32], b: &[u32]) -> bool {
    let close = |x: u32, y: u32| {
        let (x, y) = (f32::from_bits(x), f32::from_bits(y));
        (x - y).abs() <= 1e-5 * (1.0 + x.abs().max(y.abs()))
    };
    a.len() == 4 && b.len() == 4 && a[..2] == b[..2] && close(a[2], b[2]) && close(a[3], b[3])
}

#[test]
fn tessellate_random_curves() {
    let mut ctrl = Vec::new();
    for i in 0..3 * 24u32 {
        let f = |s: u32| (dyngc_reference::pcg(s) % 4096) as f32 / 1024.0;
        ctrl.push([f(2 * i), f(2 * i + 1)]);
    }
    let spu: f32 = 3.5;
    let mut expected: Vec<Vec<u32>> = dyngc_reference::tessellate(&ctrl, spu)
        .into_iter()
        .map(|(c, k, p)| vec![c, k, p[0].to_bits(), p[1].to_bits()])
        .collect();
    expected.sort_by_key(|r| (r[0], r[1]));
    let bytes: Vec<u8> = ctrl
        .iter()
        .flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    let check = |a: &[u32], b: &[u32]| same_vertex(a, b);
    // Sorting rows of words sorts by (curve, k) first: both are unique together.
    check_stream(
        "tessellate",
        &[("ctrl", bytes)],
        &[("segments_per_unit", spu.to_bits())],
        "verts",
        &expected,
        &[("curve", 24)],
        &check,
    );
}

#[test]
fn quadtree_leaves_at_every_depth() {
    let (radius, max_depth) = (1500, 6);
    let mut expected: Vec<Vec<u32>> = dyngc_reference::quadtree_leaves(radius, max_depth)
        .into_iter()
        .map(|l| l.to_vec())
        .collect();
    expected.sort();
    let depths: std::collections::BTreeSet<u32> = expected.iter().map(|l| l[2]).collect();
    assert!(depths.len() >= 3, "the case should emit at several depths: {depths:?}");
    // Every cell is a leaf or has four children: cells = 1 + 4 * (cells that split).
    let cells = (4 * expected.len() as u64 - 1) / 3;
    check_stream(
        "quadtree",
        &[],
        &[("radius", radius), ("max_depth", max_depth)],
        "leaves",
        &expected,
        &[("root", 1), ("cell", cells), ("quarter", cells - 1)],
        &exact,
    );
}

/// A unit that emits more than its declared `@max_emit` stops the run with EMIT_BOUND.
#[test]
fn emitting_past_the_declared_maximum_is_a_kernel_error() {
    let source = "output out: stream<u32>;\n\n@max_emit(out, 2)\nstage s(@index i: u32) {\n    var k = 0u;\n    while (k < i) {\n        emit out(k);\n        k += 1u;\n    }\n}\n\nentry s(4);\n";
    let parsed = dyngc_syntax::parse(source);
    let program = dyngc_ir::check(&parsed.file, source, "over")
        .program
        .expect("the program checks: the bound is only known at run time");
    let artifact = dyngc_codegen::generate(&program, Schedule::Partitioned).expect("it builds");
    let exec = executor_for(&artifact);
    let combo = Combo {
        capacity: 64,
        arena: Some(LARGE_ARENA),
        workers: 4,
        fuel: None,
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
