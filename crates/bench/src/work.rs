//! The workloads and their schedules: CPU (rayon), static limit, expand-everything, fixed
//! buffers with overflow and retry, dyngc.

use crate::dynrun::{self, words};
use crate::gpu::{words_bytes, Gpu, Mem};
use crate::{Record, Results, RunArgs, Spread};
use dyngc_codegen::Schedule;
use dyngc_reference as reference;
use rayon::prelude::*;
use std::time::Instant;

const KERNELS: &str = include_str!("kernels.wgsl");

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
    let mut rec = Record {
        workload: workload.into(),
        case: case.into(),
        units,
        method: method.into(),
        ..Default::default()
    };
    let mut last = Sample::default();
    let mut gpu = Vec::new();
    for rep in 0..reps.max(1) {
        match f() {
            Ok(s) => {
                rec.times_s.push(s.secs);
                gpu.extend(s.gpu_secs);
                last = s;
            }
            Err(e) => {
                eprintln!("  {workload} {case} {method}: rep {rep}: ERROR {e}");
                rec.error = Some(e);
                break;
            }
        }
    }
    if let Some(s) = Spread::of(&rec.times_s) {
        (rec.median_s, rec.min_s, rec.max_s) = (s.median, s.min, s.max);
        rec.units_per_s = units as f64 / s.median;
    }
    // GPU time only if every repetition has it; it is then the time units/s are computed from.
    if gpu.len() == rec.times_s.len() {
        rec.gpu = Spread::of(&gpu);
        rec.gpu_times_s = gpu;
    }
    if let Some(s) = &rec.gpu {
        rec.units_per_s = units as f64 / s.median;
    }
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
    (name, out, want): Expect,
) -> Result<Sample, String> {
    let t = g.start();
    let mut enc = g.encoder();
    g.dispatch(&mut enc, entry, bindings, n);
    g.submit(enc);
    let times = g.stop(t);
    check(name, &g.read_all(out), want)?;
    Ok(Sample {
        secs: times.wall,
        gpu_secs: times.gpu,
        peak: mem.peak(),
        launches: 1,
        ..Default::default()
    })
}

/// The end of a level-by-level run started at `t` (by [`Gpu::start`]): waits for the GPU,
/// stops the clocks and checks the result; `extra` describes the case.
fn levels_done(
    g: &Gpu,
    mem: &Mem,
    t: Instant,
    (name, out, want): Expect,
    (round_trips, dispatches): (u64, u64),
    extra: &serde_json::Value,
) -> Result<Sample, String> {
    let times = g.stop(t);
    check(name, &g.read_all(out), want)?;
    Ok(Sample {
        secs: times.wall,
        gpu_secs: times.gpu,
        peak: mem.peak(),
        relaunches: round_trips,
        launches: dispatches,
        extra: extra.clone(),
        ..Default::default()
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
    (name, out, want): Expect,
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
    let times = g.stop(t);
    check(name, &g.read_all(out), want)?;
    Ok(Sample {
        secs: times.wall,
        gpu_secs: times.gpu,
        peak: mem.peak(),
        reruns,
        relaunches: round_trips,
        launches: dispatches,
        extra: serde_json::json!({ "initial_capacity_items": initial, "final_capacity_items": caps, "last_attempt_wall_s": last }),
        ..Default::default()
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

    /// The arena sizes to try for `min` bytes of minimum, `expand_peak` the expand baseline's.
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
            let c = dynrun::compile(example, schedule);
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
            let expand_peak = recs
                .iter()
                .find(|r| r.method == "expand" && r.case == case && r.error.is_none())
                .map(|r| r.peak_bytes);
            let min_arena = c.manifest.executor.arena.min_bytes;
            for arena in self.arenas(min_arena, expand_peak) {
                let r = measure(workload, case, units, method, self.args.reps, || {
                    let d = dynrun::run(
                        self.g,
                        &exec,
                        arena,
                        self.args.workers,
                        std::time::Duration::from_secs_f64(self.args.timeout_s),
                        inputs,
                        params,
                        self.args.stream_capacity,
                        verify,
                    )?;
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
                        extra: serde_json::json!({ "example": example, "requested_arena_bytes": arena, "min_arena_bytes": min_arena, "stats": d.stats }),
                    })
                });
                recs.push(r);
            }
        }
    }
}

