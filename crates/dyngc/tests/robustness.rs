//! Hostile inputs through `dyngc check` and through the library (parse, check, generate): the
//! empty file, binary garbage, every truncation of the examples, 10 MB files, 10,000-deep
//! nesting, files of one error repeated, and the inputs kept in `fuzz/regressions/` (see
//! `fuzz/README.md`). Each must give diagnostics quickly and in bounded memory: no panic, no
//! hang, no stack overflow.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `dyngc check` of a small file may take before it counts as a hang: a healthy run
/// takes milliseconds, a hang or a quadratic blow-up far longer than this. Generous, because this
/// detects hangs and measures no speed: a fresh CI run on a loaded 2-core machine took over 5 s.
const CLI_TIMEOUT: Duration = Duration::from_secs(60);
/// The same for a 10 MB file: about 2 s of CPU time in a debug build, far more wall time on a
/// loaded machine (over 20 s was seen).
const BIG_TIMEOUT: Duration = Duration::from_secs(180);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dyngc-robustness")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The shipped examples: (file name, text), sorted.
fn examples() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dyn"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak resident memory seen while polling (`VmHWM` on Linux; 0 where unknown).
    peak_kb: u64,
}

/// The peak resident memory of a running process so far, in KiB.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `dyngc check FILES...`, killing it after `timeout`. Output goes to files, not pipes, so
/// that a chatty run cannot block on a full pipe and look like a hang.
fn check_files(dir: &Path, files: &[PathBuf], timeout: Duration) -> Run {
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dyngc"))
        .arg("check")
        .args(files)
        .env_remove("RUST_BACKTRACE")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("dyngc starts");
    let start = Instant::now();
    let mut peak_kb = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak_kb = peak_kb.max(peak_rss_kb(child.id()).unwrap_or(0));
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`dyngc check` on {} file(s) in {} did not finish within {timeout:?}",
                files.len(),
                dir.display()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    Run {
        code: status.code(),
        stdout: read(&out_path),
        stderr: read(&err_path),
        peak_kb,
    }
}

/// Writes `contents` to `DIR/NAME.dyn` and checks it with the CLI: exit status 0 or 1 (never a
/// crash or a signal), no panic, and diagnostics whenever it fails.
#[track_caller]
fn cli_check(dir: &Path, name: &str, contents: &[u8], timeout: Duration) -> Run {
    let path = dir.join(format!("{name}.dyn"));
    std::fs::write(&path, contents).unwrap();
    let run = check_files(dir, &[path], timeout);
    assert_clean(name, &run, &[0, 1]);
    run
}

