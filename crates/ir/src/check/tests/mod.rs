//! Checker tests, written as `.dyn` text.

mod robust;

use crate::{check, Checked, EdgeKind, Program, RecursionStep};
use dyngc_syntax::Diagnostic;

const TRIANGLE: &str = include_str!("../../../../../examples/triangle.dyn");
const COLLATZ: &str = include_str!("../../../../../examples/collatz.dyn");
const TREE: &str = include_str!("../../../../../examples/tree.dyn");
const BFS: &str = include_str!("../../../../../examples/bfs.dyn");

#[track_caller]
fn parse(src: &str) -> dyngc_syntax::ast::File {
    let parsed = dyngc_syntax::parse(src);
    assert!(
        parsed.diagnostics.is_empty(),
        "syntax errors:\n{}",
        show(src, &parsed.diagnostics)
    );
    parsed.file
}

#[track_caller]
fn run(src: &str) -> Checked {
    check(&parse(src), src, "test")
}

fn show(src: &str, diags: &[Diagnostic]) -> String {
    let mut s = String::new();
    for d in diags {
        let text = src.get(d.primary.span.clone()).unwrap_or("?");
        s.push_str(&format!(
            "{} {:?}: {} [{}: {:?}]\n",
            d.code, d.severity, d.message, d.primary.message, text
        ));
        for l in &d.secondary {
            s.push_str(&format!(
                "    + {} {:?}\n",
                l.message,
                src.get(l.span.clone()).unwrap_or("?")
            ));
        }
        for n in &d.notes {
            s.push_str(&format!("    = note: {n}\n"));
        }
        if let Some(h) = &d.hint {
            s.push_str(&format!("    = hint: {h}\n"));
        }
    }
    s
}

#[track_caller]
fn clean(src: &str) -> crate::Executable {
    let c = run(src);
    assert!(c.diagnostics.is_empty(), "{}", show(src, &c.diagnostics));
    c.program.expect("program")
}

fn stage<'p>(p: &'p Program, name: &str) -> (crate::StageId, &'p crate::Stage) {
    p.stages.iter().find(|(_, s)| s.name == name).expect("stage")
}

#[test]
fn triangle() {
    let p = clean(TRIANGLE);
    assert_eq!(p.max_spawn_depth, 2);
    assert_eq!(p.max_frames_per_unit, 1);
    assert_eq!(p.max_payload_words, 1);
    assert_eq!(p.edges.len(), 1);
    assert_eq!(p.edges.raw()[0].kind, EdgeKind::FanOut);
    assert_eq!(p.edges.raw()[0].recursion, RecursionStep::Reset);
    assert_eq!(p.resources.raw()[0].binding, 0);
    assert_eq!(p.resources.raw()[1].binding, 1);
    let (n, _) = p.resources.iter().find(|(_, r)| r.name == "n").expect("n");
    assert_eq!(p.resources.raw()[1].len, Some(crate::SizeExpr::Len(n)));
}

#[test]
fn collatz() {
    let p = clean(COLLATZ);
    assert_eq!(p.max_spawn_depth, 1);
    assert_eq!(p.max_frames_per_unit, 1);
    assert_eq!(p.max_payload_words, 3);
    let (_, step) = stage(&p, "step");
    assert!(step.becomes);
    assert_eq!(step.recursion, None);
    // The self-become comes after a conditional `return`, so it has an exit.
    assert!(p.edges.values().all(|e| e.kind == EdgeKind::Become));
    assert!(p.edges.raw()[1].conditional);
}

#[test]
fn tree() {
    let p = clean(TREE);
    let (node, n) = stage(&p, "node");
    let (_, child) = stage(&p, "child");
    assert_eq!(n.recursion, Some((node, 24)));
    assert_eq!(child.recursion, Some((node, 24)));
    assert_eq!(n.scc, child.scc);
    let steps: Vec<_> = p.edges.values().map(|e| (e.kind, e.recursion)).collect();
    assert_eq!(
        steps,
        [
            (EdgeKind::Spawn, RecursionStep::Reset),
            (EdgeKind::FanOut, RecursionStep::Keep),
            (EdgeKind::Spawn, RecursionStep::Increment),
        ]
    );
    // root's and child's spawns are lone: they continue their chains at the same level.
    let lone: Vec<bool> = p.edges.values().map(|e| e.lone).collect();
    assert_eq!(lone, [true, false, true]);
    // (24 + 1) rounds of node -> child (1) -> node (lone, 0), plus 1.
    assert_eq!(p.max_spawn_depth, 26);
    assert_eq!(p.max_payload_words, 2);
}

