//! A `loom` model of the executor's cross-workgroup protocol (`docs/executor.md`).
//!
//! This mirrors, in Rust, the parts of `stdlib/executor.wgsl` that workgroups use to talk to
//! each other, and model-checks them under every interleaving (within a preemption bound) and
//! every value a relaxed load may return:
//!
//! | here                     | `stdlib/executor.wgsl`                                      |
//! |--------------------------|-------------------------------------------------------------|
//! | [`Sys::ring_reserve`]    | `dyn_ring_reserve`                                          |
//! | [`Sys::ring_claim`]      | `dyn_ring_claim`                                            |
//! | [`Sys::take_claimed`]    | `dyn_take_claimed`                                          |
//! | [`Sys::publish`]         | `dyn_publish`; its ring half is [`Sys::publish_frames`]    |
//! | [`Sys::push_keyed`]      | `dyn_push_keyed`                                            |
//! | [`Sys::run_lane`]        | `dyn_run_lane` (the keyed-hint check)                       |
//! | [`Sys::sweep`]           | `dyn_sweep`                                                 |
//! | [`launch`]               | `dyn_main`'s loop with `dyn_plan` (single frames only)      |
//! | [`Sys::init_entry`]      | `dyn_init`                                                  |
//! | [`Sys::finish`]          | `dyn_finish`                                                |
//! | [`Sys::end_round`]       | `dyn_end_round` (and `DYN_CMD_ROUND` in `dyn_main`)        |
//! | [`Queue::push`]          | `dyn_queue_push` (`stdlib/queues.wgsl`) and the direct call |
//! | [`Queue::take`]          | `dyn_queue_take`                                            |
//! | [`Queue::leave`]         | `dyn_queue_leave`                                           |
//!
//! Mapping of the memory model:
//!
//! - every shared word (ring states and frames, `head`, `tail`, `pending`, `done`, the sweep
//!   cursor, the mark words) is a `loom::sync::atomic::AtomicU32`, accessed with
//!   `Ordering::Relaxed` only, as WGSL atomics are relaxed;
//! - `storageBarrier()` is `fence(Ordering::AcqRel)` ([`storage_barrier`]): docs/executor.md
//!   relies on it being a release fence for earlier storage writes and an acquire fence for
//!   earlier atomic loads, which is what naga and Tint lower it to (device-scope acquire-release);
//! - a workgroup is one `loom::thread`; lane 0's work and the other lanes' work run in it one
//!   after the other (intra-workgroup parallelism, `workgroupBarrier` and `workgroupUniformLoad`
//!   are not modelled: they only order things inside one thread here). A worker's stack is
//!   private to its workgroup, so it is a plain `Vec` owned by the thread;
//! - a relaunch is another call of [`launch`] on the same worker (its stack survives, as the
//!   stack top does in the arena); after the threads are joined the "host" keeps relaunching the
//!   workers one at a time until `done` is set, as the host loop does;
//! - `atomicCompareExchangeWeak` is `compare_exchange` (loom does not model spurious failure;
//!   the WGSL treats a failure like a lost race anyway).
//!
//! Not modelled: fan-out ranges, lazy splitting and how a batch is formed (`DYN_CMD_RANGE`
//! windows, `DYN_CMD_GATHER`: they touch only the worker's own stack, apart from the split's
//! reservation), units a lane runs in registers (a held `become` or single spawn, or the next
//! index of a window: nothing shared is touched until the batch publishes, where a held unit that
//! was not run is an ordinary carry or child), the recursion counters, errors and statistics. The first attempt of a claim or reservation
//! reads the slot states with all lanes at once (`dyn_ring_scan`), here one after another: the
//! same loads before the same compare-and-swap, whose success alone makes them valid. [`Sys::publish`] handles carries (`become`), but no scenario makes one.
//!
//! Two orderings here are stricter than `executor.wgsl` as first written; loom found both, and
//! the WGSL must match them (tests `ring_detects_reserve_without_barrier` and
//! `keyed_detects_count_after_mark` keep the broken forms failing):
//!
//! - [`Sys::publish_frames`] has a `storageBarrier()` between the reserve (which read the
//!   "consumed" states) and the frame stores. Without it nothing orders the new frame words after
//!   the previous lap's in the words' modification order, and a consumer of the new ticket can
//!   read the previous lap's frame (loom: an item taken twice);
//! - [`Sys::push_keyed`] adds 1 to `pending` *before* setting the mark (subtracting it again if
//!   the mark was set already). Set first, another worker can sweep the mark, run the key and
//!   subtract its 1 before the add, so `pending` reads 0 while the spawning unit still runs
//!   (loom: `done` set while work is unexecuted).
//!
//! Limits of loom's memory model: a load never reads a store that has not executed yet (no load
//! buffering), and read-modify-writes always read the newest value, so two RMWs of one thread on
//! different words are never seen out of program order. The second point matters for
//! `push_keyed`: formally, only a release fence between the `pending` add and the mark's
//! `atomicOr` orders that add before the sweeper's subtract, and a `storageBarrier()` cannot sit
//! in a stage body (non-uniform control flow).
//!
//! Every model has broken variants (a [`Variant`] other than `Correct`) that tests run under
//! `std::panic::catch_unwind` and expect loom to reject, so each model is shown to be able to
//! fail. Coverage counters (printed with `--nocapture`) show that the scenarios reach the
//! interesting paths: the serial fallback, dropped and skipped hints, the sweep, slot reuse.
//!
//! Run with `cargo test -p dyngc-codegen --test protocol_model` (a few seconds in release, well
//! under a minute in debug; `-- --nocapture` prints how many executions each model explored).
//! [`PREEMPTIONS`] bounds the preemptions loom tries (1: every bug above is found with it);
//! `LOOM_MAX_PREEMPTIONS=2` explores more (minutes in release).

use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

use loom::sync::atomic::{fence, AtomicU32, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Ring shards (`dyn_shards`, a power of two): worker `w`'s home shard is `w % SHARDS`.
const SHARDS: u32 = 2;
/// Slots of one shard (`dyn_shard_slots`, a power of two, at least 2: with one slot "published"
/// and "consumed" would be the same state).
const SHARD_SLOTS: u32 = 2;
/// Modelled frame words: `[stage | flags << 16, id or key]` (lo/hi/rec are not modelled).
const FRAME_WORDS: usize = 2;
/// `DYN_BATCH`: most frames a claim takes and a batch pops.
const BATCH: u32 = 2;
/// Attempts of the CAS loops in `dyn_ring_reserve` and `dyn_ring_claim`.
const ATTEMPTS: u32 = 4;
/// `DYN_IDLE_LIMIT`.
const IDLE_LIMIT: u32 = 1;
/// `workers / shards * DYN_LEND_FRAMES`: the most frames a worker's home shard should hold before
/// its children stay on their spawner's stack. One, so that scenarios reach both lending and
/// keeping.
const LEND_TARGET: u32 = 1;
/// `dyn_params.dyn_workers`: every model runs two workgroups.
const WORKERS: u32 = 2;
/// `DYN_SWEEP_WORDS`.
const SWEEP_WORDS: u32 = 1;
/// Preemption bound of every model (`LOOM_MAX_PREEMPTIONS` overrides it).
const PREEMPTIONS: usize = 1;
/// `DYN_FLAG_OWNED << 16`.
const FLAG_OWNED: u32 = 1 << 16;

type Frame = [u32; FRAME_WORDS];

/// WGSL `storageBarrier()`: a device-scope acquire-release fence.
fn storage_barrier() {
    fence(Ordering::AcqRel);
}

const R: Ordering = Ordering::Relaxed;

/// The protocol as written, or one deliberately broken step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Correct,
    /// Publish stores the "published" state before the frame words.
    StateBeforeFrame,
    /// Publish stores the frame words, then the state, without the `storageBarrier()`.
    NoReleaseFence,
    /// Take stores "consumed" before copying the frame out.
    ConsumedBeforeCopy,
    /// Publish stores the frame words right after the reserve, with no `storageBarrier()`
    /// between reading the "consumed" states and overwriting the slots.
    ReserveWithoutBarrier,
    /// A keyed spawn sets the mark first and only then adds 1 to `pending`.
    CountAfterMark,
    /// A batch subtracts its finished frames from `pending` before adding its children.
    SubtractBeforeAdd,
    /// A worker runs a keyed hint without clearing (checking) the key's mark.
    HintIgnoresMark,
    /// The worker that ends a graph-level loop gives its `pending` unit back before it sets
    /// `done` (and without a barrier between).
    GiveBackBeforeDone,
    /// A push that finds a dispatch's queue full keeps its frame count instead of giving it back.
    QueueKeepsFullCount,
    /// A dispatch's workgroup claims a chunk with a load and a store instead of a
    /// compare-and-swap on the frame's `lo`.
    QueueClaimWithoutCas,
    /// The first workgroup of a dispatch to finish resets its queue, not the last.
    QueueResetByFirst,
    /// A dispatch's workgroups count themselves finished, and the last resets the queue,
    /// without the `storageBarrier()`s around the count.
    QueueLeaveWithoutBarriers,
    /// Every shard maps its tickets to the same slots (`dyn_slot` without the shard's offset).
    ShardsShareSlots,
    /// A claim from another shard moves the claimer's home head instead of that shard's.
    ClaimMovesHomeHead,
    /// Publish lends the oldest frames of the stack to the ring but leaves them on the stack.
    OldFramesStayOnStack,
    /// Publish drops a hint the ring has no room for without setting `marks_left`, so no
    /// idle worker sweeps its mark.
    DroppedHintUnsaid,
    /// Publish keeps a lone hint at home as an owned frame without clearing its mark.
    HomeHintOwnedUncleared,
}

