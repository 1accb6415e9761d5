//! Shared by the GPU test binaries (`gpu_examples`, `dawn`, `dawn_frame_loop`): compiling the
//! shipped examples, finding node and Dawn for Node, deterministic inputs for them, and the expected outputs and per-stage unit counts computed by
//! the independent CPU references in `dyngc-reference`.
//!
//! Use with `mod support;` from a file in `crates/dyngc/tests/`. Not every binary uses every
//! helper, hence the `dead_code` allowance.
#![allow(dead_code)]

use dyngc_reference::{self as reference, Csr, Rng};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Vulkan driver node uses under Dawn when the caller names none.
pub const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/dawn/<script>`, after checking that node and Dawn for Node are installed.
pub fn dawn_script(script: &str) -> PathBuf {
    let dir = repo_root().join("tests/dawn");
    let hint = "run `scripts/test` (it installs node and Dawn for Node with `npm ci` in tests/dawn)";
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!("`node --version` failed ({}): {hint}", o.status),
        Err(e) => panic!("node is not installed ({e}): {hint}"),
    }
    let module = dir.join("node_modules/webgpu");
    assert!(module.is_dir(), "{} is missing: {hint}", module.display());
    dir.join(script)
}

/// `VK_ICD_FILENAMES` and `XDG_RUNTIME_DIR` for node: the caller's, else SwiftShader and /tmp.
pub fn vulkan_env() -> (String, String) {
    let icd = std::env::var("VK_ICD_FILENAMES").unwrap_or_else(|_| SWIFTSHADER_ICD.to_string());
    let xdg = std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".to_string());
    (icd, xdg)
}

/// A finished `node` process.
pub struct NodeRun {
    pub status: std::process::ExitStatus,
    /// Its stdout, then its stderr.
    pub output: String,
    /// The shell command that reproduces it.
    pub command: String,
}

/// Runs `node` with `args` under [`vulkan_env`] and waits for it.
pub fn run_node(args: &[String]) -> NodeRun {
    let (icd, xdg) = vulkan_env();
    let output = Command::new("node")
        .args(args)
        .env("VK_ICD_FILENAMES", &icd)
        .env("XDG_RUNTIME_DIR", &xdg)
        .output()
        .unwrap_or_else(|e| panic!("could not start node: {e}"));
    NodeRun {
        status: output.status,
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        command: format!("VK_ICD_FILENAMES={icd} XDG_RUNTIME_DIR={xdg} node {}", args.join(" ")),
    }
}

/// The shipped examples, in the order the tests use them.
pub const EXAMPLES: [&str; 7] = [
    "triangle",
    "collatz",
    "tree",
    "bfs",
    "bfs_levels",
    "pagerank",
    "row_sum",
];

/// Programs that only the tests use, in `tests/programs/`, compiled and run like the examples.
pub const TEST_PROGRAMS: [&str; 7] = [
    "accumulate",
    "self_loops",
    "long_emits",
    "comb",
    "refills",
    "chain_returns",
    "unrolled_chains",
];

/// `examples/<name>.dyn`, or `tests/programs/<name>.dyn` for a [`TEST_PROGRAMS`] name.
pub fn example_path(name: &str) -> PathBuf {
    let dir = if TEST_PROGRAMS.contains(&name) {
        "tests/programs"
    } else {
        "examples"
    };
    repo_root().join(dir).join(format!("{name}.dyn"))
}

/// Compiles `examples/<name>.dyn`; panics with the diagnostics on failure.
pub fn compile(name: &str, options: impl Into<dyngc_compiler::Options>) -> dyngc_codegen::Artifact {
    let path = example_path(name);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let compiled = dyngc_compiler::compile(&source, name, options);
    let display = path.display().to_string();
    compiled.artifact.unwrap_or_else(|| {
        panic!(
            "{}",
            dyngc_compiler::render::render(&display, &source, &compiled.diagnostics)
        )
    })
}

/// Little-endian bytes of `u32` words, as inputs are uploaded.
pub fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `u32` words of little-endian bytes, as outputs are read back.
pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    assert!(
        bytes.len() % 4 == 0,
        "{} bytes is not a whole number of u32 words",
        bytes.len()
    );
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// What a stage's unit counter must read after a completed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    Exact(u64),
    /// Keyed stages may run a key more than once (once per pending period).
    AtLeast(u64),
}

impl Units {
    pub fn admits(self, got: u64) -> bool {
        match self {
            Units::Exact(n) => got == n,
            Units::AtLeast(n) => got >= n,
        }
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Units::Exact(n) => write!(f, "exactly {n}"),
            Units::AtLeast(n) => write!(f, "at least {n}"),
        }
    }
}

/// One run's inputs and parameters with the outputs and unit counts the CPU reference predicts.
#[derive(Clone, Debug)]
pub struct Case {
    /// `examples/<example>.dyn`.
    pub example: &'static str,
    /// Short description of the input shape, for messages.
    pub label: String,
    /// Input name and its `u32` elements (every example input is `array<u32>`).
    pub inputs: Vec<(String, Vec<u32>)>,
    /// Parameter name and value (all example parameters are `u32`).
    pub params: Vec<(String, u32)>,
    /// Every output, in manifest order, with its expected contents.
    pub expected: Vec<(String, Vec<u32>)>,
    /// Every stage with its expected unit count.
    pub units: Vec<(String, Units)>,
    /// Rounds of the graph-level loop the run must report (0 without a loop).
    pub rounds: u64,
}

impl Case {
    /// The inputs as bytes, ready for `RunSetup::input`.
    pub fn input_bytes(&self) -> Vec<(String, Vec<u8>)> {
        self.inputs.iter().map(|(n, v)| (n.clone(), words(v))).collect()
    }

    /// Total units the run must execute (exact stages) or at least execute (keyed ones).
    pub fn min_total_units(&self) -> u64 {
        self.units
            .iter()
            .map(|(_, u)| match u {
                Units::Exact(n) | Units::AtLeast(n) => *n,
            })
            .sum()
    }
}

// ---------------------------------------------------------------------------------------------
// Cases: expected outputs and unit counts from the CPU references.

/// `triangle.dyn`: `sums[i] = n[i](n[i] + 1)/2`; one `element` unit per input, `n[i]` `add`
/// units each.
pub fn triangle_case(label: impl Into<String>, n: Vec<u32>) -> Case {
    let sums = reference::triangle(&n);
    let adds: u64 = n.iter().map(|&v| v as u64).sum();
    Case {
        example: "triangle",
        label: label.into(),
        units: vec![
            ("element".into(), Units::Exact(n.len() as u64)),
            ("add".into(), Units::Exact(adds)),
        ],
        inputs: vec![("n".into(), n)],
        params: vec![],
        expected: vec![("sums".into(), sums)],
        rounds: 0,
    }
}

/// `collatz.dyn`: step counts; one `start` unit per input, `steps[i] + 1` `step` units each
/// (the last one sees the value 1 and stops).
pub fn collatz_case(label: impl Into<String>, x: Vec<u32>) -> Case {
    let steps = reference::collatz(&x);
    let step_units: u64 = steps.iter().map(|&s| s as u64 + 1).sum();
    Case {
        example: "collatz",
        label: label.into(),
        units: vec![
            ("start".into(), Units::Exact(x.len() as u64)),
            ("step".into(), Units::Exact(step_units)),
        ],
        inputs: vec![("x".into(), x)],
        params: vec![],
        expected: vec![("steps".into(), steps)],
        rounds: 0,
    }
}

/// `tests/programs/self_loops.dyn`: collatz step counts; per walk, how many of its values
/// above 1 are divisible by 5 (one `mark` each); three ticks per walk of an odd element (an
/// even one returns). One `walk` unit per value of a walk (the final 1 included), three `tick`
/// units per odd element.
pub fn self_loops_case(label: impl Into<String>, x: Vec<u32>) -> Case {
    let steps = reference::collatz(&x);
    let hits: Vec<u32> = x
        .iter()
        .map(|&start| reference::collatz_walk(start).filter(|v| v % 5 == 0).count() as u32)
        .collect();
    let walks = x.len() as u64;
    let ticking = walks / 2;
    let units = |v: &[u32], extra: u64| v.iter().map(|&s| s as u64 + extra).sum::<u64>();
    Case {
        example: "self_loops",
        label: label.into(),
        units: vec![
            ("start".into(), Units::Exact(walks)),
            ("walk".into(), Units::Exact(units(&steps, 1))),
            ("mark".into(), Units::Exact(units(&hits, 0))),
            ("tick".into(), Units::Exact(3 * ticking)),
        ],
        inputs: vec![("x".into(), x)],
        params: vec![],
        expected: vec![
            ("steps".into(), steps),
            ("hits".into(), hits),
            ("ticks".into(), vec![3 * ticking as u32]),
        ],
        rounds: 0,
    }
}

/// `tests/programs/accumulate.dyn`: one output of each combining atomic, over every value of
/// the collatz walks from `i * 7919 % 100000 + 1` for `i < walks` (the final 1 included) and the
/// `value % 3` leaves of each multiple of 8 among them. One `start` unit per walk, one `walk`
/// unit per walk value, one `leaf` per leaf.
pub fn accumulate_case(label: impl Into<String>, walks: u32) -> Case {
    let x: Vec<u32> = (0..walks).map(|i| i.wrapping_mul(7919) % 100_000 + 1).collect();
    let mut hist = vec![0u32; 16];
    let (mut most, mut lowest) = (0u32, 0i32);
    let (mut seen, mut kept, mut parity) = (0u32, u32::MAX, 0u32);
    let (mut walk_units, mut leaf_units) = (0u64, 0u64);
    for &start in &x {
        for v in reference::collatz_walk(start).chain([1]) {
            walk_units += 1;
            hist[v as usize % 16] = hist[v as usize % 16].wrapping_add(1);
            most = most.max(v);
            lowest = lowest.min((v as i32).wrapping_sub(1000));
            seen |= 1 << (v % 32);
            kept &= !(1 << (v % 29));
            parity ^= v;
            if v % 8 == 0 {
                for j in 0..v % 3 {
                    leaf_units += 1;
                    hist[v as usize % 16] = hist[v as usize % 16].wrapping_add(v);
                    most = most.max(j + v);
                }
            }
        }
    }
    Case {
        example: "accumulate",
        label: label.into(),
        units: vec![
            ("start".into(), Units::Exact(x.len() as u64)),
            ("walk".into(), Units::Exact(walk_units)),
            ("leaf".into(), Units::Exact(leaf_units)),
        ],
        inputs: vec![],
        params: vec![("walks".into(), walks)],
        expected: vec![
            ("hist".into(), hist),
            ("most".into(), vec![most]),
            ("lowest".into(), vec![lowest as u32]),
            ("seen".into(), vec![seen]),
            ("kept".into(), vec![kept]),
            ("parity".into(), vec![parity]),
        ],
        rounds: 0,
    }
}

/// `tests/programs/chain_returns.dyn`: collatz step counts, two steps a `walk` unit, so a walk of
/// `s` steps is `s / 2 + 1` units.
pub fn chain_returns_case(label: impl Into<String>, x: Vec<u32>) -> Case {
    let mut case = collatz_case(label, x);
    case.example = "chain_returns";
    case.inputs[0].0 = "p".into();
    let walks = case.expected[0].1.iter().map(|&s| s as u64 / 2 + 1).sum();
    case.units[1] = ("walk".into(), Units::Exact(walks));
    case
}

/// `tests/programs/unrolled_chains.dyn`: two walks per element, the second starting its count at
/// one; three ticks per element. One `root` unit; two `pair` units and one `wind` per element,
/// one `walk` unit per value of each walk (the final 1 included), three `countdown` units per
/// element.
pub fn unrolled_chains_case(label: impl Into<String>, x: Vec<u32>) -> Case {
    let collatz = reference::collatz(&x);
    let steps: Vec<u32> = collatz.iter().map(|&s| 2 * s + 1).collect();
    let n = x.len() as u64;
    let walk_units = collatz.iter().map(|&s| 2 * (s as u64 + 1)).sum();
    Case {
        example: "unrolled_chains",
        label: label.into(),
        units: vec![
            ("root".into(), Units::Exact(1)),
            ("pair".into(), Units::Exact(2 * n)),
            ("wind".into(), Units::Exact(n)),
            ("walk".into(), Units::Exact(walk_units)),
            ("countdown".into(), Units::Exact(3 * n)),
        ],
        inputs: vec![("x".into(), x)],
        params: vec![],
        expected: vec![("steps".into(), steps), ("ticks".into(), vec![3 * n as u32])],
        rounds: 0,
    }
}

/// `tests/programs/refills.dyn`: every element is fed twice (the entry's window and the one
/// element 0's walk spawns); every third element (`i % 3 == 2`) walks never, the others twice,
/// with collatz step counts. Two `feed` units per element, one `walk` unit per value of each walk.
pub fn refills_case(label: impl Into<String>, x: Vec<u32>) -> Case {
    let walked = |i: usize| i % 3 != 2;
    let steps: Vec<u32> = reference::collatz(&x)
        .into_iter()
        .enumerate()
        .map(|(i, s)| if walked(i) { s } else { 0 })
        .collect();
    let walks: u64 = steps
        .iter()
        .enumerate()
        .filter(|&(i, _)| walked(i))
        .map(|(_, &s)| 2 * (s as u64 + 1))
        .sum();
    let n = x.len() as u64;
    Case {
        example: "refills",
        label: label.into(),
        units: vec![
            ("feed".into(), Units::Exact(2 * n)),
            ("walk".into(), Units::Exact(walks)),
        ],
        inputs: vec![("x".into(), x)],
        params: vec![],
        expected: vec![
            ("steps".into(), steps),
            ("feeds".into(), vec![2; n as usize]),
            // Element 0 walks twice; its first walk spawns.
            ("again".into(), vec![2]),
        ],
        rounds: 0,
    }
}

/// `tree.dyn`: nodes per depth; one `root` unit, one `node` unit per tree node and one `child`
/// unit per node below the root.
pub fn tree_case(label: impl Into<String>, seed: u32, max_depth: u32, max_children: u32) -> Case {
    assert!(max_depth <= 24, "the reference and `per_depth` hold depths 0..=24");
    let per_depth = reference::tree(seed, max_depth, max_children);
    let nodes: u64 = per_depth.iter().map(|&c| c as u64).sum();
    Case {
        example: "tree",
        label: label.into(),
        inputs: vec![],
        params: vec![
            ("seed".into(), seed),
            ("max_depth".into(), max_depth),
            ("max_children".into(), max_children),
        ],
        expected: vec![("per_depth".into(), per_depth)],
        units: vec![
            ("root".into(), Units::Exact(1)),
            ("node".into(), Units::Exact(nodes)),
            ("child".into(), Units::Exact(nodes - 1)),
        ],
        rounds: 0,
    }
}

/// `tests/programs/comb.dyn`: `spine` steps, each leaving `leaves` leaves; per step, how many
/// leaves ran and the sum of their indices plus one (computed here: the program is its own
/// reference).
pub fn comb_case(label: impl Into<String>, spine: u32, leaves: u32) -> Case {
    const STEPS: usize = 4096;
    assert!(spine as usize <= STEPS, "`count` and `sum` hold {STEPS} steps");
    // `root` starts step 0 whatever `spine` is.
    let steps = spine.max(1);
    let mut count = vec![0u32; STEPS];
    let mut sum = vec![0u32; STEPS];
    for k in 0..steps as usize {
        count[k] = leaves;
        sum[k] = (1..=leaves).sum();
    }
    Case {
        example: "comb",
        label: label.into(),
        inputs: vec![],
        params: vec![("spine".into(), spine), ("leaves".into(), leaves)],
        expected: vec![("count".into(), count), ("sum".into(), sum)],
        units: vec![
            ("root".into(), Units::Exact(1)),
            ("step".into(), Units::Exact(steps as u64)),
            ("leaf".into(), Units::Exact(steps as u64 * leaves as u64)),
        ],
        rounds: 0,
    }
}

/// `bfs.dyn`: hop distances (`u32::MAX` where unreachable). One `seed` unit; `visit` runs every
/// reachable vertex at least once and each of those runs fans out over the vertex's edges, so
/// `relax` runs at least the reachable vertices' total degree.
pub fn bfs_case(label: impl Into<String>, g: &Csr, source: u32) -> Case {
    let dist = reference::bfs(&g.row_ptr, &g.col_idx, source);
    let reachable: Vec<usize> = (0..dist.len()).filter(|&v| dist[v] != u32::MAX).collect();
    let degree: u64 = reachable
        .iter()
        .map(|&v| (g.row_ptr[v + 1] - g.row_ptr[v]) as u64)
        .sum();
    Case {
        example: "bfs",
        label: label.into(),
        inputs: vec![
            ("row_ptr".into(), g.row_ptr.clone()),
            ("col_idx".into(), g.col_idx.clone()),
        ],
        params: vec![("source".into(), source)],
        expected: vec![("dist".into(), dist)],
        units: vec![
            ("seed".into(), Units::Exact(1)),
            ("visit".into(), Units::AtLeast(reachable.len() as u64)),
            ("relax".into(), Units::AtLeast(degree)),
        ],
        rounds: 0,
    }
}

/// `bfs_levels.dyn`: the same distances as `bfs.dyn`; `frontier` scans every vertex once per
/// round, `expand` runs each reachable vertex's edges once (in the round of its level).
pub fn bfs_levels_case(label: impl Into<String>, g: &Csr, source: u32) -> Case {
    let dist = reference::bfs(&g.row_ptr, &g.col_idx, source);
    let rounds = reference::bfs_levels_rounds(&dist) as u64;
    let degree: u64 = (0..dist.len())
        .filter(|&v| dist[v] != u32::MAX)
        .map(|v| (g.row_ptr[v + 1] - g.row_ptr[v]) as u64)
        .sum();
    Case {
        example: "bfs_levels",
        label: label.into(),
        inputs: vec![
            ("row_ptr".into(), g.row_ptr.clone()),
            ("col_idx".into(), g.col_idx.clone()),
        ],
        params: vec![("source".into(), source)],
        expected: vec![("dist".into(), dist.clone())],
        units: vec![
            ("frontier".into(), Units::Exact(dist.len() as u64 * rounds)),
            ("expand".into(), Units::Exact(degree)),
        ],
        rounds,
    }
}

/// `pagerank.dyn`: the reference's final ranks; one `update` unit per vertex per round.
pub fn pagerank_case(label: impl Into<String>, g: &Csr, tolerance: u32, max_iterations: u32) -> Case {
    let (rank, rounds) = reference::pagerank(&g.row_ptr, &g.col_idx, tolerance, max_iterations);
    Case {
        example: "pagerank",
        label: label.into(),
        inputs: vec![
            ("row_ptr".into(), g.row_ptr.clone()),
            ("col_idx".into(), g.col_idx.clone()),
        ],
        params: vec![
            ("tolerance".into(), tolerance),
            ("max_iterations".into(), max_iterations),
        ],
        units: vec![("update".into(), Units::Exact(rank.len() as u64 * rounds as u64))],
        expected: vec![("rank".into(), rank)],
        rounds: rounds as u64,
    }
}

/// Entries a one-lane `row` unit of `row_sum.dyn` sums itself, and entries per `chunk` unit.
const ROW_SUM_SHORT: u32 = 16;
const ROW_SUM_CHUNK: u32 = 256;

/// `row_sum.dyn`: the CPU's row sums; one `row` unit per row, and one wide `chunk` unit per
/// 256 entries (rounded up) of every row longer than 16.
pub fn row_sum_case(label: impl Into<String>, row_ptr: Vec<u32>, val: Vec<u32>) -> Case {
    let sums = reference::row_sums(&row_ptr, &val);
    let chunks: u64 = row_ptr
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&n| n > ROW_SUM_SHORT)
        .map(|n| n.div_ceil(ROW_SUM_CHUNK) as u64)
        .sum();
    Case {
        example: "row_sum",
        label: label.into(),
        units: vec![
            ("row".into(), Units::Exact(sums.len() as u64)),
            ("chunk".into(), Units::Exact(chunks)),
        ],
        inputs: vec![("row_ptr".into(), row_ptr), ("val".into(), val)],
        params: vec![],
        expected: vec![("sums".into(), sums)],
        rounds: 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Input generators (deterministic: SplitMix64 from `dyngc-reference`).

/// Triangle inputs of `len` elements (at least 16): zeros, ones, small random values and a few
/// big ones. The sum of all `n` is about `len * 16 + 55_000`.
pub fn triangle_mixed(len: usize, seed: u64) -> Vec<u32> {
    assert!(len >= 16);
    let mut rng = Rng::new(seed);
    let mut n: Vec<u32> = (0..len)
        .map(|_| match rng.below(8) {
            0 => 0,
            1 => 1,
            _ => rng.below(40) as u32,
        })
        .collect();
    // Big fan-outs at spread-out positions.
    let big = [50_000, 4096, 129, 65];
    for (k, &b) in big.iter().enumerate() {
        n[(k * len / big.len() + 3) % len] = b;
    }
    n
}

/// A CSR matrix of `rows` rows for `row_sum.dyn`: mostly short rows (0..=16 entries, summed by
/// one lane), some of one wide chunk (17..=256), a few of many chunks (up to `long` entries),
/// with values over the whole `u32` range so that the sums wrap. Returns `(row_ptr, val)`.
pub fn row_sum_matrix(rows: usize, long: u32, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let mut row_ptr = vec![0u32];
    for _ in 0..rows {
        let n = match rng.below(16) {
            0 => 0,
            1..=11 => 1 + rng.below(16) as u32,
            12..=14 => 17 + rng.below(240) as u32,
            _ => 257 + rng.below(long as u64 - 256) as u32,
        };
        row_ptr.push(row_ptr.last().unwrap() + n);
    }
    let val = (0..*row_ptr.last().unwrap()).map(|_| rng.next_u64() as u32).collect();
    (row_ptr, val)
}

/// Collatz inputs: `len` values in `1..limit`, with 1, 2, 27 (111 steps) and 97 placed first.
pub fn collatz_inputs(len: usize, limit: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    let mut x: Vec<u32> = [1, 2, 27, 97].into_iter().take(len).collect();
    while x.len() < len {
        x.push(1 + rng.below(limit as u64 - 1) as u32);
    }
    x
}

/// The first seed (from 0) whose tree with these parameters has a root with children and
/// between `min_nodes` and `max_nodes` nodes.
pub fn tree_seed(max_depth: u32, max_children: u32, min_nodes: u64, max_nodes: u64) -> u32 {
    let fits = |nodes: u64| nodes > 1 && (min_nodes..=max_nodes).contains(&nodes);
    reference::tree_near(0..10_000, max_depth..=max_depth, max_children, min_nodes, fits)
        .unwrap_or_else(|_| panic!("no seed below 10000 grows a tree of {min_nodes}..={max_nodes} nodes"))
        .seed
}

/// Nodes at `depth` that would get children if the tree were allowed to grow past `depth`
/// (the recursion the kernel must stop when `max_depth` exceeds the declared bound).
pub fn tree_parents_at(seed: u32, max_children: u32, depth: u32) -> u64 {
    let mut count = 0;
    let mut stack = vec![(0u32, 0u32)];
    while let Some((id, d)) = stack.pop() {
        let c = reference::pcg(id ^ seed) % max_children.wrapping_add(1);
        if d == depth {
            count += (c > 0) as u64;
            continue;
        }
        for j in 0..c {
            stack.push((reference::pcg(id.wrapping_add(j).wrapping_add(1)), d + 1));
        }
    }
    count
}

/// A graph where only part is reachable from vertex 0: a random component on `0..a`, another
/// random component on `a..a + b` with one-way edges pointing *into* the first (so its vertices
/// have edges yet stay unreachable), and `isolated` vertices without any edge at the end.
pub fn bfs_partly_reachable(a: usize, b: usize, isolated: usize, degree: usize, seed: u64) -> Csr {
    let mut rng = Rng::new(seed);
    let mut edges = Vec::new();
    let mut component = |edges: &mut Vec<(u32, u32)>, base: usize, n: usize| {
        // A spanning path keeps the component connected; random edges make it shallow.
        for i in 1..n {
            edges.push(((base + i - 1) as u32, (base + i) as u32));
            edges.push(((base + i) as u32, (base + i - 1) as u32));
        }
        for _ in 0..n * degree / 2 {
            let u = (base as u64 + rng.below(n as u64)) as u32;
            let v = (base as u64 + rng.below(n as u64)) as u32;
            edges.push((u, v));
            edges.push((v, u));
        }
    };
    component(&mut edges, 0, a);
    component(&mut edges, a, b);
    for i in 0..b.min(64) {
        edges.push(((a + i) as u32, (i % a) as u32));
    }
    Csr::from_edges(a + b + isolated, edges)
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/// The first index where `got` differs from `expected` (or where one ends), with both values.
pub fn first_mismatch(expected: &[u32], got: &[u32]) -> Option<(usize, Option<u32>, Option<u32>)> {
    let n = expected.len().max(got.len());
    (0..n)
        .find(|&i| expected.get(i) != got.get(i))
        .map(|i| (i, expected.get(i).copied(), got.get(i).copied()))
}

/// Compares every expected output with what came back; `None` when all are equal, else a
/// description of the first difference (output, index, expected, got, lengths).
pub fn compare_outputs(expected: &[(String, Vec<u32>)], got: &[(String, Vec<u32>)]) -> Option<String> {
    let names = |v: &[(String, Vec<u32>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(expected) != names(got) {
        return Some(format!(
            "outputs {:?} came back, expected {:?}",
            names(got),
            names(expected)
        ));
    }
    for ((name, want), (_, have)) in expected.iter().zip(got) {
        if let Some((i, e, g)) = first_mismatch(want, have) {
            let show = |v: Option<u32>| v.map_or_else(|| "<end>".to_string(), |v| format!("{v} ({v:#x})"));
            return Some(format!(
                "output `{name}` differs first at index {i}: expected {}, got {} (lengths: expected {}, got {}; {} of {} elements differ)",
                show(e),
                show(g),
                want.len(),
                have.len(),
                want.iter().zip(have).filter(|(a, b)| a != b).count() + want.len().abs_diff(have.len()),
                want.len()
            ));
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Stream cases (`gpu_streams`, `js_package`): the elements come in no particular order, so the
// reference's are kept as sorted rows of 32-bit words, one row per element.

/// A stream example's inputs and parameters (as bit patterns) with the elements and unit
/// counts the CPU reference predicts.
#[derive(Clone, Debug)]
pub struct StreamCase {
    pub example: &'static str,
    pub label: String,
    /// Input name and its bytes.
    pub inputs: Vec<(String, Vec<u8>)>,
    /// Parameter name and its 32-bit pattern (`f32` parameters as IEEE bits).
    pub params: Vec<(String, u32)>,
    /// The stream output's binding.
    pub stream: &'static str,
    /// The emitted elements as rows of words, sorted.
    pub expected: Vec<Vec<u32>>,
    /// Every stage with the units it must run (each exactly once).
    pub units: Vec<(String, u64)>,
    /// Whether the rows' last two words are `f32` positions, equal only to a few ulps (the GPU
    /// may fuse multiply-adds): see [`same_stream_row`].
    pub float_tail: bool,
}

/// `compact.dyn`: every `x[i]` divisible by `modulus`; one `keep` unit per element.
pub fn compact_stream_case(x: &[u32], modulus: u32) -> StreamCase {
    let mut expected: Vec<Vec<u32>> = reference::compact(x, modulus).into_iter().map(|v| vec![v]).collect();
    expected.sort();
    StreamCase {
        example: "compact",
        label: format!("{} values, modulus {modulus}", x.len()),
        inputs: vec![("x".into(), words(x))],
        params: vec![("modulus".into(), modulus)],
        stream: "kept",
        expected,
        units: vec![("keep".into(), x.len() as u64)],
        float_tail: false,
    }
}

/// `tessellate.dyn` over `curves` random curves (control points in [0, 4)): rows
/// `curve, k, x, y`, sorted by (curve, k), which are unique together.
pub fn tessellate_stream_case(curves: u32, segments_per_unit: f32) -> StreamCase {
    let f = |s: u32| (reference::pcg(s) % 4096) as f32 / 1024.0;
    let ctrl: Vec<[f32; 2]> = (0..3 * curves).map(|i| [f(2 * i), f(2 * i + 1)]).collect();
    let mut expected: Vec<Vec<u32>> = reference::tessellate(&ctrl, segments_per_unit)
        .into_iter()
        .map(|(c, k, p)| vec![c, k, p[0].to_bits(), p[1].to_bits()])
        .collect();
    expected.sort_by_key(|r| (r[0], r[1]));
    StreamCase {
        example: "tessellate",
        label: format!("{curves} curves, {segments_per_unit} segments per unit"),
        inputs: vec![(
            "ctrl".into(),
            ctrl.iter()
                .flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes()))
                .collect(),
        )],
        params: vec![("segments_per_unit".into(), segments_per_unit.to_bits())],
        stream: "verts",
        expected,
        units: vec![("curve".into(), curves as u64)],
        float_tail: true,
    }
}

/// `tests/programs/long_emits.dyn`: unit `i` emits `i * 1000 + k` for `k < n[i] % 601`.
pub fn long_emits_stream_case(n: &[u32]) -> StreamCase {
    let mut expected: Vec<Vec<u32>> = n
        .iter()
        .enumerate()
        .flat_map(|(i, &v)| (0..v % 601).map(move |k| vec![i as u32 * 1000 + k]))
        .collect();
    expected.sort();
    StreamCase {
        example: "long_emits",
        label: format!("{} units", n.len()),
        inputs: vec![("n".into(), words(n))],
        params: Vec::new(),
        stream: "out",
        expected,
        units: vec![("spill".into(), n.len() as u64)],
        float_tail: false,
    }
}

/// `quadtree.dyn`: the leaves of the disk's quadtree, `x, y, depth, kind`.
pub fn quadtree_stream_case(radius: u32, max_depth: u32) -> StreamCase {
    let mut expected: Vec<Vec<u32>> = reference::quadtree_leaves(radius, max_depth)
        .into_iter()
        .map(|l| l.to_vec())
        .collect();
    expected.sort();
    // Every cell is a leaf or has four children: cells = 1 + 4 * (cells that split).
    let cells = (4 * expected.len() as u64 - 1) / 3;
    StreamCase {
        example: "quadtree",
        label: format!("radius {radius}, depth {max_depth}"),
        inputs: Vec::new(),
        params: vec![("radius".into(), radius), ("max_depth".into(), max_depth)],
        stream: "leaves",
        expected,
        units: vec![
            ("root".into(), 1),
            ("cell".into(), cells),
            ("quarter".into(), cells - 1),
        ],
        float_tail: false,
    }
}

/// One small case of every stream example, for the slow JavaScript engines (every drain is a
/// round trip): 100 values, 12 curves, a quadtree of depth 5 with leaves at several depths.
pub fn small_stream_cases() -> Vec<StreamCase> {
    let x: Vec<u32> = (0..100u32).map(|i| reference::pcg(i) % 1000).collect();
    let quadtree = quadtree_stream_case(1500, 5);
    let depths: std::collections::BTreeSet<u32> = quadtree.expected.iter().map(|l| l[2]).collect();
    assert!(
        depths.len() >= 3,
        "the quadtree should emit at several depths: {depths:?}"
    );
    vec![compact_stream_case(&x, 3), tessellate_stream_case(12, 3.5), quadtree]
}

/// Whether a row that came back equals the expected one: exactly, but for a case's `f32` tail
/// words, within 1e-5 relative.
pub fn same_stream_row(case: &StreamCase, got: &[u32], want: &[u32]) -> bool {
    let close = |x: u32, y: u32| {
        let (x, y) = (f32::from_bits(x), f32::from_bits(y));
        (x - y).abs() <= 1e-5 * (1.0 + x.abs().max(y.abs()))
    };
    let exact = if case.float_tail {
        want.len().saturating_sub(2)
    } else {
        want.len()
    };
    got.len() == want.len()
        && got[..exact] == want[..exact]
        && got[exact..].iter().zip(&want[exact..]).all(|(&g, &w)| close(g, w))
}
