//! Stream outputs (docs/executor.md, "Streams"): the `emit` functions bodies call (buffered in
//! the lane when the stream's maximum is small, see [`EMIT_BUFFER_WORDS`]), and the
//! reservation around each unit of an emitting stage.
//!
//! Stream `j` (the `j`-th stream resource) has a window of `dyn_params.dyn_cap_NAME` elements,
//! split into `S` equal sub-windows (the init launch picks `S`), each with two control words:
//! `reserved`, the room promised to units that started, and `written`, the elements appended. A
//! unit starts only after reserving its stage's maximum in one sub-window of every stream it
//! emits into, so `written <=` the room taken `<= capacity / S` always holds there (the word
//! itself may pass the capacity for a moment, between an overshooting add and its undo) and an
//! emit never fails for want of room. The unused part of a unit's reservation stays with its
//! lane: the lane's next unit needs no atomic when it covers that unit's maximum, and one add
//! (in the same sub-window) when it does not; the lane gives all it holds back when its units
//! of the batch are done, so no room is held between batches (tests/stream_model.rs checks this
//! protocol under loom). A unit that cannot reserve is staged again as a frame of its own
//! (`dyn_defer`) and raises the full flag: workers leave the launch, and the host drains the
//! windows and launches again.

use crate::layout::{Layout, STREAM_GRANT_UNITS};
use dyngc_ir::{Program, ResourceId, StageId};
use std::fmt::Write;

/// The stream index `j` of resource `r`.
fn stream_index(program: &Program, r: ResourceId) -> u32 {
    program
        .streams()
        .iter()
        .position(|&s| s == r)
        .expect("a stream resource") as u32
}

/// Words of one stream's elements a lane may hold: a stream whose largest maximum fits is
/// buffered, and the lane takes the positions of its buffered elements with one `atomicAdd`
/// when the buffer cannot hold the next unit's maximum or its batch ends; any other stream takes
/// one per element as it emits.
pub const EMIT_BUFFER_WORDS: u32 = 512;

/// The buffer's length in elements if stream `r` is buffered: room for the elements of up to
/// `STREAM_GRANT_UNITS` units' maxima (the room a lane's grant holds), or of one unit when two
/// do not fit.
fn buffered(program: &Program, r: ResourceId) -> Option<u32> {
    let most = min_capacity(program, r);
    let fits = EMIT_BUFFER_WORDS / program.resources[r].elem.words(&program.structs).max(1);
    let len = fits.min(STREAM_GRANT_UNITS.saturating_mul(most));
    (most <= fits).then_some(if len >= 2 * most { len } else { most })
}

/// `fn dyn_emit_R(v: T)`: appends `v` to the unit's elements of stream `r`, within its
/// reservation: into the lane's buffer, or straight into its sub-window.
pub fn emit_fn(program: &Program, r: ResourceId) -> String {
    let j = stream_index(program, r);
    let res = &program.resources[r];
    let append = match buffered(program, r) {
        Some(_) => {
            format!("dyn_emit_buf_{j}[dyn_emit_buffered_{j} + dyn_emitted_{j}] = v;\n    dyn_emitted_{j} += 1u;")
        }
        None => format!(
            "dyn_emitted_{j} += 1u;
    let i = atomicAdd(&dyn_control[dyn_emit_at_{j} + 1u], 1u);
    if (i >= dyn_sub_cap_{j}) {{
        dyn_fail(DYN_ERR_INTERNAL, dyn_cur_stage, i, dyn_sub_cap_{j});
        return;
    }}
    {}[dyn_emit_base_{j} + i] = v;",
            dyngc_ir::wgsl::binding_var(res)
        ),
    };
    format!(
        "{sig} {{
    if (dyn_emitted_{j} >= dyn_emit_max_{j}) {{
        dyn_fail(DYN_ERR_EMIT_BOUND, dyn_cur_stage, dyn_emitted_{j} + 1u, dyn_emit_max_{j});
        return;
    }}
    {append}
}}
",
        sig = dyngc_ir::wgsl::emit_signature(program, r),
    )
}