/// What [`Sys::ring_claim`] got: `count` frames from `ticket` of `shard`, and whether it saw
/// queued frames at all (`dyn_wg_scan[2] != 0`: the sweep's gate).
struct Claim {
    count: u32,
    ticket: u32,
    shard: u32,
    queued_seen: bool,
}

impl Claim {
    /// Every shard looked empty.
    const NONE_SEEN: Claim = Claim {
        count: 0,
        ticket: 0,
        shard: 0,
        queued_seen: false,
    };

    /// Frames were queued in `shard`, but none was claimed (not yet published, or the races lost).
    fn lost(shard: u32) -> Claim {
        Claim {
            count: 0,
            ticket: 0,
            shard,
            queued_seen: true,
        }
    }
}

/// One ring shard's control line: its `head` and `tail`.
struct Shard {
    head: AtomicU32,
    tail: AtomicU32,
}

/// The shared state: the control block's words, the ring part of the arena and the marks.
struct Sys {
    variant: Variant,
    cov: &'static Coverage,
    /// The ticket every shard started at.
    start: u32,
    shards: Vec<Shard>,
    pending: AtomicU32,
    done: AtomicU32,
    /// Rounds of the graph-level loop completed.
    rounds: AtomicU32,
    sweep_cursor: AtomicU32,
    /// `marks_left`: set once a new mark was left with no hint in the ring or on a stack; the
    /// sweep runs only once it is set.
    marks_left: AtomicU32,
    states: Vec<AtomicU32>,
    frames: Vec<AtomicU32>,
    /// One mark word: bit k is key k of the (one) keyed stage.
    marks: AtomicU32,
}

/// `dyn_ticket_base`.
fn ticket_base(t: u32) -> u32 {
    t.wrapping_sub(t & (SHARD_SLOTS - 1))
}

/// The shard `j` places after `home`, round-robin.
fn shard_after(home: u32, j: u32) -> u32 {
    (home + j) & (SHARDS - 1)
}

/// What a batch staged in workgroup memory (`dyn_wg_staging`).
#[derive(Default)]
struct Out {
    carries: Vec<Frame>,
    children: Vec<Frame>,
    hints: Vec<Frame>,
}

/// The generated per-graph part (`dyn_execute`, `dyn_is_keyed`, ...) plus ghost bookkeeping.
trait Program {
    fn is_keyed(&self, stage: u32) -> bool;
    /// Mark words of the keyed stages (`dyn_keyed_words`).
    fn keyed_words(&self) -> u32;
    fn execute(&self, sys: &Sys, frame: Frame, out: &mut Out);
    /// Ghost: a key's mark went from clear to set (a pending period starts).
    fn newly_pending(&self, _key: u32) {}
    /// Ghost: a worker's `atomicAnd` cleared a set mark (it now owns that period).
    fn cleared(&self, _key: u32) {}
    /// Ghost: a worker is about to set `done`.
    fn done(&self) {}
    /// `DYN_LOOP`: the entry is a graph-level loop.
    fn is_loop(&self) -> bool {
        false
    }
    /// `dyn_until` after round `round`.
    fn until(&self, _round: u32) -> bool {
        unreachable!("only a graph-level loop ends rounds")
    }
    /// The entry frame of round `round` (`dyn_entry_stage`, index 0).
    fn seed(&self, _round: u32) -> Frame {
        unreachable!("only a graph-level loop seeds rounds")
    }
}

impl Sys {
    /// Every shard starts at ticket `start` (0 as in the arena, which starts zeroed; a start
    /// near `u32::MAX` makes tickets wrap), its slots empty and ready for it.
    fn new(variant: Variant, cov: &'static Coverage, start: u32) -> Sys {
        let atomics = |n: usize| (0..n).map(|_| AtomicU32::new(0)).collect::<Vec<_>>();
        assert_eq!(start & (SHARD_SLOTS - 1), 0, "a start ticket of slot 0");
        let slots = (SHARDS * SHARD_SLOTS) as usize;
        Sys {
            variant,
            cov,
            start,
            shards: (0..SHARDS)
                .map(|_| Shard {
                    head: AtomicU32::new(start),
                    tail: AtomicU32::new(start),
                })
                .collect(),
            pending: AtomicU32::new(0),
            done: AtomicU32::new(0),
            rounds: AtomicU32::new(0),
            sweep_cursor: AtomicU32::new(0),
            marks_left: AtomicU32::new(0),
            states: (0..slots).map(|_| AtomicU32::new(start)).collect(),
            frames: atomics(slots * FRAME_WORDS),
            marks: AtomicU32::new(0),
        }
    }

    /// `dyn_slot`: the ring slot of ticket `t` of `shard`.
    fn slot(&self, shard: u32, t: u32) -> usize {
        let offset = if self.variant == Variant::ShardsShareSlots {
            0
        } else {
            shard * SHARD_SLOTS
        };
        (offset + (t & (SHARD_SLOTS - 1))) as usize
    }

    /// Whether every shard's head has caught up with its tail.
    fn drained(&self) -> bool {
        self.shards.iter().all(|s| s.head.load(R) == s.tail.load(R))
    }

    /// `dyn_init`: the entry's pieces, piece s as ticket 0 of shard s, published;
    /// `pending` = the number of pieces.
    fn init_entry(&self, pieces: &[Frame]) {
        assert!(pieces.len() <= SHARDS as usize, "at most one piece per shard");
        for (shard, frame) in pieces.iter().enumerate() {
            let slot = self.slot(shard as u32, 0);
            for (w, v) in frame.iter().enumerate() {
                self.frames[slot * FRAME_WORDS + w].store(*v, R);
            }
            self.states[slot].store(ticket_base(0) + 1, R);
            self.shards[shard].tail.store(1, R);
        }
        self.pending.store(pieces.len() as u32, R);
    }

    /// `dyn_finish`.
    fn finish(&self) {
        self.done.store(1, R);
    }

    /// `dyn_end_round`, by the worker whose compare-and-swap took `pending` from 0 to 1: true
    /// when that unit goes back (after a release barrier, by the caller).
    fn end_round(&self, prog: &dyn Program, stack: &mut Vec<Frame>) -> bool {
        if self.done.load(R) != 0 {
            return true;
        }
        let round = self.rounds.load(R);
        let stop = prog.until(round);
        self.rounds.store(round + 1, R);
        if stop {
            if self.variant == Variant::GiveBackBeforeDone {
                self.pending.store(0, R);
                prog.done();
                self.finish();
                return false;
            }
            prog.done();
            self.finish();
            return true;
        }
        stack.push(prog.seed(round + 1));
        false
    }

    /// How many of the `n` slots of `shard` from ticket `t` are in state `base + published`
    /// (`dyn_ring_run`, and `dyn_ring_scan` for a first attempt).
    fn ring_run(&self, shard: u32, t: u32, n: u32, published: u32) -> u32 {
        let mut k = 0;
        while k < n {
            let tk = t.wrapping_add(k);
            if self.states[self.slot(shard, tk)].load(R) != ticket_base(tk).wrapping_add(published) {
                break;
            }
            k += 1;
        }
        k
    }