pub fn run_all(args: &RunArgs) -> Results {
    let started = Instant::now();
    let g = crate::gpu::open(&args.backend, !args.no_timestamps).unwrap_or_else(|e| {
        eprintln!("error: {e}");
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
        "timing": "times_s: wall clock from the first submission to the completed result (host readbacks between levels included; pipeline creation, input upload and the final output readback excluded). gpu_times_s (where timestamp_query): the sum over the method's submissions of end - start GPU timestamps written at the start and end of each command buffer (host round trips between submissions excluded); units_per_s uses gpu_times_s where present (timer = gpu), else times_s",
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

fn parse_num(s: &str) -> u64 {
    s.parse::<f64>().unwrap_or_else(|_| panic!("bad number `{s}`")) as u64
}

// ------------------------------------------------------------------------------------------
// triangle

fn triangle_input(sum: u64, mean: u64) -> Vec<u32> {
    let e = (sum / mean.max(1)).max(1) as usize;
    let mut rng = reference::Rng::new(0x7121);
    let w: Vec<u64> = (0..e).map(|_| rng.below(2 * mean + 1)).collect();
    let total: u64 = w.iter().sum::<u64>().max(1);
    let mut n: Vec<u32> = w
        .iter()
        .map(|&x| (x as u128 * sum as u128 / total as u128) as u32)
        .collect();
    let mut rest = sum - n.iter().map(|&x| x as u64).sum::<u64>();
    let mut i = 0;
    while rest > 0 {
        n[i % e] += 1;
        rest -= 1;
        i += 1;
    }
    n
}

fn triangle(ctx: &Ctx, sum: u64) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let n = triangle_input(sum, ctx.args.mean_children);
    let e = n.len() as u64;
    let case = format!("sum={sum:.0e}", sum = sum as f64);
    let want = reference::triangle(&n);
    let n_bytes = words_bytes(&n);
    let mut recs = Vec::new();
    let reps = ctx.args.reps;

    if ctx.wants("cpu") {
        recs.push(measure("triangle", &case, sum, "cpu", reps, || {
            let t = Instant::now();
            let got: Vec<u32> = n
                .par_iter()
                .map(|&v| {
                    let mut s = 0u32;
                    for k in 0..v {
                        s = s.wrapping_add(std::hint::black_box(k) + 1);
                    }
                    s
                })
                .collect();
            let secs = t.elapsed().as_secs_f64();
            check("sums", &got, &want)?;
            Ok(Sample {
                secs,
                peak: 0,
                ..Default::default()
            })
        }));
    }

    if ctx.wants("static") {
        recs.push(measure("triangle", &case, sum, "static", reps, || {
            let mem = Mem::default();
            let mut off = Vec::with_capacity(n.len() + 1);
            let mut acc = 0u32;
            for &x in &n {
                off.push(acc);
                acc += x;
            }
            off.push(acc);
            let offb = g.upload(&mem, "offsets", &words_bytes(&off))?;
            let sums = g.buffer(&mem, "sums", 4 * e)?;
            let p = g.uniform(&[sum as u32, e as u32]);
            one_dispatch(
                g,
                &mem,
                k.get("tri_static"),
                &[&offb, &sums, &p],
                sum,
                ("sums", &sums, &want),
            )
        }));
    }

    if ctx.wants("expand") {
        recs.push(measure("triangle", &case, sum, "expand", reps, || {
            let mem = Mem::default();
            let nb = g.upload(&mem, "n", &n_bytes)?;
            let sums = g.buffer(&mem, "sums", 4 * e)?;
            let t = g.start();
            let counts = g.buffer(&mem, "counts", 4 * (e + 1))?;
            let p = g.uniform(&[e as u32]);
            let mut enc = g.encoder();
            g.dispatch(&mut enc, k.get("tri_count"), &[&nb, &counts, &p], e);
            let temps = scan(g, k, &mem, &mut enc, &counts, e + 1)?;
            let total = g.read(&counts, 4 * e, 4, Some(enc))[0] as u64;
            free_all(&mem, temps);
            let children = g.buffer(&mem, "children", 8 * total)?;
            let p2 = g.uniform(&[total as u32]);
            let mut enc = g.encoder();
            g.dispatch(&mut enc, k.get("tri_write"), &[&nb, &counts, &children, &p], e);
            g.dispatch(&mut enc, k.get("tri_leaf"), &[&children, &sums, &p2], total);
            g.submit(enc);
            let times = g.stop(t);
            let peak = mem.peak();
            mem.free(children);
            mem.free(counts);
            check("sums", &g.read_all(&sums), &want)?;
            Ok(Sample {
                secs: times.wall,
                gpu_secs: times.gpu,
                peak,
                relaunches: 1,
                launches: 4,
                extra: serde_json::json!({ "levels": 2 }),
                ..Default::default()
            })
        }));
    }

    if ctx.wants("retry") {
        recs.push(measure("triangle", &case, sum, "retry", reps, || {
            let mem = Mem::default();
            let nb = g.upload(&mem, "n", &n_bytes)?;
            let sums = g.buffer(&mem, "sums", 4 * e)?;
            let caps = vec![ctx.retry_initial(e)];
            let attempt = |_: u64, caps: &[u64]| {
                // bump: children count, children overflow.
                let bm = Bump::new(g, &mem, 1, "leaf")?;
                let children = g.buffer(&mem, "children", 8 * caps[0])?;
                let p = g.uniform(&[e as u32, 0, 0, 0, 0, 0, 0, caps[0] as u32]);
                let mut enc = g.encoder();
                enc.clear_buffer(&sums, 0, None);
                g.dispatch(&mut enc, k.get("tri_reserve"), &[&nb, &children, &bm.words, &p], e);
                let leaf = [caps[0] as u32, 0, 0, 0, 0, 0, 0, 0];
                let bind = [&children, &sums, &bm.params];
                retry_stage(g, k, &mut enc, &bm, &leaf, "tri_leaf", &bind);
                let w = g.read(&bm.words, 0, 8, Some(enc));
                bm.free(&mem, vec![children]);
                Ok(Attempt {
                    overflow: vec![w[1] != 0],
                    round_trips: 1,
                    dispatches: 3,
                })
            };
            retry(g, &mem, caps, attempt, ("sums", &sums, &want))
        }));
    }

    let verify = |out: &[(String, Vec<u8>)]| check("sums", &words(&out[0].1), &want);
    ctx.dyngc(&mut recs, "triangle", &case, sum, &[("n", &n_bytes)], &[], &verify);
    recs
}

// ------------------------------------------------------------------------------------------
// tree

const TREE_CHILDREN: u32 = 4;

/// (seed, max_depth) whose tree (max_children 4) has a node count closest to `target`.
fn tree_params(target: u64) -> (u32, u32, u64) {
    let dmax = ((target as f64).log2().ceil() as u32 + 2).min(24);
    let best = (0u32..16)
        .into_par_iter()
        .map(|seed| {
            let per = reference::tree(seed, dmax, TREE_CHILDREN);
            let mut acc = 0u64;
            let mut best = (f64::MAX, 0, 0);
            for (d, &c) in per.iter().enumerate().take(dmax as usize + 1) {
                acc += c as u64;
                let err = ((acc as f64).ln() - (target as f64).ln()).abs();
                if err < best.0 {
                    best = (err, d as u32, acc);
                }
            }
            (best.0, seed, best.1, best.2)
        })
        .reduce(
            || (f64::MAX, 0, 0, 0),
            |a, b| if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a },
        );
    (best.1, best.2, best.3)
}

/// The ids of node `id`'s children, drawn as `reference::tree` draws them.
fn tree_children(seed: u32, id: u32) -> impl Iterator<Item = u32> {
    let c = reference::pcg(id ^ seed) % (TREE_CHILDREN + 1);
    (0..c).map(move |j| reference::pcg(id.wrapping_add(j).wrapping_add(1)))
}

fn tree_cpu(seed: u32, max_depth: u32) -> Vec<u32> {
    // Serial down to a wide enough frontier, then one subtree per task.
    let mut per = [0u32; 25];
    let mut frontier = vec![0u32];
    let mut depth = 0u32;
    while frontier.len() < 256 && depth < max_depth && !frontier.is_empty() {
        let mut next = Vec::new();
        for &id in &frontier {
            per[depth as usize] += 1;
            next.extend(tree_children(seed, id));
        }
        frontier = next;
        depth += 1;
    }
    let rest = frontier
        .par_iter()
        .map(|&root| {
            let mut per = vec![0u32; 25];
            let mut stack = vec![(root, depth)];
            while let Some((id, d)) = stack.pop() {
                per[d as usize] += 1;
                if d < max_depth {
                    stack.extend(tree_children(seed, id).map(|c| (c, d + 1)));
                }
            }
            per
        })
        .reduce(|| vec![0u32; 25], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect());
    per.iter().zip(&rest).map(|(x, y)| x + y).collect()
}

fn tree(ctx: &Ctx, target: u64) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let (seed, max_depth, nodes) = tree_params(target);
    let case = format!("nodes={:.0e}", target as f64);
    eprintln!("  tree: seed {seed}, max_depth {max_depth}, max_children {TREE_CHILDREN}: {nodes} nodes");
    let want = reference::tree(seed, max_depth, TREE_CHILDREN);
    let mut recs = Vec::new();
    let reps = ctx.args.reps;
    let extra =
        serde_json::json!({ "seed": seed, "max_depth": max_depth, "max_children": TREE_CHILDREN, "nodes": nodes });

    if ctx.wants("cpu") {
        recs.push(measure("tree", &case, nodes, "cpu", reps, || {
            let t = Instant::now();
            let got = tree_cpu(seed, max_depth);
            let secs = t.elapsed().as_secs_f64();
            check("per_depth", &got, &want)?;
            Ok(Sample {
                secs,
                extra: extra.clone(),
                ..Default::default()
            })
        }));
    }
    let params = [seed, max_depth, TREE_CHILDREN];

    if ctx.wants("static") {
        // The whole node list, known in advance.
        let mut list: Vec<u32> = Vec::with_capacity(2 * nodes as usize);
        let mut level = vec![0u32];
        for d in 0..=max_depth {
            let mut next = Vec::new();
            for &id in &level {
                list.extend_from_slice(&[id, d]);
                if d < max_depth {
                    next.extend(tree_children(seed, id));
                }
            }
            level = next;
        }
        let list_bytes = words_bytes(&list);
        recs.push(measure("tree", &case, nodes, "static", reps, || {
            let mem = Mem::default();
            let nb = g.upload(&mem, "nodes", &list_bytes)?;
            let per = g.buffer(&mem, "per_depth", 100)?;
            let p = g.uniform(&[nodes as u32, 0, max_depth, seed, TREE_CHILDREN]);
            let out = ("per_depth", &per, &want[..]);
            let s = one_dispatch(g, &mem, k.get("tree_static"), &[&nb, &per, &p], nodes, out)?;
            Ok(Sample {
                extra: extra.clone(),
                ..s
            })
        }));
    }

    if ctx.wants("expand") {
        recs.push(measure("tree", &case, nodes, "expand", reps, || {
            let mem = Mem::default();
            let per = g.buffer(&mem, "per_depth", 100)?;
            let mut ids = g.upload(&mem, "level 0", &words_bytes(&[0]))?;
            let t = g.start();
            let (mut m, mut depth, mut round_trips, mut dispatches) = (1u64, 0u32, 0u64, 0u64);
            loop {
                let counts = g.buffer(&mem, "counts", 4 * (m + 1))?;
                let p = g.uniform(&[m as u32, depth, max_depth, seed, TREE_CHILDREN]);
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("tree_count"), &[&ids, &counts, &per, &p], m);
                dispatches += 1;
                if depth == max_depth {
                    g.submit_wait(enc);
                    free_all(&mem, vec![ids, counts]);
                    break;
                }
                let temps = scan(g, k, &mem, &mut enc, &counts, m + 1)?;
                dispatches += 2 * temps.len() as u64 - 1;
                let total = g.read(&counts, 4 * m, 4, Some(enc))[0] as u64;
                round_trips += 1;
                free_all(&mem, temps);
                if total == 0 {
                    free_all(&mem, vec![ids, counts]);
                    break;
                }
                let next = g.buffer(&mem, "next level", 4 * total)?;
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("tree_write"), &[&ids, &counts, &next, &p], m);
                dispatches += 1;
                g.submit(enc);
                free_all(&mem, vec![ids, counts]);
                ids = next;
                m = total;
                depth += 1;
            }
            levels_done(
                g,
                &mem,
                t,
                ("per_depth", &per, &want),
                (round_trips, dispatches),
                &extra,
            )
        }));
    }

    if ctx.wants("retry") {
        recs.push(measure("tree", &case, nodes, "retry", reps, || {
            let mem = Mem::default();
            let per = g.buffer(&mem, "per_depth", 100)?;
            // No input data: the fixed minimum.
            let caps = vec![ctx.retry_initial(0)];
            let attempt = |_: u64, caps: &[u64]| {
                let cap = caps[0] as u32;
                // bump: count and overflow of level buffer 0, then of level buffer 1.
                let bm = Bump::new(g, &mem, 2, "level")?;
                let ids = [
                    g.buffer(&mem, "level ids", 4 * caps[0])?,
                    g.buffer(&mem, "level ids", 4 * caps[0])?,
                ];
                // Level 0: the root, id 0 (the buffer is zeroed).
                g.queue.write_buffer(&bm.words, 0, &words_bytes(&[1]));
                let mut enc = g.encoder();
                enc.clear_buffer(&per, 0, None);
                for d in 0..=max_depth {
                    let (i, o) = ((d % 2) as usize, 1 - (d % 2) as usize);
                    enc.clear_buffer(&bm.words, 8 * o as u64, Some(4));
                    let p = [cap, d, max_depth, seed, TREE_CHILDREN, 2 * i as u32, 2 * o as u32, cap];
                    let bind = [&ids[i], &ids[o], &bm.words, &per, &bm.params];
                    retry_stage(g, k, &mut enc, &bm, &p, "tree_grow", &bind);
                }
                let w = g.read(&bm.words, 0, 16, Some(enc));
                bm.free(&mem, Vec::from(ids));
                Ok(Attempt {
                    overflow: vec![w[1] != 0 || w[3] != 0],
                    round_trips: 1,
                    dispatches: 2 * (max_depth as u64 + 1),
                })
            };
            let s = retry(g, &mem, caps, attempt, ("per_depth", &per, &want))?;
            Ok(Sample {
                extra: merge(&extra, s.extra.clone()),
                ..s
            })
        }));
    }

    let verify = |out: &[(String, Vec<u8>)]| check("per_depth", &words(&out[0].1), &want);
    ctx.dyngc(
        &mut recs,
        "tree",
        &case,
        nodes,
        &[],
        &[
            ("seed", params[0]),
            ("max_depth", params[1]),
            ("max_children", params[2]),
        ],
        &verify,
    );
    recs
}

