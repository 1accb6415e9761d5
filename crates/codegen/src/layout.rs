//! Sizes and offsets of the executor, computed once per program. The same values are written
//! as WGSL constants and into the manifest, so the two cannot disagree.

use dyngc_ir::{EdgeKind, IdVec, Program, Stage, StageId};

/// Lanes of a worker (the megakernel's workgroup size) unless the build asks for more
/// (`dyngc build --lanes`): what `@width` stages and `var<workgroup>` items are written against.
pub const DEFAULT_LANES: u32 = 64;
/// The worker sizes a build may ask for: up to WebGPU's default
/// `maxComputeInvocationsPerWorkgroup`. More lanes share one batch's round trips to memory
/// (docs/performance.md, session 17); the minimum arena grows with them.
pub const LANE_CHOICES: [u32; 3] = [64, 128, 256];
/// Workgroup memory WebGPU guarantees (`maxComputeWorkgroupStorageSize`), in bytes.
pub const WORKGROUP_MEMORY: u32 = 16 * 1024;
/// Workgroup memory the staging area may use, in bytes (the rest is the scheduler's).
pub const STAGING_BUDGET: u32 = 12 * 1024;
/// Workgroup memory at most for the copies of accumulated outputs (docs/executor.md,
/// "Accumulated outputs"): 256 words, a histogram's worth, so the staging area keeps its budget.
pub const ACCUMULATOR_BYTES: u32 = 1024;
/// Plan iterations in a row a worker spends finding nothing, while `pending` does not change,
/// before it leaves the launch. A change of `pending` (others are making progress, so work may
/// be lent soon) starts the count again; fuel still bounds the loop.
pub const IDLE_LIMIT: u32 = 64;
/// Plan steps between a busy worker's reads of the `done` flag: with frames on its stack only a
/// kernel error can have set it, so the worker reads it on an empty stack and every this many
/// steps otherwise, and saves a round trip to memory in the other batches.
pub const DONE_POLL: u32 = 16;
/// Attempts of a ring reservation or claim before a worker reports no room / nothing there. A
/// reservation that loses a race moves on to the next shard, so a loss needs this many races in
/// a row on different shards; a frame that finds no room stays on the stack.
pub const CAS_ATTEMPTS: u32 = 4;
/// Workers per ring shard: the ring has about `workers / SHARD_WORKERS` shards (a power of two,
/// at least one), each a ring of its own whose producers are the workers it is home to. Every
/// batch touches its home shard's line, so fewer workers a line make every batch cheaper: with
/// 8, tree 1e7 at 949 workers got 64 shards and ran 1.84 ms; with 4, 128 shards and 1.70 ms
/// (H100, docs/performance.md, "Session 36").
pub const SHARD_WORKERS: u32 = 4;
/// Most ring shards: each has a control line of its own, and the host reads the control block
/// back after every submission. 256 ran bfs star1e6 3-4x slower (session 36).
pub const MAX_SHARDS: u32 = 128;
// The executor's shard probe keeps a shard's offset from home in 8 bits (DYN_PROBE_SHARD).
const _: () = assert!(MAX_SHARDS <= 256);
/// Fewest slots of a shard: what its workers lend at most (`SHARD_WORKERS * LEND_FRAMES`). A
/// smaller ring has fewer shards (down to one).
pub const MIN_SHARD_SLOTS: u32 = SHARD_WORKERS * LEND_FRAMES;
/// Indices each lane of a dispatched stage's kernel runs per chunk when the stage spawns nothing.
pub const LEAF_UNROLL: u32 = 16;
/// Units one lane may run in one batch, in registers: after its unit, a lane that staged nothing
/// runs its `become` carry or lone single spawn at once, or takes the next index of the batch's
/// range, until this many units ran (then its carry is staged as a frame).
pub const LANE_UNITS: u32 = 4096;
/// Indices of a range one batch offers its lanes (times `DYN_BATCH`): lanes that stage nothing
/// take the next one when their unit is done; what is left stays in the frame.
pub const RANGE_WINDOW: u32 = 16;
/// A range of a stage whose body `become`s is split while wider than this many indices per lane
/// of a worker, `DYN_CHAIN_SPLIT_WIDTH` (other ranges: while wider than two windows,
/// `2 * RANGE_WINDOW * DYN_BATCH`): each of its indices may stand for a long chain of carries
/// (collatz), so fine pieces spread the work better, while a range of cheap units pays for every
/// piece with a trip through the ring.
pub const CHAIN_SPLIT_PER_LANE: u32 = 2;
/// Frames per worker the ring should hold for idle workers: a batch lends its children (and a
/// range its upper half) only while the ring holds fewer than `workers * LEND_FRAMES`; the rest
/// stay on the spawner's stack, depth-first.
pub const LEND_FRAMES: u32 = 8;
/// Classes of size by which a batch orders its children on a stack over half its reserve
/// (docs/executor.md, "Children by size"): 1, 2, ... `SIZE_CLASSES - 1` indices, and more.
/// Each class's count takes a byte of one workgroup word, so at most 4.
pub const SIZE_CLASSES: u32 = 4;
/// Words of one cache line: hot control words sit on lines of their own.
pub const LINE_WORDS: u32 = 32;
/// Most sub-windows one stream window is split into (docs/executor.md, "Streams"): each has its
/// own reserved and written counts on a line of its own, so that no count is shared by more than
/// a few workers.
pub const STREAM_SUB_WINDOWS: u32 = 32;
/// Most units' maxima of room one lane asks for at once (its *grant*, docs/executor.md,
/// "Streams"): a lane holding room for several units tops up once per several units instead of
/// once per unit that emits.
pub const STREAM_GRANT_UNITS: u32 = 16;
/// Mark words one sweep step scans.
pub const SWEEP_WORDS: u32 = 16;
/// Smallest ring, in slots.
pub const MIN_RING_SLOTS: u32 = 4;
/// Sixteenths of an arena the worker reserves may take (`arena.reserve_sixteenths`), the ring
/// getting the rest: workers are worth more than ring slots on the H200 (bfs kron18 at 1/16 of
/// expand's peak: 1.07 ms at 828 workers against 1.68 at 441 with half the arena; docs/
/// performance.md, session 20).
pub const RESERVE_SIXTEENTHS: u32 = 15;
/// The same for a build with queues (partitioned schedule): each queue has as many frames as
/// the ring has slots, and a queue short of frames sends its spawns to lanes' serial fallback
/// (triangle 1e6 at 16 times its minimum arena: 0.097 ms with half, 6.1 ms with 15/16).
pub const RESERVE_SIXTEENTHS_WITH_QUEUES: u32 = 8;
/// The most ring slots a worker gets, counting at least `dyngc_artifact::RING_CAP_WORKERS`
/// workers (`arena.ring_slots_per_worker`; builds with queues have no cap, their queues' frames
/// come with the slots): a ring spread over a huge arena runs slower
/// (bfs kron20 at 1,024 workers: 2.87 ms with 2^20 slots, 3.09 with 2^24; docs/performance.md,
/// session 20).
pub const RING_SLOTS_PER_WORKER: u32 = 1024;
/// Words before the payload in a frame: stage, flags and depth; lo, hi; and the recursion
/// counter where it does not fit in the head ([`RecCounter`]).
pub const FRAME_HEADER_WORDS: u32 = 4;
/// Bits of a frame head below the owned flag: the stage, and above it a recursion counter that
/// fits ([`RecCounter::InHead`]).
pub const HEAD_STAGE_FIELD_BITS: u32 = 16;