    /// `dyn_ring_reserve`, with the home tail read and scan `dyn_publish` does first: up to `n`
    /// consecutive empty slots of the home shard; a race (a lost compare-and-swap, or a tail
    /// that moved) moves on to the next shard. `(count, first ticket, shard)`.
    fn ring_reserve(&self, home: u32, n: u32) -> (u32, u32, u32) {
        if n == 0 {
            return (0, 0, home);
        }
        let mut shard = home;
        let mut t = self.shards[home as usize].tail.load(R);
        for _ in 0..ATTEMPTS {
            let tail = &self.shards[shard as usize].tail;
            let k = self.ring_run(shard, t, n, 0);
            let now;
            if k > 0 {
                match tail.compare_exchange(t, t.wrapping_add(k), R, R) {
                    Ok(_) => return (k, t, shard),
                    Err(old) => now = old,
                }
            } else {
                now = tail.load(R);
                if now == t {
                    // The slot at the tail is not free yet: the shard is full.
                    return (0, 0, shard);
                }
            }
            Coverage::hit(&self.cov.reserve_raced);
            if SHARDS > 1 {
                shard = shard_after(shard, 1);
                t = self.shards[shard as usize].tail.load(R);
            } else {
                t = now;
            }
        }
        (0, 0, shard)
    }

    /// `dyn_prescan` with an empty stack, then `dyn_ring_claim`: the home shard if it has
    /// `head != tail`, else the other (one of the choices of the WGSL's random draw among the
    /// shards with frames: which shard is claimed from does not matter to the protocol), then
    /// up to half of its queued frames (at most `BATCH`, at least
    /// one) that are published.
    fn ring_claim(&self, home: u32) -> Claim {
        let Some(shard) = (0..SHARDS).map(|j| shard_after(home, j)).find(|&s| {
            let s = &self.shards[s as usize];
            let head = s.head.load(R);
            s.tail.load(R) != head
        }) else {
            return Claim::NONE_SEEN;
        };
        if shard != home {
            Coverage::hit(&self.cov.claimed_elsewhere);
        }
        let line = &self.shards[shard as usize];
        let mut h = line.head.load(R);
        let queued = line.tail.load(R).wrapping_sub(h);
        let n = BATCH.min((queued / 2).max(1));
        // The head a claim moves: the shard's own (`ClaimMovesHomeHead`: the claimer's home's).
        let moved = if self.variant == Variant::ClaimMovesHomeHead {
            home
        } else {
            shard
        };
        for _ in 0..ATTEMPTS {
            let k = self.ring_run(shard, h, n, 1);
            if k == 0 {
                return Claim::lost(shard);
            }
            match self.shards[moved as usize]
                .head
                .compare_exchange(h, h.wrapping_add(k), R, R)
            {
                Ok(_) => {
                    return Claim {
                        count: k,
                        ticket: h,
                        shard,
                        queued_seen: true,
                    }
                }
                Err(old) => h = old,
            }
        }
        Claim::lost(shard)
    }

    /// `dyn_take_claimed`: copy the claimed frames out, then free their slots.
    fn take_claimed(&self, shard: u32, ticket: u32, count: u32) -> Vec<Frame> {
        let free = |sys: &Sys| {
            for n in 0..count {
                let t = ticket.wrapping_add(n);
                sys.states[sys.slot(shard, t)].store(ticket_base(t).wrapping_add(SHARD_SLOTS), R);
            }
        };
        if self.variant == Variant::ConsumedBeforeCopy {
            free(self);
        }
        storage_barrier();
        let mut out = Vec::new();
        for n in 0..count {
            let s = self.slot(shard, ticket.wrapping_add(n));
            let mut f = [0; FRAME_WORDS];
            for (w, v) in f.iter_mut().enumerate() {
                *v = self.frames[s * FRAME_WORDS + w].load(R);
            }
            out.push(f);
        }
        storage_barrier();
        if self.variant != Variant::ConsumedBeforeCopy {
            free(self);
        }
        out
    }

    /// The ring half of `dyn_publish`, after `dyn_ring_reserve` returned `ticket` of `shard`:
    /// `storageBarrier()`, frame words, `storageBarrier()`, "published" states; nothing at all
    /// when no frame goes to the ring (`dyn_publish` skips both barriers then too).
    fn publish_frames(&self, shard: u32, ticket: u32, frames: &[Frame]) {
        if frames.is_empty() {
            return;
        }
        let last = ticket.wrapping_add(frames.len() as u32 - 1);
        if last.wrapping_sub(self.start) >= SHARD_SLOTS {
            Coverage::hit(&self.cov.slot_reused);
        }
        if last < self.start {
            Coverage::hit(&self.cov.ticket_wrapped);
        }
        // Acquire: the previous lap's consumer copied these slots' frames out before it stored
        // "consumed" (which the reserve read); without this barrier nothing orders our frame
        // stores after that lap's, and a consumer of ours may read the old frame. (In
        // `dyn_publish` its place is after `workgroupUniformLoad(&dyn_wg_post)`, which is
        // uniform control flow.)
        if self.variant != Variant::ReserveWithoutBarrier {
            storage_barrier();
        }
        let words = |sys: &Sys| {
            for (n, f) in frames.iter().enumerate() {
                let s = sys.slot(shard, ticket.wrapping_add(n as u32));
                for (w, v) in f.iter().enumerate() {
                    sys.frames[s * FRAME_WORDS + w].store(*v, R);
                }
            }
        };
        let states = |sys: &Sys| {
            for n in 0..frames.len() as u32 {
                let t = ticket.wrapping_add(n);
                sys.states[sys.slot(shard, t)].store(ticket_base(t).wrapping_add(1), R);
            }
        };
        match self.variant {
            Variant::StateBeforeFrame => {
                states(self);
                storage_barrier();
                words(self);
            }
            Variant::NoReleaseFence => {
                words(self);
                states(self);
            }
            _ => {
                words(self);
                storage_barrier();
                states(self);
            }
        }
    }

    /// `dyn_push_keyed`: set the mark; if it was clear, count it pending and stage a hint.
    ///
    /// `pending` is raised before the mark is set (and lowered again if it was set already):
    /// once the mark is set another worker may clear it, run the key and subtract its 1, and
    /// if that came before our add, `pending` could read 0 while this unit still runs.
    fn push_keyed(&self, prog: &dyn Program, stage: u32, key: u32, out: &mut Out) {
        let bit = 1 << key;
        if self.variant == Variant::CountAfterMark {
            if self.marks.fetch_or(bit, R) & bit != 0 {
                return;
            }
            prog.newly_pending(key);
            self.pending.fetch_add(1, R);
        } else {
            self.pending.fetch_add(1, R);
            if self.marks.fetch_or(bit, R) & bit != 0 {
                self.pending.fetch_sub(1, R);
                return;
            }
            prog.newly_pending(key);
        }
        out.hints.push([stage, key]);
    }

    /// `dyn_sweep`: take set marks as `OWNED` frames onto the (empty) stack.
    /// Only once `marks_left` is set, when the claim saw queued frames, or while more than
    /// [`WORKERS`] units are pending.
    fn sweep(&self, prog: &dyn Program, stage: u32, stack: &mut Vec<Frame>, pending: u32, queued_seen: bool) -> u32 {
        let words = prog.keyed_words();
        if words == 0 || pending == 0 {
            return 0;
        }
        if !queued_seen && pending <= WORKERS && self.marks_left.load(R) == 0 {
            return 0;
        }
        let mut taken = 0;
        let mut n = 0;
        while n < SWEEP_WORDS && taken < BATCH {
            let _word = self.sweep_cursor.fetch_add(1, R) % words; // always word 0 here
            let mut bits = self.marks.load(R);
            let mut b = 0;
            while b < 32 && bits != 0 && taken < BATCH {
                let bit = 1 << b;
                if bits & bit != 0 {
                    bits &= !bit;
                    if self.marks.fetch_and(!bit, R) & bit != 0 {
                        prog.cleared(b);
                        stack.push([stage | FLAG_OWNED, b]);
                        taken += 1;
                    }
                }
                b += 1;
            }
            n += 1;
        }
        taken
    }