// ------------------------------------------------------------------------------------------
// bfs

/// Graph500 Kronecker generator (A, B, C = 0.57, 0.19, 0.19; edge factor 16), vertex labels
/// permuted, self-loops dropped, symmetrized into CSR.
pub fn kronecker(scale: u32, edge_factor: u64, seed: u64) -> reference::Csr {
    let n = 1usize << scale;
    let m = edge_factor as usize * n;
    let (a, b, c) = (0.57f64, 0.19f64, 0.19f64);
    let ab = a + b;
    let c_norm = c / (1.0 - ab);
    let a_norm = a / ab;
    let chunks = 64usize;
    let per = m.div_ceil(chunks);
    let edges: Vec<(u32, u32)> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|ch| {
            let mut rng = reference::Rng::new(seed ^ (ch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let count = per.min(m.saturating_sub(ch * per));
            let mut out = Vec::with_capacity(count);
            for _ in 0..count {
                let (mut u, mut v) = (0u32, 0u32);
                for bit in 0..scale {
                    let r1 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let r2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let ii = r1 > ab;
                    let jj = r2 > if ii { c_norm } else { a_norm };
                    u |= (ii as u32) << bit;
                    v |= (jj as u32) << bit;
                }
                out.push((u, v));
            }
            out
        })
        .collect();
    // Permute vertex labels.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    let mut rng = reference::Rng::new(seed.wrapping_add(1));
    for i in (1..n).rev() {
        perm.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut deg = vec![0u32; n + 1];
    for &(u, v) in &edges {
        if u != v {
            deg[perm[u as usize] as usize + 1] += 1;
            deg[perm[v as usize] as usize + 1] += 1;
        }
    }
    for i in 0..n {
        deg[i + 1] += deg[i];
    }
    let row_ptr = deg.clone();
    let mut fill = deg;
    let mut col_idx = vec![0u32; row_ptr[n] as usize];
    for &(u, v) in &edges {
        if u != v {
            let (pu, pv) = (perm[u as usize], perm[v as usize]);
            col_idx[fill[pu as usize] as usize] = pv;
            fill[pu as usize] += 1;
            col_idx[fill[pv as usize] as usize] = pu;
            fill[pv as usize] += 1;
        }
    }
    reference::Csr { row_ptr, col_idx }
}

/// Retry: bfs levels recorded per submission; the host reads the counts and overflow flags
/// after each batch (a frontier's end is found only there).
const BFS_BATCH: u32 = 16;

/// `a`'s fields with `b`'s added (both JSON objects).
fn merge(a: &serde_json::Value, b: serde_json::Value) -> serde_json::Value {
    let mut m = a.clone();
    if let (Some(m), serde_json::Value::Object(b)) = (m.as_object_mut(), b) {
        m.extend(b);
    }
    m
}

fn bfs(ctx: &Ctx, spec: &str) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let t = Instant::now();
    let (graph, source) = if let Some(s) = spec.strip_prefix("kron") {
        let scale: u32 = s.parse().expect("kron scale");
        let gr = kronecker(scale, 16, 0x6500 + scale as u64);
        // The first vertex (in a fixed pseudo-random order) with an edge, as Graph500 picks roots.
        let mut rng = reference::Rng::new(17);
        let v = gr.row_ptr.len() as u64 - 1;
        let src = loop {
            let c = rng.below(v) as usize;
            if gr.row_ptr[c + 1] > gr.row_ptr[c] {
                break c as u32;
            }
        };
        (gr, src)
    } else if let Some(s) = spec.strip_prefix("path") {
        (reference::Csr::path(parse_num(s) as usize), 0)
    } else if let Some(s) = spec.strip_prefix("star") {
        (reference::Csr::star(parse_num(s) as usize), 1)
    } else {
        panic!("bfs case `{spec}`: kronN, pathN or starN")
    };
    let v = graph.row_ptr.len() as u64 - 1;
    let want = reference::bfs(&graph.row_ptr, &graph.col_idx, source);
    let reached = want.iter().filter(|&&d| d != u32::MAX).count();
    let units: u64 = (0..v as usize)
        .filter(|&i| want[i] != u32::MAX)
        .map(|i| (graph.row_ptr[i + 1] - graph.row_ptr[i]) as u64)
        .sum();
    let levels = want.iter().filter(|&&d| d != u32::MAX).max().copied().unwrap_or(0);
    eprintln!(
        "  bfs {spec}: {v} vertices, {} directed edges, {reached} reached, {levels} levels, {units} edges scanned (built in {:.1} s)",
        graph.col_idx.len(),
        t.elapsed().as_secs_f64()
    );
    let case = spec.to_string();
    let extra = serde_json::json!({ "vertices": v, "directed_edges": graph.col_idx.len(), "reached": reached, "levels": levels, "source": source });
    let row_bytes = words_bytes(&graph.row_ptr);
    let col_bytes = words_bytes(&graph.col_idx);
    let mut d0 = vec![u32::MAX; v as usize];
    d0[source as usize] = 0;
    let d0_bytes = words_bytes(&d0);
    let mut recs = Vec::new();
    let reps = ctx.args.reps;

    if ctx.wants("cpu") {
        recs.push(measure("bfs", &case, units, "cpu", reps, || {
            let t = Instant::now();
            let got = reference::bfs(&graph.row_ptr, &graph.col_idx, source);
            let secs = t.elapsed().as_secs_f64();
            check("dist", &got, &want)?;
            Ok(Sample {
                secs,
                extra: serde_json::json!({ "serial": true }),
                ..Default::default()
            })
        }));
    }

    if ctx.wants("expand") {
        recs.push(measure("bfs", &case, units, "expand", reps, || {
            let mem = Mem::default();
            let row = g.upload(&mem, "row_ptr", &row_bytes)?;
            let col = g.upload(&mem, "col_idx", &col_bytes)?;
            let dist = g.upload(&mem, "dist", &d0_bytes)?;
            let mut frontier = g.upload(&mem, "frontier", &words_bytes(&[source]))?;
            let t = g.start();
            let (mut m, mut level, mut round_trips, mut dispatches) = (1u64, 0u32, 0u64, 0u64);
            loop {
                level += 1;
                let counts = g.buffer(&mem, "counts", 4 * (m + 1))?;
                let p = g.uniform(&[m as u32]);
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("bfs_count"), &[&frontier, &row, &counts, &p], m);
                let temps = scan(g, k, &mem, &mut enc, &counts, m + 1)?;
                dispatches += 2 * temps.len() as u64;
                let total = g.read(&counts, 4 * m, 4, Some(enc))[0] as u64;
                round_trips += 1;
                free_all(&mem, temps);
                if total == 0 {
                    free_all(&mem, vec![frontier, counts]);
                    break;
                }
                let pairs = g.buffer(&mem, "edge children", 8 * total)?;
                let flags = g.buffer(&mem, "flags", 4 * (total + 1))?;
                let p2 = g.uniform(&[total as u32, level]);
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("bfs_write"), &[&frontier, &counts, &pairs, &p], m);
                g.dispatch(
                    &mut enc,
                    k.get("bfs_relax"),
                    &[&pairs, &row, &col, &dist, &flags, &p2],
                    total,
                );
                let temps = scan(g, k, &mem, &mut enc, &flags, total + 1)?;
                dispatches += 2 * temps.len() as u64 + 1;
                let found = g.read(&flags, 4 * total, 4, Some(enc))[0] as u64;
                round_trips += 1;
                free_all(&mem, temps);
                free_all(&mem, vec![frontier, counts]);
                if found == 0 {
                    free_all(&mem, vec![pairs, flags]);
                    break;
                }
                let next = g.buffer(&mem, "frontier", 4 * found)?;
                let mut enc = g.encoder();
                g.dispatch(
                    &mut enc,
                    k.get("bfs_compact"),
                    &[&pairs, &row, &col, &flags, &next, &p2],
                    total,
                );
                dispatches += 1;
                g.submit(enc);
                free_all(&mem, vec![pairs, flags]);
                frontier = next;
                m = found;
            }
            levels_done(g, &mem, t, ("dist", &dist, &want), (round_trips, dispatches), &extra)
        }));
    }

    if ctx.wants("retry") {
        recs.push(measure("bfs", &case, units, "retry", reps, || {
            let mem = Mem::default();
            let row = g.upload(&mem, "row_ptr", &row_bytes)?;
            let col = g.upload(&mem, "col_idx", &col_bytes)?;
            let dist = g.upload(&mem, "dist", &d0_bytes)?;
            // Stages: the frontier (vertices) and the edge records (edges of the frontier).
            let caps = vec![ctx.retry_initial(v); 2];
            let attempt = |rerun: u64, caps: &[u64]| {
                let (cf, ce) = (caps[0] as u32, caps[1] as u32);
                if rerun > 0 {
                    g.queue.write_buffer(&dist, 0, &d0_bytes);
                }
                // bump: count and overflow of frontier 0, of frontier 1, of the edge records.
                let bm = Bump::new(g, &mem, 3, "stage")?;
                let fr = [
                    g.buffer(&mem, "frontier", 4 * caps[0])?,
                    g.buffer(&mem, "frontier", 4 * caps[0])?,
                ];
                let pairs = g.buffer(&mem, "edge children", 8 * caps[1])?;
                g.queue.write_buffer(&bm.words, 0, &words_bytes(&[1]));
                g.queue.write_buffer(&fr[0], 0, &words_bytes(&[source]));
                let (mut level, mut cur, mut round_trips) = (0u32, 0usize, 0u64);
                let overflow = loop {
                    let mut enc = g.encoder();
                    for _ in 0..BFS_BATCH {
                        level += 1;
                        let (i, o) = (cur, 1 - cur);
                        enc.clear_buffer(&bm.words, 16, Some(4));
                        let p = [cf, level, 0, 0, 0, 2 * i as u32, 4, ce];
                        let bind = [&fr[i], &row, &pairs, &bm.words, &bm.params];
                        retry_stage(g, k, &mut enc, &bm, &p, "bfs_gather", &bind);
                        enc.clear_buffer(&bm.words, 8 * o as u64, Some(4));
                        let p = [ce, level, 0, 0, 0, 4, 2 * o as u32, cf];
                        let bind = [&pairs, &row, &col, &dist, &fr[o], &bm.words, &bm.params];
                        retry_stage(g, k, &mut enc, &bm, &p, "bfs_push", &bind);
                        cur = o;
                    }
                    let w = g.read(&bm.words, 0, 24, Some(enc));
                    round_trips += 1;
                    let overflow = vec![w[1] != 0 || w[3] != 0, w[5] != 0];
                    if overflow.contains(&true) || w[2 * cur] == 0 {
                        break overflow;
                    }
                };
                let mut buffers = Vec::from(fr);
                buffers.push(pairs);
                bm.free(&mem, buffers);
                Ok(Attempt {
                    overflow,
                    round_trips,
                    dispatches: 4 * level as u64,
                })
            };
            let s = retry(g, &mem, caps, attempt, ("dist", &dist, &want))?;
            Ok(Sample {
                extra: merge(&extra, s.extra.clone()),
                ..s
            })
        }));
    }

    // bfs.dyn and bfs_levels.dyn (method dyngc-levels) both write `dist`.
    let verify = |out: &[(String, Vec<u8>)]| match out.iter().find(|(n, _)| n == "dist") {
        Some((_, d)) => check("dist", &words(d), &want),
        None => Err("no output `dist`".into()),
    };
    ctx.dyngc(
        &mut recs,
        "bfs",
        &case,
        units,
        &[("row_ptr", &row_bytes), ("col_idx", &col_bytes)],
        &[("source", source)],
        &verify,
    );
    for r in recs.iter_mut() {
        if r.extra.is_null() {
            r.extra = extra.clone();
        }
    }
    recs
}

