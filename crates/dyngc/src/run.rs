//! `dyngc run FILE --input NAME=PATH.npy ... --out DIR`.

use crate::cli::{RunArgs, StatsFormat};
use crate::diag::Ctx;
use crate::frontend::{io_reason, Source};
use crate::values::{parse_arena, parse_param, split_pair};
use crate::{npy, CmdResult, Failure};
use dyngc_artifact::{Manifest, Role};
use dyngc_runtime::{format_bytes, DeviceLimits, Error, Executor, Plan, Progress, RunSetup, WaitOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arena size when `--arena` is not given (or the device's limit if smaller).
const DEFAULT_ARENA: u64 = 64 << 20;
/// Workgroups `dyngc run` asks for on a GPU when `--workgroups` is not given (fewer where the
/// arena holds fewer).
const GPU_WORKERS: u32 = 1024;

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
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(Failure::usage(format!(
            "invalid --timeout `{}`: expected a positive number of seconds",
            args.timeout
        )));
    }
    let src = Source::read(&args.file)?;
    let (_, artifact) = src.build(ctx, "run", args.schedule)?;
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

    let gpu = pollster::block_on(dyngc_runtime::open_gpu()).map_err(runtime_failure)?;
    let limits = gpu.device.limits();
    let arena = arena.unwrap_or_else(|| {
        DEFAULT_ARENA
            .max(manifest.executor.arena.min_bytes)
            .min(limits.max_storage_buffer_binding_size)
            .min(limits.max_buffer_size)
            / 4
            * 4
    });
    let executor = Executor::new(&gpu.device, manifest, &artifact.wgsl).map_err(runtime_failure)?;
    // A GPU runs thousands of workgroups at once: fill it unless told otherwise. A CPU device
    // (SwiftShader) runs a few at a time, and the manifest's default suits it better.
    let workers = args
        .workgroups
        .or((gpu.info.device_type != dyngc_runtime::wgpu::DeviceType::Cpu).then_some(GPU_WORKERS));
    let setup = setup_for(arena, workers);
    let mut run = executor.prepare(&gpu.queue, &setup).map_err(runtime_failure)?;
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

    let bar = std::cell::RefCell::new(None::<ProgressBar>);
    let mut on_progress = |p: &Progress<'_>| {
        if p.elapsed < Duration::from_millis(300) {
            return;
        }
        let mut bar = bar.borrow_mut();
        let bar = bar.get_or_insert_with(|| {
            let target = if std::io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            };
            let b = ProgressBar::with_draw_target(None, target);
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        let launches = p.stats.get("launches").unwrap_or(p.launches);
        bar.set_message(format!(
            "{launches} launches, {} units, {} submissions",
            p.stats.total_units(),
            p.submissions
        ));
    };
    let opts = WaitOptions {
        timeout: Duration::from_secs_f64(args.timeout),
        ..Default::default()
    };
    let result = run.execute(&opts, &mut on_progress);
    if let Some(b) = bar.borrow_mut().take() {
        b.finish_and_clear();
    }
    let stats = result.map_err(|e| match e {
        Error::Timeout { .. } => Failure::failed(format!(
            "{e}\n  = help: it may need more time (raise --timeout, now {} s), or it may not terminate",
            args.timeout
        )),
        e => runtime_failure(e),
    })?;

    let outputs = run.read_outputs().map_err(runtime_failure)?;
    std::fs::create_dir_all(&args.out).map_err(|e| {
        Failure::usage(format!(
            "could not create the output directory `{}`: {}",
            args.out.display(),
            io_reason(&e)
        ))
    })?;
    let mut written = Vec::new();
    for (name, bytes) in &outputs {
        let binding = manifest.binding(name).expect("outputs come from the manifest");
        let path = args.out.join(format!("{name}.npy"));
        npy::write_output(&path, binding, bytes).map_err(Failure::usage)?;
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

/// `dyngc adapter`: opens the device `dyngc run` would open and says what it is.
pub fn adapter() -> CmdResult {
    let gpu = pollster::block_on(dyngc_runtime::open_gpu()).map_err(runtime_failure)?;
    let info = &gpu.info;
    let limits = gpu.device.limits();
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
