// dyngc partitioned schedule: the queues of dispatched stages, appended after executor.wgsl when
// a program has any (docs/executor.md, "Partitioned schedule"). A dispatched stage is on no
// cycle and upstream of none, so its kernel runs after every producer of its queue in the chain
// (dispatches are recorded in topological order) and a producer that finds the queue full can
// run the target's indices itself by a plain call: WGSL forbids recursion, not call chains.
//
// The code generator appends, after this file, each dispatched stage's kernel, the serial
// fallback (when a one-lane stage is dispatched) and this function:
//   dyn_queue_stage(q: u32) -> u32   queue q's stage (DYN_STAGES past the last queue), for the
//                                    error of a check launch (dyn_check_dispatches)
//
// Queue q's control block, DYN_QUEUE_WORDS words from DYN_C_QUEUES + q * DYN_QUEUE_WORDS:
const DYN_Q_ARGS: u32 = 0u;    // x, y, z: the indirect arguments of the queue's next dispatch
const DYN_Q_FRAMES: u32 = 3u;  // frames taken (never above the capacity at rest)
const DYN_Q_CURSOR: u32 = 4u;  // the next frame a workgroup takes (past the count once drained)
const DYN_Q_CHUNKS: u32 = 5u;  // chunks queued since the last dispatch: its workgroup count
const DYN_Q_LEFT: u32 = 6u;    // workgroups of the running dispatch that have finished
const DYN_Q_HELP: u32 = 7u;    // 1 + a frame whose owner wants help (bigger than a chunk), or 0
const DYN_QUEUE_FULL: u32 = 0xFFFFFFFFu;

// [frame, first index, count] of the chunk a dispatch's workgroup runs next; count 0: drained.
var<workgroup> dyn_q_take: array<u32, 3>;
var<workgroup> dyn_q_units: atomic<u32>;
var<workgroup> dyn_q_last: bool;
// 1 + the frame this workgroup is draining (its own, or one it helps), or 0. Lane 0 only.
var<workgroup> dyn_q_cur: u32;

fn dyn_queue_word(q: u32, w: u32) -> u32 {
    return DYN_C_QUEUES + q * DYN_QUEUE_WORDS + w;
}

// Queue q's frame i: queues follow the ring's frames, as many frames each as the ring has slots.
fn dyn_queue_frame(q: u32, i: u32) -> u32 {
    return dyn_ring_frame(0u) + ((1u + q) * dyn_params.dyn_ring_slots + i) * DYN_FRAME_WORDS;
}

// Every queue's y and z, once per run (the control block starts cleared).
fn dyn_queues_init() {
    for (var q = 0u; q < DYN_QUEUES; q++) {
        atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_ARGS + 1u)], 1u);
        atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_ARGS + 2u)], 1u);
    }
}

// The most workgroups a dispatch launches: the host's cap (`dispatch_groups` in the parameter
// uniform), or DYN_MAX_DISPATCH_GROUPS where it leaves 0. Each workgroup takes chunks until the
// queue is dry, so fewer of them run the same units.
fn dyn_dispatch_groups() -> u32 {
    let cap = dyn_params.dyn_dispatch_groups;
    return select(min(cap, DYN_MAX_DISPATCH_GROUPS), DYN_MAX_DISPATCH_GROUPS, cap == 0u);
}

// The frames a queue holds: every frame the arena gives it (as many as the ring has slots), or,
// when `capped`, the host's cap (`queue_frames` in the parameter uniform, 0: none). A CPU
// device runs a one-lane target's spawns on the spawner's lane sooner than through a dispatch,
// and caps its queue; a wide target's overflow goes to the persistent kernel, slower anywhere.
fn dyn_queue_capacity(capped: bool) -> u32 {
    let cap = dyn_params.dyn_queue_frames;
    return select(dyn_params.dyn_ring_slots, min(cap, dyn_params.dyn_ring_slots), capped && cap != 0u);
}

// Any lane of any kernel: a frame of queue q for indices 0..n of `stage`, whose kernel takes
// `chunk` indices at a time; `capped`: the host's `queue_frames` applies (one-lane targets).
// Returns the frame's first payload word, or DYN_QUEUE_FULL: then the caller runs the indices
// itself.
fn dyn_queue_push(q: u32, stage: u32, n: u32, chunk: u32, capped: bool) -> u32 {
    let i = atomicAdd(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)], 1u);
    if (i >= dyn_queue_capacity(capped)) {
        // Give the count back, so the queue reads full only while it is: the counter then never
        // drops below the capacity while any pusher is past it, and no frame is handed out twice.
        atomicSub(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)], 1u);
        atomicAdd(&dyn_control[DYN_C_FALLBACKS], 1u);
        return DYN_QUEUE_FULL;
    }
    let f = dyn_queue_frame(q, i);
    atomicStore(&dyn_arena[f], stage);
    atomicStore(&dyn_arena[f + DYN_F_LO], 0u);
    atomicStore(&dyn_arena[f + DYN_F_HI], n);
    dyn_clear_rec(f);
    if (n > chunk) {
        // Advertised before the dispatch starts, so its first workgroups do not leave early.
        atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_HELP)], i + 1u);
    }
    let chunks = n / chunk + select(0u, 1u, n % chunk != 0u);
    let queued = atomicAdd(&dyn_control[dyn_queue_word(q, DYN_Q_CHUNKS)], chunks) + chunks;
    atomicMax(&dyn_control[dyn_queue_word(q, DYN_Q_ARGS)], min(queued, dyn_dispatch_groups()));
    return f + DYN_FRAME_HEADER;
}

