//! The megakernel against the CPU references, on a real WebGPU device (SwiftShader in CI).
//!
//! Every shipped example runs, under each schedule that gives it different kernels (the
//! megakernel always; the partitioned schedule when it dispatches some stage), for every
//! combination of arena (the minimum, about four times the
//! minimum, 64 MiB), requested workers (1, 4, 64) and fuel (2, forcing many re-launches, and the
//! manifest's default); every output must equal the reference exactly, `pending` must be 0 and
//! each stage must have run the number of units the reference predicts. The smallest arena holds
//! one worker and the smallest ring, so the big inputs must take the serial fallback there. Two
//! more tests check that violated declarations (`@max_depth`, `@keyed` domain) stop the run with
//! the kernel's error instead of an output.
//!
//! There is no skipping: without an adapter the tests fail (install SwiftShader and set
//! `VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`; `scripts/test` does).

mod support;

use dyngc_codegen::Schedule;
use dyngc_reference::Csr;
use dyngc_runtime::{open_gpu, Error, Executor, Gpu, KernelError, Plan, RunSetup, Stats, WaitOptions};
use std::fmt;
use std::sync::{LazyLock, OnceLock};
use std::time::{Duration, Instant};
use support::Case;

/// One device for the whole binary.
static GPU: LazyLock<Gpu> = LazyLock::new(|| {
    let gpu = pollster::block_on(open_gpu()).unwrap_or_else(|e| {
        panic!("no WebGPU device for the GPU tests: {e}\n(these tests never skip; scripts/test installs SwiftShader)")
    });
    eprintln!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    gpu
});

const SCHEDULES: [Schedule; 2] = [Schedule::Megakernel, Schedule::Partitioned];

const LANES: [u32; 3] = dyngc_codegen::LANE_CHOICES;
const DEFAULT_LANES: u32 = dyngc_codegen::DEFAULT_LANES;

/// Each example compiled under each schedule and worker size and turned into pipelines once,
/// on first use.
const PROGRAMS: usize = support::EXAMPLES.len() + support::TEST_PROGRAMS.len();
static EXECUTORS: [[[OnceLock<Executor>; LANES.len()]; SCHEDULES.len()]; PROGRAMS] =
    [const { [const { [const { OnceLock::new() }; LANES.len()] }; SCHEDULES.len()] }; PROGRAMS];

fn executor(example: &str, schedule: Schedule, lanes: u32) -> &'static Executor {
    let i = support::EXAMPLES
        .iter()
        .chain(&support::TEST_PROGRAMS)
        .position(|&e| e == example)
        .expect("a shipped example or a test program");
    let j = SCHEDULES.iter().position(|&s| s == schedule).expect("a schedule");
    let k = LANES.iter().position(|&l| l == lanes).expect("a worker size");
    EXECUTORS[i][j][k].get_or_init(|| {
        let artifact = support::compile(
            example,
            dyngc_compiler::Options {
                schedule: schedule.into(),
                lanes,
            },
        );
        assert_eq!(
            artifact.manifest.workgroup_size, lanes,
            "{example}: the build ignored its lanes"
        );
        Executor::new(&GPU.device, &artifact.manifest, &artifact.wgsl).unwrap_or_else(|e| panic!("{example}: {e}"))
    })
}

/// The schedules whose kernels differ for `example`: the partitioned one only when it
/// dispatches some stage (otherwise it builds the same kernel).
fn schedules(example: &str) -> Vec<Schedule> {
    SCHEDULES
        .into_iter()
        .filter(|&s| {
            s == Schedule::Megakernel
                || !executor(example, s, DEFAULT_LANES)
                    .manifest()
                    .entry_points
                    .dispatches
                    .is_empty()
        })
        .collect()
}

/// Wall-clock limit of one run: far above what any case here needs, so a hang fails instead of
/// waiting for the runtime's default ten minutes. The slowest run is the comb's with 64 workers
/// and a fuel of 2 (about 2,000 launches of 64 workgroups): about 90 s alone on CI's 2 cores,
/// and past 120 s beside another test (CI failed so, sessions 34 and 35). Speed is never what
/// a test here asserts (benchmarks measure it).
const RUN_TIMEOUT: Duration = Duration::from_secs(300);
const LARGE_ARENA: u64 = 64 << 20;
/// The ring of one worker in the large arena where the build caps the ring per worker (the
/// runtime would give it 64 workers' worth, fewer slots than some cases have units).
const LARGE_RING: u32 = 1 << 20;
const TINY_FUEL: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arena {
    /// `executor.arena.min_bytes`: one worker and the smallest ring.
    Min,
    /// Four times the minimum.
    Quad,
    /// 64 MiB.
    Large,
}

#[derive(Clone, Copy, Debug)]
struct Combo {
    schedule: Schedule,
    /// Lanes per worker the example is built with (`dyngc build --lanes`).
    lanes: u32,
    arena: Arena,
    arena_bytes: u64,
    workers: u32,
    fuel: u32,
    tiny_fuel: bool,
    /// A ring the test chooses (an engine's own layout) instead of the runtime's.
    ring_slots: Option<u32>,
    /// A cap on each dispatch's workgroups (`dispatch_groups`, as a CPU device gets).
    dispatch_groups: Option<u32>,
    /// A cap on each queue's frames (`queue_frames`, as a CPU device gets).
    queue_frames: Option<u32>,
}