// ------------------------------------------------------------------------------------------
// collatz

fn collatz(ctx: &Ctx, count: u64) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let x: Vec<u32> = (1..=count as u32).collect();
    let want = reference::collatz(&x);
    let units: u64 = want.iter().map(|&s| s as u64).sum();
    let case = format!("n={:.0e}", count as f64);
    let x_bytes = words_bytes(&x);
    let mut recs = Vec::new();
    let reps = ctx.args.reps;
    if ctx.wants("cpu") {
        recs.push(measure("collatz", &case, units, "cpu", reps, || {
            let t = Instant::now();
            let got: Vec<u32> = x.par_chunks(4096).flat_map_iter(reference::collatz).collect();
            let secs = t.elapsed().as_secs_f64();
            check("steps", &got, &want)?;
            Ok(Sample {
                secs,
                ..Default::default()
            })
        }));
    }
    if ctx.wants("static") {
        recs.push(measure("collatz", &case, units, "static", reps, || {
            let mem = Mem::default();
            let xb = g.upload(&mem, "x", &x_bytes)?;
            let steps = g.buffer(&mem, "steps", 4 * count)?;
            let p = g.uniform(&[count as u32]);
            let out = ("steps", &steps, &want[..]);
            one_dispatch(g, &mem, k.get("collatz_static"), &[&xb, &steps, &p], count, out)
        }));
    }
    let verify = |out: &[(String, Vec<u8>)]| check("steps", &words(&out[0].1), &want);
    ctx.dyngc(&mut recs, "collatz", &case, units, &[("x", &x_bytes)], &[], &verify);
    recs
}

