//! docs/async.md's JavaScript recipe as a tested program: `tests/dawn/frame_loop.mjs` runs a
//! frame loop over `examples/tree.dyn` under Dawn (npm `webgpu`, SwiftShader's Vulkan) from the
//! WGSL and the manifest alone. Every frame submits a run at the arena size its JavaScript sizing
//! policy chose, maps the readback without awaiting it, and later frames harvest the resolved
//! readbacks, continuing unfinished runs with more launch chains.
//!
//! The loop's 30 trees swing about 100x in size (chosen with `dyngc_reference::frame_tree`). The test
//! checks every frame against the CPU reference, that no frame awaited anything and no frame
//! harvested its own run, that the arena grew under load because of fallback-bound runs and
//! shrank after it, and that the JavaScript policy made the same decisions as
//! `dyngc_runtime::Policy` on the same usage samples (replayed here), with the same arena layout
//! (workers, stack frames per reserve, ring slots, buffer bytes) and `used_bytes`, and that no
//! stack outgrew the reserve the JavaScript host gave it. A second test shows that the await
//! detector is live.
//!
//! Needs `node` and `tests/dawn/node_modules` (`scripts/test` installs both); without them the
//! tests fail rather than skip. A failing run keeps its directory and prints the command that
//! reproduces it.

mod support;

use dyngc_reference::{frame_tree, LoadCurve, SizedTree};
use dyngc_runtime::{used_bytes, Manifest, Policy, PolicyConfig, Usage};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

const MAX_CHILDREN: u32 = 4;
const FRAMES: usize = 30;
const MIN_NODES: u64 = 150;
/// The load of each frame, in nodes: `MIN_NODES` for the first quarter and the last third,
/// 15,000 in the middle, a raised cosine in log space between.
const LOAD: LoadCurve = LoadCurve {
    min: MIN_NODES,
    max: 15_000,
    rise_start: 0.25,
    rise_len: 0.15,
    fall_end: 0.65,
    fall_len: 0.1,
};
const MAX_IN_FLIGHT: usize = 3;
const SHRINK_AFTER: u32 = 3;
const CEILING: u64 = 16 << 20;

/// What came back from one node run.
struct Outcome {
    report: Value,
    dir: PathBuf,
    repro: String,
}