/// Which spawns are lone: single, the one-lane spawner's only non-keyed frame, into a
/// one-lane stage.
#[test]
fn lone_spawns() {
    let lone = |src: &str| -> Vec<bool> { clean(src).edges.values().map(|e| e.lone).collect() };
    assert_eq!(lone(BASE), [true]);
    // A second spawn (another site, or a loop of two), or a `become` beside it: not lone.
    assert_eq!(
        lone(&BASE.replace(
            "spawn leaf(Node(i, 0u));",
            "spawn leaf(Node(i, 0u)); spawn leaf(Node(i, 1u));"
        )),
        [false, false]
    );
    assert_eq!(
        lone(&BASE.replace(
            "spawn leaf(Node(i, 0u));",
            "for (var k = 0u; k < 2u; k++) { spawn leaf(Node(i, k)); }"
        )),
        [false]
    );
    let with_become = "
input n: array<u32>;
output sums: array<atomic<u32>, len(n)>;
stage root(@index i: u32) { spawn walk(i); }
stage walk(x: u32) { if (x == 0u) { spawn leaf(x); return; } become walk(x - 1u); }
stage leaf(x: u32) { atomicAdd(&sums[x], 1u); }
entry root(len(n));
";
    assert_eq!(lone(with_become), [true, false, false]);
    // A wide spawner or a wide target: not lone.
    let wide = "
input n: array<u32>;
output sums: array<atomic<u32>, len(n)>;
stage root(@index i: u32) { spawn w(i); }
@width(4) stage w(x: u32) { spawn leaf(x); }
stage leaf(x: u32) { atomicAdd(&sums[x], 1u); }
entry root(len(n));
";
    assert_eq!(lone(wide), [false, false]);
    // A fan-out is a range, never lone.
    let fan = "
input n: array<u32>;
output sums: array<atomic<u32>, len(n)>;
stage root(@index i: u32) { spawn[2u] leaf(i); }
stage leaf(x: u32, @index j: u32) { atomicAdd(&sums[x], j); }
entry root(len(n));
";
    assert_eq!(lone(fan), [false]);
}

#[test]
fn bfs() {
    let p = clean(BFS);
    let (_, visit) = stage(&p, "visit");
    let (_, relax) = stage(&p, "relax");
    assert_eq!(visit.scc, relax.scc);
    assert_eq!(visit.recursion, None);
    assert!(visit.keyed.is_some());
    let kinds: Vec<_> = p.edges.values().map(|e| (e.kind, e.recursion)).collect();
    assert_eq!(
        kinds,
        [
            (EdgeKind::Keyed, RecursionStep::Reset),
            (EdgeKind::FanOut, RecursionStep::Keep),
            (EdgeKind::Keyed, RecursionStep::Reset),
        ]
    );
    assert_eq!(p.max_spawn_depth, 2);
    assert_eq!(
        p.resources.raw()[2].fill.map(|l| l.wgsl()).as_deref(),
        Some("4294967295u")
    );
}

// ------------------------------------------------------------------ diagnostics

const BASE: &str = "
input n: array<u32>;
output sums: array<atomic<u32>, len(n)>;
struct Node { id: u32, depth: u32 }
stage root(@index i: u32) { spawn leaf(Node(i, 0u)); }
stage leaf(x: Node) { atomicAdd(&sums[x.id], 1u); }
entry root(len(n));
";

/// Runs `src` and returns its diagnostics, checking the sorted order and that a program
/// comes back exactly when there is no error.
#[track_caller]
fn diags(src: &str) -> Vec<Diagnostic> {
    let c = run(src);
    let starts: Vec<usize> = c.diagnostics.iter().map(|d| d.primary.span.start).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "unsorted");
    assert_eq!(c.program.is_some(), !c.diagnostics.iter().any(Diagnostic::is_error));
    c.diagnostics
}

/// The one diagnostic with `code` (there must be exactly one), with its primary text.
#[track_caller]
fn one<'d>(src: &str, ds: &'d [Diagnostic], code: &str) -> (&'d Diagnostic, String) {
    let found: Vec<&Diagnostic> = ds.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "expected one {code}:\n{}", show(src, ds));
    let d = found[0];
    (d, src.get(d.primary.span.clone()).unwrap_or("?").to_string())
}

#[track_caller]
fn codes(src: &str) -> Vec<&'static str> {
    diags(src).iter().map(|d| d.code).collect()
}

#[test]
fn base_is_clean() {
    let p = clean(BASE);
    // root's one spawn of leaf is lone: nothing nests.
    assert_eq!(p.max_spawn_depth, 1);
}

