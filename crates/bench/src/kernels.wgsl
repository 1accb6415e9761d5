// Hand-written kernels of the baselines: a block prefix scan, and per workload the static-limit
// dispatch, the expand-everything levels and the fixed-buffer (retry) stages. Every entry point
// uses every binding it is given (layouts are derived per entry point). Workgroups of 256,
// dispatched 2-D past 65535.

// Parameters. Retry stages also use e = the bump word of their input's count (read by
// `retry_args`), f = the bump word of their output's count (f + 1: its overflow flag), g = the
// output's capacity in items.
struct P {
    n: u32,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
    e: u32,
    f: u32,
    g: u32,
}

fn tid(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 256u;
}

fn pcg(x: u32) -> u32 {
    let s = x * 747796405u + 2891336453u;
    let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}

// ---- scan: exclusive, in place, per block of 256; block totals into `sums` ----
@group(0) @binding(0) var<storage, read_write> s_data: array<u32>;
@group(0) @binding(1) var<storage, read_write> s_sums: array<u32>;
@group(0) @binding(2) var<uniform> s_p: P;
var<workgroup> tmp: array<u32, 256>;

@compute @workgroup_size(256)
fn scan_blocks(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let block = wid.x + wid.y * nwg.x;
    let i = block * 256u + lid.x;
    var v = 0u;
    if (i < s_p.n) {
        v = s_data[i];
    }
    tmp[lid.x] = v;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off * 2u) {
        var t = 0u;
        if (lid.x >= off) {
            t = tmp[lid.x - off];
        }
        workgroupBarrier();
        tmp[lid.x] = tmp[lid.x] + t;
        workgroupBarrier();
    }
    if (i < s_p.n) {
        s_data[i] = tmp[lid.x] - v;
    }
    if (lid.x == 255u && block * 256u < s_p.n) {
        s_sums[block] = tmp[255];
    }
}

@compute @workgroup_size(256)
fn add_blocks(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let block = wid.x + wid.y * nwg.x;
    let i = block * 256u + lid.x;
    if (i < s_p.n) {
        s_data[i] = s_data[i] + s_sums[block];
    }
}

// ---- triangle ----
// static: thread t of sum(n) finds its element by binary search over CPU-computed offsets.
@group(0) @binding(0) var<storage, read> ts_off: array<u32>;
@group(0) @binding(1) var<storage, read_write> ts_sums: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> ts_p: P; // n = total, a = elements

@compute @workgroup_size(256)
fn tri_static(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= ts_p.n) {
        return;
    }
    var lo = 0u;
    var hi = ts_p.a;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (ts_off[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    atomicAdd(&ts_sums[lo], t - ts_off[lo] + 1u);
}

// expand level 0: counts, then (after the scan) one (i, k) record per child.
@group(0) @binding(0) var<storage, read> tc_n: array<u32>;
@group(0) @binding(1) var<storage, read_write> tc_counts: array<u32>;
@group(0) @binding(2) var<uniform> tc_p: P; // n = elements

@compute @workgroup_size(256)
fn tri_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t < tc_p.n) {
        tc_counts[t] = tc_n[t];
    }
}

@group(0) @binding(0) var<storage, read> tw_n: array<u32>;
@group(0) @binding(1) var<storage, read> tw_off: array<u32>;
@group(0) @binding(2) var<storage, read_write> tw_children: array<vec2<u32>>;
@group(0) @binding(3) var<uniform> tw_p: P;

@compute @workgroup_size(256)
fn tri_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= tw_p.n) {
        return;
    }
    let base = tw_off[t];
    for (var k = 0u; k < tw_n[t]; k++) {
        tw_children[base + k] = vec2<u32>(t, k);
    }
}

@group(0) @binding(0) var<storage, read> tl_children: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> tl_sums: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> tl_p: P; // n = children (written by `retry_args` in retry)

@compute @workgroup_size(256)
fn tri_leaf(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t < tl_p.n) {
        let c = tl_children[t];
        atomicAdd(&tl_sums[c.x], c.y + 1u);
    }
}