    /// `dyn_run_lane` for a popped single frame; returns whether it counts as finished.
    fn run_lane(&self, prog: &dyn Program, frame: Frame, out: &mut Out) -> bool {
        let stage = frame[0] & 0xFFFF;
        if prog.is_keyed(stage) && frame[0] & FLAG_OWNED == 0 && self.variant != Variant::HintIgnoresMark {
            // A ring entry of a keyed stage is only a hint: whoever clears the mark runs it.
            let bit = 1 << frame[1];
            if self.marks.fetch_and(!bit, R) & bit == 0 {
                Coverage::hit(&self.cov.hints_skipped);
                return false;
            }
            prog.cleared(frame[1]);
        }
        prog.execute(self, frame, out);
        true
    }

    /// `dyn_publish`: hints, then the oldest frames of the stack (those the batch left, at its
    /// bottom), then children into the ring as far as it has room, carries and the other
    /// children onto the stack, `pending` accounting, then the ring publication.
    fn publish(&self, prog: &dyn Program, home: u32, stack: &mut Vec<Frame>, out: Out, finished: u32) {
        let carries = out.carries.len() as u32;
        let children = out.children.len() as u32;
        let mut keyed = out.hints.len() as u32;
        // `dyn_lend_budget`: old frames and children go to the ring only while the home shard
        // holds fewer than the lending target, and no more than it has room for (two relaxed
        // reads: an estimate; any count the reserve grants is correct).
        let line = &self.shards[home as usize];
        let queued = line.tail.load(R).wrapping_sub(line.head.load(R));
        let budget = LEND_TARGET
            .saturating_sub(queued)
            .min(SHARD_SLOTS.saturating_sub(queued));
        let old = (stack.len() as u32).min(1).min(budget);
        let mut lent = children.min(budget - old);
        // A batch that would leave its worker nothing keeps its one child while the home shard
        // is empty.
        if stack.is_empty() && carries == 0 && children == 1 && queued == 0 {
            Coverage::hit(&self.cov.kept_alone);
            lent = 0;
        }
        // So does its one keyed hint where it made nothing else.
        let home_hint = stack.is_empty() && carries == 0 && children == 0 && keyed == 1 && queued == 0;
        if home_hint {
            Coverage::hit(&self.cov.hint_kept_home);
            keyed = 0;
        }
        if lent < children {
            Coverage::hit(&self.cov.kept_by_choice);
        }
        let (to_ring, ticket, shard) = self.ring_reserve(home, keyed + old + lent);
        let keyed_to_ring = to_ring.min(keyed);
        let old_to_ring = (to_ring - keyed_to_ring).min(old);
        if old_to_ring > 0 {
            Coverage::hit(&self.cov.old_lent);
        }
        let kept = children - (to_ring - keyed_to_ring - old_to_ring);
        if kept > 0 {
            Coverage::hit(&self.cov.fallbacks);
        }
        if keyed_to_ring < keyed {
            Coverage::hit(&self.cov.hints_dropped);
            if self.variant != Variant::DroppedHintUnsaid {
                self.marks_left.store(1, R);
            }
        }
        // (An add or subtract of 0 is skipped: it changes nothing and would only add
        // interleavings for loom to explore.)
        let add = |n: u32| {
            if n > 0 {
                self.pending.fetch_add(n, R);
            }
        };
        let sub = |n: u32| {
            if n > 0 {
                let old = self.pending.fetch_sub(n, R);
                assert!(old >= n, "pending underflow: {old} - {n}");
            }
        };
        if self.variant == Variant::SubtractBeforeAdd {
            sub(finished);
            add(carries + children);
        } else {
            // One change by the net amount, as `dyn_publish` does.
            let made = carries + children;
            if made >= finished {
                add(made - finished);
            } else {
                sub(finished - made);
            }
        }
        // Into the ring: keyed hints, the old frames off the stack's bottom, then the children
        // the stack does not keep.
        let mut ring = out.hints[..keyed_to_ring as usize].to_vec();
        if self.variant == Variant::OldFramesStayOnStack {
            ring.extend_from_slice(&stack[..old_to_ring as usize]);
        } else {
            ring.extend(stack.drain(..old_to_ring as usize));
        }
        ring.extend_from_slice(&out.children[kept as usize..]);
        // Onto the stack: the carries, then the first `kept` children (deeper work on top).
        stack.extend_from_slice(&out.carries);
        stack.extend_from_slice(&out.children[..kept as usize]);
        // The hint kept at home becomes an owned frame once its mark is cleared here; a mark
        // already clear was swept meanwhile, and nothing stays.
        if home_hint {
            let [stage, key] = out.hints[0];
            let bit = 1 << key;
            if self.variant == Variant::HomeHintOwnedUncleared {
                stack.push([stage | FLAG_OWNED, key]);
            } else if self.marks.fetch_and(!bit, R) & bit != 0 {
                prog.cleared(key);
                stack.push([stage | FLAG_OWNED, key]);
            } else {
                Coverage::hit(&self.cov.home_hint_swept);
            }
        }
        assert_eq!(ring.len() as u32, to_ring);
        self.publish_frames(shard, ticket, &ring);
    }
}

/// Counters outside the model (plain std atomics, one set per test): how many explored
/// executions went through each path, so a scenario can show it reaches the interesting ones.
#[derive(Default)]
struct Coverage {
    executions: AtomicUsize,
    fallbacks: AtomicUsize,
    kept_by_choice: AtomicUsize,
    kept_alone: AtomicUsize,
    hint_kept_home: AtomicUsize,
    home_hint_swept: AtomicUsize,
    old_lent: AtomicUsize,
    hints_dropped: AtomicUsize,
    hints_skipped: AtomicUsize,
    swept: AtomicUsize,
    ring_taken: AtomicUsize,
    slot_reused: AtomicUsize,
    ticket_wrapped: AtomicUsize,
    claimed_elsewhere: AtomicUsize,
    reserve_raced: AtomicUsize,
}

impl Coverage {
    const fn new() -> Coverage {
        Coverage {
            executions: AtomicUsize::new(0),
            fallbacks: AtomicUsize::new(0),
            kept_by_choice: AtomicUsize::new(0),
            kept_alone: AtomicUsize::new(0),
            hint_kept_home: AtomicUsize::new(0),
            home_hint_swept: AtomicUsize::new(0),
            old_lent: AtomicUsize::new(0),
            hints_dropped: AtomicUsize::new(0),
            hints_skipped: AtomicUsize::new(0),
            swept: AtomicUsize::new(0),
            ring_taken: AtomicUsize::new(0),
            slot_reused: AtomicUsize::new(0),
            ticket_wrapped: AtomicUsize::new(0),
            claimed_elsewhere: AtomicUsize::new(0),
            reserve_raced: AtomicUsize::new(0),
        }
    }

