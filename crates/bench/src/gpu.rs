//! Opening a device on a chosen backend, and the small helpers every GPU method shares: buffers
//! counted against a peak-memory meter, pipelines from WGSL, blocking readback, and the clocks
//! (wall, and GPU timestamps around every submission where the device has them).

use std::cell::{Cell, RefCell};
use std::time::Instant;

pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// None: the device has no timestamps inside encoders (or they were turned off).
    clock: Option<RefCell<Clock>>,
    /// Run before every measurement ([`Gpu::warm_before_each`]); None: no warm-up.
    warm: Option<Warm>,
}

/// A busy loop kept on the GPU before each measurement, for at least `ms` milliseconds and then
/// until the clock is back. The H200's and H100's drivers lower the SM clock to 345-780 MHz
/// while the host checks a result (nvidia-smi, sessions 12 and 28: clock event reason "idle"),
/// and a measured run of a few milliseconds that starts there finishes before the clock is back
/// at 1,980 MHz: 3-6x slower, in stretches. A fixed 100 ms was not enough after ~300 ms of host
/// work (session 28: tessellate 1e6 6.9 ms after a 100 ms warm-up, 1.6 ms after 1,000 ms;
/// compact 1e8's expand 8.07 against 2.13), so the warm-up times its own dispatches and stops
/// only when the last [`WARM_STEADY`] include one within [`WARM_TOLERANCE`] of the fastest this
/// process has seen, which [`Gpu::warm_before_each`] first measures for [`WARM_FIRST_MS`].
struct Warm {
    ms: u64,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    /// Warm-up dispatches so far (reported with the results: the warm-up did run).
    dispatches: Cell<u64>,
    /// The fastest warm-up dispatch so far, submission to completion, in seconds.
    fastest: Cell<f64>,
    /// Warm-ups that gave up at [`WARM_CAP_MS`] with the clock still low.
    capped: Cell<u64>,
}

/// Warm-up dispatches whose fastest must be near the process's fastest.
const WARM_STEADY: usize = 3;
/// How much slower than the fastest warm-up dispatch a dispatch at full clock may be (the host's
/// round trip varies; an SM clock one step down, 1,635 against 1,980 MHz, is ~20% slower).
const WARM_TOLERANCE: f64 = 1.1;
/// The warm-up that learns the fastest dispatch, once, when the warm-up is turned on.
const WARM_FIRST_MS: u64 = 1000;
/// Most milliseconds one warm-up runs: past it the measurement starts anyway (and is counted).
pub const WARM_CAP_MS: u64 = 5000;

/// What the warm-up does after a dispatch.
#[derive(Debug, PartialEq)]
enum WarmStep {
    Go,
    /// At least the least time, and the clock is back.
    Done,
    /// [`WARM_CAP_MS`] passed with the clock still low.
    Capped,
}

/// The warm-up's rule, from the last dispatches' times (seconds), the fastest this process has
/// seen, the milliseconds since the warm-up began and the least it must run.
fn warm_step(recent: &[f64], fastest: f64, elapsed_ms: u128, least_ms: u64) -> WarmStep {
    let back = recent.iter().copied().fold(f64::INFINITY, f64::min) <= fastest * WARM_TOLERANCE;
    if elapsed_ms >= u128::from(least_ms) && back {
        WarmStep::Done
    } else if elapsed_ms >= u128::from(WARM_CAP_MS) {
        WarmStep::Capped
    } else {
        WarmStep::Go
    }
}

/// The warm-up kernel: a chain of dependent multiply-adds per invocation, whose result is
/// stored only when it is 0, so that the compiler keeps the loop and nothing else is written.
const WARM_WGSL: &str = "@group(0) @binding(0) var<storage, read_write> sink: array<u32>;

@compute @workgroup_size(256)
fn warm(@builtin(global_invocation_id) id: vec3<u32>) {
    var x = id.x;
    for (var i = 0u; i < 4096u; i++) {
        x = x * 1664525u + 1013904223u;
    }
    if (x == 0u) {
        sink[0] = id.x;
    }
}
";

