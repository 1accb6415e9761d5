//! The JavaScript package (`js/`) against the CPU references, in both JavaScript engines it is
//! meant for: Dawn in Node (`js/test/node.mjs`, the npm package `webgpu` of tests/dawn) and
//! headless Chromium's own WebGPU (`js/test/browser.mjs`: the page POSTs its results to a local
//! server). Every shipped example, under each schedule that builds different kernels for it, at
//! the minimum arena (one worker, fuel 2) and at a large one (stepped with `poll()`), each run
//! again after `resize()`; outputs, unit counts, `pending` and rounds are checked by the page.
//!
//! The stream examples (compact, tessellate, quadtree) run at window capacities 1 (raised to the
//! stream's minimum), 7 and 2^20, each at the minimum and a large arena, awaited and stepped,
//! their elements read back or taken by `onStream`; they must be the CPU reference's as sorted
//! multisets. Chromium runs compact only: every drain is a round trip, slower in the browser.
//!
//! A third test type-checks the package's TypeScript declarations with `tsc`.
//!
//! Needs node, `tests/dawn/node_modules` and Chromium (`scripts/test` installs them); without
//! them the tests fail rather than skip.

mod support;

use dyngc_codegen::Schedule;
use dyngc_reference::Csr;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::{Case, Units};

const LARGE_ARENA: u64 = 32 << 20;
const RESIZE_TO: u64 = 16 << 20;

fn cases() -> Vec<Case> {
    let (row_ptr, val) = support::row_sum_matrix(300, 1000, 21);
    vec![
        support::triangle_case("mixed n", support::triangle_mixed(500, 7)),
        support::collatz_case("1..=500", (1..=500).collect()),
        support::tree_case("depth 10, 3 children", support::tree_seed(10, 3, 500, 3000), 10, 3),
        support::bfs_case("random 800 vertices", &Csr::random(800, 2400, 22), 0),
        support::bfs_levels_case("random 500 vertices", &Csr::random(500, 2000, 23), 1),
        support::pagerank_case("random 300 vertices", &Csr::random(300, 1200, 24), 1 << 12, 200),
        support::row_sum_case("300 rows", row_ptr, val),
    ]
}

/// Window capacity, arena (`None`: the minimum), workers, fuel, stepped with `poll()`, taken by
/// `onStream`, and whether the run is repeated after `resize(RESIZE_TO)`.
type StreamSetting = (u64, Option<u64>, u32, Option<u32>, bool, bool, bool);

const STREAM_SETTINGS: [StreamSetting; 6] = [
    (1, None, 1, Some(2), false, false, false),
    (1, Some(LARGE_ARENA), 16, None, true, true, false),
    (7, None, 1, None, true, false, false),
    (7, Some(LARGE_ARENA), 16, Some(2), false, true, false),
    (1 << 20, None, 1, None, false, false, true),
    (1 << 20, Some(LARGE_ARENA), 16, None, true, true, false),
];

/// The stream cases' artifacts, inputs, expected elements and settings (for Chromium: compact
/// at the smallest and the largest window only).
fn write_stream_cases(dir: &Path, browser: bool, list: &mut Vec<Value>) {
    for case in support::small_stream_cases() {
        if browser && case.example != "compact" {
            continue;
        }
        let artifact = support::compile(case.example, Schedule::Megakernel);
        let tag = format!("{}-stream", case.example);
        let file = |name: &str, bytes: &[u8]| {
            std::fs::write(dir.join(format!("{tag}.{name}")), bytes).unwrap();
            format!("{tag}.{name}")
        };
        let manifest = file("manifest.json", artifact.manifest.to_json().as_bytes());
        let wgsl = file("wgsl", artifact.wgsl.as_bytes());
        let inputs: serde_json::Map<String, Value> = case
            .inputs
            .iter()
            .map(|(n, b)| (n.clone(), json!(file(&format!("{n}.in.bin"), b))))
            .collect();
        // The package takes values by the parameter's type.
        let params: serde_json::Map<String, Value> = case
            .params
            .iter()
            .map(|(n, bits)| {
                let p = artifact.manifest.params.iter().find(|p| &p.name == n).unwrap();
                let value = match p.scalar {
                    dyngc_artifact::ScalarKind::F32 => json!(f32::from_bits(*bits)),
                    _ => json!(bits),
                };
                (n.clone(), value)
            })
            .collect();
        let expected = file("expected.bin", &support::words(&case.expected.concat()));
        let row = case.expected.first().map_or(1, Vec::len);
        let units: serde_json::Map<String, Value> = case
            .units
            .iter()
            .map(|(s, n)| (s.clone(), json!(["exact", n])))
            .collect();
        let min = artifact.manifest.executor.arena.min_bytes;
        for (i, (capacity, arena, workers, fuel, step, on_stream, resize)) in STREAM_SETTINGS.into_iter().enumerate() {
            if browser && ![0, STREAM_SETTINGS.len() - 1].contains(&i) {
                continue;
            }
            let arena = arena.unwrap_or(min);
            let mut c = json!({
                "label": format!("{} ({}), window {capacity}, arena {arena}, {workers} workers", case.example, case.label),
                "manifest": manifest, "wgsl": wgsl, "inputs": inputs, "params": params,
                "arena": arena, "workers": workers, "streamCapacity": capacity,
                "stream": { "name": case.stream, "expected": expected, "row": row },
                "onStream": on_stream, "expected": {}, "units": units, "rounds": 0, "step": step,
                "minArena": arena == min, "resizeTo": if resize { json!(RESIZE_TO) } else { Value::Null },
            });
            if let Some(f) = fuel {
                c["fuel"] = json!(f);
            }
            list.push(c);
        }
    }
}

