//! `dyngc-bench`: dyngc against expand-everything, the static limit and the CPU, on the shipped
//! examples. Every GPU result is checked against the CPU reference before its time is recorded.
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
    about = "Benchmarks dyngc against expand-everything, the static limit and the CPU"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Runs benchmark cases and writes one JSON file.
    Run(RunArgs),
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
    /// bfs:kron14 / bfs:path1e5 / bfs:star1e5, collatz:1e6 (inputs).
    #[arg(long = "case", required = true)]
    pub cases: Vec<String>,
    /// Repetitions per method (median and spread are reported).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// wgpu backend: vulkan, gl, metal, dx12; empty = WGPU_BACKEND or all.
    #[arg(long, default_value = "")]
    pub backend: String,
    /// dyngc arena sizes: `min` (the manifest's minimum), `xN` (N times it), `expand` (twice the
    /// expand baseline's peak), or a size such as 64M.
    #[arg(long, value_delimiter = ',', default_value = "min,x16,x256,expand")]
    pub arenas: Vec<String>,
    /// dyngc workers (persistent workgroups); default: the manifest's.
    #[arg(long)]
    pub workers: Option<u32>,
    /// Methods to run: cpu, static, expand, dyngc.
    #[arg(long, value_delimiter = ',', default_value = "cpu,static,expand,dyngc")]
    pub methods: Vec<String>,
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
}

/// One method on one case: its repetitions and what the schedule did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Record {
    pub workload: String,
    pub case: String,
    /// Work units of the case (children, nodes, edges scanned, collatz steps).
    pub units: u64,
    pub method: String,
    pub arena_bytes: Option<u64>,
    pub workers: Option<u32>,
    pub times_s: Vec<f64>,
    pub median_s: f64,
    pub min_s: f64,
    pub max_s: f64,
    /// Device memory the schedule allocated at its peak (inputs and outputs included).
    pub peak_bytes: u64,
    pub units_per_s: f64,
    /// Submissions after the first (dyngc), host round trips (expand: one per level).
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
