//! `bfs`: a keyed worklist over Graph500 Kronecker graphs, paths and stars.

use super::*;

/// [`reference::kronecker`], its chunks drawn in parallel.
pub(super) fn kronecker(scale: u32, edge_factor: u64, seed: u64) -> reference::Csr {
    let edges: Vec<(u32, u32)> = (0..reference::KRONECKER_CHUNKS)
        .into_par_iter()
        .flat_map_iter(|ch| reference::kronecker_chunk(scale, edge_factor, seed, ch))
        .collect();
    reference::kronecker_csr(scale, seed, &edges)
}

/// Retry: bfs levels recorded per submission; the host reads the counts and overflow flags
/// after each batch (a frontier's end is found only there).
const BFS_BATCH: u32 = 16;

pub(super) fn bfs(ctx: &Ctx, spec: &str) -> Vec<Record> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_kronecker_is_the_reference() {
        assert_eq!(kronecker(8, 16, 1), reference::kronecker(8, 16, 1));
    }
}