#[test]
fn dyn0100_unknown_names() {
    let src = BASE.replace("spawn leaf(", "spawn lef(");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0100");
    assert_eq!(text, "lef");
    assert_eq!(d.hint.as_deref(), Some("did you mean `leaf`?"));

    let src = BASE.replace("len(n)>", "len(m)>");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0100");
    assert_eq!(text, "m");
    assert_eq!(d.hint.as_deref(), Some("did you mean `n`?"));

    let src = BASE.replace("entry root(len(n))", "entry root(count)");
    assert_eq!(codes(&src), ["DYN0100"]);
    let src = BASE.replace("entry root(len(n))", "entry root(n)");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0100");
    assert_eq!(d.hint.as_deref(), Some("for its element count write `len(n)`"));

    let src = BASE.replace("stage leaf(x: Node)", "stage leaf(x: Nod)");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0100");
    assert_eq!(text, "Nod");
    assert_eq!(d.hint.as_deref(), Some("did you mean `Node`?"));

    let src = BASE.replace("entry root", "entry rot");
    assert_eq!(codes(&src), ["DYN0100"]);
    // A helper is not a stage.
    let src = format!(
        "fn helper() {{}}\n{}",
        BASE.replace("spawn leaf(Node(i, 0u))", "spawn helper()")
    );
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0100");
    assert_eq!(d.primary.message, "`helper` is a function, not a stage");
}

#[test]
fn dyn0101_duplicates() {
    let src = format!("{BASE}\nbuffer leaf: u32;\n");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0101");
    assert_eq!(text, "leaf");
    assert_eq!(d.secondary.len(), 1);
    assert!(d.primary.span.start > d.secondary[0].span.start);

    let src = BASE.replace("depth: u32 }", "depth: u32, id: u32 }");
    assert_eq!(codes(&src), ["DYN0101"]);

    // Uses of a duplicate name resolve to the definition of the kind they need: only the
    // duplicate is reported, not "`root` is a function, not a stage".
    let src = format!("fn root() -> u32 {{ return 0u; }}\nfn leaf() {{}}\n{BASE}");
    assert_eq!(codes(&src), ["DYN0101", "DYN0101"]);
}

#[test]
fn dyn0102_reserved() {
    let src = BASE.replace("stage leaf(x: Node) {", "stage leaf(x: Node) { let dyn_tmp = 1u;");
    let ds = diags(&src);
    assert_eq!(one(&src, &ds, "DYN0102").1, "dyn_tmp");
    let src = format!("{BASE}\nparam enum: u32;\n");
    assert_eq!(codes(&src), ["DYN0102"]);
    let src = format!("{BASE}\nbuffer vec3f: u32;\n");
    assert_eq!(codes(&src), ["DYN0102"]);
    let src = format!("{BASE}\nfn dyn_helper() {{}}\n");
    assert_eq!(codes(&src), ["DYN0102"]);
    let src = BASE.replace("depth: u32", "f32: u32");
    assert_eq!(one(&src, &diags(&src), "DYN0102").1, "f32");
}

#[test]
fn dyn0103_entries() {
    let src = BASE.replace("entry root(len(n));", "");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0103");
    assert_eq!(d.primary.span, 0..0);
    let src = format!("{BASE}\nentry root(1);\n");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0103");
    assert_eq!(text, "entry root(1);");
    assert_eq!(d.secondary.len(), 1);
}

#[test]
fn dyn0104_attributes() {
    let src = BASE.replace("stage leaf", "@max_dept(3) stage leaf");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0104");
    assert_eq!(d.hint.as_deref(), Some("did you mean `@max_depth`?"));
    let src = BASE.replace("stage leaf", "@max_depth(1, 2) stage leaf");
    assert!(codes(&src).contains(&"DYN0104"));
    let src = BASE.replace("input n", "@group(0) input n");
    assert_eq!(codes(&src), ["DYN0104"]);
    let src = format!("{BASE}\n@group(0) param p: u32;\n");
    assert_eq!(codes(&src), ["DYN0104"]);
    let src = BASE.replace("entry root", "@max_rounds(3) entry root");
    assert_eq!(codes(&src), ["DYN0104"]);
    let src = BASE.replace("stage leaf", "@max_depth(4) @max_depth(4) stage leaf");
    assert!(codes(&src).contains(&"DYN0104"));
    // A malformed argument is reported alone: its partner is there.
    let src = format!("{BASE}\n@group(0) @binding(4294967296) buffer a: u32;\n@group(g) @binding(5) buffer b: u32;\n");
    assert_eq!(codes(&src), ["DYN0104", "DYN0104"]);
}

