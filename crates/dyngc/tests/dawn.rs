//! The shipped examples under Dawn (Chromium's WebGPU, through the npm package `webgpu`, on
//! SwiftShader's Vulkan), driven by `tests/dawn/run.mjs` — a plain-JavaScript engine that knows
//! nothing of dyngc but the manifest. This checks that the artifact is portable beyond wgpu: Tint
//! compiles every example's WGSL without errors (run.mjs fails on any), and the kernel computes
//! exactly what the CPU references in `dyngc-reference` do, at the smallest arena with one worker
//! and a fuel of 2 (the smallest ring, hundreds of submissions and thousands of relaunches) and at
//! a large arena with several workers and the default fuel. Per-stage unit counts are checked too.
//!
//! Needs `node` and `tests/dawn/node_modules` (`scripts/test` installs both); without them the
//! tests fail rather than skip. One node process per run; the four examples run in parallel.
//! A failing run keeps its directory (WGSL, manifest, inputs, outputs) and prints the command
//! that reproduces it.

mod support;

use dyngc_codegen::{Artifact, Schedule};
use dyngc_reference::{tree, tree_nodes, Csr, Rng};
use std::path::PathBuf;
use support::Case;

/// Seconds run.mjs may spend in one run's launch loop before it gives up (exit 4).
const RUN_TIMEOUT_S: u32 = 150;

/// Executor settings of one run.
#[derive(Clone, Copy, Debug)]
struct Setting {
    label: &'static str,
    /// `None`: the artifact's `min_bytes`.
    arena: Option<u64>,
    workers: u32,
    /// `None`: the manifest's default.
    fuel: Option<u32>,
}

/// The smallest arena, one worker, two scheduler steps per launch: every unit is relaunched
/// many times over and spawns find the 4-slot ring full.
const TINY: Setting = Setting {
    label: "min-arena-1-worker-fuel-2",
    arena: None,
    workers: 1,
    fuel: Some(2),
};

/// Plenty of arena, several workers, the default fuel.
const LARGE: Setting = Setting {
    label: "large-arena-16-workers",
    arena: Some(32 << 20),
    workers: 16,
    fuel: None,
};

/// What came back from one run.
struct Outcome {
    status: std::process::ExitStatus,
    stderr: String,
    dir: PathBuf,
    command: String,
}

impl Outcome {
    /// How to reproduce the run, for failure messages.
    fn repro(&self) -> String {
        format!(
            "reproduce with:\n  {}\n(files kept in {})",
            self.command,
            self.dir.display()
        )
    }

    /// Asserts that run.mjs succeeded; returns its stats.json.
    fn success(&self, what: &str) -> serde_json::Value {
        let repro = self.repro();
        assert!(
            self.status.success(),
            "{what}: run.mjs failed ({}):\n{}\n{repro}",
            self.status,
            self.stderr
        );
        serde_json::from_slice(&std::fs::read(self.dir.join("out/stats.json")).unwrap())
            .unwrap_or_else(|e| panic!("{what}: stats.json: {e}\n{repro}"))
    }
}

/// Writes the artifact and the case's inputs to a fresh temporary directory and runs run.mjs
/// on them; `extra` arguments are appended.
fn launch(artifact: &Artifact, case: &Case, setting: Setting, extra: &[&str]) -> Outcome {
    let params: Vec<(String, String)> = case.params.iter().map(|(n, v)| (n.clone(), v.to_string())).collect();
    launch_with(artifact, &case.input_bytes(), &params, setting, extra)
}

