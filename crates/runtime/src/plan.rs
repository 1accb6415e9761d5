//! The host-side arithmetic of a run, free of any GPU object: input and parameter checks,
//! buffer lengths from the manifest's length rules, the arena split into workers and ring slots,
//! the parameter uniform's bytes. [`Plan::new`] is what [`crate::Executor::prepare`] uses; of a
//! [`RunSetup`] it reads the inputs' lengths, never their data.

use crate::error::Error;
use crate::setup::RunSetup;
use dyngc_artifact::{Access, Binding, Manifest, Role};
use std::collections::HashMap;

/// Bytes per word of the executor's buffers (control block, arena, marks).
pub const WORD: u64 = 4;

/// The least default window of a stream output, in elements.
pub const DEFAULT_STREAM_CAPACITY: u64 = 1 << 20;

/// Without a requested window, a stream's holds this many of its `min_capacity` (the most one
/// unit emits) per lane in flight, if that is more than [`DEFAULT_STREAM_CAPACITY`]: a window
/// smaller than the lanes' reservations leaves lanes without room, and every full window costs
/// a drain and a relaunch. Tessellate at 1,024 workers ran 2.6x faster on the H200 with 2^23
/// elements than with 2^20 (docs/performance.md, session 16).
pub const DEFAULT_STREAM_UNITS_PER_LANE: u64 = 2;

/// The device limits a plan respects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub max_storage_buffer_binding_size: u64,
    pub max_uniform_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_compute_workgroups_per_dimension: u32,
}

impl DeviceLimits {
    /// No limits: for planning without a device.
    pub fn unlimited() -> Self {
        DeviceLimits {
            max_storage_buffer_binding_size: u64::MAX,
            max_uniform_buffer_binding_size: u64::MAX,
            max_buffer_size: u64::MAX,
            max_compute_workgroups_per_dimension: u32::MAX,
        }
    }
}

/// Size of one binding's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferPlan {
    pub name: String,
    pub role: Role,
    /// Elements (user bindings), words (control, arena, marks) or 1 (parameters).
    pub length: u64,
    /// Bytes of data: `length * element.size`, or words * 4.
    pub bytes: u64,
    /// Bytes allocated: `bytes`, but at least one element and 4 bytes (WebGPU has no empty
    /// buffers), rounded up to a multiple of 4.
    pub alloc: u64,
}

/// Everything a run needs decided before any GPU object exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Workers the caller asked for (or the default).
    pub requested_workers: u32,
    /// Workers used: the request clamped to what the arena and the device hold.
    pub workers: u32,
    pub ring_slots: u32,
    /// Frames of each worker's stack reserve.
    pub stack_frames: u32,
    pub fuel: u32,
    pub chain_length: u32,
    /// The most workgroups a dispatch of the partitioned schedule launches; 0: no cap beyond
    /// the executor's own (`MAX_DISPATCH_GROUPS`).
    pub dispatch_groups: u32,
    /// The most frames each queue of a one-lane dispatched stage holds: `ring_slots`, or fewer
    /// where the caller capped it (`RunSetup::queue_frames`).
    pub queue_frames: u32,
    /// Arena bytes asked for.
    pub requested_arena_bytes: u64,
    /// Arena bytes used: the workers' reserves plus the ring.
    pub arena_bytes: u64,
    /// Every parameter's value in manifest order, defaults filled in.
    pub params: Vec<(String, u32)>,
    /// The parameter uniform, `executor.params_size` bytes.
    pub uniform: Vec<u8>,
    /// One per manifest binding, in manifest order.
    pub buffers: Vec<BufferPlan>,
}

