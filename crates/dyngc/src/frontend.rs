//! From a path to a checked program and a generated artifact, reporting diagnostics on the way.

use crate::cli::ScheduleChoice;
use crate::diag::Ctx;
use crate::Failure;
use dyngc_codegen::Artifact;
use dyngc_ir::Program;
use dyngc_syntax::Diagnostic;
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

    /// Parses and checks: the program (when there is no error) and every diagnostic. The checker
    /// runs only on a file that parsed without errors.
    pub fn check(&self) -> (Option<Program>, Vec<Diagnostic>) {
        let parsed = dyngc_syntax::parse(&self.text);
        let mut diagnostics = parsed.diagnostics;
        if diagnostics.iter().any(Diagnostic::is_error) {
            return (None, diagnostics);
        }
        let checked = dyngc_ir::check(&parsed.file, &self.text, &self.name);
        diagnostics.extend(checked.diagnostics);
        let program = if diagnostics.iter().any(Diagnostic::is_error) {
            None
        } else {
            checked.program
        };
        (program, diagnostics)
    }

    /// Checks and reports; the program, or a failure after the diagnostics were printed.
    pub fn compile(&self, ctx: &Ctx, verb: &str) -> Result<Program, Failure> {
        let (program, diagnostics) = self.check();
        ctx.report(&self.display, &self.text, &diagnostics, verb);
        program.ok_or_else(Failure::reported)
    }

    /// Checks, generates and reports.
    pub fn build(&self, ctx: &Ctx, verb: &str, schedule: ScheduleChoice) -> Result<(Program, Artifact), Failure> {
        let (program, mut diagnostics) = self.check();
        let artifact = match &program {
            Some(p) => match dyngc_codegen::generate(p, schedule.resolve(p)) {
                Ok(a) => {
                    diagnostics.extend(a.warnings.iter().cloned());
                    Some(a)
                }
                Err(ds) => {
                    diagnostics.extend(ds);
                    None
                }
            },
            None => None,
        };
        ctx.report(&self.display, &self.text, &diagnostics, verb);
        match (program, artifact) {
            (Some(p), Some(a)) => Ok((p, a)),
            _ => Err(Failure::reported()),
        }
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
