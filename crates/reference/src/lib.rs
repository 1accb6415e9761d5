//! Plain CPU implementations of the shipped examples, written from their specifications (not
//! from the `.dyn` files or the executor), plus deterministic input generators. GPU tests compare
//! the megakernel's outputs against these.

/// `examples/triangle.dyn`: `sums[i] = n[i] * (n[i] + 1) / 2` modulo 2^32.
pub fn triangle(n: &[u32]) -> Vec<u32> {
    n.iter()
        .map(|&v| ((v as u64 * (v as u64 + 1) / 2) % (1 << 32)) as u32)
        .collect()
}

/// `examples/collatz.dyn`: steps until the value reaches 1 (x >= 1), with wrapping `3x + 1`
/// as the u32 kernel computes it.
pub fn collatz(x: &[u32]) -> Vec<u32> {
    x.iter().map(|&v| collatz_walk(v).count() as u32).collect()
}

/// The values of one collatz walk from `start` before it reaches 1 (`start` itself first,
/// nothing when `start <= 1`): one per step, as `examples/collatz.dyn` takes them.
pub fn collatz_walk(start: u32) -> impl Iterator<Item = u32> {
    std::iter::successors(Some(start), |&v| {
        Some(if v % 2 == 0 {
            v / 2
        } else {
            v.wrapping_mul(3).wrapping_add(1)
        })
    })
    .take_while(|&v| v > 1)
}

/// The u32 PCG hash used by `examples/tree.dyn`.
pub fn pcg(x: u32) -> u32 {
    let s = x.wrapping_mul(747796405).wrapping_add(2891336453);
    let w = ((s >> ((s >> 28) + 4)) ^ s).wrapping_mul(277803737);
    (w >> 22) ^ w
}

/// `examples/tree.dyn`: nodes per depth (25 entries) of the implicit random tree.
pub fn tree(seed: u32, max_depth: u32, max_children: u32) -> Vec<u32> {
    let mut per_depth = vec![0u32; 25];
    // Explicit stack: the tree can be millions of nodes deep in total but only 25 levels.
    let mut stack = vec![(0u32, 0u32)];
    while let Some((id, depth)) = stack.pop() {
        per_depth[depth as usize] = per_depth[depth as usize].wrapping_add(1);
        if depth < max_depth {
            stack.extend(tree_children(seed, id, max_children).map(|c| (c, depth + 1)));
        }
    }
    per_depth
}

/// The ids of node `id`'s children in the tree of `seed` (`examples/tree.dyn`'s rule).
pub fn tree_children(seed: u32, id: u32, max_children: u32) -> impl Iterator<Item = u32> {
    let c = pcg(id ^ seed) % max_children.wrapping_add(1);
    (0..c).map(move |j| pcg(id.wrapping_add(j).wrapping_add(1)))
}

/// Number of nodes `tree` visits, for sizing benchmarks and tests.
pub fn tree_nodes(seed: u32, max_depth: u32, max_children: u32) -> u64 {
    tree(seed, max_depth, max_children).iter().map(|&c| c as u64).sum()
}

/// `tree(seed, max_depth, max_children)` with its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizedTree {
    pub seed: u32,
    pub max_depth: u32,
    pub nodes: u64,
    /// `tree`: nodes per depth.
    pub per_depth: Vec<u32>,
}

