//! `collatz`: a tail loop with `become`.

use super::*;

pub(super) fn collatz(ctx: &Ctx, count: u64) -> Vec<Record> {
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
