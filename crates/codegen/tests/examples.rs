//! Every shipped example generates validated kernels under both schedules, deterministically.

use dyngc_codegen::Schedule;
use std::path::Path;

fn check(path: &Path) -> dyngc_compiler::Checked {
    let source = std::fs::read_to_string(path).unwrap();
    let name = path.file_stem().unwrap().to_str().unwrap();
    dyngc_compiler::check(&source, name)
}

/// The front ends' pipeline (`dyngc_compiler`), under a fixed schedule.
fn build(path: &Path, checked: &dyngc_compiler::Checked, schedule: Schedule) -> dyngc_codegen::Artifact {
    let compiled = dyngc_compiler::generate(checked, schedule);
    compiled
        .artifact
        .unwrap_or_else(|| panic!("{path:?}: {:#?}", compiled.diagnostics))
}

fn generate(path: &Path, schedule: Schedule) -> dyngc_codegen::Artifact {
    build(path, &check(path), schedule)
}

/// The value of `const NAME: u32 = Vu;` in generated WGSL.
fn wgsl_constant(wgsl: &str, name: &str) -> u32 {
    let line = wgsl
        .lines()
        .find(|l| l.starts_with(&format!("const {name}: u32 = ")))
        .unwrap();
    line.rsplit(' ').next().unwrap().trim_end_matches("u;").parse().unwrap()
}

fn examples() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dyn"))
        .collect();
    files.sort();
    files
}