impl Plan {
    pub fn new(manifest: &Manifest, setup: &RunSetup<'_>, limits: &DeviceLimits) -> Result<Plan, Error> {
        manifest.validate().map_err(Error::Manifest)?;
        let ex = &manifest.executor;
        let inputs: Vec<&Binding> = manifest.bindings.iter().filter(|b| b.role == Role::Input).collect();
        let input_names = || inputs.iter().map(|b| b.name.clone()).collect::<Vec<_>>();

        // Inputs: every given name is an input, every input is given once, whole elements.
        let mut lengths: HashMap<String, u64> = HashMap::new();
        for (i, (name, _)) in setup.inputs.iter().enumerate() {
            if setup.inputs[..i].iter().any(|(n, _)| n == name) {
                return Err(Error::DuplicateInput(name.clone()));
            }
            if !inputs.iter().any(|b| &b.name == name) {
                return Err(Error::UnknownInput {
                    name: name.clone(),
                    inputs: input_names(),
                });
            }
        }
        for b in &inputs {
            let data = setup
                .inputs
                .iter()
                .find(|(n, _)| n == &b.name)
                .map(|(_, d)| d)
                .ok_or_else(|| Error::MissingInput {
                    name: b.name.clone(),
                    inputs: input_names(),
                })?;
            let got = data.len_bytes();
            let size = b.element.size as u64;
            if got % size != 0 {
                return Err(Error::InputSize {
                    binding: b.name.clone(),
                    element_size: b.element.size,
                    got,
                    wgsl: b.element.wgsl.clone(),
                });
            }
            let n = got / size;
            if !b.array && n != 1 {
                return Err(Error::Length {
                    binding: b.name.clone(),
                    message: format!("it is a single `{}`: expected {size} bytes, got {got}", b.element.wgsl),
                });
            }
            lengths.insert(b.name.clone(), n);
        }

        // Parameters: known names, each once; defaults fill the rest.
        let known = || manifest.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        for (i, (name, _)) in setup.params.iter().enumerate() {
            if setup.params[..i].iter().any(|(n, _)| n == name) {
                return Err(Error::DuplicateParam(name.clone()));
            }
            if !manifest.params.iter().any(|p| &p.name == name) {
                return Err(Error::UnknownParam {
                    name: name.clone(),
                    known: known(),
                });
            }
        }
        let mut params = Vec::with_capacity(manifest.params.len());
        for p in &manifest.params {
            let given = setup.params.iter().find(|(n, _)| n == &p.name).map(|(_, v)| *v);
            let value = given.or(p.default).ok_or_else(|| Error::MissingParam(p.name.clone()))?;
            params.push((p.name.clone(), value));
        }
        let param_of = |n: &str| params.iter().find(|(p, _)| p == n).map(|(_, v)| *v as u64);

        // Outputs and buffers: length rules may refer to each other, so resolve to a fixed point.
        let mut pending: Vec<&Binding> = Vec::new();
        for b in &manifest.bindings {
            if matches!(b.role, Role::Output | Role::Buffer) {
                if b.array {
                    pending.push(b);
                } else {
                    lengths.insert(b.name.clone(), 1);
                }
            }
        }
        while !pending.is_empty() {
            let mut failure = None;
            let before = pending.len();
            pending.retain(|b| {
                let Some(rule) = &b.length else {
                    failure.get_or_insert((b.name.clone(), "the manifest gives no length rule".to_string()));
                    return true;
                };
                match rule.eval(&|n| lengths.get(n).copied(), &param_of) {
                    Ok(v) => {
                        lengths.insert(b.name.clone(), v);
                        false
                    }
                    Err(e) => {
                        let rule = rule.to_string();
                        let message = if e.contains(&rule) {
                            e
                        } else {
                            format!("{e} (in `{rule}`)")
                        };
                        failure.get_or_insert((b.name.clone(), message));
                        true
                    }
                }
            });
            if pending.len() == before {
                let (binding, message) = failure.unwrap_or_default();
                return Err(Error::Length { binding, message });
            }
        }

        // Marks: ceil(domain / 32) words per keyed stage, in id order; at least one word.
        let mut stages: Vec<_> = manifest.stages.iter().collect();
        stages.sort_by_key(|s| s.id);
        let mut marks_words = 0u64;
        for s in stages {
            if let Some(rule) = &s.keyed {
                let domain = rule
                    .eval(&|n| lengths.get(n).copied(), &param_of)
                    .map_err(|e| Error::Count {
                        what: format!("the keys of stage `{}`", s.name),
                        message: e,
                    })?;
                marks_words = marks_words.saturating_add(domain.div_ceil(32));
            }
        }
        let marks_words = marks_words.max(1);
        let entry = &manifest.entry;
        entry
            .count
            .eval(&|n| lengths.get(n).copied(), &param_of)
            .map_err(|e| Error::Count {
                what: format!(
                    "the units of the entry `{}`",
                    manifest
                        .stages
                        .iter()
                        .find(|s| s.id == entry.stage)
                        .map_or("?", |s| s.name.as_str())
                ),
                message: e,
            })?;

        // Arena: workers' reserves plus the ring.
        let requested_arena_bytes = setup.arena_bytes;
        check_arena(manifest, requested_arena_bytes, limits)?;
        let too_small = || Error::ArenaTooSmall {
            requested: requested_arena_bytes,
            minimum: ex.arena.min_bytes,
        };
        let requested_workers = setup.workers.unwrap_or(ex.defaults.workers);
        if requested_workers == 0 {
            return Err(Error::Option("the number of workers must be at least 1".into()));
        }
        if let Some(frames) = setup.stack_frames {
            let (least, most) = (ex.arena.least_stack_frames(), ex.arena.stack_frames);
            if !(least..=most).contains(&frames) {
                return Err(Error::Option(format!(
                    "stack frames must be from {least} to {most} (got {frames})"
                )));
            }
        }
        // Explicit reserves, or the rule's for `workers` workers.
        let reserve = |workers: u32| {
            setup
                .stack_frames
                .unwrap_or_else(|| manifest.stack_frames(requested_arena_bytes, workers))
        };
        let (workers, ring_slots) = match setup.ring_slots {
            None => {
                let most = match setup.stack_frames {
                    Some(frames) => manifest.max_workers_with(requested_arena_bytes, frames),
                    None => manifest.max_workers(requested_arena_bytes),
                };
                let workers = requested_workers
                    .min(most)
                    .min(limits.max_compute_workgroups_per_dimension)
                    .max(1);
                let ring_slots = manifest
                    .ring_slots_beside(requested_arena_bytes, workers, reserve(workers))
                    .ok_or_else(too_small)?;
                (workers, ring_slots)
            }
            Some(slots) => {
                if !slots.is_power_of_two() || slots < ex.arena.min_ring_slots {
                    return Err(Error::Option(format!(
                        "ring slots must be a power of two and at least {} (got {slots})",
                        ex.arena.min_ring_slots
                    )));
                }
                let ring = ex.arena.bytes_per_slot * slots as u64;
                let frames = setup.stack_frames.unwrap_or(ex.arena.least_stack_frames());
                let fit = requested_arena_bytes.saturating_sub(ring) / ex.arena.worker_bytes(frames);
                if fit == 0 {
                    return Err(Error::Option(format!(
                        "an arena of {requested_arena_bytes} bytes holds a ring of {slots} slots ({ring} bytes) and no worker (each needs {} bytes)",
                        ex.arena.worker_bytes(frames)
                    )));
                }
                let workers = (requested_workers as u64)
                    .min(fit)
                    .min(limits.max_compute_workgroups_per_dimension as u64) as u32;
                (workers, slots)
            }
        };
        // With an explicit ring the workers get what it leaves, up to the most frames.
        let stack_frames = match (setup.stack_frames, setup.ring_slots) {
            (Some(frames), _) => frames,
            (None, None) => reserve(workers),
            (None, Some(slots)) => {
                let rest = requested_arena_bytes - ex.arena.bytes_per_slot * slots as u64;
                ex.arena.frames_within(rest / workers as u64)
            }
        };
        let arena_bytes = manifest.arena_bytes(workers, stack_frames, ring_slots).div_ceil(WORD) * WORD;

        let fuel = setup.fuel.unwrap_or(ex.defaults.fuel);
        if fuel == 0 {
            return Err(Error::Option("fuel must be at least 1".into()));
        }
        let chain_length = setup.chain_length.unwrap_or(ex.defaults.chain_length);
        if chain_length == 0 {
            return Err(Error::Option("the chain length must be at least 1".into()));
        }

        // The parameter uniform.
        let mut uniform = vec![0u8; ex.params_size as usize];
        put(&mut uniform, ex.config.workers, workers);
        put(&mut uniform, ex.config.ring_slots, ring_slots);
        put(&mut uniform, ex.config.fuel, fuel);
        let dispatch_groups = setup.dispatch_groups.unwrap_or(0);
        put(&mut uniform, ex.config.dispatch_groups, dispatch_groups);
        if setup.queue_frames == Some(0) {
            return Err(Error::Option(
                "queue_frames must be at least 1 (leave it unset for every frame the arena gives a queue)".into(),
            ));
        }
        let queue_frames = setup.queue_frames.map_or(ring_slots, |n| n.min(ring_slots));
        put(&mut uniform, ex.config.queue_frames, setup.queue_frames.unwrap_or(0));
        put(&mut uniform, ex.config.stack_frames, stack_frames);
        for (p, (_, v)) in manifest.params.iter().zip(&params) {
            put(&mut uniform, p.offset, *v);
        }
        for slot in &ex.lengths {
            let n = lengths.get(&slot.binding).copied().unwrap_or(0);
            let n = u32::try_from(n).map_err(|_| {
                Error::Option(format!(
                    "`{}` has {n} elements; the executor counts them in 32 bits",
                    slot.binding
                ))
            })?;
            put(&mut uniform, slot.offset, n);
        }

        // Stream windows.
        let mut capacities = HashMap::new();
        for st in &ex.streams {
            let capacity = stream_capacity(manifest, st, setup.stream_capacity, workers, limits)?;
            put(&mut uniform, st.capacity_offset, capacity);
            capacities.insert(st.binding.clone(), u64::from(capacity));
        }

        // Buffer sizes.
        let mut buffers = Vec::with_capacity(manifest.bindings.len());
        for b in &manifest.bindings {
            let size = b.element.size as u64;
            let (length, bytes) = match b.role {
                Role::Input | Role::Output | Role::Buffer => {
                    let n = lengths[&b.name];
                    let bytes = n.checked_mul(size).ok_or_else(|| Error::Length {
                        binding: b.name.clone(),
                        message: format!("{n} elements of {size} bytes overflow"),
                    })?;
                    (n, bytes)
                }
                Role::Params => (1, ex.params_size as u64),
                Role::Control => (ex.control.words as u64, ex.control.words as u64 * WORD),
                Role::Arena => (arena_bytes / WORD, arena_bytes),
                Role::Marks => (marks_words, marks_words.saturating_mul(WORD)),
                Role::Stream => {
                    let n = capacities[&b.name];
                    (n, n * size)
                }
            };
            let alloc = bytes.max(size).max(WORD).div_ceil(WORD) * WORD;
            let (limit, what) = if b.access == Access::Uniform {
                (limits.max_uniform_buffer_binding_size, "largest uniform buffer binding")
            } else {
                (limits.max_storage_buffer_binding_size, "largest storage buffer binding")
            };
            for (limit, what) in [(limit, what), (limits.max_buffer_size, "largest buffer")] {
                if alloc > limit {
                    return Err(Error::BufferTooLarge {
                        binding: b.name.clone(),
                        bytes: alloc,
                        limit,
                        what,
                    });
                }
            }
            buffers.push(BufferPlan {
                name: b.name.clone(),
                role: b.role,
                length,
                bytes,
                alloc,
            });
        }

        Ok(Plan {
            requested_workers,
            workers,
            ring_slots,
            stack_frames,
            fuel,
            chain_length,
            dispatch_groups,
            queue_frames,
            requested_arena_bytes,
            arena_bytes,
            params,
            uniform,
            buffers,
        })
    }

