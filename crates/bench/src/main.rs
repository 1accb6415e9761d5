//! `dyngc-bench`: dyngc against expand-everything, fixed buffers with retry, the static limit
//! and the CPU, on the shipped examples. Every GPU result is checked against the CPU reference before its time is recorded.
//! See `docs/performance.md`.

mod dynrun;
mod gpu;
mod plot;
mod work;

use clap::{Parser, Subcommand};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "dyngc-bench",
    about = "Benchmarks dyngc against expand-everything, fixed buffers with retry, the static limit and the CPU"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Runs benchmark cases and writes one JSON file.
    Run(Box<RunArgs>),
    /// Draws one memory-against-time PNG per workload from result files.
    Plot {
        inputs: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Prints a Markdown table of result files.
    Table { inputs: Vec<PathBuf> },
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// `workload:size`, repeatable: triangle:1e6 (sum of n), tree:1e5 (nodes, approximately),
    /// bfs:kron14 / bfs:path1e5 / bfs:star1e5, collatz:1e6 (inputs), row_sum:kron18 (the rows
    /// of a Kronecker graph's adjacency matrix).
    #[arg(long = "case", required = true)]
    pub cases: Vec<String>,
    /// Repetitions per method and arena (median and spread are reported); a dyngc method's
    /// arenas take theirs in turns, every arena once, then again.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// wgpu backend: vulkan, gl, metal, dx12; empty = WGPU_BACKEND or all.
    #[arg(long, default_value = "")]
    pub backend: String,
    /// dyngc arena sizes: `min` (the manifest's minimum), `xN` (N times it), `expand` (twice the
    /// expand baseline's peak; the static kernel's for a workload without expand), `p/N` (that
    /// peak divided by N: `p/16` is issue 12's arena goal), or a size such as 64M.
    #[arg(long, value_delimiter = ',', default_value = "min,x16,x256,expand")]
    pub arenas: Vec<String>,
    /// dyngc workers (persistent workgroups); default: the manifest's.
    #[arg(long)]
    pub workers: Option<u32>,
    /// Methods to run: cpu, static, expand, retry, dyngc, dyngc-partitioned (the same example
    /// built with `--schedule partitioned`; skipped where that dispatches no stage), dyngc-levels
    /// (bfs only: `examples/bfs_levels.dyn`, level-synchronous, through the same path as dyngc),
    /// dyngc-narrow (row_sum only: `bench/dyn/row_sum_narrow.dyn`, its wide stage on one lane).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "cpu,static,expand,retry,dyngc,dyngc-partitioned,dyngc-levels,dyngc-narrow"
    )]
    pub methods: Vec<String>,
    /// Retry: every stage buffer starts at this many times the items of the workload's input
    /// (triangle: elements, bfs: vertices; tree: none), at least `--retry-min-items`.
    #[arg(long, default_value_t = 2)]
    pub retry_factor: u64,
    /// dyngc: the window of each stream output, in elements (compact, tessellate); default the
    /// runtime's (twice the most one unit emits per lane in flight, at least 2^20).
    #[arg(long)]
    pub stream_capacity: Option<u64>,
    /// dyngc: lanes per worker of every example's build (`dyngc build --lanes`: 64, 128 or 256);
    /// an example with wide stages or workgroup memory (row_sum) cannot have more than 64.
    #[arg(long, default_value_t = dyngc_compiler::DEFAULT_LANES)]
    pub lanes: u32,
    /// dyngc: launches per submission; default the manifest's (`executor.defaults.chain_length`).
    #[arg(long)]
    pub chain_length: Option<u32>,
    /// dyngc: the most workgroups one dispatch of the partitioned schedule launches; default no
    /// cap (what `dyngc run` uses on a GPU; on a CPU device it passes two per host thread).
    #[arg(long)]
    pub dispatch_groups: Option<u32>,
    /// dyngc: the most frames each queue of a one-lane dispatched stage holds; default every
    /// frame the arena gives it (what `dyngc run` uses on a GPU; on a CPU device it passes 1).
    #[arg(long)]
    pub queue_frames: Option<u32>,
    /// dyngc: ring slots (a power of two, at least the manifest's `min_ring_slots`), the workers
    /// getting what the ring leaves; default the runtime's split (docs/manifest.md, "The
    /// arena"). An arena too small for the ring is an error.
    #[arg(long)]
    pub ring_slots: Option<u32>,
    /// dyngc: frames of each worker's stack reserve: a number (from the manifest's
    /// `min_stack_frames` to `stack_frames`), `min` or `max` (those of each case's build);
    /// default the runtime's rule (the reserves' share spread over the workers).
    #[arg(long, value_parser = parse_stack_frames)]
    pub stack_frames: Option<StackFrames>,
    /// Retry: the smallest starting capacity of a stage buffer, in items.
    #[arg(long, default_value_t = 65536)]
    pub retry_min_items: u64,
    /// Wall time only, even where the device has GPU timestamps.
    #[arg(long)]
    pub no_timestamps: bool,
    /// Keep the GPU busy at least this many milliseconds before each repetition (untimed), and
    /// then until its clock is back: a warm-up dispatch as fast as the fastest seen, which a
    /// first warm-up of a second measures (bench/h200/run.sh: 100; 0: no warm-up). Meant for
    /// discrete GPUs: on a CPU device (SwiftShader) one warm-up dispatch takes about a second.
    #[arg(long, default_value_t = 0)]
    pub warm_ms: u64,
    /// dyngc: give up on a run after this many seconds (recorded as an error, not a time).
    #[arg(long, default_value_t = 60.0)]
    pub timeout_s: f64,
    /// Triangle: mean children per element.
    #[arg(long, default_value_t = 1000)]
    pub mean_children: u64,
    /// Output JSON file.
    #[arg(long)]
    pub out: PathBuf,
    /// Free text recorded with the results (the command line is recorded too).
    #[arg(long, default_value = "")]
    pub note: String,
    /// `EXAMPLE=FILE`, repeatable: the example's megakernel build (method `dyngc`, or
    /// `dyngc-levels` / `dyngc-narrow` for theirs) runs this WGSL in place of the one it compiles
    /// to (its manifest is kept; the partitioned build is left alone): hand-edited executor
    /// variants, timed on a device without a toolchain. Recorded with the results (the command
    /// line).
    #[arg(long = "wgsl", value_parser = parse_wgsl_override)]
    pub wgsl: Vec<(String, String)>,
    /// The `--wgsl` kernels' outputs are not checked against the reference: for timing a hand
    /// edit that knowingly writes wrong outputs, the floor of a cost it removes (each record's
    /// `extra.verified` says false). Compiled kernels are always checked.
    #[arg(long)]
    pub unverified: bool,
}

