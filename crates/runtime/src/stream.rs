//! Runs that never block the host: [`Stream`] submits runs, learns of their progress from
//! asynchronous maps of their control blocks, continues those not yet done, and hands back
//! results, usage samples and (with a [`Policy`]) the arena size for the next runs.

use crate::error::Error;
use crate::executor::{mapped, DrainCopy, Executor, Run, Scopes};
use crate::plan::{check_arena, DeviceLimits, WORD};
use crate::policy::{Policy, Usage};
use crate::setup::RunSetup;
use crate::stats::{HostStats, Snapshot, Stats};
use dyngc_artifact::Role;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Identifies a run submitted to a [`Stream`], in submission order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId(pub u64);

/// A run that left the stream: its results, or why it failed.
#[derive(Debug)]
pub struct Completed {
    pub job: JobId,
    pub result: Result<Outcome, Error>,
}

/// What a finished run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Every output binding's contents, exactly `length * element.size` bytes each, in manifest
    /// order; a stream's are all the elements it emitted, in no particular order.
    pub outputs: Vec<(String, Vec<u8>)>,
    pub stats: Stats,
    /// The final usage sample (also fed to the policy).
    pub usage: Usage,
}

type MapSlot = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// One run in flight.
#[derive(Debug)]
struct Job<'e> {
    id: JobId,
    run: Run<'e>,
    /// The control block, then every output, copied after each launch chain: when the mapped
    /// control block says done, the outputs mapped with it are final, with no further round trip.
    readback: wgpu::Buffer,
    /// `(name, offset in readback, bytes)` per output.
    outputs: Vec<(String, u64, u64)>,
    control_bytes: u64,
    mapped: MapSlot,
    submissions: u64,
    launches: u64,
    started: Instant,
    /// A stream drain in flight (its staging buffer mapping); the run goes on, or ends with
    /// `done`, once it resolves.
    draining: Option<Draining>,
}

#[derive(Debug)]
struct Draining {
    copy: DrainCopy,
    mapped: MapSlot,
    done: Option<Outcome>,
}

/// Maps the first `bytes` of `buffer` for reading, resolving the slot when done.
fn map_read(buffer: &wgpu::Buffer, bytes: u64) -> MapSlot {
    let slot: MapSlot = Arc::new(Mutex::new(None));
    let done = slot.clone();
    buffer.map_async(wgpu::MapMode::Read, ..bytes, move |r| {
        if let Ok(mut s) = done.lock() {
            *s = Some(r);
        }
    });
    slot
}

/// A long-lived driver of runs of one [`Executor`] that never waits on the device: a frame loop
/// calls [`Stream::submit`] and [`Stream::poll`] each frame and nothing else.
///
/// - [`Stream::submit`] prepares a run with the stream's current arena size, records its start
///   and first launch chain, copies the control block and outputs into a readback buffer and
///   maps it asynchronously.
/// - [`Stream::poll`] checks the device without blocking (`device.poll(Poll)`); for every run
///   whose readback resolved it reads the control block: an error ends the run with
///   [`Error::Kernel`], `done` ends it with its outputs, and otherwise it records another launch
///   chain (and readback) in a new submission — a run that is not done simply continues in later
///   polls, it never fails for it.
/// - A program with stream outputs is drained the same way: when a readback shows a full window
///   (or the end, with elements left), the stream elements are copied out and mapped
///   asynchronously, and the run continues (or completes) in the poll that finds them mapped;
///   the [`Outcome`] holds every element emitted.
/// - Every readback yields a [`Usage`] sample ([`Stream::usage`] is the latest); with a
///   [`Policy`] set, each sample may change the arena size.
/// - [`Stream::resize`] takes effect at the next [`Stream::submit`]. Each run owns its buffers,
///   so runs in flight finish with the arena they started with.
#[derive(Debug)]
pub struct Stream<'e> {
    exec: &'e Executor,
    queue: wgpu::Queue,
    arena_bytes: u64,
    policy: Option<Policy>,
    jobs: Vec<Job<'e>>,
    next_id: u64,
    latest: Option<Usage>,
    submission_limit: u64,
}