impl fmt::Display for Combo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?}{}, arena {:?} ({} bytes), {} workers requested, fuel {}{}{}{}{}",
            self.schedule,
            if self.lanes == DEFAULT_LANES {
                String::new()
            } else {
                format!(", {} lanes", self.lanes)
            },
            self.arena,
            self.arena_bytes,
            self.workers,
            self.fuel,
            if self.tiny_fuel { " (tiny)" } else { " (default)" },
            self.ring_slots
                .map_or_else(String::new, |r| format!(", ring of {r} slots")),
            self.dispatch_groups
                .map_or_else(String::new, |g| format!(", dispatches of at most {g} workgroups")),
            self.queue_frames
                .map_or_else(String::new, |q| format!(", queue frames capped at {q}"))
        )
    }
}

/// Every schedule × arena × workers × fuel combination for `example`.
fn combos(example: &str) -> Vec<Combo> {
    combos_with_lanes(example, DEFAULT_LANES)
}

fn combos_with_lanes(example: &str, lanes: u32) -> Vec<Combo> {
    let mut out = Vec::new();
    for schedule in schedules(example) {
        let ex = &executor(example, schedule, lanes).manifest().executor;
        let min = ex.arena.min_bytes;
        for (arena, arena_bytes) in [(Arena::Min, min), (Arena::Quad, 4 * min), (Arena::Large, LARGE_ARENA)] {
            for workers in [1, 4, 64] {
                for (fuel, tiny_fuel) in [(TINY_FUEL, true), (ex.defaults.fuel, false)] {
                    out.push(Combo {
                        schedule,
                        lanes,
                        arena,
                        arena_bytes,
                        workers,
                        fuel,
                        tiny_fuel,
                        // One worker in the large arena: a ring larger than any case's units
                        // (see `check_outcome`), chosen where the build caps the ring per worker.
                        ring_slots: (arena == Arena::Large && workers == 1 && ex.arena.ring_slots_per_worker > 0)
                            .then_some(LARGE_RING),
                        // One worker: every dispatch gets one workgroup too, which must still
                        // drain its whole queue.
                        dispatch_groups: (workers == 1).then_some(1),
                        // Four workers in the large arena: queues of one frame, so that nearly
                        // every spawn into a dispatched stage falls back while the ring is large.
                        queue_frames: (workers == 4 && arena == Arena::Large).then_some(1),
                    });
                }
            }
        }
    }
    out
}

/// What one completed run left.
struct Outcome {
    plan: Plan,
    stats: Stats,
    outputs: Vec<(String, Vec<u32>)>,
}

fn setup_for<'a>(case: &Case, inputs: &'a [(String, Vec<u8>)], combo: &Combo) -> RunSetup<'a> {
    let mut setup = RunSetup::new(combo.arena_bytes);
    for (name, bytes) in inputs {
        setup.input(name.clone(), bytes);
    }
    for (name, value) in &case.params {
        setup.param(name.clone(), *value);
    }
    setup.workers(combo.workers).fuel(combo.fuel);
    if let Some(slots) = combo.ring_slots {
        setup.ring_slots(slots);
    }
    setup.dispatch_groups = combo.dispatch_groups;
    setup.queue_frames = combo.queue_frames;
    setup
}

/// A run that returned an error, with its plan when it got that far.
struct Failed {
    plan: Option<Plan>,
    error: Error,
}

fn failed(plan: Option<Plan>, error: Error) -> Box<Failed> {
    Box::new(Failed { plan, error })
}

/// Prepares and executes one run.
fn run(case: &Case, combo: &Combo) -> Result<Outcome, Box<Failed>> {
    let exec = executor(case.example, combo.schedule, combo.lanes);
    let inputs = case.input_bytes();
    let setup = setup_for(case, &inputs, combo);
    let mut run = exec.prepare(&GPU.queue, &setup).map_err(|e| failed(None, e))?;
    let plan = run.plan().clone();
    let arena = run.buffer("dyn_arena").expect("every build has an arena");
    GPU.queue.write_buffer(arena, 0, &stale_arena(arena.size()));
    let opts = WaitOptions {
        timeout: RUN_TIMEOUT,
        ..Default::default()
    };
    let stats = match run.execute(&opts, &mut |_| {}) {
        Ok(stats) => stats,
        Err(e) => return Err(failed(Some(plan), e)),
    };
    let outputs = run
        .read_outputs()
        .map_err(|e| failed(Some(plan.clone()), e))?
        .into_iter()
        .map(|(name, bytes)| (name, support::u32s(&bytes)))
        .collect();
    Ok(Outcome { plan, stats, outputs })
}

/// What a run finds in its arena before it starts, in place of zeros: the runtime clears only
/// the stacks' positions and the ring states (`Manifest::arena_zeroed`), so every matrix run
/// also checks that no frame is read before it is written. Words 0, 1, 0, 1, ...: were the
/// positions left, each stack's top (0) would sit below its bottom (1) and the run would fail;
/// were the states left, half the slots would never read empty, and the large ring of one
/// worker, which must take every spawn (`check_outcome`), would fall back.
fn stale_arena(bytes: u64) -> Vec<u8> {
    (0..bytes / 4)
        .flat_map(|i| u32::from(i % 2 == 1).to_le_bytes())
        .collect()
}

