//! Code generation: a checked [`Program`] becomes one WGSL module holding the persistent
//! megakernel, plus its [`Manifest`]. Entry point: [`generate`]. Pure: no file IO.
//!
//! The module is assembled as WGSL text (executor constants and bindings, the user's
//! declarations and stage functions from [`dyngc_ir::wgsl`], per-graph glue, then the fixed
//! scheduler in `stdlib/executor.wgsl`), parsed and validated by naga, and written back by
//! naga's WGSL backend — so the output is canonical, validated, and byte-identical for the
//! same input.

mod accumulate;
mod glue;
mod layout;
mod schedule;
mod streams;

pub use glue::{CHAIN_UNROLL, CHAIN_UNROLL_BYTES};
pub use layout::{DEFAULT_LANES, DEPTH_SHIFT, LANE_CHOICES, LANE_UNITS, SIZE_CLASSES};
use schedule::Partition;
pub use schedule::{auto as auto_schedule, Schedule};
// Quoted by docs/executor.md's prose, which tests/examples.rs checks against them.
pub use layout::{
    ACCUMULATOR_BYTES, CHAIN_LENGTH, DONE_POLL, LEAF_UNROLL, LINE_WORDS, MAX_DISPATCH_GROUPS, MAX_SHARDS,
    MAX_SPAWN_DEPTH, MIN_RING_SLOTS, QUEUE_WORDS, WORKGROUP_MEMORY,
};
pub use schedule::{LEAF_DISPATCH_WG, SPAWNER_DISPATCH_WG};
pub use streams::EMIT_BUFFER_WORDS;

use dyngc_artifact as art;
use dyngc_artifact::Manifest;
use dyngc_ir::{wgsl::ModuleText, Executable, Program, Scalar, SizeExpr, Ty};
use dyngc_syntax::ast::{BinOp, ResourceKind};
use dyngc_syntax::{codes, Diagnostic};
use layout::Layout;

// `crates/codegen/stdlib` links to the repository's `stdlib/` (one copy); `cargo package` copies
// the files through the link, so the package builds on its own.
const EXECUTOR_WGSL: &str = include_str!("../stdlib/executor.wgsl");
const QUEUES_WGSL: &str = include_str!("../stdlib/queues.wgsl");

/// What `dyngc build` writes: `NAME.wgsl` and `NAME.manifest.json`.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub wgsl: String,
    pub manifest: Manifest,
    /// The validated naga module, for `--emit` through naga's other backends.
    pub module: naga::Module,
    pub info: naga::valid::ModuleInfo,
    /// Warnings about the artifact: limits it needs beyond WebGPU's defaults (DYN0503).
    pub warnings: Vec<Diagnostic>,
    /// The outputs counted in workgroup memory and added once per worker and launch, in
    /// declaration order (docs/executor.md, "Accumulated outputs").
    pub accumulated: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    Spv,
    Msl,
    Hlsl,
    Glsl,
}

/// How a program is generated: its schedule, and the lanes of a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub schedule: Schedule,
    /// One of [`LANE_CHOICES`]; more than [`DEFAULT_LANES`] only for a program without `@width`
    /// stages and `var<workgroup>` items, which are written against 64 lanes (DYN0504).
    pub lanes: u32,
}

impl From<Schedule> for Options {
    fn from(schedule: Schedule) -> Self {
        Options {
            schedule,
            lanes: DEFAULT_LANES,
        }
    }
}