// ---- tree ---- (P: n = nodes in the list, a = depth, b = max_depth, c = seed, d = max_children)
// The rule of tree.dyn and reference::tree: a node above max_depth has pcg(id ^ seed) %
// (max_children + 1) children; child j of node id has id pcg(id + j + 1).
fn tree_fanout(id: u32, depth: u32, p: P) -> u32 {
    if (depth < p.b) {
        return pcg(id ^ p.c) % (p.d + 1u);
    }
    return 0u;
}

fn tree_child(id: u32, j: u32) -> u32 {
    return pcg(id + j + 1u);
}

@group(0) @binding(0) var<storage, read> rs_nodes: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> rs_per_depth: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> rs_p: P;

// static: one thread per (id, depth) of the whole tree, known in advance; it does a node's work
// (count itself, draw its fan-out) and the hashes of its children's ids.
@compute @workgroup_size(256)
fn tree_static(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= rs_p.n) {
        return;
    }
    let node = rs_nodes[t];
    atomicAdd(&rs_per_depth[node.y], 1u);
    var acc = 0u;
    let c = tree_fanout(node.x, node.y, rs_p);
    for (var j = 0u; j < c; j++) {
        acc = acc ^ tree_child(node.x, j);
    }
    if (acc == 0x9e3779b9u && node.y == 99u) {
        atomicAdd(&rs_per_depth[24], 0u);
    }
}

@group(0) @binding(0) var<storage, read> rc_ids: array<u32>;
@group(0) @binding(1) var<storage, read_write> rc_counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> rc_per_depth: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> rc_p: P;

@compute @workgroup_size(256)
fn tree_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= rc_p.n) {
        return;
    }
    let id = rc_ids[t];
    atomicAdd(&rc_per_depth[rc_p.a], 1u);
    rc_counts[t] = tree_fanout(id, rc_p.a, rc_p);
}

@group(0) @binding(0) var<storage, read> rw_ids: array<u32>;
@group(0) @binding(1) var<storage, read> rw_off: array<u32>;
@group(0) @binding(2) var<storage, read_write> rw_next: array<u32>;
@group(0) @binding(3) var<uniform> rw_p: P;

@compute @workgroup_size(256)
fn tree_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= rw_p.n) {
        return;
    }
    let id = rw_ids[t];
    let base = rw_off[t];
    let c = rw_off[t + 1u] - base;
    for (var j = 0u; j < c; j++) {
        rw_next[base + j] = tree_child(id, j);
    }
}

// ---- bfs ---- (P: n = items, a = level of the new vertices)
@group(0) @binding(0) var<storage, read> bc_frontier: array<u32>;
@group(0) @binding(1) var<storage, read> bc_row: array<u32>;
@group(0) @binding(2) var<storage, read_write> bc_counts: array<u32>;
@group(0) @binding(3) var<uniform> bc_p: P;

@compute @workgroup_size(256)
fn bfs_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t < bc_p.n) {
        let u = bc_frontier[t];
        bc_counts[t] = bc_row[u + 1u] - bc_row[u];
    }
}

@group(0) @binding(0) var<storage, read> bw_frontier: array<u32>;
@group(0) @binding(1) var<storage, read> bw_off: array<u32>;
@group(0) @binding(2) var<storage, read_write> bw_pairs: array<vec2<u32>>;
@group(0) @binding(3) var<uniform> bw_p: P;

@compute @workgroup_size(256)
fn bfs_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= bw_p.n) {
        return;
    }
    let u = bw_frontier[t];
    let base = bw_off[t];
    let c = bw_off[t + 1u] - base;
    for (var k = 0u; k < c; k++) {
        bw_pairs[base + k] = vec2<u32>(u, k);
    }
}

