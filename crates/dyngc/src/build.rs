//! `dyngc build FILE -o DIR [--emit ...]`.

use crate::cli::{BuildArgs, EmitTarget};
use crate::diag::Ctx;
use crate::frontend::{io_reason, Source};
use crate::{CmdResult, Failure};
use dyngc_codegen::Emit;
use dyngc_runtime::format_bytes;
use std::path::Path;

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    std::fs::write(path, bytes)
        .map_err(|e| Failure::usage(format!("could not write `{}`: {}", path.display(), io_reason(&e))))
}

pub fn run(ctx: &Ctx, args: BuildArgs) -> CmdResult {
    let src = Source::read(&args.file)?;
    let artifact = src.build(ctx, "build", args.generate.options())?;
    let dir = &args.out_dir;
    std::fs::create_dir_all(dir).map_err(|e| {
        Failure::usage(format!(
            "could not create the output directory `{}`: {}",
            dir.display(),
            io_reason(&e)
        ))
    })?;
    let name = &src.name;
    let mut written = Vec::new();
    let wgsl = dir.join(format!("{name}.wgsl"));
    write(&wgsl, artifact.wgsl.as_bytes())?;
    written.push(wgsl);
    let manifest = dir.join(format!("{name}.manifest.json"));
    write(&manifest, artifact.manifest.to_json().as_bytes())?;
    written.push(manifest);
    let mut targets = args.emit.clone();
    targets.dedup();
    for t in targets {
        let (emit, ext) = match t {
            EmitTarget::Spv => (Emit::Spv, "spv"),
            EmitTarget::Msl => (Emit::Msl, "metal"),
            EmitTarget::Hlsl => (Emit::Hlsl, "hlsl"),
            EmitTarget::Glsl => (Emit::Glsl, "comp.glsl"),
        };
        let outputs = dyngc_codegen::emit(&artifact, emit)
            .map_err(|e| Failure::failed(format!("could not translate `{}` to {ext}: {e}", src.display)))?;
        for out in outputs {
            let path = match &out.entry_point {
                Some(ep) => dir.join(format!("{name}.{ep}.{ext}")),
                None => dir.join(format!("{name}.{ext}")),
            };
            write(&path, &out.bytes)?;
            written.push(path);
        }
    }
    for p in &written {
        outln!("wrote {}", p.display());
    }
    if !artifact.accumulated.is_empty() {
        outln!(
            "counted in workgroup memory: {} (outputs the stages only combine into; docs/executor.md, \"Accumulated outputs\")",
            artifact.accumulated.join(", ")
        );
    }
    let min = artifact.manifest.executor.arena.min_bytes;
    outln!(
        "minimum arena: {} ({min} bytes): one worker and the smallest ring",
        format_bytes(min)
    );
    Ok(())
}
