//! UI tests: the diagnostics corpus under `tests/ui/`. Tests are data: adding a case means adding
//! files, nothing else.
//!
//! Every `tests/ui/<theme>/NAME.dyn` is run through the built `dyngc` from the repository root,
//! with the relative path `tests/ui/<theme>/NAME.dyn` (so paths in the output are stable), and
//! its stderr is compared with the golden file `NAME.stderr` next to it. What is run depends on
//! the theme folder:
//!
//! - `pass/`: `dyngc check` must exit 0, and `dyngc build` must exit 0 too. A program that checks
//!   without any output has **no** `.stderr` file; one that produces only warnings has a
//!   `.stderr` that records them (the same text for `check` and `build`).
//! - `codegen/`: `dyngc check` must exit 0 (the program is valid), and
//!   `dyngc build NAME.dyn -o TMP` must exit 1 with the golden stderr (code generation errors).
//! - `limits/`: `dyngc check` must exit 0 printing nothing, and `dyngc build` must exit 0 with the
//!   golden stderr (warnings only the generated artifact can show: WebGPU limits).
//! - every other folder (`syntax/`, `names/`, ...): `dyngc check` must exit 1 with the golden
//!   stderr. A missing golden file is a failure.
//!
//! Every program must start with a `//` comment saying what it tests. A `codegen/` or `limits/`
//! program may add `dyngc build` arguments on a line of their own, `// build-args: --lanes 128`.
//!
//! `DYNGC_BLESS=1 cargo test -p dyngc --test ui` (re)writes the golden files from the actual
//! output instead of comparing (and removes stale ones), but never blesses a wrong exit status
//! (a panic, an accepted program that should fail, ...): such cases are still reported.
//! Read every golden file you bless.

use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root: commands run here and case paths are relative to it.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const UI_DIR: &str = "tests/ui";

