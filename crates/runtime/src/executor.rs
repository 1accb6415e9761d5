//! The GPU side: pipelines from the manifest and WGSL ([`Executor`]), one run's buffers, the
//! launch chain and its completion loop ([`Run`]).

use crate::error::Error;
use crate::plan::{DeviceLimits, Plan, WORD};
use crate::setup::{InputData, RunSetup};
use crate::stats::{HostStats, Snapshot, Stats};
use dyngc_artifact::{Access, Manifest, Role};
use std::future::Future;
use std::num::NonZeroU64;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The pipelines of one artifact on one device. Create once, then [`Executor::prepare`] a
/// [`Run`] per set of inputs.
#[derive(Debug)]
pub struct Executor {
    manifest: Manifest,
    device: wgpu::Device,
    /// Bind group layouts by group number; `None` for unused group numbers.
    layouts: Vec<Option<wgpu::BindGroupLayout>>,
    init: wgpu::ComputePipeline,
    main: wgpu::ComputePipeline,
    /// The partitioned schedule's kernels, in `entry_points.dispatches` order.
    dispatches: Vec<wgpu::ComputePipeline>,
    lost: Arc<Mutex<Option<String>>>,
    /// Blocking waits on the device so far ([`Executor::blocking_waits`]).
    waits: AtomicU64,
}

/// Error scopes around a piece of work; popped in reverse order by [`Scopes::finish`].
pub(crate) struct Scopes {
    internal: wgpu::ErrorScopeGuard,
    oom: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
}

impl Scopes {
    pub(crate) fn push(device: &wgpu::Device) -> Scopes {
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        Scopes {
            internal,
            oom,
            validation,
        }
    }

    pub(crate) fn finish(self, during: &'static str) -> Result<(), Error> {
        let internal = block_on(self.internal.pop());
        let oom = block_on(self.oom.pop());
        let validation = block_on(self.validation.pop());
        // Out of memory first: a buffer that could not be allocated makes everything built on
        // it invalid, and those validation errors would hide the cause.
        if let Some(e) = oom {
            return Err(Error::OutOfMemory {
                during,
                message: describe(&e),
            });
        }
        if let Some(e) = validation.or(internal) {
            return Err(Error::Gpu {
                during,
                message: describe(&e),
            });
        }
        Ok(())
    }
}

fn describe(e: &wgpu::Error) -> String {
    match e {
        wgpu::Error::Validation { description, .. } => description.trim().to_string(),
        other => other.to_string().trim().to_string(),
    }
}

/// Drives a future that the native backends complete without help from an event loop (error
/// scopes). Not for use in a browser.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

