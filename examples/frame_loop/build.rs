//! Compiles `examples/tree.dyn` into `OUT_DIR/tree.wgsl` and `OUT_DIR/tree.manifest.json`, as an
//! engine would at its own build time: the program itself then embeds only the artifact.

use std::path::PathBuf;

fn main() -> Result<(), String> {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let path = dir.join("../tree.dyn");
    println!("cargo:rerun-if-changed={}", path.display());
    let source = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let failed = |what: &str, ds: &[dyngc_syntax::Diagnostic]| {
        let list: Vec<String> = ds.iter().map(|d| format!("{}: {}", d.code, d.message)).collect();
        format!("{} {what}:\n{}", path.display(), list.join("\n"))
    };
    let parsed = dyngc_syntax::parse(&source);
    if parsed.diagnostics.iter().any(|d| d.is_error()) {
        return Err(failed("does not parse", &parsed.diagnostics));
    }
    let checked = dyngc_ir::check(&parsed.file, &source, "tree");
    let program = checked
        .program
        .ok_or_else(|| failed("does not check", &checked.diagnostics))?;
    let artifact = dyngc_codegen::generate(&program, dyngc_codegen::Schedule::Megakernel)
        .map_err(|ds| failed("does not compile", &ds))?;
    for (name, text) in [
        ("tree.wgsl", artifact.wgsl.clone()),
        ("tree.manifest.json", artifact.manifest.to_json()),
    ] {
        let target = out.join(name);
        std::fs::write(&target, text).map_err(|e| format!("writing {}: {e}", target.display()))?;
    }
    Ok(())
}
