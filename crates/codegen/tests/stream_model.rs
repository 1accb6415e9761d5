//! A `loom` model of the stream-output reservation protocol (`docs/executor.md`, "Streams").
//!
//! This mirrors, in Rust, what `crates/codegen/src/streams.rs` generates and the host does
//! between launches, and model-checks it under every interleaving (within a preemption bound)
//! and every value a relaxed load may return:
//!
//! | here                  | generated WGSL / host                                          |
//! |-----------------------|----------------------------------------------------------------|
//! | [`Sys::reserve`]      | `dyn_reserve_J`                                                |
//! | [`Sys::emit`]         | `dyn_emit_R` (buffered in the lane, or a position per element) |
//! | [`Sys::release`]      | `dyn_release_J`                                                |
//! | [`Sys::flush`]        | `dyn_flush_J` (a lane's buffered elements' positions, one add) |
//! | [`Sys::release_all`]  | `dyn_release_all_J`                                            |
//! | [`Sys::lane_end`]     | `dyn_streams_lane_end` (the end of `dyn_run_units`)           |
//! | [`Sys::execute`]      | `execute_case`'s code in `dyn_execute` (and `dyn_defer`)       |
//! | [`Sys::launch`]       | `dyn_main`'s loop: `dyn_plan`'s `stream_full` check, one unit per step |
//! | [`Sys::host_step`]    | the host after a submission: check, copy, zero, relaunch       |
//!
//! Mapping of the memory model: each sub-window's `reserved` and `written` words and the
//! `stream_full` word are `loom::sync::atomic::AtomicU32`s accessed with `Ordering::Relaxed`
//! only, as WGSL atomics are relaxed. A worker is one `loom::thread` running one unit per step
//! (lanes touch nothing shared but these words, so more lanes are more threads; loom allows
//! four besides the main one). Element slots are plain storage stores in the WGSL, written only
//! at an index an `atomicAdd` handed out: here they are ghost state ([`Ghost::slots`], a `std`
//! mutex, no scheduling point), where a slot written twice in one window is an assertion. A
//! launch ends with its threads joined, so the host sees every store, as it does after a
//! submission; the first launches run their workers as threads, later ones run them one after
//! another on the main thread (loom's thread limit), each after the host's step.
//!
//! Not modelled: how a deferred unit's frame travels (it goes back on its worker's stack here;
//! the ring and stacks are `protocol_model.rs`'s), `pending` (the ghost knows which units are
//! left), keyed units (deferred as their key: set semantics), the recursion counter and
//! payload of the deferred frame, the `EMIT_BOUND` check (every unit here emits at most its
//! maximum), how `S` is chosen (each scenario picks it, with `capacity / S` at least every
//! maximum, as the init launch keeps it).
//!
//! Checked: an emit's slot is inside its sub-window (the WGSL's `INTERNAL` check) and within the
//! room reserved there; the room reserved, counting only reservations that were taken (an
//! overshooting `atomicAdd` is undone right after), never exceeds the sub-window; with nothing in
//! flight `reserved == written <= capacity / S` in every sub-window; every unit runs exactly
//! once; the host delivers each emitted element exactly once (the delivered multiset is the
//! emitted one); every launch after a drain runs a unit, so the run terminates, also with a
//! window of one element.
//!
//! Not an invariant: `reserved <= capacity / S` of the word itself. An overshooting add raises
//! it past the sub-window until its `atomicSub`; in between another unit's add can overshoot
//! although the room taken leaves enough for it ([`Path::OvershootWithRoom`]), and a unit can
//! find the window "full" while it has room ([`Path::FullWithRoom`]: that, or a stale relaxed
//! load). That only drains early: a launch after a drain still runs a unit, because the first
//! add after a drain cannot overshoot. Lanes still running when the window is found full give
//! back the room they hold when their batch ends, so a drain can find the whole window unused
//! (`one_window_exactly_once`). A lane runs up to [`LANE_UNITS`] units a batch, so the room one
//! unit leaves is the next one's ([`Path::Carried`], [`Path::ToppedUp`]); a reservation or
//! top-up asks for the stream's grant when the relaxed load saw room for it, else for the
//! unit's maximum ([`Path::Granted`]). Buffered elements wait in the lane, covered by its room,
//! until its buffer cannot hold the next unit's maximum ([`Path::BufferFull`]), it moves to
//! another sub-window ([`Path::FlushedToMove`]) or its batch ends.
//!
//! `broken_variants_are_caught` runs every broken [`Variant`] under `std::panic::catch_unwind`
//! and checks that loom fails, with the message of the check the variant breaks.
//! Run with `cargo test -p dyngc-codegen --test stream_model` (about 5 s of CPU in debug;
//! `-- --nocapture` prints the executions and paths each scenario reached). [`PREEMPTIONS`]
//! bounds the preemptions (`LOOM_MAX_PREEMPTIONS` overrides it: 3 also passes, in about a
//! minute of CPU).

