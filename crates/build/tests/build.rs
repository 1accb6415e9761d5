//! `dyngc-build` as a build script uses it: the files it writes, the generated module (which
//! must compile, name every binding the manifest has and type every parameter), and the
//! diagnostics of a bad program (file, line, column and code).

use dyngc_artifact::{Manifest, Role};
use dyngc_build::{Build, Emit, Error, ScheduleChoice};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dyngc-build-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "dyn").then(|| p.file_stem().unwrap().to_str().unwrap().to_string())
        })
        .collect();
    names.sort();
    names
}

fn build(file: &str, from: &Path, out: &Path) -> Build {
    let mut b = Build::new(file);
    b.manifest_dir(from).out_dir(out);
    b
}

#[test]
fn a_bad_program_is_reported_with_file_line_column_and_code() {
    let dir = scratch("bad");
    let source = "output o: array<u32, 1>;\nstage s(@index i: u32) { spawn nope(i); }\nentry s(1);\n";
    std::fs::create_dir_all(dir.join("graphs")).unwrap();
    std::fs::write(dir.join("graphs/bad.dyn"), source).unwrap();
    let column = source.lines().nth(1).unwrap().find("nope").unwrap() + 1;
    let Err(Error::Diagnostics { lines, rendered }) = build("graphs/bad.dyn", &dir, &dir).try_compile() else {
        panic!("a program with an unknown stage compiled");
    };
    assert_eq!(
        lines,
        [format!("graphs/bad.dyn:2:{column}: DYN0100: unknown stage `nope`")],
        "{rendered}"
    );
    assert!(rendered.contains("error[DYN0100]: unknown stage `nope`"), "{rendered}");
    assert!(rendered.contains(&format!("graphs/bad.dyn:2:{column}")), "{rendered}");
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(written, ["graphs"], "nothing is written for a bad program");
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let dir = scratch("missing");
    let e = build("nowhere.dyn", &dir, &dir).try_compile().unwrap_err();
    assert!(
        matches!(&e, Error::Other(m) if m.starts_with("reading nowhere.dyn: ")),
        "{e}"
    );
}

/// The artifact files are the compiler's, byte for byte, and a second build writes the same.
#[test]
fn the_files_are_the_compilers_and_deterministic() {
    let (a, b) = (scratch("det-a"), scratch("det-b"));
    for name in example_names() {
        let file = format!("{name}.dyn");
        let first = build(&file, &examples(), &a)
            .try_compile()
            .unwrap_or_else(|e| panic!("{e}"));
        build(&file, &examples(), &b)
            .try_compile()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.name, name);
        let emitted: Vec<Emit> = first.files.iter().map(|(e, _)| *e).collect();
        assert_eq!(emitted, [Emit::Wgsl, Emit::Manifest, Emit::Module]);
        let source = std::fs::read_to_string(examples().join(&file)).unwrap();
        let artifact = dyngc_compiler::compile(&source, &name, ScheduleChoice::Auto)
            .artifact
            .unwrap();
        let read = |dir: &Path, ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
        assert_eq!(read(&a, "wgsl"), artifact.wgsl, "{name}");
        assert_eq!(read(&a, "manifest.json"), artifact.manifest.to_json(), "{name}");
        for ext in ["wgsl", "manifest.json", "rs"] {
            assert_eq!(read(&a, ext), read(&b, ext), "{name}.{ext} differs between two builds");
        }
    }
}

