//! What the caller gives a run: its inputs (bytes, or buffers it already filled on the GPU),
//! parameter values, arena size and executor knobs; and the device's limits as wgpu reports
//! them. [`crate::Plan`] reads the inputs' lengths; [`crate::Executor::prepare`] binds the
//! buffers.

use crate::plan::DeviceLimits;

/// One input's data as given to a run.
#[derive(Clone, Copy, Debug)]
pub enum InputData<'a> {
    /// Bytes to upload (little-endian words, `element.size` bytes per element).
    Bytes(&'a [u8]),
    /// A buffer the caller already filled; `bytes` is the data's length (the buffer may be
    /// longer). It needs `STORAGE` usage.
    Buffer { buffer: &'a wgpu::Buffer, bytes: u64 },
}

impl InputData<'_> {
    pub fn len_bytes(&self) -> u64 {
        match self {
            InputData::Bytes(b) => b.len() as u64,
            InputData::Buffer { bytes, .. } => *bytes,
        }
    }
}

/// What the caller chooses for one run: input data, parameter values, arena size and the
/// executor knobs. Everything not set takes the manifest's default.
#[derive(Clone, Debug, Default)]
pub struct RunSetup<'a> {
    pub inputs: Vec<(String, InputData<'a>)>,
    /// Parameter values as 32-bit patterns (`f32::to_bits`, `i32 as u32`).
    pub params: Vec<(String, u32)>,
    /// Arena size in bytes (see [`Manifest::max_workers`](dyngc_artifact::Manifest::max_workers)); at least `executor.arena.min_bytes`.
    pub arena_bytes: u64,
    /// Persistent workgroups; default `executor.defaults.workers`, clamped to what the arena and
    /// the device hold.
    pub workers: Option<u32>,
    /// Scheduler iterations per workgroup per launch; default `executor.defaults.fuel`.
    pub fuel: Option<u32>,
    /// Launches per submission; default `executor.defaults.chain_length`.
    pub chain_length: Option<u32>,
    /// The most workgroups one dispatch of the partitioned schedule launches (each takes chunks
    /// of its queue until it is dry, so any cap runs every unit). Default: none beyond the
    /// executor's `MAX_DISPATCH_GROUPS`. A CPU device (SwiftShader) wants a few per thread.
    pub dispatch_groups: Option<u32>,
    /// The most frames each queue of a one-lane dispatched stage (partitioned schedule) holds at
    /// a time, at least 1. Default: every frame the arena gives it (as many as the ring has
    /// slots). A spawn that finds such a queue full runs its indices on the spawner's lane: a
    /// CPU device (SwiftShader) runs them sooner that way than through the queue's dispatch, so
    /// it wants 1. Queues of wide stages are not capped.
    pub queue_frames: Option<u32>,
    /// Ring slots (a power of two, at least `executor.arena.min_ring_slots`), as an engine that
    /// lays out the arena itself may choose; the workers then get what the ring leaves. Default:
    /// the manifest's layout rule (docs/manifest.md, "The arena"): workers first, the largest ring
    /// in the rest.
    pub ring_slots: Option<u32>,
    /// Frames of each worker's stack reserve, from `executor.arena.min_stack_frames` to
    /// `stack_frames`. Default: the reserves' share of the arena spread over the workers
    /// ([`Manifest::stack_frames`](dyngc_artifact::Manifest::stack_frames)). A smaller reserve
    /// fits more workers; its batches narrow as the stack fills.
    pub stack_frames: Option<u32>,
    /// Elements each stream output's window holds (docs/executor.md, "Streams"); default
    /// [`DEFAULT_STREAM_UNITS_PER_LANE`](crate::plan::DEFAULT_STREAM_UNITS_PER_LANE) times the
    /// most one unit emits per lane in flight, at least
    /// [`DEFAULT_STREAM_CAPACITY`](crate::plan::DEFAULT_STREAM_CAPACITY). Raised to the stream's `min_capacity` (the most one unit
    /// emits) and lowered to what the device's largest binding holds: a smaller window means
    /// more drains, never lost elements.
    pub stream_capacity: Option<u64>,
}

impl<'a> RunSetup<'a> {
    pub fn new(arena_bytes: u64) -> Self {
        RunSetup {
            arena_bytes,
            ..Default::default()
        }
    }

    pub fn input(&mut self, name: impl Into<String>, bytes: &'a [u8]) -> &mut Self {
        self.inputs.push((name.into(), InputData::Bytes(bytes)));
        self
    }

    pub fn input_buffer(&mut self, name: impl Into<String>, buffer: &'a wgpu::Buffer, bytes: u64) -> &mut Self {
        self.inputs.push((name.into(), InputData::Buffer { buffer, bytes }));
        self
    }

    pub fn param(&mut self, name: impl Into<String>, bits: u32) -> &mut Self {
        self.params.push((name.into(), bits));
        self
    }

    pub fn workers(&mut self, workers: u32) -> &mut Self {
        self.workers = Some(workers);
        self
    }

    pub fn fuel(&mut self, fuel: u32) -> &mut Self {
        self.fuel = Some(fuel);
        self
    }

    pub fn chain_length(&mut self, launches: u32) -> &mut Self {
        self.chain_length = Some(launches);
        self
    }

    pub fn dispatch_groups(&mut self, groups: u32) -> &mut Self {
        self.dispatch_groups = Some(groups);
        self
    }

    pub fn queue_frames(&mut self, frames: u32) -> &mut Self {
        self.queue_frames = Some(frames);
        self
    }

    pub fn ring_slots(&mut self, slots: u32) -> &mut Self {
        self.ring_slots = Some(slots);
        self
    }

    pub fn stack_frames(&mut self, frames: u32) -> &mut Self {
        self.stack_frames = Some(frames);
        self
    }

    pub fn stream_capacity(&mut self, elements: u64) -> &mut Self {
        self.stream_capacity = Some(elements);
        self
    }
}

impl From<&wgpu::Limits> for DeviceLimits {
    fn from(l: &wgpu::Limits) -> Self {
        DeviceLimits {
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_uniform_buffer_binding_size: l.max_uniform_buffer_binding_size,
            max_buffer_size: l.max_buffer_size,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
        }
    }
}