/// `examples/row_sum.dyn` on the rows of a Graph500 Kronecker graph's adjacency matrix (`kronN`:
/// a few very long rows and many short ones), entries a hash of their position. There is no
/// static or expand baseline: the comparison is the wide stage inside the megakernel against
/// the same stage as its own 32-lane dispatch (`dyngc-partitioned`).
fn row_sum(ctx: &Ctx, spec: &str) -> Vec<Record> {
    let scale: u32 = spec
        .strip_prefix("kron")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("row_sum case `{spec}`: kronN"));
    let m = kronecker(scale, 16, 0x7500 + scale as u64);
    let val: Vec<u32> = (0..m.col_idx.len() as u32)
        .map(|e| e.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let want = reference::row_sums(&m.row_ptr, &val);
    let units = val.len() as u64;
    eprintln!("  row_sum {spec}: {} rows, {units} entries", want.len());
    let mut recs = Vec::new();
    if ctx.wants("cpu") {
        recs.push(measure("row_sum", spec, units, "cpu", ctx.args.reps, || {
            let t = Instant::now();
            let got = reference::row_sums(&m.row_ptr, &val);
            let secs = t.elapsed().as_secs_f64();
            check("sums", &got, &want)?;
            Ok(Sample {
                secs,
                ..Default::default()
            })
        }));
    }
    let verify = |out: &[(String, Vec<u8>)]| check("sums", &words(&out[0].1), &want);
    let (row_ptr, val) = (words_bytes(&m.row_ptr), words_bytes(&val));
    let inputs = [("row_ptr", &row_ptr[..]), ("val", &val[..])];
    ctx.dyngc(&mut recs, "row_sum", spec, units, &inputs, &[], &verify);
    recs
}