#[test]
fn examples_generate_deterministically() {
    for (path, schedule) in examples()
        .into_iter()
        .flat_map(|p| [(p.clone(), Schedule::Megakernel), (p, Schedule::Partitioned)])
    {
        let a = generate(&path, schedule);
        let b = generate(&path, schedule);
        assert_eq!(a.wgsl, b.wgsl, "{path:?}: WGSL differs between two builds");
        assert_eq!(a.manifest.to_json(), b.manifest.to_json(), "{path:?}: manifest differs");
        // The written WGSL parses and validates again.
        let module =
            naga::front::wgsl::parse_str(&a.wgsl).unwrap_or_else(|e| panic!("{path:?}: {}", e.emit_to_string(&a.wgsl)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{path:?}: {}", e.emit_to_string(&a.wgsl)));
        if let Ok(dir) = std::env::var("DYNGC_DUMP") {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let name = match schedule {
                Schedule::Megakernel => stem.to_string(),
                Schedule::Partitioned => format!("{stem}.partitioned"),
            };
            std::fs::write(format!("{dir}/{name}.wgsl"), &a.wgsl).unwrap();
            std::fs::write(format!("{dir}/{name}.manifest.json"), a.manifest.to_json()).unwrap();
        }
    }
}

/// The partitioned schedule dispatches exactly the stages on no cycle, upstream of none and with
/// no child that spawns (and a wide stage whose producers stay persistent), in topological
/// order; everything else is the
/// megakernel's, so for those examples both schedules give the same WGSL.
#[test]
fn partitioned_schedule_dispatches_acyclic_tails() {
    let expected: &[(&str, &[(&str, u32)])] = &[
        ("triangle", &[("dyn_dispatch_element", 64), ("dyn_dispatch_add", 256)]),
        ("row_sum", &[("dyn_dispatch_chunk", 32)]),
        ("collatz", &[]),
        ("tree", &[]),
        ("bfs", &[]),
        ("bfs_levels", &[]),
        ("pagerank", &[]),
        // Emitting stages and their ancestors stay persistent (docs/executor.md, "Streams").
        ("compact", &[]),
        ("tessellate", &[]),
        ("quadtree", &[]),
    ];
    assert_eq!(
        examples().len(),
        expected.len(),
        "an example without an expected partition"
    );
    for (name, dispatches) in expected {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}.dyn"));
        let partitioned = generate(&path, Schedule::Partitioned);
        let got: Vec<(&str, u32)> = partitioned
            .manifest
            .entry_points
            .dispatches
            .iter()
            .map(|d| (d.entry_point.as_str(), d.workgroup_size))
            .collect();
        assert_eq!(&got, dispatches, "{name}");
        // The default: partitioned exactly when some stage is dispatched.
        let want = if dispatches.is_empty() {
            Schedule::Megakernel
        } else {
            Schedule::Partitioned
        };
        let program = check(&path).program.expect("generated above");
        assert_eq!(dyngc_codegen::auto_schedule(&program), want, "{name}");
        if dispatches.is_empty() {
            assert_eq!(partitioned.wgsl, generate(&path, Schedule::Megakernel).wgsl, "{name}");
        }
    }
}

/// Every constant in docs/executor.md's "Constants" table has the value the generated WGSL
/// declares, and every number its prose quotes from the generator's Rust constants is that
/// constant's value, so the text cannot drift from the code.
#[test]
fn executor_doc_quotes_the_code_constants() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/executor.md")).unwrap();
    let table = doc.split("## Constants").nth(1).expect("a Constants section");
    let wgsl = generate(&examples()[0], Schedule::Megakernel).wgsl;
    let mut checked = 0;
    for row in table.lines().take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(name), Some(value)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Some(name) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) else {
            continue;
        };
        let declared = format!("const {name}: u32 = {value}u;");
        assert!(
            wgsl.contains(&declared),
            "docs/executor.md says `{name}` is {value}; the WGSL has no `{declared}`"
        );
        checked += 1;
    }
    assert!(checked >= 5, "the Constants table lost its rows ({checked} read)");
    // Quoted in the text: Rust constants of the generator, not WGSL ones.
    use dyngc_codegen as cg;
    assert_eq!(cg::WORKGROUP_MEMORY % 1024, 0, "the text gives workgroup memory in KiB");
    let quoted = [
        format!("`DYN_WG` ({} unless", cg::DEFAULT_LANES),
        // The batch shrinks from one unit per lane to fit the staging area.
        "`DYN_BATCH` (at most `DYN_WG`)".to_string(),
        format!("first cache line ({} words)", cg::LINE_WORDS),
        // The control block is mostly the shards' lines.
        format!("about {} KiB with them", cg::MAX_SHARDS * cg::LINE_WORDS * 4 / 1024),
        format!("`C >= min_ring_slots = {}`", cg::MIN_RING_SLOTS),
        format!("share the {} KiB WebGPU guarantees", cg::WORKGROUP_MEMORY / 1024),
        format!(
            "use {} lanes when they spawn nothing and {} when they do",
            cg::LEAF_DISPATCH_WG,
            cg::SPAWNER_DISPATCH_WG
        ),
        format!("runs up to {} indices per chunk", cg::LEAF_UNROLL),
        format!(
            "the batch stays bounded: {},{:03}",
            cg::LANE_UNITS / 1000,
            cg::LANE_UNITS % 1000
        ),
        format!("writes the body up to {} times (`CHAIN_UNROLL`)", cg::CHAIN_UNROLL),
        format!(
            "at most {},{:03} bytes of\nbody text",
            cg::CHAIN_UNROLL_BYTES / 1000,
            cg::CHAIN_UNROLL_BYTES % 1000
        ),
        format!("{}-word block in the control block", cg::QUEUE_WORDS),
        format!("`DYN_MAX_DISPATCH_GROUPS` ({})", cg::MAX_DISPATCH_GROUPS),
        format!("a chain of {} such", cg::CHAIN_LENGTH),
        format!("`DYN_DONE_POLL` ({}) plan steps", cg::DONE_POLL),
        format!(
            "(D is at most {},{:03}, the field's 15 bits",
            cg::MAX_SPAWN_DEPTH / 1000,
            cg::MAX_SPAWN_DEPTH % 1000
        ),
        format!(
            "`ACCUMULATOR_BYTES` ({},{:03} bytes, {} words)",
            cg::ACCUMULATOR_BYTES / 1000,
            cg::ACCUMULATOR_BYTES % 1000,
            cg::ACCUMULATOR_BYTES / 4
        ),
        // "Streams".
        format!(
            "fits in {} words of the lane\n  (`EMIT_BUFFER_WORDS`",
            cg::EMIT_BUFFER_WORDS
        ),
        format!(
            "a unit's maximum is at most {},{:03} (DYN0211)",
            dyngc_ir::MAX_EMIT_PER_UNIT / 1000,
            dyngc_ir::MAX_EMIT_PER_UNIT % 1000
        ),
    ];
    for phrase in &quoted {
        assert!(doc.contains(phrase), "docs/executor.md should say: {phrase:?}");
    }
}

