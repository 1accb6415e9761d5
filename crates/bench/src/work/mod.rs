//! The workloads and their schedules: CPU (rayon), static limit, expand-everything, fixed
//! buffers with overflow and retry, dyngc.

use crate::dynrun::{self, words};
use crate::gpu::{words_bytes, Gpu, Mem};
use crate::{Record, Results, RunArgs, Spread};
use dyngc_codegen::Schedule;
use dyngc_reference as reference;
use rayon::prelude::*;
use std::time::Instant;

mod bfs;
mod collatz;
mod row_sum;
mod streams;
mod tree;
mod triangle;

use bfs::bfs;
use collatz::collatz;
use row_sum::row_sum;
use streams::{compact, tessellate};
use tree::tree;
use triangle::triangle;

const KERNELS: &str = include_str!("../kernels.wgsl");

struct K {
    scan_blocks: wgpu::ComputePipeline,
    add_blocks: wgpu::ComputePipeline,
    p: std::collections::HashMap<&'static str, wgpu::ComputePipeline>,
}

const ENTRIES: &[&str] = &[
    "tri_static",
    "tri_count",
    "tri_write",
    "tri_leaf",
    "tree_static",
    "tree_count",
    "tree_write",
    "bfs_count",
    "bfs_write",
    "bfs_relax",
    "bfs_compact",
    "collatz_static",
    "retry_args",
    "tri_reserve",
    "tree_grow",
    "bfs_gather",
    "bfs_push",
    "compact_count",
    "compact_write",
    "compact_bump",
    "tess_count",
    "tess_write",
    "tess_bump",
];

impl K {
    fn new(g: &Gpu) -> Result<K, String> {
        let mut names = vec!["scan_blocks", "add_blocks"];
        names.extend_from_slice(ENTRIES);
        let mut ps = g.pipelines(KERNELS, &names)?.into_iter();
        let scan_blocks = ps.next().unwrap();
        let add_blocks = ps.next().unwrap();
        Ok(K {
            scan_blocks,
            add_blocks,
            p: ENTRIES.iter().copied().zip(ps).collect(),
        })
    }
    fn get(&self, name: &str) -> &wgpu::ComputePipeline {
        &self.p[name]
    }
}

/// One repetition's measurements.
#[derive(Default)]
struct Sample {
    secs: f64,
    /// GPU time of the submissions (timestamps), where the device has them.
    gpu_secs: Option<f64>,
    peak: u64,
    reruns: u64,
    relaunches: u64,
    fallbacks: u64,
    launches: u64,
    arena: Option<u64>,
    workers: Option<u32>,
    extra: serde_json::Value,
}

fn measure(
    workload: &str,
    case: &str,
    units: u64,
    method: &str,
    reps: usize,
    mut f: impl FnMut() -> Result<Sample, String>,
) -> Record {
    let mut runs = Runs::default();
    for rep in 0..reps.max(1) {
        if !runs.take(f(), rep, workload, case, method) {
            break;
        }
    }
    runs.record(workload, case, units, method)
}

/// [`measure`] at each of `arenas`, the repetitions taken in turns (every arena once, then
/// again), so that a device that drifts between slow and fast phases (SwiftShader on a shared
/// machine) slows every arena alike instead of the arenas it happened to be measuring then.
#[allow(clippy::too_many_arguments)]
fn measure_arenas(
    workload: &str,
    case: &str,
    units: u64,
    method: &str,
    reps: usize,
    arenas: &[u64],
    mut f: impl FnMut(u64) -> Result<Sample, String>,
) -> Vec<Record> {
    let mut runs: Vec<Runs> = arenas.iter().map(|_| Runs::default()).collect();
    for rep in 0..reps.max(1) {
        for (&arena, runs) in arenas.iter().zip(&mut runs) {
            if runs.error.is_none() {
                runs.take(f(arena), rep, workload, case, method);
            }
        }
    }
    runs.into_iter()
        .map(|r| r.record(workload, case, units, method))
        .collect()
}

/// The repetitions of one method at one arena, as they come.
#[derive(Default)]
struct Runs {
    times_s: Vec<f64>,
    gpu: Vec<f64>,
    last: Sample,
    error: Option<String>,
}