// ------------------------------------------------------------------------------------------
// streams: outputs whose size the data decides

/// A stream workload's shape: the kernels of its baselines and how its result is checked.
struct StreamCase<'a> {
    workload: &'static str,
    case: String,
    /// Units of work (input elements or curves).
    units: u64,
    /// Words per output element.
    row: usize,
    input: (&'static str, &'a [u8]),
    /// The baselines' uniform: n = units, then workload parameters in a, b.
    p: [u32; 3],
    /// The dyngc example's parameters.
    params: &'a [(&'a str, u32)],
    /// Expected output rows, sorted.
    want: &'a [Vec<u32>],
    same: &'a dyn Fn(&[u32], &[u32]) -> bool,
    /// Entry points: count per unit, write at the scanned offsets, bump-allocate with overflow.
    kernels: [&'static str; 3],
}

/// The output's rows, sorted, against `c.want` (the order of every method is its own).
fn check_rows(c: &StreamCase, got: &[u32]) -> Result<(), String> {
    let mut rows: Vec<&[u32]> = got.chunks_exact(c.row).collect();
    rows.sort();
    if rows.len() != c.want.len() {
        return Err(format!(
            "WRONG RESULT: {}: {} elements, {} expected",
            c.workload,
            rows.len(),
            c.want.len()
        ));
    }
    if let Some(i) = (0..rows.len()).find(|&i| !(c.same)(rows[i], &c.want[i])) {
        return Err(format!(
            "WRONG RESULT: {}: sorted element {i} is {:?}, expected {:?}",
            c.workload, rows[i], c.want[i]
        ));
    }
    Ok(())
}