/// Writes every artifact, input and expected output under `dir`, and `dir/cases.json`.
fn write_cases(dir: &Path, browser: bool) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut list = Vec::new();
    let all = cases();
    assert_eq!(
        all.iter().map(|c| c.example).collect::<Vec<_>>(),
        support::EXAMPLES,
        "one case per shipped example"
    );
    for case in &all {
        for schedule in [Schedule::Megakernel, Schedule::Partitioned] {
            let artifact = support::compile(case.example, schedule);
            if schedule == Schedule::Partitioned && artifact.manifest.entry_points.dispatches.is_empty() {
                continue;
            }
            let tag = format!("{}-{schedule:?}", case.example).to_lowercase();
            let file = |name: &str, bytes: &[u8]| {
                std::fs::write(dir.join(format!("{tag}.{name}")), bytes).unwrap();
                format!("{tag}.{name}")
            };
            let name = &artifact.manifest.name;
            // The manifest names its WGSL file; keep that name beside it.
            let manifest = file("manifest.json", artifact.manifest.to_json().as_bytes());
            let wgsl = format!("{tag}.{name}.wgsl");
            std::fs::write(dir.join(&wgsl), &artifact.wgsl).unwrap();
            let inputs: serde_json::Map<String, Value> = case
                .input_bytes()
                .iter()
                .map(|(n, b)| (n.clone(), json!(file(&format!("{n}.in.bin"), b))))
                .collect();
            let expected: serde_json::Map<String, Value> = case
                .expected
                .iter()
                .map(|(n, v)| (n.clone(), json!(file(&format!("{n}.expected.bin"), &support::words(v)))))
                .collect();
            let units: serde_json::Map<String, Value> = case
                .units
                .iter()
                .map(|(s, u)| {
                    let v = match u {
                        Units::Exact(n) => json!(["exact", n]),
                        Units::AtLeast(n) => json!(["at_least", n]),
                    };
                    (s.clone(), v)
                })
                .collect();
            let params: serde_json::Map<String, Value> =
                case.params.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
            let min = artifact.manifest.executor.arena.min_bytes;
            for (arena, workers, fuel, step) in [(min, 1, Some(2), false), (LARGE_ARENA, 16, None, true)] {
                let mut c = json!({
                    "label": format!("{} ({}) {schedule:?}, arena {arena}, {workers} workers", case.example, case.label),
                    "manifest": manifest, "wgsl": wgsl, "inputs": inputs, "params": params,
                    "arena": arena, "workers": workers, "expected": expected, "units": units,
                    "rounds": case.rounds, "step": step, "minArena": arena == min, "resizeTo": RESIZE_TO,
                });
                if let Some(f) = fuel {
                    c["fuel"] = json!(f);
                }
                list.push(c);
            }
        }
    }
    write_stream_cases(dir, browser, &mut list);
    std::fs::write(dir.join("cases.json"), serde_json::to_string_pretty(&list).unwrap()).unwrap();
}

fn case_dir(engine: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dyngc-js-{}-{engine}", std::process::id()))
}

fn run(engine: &str, script: &str, extra: &[String]) {
    // Checks node and Dawn for Node are there (the package's Node test loads tests/dawn's).
    support::dawn_script("run.mjs");
    let dir = case_dir(engine);
    write_cases(&dir, engine == "chromium");
    let mut args = vec![
        support::repo_root().join("js/test").join(script).display().to_string(),
        dir.display().to_string(),
    ];
    args.extend(extra.iter().cloned());
    let out = support::run_node(&args);
    eprintln!("{}", out.output);
    assert!(
        out.status.success(),
        "the package failed under {engine} ({}):\n{}\nreproduce with:\n  {}\n(cases kept in {})",
        out.status,
        out.output,
        out.command,
        dir.display()
    );
    assert!(out.output.contains(" cases passed"), "{}", out.output);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn js_package_under_dawn_in_node() {
    run("node", "node.mjs", &[]);
}

#[test]
fn js_package_in_headless_chromium() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists(),
        "{chromium} is missing: run `scripts/test` (it installs Debian's chromium), or set CHROMIUM"
    );
    run("chromium", "browser.mjs", &[chromium]);
}

/// The package's TypeScript declarations (`js/src/dyngc.d.ts`) type-check, with an engine's use
/// of them (`js/test/types.ts`), under `tsc --strict` (TypeScript from tests/dawn's packages).
#[test]
fn js_package_types_check_with_tsc() {
    support::dawn_script("run.mjs");
    let tsc = support::repo_root().join("tests/dawn/node_modules/typescript/bin/tsc");
    assert!(tsc.exists(), "{} is missing: run `scripts/test`", tsc.display());
    let js = support::repo_root().join("js");
    let out = support::run_node(&[tsc.display().to_string(), "-p".into(), js.display().to_string()]);
    assert!(
        out.status.success(),
        "tsc rejects js/:\n{}\nreproduce with:\n  {}",
        out.output,
        out.command
    );
}