/// Where a program's frames keep their recursion counter (docs/executor.md, "Vocabulary").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecCounter {
    /// Nothing recurses through a `@max_depth` bound: every counter is 0, none is stored.
    None,
    /// In the head's stage field, from this bit up: the stage ids and the largest bound plus one
    /// (the count that fails a run, stored by the unit that fails) fit in its 16 bits together.
    InHead(u32),
    /// A word of its own, after `lo` and `hi`.
    Word,
}

impl RecCounter {
    pub fn of(program: &Program) -> RecCounter {
        let bits = |n: u32| u32::BITS - n.leading_zeros();
        let Some(bound) = program
            .stages
            .values()
            .filter_map(|s| s.recursion.map(|(_, d)| d))
            .max()
        else {
            return RecCounter::None;
        };
        let stage_bits = bits(program.stages.len().saturating_sub(1) as u32).max(1);
        if stage_bits + bits(bound.saturating_add(1)) <= HEAD_STAGE_FIELD_BITS {
            RecCounter::InHead(stage_bits)
        } else {
            RecCounter::Word
        }
    }

    /// Words before a frame's payload.
    pub fn header_words(self) -> u32 {
        FRAME_HEADER_WORDS - u32::from(self != RecCounter::Word)
    }

    /// The head bit where the counter starts (`DYN_REC_SHIFT`): the stage field's end where the
    /// head holds none.
    fn shift(self) -> u32 {
        match self {
            RecCounter::InHead(shift) => shift,
            RecCounter::None | RecCounter::Word => HEAD_STAGE_FIELD_BITS,
        }
    }
}

