//! The `dyngc` binary end to end: exit codes, message formats, graph output, file handling and
//! the run command's checks of inputs, parameters and arena sizes. Runs that reach the GPU use
//! SwiftShader when it is installed (see scripts/test); without any adapter they check only that
//! the failure says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLES: [&str; 7] = [
    "bfs",
    "bfs_levels",
    "collatz",
    "pagerank",
    "row_sum",
    "tree",
    "triangle",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(format!("{name}.dyn"))
}

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dyngc-cli").join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn dyngc(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dyngc"));
    cmd.args(args).env_remove("RUST_BACKTRACE");
    // Never lavapipe: prefer SwiftShader when it is there and nothing else was chosen.
    let swiftshader = "/usr/lib/chromium/vk_swiftshader_icd.json";
    if std::env::var_os("VK_ICD_FILENAMES").is_none() && Path::new(swiftshader).exists() {
        cmd.env("VK_ICD_FILENAMES", swiftshader);
        if std::env::var_os("WGPU_BACKEND").is_none() {
            cmd.env("WGPU_BACKEND", "vulkan");
        }
    }
    cmd.output().expect("dyngc runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[track_caller]
fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status\n--- stdout\n{}\n--- stderr\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
}

/// Asserts the exit status and that stderr says `needle`.
#[track_caller]
fn assert_exit_says(out: &Output, code: i32, needle: &str) {
    assert_exit(out, code);
    let err = text(&out.stderr);
    assert!(err.contains(needle), "{err}");
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

/// A minimal `.npy` writer (format 1.0, C order), independent of the crate under test.
fn npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) {
    let shape = match shape {
        [n] => format!("({n},)"),
        s => format!("({})", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The data of a `.npy` file written by dyngc (header skipped), as u32 words.
fn read_npy_u32(path: &Path) -> (String, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap();
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = String::from_utf8_lossy(&bytes[10..10 + len]).into_owned();
    let words = bytes[10 + len..]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (header, words)
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_prints_a_code() {
    let out = dyngc(&["explain", "DYN0300"]);
    assert_exit(&out, 0);
    assert!(text(&out.stdout).starts_with("# DYN0300"), "{}", text(&out.stdout));
    // Prefix and leading zeros are optional, case does not matter.
    for spelling in ["300", "dyn300", "Dyn0300"] {
        let again = dyngc(&["explain", spelling]);
        assert_exit(&again, 0);
        assert_eq!(again.stdout, out.stdout);
    }
}

#[test]
fn explain_rejects_unknown_codes() {
    for code in ["DYN9999", "hello", ""] {
        let out = dyngc(&["explain", code]);
        assert_exit(&out, 2);
        let err = text(&out.stderr);
        assert!(
            err.contains("is not a dyngc diagnostic code") && err.contains("DYN0300"),
            "{err}"
        );
    }
}

#[test]
fn explain_lists_every_code() {
    let out = dyngc(&["explain", "--list"]);
    assert_exit(&out, 0);
    let list = text(&out.stdout);
    assert!(list.lines().count() >= 30, "{list}");
    assert!(list.lines().all(|l| l.starts_with("DYN")), "{list}");
    assert!(list.contains("DYN0001  syntax error"), "{list}");
}

#[test]
fn usage_errors_exit_2() {
    assert_exit(&dyngc(&[]), 2);
    assert_exit(&dyngc(&["frobnicate"]), 2);
    assert_exit(&dyngc(&["check"]), 2);
    assert_exit(&dyngc(&["check", "--color", "sometimes", "x.dyn"]), 2);
    let help = dyngc(&["run", "--help"]);
    assert_exit(&help, 0);
    assert!(text(&help.stdout).contains("--arena"));
}

// ---------------------------------------------------------------- check

#[test]
fn check_accepts_the_examples() {
    let paths: Vec<String> = EXAMPLES.iter().map(|e| example(e).display().to_string()).collect();
    let args: Vec<&str> = std::iter::once("check")
        .chain(paths.iter().map(|s| s.as_str()))
        .collect();
    let out = dyngc(&args);
    assert_exit(&out, 0);
    assert!(!text(&out.stderr).contains("error"), "{}", text(&out.stderr));
}

const BAD: &str = "input x: array<u32>;\nstage s(@index i: u32) { spawn nope(1u); }\nentry s(len(y));\n";

#[test]
fn check_reports_errors_with_exit_1() {
    let d = tmp("check_errors");
    let bad = write(&d, "bad.dyn", BAD);
    let out = dyngc(&["--color", "never", "check", bad.to_str().unwrap()]);
    assert_exit(&out, 1);
    let err = text(&out.stderr);
    assert!(err.contains("error[DYN0100]"), "{err}");
    assert!(err.contains("bad.dyn:2:"), "{err}");
    assert!(err.contains("help: did you mean `x`?"), "{err}");
    assert!(
        err.contains(&format!("error: could not check `{}` (2 errors)", bad.display())),
        "{err}"
    );
    // One bad file among good ones still fails.
    let good = example("collatz");
    let out = dyngc(&["check", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_exit(&out, 1);
}

#[test]
fn check_allows_warnings() {
    let d = tmp("check_warnings");
    let src = std::fs::read_to_string(example("triangle")).unwrap()
        + "\nstage orphan(i: u32) {\n    atomicAdd(&sums[i], 1u);\n}\n";
    let f = write(&d, "warn.dyn", &src);
    let out = dyngc(&["--color=never", "check", f.to_str().unwrap()]);
    assert_exit(&out, 0);
    let err = text(&out.stderr);
    assert!(err.contains("warning[DYN0302]"), "{err}");
    assert!(err.contains("generated 1 warning"), "{err}");
}

#[test]
fn check_io_errors_exit_2() {
    let d = tmp("check_io");
    let missing = d.join("missing.dyn");
    let out = dyngc(&["check", missing.to_str().unwrap()]);
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains(&format!("could not read `{}`", missing.display())));
    let binary = d.join("binary.dyn");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let out = dyngc(&["check", binary.to_str().unwrap()]);
    assert_exit_says(&out, 2, "not UTF-8");
    let out = dyngc(&["check", d.to_str().unwrap()]);
    assert_exit(&out, 2);
    // IO errors win over program errors in the exit status.
    let bad = write(&d, "bad.dyn", BAD);
    assert_exit(&dyngc(&["check", bad.to_str().unwrap(), missing.to_str().unwrap()]), 2);
}

#[test]
fn check_json_lines() {
    let d = tmp("check_json");
    let bad = write(&d, "bad.dyn", BAD);
    let out = dyngc(&["--message-format", "json", "check", bad.to_str().unwrap()]);
    assert_exit(&out, 1);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["file"], bad.display().to_string());
    assert_eq!(first["code"], "DYN0100");
    assert_eq!(first["severity"], "error");
    assert!(first["message"].as_str().unwrap().contains("nope"));
    assert_eq!((first["line"].as_u64(), first["column"].as_u64()), (Some(2), Some(32)));
    let label = &first["labels"][0];
    assert_eq!(label["primary"], true);
    assert_eq!((label["line"].as_u64(), label["column"].as_u64()), (Some(2), Some(32)));
    assert_eq!(&BAD[label["start"].as_u64().unwrap() as usize..][..4], "nope");
    assert!(first["notes"].is_array());
    assert!(first.get("hint").is_some());
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(second["hint"], "did you mean `x`?");
    // Field order as documented.
    assert!(lines[0].starts_with(r#"{"file":"#), "{}", lines[0]);
    // The human summary still goes to stderr.
    assert!(text(&out.stderr).contains("could not check"));
    // Clean files print nothing.
    let out = dyngc(&["--message-format=json", "check", example("bfs").to_str().unwrap()]);
    assert_exit(&out, 0);
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn color_is_off_for_pipes_and_on_when_asked() {
    let d = tmp("color");
    let bad = write(&d, "bad.dyn", BAD);
    let plain = dyngc(&["check", bad.to_str().unwrap()]);
    assert!(!text(&plain.stderr).contains('\x1b'));
    let colored = dyngc(&["--color", "always", "check", bad.to_str().unwrap()]);
    assert!(text(&colored.stderr).contains('\x1b'));
}

/// Deterministic pseudo-random text in the shape of `.dyn` source.
fn garbage(seed: u64, len: usize) -> String {
    const PIECES: &[&str] = &[
        "stage",
        "spawn",
        "become",
        "entry",
        "input",
        "output",
        "buffer",
        "param",
        "struct",
        "@keyed(",
        "@max_depth(",
        "@index",
        "array<",
        "u32",
        "f32",
        "vec3<f32>",
        "atomic<",
        ">",
        "<",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        ":",
        ",",
        "=",
        "len(",
        "x",
        "n",
        "0u",
        "-1",
        "0xFFFFFFFFu",
        "1.5",
        "if",
        "for",
        "loop",
        "//",
        "/*",
        "*/",
        "\n",
        " ",
        "\"",
        "é",
        "🦀",
        "\t",
        "+",
        "*",
        "/",
        "-",
        "@",
        "#",
        "\\",
        "'",
    ];
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut out = String::new();
    while out.len() < len {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        out.push_str(PIECES[(s >> 33) as usize % PIECES.len()]);
    }
    out
}

#[test]
fn garbage_never_panics() {
    let d = tmp("garbage");
    let mut files = Vec::new();
    for seed in 0..24 {
        files.push(write(
            &d,
            &format!("g{seed}.dyn"),
            &garbage(seed, 40 + 50 * seed as usize),
        ));
    }
    // Mutations of real programs: truncated at every few bytes.
    let src = std::fs::read_to_string(example("bfs")).unwrap();
    for cut in (0..src.len()).step_by(97) {
        let cut = (0..=cut).rev().find(|&i| src.is_char_boundary(i)).unwrap();
        files.push(write(&d, &format!("cut{cut}.dyn"), &src[..cut]));
    }
    files.push(write(&d, "empty.dyn", ""));
    for f in &files {
        let f = f.to_str().unwrap();
        for args in [
            vec!["check", f],
            vec!["--message-format", "json", "check", f],
            vec!["graph", f],
        ] {
            let out = dyngc(&args);
            let code = out.status.code();
            assert!(
                matches!(code, Some(0) | Some(1)),
                "{args:?}: {code:?}\n{}",
                text(&out.stderr)
            );
            assert!(
                !text(&out.stderr).contains("panicked") && !text(&out.stderr).contains("internal error"),
                "{args:?}\n{}",
                text(&out.stderr)
            );
            if args[1] == "json" {
                for line in text(&out.stdout).lines() {
                    serde_json::from_str::<serde_json::Value>(line).unwrap();
                }
            }
        }
    }
}

// ---------------------------------------------------------------- graph

#[test]
fn graph_dot_of_the_examples() {
    for name in EXAMPLES {
        let out = dyngc(&["graph", example(name).to_str().unwrap()]);
        assert_exit(&out, 0);
        let dot = text(&out.stdout);
        insta::assert_snapshot!(format!("graph_{name}"), dot);
        // Deterministic.
        assert_eq!(
            dyngc(&["graph", example(name).to_str().unwrap(), "--format", "dot"]).stdout,
            out.stdout
        );
    }
}

#[test]
fn graph_edge_styles() {
    let out = dyngc(&["graph", example("bfs").to_str().unwrap()]);
    let dot = text(&out.stdout);
    assert!(dot.contains("style=dashed, label=\"keyed\""), "{dot}");
    assert!(dot.contains("style=bold, label=\"[end - begin]\""), "{dot}");
    let dot = text(&dyngc(&["graph", example("collatz").to_str().unwrap()]).stdout);
    assert!(dot.contains("style=dotted, label=\"become\""), "{dot}");
    assert!(dot.contains("entry ->"), "{dot}");
}

#[test]
fn graph_writes_files_and_needs_graphviz_for_images() {
    let d = tmp("graph_files");
    let dot_file = d.join("tree.dot");
    let out = dyngc(&[
        "graph",
        example("tree").to_str().unwrap(),
        "-o",
        dot_file.to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    assert!(std::fs::read_to_string(&dot_file)
        .unwrap()
        .starts_with("digraph \"tree\""));
    let have_dot = Command::new("dot").arg("-V").output().is_ok();
    if have_dot {
        let svg = d.join("tree.svg");
        assert_exit(
            &dyngc(&["graph", example("tree").to_str().unwrap(), "-o", svg.to_str().unwrap()]),
            0,
        );
        assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
        let png = dyngc(&["graph", example("tree").to_str().unwrap(), "--format", "png"]);
        assert_exit(&png, 0);
        assert!(png.stdout.starts_with(b"\x89PNG"));
    }
    // Without Graphviz on PATH: a clear error.
    let out = Command::new(env!("CARGO_BIN_EXE_dyngc"))
        .args(["graph", example("tree").to_str().unwrap(), "--format", "svg"])
        .env("PATH", d.join("no-such-dir"))
        .output()
        .unwrap();
    assert_exit_says(
        &out,
        2,
        "Graphviz `dot` not found; install graphviz or use --format dot",
    );
}

const LOOP: &str = "input rank: array<u32>;
buffer changed: atomic<u32>;
output out: array<u32, len(rank)>;

stage step(@index i: u32) {
    out[i] = rank[i];
}

@max_rounds(100)
entry loop step(len(rank)) until {
    return atomicLoad(&changed) == 0u;
}
";

#[test]
fn graph_of_a_graph_level_loop() {
    let d = tmp("graph_loop");
    let f = write(&d, "loop.dyn", LOOP);
    let out = dyngc(&["graph", f.to_str().unwrap()]);
    assert_exit(&out, 0);
    let dot = text(&out.stdout);
    assert!(dot.contains("label=\"entry loop\\n@max_rounds(100)\""), "{dot}");
    assert!(
        dot.contains("entry -> entry [style=dashed, label=\"repeat until\\n{ return atomicLoad(&changed) == 0u; }\"]"),
        "{dot}"
    );
    // The loop is generated: the manifest records it, the launch protocol is unchanged.
    let out = dyngc(&["build", f.to_str().unwrap(), "-o", d.join("out").to_str().unwrap()]);
    assert_exit(&out, 0);
    let manifest = std::fs::read_to_string(d.join("out/loop.manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(manifest["executor"]["graph_loop"]["max_rounds"], 100, "{manifest:#}");
}

#[test]
fn graph_of_a_bad_program_reports_diagnostics() {
    let d = tmp("graph_bad");
    let bad = write(&d, "bad.dyn", BAD);
    let out = dyngc(&["graph", bad.to_str().unwrap()]);
    assert_exit_says(&out, 1, "could not graph");
    assert_eq!(text(&out.stdout), "");
}

// ---------------------------------------------------------------- build

/// `dyngc build examples/<name>.dyn -o <out_dir> <extra...>`.
fn build_example(name: &str, out_dir: &Path, extra: &[&str]) -> Output {
    let file = example(name);
    let mut args = vec!["build", file.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
    args.extend(extra);
    dyngc(&args)
}

/// `dyngc build` says which outputs it counts in workgroup memory: tree's `per_depth`.
#[test]
fn build_names_the_accumulated_outputs() {
    let d = tmp("build-accumulated");
    let out = build_example("tree", &d, &[]);
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("counted in workgroup memory: per_depth ("), "{stdout}");
}

#[test]
fn build_writes_wgsl_and_manifest() {
    let d = tmp("build");
    let out_dir = d.join("nested/out");
    let out = build_example("bfs", &out_dir, &["--emit", "spv,msl,hlsl,glsl"]);
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("minimum arena: "), "{stdout}");
    // bfs reads `dist`: nothing is accumulated.
    assert!(!stdout.contains("workgroup memory"), "{stdout}");
    let wgsl = std::fs::read_to_string(out_dir.join("bfs.wgsl")).unwrap();
    assert!(wgsl.contains("@compute"));
    let manifest =
        dyngc_artifact::Manifest::from_json(&std::fs::read_to_string(out_dir.join("bfs.manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest.name, "bfs");
    assert!(
        stdout.contains(&format!("({} bytes)", manifest.executor.arena.min_bytes)),
        "{stdout}"
    );
    for ext in ["spv", "metal", "hlsl", "dyn_init.comp.glsl", "dyn_main.comp.glsl"] {
        let p = out_dir.join(format!("bfs.{ext}"));
        assert!(
            std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false),
            "{}",
            p.display()
        );
    }
    let spv = std::fs::read(out_dir.join("bfs.spv")).unwrap();
    assert_eq!(&spv[..4], &0x0723_0203u32.to_le_bytes());
    // Deterministic.
    let again = d.join("again");
    assert_exit(
        &dyngc(&["build", example("bfs").to_str().unwrap(), "-o", again.to_str().unwrap()]),
        0,
    );
    assert_eq!(std::fs::read(again.join("bfs.wgsl")).unwrap(), wgsl.as_bytes());
}

#[test]
fn build_errors() {
    let d = tmp("build_errors");
    let bad = write(&d, "bad.dyn", BAD);
    let out = dyngc(&["build", bad.to_str().unwrap(), "-o", d.join("out").to_str().unwrap()]);
    assert_exit_says(&out, 1, "could not build");
    assert!(!d.join("out").exists());
    // The output directory cannot be created under a file.
    let file = write(&d, "file", "");
    let out = dyngc(&[
        "build",
        example("collatz").to_str().unwrap(),
        "-o",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_exit_says(&out, 2, "could not create the output directory");
    assert_exit(
        &dyngc(&[
            "build",
            example("collatz").to_str().unwrap(),
            "-o",
            "x",
            "--emit",
            "dxil",
        ]),
        2,
    );
}

// ---------------------------------------------------------------- run: argument checks

/// A `run` test's fresh directory, and the program it runs with `--out DIR/out`.
struct RunCase {
    dir: PathBuf,
    out: String,
    program: String,
}

impl RunCase {
    fn new(test: &str, program: &str) -> RunCase {
        let dir = tmp(test);
        let out = dir.join("out").to_str().unwrap().to_owned();
        let program = example(program).to_str().unwrap().to_owned();
        RunCase { dir, out, program }
    }

    /// `dyngc run PROGRAM --out DIR/out EXTRA...`
    fn run(&self, extra: &[&str]) -> Output {
        let mut args = vec!["run", self.program.as_str(), "--out", self.out.as_str()];
        args.extend_from_slice(extra);
        dyngc(&args)
    }
}

#[test]
fn run_checks_inputs() {
    let case = RunCase::new("run_inputs", "collatz");
    let good = case.dir.join("x.npy");
    npy(&good, "<u4", &[3], &u32s(&[1, 2, 3]));
    let x = format!("x={}", good.display());

    let out = case.run(&[]);
    assert_exit_says(&out, 2, "input `x` was not given");

    let out = case.run(&[&x, "--input", "y=foo.npy"]);
    assert_exit(&out, 2);

    let out = case.run(&["--input", &x, "--input", "y=foo.npy"]);
    assert_exit_says(&out, 2, "`y` is not an input of this program (its inputs: `x`)");

    let out = case.run(&["--input", &x, "--input", &x]);
    assert_exit_says(&out, 2, "input `x` was given twice");

    let out = case.run(&["--input", &format!("steps={}", good.display())]);
    assert_exit_says(&out, 2, "`steps` is an output of this program, not an input");

    let out = case.run(&["--input", "x"]);
    assert_exit_says(&out, 2, "expected NAME=PATH");

    let missing = case.dir.join("missing.npy");
    let out = case.run(&["--input", &format!("x={}", missing.display())]);
    assert_exit_says(&out, 2, &format!("could not read `{}` (input `x`)", missing.display()));
    assert!(!Path::new(&case.out).exists());
}

#[test]
fn run_checks_npy_dtype_and_shape() {
    let case = RunCase::new("run_npy", "collatz");
    type Case<'a> = (&'a str, &'a str, &'a [usize], Vec<u8>, &'a str);
    let cases: [Case; 5] = [
        (
            "f4.npy",
            "<f4",
            &[2],
            u32s(&[0x3f80_0000, 0x4000_0000]),
            "has dtype `<f4`",
        ),
        ("i4.npy", "<i4", &[2], u32s(&[1, 2]), "has dtype `<i4`"),
        ("u8.npy", "<u8", &[1], vec![1, 0, 0, 0, 0, 0, 0, 0], "has dtype `<u8`"),
        (
            "2d.npy",
            "<u4",
            &[2, 2],
            u32s(&[1, 2, 3, 4]),
            "needs an array of shape (N,), but",
        ),
        ("junk.npy", "", &[], b"just text".to_vec(), "is not a .npy file"),
    ];
    for (file, descr, shape, data, expect) in cases {
        let p = case.dir.join(file);
        if descr.is_empty() {
            std::fs::write(&p, &data).unwrap();
        } else {
            npy(&p, descr, shape, &data);
        }
        let out = case.run(&["--input", &format!("x={}", p.display())]);
        assert_exit(&out, 2);
        let err = text(&out.stderr);
        assert!(err.contains(expect), "{file}: {err}");
        assert!(err.contains(&p.display().to_string()), "{file}: {err}");
        if descr.starts_with('<') && !descr.contains("u4") {
            assert!(
                err.contains("input `x`") && err.contains("needs dtype `<u4`"),
                "{file}: {err}"
            );
        }
    }
}

#[test]
fn run_checks_params() {
    let case = RunCase::new("run_params", "tree");
    let out = case.run(&["--param", "seed=1", "--param", "max_depth=3"]);
    assert_exit_says(&out, 2, "parameter `max_children` has no default and was not given");
    let out = case.run(&["--param", "sed=1"]);
    assert_exit_says(
        &out,
        2,
        "unknown parameter `sed` (known parameters: `seed`, `max_depth`, `max_children`)",
    );
    let out = case.run(&["--param", "seed=-1"]);
    assert_exit_says(&out, 2, "invalid value `-1` for parameter `seed` (u32)");
    let out = case.run(&["--param", "seed"]);
    assert_exit_says(&out, 2, "expected NAME=VALUE");
}

#[test]
fn run_checks_arena_sizes() {
    let case = RunCase::new("run_arena", "tree");
    let params = [
        "--param",
        "seed=5",
        "--param",
        "max_depth=3",
        "--param",
        "max_children=3",
    ];
    let arena = |size: &str| {
        let mut a = params.to_vec();
        a.extend(["--arena", size]);
        case.run(&a)
    };
    // tree's smallest arena is a few KiB: units are understood, and the error says the minimum.
    for (size, shown) in [
        ("1000", "1000 bytes"),
        ("2KiB", "2 KiB"),
        ("0.001MiB", "1.02 KiB"),
        ("2KB", "1.95 KiB"),
        ("1k", "1 KiB"),
    ] {
        let out = arena(size);
        assert_exit(&out, 2);
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!(
                "an arena of {shown} is too small: this program needs at least"
            )),
            "{size}: {err}"
        );
    }
    let out = arena("12XB");
    assert_exit_says(&out, 2, "unknown size unit `XB`");
    let out = arena("lots");
    assert_exit_says(&out, 2, "invalid --arena");
}

// ---------------------------------------------------------------- adapter

/// A driver file that does not exist is named in the no-adapter message, with the general hint.
#[test]
fn adapter_names_a_missing_driver_file() {
    let out = Command::new(env!("CARGO_BIN_EXE_dyngc"))
        .arg("adapter")
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_ICD_FILENAMES", "/no-such-dir/icd.json")
        .output()
        .unwrap();
    assert_exit_says(
        &out,
        1,
        "VK_ICD_FILENAMES names `/no-such-dir/icd.json`, which does not exist",
    );
    assert_exit_says(&out, 1, "vk_swiftshader_icd.json");
}

/// Where the test command promises a device, `dyngc adapter` opens it and says what it is.
#[test]
fn adapter_opens_the_device_the_tests_use() {
    let out = dyngc(&["adapter"]);
    if std::env::var_os("DYNGC_REQUIRE_GPU").is_some() {
        assert_exit(&out, 0);
        assert!(text(&out.stdout).starts_with("adapter: "), "{}", text(&out.stdout));
    } else if out.status.code() == Some(1) {
        assert!(
            text(&out.stderr).contains("no GPU adapter found"),
            "{}",
            text(&out.stderr)
        );
    }
}

// ---------------------------------------------------------------- run: on a device

/// Runs, or returns `None` when the machine has no WebGPU adapter at all.
fn run_on_device(args: &[&str]) -> Option<Output> {
    let out = dyngc(args);
    if out.status.code() == Some(1) && text(&out.stderr).contains("no GPU adapter found") {
        assert!(text(&out.stderr).contains("VK_ICD_FILENAMES"), "{}", text(&out.stderr));
        // The test command promises a device: there a missing adapter is a failure, not a skip.
        assert!(
            std::env::var_os("DYNGC_REQUIRE_GPU").is_none(),
            "DYNGC_REQUIRE_GPU is set: {}",
            text(&out.stderr)
        );
        eprintln!("no adapter: device part skipped");
        return None;
    }
    Some(out)
}

/// `dyngc run` of an example with one input (`NAME=PATH`) at the minimum arena, JSON statistics
/// on stdout; `None` without an adapter.
fn run_at_min_arena(name: &str, input: &str, out_dir: &Path, extra: &[&str]) -> Option<Output> {
    let file = example(name);
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--input",
        input,
        "--arena",
        "min",
        "--out",
        out_dir.to_str().unwrap(),
        "--stats=json",
    ];
    args.extend(extra);
    run_on_device(&args)
}

/// Loops past 65,535 iterations in one invocation run to the end: llvmpipe silently stops them
/// there (README), which is why `dyngc run` refuses it; the device the tests use must not.
#[test]
fn run_counts_past_65535_loop_iterations() {
    let d = tmp("run_long_loop");
    let x = d.join("x.npy");
    let values: Vec<u32> = vec![1, 65_534, 65_535, 65_536, 70_000, 200_000];
    npy(&x, "<u4", &[values.len()], &u32s(&values));
    let out_dir = d.join("out");
    let program = root().join("tests/programs/long_loop.dyn");
    let input = format!("x={}", x.display());
    let args = [
        "run",
        program.to_str().unwrap(),
        "--input",
        &input,
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let Some(out) = run_on_device(&args) else {
        return;
    };
    assert_exit(&out, 0);
    let (_, counted) = read_npy_u32(&out_dir.join("counted.npy"));
    assert_eq!(counted, values);
}

#[test]
fn run_collatz_end_to_end() {
    collatz_end_to_end("run_collatz", &[]);
}

/// The same with 128 lanes per worker: one worker at the minimum arena, which is larger.
#[test]
fn run_collatz_with_more_lanes() {
    collatz_end_to_end("run_collatz_lanes", &["--lanes", "128"]);
}

fn collatz_end_to_end(test: &str, extra: &[&str]) {
    let d = tmp(test);
    let x = d.join("x.npy");
    let values: Vec<u32> = (1..=300).collect();
    npy(&x, "<u4", &[values.len()], &u32s(&values));
    let out_dir = d.join("out");
    let Some(out) = run_at_min_arena("collatz", &format!("x={}", x.display()), &out_dir, extra) else {
        return;
    };
    assert_exit(&out, 0);
    let (header, steps) = read_npy_u32(&out_dir.join("steps.npy"));
    assert!(
        header.contains("'descr': '<u4'") && header.contains("'shape': (300,"),
        "{header}"
    );
    let expected: Vec<u32> = values
        .iter()
        .map(|&v| {
            let (mut v, mut n) = (v, 0);
            while v > 1 {
                v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
                n += 1;
            }
            n
        })
        .collect();
    assert_eq!(steps, expected);
    let stats: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(stats["host"]["workers"], 1);
    let units: u64 = stats["units_per_stage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["units"].as_u64().unwrap())
        .sum();
    // One `start` per element, and one `step` per value on each walk (the final 1 included).
    assert_eq!(units, 300 + expected.iter().map(|&n| n as u64 + 1).sum::<u64>());
}

/// `--lanes`: the manifest says the worker's size, the WGSL has it, the minimum arena grows with
/// it, the output is deterministic; a program with wide stages is refused with DYN0504, and a
/// size the executor does not have is a usage error.
#[test]
fn lanes_per_worker() {
    let d = tmp("lanes");
    let manifest = |dir: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join("tree.manifest.json")).unwrap()).unwrap()
    };
    let (default, wide, again) = (d.join("64"), d.join("128"), d.join("128-again"));
    assert_exit(&build_example("tree", &default, &[]), 0);
    for dir in [&wide, &again] {
        assert_exit(&build_example("tree", dir, &["--lanes", "128"]), 0);
    }
    let (m64, m128) = (manifest(&default), manifest(&wide));
    assert_eq!(
        (m64["workgroup_size"].as_u64(), m128["workgroup_size"].as_u64()),
        (Some(64), Some(128))
    );
    let min_bytes = |m: &serde_json::Value| m["executor"]["arena"]["min_bytes"].as_u64().unwrap();
    assert!(
        min_bytes(&m128) > min_bytes(&m64),
        "{} <= {}",
        min_bytes(&m128),
        min_bytes(&m64)
    );
    let wgsl = |dir: &Path| std::fs::read_to_string(dir.join("tree.wgsl")).unwrap();
    assert!(wgsl(&wide).contains("const DYN_WG: u32 = 128u;"), "{}", wgsl(&wide));
    assert_eq!(wgsl(&wide), wgsl(&again));
    assert_eq!(
        std::fs::read(wide.join("tree.manifest.json")).unwrap(),
        std::fs::read(again.join("tree.manifest.json")).unwrap()
    );

    let out = build_example("row_sum", &d.join("rows"), &["--lanes", "256"]);
    assert_exit_says(
        &out,
        1,
        "error[DYN0504]: 256 lanes per worker need a program without wide stages and workgroup memory",
    );
    assert!(
        text(&out.stderr).contains("is a `@width(32)` stage"),
        "{}",
        text(&out.stderr)
    );
    let out = build_example("tree", &d.join("odd"), &["--lanes", "96"]);
    assert_exit_says(&out, 2, "expected one of 64, 128, 256");
}

/// `--schedule partitioned` on triangle: both stages become dispatches (the manifest lists them),
/// and a run at the minimum arena, whose queues hold 4 frames, still sums exactly.
#[test]
fn partitioned_schedule_end_to_end() {
    let d = tmp("partitioned");
    let built = d.join("built");
    let out = build_example("triangle", &built, &["--schedule", "partitioned"]);
    assert_exit(&out, 0);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(built.join("triangle.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["executor"]["schedule"], "partitioned");
    let dispatches: Vec<(&str, u64)> = manifest["entry_points"]["dispatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["entry_point"].as_str().unwrap(),
                d["workgroup_size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(dispatches, [("dyn_dispatch_element", 64), ("dyn_dispatch_add", 256)]);
    let out = build_example("triangle", &built, &["--schedule", "spread"]);
    assert_exit_says(&out, 2, "invalid value 'spread' for '--schedule <SCHEDULE>'");
    // The default, `auto`: partitioned for triangle (on no cycle), the megakernel for collatz;
    // GLSL gets one shader per entry point, dispatches included.
    let auto = d.join("auto");
    for name in ["triangle", "collatz"] {
        let out = build_example(name, &auto, &["--emit", "glsl"]);
        assert_exit(&out, 0);
    }
    let schedule = |name: &str| {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(auto.join(format!("{name}.manifest.json"))).unwrap()).unwrap();
        m["executor"]["schedule"].as_str().unwrap().to_string()
    };
    assert_eq!(
        (schedule("triangle").as_str(), schedule("collatz").as_str()),
        ("partitioned", "megakernel")
    );
    for entry in ["dyn_init", "dyn_main", "dyn_dispatch_element", "dyn_dispatch_add"] {
        let glsl = std::fs::read_to_string(auto.join(format!("triangle.{entry}.comp.glsl"))).unwrap();
        assert!(glsl.contains("void main()"), "{entry}: {glsl}");
    }

    let n = d.join("n.npy");
    let values: Vec<u32> = (0..500).map(|i| i * 7 % 300).collect();
    npy(&n, "<u4", &[values.len()], &u32s(&values));
    let out_dir = d.join("out");
    let input = format!("n={}", n.display());
    let Some(out) = run_at_min_arena("triangle", &input, &out_dir, &["--schedule", "partitioned"]) else {
        return;
    };
    assert_exit(&out, 0);
    let (_, sums) = read_npy_u32(&out_dir.join("sums.npy"));
    let expected: Vec<u32> = values.iter().map(|&v| v * (v + 1) / 2).collect();
    assert_eq!(sums, expected);
    let stats: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let fallbacks = stats["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "fallback_spawns")
        .and_then(|f| f["value"].as_u64());
    assert!(
        fallbacks.is_some_and(|n| n > 0),
        "4-frame queues must overflow into direct calls: {stats}"
    );
}

#[test]
fn run_times_out() {
    let d = tmp("run_timeout");
    // Up to 5^20 nodes: far more than a second's work.
    let Some(out) = run_on_device(&[
        "run",
        example("tree").to_str().unwrap(),
        "--param",
        "seed=5",
        "--param",
        "max_depth=20",
        "--param",
        "max_children=4",
        "--out",
        d.to_str().unwrap(),
        "--fuel",
        "16",
        "--timeout",
        "1",
        "--stats",
    ]) else {
        return;
    };
    assert_exit(&out, 1);
    let err = text(&out.stderr);
    assert!(err.contains("error: the run did not finish within 1.0 s"), "{err}");
    assert!(err.contains("raise --timeout"), "{err}");
    assert_eq!(text(&out.stdout), "");
    assert_exit(&dyngc(&["run", "x.dyn", "--out", "o", "--timeout", "0"]), 2);
}

#[test]
fn run_prints_human_stats() {
    let d = tmp("run_stats");
    let n = d.join("n.npy");
    npy(&n, "<u4", &[4], &u32s(&[0, 1, 2, 3]));
    let Some(out) = run_on_device(&[
        "run",
        example("triangle").to_str().unwrap(),
        "--input",
        &format!("n={}", n.display()),
        "--arena",
        "1MiB",
        "--workgroups",
        "4",
        "--out",
        d.to_str().unwrap(),
        "--stats",
    ]) else {
        return;
    };
    assert_exit(&out, 0);
    let stats = text(&out.stdout);
    assert!(stats.starts_with("statistic"), "{stats}");
    assert!(stats.contains("units per stage:"), "{stats}");
    assert!(stats.contains("4 workers"), "{stats}");
    let (_, sums) = read_npy_u32(&d.join("sums.npy"));
    assert_eq!(sums, vec![0, 1, 3, 6]);
    let err = text(&out.stderr);
    assert!(
        err.contains("finished in") && err.contains(&format!("wrote {}", d.join("sums.npy").display())),
        "{err}"
    );
}

#[test]
fn run_with_an_empty_input() {
    let d = tmp("run_empty");
    let n = d.join("n.npy");
    npy(&n, "<u4", &[0], &[]);
    let out_dir = d.join("out");
    let Some(out) = run_on_device(&[
        "run",
        example("triangle").to_str().unwrap(),
        "--input",
        &format!("n={}", n.display()),
        "--out",
        out_dir.to_str().unwrap(),
    ]) else {
        return;
    };
    assert_exit(&out, 0);
    let (header, sums) = read_npy_u32(&out_dir.join("sums.npy"));
    assert!(header.contains("'shape': (0,"), "{header}");
    assert!(sums.is_empty());
    assert!(text(&out.stderr).contains("0 units"), "{}", text(&out.stderr));
}

#[test]
fn run_reports_a_violated_bound() {
    let d = tmp("run_bound");
    let Some(out) = run_on_device(&[
        "run",
        example("tree").to_str().unwrap(),
        "--param",
        "seed=5",
        "--param",
        "max_depth=30",
        "--param",
        "max_children=3",
        "--out",
        d.to_str().unwrap(),
        "--fuel",
        "256",
    ]) else {
        return;
    };
    assert_exit_says(
        &out,
        1,
        "error: stage `node` exceeded its declared @max_depth(24) (reached 25)",
    );
    assert!(!d.join("per_depth.npy").exists());
}

/// A `.npy` file written by dyngc: its header and its data.
fn read_npy(path: &Path) -> (String, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{}", path.display());
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + len) % 64, 0, "header not aligned");
    let header = String::from_utf8(bytes[10..10 + len].to_vec()).unwrap();
    (header, bytes[10 + len..].to_vec())
}

/// A small deterministic generator (xorshift), so the inputs need no crate.
fn pseudo_random(seed: u32) -> impl FnMut() -> u32 {
    let mut s = seed.max(1);
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

/// `dyngc run` of a stream example: NAME.npy holds exactly the emitted rows, whatever the
/// window (`--stream-capacity`: far smaller than the output, or the default).
fn run_stream_example(
    test: &str,
    example_name: &str,
    input: (&str, &str, &[usize], Vec<u8>),
    params: &[&str],
    capacity: Option<u32>,
) -> Option<Output> {
    let d = tmp(test);
    let (name, descr, shape, data) = input;
    let path = d.join(format!("{name}.npy"));
    npy(&path, descr, shape, &data);
    let input = format!("{name}={}", path.display());
    let out_dir = d.join("out");
    let file = example(example_name);
    let capacity = capacity.map(|c| c.to_string());
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--input",
        &input,
        "--out",
        out_dir.to_str().unwrap(),
        "--stats=json",
    ];
    for p in params {
        args.extend(["--param", p]);
    }
    if let Some(c) = &capacity {
        args.extend(["--stream-capacity", c]);
    }
    run_on_device(&args)
}

#[test]
fn run_compact_writes_exactly_the_kept_values() {
    let mut next = pseudo_random(7);
    let values: Vec<u32> = (0..20_000).map(|_| next() % 1_000).collect();
    let mut expected: Vec<u32> = values.iter().copied().filter(|v| v % 7 == 0).collect();
    expected.sort_unstable();
    for capacity in [Some(7), None] {
        let test = format!("run_compact_{capacity:?}");
        let input = ("x", "<u4", &[values.len()][..], u32s(&values));
        let Some(out) = run_stream_example(&test, "compact", input, &["modulus=7"], capacity) else {
            return;
        };
        assert_exit(&out, 0);
        let (header, data) = read_npy(&tmp_out(&test).join("kept.npy"));
        assert!(
            header.contains("'descr': '<u4'") && header.contains(&format!("'shape': ({},", expected.len())),
            "{header}"
        );
        let mut kept: Vec<u32> = data
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        kept.sort_unstable();
        assert_eq!(kept, expected, "window {capacity:?}");
        let stats: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        let drains = stats["host"]["stream_drains"].as_u64().unwrap();
        assert_eq!(stats["host"]["stream_bytes"].as_u64(), Some(4 * expected.len() as u64));
        if capacity.is_some() {
            assert!(drains as usize >= expected.len() / 7, "{drains} drains");
        }
    }
}

/// The same for a struct stream: `verts.npy` is a structured array with the struct's field names
/// and types (f32 positions as f32), one row per emitted vertex, against a CPU tessellation.
#[test]
fn run_tessellate_writes_typed_vertex_records() {
    let mut next = pseudo_random(11);
    let curves = 300;
    let ctrl: Vec<f32> = (0..curves * 6).map(|_| (next() % 10_000) as f32 / 10_000.0).collect();
    let segments_per_unit = 20.0f64;
    for capacity in [Some(70), None] {
        let test = format!("run_tessellate_{capacity:?}");
        let bytes = ctrl.iter().flat_map(|v| v.to_le_bytes()).collect();
        let input = ("ctrl", "<f4", &[curves * 3, 2][..], bytes);
        let Some(out) = run_stream_example(&test, "tessellate", input, &["segments_per_unit=20"], capacity) else {
            return;
        };
        assert_exit(&out, 0);
        let (header, data) = read_npy(&tmp_out(&test).join("verts.npy"));
        assert!(
            header.contains("'descr': [('curve', '<u4'), ('k', '<u4'), ('pos', '<f4', (2,))]"),
            "{header}"
        );
        let rows: Vec<(u32, u32, f32, f32)> = data
            .chunks_exact(16)
            .map(|r| {
                let w = |i: usize| r[4 * i..4 * i + 4].try_into().unwrap();
                (
                    u32::from_le_bytes(w(0)),
                    u32::from_le_bytes(w(1)),
                    f32::from_le_bytes(w(2)),
                    f32::from_le_bytes(w(3)),
                )
            })
            .collect();
        assert!(header.contains(&format!("'shape': ({},)", rows.len())), "{header}");
        let mut per_curve = vec![Vec::new(); curves];
        for &(c, k, x, y) in &rows {
            per_curve[c as usize].push((k, x, y));
        }
        for (c, mut verts) in per_curve.into_iter().enumerate() {
            verts.sort_by_key(|v| v.0);
            let p = |i: usize| (ctrl[6 * c + 2 * i] as f64, ctrl[6 * c + 2 * i + 1] as f64);
            let (p0, p1, p2) = (p(0), p(1), p(2));
            let l = (p1.0 - p0.0).hypot(p1.1 - p0.1) + (p2.0 - p1.0).hypot(p2.1 - p1.1);
            let exact = segments_per_unit * l;
            let n = verts.len() as f64 - 1.0;
            // The GPU computes in f32: at an integer boundary ceil may go either way.
            let near = exact.ceil().clamp(1.0, 64.0) == n
                || (exact - exact.round()).abs() < 1e-3 && (exact.round() - n).abs() <= 1.0;
            assert!(near, "curve {c}: {} vertices for {exact} segments", verts.len());
            for (i, &(k, x, y)) in verts.iter().enumerate() {
                assert_eq!(k as usize, i, "curve {c}: vertex indices");
                let t = k as f64 / n;
                let s = 1.0 - t;
                let b = |a: f64, m: f64, z: f64| s * s * a + 2.0 * s * t * m + t * t * z;
                let (bx, by) = (b(p0.0, p1.0, p2.0), b(p0.1, p1.1, p2.1));
                assert!(
                    (x as f64 - bx).abs() < 1e-5 && (y as f64 - by).abs() < 1e-5,
                    "curve {c} vertex {k}: ({x}, {y}) vs ({bx}, {by})"
                );
            }
        }
    }
}

/// A stream run that fails (a unit emits past its declared maximum) exits 1 with the kernel's
/// error and leaves no file of its stream, finished or partial.
#[test]
fn run_failing_stream_leaves_no_file() {
    let d = tmp("run_stream_fails");
    let program = write(
        &d,
        "over.dyn",
        "output out: stream<u32>;\n\n@max_emit(out, 2)\nstage s(@index i: u32) {\n    var k = 0u;\n    while (k < i) {\n        emit out(k);\n        k += 1u;\n    }\n}\n\nentry s(4);\n",
    );
    let out_dir = d.join("out");
    let Some(out) = run_on_device(&["run", program.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]) else {
        return;
    };
    assert_exit_says(&out, 1, "than its declared @max_emit (2)");
    let left: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

fn tmp_out(test: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dyngc-cli")
        .join(test)
        .join("out")
}

// ---------------------------------------------------------------- run: hostile programs (issue 13)

/// `tests/ui/<path>`.
fn ui_case(path: &str) -> String {
    root().join("tests/ui").join(path).to_str().unwrap().to_owned()
}

/// Runs `program` with input `n` = `values` at the smallest arena; the `hits`-style output
/// `output` read back, or `None` without an adapter.
fn run_n(test: &str, program: &str, values: &[u32], extra: &[&str], output: &str) -> Option<(Output, Vec<u32>)> {
    let d = tmp(test);
    let n = d.join("n.npy");
    npy(&n, "<u4", &[values.len()], &u32s(values));
    let input = format!("n={}", n.display());
    let out_dir = d.join("out");
    let mut args = vec![
        "run",
        program,
        "--input",
        &input,
        "--arena",
        "min",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = run_on_device(&args)?;
    let words = if out.status.code() == Some(0) {
        read_npy_u32(&out_dir.join(format!("{output}.npy"))).1
    } else {
        Vec::new()
    };
    Some((out, words))
}

#[test]
fn run_stage_names_naga_renames() {
    // `s1`, `add2`, `s_`, `s__x`, `σ` and a struct `Pair2`: all renamed in the written WGSL;
    // every dispatch's pipeline is created from the manifest's names.
    let values = [3u32, 4, 5, 0, 1];
    let program = ui_case("pass/stage_names_renamed.dyn");
    let Some((out, sums)) = run_n("run_renamed", &program, &values, &[], "sums") else {
        return;
    };
    assert_exit(&out, 0);
    let expected: Vec<u32> = values.iter().map(|&v| v * (v + 1) / 2).collect();
    assert_eq!(sums, expected);
    let pairs = read_npy_u32(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("dyngc-cli/run_renamed/out/pairs.npy")).1;
    let expected: Vec<u32> = (0..values.len() as u32).flat_map(|i| [i, 2]).collect();
    assert_eq!(pairs, expected);
    // The manifest names what the WGSL has.
    let built = tmp("build_renamed");
    assert_exit(&dyngc(&["build", &program, "-o", built.to_str().unwrap()]), 0);
    let wgsl = std::fs::read_to_string(built.join("stage_names_renamed.wgsl")).unwrap();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(built.join("stage_names_renamed.manifest.json")).unwrap()).unwrap();
    let dispatches = m["entry_points"]["dispatches"].as_array().unwrap();
    assert_eq!(dispatches.len(), 5);
    for d in dispatches {
        let name = d["entry_point"].as_str().unwrap();
        assert!(wgsl.contains(&format!("fn {name}(")), "{name}");
    }
    let pairs = m["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "pairs")
        .unwrap();
    let ty = pairs["element"]["wgsl"].as_str().unwrap();
    assert!(wgsl.contains(&format!("struct {ty} {{")), "{ty}");
}

#[test]
fn run_refuses_counts_beyond_32_bits() {
    let d = tmp("run_counts");
    let program = write(
        &d,
        "counts.dyn",
        "input row_ptr: array<u32>;\nparam a: u32;\nparam b: u32;\noutput hits: array<atomic<u32>, 1>;\n\
         @keyed(a * b)\nstage visit(key: u32) {\n    atomicAdd(&hits[0], 1u);\n}\n\
         stage row(@index i: u32) {\n    spawn visit(i % 7u);\n}\nentry row(len(row_ptr) - 1);\n",
    );
    let program = program.to_str().unwrap();
    let input = d.join("row_ptr.npy");
    let input_arg = format!("row_ptr={}", input.display());
    let out_dir = d.join("out");
    let args = |a: &'static str, b: &'static str| {
        vec![
            "run",
            program,
            "--input",
            &input_arg,
            "--param",
            a,
            "--param",
            b,
            "--out",
            out_dir.to_str().unwrap(),
        ]
    };
    // Refused before a device is opened: no adapter needed.
    npy(&input, "<u4", &[3], &u32s(&[0, 1, 2]));
    let out = dyngc(&args("a=65536", "b=65536"));
    assert_exit_says(&out, 1, "cannot count the keys of stage `visit`: (a * b) is 4294967296");
    npy(&input, "<u4", &[0], &[]);
    let out = dyngc(&args("a=2", "b=4"));
    assert_exit_says(
        &out,
        1,
        "cannot count the units of the entry `row`: (len(row_ptr) - 1) is negative (0 - 1)",
    );
    // In range it runs: 2 units, each marking one key.
    npy(&input, "<u4", &[3], &u32s(&[0, 1, 2]));
    let Some(out) = run_on_device(&args("a=2", "b=4")) else {
        return;
    };
    assert_exit(&out, 0);
    assert_eq!(read_npy_u32(&out_dir.join("hits.npy")).1, [2]);
}

#[test]
fn run_fallbacks_compile_linearly() {
    // Partitioned, at the smallest arena (4-frame queues): most spawns take the fallback stack.
    // Direct calls from the sites made SwiftShader compile every path: minutes for the chain and
    // an LLVM stack overflow for a wider diamond.
    let values: Vec<u32> = (0..40).map(|i| i % 9).collect();
    for (name, expect) in [("diamond_fallback", None), ("chain_fallback", Some(()))] {
        let start = std::time::Instant::now();
        let program = ui_case(&format!("pass/{name}.dyn"));
        let Some((out, hits)) = run_n(
            name,
            &program,
            &values,
            &["--schedule", "partitioned", "--timeout", "120"],
            "hits",
        ) else {
            return;
        };
        assert_exit(&out, 0);
        let want: Vec<u32> = match expect {
            None => vec![128; values.len()],
            Some(()) => values.clone(),
        };
        assert_eq!(hits, want, "{name}");
        eprintln!("{name}: {:.1} s", start.elapsed().as_secs_f64());
    }
}

#[test]
fn run_timeout_stops_a_body_that_never_returns() {
    let d = tmp("run_endless");
    let program = write(
        &d,
        "endless.dyn",
        "input n: array<u32>;\noutput out: array<u32, len(n)>;\n\
         stage spin(@index i: u32) {\n    var x = n[i];\n    loop {\n        x = x * 1664525u + 1013904223u;\n        if (x == 7u && n[i] == 12345u) {\n            break;\n        }\n    }\n    out[i] = x;\n}\nentry spin(len(n));\n",
    );
    let start = std::time::Instant::now();
    let program = program.to_str().unwrap();
    let Some((out, _)) = run_n("run_endless_out", program, &[1; 64], &["--timeout", "5"], "out") else {
        return;
    };
    let took = start.elapsed().as_secs_f64();
    assert_exit_says(&out, 1, "error: the run did not finish within 5.0 s");
    assert!(text(&out.stderr).contains("raise --timeout"), "{}", text(&out.stderr));
    assert!(took < 15.0, "the limit was 5 s, the process took {took:.1} s");
    let partial = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dyngc-cli/run_endless_out/out");
    assert!(!partial.join("out.npy").exists() && !partial.join(".out.npy.partial").exists());
}

#[test]
fn run_timeout_covers_compilation() {
    // A tenth of a second is not enough to build and compile anything on SwiftShader: the
    // message says which phase the clock ran out in.
    let program = ui_case("pass/chain_fallback.dyn");
    let Some((out, _)) = run_n(
        "run_timeout_compile",
        &program,
        &[1, 2, 3, 4],
        &["--timeout", "0.1"],
        "hits",
    ) else {
        return;
    };
    assert_exit_says(&out, 1, "error: the run did not finish within 0.1 s (it was ");
}

#[test]
fn run_refuses_bad_limits_and_outputs_before_running() {
    let d = tmp("run_limits");
    let n = d.join("n.npy");
    npy(&n, "<u4", &[2], &u32s(&[1, 2]));
    let input = format!("n={}", n.display());
    let triangle = example("triangle");
    let triangle = triangle.to_str().unwrap();
    for t in ["1e20", "inf", "nan", "0"] {
        let out = dyngc(&["run", triangle, "--input", &input, "--out", "o", "--timeout", t]);
        assert_exit_says(&out, 2, "invalid --timeout `");
    }
    // `--out` that cannot be created is found before the GPU run.
    let file = write(&d, "a_file", "");
    let out = dyngc(&[
        "run",
        triangle,
        "--input",
        &input,
        "--out",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_exit_says(&out, 2, "could not create the output directory");
    // f32 parameters are finite numbers.
    let f = write(
        &d,
        "f.dyn",
        "param x: f32;\noutput o: array<f32, 1>;\nstage s(@index i: u32) {\n    o[i] = x;\n}\nentry s(1);\n",
    );
    for v in ["infinity", "inf", "nan", "1e39"] {
        let out = dyngc(&["run", f.to_str().unwrap(), "--param", &format!("x={v}"), "--out", "o"]);
        assert_exit_says(&out, 2, "expected a finite float");
    }
}

#[test]
fn check_reads_at_most_the_size_limit() {
    let out = dyngc(&["check", "/dev/zero"]);
    assert_exit_says(&out, 1, "file too large: more than the limit of 16777216 bytes");
}

/// An output of 1 GiB - 4 bytes, which the device's limits (1 GiB on SwiftShader) admit:
/// either it runs right, or it fails with an out-of-memory error that names the binding and a
/// non-zero exit, never with an internal error or a panic. (SwiftShader rounds the allocation up
/// past its real maximum, so there it fails.)
#[test]
fn run_an_output_just_below_the_buffer_limit() {
    let d = tmp("run_big_output");
    let file = d.join("big.dyn");
    std::fs::write(
        &file,
        "param n: u32;\noutput out: array<u32, n>;\nstage s(@index i: u32) {\n    out[i] = i + 1u;\n}\nentry s(4);\n",
    )
    .unwrap();
    let out_dir = d.join("out");
    let args = [
        "run",
        file.to_str().unwrap(),
        "--param",
        "n=268435455",
        "--arena",
        "min",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let Some(out) = run_on_device(&args) else {
        return;
    };
    let stderr = text(&out.stderr);
    match out.status.code() {
        Some(0) => {
            let bytes = std::fs::read(out_dir.join("out.npy")).unwrap();
            let header_end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
            let first: Vec<u32> = bytes[header_end..header_end + 20]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            assert_eq!(first, [1, 2, 3, 4, 0], "{stderr}");
            assert_eq!(bytes.len() - header_end, 4 * 268435455);
        }
        Some(1) => assert!(
            stderr.contains("out of GPU memory") && stderr.contains("binding `out`"),
            "a failure must say what could not be allocated:\n{stderr}"
        ),
        other => panic!("exit {other:?}:\n{stderr}"),
    }
}