/// Searches `tree(seed, max_depth, max_children)` for one of about `target` nodes: the seeds in
/// the order given and, for each, the depths of `depths` in order until the tree has more than
/// twice `target` nodes or stops growing (deeper trees of a seed only get bigger). `Ok` with the
/// depth closest to `target` (by ratio) of the first seed with a size that `fits`; `Err` with the
/// closest tree seen when no seed has one.
pub fn tree_near(
    seeds: impl IntoIterator<Item = u32>,
    depths: std::ops::RangeInclusive<u32>,
    max_children: u32,
    target: u64,
    fits: impl Fn(u64) -> bool,
) -> Result<SizedTree, Option<SizedTree>> {
    let miss = |nodes: u64| (nodes as f64 / target as f64).ln().abs();
    let mut best: Option<SizedTree> = None;
    for seed in seeds {
        let mut closest: Option<SizedTree> = None;
        let mut fitted = false;
        for max_depth in depths.clone() {
            let per_depth = tree(seed, max_depth, max_children);
            let nodes: u64 = per_depth.iter().map(|&c| c as u64).sum();
            let last = nodes > 2 * target || per_depth[max_depth as usize] == 0;
            fitted |= fits(nodes);
            if closest.as_ref().is_none_or(|t| miss(nodes) < miss(t.nodes)) {
                closest = Some(SizedTree {
                    seed,
                    max_depth,
                    nodes,
                    per_depth,
                });
            }
            if last {
                break;
            }
        }
        match closest {
            Some(t) if fitted => return Ok(t),
            Some(t) if best.as_ref().is_none_or(|b| miss(t.nodes) < miss(b.nodes)) => best = Some(t),
            _ => {}
        }
    }
    Err(best)
}

/// The tree of frame `frame` in a frame loop whose load is `target` nodes: of seeds
/// `frame * 7919 + k` (k below 256, so distinct per frame) and depths 0..=24, the closest to
/// `target`, stopping at the first seed that comes within 20%.
pub fn frame_tree(frame: usize, target: u64, max_children: u32) -> SizedTree {
    let seeds = (0..256u32).map(|k| (frame as u32).wrapping_mul(7919).wrapping_add(k));
    let within = |nodes: u64| (nodes as f64 / target as f64).ln().abs() < 1.2f64.ln();
    tree_near(seeds, 0..=24, max_children, target, within)
        .unwrap_or_else(|closest| closest.expect("depth 0 always gives a tree"))
}

/// A load (in tree nodes) that swings from `min` up to `max` and back over a loop of frames.
/// Positions are fractions of the loop (0 its first frame, 1 its last): the load is `min` until
/// `rise_start`, rises to `max` over `rise_len`, stays there until `fall_end - fall_len`, and
/// falls back to `min` by `fall_end`. The rise lies in the first half, the fall in the second;
/// each is a raised cosine in log space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadCurve {
    pub min: u64,
    pub max: u64,
    pub rise_start: f64,
    pub rise_len: f64,
    pub fall_end: f64,
    pub fall_len: f64,
}

impl LoadCurve {
    /// The load of frame `frame` of `frames`.
    pub fn at(&self, frame: usize, frames: usize) -> u64 {
        let x = frame as f64 / (frames.max(2) - 1) as f64;
        let ramp = |t: f64| (1.0 - (std::f64::consts::PI * t.clamp(0.0, 1.0)).cos()) / 2.0;
        let shape = if x < 0.5 {
            ramp((x - self.rise_start) / self.rise_len)
        } else {
            ramp((self.fall_end - x) / self.fall_len)
        };
        let ratio = self.max as f64 / self.min as f64;
        (self.min as f64 * ratio.powf(shape)).round() as u64
    }
}

/// `examples/bfs.dyn`: hop distances from `source` over a CSR graph, `u32::MAX` where unreachable.
pub fn bfs(row_ptr: &[u32], col_idx: &[u32], source: u32) -> Vec<u32> {
    let v = row_ptr.len() - 1;
    let mut dist = vec![u32::MAX; v];
    let mut frontier = vec![source];
    dist[source as usize] = 0;
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        let mut next = Vec::new();
        for &u in &frontier {
            for &w in &col_idx[row_ptr[u as usize] as usize..row_ptr[u as usize + 1] as usize] {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = level;
                    next.push(w);
                }
            }
        }
        frontier = next;
    }
    dist
}

