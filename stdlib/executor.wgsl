// dyngc persistent executor: the part of every megakernel that is the same for every graph.
//
// The code generator prepends, per graph: the DYN_* constants (sizes and control-block word
// offsets), the bindings `dyn_params`, `dyn_control`, `dyn_arena` and `dyn_marks`, the user's
// declarations and stage functions, and these generated functions:
//   dyn_load_params()                         fill the parameters' private variables
//   dyn_entry_stage() -> u32, dyn_entry_count() -> u32
//   dyn_execute(stage: u32, index: u32)      run one unit of a one-lane stage, its payload
//                                             in dyn_unit_words (a stage whose chain of
//                                             `become`s to itself loops there runs more, and
//                                             adds them to dyn_lane_ran)
//   dyn_execute_wide(stage: u32, index: u32, frame: u32)   the same for a lane of a wide unit
//   dyn_width(stage: u32) -> u32              lanes per unit (1, or N of `@width(N)`)
//   dyn_wide_groups(stage: u32) -> u32        units of a wide stage per batch (0: one-lane)
//   dyn_is_keyed(stage: u32) -> bool
//   dyn_becomes(stage: u32) -> bool           the stage's body has a `become`
//   dyn_mark_word(stage: u32, key: u32) -> u32
//   dyn_seed_queues() -> bool   set up the partitioned schedule's queues (stdlib/queues.wgsl);
//                               true when the entry itself went to one
//   dyn_keyed_words() -> u32, dyn_word_stage(word: u32) -> u32, dyn_word_first_key(word: u32) -> u32
//   dyn_until() -> bool         a graph-level loop's exit condition (true without a loop)
//   dyn_streams_init()          the init launch: each stream's sub-window count (empty
//                               without streams)
//   dyn_streams_setup()         each worker, each launch: the sub-windows into private variables
//   dyn_streams_lane_end()      a lane's units of a batch are done: the stream room it holds
//                               goes back
//   dyn_accumulators_init(lid: u32), dyn_accumulators_flush(lid: u32)   each worker, each
//                               launch: the workgroup copies of the outputs the units only
//                               combine into start empty / are added to the outputs (empty
//                               without such outputs; docs/executor.md, "Accumulated outputs")
// and two more, generated only when no stage is dispatched (then stdlib/queues.wgsl, appended
// after this file, defines them):
//   dyn_finish()                the persistent kernel has no work left: dyn_stop() (queues: the
//                               end of the run once the dispatches drained them)
//   dyn_check_dispatches()      lane 0 of a check launch: nothing (queues: the dispatches did
//                               not run after the launch that finished)
// The protocol (who writes what, when, and why no work is lost or run twice) is documented in
// docs/executor.md; keep the two in step. The functions below follow its sections' order.

// Frame words: [stage | rec << DYN_REC_SHIFT | flags << 16 | depth << DYN_DEPTH_SHIFT, lo, hi,
// (rec,) payload...]. A frame with hi - lo == 1 is a single item (its index is lo); wider
// frames are fan-out ranges.
// The payload starts at DYN_FRAME_HEADER; word 0 is the head. The depth is a lower bound on the
// spawn depth of the frame's units (docs/executor.md, "Why the stack fits in its reserve").
// The recursion counter has a word of its own only where DYN_REC_WORD; otherwise it sits in
// the head's stage field from bit DYN_REC_SHIFT up (none where that is 16: the program does not
// recurse, every counter is 0), and the payload starts at word 3 (dyn_frame_rec, dyn_clear_rec).
const DYN_F_LO: u32 = 1u;       // the next index
const DYN_F_HI: u32 = 2u;       // one past the last index
const DYN_F_REC: u32 = 3u;      // the recursion counter, where DYN_REC_WORD
const DYN_STAGE_MASK: u32 = (1u << DYN_REC_SHIFT) - 1u;
const DYN_FLAG_OWNED: u32 = 1u; // keyed frame whose mark this worker already cleared

// Broadcast commands from lane 0.
const DYN_CMD_NONE: u32 = 0u;
const DYN_CMD_EXIT: u32 = 1u;
const DYN_CMD_CLAIM: u32 = 2u;  // [_, ticket, count, shard]: copy ring frames onto the stack
const DYN_CMD_GATHER: u32 = 3u; // [_, frames, count, top]: lanes over the top frames (dyn_wg_pack)
const DYN_CMD_RANGE: u32 = 4u;  // [_, frame, count, lo]: lanes take indices lo..lo+count of stack[frame]
const DYN_CMD_ROUND: u32 = 5u;  // this worker ended the round: evaluate `until`, seed the next
// A batch of one wide stage: DYN_CMD_WIDE + (stage << 1) + is_range, so that `stage` arrives
// through the uniform broadcast. A range: [_, frame, count, lo]; singles: [_, first, count, _].
const DYN_CMD_WIDE: u32 = 8u;

// What a lane holds in registers (dyn_held): nothing, the carry of a `become`, or a single
// spawned child.
const DYN_HELD_NONE: u32 = 0u;
const DYN_HELD_CARRY: u32 = 1u;
const DYN_HELD_CHILD: u32 = 2u;

// Per-worker statistics, kept in workgroup memory by lane 0 and added to the control block once
// per launch (dyn_flush_stats): the hot words are not touched per batch.
const DYN_S_FALLBACKS: u32 = 0u;
const DYN_S_SPLITS: u32 = 1u;
const DYN_S_RESERVES_LOST: u32 = 2u;
const DYN_S_CLAIMS_LOST: u32 = 3u;
const DYN_S_BATCHES: u32 = 4u;
const DYN_S_IDLE_STEPS: u32 = 5u;
const DYN_S_FUEL_EXHAUSTED: u32 = 6u;
const DYN_S_STACK_HIGH_WATER: u32 = 7u; // a maximum
const DYN_S_RING_HIGH_WATER: u32 = 8u;  // a maximum
const DYN_S_OLD_LENT: u32 = 9u;
const DYN_S_COUNT: u32 = 10u;

var<workgroup> dyn_wg_cmd: array<u32, 4>;
// After a batch, lane 0 to all: [carries stacked, frames to the ring, children kept, first
// ticket, stack base for the new frames, ring shard of the ticket, old frames lent from the
// stack's bottom, that bottom, deferred units, deferred units kept].
var<workgroup> dyn_wg_post: array<u32, 10>;
// The stack's live frames are the positions bottom .. top (empty when they are equal), kept by
// lane 0; one struct, so that the other lanes read both with one workgroupUniformLoad.
struct DynStack {
    top: u32,
    bottom: u32,
}
var<workgroup> dyn_wg_stack: DynStack;
var<workgroup> dyn_wg_fuel: u32;
var<workgroup> dyn_wg_idle: u32;
// `pending` as this worker last read it while idle: a change means others make progress.
var<workgroup> dyn_wg_seen_pending: u32;
var<workgroup> dyn_wg_seen_progress: u32;
var<workgroup> dyn_wg_exhausted: u32;
var<workgroup> dyn_wg_stats: array<u32, DYN_S_COUNT>;
// Ring ticket + 1 of the split of the running range published this batch (0 = none), and its
// shard.
var<workgroup> dyn_wg_split: u32;
var<workgroup> dyn_wg_split_shard: u32;
// A ring scan shared by the lanes: [shard, first ticket, slots to check], and how many from the
// first were ready (dyn_ring_scan).
var<workgroup> dyn_wg_scan: array<u32, 3>;
var<workgroup> dyn_wg_scan_run: atomic<u32>;
// The shard with queued frames an idle worker claims from: rank << 8 | j for shard home + j (a
// rank below 2^24, so never DYN_NO_PROBE), the smallest wins (dyn_prescan); DYN_NO_PROBE when
// every shard is empty.
var<workgroup> dyn_wg_probe: atomic<u32>;
const DYN_NO_PROBE: u32 = 0xFFFFFFFFu;
const DYN_PROBE_SHARD: u32 = 0xFFu; // the bits of j: DYN_MAX_SHARDS is at most 256
// Index counts (hi - lo), first indices and heads (stage, flags, depth) of the frames from the
// stack top down, up to a batch (dyn_prescan).
var<workgroup> dyn_wg_sizes: array<u32, DYN_BATCH>;
var<workgroup> dyn_wg_los: array<u32, DYN_BATCH>;
var<workgroup> dyn_wg_heads: array<u32, DYN_BATCH>;
// The batch's shallowest depth: the depth its carries get, its children one more.
var<workgroup> dyn_wg_depth: u32;
// Lanes of a DYN_CMD_RANGE batch (fewer than DYN_WG where the stack is short of room).
var<workgroup> dyn_wg_lanes: u32;
// A gathered batch (DYN_CMD_GATHER): frame j from the top (stack[top - 1 - j]) gives lanes
// dyn_wg_pack[j] & DYN_PACK_LANES .. dyn_wg_pack[j + 1] & DYN_PACK_LANES; its first dyn_wg_full
// frames are taken whole. Above the lane count, from DYN_DEPTH_SHIFT: the shallowest depth of
// frames 0 .. j - 1 (dyn_gather_scan).
var<workgroup> dyn_wg_pack: array<u32, DYN_BATCH + 1>;
var<workgroup> dyn_wg_full: atomic<u32>;
// dyn_gather_scan's second buffer; in dyn_publish, the order of the children by size.
var<workgroup> dyn_wg_scan_half: array<u32, DYN_BATCH>;
const DYN_PACK_LANES: u32 = (1u << DYN_DEPTH_SHIFT) - 1u;
// The next index of a DYN_CMD_RANGE window that a lane may take.
var<workgroup> dyn_wg_next: atomic<u32>;
var<workgroup> dyn_wg_lane_units: atomic<u32>;
var<workgroup> dyn_wg_n_carry: atomic<u32>;
// Units staged again for want of stream room (dyn_defer): in the carry slots, from the last.
var<workgroup> dyn_wg_n_defer: atomic<u32>;
var<workgroup> dyn_wg_n_child: atomic<u32>;
var<workgroup> dyn_wg_n_keyed: atomic<u32>;
var<workgroup> dyn_wg_finished: atomic<u32>;
var<workgroup> dyn_wg_units: array<atomic<u32>, DYN_STAGES>;
// Frames made by one batch: become carries, then children, then keyed children, then the split
// of the running range (DYN_SPLIT_SLOT) and a scratch frame for pushes past capacity.
var<workgroup> dyn_wg_staging: array<u32, DYN_STAGING_WORDS>;
const DYN_KEYED_SLOT0: u32 = DYN_CARRY_CAP + DYN_CHILD_CAP; // the first keyed hint's slot