#[test]
fn dyn0105_resource_types() {
    let src = format!("{BASE}\ninput a: array<atomic<u32>>;\n");
    assert_eq!(one(&src, &diags(&src), "DYN0105").1, "atomic<u32>");
    let src = format!("{BASE}\noutput b: array<bool, 4>;\n");
    assert_eq!(codes(&src), ["DYN0105"]);
    let src = format!("{BASE}\nbuffer c: array<array<u32>, 4>;\n");
    assert_eq!(codes(&src), ["DYN0105"]);
    let src = format!("{BASE}\nbuffer c: array<f16, 4>;\n");
    assert_eq!(codes(&src), ["DYN0105"]);
    let src = format!("{BASE}\nstruct C {{ k: atomic<u32> }}\ninput c: array<C>;\n");
    assert_eq!(codes(&src), ["DYN0105"]);
    let src = format!("{BASE}\nstruct A {{ b: B }}\nstruct B {{ a: A }}\n");
    assert_eq!(codes(&src), ["DYN0105"]);
    // Supported: vectors (both spellings), atomics in buffers, structs with vectors.
    clean(&format!(
        "{BASE}\nstruct V {{ p: vec3f, q: vec2<i32> }}\nbuffer v: array<V, 4>;\nbuffer w: array<vec4u, len(n)>;\nbuffer t: atomic<i32>;\ninput x: array<vec2<f32>>;\n"
    ));
}

#[test]
fn dyn0106_lengths() {
    let src = format!("{BASE}\noutput o: array<u32>;\n");
    assert_eq!(codes(&src), ["DYN0106"]);
    let src = format!("{BASE}\ninput i2: array<u32, 4>;\n");
    assert_eq!(one(&src, &diags(&src), "DYN0106").1, "4");
    let src = format!("{BASE}\nbuffer a: array<u32, len(b)>;\nbuffer b: array<u32, len(n)>;\n");
    assert_eq!(one(&src, &diags(&src), "DYN0106").1, "len(b)");
    let src = format!("{BASE}\nbuffer a: array<u32, len(a)>;\n");
    assert_eq!(codes(&src), ["DYN0106"]);
    let src = format!("{BASE}\nbuffer s: u32;\nbuffer a: array<u32, len(s)>;\n");
    assert_eq!(codes(&src), ["DYN0106"]);
    let src = format!("{BASE}\nparam f: f32;\nbuffer a: array<u32, f * 2>;\n");
    assert_eq!(codes(&src), ["DYN0106"]);
    // Earlier outputs and parameters are fine.
    clean(&format!(
        "{BASE}\nparam k: u32 = 3u;\nbuffer a: array<u32, len(sums) * k + 1>;\n"
    ));
}

#[test]
fn dyn0107_params() {
    let src = format!("{BASE}\nparam p: bool;\n");
    assert_eq!(codes(&src), ["DYN0107"]);
    let src = format!("{BASE}\nparam p: u32 = 1.5;\n");
    assert_eq!(one(&src, &diags(&src), "DYN0107").1, "1.5");
    let src = format!("{BASE}\nparam p: i32 = 3u;\n");
    assert_eq!(codes(&src), ["DYN0107"]);
    let src = format!("{BASE}\nparam p: u32 = -1;\n");
    assert_eq!(codes(&src), ["DYN0107"]);
    let src = format!("{BASE}\nparam p: i32 = 2147483648;\n");
    assert_eq!(codes(&src), ["DYN0107"]);
    let src = format!("{BASE}\nparam p: i32 = 1.5;\n");
    assert_eq!(
        one(&src, &diags(&src), "DYN0107").0.primary.message,
        "`1.5` is a float, not an `i32`"
    );
    let p = clean(&format!(
        "{BASE}\nparam a: f32 = 2;\nparam b: i32 = -3;\nparam c: u32 = 0x10u;\nparam d: f32 = 1e3f;\n"
    ));
    let defaults: Vec<_> = p.params.values().map(|p| p.default.unwrap().wgsl()).collect();
    assert_eq!(defaults, ["2.0f", "-3i", "16u", "1000.0f"]);
}

#[test]
fn dyn0108_payloads() {
    let src = BASE.replace("stage leaf(x: Node)", "stage leaf(x: bool)");
    assert!(codes(&src).contains(&"DYN0108"));
    let src = format!(
        "{}\nstruct H {{ c: atomic<u32> }}\n",
        BASE.replace("stage leaf(x: Node)", "stage leaf(x: H)")
    );
    assert!(codes(&src).contains(&"DYN0108"));
    let src = BASE.replace("@index i: u32", "@index i: i32");
    assert!(codes(&src).contains(&"DYN0108"));
    let src = BASE.replace("stage leaf(x: Node)", "stage leaf(x: array<u32>)");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0108");
    assert_eq!(d.primary.message, "a payload cannot be an array");
}

#[test]
fn dyn0109_bindings() {
    let src = format!("{BASE}\n@group(0) @binding(3) buffer a: u32;\n@group(0) @binding(3) buffer b: u32;\n");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0109");
    assert_eq!(text, "@group(0) @binding(3)");
    assert_eq!(d.secondary.len(), 1);
    let p = clean(&format!(
        "@group(0) @binding(0) buffer a: u32;\n@group(1) @binding(0) buffer b: u32;\n{BASE}"
    ));
    let got: Vec<_> = p
        .resources
        .values()
        .map(|r| (r.name.as_str(), r.group, r.binding))
        .collect();
    assert_eq!(got, [("a", 0, 0), ("b", 1, 0), ("n", 0, 1), ("sums", 0, 2)]);
}