#[track_caller]
fn assert_clean(what: &str, run: &Run, codes: &[i32]) {
    let stderr = &run.stderr;
    let tail: String = stderr
        .chars()
        .rev()
        .take(4000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert!(
        run.code.is_some_and(|c| codes.contains(&c)),
        "{what}: exit status {:?}, expected one of {codes:?}\n--- stderr (tail)\n{tail}",
        run.code
    );
    assert!(!stderr.contains("panicked"), "{what}: panicked\n{tail}");
    assert!(
        !stderr.contains("overflowed its stack"),
        "{what}: stack overflow\n{tail}"
    );
    if run.code == Some(1) {
        assert!(
            stderr.contains("error"),
            "{what}: failed without a diagnostic\n{tail}\n{}",
            run.stdout
        );
    }
}

/// Parse, check when the parse is clean, generate when the check succeeds: what `dyngc build`
/// does, in-process. Returns whether any stage reported an error.
fn front_end(src: &str) -> bool {
    let checked = dyngc_compiler::check(src, "robustness");
    for d in &checked.diagnostics {
        assert!(
            src.get(d.primary.span.clone()).is_some(),
            "{}: span {:?} not in the source",
            d.code,
            d.primary.span
        );
    }
    checked.program.is_none()
        || [
            dyngc_compiler::ScheduleChoice::Megakernel,
            dyngc_compiler::ScheduleChoice::Partitioned,
        ]
        .into_iter()
        .any(|schedule| dyngc_compiler::generate(&checked, schedule).has_errors())
}

/// Runs `f` on a thread with a small stack (1 MiB), so that unbounded recursion anywhere
/// (parsing, checking, or dropping the tree) shows up as a crash rather than passing by luck.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// A deterministic xorshift generator for the garbage inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `depth` copies of `open`, a body, `depth` copies of `close`.
fn nest(open: &str, body: &str, close: &str, depth: usize) -> String {
    format!("{}{body}{}", open.repeat(depth), close.repeat(depth))
}

/// The 10,000-deep nests, each alone, inside a stage body, and unclosed.
fn deep_inputs() -> Vec<(String, String)> {
    const DEPTH: usize = 10_000;
    let mut out = Vec::new();
    for (name, open, body, close) in [
        ("braces", "{", "", "}"),
        ("parens", "(", "1", ")"),
        ("brackets", "[", "1", "]"),
        ("ifs", "if (x) {", "", "}"),
        ("else_ifs", "if (x) {} else ", "{}", ""),
        ("types", "array<", "u32", ">"),
    ] {
        out.push((format!("{name}_top"), nest(open, body, close, DEPTH)));
        let inner = nest(open, body, close, DEPTH);
        out.push((
            format!("{name}_in_stage"),
            format!("stage s(@index i: u32) {{ let x = 1u; {inner}; }}\nentry s(1);\n"),
        ));
        out.push((
            format!("{name}_unclosed"),
            format!("stage s(@index i: u32) {{ {}", open.repeat(DEPTH)),
        ));
    }
    out.push((
        "spawn_payload".into(),
        format!("stage s(@index i: u32) {{ spawn s({}); }}", nest("(", "1u", ")", DEPTH)),
    ));
    out.push((
        "size_expr".into(),
        format!("output o: array<u32, {}>;", nest("(", "1", ")", DEPTH)),
    ));
    out.push((
        "attribute".into(),
        format!("@keyed({})\nstage s(u: u32) {{}}", nest("(", "1", ")", DEPTH)),
    ));
    out.push((
        "type_decl".into(),
        format!("output o: {};", nest("array<", "u32", ">", DEPTH)),
    ));
    out.push(("closers".into(), "}])".repeat(DEPTH)));
    out
}

/// The 10 MB inputs, each of many short lines: the examples repeated (every declaration a
/// duplicate: ~128,000 checker errors, of which 100 are reported) and one stage body of 600,000
/// statements (validated by naga), and a token soup (a syntax error at every other token).
fn big_inputs() -> Vec<(String, String)> {
    const MB: usize = 1024 * 1024;
    let fill = |unit: &str, size: usize| unit.repeat(size / unit.len() + 1);
    let all_examples: String = examples().into_iter().map(|(_, t)| t).collect();
    vec![
        ("examples_repeated".into(), fill(&all_examples, 10 * MB)),
        (
            "stage_body".into(),
            format!(
                "stage s(@index i: u32) {{\n{}}}\nentry s(1);\n",
                fill("let a = 1u + 2u;\n", 10 * MB)
            ),
        ),
        ("token_soup".into(), fill("stage ; , @ -> < > param = :\n", 10 * MB)),
    ]
}

#[test]
fn empty_and_blank_files() {
    let dir = tmp("empty");
    for (name, text) in [
        ("empty", ""),
        ("blank", " \n\t\r\n"),
        ("comment_only", "// nothing\n/* here */"),
    ] {
        cli_check(&dir, name, text.as_bytes(), CLI_TIMEOUT);
        front_end(text);
    }
}

#[test]
fn binary_garbage() {
    let dir = tmp("garbage");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..8 {
        // Arbitrary bytes: not UTF-8, so the CLI refuses to read the file (status 2, a message).
        let bytes: Vec<u8> = (0..4096 + i * 1000).map(|_| rng.next() as u8).collect();
        let path = dir.join(format!("bytes{i}.dyn"));
        std::fs::write(&path, &bytes).unwrap();
        let run = check_files(&dir, &[path], CLI_TIMEOUT);
        assert_clean(&format!("bytes{i}"), &run, &[2]);
        assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
        front_end(&String::from_utf8_lossy(&bytes));

        // UTF-8 garbage: control characters, NULs, any code point; the parser must take it.
        let text: String = (0..4096 + i * 1000)
            .map(|_| {
                let r = rng.next();
                match r % 4 {
                    0 => char::from((r >> 8) as u8 & 0x7f),
                    1 => char::from((r >> 8) as u8),
                    _ => char::from_u32((r >> 8) as u32 % 0x11_0000).unwrap_or('\u{fffd}'),
                }
            })
            .collect();
        cli_check(&dir, &format!("text{i}"), text.as_bytes(), CLI_TIMEOUT);
        front_end(&text);
    }
}

#[test]
fn every_truncation_of_every_example() {
    let examples = examples();
    // Library: every prefix of every example, and every example with one of every 8 bytes cut out
    // (those mostly parse, so the checker and naga see them: slower).
    for (name, text) in &examples {
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            front_end(&text[..end]);
        }
        for cut in (0..text.len())
            .step_by(8)
            .filter(|&i| text.is_char_boundary(i) && text.is_char_boundary(i + 1))
        {
            front_end(&format!("{}{}", &text[..cut], &text[cut + 1..]));
        }
        assert!(!front_end(text), "{name} no longer compiles");
    }
    // CLI: every prefix length of the smallest example and every 16th of the others, all in one
    // `dyngc check` run per example.
    let smallest = examples.iter().map(|(_, t)| t.len()).min().unwrap();
    let dir = tmp("truncations");
    for (name, text) in &examples {
        let step = if text.len() == smallest { 1 } else { 16 };
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let files: Vec<PathBuf> = (0..=text.len())
            .step_by(step)
            .filter(|&i| text.is_char_boundary(i))
            .map(|end| {
                let p = sub.join(format!("{end:05}.dyn"));
                std::fs::write(&p, &text[..end]).unwrap();
                p
            })
            .collect();
        let run = check_files(&sub, &files, CLI_TIMEOUT * 2);
        assert_clean(&format!("prefixes of {name}"), &run, &[1]);
    }
}