// The unit a lane is running, for the site functions.
var<private> dyn_cur_stage: u32;
var<private> dyn_cur_rec: u32;
// Its payload (loaded from its frame, or moved from the held unit).
var<private> dyn_unit_words: array<u32, DYN_PAYLOAD_WORDS>;
// The unit the lane holds in registers (DYN_HELD_*), its stage, recursion counter and payload.
var<private> dyn_held: u32;
var<private> dyn_held_stage: u32;
var<private> dyn_held_rec: u32;
var<private> dyn_held_words: array<u32, DYN_PAYLOAD_WORDS>;
// The lane staged a frame this batch: it runs no further unit (the caps allow one unit's spawns
// per lane).
var<private> dyn_lane_staged: bool;
// Units the lane has run this batch, the one running included (at most DYN_LANE_UNITS).
var<private> dyn_lane_ran: u32;
// A stage whose chain of `become`s to itself runs in a loop (the generated dyn_execute case):
// the body's `become` put the next payload in dyn_next_S and set this.
var<private> dyn_again: bool;
// The range window the lane takes indices from, for a chain refilled from it (DYN_REFILL; docs/
// executor.md, "Refills"): its first index, its length (0 once empty, or when the window's stage
// is not the refill's feeder), its recursion counter, and the feeder's units run by refills.
var<private> dyn_win_lo: u32;
var<private> dyn_win_n: u32;
var<private> dyn_win_rec: u32;
var<private> dyn_refills: u32;
// Lane 0's: whether this worker has set `marks_left` in this launch (it sets it once; private,
// not workgroup memory, which the program's own arrays may need).
var<private> dyn_said_marks_left: bool;
// The idle worker's random draw of shards, stepped every idle step (dyn_prescan).
var<private> dyn_probe_seed: u32;
// Frames of each worker's stack (dyn_stack_setup): the host's reserve.
var<private> dyn_reserve: u32;
// The ring's shards (dyn_shard_setup): how many, slots in each, and this worker's home shard.
var<private> dyn_shards: u32;
var<private> dyn_shard_slots: u32;
var<private> dyn_home: u32;
// The lane's unit found no room in a stream window and was staged again (dyn_defer): it did not
// run, and the lane runs nothing more this batch.
var<private> dyn_lane_deferred: bool;

// ---- docs/executor.md, "The arena" to "Ring protocol" ----

// The host's reserve of frames a worker (0: DYN_STACK_FRAMES, as a zeroed uniform leaves it);
// the generated dyn_load_params calls it, so every kernel finds the arena's parts.
fn dyn_stack_setup() {
    dyn_reserve = dyn_uniform_reserve();
}

// The same, read from the uniform where a barrier depends on it: a private variable is not
// uniform to WGSL's analysis (Tint rejects the barrier), the uniform buffer is.
fn dyn_uniform_reserve() -> u32 {
    return select(DYN_STACK_FRAMES, dyn_params.dyn_stack_frames, dyn_params.dyn_stack_frames != 0u);
}

fn dyn_ring_state(slot: u32) -> u32 {
    return dyn_params.dyn_workers * (2u + dyn_reserve * DYN_FRAME_WORDS) + slot;
}

fn dyn_ring_frame(slot: u32) -> u32 {
    let slots = dyn_params.dyn_ring_slots;
    return dyn_params.dyn_workers * (2u + dyn_reserve * DYN_FRAME_WORDS) + slots
        + slot * DYN_FRAME_WORDS;
}

// A worker's stack is a circular buffer of dyn_reserve frames: its live frames are the
// positions bottom .. top (docs/executor.md, "Lending the oldest frames"), both below
// 2 * dyn_reserve, so one subtraction maps a position to its frame.
fn dyn_stack_frame(worker: u32, position: u32) -> u32 {
    let index = select(position, position - dyn_reserve, position >= dyn_reserve);
    return 2u * dyn_params.dyn_workers + (worker * dyn_reserve + index) * DYN_FRAME_WORDS;
}

// The recursion counter of the arena frame at `f` whose head is `head` (the prescan's copy:
// a counter kept in the head costs no load).
fn dyn_head_rec(f: u32, head: u32) -> u32 {
    if (DYN_REC_WORD) {
        return atomicLoad(&dyn_arena[f + DYN_F_REC]);
    }
    return (head & 0xFFFFu) >> DYN_REC_SHIFT;
}

// The same for a frame whose head is not in hand: loaded only where it holds a counter.
fn dyn_frame_rec(f: u32) -> u32 {
    if (DYN_REC_WORD || DYN_REC_SHIFT == 16u) {
        return dyn_head_rec(f, 0u);
    }
    return dyn_head_rec(f, atomicLoad(&dyn_arena[f]));
}

// Starts the arena frame at `f` a new count, after its head was written (a head written with a
// bare stage holds a count of 0).
fn dyn_clear_rec(f: u32) {
    if (DYN_REC_WORD) {
        atomicStore(&dyn_arena[f + DYN_F_REC], 0u);
    }
}

// Lane 0 only. The most units a batch may run when the frames it touches leave `left` frames
// on the stack and the shallowest of them has depth `depth`: its new frames (at most
// DYN_UNIT_FRAMES a unit, carries at `depth`, children deeper) then keep the reserve rule
// (docs/executor.md, "Why the stack fits in its reserve"). At least 1 for the top frame's first
// index, which the rule guarantees; 0 only past it.
fn dyn_unit_room(left: u32, depth: u32) -> u32 {
    let slots = (dyn_reserve - min(left, dyn_reserve)) / DYN_UNIT_FRAMES;
    let deeper = DYN_MAX_DEPTH - min(depth, DYN_MAX_DEPTH);
    return slots - min(slots, deeper);
}

// The two words a worker keeps between launches: its stack's top and bottom positions.
fn dyn_stack_words(worker: u32) -> u32 {
    return 2u * worker;
}

// The ring is split into shards, each a ring of its own with its head and tail on a control
// line of their own (docs/executor.md, "Ring shards"): about one shard per DYN_SHARD_WORKERS
// workers, a power of two, at most DYN_MAX_SHARDS, and at least DYN_MIN_SHARD_SLOTS slots each
// (so a small ring is one shard). Worker `me` publishes to its home shard `me % shards`.
fn dyn_shard_setup(me: u32) {
    let slots = dyn_params.dyn_ring_slots;
    let by_workers = max(1u, dyn_params.dyn_workers / DYN_SHARD_WORKERS);
    let by_slots = max(1u, slots / DYN_MIN_SHARD_SLOTS);
    dyn_shards = 1u << firstLeadingBit(min(min(by_workers, by_slots), DYN_MAX_SHARDS));
    dyn_shard_slots = slots / dyn_shards;
    dyn_home = me & (dyn_shards - 1u);
}

fn dyn_shard_head(shard: u32) -> u32 {
    return DYN_C_SHARDS + shard * DYN_LINE_WORDS;
}

fn dyn_shard_tail(shard: u32) -> u32 {
    return DYN_C_SHARDS + shard * DYN_LINE_WORDS + 1u;
}

// The ring slot (0 .. ring_slots) of ticket t of a shard: shard s owns slots
// s * shard_slots .. (s + 1) * shard_slots.
fn dyn_slot(shard: u32, t: u32) -> u32 {
    return shard * dyn_shard_slots + (t & (dyn_shard_slots - 1u));
}

// Slot states, per ticket t of a shard in its slot s = t % shard_slots (a power of two, so
// tickets may wrap): t - s means empty and ready for t; t - s + 1 means t is published. A
// consumer of t stores t - s + shard_slots, making the slot ready for t + shard_slots.
fn dyn_ticket_base(t: u32) -> u32 {
    return t - (t & (dyn_shard_slots - 1u));
}

// Records the first error and stops the run. Any lane may call it.
fn dyn_fail(code: u32, stage: u32, value: u32, bound: u32) {
    let first = atomicCompareExchangeWeak(&dyn_control[DYN_C_ERROR], 0u, code);
    if (first.exchanged) {
        atomicStore(&dyn_control[DYN_C_ERROR + 1u], stage);
        atomicStore(&dyn_control[DYN_C_ERROR + 2u], value);
        atomicStore(&dyn_control[DYN_C_ERROR + 3u], bound);
    }
    dyn_stop();
}

// Ends the run now (an error, or the megakernel schedule's dyn_finish): the persistent kernel's
// done flag, the host's done word (the same word without dispatches) and empty launches from
// here on.
fn dyn_stop() {
    atomicStore(&dyn_control[DYN_C_DONE], 1u);
    atomicStore(&dyn_control[DYN_C_COMPLETE], 1u);
    atomicStore(&dyn_control[DYN_C_ARGS], 0u);
}

// How many of the `n` slots of `shard` from ticket `t` are ready for `state(ticket)`, counted
// from `t` until the first that is not (one load after another).
fn dyn_ring_run(shard: u32, t: u32, n: u32, published: u32) -> u32 {
    var k = 0u;
    for (; k < n; k++) {
        let tk = t + k;
        if (atomicLoad(&dyn_arena[dyn_ring_state(dyn_slot(shard, tk))]) != dyn_ticket_base(tk) + published) {
            break;
        }
    }
    return k;
}

// Every lane: the same count as dyn_ring_run(shard, base, n, published), with one load per lane
// instead of `n` in a row. Lane 0 has written `shard`, `base` and `n` to dyn_wg_scan; the result
// is in dyn_wg_scan_run for lane 0 after the closing barrier. (A few attempts of lane 0 alone
// follow when the compare-and-swap this prepares loses a race.)
fn dyn_ring_scan(lid: u32, published: u32) {
    let scan = workgroupUniformLoad(&dyn_wg_scan);
    let shard = scan[0];
    let base = scan[1];
    let n = scan[2];
    if (n == 0u) {
        // Nothing to check (a batch that spawned nothing): skip the barrier too.
        return;
    }
    for (var j = lid; j < n; j += DYN_WG) {
        let t = base + j;
        if (atomicLoad(&dyn_arena[dyn_ring_state(dyn_slot(shard, t))]) != dyn_ticket_base(t) + published) {
            atomicMin(&dyn_wg_scan_run, j);
        }
    }
    workgroupBarrier();
}

// Consecutive tickets of one shard, taken by a reservation or a claim (count 0: none).
struct DynTickets {
    count: u32,
    first: u32,
    shard: u32,
}