/// Calls in `block` (with repeats), walking nested blocks.
fn calls(block: &naga::Block, out: &mut Vec<naga::Handle<naga::Function>>) {
    for s in block.iter() {
        match s {
            naga::Statement::Call { function, .. } => out.push(*function),
            naga::Statement::Block(b) => calls(b, out),
            naga::Statement::If { accept, reject, .. } => {
                calls(accept, out);
                calls(reject, out);
            }
            naga::Statement::Loop { body, continuing, .. } => {
                calls(body, out);
                calls(continuing, out);
            }
            naga::Statement::Switch { cases, .. } => cases.iter().for_each(|c| calls(&c.body, out)),
            _ => {}
        }
    }
}

/// The partitioned schedule's serial fallback is linear in the graph: in every kernel, each
/// stage body is reached along at most one call path (two in the persistent kernel, which runs
/// units of range batches and of gathered ones from separate, specialised call sites), so a
/// driver that inlines every call compiles it once or twice (direct calls from spawn sites
/// reached a diamond's last stage along every path through it: 2^7 copies here, and minutes of
/// SwiftShader compile time); and all kernels together compile at most twice stages +
/// dispatches + spawn sites bodies (when every dispatch ran all dispatched bodies below it, the
/// chain's 24 kernels compiled 300).
#[test]
fn fallbacks_reach_each_body_once_per_kernel() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui/pass");
    let paths = [
        ui.join("diamond_fallback.dyn"),
        ui.join("chain_fallback.dyn"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/triangle.dyn"),
    ];
    for path in paths {
        let checked = check(&path);
        let a = build(&path, &checked, Schedule::Partitioned);
        let program = checked.program.as_ref().expect("generated above");
        let m = &a.module;
        let mut compiled = 0u64;
        let callees: Vec<Vec<_>> = m
            .functions
            .iter()
            .map(|(_, f)| {
                let mut v = Vec::new();
                calls(&f.body, &mut v);
                v
            })
            .collect();
        let mut fallback_runs = 0;
        for ep in &m.entry_points {
            // Paths from the entry point to each function; the arena lists callees before their
            // callers, so walking it backwards visits every caller before its callees.
            let mut count = vec![0u64; m.functions.len()];
            let mut direct = Vec::new();
            calls(&ep.function.body, &mut direct);
            for f in direct {
                count[f.index()] += 1;
            }
            for (h, f) in m.functions.iter().collect::<Vec<_>>().into_iter().rev() {
                for &callee in &callees[h.index()] {
                    count[callee.index()] += count[h.index()];
                }
                let name = f.name.as_deref().unwrap_or("");
                if name.starts_with("dyn_fallback_run") && count[h.index()] > 0 {
                    fallback_runs += 1;
                }
                if name.starts_with("dyn_stage_") {
                    compiled += count[h.index()];
                    let most = if ep.name == "dyn_main" { 2 } else { 1 };
                    assert!(
                        count[h.index()] <= most,
                        "{path:?}: {} reaches {name} along {} paths",
                        ep.name,
                        count[h.index()]
                    );
                }
            }
        }
        assert!(fallback_runs > 0, "{path:?}: no kernel runs a fallback stack");
        let linear = 2 * (program.stages.len() + a.manifest.entry_points.dispatches.len() + program.edges.len()) as u64;
        assert!(
            compiled <= linear,
            "{path:?}: the kernels compile {compiled} bodies, more than {linear}"
        );
    }
}