// Lane 0 of a dispatch: claims the next `chunk` indices of queue q into dyn_q_take. A workgroup
// takes a frame of its own with one atomicAdd on the cursor (no two workgroups fight over one
// frame, so thousands of small frames cost one atomic each); a frame bigger than a chunk is
// advertised in the HELP word, and workgroups that find no new frame help drain it. Within a
// frame, indices are claimed by compare-and-swap on its `lo`. No producer of q runs meanwhile, so
// the frame count and each frame's `hi` are fixed. The loop goes on only with values read by
// read-modify-writes: a plain load may return a stale value for as long as it likes (a loop that
// reloaded `lo` hung OpenGL on an NVIDIA H200).
fn dyn_queue_take(q: u32, chunk: u32) {
    let frames = atomicLoad(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)]);
    loop {
        if (dyn_q_cur != 0u) {
            let f = dyn_queue_frame(q, dyn_q_cur - 1u);
            let hi = atomicLoad(&dyn_arena[f + DYN_F_HI]);
            var lo = atomicLoad(&dyn_arena[f + DYN_F_LO]);
            while (lo < hi) {
                let n = min(chunk, hi - lo);
                let r = atomicCompareExchangeWeak(&dyn_arena[f + DYN_F_LO], lo, lo + n);
                if (r.exchanged) {
                    dyn_q_take = array<u32, 3>(f, lo, n);
                    return;
                }
                lo = r.old_value;
            }
            // Drained: stop advertising it (unless another frame is advertised by now).
            atomicCompareExchangeWeak(&dyn_control[dyn_queue_word(q, DYN_Q_HELP)], dyn_q_cur, 0u);
            dyn_q_cur = 0u;
        }
        let c = atomicAdd(&dyn_control[dyn_queue_word(q, DYN_Q_CURSOR)], 1u);
        if (c < frames) {
            dyn_q_cur = c + 1u;
            if (atomicLoad(&dyn_arena[dyn_queue_frame(q, c) + DYN_F_HI]) > chunk) {
                atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_HELP)], c + 1u);
            }
            continue;
        }
        // No new frame: help the advertised one (read by a read-modify-write), or finish.
        let help = atomicAdd(&dyn_control[dyn_queue_word(q, DYN_Q_HELP)], 0u);
        if (help == 0u) {
            // A break, not a return: naga writes a `return` after a loop, which Tint warns is
            // unreachable when the loop has no break.
            dyn_q_take = array<u32, 3>(0u, 0u, 0u);
            break;
        }
        dyn_q_cur = help;
    }
}

// The persistent kernel has no work left (dyn_plan, dyn_end_round), so no producer of a queue
// runs any more: the run is done once this chain's dispatches have drained their queues, and the
// last of them, launched now with at least one workgroup, sets the host's done word
// (dyn_queue_leave). Until then main's arguments are a check launch of two rows: the dispatches
// empty them, so it runs only if they were not recorded, and fails the run (an engine that
// launches only `main` must not read a done word with the dispatched work missing).
fn dyn_finish() {
    atomicStore(&dyn_control[DYN_C_DONE], 1u);
    atomicMax(&dyn_control[dyn_queue_word(DYN_QUEUES - 1u, DYN_Q_ARGS)], 1u);
    atomicStore(&dyn_control[DYN_C_ARGS + 1u], 2u);
    atomicStore(&dyn_control[DYN_C_ARGS], 1u);
}

// Lane 0 of a check launch: names the first queue with work left (else the last queue, whose
// dispatch sets the done word) and how many frames wait in it.
fn dyn_check_dispatches() {
    if (atomicLoad(&dyn_control[DYN_C_COMPLETE]) != 0u) {
        return;
    }
    var q = 0u;
    while (q + 1u < DYN_QUEUES && atomicLoad(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)]) == 0u) {
        q++;
    }
    dyn_fail(DYN_ERR_DISPATCH_MISSING, dyn_queue_stage(q), atomicLoad(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)]), 0u);
}

// Every lane of a dispatch, once drained: adds the workgroup's units to the stage's count; the
// last workgroup to finish empties the queue for the producers of the next chain. (Its
// indirect arguments were copied before the dispatch began, so it may zero them.) Release
// before the count and acquire after it: otherwise a workgroup's last move of the cursor may
// land after the reset (loom: partitioned_queues_detect_leave_without_barriers).
fn dyn_queue_leave(q: u32, stage: u32, lid: u32, units: u32, groups: u32) {
    atomicAdd(&dyn_q_units, units);
    workgroupBarrier();
    storageBarrier();
    if (lid == 0u) {
        atomicAdd(&dyn_control[DYN_C_UNITS + stage], atomicLoad(&dyn_q_units));
        dyn_q_last = atomicAdd(&dyn_control[dyn_queue_word(q, DYN_Q_LEFT)], 1u) + 1u == groups;
    }
    if (workgroupUniformLoad(&dyn_q_last)) {
        storageBarrier();
        if (lid == 0u) {
            // The high-water mark once per dispatch, not on every push (a shared word).
            let frames = atomicExchange(&dyn_control[dyn_queue_word(q, DYN_Q_FRAMES)], 0u);
            atomicMax(&dyn_control[DYN_C_RING_HIGH_WATER], frames);
            atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_CURSOR)], 0u);
            atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_CHUNKS)], 0u);
            atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_LEFT)], 0u);
            atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_HELP)], 0u);
            atomicStore(&dyn_control[dyn_queue_word(q, DYN_Q_ARGS)], 0u);
            // The last queue after dyn_finish: every earlier queue was drained earlier in this
            // chain, and nothing pushes any more.
            if (q + 1u == DYN_QUEUES && atomicLoad(&dyn_control[DYN_C_DONE]) != 0u) {
                atomicStore(&dyn_control[DYN_C_COMPLETE], 1u);
                atomicStore(&dyn_control[DYN_C_ARGS], 0u);
            }
        }
    }
}
