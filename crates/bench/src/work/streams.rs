//! Stream outputs, whose size the data decides: `compact` and `tessellate`.

use super::*;

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
pub(super) fn compact(ctx: &Ctx, count: u64) -> Vec<Record> {
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
pub(super) fn tessellate(ctx: &Ctx, count: u64) -> Vec<Record> {
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