    fn hit(counter: &AtomicUsize) {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn get(counter: &AtomicUsize) -> usize {
        counter.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn report(&self, name: &str) {
        println!(
            "{name}: {} executions; paths reached: fallback {}, kept by choice {}, kept alone {}, hint kept home {} (swept first {}), old lent {}, hint dropped {}, \
             hint skipped {}, sweep {}, ring claim {}, slot reused {}, ticket wrapped {}, \
             claimed from another shard {}, reserve raced {}",
            Self::get(&self.executions),
            Self::get(&self.fallbacks),
            Self::get(&self.kept_by_choice),
            Self::get(&self.kept_alone),
            Self::get(&self.hint_kept_home),
            Self::get(&self.home_hint_swept),
            Self::get(&self.old_lent),
            Self::get(&self.hints_dropped),
            Self::get(&self.hints_skipped),
            Self::get(&self.swept),
            Self::get(&self.ring_taken),
            Self::get(&self.slot_reused),
            Self::get(&self.ticket_wrapped),
            Self::get(&self.claimed_elsewhere),
            Self::get(&self.reserve_raced),
        );
    }
}

/// One launch of worker `me`: `dyn_main`'s loop with `dyn_plan`, single frames only.
fn launch(sys: &Sys, prog: &dyn Program, keyed_stage: u32, me: u32, stack: &mut Vec<Frame>, fuel: u32) {
    let home = me & (SHARDS - 1);
    let mut fuel = fuel;
    let mut idle = 0;
    let mut seen_pending = 0;
    loop {
        storage_barrier();
        // dyn_plan
        if sys.done.load(R) != 0 || fuel == 0 {
            return;
        }
        fuel -= 1;
        if stack.is_empty() {
            let claim = sys.ring_claim(home);
            if claim.count > 0 {
                idle = 0;
                Coverage::hit(&sys.cov.ring_taken);
                stack.extend(sys.take_claimed(claim.shard, claim.ticket, claim.count));
                continue;
            }
            let pending = sys.pending.load(R);
            let swept = sys.sweep(prog, keyed_stage, stack, pending, claim.queued_seen);
            if swept > 0 {
                idle = 0;
                Coverage::hit(&sys.cov.swept);
                continue;
            }
            if pending == 0 {
                if !prog.is_loop() {
                    prog.done();
                    sys.finish();
                    return;
                }
                // DYN_CMD_ROUND: the compare-and-swap makes this worker the round's only ender.
                if sys.pending.compare_exchange(0, 1, R, R).is_ok() {
                    idle = 0;
                    storage_barrier();
                    let give_back = sys.end_round(prog, stack);
                    storage_barrier();
                    if give_back {
                        sys.pending.store(0, R);
                    }
                    continue;
                }
            }
            // Polling goes on while `pending` moves (fuel still bounds the loop).
            if pending != seen_pending {
                seen_pending = pending;
                idle = 0;
            }
            idle += 1;
            if idle > IDLE_LIMIT {
                return;
            }
            continue;
        }
        idle = 0;
        // DYN_CMD_POP: up to a batch of single frames from the top; each lane runs one.
        let count = stack.len().min(BATCH as usize);
        let batch = stack.split_off(stack.len() - count);
        let mut out = Out::default();
        let mut finished = 0;
        for frame in batch {
            if sys.run_lane(prog, frame, &mut out) {
                finished += 1;
            }
        }
        storage_barrier();
        sys.publish(prog, home, stack, out, finished);
    }
}

/// The host: relaunch the workers, one at a time, until `done` (all threads are joined, so
/// there is no concurrency left; the protocol must still finish).
fn host_relaunch(sys: &Sys, prog: &dyn Program, keyed_stage: u32, workers: [u32; 2], stacks: &mut [Vec<Frame>]) {
    for _ in 0..8 {
        if sys.done.load(R) != 0 {
            return;
        }
        for (&me, stack) in workers.iter().zip(stacks.iter_mut()) {
            launch(sys, prog, keyed_stage, me, stack, 8);
        }
    }
    panic!("the host's relaunches never saw `done`");
}

/// Two workgroups, the workers `workers` (worker w's home shard is `w % SHARDS`), one
/// `loom::thread` each, starting with the stacks of `starts`: each launches
/// `launches` times with `fuel` (relaunches resume the saved stack). Returns their stacks once
/// both are joined, for [`host_relaunch`].
fn workgroups<P: Program + Send + Sync + 'static>(
    sys: &Arc<Sys>,
    prog: &std::sync::Arc<P>,
    keyed_stage: u32,
    workers: [u32; 2],
    starts: [Vec<Frame>; 2],
    launches: usize,
    fuel: u32,
) -> Vec<Vec<Frame>> {
    let threads: Vec<_> = starts
        .into_iter()
        .zip(workers)
        .map(|(mut stack, me)| {
            let (sys, prog) = (sys.clone(), prog.clone());
            thread::spawn(move || {
                for _ in 0..launches {
                    launch(&sys, &*prog, keyed_stage, me, &mut stack, fuel);
                }
                stack
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

fn builder(preemptions: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(preemptions);
    }
    b
}

/// Runs `model` and returns whether loom found a failing execution.
fn fails(model: impl FnOnce() + std::panic::UnwindSafe) -> bool {
    std::panic::catch_unwind(model).is_err()
}

// ---------------------------------------------------------------------------------------------
// 1. ring_exactly_once

/// Distinct 2-word frames: `[id, check(id)]`; a torn or stale frame fails `check`.
fn check_word(id: u32) -> u32 {
    id.wrapping_mul(0x9E37_79B9) ^ 0x00A5_A5A5
}

/// The items each producer publishes, one reserve each: more items than a shard's slots, so a
/// slot is reused while the other threads run. Both producers are home to shard 0 (workers 0
/// and 2), so their reservations race and a loser moves on to shard 1.
const RING_PRODUCED: [&[u32]; 2] = [&[1, 2], &[3]];
const RING_PRODUCER_HOMES: [u32; 2] = [0, 0];
/// The consumers' home shards: one claims from shard 1 first, so it takes from shard 0 when its
/// own is empty.
const RING_CONSUMER_HOMES: [u32; 2] = [0, 1];
/// The shards' first ticket: the third ticket of a shard wraps past `u32::MAX`.
const RING_START: u32 = u32::MAX - 1;
const RING_ITEMS: u32 = 3;
/// Claims each consumer thread tries.
const RING_CLAIMS: u32 = 1;

#[derive(Default)]
struct RingGhost {
    taken: Vec<u32>,
    fallback: u32,
}

fn ring_model(variant: Variant, preemptions: usize, cov: &'static Coverage) {
    builder(preemptions).check(move || {
        Coverage::hit(&cov.executions);
        let sys = Arc::new(Sys::new(variant, cov, RING_START));
        let ghost = std::sync::Arc::new(Mutex::new(RingGhost {
            taken: vec![0; RING_ITEMS as usize + 1],
            fallback: 0,
        }));
        let take = |sys: &Sys, home: u32, ghost: &Mutex<RingGhost>| -> bool {
            let claim = sys.ring_claim(home);
            if claim.count == 0 {
                return false;
            }
            for [id, check] in sys.take_claimed(claim.shard, claim.ticket, claim.count) {
                assert!((1..=RING_ITEMS).contains(&id), "torn frame: id {id}");
                assert_eq!(check, check_word(id), "torn frame: item {id}");
                let mut g = ghost.lock().unwrap();
                assert_eq!(g.taken[id as usize], 0, "item {id} taken twice");
                g.taken[id as usize] += 1;
            }
            true
        };
        let mut threads = Vec::new();
        // Two producers, one reserve of one frame per item; then two consumers.
        for (items, home) in RING_PRODUCED.into_iter().zip(RING_PRODUCER_HOMES) {
            let (sys, ghost) = (sys.clone(), ghost.clone());
            threads.push(thread::spawn(move || {
                for &id in items {
                    let (k, t, shard) = sys.ring_reserve(home, 1);
                    if k == 0 {
                        Coverage::hit(&sys.cov.fallbacks);
                        ghost.lock().unwrap().fallback += 1;
                    } else {
                        sys.publish_frames(shard, t, &[[id, check_word(id)]]);
                    }
                }
            }));
        }
        for home in RING_CONSUMER_HOMES {
            let (sys, ghost) = (sys.clone(), ghost.clone());
            threads.push(thread::spawn(move || {
                for _ in 0..RING_CLAIMS {
                    take(&sys, home, &ghost);
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        // Drain what is left (everything is published now), then check the accounting.
        while take(&sys, 0, &ghost) {}
        assert!(sys.drained(), "published entry left behind");
        let g = ghost.lock().unwrap();
        let taken: u32 = g.taken.iter().sum();
        assert_eq!(RING_ITEMS, taken + g.fallback, "produced != taken + fallback");
    });
}

#[test]
fn ring_exactly_once() {
    static COV: Coverage = Coverage::new();
    ring_model(Variant::Correct, PREEMPTIONS, &COV);
    COV.report("ring_exactly_once");
    // The scenario reaches "no room", the reuse of a slot, tickets wrapping past u32::MAX, a
    // reservation that lost a race (and moved on to the next shard) and a claim from a shard
    // other than the claimer's home.
    assert!(Coverage::get(&COV.fallbacks) > 0);
    assert!(Coverage::get(&COV.slot_reused) > 0);
    assert!(Coverage::get(&COV.ticket_wrapped) > 0);
    assert!(Coverage::get(&COV.reserve_raced) > 0);
    assert!(Coverage::get(&COV.claimed_elsewhere) > 0);
}

#[test]
fn ring_detects_shards_sharing_slots() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::ShardsShareSlots, PREEMPTIONS, &COV)));
    COV.report("ring_detects_shards_sharing_slots");
}

#[test]
fn ring_detects_claim_moving_home_head() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::ClaimMovesHomeHead, PREEMPTIONS, &COV)));
    COV.report("ring_detects_claim_moving_home_head");
}

#[test]
fn ring_detects_state_before_frame() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::StateBeforeFrame, PREEMPTIONS, &COV)));
    COV.report("ring_detects_state_before_frame");
}