/// The bit where a frame head's depth starts (`DYN_DEPTH_SHIFT`): the stage takes bits 0-15 and
/// the owned flag bit 16. A gathered batch's prefix scan packs a lane count below it too.
pub const DEPTH_SHIFT: u32 = 17;
/// The deepest spawns may nest (`max_spawn_depth`): the depth field's 15 bits (DYN0505).
pub const MAX_SPAWN_DEPTH: u32 = (1 << (32 - DEPTH_SHIFT)) - 1;
/// Halves of a batch's frames (`DYN_BATCH * unit_frames`) the smallest reserve holds beyond the
/// rule's floor (a claimed batch above room for a unit at every depth): `arena.min_stack_frames`.
/// H200, 1/16 of expand's peak (docs/performance.md, session 21): at the floor, more workers
/// but narrower batches (tree 1e7 3.92 ms at 831 workers); one half, 3.54 ms at 649 workers, and
/// bfs kron14 0.37 ms against 0.43 at the floor and 0.43 with a whole batch.
pub const MIN_STACK_HALF_BATCHES: u32 = 1;

pub const DEFAULT_WORKERS: u32 = 64;
pub const DEFAULT_FUEL: u32 = 4096;
/// The manifest's default `chain_length`: the most launches recorded per submission.
pub const CHAIN_LENGTH: u32 = 16;
/// Control words of one dispatched stage's queue: indirect `x, y, z`, frames taken, the next
/// frame to take, chunks queued, workgroups finished, and the frame that wants help.
pub const QUEUE_WORDS: u32 = 8;
/// Most workgroups a dispatch gets (WebGPU's guaranteed `maxComputeWorkgroupsPerDimension`).
pub const MAX_DISPATCH_GROUPS: u32 = 65535;

/// Control-block words, in order. The executor's WGSL refers to them as `DYN_C_<NAME>`. The
/// words every worker touches every step (`DONE`) and every batch (`PENDING`, or `PROGRESS` when
/// a batch leaves `pending` as it was) each have a cache line of their own, and so does each of the [`MAX_SHARDS`] ring shards (`SHARDS`: shard s's
/// head at `SHARDS + s * LINE_WORDS`, its tail in the next word); the statistics, written once
/// per worker and launch, share the first line after `ERROR`.
pub const CONTROL: &[(&str, u32)] = &[
    ("ARGS", 0),
    ("DONE", 3),
    ("ERROR", 4),
    ("SWEEP", 8),
    ("LAUNCHES", 9),
    ("FUEL_EXHAUSTED", 10),
    ("RING_HIGH_WATER", 11),
    ("STACK_HIGH_WATER", 12),
    ("FALLBACKS", 13),
    ("SPLITS", 14),
    ("ROUNDS", 15),
    ("RESERVES_LOST", 16),
    ("CLAIMS_LOST", 17),
    ("BATCHES", 18),
    ("LANE_UNITS", 19),
    ("IDLE_STEPS", 20),
    ("BUSY_WORKERS", 21),
    ("OLD_LENT", 22),
    // Set once a keyed hint was dropped, so that idle workers sweep the marks.
    ("MARKS_LEFT", 23),
    ("PENDING", LINE_WORDS),
    ("PROGRESS", LINE_WORDS + 1),
    ("SHARDS", 2 * LINE_WORDS),
    ("UNITS", (2 + MAX_SHARDS) * LINE_WORDS),
];