impl Runs {
    /// Keeps a repetition's sample; an error ends the repetitions (false).
    fn take(&mut self, sample: Result<Sample, String>, rep: usize, workload: &str, case: &str, method: &str) -> bool {
        match sample {
            Ok(s) => {
                self.times_s.push(s.secs);
                self.gpu.extend(s.gpu_secs);
                self.last = s;
                true
            }
            Err(e) => {
                eprintln!("  {workload} {case} {method}: rep {rep}: ERROR {e}");
                self.error = Some(e);
                false
            }
        }
    }

    fn record(self, workload: &str, case: &str, units: u64, method: &str) -> Record {
        let mut rec = Record {
            workload: workload.into(),
            case: case.into(),
            units,
            method: method.into(),
            times_s: self.times_s,
            error: self.error,
            ..Default::default()
        };
        if let Some(s) = Spread::of(&rec.times_s) {
            (rec.median_s, rec.min_s, rec.max_s) = (s.median, s.min, s.max);
            rec.units_per_s = units as f64 / s.median;
        }
        // GPU time only if every repetition has it; it is then the time units/s are computed from.
        if self.gpu.len() == rec.times_s.len() {
            rec.gpu = Spread::of(&self.gpu);
            rec.gpu_times_s = self.gpu;
        }
        if let Some(s) = &rec.gpu {
            rec.units_per_s = units as f64 / s.median;
        }
        let last = self.last;
        rec.peak_bytes = last.peak;
        rec.reruns = last.reruns;
        rec.relaunches = last.relaunches;
        rec.fallbacks = last.fallbacks;
        rec.launches = last.launches;
        rec.arena_bytes = last.arena;
        rec.workers = last.workers;
        rec.extra = last.extra;
        eprintln!(
            "  {workload:<8} {case:<12} {:<26} median {:>10.4} s  [{:.4}, {:.4}]  gpu {}  peak {:>12} B  {:.3e} units/s  reruns {} relaunches {} fallbacks {}{}",
            match rec.arena_bytes {
                Some(a) => format!("{method} arena={a}"),
                None => method.to_string(),
            },
            rec.median_s,
            rec.min_s,
            rec.max_s,
            rec.gpu.as_ref().map_or("-".into(), |g| format!("{:.4} s", g.median)),
            rec.peak_bytes,
            rec.units_per_s,
            rec.reruns,
            rec.relaunches,
            rec.fallbacks,
            if rec.error.is_some() { "  (ERROR)" } else { "" }
        );
        rec
    }
}

fn check(name: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() < want.len() {
        return Err(format!(
            "{name}: {} values read back, {} expected",
            got.len(),
            want.len()
        ));
    }
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        let wrong = (0..want.len()).filter(|&i| got[i] != want[i]).count();
        return Err(format!(
            "WRONG RESULT: {name}[{i}] = {} (expected {}); {wrong} of {} values differ",
            got[i],
            want[i],
            want.len()
        ));
    }
    Ok(())
}

/// Records the dispatches of an exclusive scan of `n` words of `data` in place; returns the
/// temporary buffers (free them after the scan has been submitted).
fn scan(
    g: &Gpu,
    k: &K,
    mem: &Mem,
    enc: &mut wgpu::CommandEncoder,
    data: &wgpu::Buffer,
    n: u64,
) -> Result<Vec<wgpu::Buffer>, String> {
    let nb = n.div_ceil(256);
    let sums = g.buffer(mem, "block sums", 4 * nb)?;
    let p = g.uniform(&[n as u32]);
    g.dispatch(enc, &k.scan_blocks, &[data, &sums, &p], n);
    let mut temps = Vec::new();
    if nb > 1 {
        temps = scan(g, k, mem, enc, &sums, nb)?;
        g.dispatch(enc, &k.add_blocks, &[data, &sums, &p], n);
    }
    temps.push(sums);
    Ok(temps)
}

fn free_all(mem: &Mem, bufs: Vec<wgpu::Buffer>) {
    for b in bufs {
        mem.free(b);
    }
}

/// What a GPU method checks when it is done: the buffer `name` read back against `want`.
type Expect<'a> = (&'a str, &'a wgpu::Buffer, &'a [u32]);

/// The static schedule: one timed dispatch of `entry` over `n` threads, then the check.
fn one_dispatch(
    g: &Gpu,
    mem: &Mem,
    entry: &wgpu::ComputePipeline,
    bindings: &[&wgpu::Buffer],
    n: u64,
    expect: Expect,
) -> Result<Sample, String> {
    let t = g.start();
    let mut enc = g.encoder();
    g.dispatch(&mut enc, entry, bindings, n);
    g.submit(enc);
    Ok(Sample {
        launches: 1,
        ..stopped(g, mem, t, expect)?
    })
}