impl Executor {
    /// Compiles `wgsl` and builds the bind group layouts (from `manifest.bindings`) and the two
    /// compute pipelines (`manifest.entry_points`). WebGPU errors come back as [`Error::Gpu`].
    ///
    /// Installs a device-lost callback on `device` (replacing any other) so that runs report a
    /// lost device instead of waiting forever.
    pub fn new(device: &wgpu::Device, manifest: &Manifest, wgsl: &str) -> Result<Executor, Error> {
        manifest.validate().map_err(Error::Manifest)?;
        let limits = device.limits();
        let groups = manifest.bindings.iter().map(|b| b.group + 1).max().unwrap_or(0);
        if groups > limits.max_bind_groups {
            return Err(Error::Unsupported(format!(
                "the program uses {groups} bind groups; this device allows {}",
                limits.max_bind_groups
            )));
        }
        let storage = manifest.bindings.iter().filter(|b| b.access != Access::Uniform).count() as u32;
        if storage > limits.max_storage_buffers_per_shader_stage {
            return Err(Error::Unsupported(format!(
                "the program binds {storage} storage buffers; this device allows {} per shader stage",
                limits.max_storage_buffers_per_shader_stage
            )));
        }

        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = flag.lock() {
                *l = Some(format!("{message} ({reason:?})"));
            }
        });

        let scopes = Scopes::push(device);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&manifest.wgsl),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let layouts: Vec<Option<wgpu::BindGroupLayout>> = (0..groups)
            .map(|g| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = manifest
                    .bindings
                    .iter()
                    .filter(|b| b.group == g)
                    .map(|b| wgpu::BindGroupLayoutEntry {
                        binding: b.binding,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: match b.access {
                                Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                                Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                                Access::Uniform => wgpu::BufferBindingType::Uniform,
                            },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                (!entries.is_empty()).then(|| {
                    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some(&format!("{} group {g}", manifest.name)),
                        entries: &entries,
                    })
                })
            })
            .collect();
        let refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(|l| l.as_ref()).collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(&manifest.name),
            bind_group_layouts: &refs,
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let init = pipeline(&manifest.entry_points.init);
        let main = pipeline(&manifest.entry_points.main);
        let dispatches = manifest
            .entry_points
            .dispatches
            .iter()
            .map(|d| pipeline(&d.entry_point))
            .collect();
        scopes.finish("creating the pipelines")?;
        if let Some(why) = lost.lock().ok().and_then(|l| l.clone()) {
            return Err(Error::DeviceLost(why));
        }
        Ok(Executor {
            manifest: manifest.clone(),
            device: device.clone(),
            layouts,
            init,
            main,
            dispatches,
            lost,
            waits: AtomicU64::new(0),
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The plan [`Executor::prepare`] would use, within this device's limits.
    pub fn plan(&self, setup: &RunSetup<'_>) -> Result<Plan, Error> {
        Plan::new(&self.manifest, setup, &DeviceLimits::from(&self.device.limits()))
    }

    /// Allocates and fills one run's buffers: inputs uploaded (or bound as given), outputs and
    /// buffers sized by their length rules and filled, the parameter uniform written, the control
    /// block, arena and marks sized. Nothing runs yet: see [`Run::execute`], or record it yourself
    /// with [`Run::record_start`] and [`Run::record_continue`].
    pub fn prepare(&self, queue: &wgpu::Queue, setup: &RunSetup<'_>) -> Result<Run<'_>, Error> {
        let plan = self.plan(setup)?;
        let device = &self.device;
        let scopes = Scopes::push(device);
        let mut buffers = Vec::with_capacity(plan.buffers.len());
        let mut bind_sizes = Vec::with_capacity(plan.buffers.len());
        for (b, p) in self.manifest.bindings.iter().zip(&plan.buffers) {
            let given = setup.inputs.iter().find(|(n, _)| n == &b.name).map(|(_, d)| *d);
            if let Some(InputData::Buffer { buffer, bytes }) = given {
                let need = bytes.max(b.element.size as u64);
                if buffer.size() < need || !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
                    return Err(Error::Option(format!(
                        "the buffer given for input `{}` must have STORAGE usage and hold at least {need} bytes (it has {} bytes, usage {:?})",
                        b.name,
                        buffer.size(),
                        buffer.usage()
                    )));
                }
                buffers.push(buffer.clone());
                bind_sizes.push(need);
                continue;
            }
            let usage = match b.role {
                Role::Params => wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                Role::Control => {
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
                }
                _ => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            };
            // A scope of its own, so that a failed allocation names its binding.
            let own = Scopes::push(device);
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&b.name),
                size: p.alloc,
                usage,
                mapped_at_creation: false,
            });
            own.finish("allocating the run's buffers").map_err(|e| match e {
                Error::OutOfMemory { during, message } => Error::OutOfMemory {
                    during,
                    message: format!(
                        "binding `{}` needs {} ({message}); the device accepted the size but could not allocate it",
                        b.name,
                        crate::size::format_bytes(p.alloc)
                    ),
                },
                other => other,
            })?;
            match (b.role, given) {
                (Role::Input, Some(InputData::Bytes(bytes))) if !bytes.is_empty() => {
                    queue.write_buffer(&buffer, 0, bytes);
                }
                (Role::Params, _) => queue.write_buffer(&buffer, 0, &plan.uniform),
                _ => {}
            }
            buffers.push(buffer);
            bind_sizes.push(p.alloc);
        }
        let indirect = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dyngc indirect args"),
            // `main`'s arguments, then each dispatch's.
            size: 3 * WORD * (1 + self.dispatches.len() as u64),
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let control_bytes = self.manifest.executor.control.words as u64 * WORD;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dyngc control readback"),
            size: control_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_groups = self
            .layouts
            .iter()
            .enumerate()
            .map(|(g, layout)| {
                layout.as_ref().map(|layout| {
                    let entries: Vec<wgpu::BindGroupEntry> = self
                        .manifest
                        .bindings
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| b.group == g as u32)
                        .map(|(i, b)| wgpu::BindGroupEntry {
                            binding: b.binding,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &buffers[i],
                                offset: 0,
                                size: NonZeroU64::new(bind_sizes[i]),
                            }),
                        })
                        .collect();
                    device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(&format!("{} group {g}", self.manifest.name)),
                        layout,
                        entries: &entries,
                    })
                })
            })
            .collect();
        let role = |r: Role| self.manifest.bindings.iter().position(|b| b.role == r);
        let run = Run {
            exec: self,
            queue: queue.clone(),
            control: role(Role::Control).expect("validated"),
            arena: role(Role::Arena).expect("validated"),
            marks: role(Role::Marks),
            plan,
            buffers,
            bind_groups,
            indirect,
            staging,
            submissions: 0,
            launches: 0,
            elapsed: Duration::ZERO,
            streams: self
                .manifest
                .executor
                .streams
                .iter()
                .map(|st| {
                    let i = self.manifest.bindings.iter().position(|b| b.name == st.binding);
                    (i.expect("validated"), Vec::new())
                })
                .collect(),
            stream_sink: SinkSlot(None),
            stream_drains: 0,
            stream_bytes: 0,
            stream_copy: Duration::ZERO,
            stream_deliver: Duration::ZERO,
            drain_staging: None,
            chain: 1,
        };
        run.write_fills();
        scopes.finish("allocating the run's buffers")?;
        self.check_lost()?;
        Ok(run)
    }

    /// How many times runs of this executor blocked on the device (`device.poll(Wait)`, in
    /// [`Run::execute`], [`Run::read_outputs`], [`Run::snapshot`] and the like). A
    /// [`crate::Stream`] never does, so a frame loop can check that it stays unchanged.
    pub fn blocking_waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }

    pub(crate) fn check_lost(&self) -> Result<(), Error> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(why) => Err(Error::DeviceLost(why)),
            None => Ok(()),
        }
    }
}