// Lane 0 only. Reserves up to `n` consecutive empty ring slots, the first attempt taking `k0`
// slots from ticket `t0` of the home shard (found empty by a scan); `home_head` is the home
// shard's head as the caller read it for dyn_lend_budget (for the high-water mark). A race (a
// compare-and-swap lost to another producer of the shard, or a tail that moved since it was
// read) moves on to the next shard; an attempt that finds its shard's next slot taken with the
// tail unmoved finds the shard full: no room. Bounded: DYN_CAS_ATTEMPTS attempts, never a wait.
fn dyn_ring_reserve(n: u32, t0: u32, k0: u32, home_head: u32) -> DynTickets {
    let none = DynTickets(0u, 0u, 0u);
    if (n == 0u) {
        return none;
    }
    var shard = dyn_home;
    var t = t0;
    var k = k0;
    for (var attempt = 0u; attempt < DYN_CAS_ATTEMPTS; attempt++) {
        if (attempt > 0u) {
            k = dyn_ring_run(shard, t, n, 0u);
        }
        var now = t;
        if (k > 0u) {
            let r = atomicCompareExchangeWeak(&dyn_control[dyn_shard_tail(shard)], t, t + k);
            if (r.exchanged) {
                // Occupancy of this shard, scaled to the whole ring (the ring as full as this
                // shard): what the sizing policy compares with the ring's slots.
                var head = home_head;
                if (shard != dyn_home) {
                    head = atomicLoad(&dyn_control[dyn_shard_head(shard)]);
                }
                let used = min(t + k - head, dyn_shard_slots) * dyn_shards;
                dyn_wg_stats[DYN_S_RING_HIGH_WATER] = max(dyn_wg_stats[DYN_S_RING_HIGH_WATER], used);
                return DynTickets(k, t, shard);
            }
            now = r.old_value;
        } else {
            now = atomicLoad(&dyn_control[dyn_shard_tail(shard)]);
            if (now == t) {
                // The slot at the tail is not empty yet: the shard is full.
                return none;
            }
        }
        // Lost a race: another producer of this shard moved its tail. Try the next shard (one
        // shard: this one again, from the tail the winner left).
        if (dyn_shards > 1u) {
            shard = (shard + 1u) & (dyn_shards - 1u);
            now = atomicLoad(&dyn_control[dyn_shard_tail(shard)]);
        }
        t = now;
    }
    dyn_wg_stats[DYN_S_RESERVES_LOST] += 1u;
    return none;
}

// Lane 0 only. Claims up to `n` (at most DYN_BATCH) published frames from the head of `shard`,
// the first attempt taking `k0` frames from ticket `h0` (found published by a scan).
fn dyn_ring_claim(shard: u32, h0: u32, k0: u32, n: u32) -> DynTickets {
    let none = DynTickets(0u, 0u, 0u);
    var h = h0;
    var k = k0;
    for (var attempt = 0u; attempt < DYN_CAS_ATTEMPTS; attempt++) {
        if (attempt > 0u) {
            k = dyn_ring_run(shard, h, n, 1u);
        }
        if (k == 0u) {
            return none;
        }
        let r = atomicCompareExchangeWeak(&dyn_control[dyn_shard_head(shard)], h, h + k);
        if (r.exchanged) {
            return DynTickets(k, h, shard);
        }
        h = r.old_value;
    }
    dyn_wg_stats[DYN_S_CLAIMS_LOST] += 1u;
    return none;
}

// Every lane: copies claimed ring frames onto the stack, then frees their slots.
fn dyn_take_claimed(me: u32, lid: u32, cmd: array<u32, 4>) {
    let ticket = cmd[1];
    let count = cmd[2];
    let shard = cmd[3];
    storageBarrier();
    for (var j = lid; j < count * DYN_FRAME_WORDS; j += DYN_WG) {
        let n = j / DYN_FRAME_WORDS;
        let w = j % DYN_FRAME_WORDS;
        let v = atomicLoad(&dyn_arena[dyn_ring_frame(dyn_slot(shard, ticket + n)) + w]);
        atomicStore(&dyn_arena[dyn_stack_frame(me, dyn_wg_stack.top + n) + w], v);
    }
    storageBarrier();
    for (var n = lid; n < count; n += DYN_WG) {
        let t = ticket + n;
        atomicStore(&dyn_arena[dyn_ring_state(dyn_slot(shard, t))], dyn_ticket_base(t) + dyn_shard_slots);
    }
    workgroupBarrier();
    if (lid == 0u) {
        dyn_wg_stack.top += count;
        dyn_wg_stats[DYN_S_STACK_HIGH_WATER] = max(dyn_wg_stats[DYN_S_STACK_HIGH_WATER], count);
    }
}

// Seeds the entry's work: dyn_entry_count() units as fan-out frames in the ring, ticket 0 of
// shards 0, 1, ... (The first round of a graph-level loop; an empty one still runs, to evaluate
// `until`.)
@compute @workgroup_size(1)
fn dyn_init() {
    dyn_load_params();
    dyn_shard_setup(0u);
    dyn_streams_init();
    let count = dyn_entry_count();
    atomicStore(&dyn_control[DYN_C_ARGS + 1u], 1u);
    atomicStore(&dyn_control[DYN_C_ARGS + 2u], 1u);
    // Nothing for the persistent kernel (the partitioned schedule dispatched the entry, and so
    // every stage it reaches, or the entry is empty): one worker finds nothing pending and calls
    // dyn_finish, or ends a graph-level loop's empty round.
    if (dyn_seed_queues() || count == 0u) {
        atomicStore(&dyn_control[DYN_C_ARGS], 1u);
        return;
    }
    // One piece per shard, each at least dyn_split_width indices (as wide as a worker's split
    // leaves a range), published as ticket 0 of shards 0, 1, ..: every shard's workers start at
    // once, instead of after the log2(shards) rounds of splits that would bring work to them.
    let pieces = clamp(count / dyn_split_width(dyn_entry_stage()), 1u, dyn_shards);
    let share = count / pieces;
    let extra = count % pieces;
    for (var s = 0u; s < pieces; s++) {
        let slot = dyn_slot(s, 0u);
        let f = dyn_ring_frame(slot);
        atomicStore(&dyn_arena[f], dyn_entry_stage());
        atomicStore(&dyn_arena[f + DYN_F_LO], s * share + min(s, extra));
        atomicStore(&dyn_arena[f + DYN_F_HI], (s + 1u) * share + min(s + 1u, extra));
        dyn_clear_rec(f);
        atomicStore(&dyn_arena[dyn_ring_state(slot)], 1u);
        atomicStore(&dyn_control[dyn_shard_tail(s)], 1u);
    }
    atomicStore(&dyn_control[DYN_C_PENDING], pieces);
    atomicStore(&dyn_control[DYN_C_ARGS], dyn_params.dyn_workers);
}

// ---- docs/executor.md, "A worker's loop (one launch)" ----

@compute @workgroup_size(DYN_WG)
fn dyn_main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    dyn_load_params();
    // Two rows: the check launch that follows dyn_finish with queues; it runs only when the
    // chain's dispatches did not (they empty it), and then fails the run (stdlib/queues.wgsl).
    if (groups.y > 1u) {
        if (lid == 0u && wid.y == 0u) {
            dyn_check_dispatches();
        }
        return;
    }
    let me = wid.x;
    dyn_shard_setup(me);
    dyn_probe_seed = me;
    dyn_streams_setup();
    if (lid == 0u) {
        dyn_wg_stack.top = atomicLoad(&dyn_arena[dyn_stack_words(me)]);
        dyn_wg_stack.bottom = atomicLoad(&dyn_arena[dyn_stack_words(me) + 1u]);
        dyn_wg_fuel = max(dyn_params.dyn_fuel, 1u);
        dyn_wg_idle = 0u;
        dyn_wg_seen_pending = 0u;
        dyn_wg_seen_progress = 0u;
        dyn_wg_stats = array<u32, DYN_S_COUNT>();
        atomicStore(&dyn_wg_lane_units, 0u);
        if (me == 0u) {
            atomicAdd(&dyn_control[DYN_C_LAUNCHES], 1u);
        }
    }
    for (var s = lid; s < DYN_STAGES; s += DYN_WG) {
        atomicStore(&dyn_wg_units[s], 0u);
    }
    dyn_accumulators_init(lid);
    // Bounded by the fuel: dyn_plan answers EXIT once it is spent.
    loop {
        storageBarrier();
        dyn_prescan(me, lid);
        if (lid == 0u) {
            dyn_plan(me);
        }
        let cmd = workgroupUniformLoad(&dyn_wg_cmd);
        if (cmd[0] == DYN_CMD_EXIT) {
            break;
        }
        if (cmd[0] == DYN_CMD_CLAIM) {
            dyn_take_claimed(me, lid, cmd);
        } else if (cmd[0] == DYN_CMD_ROUND) {
            // Acquire: every unit of the round wrote its results before its workgroup took
            // `pending` down; `until` and the next round read them.
            storageBarrier();
            var give_back = false;
            if (lid == 0u) {
                give_back = dyn_end_round(me);
            }
            // Release: the done flag, the round count and what `until` wrote are visible before
            // `pending` reads 0 again (whoever takes it next checks the done flag first).
            storageBarrier();
            if (give_back) {
                atomicStore(&dyn_control[DYN_C_PENDING], 0u);
            }
        } else if (cmd[0] == DYN_CMD_GATHER || cmd[0] == DYN_CMD_RANGE || cmd[0] >= DYN_CMD_WIDE) {
            if (cmd[0] == DYN_CMD_RANGE || (cmd[0] >= DYN_CMD_WIDE && ((cmd[0] - DYN_CMD_WIDE) & 1u) != 0u)) {
                let split = workgroupUniformLoad(&dyn_wg_split);
                if (split != 0u) {
                    dyn_publish_split(lid, split);
                }
            }
            // (DYN_WIDE: a program without wide stages compiles without the wide path.)
            if (DYN_WIDE && cmd[0] >= DYN_CMD_WIDE) {
                dyn_run_wide(me, lid, cmd);
            } else {
                dyn_run_lane(me, lid, cmd);
            }
            workgroupBarrier();
            storageBarrier();
            dyn_publish(me, lid, cmd);
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        atomicStore(&dyn_arena[dyn_stack_words(me)], dyn_wg_stack.top);
        atomicStore(&dyn_arena[dyn_stack_words(me) + 1u], dyn_wg_stack.bottom);
        dyn_flush_stats();
    }
    dyn_accumulators_flush(lid);
    for (var s = lid; s < DYN_STAGES; s += DYN_WG) {
        let n = atomicLoad(&dyn_wg_units[s]);
        if (n != 0u) {
            atomicAdd(&dyn_control[DYN_C_UNITS + s], n);
        }
    }
}

// The u32 PCG hash: the idle workers' random order of shards (dyn_prescan).
fn dyn_hash(x: u32) -> u32 {
    let s = x * 747796405u + 2891336453u;
    let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}