    pub fn buffer(&self, name: &str) -> Option<&BufferPlan> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

/// The window of stream `st`: the requested capacity (by default the larger of
/// [`DEFAULT_STREAM_CAPACITY`] and [`DEFAULT_STREAM_UNITS_PER_LANE`] maxima per lane in flight),
/// at least the most one unit emits, at most what the largest binding holds, and small enough that the reservations of
/// every lane in flight (each at most `min_capacity`) cannot wrap the kernel's 32-bit counter.
fn stream_capacity(
    manifest: &Manifest,
    st: &dyngc_artifact::StreamInfo,
    requested: Option<u64>,
    workers: u32,
    limits: &DeviceLimits,
) -> Result<u32, Error> {
    let size = manifest
        .bindings
        .iter()
        .find(|b| b.name == st.binding)
        .map_or(WORD, |b| u64::from(b.element.size).max(1));
    let device_most = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) / size;
    let in_flight = u64::from(workers) * u64::from(manifest.workgroup_size) * u64::from(st.min_capacity);
    let counter_most = u64::from(u32::MAX).saturating_sub(in_flight);
    let most = device_most.min(counter_most);
    let min = u64::from(st.min_capacity.max(1));
    if most < min {
        return Err(Error::Option(format!(
            "stream `{}` needs a window of at least {min} elements, and this device and worker count allow {most}",
            st.binding
        )));
    }
    let want =
        requested.unwrap_or(DEFAULT_STREAM_CAPACITY.max(DEFAULT_STREAM_UNITS_PER_LANE.saturating_mul(in_flight)));
    Ok(want.clamp(min, most) as u32)
}