#[test]
fn ten_megabyte_files() {
    let dir = tmp("big");
    for (name, text) in big_inputs() {
        let run = cli_check(&dir, &name, text.as_bytes(), BIG_TIMEOUT);
        assert_eq!(run.code, Some(1), "{name}");
        // At most 100 diagnostics and a summary.
        assert!(
            run.stderr.matches("\nerror[").count() <= 101,
            "{name}: too many diagnostics"
        );
    }
    // Over the 16 MiB limit: refused with one diagnostic, not parsed.
    let run = cli_check(&dir, "too_large", " \n".repeat(9 * 1024 * 1024).as_bytes(), BIG_TIMEOUT);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("file too large"), "{}", run.stderr);
}

/// The checker reports at most 100 diagnostics and then one `DYN0004` counting the rest, an
/// error exactly when a dropped diagnostic was one (a 10 MB file of duplicate declarations used
/// to print 750,000 errors).
#[test]
fn checker_caps_its_diagnostics() {
    let limit = dyngc_syntax::limits::MAX_DIAGNOSTICS;
    let check = |src: &str| {
        let parsed = dyngc_syntax::parse(src);
        assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
        dyngc_ir::check(&parsed.file, src, "cap")
    };
    let src = "param p: u32;\n".repeat(300) + "stage s(@index i: u32) {}\nentry s(1);\n";
    let checked = check(&src);
    assert_eq!(checked.diagnostics.len(), limit + 1);
    let last = checked.diagnostics.last().unwrap();
    assert_eq!((last.code, last.is_error()), ("DYN0004", true), "{last:#?}");
    assert!(last.message.contains("199 more"), "{}", last.message);
    assert!(checked.program.is_none());
    // Only warnings (unreachable stages): the summary is a warning and the program is kept.
    let mut src = String::from("stage s(@index i: u32) {}\nentry s(1);\n");
    for k in 0..150 {
        src += &format!("stage unused_{k}(@index i: u32) {{}}\n");
    }
    let checked = check(&src);
    assert!(
        checked.diagnostics.iter().all(|d| !d.is_error()),
        "{:#?}",
        checked.diagnostics
    );
    assert_eq!(checked.diagnostics.len(), limit + 1);
    assert_eq!(checked.diagnostics.last().unwrap().code, "DYN0004");
    assert!(checked.program.is_some());
}