// Every lane, before lane 0 plans: the loads the plan needs, one per lane instead of a row of
// them in lane 0. With an empty stack: a shard with queued frames drawn at random, each with a
// chance that grows with its queue (one probe of each shard, the lanes in parallel), and how
// many frames after its head are published (no scan when every shard is empty). Else: the
// index count, first index and head of each frame from the stack top down, up to a batch, and
// (dyn_gather_scan) which of them a gathered batch takes whole.
fn dyn_prescan(me: u32, lid: u32) {
    let stack = workgroupUniformLoad(&dyn_wg_stack);
    let top = stack.top;
    if (top == stack.bottom) {
        if (lid == 0u) {
            atomicStore(&dyn_wg_probe, DYN_NO_PROBE);
        }
        // A new draw every idle step, the same in every lane (each lane steps its own copy).
        dyn_probe_seed = dyn_hash(dyn_probe_seed + 1u);
        workgroupBarrier();
        for (var j = lid; j < dyn_shards; j += DYN_WG) {
            let shard = (dyn_home + j) & (dyn_shards - 1u);
            // Head first: the tail read after it is at least as far on.
            let head = atomicLoad(&dyn_control[dyn_shard_head(shard)]);
            let queued = atomicLoad(&dyn_control[dyn_shard_tail(shard)]) - head;
            if (queued != 0u) {
                // The smallest key wins: a random rank, divided by the queue, so that idle
                // workers spread over the shards with work in proportion to it instead of all
                // meeting on the nearest one (docs/executor.md, "Ring shards").
                let rank = (dyn_hash(j ^ dyn_probe_seed) >> 8u) / queued;
                atomicMin(&dyn_wg_probe, (rank << 8u) | j);
            }
        }
        workgroupBarrier();
        if (lid == 0u) {
            let probe = atomicLoad(&dyn_wg_probe);
            var shard = dyn_home;
            var head = 0u;
            var n = 0u;
            if (probe != DYN_NO_PROBE) {
                let j = probe & DYN_PROBE_SHARD;
                shard = (dyn_home + j) & (dyn_shards - 1u);
                head = atomicLoad(&dyn_control[dyn_shard_head(shard)]);
                let queued = atomicLoad(&dyn_control[dyn_shard_tail(shard)]) - head;
                // At most half of what is queued (at least one frame): a hungry worker leaves
                // the rest to the others instead of hoarding a batch of frames, each maybe a big
                // range.
                if (queued != 0u) {
                    n = min(DYN_BATCH, max(1u, queued / 2u));
                }
            }
            dyn_wg_scan = array<u32, 3>(shard, head, n);
            atomicStore(&dyn_wg_scan_run, n);
        }
        dyn_ring_scan(lid, 1u);
        return;
    }
    let height = top - stack.bottom;
    let n = min(height, DYN_BATCH);
    if (lid < n) {
        let g = dyn_stack_frame(me, top - 1u - lid);
        let head = atomicLoad(&dyn_arena[g]);
        let lo = atomicLoad(&dyn_arena[g + DYN_F_LO]);
        dyn_wg_sizes[lid] = atomicLoad(&dyn_arena[g + DYN_F_HI]) - lo;
        dyn_wg_los[lid] = lo;
        dyn_wg_heads[lid] = head;
    }
    if (lid == 0u) {
        atomicStore(&dyn_wg_full, n);
    }
    // The top frame decides: one wider than a batch is a range window, else a gathered batch,
    // whose frames the lanes weigh together.
    if (workgroupUniformLoad(&dyn_wg_sizes[0]) <= DYN_BATCH) {
        dyn_gather_scan(lid, n, height);
    }
}

// Every lane: which of the top `n` frames (of `height`) a gathered batch takes whole, by the
// rule dyn_gather states, as a prefix scan instead of lane 0 walking the frames one by one.
// Frame j is taken whole when every frame above it is and its lanes end within the batch and
// within dyn_unit_room of what stays below it at the shallowest depth so far. Leaves in
// dyn_wg_pack[j + 1] that depth << DYN_DEPTH_SHIFT | the index count of frames 0 .. j (each
// counted at most DYN_BATCH + 1: the sum stays below the depth bits, and a frame wider than a
// batch still fails), and in dyn_wg_full the first frame not taken whole.
fn dyn_gather_scan(lid: u32, n: u32, height: u32) {
    var size = 0u;
    var depth = DYN_MAX_DEPTH;
    var blocked = false;
    if (lid < n) {
        let head = dyn_wg_heads[lid];
        size = min(dyn_wg_sizes[lid], DYN_BATCH + 1u);
        depth = min(head >> DYN_DEPTH_SHIFT, DYN_MAX_DEPTH);
        blocked = dyn_ends_gather(head);
    }
    var acc = (depth << DYN_DEPTH_SHIFT) | size;
    if (lid == 0u) {
        dyn_wg_pack[0] = DYN_MAX_DEPTH << DYN_DEPTH_SHIFT;
    }
    // Hillis-Steele over the n frames (n is uniform: it comes from the stack's positions), two
    // buffers so that a step needs one barrier: steps of 1, 4, 16, ... read dyn_wg_pack and
    // write dyn_wg_scan_half, steps of 2, 8, 32, ... the other way (a step of n or more only
    // copies). A short stack takes fewer steps.
    if (lid < DYN_BATCH) {
        dyn_wg_pack[lid + 1u] = acc;
    }
    workgroupBarrier();
    for (var step = 1u; step < n; step <<= 2u) {
        if (lid >= step && lid < DYN_BATCH) {
            acc = dyn_pack_join(dyn_wg_pack[lid + 1u - step], acc);
        }
        if (lid < DYN_BATCH) {
            dyn_wg_scan_half[lid] = acc;
        }
        workgroupBarrier();
        if (lid >= 2u * step && lid < DYN_BATCH) {
            acc = dyn_pack_join(dyn_wg_scan_half[lid - 2u * step], acc);
        }
        if (lid < DYN_BATCH) {
            dyn_wg_pack[lid + 1u] = acc;
        }
        workgroupBarrier();
    }
    if (lid < n) {
        let count = acc & DYN_PACK_LANES;
        let room = min(DYN_BATCH, dyn_unit_room(height - lid - 1u, acc >> DYN_DEPTH_SHIFT));
        if (blocked || count - size >= DYN_BATCH || count > room) {
            atomicMin(&dyn_wg_full, lid);
        }
    }
    workgroupBarrier();
}

// A frame of a wide stage (its head given) ends a gathered batch: its units need groups of lanes.
fn dyn_ends_gather(head: u32) -> bool {
    return DYN_WIDE && dyn_width(head & DYN_STAGE_MASK) > 1u;
}

// Two packed scan words, `above` for the frames before: the shallower depth (the words compare
// as their depths do), the index counts added.
fn dyn_pack_join(above: u32, word: u32) -> u32 {
    return (min(above, word) & ~DYN_PACK_LANES) + (above & DYN_PACK_LANES) + (word & DYN_PACK_LANES);
}