/// Expand (count, scan, allocate exactly, write), retry (a buffer of `--retry-min-items`
/// elements, an overflow flag, the whole pass again with twice the buffer) and dyngc's stream.
fn stream_methods(ctx: &Ctx, c: &StreamCase) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let (n, row_bytes) = (c.units, 4 * c.row as u64);
    let mut recs = Vec::new();
    if ctx.wants("expand") {
        recs.push(measure(c.workload, &c.case, c.units, "expand", ctx.args.reps, || {
            let mem = Mem::default();
            let input = g.upload(&mem, c.input.0, c.input.1)?;
            let t = g.start();
            let counts = g.buffer(&mem, "counts", 4 * (n + 1))?;
            let p = g.uniform(&[c.p[0], c.p[1], c.p[2]]);
            let mut enc = g.encoder();
            g.dispatch(&mut enc, k.get(c.kernels[0]), &[&input, &counts, &p], n);
            let temps = scan(g, k, &mem, &mut enc, &counts, n + 1)?;
            let total = g.read(&counts, 4 * n, 4, Some(enc))[0] as u64;
            free_all(&mem, temps);
            let out = g.buffer(&mem, "out", row_bytes * total.max(1))?;
            let mut enc = g.encoder();
            g.dispatch(&mut enc, k.get(c.kernels[1]), &[&input, &counts, &out, &p], n);
            g.submit(enc);
            let times = g.stop(t);
            let peak = mem.peak();
            let got = g.read_all(&out);
            check_rows(c, &got[..(total as usize * c.row).min(got.len())])?;
            Ok(Sample {
                secs: times.wall,
                gpu_secs: times.gpu,
                peak,
                relaunches: 1,
                launches: 3,
                ..Default::default()
            })
        }));
    }
    if ctx.wants("retry") {
        recs.push(measure(c.workload, &c.case, c.units, "retry", ctx.args.reps, || {
            let mem = Mem::default();
            let input = g.upload(&mem, c.input.0, c.input.1)?;
            let mut cap = ctx.args.retry_min_items.max(1);
            let initial = cap;
            let t = g.start();
            let mut reruns = 0u64;
            let (out, total) = loop {
                let bump = g.buffer(&mem, "bump", 8)?;
                let out = g.buffer(&mem, "out", row_bytes * cap)?;
                let p = g.uniform(&[c.p[0], c.p[1], c.p[2], 0, 0, 0, 0, cap as u32]);
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get(c.kernels[2]), &[&input, &out, &bump, &p], n);
                let w = g.read(&bump, 0, 8, Some(enc));
                mem.free(bump);
                if w[1] == 0 {
                    break (out, w[0] as u64);
                }
                mem.free(out);
                cap *= 2;
                reruns += 1;
            };
            let times = g.stop(t);
            let peak = mem.peak();
            let got = g.read_all(&out);
            check_rows(c, &got[..total as usize * c.row])?;
            Ok(Sample {
                secs: times.wall,
                gpu_secs: times.gpu,
                peak,
                reruns,
                relaunches: reruns + 1,
                launches: reruns + 1,
                extra: serde_json::json!({ "initial_capacity_items": initial, "final_capacity_items": cap }),
                ..Default::default()
            })
        }));
    }
    let verify = |out: &[(String, Vec<u8>)]| check_rows(c, &words(&out[0].1));
    ctx.dyngc(&mut recs, c.workload, &c.case, c.units, &[c.input], c.params, &verify);
    recs
}