/// Writes the tree artifact and a config to a fresh directory and runs frame_loop.mjs on them.
/// Panics (with the output and a reproduce command) unless it exits 0.
fn run_loop(label: &str, config: &Value) -> Outcome {
    let script = support::dawn_script("frame_loop.mjs");
    let artifact = support::compile("tree", dyngc_codegen::Schedule::Megakernel);
    let dir = std::env::temp_dir().join(format!("dyngc-dawn-frame-loop-{}-{label}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let wgsl = dir.join("tree.wgsl");
    let manifest = dir.join("tree.manifest.json");
    let config_path = dir.join("config.json");
    let out = dir.join("out.json");
    std::fs::write(&wgsl, &artifact.wgsl).unwrap();
    std::fs::write(&manifest, artifact.manifest.to_json()).unwrap();
    std::fs::write(&config_path, serde_json::to_string_pretty(config).unwrap()).unwrap();

    let args = [
        script.display().to_string(),
        "--wgsl".into(),
        wgsl.display().to_string(),
        "--manifest".into(),
        manifest.display().to_string(),
        "--config".into(),
        config_path.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    let run = support::run_node(&args);
    let repro = format!("reproduce with:\n  {}\n(files kept in {})", run.command, dir.display());
    let text = run.output;
    assert!(
        run.status.success(),
        "frame_loop.mjs failed ({}):\n{text}\n{repro}",
        run.status
    );
    let report: Value = serde_json::from_slice(
        &std::fs::read(&out).unwrap_or_else(|e| panic!("reading {}: {e}\n{repro}", out.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}\n{repro}", out.display()));
    assert!(report["error"].is_null(), "{}\n{repro}", report["error"]);
    Outcome { report, dir, repro }
}

fn u64_of(v: &Value, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what} is not a whole number: {v}"))
}

/// Replays the usage samples frame_loop.mjs fed its policy through `dyngc_runtime::Policy`, and
/// checks the JavaScript layout and `used_bytes` against the Rust ones on the way. Returns the
/// first disagreement.
fn replay_policy(manifest: &Manifest, report: &Value) -> Result<usize, String> {
    let p = &report["policy"];
    let config = PolicyConfig {
        floor: u64_of(&p["floor"], "policy.floor"),
        ceiling: u64_of(&p["ceiling"], "policy.ceiling"),
        grow_factor: p["grow"].as_f64().unwrap(),
        touch: p["touch"].as_f64().unwrap(),
        shrink_below: p["shrink_below"].as_f64().unwrap(),
        shrink_after: u64_of(&p["shrink_after"], "policy.shrink_after") as u32,
    };
    let mut policy = Policy::new(manifest, config, 0).map_err(|e| e.to_string())?;
    let samples = report["samples"].as_array().unwrap();
    for (i, s) in samples.iter().enumerate() {
        let n = |k: &str| u64_of(&s[k], &format!("samples[{i}].{k}"));
        let (arena, requested) = (n("arena_bytes"), n("requested_workers") as u32);
        let workers = requested.min(manifest.max_workers(arena)).max(1);
        let stack_frames = manifest.stack_frames(arena, workers);
        let ring_slots = manifest
            .ring_slots(arena, workers)
            .ok_or_else(|| format!("sample {i}: {arena} bytes is below the minimum arena"))?;
        // The arena buffer as dyngc_runtime's plan sizes it (whole words).
        let buffer = manifest.arena_bytes(workers, stack_frames, ring_slots).div_ceil(4) * 4;
        let js = (
            n("workers") as u32,
            n("stack_frames") as u32,
            n("ring_slots") as u32,
            n("arena_buffer_bytes"),
        );
        if js != (workers, stack_frames, ring_slots, buffer) {
            return Err(format!(
                "sample {i}: the JavaScript layout of {arena} bytes is {} workers of {} stack frames, {} ring slots, {} bytes; manifest.md's rule gives {workers}, {stack_frames}, {ring_slots}, {buffer}: {s}",
                s["workers"], s["stack_frames"], s["ring_slots"], s["arena_buffer_bytes"]
            ));
        }
        let (ring_hw, stack_hw) = (n("ring_high_water") as u32, n("stack_high_water") as u32);
        // The kernel narrows its batches so that a stack never passes the uniform's reserve.
        if stack_hw > stack_frames {
            return Err(format!(
                "sample {i}: a stack reached {stack_hw} frames, beyond its reserve of {stack_frames}: {s}"
            ));
        }
        let usage = Usage {
            arena_bytes: arena,
            requested_workers: requested,
            workers,
            ring_slots,
            ring_high_water: ring_hw,
            stack_high_water: stack_hw,
            used_bytes: used_bytes(manifest, workers, ring_slots, ring_hw, stack_hw),
            fallback_spawns: n("fallback_spawns"),
            launches: n("launches"),
            fuel_exhaustions: n("fuel_exhaustions"),
            batches: n("batches"),
            idle_steps: n("idle_steps"),
            done: s["done"].as_bool().unwrap(),
            elapsed: Duration::ZERO,
        };
        if usage.used_bytes != n("used_bytes") {
            return Err(format!(
                "sample {i}: JavaScript used_bytes {} differs from Rust's {}: {s}",
                s["used_bytes"], usage.used_bytes
            ));
        }
        let rust = policy.observe(&usage);
        let js = s["new_size"].as_u64();
        if rust != js {
            return Err(format!(
                "sample {i}: the JavaScript policy decided {js:?}, dyngc_runtime::Policy {rust:?}: {s}"
            ));
        }
    }
    Ok(samples.len())
}

#[test]
fn javascript_frame_loop_follows_the_load_without_awaiting() {
    let started = std::time::Instant::now();
    let trees: Vec<SizedTree> = (0..FRAMES)
        .map(|f| frame_tree(f, LOAD.at(f, FRAMES), MAX_CHILDREN))
        .collect();
    let config = json!({
        "frames": trees.iter().map(|t| json!({"seed": t.seed, "max_depth": t.max_depth})).collect::<Vec<_>>(),
        "params": {"max_children": MAX_CHILDREN},
        "max_in_flight": MAX_IN_FLIGHT,
        // Short chains and launches, so that larger runs need several submissions.
        "fuel": 16,
        "chain": 2,
        "policy": {"floor": 0, "ceiling": CEILING, "shrink_after": SHRINK_AFTER},
        "max_submissions": 10_000,
        "timeout_s": 240,
    });
    let out = run_loop("load", &config);
    let (r, repro) = (&out.report, &out.repro);
    let frames = r["frames"].as_array().unwrap();
    let table: String = frames
        .iter()
        .zip(&trees)
        .map(|(f, t)| {
            format!(
                "frame {:>2}: {:>6} nodes, arena {:>8}, workers {:>3} of {:>4} frames, ring {:>6}, ring_hw {:>6}, fallbacks {:>6}, submissions {:>3}, resolved in frame {}\n",
                f["frame"], t.nodes, f["arena_bytes"], f["workers"], f["stack_frames"], f["ring_slots"], f["ring_high_water"],
                f["fallback_spawns"], f["submissions"], f["resolved_in"]
            )
        })
        .collect();
    assert_eq!(frames.len(), FRAMES, "frames delivered\n{table}{repro}");

    // Every frame equals the CPU reference.
    for (i, (f, t)) in frames.iter().zip(&trees).enumerate() {
        assert_eq!(u64_of(&f["frame"], "frame"), i as u64, "{table}{repro}");
        let what = format!(
            "frame {i} (seed {}, max_depth {}, max_children {MAX_CHILDREN}, {} nodes)",
            t.seed, t.max_depth, t.nodes
        );
        let got: Vec<u32> = f["outputs"]["per_depth"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no per_depth output\n{repro}"))
            .iter()
            .map(|v| u64_of(v, "per_depth word") as u32)
            .collect();
        if let Some(diff) = support::compare_outputs(
            &[("per_depth".into(), t.per_depth.clone())],
            &[("per_depth".into(), got)],
        ) {
            panic!("{what}: {diff}\n{table}{repro}");
        }
        let units = &f["units_per_stage"];
        assert_eq!(
            (units["root"].as_u64(), units["node"].as_u64(), units["child"].as_u64()),
            (Some(1), Some(t.nodes), Some(t.nodes - 1)),
            "{what}: units per stage {units}\n{repro}"
        );
        assert!(
            u64_of(&f["resolved_in"], "resolved_in") > i as u64,
            "{what}: harvested in its own frame\n{table}{repro}"
        );
    }
    let nodes: Vec<u64> = trees.iter().map(|t| t.nodes).collect();
    let (lo, hi) = (*nodes.iter().min().unwrap(), *nodes.iter().max().unwrap());
    assert!(hi >= 50 * lo, "the load must swing about 100x: {lo}..{hi} nodes");

    // Never awaited inside a frame.
    assert_eq!(
        r["awaited_in_frame"], false,
        "a tick of the frame loop awaited something\n{repro}"
    );

    // Unfinished runs were continued with more chains.
    let most_submissions = frames
        .iter()
        .map(|f| u64_of(&f["submissions"], "submissions"))
        .max()
        .unwrap();
    assert!(
        most_submissions > 1,
        "every run finished in its first chain: the continuation path went untested\n{table}{repro}"
    );

    // The arena grew under load, because of fallback-bound runs, and shrank after it.
    let arena: Vec<u64> = frames
        .iter()
        .map(|f| u64_of(&f["arena_bytes"], "arena_bytes"))
        .collect();
    let calm_end = (0..FRAMES).find(|&f| LOAD.at(f, FRAMES) > MIN_NODES).unwrap();
    let calm_max = *arena[..calm_end].iter().max().unwrap();
    let peak = *arena.iter().max().unwrap();
    let first_peak = arena.iter().position(|&a| a == peak).unwrap();
    assert!(
        peak > calm_max,
        "the arena did not grow under load beyond the calm frames' {calm_max} bytes\n{table}{repro}"
    );
    assert!(
        first_peak >= calm_end,
        "the largest arena came before the load\n{table}{repro}"
    );
    assert!(
        *arena.last().unwrap() < peak,
        "the arena did not shrink after the load\n{table}{repro}"
    );
    let touch = r["policy"]["touch"].as_f64().unwrap();
    let grew_bound = r["resizes"].as_array().unwrap().iter().any(|z| {
        u64_of(&z["to"], "to") > u64_of(&z["from"], "from")
            && u64_of(&z["fallback_spawns"], "fallback_spawns") > 0
            && u64_of(&z["ring_high_water"], "ring_high_water") as f64
                >= touch * u64_of(&z["ring_slots"], "ring_slots") as f64
    });
    assert!(
        grew_bound,
        "no growth came from a fallback-bound sample: {}\n{repro}",
        r["resizes"]
    );

    // The JavaScript policy is the documented rule: dyngc_runtime::Policy decides the same.
    let artifact = support::compile("tree", dyngc_codegen::Schedule::Megakernel);
    let samples = replay_policy(&artifact.manifest, r).unwrap_or_else(|e| panic!("{e}\n{repro}"));

    eprintln!(
        "dawn frame loop: {FRAMES} frames ({lo}..{hi} nodes) equal the reference; arena {}..{peak} bytes; \
         {samples} usage samples replayed; longest tick {} ms; {:.1} s in node, {:.1} s in all\n{table}",
        arena.iter().min().unwrap(),
        r["longest_tick_ms"],
        u64_of(&r["wall_ms"], "wall_ms") as f64 / 1000.0,
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&out.dir);
}

/// The detector behind `awaited_in_frame` is live: a tick that awaits the GPU
/// (`onSubmittedWorkDone`, the synchronous habit) is reported.
#[test]
fn javascript_frame_loop_detects_an_await_in_a_frame() {
    let trees: Vec<SizedTree> = (0..2).map(|f| frame_tree(f, MIN_NODES, MAX_CHILDREN)).collect();
    let config = json!({
        "frames": trees.iter().map(|t| json!({"seed": t.seed, "max_depth": t.max_depth})).collect::<Vec<_>>(),
        "params": {"max_children": MAX_CHILDREN},
        "await_in_frame": true,
        "timeout_s": 120,
    });
    let out = run_loop("await", &config);
    assert_eq!(
        out.report["awaited_in_frame"], true,
        "a tick awaited the GPU but the report says it did not\n{}",
        out.repro
    );
    for (f, t) in out.report["frames"].as_array().unwrap().iter().zip(&trees) {
        let got: Vec<u64> = f["outputs"]["per_depth"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let want: Vec<u64> = t.per_depth.iter().map(|&v| v as u64).collect();
        assert_eq!(got, want, "{}", out.repro);
    }
    let _ = std::fs::remove_dir_all(&out.dir);
}