/// `examples/row_sum.dyn`: the sum of each CSR row's values, modulo 2^32.
pub fn row_sums(row_ptr: &[u32], val: &[u32]) -> Vec<u32> {
    row_ptr
        .windows(2)
        .map(|w| {
            val[w[0] as usize..w[1] as usize]
                .iter()
                .fold(0u32, |s, &v| s.wrapping_add(v))
        })
        .collect()
}

/// `examples/bfs_levels.dyn`: the level-synchronous rounds. Round `L` handles the vertices at
/// distance `L`; the loop ends after the first round that reaches no new vertex, so it runs one
/// round more than the largest finite distance.
pub fn bfs_levels_rounds(dist: &[u32]) -> u32 {
    dist.iter().filter(|&&d| d != u32::MAX).max().map_or(1, |&d| d + 1)
}

/// The whole rank of the graph in `examples/pagerank.dyn`'s fixed point.
pub const PAGERANK_TOTAL: u32 = 1 << 30;
/// `@max_rounds` of `examples/pagerank.dyn`.
pub const PAGERANK_MAX_ROUNDS: u32 = 100_000;

/// `examples/pagerank.dyn`: Jacobi iterations of fixed-point PageRank with damping 85/100, from
/// uniform ranks, until the total absolute change of a round is below `tolerance` or
/// `max_iterations` rounds ran (at least one). Returns the last round's ranks and the rounds.
pub fn pagerank(row_ptr: &[u32], col_idx: &[u32], tolerance: u32, max_iterations: u32) -> (Vec<u32>, u32) {
    let v = row_ptr.len() - 1;
    if v == 0 {
        return (Vec::new(), 1);
    }
    let degree = |u: usize| (row_ptr[u + 1] - row_ptr[u]).max(1);
    let uniform = PAGERANK_TOTAL / v as u32;
    let teleport = uniform * 15 / 100;
    let mut rank = vec![uniform; v];
    let mut rounds = 0;
    loop {
        let next: Vec<u32> = (0..v)
            .map(|x| {
                let gathered = col_idx[row_ptr[x] as usize..row_ptr[x + 1] as usize]
                    .iter()
                    .fold(0u32, |acc, &u| acc.wrapping_add(rank[u as usize] / degree(u as usize)));
                teleport + (gathered as u64 * 85 / 100) as u32
            })
            .collect();
        let moved: u64 = next.iter().zip(&rank).map(|(&a, &b)| a.abs_diff(b) as u64).sum();
        rank = next;
        rounds += 1;
        if moved < tolerance as u64 || rounds >= max_iterations || rounds >= PAGERANK_MAX_ROUNDS {
            return (rank, rounds);
        }
    }
}

/// A small deterministic generator (SplitMix64), so inputs need no extra crate and are the same
/// on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (bound > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

/// A CSR graph: `row_ptr` (V + 1 offsets) and `col_idx` (E neighbours).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    pub row_ptr: Vec<u32>,
    pub col_idx: Vec<u32>,
}

impl Csr {
    /// Builds a CSR from directed edges (sorted by source, then target; duplicates kept).
    pub fn from_edges(vertices: usize, mut edges: Vec<(u32, u32)>) -> Csr {
        edges.sort_unstable();
        let mut row_ptr = vec![0u32; vertices + 1];
        for &(u, _) in &edges {
            row_ptr[u as usize + 1] += 1;
        }
        for i in 0..vertices {
            row_ptr[i + 1] += row_ptr[i];
        }
        Csr {
            row_ptr,
            col_idx: edges.into_iter().map(|(_, v)| v).collect(),
        }
    }

    /// A random graph with `vertices` vertices and about `edges` undirected edges (both
    /// directions stored).
    pub fn random(vertices: usize, edges: usize, seed: u64) -> Csr {
        let mut rng = Rng::new(seed);
        let mut list = Vec::with_capacity(2 * edges);
        for _ in 0..edges {
            let u = rng.below(vertices as u64) as u32;
            let v = rng.below(vertices as u64) as u32;
            list.push((u, v));
            list.push((v, u));
        }
        Csr::from_edges(vertices, list)
    }