/// A chain's body is written into its loop when every way out of a unit can reach that loop
/// (collatz's `step`), and called as a function otherwise (a `return` inside the body's own
/// loop: `tests/programs/chain_returns.dyn`); so is the refill's feeder. All run on the GPU in
/// `gpu_examples`.
#[test]
fn chain_bodies_are_inlined_where_their_exits_reach_the_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let execute = |path: &Path| {
        let wgsl = generate(path, Schedule::Megakernel).wgsl;
        let start = wgsl.find("fn dyn_execute(").expect("dyn_execute");
        let end = start + wgsl[start..].find("\n}\n").expect("its end");
        wgsl[start..end].to_string()
    };
    let collatz = execute(&root.join("examples/collatz.dyn"));
    assert!(
        !collatz.contains("dyn_stage_step("),
        "collatz's chain calls its stage:\n{collatz}"
    );
    assert!(
        collatz.contains("dyn_wg_next"),
        "collatz's chain is not refilled:\n{collatz}"
    );
    let returns = execute(&root.join("tests/programs/chain_returns.dyn"));
    assert!(
        returns.contains("dyn_stage_walk("),
        "the chain with a return in a loop was inlined:\n{returns}"
    );
    assert!(
        returns.contains("dyn_wg_next"),
        "chain_returns's chain is not refilled:\n{returns}"
    );
    // The feeder's body is written into the refill too (its own case still calls it), after the
    // chain body's scope: refills' `walk` has a local `x`, the input `feed` reads. A feeder whose
    // `return` or `become` sits in a loop is called: after copies (unrolled_chains' `pair`), one
    // copy (self_loops' `start`) and a called chain (chain_returns' `start`).
    let calls = |text: &str, feeder: &str| text.matches(&format!("dyn_stage_{feeder}(")).count();
    assert_eq!(
        calls(&collatz, "start"),
        1,
        "collatz's refill calls `start`:\n{collatz}"
    );
    assert_eq!(
        calls(&returns, "start"),
        2,
        "chain_returns's refill wrote `start` out:\n{returns}"
    );
    let self_loops = execute(&root.join("tests/programs/self_loops.dyn"));
    assert_eq!(
        calls(&self_loops, "start"),
        2,
        "self_loops' refill wrote `start` out:\n{self_loops}"
    );
    let refills = execute(&root.join("tests/programs/refills.dyn"));
    assert!(
        !refills.contains("dyn_stage_walk("),
        "refills' chain calls its stage:\n{refills}"
    );
    assert_eq!(calls(&refills, "feed"), 1, "refills' refill calls `feed`:\n{refills}");
    // A body whose only sites are its own tail `become`s, ending every path in one or in a
    // `return`, is written CHAIN_UNROLL times; a chain that spawns, or that can fall off its
    // body's end, is written once.
    let unroll = dyngc_codegen::CHAIN_UNROLL;
    assert_eq!(collatz.matches("steps[").count(), unroll, "collatz's step:\n{collatz}");
    let unrolled = execute(&root.join("tests/programs/unrolled_chains.dyn"));
    assert_eq!(unrolled.matches("&steps[").count(), unroll, "walk:\n{unrolled}");
    assert_eq!(unrolled.matches("&ticks").count(), unroll, "countdown:\n{unrolled}");
    assert_eq!(
        calls(&unrolled, "pair"),
        2,
        "unrolled_chains' refill wrote `pair` out:\n{unrolled}"
    );
    assert_eq!(self_loops.matches("&ticks").count(), 1, "tick:\n{self_loops}");
    assert_eq!(self_loops.matches("steps[").count(), 1, "walk:\n{self_loops}");
}

