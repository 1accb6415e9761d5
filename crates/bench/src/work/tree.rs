//! `tree`: bounded recursion over an implicit random tree.

use super::*;

const TREE_CHILDREN: u32 = 4;

/// (seed, max_depth) whose tree (max_children 4) has a node count closest to `target`.
fn tree_params(target: u64) -> (u32, u32, u64) {
    let dmax = ((target as f64).log2().ceil() as u32 + 2).min(24);
    let best = (0u32..16)
        .into_par_iter()
        .map(|seed| {
            let per = reference::tree(seed, dmax, TREE_CHILDREN);
            let mut acc = 0u64;
            let mut best = (f64::MAX, 0, 0);
            for (d, &c) in per.iter().enumerate().take(dmax as usize + 1) {
                acc += c as u64;
                let err = ((acc as f64).ln() - (target as f64).ln()).abs();
                if err < best.0 {
                    best = (err, d as u32, acc);
                }
            }
            (best.0, seed, best.1, best.2)
        })
        .reduce(
            || (f64::MAX, 0, 0, 0),
            |a, b| if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a },
        );
    (best.1, best.2, best.3)
}

fn tree_cpu(seed: u32, max_depth: u32) -> Vec<u32> {
    // Serial down to a wide enough frontier, then one subtree per task.
    let mut per = [0u32; 25];
    let mut frontier = vec![0u32];
    let mut depth = 0u32;
    while frontier.len() < 256 && depth < max_depth && !frontier.is_empty() {
        let mut next = Vec::new();
        for &id in &frontier {
            per[depth as usize] += 1;
            next.extend(reference::tree_children(seed, id, TREE_CHILDREN));
        }
        frontier = next;
        depth += 1;
    }
    let rest = frontier
        .par_iter()
        .map(|&root| {
            let mut per = vec![0u32; 25];
            let mut stack = vec![(root, depth)];
            while let Some((id, d)) = stack.pop() {
                per[d as usize] += 1;
                if d < max_depth {
                    stack.extend(reference::tree_children(seed, id, TREE_CHILDREN).map(|c| (c, d + 1)));
                }
            }
            per
        })
        .reduce(|| vec![0u32; 25], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect());
    per.iter().zip(&rest).map(|(x, y)| x + y).collect()
}

