//! The manifest that travels with every generated WGSL module: everything an engine needs to
//! bind, size and launch the megakernel without linking any dyngc crate. Serialized as
//! `NAME.manifest.json`; the schema is documented in `docs/manifest.md`.
//!
//! Entry points: [`Manifest::to_json`], [`Manifest::from_json`] and [`Manifest::validate`].

use serde::{Deserialize, Serialize};

mod validate;

/// Written into every manifest; bumped on any incompatible change.
pub const SCHEMA: &str = "dyngc-manifest/3";

/// The ring's cap (`arena.ring_slots_per_worker`) counts at least this many workers: a few
/// workers run slower on a ring of a few thousand slots (SwiftShader, 4 workers: tree and
/// collatz 15-20% slower with 4,096 slots than with 65,536; docs/performance.md, session 20).
pub const RING_CAP_WORKERS: u64 = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: String,
    pub name: String,
    /// File name of the WGSL module beside the manifest.
    pub wgsl: String,
    pub workgroup_size: u32,
    pub entry_points: EntryPoints,
    /// The entry stage and its unit count.
    pub entry: EntryInfo,
    /// The WebGPU limits a device needs for this program: request them when creating it.
    #[serde(default)]
    pub limits: Limits,
    /// Every binding of the module, in (group, binding) order; the executor's take the lowest
    /// numbers of group 0 that user resources leave free.
    pub bindings: Vec<Binding>,
    /// User parameters and where they sit in the parameter uniform.
    pub params: Vec<ParamInfo>,
    pub stages: Vec<StageInfo>,
    pub executor: Executor,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryPoints {
    /// Run once per run with one workgroup, before the launch chain: seeds the entry work.
    pub init: String,
    /// The persistent megakernel, launched indirectly until the done flag is set.
    pub main: String,
    /// The partitioned schedule's other kernels, in order: record each after every launch of
    /// `main`, indirectly, with its own three argument words copied from the control block.
    /// Empty for the megakernel schedule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dispatches: Vec<Dispatch>,
}

/// WebGPU limits (`GPUSupportedLimits`, by their JavaScript names) a device must allow for the
/// program, so that `requestDevice({ requiredLimits: manifest.limits })` asks for exactly
/// them. Values at or below WebGPU's defaults ([`Limits::WEBGPU_DEFAULTS`]) need no request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Highest bind group number + 1.
    pub max_bind_groups: u32,
    /// Highest binding number in any group + 1.
    pub max_bindings_per_bind_group: u32,
    /// Storage buffers of the pipeline layout (every binding but the parameter uniform).
    pub max_storage_buffers_per_shader_stage: u32,
    pub max_uniform_buffers_per_shader_stage: u32,
    /// Workgroup memory of the largest entry point's workgroup, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// The largest workgroup of any entry point (`main` or a dispatch).
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_size_x: u32,
    /// The largest storage binding of the smallest run: the minimum arena, or a buffer whose
    /// length is a constant. Bigger arenas and inputs need more.
    pub max_storage_buffer_binding_size: u64,
    /// The parameter uniform.
    pub max_uniform_buffer_binding_size: u64,
}

impl Limits {
    /// What every WebGPU device has without asking (the specification's defaults).
    pub const WEBGPU_DEFAULTS: Limits = Limits {
        max_bind_groups: 4,
        max_bindings_per_bind_group: 1000,
        max_storage_buffers_per_shader_stage: 8,
        max_uniform_buffers_per_shader_stage: 12,
        max_compute_workgroup_storage_size: 16384,
        max_compute_invocations_per_workgroup: 256,
        max_compute_workgroup_size_x: 256,
        max_storage_buffer_binding_size: 128 << 20,
        max_uniform_buffer_binding_size: 64 << 10,
    };