/// Limits of [`Run::execute`]'s completion loop.
#[derive(Clone, Debug)]
pub struct WaitOptions {
    /// Wall-clock limit for the whole run (default 10 minutes).
    pub timeout: Duration,
    /// Most submissions before giving up (default: no limit but the timeout).
    pub max_submissions: u64,
}

impl Default for WaitOptions {
    fn default() -> Self {
        WaitOptions {
            timeout: Duration::from_secs(600),
            max_submissions: u64::MAX,
        }
    }
}

/// Passed to the progress callback after every submission that did not finish the run.
#[derive(Debug)]
pub struct Progress<'a> {
    pub submissions: u64,
    /// Launches recorded so far.
    pub launches: u64,
    pub elapsed: Duration,
    /// Kernel statistics so far (a `launches` statistic, if the kernel keeps one, counts the
    /// launches that actually ran).
    pub stats: &'a Stats,
}

/// One run's buffers and bind groups, ready to record.
#[derive(Debug)]
pub struct Run<'e> {
    exec: &'e Executor,
    queue: wgpu::Queue,
    plan: Plan,
    /// One per manifest binding, in manifest order.
    buffers: Vec<wgpu::Buffer>,
    bind_groups: Vec<Option<wgpu::BindGroup>>,
    control: usize,
    arena: usize,
    marks: Option<usize>,
    indirect: wgpu::Buffer,
    staging: wgpu::Buffer,
    submissions: u64,
    launches: u64,
    elapsed: Duration,
    /// Per stream (manifest order): its binding's index and the elements drained so far (when
    /// no sink takes them).
    streams: Vec<(usize, Vec<u8>)>,
    stream_sink: SinkSlot<'e>,
    stream_drains: u64,
    /// Bytes of stream elements drained so far.
    stream_bytes: u64,
    /// Host time in blocking drains ([`Run::drain`]) from recording the copy until the staging
    /// buffer is mapped, and in handing elements out ([`Run::deliver`]): where a stream run's
    /// wall time goes when it is not the kernel's.
    stream_copy: Duration,
    stream_deliver: Duration,
    /// The staging buffer of the drains, kept for the next while it is large enough: one made
    /// per drain was a host allocation of up to every window's bytes each time.
    drain_staging: Option<wgpu::Buffer>,
    /// Launches the next submission records: 1 for the first and after a submission that filled
    /// a stream window, doubling after each that did not, up to the plan's chain length. A
    /// launch recorded after the kernel finished is empty but not free (a copy, a barrier and a
    /// dispatch: about 0.7 ms for a chain of 16 on the H200), and most runs finish in their first
    /// launch; after a full window the rest of a chain would only leave at once.
    chain: u32,
}