#[test]
fn ring_detects_missing_release_fence() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::NoReleaseFence, PREEMPTIONS, &COV)));
    COV.report("ring_detects_missing_release_fence");
}

#[test]
fn ring_detects_consumed_before_copy() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::ConsumedBeforeCopy, PREEMPTIONS, &COV)));
    COV.report("ring_detects_consumed_before_copy");
}

/// Found by this model: `dyn_publish` as first written stored the new frames right after
/// `dyn_ring_reserve`, with no `storageBarrier()` between reading "consumed" and overwriting the
/// slot. Nothing then orders the new frame stores after the previous lap's, so a consumer of
/// the new ticket may read the previous lap's frame (loom reports an item taken twice).
#[test]
fn ring_detects_reserve_without_barrier() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| ring_model(Variant::ReserveWithoutBarrier, PREEMPTIONS, &COV)));
    COV.report("ring_detects_reserve_without_barrier");
}

// ---------------------------------------------------------------------------------------------
// 2. termination_detection

const STAGE_UNIT: u32 = 1;
/// Unit ids: root 0 spawns 1, 2, 3; unit 1 spawns 4.
const TREE_UNITS: usize = 5;

fn tree_children(id: u32) -> &'static [u32] {
    match id {
        0 => &[1, 2, 3],
        1 => &[4],
        _ => &[],
    }
}

struct Tree {
    executed: Mutex<[u32; TREE_UNITS]>,
    done: Mutex<bool>,
}

impl Program for Tree {
    fn is_keyed(&self, _stage: u32) -> bool {
        false
    }
    fn keyed_words(&self) -> u32 {
        0
    }
    fn execute(&self, _sys: &Sys, frame: Frame, out: &mut Out) {
        let id = frame[1];
        assert_eq!(frame[0], STAGE_UNIT);
        assert!(!*self.done.lock().unwrap(), "unit {id} runs after done");
        {
            let mut e = self.executed.lock().unwrap();
            assert_eq!(e[id as usize], 0, "unit {id} ran twice");
            e[id as usize] += 1;
        }
        for &c in tree_children(id) {
            out.children.push([STAGE_UNIT, c]);
        }
    }
    fn done(&self) {
        let e = self.executed.lock().unwrap();
        assert!(e.iter().all(|&n| n == 1), "done set while work is unexecuted: {e:?}");
        *self.done.lock().unwrap() = true;
    }
}

/// Where the tree's work starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    /// The root (unit 0) in the ring.
    Root,
    /// Two pieces in two shards, units 1 and 2, as `dyn_init` seeds a wide entry range; units
    /// outside their subtrees count as run.
    Pieces,
    /// The root's children 1, 2, 3 on worker 0's stack (the root ran): its first batch takes
    /// the top two, so unit 1 is an old frame it may lend.
    Stack,
}

fn termination_model(variant: Variant, preemptions: usize, cov: &'static Coverage, start: Start) {
    builder(preemptions).check(move || {
        Coverage::hit(&cov.executions);
        let sys = Arc::new(Sys::new(variant, cov, 0));
        let mut first_stack = Vec::new();
        let executed = match start {
            Start::Pieces => {
                sys.init_entry(&[[STAGE_UNIT, 1], [STAGE_UNIT, 2]]);
                [1, 0, 0, 1, 0]
            }
            Start::Root => {
                sys.init_entry(&[[STAGE_UNIT, 0]]);
                [0; TREE_UNITS]
            }
            Start::Stack => {
                first_stack = tree_children(0).iter().map(|&c| [STAGE_UNIT, c]).collect();
                sys.pending.store(first_stack.len() as u32, R);
                [1, 0, 0, 0, 0]
            }
        };
        let prog = std::sync::Arc::new(Tree {
            executed: Mutex::new(executed),
            done: Mutex::new(false),
        });
        // Two launches with little fuel each: relaunches resume the saved stack.
        // Workers 0 and 1: home shards 0 and 1, so one of them takes the root from a shard
        // other than its own.
        let mut stacks = workgroups(&sys, &prog, 0, [0, 1], [first_stack, Vec::new()], 2, 3);
        host_relaunch(&sys, &*prog, 0, [0, 1], &mut stacks);
        assert!(stacks.iter().all(Vec::is_empty));
        assert_eq!(sys.pending.load(R), 0);
        assert!(sys.drained());
        let e = prog.executed.lock().unwrap();
        assert!(e.iter().all(|&n| n == 1), "not all work ran once: {e:?}");
    });
}

#[test]
fn termination_detection() {
    static COV: Coverage = Coverage::new();
    termination_model(Variant::Correct, PREEMPTIONS, &COV, Start::Root);
    COV.report("termination_detection");
    // The scenario reaches both the ring and the serial fallback.
    assert!(Coverage::get(&COV.fallbacks) > 0);
    assert!(Coverage::get(&COV.kept_by_choice) > 0);
    assert!(Coverage::get(&COV.ring_taken) > 0);
}

/// A worker with frames below its batch lends them (its oldest work) before its children.
#[test]
fn termination_with_old_frames_lent() {
    static COV: Coverage = Coverage::new();
    termination_model(Variant::Correct, PREEMPTIONS, &COV, Start::Stack);
    COV.report("termination_with_old_frames_lent");
    assert!(Coverage::get(&COV.old_lent) > 0);
    assert!(Coverage::get(&COV.ring_taken) > 0);
}

/// `dyn_init` seeds a wide entry as one piece per shard: each piece runs once, and `pending`
/// (started at the number of pieces) reaches 0 only after all of them and their children.
#[test]
fn termination_with_the_entry_in_pieces() {
    static COV: Coverage = Coverage::new();
    termination_model(Variant::Correct, PREEMPTIONS, &COV, Start::Pieces);
    COV.report("termination_with_the_entry_in_pieces");
    assert!(Coverage::get(&COV.ring_taken) > 0);
    // Unit 1's lone child 4 stays with its spawner while the home shard is empty.
    assert!(Coverage::get(&COV.kept_alone) > 0);
}

/// A frame lent from the bottom of the stack must leave it: kept as well, it runs twice.
#[test]
fn termination_detects_old_frames_left_on_the_stack() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| termination_model(
        Variant::OldFramesStayOnStack,
        PREEMPTIONS,
        &COV,
        Start::Stack
    )));
    COV.report("termination_detects_old_frames_left_on_the_stack");
}

#[test]
fn termination_detects_subtract_before_add() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| termination_model(
        Variant::SubtractBeforeAdd,
        PREEMPTIONS,
        &COV,
        Start::Root
    )));
    COV.report("termination_detects_subtract_before_add");
}

// ---------------------------------------------------------------------------------------------
// 3. keyed_marks

const STAGE_SPAWNER: u32 = 1;
const STAGE_KEYED: u32 = 2;
const KEYS: usize = 3;

/// Spawner frames carry a key mask; running key 1 spawns key 0 again (a keyed edge).
struct Keyed {
    /// Per key: pending periods started, marks cleared (owned), runs.
    periods: Mutex<[[u32; 3]; KEYS]>,
    /// Spawner frames run.
    spawners: Mutex<u32>,
    done: Mutex<bool>,
}

impl Program for Keyed {
    fn is_keyed(&self, stage: u32) -> bool {
        stage == STAGE_KEYED
    }
    fn keyed_words(&self) -> u32 {
        1
    }
    fn execute(&self, sys: &Sys, frame: Frame, out: &mut Out) {
        assert!(!*self.done.lock().unwrap(), "{frame:?} runs after done");
        match frame[0] & 0xFFFF {
            STAGE_SPAWNER => {
                *self.spawners.lock().unwrap() += 1;
                for key in 0..KEYS as u32 {
                    if frame[1] & (1 << key) != 0 {
                        sys.push_keyed(self, STAGE_KEYED, key, out);
                    }
                }
            }
            STAGE_KEYED => {
                let key = frame[1];
                {
                    let mut p = self.periods.lock().unwrap();
                    let [_, cleared, runs] = &mut p[key as usize];
                    assert!(*runs < *cleared, "key {key} ran twice for one pending period");
                    *runs += 1;
                }
                if key == 1 {
                    sys.push_keyed(self, STAGE_KEYED, 0, out);
                }
            }
            s => panic!("unknown stage {s}"),
        }
    }
    fn newly_pending(&self, key: u32) {
        self.periods.lock().unwrap()[key as usize][0] += 1;
    }
    fn cleared(&self, key: u32) {
        let mut p = self.periods.lock().unwrap();
        let [periods, cleared, _] = &mut p[key as usize];
        *cleared += 1;
        assert_eq!(*cleared, *periods);
    }
    fn done(&self) {
        let p = self.periods.lock().unwrap();
        let spawners = *self.spawners.lock().unwrap();
        assert!(
            spawners == 2 && p.iter().all(|[n, _, r]| n == r),
            "done set while work is unexecuted: {spawners} spawners, {p:?}"
        );
        *self.done.lock().unwrap() = true;
    }
}