@group(0) @binding(0) var<storage, read> br_pairs: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> br_row: array<u32>;
@group(0) @binding(2) var<storage, read> br_col: array<u32>;
@group(0) @binding(3) var<storage, read_write> br_dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> br_flags: array<u32>;
@group(0) @binding(5) var<uniform> br_p: P;

@compute @workgroup_size(256)
fn bfs_relax(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= br_p.n) {
        return;
    }
    let e = br_pairs[t];
    let v = br_col[br_row[e.x] + e.y];
    var f = 0u;
    if (atomicMin(&br_dist[v], br_p.a) > br_p.a) {
        f = 1u;
    }
    br_flags[t] = f;
}

@group(0) @binding(0) var<storage, read> bk_pairs: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> bk_row: array<u32>;
@group(0) @binding(2) var<storage, read> bk_col: array<u32>;
@group(0) @binding(3) var<storage, read> bk_off: array<u32>;
@group(0) @binding(4) var<storage, read_write> bk_next: array<u32>;
@group(0) @binding(5) var<uniform> bk_p: P;

@compute @workgroup_size(256)
fn bfs_compact(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= bk_p.n) {
        return;
    }
    let o = bk_off[t];
    if (bk_off[t + 1u] > o) {
        let e = bk_pairs[t];
        bk_next[o] = bk_col[bk_row[e.x] + e.y];
    }
}

// ---- collatz ---- static: one thread per input (the work list is the input).
@group(0) @binding(0) var<storage, read> cs_x: array<u32>;
@group(0) @binding(1) var<storage, read_write> cs_steps: array<u32>;
@group(0) @binding(2) var<uniform> cs_p: P;

@compute @workgroup_size(256)
fn collatz_static(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= cs_p.n) {
        return;
    }
    var v = cs_x[t];
    var s = 0u;
    while (v > 1u) {
        if (v % 2u == 1u) {
            v = 3u * v + 1u;
        } else {
            v = v / 2u;
        }
        s++;
    }
    cs_steps[t] = s;
}

// ---- fixed buffers with overflow and retry (Vello style) ----
// Every stage bump-allocates its output in a buffer of fixed capacity (P.g items) through the
// count word bump[P.f]; a reservation that would pass the capacity writes nothing and sets the
// overflow word bump[P.f + 1]. The next stage's size is that count clamped to the capacity,
// turned into its P and dispatch arguments on the device by `retry_args`, so an attempt needs no
// read-back until the host checks the overflow words; on overflow it starts over with doubled
// buffers.

// ra_p: the next stage's P with n = the capacity of its input; its count is bump[ra_p.e].
@group(0) @binding(0) var<storage, read> ra_bump: array<u32>;
@group(0) @binding(1) var<uniform> ra_p: P;
@group(0) @binding(2) var<storage, read_write> ra_out: P;
@group(0) @binding(3) var<storage, read_write> ra_args: array<u32, 3>;

@compute @workgroup_size(1)
fn retry_args() {
    var q = ra_p;
    q.n = min(ra_bump[ra_p.e], ra_p.n);
    ra_out = q;
    let groups = (q.n + 255u) / 256u;
    let x = min(groups, 65535u);
    ra_args[0] = x;
    ra_args[1] = (groups + x - 1u) / max(x, 1u);
    ra_args[2] = 1u;
}

// triangle: each element reserves its n[i] children at once.
@group(0) @binding(0) var<storage, read> tv_n: array<u32>;
@group(0) @binding(1) var<storage, read_write> tv_children: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> tv_bump: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> tv_p: P; // n = elements

@compute @workgroup_size(256)
fn tri_reserve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= tv_p.n) {
        return;
    }
    let c = tv_n[t];
    let base = atomicAdd(&tv_bump[tv_p.f], c);
    if (base + c > tv_p.g) {
        atomicStore(&tv_bump[tv_p.f + 1u], 1u);
        return;
    }
    for (var k = 0u; k < c; k++) {
        tv_children[base + k] = vec2<u32>(t, k);
    }
}