/// Generates the kernels for `program` under `options`. Errors (work items too large for
/// workgroup memory, lanes the program cannot have, an internal naga rejection) come back as
/// diagnostics. Only the checker makes an [`Executable`], so the program's invariants
/// (`dyngc_ir`'s crate docs) hold here.
pub fn generate(executable: &Executable, options: Options) -> Result<Artifact, Vec<Diagnostic>> {
    let program: &Program = executable;
    let Options { schedule, lanes } = options;
    check_lanes(program, lanes)?;
    check_depth(program)?;
    let partition = schedule::partition(program, schedule);
    let queues = partition.dispatches.len() as u32;
    let bindings = ExecutorBindings::new(program);
    let parse = |layout: &Layout, accumulators: &[accumulate::Accumulator]| {
        let text = module_text(executable, &partition, layout, &bindings, accumulators);
        naga::front::wgsl::parse_str(&text)
            .map(|module| (module, text.clone()))
            .map_err(|e| internal(program, e.emit_to_string(&text)))
    };
    let Some(mut layout) = Layout::new(program, layout::STAGING_BUDGET, queues, lanes) else {
        return Err(vec![too_large(program)]);
    };
    let (mut module, mut text) = parse(&layout, &[])?;
    let memory = WorkgroupMemory::of(&module, &layout);
    if memory.total > layout::WORKGROUP_MEMORY {
        // The program's own `var<workgroup>` items: give the staging area what they leave.
        let shrunk = layout::WORKGROUP_MEMORY
            .checked_sub(memory.total - memory.staging)
            .and_then(|budget| Layout::new(program, budget, queues, lanes));
        let Some(shrunk) = shrunk else {
            return Err(vec![workgroup_memory(program, &memory)]);
        };
        layout = shrunk;
        (module, text) = parse(&layout, &[])?;
    }
    let validate = |module: &naga::Module, text: &str| {
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(module)
        .map_err(|e| internal(program, e.emit_to_string(text)))
    };
    let mut info = validate(&module, &text)?;
    // Outputs the units only combine into get a copy in the workgroup memory the rest leaves.
    let room = layout::WORKGROUP_MEMORY.saturating_sub(WorkgroupMemory::of(&module, &layout).total);
    let accumulators = accumulate::find(program, &module, &info, room);
    if !accumulators.is_empty() {
        (module, text) = parse(&layout, &accumulators)?;
        accumulate::redirect(&mut module, &accumulators);
        info = validate(&module, &text)?;
    }
    let wgsl = naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
        .map_err(|e| internal(program, e.to_string()))?;
    let written = Written::of(&module, &wgsl).map_err(|e| internal(program, e))?;
    let mut manifest = manifest(program, schedule, &partition, &layout, &bindings);
    written.rename(&mut manifest);
    manifest.limits = limits(program, &manifest, WorkgroupMemory::of(&module, &layout).total);
    let warnings = limit_warnings(program, &manifest);
    Ok(Artifact {
        wgsl: format!("{HEADER}{wgsl}"),
        manifest,
        module,
        info,
        warnings,
        accumulated: accumulators.iter().map(|a| a.output().to_string()).collect(),
    })
}

/// Names as naga's WGSL writer wrote them. It renames identifiers that end in a digit or `_`,
/// contain `__` or non-ASCII characters, or are WGSL keywords or predeclared names (a stage
/// `add2` gave `dyn_dispatch_add2_`), so every name the manifest gives for the module is read
/// back from the written text rather than assumed.
struct Written {
    /// (generated, written) entry point names; the writer keeps their order.
    entry_points: Vec<(String, String)>,
    /// (generated, written) struct names; the writer emits them in type-arena order, which
    /// parsing its output reproduces.
    structs: Vec<(String, String)>,
}

impl Written {
    fn of(module: &naga::Module, wgsl: &str) -> Result<Written, String> {
        let back = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
        let structs = |m: &naga::Module| -> Vec<String> {
            m.types
                .iter()
                .filter(|(_, t)| matches!(t.inner, naga::TypeInner::Struct { .. }))
                .filter_map(|(_, t)| t.name.clone())
                .collect()
        };
        let (before, after) = (structs(module), structs(&back));
        if before.len() != after.len() || module.entry_points.len() != back.entry_points.len() {
            return Err("naga's written module has other structs or entry points than the generated one".into());
        }
        Ok(Written {
            entry_points: module
                .entry_points
                .iter()
                .zip(&back.entry_points)
                .map(|(a, b)| (a.name.clone(), b.name.clone()))
                .collect(),
            structs: before.into_iter().zip(after).collect(),
        })
    }

    fn rename(&self, manifest: &mut Manifest) {
        let find = |list: &[(String, String)], name: &mut String| {
            if let Some((_, w)) = list.iter().find(|(g, _)| g == name) {
                *name = w.clone();
            }
        };
        let eps = &mut manifest.entry_points;
        find(&self.entry_points, &mut eps.init);
        find(&self.entry_points, &mut eps.main);
        for d in &mut eps.dispatches {
            find(&self.entry_points, &mut d.entry_point);
        }
        for b in &mut manifest.bindings {
            find(&self.structs, &mut b.element.wgsl);
        }
    }
}

/// Workgroup memory of a module in bytes, each variable rounded up to 16 bytes as WebGPU
/// implementations count it (Dawn does).
struct WorkgroupMemory {
    total: u32,
    /// The executor's staging area.
    staging: u32,
    /// The program's own `var<workgroup>` items: (name, bytes), in declaration order.
    user: Vec<(String, u32)>,
}

impl WorkgroupMemory {
    fn of(module: &naga::Module, layout: &Layout) -> Self {
        let mut layouter = naga::proc::Layouter::default();
        // A type naga cannot lay out was already rejected by the checker's validation.
        let known = layouter.update(module.to_ctx()).is_ok();
        let mut memory = WorkgroupMemory {
            total: 0,
            staging: (4 * layout.staging_words).next_multiple_of(16),
            user: Vec::new(),
        };
        for (handle, var) in module.global_variables.iter() {
            if var.space != naga::AddressSpace::WorkGroup {
                continue;
            }
            let bytes = if known {
                layouter[var.ty].size.next_multiple_of(16)
            } else {
                0
            };
            memory.total = memory.total.saturating_add(bytes);
            let name = var.name.clone().unwrap_or_else(|| format!("{handle:?}"));
            if !name.starts_with("dyn_") {
                memory.user.push((name, bytes));
            }
        }
        memory
    }
}