/// The most elements one unit of any stage may emit into stream `r` (at least 1): a window
/// smaller than this could never start that unit.
pub fn min_capacity(program: &Program, r: ResourceId) -> u32 {
    program
        .stages
        .ids()
        .map(|s| program.max_emit(s, r))
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Per stream: the sub-windows, the unit's reservation and count, and the functions that take
/// and return room; `dyn_streams_init` (the init launch) and `dyn_streams_setup` (each worker,
/// each launch) are empty for a program without streams.
pub fn stream_glue(program: &Program, layout: &Layout) -> String {
    let mut out = String::new();
    let mut init = String::new();
    let mut setup = String::new();
    let mut lane_end = String::new();
    for (j, &r) in program.streams().iter().enumerate() {
        let (subs_word, counts) = layout.stream_words(j as u32);
        let cap = format!("dyn_params.dyn_cap_{}", program.resources[r].name);
        let most = min_capacity(program, r);
        // A power of two, at most one per ring shard (so about DYN_SHARD_WORKERS workers share
        // one), and each at least the largest maximum; fixed for the run by the init launch.
        let _ = write!(
            init,
            "
    atomicStore(&dyn_control[{subs_word}u], 1u << firstLeadingBit(max(1u, min(min(dyn_shards, {cap} / {most}u), DYN_STREAM_SUB_WINDOWS))));"
        );
        // The grant: the room every lane that shares a sub-window may hold at once is half of
        // it, at most DYN_STREAM_GRANT_UNITS maxima, and all lanes' overshoots together stay
        // below 2^32 - capacity (so a count cannot wrap); never below the largest maximum.
        let _ = write!(
            setup,
            "
    dyn_subs_{j} = max(1u, atomicLoad(&dyn_control[{subs_word}u]));
    dyn_sub_cap_{j} = {cap} / dyn_subs_{j};
    let lanes_{j} = max(1u, dyn_params.dyn_workers) * DYN_WG;
    let sharing_{j} = max(1u, lanes_{j} / dyn_subs_{j});
    let wrap_{j} = (0xffffffffu - {cap}) / lanes_{j};
    dyn_grant_{j} = max({most}u, min(min(dyn_sub_cap_{j} / (2u * sharing_{j}), DYN_STREAM_GRANT_UNITS * {most}u), wrap_{j}));"
        );
        let _ = write!(lane_end, "\n    dyn_release_all_{j}();");
        // A buffered stream's elements stay in the lane, covered by its room, until the buffer
        // cannot hold the next unit's maximum, the lane moves to another sub-window or its
        // batch ends; then they go out at positions taken at once. An unbuffered stream's unit
        // took its positions as it emitted, so its room shrinks when it ends.
        let (buffer, make_space, flush, release) = match buffered(program, r) {
            Some(len) => (
                format!(
                    "var<private> dyn_emit_buf_{j}: array<{}, {len}>;\n",
                    program.resources[r].elem.wgsl(&program.structs)
                ),
                format!(
                    "
    if (dyn_emit_buffered_{j} + m > {len}u) {{
        dyn_flush_{j}();
    }}"
                ),
                format!(
                    "
    let n = dyn_emit_buffered_{j};
    if (n != 0u) {{
        let i = atomicAdd(&dyn_control[dyn_emit_at_{j} + 1u], n);
        if (i + n > dyn_sub_cap_{j}) {{
            dyn_fail(DYN_ERR_INTERNAL, dyn_cur_stage, i + n, dyn_sub_cap_{j});
            return;
        }}
        for (var k = 0u; k < n; k++) {{
            {}[dyn_emit_base_{j} + i + k] = dyn_emit_buf_{j}[k];
        }}
        dyn_emit_room_{j} -= n;
        dyn_emit_buffered_{j} = 0u;
    }}",
                    dyngc_ir::wgsl::binding_var(&program.resources[r])
                ),
                format!("dyn_emit_buffered_{j} += dyn_emitted_{j};"),
            ),
            None => (
                String::new(),
                String::new(),
                String::new(),
                format!("dyn_emit_room_{j} -= dyn_emitted_{j};"),
            ),
        };
        // The relaxed load first keeps a full sub-window from being hammered by adds that must
        // be undone; the add decides. A full home sub-window sends the unit to the next one; all
        // full raises the flag. `dyn_sub_cap >= m` (the init launch keeps every sub-window at
        // least the largest maximum), and at most one reservation per lane is in flight, each
        // at most MAX_EMIT_PER_UNIT, so a count cannot wrap.
        let _ = write!(
            out,
            "{buffer}var<private> dyn_subs_{j}: u32;
var<private> dyn_sub_cap_{j}: u32;
var<private> dyn_emit_at_{j}: u32;
var<private> dyn_emit_base_{j}: u32;
var<private> dyn_emitted_{j}: u32;
var<private> dyn_emit_max_{j}: u32;
var<private> dyn_emit_room_{j}: u32;
var<private> dyn_emit_buffered_{j}: u32;
var<private> dyn_grant_{j}: u32;

// The lane's buffered elements go out, taking their positions with one add.
fn dyn_flush_{j}() {{{flush}
}}

fn dyn_reserve_{j}(m: u32) -> bool {{
    dyn_emitted_{j} = 0u;
    dyn_emit_max_{j} = m;{make_space}
    // Room the lane's earlier units left over, less what their buffered elements hold: enough,
    // or topped up where it is, to the grant when the relaxed load sees room for it, else to m.
    let held = dyn_emit_room_{j} - dyn_emit_buffered_{j};
    if (held >= m) {{
        return true;
    }}
    let grant = dyn_grant_{j}; // at least every maximum (dyn_streams_setup)
    if (dyn_emit_room_{j} != 0u) {{
        let at = dyn_emit_at_{j};
        let seen = atomicLoad(&dyn_control[at]);
        if (seen <= dyn_sub_cap_{j} - (m - held)) {{
            let want = select(m, grant, seen <= dyn_sub_cap_{j} - (grant - held));
            let need = want - held;
            if (atomicAdd(&dyn_control[at], need) <= dyn_sub_cap_{j} - need) {{
                dyn_emit_room_{j} += need;
                return true;
            }}
            atomicSub(&dyn_control[at], need);
        }}
        // Moving on: the buffered elements go out here first.
        dyn_flush_{j}();
        if (dyn_emit_room_{j} != 0u) {{
            atomicSub(&dyn_control[at], dyn_emit_room_{j});
        }}
        dyn_emit_room_{j} = 0u;
    }}
    for (var k = 0u; k < dyn_subs_{j}; k++) {{
        let s = (dyn_home + k) & (dyn_subs_{j} - 1u);
        let at = {counts}u + s * DYN_LINE_WORDS;
        let seen = atomicLoad(&dyn_control[at]);
        if (seen > dyn_sub_cap_{j} - m) {{
            continue;
        }}
        let want = select(m, grant, seen <= dyn_sub_cap_{j} - grant);
        if (atomicAdd(&dyn_control[at], want) > dyn_sub_cap_{j} - want) {{
            atomicSub(&dyn_control[at], want);
            continue;
        }}
        dyn_emit_at_{j} = at;
        dyn_emit_base_{j} = s * dyn_sub_cap_{j};
        dyn_emit_room_{j} = want;
        return true;
    }}
    atomicStore(&dyn_control[DYN_C_STREAM_FULL], 1u);
    return false;
}}

// The unit ended: its elements join the lane's buffered ones (or were written), and the room
// it did not use stays with the lane, for its next unit.
fn dyn_release_{j}() {{
    {release}
    dyn_emitted_{j} = 0u;
}}

// The lane's batch is over: its buffered elements go out, and all the room it holds goes back.
fn dyn_release_all_{j}() {{
    dyn_flush_{j}();
    if (dyn_emit_room_{j} != 0u) {{
        atomicSub(&dyn_control[dyn_emit_at_{j}], dyn_emit_room_{j});
        dyn_emit_room_{j} = 0u;
    }}
}}

"
        );
    }
    let _ = write!(
        out,
        "// After dyn_shard_setup (dyn_shards), before the entry is seeded.
fn dyn_streams_init() {{{init}
}}

// After dyn_shard_setup, before the first batch.
fn dyn_streams_setup() {{{setup}
}}

// The end of a lane's units in a batch: the room it holds goes back (none is held between
// batches, so between launches every sub-window's reserved count is its written count).
fn dyn_streams_lane_end() {{{lane_end}
}}

"
    );
    out
}

/// The body of `dyn_execute`'s case for one-lane stage `stage`: `call` runs the unit. A stage
/// that emits reserves first, in every stream it emits into (giving back what it took when a
/// later one is full), and defers the unit when any is full.
pub fn execute_case(program: &Program, stage: StageId, call: &str, domain: Option<String>) -> String {
    let st = &program.stages[stage];
    if st.max_emits.is_empty() {
        return format!("{call};");
    }
    let j: Vec<(u32, u32)> = st
        .max_emits
        .iter()
        .map(|&(r, m)| (stream_index(program, r), m))
        .collect();
    // A stream found full defers the unit and ends the lane's batch, which gives back what the
    // earlier streams took (dyn_streams_lane_end).
    let mut reserve = String::new();
    for (s, m) in &j {
        let _ = write!(
            reserve,
            "\n            if (room && !dyn_reserve_{s}({m}u)) {{\n                room = false;\n            }}"
        );
    }
    let release: String = j
        .iter()
        .map(|(s, _)| format!("\n                dyn_release_{s}();"))
        .collect();
    // A keyed unit goes back as its key (set semantics: it runs again later); any other as a
    // one-index frame.
    let defer = match domain {
        Some(d) => {
            format!("dyn_lane_deferred = true;\n                dyn_push_keyed({stage}u, dyn_unit_words[0], {d});")
        }
        None => format!("dyn_defer({stage}u, dyn_unit_index);"),
    };
    format!(
        "var room = true;{reserve}
            if (room) {{
                {call};{release}
            }} else {{
                {defer}
            }}"
    )
}
