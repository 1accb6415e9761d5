//! Compiles `.dyn` programs from a `build.rs`, so that an engine embeds the artifact and refers
//! to its bindings and parameters by typed names instead of strings.
//!
//! ```no_run
//! // in build.rs's `main`
//! dyngc_build::compile("graphs/tree.dyn");
//! ```
//!
//! writes `tree.wgsl`, `tree.manifest.json` and `tree.rs` into `OUT_DIR`, and tells cargo to
//! rerun when `graphs/tree.dyn` changes. The crate then includes the module:
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/tree.rs"));
//!
//! let manifest = dyngc_runtime::Manifest::from_json(tree::MANIFEST)?;
//! let executor = dyngc_runtime::Executor::new(&gpu.device, &manifest, tree::WGSL)?;
//! let mut setup = dyngc_runtime::RunSetup::default();
//! setup.params = tree::Params { seed: 7, max_depth: 12, max_children: 4 }.bits();
//! // ... and reads back `tree::bindings::PER_DEPTH`, counts `tree::stages::NODE`'s units.
//! ```
//!
//! Diagnostics become cargo errors (`cargo::error=FILE:LINE:COL: CODE: MESSAGE`, one per
//! error) and warnings, and the build script fails with the diagnostics rendered in full on its
//! stderr. [`Build`] chooses the schedule, the files to write and, outside cargo, the
//! directories.
//!
//! The generated module (`Emit::Module`) holds `WGSL` and `MANIFEST` (the text of the files
//! written beside it, when they are), `bindings` (one `&str` constant per input, output, buffer
//! and stream, named in upper case), `stages` (the same for stages, as unit counts are keyed)
//! and `Params`, one typed field per parameter, whose `bits()` are what `dyngc-runtime`'s
//! `RunSetup::params` holds. A name that is a Rust keyword becomes a raw identifier
//! (`r#type`); one that cannot (`self`, `super`, `crate`, `_`), or two that collide in upper
//! case, is an error naming the declaration to rename.

mod module;

pub use dyngc_compiler::{Options, ScheduleChoice, DEFAULT_LANES, LANE_CHOICES};

use dyngc_compiler::render;
use std::fmt;
use std::path::{Path, PathBuf};

/// A file [`Build`] writes into the output directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `NAME.wgsl`: the WGSL module.
    Wgsl,
    /// `NAME.manifest.json`: the manifest.
    Manifest,
    /// `NAME.rs`: the Rust module of typed names (its shape is in the crate docs).
    Module,
}

/// One `.dyn` program to compile, with its options. [`compile`] is `Build::new(path).compile()`.
#[derive(Clone, Debug)]
pub struct Build {
    path: PathBuf,
    schedule: ScheduleChoice,
    lanes: u32,
    emit: Vec<Emit>,
    manifest_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
}

/// What a build wrote: the program's name and the files, in [`Emit`] order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// The program's name: the file stem (the manifest's `name`, the files' names).
    pub name: String,
    pub files: Vec<(Emit, PathBuf)>,
    /// Warnings, one line each (`FILE:LINE:COL: CODE: MESSAGE`), as cargo was told them.
    pub warnings: Vec<String>,
}