/// Median and range of a set of repetitions.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(times: &[f64]) -> Option<Spread> {
        let mut t = times.to_vec();
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = t.len();
        (n > 0).then(|| Spread {
            median: if n % 2 == 1 {
                t[n / 2]
            } else {
                (t[n / 2 - 1] + t[n / 2]) / 2.0
            },
            min: t[0],
            max: t[n - 1],
        })
    }
}

/// One method on one case: its repetitions and what the schedule did. (Fields missing from
/// older result files read as their defaults.)
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Record {
    pub workload: String,
    pub case: String,
    /// Work units of the case (children, nodes, edges scanned, collatz steps).
    pub units: u64,
    pub method: String,
    pub arena_bytes: Option<u64>,
    pub workers: Option<u32>,
    /// Wall clock per repetition, and its spread.
    pub times_s: Vec<f64>,
    pub median_s: f64,
    pub min_s: f64,
    pub max_s: f64,
    /// GPU timestamps per repetition (summed over the submissions), and their spread; empty and
    /// None where the device has no timestamps (and for the CPU).
    pub gpu_times_s: Vec<f64>,
    pub gpu: Option<Spread>,
    /// Device memory the schedule allocated at its peak (inputs and outputs included).
    pub peak_bytes: u64,
    /// Units over the GPU median where there is one, else over the wall median.
    pub units_per_s: f64,
    /// Retry: attempts that overflowed and were run again with doubled buffers.
    pub reruns: u64,
    /// Submissions after the first (dyngc), host round trips (expand: one per level; retry: one
    /// per attempt, bfs one per batch of levels).
    pub relaunches: u64,
    /// dyngc: spawns that found the ring full and ran serially.
    pub fallbacks: u64,
    /// dyngc: launches of the main entry point; baselines: dispatches.
    pub launches: u64,
    pub error: Option<String>,
    pub extra: serde_json::Value,
}

#[derive(Serialize, Deserialize)]
pub struct Results {
    pub meta: serde_json::Value,
    pub records: Vec<Record>,
}

fn main() {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run(args) => {
            let results = work::run_all(&args);
            work::save(&args.out, &results);
            eprintln!("wrote {}", args.out.display());
        }
        Cmd::Plot { inputs, out } => {
            let records = load(&inputs);
            std::fs::create_dir_all(&out).ok();
            for p in plot::plot_all(&records, &out) {
                eprintln!("wrote {}", p.display());
            }
        }
        Cmd::Table { inputs } => print!("{}", plot::table(&load(&inputs))),
    }
}

fn load(inputs: &[PathBuf]) -> Vec<(String, Record)> {
    let mut out = Vec::new();
    for p in inputs {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let r: Results = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let device = r.meta["device"].as_str().unwrap_or("?").to_string();
        out.extend(r.records.into_iter().map(|rec| (device.clone(), rec)));
    }
    out
}

/// `EXAMPLE=FILE` to the example and the file's text, read while the arguments are parsed.
/// `--stack-frames`: a reserve for every case, or each build's least or most.
#[derive(Clone, Copy, Debug)]
pub enum StackFrames {
    Frames(u32),
    Min,
    Max,
}

fn parse_stack_frames(s: &str) -> Result<StackFrames, String> {
    match s {
        "min" => Ok(StackFrames::Min),
        "max" => Ok(StackFrames::Max),
        _ => s
            .parse()
            .map(StackFrames::Frames)
            .map_err(|_| format!("expected a number of frames, `min` or `max` (got `{s}`)")),
    }
}

fn parse_wgsl_override(s: &str) -> Result<(String, String), String> {
    let (example, file) = s
        .split_once('=')
        .ok_or("expected EXAMPLE=FILE, e.g. collatz=variant.wgsl")?;
    if !dynrun::EXAMPLES.iter().any(|(name, _)| *name == example) {
        let names: Vec<&str> = dynrun::EXAMPLES.iter().map(|(name, _)| *name).collect();
        return Err(format!("no example `{example}` (the bench's: {})", names.join(", ")));
    }
    let wgsl = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    Ok((example.to_string(), wgsl))
}