/// Statistics exposed in the manifest: (control word name, stat name, meaning).
pub const STATS: &[(&str, &str, &str)] = &[
    (
        "LAUNCHES",
        "launches",
        "launches of the main entry point that ran at least one workgroup",
    ),
    (
        "FUEL_EXHAUSTED",
        "fuel_exhaustions",
        "times a worker left a launch with work still on its stack",
    ),
    (
        "RING_HIGH_WATER",
        "ring_high_water",
        "most slots in use in one ring shard, times the shards (the ring as full as its fullest shard)",
    ),
    (
        "STACK_HIGH_WATER",
        "stack_high_water",
        "most frames on one worker's stack at once",
    ),
    (
        "FALLBACKS",
        "fallback_spawns",
        "spawns the ring should have taken that found no room (a full shard, or reservations lost) and ran serially on the spawner's stack",
    ),
    (
        "SPLITS",
        "range_splits",
        "fan-out ranges split to lend half to idle workers",
    ),
    ("PENDING", "pending", "work still pending (0 after a completed run)"),
    (
        "ROUNDS",
        "rounds",
        "rounds of the graph-level loop completed (0 without a loop)",
    ),
    (
        "RESERVES_LOST",
        "reserves_lost",
        "ring reservations given up after losing a race on every shard tried (contention, not a full ring)",
    ),
    (
        "CLAIMS_LOST",
        "claims_lost",
        "ring claims given up after losing every compare-and-swap on a shard's head",
    ),
    (
        "BATCHES",
        "batches",
        "batches the workers ran (units / batches = units per batch)",
    ),
    (
        "LANE_UNITS",
        "lane_units",
        "units a lane ran in registers after another in the same batch (carries, lone spawns, further range indices)",
    ),
    (
        "IDLE_STEPS",
        "idle_steps",
        "plan steps in which a worker found nothing to run",
    ),
    (
        "BUSY_WORKERS",
        "busy_worker_launches",
        "worker launches that ran at least one batch (/ launches = busy workers per launch)",
    ),
    (
        "OLD_LENT",
        "old_frames_lent",
        "frames lent from the bottom of a worker's stack (its oldest work) to idle workers",
    ),
];

/// Error codes the kernel can leave: (code, name, meaning).
pub const ERRORS: &[(u32, &str, &str)] = &[
    (
        1,
        "MAX_DEPTH",
        "a chain of work re-entered a stage more often than its declared @max_depth",
    ),
    (
        2,
        "KEY_DOMAIN",
        "a keyed spawn's key was outside the stage's declared @keyed domain",
    ),
    (
        3,
        "INTERNAL",
        "an executor invariant failed (a bug in dyngc: please report it)",
    ),
    (
        4,
        "DISPATCH_MISSING",
        "has {value} queued frames that no dispatch ran: the persistent kernel finished, but the partitioned schedule's kernels (entry_points.dispatches) were not recorded after every launch of main",
    ),
    (
        5,
        "EMIT_BOUND",
        "had a unit emit more elements into a stream than its declared @max_emit ({bound}): {value} so far",
    ),
];

pub fn control(name: &str) -> u32 {
    CONTROL.iter().find(|(n, _)| *n == name).expect("known control word").1
}

#[derive(Clone, Debug)]
pub struct Layout {
    /// Lanes of a worker: one of [`LANE_CHOICES`].
    pub lanes: u32,
    pub batch: u32,
    /// Units of each stage in one batch: `batch` for a one-lane stage; for a `@width(N)` stage,
    /// groups of N lanes (at most `lanes / N`).
    pub units: IdVec<StageId, u32>,
    pub frame_words: u32,
    /// Where frames keep their recursion counter, and so the words before a frame's payload.
    pub rec: RecCounter,
    pub carry_cap: u32,
    pub child_cap: u32,
    pub keyed_cap: u32,
    pub split_slot: u32,
    pub staging_words: u32,
    /// A worker's stack reserve, in frames: the most the host may give (no batch is ever
    /// narrowed below it), and the least (`min_stack_frames`, where batches narrow as the stack
    /// fills: docs/executor.md, "Why the stack fits in its reserve").
    pub stack_frames: u32,
    pub min_stack_frames: u32,
    /// The most frames one unit stages in a batch (F of the reserve rule), at least 1.
    pub unit_frames: u32,
    /// The bound on a frame's spawn depth (D of the reserve rule): the checker's
    /// `max_spawn_depth`, at least 1.
    pub max_depth: u32,
    /// Queues of dispatched stages: as many frames each as the ring has slots.
    pub queues: u32,
    /// First control word of the queues' blocks ([`QUEUE_WORDS`] each).
    pub queue_control: u32,
    /// The word the host reads as "done": the persistent kernel's own done flag, or with queues
    /// one set only by the last dispatch once every queue is drained (stdlib/queues.wgsl).
    pub complete: u32,
    /// Stream outputs, and the control word of the stream-full flag (stream `j`'s reserved
    /// and written words follow at [`Layout::stream_words`]).
    pub streams: u32,
    pub stream_control: u32,
    pub control_words: u32,
}