// Lane 0 only: decides what the workgroup does next and writes it to dyn_wg_cmd.
fn dyn_plan(me: u32) {
    dyn_wg_cmd = array<u32, 4>(DYN_CMD_NONE, 0u, 0u, 0u);
    atomicStore(&dyn_wg_n_carry, 0u);
    atomicStore(&dyn_wg_n_defer, 0u);
    atomicStore(&dyn_wg_n_child, 0u);
    atomicStore(&dyn_wg_n_keyed, 0u);
    atomicStore(&dyn_wg_finished, 0u);
    dyn_wg_exhausted = 0u;
    dyn_wg_split = 0u;
    // With frames on its stack a worker reads `done` only every DYN_DONE_POLL steps: only a
    // kernel error (dyn_fail) sets it while frames are pending anywhere, and a round trip to
    // memory a batch is worth more than stopping a few batches sooner after an error.
    let polls = dyn_wg_stack.top == dyn_wg_stack.bottom || dyn_wg_fuel % DYN_DONE_POLL == 0u;
    if (polls && atomicLoad(&dyn_control[DYN_C_DONE]) != 0u) {
        dyn_wg_cmd[0] = DYN_CMD_EXIT;
        return;
    }
    // A stream window is full: leave, so that the host can drain it (the units that found no
    // room wait on the stacks and in the ring).
    if (DYN_STREAMS && atomicLoad(&dyn_control[DYN_C_STREAM_FULL]) != 0u) {
        dyn_wg_cmd[0] = DYN_CMD_EXIT;
        return;
    }
    if (dyn_wg_fuel == 0u) {
        if (dyn_wg_stack.top != dyn_wg_stack.bottom) {
            dyn_wg_stats[DYN_S_FUEL_EXHAUSTED] += 1u;
        }
        dyn_wg_cmd[0] = DYN_CMD_EXIT;
        return;
    }
    dyn_wg_fuel -= 1u;
    if (dyn_wg_stack.top == dyn_wg_stack.bottom) {
        let claimed = dyn_ring_claim(dyn_wg_scan[0], dyn_wg_scan[1], atomicLoad(&dyn_wg_scan_run), dyn_wg_scan[2]);
        if (claimed.count > 0u) {
            dyn_wg_idle = 0u;
            dyn_wg_cmd = array<u32, 4>(DYN_CMD_CLAIM, claimed.first, claimed.count, claimed.shard);
            return;
        }
        // Read before the sweep: 0 means no work exists (set marks count in it), and nothing
        // could make any.
        let pending = atomicLoad(&dyn_control[DYN_C_PENDING]);
        let swept = dyn_sweep(me, pending, dyn_wg_scan[2] != 0u);
        if (swept > 0u) {
            dyn_wg_idle = 0u;
            dyn_wg_stack.top += swept;
            return;
        }
        if (pending == 0u) {
            if (!DYN_LOOP) {
                dyn_finish();
                dyn_wg_cmd[0] = DYN_CMD_EXIT;
                return;
            }
            // No work exists, so nothing else can raise `pending`: whoever moves it from 0 to 1
            // is the only one to end this round, and holds the unit that stands for the next.
            if (atomicCompareExchangeWeak(&dyn_control[DYN_C_PENDING], 0u, 1u).exchanged) {
                dyn_wg_idle = 0u;
                dyn_wg_cmd[0] = DYN_CMD_ROUND;
                return;
            }
        }
        dyn_wg_stats[DYN_S_IDLE_STEPS] += 1u;
        // Others are still finishing work (and may lend some): keep polling while `pending` or
        // `progress` moves; leave after DYN_IDLE_LIMIT steps in a row without a change (fuel
        // bounds both).
        let progress = atomicLoad(&dyn_control[DYN_C_PROGRESS]);
        if (pending != dyn_wg_seen_pending || progress != dyn_wg_seen_progress) {
            dyn_wg_seen_pending = pending;
            dyn_wg_seen_progress = progress;
            dyn_wg_idle = 0u;
        }
        dyn_wg_idle += 1u;
        if (dyn_wg_idle > DYN_IDLE_LIMIT) {
            dyn_wg_cmd[0] = DYN_CMD_EXIT;
        }
        return;
    }
    dyn_wg_idle = 0u;
    dyn_wg_stats[DYN_S_BATCHES] += 1u;
    let top = dyn_wg_stack.top - 1u;
    let f = dyn_stack_frame(me, top);
    let lo = dyn_wg_los[0];
    var hi = lo + dyn_wg_sizes[0];
    // Units of a wide stage per batch; its batches hold that one stage only.
    var groups = 0u;
    var stage = 0u;
    if (DYN_WIDE) {
        stage = dyn_wg_heads[0] & DYN_STAGE_MASK;
        groups = dyn_wide_groups(stage);
    }
    if (groups == 0u && hi - lo <= DYN_BATCH) {
        dyn_gather(me);
        return;
    }
    if (groups == 0u) {
        stage = dyn_wg_heads[0] & DYN_STAGE_MASK;
    }
    let height = dyn_wg_stack.top - dyn_wg_stack.bottom;
    dyn_wg_depth = dyn_wg_heads[0] >> DYN_DEPTH_SHIFT;
    if (hi - lo > 1u) {
        // A fan-out range: lend its upper half while the ring is short of work (lazy binary
        // splitting), then offer the lanes a window of the lower half.
        var window = DYN_BATCH * DYN_RANGE_WINDOW;
        var split_width = dyn_split_width(stage);
        if (groups > 0u) {
            window = groups;
            split_width = 2u * groups;
        }
        var room = DynTickets(0u, 0u, 0u);
        if (hi - lo > split_width) {
            let tail = atomicLoad(&dyn_control[dyn_shard_tail(dyn_home)]);
            let head = atomicLoad(&dyn_control[dyn_shard_head(dyn_home)]);
            if (dyn_lend_budget(dyn_lend_want(tail, head), tail, head) > 0u) {
                room = dyn_ring_reserve(1u, tail, dyn_ring_run(dyn_home, tail, 1u, 0u), head);
            }
        }
        if (room.count == 1u) {
            let mid = lo + (hi - lo) / 2u;
            dyn_wg_split = room.first + 1u;
            dyn_wg_split_shard = room.shard;
            // Copy the frame now: the stack above it may be rewritten before the split is published.
            for (var w = 0u; w < DYN_FRAME_WORDS; w++) {
                dyn_wg_staging[DYN_SPLIT_SLOT * DYN_FRAME_WORDS + w] = atomicLoad(&dyn_arena[f + w]);
            }
            dyn_wg_staging[DYN_SPLIT_SLOT * DYN_FRAME_WORDS + DYN_F_LO] = mid;
            hi = mid;
            atomicStore(&dyn_arena[f + DYN_F_HI], mid);
            // Counted before it is published (dyn_publish_split), as every frame is.
            atomicAdd(&dyn_control[DYN_C_PENDING], 1u);
            dyn_wg_stats[DYN_S_SPLITS] += 1u;
        }
        // The frame stays (or leaves) whatever the lanes take: `height` frames are left.
        let units_room = dyn_unit_room(height, dyn_wg_depth);
        let count = min(window, hi - lo);
        if (groups > 0u) {
            let units = min(count, units_room);
            atomicStore(&dyn_arena[f + DYN_F_LO], lo + units);
            if (lo + units == hi) {
                dyn_wg_stack.top = top;
                dyn_wg_exhausted = 1u;
            }
            dyn_wg_cmd = array<u32, 4>(DYN_CMD_WIDE + (stage << 1u) + 1u, top, units, lo);
            return;
        }
        // How much of the window the lanes take is known after the batch (dyn_range_taken).
        dyn_wg_lanes = min(DYN_WG, units_room);
        atomicStore(&dyn_wg_next, min(count, dyn_wg_lanes));
        dyn_wg_cmd = array<u32, 4>(DYN_CMD_RANGE, top, count, lo);
        return;
    }
    // Single frames of the wide stage: the run of them from the top, up to its groups and as
    // many as the reserve rule allows (each taken frame leaves the stack).
    let n = min(min(height, DYN_BATCH), groups);
    var count = 1u;
    while (count < n && dyn_wg_sizes[count] == 1u && (dyn_wg_heads[count] & DYN_STAGE_MASK) == stage) {
        let depth = min(dyn_wg_depth, dyn_wg_heads[count] >> DYN_DEPTH_SHIFT);
        if (count + 1u > dyn_unit_room(height - count - 1u, depth)) {
            break;
        }
        dyn_wg_depth = depth;
        count++;
    }
    dyn_wg_stack.top -= count;
    dyn_wg_cmd = array<u32, 4>(DYN_CMD_WIDE + (stage << 1u), dyn_wg_stack.top, count, 0u);
}

// Lane 0 only: the statistics of this launch into the control block.
fn dyn_flush_stats() {
    let sums = array<u32, 7>(DYN_C_FALLBACKS, DYN_C_SPLITS, DYN_C_RESERVES_LOST, DYN_C_CLAIMS_LOST,
                             DYN_C_BATCHES, DYN_C_IDLE_STEPS, DYN_C_FUEL_EXHAUSTED);
    for (var i = 0u; i < 7u; i++) {
        if (dyn_wg_stats[i] != 0u) {
            atomicAdd(&dyn_control[sums[i]], dyn_wg_stats[i]);
        }
    }
    if (dyn_wg_stats[DYN_S_OLD_LENT] != 0u) {
        atomicAdd(&dyn_control[DYN_C_OLD_LENT], dyn_wg_stats[DYN_S_OLD_LENT]);
    }
    atomicMax(&dyn_control[DYN_C_STACK_HIGH_WATER], dyn_wg_stats[DYN_S_STACK_HIGH_WATER]);
    atomicMax(&dyn_control[DYN_C_RING_HIGH_WATER], dyn_wg_stats[DYN_S_RING_HIGH_WATER]);
    let lane_units = atomicLoad(&dyn_wg_lane_units);
    if (lane_units != 0u) {
        atomicAdd(&dyn_control[DYN_C_LANE_UNITS], lane_units);
    }
    if (dyn_wg_stats[DYN_S_BATCHES] != 0u) {
        atomicAdd(&dyn_control[DYN_C_BUSY_WORKERS], 1u);
    }
}

// ---- docs/executor.md, "Forming a batch" ----

// Lane 0 only: a batch of up to DYN_BATCH indices from the top frames, whatever their sizes
// (singles and small ranges alike), the last one taken in part if it does not fit; stops at a
// frame of a wide stage, and where the reserve rule allows no more units (dyn_unit_room: a frame
// taken whole leaves the stack, one taken in part stays). At least the top frame's first index
// is taken. The frames taken whole came from dyn_gather_scan; this takes the next in part.
fn dyn_gather(me: u32) {
    let top = dyn_wg_stack.top;
    let height = top - dyn_wg_stack.bottom;
    let full = atomicLoad(&dyn_wg_full);
    var count = dyn_wg_pack[full] & DYN_PACK_LANES;
    var depth = dyn_wg_pack[full] >> DYN_DEPTH_SHIFT;
    var frames = full;
    if (full < min(height, DYN_BATCH) && count < DYN_BATCH && !dyn_ends_gather(dyn_wg_heads[full])) {
        // The frame stays: `height - full` frames are left.
        let d = min(depth, dyn_wg_heads[full] >> DYN_DEPTH_SHIFT);
        let room = min(DYN_BATCH, dyn_unit_room(height - full, d));
        if (room > count) {
            // The rest of this frame stays where it is, its first index moved on.
            atomicStore(&dyn_arena[dyn_stack_frame(me, top - 1u - full) + DYN_F_LO], dyn_wg_los[full] + room - count);
            count = room;
            depth = d;
            frames++;
            dyn_wg_pack[frames] = count;
        }
    }
    dyn_wg_depth = depth;
    dyn_wg_stack.top = top - full;
    dyn_wg_cmd = array<u32, 4>(DYN_CMD_GATHER, frames, count, top);
}

// The payload of the frame at word `f` into the lane's unit words.
fn dyn_load_unit(f: u32) {
    for (var w = 0u; w < DYN_PAYLOAD_WORDS; w++) {
        dyn_unit_words[w] = atomicLoad(&dyn_arena[f + DYN_FRAME_HEADER + w]);
    }
}

// One lane's first unit of the batch: index lid of a range window, or lane lid of a gathered
// batch (a binary search of dyn_wg_pack finds its frame).
fn dyn_run_lane(me: u32, lid: u32, cmd: array<u32, 4>) {
    if (lid >= cmd[2]) {
        return;
    }
    // Every unit this lane runs now belongs to the current round: the next one begins only
    // after all of them have finished. (Without a loop the round stays 0: no load.)
    if (DYN_LOOP) {
        dyn_round_index = atomicLoad(&dyn_control[DYN_C_ROUNDS]);
    }
    if (cmd[0] == DYN_CMD_RANGE) {
        if (lid >= dyn_wg_lanes) {
            return;
        }
        let f = dyn_stack_frame(me, cmd[1]);
        // The range is the top frame: its head came with the prescan.
        let stage = dyn_wg_heads[0] & DYN_STAGE_MASK;
        dyn_cur_rec = dyn_head_rec(f, dyn_wg_heads[0]);
        dyn_load_unit(f);
        dyn_run_units(stage, cmd[3] + lid, cmd[3], cmd[2]);
        return;
    }
    var a = 0u;
    var b = cmd[1];
    while (b - a > 1u) {
        let m = (a + b) / 2u;
        if ((dyn_wg_pack[m] & DYN_PACK_LANES) <= lid) {
            a = m;
        } else {
            b = m;
        }
    }
    let f = dyn_stack_frame(me, cmd[3] - 1u - a);
    // The frame's head came with the prescan.
    let head = dyn_wg_heads[a];
    let stage = head & DYN_STAGE_MASK;
    let offset = lid - (dyn_wg_pack[a] & DYN_PACK_LANES);
    if (dyn_is_keyed(stage) && ((head >> 16u) & DYN_FLAG_OWNED) == 0u) {
        // A ring entry of a keyed stage is only a hint: whoever clears the mark runs it.
        if (!dyn_clear_mark(stage, atomicLoad(&dyn_arena[f + DYN_FRAME_HEADER]))) {
            return;
        }
    }
    // The lane of a frame's last index finishes the frame (when the batch took all of it).
    if (a < atomicLoad(&dyn_wg_full) && lid + 1u == (dyn_wg_pack[a + 1u] & DYN_PACK_LANES)) {
        atomicAdd(&dyn_wg_finished, 1u);
    }
    dyn_cur_rec = dyn_head_rec(f, head);
    dyn_load_unit(f);
    dyn_run_units(stage, dyn_wg_los[a] + offset, 0u, 0u);
}