/// `marks_left` is the flag's value at the start: 1 as after a hint dropped earlier in the run,
/// so that idle workers sweep from the first step (a sweep racing a spawn needs that, within one
/// preemption).
fn keyed_model(variant: Variant, preemptions: usize, cov: &'static Coverage, marks_left: u32) {
    builder(preemptions).check(move || {
        Coverage::hit(&cov.executions);
        let sys = Arc::new(Sys::new(variant, cov, 0));
        sys.marks_left.store(marks_left, R);
        // Each worker starts with one spawner frame on its stack (counted in `pending`).
        sys.pending.store(2, R);
        let prog = std::sync::Arc::new(Keyed {
            periods: Mutex::new([[0; 3]; KEYS]),
            spawners: Mutex::new(0),
            done: Mutex::new(false),
        });
        let starts = [vec![[STAGE_SPAWNER, 0b011]], vec![[STAGE_SPAWNER, 0b101]]];
        // Workers 0 and 2 share home shard 0, whose two slots their hints then fill.
        let mut stacks = workgroups(&sys, &prog, STAGE_KEYED, [0, 2], starts, 2, 3);
        let before = format!(
            "{stacks:?} pending {} done {} marks {} {:?}",
            sys.pending.load(R),
            sys.done.load(R),
            sys.marks.load(R),
            prog.periods.lock().unwrap()
        );
        host_relaunch(&sys, &*prog, STAGE_KEYED, [0, 2], &mut stacks);
        assert_eq!(sys.marks.load(R), 0, "{before}");
        assert_eq!(sys.pending.load(R), 0);
        let p = prog.periods.lock().unwrap();
        for (key, [periods, cleared, runs]) in p.iter().enumerate() {
            assert!(*periods >= 1, "key {key} never spawned");
            assert_eq!(periods, cleared, "key {key}");
            assert_eq!(periods, runs, "key {key}: each pending period runs exactly once");
        }
    });
}

#[test]
fn keyed_marks() {
    static COV: Coverage = Coverage::new();
    keyed_model(Variant::Correct, PREEMPTIONS, &COV, 0);
    keyed_model(Variant::Correct, PREEMPTIONS, &COV, 1);
    COV.report("keyed_marks");
    // The scenario reaches dropped hints, the sweep, skipped hints and a hint kept at home,
    // once with its mark swept before its worker cleared it.
    assert!(Coverage::get(&COV.hints_dropped) > 0);
    assert!(Coverage::get(&COV.swept) > 0);
    assert!(Coverage::get(&COV.hints_skipped) > 0);
    assert!(Coverage::get(&COV.hint_kept_home) > 0);
    assert!(Coverage::get(&COV.home_hint_swept) > 0);
}

/// A lone hint kept at home as an owned frame with its mark still set: a sweeper can take the
/// mark too, and the key runs twice for one pending period.
#[test]
fn keyed_detects_home_hint_owned_uncleared() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| keyed_model(
        Variant::HomeHintOwnedUncleared,
        PREEMPTIONS,
        &COV,
        1
    )));
    COV.report("keyed_detects_home_hint_owned_uncleared");
}

/// A dropped hint's mark is found only by a sweep: without `marks_left` set, none runs, and the
/// host's relaunches never see `done`.
#[test]
fn keyed_detects_dropped_hint_unsaid() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| keyed_model(Variant::DroppedHintUnsaid, PREEMPTIONS, &COV, 0)));
    COV.report("keyed_detects_dropped_hint_unsaid");
}

#[test]
fn keyed_detects_hint_ignoring_mark() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| keyed_model(Variant::HintIgnoresMark, PREEMPTIONS, &COV, 0)));
    COV.report("keyed_detects_hint_ignoring_mark");
}

/// Found by this model: `dyn_push_keyed` as first written set the mark and only then added 1 to
/// `pending`. In between, another worker can sweep the mark, run the key and subtract 1, so
/// `pending` reads 0 while the spawning unit is still running, and `done` is set too early.
#[test]
fn keyed_detects_count_after_mark() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| keyed_model(Variant::CountAfterMark, PREEMPTIONS, &COV, 1)));
    COV.report("keyed_detects_count_after_mark");
}

// ---------------------------------------------------------------------------------------------
// 4. graph_level_loop

/// Units of one round: the entry unit 0 spawns 1 and 2.
const ROUND_UNITS: u32 = 3;
/// Rounds until `until` says stop.
const ROUNDS: u32 = 2;

/// Frames carry `round * ROUND_UNITS + id`.
struct Rounds {
    executed: Mutex<[[u32; ROUND_UNITS as usize]; ROUNDS as usize]>,
    /// The rounds `until` was evaluated after, in order.
    ended: Mutex<Vec<u32>>,
    done: Mutex<bool>,
}

impl Program for Rounds {
    fn is_keyed(&self, _stage: u32) -> bool {
        false
    }
    fn keyed_words(&self) -> u32 {
        0
    }
    fn execute(&self, sys: &Sys, frame: Frame, out: &mut Out) {
        let (round, id) = (frame[1] / ROUND_UNITS, frame[1] % ROUND_UNITS);
        assert!(!*self.done.lock().unwrap(), "round {round} unit {id} runs after done");
        // dyn_run_lane reads the round for `dyn_round()`: a unit must see its own.
        assert_eq!(
            sys.rounds.load(R),
            round,
            "unit {id} of round {round} sees another round"
        );
        {
            let mut e = self.executed.lock().unwrap();
            assert!(
                self.ended.lock().unwrap().len() as u32 == round,
                "round {round} unit {id} runs while round ends are {:?}",
                self.ended.lock().unwrap()
            );
            assert_eq!(e[round as usize][id as usize], 0, "round {round} unit {id} ran twice");
            e[round as usize][id as usize] += 1;
        }
        if id == 0 {
            for c in 1..ROUND_UNITS {
                out.children.push([STAGE_UNIT, round * ROUND_UNITS + c]);
            }
        }
    }
    fn done(&self) {
        let e = self.executed.lock().unwrap();
        assert!(
            e.iter().flatten().all(|&n| n == 1),
            "done set while work is unexecuted: {e:?}"
        );
        *self.done.lock().unwrap() = true;
    }
    fn is_loop(&self) -> bool {
        true
    }
    fn until(&self, round: u32) -> bool {
        let mut ended = self.ended.lock().unwrap();
        assert_eq!(
            *ended,
            (0..round).collect::<Vec<_>>(),
            "round {round} ended out of turn"
        );
        assert!(round < ROUNDS, "a round past the end: {round}");
        let e = self.executed.lock().unwrap();
        assert!(
            e[round as usize].iter().all(|&n| n == 1),
            "round {round} ended before all its work ran: {e:?}"
        );
        ended.push(round);
        round + 1 == ROUNDS
    }
    fn seed(&self, round: u32) -> Frame {
        [STAGE_UNIT, round * ROUND_UNITS]
    }
}

fn rounds_model(variant: Variant, preemptions: usize, cov: &'static Coverage) {
    builder(preemptions).check(move || {
        Coverage::hit(&cov.executions);
        let sys = Arc::new(Sys::new(variant, cov, 0));
        sys.init_entry(&[[STAGE_UNIT, 0]]);
        let prog = std::sync::Arc::new(Rounds {
            executed: Mutex::new([[0; ROUND_UNITS as usize]; ROUNDS as usize]),
            ended: Mutex::new(Vec::new()),
            done: Mutex::new(false),
        });
        // One launch each, with more fuel.
        let mut stacks = workgroups(&sys, &prog, 0, [0, 1], [Vec::new(), Vec::new()], 1, 6);
        host_relaunch(&sys, &*prog, 0, [0, 1], &mut stacks);
        assert!(stacks.iter().all(Vec::is_empty));
        assert_eq!(sys.rounds.load(R), ROUNDS, "rounds completed");
        assert_eq!(*prog.ended.lock().unwrap(), (0..ROUNDS).collect::<Vec<_>>());
        assert_eq!(sys.pending.load(R), 0);
    });
}