fn bless() -> bool {
    std::env::var_os("DYNGC_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Every file under `tests/ui` with extension `ext`, as sorted `/`-separated paths relative to
/// the repository root.
fn files_with_ext(ext: &str) -> Vec<String> {
    fn walk(root: &Path, rel: &str, ext: &str, out: &mut Vec<String>) {
        let dir = root.join(rel);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read `{}`: {e}", dir.display()));
        for entry in entries {
            let entry = entry.expect("directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}/{name}");
            let ty = entry.file_type().expect("file type");
            if ty.is_dir() {
                walk(root, &path, ext, out);
            } else if Path::new(&name).extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo_root(), UI_DIR, ext, &mut out);
    out.sort();
    out
}

/// How a case is run, from its theme folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `check` and `build` exit 0; the golden file (optional) holds warnings.
    Pass,
    /// `check` exits 0, `build` exits 1 with the golden stderr.
    Codegen,
    /// `check` exits 0 silently, `build` exits 0 with the golden stderr.
    BuildWarnings,
    /// `check` exits 1 with the golden stderr.
    Fail,
}

struct Case {
    /// `tests/ui/<theme>/NAME.dyn`
    path: String,
    mode: Mode,
}

impl Case {
    fn new(path: String) -> Result<Case, String> {
        let rel = path
            .strip_prefix(UI_DIR)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(&path);
        let mode = match rel.split_once('/') {
            None => return Err("is not in a theme folder: put it in `tests/ui/<theme>/`".into()),
            Some(("pass", _)) => Mode::Pass,
            Some(("codegen", _)) => Mode::Codegen,
            Some(("limits", _)) => Mode::BuildWarnings,
            Some(_) => Mode::Fail,
        };
        Ok(Case { path, mode })
    }

    fn golden_path(&self) -> String {
        golden_of(&self.path)
    }
}

fn golden_of(dyn_path: &str) -> String {
    format!("{}.stderr", dyn_path.strip_suffix(".dyn").unwrap_or(dyn_path))
}

/// The result of one `dyngc` run.
struct Output {
    code: Option<i32>,
    stderr: String,
}

impl Output {
    fn status(&self) -> String {
        match self.code {
            Some(c) => format!("exit status {c}"),
            None => "killed by a signal".into(),
        }
    }
}

/// A per-case scratch directory for `build` outputs.
fn scratch_dir(case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ui")
        .join(case.trim_end_matches(".dyn"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `dyngc ARGS... --color never` from the repository root.
fn dyngc(args: &[&str], scratch: Option<&Path>) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dyngc"))
        .args(args)
        .args(["--color", "never"])
        .current_dir(repo_root())
        .env_remove("NO_COLOR")
        .output()
        .unwrap_or_else(|e| panic!("cannot run dyngc: {e}"));
    let mut stderr = String::from_utf8_lossy(&out.stderr).replace("\r\n", "\n");
    if let Some(dir) = scratch {
        stderr = stderr.replace(&dir.display().to_string(), "$TMP");
    }
    Output {
        code: out.status.code(),
        stderr,
    }
}

fn check(path: &str) -> Output {
    dyngc(&["check", path], None)
}

fn build(path: &str) -> Output {
    let dir = scratch_dir(path);
    let dir_arg = dir.display().to_string();
    let source =
        std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("cannot read `{path}`: {e}"));
    let extra = source
        .lines()
        .find_map(|l| l.strip_prefix("// build-args:"))
        .unwrap_or_default();
    let mut args = vec!["build", path, "-o", &dir_arg];
    args.extend(extra.split_whitespace());
    let out = dyngc(&args, Some(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// A line diff of `expected` and `actual`: ` ` common, `-` only expected, `+` only actual.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    for change in similar::TextDiff::from_slices(&a, &b).iter_all_changes() {
        let mark = match change.tag() {
            similar::ChangeTag::Equal => ' ',
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
        };
        let _ = writeln!(out, "{mark}  {}", change.value());
    }
    if expected.ends_with('\n') != actual.ends_with('\n') && !expected.is_empty() && !actual.is_empty() {
        out.push_str("   (the two differ in the final newline)\n");
    }
    out
}

fn indent(text: &str) -> String {
    if text.is_empty() {
        return "    (empty)\n".into();
    }
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Compares `actual` with the golden file (absent: `None`), or blesses it. `required`: whether
/// the golden file must exist (it may be absent only when `actual` is empty). Returns a failure
/// description.
fn compare_golden(case: &Case, golden: Option<&str>, actual: &str, required: bool) -> Option<String> {
    let path = case.golden_path();
    if bless() {
        let file = repo_root().join(&path);
        if actual.is_empty() && !required {
            let _ = std::fs::remove_file(&file);
        } else {
            std::fs::write(&file, actual).unwrap_or_else(|e| panic!("cannot write `{path}`: {e}"));
        }
        return None;
    }
    match golden {
        None if actual.is_empty() && !required => None,
        None if actual.is_empty() => Some(format!(
            "no golden file `{path}`, and dyngc printed nothing on stderr\n"
        )),
        None => Some(format!(
            "no golden file `{path}`; dyngc printed:\n{}\
             read it, and if it is right, run `DYNGC_BLESS=1 cargo test -p dyngc --test ui` to write it\n",
            indent(actual)
        )),
        Some(expected) if expected == actual => None,
        Some(expected) => Some(format!(
            "stderr differs from `{path}` (-: expected, +: actual):\n{}\
             if the new output is right, run `DYNGC_BLESS=1 cargo test -p dyngc --test ui` to update it\n",
            diff(expected, actual)
        )),
    }
}

/// Runs one case; returns every problem found, empty when it passes.
fn run_case(path: &str) -> Vec<String> {
    let case = match Case::new(path.to_string()) {
        Ok(c) => c,
        Err(e) => return vec![format!("{e}\n")],
    };
    let mut problems = Vec::new();
    let source = std::fs::read_to_string(repo_root().join(path)).unwrap_or_default();
    if !source.starts_with("//") {
        problems.push("the program must start with a `//` comment saying what it tests\n".to_string());
    }
    let golden_file = repo_root().join(case.golden_path());
    let golden = std::fs::read_to_string(&golden_file)
        .ok()
        .map(|g| g.replace("\r\n", "\n"));
    let wrong_status = |what: &str, out: &Output, want: i32| {
        format!(
            "`dyngc {what} {path}` gave {}, expected exit status {want}; stderr:\n{}",
            out.status(),
            indent(&out.stderr)
        )
    };
    match case.mode {
        Mode::Fail => {
            let out = check(path);
            if out.code != Some(1) {
                problems.push(wrong_status("check", &out, 1));
            } else {
                problems.extend(compare_golden(&case, golden.as_deref(), &out.stderr, true));
            }
        }
        Mode::Pass => {
            let out = check(path);
            if out.code != Some(0) {
                problems.push(wrong_status("check", &out, 0));
                return problems;
            }
            problems.extend(compare_golden(&case, golden.as_deref(), &out.stderr, false));
            let built = build(path);
            if built.code != Some(0) {
                problems.push(wrong_status("build", &built, 0));
            } else if built.stderr != out.stderr {
                problems.push(format!(
                    "`dyngc build` printed other diagnostics than `dyngc check` (-: check, +: build):\n{}",
                    diff(&out.stderr, &built.stderr)
                ));
            }
        }
        Mode::Codegen | Mode::BuildWarnings => {
            let checked = check(path);
            if checked.code != Some(0) {
                problems.push(wrong_status("check", &checked, 0));
                return problems;
            }
            if case.mode == Mode::BuildWarnings && !checked.stderr.is_empty() {
                problems.push(format!(
                    "`dyngc check {path}` printed diagnostics; a `limits/` case warns only when built:\n{}",
                    indent(&checked.stderr)
                ));
            }
            let want = if case.mode == Mode::Codegen { 1 } else { 0 };
            let out = build(path);
            if out.code != Some(want) {
                problems.push(wrong_status("build", &out, want));
            } else {
                problems.extend(compare_golden(&case, golden.as_deref(), &out.stderr, true));
            }
        }
    }
    problems
}

#[test]
fn ui() {
    let cases = files_with_ext("dyn");
    assert!(!cases.is_empty(), "no cases under {UI_DIR}");
    let results: Vec<Vec<String>> = cases.par_iter().map(|p| run_case(p)).collect();
    let mut report = String::new();
    let mut failed = 0;
    for (path, problems) in cases.iter().zip(&results) {
        if problems.is_empty() {
            continue;
        }
        failed += 1;
        let _ = writeln!(report, "\n---- {path}");
        for p in problems {
            report.push_str(p);
        }
    }
    // Golden files whose program is gone.
    for golden in files_with_ext("stderr") {
        let program = format!("{}.dyn", golden.strip_suffix(".stderr").unwrap_or(&golden));
        if !cases.contains(&program) {
            if bless() {
                let _ = std::fs::remove_file(repo_root().join(&golden));
            } else {
                failed += 1;
                let _ = writeln!(
                    report,
                    "\n---- {golden}\nno program `{program}` for this golden file; remove it"
                );
            }
        }
    }
    if failed > 0 {
        panic!("{failed} of {} UI cases failed:\n{report}", cases.len());
    }
    if bless() {
        eprintln!(
            "blessed {} UI cases; read the golden files before committing them",
            cases.len()
        );
    }
}

/// The corpus covers every diagnostic code: each one appears as `[DYNxxxx]` in a golden file.
#[test]
fn every_code_is_covered() {
    if bless() {
        // The `ui` test may be rewriting the golden files right now.
        eprintln!("coverage not checked while blessing; run the tests again without DYNGC_BLESS");
        return;
    }
    let mut all = String::new();
    for golden in files_with_ext("stderr") {
        all.push_str(&std::fs::read_to_string(repo_root().join(&golden)).unwrap_or_default());
    }
    // Only a dyngc bug produces DYN0500 (naga rejecting the generated module).
    let internal = [dyngc_syntax::codes::DYN0500];
    let missing: Vec<&str> = dyngc_syntax::codes::ALL
        .iter()
        .map(|info| info.code)
        .filter(|code| !internal.contains(code) && !all.contains(&format!("[{code}]")))
        .collect();
    assert!(
        missing.is_empty(),
        "no golden file under {UI_DIR} shows these codes: {}; add a program that produces each",
        missing.join(", ")
    );
}

#[test]
fn diff_marks_changed_lines() {
    let d = diff("a\nb\nc\n", "a\nx\nc\n");
    assert_eq!(d, "   a\n-  b\n+  x\n   c\n");
}