/// Timestamps per query set (wgpu's maximum).
const QUERIES: u32 = 4096;

/// GPU timestamps written at the start and the end of every command encoder made by
/// [`Gpu::encoder`] while running; [`Gpu::stop`] sums end − start over the submissions.
#[derive(Default)]
struct Clock {
    running: bool,
    /// Query sets and their resolve buffers, made as needed and kept for later samples.
    sets: Vec<(wgpu::QuerySet, wgpu::Buffer)>,
    used: u32,
    /// (start, end) query indices of each submission.
    pairs: Vec<(u32, u32)>,
}

/// A command encoder that remembers its starting timestamp; submit it with [`Gpu::submit`].
pub struct Enc {
    enc: wgpu::CommandEncoder,
    start: Option<u32>,
}

impl std::ops::Deref for Enc {
    type Target = wgpu::CommandEncoder;
    fn deref(&self) -> &wgpu::CommandEncoder {
        &self.enc
    }
}

impl std::ops::DerefMut for Enc {
    fn deref_mut(&mut self) -> &mut wgpu::CommandEncoder {
        &mut self.enc
    }
}

/// What [`Gpu::stop`] measured.
#[derive(Default)]
pub struct Times {
    pub wall: f64,
    /// Sum over the submissions of their GPU time (timestamps); None without timestamps.
    pub gpu: Option<f64>,
    /// Each submission's GPU time, in order (empty where `gpu` is None): where a run of several
    /// submissions (drains, relaunches) spends it.
    pub per_submission: Vec<f64>,
}

/// Features that let [`Gpu::encoder`] write timestamps.
const TIMESTAMPS: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Opens the first adapter of `backend` ("vulkan", "gl", "metal", "dx12", or "" for
/// `WGPU_BACKEND` / all), with GPU timestamps if the adapter has them and `timestamps` is set.
pub fn open(backend: &str, timestamps: bool) -> Result<Gpu, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = if backend.is_empty() {
        wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
    } else {
        wgpu::Backends::from_comma_list(backend)
    };
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        ..Default::default()
    }))
    .map_err(|e| format!("no adapter for backends {:?}: {e}", desc_backends(backend)))?;
    let info = adapter.get_info();
    let timed = timestamps && adapter.features().contains(TIMESTAMPS);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("dyngc-bench"),
        required_features: if timed { TIMESTAMPS } else { wgpu::Features::empty() },
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| format!("request_device on `{}` ({:?}): {e}", info.name, info.backend))?;
    let limits = device.limits();
    Ok(Gpu {
        device,
        queue,
        info,
        limits,
        clock: timed.then(RefCell::default),
        warm: None,
    })
}

fn desc_backends(backend: &str) -> String {
    if backend.is_empty() {
        std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "all".into())
    } else {
        backend.into()
    }
}

/// Counts the device memory a schedule holds: every buffer it creates through [`Mem::buffer`]
/// adds its size until [`Mem::free`].
#[derive(Default)]
pub struct Mem {
    cur: Cell<u64>,
    peak: Cell<u64>,
}

impl Mem {
    pub fn add(&self, bytes: u64) {
        self.cur.set(self.cur.get() + bytes);
        self.peak.set(self.peak.get().max(self.cur.get()));
    }
    pub fn peak(&self) -> u64 {
        self.peak.get()
    }
    pub fn free(&self, b: wgpu::Buffer) {
        self.cur.set(self.cur.get().saturating_sub(b.size()));
        b.destroy();
    }
}

/// INDIRECT: the retry baseline's kernels write their successors' dispatch arguments.
pub const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::INDIRECT);

impl Gpu {
    pub fn has_timestamps(&self) -> bool {
        self.clock.is_some()
    }