// Clears the mark of `key` in keyed stage `stage`; true where this call cleared it, and so
// owns the key's run (a mark already clear was taken by another).
fn dyn_clear_mark(stage: u32, key: u32) -> bool {
    let bit = 1u << (key % 32u);
    return (atomicAnd(&dyn_marks[dyn_mark_word(stage, key)], ~bit) & bit) != 0u;
}

// The staging slot of the child at place `r`: the first `kept` stay on the stack, the rest go
// to the ring; where dyn_publish `sorted` them (dyn_wg_scan_half), the kept ones by size,
// largest first, and the largest to the ring; else in the order staged.
fn dyn_child_slot(r: u32, sorted: bool) -> u32 {
    if (sorted) {
        return DYN_CARRY_CAP + dyn_wg_scan_half[r];
    }
    return DYN_CARRY_CAP + r;
}

// Lane 0 only, after a DYN_CMD_RANGE batch: moves the frame's first index past what the lanes
// took of the window; a frame with nothing left is finished and leaves the stack.
fn dyn_range_taken(me: u32, cmd: array<u32, 4>) {
    let f = dyn_stack_frame(me, cmd[1]);
    let lo = cmd[3] + min(atomicLoad(&dyn_wg_next), cmd[2]);
    if (lo == atomicLoad(&dyn_arena[f + DYN_F_HI])) {
        // Nothing is stored into a frame that leaves: the batch's new frames are written over
        // it by other lanes, and dyn_publish has no storage fence in between unless it writes
        // ring slots.
        dyn_wg_stack.top = cmd[1];
        dyn_wg_exhausted = 1u;
        return;
    }
    atomicStore(&dyn_arena[f + DYN_F_LO], lo);
}

// ---- docs/executor.md, "Units in registers" ----

// One lane: runs the unit whose payload is in dyn_unit_words, then, in registers, what it holds
// (a `become` carry or a single child) and, in a range window, the next index, while it has
// staged nothing and has run fewer than DYN_LANE_UNITS units; what it still holds then is staged
// as a frame. `window` > 0: indices up to `lo + window` of the same range frame may be taken.
fn dyn_run_units(stage0: u32, index0: u32, lo: u32, window: u32) {
    var stage = stage0;
    var index = index0;
    // Units of `stage` run in a row, counted in a register and added to the workgroup's count
    // when the stage changes (a chain of carries is one stage).
    var run_stage = stage0;
    var run_length = 0u;
    // A range window's units share the frame's payload and recursion counter: read once, kept
    // here, so that taking the next index touches no global memory.
    let range_words = dyn_unit_words;
    let range_rec = dyn_cur_rec;
    dyn_lane_staged = false;
    dyn_lane_deferred = false;
    dyn_held = DYN_HELD_NONE;
    dyn_lane_ran = 0u;
    dyn_win_lo = lo;
    dyn_win_n = select(0u, window, DYN_REFILL && stage0 == DYN_REFILL_FEEDER);
    dyn_win_rec = range_rec;
    dyn_refills = 0u;
    loop {
        dyn_cur_stage = stage;
        // A looping stage's case runs more than this one unit, and counts them here.
        let ran_before = dyn_lane_ran;
        dyn_lane_ran += 1u;
        dyn_execute(stage, index);
        if (DYN_STREAMS && dyn_lane_deferred) {
            dyn_lane_ran = ran_before;
            break;
        }
        if (stage != run_stage) {
            atomicAdd(&dyn_wg_units[run_stage], run_length);
            run_stage = stage;
            run_length = 0u;
        }
        run_length += dyn_lane_ran - ran_before;
        if (dyn_held != DYN_HELD_NONE) {
            // A held unit of a wide stage needs a group of lanes: it goes out as a frame.
            if (dyn_lane_staged || dyn_lane_ran >= DYN_LANE_UNITS || (DYN_WIDE && dyn_width(dyn_held_stage) > 1u)) {
                dyn_spill_held();
                break;
            }
            stage = dyn_held_stage;
            index = 0u;
            dyn_cur_rec = dyn_held_rec;
            dyn_unit_words = dyn_held_words;
            dyn_held = DYN_HELD_NONE;
            continue;
        }
        if (window == 0u || dyn_lane_staged || dyn_lane_ran >= DYN_LANE_UNITS) {
            break;
        }
        let j = atomicAdd(&dyn_wg_next, 1u);
        if (j >= window) {
            break;
        }
        stage = stage0;
        index = lo + j;
        dyn_cur_rec = range_rec;
        dyn_unit_words = range_words;
    }
    dyn_streams_lane_end();
    atomicAdd(&dyn_wg_units[run_stage], run_length);
    // Refills ran inside the chain's units: the feeder's units go to its own count.
    if (DYN_REFILL && dyn_refills > 0u) {
        atomicAdd(&dyn_wg_units[DYN_REFILL_FEEDER], dyn_refills);
        atomicSub(&dyn_wg_units[DYN_REFILL_CHAIN], dyn_refills);
    }
    if (dyn_lane_ran > 1u) {
        atomicAdd(&dyn_wg_lane_units, dyn_lane_ran - 1u);
    }
}

// A `become` or single spawn of a one-lane unit: the lane holds it in registers (the site then
// writes its payload into dyn_held_words) to run it next. A lane holds one unit: one it held
// already (a spawn, then another spawn or a `become`) goes out as a frame first.
fn dyn_hold(kind: u32, stage: u32, rec: u32) {
    if (dyn_held != DYN_HELD_NONE) {
        dyn_spill_held();
    }
    dyn_held = kind;
    dyn_held_stage = stage;
    dyn_held_rec = rec;
}

// The held unit becomes a staged frame: a carry stays at its parent's depth, a child is one of
// its parent's spawns, so the staging caps and the stack bound count it as before.
fn dyn_spill_held() {
    var o: u32;
    if (dyn_held == DYN_HELD_CARRY) {
        o = dyn_push_carry(dyn_held_stage, dyn_held_rec);
    } else {
        o = dyn_push_child(dyn_held_stage, 1u, dyn_held_rec);
    }
    for (var w = 0u; w < DYN_PAYLOAD_WORDS; w++) {
        dyn_wg_staging[o + w] = dyn_held_words[w];
    }
    dyn_held = DYN_HELD_NONE;
}

// ---- docs/executor.md, "Lending on demand" ----

// A one-lane range of `stage` wider than this is split on demand ("Lending on demand" in
// docs/executor.md): two windows, or DYN_CHAIN_SPLIT_WIDTH when each index may start a long
// chain of carries.
fn dyn_split_width(stage: u32) -> u32 {
    if (dyn_becomes(stage)) {
        return DYN_CHAIN_SPLIT_WIDTH;
    }
    return 2u * DYN_BATCH * DYN_RANGE_WINDOW;
}

// Lane 0 only. How many more frames the home shard should take to feed idle workers: up to
// DYN_LEND_FRAMES per worker of the shard queued (tail - head; both relaxed reads, so an
// estimate, which is all a policy needs). Frames beyond it stay on the spawner's stack,
// depth-first. `tail` and `head` are the home shard's, as the caller read them.
fn dyn_lend_want(tail: u32, head: u32) -> u32 {
    let queued = tail - head;
    let wanted = dyn_params.dyn_workers / dyn_shards * DYN_LEND_FRAMES;
    if (queued >= wanted) {
        return 0u;
    }
    return wanted - queued;
}

// Lane 0 only. The want, no more than the home shard has room for: a shard seen full is not
// scanned or reserved from (where the ring is small, the want passes a shard's slots and the
// shard stays full: each batch spent two round trips finding so).
fn dyn_lend_budget(want: u32, tail: u32, head: u32) -> u32 {
    return min(want, dyn_shard_slots - min(tail - head, dyn_shard_slots));
}

// Every lane, before a range batch runs, when its plan split the range: the upper half goes out
// at once (the same barriers as dyn_publish), so idle workers get it while this batch runs.
fn dyn_publish_split(lid: u32, split: u32) {
    let t = split - 1u;
    let slot = dyn_slot(dyn_wg_split_shard, t);
    // Acquire: the slot's previous frame was read before its consumer freed it.
    storageBarrier();
    if (lid < DYN_FRAME_WORDS) {
        atomicStore(&dyn_arena[dyn_ring_frame(slot) + lid], dyn_wg_staging[DYN_SPLIT_SLOT * DYN_FRAME_WORDS + lid]);
    }
    // Release: the frame is visible before its state says "published".
    storageBarrier();
    if (lid == 0u) {
        atomicStore(&dyn_arena[dyn_ring_state(slot)], dyn_ticket_base(t) + 1u);
    }
}

// ---- docs/executor.md, "Wide stages" ----

// Every lane, from uniform control flow: a batch of units of one wide stage, each run by a group
// of dyn_width(stage) lanes. `stage` comes from the broadcast command, so the generated switch
// in dyn_execute_wide, and the barriers in the body, are reached by the whole workgroup. The
// lanes of groups without a unit run the body too, inactive (their spawns are dropped).
fn dyn_run_wide(me: u32, lid: u32, cmd: array<u32, 4>) {
    let stage = (cmd[0] - DYN_CMD_WIDE) >> 1u;
    let is_range = ((cmd[0] - DYN_CMD_WIDE) & 1u) != 0u;
    let width = dyn_width(stage);
    let group = lid / width;
    dyn_lane_index = lid % width;
    dyn_group_index = group;
    dyn_lane_active = group < cmd[2];
    var f = dyn_stack_frame(me, cmd[1]);
    var index = 0u;
    if (dyn_lane_active) {
        if (is_range) {
            index = cmd[3] + group;
        } else {
            f = dyn_stack_frame(me, cmd[1] + group);
            index = atomicLoad(&dyn_arena[f + DYN_F_LO]);
        }
        dyn_cur_rec = dyn_frame_rec(f);
    }
    dyn_cur_stage = stage;
    if (DYN_LOOP) {
        dyn_round_index = atomicLoad(&dyn_control[DYN_C_ROUNDS]);
    }
    dyn_execute_wide(stage, index, f);
    // One unit per group: its lane 0 counts it (and its popped frame).
    if (dyn_lane_active && dyn_lane_index == 0u) {
        atomicAdd(&dyn_wg_units[stage], 1u);
        if (!is_range) {
            atomicAdd(&dyn_wg_finished, 1u);
        }
    }
    dyn_lane_index = 0u;
    dyn_group_index = 0u;
    dyn_lane_active = true;
}

// ---- docs/executor.md, "Spawns inside a batch" ----