/// Extra per-example statistics checks: `Err` with what failed.
type Extra<'a> = &'a dyn Fn(&Combo, &Outcome) -> Result<(), String>;

fn stat(stats: &Stats, name: &str) -> Result<u64, String> {
    stats
        .get(name)
        .ok_or_else(|| format!("the manifest has no `{name}` statistic"))
}

/// Runs `case` under every combination and checks each run; panics at the end listing every
/// failed combination with the plan and statistics.
fn check_matrix(case: &Case, expect_min_arena_fallback: bool, extra: Extra<'_>) {
    check_combos(case, &combos(case.example), expect_min_arena_fallback, extra);
}

fn check_combos(case: &Case, combos: &[Combo], expect_min_arena_fallback: bool, extra: Extra<'_>) {
    let started = Instant::now();
    let mut failures = Vec::new();
    for &combo in combos {
        let t = Instant::now();
        let result = run(case, &combo);
        let secs = t.elapsed().as_secs_f64();
        match result {
            Err(f) => {
                let Failed { plan, error: e } = *f;
                let plan = plan.map_or_else(String::new, |p| {
                    format!("\n  plan: {} workers, {} ring slots", p.workers, p.ring_slots)
                });
                failures.push(format!(
                    "{} `{}` [{combo}]: run failed: {e}{plan}",
                    case.example, case.label
                ));
            }
            Ok(outcome) => {
                let exec = executor(case.example, combo.schedule, combo.lanes);
                let mut problems = check_outcome(exec, case, &combo, &outcome);
                if expect_min_arena_fallback
                    && combo.arena == Arena::Min
                    && stat(&outcome.stats, "fallback_spawns") == Ok(0)
                {
                    problems.push(
                        "the minimum arena (one worker, smallest ring) should have forced the serial fallback, but fallback_spawns = 0"
                            .into(),
                    );
                }
                if let Err(e) = extra(&combo, &outcome) {
                    problems.push(e);
                }
                if problems.is_empty() {
                    eprintln!(
                        "ok   {:<8} {:<28} [{combo}] -> {} workers, {} slots, {} submissions, fallback {}, {secs:.2} s",
                        case.example,
                        case.label,
                        outcome.plan.workers,
                        outcome.plan.ring_slots,
                        outcome.stats.host.submissions,
                        outcome.stats.get("fallback_spawns").unwrap_or(0),
                    );
                } else {
                    failures.push(format!(
                        "{} `{}` [{combo}]:\n  - {}\n{}",
                        case.example,
                        case.label,
                        problems.join("\n  - "),
                        outcome.stats
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} `{}`: all combinations in {:.1} s",
        case.example,
        case.label,
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} combinations failed:\n\n{}",
        failures.len(),
        combos.len(),
        failures.join("\n\n")
    );
}

/// The checks every completed run must pass: the plan and host statistics report what was asked
/// (workers clamped to the arena), nothing is pending, every output equals the reference and the
/// unit counts match.
fn check_outcome(exec: &Executor, case: &Case, combo: &Combo, o: &Outcome) -> Vec<String> {
    let m = exec.manifest();
    let mut problems = Vec::new();
    let arena = &m.executor.arena;
    let fit = match combo.ring_slots {
        None => m.max_workers(combo.arena_bytes),
        Some(r) => {
            ((combo.arena_bytes - r as u64 * arena.bytes_per_slot) / arena.worker_bytes(arena.least_stack_frames()))
                as u32
        }
    };
    let want_workers = combo.workers.min(fit).max(1);
    if combo.ring_slots.is_some_and(|r| r != o.plan.ring_slots) {
        problems.push(format!("the plan has {} ring slots", o.plan.ring_slots));
    }
    if combo.arena == Arena::Min && o.plan.workers != 1 {
        problems.push(format!(
            "the minimum arena holds one worker, the plan has {}",
            o.plan.workers
        ));
    }
    // The reserve rule: the minimum arena gives its one worker the fewest frames, and no stack
    // ever holds more than its reserve (docs/executor.md, "Why the stack fits in its reserve").
    let frames = o.plan.stack_frames;
    if !(arena.least_stack_frames()..=arena.stack_frames).contains(&frames) || o.stats.host.stack_frames != frames {
        problems.push(format!(
            "stack frames: plan {frames}, host stats {}, the manifest's range {}..={}",
            o.stats.host.stack_frames,
            arena.least_stack_frames(),
            arena.stack_frames
        ));
    }
    if combo.arena == Arena::Min && frames != arena.least_stack_frames() {
        problems.push(format!("the minimum arena gives {frames} stack frames, not the fewest"));
    }
    match stat(&o.stats, "stack_high_water") {
        Ok(high) if high <= frames as u64 => {}
        Ok(high) => problems.push(format!("a stack held {high} frames, more than its reserve of {frames}")),
        Err(e) => problems.push(e),
    }
    if o.plan.workers != want_workers || o.stats.host.workers != o.plan.workers {
        problems.push(format!(
            "workers: requested {}, the arena holds {fit}; plan says {}, host stats say {} (expected {want_workers})",
            combo.workers, o.plan.workers, o.stats.host.workers
        ));
    }
    if o.plan.fuel != combo.fuel || o.stats.host.fuel != combo.fuel {
        problems.push(format!(
            "fuel: asked {}, plan {}, host stats {}",
            combo.fuel, o.plan.fuel, o.stats.host.fuel
        ));
    }
    if o.plan.arena_bytes > combo.arena_bytes {
        problems.push(format!(
            "the plan uses {} arena bytes of the {} given",
            o.plan.arena_bytes, combo.arena_bytes
        ));
    }
    match stat(&o.stats, "pending") {
        Ok(0) => {}
        Ok(p) => problems.push(format!("pending = {p} after a completed run (expected 0)")),
        Err(e) => problems.push(e),
    }
    match stat(&o.stats, "rounds") {
        Ok(r) if r == case.rounds => {}
        Ok(r) => problems.push(format!("{r} rounds reported, the reference ran {}", case.rounds)),
        Err(e) => problems.push(e),
    }
    if let Some(d) = support::compare_outputs(&case.expected, &o.outputs) {
        problems.push(d);
    }
    let stages: Vec<&str> = o.stats.units_per_stage.iter().map(|(s, _)| s.as_str()).collect();
    let expected_stages: Vec<&str> = case.units.iter().map(|(s, _)| s.as_str()).collect();
    if stages != expected_stages {
        problems.push(format!("stages {stages:?} reported, expected {expected_stages:?}"));
    }
    for (stage, want) in &case.units {
        let got = o.stats.units(stage);
        if !got.is_some_and(|g| want.admits(g)) {
            problems.push(format!("stage `{stage}` ran {got:?} units, expected {want}"));
        }
    }
    // The largest arena leaves (or, capped, is given) a ring of a million slots, more than the
    // units of any case here:
    // a frame in the ring holds at least one pending unit, so such a ring cannot fill, and a
    // single worker never loses a reservation race: nothing can fall back.
    if combo.arena == Arena::Large && o.plan.workers == 1 {
        if (o.plan.ring_slots as u64) < case.min_total_units().max(1 << 16) {
            problems.push(format!(
                "test sizing: the large arena's ring ({} slots) should exceed the run's {} units",
                o.plan.ring_slots,
                case.min_total_units()
            ));
        }
        match stat(&o.stats, "fallback_spawns") {
            Ok(0) => {}
            Ok(n) => problems.push(format!(
                "{n} fallback spawns with one worker and a ring that never fills"
            )),
            Err(e) => problems.push(e),
        }
    }
    problems
}

fn no_extra(_: &Combo, _: &Outcome) -> Result<(), String> {
    Ok(())
}

/// A run expected to stop with a kernel error: returns it, failing on anything else.
fn expect_kernel_error(case: &Case, combo: &Combo) -> KernelError {
    match run(case, combo) {
        Err(f) => match f.error {
            Error::Kernel(k) => k,
            e => panic!(
                "{} `{}` [{combo}]: expected a kernel error, got: {e}",
                case.example, case.label
            ),
        },
        Ok(o) => panic!(
            "{} `{}` [{combo}]: expected a kernel error, the run completed with outputs {:?}\n{}",
            case.example,
            case.label,
            o.outputs
                .iter()
                .map(|(n, v)| (n, &v[..v.len().min(32)]))
                .collect::<Vec<_>>(),
            o.stats
        ),
    }
}

/// A few combinations for the error tests: the smallest and the largest configurations.
fn error_combos(example: &str) -> Vec<Combo> {
    combos(example)
        .into_iter()
        .filter(|c| (c.arena == Arena::Min && c.workers == 1) || (c.arena == Arena::Large && c.workers == 64))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// triangle

#[test]
fn triangle_mixed_sizes() {
    let n = support::triangle_mixed(1500, 1);
    let spawners = n.iter().filter(|&&k| k > 0).count() as u64;
    let case = support::triangle_case("mixed n, 1500 elements", n);
    check_matrix(&case, true, &|combo, o| {
        // Queues of one frame (as a CPU device gets): `tri`'s dispatch pushes every element's
        // `add` range before `add`'s dispatch drains any, so all but the first fall back.
        if combo.schedule == Schedule::Partitioned && combo.queue_frames == Some(1) {
            let fallbacks = stat(&o.stats, "fallback_spawns")?;
            if fallbacks != spawners - 1 {
                return Err(format!(
                    "queues of one frame: {fallbacks} fallback spawns, expected {} (every element with children but one)",
                    spawners - 1
                ));
            }
        }
        // One worker with fuel 2 takes at most one batch (64 indices) of the entry range per
        // launch: with more than 128 elements it always leaves work on its stack. (Dispatched
        // stages need no fuel: they are on no cycle.)
        if combo.schedule == Schedule::Megakernel
            && combo.tiny_fuel
            && o.plan.workers == 1
            && stat(&o.stats, "fuel_exhaustions")? == 0
        {
            return Err("fuel 2 with one worker and 1500 elements should exhaust the fuel".into());
        }
        Ok(())
    });
}

#[test]
fn triangle_zeros_and_ones() {
    check_matrix(&support::triangle_case("zeros", vec![0; 700]), false, &no_extra);
    check_matrix(&support::triangle_case("ones", vec![1; 700]), false, &no_extra);
    // 92683 is the first n whose sum wraps around 2^32.
    check_matrix(
        &support::triangle_case("single n = 92683", vec![92_683]),
        false,
        &no_extra,
    );
}

/// `len(n) = 0`: the entry seeds no unit at all. (WebGPU buffers are never empty, so the kernel
/// must not take the element count from `arrayLength` of the 4-byte buffer bound for it.)
#[test]
fn triangle_empty_input() {
    check_matrix(&support::triangle_case("empty", vec![]), false, &no_extra);
}

// ---------------------------------------------------------------------------------------------
// collatz

/// Asserts that `units` are more than one batch of one worker can run: each lane then meets its
/// unit budget, and its carry is held and staged.
fn past_one_batch(units: u64) {
    let one_batch = u64::from(DEFAULT_LANES * dyngc_codegen::LANE_UNITS);
    assert!(units > one_batch, "{units} units fit in one batch of {one_batch}");
}

/// The units of the collatz walks of `x`, `walks` times each.
fn walk_units(x: &[u32], walks: u64) -> u64 {
    dyngc_reference::collatz(x)
        .iter()
        .map(|&s| walks * (s as u64 + 1))
        .sum()
}

#[test]
fn collatz_random() {
    let x = support::collatz_inputs(4000, 10_000, 2);
    // One worker with fuel 2 runs one claim and one batch per launch, at most a batch of lanes
    // times their unit budget: fewer units than these walks take, so its launches end with
    // carries or indices still on its stack. (More workers may each finish their piece of the
    // entry range in one batch.)
    past_one_batch(walk_units(&x, 1));
    let case = support::collatz_case("4000 values below 10,000", x);
    check_matrix(&case, false, &|combo, o| {
        // `step` loops through `become` only: carries stay on the worker's stack, never fall back.
        let fallbacks = stat(&o.stats, "fallback_spawns")?;
        if fallbacks != 0 {
            return Err(format!("collatz has no spawns, yet fallback_spawns = {fallbacks}"));
        }
        if combo.tiny_fuel && o.plan.workers == 1 && stat(&o.stats, "fuel_exhaustions")? == 0 {
            return Err("fuel 2 with one worker should leave work on its stack: fuel_exhaustions = 0".into());
        }
        Ok(())
    });
}

/// Outputs the units only combine into, accumulated in workgroup memory and added once per
/// worker and launch (docs/executor.md, "Accumulated outputs"): every combining atomic, a
/// fill that is not the identity (`kept`), relaunches by fuel, and one worker's copy
/// flushed many times. Under the partitioned schedule `leaf` is dispatched, so the outputs it
/// touches stay in memory while the others are accumulated.
#[test]
fn accumulated_outputs() {
    let case = support::accumulate_case("3000 walks from below 100,000", 3000);
    past_one_batch(case.min_total_units());
    check_matrix(&case, false, &no_extra);
}

/// Self-`become`s held in a lane's registers: with a struct payload and two sites, after a spawn
/// in the same unit (one unit's frames per lane: the lane stops there), and with no payload,
/// whose chains end on a shared counter. Long walks (values up to 100,000) run past the lane's
/// unit budget, so some are held and staged as carries.
#[test]
fn self_loops_with_spawns_and_without_payload() {
    let mut x = support::collatz_inputs(3000, 100_000, 5);
    // Every eighth element (even: its walk returns) a power of two, which walks down without a
    // multiple of 5 (no `mark` stops the chain's loop): a walk the refill started runs to its
    // end inside one call of the loop, and the refill follows.
    for (i, v) in x.iter_mut().enumerate().step_by(8) {
        *v = 1 << (i % 17);
    }
    past_one_batch(walk_units(&x, 1));
    let case = support::self_loops_case("3000 values below 100,000", x);
    check_matrix(&case, false, &no_extra);
}

/// Chains refilled from their window (docs/executor.md, "Refills"): from the entry's window and
/// from a fan-out's, with feeders that end without their `become`, and a recursion counter kept
/// through the refill. Walks of values up to 100,000 run past the lane's unit budget.
#[test]
fn refills_from_the_window() {
    let x = support::collatz_inputs(3000, 100_000, 11);
    // Two walks of two elements in three.
    past_one_batch(walk_units(&x, 2) / 3 * 2);
    let case = support::refills_case("3000 values below 100,000", x);
    check_matrix(&case, false, &no_extra);
}

/// Chains written several times into one loop iteration (a lane's unit budget tested once per
/// iteration): with a payload and a refill from a fan-out's window, and without a payload,
/// ending on a shared counter. The walks take more units than one batch of one worker runs, so
/// carries are held when the budget is spent.
#[test]
fn unrolled_chains() {
    let x = support::collatz_inputs(1500, 100_000, 17);
    past_one_batch(walk_units(&x, 2));
    check_matrix(
        &support::unrolled_chains_case("1500 values below 100,000", x),
        false,
        &no_extra,
    );
}

/// A chain whose body returns from inside its loop runs through the stage function, with the
/// refill between its walks.
#[test]
fn chains_that_return_from_a_loop() {
    let x = support::collatz_inputs(900, 100_000, 15);
    check_matrix(
        &support::chain_returns_case("900 values below 100,000", x),
        false,
        &no_extra,
    );
}

/// A spine of 4,000 `become`s, each leaving 100 leaves: the spine's carry is lent from the bottom
/// of one stack to the next idle worker, thousands of frames in all with 4 or 64 workers, so
/// the stacks' positions wrap past their 640-frame reserves (a build that counts the wraps saw
/// 3 and 4 at the default fuel, 1 with 4 workers and a fuel of 8, under Dawn on SwiftShader).
/// The megakernel only: the partitioned schedule dispatches `leaf`, and no stack holds leaves.
#[test]
fn comb_lends_the_oldest_frames() {
    let case = support::comb_case("4,000 steps of 100 leaves", 4_000, 100);
    let megakernel: Vec<Combo> = combos(case.example)
        .into_iter()
        .filter(|c| c.schedule == Schedule::Megakernel)
        .collect();
    check_combos(&case, &megakernel, false, &no_extra);
}

/// More lanes per worker (`dyngc build --lanes`), over the same matrix of arenas, workers and
/// fuel: every size that follows from the lanes (the batch, the staging caps, the stack
/// reserve, the chain split) must still give exact outputs and unit counts. Chains with refills,
/// a tree of fan-outs and a keyed worklist at 128 lanes; chains and the tree at 256.
#[test]
fn more_lanes_per_worker() {
    let collatz = support::collatz_case("1000 values below 10,000", support::collatz_inputs(1000, 10_000, 12));
    let refills = support::refills_case("900 values below 100,000", support::collatz_inputs(900, 100_000, 13));
    let tree = support::tree_case("depth 12, 3 children", support::tree_seed(12, 3, 1_000, 5_000), 12, 3);
    let bfs = support::bfs_case("random, 1500 vertices", &Csr::random(1500, 6000, 14), 0);
    for (lanes, cases) in [
        (128, vec![&collatz, &refills, &tree, &bfs]),
        (256, vec![&collatz, &tree]),
    ] {
        for case in cases {
            check_combos(case, &combos_with_lanes(case.example, lanes), false, &no_extra);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// tree

#[test]
fn tree_depth_24() {
    let seed = support::tree_seed(24, 3, 3_000, 6_000);
    let case = support::tree_case(format!("seed {seed}, depth 24, 3 children"), seed, 24, 3);
    check_matrix(&case, true, &no_extra);
}

#[test]
fn tree_shallow_and_wide() {
    let seed = support::tree_seed(6, 8, 2_000, 6_000);
    let case = support::tree_case(format!("seed {seed}, depth 6, 8 children"), seed, 6, 8);
    check_matrix(&case, true, &no_extra);
}

/// `max_depth = 25` lets a chain of `node` recurse past its declared `@max_depth(24)`: the kernel
/// must stop with MAX_DEPTH on `node` instead of writing past `per_depth`.
#[test]
fn tree_past_declared_depth_is_a_kernel_error() {
    let seed = support::tree_seed(24, 3, 3_000, 6_000);
    assert!(
        support::tree_parents_at(seed, 3, 24) > 0,
        "the tree must want to grow below depth 24"
    );
    let mut case = support::tree_case("max_depth 25", seed, 24, 3);
    case.params[1].1 = 25;
    for combo in error_combos("tree") {
        let k = expect_kernel_error(&case, &combo);
        assert_eq!(k.name, "MAX_DEPTH", "[{combo}] {k}");
        assert_eq!(k.stage.as_deref(), Some("node"), "[{combo}] {k}");
        assert_eq!((k.value, k.bound), (25, 24), "[{combo}] {k}");
        assert!(k.to_string().contains("stage `node`"), "[{combo}] {k}");
        eprintln!("ok   tree max_depth 25 [{combo}]: {k}");
    }
}

// ---------------------------------------------------------------------------------------------
// bfs

#[test]
fn bfs_random_graph() {
    let g = Csr::random(2000, 8000, 3);
    check_matrix(
        &support::bfs_case("random, 2000 vertices, 16000 arcs", &g, 0),
        true,
        &no_extra,
    );
}

#[test]
fn bfs_path() {
    // Deep: one vertex per level, from the middle so both directions run.
    let g = Csr::path(600);
    check_matrix(&support::bfs_case("path of 600, from 300", &g, 300), false, &no_extra);
}

#[test]
fn bfs_star() {
    // Wide: one level holding every other vertex; from a leaf, so the hub is at distance 1.
    let g = Csr::star(3000);
    check_matrix(&support::bfs_case("star of 3000, from leaf 7", &g, 7), true, &no_extra);
}

#[test]
fn bfs_unreachable_vertices() {
    let g = support::bfs_partly_reachable(1000, 500, 100, 6, 4);
    let case = support::bfs_case("1000 reachable, 600 not", &g, 0);
    assert_eq!(case.expected[0].1.iter().filter(|&&d| d == u32::MAX).count(), 600);
    check_matrix(&case, true, &no_extra);
}

/// A `source` outside the vertex domain is a keyed spawn out of `@keyed(len(row_ptr) - 1)`: the
/// kernel stops with KEY_DOMAIN on `visit`, never with distances.
#[test]
fn bfs_source_out_of_domain_is_a_kernel_error() {
    let g = Csr::random(200, 600, 5);
    for source in [200, 201, u32::MAX] {
        // The reference needs a source inside the graph; the kernel gets the bad one.
        let mut case = support::bfs_case(format!("source {source} of 200 vertices"), &g, 0);
        case.params[0].1 = source;
        for combo in error_combos("bfs") {
            let k = expect_kernel_error(&case, &combo);
            assert_eq!(k.name, "KEY_DOMAIN", "source {source} [{combo}] {k}");
            assert_eq!(k.stage.as_deref(), Some("visit"), "source {source} [{combo}] {k}");
            assert_eq!((k.value, k.bound), (source, 200), "source {source} [{combo}] {k}");
            eprintln!("ok   bfs source {source} [{combo}]: {k}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Graph-level loops: rounds run on the device, ended by `until` or the round limit.

#[test]
fn bfs_levels_equals_bfs() {
    let g = Csr::random(1500, 6000, 11);
    let case = support::bfs_levels_case("random, 1500 vertices, 12000 arcs", &g, 0);
    // The worklist version's distances are the same reference: both examples agree.
    assert_eq!(case.expected, support::bfs_case("same", &g, 0).expected);
    check_matrix(&case, true, &no_extra);
}

#[test]
fn bfs_levels_degenerate_shapes() {
    // Many rounds (one per level of a path), one wide round (a star), and vertices that no
    // round reaches.
    check_matrix(
        &support::bfs_levels_case("path of 300, from 100", &Csr::path(300), 100),
        false,
        &no_extra,
    );
    check_matrix(
        &support::bfs_levels_case("star of 2000, from leaf 5", &Csr::star(2000), 5),
        true,
        &no_extra,
    );
    let g = support::bfs_partly_reachable(400, 200, 50, 6, 9);
    check_matrix(
        &support::bfs_levels_case("400 reachable, 250 not", &g, 0),
        true,
        &no_extra,
    );
}

#[test]
fn pagerank_until_converged() {
    let g = Csr::random(800, 4000, 21);
    let case = support::pagerank_case("random, 800 vertices, tolerance 2^12", &g, 1 << 12, 1000);
    assert!(
        (3..1000).contains(&case.rounds),
        "the tolerance, not the iteration limit, must end this case ({} rounds)",
        case.rounds
    );
    check_matrix(&case, false, &no_extra);
}

#[test]
fn pagerank_round_limits() {
    let g = Csr::random(300, 1200, 4);
    // `until` says stop after 7 rounds although the ranks still move; and after one round when
    // the limit is 0 (the first round always runs).
    for limit in [7, 1, 0] {
        let case = support::pagerank_case(format!("max_iterations {limit}"), &g, 0, limit);
        assert_eq!(case.rounds, limit.max(1) as u64);
        check_matrix(&case, false, &no_extra);
    }
}

/// A wide stage beside a one-lane one: short rows summed by `row`, long ones by 32-lane `chunk`
/// units (singles for rows of one chunk, fan-out ranges for longer ones), barrier reductions in
/// workgroup memory. At the minimum arena a batch of `row` units finds the ring full, so the
/// wide stage runs from the worker's own stack too.
#[test]
fn row_sum_wide_stage() {
    let (row_ptr, val) = support::row_sum_matrix(1500, 3000, 31);
    let case = support::row_sum_case("1500 rows, up to 3000 entries", row_ptr, val);
    check_matrix(&case, true, &no_extra);
}

/// Degenerate shapes: only short rows (no wide unit at all), one very long row (one fan-out
/// range of wide units, split between workers), and only one-chunk rows (wide singles).
#[test]
fn row_sum_degenerate_shapes() {
    let ptr = |lengths: &[u32]| -> Vec<u32> {
        std::iter::once(0)
            .chain(lengths.iter().scan(0, |end, &n| {
                *end += n;
                Some(*end)
            }))
            .collect()
    };
    let values = |row_ptr: &[u32]| -> Vec<u32> {
        (0..*row_ptr.last().unwrap())
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect()
    };
    let short = ptr(&[3; 500]);
    let long = ptr(&[40_000]);
    let one_chunk = ptr(&[200; 300]);
    for (label, row_ptr) in [
        ("500 short rows", short),
        ("one row of 40000", long),
        ("300 rows of 200", one_chunk),
    ] {
        let val = values(&row_ptr);
        check_matrix(&support::row_sum_case(label, row_ptr, val), false, &no_extra);
    }
}

// ---------------------------------------------------------------------------------------------
// Exactly once on any layout: an engine may lay out the arena itself. Many workers on the
// smallest rings (which the runtime's own plan never picks) make every reservation and claim a
// race between workgroups, and the ring wraps constantly.

#[test]
fn exactly_once_on_engine_chosen_layouts() {
    let cases = [
        support::triangle_case("mixed n, 1500 elements", support::triangle_mixed(1500, 5)),
        support::collatz_case("1000 values below 2000", support::collatz_inputs(1000, 2000, 6)),
        support::tree_case("depth 12, 3 children", support::tree_seed(12, 3, 1_000, 5_000), 12, 3),
        support::bfs_case("random, 1500 vertices", &Csr::random(1500, 6000, 8), 0),
        support::bfs_levels_case("random, 800 vertices", &Csr::random(800, 3200, 9), 0),
        support::pagerank_case("random, 300 vertices", &Csr::random(300, 1200, 10), 1 << 12, 100),
        {
            let (row_ptr, val) = support::row_sum_matrix(600, 2000, 11);
            support::row_sum_case("600 rows", row_ptr, val)
        },
    ];
    for case in &cases {
        let mut combos = Vec::new();
        for schedule in schedules(case.example) {
            let ex = &executor(case.example, schedule, DEFAULT_LANES).manifest().executor;
            for ring in [ex.arena.min_ring_slots, 2 * ex.arena.min_ring_slots] {
                for workers in [2, 8, 64] {
                    for (fuel, tiny_fuel) in [(TINY_FUEL, true), (ex.defaults.fuel, false)] {
                        combos.push(Combo {
                            schedule,
                            lanes: DEFAULT_LANES,
                            arena: Arena::Large,
                            arena_bytes: LARGE_ARENA,
                            workers,
                            fuel,
                            tiny_fuel,
                            ring_slots: Some(ring),
                            dispatch_groups: None,
                            queue_frames: None,
                        });
                    }
                }
            }
        }
        check_combos(case, &combos, false, &no_extra);
    }
}

/// Sanity of the sizing assumptions the matrix relies on.
#[test]
fn arenas_are_what_the_matrix_assumes() {
    for (example, schedule) in support::EXAMPLES.iter().flat_map(|&e| SCHEDULES.map(|s| (e, s))) {
        let m = executor(example, schedule, DEFAULT_LANES).manifest();
        let min = m.executor.arena.min_bytes;
        assert_eq!(m.max_workers(min), 1, "{example}: the minimum arena holds one worker");
        assert!(
            m.max_workers(4 * min) >= 2,
            "{example}: four times the minimum holds two workers (reserves take at most half)"
        );
        assert!(m.max_workers(LARGE_ARENA) >= 64, "{example}: 64 MiB holds 64 workers");
    }
}

// ---------------------------------------------------------------------------------------------
// No silent zeros: an engine that launches only `main` of a partitioned build (it never read
// `entry_points.dispatches`) gets the kernel's DISPATCH_MISSING error, never a done word with
// the dispatched stages' work missing. The runtime records exactly what the manifest lists, so
// a manifest without its dispatches is that engine.

#[test]
fn launching_only_main_is_a_kernel_error() {
    let cases = [
        support::triangle_case("mixed n, 2000 elements", support::triangle_mixed(2000, 3)),
        {
            let (row_ptr, val) = support::row_sum_matrix(300, 2000, 4);
            support::row_sum_case("300 rows", row_ptr, val)
        },
    ];
    for case in &cases {
        let artifact = support::compile(case.example, Schedule::Partitioned);
        let mut manifest = artifact.manifest.clone();
        let dispatched: Vec<u32> = manifest.entry_points.dispatches.iter().map(|d| d.stage).collect();
        assert!(
            !dispatched.is_empty(),
            "{}: the partitioned build dispatches a stage",
            case.example
        );
        manifest.entry_points.dispatches.clear();
        let exec = Executor::new(&GPU.device, &manifest, &artifact.wgsl).unwrap_or_else(|e| panic!("{e}"));
        let inputs = case.input_bytes();
        let min = manifest.executor.arena.min_bytes;
        for (arena, workers) in [(min, 1), (LARGE_ARENA, 64)] {
            let mut setup = RunSetup::new(arena);
            for (name, bytes) in &inputs {
                setup.input(name.clone(), bytes);
            }
            for (name, value) in &case.params {
                setup.param(name.clone(), *value);
            }
            setup.workers(workers);
            let what = format!(
                "{} without its dispatches, arena {arena}, {workers} workers",
                case.example
            );
            let mut run = exec
                .prepare(&GPU.queue, &setup)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let opts = WaitOptions {
                timeout: RUN_TIMEOUT,
                ..Default::default()
            };
            match run.execute(&opts, &mut |_| {}) {
                Err(Error::Kernel(k)) => {
                    assert_eq!(k.name, "DISPATCH_MISSING", "{what}: {k}");
                    assert!(
                        dispatched.contains(&k.stage_id),
                        "{what}: {k} names no dispatched stage"
                    );
                    assert!(
                        k.value > 0,
                        "{what}: {k}: the first dispatch's queue holds the work it missed"
                    );
                    let message = k.to_string();
                    assert!(message.contains("entry_points.dispatches"), "{what}: {message}");
                }
                Err(e) => panic!("{what}: expected DISPATCH_MISSING, got: {e}"),
                Ok(stats) => panic!("{what}: the run reported done without its dispatches: {stats}"),
            }
        }
    }
}