// tree: one level; each node counts itself and reserves its children's slots in the next level.
@group(0) @binding(0) var<storage, read> tg_ids: array<u32>;
@group(0) @binding(1) var<storage, read_write> tg_next: array<u32>;
@group(0) @binding(2) var<storage, read_write> tg_bump: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> tg_per_depth: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> tg_p: P;

@compute @workgroup_size(256)
fn tree_grow(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= tg_p.n) {
        return;
    }
    let id = tg_ids[t];
    atomicAdd(&tg_per_depth[tg_p.a], 1u);
    let c = tree_fanout(id, tg_p.a, tg_p);
    if (c == 0u) {
        return;
    }
    let base = atomicAdd(&tg_bump[tg_p.f], c);
    if (base + c > tg_p.g) {
        atomicStore(&tg_bump[tg_p.f + 1u], 1u);
        return;
    }
    for (var j = 0u; j < c; j++) {
        tg_next[base + j] = tree_child(id, j);
    }
}

// bfs, stage 1 of a level: each frontier vertex reserves one (vertex, index) record per edge,
// as `bfs_write` writes them for expand.
@group(0) @binding(0) var<storage, read> bg_frontier: array<u32>;
@group(0) @binding(1) var<storage, read> bg_row: array<u32>;
@group(0) @binding(2) var<storage, read_write> bg_pairs: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> bg_bump: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> bg_p: P;

@compute @workgroup_size(256)
fn bfs_gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= bg_p.n) {
        return;
    }
    let u = bg_frontier[t];
    let c = bg_row[u + 1u] - bg_row[u];
    let base = atomicAdd(&bg_bump[bg_p.f], c);
    if (base + c > bg_p.g) {
        atomicStore(&bg_bump[bg_p.f + 1u], 1u);
        return;
    }
    for (var k = 0u; k < c; k++) {
        bg_pairs[base + k] = vec2<u32>(u, k);
    }
}

// bfs, stage 2: each record relaxes its edge (as `bfs_relax`); a vertex reached first at this
// level (P.a) reserves one slot of the next frontier.
@group(0) @binding(0) var<storage, read> bp_pairs: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> bp_row: array<u32>;
@group(0) @binding(2) var<storage, read> bp_col: array<u32>;
@group(0) @binding(3) var<storage, read_write> bp_dist: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> bp_next: array<u32>;
@group(0) @binding(5) var<storage, read_write> bp_bump: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> bp_p: P;

@compute @workgroup_size(256)
fn bfs_push(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= bp_p.n) {
        return;
    }
    let e = bp_pairs[t];
    let v = bp_col[bp_row[e.x] + e.y];
    if (atomicMin(&bp_dist[v], bp_p.a) > bp_p.a) {
        let slot = atomicAdd(&bp_bump[bp_p.f], 1u);
        if (slot >= bp_p.g) {
            atomicStore(&bp_bump[bp_p.f + 1u], 1u);
            return;
        }
        bp_next[slot] = v;
    }
}

// ---- streams: outputs whose size the data decides (compact, tessellate) ----
// Expand: `*_count` writes each unit's element count, the host scans and allocates exactly,
// `*_write` writes at the offsets. Retry: `*_bump` allocates with an atomic into a buffer of
// p.g elements and raises bump[1] when it does not fit.

// compact: keep x[i] when x[i] mod p.a == 0 (x mod 0 = x).
fn cp_keep(v: u32, m: u32) -> u32 {
    return u32(select(v, v % m, m != 0u) == 0u);
}

@group(0) @binding(0) var<storage, read> cpc_x: array<u32>;
@group(0) @binding(1) var<storage, read_write> cpc_counts: array<u32>;
@group(0) @binding(2) var<uniform> cpc_p: P;

@compute @workgroup_size(256)
fn compact_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t < cpc_p.n) {
        cpc_counts[t] = cp_keep(cpc_x[t], cpc_p.a);
    }
}

@group(0) @binding(0) var<storage, read> cpw_x: array<u32>;
@group(0) @binding(1) var<storage, read> cpw_offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> cpw_out: array<u32>;
@group(0) @binding(3) var<uniform> cpw_p: P;