use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

use loom::sync::atomic::{AtomicU32, Ordering};
use loom::sync::Arc;
use loom::thread;

const R: Ordering = Ordering::Relaxed;
/// Preemption bound of every model (`LOOM_MAX_PREEMPTIONS` overrides it).
const PREEMPTIONS: usize = 2;
/// Streams a unit may emit into.
const STREAMS: usize = 2;
/// Batches of one launch of a worker (`dyn_wg_fuel`): more than any worker's units, so a
/// launch leaves only when its stack is empty or a window is full, unless a variant loops.
const FUEL: u32 = 6;
/// Units the lane runs in one batch (`DYN_LANE_UNITS`): the room one leaves is the next's.
const LANE_UNITS: u32 = 2;
/// Most launches before the host gives up ("never completes").
const LAUNCHES: u32 = 8;
/// Elements a lane's buffer of a buffered stream holds (`dyn_emit_buf_J`'s length): at least
/// every unit's maximum, and more, so that the elements of several units wait there.
const BUFFER_LEN: usize = 3;

/// The protocol as generated, or one deliberately broken step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Correct,
    /// `dyn_reserve_J` finds an overshoot but does not undo its add.
    NoUndo,
    /// `dyn_reserve_J` trusts its relaxed load and does not check what the add returned.
    NoOvershootCheck,
    /// `dyn_release_J` (an unbuffered stream) or `dyn_flush_J` (a buffered one) leaves the
    /// elements written in the room the lane carries on.
    KeepWritten,
    /// `dyn_reserve_J` takes its grant but counts only the unit's maximum as the lane's room.
    GrantCountedAsMax,
    /// A lane whose batch ends gives all its room back, then writes its buffered elements.
    GiveBackBeforeFlush,
    /// The lane keeps its room when its batch ends.
    NoLaneEnd,
    /// A unit that found no room is neither run nor deferred.
    LoseUnfit,
    /// A unit that found no room is deferred, but `stream_full` is not raised.
    NoFullFlag,
    /// The host copies the windows out but does not zero their counts.
    DrainKeepsCounts,
}

/// A unit: its maximum per stream (0: its stage does not emit into that stream) and how many
/// elements it emits this time (at most the maximum).
#[derive(Clone, Copy, Debug)]
struct Unit {
    id: u32,
    max: [u32; STREAMS],
    emits: [u32; STREAMS],
}

impl Unit {
    /// The `k`-th element the unit emits into stream `j`: distinct over all units.
    fn element(&self, j: usize, k: u32) -> u32 {
        self.id * 16 + j as u32 * 8 + k
    }
}

/// One sub-window's control line.
struct Sub {
    reserved: AtomicU32,
    written: AtomicU32,
}

/// One stream window: `subs.len()` sub-windows (`S`) of `sub_cap` elements, and the room a lane
/// asks for when the sub-window has it (`dyn_grant_J`: at least every unit's maximum).
struct Stream {
    subs: Vec<Sub>,
    sub_cap: u32,
    grant: u32,
}

/// Bookkeeping outside the model.
struct Ghost {
    /// Per stream and sub-window: the room of reservations taken and not given back, i.e. the
    /// `reserved` word less the overshooting adds not yet undone.
    taken: Vec<Vec<u32>>,
    /// Per stream, the window's element slots (`sub * sub_cap + i`).
    slots: Vec<Vec<Option<u32>>>,
    /// Per unit id: how often it ran.
    ran: Vec<u32>,
    /// Elements the host copied out.
    delivered: Vec<u32>,
}

/// A lane's private reservation state per stream (`dyn_emit_at_J`, `dyn_emitted_J`,
/// `dyn_emit_max_J`, `dyn_emit_room_J`): the room it holds outlives a unit, not its batch.
#[derive(Default)]
struct Lane {
    at: [usize; STREAMS],
    emitted: [u32; STREAMS],
    max: [u32; STREAMS],
    room: [u32; STREAMS],
    /// `dyn_emit_buf_J`: a buffered stream's elements not yet written, of the lane's earlier
    /// units of the batch (`dyn_emit_buffered_J` of them) and of the running one.
    buffer: [Vec<u32>; STREAMS],
}