    /// Every limit as (JavaScript name, value), in declaration order.
    pub fn entries(&self) -> [(&'static str, u64); 9] {
        [
            ("maxBindGroups", self.max_bind_groups as u64),
            ("maxBindingsPerBindGroup", self.max_bindings_per_bind_group as u64),
            (
                "maxStorageBuffersPerShaderStage",
                self.max_storage_buffers_per_shader_stage as u64,
            ),
            (
                "maxUniformBuffersPerShaderStage",
                self.max_uniform_buffers_per_shader_stage as u64,
            ),
            (
                "maxComputeWorkgroupStorageSize",
                self.max_compute_workgroup_storage_size as u64,
            ),
            (
                "maxComputeInvocationsPerWorkgroup",
                self.max_compute_invocations_per_workgroup as u64,
            ),
            ("maxComputeWorkgroupSizeX", self.max_compute_workgroup_size_x as u64),
            ("maxStorageBufferBindingSize", self.max_storage_buffer_binding_size),
            ("maxUniformBufferBindingSize", self.max_uniform_buffer_binding_size),
        ]
    }

    /// The limits above `other`'s: (name, needed, other's value).
    pub fn exceeding(&self, other: &Limits) -> Vec<(&'static str, u64, u64)> {
        self.entries()
            .into_iter()
            .zip(other.entries())
            .filter(|((_, need), (_, have))| need > have)
            .map(|((name, need), (_, have))| (name, need, have))
            .collect()
    }
}

impl Default for Limits {
    /// A manifest without `limits` (an older one) claims nothing beyond the defaults.
    fn default() -> Self {
        Limits::WEBGPU_DEFAULTS
    }
}

/// The work a run starts with: `count` units of stage `stage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryInfo {
    /// The entry stage's id (`stages[..].id`).
    pub stage: u32,
    /// Units of the entry (of every round of a graph-level loop). The kernel computes it in
    /// `u32` arithmetic, so a host must check that it evaluates (see [`LengthRule::eval`]).
    pub count: LengthRule,
}

/// A kernel of the partitioned schedule that runs one stage, draining that stage's queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispatch {
    pub entry_point: String,
    /// The stage's id (`stages[..].id`).
    pub stage: u32,
    pub workgroup_size: u32,
    /// Control-block word of its indirect arguments `x, y, z`; the kernel zeroes `x` when it
    /// has drained its queue, and producers raise it.
    pub indirect_args: u32,
}

/// How stages map to kernels (`dyngc build --schedule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// One persistent kernel runs every stage.
    #[default]
    Megakernel,
    /// Stages on no cycle and upstream of none run as their own dispatches (`dispatches`).
    Partitioned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// User data read by the graph; length taken from the data.
    Input,
    /// User data written by the graph and read back after the run.
    Output,
    /// Read-write storage internal to the graph.
    Buffer,
    /// Uniform: executor configuration then user parameters (see [`Executor::config`]).
    Params,
    /// Executor control block: indirect arguments, done flag, error, counters, stats.
    Control,
    /// The arena: work stacks and the shared work ring; size chosen at run time.
    Arena,
    /// Pending marks of keyed stages, one bit per key.
    Marks,
    /// A `stream<T>` output: a window of elements the graph appends to while it runs, drained by
    /// the host between launches (see [`StreamInfo`]).
    Stream,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Read,
    ReadWrite,
    Uniform,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScalarKind {
    U32,
    I32,
    F32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// Scalar kind of every 32-bit word; `None` for structs.
    pub scalar: Option<ScalarKind>,
    /// 1 for scalars, N for `vecN`, field count for structs.
    pub components: u32,
    pub atomic: bool,
    /// WGSL type as written in the module.
    pub wgsl: String,
    /// Size of one element in bytes, as laid out in the storage buffer.
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub name: String,
    pub group: u32,
    pub binding: u32,
    pub role: Role,
    pub access: Access,
    pub element: Element,
    /// `true` for runtime-sized arrays; `false` for a single value.
    pub array: bool,
    /// Element count rule for outputs and buffers; `None` for inputs (data decides) and for
    /// every executor buffer (sized by [`Executor`]; the marks by the keyed stages).
    pub length: Option<LengthRule>,
    /// Bit pattern every 32-bit word starts with (outputs and buffers); zero when absent.
    pub fill: Option<u32>,
}

