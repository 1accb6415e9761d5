//! Memory-against-time plots (one PNG per workload and device) and the Markdown table.

use crate::Record;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
];

fn register_font() -> bool {
    for f in FONTS {
        if let Ok(bytes) = std::fs::read(f) {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return true;
            }
        }
    }
    false
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

pub fn plot_all(records: &[(String, Record)], out: &Path) -> Vec<PathBuf> {
    assert!(register_font(), "no TrueType font found (looked at {FONTS:?})");
    let mut keys: Vec<(String, String)> = records.iter().map(|(d, r)| (r.workload.clone(), d.clone())).collect();
    keys.sort();
    keys.dedup();
    let mut written = Vec::new();
    for (workload, device) in keys {
        let rs: Vec<&Record> = records
            .iter()
            .filter(|(d, r)| {
                d == &device && r.workload == workload && r.error.is_none() && r.peak_bytes > 0 && r.median_s > 0.0
            })
            .map(|(_, r)| r)
            .collect();
        if rs.is_empty() {
            continue;
        }
        let path = out.join(format!("{}-{}.png", workload, slug(&device)));
        if let Err(e) = plot_one(&path, &workload, &device, &rs) {
            eprintln!("{}: {e}", path.display());
            continue;
        }
        written.push(path);
    }
    written
}

fn plot_one(path: &Path, workload: &str, device: &str, rs: &[&Record]) -> Result<(), Box<dyn std::error::Error>> {
    // GPU timestamps if every point has them, else the wall clock for all.
    let gpu = rs.iter().all(|r| r.gpu.is_some());
    let time = |r: &Record| r.gpu.as_ref().filter(|_| gpu).map_or(r.median_s, |g| g.median);
    let xs = rs.iter().map(|r| r.peak_bytes as f64 / 1048576.0);
    let ys = rs.iter().map(|r| time(r));
    let (x0, x1) = xs.fold((f64::MAX, 0f64), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::MAX, 0f64), |(a, b), y| (a.min(y), b.max(y)));
    let root = BitMapBackend::new(path, (1000, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{workload}: peak device memory vs time ({device})"),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 / 2.0..x1 * 2.0).log_scale(), (y0 / 2.0..y1 * 2.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("peak device memory allocated by the schedule (MiB, log)")
        .y_desc(if gpu {
            "median GPU time, timestamps (s, log)"
        } else {
            "median wall time (s, log)"
        })
        .label_style(("sans-serif", 14))
        .draw()?;
    let mut cases: Vec<&str> = rs.iter().map(|r| r.case.as_str()).collect();
    cases.dedup();
    let style = |m: &str| match m {
        "static" => BLACK,
        "expand" => RED,
        "retry" => RGBColor(0, 150, 0),
        "dyngc-levels" => RGBColor(170, 0, 200),
        _ => BLUE,
    };
    for m in ["static", "expand", "retry", "dyngc", "dyngc-levels"] {
        let mut first = true;
        for case in &cases {
            let mut pts: Vec<(f64, f64, Option<u64>)> = rs
                .iter()
                .filter(|r| r.method == m && r.case == *case)
                .map(|r| (r.peak_bytes as f64 / 1048576.0, time(r), r.arena_bytes))
                .collect();
            if pts.is_empty() {
                continue;
            }
            pts.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
            let color = style(m);
            let series = chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), color.stroke_width(2)))?;
            if first {
                series
                    .label(if m == "dyngc" {
                        "dyngc (one line per size, arena min -> large)".to_string()
                    } else if m == "dyngc-levels" {
                        "dyngc-levels: bfs_levels.dyn (one line per size, arena min -> large)".to_string()
                    } else {
                        m.to_string()
                    })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
                first = false;
            }
            chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, color.filled())))?;
            let last = pts[pts.len() - 1];
            let label = if m == "dyngc" {
                case.to_string()
            } else if m == "dyngc-levels" {
                format!("levels {case}")
            } else {
                format!("{m} {case}")
            };
            chart.draw_series(std::iter::once(Text::new(
                label,
                (last.0 * 1.08, last.1),
                ("sans-serif", 12).into_font().color(&color),
            )))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()?;
    root.present()?;
    Ok(())
}

fn bytes(b: u64) -> String {
    dyngc_runtime::format_bytes(b)
}

/// The table: wall clock for every method; GPU timestamps (summed over the method's submissions)
/// where the device had them; units/s from the GPU time where given, else the wall time.
pub fn table(records: &[(String, Record)]) -> String {
    let mut s = String::from(
        "| device | workload | case | method | arena | wall median s | wall min–max s | GPU median s | GPU min–max s | peak memory | units/s | re-runs | relaunches | fallbacks | launches |\n|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (d, r) in records {
        if let Some(e) = &r.error {
            let e: String = e
                .chars()
                .take(140)
                .collect::<String>()
                .replace('|', "/")
                .replace('\n', " ");
            s += &format!(
                "| {d} | {} | {} | {} | {} | — | — | — | — | — | — | — | — | — | error: {e} |\n",
                r.workload,
                r.case,
                r.method,
                r.arena_bytes.map_or("".into(), bytes)
            );
            continue;
        }
        s += &format!(
            "| {d} | {} | {} | {} | {} | {:.4} | {:.4}–{:.4} | {} | {} | {} | {:.3e} | {} | {} | {} | {} |\n",
            r.workload,
            r.case,
            r.method,
            r.arena_bytes.map_or(String::new(), bytes),
            r.median_s,
            r.min_s,
            r.max_s,
            r.gpu.as_ref().map_or("—".into(), |g| format!("{:.4}", g.median)),
            r.gpu
                .as_ref()
                .map_or("—".into(), |g| format!("{:.4}–{:.4}", g.min, g.max)),
            if r.method == "cpu" {
                "host".to_string()
            } else {
                bytes(r.peak_bytes)
            },
            r.units_per_s,
            r.reruns,
            r.relaunches,
            r.fallbacks,
            r.launches
        );
    }
    s
}