/// Files made of one error repeated, 2 MB each (found while fuzzing for this file: each used to
/// cost gigabytes and tens of seconds, as the lexer and the parser kept every error until the end
/// only to report the first 100). The lexer and the parser now stop counting at 1,000.
#[test]
fn error_floods() {
    const SIZE: usize = 2 * 1024 * 1024;
    let dir = tmp("floods");
    for (name, prefix, unit, suffix) in [
        ("semicolons", "", ";", ""),
        ("stray_closers", "", "};", ""),
        ("mismatched_delimiters", "", "[(]", ""),
        ("invalid_characters", "", "$ ", ""),
        ("stage_parameters", "stage s(", "1,", ") {}"),
        (
            "spawn_in_expression",
            "stage s(@index i: u32) { x = (",
            "spawn ",
            "); }",
        ),
        ("struct_semicolons", "struct S {", "a: u32;", "}"),
        ("struct_field_attributes", "struct S {", "@a x: u32,", "}"),
        ("stage_parameter_attributes", "stage s(", "@a ", "x: u32) {}"),
        ("items", "", "stage ; , @ -> < > param = :\n", ""),
    ] {
        let text = format!("{prefix}{}{suffix}", unit.repeat(SIZE / unit.len()));
        let run = cli_check(&dir, name, text.as_bytes(), CLI_TIMEOUT);
        assert_eq!(run.code, Some(1), "{name}");
        // Unbounded, these took 0.5-2.5 GB; bounded, 10-200 MB (the larger ones are the tree).
        assert!(
            run.peak_kb < 400 * 1024,
            "{name}: peak memory {} MiB",
            run.peak_kb / 1024
        );
        let started = Instant::now();
        let parsed = dyngc_syntax::parse(&text);
        assert!(
            started.elapsed() < CLI_TIMEOUT,
            "{name}: parse took {:?}",
            started.elapsed()
        );
        let n = parsed.diagnostics.len();
        assert!(
            (2..=dyngc_syntax::limits::MAX_DIAGNOSTICS + 1).contains(&n),
            "{name}: {n} diagnostics"
        );
    }
}

#[test]
fn ten_thousand_deep_nesting() {
    let dir = tmp("deep");
    for (name, text) in deep_inputs() {
        let run = cli_check(&dir, &name, text.as_bytes(), CLI_TIMEOUT);
        assert_eq!(run.code, Some(1), "{name}: accepted\n{}", run.stderr);
        let started = Instant::now();
        assert!(small_stack(move || front_end(&text)), "{name}: accepted");
        assert!(
            started.elapsed() < CLI_TIMEOUT,
            "{name}: library took {:?}",
            started.elapsed()
        );
    }
}

/// The inputs kept in `fuzz/regressions/<target>/`: any the fuzz targets crashed on, and small
/// versions of the error floods (as seeds for the fuzzer).
#[test]
fn fuzz_regressions() {
    let dir = root().join("fuzz/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|t| t.unwrap().path())
        .filter(|t| t.is_dir())
        .flat_map(|t| std::fs::read_dir(t).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let text = text.to_string();
            let started = Instant::now();
            small_stack(move || front_end(&text));
            assert!(
                started.elapsed() < CLI_TIMEOUT,
                "{}: took {:?}",
                path.display(),
                started.elapsed()
            );
        }
    }
    if !files.is_empty() {
        let run = check_files(&tmp("regressions"), &files, CLI_TIMEOUT * 2);
        assert_clean("fuzz regressions", &run, &[0, 1, 2]);
    }
}
