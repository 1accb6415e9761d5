//! `dyngc run FILE --input NAME=PATH.npy ... --out DIR`.

use crate::cli::{RunArgs, StatsFormat};
use crate::diag::Ctx;
use crate::frontend::{io_reason, Source};
use crate::values::{parse_arena, parse_param, split_pair};
use crate::watch::Watch;
use crate::{npy, CmdResult, Failure};
use dyngc_artifact::{Manifest, Role};
use dyngc_runtime::{format_bytes, DeviceLimits, Error, Executor, Plan, Progress, RunSetup, WaitOptions};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Arena size when `--arena` is not given (or the device's limit if smaller).
const DEFAULT_ARENA: u64 = 64 << 20;
/// Workgroups `dyngc run` asks for on a GPU when `--workgroups` is not given (fewer where the
/// arena holds fewer).
const GPU_WORKERS: u32 = 1024;
/// Workgroups per host thread on a CPU device (SwiftShader), for the persistent kernel and as the
/// cap of each dispatch. It runs one workgroup per thread at a time, and each workgroup it starts
/// costs about half a millisecond there, even one that finds the work done: two per thread keep
/// every thread busy (docs/performance.md, session 9).
const CPU_WORKERS_PER_THREAD: u32 = 2;
/// Frames each queue of a one-lane dispatched stage holds on a CPU device: a spawn that finds
/// its queue full runs its indices on the spawner's lane, which SwiftShader runs 1.3-1.8x
/// sooner than the queue's dispatch (triangle; docs/performance.md, session 20).
const CPU_QUEUE_FRAMES: u32 = 1;

fn runtime_failure(e: Error) -> Failure {
    if e.is_usage() {
        Failure::usage(e.to_string())
    } else {
        Failure::failed(e.to_string())
    }
}

/// Inputs read from their files, named as on the command line.
fn read_inputs(manifest: &Manifest, specs: &[String]) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let inputs: Vec<&str> = manifest
        .bindings
        .iter()
        .filter(|b| b.role == Role::Input)
        .map(|b| b.name.as_str())
        .collect();
    let list = || {
        if inputs.is_empty() {
            "this program has no inputs".to_string()
        } else {
            format!(
                "its inputs: {}",
                inputs.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )
        }
    };
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for spec in specs {
        let (name, path) = split_pair(spec, "input").map_err(Failure::usage)?;
        let binding = match manifest.binding(name) {
            Some(b) if b.role == Role::Input => b,
            Some(b) => {
                return Err(Failure::usage(format!(
                    "`{name}` is {} of this program, not an input ({})",
                    match b.role {
                        Role::Output => "an output",
                        Role::Buffer => "a buffer",
                        _ => "an executor binding",
                    },
                    list()
                )))
            }
            None => {
                return Err(Failure::usage(format!(
                    "`{name}` is not an input of this program ({})",
                    list()
                )))
            }
        };
        if out.iter().any(|(n, _)| n == name) {
            return Err(Failure::usage(format!("input `{name}` was given twice")));
        }
        let bytes = npy::read_input(&PathBuf::from(path), binding).map_err(Failure::usage)?;
        out.push((name.to_string(), bytes));
    }
    for name in &inputs {
        if !out.iter().any(|(n, _)| n == name) {
            return Err(Failure::usage(format!(
                "input `{name}` was not given (use --input {name}=PATH.npy; {})",
                list()
            )));
        }
    }
    Ok(out)
}

fn read_params(manifest: &Manifest, specs: &[String]) -> Result<Vec<(String, u32)>, Failure> {
    let mut out = Vec::new();
    for spec in specs {
        let (name, value) = split_pair(spec, "parameter").map_err(Failure::usage)?;
        let Some(p) = manifest.params.iter().find(|p| p.name == name) else {
            let known = manifest
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect::<Vec<_>>();
            return Err(Failure::usage(format!(
                "unknown parameter `{name}` ({})",
                if known.is_empty() {
                    "this program has no parameters".to_string()
                } else {
                    format!("known parameters: {}", known.join(", "))
                }
            )));
        };
        out.push((
            name.to_string(),
            parse_param(name, value, p.scalar).map_err(Failure::usage)?,
        ));
    }
    Ok(out)
}

fn plural(n: u64, what: &str) -> String {
    match (n, what.ends_with('h')) {
        (1, _) => format!("1 {what}"),
        (_, true) => format!("{n} {what}es"),
        _ => format!("{n} {what}s"),
    }
}