pub(super) fn tree(ctx: &Ctx, target: u64) -> Vec<Record> {
    let (g, k) = (ctx.g, ctx.k);
    let (seed, max_depth, nodes) = tree_params(target);
    let case = format!("nodes={:.0e}", target as f64);
    eprintln!("  tree: seed {seed}, max_depth {max_depth}, max_children {TREE_CHILDREN}: {nodes} nodes");
    let want = reference::tree(seed, max_depth, TREE_CHILDREN);
    let mut recs = Vec::new();
    let reps = ctx.args.reps;
    let extra =
        serde_json::json!({ "seed": seed, "max_depth": max_depth, "max_children": TREE_CHILDREN, "nodes": nodes });

    if ctx.wants("cpu") {
        recs.push(measure("tree", &case, nodes, "cpu", reps, || {
            let t = Instant::now();
            let got = tree_cpu(seed, max_depth);
            let secs = t.elapsed().as_secs_f64();
            check("per_depth", &got, &want)?;
            Ok(Sample {
                secs,
                extra: extra.clone(),
                ..Default::default()
            })
        }));
    }
    let params = [seed, max_depth, TREE_CHILDREN];

    if ctx.wants("static") {
        // The whole node list, known in advance.
        let mut list: Vec<u32> = Vec::with_capacity(2 * nodes as usize);
        let mut level = vec![0u32];
        for d in 0..=max_depth {
            let mut next = Vec::new();
            for &id in &level {
                list.extend_from_slice(&[id, d]);
                if d < max_depth {
                    next.extend(reference::tree_children(seed, id, TREE_CHILDREN));
                }
            }
            level = next;
        }
        let list_bytes = words_bytes(&list);
        recs.push(measure("tree", &case, nodes, "static", reps, || {
            let mem = Mem::default();
            let nb = g.upload(&mem, "nodes", &list_bytes)?;
            let per = g.buffer(&mem, "per_depth", 100)?;
            let p = g.uniform(&[nodes as u32, 0, max_depth, seed, TREE_CHILDREN]);
            let out = ("per_depth", &per, &want[..]);
            let s = one_dispatch(g, &mem, k.get("tree_static"), &[&nb, &per, &p], nodes, out)?;
            Ok(Sample {
                extra: extra.clone(),
                ..s
            })
        }));
    }

    if ctx.wants("expand") {
        recs.push(measure("tree", &case, nodes, "expand", reps, || {
            let mem = Mem::default();
            let per = g.buffer(&mem, "per_depth", 100)?;
            let mut ids = g.upload(&mem, "level 0", &words_bytes(&[0]))?;
            let t = g.start();
            let (mut m, mut depth, mut round_trips, mut dispatches) = (1u64, 0u32, 0u64, 0u64);
            loop {
                let counts = g.buffer(&mem, "counts", 4 * (m + 1))?;
                let p = g.uniform(&[m as u32, depth, max_depth, seed, TREE_CHILDREN]);
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("tree_count"), &[&ids, &counts, &per, &p], m);
                dispatches += 1;
                if depth == max_depth {
                    g.submit_wait(enc);
                    free_all(&mem, vec![ids, counts]);
                    break;
                }
                let temps = scan(g, k, &mem, &mut enc, &counts, m + 1)?;
                dispatches += 2 * temps.len() as u64 - 1;
                let total = g.read(&counts, 4 * m, 4, Some(enc))[0] as u64;
                round_trips += 1;
                free_all(&mem, temps);
                if total == 0 {
                    free_all(&mem, vec![ids, counts]);
                    break;
                }
                let next = g.buffer(&mem, "next level", 4 * total)?;
                let mut enc = g.encoder();
                g.dispatch(&mut enc, k.get("tree_write"), &[&ids, &counts, &next, &p], m);
                dispatches += 1;
                g.submit(enc);
                free_all(&mem, vec![ids, counts]);
                ids = next;
                m = total;
                depth += 1;
            }
            levels_done(
                g,
                &mem,
                t,
                ("per_depth", &per, &want),
                (round_trips, dispatches),
                &extra,
            )
        }));
    }

    if ctx.wants("retry") {
        recs.push(measure("tree", &case, nodes, "retry", reps, || {
            let mem = Mem::default();
            let per = g.buffer(&mem, "per_depth", 100)?;
            // No input data: the fixed minimum.
            let caps = vec![ctx.retry_initial(0)];
            let attempt = |_: u64, caps: &[u64]| {
                let cap = caps[0] as u32;
                // bump: count and overflow of level buffer 0, then of level buffer 1.
                let bm = Bump::new(g, &mem, 2, "level")?;
                let ids = [
                    g.buffer(&mem, "level ids", 4 * caps[0])?,
                    g.buffer(&mem, "level ids", 4 * caps[0])?,
                ];
                // Level 0: the root, id 0 (the buffer is zeroed).
                g.queue.write_buffer(&bm.words, 0, &words_bytes(&[1]));
                let mut enc = g.encoder();
                enc.clear_buffer(&per, 0, None);
                for d in 0..=max_depth {
                    let (i, o) = ((d % 2) as usize, 1 - (d % 2) as usize);
                    enc.clear_buffer(&bm.words, 8 * o as u64, Some(4));
                    let p = [cap, d, max_depth, seed, TREE_CHILDREN, 2 * i as u32, 2 * o as u32, cap];
                    let bind = [&ids[i], &ids[o], &bm.words, &per, &bm.params];
                    retry_stage(g, k, &mut enc, &bm, &p, "tree_grow", &bind);
                }
                let w = g.read(&bm.words, 0, 16, Some(enc));
                bm.free(&mem, Vec::from(ids));
                Ok(Attempt {
                    overflow: vec![w[1] != 0 || w[3] != 0],
                    round_trips: 1,
                    dispatches: 2 * (max_depth as u64 + 1),
                })
            };
            let s = retry(g, &mem, caps, attempt, ("per_depth", &per, &want))?;
            Ok(Sample {
                extra: merge(&extra, s.extra.clone()),
                ..s
            })
        }));
    }

    let verify = |out: &[(String, Vec<u8>)]| check("per_depth", &words(&out[0].1), &want);
    ctx.dyngc(
        &mut recs,
        "tree",
        &case,
        nodes,
        &[],
        &[
            ("seed", params[0]),
            ("max_depth", params[1]),
            ("max_children", params[2]),
        ],
        &verify,
    );
    recs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_cpu_matches_reference() {
        assert_eq!(tree_cpu(3, 12), reference::tree(3, 12, TREE_CHILDREN));
    }
}