#[test]
fn dyn0110_fills() {
    let src = format!("{BASE}\ninput a: array<u32> = 1u;\n");
    assert_eq!(codes(&src), ["DYN0110"]);
    let src = format!("{BASE}\nbuffer a: array<u32, 4> = -1;\n");
    assert_eq!(codes(&src), ["DYN0110"]);
    let src = format!("{BASE}\nbuffer a: array<Node, 4> = 0u;\n");
    assert_eq!(codes(&src), ["DYN0110"]);
    let src = format!("{BASE}\nbuffer a: atomic<u32> = 1.5;\n");
    assert_eq!(codes(&src), ["DYN0110"]);
    let src = format!("{BASE}\nbuffer a: atomic<u32> = 4294967296;\n");
    assert_eq!(codes(&src), ["DYN0110"]);
    let p = clean(&format!(
        "{BASE}\nbuffer a: array<f32, 4> = 1;\nbuffer b: atomic<i32> = -7;\nbuffer c: vec3f = 0.5;\n"
    ));
    let fills: Vec<_> = p.resources.values().filter_map(|r| r.fill.map(|l| l.wgsl())).collect();
    assert_eq!(fills, ["1.0f", "-7i", "0.5f"]);
}

#[test]
fn dyn0200_payload_presence() {
    let src = BASE.replace("spawn leaf(Node(i, 0u))", "spawn leaf()");
    assert_eq!(one(&src, &diags(&src), "DYN0200").1, "spawn leaf();");
    let src = format!(
        "{}\nstage bare() {{ }}\n",
        BASE.replace("spawn leaf(Node(i, 0u));", "spawn leaf(Node(i, 0u)); spawn bare(i);")
    );
    assert_eq!(one(&src, &diags(&src), "DYN0200").1, "i");
}

#[test]
fn dyn0200_payload_type_from_naga() {
    let src = BASE.replace("spawn leaf(Node(i, 0u))", "spawn leaf(5u)");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0200");
    assert_eq!(text, "5u");
    assert_eq!(d.primary.message, "expected `Node`, this is `u32`");
    assert_eq!(d.message, "payload mismatch: `leaf` takes `Node`");
    assert_eq!(ds.len(), 1);
    // A wrong constructor is caught by naga's front end, also inside the payload.
    let src = BASE.replace("spawn leaf(Node(i, 0u))", "spawn leaf(Node(i, 1.5))");
    let ds = diags(&src);
    assert!(one(&src, &ds, "DYN0200").1.len() <= "Node(i, 1.5)".len());
}

#[test]
fn dyn0201_fanout_index() {
    let src = BASE.replace("spawn leaf(", "spawn[4] leaf(");
    assert_eq!(codes(&src), ["DYN0201"]);
    let src = BASE.replace("stage leaf(x: Node)", "stage leaf(x: Node, @index j: u32)");
    assert_eq!(codes(&src), ["DYN0201"]);
    let src = format!(
        "{}\nstage other(@index j: u32) {{ }}\n",
        BASE.replace("atomicAdd(&sums[x.id], 1u);", "become other();")
    );
    assert!(codes(&src).contains(&"DYN0201"));
    // Fan-out to an `@index` stage is fine.
    let p = clean(
        &BASE
            .replace("stage leaf(x: Node)", "stage leaf(x: Node, @index j: u32)")
            .replace("spawn leaf(", "spawn[x_count()] leaf(")
            .replace("input n", "fn x_count() -> u32 { return 3u; }\ninput n"),
    );
    assert_eq!(p.edges.raw()[0].kind, EdgeKind::FanOut);
}

const KEYED: &str = "
input n: array<u32>;
output seen: array<atomic<u32>, len(n)>;
stage root(@index i: u32) { spawn mark(i); }
@keyed(len(n))
stage mark(v: u32) { atomicAdd(&seen[v], 1u); if (v > 0u) { spawn mark(v - 1u); } }
entry root(len(n));
";

#[test]
fn dyn0202_keyed() {
    let p = clean(KEYED);
    assert!(p
        .edges
        .values()
        .all(|e| e.kind == EdgeKind::Keyed && e.recursion == RecursionStep::Reset));
    assert_eq!(p.max_spawn_depth, 1);
    let src = KEYED.replace("stage mark(v: u32)", "stage mark(v: i32)");
    assert!(codes(&src).contains(&"DYN0202"));
    let src = KEYED.replace("stage mark(v: u32)", "stage mark(v: u32, @index j: u32)");
    assert!(codes(&src).contains(&"DYN0202"));
    let src = KEYED.replace("spawn mark(i);", "spawn[2] mark(i);");
    assert_eq!(codes(&src), ["DYN0202"]);
    let src = KEYED.replace("spawn mark(i);", "become mark(i);");
    assert_eq!(codes(&src), ["DYN0202"]);
    let src = KEYED.replace("stage root", "@keyed(4) stage root");
    assert!(codes(&src).contains(&"DYN0202"));
}