/// DYN0502, pointing at the largest `var<workgroup>`.
fn workgroup_memory(program: &Program, memory: &WorkgroupMemory) -> Diagnostic {
    let user: u32 = memory.user.iter().map(|(_, b)| b).sum();
    let scheduler = memory.total - memory.staging - user;
    let limit = layout::WORKGROUP_MEMORY;
    let biggest = memory.user.iter().max_by_key(|(_, b)| *b);
    let (span, label) =
        match biggest.and_then(|(n, b)| program.workgroup_vars.iter().find(|(v, _)| v == n).map(|(_, s)| (s, b))) {
            Some((span, bytes)) => (span.clone(), format!("{bytes} bytes")),
            None => (program.entry.span.clone(), "in this program".to_string()),
        };
    Diagnostic::error(
        codes::DYN0502,
        format!("workgroup memory over the {limit} bytes WebGPU guarantees"),
        span,
        label,
    )
    .with_note(format!(
        "the program's `var<workgroup>` items take {user} bytes and the executor's scheduler state {scheduler}: {} bytes, leaving {} for the staging area of a batch, less than one unit needs",
        user + scheduler,
        limit.saturating_sub(user + scheduler)
    ))
    .with_hint(if user > 0 {
        "make the `var<workgroup>` arrays smaller, or keep the data in a `buffer`".to_string()
    } else {
        // No arrays of the program's to blame: the scheduler's per-stage state is what grew.
        format!(
            "the scheduler's state grows with the number of stages ({}): use fewer stages, e.g. one stage that `switch`es on a payload field instead of many alike",
            program.stages.len()
        )
    })
}

/// What the artifact needs of a device: counted from its bindings, entry points and sizes.
fn limits(program: &Program, m: &Manifest, workgroup_memory: u32) -> art::Limits {
    let storage = m.bindings.iter().filter(|b| b.access != art::Access::Uniform);
    let workgroup = m
        .entry_points
        .dispatches
        .iter()
        .map(|d| d.workgroup_size)
        .chain([m.workgroup_size])
        .max()
        .unwrap_or(m.workgroup_size);
    let constant_bytes = |b: &art::Binding| -> Option<u64> {
        let len = b.length.as_ref()?.eval(&|_| None, &|_| None).ok()?;
        len.checked_mul(b.element.size as u64)
    };
    let biggest = storage.clone().filter_map(constant_bytes).max().unwrap_or(0);
    art::Limits {
        max_bind_groups: m.bindings.iter().map(|b| b.group + 1).max().unwrap_or(1),
        max_bindings_per_bind_group: m.bindings.iter().map(|b| b.binding + 1).max().unwrap_or(1),
        max_storage_buffers_per_shader_stage: storage.count() as u32,
        max_uniform_buffers_per_shader_stage: 1,
        max_compute_workgroup_storage_size: workgroup_memory,
        max_compute_invocations_per_workgroup: workgroup,
        max_compute_workgroup_size_x: workgroup,
        max_storage_buffer_binding_size: biggest.max(m.executor.arena.min_bytes),
        max_uniform_buffer_binding_size: params_size(program) as u64,
    }
}

