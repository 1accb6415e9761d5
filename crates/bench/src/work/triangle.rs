//! `triangle`: a fan-out of data-dependent width.

use super::*;

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

pub(super) fn triangle(ctx: &Ctx, sum: u64) -> Vec<Record> {
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
}