#[test]
fn dyn0203_open_loops() {
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "var k = 0u; while (k < n[i]) { spawn leaf(Node(i, k)); k++; }",
    );
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0203");
    assert_eq!(text, "spawn leaf(Node(i, k));");
    assert_eq!(src.get(d.secondary[0].span.clone()), Some("(k < n[i])"));
    assert!(d.hint.as_deref().unwrap().contains("spawn[n]"));
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "for (var k = 0u; k < n[i]; k++) { spawn leaf(Node(i, k)); }",
    );
    assert_eq!(codes(&src), ["DYN0203"]);
    let src = BASE.replace("spawn leaf(Node(i, 0u));", "loop { spawn leaf(Node(i, 0u)); break; }");
    assert_eq!(codes(&src), ["DYN0203"]);
    // A constant loop is counted instead.
    let p = clean(&BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "for (var k = 0u; k < 4u; k++) { spawn leaf(Node(i, k)); }",
    ));
    assert_eq!(p.stages.raw()[0].max_spawns, 4);
    assert!(p.edges.raw()[0].conditional);
    // `loop` and `continuing` have no header: the keyword is labelled.
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "var k = 0u; loop { if (k > 2u) { break; } continuing { spawn leaf(Node(i, k)); k++; } }",
    );
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0203");
    assert_eq!(src.get(d.secondary[0].span.clone()), Some("continuing"));
    let src = BASE.replace("spawn leaf(Node(i, 0u));", "loop { spawn leaf(Node(i, 0u)); break; }");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0203");
    assert_eq!(src.get(d.secondary[0].span.clone()), Some("loop"));
    // Step 2 is not recognised; the message says so rather than "data-dependent".
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "for (var k = 0u; k < 8u; k += 2u) { spawn leaf(Node(i, k)); }",
    );
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0203");
    assert!(d.message.contains("recognised"));
    // A `become` runs at most once, in any loop.
    let p = clean(&BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "for (var k = 0u; k < n[i]; k++) { if (k == 3u) { become leaf(Node(i, k)); } }",
    ));
    assert!(p.stages.raw()[0].becomes);
    assert_eq!(p.stages.raw()[0].max_spawns, 0);
    // ...but not in a `continuing` block, where WGSL allows no `return`.
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "var k = 0u; loop { if (k > 2u) { break; } continuing { k++; become leaf(Node(i, k)); } }",
    );
    assert_eq!(codes(&src), ["DYN0401"]);
}

#[test]
fn dyn0204_spawn_outside_stage() {
    let src = format!("{BASE}\nfn helper(i: u32) {{ spawn leaf(Node(i, 0u)); }}\n");
    assert_eq!(codes(&src), ["DYN0204"]);
    let src = BASE.replace(
        "entry root(len(n));",
        "@max_rounds(4) entry loop root(len(n)) until { spawn leaf(Node(0u, 0u)); return true; }",
    );
    assert_eq!(codes(&src), ["DYN0204"]);
}

#[test]
fn dyn0205_entry_stage() {
    let src = BASE.replace("entry root", "entry leaf");
    let c = codes(&src);
    assert_eq!(c.iter().filter(|c| **c == "DYN0205").count(), 2, "{c:?}");
    // A keyed entry is DYN0202 alone (DYN0205's advice would contradict `@keyed`).
    let src = BASE
        .replace("stage leaf(x: Node)", "@keyed(len(n)) stage leaf(x: u32)")
        .replace("entry root", "entry leaf");
    assert_eq!(codes(&src), ["DYN0302", "DYN0202"]); // `root` is not run
}

#[test]
fn dyn0206_barriers() {
    let src = BASE.replace(
        "atomicAdd(&sums[x.id], 1u);",
        "workgroupBarrier(); atomicAdd(&sums[x.id], 1u);",
    );
    assert_eq!(one(&src, &diags(&src), "DYN0206").1, "workgroupBarrier");
    let src = format!("{BASE}\nfn sync() {{ storageBarrier(); }}\n");
    assert_eq!(codes(&src), ["DYN0206"]);
    clean(&BASE.replace(
        "atomicAdd(&sums[x.id], 1u);",
        "// workgroupBarrier();\natomicAdd(&sums[x.id], 1u);",
    ));
}