/// `launch` with input bytes and parameter texts (as `--param` takes them).
fn launch_with(
    artifact: &Artifact,
    inputs: &[(String, Vec<u8>)],
    params: &[(String, String)],
    setting: Setting,
    extra: &[&str],
) -> Outcome {
    let run_mjs = support::dawn_script("run.mjs");
    let name = &artifact.manifest.name;
    let dir = std::env::temp_dir().join(format!("dyngc-dawn-{}-{name}-{}", std::process::id(), setting.label));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let wgsl = dir.join(format!("{name}.wgsl"));
    let manifest = dir.join(format!("{name}.manifest.json"));
    std::fs::write(&wgsl, &artifact.wgsl).unwrap();
    std::fs::write(&manifest, artifact.manifest.to_json()).unwrap();

    let arena = setting.arena.unwrap_or(artifact.manifest.executor.arena.min_bytes);
    let mut args: Vec<String> = vec![
        run_mjs.display().to_string(),
        "--wgsl".into(),
        wgsl.display().to_string(),
        "--manifest".into(),
        manifest.display().to_string(),
        "--arena".into(),
        arena.to_string(),
        "--workers".into(),
        setting.workers.to_string(),
        "--timeout".into(),
        RUN_TIMEOUT_S.to_string(),
        "--out".into(),
        dir.join("out").display().to_string(),
    ];
    if let Some(fuel) = setting.fuel {
        args.extend(["--fuel".into(), fuel.to_string()]);
    }
    for (input, bytes) in inputs {
        let file = dir.join(format!("{input}.bin"));
        std::fs::write(&file, bytes).unwrap();
        args.extend(["--input".into(), format!("{input}={}", file.display())]);
    }
    for (param, value) in params {
        args.extend(["--param".into(), format!("{param}={value}")]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));

    let run = support::run_node(&args);
    Outcome {
        status: run.status,
        stderr: run.output,
        dir,
        command: run.command,
    }
}