/// A recorded drain ([`Run::record_drain`]): the staging buffer, the bytes of it the drain
/// fills (from its start) and, per stream binding, where its elements lie in them (binding
/// index, byte offset, bytes).
#[derive(Debug)]
pub(crate) struct DrainCopy {
    pub(crate) staging: wgpu::Buffer,
    pub(crate) filled: u64,
    chunks: Vec<(usize, u64, u64)>,
}

/// The first `bytes` of a buffer mapped for reading, or the readback error naming `what`.
pub(crate) fn mapped(staging: &wgpu::Buffer, bytes: u64, what: &str) -> Result<wgpu::BufferView, Error> {
    staging.get_mapped_range(..bytes).map_err(|e| Error::Readback {
        buffer: what.to_string(),
        message: format!("{e:?}"),
    })
}

/// The run's stream sink, if any (a closure: shown only as present or not).
struct SinkSlot<'e>(Option<StreamSink<'e>>);

impl std::fmt::Debug for SinkSlot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Some(sink)" } else { "None" })
    }
}

/// Receives each drained chunk of a stream: the binding's name and whole elements, laid out as
/// in the storage buffer (`element.size` bytes each).
pub type StreamSink<'e> = Box<dyn FnMut(&str, &[u8]) + 'e>;

impl<'e> Run<'e> {
    /// Sends every drained chunk of every stream output to `sink` as it arrives, instead of
    /// collecting it for [`Run::read_outputs`] (which then returns those streams empty).
    pub fn on_stream(&mut self, sink: StreamSink<'e>) {
        self.stream_sink = SinkSlot(Some(sink));
    }
}