/// Refuses an arena below the program's minimum or above the device's buffer limits.
pub(crate) fn check_arena(manifest: &Manifest, bytes: u64, limits: &DeviceLimits) -> Result<(), Error> {
    for (limit, what) in [
        (limits.max_storage_buffer_binding_size, "largest storage buffer binding"),
        (limits.max_buffer_size, "largest buffer"),
    ] {
        if bytes > limit {
            return Err(Error::ArenaTooLarge {
                requested: bytes,
                limit,
                what,
            });
        }
    }
    if bytes < manifest.executor.arena.min_bytes || manifest.max_workers(bytes) == 0 {
        return Err(Error::ArenaTooSmall {
            requested: bytes,
            minimum: manifest.executor.arena.min_bytes,
        });
    }
    Ok(())
}

fn put(bytes: &mut [u8], offset: u32, value: u32) {
    let o = offset as usize;
    bytes[o..o + 4].copy_from_slice(&value.to_le_bytes());
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::setup::InputData;
    use dyngc_artifact::*;

    fn binding(name: &str, group: u32, slot: u32, role: Role, access: Access, size: u32) -> Binding {
        Binding {
            name: name.into(),
            group,
            binding: slot,
            role,
            access,
            element: Element {
                scalar: Some(ScalarKind::U32),
                components: size / 4,
                atomic: matches!(role, Role::Control | Role::Arena | Role::Marks),
                wgsl: if size == 4 {
                    "u32".into()
                } else {
                    format!("vec{}<u32>", size / 4)
                },
                size,
            },
            array: role != Role::Params,
            length: None,
            fill: None,
        }
    }

    /// A manifest shaped like the bfs example's.
    pub(crate) fn manifest() -> Manifest {
        let mut out = binding("dist", 0, 2, Role::Output, Access::ReadWrite, 4);
        out.length = Some(LengthRule::Sub(
            Box::new(LengthRule::Len("row_ptr".into())),
            Box::new(LengthRule::Const(1)),
        ));
        out.fill = Some(0xFFFF_FFFF);
        let mut scratch = binding("scratch", 0, 3, Role::Buffer, Access::ReadWrite, 8);
        scratch.length = Some(LengthRule::Mul(
            Box::new(LengthRule::Len("dist".into())),
            Box::new(LengthRule::Param("k".into())),
        ));
        Manifest {
            schema: SCHEMA.into(),
            name: "bfs".into(),
            wgsl: "bfs.wgsl".into(),
            workgroup_size: 64,
            entry_points: EntryPoints {
                init: "dyn_init".into(),
                main: "dyn_main".into(),
                dispatches: Vec::new(),
            },
            limits: Limits::default(),
            entry: EntryInfo {
                stage: 0,
                count: LengthRule::Const(1),
            },
            bindings: vec![
                binding("row_ptr", 0, 0, Role::Input, Access::Read, 4),
                binding("col_idx", 0, 1, Role::Input, Access::Read, 4),
                out,
                scratch,
                binding("dyn_params", 1, 0, Role::Params, Access::Uniform, 32),
                binding("dyn_control", 1, 1, Role::Control, Access::ReadWrite, 4),
                binding("dyn_arena", 1, 2, Role::Arena, Access::ReadWrite, 4),
                binding("dyn_marks", 1, 3, Role::Marks, Access::ReadWrite, 4),
            ],
            params: vec![
                ParamInfo {
                    name: "source".into(),
                    scalar: ScalarKind::U32,
                    offset: 20,
                    default: None,
                },
                ParamInfo {
                    name: "k".into(),
                    scalar: ScalarKind::U32,
                    offset: 24,
                    default: Some(2),
                },
            ],
            stages: vec![
                StageInfo {
                    id: 0,
                    name: "seed".into(),
                    keyed: None,
                    max_depth: None,
                },
                StageInfo {
                    id: 1,
                    name: "visit".into(),
                    keyed: Some(LengthRule::Sub(
                        Box::new(LengthRule::Len("row_ptr".into())),
                        Box::new(LengthRule::Const(1)),
                    )),
                    max_depth: None,
                },
                StageInfo {
                    id: 2,
                    name: "relax".into(),
                    keyed: None,
                    max_depth: None,
                },
            ],
            executor: Executor {
                config: ConfigLayout {
                    workers: 0,
                    ring_slots: 4,
                    fuel: 8,
                    dispatch_groups: 12,
                    queue_frames: 16,
                    stack_frames: 20,
                },
                params_size: 48,
                lengths: vec![
                    LengthSlot {
                        binding: "row_ptr".into(),
                        offset: 28,
                    },
                    LengthSlot {
                        binding: "col_idx".into(),
                        offset: 32,
                    },
                ],
                arena: ArenaLayout {
                    frame_words: 4,
                    stack_frames: 30,
                    min_stack_frames: 0,
                    min_ring_slots: 64,
                    bytes_per_worker: 4 + 30 * 16,
                    bytes_per_slot: 4 + 16,
                    min_bytes: 484 + 64 * 20,
                    reserve_sixteenths: 8,
                    ring_slots_per_worker: 0,
                    shard_workers: 8,
                    min_shard_slots: 64,
                    max_shards: 128,
                },
                control: ControlLayout {
                    words: 32,
                    indirect_args: 0,
                    done: 3,
                    error: 4,
                    stats: vec![
                        StatField {
                            name: "launches".into(),
                            word: 8,
                            meaning: "main launches".into(),
                        },
                        StatField {
                            name: "ring_pushes".into(),
                            word: 9,
                            meaning: "frames pushed to the ring".into(),
                        },
                    ],
                    units_per_stage: 16,
                },
                defaults: Defaults {
                    workers: 256,
                    fuel: 1024,
                    chain_length: 8,
                },
                errors: vec![ErrorInfo {
                    code: 1,
                    name: "max_depth".into(),
                    meaning: "recursion too deep".into(),
                }],
                max_spawn_depth: 30,
                graph_loop: None,
                schedule: Default::default(),
                streams: Vec::new(),
                stream_full: None,
            },
        }
    }

    fn words(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn plans_lengths_params_and_arena() {
        let m = manifest();
        let row = words(&[
            0, 2, 3, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
            30, 31, 32, 33, 34, 35,
        ]);
        let col = words(&[1; 35]);
        let mut s = RunSetup::new(1 << 20);
        s.input("row_ptr", &row).input("col_idx", &col).param("source", 3);
        let p = Plan::new(&m, &s, &DeviceLimits::unlimited()).unwrap();
        assert_eq!(p.buffer("row_ptr").unwrap().length, 35);
        assert_eq!(p.buffer("dist").unwrap().length, 34);
        assert_eq!(p.buffer("scratch").unwrap().length, 68);
        assert_eq!(p.buffer("scratch").unwrap().bytes, 68 * 8);
        assert_eq!(p.buffer("dyn_marks").unwrap().length, 2); // ceil(34 / 32)
        assert_eq!(p.buffer("dyn_control").unwrap().bytes, 128);
        assert_eq!(p.params, vec![("source".to_string(), 3), ("k".to_string(), 2)]);
        // Worker reserves may take half of 1 MiB: 1083 workers at most; the default 256 fit.
        assert_eq!(p.workers, 256);
        // The largest power of two that fits in what the workers leave: 924672 / 20 = 46233.
        assert_eq!(p.ring_slots, 32768);
        assert_eq!(p.arena_bytes, 256 * 484 + p.ring_slots as u64 * 20);
        assert_eq!(p.buffer("dyn_arena").unwrap().bytes, p.arena_bytes);
        let u32_at = |o: usize| u32::from_le_bytes(p.uniform[o..o + 4].try_into().unwrap());
        assert_eq!(p.uniform.len(), 48);
        assert_eq!(u32_at(0), 256);
        assert_eq!(u32_at(4), p.ring_slots);
        assert_eq!(u32_at(8), 1024);
        // No queue cap asked for: 0 in the uniform, every slot in the plan.
        assert_eq!(u32_at(16), 0);
        assert_eq!(p.queue_frames, p.ring_slots);
        assert_eq!(u32_at(20), 3);
        assert_eq!(u32_at(24), 2);
        // True element counts for the kernel (`arrayLength` cannot say 0).
        assert_eq!(u32_at(28), 35);
        assert_eq!(u32_at(32), 35);
    }

    #[test]
    fn an_engine_may_choose_the_ring() {
        let m = manifest();
        let row = words(&[0, 1]);
        let plan = |ring: u32, workers: u32| {
            let mut s = RunSetup::new(1 << 20);
            s.input("row_ptr", &row)
                .input("col_idx", &[])
                .param("source", 0)
                .workers(workers)
                .ring_slots(ring);
            Plan::new(&m, &s, &DeviceLimits::unlimited())
        };
        // The smallest ring with many workers, a layout the default never picks.
        let p = plan(64, 1000).unwrap();
        assert_eq!((p.workers, p.ring_slots), (1000, 64));
        assert_eq!(p.arena_bytes, 1000 * 484 + 64 * 20);
        // The workers get what the ring leaves: (2^20 - 32768 * 20) / 484 = 812.
        let p = plan(32768, 1000).unwrap();
        assert_eq!((p.workers, p.ring_slots), (812, 32768));
        for (ring, why) in [(48, "power of two"), (32, "at least 64")] {
            let e = plan(ring, 4).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        let e = plan(1 << 16, 4).unwrap_err().to_string();
        assert!(
            e.contains("holds a ring of 65536 slots (1310720 bytes) and no worker"),
            "{e}"
        );
    }

    #[test]
    fn reserves_take_their_share_and_leave_the_smallest_ring() {
        let mut m = manifest();
        m.executor.arena.reserve_sixteenths = 15;
        let row = words(&[0, 1]);
        let plan = |bytes: u64| {
            let mut s = RunSetup::new(bytes);
            s.input("row_ptr", &row)
                .input("col_idx", &[])
                .param("source", 0)
                .workers(4096);
            Plan::new(&m, &s, &DeviceLimits::unlimited()).unwrap()
        };
        // 15/16 of 1 MiB: 2031 workers of 484 bytes; the ring gets the rest, 3278 slots' room.
        let p = plan(1 << 20);
        assert_eq!((p.workers, p.ring_slots), (2031, 2048));
        // Twice the minimum: 15/16 would be 6 workers and leave 31 slots' room, under the
        // smallest ring of 64; the ring's room comes first.
        let p = plan(2 * m.executor.arena.min_bytes);
        assert_eq!((p.workers, p.ring_slots), (4, 64));
    }

    #[test]
    fn the_ring_stops_at_its_slots_per_worker() {
        let row = words(&[0, 1]);
        let plan = |per_worker: u32, workers: u32| {
            let mut m = manifest();
            m.executor.arena.ring_slots_per_worker = per_worker;
            let mut s = RunSetup::new(1 << 20);
            s.input("row_ptr", &row)
                .input("col_idx", &[])
                .param("source", 0)
                .workers(workers);
            Plan::new(&m, &s, &DeviceLimits::unlimited()).unwrap()
        };
        // 100 workers: at most 12,800 slots, so 8,192 (the arena would hold 32,768).
        let p = plan(128, 100);
        assert_eq!((p.workers, p.ring_slots), (100, 8192));
        assert_eq!(p.arena_bytes, 100 * 484 + 8192 * 20);
        assert_eq!(plan(0, 100).ring_slots, 32768);
        // The cap counts at least 64 workers: one worker gets 16 * 64 slots.
        assert_eq!(plan(16, 1).ring_slots, 1024);
    }

    #[test]
    fn queue_frames_cap_the_queues_and_refuse_zero() {
        let m = manifest();
        let row = words(&[0, 1]);
        let plan = |frames: u32| {
            let mut s = RunSetup::new(1 << 20);
            s.input("row_ptr", &row)
                .input("col_idx", &[])
                .param("source", 0)
                .ring_slots(64)
                .queue_frames(frames);
            Plan::new(&m, &s, &DeviceLimits::unlimited())
        };
        let p = plan(5).unwrap();
        assert_eq!(p.queue_frames, 5);
        assert_eq!(&p.uniform[16..20], &5u32.to_le_bytes());
        // A cap above the ring's slots leaves every slot: the kernel takes the smaller.
        let p = plan(1000).unwrap();
        assert_eq!(p.queue_frames, 64);
        assert_eq!(&p.uniform[16..20], &1000u32.to_le_bytes());
        let e = plan(0).unwrap_err().to_string();
        assert!(e.contains("queue_frames must be at least 1"), "{e}");
    }

    #[test]
    fn workers_clamp_to_the_arena_and_device() {
        let m = manifest();
        let row = words(&[0, 1]);
        let mut s = RunSetup::new(m.executor.arena.min_bytes);
        s.input("row_ptr", &row)
            .input("col_idx", &[])
            .param("source", 0)
            .workers(1000);
        let p = Plan::new(&m, &s, &DeviceLimits::unlimited()).unwrap();
        assert_eq!((p.requested_workers, p.workers, p.ring_slots), (1000, 1, 64));
        // Empty inputs still get a buffer.
        assert_eq!(p.buffer("col_idx").unwrap().length, 0);
        assert_eq!(p.buffer("col_idx").unwrap().alloc, 4);
        assert_eq!(&p.uniform[32..36], &0u32.to_le_bytes());
        let mut limits = DeviceLimits::unlimited();
        limits.max_compute_workgroups_per_dimension = 7;
        s.arena_bytes = 1 << 24;
        assert_eq!(Plan::new(&m, &s, &limits).unwrap().workers, 7);
    }

    #[test]
    fn arena_errors() {
        let m = manifest();
        let row = words(&[0, 1]);
        let mut s = RunSetup::new(m.executor.arena.min_bytes - 1);
        s.input("row_ptr", &row).input("col_idx", &[]).param("source", 0);
        let e = Plan::new(&m, &s, &DeviceLimits::unlimited()).unwrap_err();
        assert!(matches!(e, Error::ArenaTooSmall { minimum: 1764, .. }), "{e}");
        assert!(e.to_string().contains("at least 1.72 KiB (1764 bytes)"), "{e}");
        let mut limits = DeviceLimits::unlimited();
        limits.max_storage_buffer_binding_size = 1 << 27;
        s.arena_bytes = 1 << 30;
        let e = Plan::new(&m, &s, &limits).unwrap_err();
        assert_eq!(
            e.to_string(),
            "an arena of 1 GiB (1073741824 bytes) is larger than the device's largest storage buffer binding (128 MiB)"
        );
    }

    #[test]
    fn input_and_param_errors() {
        let m = manifest();
        let row = words(&[0, 1]);
        let limits = DeviceLimits::unlimited();
        let plan = |f: &dyn Fn(&mut RunSetup)| {
            let mut s = RunSetup::new(1 << 20);
            s.input("row_ptr", &row).input("col_idx", &[]).param("source", 0);
            f(&mut s);
            Plan::new(&m, &s, &limits).map(|_| ()).unwrap_err().to_string()
        };
        assert_eq!(
            plan(&|s| s.inputs.retain(|(n, _)| n != "col_idx")),
            "input `col_idx` was not given (this program's inputs: `row_ptr`, `col_idx`)"
        );
        assert_eq!(
            plan(&|s| {
                s.input("rows", &[]);
            }),
            "`rows` is not an input of this program (its inputs: `row_ptr`, `col_idx`)"
        );
        assert_eq!(
            plan(&|s| {
                s.input("row_ptr", &[]);
            }),
            "input `row_ptr` was given twice"
        );
        assert_eq!(
            plan(&|s| s.inputs[0].1 = InputData::Bytes(&[1, 2, 3, 4, 5, 6])),
            "input `row_ptr`: 6 bytes is not a whole number of 4-byte elements (`u32`)"
        );
        assert_eq!(
            plan(&|s| s.params.clear()),
            "parameter `source` has no default and was not given"
        );
        assert_eq!(
            plan(&|s| {
                s.param("sauce", 1);
            }),
            "unknown parameter `sauce` (known parameters: `source`, `k`)"
        );
        // len(row_ptr) - 1 underflows on an empty row_ptr.
        assert_eq!(
            plan(&|s| s.inputs[0].1 = InputData::Bytes(&[])),
            "cannot size `dist`: (len(row_ptr) - 1) is negative (0 - 1)"
        );
        // Entry counts and key domains are computed by the kernel in 32 bits: every step of
        // their rules must stay in range, or the run is refused rather than wrapped.
        let counted = |entry: LengthRule, keyed: LengthRule| {
            let mut m = manifest();
            m.entry.count = entry;
            m.stages[1].keyed = Some(keyed);
            let mut s = RunSetup::new(1 << 20);
            s.input("row_ptr", &row)
                .input("col_idx", &[])
                .param("source", 0)
                .param("k", 65536);
            Plan::new(&m, &s, &limits).map(|_| ()).map_err(|e| e.to_string())
        };
        let k = || Box::new(LengthRule::Param("k".into()));
        let one = || LengthRule::Const(1);
        assert_eq!(
            counted(LengthRule::Mul(k(), k()), one()),
            Err("cannot count the units of the entry `seed`: (k * k) is 4294967296, more than the 32 bits the kernel counts in hold (at most 4294967295)".into())
        );
        assert_eq!(
            counted(one(), LengthRule::Div(Box::new(LengthRule::Mul(k(), k())), k())),
            Err("cannot count the keys of stage `visit`: (k * k) is 4294967296, more than the 32 bits the kernel counts in hold (at most 4294967295)".into())
        );
        assert_eq!(
            counted(LengthRule::Div(k(), Box::new(LengthRule::Const(0))), one()),
            Err("cannot count the units of the entry `seed`: (k / 0) divides by zero (65536 / 0)".into())
        );
        assert!(counted(LengthRule::Sub(Box::new(LengthRule::Mul(k(), k())), k()), one()).is_err());
        assert_eq!(
            counted(LengthRule::Mul(k(), Box::new(LengthRule::Const(65535))), one()),
            Ok(())
        );
        assert_eq!(
            plan(&|s| {
                s.workers(0);
            }),
            "invalid run option: the number of workers must be at least 1"
        );
    }

    #[test]
    fn stream_windows_default_to_the_lanes_in_flight() {
        let mut m = manifest();
        m.bindings
            .push(binding("verts", 0, 4, Role::Stream, Access::ReadWrite, 16));
        let st = StreamInfo {
            binding: "verts".into(),
            capacity_offset: 0,
            sub_windows_word: 0,
            counts_word: 0,
            counts_stride: 2,
            max_sub_windows: 1,
            min_capacity: 65,
            fields: Vec::new(),
        };
        let unlimited = DeviceLimits::unlimited();
        let window = |requested, workers, limits: &DeviceLimits| stream_capacity(&m, &st, requested, workers, limits);
        // 1,024 workers of 64 lanes: twice 65 elements a lane.
        assert_eq!(window(None, 1024, &unlimited).unwrap(), 2 * 1024 * 64 * 65);
        // Few lanes: the least default.
        assert_eq!(window(None, 8, &unlimited).unwrap(), 1 << 20);
        // A request wins, raised to one unit's maximum.
        assert_eq!(window(Some(7), 1024, &unlimited).unwrap(), 65);
        assert_eq!(window(Some(1 << 10), 1024, &unlimited).unwrap(), 1 << 10);
        // The device's largest binding caps the default.
        let mut small = unlimited;
        small.max_storage_buffer_binding_size = 128 << 20;
        assert_eq!(window(None, 1024, &small).unwrap(), (128 << 20) / 16);
    }

    #[test]
    fn buffer_limits() {
        let m = manifest();
        let row = words(&[0; 1000]);
        let mut s = RunSetup::new(1 << 20);
        s.input("row_ptr", &row)
            .input("col_idx", &[])
            .param("source", 0)
            .param("k", 1000);
        let mut limits = DeviceLimits::unlimited();
        limits.max_storage_buffer_binding_size = 1 << 22;
        let e = Plan::new(&m, &s, &limits).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`scratch` needs 7.62 MiB (7992000 bytes), more than the device's largest storage buffer binding (4 MiB)"
        );
    }

    #[test]
    fn validates_manifests() {
        let mut m = manifest();
        assert!(m.validate().is_ok());
        m.executor.control.error = 30;
        assert!(m.validate().unwrap_err().to_string().contains("control error"));
        let mut m = manifest();
        m.executor.arena.bytes_per_slot = 0;
        assert!(m.validate().is_err());
        let mut m = manifest();
        m.bindings.retain(|b| b.role != Role::Arena);
        assert!(m.validate().unwrap_err().to_string().contains("role Arena"));
        let mut m = manifest();
        m.params[0].offset = 30;
        assert!(m.validate().is_err());
        let mut m = manifest();
        m.executor.lengths[0].binding = "dyn_arena".into();
        assert!(m.validate().unwrap_err().to_string().contains("not a user binding"));
    }
}