// Site helpers, called by the generated dyn_site_k functions from inside stage bodies.
// Each returns the staging word offset where the caller writes the payload.
fn dyn_staging_frame(slot: u32, stage: u32, hi: u32, rec: u32) -> u32 {
    let o = slot * DYN_FRAME_WORDS;
    dyn_wg_staging[o] = stage;
    dyn_wg_staging[o + DYN_F_LO] = 0u;
    dyn_wg_staging[o + DYN_F_HI] = hi;
    if (DYN_REC_WORD) {
        dyn_wg_staging[o + DYN_F_REC] = rec;
    } else if (DYN_REC_SHIFT < 16u) {
        dyn_wg_staging[o] = stage | (rec << DYN_REC_SHIFT);
    }
    return o + DYN_FRAME_HEADER;
}

fn dyn_push_child(stage: u32, hi: u32, rec: u32) -> u32 {
    if (DYN_WIDE && !dyn_lane_active) {
        return DYN_SCRATCH;
    }
    dyn_lane_staged = true;
    let j = atomicAdd(&dyn_wg_n_child, 1u);
    if (j >= DYN_CHILD_CAP) {
        dyn_fail(DYN_ERR_INTERNAL, dyn_cur_stage, j, DYN_CHILD_CAP);
        return DYN_SCRATCH;
    }
    // Its size, for dyn_publish's order (dyn_wg_sizes is the prescan's, free until the next).
    if (j < DYN_BATCH) {
        dyn_wg_sizes[j] = hi;
    }
    // One deeper than the batch's shallowest frame: at most the child's own depth.
    let depth = min(dyn_wg_depth + 1u, DYN_MAX_DEPTH);
    return dyn_staging_frame(DYN_CARRY_CAP + j, stage | (depth << DYN_DEPTH_SHIFT), hi, rec);
}

// A `become` carry: at the batch's shallowest depth.
fn dyn_push_carry(stage: u32, rec: u32) -> u32 {
    dyn_lane_staged = true;
    let j = atomicAdd(&dyn_wg_n_carry, 1u);
    if (j >= DYN_CARRY_CAP) {
        dyn_fail(DYN_ERR_INTERNAL, dyn_cur_stage, j, DYN_CARRY_CAP);
        return DYN_SCRATCH;
    }
    return dyn_staging_frame(j, stage | (dyn_wg_depth << DYN_DEPTH_SHIFT), 1u, rec);
}

// Keyed spawn: set the key's mark; if it was clear the key is newly pending, and a ring entry
// is staged as a hint (a full staging area or ring leaves the mark for the sweep).
fn dyn_push_keyed(stage: u32, key: u32, domain: u32) {
    if (DYN_WIDE && !dyn_lane_active) {
        return;
    }
    if (key >= domain) {
        dyn_fail(DYN_ERR_KEY_DOMAIN, stage, key, domain);
        return;
    }
    let bit = 1u << (key % 32u);
    // Count first, then mark: once the mark is set a sweeper may run the key and subtract its
    // count, which must never take `pending` below the work that still exists.
    atomicAdd(&dyn_control[DYN_C_PENDING], 1u);
    if ((atomicOr(&dyn_marks[dyn_mark_word(stage, key)], bit) & bit) != 0u) {
        atomicSub(&dyn_control[DYN_C_PENDING], 1u);
        return;
    }
    let j = atomicAdd(&dyn_wg_n_keyed, 1u);
    if (j < DYN_KEYED_CAP) {
        let o = dyn_staging_frame(DYN_KEYED_SLOT0 + j, stage, 1u, 0u);
        dyn_wg_staging[o] = key;
    }
}

// Recursion counter of a child through an edge into the bounded stage of a recursive component.
fn dyn_rec_increment(stage: u32, bound: u32) -> u32 {
    let rec = dyn_cur_rec + 1u;
    if (rec > bound) {
        dyn_fail(DYN_ERR_MAX_DEPTH, stage, rec, bound);
    }
    return rec;
}

// A unit of a one-lane stage that found a stream window full goes back unrun, as a frame of
// the one index it is (payload and recursion counter as loaded) at the batch's shallowest depth,
// like a carry, in a carry slot counted from the last: a lane defers only a unit it runs before
// it staged anything, so a lane stages a carry or a deferred unit, never both, and the carry
// slots (one per lane: layout.rs) and the reserve rule hold. Unlike a carry it may be lent.
fn dyn_defer(stage: u32, index: u32) {
    dyn_lane_deferred = true;
    dyn_lane_staged = true;
    let j = atomicAdd(&dyn_wg_n_defer, 1u);
    if (j >= DYN_CARRY_CAP) {
        dyn_fail(DYN_ERR_INTERNAL, stage, j, DYN_CARRY_CAP);
        return;
    }
    let o = dyn_staging_frame(DYN_CARRY_CAP - 1u - j, stage | (dyn_wg_depth << DYN_DEPTH_SHIFT), index + 1u, dyn_cur_rec);
    dyn_wg_staging[o - DYN_FRAME_HEADER + DYN_F_LO] = index;
    for (var w = 0u; w < DYN_PAYLOAD_WORDS; w++) {
        dyn_wg_staging[o + w] = dyn_unit_words[w];
    }
}