impl<'e> Stream<'e> {
    /// A stream whose runs get an arena of `arena_bytes` (checked against the program's minimum
    /// and the device's limits).
    pub fn new(exec: &'e Executor, queue: &wgpu::Queue, arena_bytes: u64) -> Result<Stream<'e>, Error> {
        let mut stream = Stream {
            exec,
            queue: queue.clone(),
            arena_bytes: 0,
            policy: None,
            jobs: Vec::new(),
            next_id: 0,
            latest: None,
            submission_limit: u64::MAX,
        };
        stream.resize(arena_bytes)?;
        Ok(stream)
    }

    /// Lets `policy` choose the arena size from now on, starting at its current size. Its
    /// ceiling must fit the device.
    pub fn set_policy(&mut self, policy: Policy) -> Result<(), Error> {
        self.check(policy.config().ceiling)?;
        self.resize(policy.size())?;
        self.policy = Some(policy);
        Ok(())
    }

    pub fn policy(&self) -> Option<&Policy> {
        self.policy.as_ref()
    }

    /// Most submissions one run may take before it ends with [`Error::Timeout`] (default: no
    /// limit): a guard against programs that do not terminate.
    pub fn set_submission_limit(&mut self, submissions: u64) {
        self.submission_limit = submissions.max(1);
    }

    /// The arena size the next run gets.
    pub fn arena_bytes(&self) -> u64 {
        self.arena_bytes
    }

    /// Sets the arena size of runs submitted from now on; runs in flight keep theirs. A policy,
    /// if set, continues from this size.
    pub fn resize(&mut self, bytes: u64) -> Result<(), Error> {
        self.check(bytes)?;
        self.arena_bytes = bytes;
        if let Some(p) = &mut self.policy {
            p.resize(bytes);
        }
        Ok(())
    }

    fn check(&self, bytes: u64) -> Result<(), Error> {
        check_arena(
            self.exec.manifest(),
            bytes,
            &DeviceLimits::from(&self.exec.device().limits()),
        )
    }

    /// The latest usage sample that resolved, of any run (without waiting for one).
    pub fn usage(&self) -> Option<&Usage> {
        self.latest.as_ref()
    }

    /// Runs submitted and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.jobs.len()
    }

    /// Prepares a run of `setup` with the stream's arena size (`setup.arena_bytes` is ignored)
    /// and submits its start. Returns at once; the result comes from a later [`Stream::poll`].
    pub fn submit(&mut self, setup: &RunSetup<'_>) -> Result<JobId, Error> {
        let setup = RunSetup {
            arena_bytes: self.arena_bytes,
            ..setup.clone()
        };
        let run = self.exec.prepare(&self.queue, &setup)?;
        let manifest = self.exec.manifest();
        let control_bytes = manifest.executor.control.words as u64 * WORD;
        let mut outputs = Vec::new();
        let mut offset = control_bytes;
        for (b, p) in manifest.bindings.iter().zip(&run.plan().buffers) {
            if b.role == Role::Output {
                outputs.push((b.name.clone(), offset, p.bytes));
                offset += p.bytes.div_ceil(WORD) * WORD;
            }
        }
        let scopes = Scopes::push(self.exec.device());
        let readback = self.exec.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("dyngc stream readback"),
            size: offset,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        scopes.finish("allocating the readback buffer")?;
        let mut job = Job {
            id: JobId(self.next_id),
            run,
            readback,
            outputs,
            control_bytes,
            mapped: Arc::new(Mutex::new(None)),
            submissions: 0,
            launches: 0,
            started: Instant::now(),
            draining: None,
        };
        self.next_id += 1;
        self.submit_chain(&mut job, true)?;
        let id = job.id;
        self.jobs.push(job);
        Ok(id)
    }