#[test]
fn graph_level_loop_rounds() {
    static COV: Coverage = Coverage::new();
    rounds_model(Variant::Correct, PREEMPTIONS, &COV);
    COV.report("graph_level_loop_rounds");
    assert!(Coverage::get(&COV.ring_taken) > 0);
}

#[test]
fn graph_level_loop_detects_give_back_before_done() {
    static COV: Coverage = Coverage::new();
    assert!(fails(|| rounds_model(Variant::GiveBackBeforeDone, PREEMPTIONS, &COV)));
    COV.report("graph_level_loop_detects_give_back_before_done");
}

// ---------------------------------------------------------------------------------------------
// 5. partitioned_queues: a dispatched stage's queue (stdlib/queues.wgsl)
//
// Producers push frames of `n` indices concurrently; a push that finds the queue full runs its
// indices itself (the direct call). The dispatch begins after every producer finished (a
// kernel boundary: the threads are joined), and its workgroups claim chunks concurrently; the
// last to leave resets the queue for the next chain, which runs the same way again. Every index
// must run exactly once, and the frame count must never exceed the capacity at rest (the
// consumer reads that many frames: past the capacity lies the next queue).

const QUEUE_CAP: u32 = 2;
/// Per producer thread, the sizes of the frames it pushes: more frames than the capacity.
const QUEUE_PUSHES: [&[u32]; 2] = [&[2, 1], &[2]];
/// Workgroups of each dispatch.
const QUEUE_GROUPS: u32 = 2;

struct Queue {
    variant: Variant,
    frames: AtomicU32,
    cursor: AtomicU32,
    left: AtomicU32,
    help: AtomicU32,
    /// Each frame's `lo` and `hi`; `tag` names the push, for the ghost.
    lo: [AtomicU32; QUEUE_CAP as usize],
    hi: [AtomicU32; QUEUE_CAP as usize],
    tag: [AtomicU32; QUEUE_CAP as usize],
    /// Ghost: (push tag, index) of every index run, by the dispatch or a direct call.
    ran: Mutex<Vec<(u32, u32)>>,
}

impl Queue {
    fn new(variant: Variant) -> Self {
        Queue {
            variant,
            frames: AtomicU32::new(0),
            cursor: AtomicU32::new(0),
            left: AtomicU32::new(0),
            help: AtomicU32::new(0),
            lo: std::array::from_fn(|_| AtomicU32::new(0)),
            hi: std::array::from_fn(|_| AtomicU32::new(0)),
            tag: std::array::from_fn(|_| AtomicU32::new(0)),
            ran: Mutex::new(Vec::new()),
        }
    }

    fn push(&self, tag: u32, n: u32) {
        let i = self.frames.fetch_add(1, R);
        if i >= QUEUE_CAP {
            if self.variant != Variant::QueueKeepsFullCount {
                self.frames.fetch_sub(1, R);
            }
            self.ran.lock().unwrap().extend((0..n).map(|k| (tag, k)));
            return;
        }
        let i = i as usize;
        self.tag[i].store(tag, R);
        self.lo[i].store(0, R);
        self.hi[i].store(n, R);
        // Chunks of one index here: every frame of two is advertised.
        if n > 1 {
            self.help.store(i as u32 + 1, R);
        }
    }

    /// One claim of at most `chunk` indices: (frame, first index, count), or `None` when drained.
    /// `cur` is the workgroup's `dyn_q_cur`. As in the WGSL, the loop only goes on with values
    /// read by read-modify-writes.
    fn take(&self, chunk: u32, cur: &mut u32) -> Option<(usize, u32, u32)> {
        let frames = self.frames.load(R);
        loop {
            if *cur != 0 {
                let f = (*cur - 1) as usize;
                let hi = self.hi[f].load(R);
                let mut lo = self.lo[f].load(R);
                while lo < hi {
                    let n = chunk.min(hi - lo);
                    if self.variant == Variant::QueueClaimWithoutCas {
                        self.lo[f].store(lo + n, R);
                        return Some((f, lo, n));
                    }
                    match self.lo[f].compare_exchange(lo, lo + n, R, R) {
                        Ok(_) => return Some((f, lo, n)),
                        Err(newer) => lo = newer,
                    }
                }
                let _ = self.help.compare_exchange(*cur, 0, R, R);
                *cur = 0;
            }
            let c = self.cursor.fetch_add(1, R);
            if c < frames {
                assert!(c < QUEUE_CAP, "frame {c} read past the queue's capacity");
                *cur = c + 1;
                if self.hi[c as usize].load(R) > chunk {
                    self.help.store(c + 1, R);
                }
                continue;
            }
            let help = self.help.fetch_add(0, R);
            if help == 0 {
                return None;
            }
            *cur = help;
        }
    }

    fn leave(&self, groups: u32) {
        let fenced = self.variant != Variant::QueueLeaveWithoutBarriers;
        if fenced {
            storage_barrier();
        }
        let before = self.left.fetch_add(1, R);
        let reset = match self.variant {
            Variant::QueueResetByFirst => before == 0,
            _ => before + 1 == groups,
        };
        if reset {
            if fenced {
                storage_barrier();
            }
            self.frames.store(0, R);
            self.cursor.store(0, R);
            self.left.store(0, R);
            self.help.store(0, R);
        }
    }

    fn workgroup(&self) {
        let mut cur = 0;
        while let Some((f, lo, n)) = self.take(1, &mut cur) {
            let tag = self.tag[f].load(R);
            self.ran.lock().unwrap().extend((lo..lo + n).map(|k| (tag, k)));
        }
        self.leave(QUEUE_GROUPS);
    }
}

fn queue_model(variant: Variant) {
    builder(PREEMPTIONS).check(move || {
        let q = Arc::new(Queue::new(variant));
        // Loom allows four spawned threads: in each phase the main thread is the second party.
        for chain in 0..2u32 {
            let push_all = move |q: &Queue, p: usize| {
                for (j, &n) in QUEUE_PUSHES[p].iter().enumerate() {
                    q.push(100 * chain + 10 * p as u32 + j as u32, n);
                }
            };
            let producer = {
                let q = q.clone();
                thread::spawn(move || push_all(&q, 1))
            };
            push_all(&q, 0);
            producer.join().unwrap();
            assert!(q.frames.load(R) <= QUEUE_CAP, "frame count past the capacity at rest");
            let consumer = {
                let q = q.clone();
                thread::spawn(move || q.workgroup())
            };
            q.workgroup();
            consumer.join().unwrap();
            assert_eq!(
                (q.frames.load(R), q.cursor.load(R), q.left.load(R), q.help.load(R)),
                (0, 0, 0, 0),
                "queue not reset"
            );
        }
        let mut ran = std::mem::take(&mut *q.ran.lock().unwrap());
        ran.sort_unstable();
        let mut want: Vec<(u32, u32)> = (0..2u32)
            .flat_map(|chain| {
                QUEUE_PUSHES.iter().enumerate().flat_map(move |(p, sizes)| {
                    sizes
                        .iter()
                        .enumerate()
                        .flat_map(move |(j, &n)| (0..n).map(move |k| (100 * chain + 10 * p as u32 + j as u32, k)))
                })
            })
            .collect();
        want.sort_unstable();
        assert_eq!(ran, want, "every index exactly once");
    });
}

#[test]
fn partitioned_queues_exactly_once() {
    queue_model(Variant::Correct);
}

#[test]
fn partitioned_queues_detect_kept_full_count() {
    assert!(fails(|| queue_model(Variant::QueueKeepsFullCount)));
}

#[test]
fn partitioned_queues_detect_claim_without_cas() {
    assert!(fails(|| queue_model(Variant::QueueClaimWithoutCas)));
}

#[test]
fn partitioned_queues_detect_reset_by_first() {
    assert!(fails(|| queue_model(Variant::QueueResetByFirst)));
}

/// Without a release before the count and an acquire after it, a workgroup's last move of the
/// cursor can land after the reset in the cursor's modification order (loom found this in the
/// first version of `dyn_queue_leave`): the next chain starts past its first frames.
#[test]
fn partitioned_queues_detect_leave_without_barriers() {
    assert!(fails(|| queue_model(Variant::QueueLeaveWithoutBarriers)));
}