    /// From now on, [`Gpu::start`] keeps the GPU busy for `ms` milliseconds (0: not at all)
    /// before it starts the clocks ([`Warm`]).
    pub fn warm_before_each(&mut self, ms: u64) -> Result<(), String> {
        if ms == 0 {
            self.warm = None;
            return Ok(());
        }
        let pipeline = self.pipelines(WARM_WGSL, &["warm"])?.remove(0);
        let sink = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("warm-up sink"),
            size: 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("warm-up"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: sink.as_entire_binding(),
            }],
        });
        let warm = Warm {
            ms,
            pipeline,
            bind_group,
            dispatches: Cell::new(0),
            fastest: Cell::new(f64::INFINITY),
            capped: Cell::new(0),
        };
        self.idle();
        self.warm_up(&warm, WARM_FIRST_MS.max(ms));
        warm.dispatches.set(0);
        warm.capped.set(0);
        self.warm = Some(warm);
        Ok(())
    }

    /// Warm-up dispatches [`Gpu::start`] has run so far (0 without a warm-up).
    pub fn warm_dispatches(&self) -> u64 {
        self.warm.as_ref().map_or(0, |w| w.dispatches.get())
    }

    /// Warm-ups [`Gpu::start`] ended at [`WARM_CAP_MS`] without the clock back (0 without one).
    pub fn warm_capped(&self) -> u64 {
        self.warm.as_ref().map_or(0, |w| w.capped.get())
    }

    /// Keeps the GPU busy for at least `least` ms, then until one of the last [`WARM_STEADY`]
    /// dispatches ran within [`WARM_TOLERANCE`] of the fastest so far, at most [`WARM_CAP_MS`].
    fn warm_up(&self, w: &Warm, least: u64) {
        let began = Instant::now();
        let mut recent = [f64::INFINITY; WARM_STEADY];
        for n in 0.. {
            let sent = Instant::now();
            let mut enc = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&w.pipeline);
                pass.set_bind_group(0, &w.bind_group, &[]);
                pass.dispatch_workgroups(1024, 1, 1);
            }
            self.queue.submit([enc.finish()]);
            self.idle();
            let took = sent.elapsed().as_secs_f64();
            w.dispatches.set(w.dispatches.get() + 1);
            w.fastest.set(w.fastest.get().min(took));
            recent[n % WARM_STEADY] = took;
            match warm_step(&recent, w.fastest.get(), began.elapsed().as_millis(), least) {
                WarmStep::Go => {}
                WarmStep::Done => return,
                WarmStep::Capped => {
                    w.capped.set(w.capped.get() + 1);
                    return;
                }
            }
        }
    }

    /// Starts a measurement: waits for the queue to be idle (uploads done), keeps the GPU busy
    /// for the warm-up if one is set (untimed), then starts the wall clock and the GPU clock.
    pub fn start(&self) -> Instant {
        self.idle();
        if let Some(w) = &self.warm {
            self.warm_up(w, w.ms);
        }
        if let Some(c) = &self.clock {
            let mut c = c.borrow_mut();
            c.running = true;
            c.used = 0;
            c.pairs.clear();
        }
        Instant::now()
    }

    /// Ends the measurement begun at `t`: waits for the GPU, stops the wall clock, then reads the
    /// timestamps back.
    pub fn stop(&self, t: Instant) -> Times {
        self.idle();
        let wall = t.elapsed().as_secs_f64();
        let Some(c) = &self.clock else {
            return Times {
                wall,
                ..Times::default()
            };
        };
        let (pairs, used) = {
            let mut c = c.borrow_mut();
            c.running = false;
            (std::mem::take(&mut c.pairs), c.used)
        };
        let mut ticks = vec![0u64; used as usize];
        let c = c.borrow();
        for (i, (set, resolve)) in c.sets.iter().enumerate() {
            let n = used.saturating_sub(i as u32 * QUERIES).min(QUERIES);
            if n == 0 {
                break;
            }
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.resolve_query_set(set, 0..n, resolve, 0);
            let w = self.read_raw(resolve, 0, 8 * n as u64, enc);
            for (j, p) in w.chunks_exact(2).enumerate() {
                ticks[i * QUERIES as usize + j] = p[0] as u64 | (p[1] as u64) << 32;
            }
        }
        let period = self.queue.get_timestamp_period() as f64 * 1e-9;
        let mut per_submission = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            let (a, b) = (ticks[a as usize], ticks[b as usize]);
            if b < a || a == 0 {
                // A timestamp the device did not write (or one that wrapped): no GPU time.
                return Times {
                    wall,
                    ..Times::default()
                };
            }
            per_submission.push((b - a) as f64 * period);
        }
        Times {
            wall,
            gpu: Some(per_submission.iter().sum()),
            per_submission,
        }
    }

    /// Writes the next timestamp into `enc` if the GPU clock runs; its query index.
    fn stamp(&self, enc: &mut wgpu::CommandEncoder) -> Option<u32> {
        let mut c = self.clock.as_ref()?.borrow_mut();
        if !c.running {
            return None;
        }
        let i = c.used;
        if i / QUERIES == c.sets.len() as u32 {
            let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: QUERIES,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 8 * QUERIES as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            c.sets.push((set, resolve));
        }
        enc.write_timestamp(&c.sets[(i / QUERIES) as usize].0, i % QUERIES);
        c.used += 1;
        Some(i)
    }

    /// A command encoder; it starts with a timestamp if the GPU clock runs.
    pub fn encoder(&self) -> Enc {
        let mut enc = self.device.create_command_encoder(&Default::default());
        let start = self.stamp(&mut enc);
        Enc { enc, start }
    }

    /// Submits `enc`, ending it with a timestamp if it started with one.
    pub fn submit(&self, mut enc: Enc) -> wgpu::SubmissionIndex {
        if let Some(start) = enc.start {
            if let Some(end) = self.stamp(&mut enc.enc) {
                self.clock.as_ref().unwrap().borrow_mut().pairs.push((start, end));
            }
        }
        self.queue.submit([enc.enc.finish()])
    }

    /// A storage buffer of `bytes` (rounded up to 4, at least 4), zeroed; an error if the device
    /// cannot hold it.
    pub fn buffer(&self, mem: &Mem, label: &str, bytes: u64) -> Result<wgpu::Buffer, String> {
        let size = bytes.max(4).div_ceil(4) * 4;
        if size > self.limits.max_buffer_size || size > self.limits.max_storage_buffer_binding_size {
            return Err(format!(
                "`{label}` needs {size} bytes; the device allows {} per buffer and {} per binding",
                self.limits.max_buffer_size, self.limits.max_storage_buffer_binding_size
            ));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("allocating `{label}` ({size} bytes): {e}"));
        }
        mem.add(size);
        Ok(b)
    }

    pub fn upload(&self, mem: &Mem, label: &str, data: &[u8]) -> Result<wgpu::Buffer, String> {
        let b = self.buffer(mem, label, data.len() as u64)?;
        if !data.is_empty() {
            self.queue.write_buffer(&b, 0, data);
        }
        Ok(b)
    }

    pub fn uniform(&self, words: &[u32]) -> wgpu::Buffer {
        let mut w = words.to_vec();
        w.resize(w.len().max(8).div_ceil(8) * 8, 0);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: w.len() as u64 * 4,
            // STORAGE too: `tri_leaf` reads its parameters from storage (retry computes them).
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&b, 0, &words_bytes(&w));
        b
    }

    /// Compute pipelines for every named entry point of `wgsl`, with layouts derived from it.
    pub fn pipelines(&self, wgsl: &str, entries: &[&str]) -> Result<Vec<wgpu::ComputePipeline>, String> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let ps = entries
            .iter()
            .map(|e| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(e),
                    layout: None,
                    module: &module,
                    entry_point: Some(e),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("pipeline creation: {e}"));
        }
        Ok(ps)
    }

    /// Records one dispatch of `pipeline` with group 0 bound to `buffers` (binding i = buffers[i]),
    /// enough workgroups of 256 for `threads` (2-D when past the per-dimension limit).
    pub fn dispatch(
        &self,
        enc: &mut wgpu::CommandEncoder,
        p: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        threads: u64,
    ) {
        let groups = threads.div_ceil(256).max(1);
        let max = self.limits.max_compute_workgroups_per_dimension as u64;
        let x = groups.min(max.min(65535));
        let y = groups.div_ceil(x);
        let mut pass = self.pass(enc, p, buffers);
        pass.dispatch_workgroups(x as u32, y as u32, 1);
    }

    /// Records one dispatch of `pipeline` whose workgroup counts are the three words of `args`.
    pub fn dispatch_indirect(
        &self,
        enc: &mut wgpu::CommandEncoder,
        p: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        args: &wgpu::Buffer,
    ) {
        self.pass(enc, p, buffers).dispatch_workgroups_indirect(args, 0);
    }

    fn pass<'e>(
        &self,
        enc: &'e mut wgpu::CommandEncoder,
        p: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::ComputePass<'e> {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(p);
        pass.set_bind_group(0, &bg, &[]);
        pass
    }

    pub fn submit_wait(&self, enc: Enc) {
        let i = self.submit(enc);
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
    }

    /// Flushes pending writes and waits for the queue to be idle.
    pub fn idle(&self) {
        let i = self.queue.submit([]);
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
    }

    /// Reads `bytes` bytes from `b` at `offset` (blocking), after submitting `enc` if given.
    pub fn read(&self, b: &wgpu::Buffer, offset: u64, bytes: u64, enc: Option<Enc>) -> Vec<u32> {
        let mut enc = enc.unwrap_or_else(|| self.encoder());
        let staging = self.staging(b, offset, bytes, &mut enc);
        let i = self.submit(enc);
        self.map_wait(staging, i)
    }

    /// [`Gpu::read`] with an encoder outside the clocks.
    fn read_raw(&self, b: &wgpu::Buffer, offset: u64, bytes: u64, mut enc: wgpu::CommandEncoder) -> Vec<u32> {
        let staging = self.staging(b, offset, bytes, &mut enc);
        let i = self.queue.submit([enc.finish()]);
        self.map_wait(staging, i)
    }

    /// Records a copy of `bytes` of `b` at `offset` into a new mappable buffer.
    fn staging(&self, b: &wgpu::Buffer, offset: u64, bytes: u64, enc: &mut wgpu::CommandEncoder) -> wgpu::Buffer {
        let size = bytes.max(4).div_ceil(4) * 4;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_buffer_to_buffer(b, offset, &staging, 0, size);
        staging
    }

    fn map_wait(&self, staging: wgpu::Buffer, i: wgpu::SubmissionIndex) -> Vec<u32> {
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
        let v = staging.get_mapped_range(..).expect("mapped").to_vec();
        staging.unmap();
        v.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    pub fn read_all(&self, b: &wgpu::Buffer) -> Vec<u32> {
        self.read(b, 0, b.size(), None)
    }
}