// Every lane: after the batch, lend what the ring should take and keep the rest on the stack.
// Lent first is the oldest frame at the bottom of the stack that this batch did not touch (a
// thief gets the work nearest the root, as in work stealing), then this batch's deferred units,
// then its children.
fn dyn_publish(me: u32, lid: u32, cmd: array<u32, 4>) {
    // Lane 0's, kept across the scan: the home head read for the lend budget (used by the
    // reservation), and the old frames offered.
    var head = 0u;
    var old = 0u;
    // 1 where a lone keyed hint stays on this worker's stack instead of going to the ring.
    var home_hint = 0u;
    if (lid == 0u) {
        if (cmd[0] == DYN_CMD_RANGE) {
            dyn_range_taken(me, cmd);
        }
        // The lowest stack position the batch took from: frames below it are untouched.
        var touched = cmd[1];
        if (cmd[0] == DYN_CMD_GATHER) {
            touched = cmd[3] - cmd[1];
        }
        let untouched = touched - min(touched, dyn_wg_stack.bottom);
        // Keyed hints always go to the ring when it has room (a mark without an entry waits
        // for a sweep); old frames and children only as far as the ring is short of work.
        // Both words in one round trip (they share a line), before anything waits for either.
        let tail = atomicLoad(&dyn_control[dyn_shard_tail(dyn_home)]);
        head = atomicLoad(&dyn_control[dyn_shard_head(dyn_home)]);
        var keyed = min(atomicLoad(&dyn_wg_n_keyed), DYN_KEYED_CAP);
        let new_frames = min(atomicLoad(&dyn_wg_n_child), DYN_CHILD_CAP) + min(atomicLoad(&dyn_wg_n_defer), DYN_CARRY_CAP);
        var lent = new_frames;
        if (keyed + lent + untouched > 0u) {
            let want = dyn_lend_want(tail, head);
            let budget = dyn_lend_budget(want, tail, head);
            // One old frame a batch: more made collatz's carries shuttle between two workers'
            // stacks through the ring on SwiftShader (docs/performance.md, "Session 14").
            old = min(min(untouched, 1u), budget);
            // Fallbacks: what the want would lend and the shard had no room for (below, what
            // a reservation finds no room for).
            dyn_wg_stats[DYN_S_FALLBACKS] += min(lent, want - old) - min(lent, budget - old);
            lent = min(lent, budget - old);
            // A batch that would leave its worker nothing, while the home shard is empty,
            // keeps its one new frame, or else its one keyed hint: lending it only moves a
            // serial chain from worker to worker through the ring ("Lending on demand").
            let stays = dyn_wg_stack.top - dyn_wg_stack.bottom + atomicLoad(&dyn_wg_n_carry);
            if (stays == 0u && tail == head) {
                if (new_frames == 1u) {
                    lent = 0u;
                } else if (new_frames == 0u && keyed == 1u) {
                    home_hint = 1u;
                    keyed = 0u;
                }
            }
        }
        dyn_wg_scan = array<u32, 3>(dyn_home, tail, keyed + old + lent);
        atomicStore(&dyn_wg_scan_run, keyed + old + lent);
    }
    dyn_ring_scan(lid, 0u);
    if (lid == 0u) {
        let base = dyn_wg_stack.top;
        let bottom = dyn_wg_stack.bottom;
        let carries = min(atomicLoad(&dyn_wg_n_carry), DYN_CARRY_CAP);
        let defers = min(atomicLoad(&dyn_wg_n_defer), DYN_CARRY_CAP);
        let children = min(atomicLoad(&dyn_wg_n_child), DYN_CHILD_CAP);
        let new_marks = atomicLoad(&dyn_wg_n_keyed);
        let keyed = min(new_marks, DYN_KEYED_CAP) - home_hint;
        let offered = dyn_wg_scan[2];
        // Keyed hints first: a mark without a ring entry only waits for a sweep, while a child
        // without one costs stack. Then the old frames, the deferred units, the children.
        let ring = dyn_ring_reserve(offered, dyn_wg_scan[1], atomicLoad(&dyn_wg_scan_run), head);
        let to_ring = ring.count;
        let keyed_to_ring = min(to_ring, keyed);
        let old_to_ring = min(to_ring - keyed_to_ring, old);
        let defers_to_ring = min(to_ring - keyed_to_ring - old_to_ring, defers);
        let children_to_ring = to_ring - keyed_to_ring - old_to_ring - defers_to_ring;
        var kept = children - children_to_ring;
        var kept_defers = defers - defers_to_ring;
        var stacked = carries;
        // The live frames with the new ones, the lent old frames still among them (they are
        // read while the new ones are written, so the two must not share a frame).
        let height = base - bottom + carries + kept_defers + kept + home_hint;
        if (height > dyn_reserve) {
            dyn_fail(DYN_ERR_INTERNAL, dyn_cur_stage, height, dyn_reserve);
            stacked = 0u;
            kept = 0u;
            kept_defers = 0u;
            home_hint = 0u;
        }
        // Cleared for the children's counting sort below (a window's indices are taken).
        atomicStore(&dyn_wg_next, 0u);
        // A new mark with no hint in the ring or on this stack (its hint found no room) waits
        // for a sweep: say so, once a launch; idle workers sweep only once it is said.
        if (new_marks > keyed_to_ring + home_hint && !dyn_said_marks_left) {
            dyn_said_marks_left = true;
            atomicStore(&dyn_control[DYN_C_MARKS_LEFT], 1u);
        }
        // The hint is the stack's only frame (nothing else stays). Lane 0 clears its mark now
        // and keeps it as an owned frame, as a sweep would: left set, an idle worker's sweep
        // took it first and the chain moved to that worker. A mark already clear was swept
        // meanwhile: its sweeper runs the key, and nothing stays.
        let hint = DYN_KEYED_SLOT0 * DYN_FRAME_WORDS;
        if (home_hint == 1u) {
            if (dyn_clear_mark(dyn_wg_staging[hint] & DYN_STAGE_MASK, dyn_wg_staging[hint + DYN_FRAME_HEADER])) {
                dyn_wg_staging[hint] |= DYN_FLAG_OWNED << 16u;
            } else {
                home_hint = 0u;
            }
        }
        // Lane 0 writes it at `base`, where no other lane writes.
        for (var w = 0u; w < DYN_FRAME_WORDS * home_hint; w++) {
            atomicStore(&dyn_arena[dyn_stack_frame(me, base) + w], dyn_wg_staging[hint + w]);
        }
        dyn_wg_post = array<u32, 10>(stacked, to_ring, kept, ring.first, base, ring.shard, old_to_ring, bottom, defers, kept_defers);
        // One change of `pending` per batch, by the net amount: what this batch made minus the
        // frames it finished. It never reads 0 while work exists.
        let made = carries + defers + children;
        let done = atomicLoad(&dyn_wg_finished) + dyn_wg_exhausted;
        if (made != done) {
            atomicAdd(&dyn_control[DYN_C_PENDING], made - done);
        } else {
            // Still a sign of progress for idle workers, which leave only when none is seen.
            atomicAdd(&dyn_control[DYN_C_PROGRESS], 1u);
        }
        // Fallbacks: children and deferred units the ring should have taken but had no room for.
        dyn_wg_stats[DYN_S_FALLBACKS] += offered - keyed - old - defers_to_ring - children_to_ring;
        dyn_wg_stats[DYN_S_OLD_LENT] += old_to_ring;
        dyn_wg_stats[DYN_S_STACK_HIGH_WATER] = max(dyn_wg_stats[DYN_S_STACK_HIGH_WATER], base - bottom + stacked + kept_defers + kept + home_hint);
    }
    let post = workgroupUniformLoad(&dyn_wg_post);
    let carries = post[0];
    let to_ring = post[1];
    // Acquire: the reserved slots' previous frames were fully read before their consumers
    // marked them free; order our frame writes after that. Without ring slots, nothing to order:
    // the stack's frames were read in this batch before the barrier after its units, and the
    // next batch reads the new ones after the barrier at the top of the loop.
    if (to_ring > 0u) {
        storageBarrier();
    }
    let kept = post[2];
    let ticket = post[3];
    let base = post[4];
    let shard = post[5];
    let old_to_ring = post[6];
    let bottom = post[7];
    // Deferred units sit in the last `defers` carry slots: the first `kept_defers` stay.
    let defers = post[8];
    let kept_defers = post[9];
    let first_defer = DYN_CARRY_CAP - defers;
    let keyed_to_ring = min(to_ring, min(atomicLoad(&dyn_wg_n_keyed), DYN_KEYED_CAP));
    let defers_to_ring = defers - kept_defers;
    let children = kept + to_ring - keyed_to_ring - old_to_ring - defers_to_ring;
    let shallow = carries + kept_defers;
    // The children by size: 4 indices or more first, then 3, 2, 1. The ring takes the
    // largest, and the stack's top holds the smallest, so that the next batch finishes the
    // most frames for its indices and leaves the fewest behind ("Children by size"). Only
    // where the stack is over half its reserve: below that nothing narrows a batch. A counting
    // sort: each class's count in a byte of dyn_wg_next (lane 0 cleared it; `by_size` is
    // uniform, `sorted` also bounds the bytes and dyn_wg_scan_half).
    let by_size = kept + to_ring > 1u && 2u * (base - bottom + shallow + kept) > dyn_uniform_reserve();
    let sorted = by_size && children <= min(DYN_BATCH, 255u);
    if (by_size) {
        let size_class = DYN_SIZE_CLASSES - clamp(dyn_wg_sizes[min(lid, DYN_BATCH - 1u)], 1u, DYN_SIZE_CLASSES);
        var place = 0u;
        if (sorted && lid < children) {
            place = (atomicAdd(&dyn_wg_next, 1u << (8u * size_class)) >> (8u * size_class)) & 0xFFu;
        }
        workgroupBarrier();
        if (sorted && lid < children) {
            let counts = atomicLoad(&dyn_wg_next);
            for (var c = 0u; c < size_class; c++) {
                place += (counts >> (8u * c)) & 0xFFu;
            }
            // The first `kept` places go to the stack, the rest (the largest) to the ring:
            // the same split of places as in staging order.
            dyn_wg_scan_half[(place + kept) % children] = lid;
        }
        workgroupBarrier();
    }
    // Onto the stack: the carries and kept deferred units (at the batch's depth), then the
    // `kept` smallest children above them (deeper work on top).
    for (var j = lid; j < (shallow + kept) * DYN_FRAME_WORDS; j += DYN_WG) {
        let n = j / DYN_FRAME_WORDS;
        let w = j % DYN_FRAME_WORDS;
        var src = n;
        if (n >= shallow) {
            src = dyn_child_slot(n - shallow, sorted);
        } else if (n >= carries) {
            src = first_defer + (n - carries);
        }
        atomicStore(&dyn_arena[dyn_stack_frame(me, base + n) + w], dyn_wg_staging[src * DYN_FRAME_WORDS + w]);
    }
    // Into the ring: keyed hints, the old frames from the bottom of the stack, then the
    // remaining deferred units and the largest children.
    for (var j = lid; j < to_ring * DYN_FRAME_WORDS; j += DYN_WG) {
        let n = j / DYN_FRAME_WORDS;
        let w = j % DYN_FRAME_WORDS;
        let m = n - min(n, keyed_to_ring + old_to_ring);
        var word: u32;
        if (n < keyed_to_ring) {
            word = dyn_wg_staging[(DYN_KEYED_SLOT0 + n) * DYN_FRAME_WORDS + w];
        } else if (n < keyed_to_ring + old_to_ring) {
            word = atomicLoad(&dyn_arena[dyn_stack_frame(me, bottom + n - keyed_to_ring) + w]);
        } else if (m < defers_to_ring) {
            word = dyn_wg_staging[(first_defer + kept_defers + m) * DYN_FRAME_WORDS + w];
        } else {
            word = dyn_wg_staging[dyn_child_slot(kept + m - defers_to_ring, sorted) * DYN_FRAME_WORDS + w];
        }
        atomicStore(&dyn_arena[dyn_ring_frame(dyn_slot(shard, ticket + n)) + w], word);
    }
    // Release: the frames above are visible before any state says "published".
    if (to_ring > 0u) {
        storageBarrier();
    }
    for (var n = lid; n < to_ring; n += DYN_WG) {
        let t = ticket + n;
        atomicStore(&dyn_arena[dyn_ring_state(dyn_slot(shard, t))], dyn_ticket_base(t) + 1u);
    }
    if (lid == 0u) {
        // Positions stay below 2 * dyn_reserve. An empty stack keeps its position: lent frames
        // move every worker's positions round its buffer (so the wrap is taken often).
        let low = bottom + old_to_ring;
        let wrap = select(0u, dyn_reserve, low >= dyn_reserve);
        dyn_wg_stack = DynStack(base + shallow + kept + home_hint - wrap, low - wrap);
    }
}

// Lane 0 only. Looks for keyed marks that no ring entry carries (their spawn found the ring
// full) and takes up to DYN_BATCH of them onto this worker's stack, marks cleared. It sweeps
// once `marks_left` says such a mark was left; before that every set mark has its hint in the
// ring or on a stack, and a sweep only takes keys early from whoever holds their hints: worth
// it while work is plentiful (the prescan saw queued frames this worker did not get, or more
// work is pending than there are workers), not when it takes the one key a worker is about to
// run (a serial chain of keyed units, bfs on a path, moved from worker to worker that way).
fn dyn_sweep(me: u32, pending: u32, queued_seen: bool) -> u32 {
    let words = dyn_keyed_words();
    if (words == 0u || pending == 0u) {
        return 0u;
    }
    if (!queued_seen && pending <= dyn_params.dyn_workers && atomicLoad(&dyn_control[DYN_C_MARKS_LEFT]) == 0u) {
        return 0u;
    }
    var taken = 0u;
    for (var n = 0u; n < DYN_SWEEP_WORDS && taken < DYN_BATCH; n++) {
        let w = atomicAdd(&dyn_control[DYN_C_SWEEP], 1u) % words;
        var bits = atomicLoad(&dyn_marks[w]);
        for (var b = 0u; b < 32u && bits != 0u && taken < DYN_BATCH; b++) {
            let bit = 1u << b;
            if ((bits & bit) == 0u) {
                continue;
            }
            bits = bits & ~bit;
            let old = atomicAnd(&dyn_marks[w], ~bit);
            if ((old & bit) != 0u) {
                let f = dyn_stack_frame(me, dyn_wg_stack.top + taken);
                atomicStore(&dyn_arena[f], dyn_word_stage(w) | (DYN_FLAG_OWNED << 16u));
                atomicStore(&dyn_arena[f + DYN_F_LO], 0u);
                atomicStore(&dyn_arena[f + DYN_F_HI], 1u);
                dyn_clear_rec(f);
                atomicStore(&dyn_arena[f + DYN_FRAME_HEADER], dyn_word_first_key(w) + b);
                taken += 1u;
            }
        }
    }
    return taken;
}

// ---- docs/executor.md, "Rounds (graph-level loops)" ----

// Lane 0 only, after an acquire barrier, holding the one pending unit that dyn_plan took at the
// end of a round: evaluates `until`, then ends the run or seeds the next round on this stack
// (an empty stack: dyn_plan ends rounds only when it has nothing to run). Returns true when the
// unit must go back (`pending` to 0, after a release barrier): the run ended, or the next round
// is empty and ends at once.
fn dyn_end_round(me: u32) -> bool {
    if (atomicLoad(&dyn_control[DYN_C_DONE]) != 0u) {
        // The loop ended while this worker was taking the unit its finisher had given back.
        return true;
    }
    let round = atomicLoad(&dyn_control[DYN_C_ROUNDS]);
    dyn_round_index = round;
    let stop = dyn_until();
    atomicStore(&dyn_control[DYN_C_ROUNDS], round + 1u);
    if (stop || round + 1u >= DYN_MAX_ROUNDS) {
        dyn_finish();
        return true;
    }
    let count = dyn_entry_count();
    if (count == 0u) {
        return true;
    }
    let f = dyn_stack_frame(me, dyn_wg_stack.top);
    atomicStore(&dyn_arena[f], dyn_entry_stage());
    atomicStore(&dyn_arena[f + DYN_F_LO], 0u);
    atomicStore(&dyn_arena[f + DYN_F_HI], count);
    dyn_clear_rec(f);
    dyn_wg_stack.top += 1u;
    dyn_wg_stats[DYN_S_STACK_HIGH_WATER] = max(dyn_wg_stats[DYN_S_STACK_HIGH_WATER], 1u);
    return false;
}