@compute @workgroup_size(256)
fn compact_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t < cpw_p.n && cp_keep(cpw_x[t], cpw_p.a) != 0u) {
        cpw_out[cpw_offsets[t]] = cpw_x[t];
    }
}

@group(0) @binding(0) var<storage, read> cpb_x: array<u32>;
@group(0) @binding(1) var<storage, read_write> cpb_out: array<u32>;
@group(0) @binding(2) var<storage, read_write> cpb_bump: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> cpb_p: P;

@compute @workgroup_size(256)
fn compact_bump(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tid(gid, nwg);
    if (t >= cpb_p.n || cp_keep(cpb_x[t], cpb_p.a) == 0u) {
        return;
    }
    let i = atomicAdd(&cpb_bump[0], 1u);
    if (i >= cpb_p.g) {
        atomicStore(&cpb_bump[1], 1u);
        return;
    }
    cpb_out[i] = cpb_x[t];
}

// tessellate: curve c (control points 3c..3c+3) gets n = clamp(ceil(p.a * L), 1, 64) segments
// (p.a: segments per unit, f32 bits) and n + 1 vertices (curve, k, x, y).
fn tess_segments(p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>, spu: u32) -> u32 {
    let l = length(p1 - p0) + length(p2 - p1);
    return clamp(u32(ceil(bitcast<f32>(spu) * l)), 1u, 64u);
}

fn tess_vertex(c: u32, k: u32, n: u32, p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>) -> vec4<u32> {
    let t = f32(k) / f32(n);
    let s = 1.0 - t;
    let pos = s * s * p0 + 2.0 * s * t * p1 + t * t * p2;
    return vec4<u32>(c, k, bitcast<u32>(pos.x), bitcast<u32>(pos.y));
}

@group(0) @binding(0) var<storage, read> tsc_ctrl: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> tsc_counts: array<u32>;
@group(0) @binding(2) var<uniform> tsc_p: P;

@compute @workgroup_size(256)
fn tess_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = tid(gid, nwg);
    if (c < tsc_p.n) {
        tsc_counts[c] = tess_segments(tsc_ctrl[3u * c], tsc_ctrl[3u * c + 1u], tsc_ctrl[3u * c + 2u], tsc_p.a) + 1u;
    }
}

@group(0) @binding(0) var<storage, read> tsw_ctrl: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> tsw_offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> tsw_out: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> tsw_p: P;

@compute @workgroup_size(256)
fn tess_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = tid(gid, nwg);
    if (c >= tsw_p.n) {
        return;
    }
    let p0 = tsw_ctrl[3u * c];
    let p1 = tsw_ctrl[3u * c + 1u];
    let p2 = tsw_ctrl[3u * c + 2u];
    let n = tess_segments(p0, p1, p2, tsw_p.a);
    let base = tsw_offsets[c];
    for (var k = 0u; k <= n; k++) {
        tsw_out[base + k] = tess_vertex(c, k, n, p0, p1, p2);
    }
}

@group(0) @binding(0) var<storage, read> tsb_ctrl: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> tsb_out: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> tsb_bump: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> tsb_p: P;

@compute @workgroup_size(256)
fn tess_bump(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = tid(gid, nwg);
    if (c >= tsb_p.n) {
        return;
    }
    let p0 = tsb_ctrl[3u * c];
    let p1 = tsb_ctrl[3u * c + 1u];
    let p2 = tsb_ctrl[3u * c + 2u];
    let n = tess_segments(p0, p1, p2, tsb_p.a);
    let base = atomicAdd(&tsb_bump[0], n + 1u);
    if (base + n + 1u > tsb_p.g) {
        atomicStore(&tsb_bump[1], 1u);
        return;
    }
    for (var k = 0u; k <= n; k++) {
        tsb_out[base + k] = tess_vertex(c, k, n, p0, p1, p2);
    }
}