/// Why a build failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The program has errors: one line per diagnostic (`FILE:LINE:COL: CODE: MESSAGE`) and
    /// every diagnostic rendered with its source excerpt and hint.
    Diagnostics { lines: Vec<String>, rendered: String },
    /// A file could not be read or written, a directory is unknown, or a name is no Rust
    /// identifier.
    Other(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Diagnostics { rendered, lines } => {
                write!(f, "{rendered}")?;
                let n = lines.len();
                write!(f, "the .dyn program has {n} error{}", if n == 1 { "" } else { "s" })
            }
            Error::Other(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Compiles `path` (relative to `CARGO_MANIFEST_DIR`) into `OUT_DIR` with the default options;
/// on errors, reports them to cargo and ends the build script. See [`Build::compile`].
pub fn compile(path: impl Into<PathBuf>) -> Output {
    Build::new(path).compile()
}

impl Build {
    /// `path` is relative to the package (`CARGO_MANIFEST_DIR`), or absolute. By default the
    /// schedule is [`ScheduleChoice::Auto`], a worker has [`DEFAULT_LANES`] lanes and every
    /// [`Emit`] file is written.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Build {
            path: path.into(),
            schedule: ScheduleChoice::Auto,
            lanes: DEFAULT_LANES,
            emit: vec![Emit::Wgsl, Emit::Manifest, Emit::Module],
            manifest_dir: None,
            out_dir: None,
        }
    }

    pub fn schedule(&mut self, schedule: ScheduleChoice) -> &mut Self {
        self.schedule = schedule;
        self
    }

    /// Lanes per worker (`dyngc build --lanes`): one of [`LANE_CHOICES`]; more than
    /// [`DEFAULT_LANES`] only for a program without `@width` stages and `var<workgroup>` items.
    pub fn lanes(&mut self, lanes: u32) -> &mut Self {
        self.lanes = lanes;
        self
    }

    /// Which files to write (in any order; each once).
    pub fn emit(&mut self, emit: &[Emit]) -> &mut Self {
        self.emit = [Emit::Wgsl, Emit::Manifest, Emit::Module]
            .into_iter()
            .filter(|e| emit.contains(e))
            .collect();
        self
    }

    /// The directory `path` is relative to, instead of `CARGO_MANIFEST_DIR`.
    pub fn manifest_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Where the files go, instead of `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Compiles and writes the files; on errors, prints `cargo::error=` lines (one per
    /// diagnostic, with file, line, column and code), the rendered diagnostics on stderr, and
    /// exits the build script with status 1, so that cargo fails the build and shows both.
    pub fn compile(&self) -> Output {
        match self.try_compile() {
            Ok(output) => output,
            Err(e) => {
                let lines = match &e {
                    Error::Diagnostics { lines, .. } => lines.clone(),
                    Error::Other(message) => vec![message.clone()],
                };
                for line in lines {
                    println!("cargo::error={line}");
                }
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }

    /// Compiles and writes the files, printing `cargo::rerun-if-changed` for the source (first,
    /// so that fixing a broken file reruns the build script) and `cargo::warning=` for each
    /// warning; errors come back instead of ending the process.
    pub fn try_compile(&self) -> Result<Output, Error> {
        let dir = |given: &Option<PathBuf>, var: &str| match given {
            Some(d) => Ok(d.clone()),
            None => std::env::var_os(var).map(PathBuf::from).ok_or_else(|| {
                Error::Other(format!(
                    "`{var}` is not set: run from a build script, or set it on the Build"
                ))
            }),
        };
        let path = dir(&self.manifest_dir, "CARGO_MANIFEST_DIR")?.join(&self.path);
        let out_dir = dir(&self.out_dir, "OUT_DIR")?;
        println!("cargo::rerun-if-changed={}", path.display());
        let display = self.path.display().to_string();
        let name = program_name(&path)?;
        let source = std::fs::read_to_string(&path).map_err(|e| Error::Other(format!("reading {display}: {e}")))?;
        let compiled = dyngc_compiler::compile(
            &source,
            &name,
            Options {
                schedule: self.schedule,
                lanes: self.lanes,
            },
        );
        let lines = |errors: bool| -> Vec<String> {
            compiled
                .diagnostics
                .iter()
                .filter(|d| d.is_error() == errors)
                .map(|d| {
                    let (line, column) = render::line_column(&source, d.primary.span.start);
                    format!("{display}:{line}:{column}: {}: {}", d.code, d.message)
                })
                .collect()
        };
        let warnings = lines(false);
        for w in &warnings {
            println!("cargo::warning={w}");
        }
        let Some(artifact) = compiled.artifact else {
            return Err(Error::Diagnostics {
                lines: lines(true),
                rendered: render::render(&display, &source, &compiled.diagnostics),
            });
        };
        let mut files = Vec::new();
        for &emit in &self.emit {
            let (file, text) = match emit {
                Emit::Wgsl => (format!("{name}.wgsl"), artifact.wgsl.clone()),
                Emit::Manifest => (format!("{name}.manifest.json"), artifact.manifest.to_json()),
                Emit::Module => (
                    format!("{name}.rs"),
                    module::generate(&artifact.manifest, &display, &self.emit).map_err(Error::Other)?,
                ),
            };
            let target = out_dir.join(file);
            write_if_changed(&target, &text).map_err(|e| Error::Other(format!("writing {}: {e}", target.display())))?;
            files.push((emit, target));
        }
        Ok(Output { name, files, warnings })
    }
}

/// The file stem, as `dyngc build` names the artifact.
fn program_name(path: &Path) -> Result<String, Error> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or_else(|| Error::Other(format!("{}: no file name to name the program by", path.display())))
}

/// Writes `text` unless the file already holds it, so that an unchanged artifact leaves the
/// crates that include it up to date.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    std::fs::write(path, text)
}