/// Integer expression over input lengths and parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LengthRule {
    Const(u64),
    /// Element count of the named binding.
    Len(String),
    /// Value of the named parameter.
    Param(String),
    Add(Box<LengthRule>, Box<LengthRule>),
    Sub(Box<LengthRule>, Box<LengthRule>),
    Mul(Box<LengthRule>, Box<LengthRule>),
    /// Integer division, rounding down.
    Div(Box<LengthRule>, Box<LengthRule>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamInfo {
    pub name: String,
    pub scalar: ScalarKind,
    /// Byte offset in the parameter uniform.
    pub offset: u32,
    /// Default value's bit pattern, if the program declares one.
    pub default: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageInfo {
    pub id: u32,
    pub name: String,
    /// Key domain of a keyed stage (its marks occupy `ceil(domain / 32)` words of the marks
    /// buffer, stages in id order).
    pub keyed: Option<LengthRule>,
    /// Declared `@max_depth`, if any.
    pub max_depth: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Executor {
    /// Byte offsets of the executor's fields at the start of the parameter uniform.
    pub config: ConfigLayout,
    /// Size of the parameter uniform in bytes (a multiple of 16).
    pub params_size: u32,
    /// Element counts the host writes into the parameter uniform (`u32` each), one per array
    /// binding of the user's. WebGPU has no empty buffers, so the kernel cannot learn a length of
    /// 0 from `arrayLength`; entry counts and key domains use these instead.
    pub lengths: Vec<LengthSlot>,
    pub arena: ArenaLayout,
    pub control: ControlLayout,
    pub defaults: Defaults,
    /// Error codes the kernel can leave in the control block.
    pub errors: Vec<ErrorInfo>,
    /// Largest number of non-keyed spawns nested along one chain of work (from the checker).
    pub max_spawn_depth: u32,
    /// The graph-level loop, if the entry is `entry loop`: the kernel runs its rounds itself,
    /// so the launch protocol is the same; this is informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_loop: Option<GraphLoop>,
    /// The schedule the program was built with.
    #[serde(default)]
    pub schedule: Schedule,
    /// The stream outputs, in declaration order, and how the host drains them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamInfo>,
    /// Control word set to 1 when a unit found no room in a stream window: the workers leave
    /// the launch, and the host drains every stream, clears the word and launches again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_full: Option<u32>,
}

/// One stream output. Its buffer holds `capacity` elements (the host chooses, at least
/// `min_capacity`, and writes it at `capacity_offset` of the parameter uniform), split into `S`
/// sub-windows of `capacity / S` elements (rounded down); the init launch writes `S` at
/// `sub_windows_word`, and it stays for the run. Sub-window `s` holds elements
/// `s * (capacity / S)` onward, and its first `written` of them are the ones emitted there since
/// the last drain. Between launches (no unit in flight) each sub-window's `reserved == written`;
/// draining copies them out and zeroes both words of every sub-window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamInfo {
    /// The binding's name.
    pub binding: String,
    /// Byte offset of the window capacity (`u32`, elements) in the parameter uniform.
    pub capacity_offset: u32,
    /// Control word: `S`, the number of sub-windows (a power of two, 1 to `max_sub_windows`).
    pub sub_windows_word: u32,
    /// Control word of sub-window 0's reserved count (room promised to running units); its
    /// written count (elements written) is the next word. Sub-window `s`'s pair starts
    /// `s * counts_stride` words later.
    pub counts_word: u32,
    pub counts_stride: u32,
    /// The most sub-windows: the control block has room for this many pairs.
    pub max_sub_windows: u32,
    /// The most elements one unit may emit into this stream: a smaller window could never
    /// start that unit.
    pub min_capacity: u32,
    /// Struct elements: each field's place in the element (empty for scalars and vectors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldInfo>,
}

/// A field of a struct element, as laid out in the storage buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub name: String,
    pub scalar: ScalarKind,
    /// 1 for a scalar, N for `vecN`.
    pub components: u32,
    /// Byte offset in the element.
    pub offset: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphLoop {
    /// `@max_rounds`: the loop ends after this many rounds even if `until` never says so.
    pub max_rounds: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LengthSlot {
    /// Binding whose element count goes here.
    pub binding: String,
    /// Byte offset in the parameter uniform.
    pub offset: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigLayout {
    /// Number of persistent workgroups the launch uses (`u32`).
    pub workers: u32,
    /// Slots in the shared ring (`u32`, a power of two), from the arena size.
    pub ring_slots: u32,
    /// Per-launch budget of scheduler iterations per workgroup (`u32`).
    pub fuel: u32,
    /// The most workgroups one dispatch of the partitioned schedule launches (`u32`); 0, as a
    /// zeroed uniform leaves it, means `MAX_DISPATCH_GROUPS`. A CPU device wants few: it starts
    /// each workgroup at a cost and runs only a few at a time.
    pub dispatch_groups: u32,
    /// The most frames each queue of a one-lane dispatched stage holds at a time (`u32`); 0, as
    /// a zeroed uniform leaves it, means every frame the arena gives it (`ring_slots`). A spawn
    /// that finds such a queue full runs its indices on the spawner's lane (docs/executor.md,
    /// "Partitioned schedule"), which a CPU device runs sooner than the queue's dispatch.
    pub queue_frames: u32,
    /// Frames of each worker's stack reserve (`u32`, from `min_stack_frames` to
    /// `arena.stack_frames`; [`Manifest::stack_frames`]); 0, as a zeroed uniform leaves it,
    /// means `arena.stack_frames`.
    #[serde(default = "stack_frames_word")]
    pub stack_frames: u32,
}

/// Where the `stack_frames` word is in a manifest that predates it.
fn stack_frames_word() -> u32 {
    20
}

/// The arena is one `array<atomic<u32>>`:
/// `[stack top and bottom: 2 * workers][stacks: workers * stack_frames * frame_words][ring states: ring_slots]
///  [ring frames: ring_slots * frame_words][queue frames: dispatches * ring_slots * frame_words]`
/// (`bytes_per_slot` counts a ring slot and one frame of every queue).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaLayout {
    pub frame_words: u32,
    /// Serial-fallback reserve of one worker, in frames: the most a host gives (the worst case
    /// of full batches: stacks never need more).
    pub stack_frames: u32,
    /// The fewest frames a worker's reserve may have: there, batches narrow as the stack fills
    /// (docs/executor.md, "Why the stack fits in its reserve"). 0 in an older manifest: the
    /// reserve is always `stack_frames`.
    #[serde(default)]
    pub min_stack_frames: u32,
    /// Smallest ring the executor accepts, in slots (ring sizes are powers of two).
    pub min_ring_slots: u32,
    /// Bytes one worker needs with a reserve of `stack_frames`: its stack's top and bottom words
    /// plus the reserve ([`ArenaLayout::worker_bytes`] for another reserve).
    pub bytes_per_worker: u64,
    /// Bytes one ring slot needs (state word plus frame), plus one frame per dispatch's queue.
    pub bytes_per_slot: u64,
    /// The smallest arena: one worker with `min_stack_frames` and the smallest ring. Below it
    /// the runtime refuses.
    pub min_bytes: u64,
    /// Sixteenths of an arena that worker reserves may take (1 to 15); the ring gets the rest,
    /// and always at least `min_ring_slots` ([`Manifest::max_workers`]).
    pub reserve_sixteenths: u32,
    /// The most ring slots per worker, counting at least [`RING_CAP_WORKERS`] workers (0: no
    /// cap; [`Manifest::ring_slots`]); what the arena holds beyond is left unused.
    pub ring_slots_per_worker: u32,
    /// The kernel's split of the ring into shards ([`Manifest::ring_shards`]): about one per
    /// `shard_workers` workers, each of at least `min_shard_slots` slots, at most `max_shards`.
    /// 0 in an older manifest: read the ring as one shard.
    #[serde(default)]
    pub shard_workers: u32,
    #[serde(default)]
    pub min_shard_slots: u32,
    #[serde(default)]
    pub max_shards: u32,
}

impl ArenaLayout {
    /// The fewest frames of a reserve (`stack_frames` for a manifest without the field).
    pub fn least_stack_frames(&self) -> u32 {
        if self.min_stack_frames == 0 {
            self.stack_frames
        } else {
            self.min_stack_frames
        }
    }

    /// The reserve a worker of `bytes` bytes holds: its frames, from [`Self::least_stack_frames`]
    /// up to `stack_frames` (more would never be used).
    pub fn frames_within(&self, bytes: u64) -> u32 {
        let frame_bytes = 4 * self.frame_words as u64;
        let frames =
            (bytes + frame_bytes * self.stack_frames as u64).saturating_sub(self.bytes_per_worker) / frame_bytes;
        frames.clamp(self.least_stack_frames() as u64, self.stack_frames as u64) as u32
    }

    /// Bytes of one worker with a reserve of `stack_frames` frames: `bytes_per_worker` less
    /// the frames it does not have.
    pub fn worker_bytes(&self, stack_frames: u32) -> u64 {
        let frame_bytes = 4 * self.frame_words as u64;
        (self.bytes_per_worker + frame_bytes * stack_frames as u64)
            .saturating_sub(frame_bytes * self.stack_frames as u64)
    }
}

/// Word offsets into the control block (`array<atomic<u32>>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControlLayout {
    /// Total words.
    pub words: u32,
    /// Three words `x, y, z` the kernel keeps as the next launch's indirect arguments; copy them
    /// into the indirect buffer before every launch.
    pub indirect_args: u32,
    /// Non-zero once the run is complete, the dispatches' work included (or stopped on an
    /// error). With dispatches it is set by the last of them, not by the persistent kernel.
    pub done: u32,
    /// Four words: error code (0 = none), stage id, observed value, declared bound.
    pub error: u32,
    /// Named statistics, one word each.
    pub stats: Vec<StatField>,
    /// Work units run, one word per stage, in stage id order.
    pub units_per_stage: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatField {
    pub name: String,
    pub word: u32,
    pub meaning: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Defaults {
    pub workers: u32,
    pub fuel: u32,
    /// Launches recorded per submission; submit again while the done flag is clear.
    pub chain_length: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    pub code: u32,
    pub name: String,
    pub meaning: String,
}

impl Manifest {
    /// Pretty JSON with a trailing newline; deterministic (field order is the struct's).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("manifest serializes");
        s.push('\n');
        s
    }

    pub fn from_json(text: &str) -> Result<Manifest, String> {
        let m: Manifest = serde_json::from_str(text).map_err(|e| format!("invalid manifest: {e}"))?;
        if m.schema != SCHEMA {
            return Err(format!(
                "manifest schema is `{}`, this runtime reads `{SCHEMA}`",
                m.schema
            ));
        }
        Ok(m)
    }

    pub fn binding(&self, name: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.name == name)
    }

    pub fn binding_by_role(&self, role: Role) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.role == role)
    }

    /// Ring slots an arena of `bytes` holds with `workers` workers, each with the reserve
    /// [`Manifest::stack_frames`] gives them — the largest power of two that fits, at most 2^31
    /// and at most `ring_slots_per_worker` per worker (counting at least [`RING_CAP_WORKERS`])
    /// where that is set — or `None` if it is too small.
    pub fn ring_slots(&self, bytes: u64, workers: u32) -> Option<u32> {
        self.ring_slots_beside(bytes, workers, self.stack_frames(bytes, workers))
    }

    /// [`Manifest::ring_slots`] beside `workers` reserves of `stack_frames` frames.
    pub fn ring_slots_beside(&self, bytes: u64, workers: u32, stack_frames: u32) -> Option<u32> {
        let a = &self.executor.arena;
        let rest = bytes.checked_sub(a.worker_bytes(stack_frames) * workers as u64)?;
        let mut fit = (rest / a.bytes_per_slot).min(1 << 31);
        if a.ring_slots_per_worker > 0 {
            let counted = (workers as u64).max(RING_CAP_WORKERS);
            fit = fit.min((a.ring_slots_per_worker as u64 * counted).max(a.min_ring_slots as u64));
        }
        let slots = if fit == 0 { 0 } else { 1u64 << fit.ilog2() };
        (slots >= a.min_ring_slots as u64).then_some(slots as u32)
    }

    /// The shards the kernel splits a ring of `ring_slots` slots into for `workers` workers
    /// (docs/executor.md, "Ring shards"): the largest power of two at most `workers /
    /// shard_workers`, `ring_slots / min_shard_slots` and `max_shards` (each at least 1); 1 for
    /// a manifest without them. A shard has `ring_slots / shards` slots.
    pub fn ring_shards(&self, workers: u32, ring_slots: u32) -> u32 {
        let a = &self.executor.arena;
        if a.shard_workers == 0 || a.min_shard_slots == 0 || a.max_shards == 0 {
            return 1;
        }
        let most = (workers / a.shard_workers)
            .max(1)
            .min((ring_slots / a.min_shard_slots).max(1))
            .min(a.max_shards);
        1 << most.ilog2()
    }

    /// The byte ranges of the arena a host zeroes before a run with `workers` workers of
    /// `stack_frames` frames and `ring_slots` slots: the stacks' top and bottom words (empty
    /// stacks) and the ring's slot states (every slot empty). Nothing else needs clearing: the
    /// kernel writes a frame, on a stack, in the ring or in a queue, before anything reads it, so
    /// the frames a previous run left (or any garbage) are never read. Zeroing the whole arena is
    /// correct too, but costs time in proportion to it (an 878 MB arena is a third of a
    /// partitioned triangle 1e8 run on an H100; docs/performance.md, "Session 35").
    pub fn arena_zeroed(&self, workers: u32, stack_frames: u32, ring_slots: u32) -> [std::ops::Range<u64>; 2] {
        let positions = 8 * workers as u64;
        let states = positions + 4 * self.executor.arena.frame_words as u64 * stack_frames as u64 * workers as u64;
        [0..positions, states..states + 4 * ring_slots as u64]
    }

    /// Arena bytes actually used with `workers` workers of `stack_frames` frames and
    /// `ring_slots` slots.
    pub fn arena_bytes(&self, workers: u32, stack_frames: u32, ring_slots: u32) -> u64 {
        let a = &self.executor.arena;
        a.worker_bytes(stack_frames) * workers as u64 + a.bytes_per_slot * ring_slots as u64
    }

    /// The bytes worker reserves may take in an arena of `bytes`: `reserve_sixteenths`
    /// sixteenths of it, leaving room for the smallest ring.
    fn reserve_bytes(&self, bytes: u64) -> u64 {
        let a = &self.executor.arena;
        let share = bytes * a.reserve_sixteenths as u64 / 16;
        share.min(bytes.saturating_sub(a.bytes_per_slot * a.min_ring_slots as u64))
    }

    /// Most workers an arena of `bytes` gets: reserves of `min_stack_frames` frames within
    /// the reserves' share ([`Manifest::stack_frames`] then spreads the share over them); the
    /// shared ring (what spreads work across workers) gets the rest. One worker always fits
    /// once `bytes >= min_bytes`; 0 below.
    pub fn max_workers(&self, bytes: u64) -> u32 {
        self.max_workers_with(bytes, self.executor.arena.least_stack_frames())
    }

    /// [`Manifest::max_workers`] with reserves of `stack_frames` frames each.
    pub fn max_workers_with(&self, bytes: u64, stack_frames: u32) -> u32 {
        let a = &self.executor.arena;
        if bytes < a.min_bytes {
            return 0;
        }
        (self.reserve_bytes(bytes) / a.worker_bytes(stack_frames)).clamp(1, u32::MAX as u64) as u32
    }

    /// The reserve, in frames, each of `workers` workers gets in an arena of `bytes`: the
    /// reserves' share spread evenly, from `min_stack_frames` up to `stack_frames` (more frames
    /// than that would never be used).
    pub fn stack_frames(&self, bytes: u64, workers: u32) -> u32 {
        self.executor
            .arena
            .frames_within(self.reserve_bytes(bytes) / workers.max(1) as u64)
    }
}