/// The paths a scenario should reach, counted outside the model over all explored executions.
#[derive(Clone, Copy, Debug)]
enum Path {
    Executions,
    /// An add overshot and was undone.
    OvershootUndone,
    /// ... where the room taken left enough: the add saw another's overshoot, not yet undone.
    OvershootWithRoom,
    /// A reservation in a sub-window other than the worker's home.
    MovedOn,
    Deferred,
    /// Room the lane's units did not use went back when its batch ended.
    ReleasedUnused,
    /// A unit started on room its lane's earlier unit left, with no atomic.
    Carried,
    /// A unit topped up the room its lane held, in the same sub-window.
    ToppedUp,
    /// A lane took its grant, more than the unit's maximum (a reservation or a top-up).
    Granted,
    /// Buffered elements of earlier units went out because the buffer could not hold the next
    /// unit's maximum.
    BufferFull,
    /// Buffered elements went out before the lane moved to another sub-window.
    FlushedToMove,
    Drains,
    /// A unit found every sub-window full while the room taken left enough in one.
    FullWithRoom,
}

const PATHS: [Path; 13] = [
    Path::Executions,
    Path::OvershootUndone,
    Path::OvershootWithRoom,
    Path::MovedOn,
    Path::Deferred,
    Path::ReleasedUnused,
    Path::Carried,
    Path::ToppedUp,
    Path::Granted,
    Path::BufferFull,
    Path::FlushedToMove,
    Path::Drains,
    Path::FullWithRoom,
];

struct Coverage {
    paths: [AtomicUsize; PATHS.len()],
    /// The most room of stream 0 a drain after a full window found unused.
    most_unused: AtomicUsize,
}

impl Coverage {
    /// Counts for one test (leaked: loom's model closure must be `'static`).
    fn leak() -> &'static Coverage {
        Box::leak(Box::new(Coverage {
            paths: std::array::from_fn(|_| AtomicUsize::new(0)),
            most_unused: AtomicUsize::new(0),
        }))
    }

    fn hit(&self, path: Path) {
        self.paths[path as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn get(&self, path: Path) -> usize {
        self.paths[path as usize].load(std::sync::atomic::Ordering::Relaxed)
    }
}

struct Scenario {
    /// Per stream: `S`, `capacity / S` and the grant.
    streams: [(usize, u32, u32); STREAMS],
    /// Per worker: its home sub-window and the units on its stack, popped from the end. A unit
    /// is `0xMEME`: its maximum and emits into stream 0, then into stream 1; unit ids count up
    /// in this order.
    workers: &'static [(usize, &'static [u32])],
}

impl Scenario {
    fn stacks(&self) -> Vec<Vec<Unit>> {
        let mut id = 0;
        let mut unit = |&spec: &u32| {
            let nibble = |k: u32| (spec >> (12 - 4 * k)) & 0xF;
            id += 1;
            Unit {
                id: id - 1,
                max: [nibble(0), nibble(2)],
                emits: [nibble(1), nibble(3)],
            }
        };
        self.workers
            .iter()
            .map(|(_, units)| units.iter().map(&mut unit).collect())
            .collect()
    }

    /// Launches whose workers run as threads: as many as loom's thread limit allows (four
    /// besides the main thread).
    fn threaded_launches(&self) -> usize {
        4 / self.workers.len()
    }
}

struct Sys {
    variant: Variant,
    /// Streams buffered in the lane (`EMIT_BUFFER_WORDS`): positions taken when the unit ends.
    buffered: bool,
    cov: &'static Coverage,
    streams: Vec<Stream>,
    stream_full: AtomicU32,
    ghost: Mutex<Ghost>,
}

impl Sys {
    fn new(variant: Variant, buffered: bool, cov: &'static Coverage, scenario: &Scenario, units: &[Unit]) -> Sys {
        let streams: Vec<Stream> = scenario
            .streams
            .iter()
            .map(|&(subs, sub_cap, grant)| {
                assert!(subs.is_power_of_two() && grant <= sub_cap);
                Stream {
                    subs: (0..subs)
                        .map(|_| Sub {
                            reserved: AtomicU32::new(0),
                            written: AtomicU32::new(0),
                        })
                        .collect(),
                    sub_cap,
                    grant,
                }
            })
            .collect();
        // As the init launch and the host keep it: every sub-window holds any unit's maximum
        // (and the grant, as dyn_streams_setup keeps it, is at least that maximum).
        for u in units {
            for (j, s) in streams.iter().enumerate() {
                assert!(u.max[j] <= s.grant && u.emits[j] <= u.max[j]);
            }
        }
        let ghost = Ghost {
            taken: streams.iter().map(|s| vec![0; s.subs.len()]).collect(),
            slots: streams
                .iter()
                .map(|s| vec![None; s.subs.len() * s.sub_cap as usize])
                .collect(),
            ran: vec![0; units.len()],
            delivered: Vec::new(),
        };
        Sys {
            variant,
            buffered,
            cov,
            streams,
            stream_full: AtomicU32::new(0),
            ghost: Mutex::new(ghost),
        }
    }