#[test]
fn dyn0207_too_many_spawns() {
    let src = BASE.replace(
        "spawn leaf(Node(i, 0u));",
        "for (var k = 0u; k < 8u; k++) { spawn leaf(Node(i, k)); if (k > 2u) { spawn leaf(Node(i, 1u)); } else { spawn leaf(Node(i, 2u)); } }",
    );
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0207");
    assert_eq!(text, "root");
    assert!(d.message.contains("24"), "{}", d.message);
}

const CYCLE: &str = "
input n: array<u32>;
output out: array<atomic<u32>, len(n)>;
stage root(@index i: u32) { spawn a(i); }
stage a(x: u32) { atomicAdd(&out[x], 1u); if (x > 0u) { spawn b(x - 1u); } }
stage b(x: u32) { spawn a(x); }
entry root(len(n));
";

#[test]
fn dyn0300_undeclared_cycle() {
    let ds = diags(CYCLE);
    let (d, text) = one(CYCLE, &ds, "DYN0300");
    assert_eq!(text, "spawn b(x - 1u);");
    assert_eq!(d.primary.message, "`a` spawns `b` here");
    assert_eq!(d.secondary.len(), 1);
    assert_eq!(d.secondary[0].message, "...which spawns `a` again, closing the cycle");
    assert_eq!(d.notes[0], "cycle: a -> b -> a");
    assert!(d.hint.as_deref().unwrap().contains("@max_depth"));
    // Declared: fine, and the bound shapes the depth.
    let p = clean(&CYCLE.replace("stage a", "@max_depth(3) stage a"));
    let (a, st) = stage(&p, "a");
    assert_eq!(st.recursion, Some((a, 3)));
    // Every spawn is lone: the chain runs at one level.
    assert_eq!(p.max_spawn_depth, 1);
    // With a second spawn of `b`, `a`'s spawns nest: 4 rounds of a -> b (1) -> a (lone, 0),
    // plus 1.
    let twice = CYCLE
        .replace("stage a", "@max_depth(3) stage a")
        .replace("spawn b(x - 1u);", "spawn b(x - 1u); spawn b(x);");
    assert_eq!(clean(&twice).max_spawn_depth, 5);
    // A self-spawn.
    let src = CYCLE.replace("spawn b(x - 1u);", "spawn a(x - 1u);");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0300");
    assert_eq!(d.primary.message, "`a` spawns itself here, closing the cycle");
    // A bound written but malformed: its error suffices, no "add `@max_depth`".
    let src = CYCLE.replace("stage a", "@max_depth(x) stage a");
    assert_eq!(codes(&src), ["DYN0104"]);
}

#[test]
fn naga_runs_despite_graph_errors() {
    let src = CYCLE.replace("spawn a(x);", "spawn a(1.5f);");
    assert_eq!(codes(&src), ["DYN0300", "DYN0200"]);
}

#[test]
fn dyn0300_bound_avoided() {
    // Two cycles a -> b -> a and a -> c -> a; the bound on b misses the second.
    let src = CYCLE
        .replace("stage b", "@max_depth(3) stage b")
        .replace("spawn b(x - 1u);", "spawn b(x - 1u); spawn c(x - 1u);")
        .replace("entry", "stage c(x: u32) { spawn a(x); }\nentry");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0300");
    assert_eq!(text, "spawn c(x - 1u);");
    assert!(d.notes.iter().any(|n| n.contains("avoids `b`")), "{}", show(&src, &ds));
}

#[test]
fn dyn0301_tail_loop() {
    let src = "
input n: array<u32>;
stage root(@index i: u32) { become ping(i); }
stage ping(x: u32) { become pong(x + 1u); }
stage pong(x: u32) { become ping(x); }
entry root(len(n));
";
    let ds = diags(src);
    let (d, text) = one(src, &ds, "DYN0301");
    assert_eq!(text, "become pong(x + 1u);");
    assert_eq!(d.primary.message, "`ping` becomes `pong` here");
    assert_eq!(d.notes[0], "cycle: ping -> pong -> ping");
    let p = clean(&src.replace("become pong(x + 1u);", "if (x < 10u) { become pong(x + 1u); }"));
    assert_eq!(p.max_spawn_depth, 1);
    assert!(p.stages.values().all(|s| s.recursion.is_none()));
}

#[test]
fn dyn0302_unreachable() {
    let src = format!("{BASE}\nstage lonely(x: u32) {{ }}\n");
    let c = run(&src);
    assert_eq!(c.diagnostics.len(), 1);
    assert_eq!(c.diagnostics[0].code, "DYN0302");
    assert!(!c.diagnostics[0].is_error());
    assert!(c.program.is_some());
}

