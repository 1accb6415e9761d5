//! Which outputs the megakernel accumulates in workgroup memory (docs/executor.md, "Accumulated
//! outputs"): exactly those every unit only combines into, with one kind of atomic and its
//! result unused, that no dispatched kernel touches and whose copies fit the budget.

use dyngc_codegen::Schedule;

fn wgsl(source: &str, schedule: Schedule) -> String {
    let checked = dyngc_compiler::check(source, "accumulators");
    let compiled = dyngc_compiler::generate(&checked, schedule);
    compiled
        .artifact
        .unwrap_or_else(|| panic!("{source}\n{:#?}", compiled.diagnostics))
        .wgsl
}

/// The outputs named `out_*` that got a workgroup copy, in declaration order; and each one's
/// binding is then combined into only by `dyn_accumulators_flush` (the units use the copy).
fn accumulated(source: &str, schedule: Schedule) -> Vec<String> {
    let text = wgsl(source, schedule);
    let copies: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("var<workgroup> dyn_acc_"))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    for name in &copies {
        let flush = text.find("fn dyn_accumulators_flush").unwrap();
        let flush_end = flush + text[flush..].find("\n}\n").unwrap();
        let uses: Vec<usize> = text.match_indices(&format!("(&{name}")).map(|(i, _)| i).collect();
        assert!(!uses.is_empty(), "{name}: the flush adds nothing to the binding");
        assert!(
            uses.iter().all(|&i| (flush..flush_end).contains(&i)),
            "{name}: the binding is used outside dyn_accumulators_flush:\n{text}"
        );
    }
    copies
}

const HEAD: &str = "input n: array<u32>;\n";

fn program(decls: &str, body: &str) -> String {
    format!("{HEAD}{decls}\nstage element(@index i: u32) {{\n{body}\n}}\n\nentry element(len(n));\n")
}

#[test]
fn outputs_only_added_to_are_accumulated() {
    let source = program(
        "output out_hist: array<atomic<u32>, 16>;\noutput out_total: atomic<u32>;",
        "    atomicAdd(&out_hist[n[i] % 16u], 1u);\n    atomicSub(&out_total, n[i]);\n    atomicAdd(&out_total, 2u * n[i]);",
    );
    assert_eq!(accumulated(&source, Schedule::Megakernel), ["out_hist", "out_total"]);
}

#[test]
fn every_combining_atomic_has_its_identity() {
    for (decl, call, identity) in [
        ("atomic<u32>", "atomicMax", "0u"),
        ("atomic<u32>", "atomicMin", "4294967295u"),
        ("atomic<i32>", "atomicMax", "bitcast<i32>(2147483648u)"),
        ("atomic<i32>", "atomicMin", "2147483647i"),
        ("atomic<u32>", "atomicAnd", "4294967295u"),
        ("atomic<i32>", "atomicAnd", "-1i"),
        ("atomic<u32>", "atomicOr", "0u"),
        ("atomic<u32>", "atomicXor", "0u"),
    ] {
        let value = if decl.contains("i32") { "i32(n[i])" } else { "n[i]" };
        let source = program(
            &format!("output out_x: {decl};"),
            &format!("    {call}(&out_x, {value});"),
        );
        assert_eq!(
            accumulated(&source, Schedule::Megakernel),
            ["out_x"],
            "{call} on {decl}"
        );
        let text = wgsl(&source, Schedule::Megakernel);
        assert!(
            text.contains(&format!("atomicStore((&dyn_acc_out_x), {identity})")),
            "{call} on {decl}: the copy does not start at {identity}:\n{text}"
        );
    }
}

#[test]
fn outputs_read_or_used_otherwise_stay_in_memory() {
    let cases = [
        // The old value is used.
        (
            "output out_x: atomic<u32>;",
            "    if (atomicAdd(&out_x, 1u) < 4u) { return; }",
        ),
        // Read by a unit.
        (
            "output out_x: array<atomic<u32>, 4>;",
            "    atomicAdd(&out_x[0], 1u);\n    if (atomicLoad(&out_x[1]) == 7u) { return; }",
        ),
        ("output out_x: atomic<u32>;", "    atomicStore(&out_x, n[i]);"),
        ("output out_x: atomic<u32>;", "    atomicExchange(&out_x, n[i]);"),
        // Two ways of combining.
        (
            "output out_x: atomic<u32>;",
            "    atomicAdd(&out_x, 1u);\n    atomicMax(&out_x, n[i]);",
        ),
        // A length only the host knows.
        (
            "output out_x: array<atomic<u32>, len(n)>;",
            "    atomicAdd(&out_x[i], 1u);",
        ),
        // Over the budget (ACCUMULATOR_BYTES).
        (
            "output out_x: array<atomic<u32>, 257>;",
            "    atomicAdd(&out_x[i % 257u], 1u);",
        ),
    ];
    for (decls, body) in cases {
        let source = program(decls, body);
        assert_eq!(
            accumulated(&source, Schedule::Megakernel),
            Vec::<String>::new(),
            "{source}"
        );
    }
}

#[test]
fn copies_are_taken_in_order_while_they_fit() {
    let source = program(
        "output out_a: array<atomic<u32>, 200>;\noutput out_b: array<atomic<u32>, 100>;\noutput out_c: array<atomic<u32>, 56>;",
        "    atomicAdd(&out_a[i % 200u], 1u);\n    atomicAdd(&out_b[i % 100u], 1u);\n    atomicAdd(&out_c[i % 56u], 1u);",
    );
    assert_eq!(accumulated(&source, Schedule::Megakernel), ["out_a", "out_c"]);
}

#[test]
fn outputs_a_dispatched_stage_touches_stay_in_memory() {
    // `add` is a leaf on no cycle: the partitioned schedule dispatches it as its own kernel,
    // which has no workgroup copy to flush; `walk`, on a cycle, stays in the megakernel.
    let source = "input n: array<u32>;
output out_total: atomic<u32>;
output out_seen: atomic<u32>;

stage element(@index i: u32) {
    become walk(n[i] % 4u);
}

stage walk(w: u32) {
    atomicAdd(&out_seen, 1u);
    if (w > 0u) {
        spawn[w] add(w);
        become walk(w - 1u);
    }
}

stage add(w: u32, @index k: u32) {
    atomicAdd(&out_total, k + w);
}

entry element(len(n));
";
    assert_eq!(accumulated(source, Schedule::Megakernel), ["out_total", "out_seen"]);
    assert_eq!(accumulated(source, Schedule::Partitioned), ["out_seen"]);
}

#[test]
fn each_copy_counts_as_the_workgroup_budget_counts_it() {
    // 190 words round up to 768 bytes and each single value to 16: sixteen fit beside the array
    // in ACCUMULATOR_BYTES, the seventeenth does not.
    // Named by letters: naga's writer renames identifiers that end in a digit.
    let singles: Vec<String> = (b'a'..=b'q').map(|k| format!("out_s{}", k as char)).collect();
    let decls = std::iter::once("output out_a: array<atomic<u32>, 190>;".to_string())
        .chain(singles.iter().map(|s| format!("output {s}: atomic<u32>;")))
        .collect::<Vec<_>>()
        .join("\n");
    let body = std::iter::once("    atomicAdd(&out_a[i % 190u], 1u);".to_string())
        .chain(singles.iter().map(|s| format!("    atomicAdd(&{s}, i);")))
        .collect::<Vec<_>>()
        .join("\n");
    let expected: Vec<String> = std::iter::once("out_a".to_string())
        .chain(singles[..16].iter().cloned())
        .collect();
    assert_eq!(accumulated(&program(&decls, &body), Schedule::Megakernel), expected);
}