impl LengthRule {
    /// Evaluates with `len` giving binding lengths and `param` parameter values. Every step must
    /// stay within `u32`, as in the kernel, which computes entry counts and key domains in `u32`
    /// arithmetic that would wrap; so a value that evaluates here is the kernel's too. `Err`
    /// names what is missing, or the step that left the range and its operands.
    pub fn eval(&self, len: &dyn Fn(&str) -> Option<u64>, param: &dyn Fn(&str) -> Option<u64>) -> Result<u64, String> {
        let value = match self {
            LengthRule::Const(v) => *v,
            LengthRule::Len(n) => len(n).ok_or_else(|| format!("length of `{n}` is not known"))?,
            LengthRule::Param(n) => param(n).ok_or_else(|| format!("parameter `{n}` is not set"))?,
            LengthRule::Add(a, b) | LengthRule::Sub(a, b) | LengthRule::Mul(a, b) | LengthRule::Div(a, b) => {
                let (x, y) = (a.eval(len, param)?, b.eval(len, param)?);
                let (v, op) = match self {
                    LengthRule::Add(..) => (x.checked_add(y), '+'),
                    LengthRule::Sub(..) => (x.checked_sub(y), '-'),
                    LengthRule::Mul(..) => (x.checked_mul(y), '*'),
                    _ => (x.checked_div(y), '/'),
                };
                match v {
                    Some(v) => v,
                    None if op == '-' => return Err(format!("{self} is negative ({x} - {y})")),
                    None if op == '/' => return Err(format!("{self} divides by zero ({x} / {y})")),
                    None => return Err(format!("{self} overflows ({x} {op} {y})")),
                }
            }
        };
        if value > u64::from(u32::MAX) {
            return Err(format!(
                "{self} is {value}, more than the 32 bits the kernel counts in hold (at most {})",
                u32::MAX
            ));
        }
        Ok(value)
    }
}

impl std::fmt::Display for LengthRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LengthRule::Const(v) => write!(f, "{v}"),
            LengthRule::Len(n) => write!(f, "len({n})"),
            LengthRule::Param(n) => write!(f, "{n}"),
            LengthRule::Add(a, b) => write!(f, "({a} + {b})"),
            LengthRule::Sub(a, b) => write!(f, "({a} - {b})"),
            LengthRule::Mul(a, b) => write!(f, "({a} * {b})"),
            LengthRule::Div(a, b) => write!(f, "({a} / {b})"),
        }
    }
}
