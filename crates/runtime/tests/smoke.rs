//! The runtime's launch protocol against a small hand-written kernel that follows the manifest
//! contract (no compiler involved): indirect arguments, done flag, error words, statistics, fills,
//! several submissions. Needs a WebGPU adapter (e.g. SwiftShader through VK_ICD_FILENAMES); without
//! one it says so and passes.

use dyngc_runtime::artifact::*;
use dyngc_runtime::{open_gpu, Error, RunSetup, WaitOptions};

const WGSL: &str = r#"
struct Params { workers: u32, ring_slots: u32, fuel: u32, dispatch_groups: u32, queue_frames: u32, fail_at: u32 }
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@group(0) @binding(2) var<storage, read_write> filled: array<u32>;
@group(1) @binding(0) var<uniform> params: Params;
@group(1) @binding(1) var<storage, read_write> control: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read_write> arena: array<atomic<u32>>;

// control: 0..3 indirect args, 3 done, 4..8 error, 8 launches, 9 arrived, 10 round, 12 units
@compute @workgroup_size(64)
fn init(@builtin(local_invocation_index) li: u32) {
    if (li == 0u) {
        atomicStore(&control[0], params.workers);
        atomicStore(&control[1], 1u);
        atomicStore(&control[2], 1u);
        atomicStore(&arena[arrayLength(&arena) - 1u], 7u);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let round = atomicLoad(&control[10]);
    let n = arrayLength(&x);
    let i = round * params.workers * 64u + wg.x * 64u + li;
    if (i < n) {
        y[i] = x[i] * 2u + filled[i];
        atomicAdd(&control[12], 1u);
    }
    workgroupBarrier();
    if (li == 0u && atomicAdd(&control[9], 1u) == params.workers - 1u) {
        atomicStore(&control[9], 0u);
        atomicAdd(&control[8], 1u);
        if (round + 1u == params.fail_at) {
            atomicStore(&control[4], 1u);
            atomicStore(&control[5], 0u);
            atomicStore(&control[6], round + 1u);
            atomicStore(&control[7], params.fail_at - 1u);
        }
        if ((round + 1u) * params.workers * 64u >= n || round + 1u == params.fail_at) {
            atomicStore(&control[0], 0u);
            atomicStore(&control[3], 1u);
        }
        atomicStore(&control[10], round + 1u);
    }
}
"#;

fn binding(name: &str, group: u32, slot: u32, role: Role, access: Access) -> Binding {
    Binding {
        name: name.into(),
        group,
        binding: slot,
        role,
        access,
        element: Element {
            scalar: Some(ScalarKind::U32),
            components: 1,
            atomic: false,
            wgsl: "u32".into(),
            size: 4,
        },
        array: role != Role::Params,
        length: None,
        fill: None,
    }
}

fn manifest() -> Manifest {
    let mut y = binding("y", 0, 1, Role::Output, Access::ReadWrite);
    y.length = Some(LengthRule::Len("x".into()));
    let mut filled = binding("filled", 0, 2, Role::Buffer, Access::ReadWrite);
    filled.length = Some(LengthRule::Len("x".into()));
    filled.fill = Some(5);
    Manifest {
        schema: SCHEMA.into(),
        name: "smoke".into(),
        wgsl: "smoke.wgsl".into(),
        workgroup_size: 64,
        entry_points: EntryPoints {
            init: "init".into(),
            main: "main".into(),
            dispatches: Vec::new(),
        },
        limits: Limits::default(),
        entry: EntryInfo {
            stage: 0,
            count: LengthRule::Len("x".into()),
        },
        bindings: vec![
            binding("x", 0, 0, Role::Input, Access::Read),
            y,
            filled,
            binding("params", 1, 0, Role::Params, Access::Uniform),
            binding("control", 1, 1, Role::Control, Access::ReadWrite),
            binding("arena", 1, 2, Role::Arena, Access::ReadWrite),
        ],
        params: vec![ParamInfo {
            name: "fail_at".into(),
            scalar: ScalarKind::U32,
            offset: 20,
            default: Some(0),
        }],
        stages: vec![StageInfo {
            id: 0,
            name: "double".into(),
            keyed: None,
            max_depth: Some(3),
        }],
        executor: Executor {
            config: ConfigLayout {
                workers: 0,
                ring_slots: 4,
                fuel: 8,
                dispatch_groups: 12,
                queue_frames: 16,
                stack_frames: 20,
            },
            params_size: 32,
            lengths: Vec::new(),
            arena: ArenaLayout {
                frame_words: 1,
                stack_frames: 1,
                min_stack_frames: 0,
                min_ring_slots: 4,
                bytes_per_worker: 8,
                bytes_per_slot: 8,
                min_bytes: 40,
                reserve_sixteenths: 8,
                ring_slots_per_worker: 0,
                shard_workers: 0,
                min_shard_slots: 0,
                max_shards: 0,
            },
            control: ControlLayout {
                words: 16,
                indirect_args: 0,
                done: 3,
                error: 4,
                stats: vec![StatField {
                    name: "launches".into(),
                    word: 8,
                    meaning: "launches that ran".into(),
                }],
                units_per_stage: 12,
            },
            defaults: Defaults {
                workers: 2,
                fuel: 1,
                chain_length: 2,
            },
            errors: vec![ErrorInfo {
                code: 1,
                name: "MAX_DEPTH".into(),
                meaning: "too deep".into(),
            }],
            max_spawn_depth: 1,
            graph_loop: None,
            schedule: Default::default(),
            streams: Vec::new(),
            stream_full: None,
        },
    }
}

#[test]
fn launch_protocol() {
    let gpu = match pollster::block_on(open_gpu()) {
        Ok(gpu) => gpu,
        Err(e @ Error::NoAdapter(_)) => {
            // The test command promises a device: there a missing adapter is a failure.
            assert!(
                std::env::var_os("DYNGC_REQUIRE_GPU").is_none(),
                "DYNGC_REQUIRE_GPU is set: {e}"
            );
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    eprintln!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    let m = manifest();
    let exec = dyngc_runtime::Executor::new(&gpu.device, &m, WGSL).unwrap();
    let x: Vec<u8> = (0..1000u32).flat_map(|v| v.to_le_bytes()).collect();

    let mut setup = RunSetup::new(1 << 12);
    setup.input("x", &x);
    let mut run = exec.prepare(&gpu.queue, &setup).unwrap();
    assert_eq!((run.plan().workers, run.len("y")), (2, Some(1000)));
    let mut progress = Vec::new();
    let stats = run
        .execute(&WaitOptions::default(), &mut |p| progress.push(p.submissions))
        .unwrap();
    // 1000 elements, 128 per launch: 8 launches; one in the first submission, then the chain
    // length (2) in each: 1 + 2 + 2 + 2 + 1 (the last submission's second launch is empty).
    assert_eq!(stats.get("launches"), Some(8));
    assert_eq!(stats.units("double"), Some(1000));
    assert_eq!(stats.host.submissions, 5);
    assert_eq!(stats.host.launches, 9);
    assert_eq!(progress, vec![1, 2, 3, 4]);
    let outputs = run.read_outputs().unwrap();
    assert_eq!(outputs.len(), 1);
    let y: Vec<u32> = outputs[0]
        .1
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(y, (0..1000).map(|v| v * 2 + 5).collect::<Vec<_>>());

    // A second run on the same buffers after a reset.
    run.reset_outputs().unwrap();
    let stats = run.execute(&WaitOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(stats.get("launches"), Some(8));

    // The kernel's error words become Error::Kernel.
    setup.param("fail_at", 3);
    let mut run = exec.prepare(&gpu.queue, &setup).unwrap();
    let e = run.execute(&WaitOptions::default(), &mut |_| {}).unwrap_err();
    assert_eq!(
        e.to_string(),
        "stage `double` exceeded its declared @max_depth(2) (reached 3)"
    );

    // A submission limit turns into a timeout.
    let mut setup = RunSetup::new(1 << 12);
    setup.input("x", &x);
    let mut run = exec.prepare(&gpu.queue, &setup).unwrap();
    let e = run
        .execute(
            &WaitOptions {
                max_submissions: 2,
                ..Default::default()
            },
            &mut |_| {},
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Timeout {
                submissions: 2,
                launches: 3,
                limit: None,
                ..
            }
        ),
        "{e}"
    );

    // Empty inputs still bind.
    let mut setup = RunSetup::new(1 << 12);
    setup.input("x", &[]);
    let mut run = exec.prepare(&gpu.queue, &setup).unwrap();
    run.execute(&WaitOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(run.read_outputs().unwrap()[0].1.len(), 0);

    // A WGSL module that does not match the manifest is a clear error, not a panic.
    let e = dyngc_runtime::Executor::new(&gpu.device, &m, "@compute @workgroup_size(1) fn init() {}").unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }), "{e}");
}