/// Stops the clocks of a run started at `t` (by [`Gpu::start`]) once the GPU is done, checks
/// the result and gives the sample its times and peak memory.
fn stopped(g: &Gpu, mem: &Mem, t: Instant, (name, out, want): Expect) -> Result<Sample, String> {
    let times = g.stop(t);
    check(name, &g.read_all(out), want)?;
    Ok(Sample {
        secs: times.wall,
        gpu_secs: times.gpu,
        peak: mem.peak(),
        ..Default::default()
    })
}

/// The end of a level-by-level run started at `t` (by [`Gpu::start`]): waits for the GPU,
/// stops the clocks and checks the result; `extra` describes the case.
fn levels_done(
    g: &Gpu,
    mem: &Mem,
    t: Instant,
    expect: Expect,
    (round_trips, dispatches): (u64, u64),
    extra: &serde_json::Value,
) -> Result<Sample, String> {
    // Stopped first: the clocks must not count building the record.
    let sample = stopped(g, mem, t, expect)?;
    Ok(Sample {
        relaunches: round_trips,
        launches: dispatches,
        extra: extra.clone(),
        ..sample
    })
}

/// What one attempt of the retry baseline saw: per stage, whether its buffer overflowed.
struct Attempt {
    overflow: Vec<bool>,
    round_trips: u64,
    dispatches: u64,
}

/// The retry baseline's loop (Vello's): runs `attempt` with the stage capacities `caps` (in
/// items); while any stage overflowed, doubles the capacity of each stage that did and runs the
/// whole attempt again. Timed from the first attempt to the last one's end, failed attempts and
/// their allocations included; then checks the result.
fn retry(
    g: &Gpu,
    mem: &Mem,
    mut caps: Vec<u64>,
    mut attempt: impl FnMut(u64, &[u64]) -> Result<Attempt, String>,
    expect: Expect,
) -> Result<Sample, String> {
    let initial = caps.clone();
    let t = g.start();
    let (mut reruns, mut round_trips, mut dispatches) = (0u64, 0u64, 0u64);
    let last = loop {
        let ta = Instant::now();
        let a =
            attempt(reruns, &caps).map_err(|e| format!("attempt {} (capacities {caps:?} items): {e}", reruns + 1))?;
        round_trips += a.round_trips;
        dispatches += a.dispatches;
        if !a.overflow.contains(&true) {
            break ta.elapsed().as_secs_f64();
        }
        for (c, o) in caps.iter_mut().zip(&a.overflow) {
            if *o {
                *c *= 2;
            }
        }
        reruns += 1;
    };
    let sample = stopped(g, mem, t, expect)?;
    Ok(Sample {
        reruns,
        relaunches: round_trips,
        launches: dispatches,
        extra: serde_json::json!({ "initial_capacity_items": initial, "final_capacity_items": caps, "last_attempt_wall_s": last }),
        ..sample
    })
}

/// An attempt's bump words (a count and an overflow flag per buffer it allocates into), and the
/// buffers where `retry_args` leaves the next stage's parameters and dispatch arguments.
struct Bump {
    words: wgpu::Buffer,
    params: wgpu::Buffer,
    args: wgpu::Buffer,
}

impl Bump {
    /// `counters` (count, overflow) word pairs; `stage` names the parameter and dispatch buffers.
    fn new(g: &Gpu, mem: &Mem, counters: u64, stage: &str) -> Result<Bump, String> {
        Ok(Bump {
            words: g.buffer(mem, "bump", 8 * counters)?,
            params: g.buffer(mem, &format!("{stage} params"), 32)?,
            args: g.buffer(mem, &format!("{stage} dispatch"), 12)?,
        })
    }

    /// Frees these buffers and `others`.
    fn free(self, mem: &Mem, mut others: Vec<wgpu::Buffer>) {
        others.extend([self.words, self.params, self.args]);
        free_all(mem, others);
    }
}

/// Records `retry_args` (the next stage's parameters `p` with n = the count `words[p.e]` clamped
/// to the capacity `p.n`, and its workgroup counts), then `entry` dispatched indirectly over
/// them with `bindings` (the last of which must be `b.params`).
fn retry_stage(
    g: &Gpu,
    k: &K,
    enc: &mut wgpu::CommandEncoder,
    b: &Bump,
    p: &[u32],
    entry: &str,
    bindings: &[&wgpu::Buffer],
) {
    let template = g.uniform(p);
    g.dispatch(enc, k.get("retry_args"), &[&b.words, &template, &b.params, &b.args], 1);
    g.dispatch_indirect(enc, k.get(entry), bindings, &b.args);
}