    /// Records the start (`first`) or one more launch chain, then the readback copies; submits
    /// and maps the readback buffer asynchronously.
    fn submit_chain(&self, job: &mut Job<'e>, first: bool) -> Result<(), Error> {
        let device = self.exec.device();
        let scopes = Scopes::push(device);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("dyngc stream chain"),
        });
        if first {
            job.run.record_start(&mut encoder);
        } else {
            job.run.record_continue(&mut encoder);
        }
        let control = &self.exec.manifest().bindings[self.control_index()].name;
        let buffer = |name: &str| job.run.buffer(name).expect("a binding of this manifest");
        encoder.copy_buffer_to_buffer(buffer(control), 0, &job.readback, 0, job.control_bytes);
        for (name, offset, bytes) in &job.outputs {
            if *bytes > 0 {
                encoder.copy_buffer_to_buffer(buffer(name), 0, &job.readback, *offset, bytes.div_ceil(WORD) * WORD);
            }
        }
        self.queue.submit([encoder.finish()]);
        job.submissions += 1;
        job.launches += job.run.chain_length() as u64;
        job.mapped = map_read(&job.readback, job.readback.size());
        scopes.finish("submitting a launch chain")?;
        self.exec.check_lost()
    }

    fn control_index(&self) -> usize {
        let m = self.exec.manifest();
        m.bindings
            .iter()
            .position(|b| b.role == Role::Control)
            .expect("validated")
    }

    /// Checks the device without blocking and advances every run whose readback has resolved:
    /// finished and failed runs are returned (in submission order), the others continue. `Err`
    /// only for failures of the whole device (lost, or its poll failed).
    pub fn poll(&mut self) -> Result<Vec<Completed>, Error> {
        self.exec.device().poll(wgpu::PollType::Poll).map_err(|e| Error::Gpu {
            during: "polling the device",
            message: e.to_string(),
        })?;
        self.exec.check_lost()?;
        let mut completed = Vec::new();
        for mut job in std::mem::take(&mut self.jobs) {
            let step = match job.draining.take() {
                Some(d) => self.finish_drain(&mut job, d),
                None => {
                    let resolved = job.mapped.lock().ok().and_then(|mut s| s.take());
                    match resolved {
                        None => Ok(None),
                        Some(Err(e)) => Err(Error::Readback {
                            buffer: "the control block".into(),
                            message: e.to_string(),
                        }),
                        Some(Ok(())) => self.advance(&mut job),
                    }
                }
            };
            match step {
                Ok(None) => self.jobs.push(job),
                Ok(Some(outcome)) => completed.push(Completed {
                    job: job.id,
                    result: Ok(outcome),
                }),
                Err(e) => completed.push(Completed {
                    job: job.id,
                    result: Err(e),
                }),
            }
        }
        Ok(completed)
    }

    /// Reads a resolved readback: `Some` with the results when the run is done, `None` after
    /// submitting its next launch chain.
    fn advance(&mut self, job: &mut Job<'e>) -> Result<Option<Outcome>, Error> {
        let bytes = {
            let view = job.readback.get_mapped_range(..).map_err(|e| Error::Readback {
                buffer: "the control block".into(),
                message: format!("{e:?}"),
            })?;
            view.to_vec()
        };
        job.readback.unmap();
        let manifest = self.exec.manifest();
        let words: Vec<u32> = bytes[..job.control_bytes as usize]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let snapshot = Snapshot::decode(manifest, &words);
        let plan = job.run.plan();
        let elapsed = job.started.elapsed();
        let usage = Usage::new(
            manifest,
            &snapshot,
            plan.requested_arena_bytes,
            plan.requested_workers,
            plan.workers,
            plan.ring_slots,
            elapsed,
        );
        if let Some(p) = &mut self.policy {
            if let Some(next) = p.observe(&usage) {
                // The policy's range was checked against the device in `set_policy`.
                self.arena_bytes = next;
            }
        }
        self.latest = Some(usage.clone());
        if let Some(e) = snapshot.error {
            return Err(Error::Kernel(e));
        }
        let done = snapshot.done.then(|| {
            let outputs = job
                .outputs
                .iter()
                .map(|(name, offset, len)| {
                    (
                        name.clone(),
                        bytes[*offset as usize..(*offset + *len) as usize].to_vec(),
                    )
                })
                .collect();
            Outcome {
                outputs,
                stats: Stats {
                    host: HostStats::default(),
                    ..snapshot.stats.clone()
                },
                usage,
            }
        });
        if let Some((commands, copy)) = job.run.record_drain(&snapshot)? {
            let scopes = Scopes::push(self.exec.device());
            self.queue.submit([commands]);
            let mapped = map_read(&copy.staging, copy.filled);
            scopes.finish("draining streams")?;
            job.draining = Some(Draining { copy, mapped, done });
            return Ok(None);
        }
        if let Some(outcome) = done {
            return Ok(Some(self.complete(job, outcome)));
        }
        self.go_on(job)
    }

    /// The next launch chain of a run that is not done, within the submission limit.
    fn go_on(&self, job: &mut Job<'e>) -> Result<Option<Outcome>, Error> {
        if job.submissions >= self.submission_limit {
            return Err(Error::Timeout {
                elapsed: job.started.elapsed(),
                limit: None,
                submissions: job.submissions,
                launches: job.launches,
            });
        }
        self.submit_chain(job, false)?;
        Ok(None)
    }

    /// A drain whose staging buffer may have been mapped: hands its elements to the run, then
    /// completes the run (it was done) or continues it. Not yet mapped: waits for a later poll.
    fn finish_drain(&self, job: &mut Job<'e>, d: Draining) -> Result<Option<Outcome>, Error> {
        let resolved = d.mapped.lock().ok().and_then(|mut s| s.take());
        match resolved {
            None => {
                job.draining = Some(d);
                return Ok(None);
            }
            Some(Err(e)) => {
                return Err(Error::Readback {
                    buffer: "the stream windows".into(),
                    message: e.to_string(),
                })
            }
            Some(Ok(())) => {}
        }
        job.run
            .deliver(&d.copy, &mapped(&d.copy.staging, d.copy.filled, "the stream windows")?);
        d.copy.staging.unmap();
        match d.done {
            Some(outcome) => Ok(Some(self.complete(job, outcome))),
            None => self.go_on(job),
        }
    }

    /// A done run's outcome with its host statistics and, in manifest order, its streams.
    fn complete(&self, job: &Job<'e>, mut outcome: Outcome) -> Outcome {
        outcome.stats.host = job
            .run
            .host_stats_as_counted(job.submissions, job.launches, job.started.elapsed());
        let manifest = self.exec.manifest();
        let mut outputs = std::mem::take(&mut outcome.outputs).into_iter();
        outcome.outputs = manifest
            .bindings
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b.role {
                Role::Output => outputs.next(),
                Role::Stream => Some((b.name.clone(), job.run.collected_stream(i))),
                _ => None,
            })
            .collect();
        outcome
    }
}