pub fn words_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::{warm_step, WarmStep, WARM_CAP_MS};

    /// The warm-up runs its least time even at full clock, then stops as soon as one of the last
    /// dispatches is within the tolerance of the fastest; a clock that stays low runs to the cap.
    #[test]
    fn the_warm_up_stops_when_the_clock_is_back() {
        let fastest = 1.0e-4;
        let low = [5.0 * fastest; 3];
        let one_back = [5.0 * fastest, 1.05 * fastest, 5.0 * fastest];
        let step_down = [1.2 * fastest; 3];
        assert_eq!(warm_step(&one_back, fastest, 50, 100), WarmStep::Go);
        assert_eq!(warm_step(&one_back, fastest, 100, 100), WarmStep::Done);
        assert_eq!(warm_step(&low, fastest, 100, 100), WarmStep::Go);
        assert_eq!(warm_step(&step_down, fastest, 2000, 100), WarmStep::Go);
        assert_eq!(warm_step(&low, fastest, u128::from(WARM_CAP_MS), 100), WarmStep::Capped);
        // Not yet three dispatches: the empty places count as slow.
        let first = [f64::INFINITY, f64::INFINITY, fastest];
        assert_eq!(warm_step(&first, fastest, 1000, 1000), WarmStep::Done);
    }
}