/// The dyngc methods beyond `dyngc` and `dyngc-partitioned` (which run the workload's own
/// example, `examples/<workload>.dyn`, under each schedule): (workload, method, example). Each
/// runs through the same path as `dyngc`.
const DYNGC_METHODS: &[(&str, &str, &str)] = &[
    ("bfs", "dyngc-levels", "bfs_levels"),
    ("row_sum", "dyngc-narrow", "row_sum_narrow"),
];

/// The dyngc methods of `workload`, the examples they run and their schedules: `dyngc` first.
fn dyngc_methods(workload: &str) -> Vec<(&'static str, &str, Schedule)> {
    let mut out = vec![
        ("dyngc", workload, Schedule::Megakernel),
        ("dyngc-partitioned", workload, Schedule::Partitioned),
    ];
    out.extend(
        DYNGC_METHODS
            .iter()
            .filter(|m| m.0 == workload)
            .map(|m| (m.1, m.2, Schedule::Megakernel)),
    );
    out
}

struct Ctx<'a> {
    g: &'a Gpu,
    k: &'a K,
    args: &'a RunArgs,
}

impl Ctx<'_> {
    fn wants(&self, m: &str) -> bool {
        self.args.methods.iter().any(|x| x == m)
    }

    /// The retry baseline's first capacity, in items, of a stage fed by `input` items of input.
    fn retry_initial(&self, input: u64) -> u64 {
        (self.args.retry_factor * input).max(self.args.retry_min_items).max(1)
    }

    /// The arena sizes to try for `min` bytes of minimum, `expand_peak` the baseline's (expand's, or
    /// the static kernel's where there is no expand).
    fn arenas(&self, min: u64, expand_peak: Option<u64>) -> Vec<u64> {
        let cap = self
            .g
            .limits
            .max_storage_buffer_binding_size
            .min(self.g.limits.max_buffer_size);
        let mut out: Vec<u64> = Vec::new();
        for a in &self.args.arenas {
            let v = if a == "min" {
                Some(min)
            } else if let Some(x) = a.strip_prefix('x') {
                x.parse::<u64>().ok().map(|m| m * min)
            } else if a == "expand" {
                expand_peak.map(|p| 2 * p)
            } else if let Some(n) = a.strip_prefix("p/") {
                // A fraction of the baseline's peak: issue 12's "within 1.25x of its best time at
                // 1/16 of expand's peak" is `p/16`.
                expand_peak
                    .zip(n.parse::<u64>().ok().filter(|&n| n > 0))
                    .map(|(p, n)| p / n)
            } else {
                dyngc_runtime::parse_size(a).ok()
            };
            if let Some(v) = v {
                let v = v.clamp(min, cap.max(min)) / 4 * 4;
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Every dyngc method of `workload` that `--methods` asks for ([`DYNGC_METHODS`]): its example
    /// compiled under its schedule and run at every arena, with the same inputs, parameters and
    /// check. A partitioned build that dispatches no stage is the megakernel again: not run twice.
    #[allow(clippy::too_many_arguments)]
    fn dyngc(
        &self,
        recs: &mut Vec<Record>,
        workload: &str,
        case: &str,
        units: u64,
        inputs: &[(&str, &[u8])],
        params: &[(&str, u32)],
        verify: dynrun::Verify<'_>,
    ) {
        for (method, example, schedule) in dyngc_methods(workload) {
            if !self.wants(method) {
                continue;
            }
            let options = dyngc_compiler::Options {
                schedule: schedule.into(),
                lanes: self.args.lanes,
            };
            let mut c = dynrun::compile(example, options);
            // A hand-edited shader is a megakernel's: the partitioned build's manifest differs.
            let mut verified = true;
            if let Some((_, wgsl)) = self.args.wgsl.iter().find(|(e, _)| e == example) {
                if schedule == Schedule::Megakernel {
                    c.wgsl = wgsl.clone();
                    verified = !self.args.unverified;
                }
            }
            let unchecked: dynrun::Verify<'_> = &|_| Ok(());
            let check = if verified { verify } else { unchecked };
            if schedule == Schedule::Partitioned && c.manifest.entry_points.dispatches.is_empty() {
                continue;
            }
            let exec = match dyngc_runtime::Executor::new(&self.g.device, &c.manifest, &c.wgsl) {
                Ok(e) => e,
                Err(e) => {
                    recs.push(Record {
                        workload: workload.into(),
                        case: case.into(),
                        units,
                        method: method.into(),
                        error: Some(e.to_string()),
                        ..Default::default()
                    });
                    continue;
                }
            };
            // The baseline's memory: expand's, or the static kernel's where a workload has no
            // expand (collatz), so that its largest arena is not just a multiple of the minimum.
            let baseline = |method: &str| {
                recs.iter()
                    .find(|r| r.method == method && r.case == case && r.error.is_none())
                    .map(|r| r.peak_bytes)
            };
            let expand_peak = baseline("expand").or_else(|| baseline("static"));
            let min_arena = c.manifest.executor.arena.min_bytes;
            let arenas = self.arenas(min_arena, expand_peak);
            recs.extend(measure_arenas(
                workload,
                case,
                units,
                method,
                self.args.reps,
                &arenas,
                |arena| {
                    let d = dynrun::run(self.g, &exec, arena, self.args, inputs, params, check)?;
                    Ok(Sample {
                        secs: d.secs,
                        gpu_secs: d.gpu_secs,
                        peak: d.peak_bytes,
                        relaunches: d.submissions.saturating_sub(1),
                        fallbacks: d.fallbacks,
                        launches: d.launches,
                        reruns: 0,
                        arena: Some(d.arena_bytes),
                        workers: Some(d.workers),
                        extra: serde_json::json!({
                            "example": example,
                            "requested_arena_bytes": arena,
                            "min_arena_bytes": min_arena,
                            "verified": verified,
                            "gpu_submission_ms": d.gpu_submission_secs.iter().map(|s| s * 1e3).collect::<Vec<_>>(),
                            "stats": d.stats,
                        }),
                    })
                },
            ));
        }
    }
}

pub fn run_all(args: &RunArgs) -> Results {
    let started = Instant::now();
    let mut g = crate::gpu::open(&args.backend, !args.no_timestamps).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    g.warm_before_each(args.warm_ms).unwrap_or_else(|e| {
        eprintln!("error: the warm-up kernel: {e}");
        std::process::exit(2)
    });
    eprintln!(
        "device: {} ({:?}, driver {} {})",
        g.info.name, g.info.backend, g.info.driver, g.info.driver_info
    );
    let k = K::new(&g).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let ctx = Ctx { g: &g, k: &k, args };
    let mut records = Vec::new();
    for case in &args.cases {
        let (w, size) = case
            .split_once(':')
            .unwrap_or_else(|| panic!("case `{case}`: expected workload:size"));
        eprintln!("{case}:");
        let recs = match w {
            "triangle" => triangle(&ctx, parse_num(size)),
            "tree" => tree(&ctx, parse_num(size)),
            "bfs" => bfs(&ctx, size),
            "collatz" => collatz(&ctx, parse_num(size)),
            "row_sum" => row_sum(&ctx, size),
            "compact" => compact(&ctx, parse_num(size)),
            "tessellate" => tessellate(&ctx, parse_num(size)),
            other => panic!("unknown workload `{other}`"),
        };
        records.extend(recs);
        // Written after every case, so a run cut short still leaves what it measured.
        save(
            &args.out,
            &Results {
                meta: meta(&g, args, started),
                records: records.clone(),
            },
        );
    }
    Results {
        meta: meta(&g, args, started),
        records,
    }
}

pub fn save(out: &std::path::Path, results: &Results) {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(out, serde_json::to_string_pretty(results).unwrap()).expect("write results");
}

fn meta(g: &Gpu, args: &RunArgs, started: Instant) -> serde_json::Value {
    serde_json::json!({
        "device": format!("{} ({:?})", g.info.name, g.info.backend),
        "adapter": {
            "name": g.info.name, "backend": format!("{:?}", g.info.backend), "driver": g.info.driver,
            "driver_info": g.info.driver_info, "device_type": format!("{:?}", g.info.device_type),
        },
        "timestamp_query": g.has_timestamps(),
        "timing": format!("times_s: wall clock from the first submission to the completed result (host readbacks between levels included; pipeline creation, input upload and the final output readback excluded). gpu_times_s (where timestamp_query): the sum over the method's submissions of end - start GPU timestamps written at the start and end of each command buffer (host round trips between submissions excluded); units_per_s uses gpu_times_s where present (timer = gpu), else times_s. extra.gpu_submission_ms (dyngc): each submission's GPU time in the last repetition, in order (a drain or a relaunch starts a submission). dyngc's arenas take their repetitions in turns (every arena once, then again), so that a drifting device slows them alike. warm_ms: the least milliseconds of an untimed busy kernel before each repetition, which then runs on until its dispatches are as fast as the fastest seen (the clock is back; at most {} ms: warm_capped counts those that were not; 0: none)", crate::gpu::WARM_CAP_MS),
        "warm_ms": args.warm_ms,
        "warm_dispatches": g.warm_dispatches(),
        "warm_capped": g.warm_capped(),
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "note": args.note,
        "cpu_threads": rayon::current_num_threads(),
        // The commit the binary was built from (bench/h200/build*.sh set it: a copy of the tree
        // elsewhere may carry stale git metadata), else the checkout's.
        "git_commit": option_env!("DYNGC_BENCH_COMMIT").map(str::to_string).or_else(|| {
            std::process::Command::new("git").args(["rev-parse", "HEAD"]).output().ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        }),
        "total_seconds": started.elapsed().as_secs_f64(),
    })
}

/// `a`'s fields with `b`'s added (both JSON objects).
fn merge(a: &serde_json::Value, b: serde_json::Value) -> serde_json::Value {
    let mut m = a.clone();
    if let (Some(m), serde_json::Value::Object(b)) = (m.as_object_mut(), b) {
        m.extend(b);
    }
    m
}

fn parse_num(s: &str) -> u64 {
    s.parse::<f64>().unwrap_or_else(|_| panic!("bad number `{s}`")) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test device, or None (skipped) where there is none. The test command promises a
    /// device (DYNGC_REQUIRE_GPU): there a missing adapter is a failure.
    fn test_gpu(timestamps: bool) -> Option<Gpu> {
        match crate::gpu::open("", timestamps) {
            Ok(g) => Some(g),
            Err(e) => {
                assert!(
                    std::env::var_os("DYNGC_REQUIRE_GPU").is_none(),
                    "DYNGC_REQUIRE_GPU is set: {e}"
                );
                eprintln!("skipped: {e}");
                None
            }
        }
    }

    /// `--warm-ms`: the busy kernel runs in `start`, before the clocks, and not once it is off.
    #[test]
    fn the_warm_up_runs_before_a_measurement_untimed() {
        let Some(mut g) = test_gpu(true) else {
            return;
        };
        g.warm_before_each(1).unwrap();
        let t = g.start();
        let times = g.stop(t);
        assert!(g.warm_dispatches() >= 1, "no warm-up dispatch ran");
        // Nothing was submitted between start and stop: the warm-up is not in the GPU time.
        if let Some(gpu) = times.gpu {
            assert_eq!(gpu, 0.0, "the warm-up was timed");
        }
        g.warm_before_each(0).unwrap();
        let t = g.start();
        g.stop(t);
        assert_eq!(g.warm_dispatches(), 0, "a warm-up ran after --warm-ms 0");
    }

    /// Starting from 16-item buffers, every retry workload must overflow, grow and still end
    /// with the reference's result (checked inside the method; a wrong one is an error).
    #[test]
    fn retry_grows_until_the_result_is_right() {
        let Some(g) = test_gpu(false) else {
            return;
        };
        let k = K::new(&g).unwrap();
        let argv = [
            "dyngc-bench",
            "run",
            "--case",
            "-",
            "--out",
            "-",
            "--reps",
            "1",
            "--methods",
            "retry",
        ];
        let small = ["--retry-factor", "0", "--retry-min-items", "16"];
        let crate::Cmd::Run(args) = <crate::Cli as clap::Parser>::parse_from(argv.iter().chain(&small)).cmd else {
            unreachable!()
        };
        let ctx = Ctx {
            g: &g,
            k: &k,
            args: &args,
        };
        let recs = [
            triangle(&ctx, 10_000),
            tree(&ctx, 1000),
            bfs(&ctx, "kron8"),
            bfs(&ctx, "star300"),
        ]
        .concat();
        assert_eq!(recs.len(), 4);
        for r in &recs {
            assert_eq!(r.error, None, "{} {}", r.workload, r.case);
            assert!(r.reruns > 0, "{} {}: no overflow from 16 items", r.workload, r.case);
        }
    }
}