/// `examples/compact.dyn`: `count` values below 1,000 (a hash of the index), modulus 7.
fn compact(ctx: &Ctx, count: u64) -> Vec<Record> {
    const MODULUS: u32 = 7;
    let x: Vec<u32> = (0..count as u32).map(|i| reference::pcg(i) % 1000).collect();
    let mut want: Vec<Vec<u32>> = reference::compact(&x, MODULUS).into_iter().map(|v| vec![v]).collect();
    want.sort();
    let x_bytes = words_bytes(&x);
    let exact = |a: &[u32], b: &[u32]| a == b;
    stream_methods(
        ctx,
        &StreamCase {
            workload: "compact",
            case: format!("n={:.0e}", count as f64),
            units: count,
            row: 1,
            input: ("x", &x_bytes),
            p: [count as u32, MODULUS, 0],
            params: &[("modulus", MODULUS)],
            want: &want,
            same: &exact,
            kernels: ["compact_count", "compact_write", "compact_bump"],
        },
    )
}

/// `examples/tessellate.dyn`: `count` curves with control points hashed in [0, 4)^2 and 4
/// segments per unit of length (1 to 64 segments a curve, about 30 on average).
fn tessellate(ctx: &Ctx, count: u64) -> Vec<Record> {
    const SEGMENTS_PER_UNIT: f32 = 4.0;
    let ctrl: Vec<[f32; 2]> = (0..3 * count as u32)
        .map(|i| {
            let f = |s: u32| (reference::pcg(s) % 4096) as f32 / 1024.0;
            [f(2 * i), f(2 * i + 1)]
        })
        .collect();
    let mut want: Vec<Vec<u32>> = reference::tessellate(&ctrl, SEGMENTS_PER_UNIT)
        .into_iter()
        .map(|(c, k, p)| vec![c, k, p[0].to_bits(), p[1].to_bits()])
        .collect();
    want.sort_by_key(|r| (r[0], r[1]));
    let bytes: Vec<u8> = ctrl
        .iter()
        .flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    // Curve and k exactly; positions to a few ulps (a GPU may fuse multiply-adds).
    let same = |a: &[u32], b: &[u32]| {
        let close = |x: u32, y: u32| {
            let (x, y) = (f32::from_bits(x), f32::from_bits(y));
            (x - y).abs() <= 1e-5 * (1.0 + x.abs().max(y.abs()))
        };
        a[..2] == b[..2] && close(a[2], b[2]) && close(a[3], b[3])
    };
    stream_methods(
        ctx,
        &StreamCase {
            workload: "tessellate",
            case: format!("curves={:.0e}", count as f64),
            units: count,
            row: 4,
            input: ("ctrl", &bytes),
            p: [count as u32, SEGMENTS_PER_UNIT.to_bits(), 0],
            params: &[("segments_per_unit", SEGMENTS_PER_UNIT.to_bits())],
            want: &want,
            same: &same,
            kernels: ["tess_count", "tess_write", "tess_bump"],
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_input_sums_exactly() {
        for (sum, mean) in [(1000u64, 10u64), (12345, 1000), (7, 1000)] {
            let n = triangle_input(sum, mean);
            assert_eq!(n.iter().map(|&x| x as u64).sum::<u64>(), sum);
        }
    }

    #[test]
    fn kronecker_is_symmetric_without_self_loops() {
        let g = kronecker(8, 16, 1);
        assert_eq!(g.row_ptr.len(), 257);
        let v = g.row_ptr.len() - 1;
        let mut edges = Vec::new();
        for u in 0..v {
            for &w in &g.col_idx[g.row_ptr[u] as usize..g.row_ptr[u + 1] as usize] {
                assert_ne!(u as u32, w);
                edges.push((u as u32, w));
            }
        }
        let mut rev: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        edges.sort_unstable();
        rev.sort_unstable();
        assert_eq!(edges, rev);
        // Edge factor 16 minus dropped self-loops, both directions.
        assert!(edges.len() > 2 * 16 * 256 * 9 / 10 && edges.len() <= 2 * 16 * 256);
    }

    /// Starting from 16-item buffers, every retry workload must overflow, grow and still end
    /// with the reference's result (checked inside the method; a wrong one is an error).
    #[test]
    fn retry_grows_until_the_result_is_right() {
        let g = match crate::gpu::open("", false) {
            Ok(g) => g,
            Err(e) => {
                // The test command promises a device: there a missing adapter is a failure.
                assert!(
                    std::env::var_os("DYNGC_REQUIRE_GPU").is_none(),
                    "DYNGC_REQUIRE_GPU is set: {e}"
                );
                eprintln!("skipped: {e}");
                return;
            }
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

    #[test]
    fn tree_cpu_matches_reference() {
        assert_eq!(tree_cpu(3, 12), reference::tree(3, 12, TREE_CHILDREN));
    }
}
