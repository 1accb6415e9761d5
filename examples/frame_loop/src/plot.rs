//! The loop as a PNG: load, arena, fallbacks and time per frame, one panel each.

use crate::Report;
use plotters::prelude::*;
use std::path::Path;

/// TrueType fonts tried in order (plotters draws text through `ab_glyph`, which needs one).
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
];

fn register_font() -> Result<(), String> {
    for f in FONTS {
        if let Ok(bytes) = std::fs::read(f) {
            // plotters keeps registered fonts for the whole process.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return Ok(());
            }
        }
    }
    Err(format!(
        "no TrueType font to label the plot (looked at {}; Debian: fonts-dejavu-core)",
        FONTS.join(", ")
    ))
}

/// One panel: a log-scale series (or two) over the frames.
struct Panel<'a> {
    title: &'a str,
    unit: &'a str,
    series: Vec<(&'a str, RGBColor, Vec<f64>)>,
}

/// Writes the plot to `path`.
pub fn plot(report: &Report, path: &Path) -> Result<(), String> {
    register_font()?;
    draw(report, path).map_err(|e| format!("drawing {}: {e}", path.display()))
}

fn draw(report: &Report, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let f = &report.frames;
    let kib = |b: u64| b as f64 / 1024.0;
    let panels = [
        Panel {
            title: "load: tree nodes per frame",
            unit: "nodes",
            series: vec![("nodes", BLACK, f.iter().map(|r| r.tree.nodes as f64).collect())],
        },
        Panel {
            title: "arena of the frame's run (policy) and bytes it used",
            unit: "KiB",
            series: vec![
                ("arena", BLUE, f.iter().map(|r| kib(r.arena_bytes)).collect()),
                ("used", GREEN, f.iter().map(|r| kib(r.used_bytes)).collect()),
            ],
        },
        Panel {
            title: "fallback spawns (+1): spawns that found the ring full",
            unit: "spawns",
            series: vec![(
                "fallbacks",
                RED,
                f.iter().map(|r| r.fallback_spawns as f64 + 1.0).collect(),
            )],
        },
        Panel {
            title: "time: submission to result seen by the frame loop",
            unit: "ms",
            series: vec![(
                "latency",
                MAGENTA,
                f.iter().map(|r| r.latency.as_secs_f64() * 1e3).collect(),
            )],
        },
    ];
    let root = BitMapBackend::new(path, (1100, 1300)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(40);
    top.draw(&Text::new(
        format!(
            "frame_loop: {} frames of examples/tree.dyn on {}",
            f.len(),
            report.adapter
        ),
        (15, 10),
        ("sans-serif", 20),
    ))?;
    let last = f.last().map_or(1, |r| r.frame + 1) as f64;
    for (area, panel) in body.split_evenly((panels.len(), 1)).iter().zip(&panels) {
        let values = panel.series.iter().flat_map(|(_, _, v)| v.iter().copied());
        let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        let (lo, hi) = if lo > hi {
            (1.0, 10.0)
        } else {
            (lo.max(1e-3) / 1.5, hi * 1.5)
        };
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..last, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("frame")
            .y_desc(format!("{} (log)", panel.unit))
            .label_style(("sans-serif", 12))
            .draw()?;
        for (name, color, values) in &panel.series {
            let color = *color;
            chart
                .draw_series(LineSeries::new(
                    f.iter().zip(values).map(|(r, v)| (r.frame as f64, *v)),
                    color.stroke_width(2),
                ))?
                .label(*name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