impl Run<'_> {
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The buffer bound to the named binding.
    pub fn buffer(&self, name: &str) -> Option<&wgpu::Buffer> {
        let i = self.exec.manifest.bindings.iter().position(|b| b.name == name)?;
        Some(&self.buffers[i])
    }

    /// Element count of the named binding (the real count, also for empty inputs whose buffer
    /// holds one element).
    pub fn len(&self, name: &str) -> Option<u64> {
        self.plan.buffer(name).map(|b| b.length)
    }

    /// Writes every output's and buffer's initial contents again (`fill`, or zero), so the run
    /// can be started over with [`Run::record_start`].
    pub fn reset_outputs(&mut self) -> Result<(), Error> {
        for (_, collected) in &mut self.streams {
            collected.clear();
        }
        let scopes = Scopes::push(&self.exec.device);
        let mut encoder = self.exec.device.create_command_encoder(&Default::default());
        for (i, b) in self.exec.manifest.bindings.iter().enumerate() {
            if matches!(b.role, Role::Output | Role::Buffer) && b.fill.unwrap_or(0) == 0 {
                encoder.clear_buffer(&self.buffers[i], 0, None);
            }
        }
        self.queue.submit([encoder.finish()]);
        self.write_fills();
        scopes.finish("resetting outputs")?;
        self.exec.check_lost()
    }

    fn write_fills(&self) {
        const CHUNK: u64 = 1 << 22;
        for ((b, p), buffer) in self
            .exec
            .manifest
            .bindings
            .iter()
            .zip(&self.plan.buffers)
            .zip(&self.buffers)
        {
            let fill = b.fill.unwrap_or(0);
            if !matches!(b.role, Role::Output | Role::Buffer) || fill == 0 {
                continue;
            }
            let pattern: Vec<u8> = fill.to_le_bytes().repeat((p.alloc.min(CHUNK) / WORD) as usize);
            let mut offset = 0;
            while offset < p.alloc {
                let n = (p.alloc - offset).min(CHUNK);
                self.queue.write_buffer(buffer, offset, &pattern[..n as usize]);
                offset += n;
            }
        }
    }

    fn set_bind_groups(&self, pass: &mut wgpu::ComputePass<'_>) {
        for (g, bg) in self.bind_groups.iter().enumerate() {
            if let Some(bg) = bg {
                pass.set_bind_group(g as u32, bg, &[]);
            }
        }
    }

    /// Records the start of the run: clears the control block, the marks and the words of the
    /// arena that must start at zero ([`Manifest::arena_zeroed`]: not its frames, whose clearing
    /// cost time in proportion to the arena), dispatches `init` with one workgroup, then one
    /// launch chain of one launch (see [`Run::record_continue`]).
    pub fn record_start(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.chain = 1;
        encoder.clear_buffer(&self.buffers[self.control], 0, None);
        let plan = &self.plan;
        for range in self
            .exec
            .manifest
            .arena_zeroed(plan.workers, plan.stack_frames, plan.ring_slots)
        {
            encoder.clear_buffer(&self.buffers[self.arena], range.start, Some(range.end - range.start));
        }
        if let Some(m) = self.marks {
            encoder.clear_buffer(&self.buffers[m], 0, None);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("dyngc init"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.exec.init);
            self.set_bind_groups(&mut pass);
            pass.dispatch_workgroups(1, 1, 1);
        }
        self.record_continue(encoder);
    }

    /// Records [`Run::chain_length`] launches of `main`, each followed by the partitioned schedule's
    /// dispatches in order (`entry_points.dispatches`); each kernel is preceded by a copy of its
    /// three indirect argument words from the control block into the indirect buffer.
    pub fn record_continue(&self, encoder: &mut wgpu::CommandEncoder) {
        let manifest = &self.exec.manifest;
        let kernels: Vec<(&wgpu::ComputePipeline, u32)> =
            std::iter::once((&self.exec.main, manifest.executor.control.indirect_args))
                .chain(
                    self.exec
                        .dispatches
                        .iter()
                        .zip(&manifest.entry_points.dispatches)
                        .map(|(p, d)| (p, d.indirect_args)),
                )
                .collect();
        for _ in 0..self.chain {
            for (i, (pipeline, args)) in kernels.iter().enumerate() {
                let at = 3 * WORD * i as u64;
                encoder.copy_buffer_to_buffer(
                    &self.buffers[self.control],
                    *args as u64 * WORD,
                    &self.indirect,
                    at,
                    3 * WORD,
                );
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("dyngc kernel"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(pipeline);
                self.set_bind_groups(&mut pass);
                pass.dispatch_workgroups_indirect(&self.indirect, at);
            }
        }
    }

    /// Runs to completion: submits the start, then further launch chains while the done flag is
    /// clear, reading the control block back after every submission. Returns the statistics, or
    /// the kernel's error, a timeout (`opts`), a lost device or a WebGPU error.
    pub fn execute(&mut self, opts: &WaitOptions, progress: &mut dyn FnMut(&Progress<'_>)) -> Result<Stats, Error> {
        let start = Instant::now();
        let deadline = start + opts.timeout;
        let mut first = true;
        loop {
            let snapshot = self.submit_and_read(first, start, opts.timeout)?;
            first = false;
            self.elapsed = start.elapsed();
            if let Some(e) = snapshot.error {
                return Err(Error::Kernel(e));
            }
            self.drain(&snapshot)?;
            let mut stats = snapshot.stats;
            stats.host = self.host_stats();
            if snapshot.done {
                return Ok(stats);
            }
            progress(&Progress {
                submissions: self.submissions,
                launches: self.launches,
                elapsed: self.elapsed,
                stats: &stats,
            });
            if Instant::now() >= deadline {
                return Err(self.timeout(Some(opts.timeout)));
            }
            if self.submissions >= opts.max_submissions {
                return Err(self.timeout(None));
            }
        }
    }

    fn timeout(&self, limit: Option<Duration>) -> Error {
        Error::Timeout {
            elapsed: self.elapsed,
            limit,
            submissions: self.submissions,
            launches: self.launches,
        }
    }

    /// The stream step of the launch protocol, after each control-block readback (`snapshot`)
    /// of a run driven by hand with [`Run::record_start`] / [`Run::record_continue`]
    /// ([`Run::execute`] calls it itself): when a window filled or the run is done, drains the
    /// streams (one copy, one blocking map); then sets the next chain's length (one launch after
    /// a full window). Nothing to do for a program without streams.
    pub fn drain(&mut self, snapshot: &Snapshot) -> Result<(), Error> {
        let started = Instant::now();
        let Some((commands, copy)) = self.record_drain(snapshot)? else {
            return Ok(());
        };
        let scopes = Scopes::push(&self.exec.device);
        let index = self.queue.submit([commands]);
        scopes.finish("draining streams")?;
        let timeout = Duration::from_secs(600);
        let what = "the stream windows";
        self.wait_mapped(
            &copy.staging,
            copy.filled,
            index,
            Instant::now() + timeout,
            timeout,
            what,
        )?;
        self.stream_copy += started.elapsed();
        // Straight from the mapped range to the sink or the collection: no copy in between.
        self.deliver(&copy, &mapped(&copy.staging, copy.filled, what)?);
        copy.staging.unmap();
        Ok(())
    }

    /// Times the stream windows were drained so far.
    pub fn stream_drains(&self) -> u64 {
        self.stream_drains
    }

    /// Launches the next [`Run::record_continue`] records.
    pub fn chain_length(&self) -> u32 {
        self.chain
    }

    /// The first half of the stream step, for hosts that must not block (the asynchronous
    /// `Stream`): when `snapshot` says a window filled or the run is done with elements left,
    /// checks every sub-window (nothing is in flight between launches, so each one's reserved
    /// count equals its written count), records copies of their elements into one staging
    /// buffer, zeroes the counts and the full flag (queued writes, ahead of the next submission)
    /// and returns the commands to submit and the copy, which [`Run::deliver`] hands out once
    /// the staging buffer is mapped. Sets the next chain's length either way; records nothing
    /// when there is nothing to drain.
    pub(crate) fn record_drain(
        &mut self,
        snapshot: &Snapshot,
    ) -> Result<Option<(wgpu::CommandBuffer, DrainCopy)>, Error> {
        let wanted = snapshot.stream_full || (snapshot.done && snapshot.streams.iter().flatten().any(|&(_, w)| w > 0));
        self.chain = if snapshot.stream_full {
            1
        } else {
            (self.chain * 2).min(self.plan.chain_length)
        };
        if !wanted {
            return Ok(None);
        }
        let manifest = &self.exec.manifest;
        let bug = |name: &str, what: String| Error::Gpu {
            during: "draining a stream",
            message: format!("stream `{name}` {what} (an executor bug: please report it)"),
        };
        // Per stream: (binding, byte ranges of its buffer); then all of them into one buffer.
        let mut ranges = Vec::new();
        for (j, subs) in snapshot.streams.iter().enumerate() {
            let (i, _) = self.streams[j];
            let name = &manifest.bindings[i].name;
            let capacity = self.plan.buffers[i].length;
            let size = manifest.bindings[i].element.size as u64;
            let n = subs.len() as u64;
            if !(n.is_power_of_two() && n <= capacity) {
                return Err(bug(name, format!("reports {n} sub-windows in a window of {capacity}")));
            }
            let mut own = Vec::new();
            for (s, &(reserved, written)) in subs.iter().enumerate() {
                if reserved != written {
                    return Err(bug(
                        name,
                        format!(
                            "has {reserved} elements reserved and {written} written in sub-window {s} between launches"
                        ),
                    ));
                }
                if written as u64 > capacity / n {
                    return Err(bug(
                        name,
                        format!("reports {written} elements in sub-window {s} of {}", capacity / n),
                    ));
                }
                if written > 0 {
                    own.push((s as u64 * (capacity / n) * size, written as u64 * size));
                }
            }
            ranges.push((i, own));
        }
        let total: u64 = ranges.iter().flat_map(|(_, r)| r).map(|&(_, len)| len).sum();
        let device = &self.exec.device;
        // Reused while it holds the drain; made anew, the size of this drain, when it does not
        // (a run's first full window sets it, a small final drain never needs a big one).
        let staging = match &self.drain_staging {
            Some(b) if b.size() >= total.max(WORD) => b.clone(),
            _ => {
                let scopes = Scopes::push(device);
                let b = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("dyngc stream drain"),
                    size: total.max(WORD),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                scopes.finish("allocating a stream drain")?;
                self.drain_staging = Some(b.clone());
                b
            }
        };
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("dyngc stream drain"),
        });
        let mut at = 0;
        let mut chunks = Vec::new();
        for (i, own) in &ranges {
            let start = at;
            for &(offset, len) in own {
                encoder.copy_buffer_to_buffer(&self.buffers[*i], offset, &staging, at, len);
                at += len;
            }
            chunks.push((*i, start, at - start));
        }
        let control = &self.buffers[self.control];
        for (st, subs) in manifest.executor.streams.iter().zip(&snapshot.streams) {
            if let Some(last) = subs.len().checked_sub(1) {
                let words = last as u64 * st.counts_stride as u64 + 2;
                self.queue
                    .write_buffer(control, st.counts_word as u64 * WORD, &vec![0; (words * WORD) as usize]);
            }
        }
        if let Some(w) = manifest.executor.stream_full {
            self.queue.write_buffer(control, w as u64 * WORD, &0u32.to_le_bytes());
        }
        self.stream_drains += 1;
        self.stream_bytes += total;
        Ok(Some((
            encoder.finish(),
            DrainCopy {
                staging,
                filled: total.max(WORD),
                chunks,
            },
        )))
    }

    /// The second half of the stream step: hands each stream's elements in `data` (the mapped
    /// staging buffer of `copy`) to the sink or the collection.
    pub(crate) fn deliver(&mut self, copy: &DrainCopy, data: &[u8]) {
        let started = Instant::now();
        for &(i, at, len) in &copy.chunks {
            if len == 0 {
                continue;
            }
            let bytes = &data[at as usize..(at + len) as usize];
            match &mut self.stream_sink.0 {
                Some(sink) => sink(&self.exec.manifest.bindings[i].name, bytes),
                None => {
                    if let Some((_, collected)) = self.streams.iter_mut().find(|(s, _)| *s == i) {
                        collected.extend_from_slice(bytes);
                    }
                }
            }
        }
        self.stream_deliver += started.elapsed();
    }

    /// The elements of stream binding `i` collected so far (none when a sink took them).
    pub(crate) fn collected_stream(&self, i: usize) -> Vec<u8> {
        self.streams
            .iter()
            .find(|(s, _)| *s == i)
            .map(|(_, d)| d.clone())
            .unwrap_or_default()
    }

    fn host_stats(&self) -> HostStats {
        self.host_stats_as_counted(self.submissions, self.launches, self.elapsed)
    }

    /// This run's host statistics with the submissions, launches and time of whoever drove it
    /// (the asynchronous [`crate::Stream`], or a caller's own loop of [`Run::record_continue`]).
    pub fn host_stats_as_counted(&self, submissions: u64, launches: u64, elapsed: Duration) -> HostStats {
        HostStats {
            submissions,
            launches,
            workers: self.plan.workers,
            ring_slots: self.plan.ring_slots,
            stack_frames: self.plan.stack_frames,
            arena_bytes: self.plan.arena_bytes,
            fuel: self.plan.fuel,
            chain_length: self.plan.chain_length,
            elapsed_ms: elapsed.as_millis() as u64,
            stream_drains: self.stream_drains,
            stream_bytes: self.stream_bytes,
            stream_copy_us: self.stream_copy.as_micros() as u64,
            stream_deliver_us: self.stream_deliver.as_micros() as u64,
        }
    }

    fn submit_and_read(&mut self, first: bool, start: Instant, limit: Duration) -> Result<Snapshot, Error> {
        let device = &self.exec.device;
        let scopes = Scopes::push(device);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("dyngc launch chain"),
        });
        if first {
            self.record_start(&mut encoder);
        } else {
            self.record_continue(&mut encoder);
        }
        encoder.copy_buffer_to_buffer(&self.buffers[self.control], 0, &self.staging, 0, self.staging.size());
        let index = self.queue.submit([encoder.finish()]);
        self.submissions += 1;
        self.launches += self.chain as u64;
        scopes.finish("submitting the launch chain")?;
        let words = self
            .read_mapped(&self.staging.clone(), index, start + limit, limit, "the control block")
            .map_err(|e| {
                if let Error::Timeout { .. } = e {
                    self.elapsed = start.elapsed();
                    self.timeout(Some(limit))
                } else {
                    e
                }
            })?;
        let words: Vec<u32> = words
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Snapshot::decode(&self.exec.manifest, &words))
    }

    /// Maps `staging` for reading once `index` has completed and copies its bytes out.
    fn read_mapped(
        &self,
        staging: &wgpu::Buffer,
        index: wgpu::SubmissionIndex,
        deadline: Instant,
        limit: Duration,
        what: &str,
    ) -> Result<Vec<u8>, Error> {
        self.wait_mapped(staging, staging.size(), index, deadline, limit, what)?;
        let bytes = mapped(staging, staging.size(), what)?.to_vec();
        staging.unmap();
        Ok(bytes)
    }

    /// Maps the first `bytes` of `staging` for reading and waits until `index` has completed
    /// and the map with it.
    fn wait_mapped(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        index: wgpu::SubmissionIndex,
        deadline: Instant,
        limit: Duration,
        what: &str,
    ) -> Result<(), Error> {
        let device = &self.exec.device;
        let slot: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>> = Arc::new(Mutex::new(None));
        let done = slot.clone();
        let scopes = Scopes::push(device);
        staging.map_async(wgpu::MapMode::Read, ..bytes, move |r| {
            if let Ok(mut d) = done.lock() {
                *d = Some(r);
            }
        });
        scopes.finish("reading back results")?;
        let mut index = Some(index);
        loop {
            let timeout = deadline.saturating_duration_since(Instant::now());
            self.exec.waits.fetch_add(1, Ordering::Relaxed);
            match device.poll(wgpu::PollType::Wait {
                submission_index: index.take(),
                timeout: Some(timeout),
            }) {
                Ok(_) => {}
                Err(wgpu::PollError::Timeout) => {
                    self.exec.check_lost()?;
                    return Err(self.timeout(Some(limit)));
                }
                Err(e) => {
                    return Err(Error::Gpu {
                        during: "waiting for the device",
                        message: e.to_string(),
                    })
                }
            }
            self.exec.check_lost()?;
            let result = slot.lock().ok().and_then(|mut s| s.take());
            match result {
                Some(Ok(())) => break,
                Some(Err(e)) => {
                    return Err(Error::Readback {
                        buffer: what.to_string(),
                        message: e.to_string(),
                    })
                }
                None if Instant::now() >= deadline => return Err(self.timeout(Some(limit))),
                None => std::thread::yield_now(),
            }
        }
        Ok(())
    }

    /// Reads the whole buffer of binding `index` (exactly `bytes` long) back to the host.
    fn read_binding(&self, i: usize, bytes: u64, timeout: Duration) -> Result<Vec<u8>, Error> {
        let name = &self.exec.manifest.bindings[i].name;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        let device = &self.exec.device;
        let scopes = Scopes::push(device);
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dyngc readback"),
            size: bytes.div_ceil(WORD) * WORD,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.buffers[i], 0, &staging, 0, staging.size());
        let index = self.queue.submit([encoder.finish()]);
        scopes.finish("reading back results")?;
        let mut data = self.read_mapped(&staging, index, Instant::now() + timeout, timeout, name)?;
        data.truncate(bytes as usize);
        Ok(data)
    }

    /// Every output binding's contents, exactly `length * element.size` bytes each, in manifest
    /// order; a stream's are the elements drained so far (all of them after a completed run, in
    /// no particular order, unless [`Run::on_stream`] took them).
    pub fn read_outputs(&self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        let mut out = Vec::new();
        for (i, (b, p)) in self.exec.manifest.bindings.iter().zip(&self.plan.buffers).enumerate() {
            match b.role {
                Role::Output => out.push((b.name.clone(), self.read_binding(i, p.bytes, Duration::from_secs(600))?)),
                Role::Stream => out.push((b.name.clone(), self.collected_stream(i))),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The named binding's contents (any role), exactly its data length.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, Error> {
        let i = self
            .exec
            .manifest
            .bindings
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| Error::Option(format!("no binding called `{name}`")))?;
        self.read_binding(i, self.plan.buffers[i].bytes, Duration::from_secs(600))
    }

    /// Reads the control block now and decodes it (statistics so far, done flag, error).
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        let bytes = self.read_binding(
            self.control,
            self.plan.buffers[self.control].bytes,
            Duration::from_secs(600),
        )?;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut s = Snapshot::decode(&self.exec.manifest, &words);
        s.stats.host = self.host_stats();
        Ok(s)
    }

    /// The statistics as of now.
    pub fn stats(&self) -> Result<Stats, Error> {
        Ok(self.snapshot()?.stats)
    }
}
