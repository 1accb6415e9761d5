//! Code generation: a checked [`Program`] becomes one WGSL module holding the persistent
//! megakernel, plus its [`Manifest`]. Entry point: [`generate`]. Pure: no file IO.

use dyngc_artifact::Manifest;
use dyngc_ir::Program;
use dyngc_syntax::Diagnostic;

/// What `dyngc build` writes: `NAME.wgsl` and `NAME.manifest.json`.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub wgsl: String,
    pub manifest: Manifest,
    /// The validated naga module, for `--emit` through naga's other backends.
    pub module: naga::Module,
    pub info: naga::valid::ModuleInfo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    Spv,
    Msl,
    Hlsl,
    Glsl,
}

/// Generates the megakernel for `program`. Errors (graph-level loops not yet generated, work
/// items too large for workgroup memory, an internal naga rejection) come back as diagnostics.
pub fn generate(program: &Program) -> Result<Artifact, Vec<Diagnostic>> {
    let _ = program;
    unimplemented!("being written")
}

/// Translates an artifact's module through one of naga's other backends.
pub fn emit(artifact: &Artifact, target: Emit) -> Result<Vec<u8>, String> {
    let _ = (artifact, target);
    unimplemented!("being written")
}