    /// A path 0 - 1 - ... - (n - 1), both directions.
    pub fn path(n: usize) -> Csr {
        let mut list = Vec::new();
        for i in 1..n as u32 {
            list.push((i - 1, i));
            list.push((i, i - 1));
        }
        Csr::from_edges(n, list)
    }

    /// A star: vertex 0 joined to every other vertex, both directions.
    pub fn star(n: usize) -> Csr {
        let mut list = Vec::new();
        for i in 1..n as u32 {
            list.push((0, i));
            list.push((i, 0));
        }
        Csr::from_edges(n, list)
    }
}

/// Chunks the Kronecker generator draws its edges in, each from a random stream of its own (so
/// that they can be drawn in parallel: [`kronecker_chunk`]).
pub const KRONECKER_CHUNKS: usize = 64;

/// Graph500 Kronecker generator (A, B, C = 0.57, 0.19, 0.19): `2^scale` vertices and
/// `edge_factor` edges per vertex, vertex labels permuted, self-loops dropped, symmetrized into
/// CSR.
pub fn kronecker(scale: u32, edge_factor: u64, seed: u64) -> Csr {
    let edges: Vec<(u32, u32)> = (0..KRONECKER_CHUNKS)
        .flat_map(|ch| kronecker_chunk(scale, edge_factor, seed, ch))
        .collect();
    kronecker_csr(scale, seed, &edges)
}