    fn ghost(&self) -> std::sync::MutexGuard<'_, Ghost> {
        self.ghost.lock().unwrap()
    }

    /// Adds `n` to the room taken in sub-window `s` of stream `j` (the ghost side of an add
    /// that did not overshoot).
    fn take(&self, j: usize, s: usize, n: u32) {
        let cap = self.streams[j].sub_cap;
        let mut g = self.ghost();
        g.taken[j][s] += n;
        assert!(
            g.taken[j][s] <= cap,
            "stream {j} sub-window {s}: {} reserved of {cap}",
            g.taken[j][s]
        );
    }

    /// `dyn_reserve_J(m)`: room for `m` elements: what the lane holds from its earlier units of
    /// the batch, topped up in the same sub-window when short, or else in one sub-window of
    /// stream `j` from `home` on; all full raises `stream_full`. Ghost updates sit right after
    /// the atomic they mirror (loom switches threads only at its own operations, so the pair is
    /// indivisible).
    fn reserve(&self, j: usize, m: u32, home: usize, lane: &mut Lane) -> bool {
        let st = &self.streams[j];
        lane.emitted[j] = 0;
        lane.max[j] = m;
        if self.buffered && lane.buffer[j].len() + m as usize > BUFFER_LEN {
            if !lane.buffer[j].is_empty() {
                self.cov.hit(Path::BufferFull);
            }
            self.flush(j, lane);
        }
        let held = lane.room[j] - lane.buffer[j].len() as u32;
        if held >= m {
            self.cov.hit(Path::Carried);
            return true;
        }
        let grant = st.grant; // at least every maximum, as Sys::new checks
        if lane.room[j] != 0 {
            let s = lane.at[j];
            let word = &st.subs[s].reserved;
            let seen = word.load(R);
            if seen <= st.sub_cap - (m - held) {
                let want = if seen <= st.sub_cap - (grant - held) { grant } else { m };
                let need = want - held;
                if word.fetch_add(need, R) <= st.sub_cap - need {
                    self.take(j, s, need);
                    self.cov.hit(Path::ToppedUp);
                    lane.room[j] += self.counted(want, m) - held;
                    return true;
                }
                word.fetch_sub(need, R);
                self.cov.hit(Path::OvershootUndone);
            }
            if !lane.buffer[j].is_empty() {
                self.cov.hit(Path::FlushedToMove);
            }
            self.flush(j, lane);
            if lane.room[j] != 0 {
                self.give_back(j, s, lane.room[j]);
            }
            lane.room[j] = 0;
        }
        let subs = st.subs.len();
        for k in 0..subs {
            let s = (home + k) & (subs - 1);
            let word = &st.subs[s].reserved;
            let seen = word.load(R);
            if seen > st.sub_cap - m {
                continue;
            }
            let want = if seen <= st.sub_cap - grant { grant } else { m };
            let old = word.fetch_add(want, R);
            if old > st.sub_cap - want && self.variant != Variant::NoOvershootCheck {
                // The add saw another add's overshoot, not yet undone, where the room taken
                // leaves enough for this one.
                if self.ghost().taken[j][s] + want <= st.sub_cap {
                    self.cov.hit(Path::OvershootWithRoom);
                }
                if self.variant != Variant::NoUndo {
                    word.fetch_sub(want, R);
                }
                self.cov.hit(Path::OvershootUndone);
                continue;
            }
            self.take(j, s, want);
            if s != home & (subs - 1) {
                self.cov.hit(Path::MovedOn);
            }
            lane.at[j] = s;
            lane.room[j] = self.counted(want, m);
            return true;
        }
        if self.ghost().taken[j].iter().any(|&t| t + m <= st.sub_cap) {
            self.cov.hit(Path::FullWithRoom);
        }
        if self.variant != Variant::NoFullFlag {
            self.stream_full.store(1, R);
        }
        false
    }

    /// The room a lane records after taking `want` for a unit of maximum `m`.
    fn counted(&self, want: u32, m: u32) -> u32 {
        if want > m {
            self.cov.hit(Path::Granted);
            if self.variant == Variant::GrantCountedAsMax {
                return m;
            }
        }
        want
    }

    /// `dyn_emit_R(v)`: within the unit's maximum, into the lane's buffer, or at a slot from
    /// the sub-window's `written`.
    fn emit(&self, j: usize, v: u32, lane: &mut Lane) {
        assert!(
            lane.emitted[j] < lane.max[j],
            "EMIT_BOUND: the scenario emits past a maximum"
        );
        lane.emitted[j] += 1;
        if self.buffered {
            lane.buffer[j].push(v);
            return;
        }
        let s = lane.at[j];
        let i = self.streams[j].subs[s].written.fetch_add(1, R);
        self.store(j, s, i, v);
    }

    /// The element store at slot `i` of sub-window `s`, which an `atomicAdd` on `written`
    /// handed out.
    fn store(&self, j: usize, s: usize, i: u32, v: u32) {
        let st = &self.streams[j];
        // The WGSL's INTERNAL check: every slot taken was reserved, so it is in the sub-window.
        assert!(
            i < st.sub_cap,
            "stream {j} sub-window {s}: slot {i} past its {}",
            st.sub_cap
        );
        let mut g = self.ghost();
        assert!(
            i < g.taken[j][s],
            "stream {j} sub-window {s}: slot {i} not reserved ({} reserved)",
            g.taken[j][s]
        );
        let slot = &mut g.slots[j][s * st.sub_cap as usize + i as usize];
        assert!(slot.is_none(), "stream {j} sub-window {s}: slot {i} written twice");
        *slot = Some(v);
    }

    /// Gives back `n` of the lane's room in stream `j`.
    fn give_back(&self, j: usize, s: usize, n: u32) {
        self.streams[j].subs[s].reserved.fetch_sub(n, R);
        let mut g = self.ghost();
        g.taken[j][s] = g.taken[j][s]
            .checked_sub(n)
            .unwrap_or_else(|| panic!("stream {j} sub-window {s}: more given back than reserved"));
    }

    /// `dyn_flush_J`: the lane's buffered elements go out at positions taken with one add, and
    /// leave its room.
    fn flush(&self, j: usize, lane: &mut Lane) {
        let held = std::mem::take(&mut lane.buffer[j]);
        if held.is_empty() {
            return;
        }
        let s = lane.at[j];
        let n = held.len() as u32;
        let i = self.streams[j].subs[s].written.fetch_add(n, R);
        for (k, v) in held.into_iter().enumerate() {
            self.store(j, s, i + k as u32, v);
        }
        if self.variant != Variant::KeepWritten {
            lane.room[j] -= n;
        }
    }

    /// `dyn_release_J`: the unit ended. A buffered stream's elements wait in the lane's buffer
    /// (its room still holds them); an unbuffered one's were written, and leave the room. The
    /// room they did not use stays with the lane.
    fn release(&self, j: usize, lane: &mut Lane) {
        if !self.buffered && self.variant != Variant::KeepWritten {
            lane.room[j] -= lane.emitted[j];
        }
        lane.emitted[j] = 0;
    }

    /// `dyn_release_all_J`: the lane's buffered elements go out, and all the room it holds in
    /// stream `j` goes back.
    fn release_all(&self, j: usize, lane: &mut Lane) {
        if self.variant == Variant::GiveBackBeforeFlush && !lane.buffer[j].is_empty() {
            self.give_back(j, lane.at[j], lane.room[j]);
            lane.room[j] = lane.buffer[j].len() as u32;
        }
        self.flush(j, lane);
        if lane.room[j] != 0 {
            self.give_back(j, lane.at[j], lane.room[j]);
            lane.room[j] = 0;
        }
    }

    /// `dyn_streams_lane_end`: the lane's units of the batch are done.
    fn lane_end(&self, lane: &mut Lane) {
        if self.variant == Variant::NoLaneEnd {
            return;
        }
        for j in 0..STREAMS {
            if lane.room[j] > lane.buffer[j].len() as u32 {
                self.cov.hit(Path::ReleasedUnused);
            }
            self.release_all(j, lane);
        }
    }

    /// `execute_case`: reserve in every stream the unit's stage emits into; run it, then
    /// release; or, when one is full, defer it (returns false: the lane's batch ends, and with
    /// it the room an earlier stream of this unit took).
    fn execute(&self, home: usize, unit: Unit, lane: &mut Lane, stack: &mut Vec<Unit>) -> bool {
        let emitting: Vec<usize> = (0..STREAMS).filter(|&j| unit.max[j] > 0).collect();
        let mut room = true;
        for &j in &emitting {
            if room && !self.reserve(j, unit.max[j], home, lane) {
                room = false;
            }
        }
        if room {
            {
                let mut g = self.ghost();
                assert_eq!(g.ran[unit.id as usize], 0, "unit {} ran twice", unit.id);
                g.ran[unit.id as usize] += 1;
            }
            for &j in &emitting {
                for k in 0..unit.emits[j] {
                    self.emit(j, unit.element(j, k), lane);
                }
            }
            for &j in &emitting {
                self.release(j, lane);
            }
            true
        } else {
            if self.variant != Variant::LoseUnfit {
                // dyn_defer: staged again as a frame of its own; the lane runs nothing more.
                self.cov.hit(Path::Deferred);
                stack.push(unit);
            }
            false
        }
    }

    /// One launch of a worker: `dyn_plan` leaves when `stream_full` is set (or fuel or work
    /// runs out), otherwise the worker's lane runs a batch: up to `LANE_UNITS` units from the
    /// top of its stack, until one is deferred, and then gives back the room it holds.
    fn launch(&self, home: usize, stack: &mut Vec<Unit>) {
        let mut lane = Lane::default();
        for _ in 0..FUEL {
            if self.stream_full.load(R) != 0 || stack.is_empty() {
                return;
            }
            for _ in 0..LANE_UNITS {
                let Some(unit) = stack.pop() else {
                    break;
                };
                if !self.execute(home, unit, &mut lane, stack) {
                    break;
                }
            }
            self.lane_end(&mut lane);
        }
    }

    /// The host after a launch (nothing in flight): checks the counts and, when a window is
    /// full or the run is done, copies each sub-window's first `written` elements out, zeroes
    /// the counts and `stream_full`. Returns whether it drained.
    fn host_step(&self, done: bool) -> bool {
        for (j, st) in self.streams.iter().enumerate() {
            for (s, sub) in st.subs.iter().enumerate() {
                let (r, w) = (sub.reserved.load(R), sub.written.load(R));
                assert_eq!(
                    r, w,
                    "stream {j} sub-window {s}: reserved != written, nothing in flight"
                );
                assert!(
                    w <= st.sub_cap,
                    "stream {j} sub-window {s}: {w} written of {}",
                    st.sub_cap
                );
            }
        }
        if !done && self.stream_full.load(R) == 0 {
            return false;
        }
        self.cov.hit(Path::Drains);
        if self.stream_full.load(R) != 0 {
            let st = &self.streams[0];
            let unused: u32 = st.subs.iter().map(|sub| st.sub_cap - sub.written.load(R)).sum();
            self.cov
                .most_unused
                .fetch_max(unused as usize, std::sync::atomic::Ordering::Relaxed);
        }
        let mut g = self.ghost();
        let g = &mut *g;
        for (j, st) in self.streams.iter().enumerate() {
            for (s, sub) in st.subs.iter().enumerate() {
                let base = s * st.sub_cap as usize;
                for i in 0..sub.written.load(R) as usize {
                    let v = g.slots[j][base + i].take();
                    let v = v.unwrap_or_else(|| {
                        panic!("stream {j} sub-window {s}: slot {i} copied but not written since the last drain")
                    });
                    g.delivered.push(v);
                }
                if self.variant != Variant::DrainKeepsCounts {
                    sub.reserved.store(0, R);
                    sub.written.store(0, R);
                    g.taken[j][s] = 0;
                }
            }
        }
        self.stream_full.store(0, R);
        true
    }

    fn units_run(&self) -> u32 {
        self.ghost().ran.iter().sum()
    }
}