/// A chain's body written into `dyn_execute` may use any name a user may: the case's own names
/// are all in the generator's namespace, and the refill is outside the body's scope, so even a
/// local named as the WGSL built-in it calls is written in. Each variant must generate a kernel
/// that validates.
#[test]
fn chain_bodies_written_into_the_loop_keep_their_names() {
    let program = |locals: &str, tail: &str| {
        format!(
            "input x: array<u32>;
output steps: array<u32, len(x)>;
struct Walk {{ i: u32, value: u32, count: u32 }}
stage start(@index i: u32) {{
    become step(Walk(i, x[i], 0u));
}}
stage step(w: Walk) {{
    {locals}
    if (w.value <= 1u) {{
        steps[w.i] = w.count;
        {tail}
    }} else {{
        var next = w.value / 2u;
        if (w.value % 2u == 1u) {{
            next = 3u * w.value + 1u;
        }}
        become step(Walk(w.i, next, w.count + 1u));
    }}
}}
entry start(len(x));
"
        )
    };
    let execute = |source: &str| {
        let checked = dyngc_compiler::check(source, "names");
        let wgsl = build(Path::new("names.dyn"), &checked, Schedule::Megakernel).wgsl;
        let start = wgsl.find("fn dyn_execute(").expect("dyn_execute");
        let end = start + wgsl[start..].find("\n}\n").expect("its end");
        wgsl[start..end].to_string()
    };
    let names = "let stage = 1u; let index = 2u; let p = 3u; let at = 4u; let min = 5u; let select = 6u;";
    // Copies (every path ends in a `become` or a `return`), and one copy (the end falls through).
    for (tail, copies) in [("return;", dyngc_codegen::CHAIN_UNROLL), ("", 1)] {
        let inlined = execute(&program(names, tail));
        assert!(
            !inlined.contains("dyn_stage_step("),
            "{tail:?}: `step` was called:\n{inlined}"
        );
        assert_eq!(inlined.matches("steps[").count(), copies, "{tail:?}:\n{inlined}");
    }
    // The refill after the loop calls `atomicAdd` outside the body's scope: a local of that
    // name (legal WGSL) cannot shadow it (naga rejects the module if it does).
    let shadowing = execute(&program("let atomicAdd = 7u;", ""));
    assert!(
        !shadowing.contains("dyn_stage_step("),
        "a local `atomicAdd` made the loop call `step`:\n{shadowing}"
    );
}

/// A lone spawn (tree's `child -> node`: the one spawn of a one-lane stage, into one) is held
/// and, if it must be staged, staged as a carry, so it nests nothing (docs/executor.md, "Units
/// in registers"); a second spawn of `node` in `child` makes both children that nest.
#[test]
fn lone_spawns_are_staged_as_carries() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tree.dyn");
    let source = std::fs::read_to_string(&tree).unwrap();
    let twice = source.replace(
        "spawn node(Node(pcg(parent.id + j + 1u), parent.depth + 1u));",
        "spawn node(Node(pcg(parent.id + j + 1u), parent.depth + 1u)); spawn node(Node(0u, 24u));",
    );
    assert_ne!(twice, source);
    let build = |src: &str| {
        let checked = dyngc_compiler::check(src, "tree");
        build(&tree, &checked, Schedule::Megakernel)
    };
    let constant = |a: &dyngc_codegen::Artifact, name: &str| wgsl_constant(&a.wgsl, name);
    let (lone, nested) = (build(&source), build(&twice));
    // root -> node and child -> node held as carries, with a carry slot per lane.
    assert_eq!(lone.wgsl.matches("dyn_hold(DYN_HELD_CARRY, 1u, ").count(), 2);
    assert!(!lone.wgsl.contains("dyn_hold(DYN_HELD_CHILD"));
    assert_eq!(constant(&lone, "DYN_CARRY_CAP"), constant(&lone, "DYN_BATCH"));
    assert!(nested.wgsl.contains("dyn_hold(DYN_HELD_CHILD, 1u, "));
    // 25 passes of node -> child, plus 1; with child's two spawns, 25 passes of two levels.
    assert_eq!(constant(&lone, "DYN_MAX_DEPTH"), 26);
    assert_eq!(constant(&nested, "DYN_MAX_DEPTH"), 51);
    let floor = |a: &dyngc_codegen::Artifact| a.manifest.executor.arena.min_stack_frames;
    assert!(floor(&lone) < floor(&nested), "{} {}", floor(&lone), floor(&nested));
}