#[test]
fn the_schedule_and_the_files_to_write_are_options() {
    let dir = scratch("options");
    let mut b = build("triangle.dyn", &examples(), &dir);
    let out = b
        .schedule(ScheduleChoice::Megakernel)
        .emit(&[Emit::Module, Emit::Manifest])
        .try_compile()
        .unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<_> = out
        .files
        .iter()
        .map(|(e, p)| (*e, p.file_name().unwrap().to_owned()))
        .collect();
    assert_eq!(
        files,
        [
            (Emit::Manifest, "triangle.manifest.json".into()),
            (Emit::Module, "triangle.rs".into())
        ]
    );
    assert!(!dir.join("triangle.wgsl").exists());
    let module = std::fs::read_to_string(dir.join("triangle.rs")).unwrap();
    assert!(!module.contains("WGSL"), "no WGSL constant without the file:\n{module}");
    assert!(module.contains("pub const MANIFEST: &str"), "{module}");
    let manifest = Manifest::from_json(&std::fs::read_to_string(dir.join("triangle.manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest.executor.schedule, dyngc_artifact::Schedule::Megakernel);
}

/// Every example's module, plus one with keyword-named and signed parameters, compiles with
/// `-D warnings`; each names every user binding, stage and parameter of its manifest, and its
/// `bits()` are the values' 32-bit patterns.
#[test]
fn generated_modules_compile_and_name_what_the_manifest_holds() {
    let dir = scratch("modules");
    let mut names = example_names();
    for name in &names {
        build(&format!("{name}.dyn"), &examples(), &dir)
            .try_compile()
            .unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(
        dir.join("keywords.dyn"),
        "param gen: f32;\nparam box: i32;\noutput o: array<u32, 1>;\nstage s(@index i: u32) { o[i] = u32(f32(box) * gen); }\nentry s(1);\n",
    )
    .unwrap();
    build("keywords.dyn", &dir, &dir)
        .try_compile()
        .unwrap_or_else(|e| panic!("{e}"));
    names.push("keywords".into());

    let mut lib = String::new();
    for name in &names {
        let module = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        let manifest =
            Manifest::from_json(&std::fs::read_to_string(dir.join(format!("{name}.manifest.json"))).unwrap()).unwrap();
        let user = |r: Role| matches!(r, Role::Input | Role::Output | Role::Buffer | Role::Stream);
        for b in manifest.bindings.iter().filter(|b| user(b.role)) {
            let line = format!("pub const {}: &str = \"{}\";", b.name.to_uppercase(), b.name);
            assert!(module.contains(&line), "{name}: no `{line}`:\n{module}");
        }
        for s in &manifest.stages {
            let line = format!("pub const {}: &str = \"{}\";", s.name.to_uppercase(), s.name);
            assert!(module.contains(&line), "{name}: no `{line}`:\n{module}");
        }
        for p in &manifest.params {
            assert!(
                module.contains(&format!("(\"{}\".to_string(), ", p.name)),
                "{name}: {}:\n{module}",
                p.name
            );
        }
        lib.push_str(&format!("include!(\"{name}.rs\");\n"));
    }
    // The typed values' bit patterns, through a generated `Params`.
    lib.push_str(
        "pub fn keywords_bits() -> Vec<(String, u32)> { keywords::Params { gen: 1.5, r#box: -2 }.bits() }\n\
         #[test] fn bits() { assert_eq!(keywords_bits(), [(\"gen\".to_string(), 1.5f32.to_bits()), (\"box\".to_string(), (-2i32) as u32)]); \
         assert_eq!(keywords::bindings::O, \"o\"); assert_eq!(keywords::stages::S, \"s\"); }\n",
    );
    std::fs::write(dir.join("lib.rs"), &lib).unwrap();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let status = |args: &[&str]| {
        let out = Command::new(&rustc)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("running {rustc}: {e}"));
        assert!(
            out.status.success(),
            "rustc {args:?}:\n{}\n{lib}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    status(&[
        "--edition",
        "2021",
        "--test",
        "-D",
        "warnings",
        "-o",
        "generated",
        "lib.rs",
    ]);
    let run = Command::new(dir.join("generated")).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
}

#[test]
fn names_that_are_no_rust_identifier_are_errors() {
    let dir = scratch("names");
    std::fs::write(
        dir.join("upper.dyn"),
        "output per_depth: array<u32, 1>;\noutput PER_DEPTH: array<u32, 1>;\nstage s(@index i: u32) { per_depth[i] = 1u; PER_DEPTH[i] = 2u; }\nentry s(1);\n",
    )
    .unwrap();
    let e = build("upper.dyn", &dir, &dir).try_compile().unwrap_err();
    assert_eq!(
        e,
        Error::Other(
            "bindings `per_depth` and `PER_DEPTH` both become the constant `PER_DEPTH` in the generated module: rename one"
                .into()
        )
    );
    std::fs::write(dir.join("no-module.dyn"), "stage s(@index i: u32) {}\nentry s(1);\n").unwrap();
    let out = build("no-module.dyn", &dir, &dir)
        .try_compile()
        .unwrap_or_else(|e| panic!("{e}"));
    let module = std::fs::read_to_string(dir.join("no-module.rs")).unwrap();
    assert!(module.contains("pub mod no_module {"), "{module}");
    assert_eq!(out.name, "no-module");
}