/// DYN0503, one per limit above WebGPU's defaults: a device created with the defaults (a
/// browser's `requestDevice()`) refuses the pipelines or the buffers.
fn limit_warnings(program: &Program, m: &Manifest) -> Vec<Diagnostic> {
    let resource = |name: &str| program.resources.values().find(|r| r.name == name);
    let storage: Vec<&art::Binding> = m.bindings.iter().filter(|b| b.access != art::Access::Uniform).collect();
    m.limits
        .exceeding(&art::Limits::WEBGPU_DEFAULTS)
        .into_iter()
        .map(|(name, need, default)| {
            // Where to point (the declaration that needs it, when it is the user's), and what to say.
            let user_storage: Vec<&&art::Binding> = storage.iter().filter(|b| resource(&b.name).is_some()).collect();
            let (culprit, label, note, fix) = match name {
                "maxStorageBuffersPerShaderStage" => (
                    user_storage.last().map(|b| b.name.as_str()),
                    format!("{} storage buffers with this one, {need} with the executor's", user_storage.len()),
                    format!(
                        "{} of the program's resources and {} of the executor's buffers ({}) are storage buffers, all bound for every entry point",
                        user_storage.len(),
                        storage.len() - user_storage.len(),
                        storage
                            .iter()
                            .filter(|b| resource(&b.name).is_none())
                            .map(|b| format!("`{}`", b.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    "or merge resources that are read together into one array of a struct",
                ),
                "maxBindGroups" => (
                    m.bindings.iter().max_by_key(|b| b.group).map(|b| b.name.as_str()),
                    format!("bind group {}", need - 1),
                    format!("bind groups 0 to {} make {need}", need - 1),
                    "or pin resources to groups 0 to 3",
                ),
                "maxBindingsPerBindGroup" => (
                    m.bindings.iter().max_by_key(|b| b.binding).map(|b| b.name.as_str()),
                    format!("binding {}", need - 1),
                    format!("binding numbers 0 to {} make {need} per group", need - 1),
                    "or use smaller binding numbers",
                ),
                "maxStorageBufferBindingSize" => {
                    let buffer = storage
                        .iter()
                        .find(|b| b.length.as_ref().and_then(|l| l.eval(&|_| None, &|_| None).ok()).map(|n| n.saturating_mul(b.element.size as u64)) == Some(need));
                    (
                        buffer.map(|b| b.name.as_str()),
                        format!("{need} bytes in every run"),
                        match buffer {
                            Some(_) => "a buffer of constant length is bound whole".to_string(),
                            None => format!("the smallest arena is {need} bytes"),
                        },
                        "or make the buffer smaller",
                    )
                }
                _ => (None, format!("this program needs {name} {need}"), String::new(), ""),
            };
            let (span, label) = match culprit.and_then(resource) {
                Some(r) => (r.span.clone(), label),
                None => (program.entry.span.clone(), format!("this program needs {name} {need}")),
            };
            let mut d = Diagnostic::warning(
                codes::DYN0503,
                format!("needs {name} {need}, above WebGPU's default of {default}"),
                span,
                label,
            );
            if !note.is_empty() {
                d = d.with_note(note);
            }
            d.with_hint(format!(
                "a device created with the defaults refuses it: request `{name}: {need}` when creating the device (the manifest's `limits` lists every limit this program needs; most adapters allow more){}{fix}",
                if fix.is_empty() { "" } else { ", " }
            ))
        })
        .collect()
}

const HEADER: &str = "// Generated by dyngc. Do not edit: change the .dyn file and rebuild.\n";

/// One translated output of [`emit`].
#[derive(Clone, Debug)]
pub struct Emitted {
    /// The entry point it holds, for targets with one entry point per shader (GLSL); `None` when
    /// it holds the whole module.
    pub entry_point: Option<String>,
    pub bytes: Vec<u8>,
}

/// Translates an artifact's module through one of naga's other backends: one output, or for GLSL
/// (one entry point per shader) one per compute entry point.
pub fn emit(artifact: &Artifact, target: Emit) -> Result<Vec<Emitted>, String> {
    if target == Emit::Glsl {
        return artifact
            .module
            .entry_points
            .iter()
            .map(|ep| {
                Ok(Emitted {
                    entry_point: Some(ep.name.clone()),
                    bytes: emit_glsl(artifact, &ep.name)?,
                })
            })
            .collect();
    }
    Ok(vec![Emitted {
        entry_point: None,
        bytes: emit_whole(artifact, target)?,
    }])
}

fn emit_whole(artifact: &Artifact, target: Emit) -> Result<Vec<u8>, String> {
    let (module, info) = (&artifact.module, &artifact.info);
    match target {
        Emit::Spv => {
            let words = naga::back::spv::write_vec(module, info, &naga::back::spv::Options::default(), None)
                .map_err(|e| e.to_string())?;
            Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
        }
        Emit::Msl => {
            let (text, _) =
                naga::back::msl::write_string(module, info, &naga::back::msl::Options::default(), &Default::default())
                    .map_err(|e| e.to_string())?;
            Ok(text.into_bytes())
        }
        Emit::Hlsl => {
            let mut text = String::new();
            let options = naga::back::hlsl::Options::default();
            let pipeline = naga::back::hlsl::PipelineOptions::default();
            naga::back::hlsl::Writer::new(&mut text, &options, &pipeline)
                .write(module, info, None)
                .map_err(|e| e.to_string())?;
            Ok(text.into_bytes())
        }
        Emit::Glsl => emit_glsl(artifact, &artifact.manifest.entry_points.main),
    }
}

fn emit_glsl(artifact: &Artifact, entry_point: &str) -> Result<Vec<u8>, String> {
    let options = naga::back::glsl::Options {
        version: naga::back::glsl::Version::Desktop(430),
        ..Default::default()
    };
    let pipeline = naga::back::glsl::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry_point.to_string(),
        multiview: None,
    };
    let mut text = String::new();
    naga::back::glsl::Writer::new(
        &mut text,
        &artifact.module,
        &artifact.info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .and_then(|mut w| w.write())
    .map_err(|e| e.to_string())?;
    Ok(text.into_bytes())
}

/// DYN0504 when `lanes` is not a worker size the executor has, or when the program has code
/// written against the default 64 lanes (`@width` stages see `dyn_group()` in `0..64 / N`, and
/// `var<workgroup>` arrays are sized for them).
fn check_lanes(program: &Program, lanes: u32) -> Result<(), Vec<Diagnostic>> {
    let choices = || LANE_CHOICES.map(|n| n.to_string()).join(", ");
    if !LANE_CHOICES.contains(&lanes) {
        return Err(vec![Diagnostic::error(
            codes::DYN0504,
            format!("a worker cannot have {lanes} lanes"),
            program.entry.span.clone(),
            "in this program",
        )
        .with_hint(format!("choose one of {}", choices()))]);
    }
    if lanes == DEFAULT_LANES {
        return Ok(());
    }
    let wide = program
        .stages
        .values()
        .find(|s| s.width > 1)
        .map(|s| (s.span.clone(), format!("`{}` is a `@width({})` stage", s.name, s.width)));
    let shared = program
        .workgroup_vars
        .first()
        .map(|(name, span)| (span.clone(), format!("`{name}` is workgroup memory")));
    match wide.or(shared) {
        None => Ok(()),
        Some((span, label)) => Err(vec![Diagnostic::error(
            codes::DYN0504,
            format!("{lanes} lanes per worker need a program without wide stages and workgroup memory"),
            span,
            label,
        )
        .with_note(format!(
            "wide stages and `var<workgroup>` items are written against a worker of {DEFAULT_LANES} lanes"
        ))
        .with_hint(format!("build without `--lanes`, or with `--lanes {DEFAULT_LANES}`"))]),
    }
}

/// DYN0505 when spawns may nest deeper than a frame's depth field counts (the reserve rule
/// needs every frame's depth: docs/executor.md, "Why the stack fits in its reserve").
fn check_depth(program: &Program) -> Result<(), Vec<Diagnostic>> {
    if program.max_spawn_depth <= layout::MAX_SPAWN_DEPTH {
        return Ok(());
    }
    Err(vec![Diagnostic::error(
        codes::DYN0505,
        format!(
            "spawns may nest {} deep, more than the executor's limit of {}",
            program.max_spawn_depth,
            layout::MAX_SPAWN_DEPTH
        ),
        program.entry.span.clone(),
        "spawns from this entry",
    )
    .with_note("each `@max_depth(N)` recursion on a chain of spawns adds its N levels to the depth")
    .with_hint("lower the `@max_depth` bounds, or turn the deepest recursion into a worklist through a `@keyed` stage (its spawns do not nest)")])
}

/// DYN0501, pointing at the stage with the largest payload.
fn too_large(program: &Program) -> Diagnostic {
    let words = |s: &dyngc_ir::Stage| s.payload.as_ref().map_or(0, |(_, t)| t.words(&program.structs));
    let biggest = program
        .stages
        .values()
        .max_by_key(|s| words(s))
        .expect("a program has an entry stage");
    let spawners: Vec<&str> = program
        .stages
        .values()
        .filter(|s| s.max_spawns > 1)
        .map(|s| s.name.as_str())
        .collect();
    let header = layout::RecCounter::of(program).header_words();
    let mut d = Diagnostic::error(
        codes::DYN0501,
        "a work item is too large for the executor's workgroup memory",
        biggest.span.clone(),
        format!(
            "`{}` carries a {}-word payload; with {} header words a work item is {} bytes",
            biggest.name,
            words(biggest),
            header,
            4 * (header + program.max_payload_words)
        ),
    )
    .with_hint("make payloads smaller (pass an index into a buffer instead of the data) or spawn fewer items per unit");
    if !spawners.is_empty() {
        d = d.with_note(format!(
            "stages spawning several items per unit: {}",
            spawners.join(", ")
        ));
    }
    d
}

fn internal(program: &Program, message: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error(
        codes::DYN0500,
        "internal error: naga rejected the generated megakernel",
        program.entry.span.clone(),
        "while generating code for this graph",
    )
    .with_note(message)
    .with_hint("this is a bug in dyngc; please report it with the .dyn file")]
}

/// Binding numbers of the executor's own buffers: the lowest free ones in group 0.
struct ExecutorBindings {
    params: u32,
    control: u32,
    arena: u32,
    marks: Option<u32>,
}

impl ExecutorBindings {
    fn new(program: &Program) -> Self {
        let used: Vec<u32> = program
            .resources
            .values()
            .filter(|r| r.group == 0)
            .map(|r| r.binding)
            .collect();
        let mut free = (0..).filter(move |b| !used.contains(b));
        let mut next = || free.next().expect("infinite range");
        let params = next();
        let control = next();
        let arena = next();
        let marks = program.stages.values().any(|s| s.keyed.is_some()).then(&mut next);
        ExecutorBindings {
            params,
            control,
            arena,
            marks,
        }
    }
}

fn module_text(
    executable: &Executable,
    partition: &Partition,
    layout: &Layout,
    bindings: &ExecutorBindings,
    accumulators: &[accumulate::Accumulator],
) -> String {
    let program: &Program = executable;
    let mut out = ModuleText::default();
    out.push(&layout.wgsl_constants(program.stages.len()));
    out.push("\n");
    out.push(&glue::params_struct(program));
    out.push(&format!(
        "@group(0) @binding({}) var<uniform> dyn_params: DynParams;\n",
        bindings.params
    ));
    out.push(&format!(
        "@group(0) @binding({}) var<storage, read_write> dyn_control: array<atomic<u32>>;\n",
        bindings.control
    ));
    out.push(&format!(
        "@group(0) @binding({}) var<storage, read_write> dyn_arena: array<atomic<u32>>;\n",
        bindings.arena
    ));
    match bindings.marks {
        Some(b) => out.push(&format!(
            "@group(0) @binding({b}) var<storage, read_write> dyn_marks: array<atomic<u32>>;\n"
        )),
        // No keyed stage: the sweep code still names the marks, so give it an empty stand-in.
        None => out.push("var<workgroup> dyn_marks: array<atomic<u32>, 1>;\n"),
    }
    out.push("\n");
    out.push(&streams::stream_glue(program, layout));
    dyngc_ir::wgsl::user_module(executable, &mut out, &|k| glue::site_fn(program, partition, k), &|r| {
        streams::emit_fn(program, r)
    });
    out.push(&glue::executor_glue(program, partition, layout));
    out.push(&accumulate::wgsl(accumulators));
    out.push("\n");
    out.push(EXECUTOR_WGSL);
    if !partition.dispatches.is_empty() {
        out.push("\n");
        out.push(QUEUES_WGSL);
        out.push(&glue::dispatch_kernels(program, partition));
        out.push(&glue::fallback_wgsl(program, partition));
    }
    out.text
}

fn scalar_kind(s: Scalar) -> art::ScalarKind {
    match s {
        Scalar::U32 => art::ScalarKind::U32,
        Scalar::I32 => art::ScalarKind::I32,
        Scalar::F32 => art::ScalarKind::F32,
    }
}

/// (size, alignment) of a type in a storage buffer, by WGSL's layout rules.
fn storage_layout(program: &Program, ty: &Ty) -> (u32, u32) {
    match ty {
        Ty::Scalar(_) | Ty::Atomic(_) => (4, 4),
        Ty::Vector(2, _) => (8, 8),
        Ty::Vector(3, _) => (12, 16),
        Ty::Vector(_, _) => (16, 16),
        Ty::Struct(i) => {
            let (mut size, mut align) = (0u32, 4u32);
            for (_, t) in &program.structs[*i].fields {
                let (s, a) = storage_layout(program, t);
                size = size.next_multiple_of(a) + s;
                align = align.max(a);
            }
            (size.next_multiple_of(align), align)
        }
    }
}

fn element(program: &Program, ty: &Ty, is_array: bool) -> art::Element {
    let (size, align) = storage_layout(program, ty);
    let (scalar, components, atomic) = match ty {
        Ty::Scalar(s) => (Some(scalar_kind(*s)), 1, false),
        Ty::Atomic(s) => (Some(scalar_kind(*s)), 1, true),
        Ty::Vector(n, s) => (Some(scalar_kind(*s)), *n as u32, false),
        Ty::Struct(i) => (None, program.structs[*i].fields.len() as u32, false),
    };
    art::Element {
        scalar,
        components,
        atomic,
        wgsl: ty.wgsl(&program.structs),
        // Array elements are strided by their alignment (vec3 takes 16 bytes).
        size: if is_array { size.next_multiple_of(align) } else { size },
    }
}

fn length_rule(program: &Program, e: &SizeExpr) -> art::LengthRule {
    use art::LengthRule as L;
    match e {
        SizeExpr::Int(v) => L::Const(*v),
        SizeExpr::Len(r) => L::Len(program.resources[*r].name.clone()),
        SizeExpr::Param(p) => L::Param(program.params[*p].name.clone()),
        SizeExpr::Binary(op, a, b) => {
            let (a, b) = (Box::new(length_rule(program, a)), Box::new(length_rule(program, b)));
            match op {
                BinOp::Add => L::Add(a, b),
                BinOp::Sub => L::Sub(a, b),
                BinOp::Mul => L::Mul(a, b),
                BinOp::Div => L::Div(a, b),
            }
        }
    }
}

/// Bytes of the executor's config words at the start of the parameter uniform (`workers`,
/// `ring_slots`, `fuel`, `dispatch_groups`, `queue_frames`, `stack_frames`:
/// `glue::params_struct`).
const CONFIG_BYTES: u32 = 24;

/// Bytes of the parameter uniform: the config words, the parameters, the lengths, padded to 16.
fn params_size(program: &Program) -> u32 {
    (CONFIG_BYTES + 4 * param_fields(program)).next_multiple_of(16)
}

/// 32-bit fields of the parameter uniform after the config words: parameters, lengths and
/// stream capacities.
fn param_fields(program: &Program) -> u32 {
    (program.params.len() + glue::length_slots(program).count() + program.streams().len()) as u32
}

fn manifest(
    program: &Program,
    schedule: Schedule,
    partition: &Partition,
    layout: &Layout,
    eb: &ExecutorBindings,
) -> Manifest {
    let mut bindings: Vec<art::Binding> = program
        .resources
        .values()
        .map(|r| art::Binding {
            name: r.name.clone(),
            group: r.group,
            binding: r.binding,
            role: match r.kind {
                ResourceKind::Input => art::Role::Input,
                ResourceKind::Output if r.stream => art::Role::Stream,
                ResourceKind::Output => art::Role::Output,
                ResourceKind::Buffer => art::Role::Buffer,
            },
            access: if glue::is_writable(r.kind) {
                art::Access::ReadWrite
            } else {
                art::Access::Read
            },
            element: element(program, &r.elem, r.is_array || r.stream),
            array: r.is_array || r.stream,
            length: r.len.as_ref().map(|l| length_rule(program, l)),
            fill: r.fill.map(|l| l.bits),
        })
        .collect();
    let word = |name: &str, binding: u32, role: art::Role| art::Binding {
        name: name.to_string(),
        group: 0,
        binding,
        role,
        access: art::Access::ReadWrite,
        element: art::Element {
            scalar: Some(art::ScalarKind::U32),
            components: 1,
            atomic: true,
            wgsl: "atomic<u32>".into(),
            size: 4,
        },
        array: true,
        length: None,
        fill: None,
    };
    // The parameter uniform is one struct of 32-bit fields: the config words, the parameters and
    // the lengths, padded to `params_size`.
    let fields = 4 + param_fields(program);
    bindings.push(art::Binding {
        access: art::Access::Uniform,
        element: art::Element {
            scalar: None,
            components: fields,
            atomic: false,
            wgsl: "DynParams".into(),
            size: params_size(program),
        },
        array: false,
        ..word("dyn_params", eb.params, art::Role::Params)
    });
    bindings.push(word("dyn_control", eb.control, art::Role::Control));
    bindings.push(word("dyn_arena", eb.arena, art::Role::Arena));
    if let Some(b) = eb.marks {
        bindings.push(word("dyn_marks", b, art::Role::Marks));
    }
    bindings.sort_by_key(|b| (b.group, b.binding));

    let params = program
        .params
        .iter()
        .map(|(i, p)| art::ParamInfo {
            name: p.name.clone(),
            scalar: scalar_kind(p.ty),
            offset: CONFIG_BYTES + 4 * i.index() as u32,
            default: p.default.map(|l| l.bits),
        })
        .collect();
    let stages = program
        .stages
        .iter()
        .map(|(id, s)| art::StageInfo {
            id: id.index() as u32,
            name: s.name.clone(),
            keyed: s.keyed.as_ref().map(|d| length_rule(program, d)),
            max_depth: s.max_depth,
        })
        .collect();
    let lengths: Vec<art::LengthSlot> = glue::length_slots(program)
        .enumerate()
        .map(|(i, r)| art::LengthSlot {
            binding: r.name.clone(),
            offset: CONFIG_BYTES + 4 * (program.params.len() + i) as u32,
        })
        .collect();
    let bytes_per_worker = layout.bytes_per_worker(layout.stack_frames);
    // Queues take as many frames as the ring has slots: a build with queues keeps half the arena
    // for the ring and no cap on it.
    let (reserve_sixteenths, ring_slots_per_worker) = if partition.dispatches.is_empty() {
        (layout::RESERVE_SIXTEENTHS, layout::RING_SLOTS_PER_WORKER)
    } else {
        (layout::RESERVE_SIXTEENTHS_WITH_QUEUES, 0)
    };
    let bytes_per_slot = layout.bytes_per_slot();
    let control = layout::control;
    Manifest {
        schema: art::SCHEMA.to_string(),
        name: program.name.clone(),
        wgsl: format!("{}.wgsl", program.name),
        workgroup_size: layout.lanes,
        entry_points: art::EntryPoints {
            init: "dyn_init".into(),
            main: "dyn_main".into(),
            dispatches: partition
                .dispatches
                .iter()
                .enumerate()
                .map(|(q, d)| art::Dispatch {
                    entry_point: glue::dispatch_entry_point(program, d),
                    stage: d.stage.index() as u32,
                    workgroup_size: d.workgroup_size,
                    indirect_args: layout.queue_control + q as u32 * layout::QUEUE_WORDS,
                })
                .collect(),
        },
        // Filled in by `limits` once the module is known.
        limits: art::Limits::default(),
        entry: art::EntryInfo {
            stage: program.entry.stage.index() as u32,
            count: length_rule(program, &program.entry.count),
        },
        bindings,
        params,
        stages,
        executor: art::Executor {
            config: art::ConfigLayout {
                workers: 0,
                ring_slots: 4,
                fuel: 8,
                dispatch_groups: 12,
                queue_frames: 16,
                stack_frames: 20,
            },
            params_size: params_size(program),
            lengths,
            arena: art::ArenaLayout {
                frame_words: layout.frame_words,
                stack_frames: layout.stack_frames,
                min_stack_frames: layout.min_stack_frames,
                min_ring_slots: layout::MIN_RING_SLOTS,
                bytes_per_worker,
                bytes_per_slot,
                min_bytes: layout.bytes_per_worker(layout.min_stack_frames)
                    + bytes_per_slot * layout::MIN_RING_SLOTS as u64,
                reserve_sixteenths,
                ring_slots_per_worker,
                shard_workers: layout::SHARD_WORKERS,
                min_shard_slots: layout::MIN_SHARD_SLOTS,
                max_shards: layout::MAX_SHARDS,
            },
            control: art::ControlLayout {
                words: layout.control_words,
                indirect_args: control("ARGS"),
                done: layout.complete,
                error: control("ERROR"),
                stats: layout::STATS
                    .iter()
                    .map(|(word, name, meaning)| art::StatField {
                        name: name.to_string(),
                        word: control(word),
                        meaning: meaning.to_string(),
                    })
                    .collect(),
                units_per_stage: control("UNITS"),
            },
            defaults: art::Defaults {
                workers: layout::DEFAULT_WORKERS,
                fuel: layout::DEFAULT_FUEL,
                chain_length: layout::CHAIN_LENGTH,
            },
            errors: layout::ERRORS
                .iter()
                .map(|(code, name, meaning)| art::ErrorInfo {
                    code: *code,
                    name: name.to_string(),
                    meaning: meaning.to_string(),
                })
                .collect(),
            max_spawn_depth: program.max_spawn_depth,
            graph_loop: program.entry.until.as_ref().map(|_| art::GraphLoop {
                max_rounds: program.entry.max_rounds,
            }),
            schedule,
            streams: program
                .streams()
                .iter()
                .enumerate()
                .map(|(j, &r)| {
                    let (sub_windows_word, counts_word) = layout.stream_words(j as u32);
                    art::StreamInfo {
                        binding: program.resources[r].name.clone(),
                        capacity_offset: CONFIG_BYTES
                            + 4 * (program.params.len() + glue::length_slots(program).count() + j) as u32,
                        sub_windows_word,
                        counts_word,
                        counts_stride: layout::LINE_WORDS,
                        max_sub_windows: layout::STREAM_SUB_WINDOWS,
                        min_capacity: streams::min_capacity(program, r),
                        fields: match &program.resources[r].elem {
                            Ty::Struct(_) => {
                                let mut fields = Vec::new();
                                struct_fields(program, &program.resources[r].elem, "", 0, &mut fields);
                                fields
                            }
                            _ => Vec::new(),
                        },
                    }
                })
                .collect(),
            stream_full: (layout.streams > 0).then_some(layout.stream_control),
        },
    }
}

/// The scalar and vector fields of a struct element at their storage offsets, nested structs
/// flattened with dotted names.
fn struct_fields(program: &Program, ty: &Ty, prefix: &str, base: u32, out: &mut Vec<art::FieldInfo>) {
    let Ty::Struct(i) = ty else { return };
    let mut offset = 0u32;
    for (name, t) in &program.structs[*i].fields {
        let (size, align) = storage_layout(program, t);
        offset = offset.next_multiple_of(align);
        let full = format!("{prefix}{name}");
        match t {
            Ty::Scalar(s) | Ty::Atomic(s) => out.push(art::FieldInfo {
                name: full,
                scalar: scalar_kind(*s),
                components: 1,
                offset: base + offset,
            }),
            Ty::Vector(n, s) => out.push(art::FieldInfo {
                name: full,
                scalar: scalar_kind(*s),
                components: u32::from(*n),
                offset: base + offset,
            }),
            Ty::Struct(_) => struct_fields(program, t, &format!("{full}."), base + offset, out),
        }
        offset += size;
    }
}
