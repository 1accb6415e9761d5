//! `row_sum`: a one-lane stage handing long rows to a `@width(32)` stage.

use super::bfs::kronecker;
use super::*;

/// `examples/row_sum.dyn` on the rows of a Graph500 Kronecker graph's adjacency matrix (`kronN`:
/// a few very long rows and many short ones), entries a hash of their position. There is no
/// static or expand baseline: the comparison is the wide stage inside the megakernel against
/// the same stage as its own 32-lane dispatch (`dyngc-partitioned`).
pub(super) fn row_sum(ctx: &Ctx, spec: &str) -> Vec<Record> {
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