impl Layout {
    /// `None` when even a batch of one unit does not fit in `budget` bytes of staging area
    /// ([`STAGING_BUDGET`] unless the program's own workgroup memory leaves less). `queues`:
    /// the partitioned schedule's dispatched stages; `lanes`: the worker's.
    pub fn new(program: &Program, budget: u32, queues: u32, lanes: u32) -> Option<Layout> {
        let rec = RecCounter::of(program);
        let frame_words = rec.header_words() + program.max_payload_words;
        let keyed_sites = |s: &Stage| {
            s.sites
                .iter()
                .filter(|&&k| program.edges[k].kind == EdgeKind::Keyed)
                .count() as u32
        };
        let units = |s: &Stage, batch: u32| batch.min(lanes / s.width.max(1));
        // Every lane of a wide unit may spawn, so a stage stages up to units x width x spawns
        // frames per batch; the caps are the maxima over stages. Only one-lane stages `become`.
        let caps = |batch: u32| {
            let most = |per_lane: &dyn Fn(&Stage) -> u32| {
                program
                    .stages
                    .values()
                    .map(|s| units(s, batch) * s.width.max(1) * per_lane(s))
                    .max()
                    .unwrap_or(0)
            };
            // A unit that finds no room in a stream window is staged again like a carry
            // (docs/executor.md, "Streams"), and so is a lone spawn: a carry slot per lane.
            let lone = program.edges.values().any(|e| e.lone);
            let carries = lone || program.stages.values().any(|s| s.becomes || !s.max_emits.is_empty());
            let lone_spawner = |s: &Stage| s.sites.iter().any(|&k| program.edges[k].lone);
            (
                if carries { batch } else { 0 },
                most(&|s| if lone_spawner(s) { 0 } else { s.max_spawns }),
                most(&keyed_sites),
            )
        };
        // Two extra staging frames: the split of a range, and scratch for pushes past capacity.
        let staging = |batch: u32| {
            let (carry, child, keyed) = caps(batch);
            (carry + child + keyed + 2) * frame_words
        };
        let batch = (1..=lanes).rev().find(|&b| staging(b) * 4 <= budget)?;
        let (carry_cap, child_cap, keyed_cap) = caps(batch);
        // The most frames one unit stages: its lanes' spawns and a carry (or the unit itself,
        // staged again for want of stream room).
        let frames_of = |s: &Stage| s.width.max(1) * (s.max_spawns + u32::from(s.becomes));
        let most_frames = |per_unit: &dyn Fn(&Stage) -> u32| program.stages.values().map(per_unit).max().unwrap_or(0);
        let unit_frames = most_frames(&frames_of).max(1);
        // The worst case of full batches (docs/executor.md): the claimed generation plus one
        // generation per level of spawn depth, each at most the frames one batch pushes, plus
        // slack; a host gives no more.
        let generation = most_frames(&|s| units(s, batch) * frames_of(s)).max(batch);
        // A unit staged again for want of stream room sits one level above the frame it came
        // from: one more generation.
        let streams = program.resources.values().filter(|r| r.stream).count() as u32;
        let levels = program.max_spawn_depth + 2 + u32::from(streams > 0);
        let stack_frames = levels * generation + 2 * batch;
        // The reserve rule's floor: a claim of a whole batch above room for a batch of units
        // at every depth (docs/executor.md, "Why the stack fits in its reserve").
        let max_depth = program.max_spawn_depth.max(1);
        let min_stack_frames =
            ((max_depth + 1) * unit_frames + batch + MIN_STACK_HALF_BATCHES * batch * unit_frames / 2)
                .min(stack_frames);
        let queue_control = control("UNITS") + program.stages.len() as u32;
        let queue_end = queue_control + queues * QUEUE_WORDS;
        // Streams: the full flag on a line of its own, then per stream a line whose first word
        // is its sub-window count, and a line per sub-window (reserved, written): every emit adds
        // to its sub-window's written word.
        let stream_control = (queue_end + u32::from(queues > 0)).next_multiple_of(LINE_WORDS);
        let control_words = if streams > 0 {
            stream_control + LINE_WORDS * (1 + streams * (1 + STREAM_SUB_WINDOWS))
        } else {
            queue_end + u32::from(queues > 0)
        };
        Some(Layout {
            lanes,
            batch,
            units: program.stages.map(|_, s| units(s, batch)),
            frame_words,
            rec,
            carry_cap,
            child_cap,
            keyed_cap,
            split_slot: carry_cap + child_cap + keyed_cap,
            staging_words: staging(batch),
            stack_frames,
            min_stack_frames,
            unit_frames,
            max_depth,
            queues,
            queue_control,
            complete: if queues > 0 { queue_end } else { control("DONE") },
            streams,
            stream_control,
            control_words,
        })
    }