/// The model: the scenario's first launches with one thread per worker, then launches run by
/// the main thread, each followed by the host's step, until every stack is empty.
fn stream_model(variant: Variant, buffered: bool, scenario: &'static Scenario, cov: &'static Coverage) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(PREEMPTIONS);
    }
    b.check(move || {
        cov.hit(Path::Executions);
        let mut stacks = scenario.stacks();
        let all: Vec<Unit> = stacks.concat();
        let homes: Vec<usize> = scenario.workers.iter().map(|&(h, _)| h).collect();
        let sys = Arc::new(Sys::new(variant, buffered, cov, scenario, &all));
        let mut launches = 0;
        let mut drained = true;
        while stacks.iter().any(|s| !s.is_empty()) {
            launches += 1;
            assert!(launches <= LAUNCHES, "the run never completes: {stacks:?} left");
            let before = sys.units_run();
            if launches as usize <= scenario.threaded_launches() {
                let threads: Vec<_> = stacks
                    .into_iter()
                    .zip(&homes)
                    .map(|(mut stack, &home)| {
                        let sys = sys.clone();
                        thread::spawn(move || {
                            sys.launch(home, &mut stack);
                            stack
                        })
                    })
                    .collect();
                stacks = threads.into_iter().map(|t| t.join().unwrap()).collect();
            } else {
                for (stack, &home) in stacks.iter_mut().zip(&homes) {
                    sys.launch(home, stack);
                }
            }
            // A drained window always lets a unit start, so each launch after one runs a unit.
            assert!(
                !drained || sys.units_run() > before,
                "launch {launches} after a drain ran no unit: {stacks:?} left"
            );
            drained = sys.host_step(stacks.iter().all(Vec::is_empty));
        }
        let g = sys.ghost();
        for u in &all {
            assert_eq!(g.ran[u.id as usize], 1, "unit {} lost", u.id);
        }
        let mut emitted: Vec<u32> = all
            .iter()
            .flat_map(|u| (0..STREAMS).flat_map(move |j| (0..u.emits[j]).map(move |k| u.element(j, k))))
            .collect();
        let mut delivered = g.delivered.clone();
        emitted.sort_unstable();
        delivered.sort_unstable();
        assert_eq!(delivered, emitted, "delivered != emitted");
    });
}

