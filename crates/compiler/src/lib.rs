//! The dyngc pipeline in one call: [`compile`] parses, checks and generates a `.dyn` program and
//! returns the artifact (when there is no error) with every diagnostic of every phase, in phase
//! order. The rule for when a phase runs lives here and only here: the checker runs only on a
//! file that parsed without errors, the generator only on a program that checked without errors.
//!
//! Pure: text in, values out, no file IO (the CLI and `dyngc-build` read and write the files).
//! [`render`] turns diagnostics into text for people, the same way for every front end.
//!
//! ```
//! let compiled = dyngc_compiler::compile(
//!     "output o: array<u32, 1>; stage s(@index i: u32) { o[i] = 7u; } entry s(1);",
//!     "seven",
//!     dyngc_compiler::ScheduleChoice::Auto,
//! );
//! assert!(compiled.diagnostics.is_empty());
//! assert_eq!(compiled.artifact.unwrap().manifest.name, "seven");
//! ```

pub mod render;

pub use dyngc_codegen::{Artifact, Schedule, DEFAULT_LANES, LANE_CHOICES};
pub use dyngc_ir::{Checked, Executable, Program};
pub use dyngc_syntax::Diagnostic;

/// How stages map to kernels, as a caller chooses it (`dyngc build --schedule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ScheduleChoice {
    /// Partitioned when some stage can be dispatched, else megakernel (the same kernels then).
    #[default]
    Auto,
    /// One persistent kernel runs every stage.
    Megakernel,
    /// Stages on no cycle and upstream of none become dispatches with their own workgroup size
    /// (two levels at most: a dispatched stage that spawns has only spawn-free children).
    Partitioned,
}

impl ScheduleChoice {
    /// The schedule `program` is generated under.
    pub fn resolve(self, program: &Executable) -> Schedule {
        match self {
            ScheduleChoice::Auto => dyngc_codegen::auto_schedule(program),
            ScheduleChoice::Megakernel => Schedule::Megakernel,
            ScheduleChoice::Partitioned => Schedule::Partitioned,
        }
    }
}

impl From<Schedule> for ScheduleChoice {
    fn from(schedule: Schedule) -> Self {
        match schedule {
            Schedule::Megakernel => ScheduleChoice::Megakernel,
            Schedule::Partitioned => ScheduleChoice::Partitioned,
        }
    }
}

/// How [`compile`] generates: the schedule, and the lanes of a worker (`dyngc build --lanes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub schedule: ScheduleChoice,
    /// One of [`LANE_CHOICES`] ([`DEFAULT_LANES`] unless asked); more only for a program
    /// without `@width` stages and `var<workgroup>` items (DYN0504).
    pub lanes: u32,
}

impl Default for Options {
    fn default() -> Self {
        ScheduleChoice::default().into()
    }
}

impl From<ScheduleChoice> for Options {
    fn from(schedule: ScheduleChoice) -> Self {
        Options {
            schedule,
            lanes: DEFAULT_LANES,
        }
    }
}

impl From<Schedule> for Options {
    fn from(schedule: Schedule) -> Self {
        ScheduleChoice::from(schedule).into()
    }
}

/// What [`compile`] returns: the artifact when no phase reported an error, and every
/// diagnostic (errors and warnings) of every phase that ran.
#[derive(Debug)]
pub struct Compiled {
    pub artifact: Option<Artifact>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    /// Whether any diagnostic is an error (then there is no artifact).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses and checks `source`; `name` is the program's name (the artifact's file names). The
/// program is there when no diagnostic is an error; the checker runs only when the parse had
/// no error, so a syntax error is never followed by errors about the half-parsed rest.
pub fn check(source: &str, name: &str) -> Checked {
    let parsed = dyngc_syntax::parse(source);
    let mut diagnostics = parsed.diagnostics;
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Checked {
            program: None,
            diagnostics,
        };
    }
    let checked = dyngc_ir::check(&parsed.file, source, name);
    diagnostics.extend(checked.diagnostics);
    let program = checked
        .program
        .filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    Checked { program, diagnostics }
}

/// Generates a checked program under `options`: the check's diagnostics, then the generator's
/// (its errors, or the artifact's warnings).
pub fn generate(checked: &Checked, options: impl Into<Options>) -> Compiled {
    let Options { schedule, lanes } = options.into();
    let mut diagnostics = checked.diagnostics.clone();
    let artifact = checked.program.as_ref().and_then(|p| {
        match dyngc_codegen::generate(
            p,
            dyngc_codegen::Options {
                schedule: schedule.resolve(p),
                lanes,
            },
        ) {
            Ok(a) => {
                diagnostics.extend(a.warnings.iter().cloned());
                Some(a)
            }
            Err(ds) => {
                diagnostics.extend(ds);
                None
            }
        }
    });
    Compiled { artifact, diagnostics }
}

/// The whole pipeline: [`check`], then [`generate`].
pub fn compile(source: &str, name: &str, options: impl Into<Options>) -> Compiled {
    generate(&check(source, name), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_stops_before_the_checker() {
        // `nope` is unknown too, but only the syntax error is reported.
        let c = compile(
            "stage s(@index i: u32) { spawn nope(i); }\nentry s(1",
            "x",
            ScheduleChoice::Auto,
        );
        assert!(c.artifact.is_none());
        assert!(
            c.diagnostics.iter().all(|d| d.code.starts_with("DYN000")),
            "{:#?}",
            c.diagnostics
        );
        assert!(c.has_errors());
    }

    #[test]
    fn check_errors_come_after_the_parse_and_stop_generation() {
        let c = compile(
            "stage s(@index i: u32) { spawn nope(i); }\nentry s(1);",
            "x",
            ScheduleChoice::Auto,
        );
        assert!(c.artifact.is_none());
        assert!(c.has_errors());
        assert!(
            c.diagnostics.iter().any(|d| d.code == "DYN0100"),
            "{:#?}",
            c.diagnostics
        );
    }

    #[test]
    fn the_schedule_choice_resolves_per_program() {
        let fan_out = "output o: array<atomic<u32>, 1>;\nstage a(@index i: u32) { spawn[4] b(i); }\nstage b(i: u32, @index k: u32) { atomicAdd(&o[0], k); }\nentry a(2);";
        let schedule = |choice| {
            compile(fan_out, "f", choice)
                .artifact
                .map(|a| a.manifest.executor.schedule)
        };
        assert_eq!(schedule(ScheduleChoice::Auto), Some(Schedule::Partitioned));
        assert_eq!(schedule(ScheduleChoice::Megakernel), Some(Schedule::Megakernel));
        assert_eq!(schedule(ScheduleChoice::Partitioned), Some(Schedule::Partitioned));
    }
}
