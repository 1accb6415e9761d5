//! `cargo run --release -p frame_loop -- --out out/frame_loop`: runs the frame loop, prints one
//! line per frame and a summary, writes `frames.csv` and `frame_loop.png` into `--out`. Exits
//! with 1 when a frame's result differs from the CPU reference or a frame waited on the GPU.

use clap::Parser;
use dyngc_runtime::{format_bytes, open_gpu, parse_size, PolicyConfig};
use frame_loop::{Config, FrameRecord, Report};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    about = "A frame loop whose tree workload swings 100x; the arena follows it from asynchronously polled usage"
)]
struct Args {
    /// Directory for frames.csv and frame_loop.png (created if missing).
    #[arg(long, default_value = "out/frame_loop")]
    out: PathBuf,
    #[arg(long, default_value_t = 300)]
    frames: usize,
    /// Tree size (nodes) of the calm frames.
    #[arg(long, default_value_t = 200)]
    min_nodes: u64,
    /// Tree size (nodes) of the peak frames.
    #[arg(long, default_value_t = 20_000)]
    max_nodes: u64,
    /// Frames in flight before the loop holds the next one back.
    #[arg(long, default_value_t = 3)]
    in_flight: usize,
    /// Largest arena the policy may pick (e.g. 16MiB).
    #[arg(long, default_value = "16MiB", value_parser = parse_size)]
    ceiling: u64,
    /// Calm runs in a row before the policy shrinks the arena.
    #[arg(long, default_value_t = 8)]
    shrink_after: u32,
}

fn row(r: &FrameRecord) -> String {
    format!(
        "{:>5} {:>8} {:>5} {:>11} {:>7} {:>7} {:>10} {:>7} {:>9} {:>4} {:>9.1} {:>5}  {}",
        r.frame,
        r.tree.nodes,
        r.tree.max_depth,
        format_bytes(r.arena_bytes),
        r.workers,
        r.ring_slots,
        format_bytes(r.used_bytes),
        r.ring_high_water,
        r.fallback_spawns,
        r.submissions,
        r.latency.as_secs_f64() * 1e3,
        r.resolved_in,
        if r.mismatch.is_none() { "ok" } else { "WRONG" }
    )
}

const HEADER: &str =
    "frame    nodes depth       arena workers    ring       used ring_hw fallbacks subs   time ms  seen  check";

fn write_csv(report: &Report, path: &std::path::Path) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "frame,seed,max_depth,nodes,arena_bytes,workers,ring_slots,used_bytes,ring_high_water,fallback_spawns,launches,submissions,latency_ms,resolved_in,correct"
    )?;
    for r in &report.frames {
        writeln!(
            f,
            "{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{},{}",
            r.frame,
            r.tree.seed,
            r.tree.max_depth,
            r.tree.nodes,
            r.arena_bytes,
            r.workers,
            r.ring_slots,
            r.used_bytes,
            r.ring_high_water,
            r.fallback_spawns,
            r.launches,
            r.submissions,
            r.latency.as_secs_f64() * 1e3,
            r.resolved_in,
            r.mismatch.is_none()
        )?;
    }
    f.flush()
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, String> {
    if args.frames == 0 || args.in_flight == 0 || args.min_nodes == 0 || args.max_nodes < args.min_nodes {
        return Err("need --frames and --in-flight of at least 1 and 1 <= --min-nodes <= --max-nodes".into());
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("creating {}: {e}", args.out.display()))?;
    let gpu = pollster::block_on(open_gpu()).map_err(|e| e.to_string())?;
    let config = Config {
        frames: args.frames,
        min_nodes: args.min_nodes,
        max_nodes: args.max_nodes,
        max_in_flight: args.in_flight,
        policy: PolicyConfig {
            shrink_after: args.shrink_after,
            ..PolicyConfig::new(0, args.ceiling)
        },
        timeout: Duration::from_secs(1800),
    };
    println!("{HEADER}");
    let report = frame_loop::run(&gpu, &config, |r| println!("{}", row(r)))?;
    for r in report.frames.iter().filter(|r| r.mismatch.is_some()) {
        println!("frame {}: {}", r.frame, r.mismatch.as_deref().unwrap_or_default());
    }

    let f = &report.frames;
    let arena = |pick: fn(u64, u64) -> u64| f.iter().map(|r| r.arena_bytes).reduce(pick).unwrap_or(0);
    let nodes = |pick: fn(u64, u64) -> u64| f.iter().map(|r| r.tree.nodes).reduce(pick).unwrap_or(0);
    let wrong = f.iter().filter(|r| r.mismatch.is_some()).count();
    println!();
    println!("adapter: {}", report.adapter);
    println!(
        "{} frames, {} correct, {wrong} wrong; load {}..{} nodes ({:.0}x)",
        f.len(),
        f.len() - wrong,
        nodes(u64::min),
        nodes(u64::max),
        nodes(u64::max) as f64 / nodes(u64::min).max(1) as f64
    );
    println!(
        "arena {}..{}; fallback spawns {} in all, in {} frames",
        format_bytes(arena(u64::min)),
        format_bytes(arena(u64::max)),
        f.iter().map(|r| r.fallback_spawns).sum::<u64>(),
        f.iter().filter(|r| r.fallback_spawns > 0).count()
    );
    println!(
        "time per frame (submission to result) {:.1}..{:.1} ms, median {:.1} ms; longest time inside a frame {:.2} ms; wall {:.1} s",
        f.iter().map(|r| r.latency.as_secs_f64() * 1e3).fold(f64::MAX, f64::min),
        f.iter().map(|r| r.latency.as_secs_f64() * 1e3).fold(0.0, f64::max),
        {
            let mut l: Vec<f64> = f.iter().map(|r| r.latency.as_secs_f64() * 1e3).collect();
            l.sort_by(f64::total_cmp);
            l.get(l.len() / 2).copied().unwrap_or(0.0)
        },
        report.longest_frame.as_secs_f64() * 1e3,
        report.wall.as_secs_f64()
    );
    println!(
        "blocking waits on the GPU: {} inside frames, {} in all",
        report.waits_in_frames, report.waits_total
    );
    let csv = args.out.join("frames.csv");
    write_csv(&report, &csv).map_err(|e| format!("writing {}: {e}", csv.display()))?;
    let png = args.out.join("frame_loop.png");
    frame_loop::plot::plot(&report, &png)?;
    println!("wrote {} and {}", csv.display(), png.display());
    Ok(wrong == 0 && report.waits_in_frames == 0)
}