/// Explores `scenario` under the protocol as generated, with emits taking their positions one
/// by one and buffered, prints the paths it reached and checks that it reached `reached`;
/// returns the counts.
fn explore(name: &str, scenario: &'static Scenario, reached: &[Path]) -> &'static Coverage {
    let cov = Coverage::leak();
    for buffered in [false, true] {
        stream_model(Variant::Correct, buffered, scenario, cov);
    }
    let counts: Vec<String> = PATHS.iter().map(|&p| format!("{p:?} {}", cov.get(p))).collect();
    println!(
        "{name}: {}; most room unused at the drain of a full window {}",
        counts.join(", "),
        cov.most_unused.load(std::sync::atomic::Ordering::Relaxed)
    );
    for &p in reached {
        assert!(cov.get(p) > 0, "{name}: path {p:?} not reached");
    }
    cov
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/// One stream, one sub-window of 2; three workers with one unit each, reserving 5 in all: the
/// window fills, units are deferred, adds overshoot and are undone.
const ONE_WINDOW: Scenario = Scenario {
    streams: [(1, 2, 2), (1, 1, 1)],
    workers: &[(0, &[0x2200]), (0, &[0x1000]), (0, &[0x2100])],
};

/// One stream of two sub-windows of 2; homes 0, 1 and 0, so units move on from a full home
/// sub-window to the other.
const SUB_WINDOWS: Scenario = Scenario {
    streams: [(2, 2, 2), (1, 1, 1)],
    workers: &[(0, &[0x2100]), (1, &[0x2200]), (0, &[0x1100, 0x2200])],
};

/// Two streams: two sub-windows of 1, and one of 1; units emitting into one or both, two
/// launches of two threads, both home to sub-window 0. Unit 3 takes stream 1 while unit 1
/// holds room in stream 0, which goes back when unit 1 finds stream 1 full and its lane stops.
const TWO_STREAMS: Scenario = Scenario {
    streams: [(2, 1, 1), (1, 1, 1)],
    workers: &[(0, &[0x1111, 0x1110]), (0, &[0x1100, 0x0011])],
};

/// One sub-window of 3 and lanes that run two units a batch: worker 0's first unit (maximum 2)
/// emits 1 and leaves 1, which its second (maximum 2) tops up; worker 1's first emits nothing,
/// and its second starts on the room left. Whether a top-up fits depends on the other worker.
const CARRIED: Scenario = Scenario {
    streams: [(1, 3, 2), (1, 1, 1)],
    workers: &[(0, &[0x2200, 0x2100]), (0, &[0x1100, 0x1000])],
};

/// One sub-window of 4 and a grant of 3: a lane whose unit has a maximum of 1 takes 3 when the
/// relaxed load sees room for it, so its next unit starts on what the first left (worker 1) or
/// tops it up (worker 0's second unit, maximum 3); with the other worker's grant taken first,
/// only the maximum fits.
const GRANTED: Scenario = Scenario {
    streams: [(1, 4, 3), (1, 1, 1)],
    workers: &[(0, &[0x3200, 0x1100]), (0, &[0x1000, 0x1100])],
};

/// Two sub-windows of 2, grant 2, and a buffer of 3 elements: worker 0's first unit takes 2 and
/// buffers 1 element, its second (maximum 2) cannot top up in a sub-window its own grant fills,
/// so the buffered element goes out before the lane moves on; worker 1's first unit buffers 2,
/// which go out when its second unit's maximum does not fit beside them.
const FLUSHED: Scenario = Scenario {
    streams: [(2, 2, 2), (1, 1, 1)],
    workers: &[(0, &[0x2200, 0x1100]), (1, &[0x2100, 0x2200])],
};

/// A window of one element: every unit that emits has it to itself.
const WINDOW_OF_ONE: Scenario = Scenario {
    streams: [(1, 1, 1), (1, 1, 1)],
    workers: &[(0, &[0x1100]), (0, &[0x1000, 0x1100, 0x1100])],
};

// ---------------------------------------------------------------------------------------------
// The protocol as generated

#[test]
fn one_window_exactly_once() {
    use Path::*;
    let reached = [
        OvershootUndone,
        OvershootWithRoom,
        Deferred,
        ReleasedUnused,
        FullWithRoom,
    ];
    let cov = explore("one_window_exactly_once", &ONE_WINDOW, &reached);
    // More than S * (m - 1) = 1: the whole window (unit 1 gives back its room after units 0 and
    // 2 found it taken).
    assert_eq!(cov.most_unused.load(std::sync::atomic::Ordering::Relaxed), 2);
}

#[test]
fn sub_windows_exactly_once() {
    use Path::*;
    explore(
        "sub_windows_exactly_once",
        &SUB_WINDOWS,
        &[MovedOn, OvershootUndone, Deferred],
    );
}

#[test]
fn two_streams_exactly_once() {
    use Path::*;
    explore("two_streams_exactly_once", &TWO_STREAMS, &[Carried, MovedOn, Deferred]);
}

#[test]
fn carried_room_exactly_once() {
    use Path::*;
    explore(
        "carried_room_exactly_once",
        &CARRIED,
        &[Carried, ToppedUp, OvershootUndone, Deferred, Drains],
    );
}

#[test]
fn granted_room_exactly_once() {
    use Path::*;
    explore(
        "granted_room_exactly_once",
        &GRANTED,
        &[Granted, Carried, ToppedUp, OvershootUndone, ReleasedUnused],
    );
}

#[test]
fn flushed_buffers_exactly_once() {
    use Path::*;
    explore(
        "flushed_buffers_exactly_once",
        &FLUSHED,
        &[BufferFull, FlushedToMove, MovedOn, Granted],
    );
}

#[test]
fn window_of_one_completes() {
    explore(
        "window_of_one_completes",
        &WINDOW_OF_ONE,
        &[Path::Deferred, Path::Drains],
    );
}

// ---------------------------------------------------------------------------------------------
// Broken variants

/// Each broken variant, in a scenario that reaches its step, makes loom fail, and with the
/// check it breaks (the panic's message).
#[test]
fn broken_variants_are_caught() {
    // Each with the emit modes it breaks in: only buffered elements wait in the lane.
    let both: &[bool] = &[false, true];
    let cases: [(Variant, &'static Scenario, &str, &[bool]); 9] = [
        (Variant::NoUndo, &ONE_WINDOW, "reserved != written", both),
        (Variant::NoOvershootCheck, &ONE_WINDOW, "reserved of 2", both),
        (Variant::KeepWritten, &CARRIED, "sub-window 0: slot", both),
        (Variant::GrantCountedAsMax, &GRANTED, "reserved != written", both),
        (Variant::GiveBackBeforeFlush, &FLUSHED, "not reserved", &[true]),
        (Variant::NoLaneEnd, &ONE_WINDOW, "reserved != written", both),
        (Variant::LoseUnfit, &ONE_WINDOW, "lost", both),
        (Variant::NoFullFlag, &WINDOW_OF_ONE, "never completes", both),
        (Variant::DrainKeepsCounts, &ONE_WINDOW, "ran no unit", both),
    ];
    let cov = Coverage::leak();
    let runs = cases
        .into_iter()
        .flat_map(|(v, s, e, modes)| modes.iter().map(move |&b| ((v, s, e), b)));
    for ((variant, scenario, expected), buffered) in runs {
        let failure = std::panic::catch_unwind(|| stream_model(variant, buffered, scenario, cov)).expect_err(&format!(
            "{variant:?} (buffered: {buffered}): loom found no failing execution"
        ));
        let message = failure
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| failure.downcast_ref::<&str>().copied())
            .unwrap_or("");
        assert!(
            message.contains(expected),
            "{variant:?} (buffered: {buffered}): failed with {message:?}, not {expected:?}"
        );
    }
}