pub fn run(ctx: &Ctx, args: RunArgs) -> CmdResult {
    let limit = Some(args.timeout)
        .filter(|t| *t > 0.0)
        .and_then(|t| Duration::try_from_secs_f64(t).ok())
        .ok_or_else(|| {
            Failure::usage(format!(
                "invalid --timeout `{}`: expected a positive number of seconds, at most {}",
                args.timeout,
                Duration::MAX.as_secs()
            ))
        })?;
    // The limit covers everything from here to the outputs read back, compilation included.
    let watch = Watch::start(limit, args.timeout).map_err(Failure::usage)?;
    let src = Source::read(&args.file)?;
    let artifact = src.build(ctx, "run", args.generate.options())?;
    let manifest = &artifact.manifest;

    // Everything about the command line is checked before a device is opened.
    let inputs = read_inputs(manifest, &args.inputs)?;
    let params = read_params(manifest, &args.params)?;
    let arena = match &args.arena {
        Some(a) => Some(parse_arena(a, manifest).map_err(Failure::usage)?),
        None => None,
    };
    let setup_for = |arena_bytes: u64, workers: Option<u32>| {
        let mut setup = RunSetup::new(arena_bytes);
        for (name, bytes) in &inputs {
            setup.input(name.clone(), bytes);
        }
        for (name, value) in &params {
            setup.param(name.clone(), *value);
        }
        setup.workers = workers;
        setup.fuel = args.fuel;
        setup.stream_capacity = args.stream_capacity;
        setup
    };
    Plan::new(
        manifest,
        &setup_for(
            arena.unwrap_or(DEFAULT_ARENA).max(manifest.executor.arena.min_bytes),
            args.workgroups,
        ),
        &DeviceLimits::unlimited(),
    )
    .map_err(runtime_failure)?;

    check_out_dir(&args.out)?;

    watch.phase("opening the device");
    let gpu = pollster::block_on(dyngc_runtime::open_gpu()).map_err(runtime_failure)?;
    refuse_unreliable(ctx, &gpu.info.name, args.allow_llvmpipe)?;
    let limits = gpu.device.limits();
    let arena = arena.unwrap_or_else(|| {
        DEFAULT_ARENA
            .max(manifest.executor.arena.min_bytes)
            .min(limits.max_storage_buffer_binding_size)
            .min(limits.max_buffer_size)
            / 4
            * 4
    });
    watch.phase("compiling the pipelines");
    let executor = Executor::new(&gpu.device, manifest, &artifact.wgsl).map_err(runtime_failure)?;
    // A GPU runs thousands of workgroups at once: fill it unless told otherwise. A CPU device
    // (SwiftShader) runs one per thread, and its dispatches too.
    let cpu = gpu.info.device_type == dyngc_runtime::wgpu::DeviceType::Cpu;
    let cpu_workers = || {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        (CPU_WORKERS_PER_THREAD * threads).min(manifest.executor.defaults.workers)
    };
    let workers = args
        .workgroups
        .unwrap_or_else(|| if cpu { cpu_workers() } else { GPU_WORKERS });
    watch.phase("running");
    let mut setup = setup_for(arena, Some(workers));
    setup.dispatch_groups = cpu.then_some(workers);
    setup.queue_frames = cpu.then_some(CPU_QUEUE_FRAMES);
    // Streams go to their files as they drain, written while the device runs on.
    let files = manifest
        .executor
        .streams
        .iter()
        .map(|st| {
            let binding = manifest.binding(&st.binding).expect("validated manifest");
            let path = args.out.join(format!("{}.npy", st.binding));
            Ok((st.binding.clone(), npy::StreamFile::create(&path, binding, &st.fields)?))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(Failure::usage)?;
    let writer = StreamWriter::start(files);
    let mut run = executor.prepare(&gpu.queue, &setup).map_err(runtime_failure)?;
    if !manifest.executor.streams.is_empty() {
        run.on_stream(writer.sink());
    }
    let plan = run.plan();
    if args.workgroups.is_some() && plan.workers < plan.requested_workers {
        ctx.note(&format!(
            "running {} workgroups instead of {}: {} holds no more (use a larger --arena for more parallelism)",
            plan.workers,
            plan.requested_workers,
            if plan.workers as u64 >= limits.max_compute_workgroups_per_dimension as u64 {
                "the device".to_string()
            } else {
                format!("an arena of {}", format_bytes(plan.requested_arena_bytes))
            }
        ));
    }

    let mut on_progress = |p: &Progress<'_>| {
        let launches = p.stats.get("launches").unwrap_or(p.launches);
        watch.detail(format!(
            "{launches} launches, {} units, {} submissions",
            p.stats.total_units(),
            p.submissions
        ));
    };
    let opts = WaitOptions {
        timeout: watch.remaining(),
        ..Default::default()
    };
    let result = run.execute(&opts, &mut on_progress);
    let stats = result.map_err(|e| match e {
        Error::Timeout { .. } => Failure::failed(format!(
            "{e}\n  = help: it may need more time (raise --timeout, now {} s), or it may not terminate",
            args.timeout
        )),
        e => runtime_failure(e),
    })?;

    watch.phase("reading the outputs back");
    let outputs = run.read_outputs().map_err(runtime_failure)?;
    drop(run);
    // The run is over; writing the files is not cut short by the clock.
    watch.finish();
    let mut streams = writer.finish();
    let mut written = Vec::new();
    for (name, bytes) in &outputs {
        let binding = manifest.binding(name).expect("outputs come from the manifest");
        let path = args.out.join(format!("{name}.npy"));
        match binding.role {
            // Its sink had every element; `bytes` is empty.
            Role::Stream => {
                let i = streams
                    .iter()
                    .position(|(n, _)| n == name)
                    .expect("one file per stream");
                streams.swap_remove(i).1.finish()
            }
            _ => npy::write_output(&path, binding, bytes),
        }
        .map_err(Failure::usage)?;
        written.push(path);
    }
    let launches = stats.get("launches").unwrap_or(stats.host.launches);
    errln!(
        "finished in {:.3} s: {}, {}, {}, {}, {} arena",
        stats.host.elapsed_ms as f64 / 1000.0,
        plural(stats.total_units(), "unit"),
        plural(launches, "launch"),
        plural(stats.host.submissions, "submission"),
        plural(stats.host.workers as u64, "workgroup"),
        format_bytes(stats.host.arena_bytes)
    );
    for p in &written {
        errln!("wrote {}", p.display());
    }
    match args.stats {
        Some(StatsFormat::Human) => outln!("{stats}"),
        Some(StatsFormat::Json) => outln!("{}", serde_json::to_string_pretty(&stats).unwrap_or_default()),
        None => {}
    }
    Ok(())
}

/// Drained chunks of a stream waiting for the writer thread, at most: while the disk keeps up
/// the device never waits for it, and the host holds at most this many drains plus the one
/// being written and the one being delivered.
const STREAM_CHUNKS_QUEUED: usize = 2;

/// Writes the stream outputs' chunks to their files on a thread of its own: a drain costs the
/// device one copy out of the mapped buffer, not the disk's time. Dropped unfinished (the run
/// failed), it waits for the thread, whose unfinished files remove themselves.
struct StreamWriter {
    names: Vec<String>,
    chunks: Option<SyncSender<(usize, Vec<u8>)>>,
    thread: Option<JoinHandle<Vec<npy::StreamFile>>>,
}

impl StreamWriter {
    fn start(files: Vec<(String, npy::StreamFile)>) -> StreamWriter {
        let (names, mut files): (Vec<String>, Vec<npy::StreamFile>) = files.into_iter().unzip();
        let (chunks, arriving) = sync_channel::<(usize, Vec<u8>)>(STREAM_CHUNKS_QUEUED);
        let thread = std::thread::spawn(move || {
            for (i, bytes) in arriving {
                files[i].append(&bytes);
            }
            files
        });
        StreamWriter {
            names,
            chunks: Some(chunks),
            thread: Some(thread),
        }
    }

    /// The run's stream sink: hands each chunk to the writer thread.
    fn sink<'e>(&self) -> dyngc_runtime::StreamSink<'e> {
        let names = self.names.clone();
        let chunks = self.chunks.clone().expect("not finished");
        Box::new(move |name, bytes| {
            if let Some(i) = names.iter().position(|n| n == name) {
                // The thread only ends when every sender is gone: a send cannot fail.
                let _ = chunks.send((i, bytes.to_vec()));
            }
        })
    }

    /// Waits for every chunk to be written (the run, which holds the sink, must be dropped
    /// first) and returns the files, by stream name.
    fn finish(mut self) -> Vec<(String, npy::StreamFile)> {
        let files = self.join();
        std::mem::take(&mut self.names).into_iter().zip(files).collect()
    }

    fn join(&mut self) -> Vec<npy::StreamFile> {
        self.chunks.take();
        self.thread
            .take()
            .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .unwrap_or_default()
    }
}

impl Drop for StreamWriter {
    fn drop(&mut self) {
        self.join();
    }
}

/// Creates the output directory and checks that files can be created in it, before any GPU
/// work: a bad `--out` must not cost a whole run.
fn check_out_dir(dir: &std::path::Path) -> CmdResult {
    let fail = |what: &str, e: std::io::Error| Failure::usage(format!("{what} `{}`: {}", dir.display(), io_reason(&e)));
    std::fs::create_dir_all(dir).map_err(|e| fail("could not create the output directory", e))?;
    let probe = dir.join(format!(".dyngc-probe-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|e| fail("cannot write into the output directory", e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Mesa's llvmpipe (lavapipe) caps each invocation's loop iterations (65,535 over all its loops,
/// gallivm's loop limiter) and then silently leaves loops early: the persistent kernel's results
/// would be wrong without any error (`tests/programs/long_loop.dyn` shows it in one loop).
const LLVMPIPE: &str = "is Mesa's llvmpipe, which silently stops long loops early, losing work";
const LLVMPIPE_HELP: &str =
    "use SwiftShader instead (VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json) or a GPU";

fn warn_unreliable(ctx: &Ctx, adapter: &str) {
    if is_llvmpipe(adapter) {
        ctx.warning(&format!(
            "the adapter `{adapter}` {LLVMPIPE}: `dyngc run` refuses it\n  = help: {LLVMPIPE_HELP}"
        ));
    }
}

/// `dyngc run` on llvmpipe: an error, unless `--allow-llvmpipe` (then a warning). On it
/// tests/programs/refills.dyn over 3,000 values lost work at every fuel from 16 up, exit 0.
fn refuse_unreliable(ctx: &Ctx, adapter: &str, allow: bool) -> CmdResult {
    if !is_llvmpipe(adapter) {
        return Ok(());
    }
    if allow {
        ctx.warning(&format!(
            "the adapter `{adapter}` {LLVMPIPE}: results may be wrong (--allow-llvmpipe)\n  = help: {LLVMPIPE_HELP}"
        ));
        return Ok(());
    }
    Err(Failure::failed(format!(
        "the adapter `{adapter}` {LLVMPIPE}: results would be wrong\n  = help: {LLVMPIPE_HELP}, or pass --allow-llvmpipe to run anyway"
    )))
}

/// Whether an adapter name is Mesa's llvmpipe (as GL and Vulkan's lavapipe report it).
fn is_llvmpipe(adapter: &str) -> bool {
    let name = adapter.to_lowercase();
    name.contains("llvmpipe") || name.contains("lavapipe")
}

/// `dyngc adapter`: opens the device `dyngc run` would open and says what it is.
pub fn adapter(ctx: &Ctx) -> CmdResult {
    let gpu = pollster::block_on(dyngc_runtime::open_gpu()).map_err(runtime_failure)?;
    let info = &gpu.info;
    let limits = gpu.device.limits();
    warn_unreliable(ctx, &info.name);
    outln!("adapter: {} ({:?}, {:?})", info.name, info.backend, info.device_type);
    outln!("driver: {} {}", info.driver, info.driver_info);
    outln!(
        "limits: storage buffer binding {}, buffer {}, {} workgroups per dimension, {} storage buffers per stage",
        format_bytes(limits.max_storage_buffer_binding_size),
        format_bytes(limits.max_buffer_size),
        limits.max_compute_workgroups_per_dimension,
        limits.max_storage_buffers_per_shader_stage
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn llvmpipe_names() {
        assert!(super::is_llvmpipe("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(super::is_llvmpipe("Lavapipe"));
        assert!(!super::is_llvmpipe("SwiftShader Device (Subzero)"));
        assert!(!super::is_llvmpipe("NVIDIA H200"));
    }

    /// llvmpipe loses work without an error: refused (exit 1, with the way out) unless the
    /// user asks for it; other adapters pass.
    #[test]
    fn llvmpipe_is_refused_unless_allowed() {
        use crate::cli::{ColorMode, MessageFormat};
        let ctx = crate::diag::Ctx::new(ColorMode::Never, MessageFormat::Human);
        let refused = super::refuse_unreliable(&ctx, "llvmpipe (LLVM 15.0.6, 256 bits)", false).unwrap_err();
        assert_eq!(refused.code, 1);
        let message = refused.message.unwrap();
        assert!(
            message.contains("--allow-llvmpipe") && message.contains("SwiftShader"),
            "{message}"
        );
        assert!(super::refuse_unreliable(&ctx, "llvmpipe (LLVM 15.0.6, 256 bits)", true).is_ok());
        assert!(super::refuse_unreliable(&ctx, "SwiftShader Device (Subzero)", false).is_ok());
    }
}