#[test]
fn dyn0303_bounds() {
    let src = BASE.replace("stage leaf", "@max_depth(3) stage leaf");
    assert_eq!(one(&src, &diags(&src), "DYN0303").1, "@max_depth(3)");
    let src = CYCLE.replace("stage a", "@max_depth(0) stage a");
    assert_eq!(codes(&src), ["DYN0303"]);
    let src = CYCLE.replace("stage a", "@max_depth(65) stage a");
    let ds = diags(&src);
    assert!(one(&src, &ds, "DYN0303").0.notes[0].contains("serial"));
    let src = CYCLE
        .replace("stage a", "@max_depth(4) stage a")
        .replace("stage b", "@max_depth(4) stage b");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0303");
    assert_eq!(d.secondary.len(), 1);
    // A bound on a keyed worklist is meaningless.
    let src = KEYED.replace("@keyed(len(n))", "@keyed(len(n)) @max_depth(4)");
    assert_eq!(codes(&src), ["DYN0303"]);
}

#[test]
fn dyn0304_graph_loops() {
    let looped = BASE.replace(
        "entry root(len(n));",
        "@max_rounds(8) entry loop root(len(n)) until { return atomicLoad(&sums[0]) > 3u; }",
    );
    let p = clean(&looped);
    assert_eq!(p.entry.max_rounds, Some(8));
    let src = looped.replace("@max_rounds(8)", "@max_rounds(0)");
    assert_eq!(codes(&src), ["DYN0304"]);
    let src = looped.replace("return atomicLoad(&sums[0]) > 3u;", "let x = 1u;");
    assert_eq!(one(&src, &diags(&src), "DYN0304").1, "{ let x = 1u; }");
    // The until block is validated too.
    let src = looped.replace("> 3u", "+ 3u");
    assert_eq!(codes(&src), ["DYN0401"]);
}

#[test]
fn dyn0400_wgsl_syntax() {
    let src = BASE.replace("atomicAdd(&sums[x.id], 1u);", "let y = ;");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0400");
    assert_eq!(text, ";");
    assert!(!d.message.is_empty());
}

#[test]
fn naga_errors_per_stage() {
    // Every stage reports its first error, not only the first stage of the file.
    let src = BASE
        .replace("spawn leaf(Node(i, 0u));", "spawn leaf(Node(i, 0u)); let a: u32 = 1.5;")
        .replace(
            "atomicAdd(&sums[x.id], 1u);",
            "atomicAdd(&sums[x.id], 1u); if (x.id) {}",
        );
    let ds = diags(&src);
    let found: Vec<&str> = ds
        .iter()
        .map(|d| src.get(d.primary.span.clone()).unwrap_or("?"))
        .collect();
    assert_eq!(ds.len(), 2, "{}", show(&src, &ds));
    assert!(found[1].contains("x.id"), "{}", show(&src, &ds));
    // An error in a helper is reported once, not once per stage.
    let src = format!("{BASE}\nfn f(x: u32) -> u32 {{ return x + 1.5; }}\n");
    assert_eq!(diags(&src).len(), 1);
}

#[test]
fn naga_errors_point_at_what_was_written() {
    // A payload held in a `let`: the spawn's payload, not the `let`.
    let src = BASE.replace("spawn leaf(Node(i, 0u));", "let p = vec2<u32>(i, 0u); spawn leaf(p);");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0200");
    assert_eq!(text, "p");
    assert_eq!(src.get(d.secondary[0].span.clone()), Some("vec2<u32>(i, 0u)"));
    // An `if` on a non-bool argument: the condition.
    let src = BASE.replace(
        "atomicAdd(&sums[x.id], 1u);",
        "if (x.depth) { atomicAdd(&sums[x.id], 1u); }",
    );
    assert_eq!(one(&src, &diags(&src), "DYN0401").1, "x.depth");
    let src = BASE.replace("stage leaf(x: Node) {", "stage leaf(x: Node) { let y = x.id; if y {}");
    assert_eq!(one(&src, &diags(&src), "DYN0401").1, "y");
    // A store into an input.
    let src = BASE.replace("spawn leaf(Node(i, 0u));", "n[i] = 0u;");
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0401");
    assert_eq!(text, "n[i]");
    assert_eq!(d.message, "`n` is an `input` and read-only");
    // A non-bool `until` block: the returned expression, with the block's rule.
    let src = BASE.replace(
        "entry root(len(n));",
        "buffer flag: atomic<u32>;\n@max_rounds(4) entry loop root(len(n)) until { return atomicLoad(&flag); }",
    );
    let ds = diags(&src);
    let (d, text) = one(&src, &ds, "DYN0401");
    assert_eq!(text, "atomicLoad(&flag)");
    assert_eq!(d.message, "the `until` block must return a `bool`");
}

#[test]
fn dyn0401_wgsl_validation() {
    let src = format!("{BASE}\nfn f(x: u32) -> u32 {{ if (x > 1u) {{ return 1u; }} }}\n");
    let ds = diags(&src);
    let (d, _) = one(&src, &ds, "DYN0401");
    assert!(d.message.contains("return"), "{}", show(&src, &ds));
}