    /// Control words of stream `j`: its sub-window count, and sub-window 0's reserved count
    /// (sub-window `s`'s is `LINE_WORDS * s` words later, its written count the word after).
    pub fn stream_words(&self, j: u32) -> (u32, u32) {
        let base = self.stream_control + LINE_WORDS * (1 + j * (1 + STREAM_SUB_WINDOWS));
        (base, base + LINE_WORDS)
    }

    /// The stack's top and bottom positions, and its reserve of `stack_frames` frames.
    pub fn bytes_per_worker(&self, stack_frames: u32) -> u64 {
        4 * (2 + stack_frames as u64 * self.frame_words as u64)
    }

    /// A ring slot (state word and frame) and the frame at the same index of every queue.
    pub fn bytes_per_slot(&self) -> u64 {
        4 * (1 + (1 + self.queues as u64) * self.frame_words as u64)
    }

    /// WGSL `const` declarations of every size and control word.
    pub fn wgsl_constants(&self, stages: usize) -> String {
        let mut out = String::new();
        let mut c = |name: &str, v: u32| out.push_str(&format!("const DYN_{name}: u32 = {v}u;\n"));
        c("WG", self.lanes);
        c("BATCH", self.batch);
        c("FRAME_WORDS", self.frame_words);
        c("FRAME_HEADER", self.rec.header_words());
        c("DEPTH_SHIFT", DEPTH_SHIFT);
        c("REC_SHIFT", self.rec.shift());
        c("STAGES", stages as u32);
        c("CARRY_CAP", self.carry_cap);
        c("CHILD_CAP", self.child_cap);
        c("KEYED_CAP", self.keyed_cap);
        c("SPLIT_SLOT", self.split_slot);
        c(
            "SCRATCH",
            (self.split_slot + 1) * self.frame_words + self.rec.header_words(),
        );
        c("STAGING_WORDS", self.staging_words);
        c("STACK_FRAMES", self.stack_frames);
        c("UNIT_FRAMES", self.unit_frames);
        c("MAX_DEPTH", self.max_depth);
        c("IDLE_LIMIT", IDLE_LIMIT);
        c("DONE_POLL", DONE_POLL);
        c("SWEEP_WORDS", SWEEP_WORDS);
        c("CAS_ATTEMPTS", CAS_ATTEMPTS);
        c("LANE_UNITS", LANE_UNITS);
        c("RANGE_WINDOW", RANGE_WINDOW);
        c("CHAIN_SPLIT_WIDTH", CHAIN_SPLIT_PER_LANE * self.lanes);
        c("LEND_FRAMES", LEND_FRAMES);
        c("SIZE_CLASSES", SIZE_CLASSES);
        c("SHARD_WORKERS", SHARD_WORKERS);
        c("MAX_SHARDS", MAX_SHARDS);
        c("MIN_SHARD_SLOTS", MIN_SHARD_SLOTS);
        c("LINE_WORDS", LINE_WORDS);
        c("STREAM_SUB_WINDOWS", STREAM_SUB_WINDOWS);
        c("STREAM_GRANT_UNITS", STREAM_GRANT_UNITS);
        c("PAYLOAD_WORDS", (self.frame_words - self.rec.header_words()).max(1));
        c("QUEUES", self.queues);
        c("C_QUEUES", self.queue_control);
        c("QUEUE_WORDS", QUEUE_WORDS);
        c("C_COMPLETE", self.complete);
        c("MAX_DISPATCH_GROUPS", MAX_DISPATCH_GROUPS);
        c("C_STREAM_FULL", self.stream_control);
        for (name, word) in CONTROL {
            c(&format!("C_{name}"), *word);
        }
        for (code, name, _) in ERRORS {
            c(&format!("ERR_{name}"), *code);
        }
        out.push_str(&format!("const DYN_STREAMS: bool = {};\n", self.streams > 0));
        out.push_str(&format!(
            "const DYN_REC_WORD: bool = {};\n",
            self.rec == RecCounter::Word
        ));
        out
    }
}