/// Runs `case` at `setting` and compares outputs and per-stage unit counts with the reference.
/// Returns the run's stats.json.
fn run_and_compare(artifact: &Artifact, case: &Case, setting: Setting) -> serde_json::Value {
    let started = std::time::Instant::now();
    let out = launch(artifact, case, setting, &[]);
    let what = format!("{} ({}) at {}", case.example, case.label, setting.label);
    let repro = out.repro();
    let stats = out.success(&what);

    // Tint's warnings are not errors, but show them.
    if out.stderr.contains("tint:") {
        eprintln!(
            "{what}: {}",
            out.stderr
                .lines()
                .filter(|l| l.contains("tint:"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    assert_eq!(stats["done"], 1, "{what}: done word {}\n{repro}", stats["done"]);
    assert!(stats["error"].is_null(), "{what}: error {}\n{repro}", stats["error"]);
    if setting.arena.is_none() {
        assert_eq!(stats["host"]["workers"], 1, "{what}: {}", stats["host"]);
        assert_eq!(
            stats["host"]["ring_slots"], artifact.manifest.executor.arena.min_ring_slots,
            "{what}: the minimum arena holds the smallest ring: {}",
            stats["host"]
        );
    } else {
        assert_eq!(stats["host"]["workers"], setting.workers, "{what}: {}", stats["host"]);
    }

    let got: Vec<(String, Vec<u32>)> = case
        .expected
        .iter()
        .map(|(name, _)| {
            let bytes = std::fs::read(out.dir.join(format!("out/{name}.bin")))
                .unwrap_or_else(|e| panic!("{what}: output `{name}`: {e}\n{repro}"));
            (name.clone(), support::u32s(&bytes))
        })
        .collect();
    if let Some(diff) = support::compare_outputs(&case.expected, &got) {
        panic!("{what}: {diff}\n{repro}");
    }
    for (stage, want) in &case.units {
        let have = stats["units_per_stage"][stage].as_u64().unwrap_or_else(|| {
            panic!(
                "{what}: no unit count for stage `{stage}` in {}",
                stats["units_per_stage"]
            )
        });
        assert!(
            want.admits(have),
            "{what}: stage `{stage}` ran {have} units, expected {want}\n{repro}"
        );
    }
    assert_eq!(stats["stats"]["pending"], 0, "{what}: {}", stats["stats"]);
    assert_eq!(stats["stats"]["rounds"], case.rounds, "{what}: {}", stats["stats"]);
    eprintln!(
        "dawn: {what}: ok in {:.1} s ({} submissions, {} units)",
        started.elapsed().as_secs_f64(),
        stats["host"]["submissions"],
        case.min_total_units()
    );
    let _ = std::fs::remove_dir_all(&out.dir);
    stats
}

/// Runs `case` at both settings under each schedule that builds different kernels for it.
fn check_example(case: Case) {
    for schedule in [Schedule::Megakernel, Schedule::Partitioned] {
        let artifact = support::compile(case.example, schedule);
        if schedule == Schedule::Partitioned && artifact.manifest.entry_points.dispatches.is_empty() {
            continue;
        }
        run_and_compare(&artifact, &case, TINY);
        run_and_compare(&artifact, &case, LARGE);
    }
}

/// Tint (Dawn's WGSL compiler) accepts every example's module under both schedules, its bind group layouts and all
/// pipelines, with no error or warning. Also covers examples added later without a run test.
#[test]
fn every_example_compiles_under_tint() {
    let run_mjs = support::dawn_script("run.mjs");
    let mut names: Vec<String> = std::fs::read_dir(support::repo_root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dyn"))
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    let dir = std::env::temp_dir().join(format!("dyngc-dawn-{}-tint", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, schedule) in names
        .iter()
        .flat_map(|n| [(n, Schedule::Megakernel), (n, Schedule::Partitioned)])
    {
        let artifact = support::compile(name, schedule);
        let wgsl = dir.join(format!("{name}.wgsl"));
        let manifest = dir.join(format!("{name}.manifest.json"));
        std::fs::write(&wgsl, &artifact.wgsl).unwrap();
        std::fs::write(&manifest, artifact.manifest.to_json()).unwrap();
        let args = [
            run_mjs.clone(),
            "--compile-only".into(),
            "--wgsl".into(),
            wgsl,
            "--manifest".into(),
            manifest,
        ];
        let out = support::run_node(&args.map(|a| a.display().to_string()));
        let text = out.output;
        assert!(
            out.status.success(),
            "examples/{name}.dyn ({schedule:?}): Dawn rejects the generated WGSL ({}):\n{text}\nreproduce with:\n  {}",
            out.status,
            out.command
        );
        // Warnings too: every browser console would show them (`code is unreachable` did).
        assert!(
            !text.contains("tint:"),
            "examples/{name}.dyn ({schedule:?}): Tint messages:\n{text}\nreproduce with:\n  {}",
            out.command
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn triangle_under_dawn() {
    // 1000 small values (zeros, ones, up to 40) and a few big fan-outs, among them 92683, the
    // first `n` whose sum wraps around u32: about 1.3e5 `add` units in all.
    let mut rng = Rng::new(7);
    let mut n: Vec<u32> = (0..1000)
        .map(|_| match rng.below(8) {
            0 => 0,
            1 => 1,
            _ => rng.below(41) as u32,
        })
        .collect();
    for (i, big) in [(3, 92_683), (400, 20_000), (650, 4096), (999, 129)] {
        n[i] = big;
    }
    check_example(support::triangle_case("1000 mixed", n));
}

#[test]
fn collatz_under_dawn() {
    check_example(support::collatz_case("1..=2000", (1..=2000).collect()));
}

#[test]
fn tree_under_dawn() {
    let (max_depth, max_children) = (16, 3);
    // The first seed whose root has children and whose tree has a few thousand nodes.
    let seed = (0..10_000)
        .find(|&s| {
            tree(s, max_depth, max_children)[1] > 0
                && (2_000..=50_000).contains(&tree_nodes(s, max_depth, max_children))
        })
        .expect("a seed with a moderate tree");
    let case = support::tree_case(
        format!("seed {seed}, depth {max_depth}, {max_children} children"),
        seed,
        max_depth,
        max_children,
    );
    check_example(case);
}

/// `dyngc build --lanes`: larger workers run under Dawn as they do under wgpu (tree at 128 lanes,
/// collatz at 256, WebGPU's default most invocations per workgroup).
#[test]
fn more_lanes_under_dawn() {
    let seed = support::tree_seed(12, 3, 1_000, 5_000);
    let tree = support::tree_case(format!("seed {seed}, depth 12, 3 children"), seed, 12, 3);
    let collatz = support::collatz_case("1..=2000", (1..=2000).collect());
    for (case, lanes) in [(tree, 128), (collatz, 256)] {
        let options = dyngc_compiler::Options {
            schedule: Schedule::Megakernel.into(),
            lanes,
        };
        let artifact = support::compile(case.example, options);
        assert_eq!(artifact.manifest.workgroup_size, lanes);
        run_and_compare(&artifact, &case, TINY);
        run_and_compare(&artifact, &case, LARGE);
    }
}

#[test]
fn bfs_under_dawn() {
    let g = Csr::random(2000, 5000, 11);
    check_example(support::bfs_case("random 2000 vertices", &g, 0));
}

#[test]
fn graph_level_loops_under_dawn() {
    let g = Csr::random(1000, 4000, 13);
    check_example(support::bfs_levels_case("random 1000 vertices", &g, 3));
    check_example(support::pagerank_case("random 1000 vertices", &g, 1 << 12, 1000));
}

/// A `@width(32)` stage with barrier reductions beside a one-lane stage, as a browser runs it.
#[test]
fn wide_stage_under_dawn() {
    let (row_ptr, val) = support::row_sum_matrix(1500, 3000, 17);
    check_example(support::row_sum_case("1500 rows", row_ptr, val));
}

/// A kernel error reaches the engine: a tree deeper than the declared `@max_depth(24)` stops
/// with MAX_DEPTH in stage `node`, and run.mjs exits 3 naming both.
#[test]
fn kernel_errors_are_reported_under_dawn() {
    let max_children = 3;
    let seed = (0..10_000)
        .find(|&s| support::tree_parents_at(s, max_children, 24) > 0)
        .expect("a seed whose tree grows past depth 24");
    let mut case = support::tree_case(format!("seed {seed}, depth 24"), seed, 24, max_children);
    case.params.iter_mut().find(|(n, _)| n == "max_depth").unwrap().1 = 30;
    let artifact = support::compile("tree", Schedule::Megakernel);
    let out = launch(
        &artifact,
        &case,
        Setting {
            label: "max-depth-error",
            ..LARGE
        },
        &[],
    );
    let repro = format!("reproduce with:\n  {}", out.command);
    assert_eq!(
        out.status.code(),
        Some(3),
        "expected exit 3 (kernel error), got {}:\n{}\n{repro}",
        out.status,
        out.stderr
    );
    assert!(
        out.stderr.contains("MAX_DEPTH") && out.stderr.contains("`node`"),
        "the message names neither the error nor the stage:\n{}\n{repro}",
        out.stderr
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.dir.join("out/stats.json")).unwrap()).unwrap();
    assert_eq!(stats["error"]["name"], "MAX_DEPTH", "{stats}");
    assert_eq!(stats["error"]["stage"], "node", "{stats}");
    assert_eq!(stats["error"]["bound"], 24, "{stats}");
    let _ = std::fs::remove_dir_all(&out.dir);
}

/// No silent zeros in a browser engine either: the triangle's partitioned build launched
/// without its dispatches (a manifest without `entry_points.dispatches` is an engine that never
/// read them) stops with DISPATCH_MISSING, and run.mjs exits 3 instead of writing outputs.
#[test]
fn launching_only_main_is_a_kernel_error_under_dawn() {
    let mut artifact = support::compile("triangle", Schedule::Partitioned);
    assert!(!artifact.manifest.entry_points.dispatches.is_empty());
    artifact.manifest.entry_points.dispatches.clear();
    let case = support::triangle_case("mixed n, 2000 elements", support::triangle_mixed(2000, 3));
    for setting in [TINY, LARGE] {
        let out = launch(&artifact, &case, setting, &[]);
        let repro = format!("reproduce with:\n  {}", out.command);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}: expected exit 3 (kernel error), got {}:\n{}\n{repro}",
            setting.label,
            out.status,
            out.stderr
        );
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.dir.join("out/stats.json")).unwrap()).unwrap();
        assert_eq!(stats["error"]["name"], "DISPATCH_MISSING", "{stats}");
        assert!(
            ["element", "add"].contains(&stats["error"]["stage"].as_str().unwrap_or("")),
            "{stats}"
        );
        let _ = std::fs::remove_dir_all(&out.dir);
    }
}

/// Stream outputs through run.mjs (the package's drainStreams): every example with a stream at
/// a window of 1 element (raised to the stream's minimum) on the smallest arena, and at the
/// default window on a large one. DIR/NAME.bin must hold exactly the reference's elements.
#[test]
fn streams_under_dawn() {
    for case in &support::small_stream_cases() {
        let artifact = support::compile(case.example, Schedule::Megakernel);
        let min_capacity = artifact.manifest.executor.streams[0].min_capacity;
        // Parameters as text: `f32` ones as decimals, which run.mjs stores as IEEE bits.
        let params: Vec<(String, String)> = case
            .params
            .iter()
            .map(|(n, bits)| {
                let p = artifact.manifest.params.iter().find(|p| &p.name == n).unwrap();
                let text = match p.scalar {
                    dyngc_artifact::ScalarKind::F32 => f32::from_bits(*bits).to_string(),
                    _ => bits.to_string(),
                };
                (n.clone(), text)
            })
            .collect();
        for (setting, capacity) in [(TINY, Some(1)), (LARGE, None)] {
            let what = format!(
                "{} ({}) at {}, window {capacity:?}",
                case.example, case.label, setting.label
            );
            let extra: Vec<String> = capacity
                .map(|c| vec!["--stream-capacity".into(), c.to_string()])
                .unwrap_or_default();
            let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
            let out = launch_with(&artifact, &case.inputs, &params, setting, &extra);
            let repro = out.repro();
            let stats = out.success(&what);
            let window = stats["host"]["stream_capacities"][case.stream].as_u64().unwrap_or(0);
            // The default: two of a unit's maximum per lane in flight, at least 2^20.
            let workers = stats["host"]["workers"].as_u64().unwrap_or(0);
            let lanes = workers * u64::from(artifact.manifest.workgroup_size);
            let default = (2 * lanes * u64::from(min_capacity)).max(1 << 20);
            assert_eq!(
                window,
                capacity.unwrap_or(default).max(u64::from(min_capacity)),
                "{what}: {}",
                stats["host"]
            );
            let bytes = std::fs::read(out.dir.join(format!("out/{}.bin", case.stream))).unwrap();
            let row = case.expected.first().map_or(1, Vec::len);
            let mut got: Vec<Vec<u32>> = support::u32s(&bytes).chunks(row).map(<[u32]>::to_vec).collect();
            got.sort();
            assert!(
                got.len() == case.expected.len()
                    && got
                        .iter()
                        .zip(&case.expected)
                        .all(|(g, e)| support::same_stream_row(case, g, e)),
                "{what}: {} elements came back, expected {}; first difference at {:?}\n{repro}",
                got.len(),
                case.expected.len(),
                got.iter()
                    .zip(&case.expected)
                    .position(|(g, e)| !support::same_stream_row(case, g, e))
            );
            for (stage, n) in &case.units {
                assert_eq!(stats["units_per_stage"][stage], *n, "{what}: stage `{stage}`\n{repro}");
            }
            assert_eq!(stats["stats"]["pending"], 0, "{what}: {}", stats["stats"]);
            let drains = stats["host"]["stream_drains"].as_u64().unwrap_or(0);
            assert!(
                drains >= (case.expected.len() as u64).div_ceil(window.max(1)),
                "{what}: {drains} drains cannot have carried {} elements\n{repro}",
                case.expected.len()
            );
            let _ = std::fs::remove_dir_all(&out.dir);
        }
    }
}