/// The edges of chunk `chunk` (below [`KRONECKER_CHUNKS`]) of [`kronecker`], unpermuted.
pub fn kronecker_chunk(scale: u32, edge_factor: u64, seed: u64, chunk: usize) -> Vec<(u32, u32)> {
    let m = edge_factor as usize * (1usize << scale);
    let (a, b, c) = (0.57f64, 0.19f64, 0.19f64);
    let ab = a + b;
    let c_norm = c / (1.0 - ab);
    let a_norm = a / ab;
    let per = m.div_ceil(KRONECKER_CHUNKS);
    let mut rng = Rng::new(seed ^ (chunk as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let count = per.min(m.saturating_sub(chunk * per));
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let (mut u, mut v) = (0u32, 0u32);
        for bit in 0..scale {
            let r1 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let r2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let ii = r1 > ab;
            let jj = r2 > if ii { c_norm } else { a_norm };
            u |= (ii as u32) << bit;
            v |= (jj as u32) << bit;
        }
        out.push((u, v));
    }
    out
}

/// [`kronecker`]'s graph from the edges of all its chunks, in chunk order.
pub fn kronecker_csr(scale: u32, seed: u64, edges: &[(u32, u32)]) -> Csr {
    let n = 1usize << scale;
    // Permute vertex labels.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    let mut rng = Rng::new(seed.wrapping_add(1));
    for i in (1..n).rev() {
        perm.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut deg = vec![0u32; n + 1];
    for &(u, v) in edges {
        if u != v {
            deg[perm[u as usize] as usize + 1] += 1;
            deg[perm[v as usize] as usize + 1] += 1;
        }
    }
    for i in 0..n {
        deg[i + 1] += deg[i];
    }
    let row_ptr = deg.clone();
    let mut fill = deg;
    let mut col_idx = vec![0u32; row_ptr[n] as usize];
    for &(u, v) in edges {
        if u != v {
            let (pu, pv) = (perm[u as usize], perm[v as usize]);
            col_idx[fill[pu as usize] as usize] = pv;
            fill[pu as usize] += 1;
            col_idx[fill[pv as usize] as usize] = pu;
            fill[pv as usize] += 1;
        }
    }
    Csr { row_ptr, col_idx }
}

/// `examples/compact.dyn`: every `x[i]` with `x[i] mod modulus == 0` (`x mod 0 = x`), in input
/// order (the stream's order is unspecified: compare sorted).
pub fn compact(x: &[u32], modulus: u32) -> Vec<u32> {
    x.iter()
        .copied()
        .filter(|&v| if modulus == 0 { v == 0 } else { v % modulus == 0 })
        .collect()
}

/// One vertex of `examples/tessellate.dyn`: curve, k, position.
pub type Vertex = (u32, u32, [f32; 2]);

/// `examples/tessellate.dyn`: curve `c` (control points `ctrl[3c..3c + 3]`) gets
/// `n = clamp(ceil(segments_per_unit * L), 1, 64)` segments, `L = |p1 - p0| + |p2 - p1|`, and
/// the points `B(k / n)`, `k = 0..=n`, of its quadratic Bezier.
pub fn tessellate(ctrl: &[[f32; 2]], segments_per_unit: f32) -> Vec<Vertex> {
    let dist = |a: [f32; 2], b: [f32; 2]| ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    let mut out = Vec::new();
    for (c, p) in ctrl.chunks_exact(3).enumerate() {
        let l = dist(p[0], p[1]) + dist(p[1], p[2]);
        // `as u32` saturates (and maps NaN to 0) as WGSL's conversion does.
        let n = ((segments_per_unit * l).ceil() as u32).clamp(1, 64);
        for k in 0..=n {
            let t = k as f32 / n as f32;
            let s = 1.0 - t;
            let at = |i: usize| s * s * p[0][i] + 2.0 * s * t * p[1][i] + t * t * p[2][i];
            out.push((c as u32, k, [at(0), at(1)]));
        }
    }
    out
}

/// `examples/quadtree.dyn`: the leaves `[x, y, depth, kind]` of the quadtree of the disk of
/// `radius` around (2048, 2048) on the 4096-unit grid, split while the circle crosses a cell and
/// its depth is below `max_depth`; kind 0 outside, 1 inside, 2 crossed.
pub fn quadtree_leaves(radius: u32, max_depth: u32) -> Vec<[u32; 4]> {
    let r2 = radius as i64 * radius as i64;
    let mut out = Vec::new();
    let mut todo = vec![(0u32, 0u32, 0u32)];
    while let Some((x, y, depth)) = todo.pop() {
        let size = 4096i64 >> depth;
        let lo = [x as i64 * size - 2048, y as i64 * size - 2048];
        let hi = [lo[0] + size, lo[1] + size];
        let near: i64 = (0..2).map(|i| 0i64.clamp(lo[i], hi[i]).pow(2)).sum();
        let far: i64 = (0..2).map(|i| lo[i].abs().max(hi[i].abs()).pow(2)).sum();
        let crossed = near < r2 && far > r2;
        if crossed && depth < max_depth {
            for q in 0..4 {
                todo.push((2 * x + (q & 1), 2 * y + (q >> 1), depth + 1));
            }
        } else {
            let kind = if crossed { 2 } else { u32::from(near < r2) };
            out.push([x, y, depth, kind]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_matches_the_loop() {
        let n = [0, 1, 2, 10, 100_000, 92_682, 92_683];
        let by_loop: Vec<u32> = n
            .iter()
            .map(|&v| (1..=v).fold(0u32, |s, k| s.wrapping_add(k)))
            .collect();
        assert_eq!(triangle(&n), by_loop);
        assert_eq!(
            triangle(&[u32::MAX])[0],
            ((u32::MAX as u64 * (u32::MAX as u64 + 1) / 2) & 0xFFFF_FFFF) as u32
        );
    }

    #[test]
    fn collatz_known_values() {
        assert_eq!(collatz(&[1, 2, 3, 6, 7, 27]), vec![0, 1, 7, 8, 16, 111]);
    }

    #[test]
    fn tree_root_only_without_depth() {
        assert_eq!(tree(7, 0, 5)[0], 1);
        assert_eq!(tree_nodes(7, 0, 5), 1);
        // Some seed among the first few grows a tree below the root, and no level can hold more
        // nodes than max_children times the level above.
        let t = (0..16)
            .map(|seed| tree(seed, 24, 3))
            .find(|t| t[1] > 0)
            .expect("a growing tree");
        for d in 1..25 {
            assert!(t[d] as u64 <= 3 * t[d - 1] as u64);
        }
    }

    #[test]
    fn frame_trees_match_their_target_and_reference() {
        for (frame, target) in [(0, 200), (7, 2_000), (150, 20_000)] {
            let t = frame_tree(frame, target, 4);
            let ratio = t.nodes as f64 / target as f64;
            assert!((1.0 / 1.2..1.2).contains(&ratio), "{target}: {t:?}");
            assert_eq!(t.per_depth, tree(t.seed, t.max_depth, 4));
            assert_eq!(t.nodes, tree_nodes(t.seed, t.max_depth, 4));
        }
        assert_ne!(
            frame_tree(1, 2_000, 4).seed,
            frame_tree(2, 2_000, 4).seed,
            "seeds change per frame"
        );
    }

    #[test]
    fn tree_near_takes_the_first_seed_that_fits() {
        let fits = |n: u64| (1_000..=5_000).contains(&n);
        let t = tree_near(0..10_000, 12..=12, 3, 1_000, fits).expect("a seed fits");
        assert!(fits(t.nodes) && t.max_depth == 12);
        assert!((0..t.seed).all(|s| !fits(tree_nodes(s, 12, 3))));
        // Nothing fits: the closest tree seen.
        let closest = tree_near(0..4, 0..=24, 1, 1_000, |_| false).unwrap_err().unwrap();
        assert_eq!(closest.nodes, (0..4).map(|s| tree_nodes(s, 24, 1)).max().unwrap());
    }

    #[test]
    fn load_curve_ramps_between_its_positions() {
        // 11 frames: frame f sits at f / 10 of the loop.
        let load = LoadCurve {
            min: 100,
            max: 10_000,
            rise_start: 0.1,
            rise_len: 0.2,
            fall_end: 0.9,
            fall_len: 0.2,
        };
        let nodes: Vec<u64> = (0..11).map(|f| load.at(f, 11)).collect();
        // Halfway up a ramp is the geometric mean.
        assert_eq!(
            nodes,
            [100, 100, 1_000, 10_000, 10_000, 10_000, 10_000, 10_000, 1_000, 100, 100]
        );
    }

    #[test]
    fn row_sums_wrap() {
        assert_eq!(row_sums(&[0, 2, 2, 5], &[u32::MAX, 2, 1, 2, 3]), vec![1, 0, 6]);
    }

    #[test]
    fn kronecker_is_symmetric_without_self_loops() {
        let g = kronecker(8, 16, 1);
        assert_eq!(g.row_ptr.len(), 257);
        let v = g.row_ptr.len() - 1;
        let mut edges = Vec::new();
        for u in 0..v {
            for &w in &g.col_idx[g.row_ptr[u] as usize..g.row_ptr[u + 1] as usize] {
                assert_ne!(u as u32, w);
                edges.push((u as u32, w));
            }
        }
        let mut rev: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        edges.sort_unstable();
        rev.sort_unstable();
        assert_eq!(edges, rev);
        // Edge factor 16 minus dropped self-loops, both directions.
        assert!(edges.len() > 2 * 16 * 256 * 9 / 10 && edges.len() <= 2 * 16 * 256);
    }

    #[test]
    fn bfs_on_path_and_star() {
        let p = Csr::path(5);
        assert_eq!(bfs(&p.row_ptr, &p.col_idx, 0), vec![0, 1, 2, 3, 4]);
        let s = Csr::star(4);
        assert_eq!(bfs(&s.row_ptr, &s.col_idx, 2), vec![1, 2, 0, 2]);
        let g = Csr::from_edges(3, vec![(0, 1)]);
        assert_eq!(bfs(&g.row_ptr, &g.col_idx, 0), vec![0, 1, u32::MAX]);
    }
}