/// The manifest states the kernel's ring-shard rule (docs/executor.md, "Ring shards") with the
/// constants the WGSL uses, and `Manifest::ring_shards` applies it.
#[test]
fn manifest_states_the_kernels_ring_shards() {
    for path in examples() {
        let a = generate(&path, Schedule::Megakernel);
        let arena = &a.manifest.executor.arena;
        assert_eq!(
            arena.shard_workers,
            wgsl_constant(&a.wgsl, "DYN_SHARD_WORKERS"),
            "{path:?}"
        );
        assert_eq!(
            arena.min_shard_slots,
            wgsl_constant(&a.wgsl, "DYN_MIN_SHARD_SLOTS"),
            "{path:?}"
        );
        assert_eq!(arena.max_shards, wgsl_constant(&a.wgsl, "DYN_MAX_SHARDS"), "{path:?}");
    }
    let m = generate(&examples()[0], Schedule::Megakernel).manifest;
    // (workers, slots) -> shards: one per 4 workers, each of at least 32 slots, at most 128,
    // a power of two.
    for (workers, slots, shards) in [
        (1, 4, 1),
        (7, 1 << 20, 1),
        (15, 1 << 20, 2),
        (62, 256, 8),
        (64, 1024, 16),
        (64, 256, 8),
        (949, 4096, 128),
        (1024, 2048, 64),
        (4096, 1 << 20, 128),
    ] {
        assert_eq!(
            m.ring_shards(workers, slots),
            shards,
            "{workers} workers, {slots} slots"
        );
    }
}

/// A frame's recursion counter takes no word of its own where it fits in the head's stage field
/// beside the stage ids, and none at all where nothing recurses through a bound
/// (docs/executor.md, "Vocabulary"); a program with too many stages for both keeps the word.
#[test]
fn recursion_counters_take_a_word_only_where_the_head_has_no_room() {
    let example = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}.dyn"));
        generate(&path, Schedule::Megakernel)
    };
    let layout = |a: &dyngc_codegen::Artifact| {
        let words = a.manifest.executor.arena.frame_words;
        let rec_word = a.wgsl.contains("const DYN_REC_WORD: bool = true;");
        (words, wgsl_constant(&a.wgsl, "DYN_REC_SHIFT"), rec_word)
    };
    // tree: three stages (2 bits), @max_depth(24) and its failing count 25 (5 bits); Node is 2 words.
    assert_eq!(layout(&example("tree")), (3 + 2, 2, false));
    // bfs recurses only through a key: no counter; a one-word payload.
    assert_eq!(layout(&example("bfs")), (3 + 1, 16, false));
    // 600 stages need 10 bits, @max_depth(64) 7 more: the counter keeps its word.
    let mut source = String::from("output hits: array<atomic<u32>, 1>;\nstage s0(@index i: u32) { spawn s1(i); }\n");
    for i in 1..599 {
        source.push_str(&format!("stage s{i}(x: u32) {{ spawn s{}(x); }}\n", i + 1));
    }
    source.push_str(
        "@max_depth(64)\nstage s599(x: u32) { atomicAdd(&hits[0], 1u); if (x > 0u) { spawn s599(x - 1u); } }\nentry s0(1);\n",
    );
    let checked = dyngc_compiler::check(&source, "stages");
    let many = build(Path::new("stages.dyn"), &checked, Schedule::Megakernel);
    assert_eq!(layout(&many), (4 + 1, 16, true));
}
