//! From a path to a checked program and a generated artifact, reporting diagnostics on the way.

use crate::diag::Ctx;
use crate::Failure;
use dyngc_compiler::{Artifact, Checked, Executable, Options};
use std::path::Path;

/// A `.dyn` file read into memory.
pub struct Source {
    /// The path as the user wrote it, for messages.
    pub display: String,
    /// The file stem: the program's name and the artifact's file names.
    pub name: String,
    pub text: String,
}

/// The first `limit` bytes of a file: one past the parser's size limit is enough for it to
/// refuse the file, and an endless one (`/dev/zero`) is not read until memory runs out.
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

impl Source {
    pub fn read(path: &Path) -> Result<Source, Failure> {
        let display = path.display().to_string();
        let bytes = read_at_most(path, dyngc_syntax::limits::MAX_FILE_BYTES as u64 + 1)
            .map_err(|e| Failure::usage(format!("could not read `{display}`: {}", io_reason(&e))))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Failure::usage(format!(
                "could not read `{display}`: it is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "main".to_string());
        Ok(Source { display, name, text })
    }

    /// Parses and checks (`dyngc_compiler::check`): the program, when there is no error, and
    /// every diagnostic.
    pub fn check(&self) -> Checked {
        dyngc_compiler::check(&self.text, &self.name)
    }

    /// Checks and reports; the program, or a failure after the diagnostics were printed.
    pub fn compile(&self, ctx: &Ctx, verb: &str) -> Result<Executable, Failure> {
        let checked = self.check();
        ctx.report(&self.display, &self.text, &checked.diagnostics, verb);
        checked.program.ok_or_else(Failure::reported)
    }

    /// Compiles (`dyngc_compiler::compile`) and reports; the artifact, or a failure after the
    /// diagnostics were printed.
    pub fn build(&self, ctx: &Ctx, verb: &str, options: Options) -> Result<Artifact, Failure> {
        let compiled = dyngc_compiler::compile(&self.text, &self.name, options);
        ctx.report(&self.display, &self.text, &compiled.diagnostics, verb);
        compiled.artifact.ok_or_else(Failure::reported)
    }
}

/// An IO error's reason without Rust's "(os error 2)" suffix.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
