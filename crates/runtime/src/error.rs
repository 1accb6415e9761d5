//! What can go wrong between a manifest and a finished run.

use crate::size::format_bytes;
use std::fmt;
use std::time::Duration;

/// Every failure of the runtime. [`Error::is_usage`] tells errors in what the caller supplied
/// (inputs, parameters, arena size) from failures of the device or the program.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    NoAdapter(String),
    #[error("could not open the GPU device: {0}")]
    RequestDevice(String),
    /// The manifest contradicts itself or the WGSL module (a code generator bug or a stale file).
    #[error("invalid manifest: {0}")]
    Manifest(String),
    /// The device does not meet a requirement of the program.
    #[error("{0}")]
    Unsupported(String),
    /// A WebGPU validation or internal error, with what the runtime was doing.
    #[error("GPU error while {during}: {message}")]
    Gpu { during: &'static str, message: String },
    #[error("out of GPU memory while {during}: {message}")]
    OutOfMemory { during: &'static str, message: String },
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    #[error("could not read back `{buffer}`: {message}")]
    Readback { buffer: String, message: String },

    #[error("input `{binding}`: {got} bytes is not a whole number of {element_size}-byte elements (`{wgsl}`)")]
    InputSize {
        binding: String,
        element_size: u32,
        got: u64,
        wgsl: String,
    },
    #[error("input `{name}` was not given (this program's inputs: {})", list(.inputs))]
    MissingInput { name: String, inputs: Vec<String> },
    #[error("`{name}` is not an input of this program ({})", if .inputs.is_empty() { "it has no inputs".to_string() } else { format!("its inputs: {}", list(.inputs)) })]
    UnknownInput { name: String, inputs: Vec<String> },
    #[error("input `{0}` was given twice")]
    DuplicateInput(String),
    #[error("parameter `{0}` has no default and was not given")]
    MissingParam(String),
    #[error("unknown parameter `{name}` ({})", if .known.is_empty() { "this program has no parameters".to_string() } else { format!("known parameters: {}", list(.known)) })]
    UnknownParam { name: String, known: Vec<String> },
    #[error("parameter `{0}` was given twice")]
    DuplicateParam(String),
    #[error("cannot size `{binding}`: {message}")]
    Length { binding: String, message: String },
    /// An entry count or key domain that does not evaluate within `u32`.
    #[error("cannot count {what}: {message}")]
    Count { what: String, message: String },
    #[error("an arena of {} is too small: this program needs at least {} ({minimum} bytes) for one worker and the smallest ring", format_bytes(*.requested), format_bytes(*.minimum))]
    ArenaTooSmall { requested: u64, minimum: u64 },
    #[error("an arena of {} ({requested} bytes) is larger than the device's {what} ({})", format_bytes(*.requested), format_bytes(*.limit))]
    ArenaTooLarge {
        requested: u64,
        limit: u64,
        what: &'static str,
    },
    #[error("`{binding}` needs {} ({bytes} bytes), more than the device's {what} ({})", format_bytes(*.bytes), format_bytes(*.limit))]
    BufferTooLarge {
        binding: String,
        bytes: u64,
        limit: u64,
        what: &'static str,
    },
    #[error("invalid run option: {0}")]
    Option(String),

    /// The run hit the wall-clock `limit` (`None`: the limit on submissions) before finishing.
    #[error("{}", timeout_message(.elapsed, .limit, *.submissions, *.launches))]
    Timeout {
        elapsed: Duration,
        limit: Option<Duration>,
        submissions: u64,
        launches: u64,
    },
    #[error("{0}")]
    Kernel(KernelError),
}

impl Error {
    /// True for errors in what the caller supplied: inputs, parameters, sizes and options.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::InputSize { .. }
                | Error::MissingInput { .. }
                | Error::UnknownInput { .. }
                | Error::DuplicateInput(_)
                | Error::MissingParam(_)
                | Error::UnknownParam { .. }
                | Error::DuplicateParam(_)
                | Error::ArenaTooSmall { .. }
                | Error::ArenaTooLarge { .. }
                | Error::Option(_)
        )
    }
}

fn timeout_message(elapsed: &Duration, limit: &Option<Duration>, submissions: u64, launches: u64) -> String {
    let subs = format!("{submissions} submission{}", if submissions == 1 { "" } else { "s" });
    match limit {
        Some(limit) => format!(
            "the run did not finish within {:.1} s ({subs}, {launches} launches recorded)",
            limit.as_secs_f64()
        ),
        None => format!(
            "the run did not finish within {subs} ({launches} launches recorded, {:.1} s)",
            elapsed.as_secs_f64()
        ),
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    }
}

/// An error the kernel left in the control block: the run stopped because a declared bound was
/// violated (or another condition listed in the manifest's `executor.errors`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KernelError {
    pub code: u32,
    /// From `executor.errors`; `unknown` if the manifest does not list the code.
    pub name: String,
    pub meaning: String,
    pub stage_id: u32,
    /// The stage's name from `manifest.stages`, if the id is known.
    pub stage: Option<String>,
    /// Observed value.
    pub value: u32,
    /// Declared bound.
    pub bound: u32,
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.stage {
            Some(s) => write!(f, "stage `{s}` ")?,
            None => write!(f, "stage #{} ", self.stage_id)?,
        }
        let name = self.name.to_ascii_lowercase();
        if self.meaning.contains("{value}") || self.meaning.contains("{bound}") {
            let text = self
                .meaning
                .replace("{value}", &self.value.to_string())
                .replace("{bound}", &self.bound.to_string());
            write!(f, "{text}")
        } else if name.contains("depth") {
            write!(
                f,
                "exceeded its declared @max_depth({}) (reached {})",
                self.bound, self.value
            )
        } else if name.contains("round") {
            write!(
                f,
                "exceeded its declared @max_rounds({}) (reached {})",
                self.bound, self.value
            )
        } else if name.contains("key") {
            let meaning = self.meaning.trim_end_matches('.');
            write!(
                f,
                "stopped the run: {meaning} (key {}, domain size {})",
                self.value, self.bound
            )
        } else {
            let meaning = self.meaning.trim_end_matches('.');
            write!(
                f,
                "stopped the run: {meaning} (`{}`, value {}, bound {})",
                self.name, self.value, self.bound
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, meaning: &str) -> KernelError {
        KernelError {
            code: 1,
            name: name.into(),
            meaning: meaning.into(),
            stage_id: 1,
            stage: Some("node".into()),
            value: 25,
            bound: 24,
        }
    }

    #[test]
    fn kernel_error_messages() {
        assert_eq!(
            kernel("max_depth_exceeded", "a stage recursed deeper than its @max_depth").to_string(),
            "stage `node` exceeded its declared @max_depth(24) (reached 25)"
        );
        assert_eq!(
            kernel("x", "went over {bound} with {value}").to_string(),
            "stage `node` went over 24 with 25"
        );
        assert_eq!(
            kernel("KEY_DOMAIN", "a keyed spawn's key was outside the stage's declared @keyed domain").to_string(),
            "stage `node` stopped the run: a keyed spawn's key was outside the stage's declared @keyed domain (key 25, domain size 24)"
        );
        assert_eq!(
            kernel("ring_full", "the ring overflowed.").to_string(),
            "stage `node` stopped the run: the ring overflowed (`ring_full`, value 25, bound 24)"
        );
    }

    #[test]
    fn timeout_messages() {
        let e = Error::Timeout {
            elapsed: Duration::from_millis(1300),
            limit: Some(Duration::from_secs(1)),
            submissions: 1,
            launches: 16,
        };
        assert_eq!(
            e.to_string(),
            "the run did not finish within 1.0 s (1 submission, 16 launches recorded)"
        );
        let e = Error::Timeout {
            elapsed: Duration::from_millis(1300),
            limit: None,
            submissions: 2,
            launches: 32,
        };
        assert_eq!(
            e.to_string(),
            "the run did not finish within 2 submissions (32 launches recorded, 1.3 s)"
        );
    }

    #[test]
    fn usage_messages() {
        let e = Error::UnknownParam {
            name: "sed".into(),
            known: vec!["seed".into(), "max_depth".into()],
        };
        assert_eq!(
            e.to_string(),
            "unknown parameter `sed` (known parameters: `seed`, `max_depth`)"
        );
        assert!(e.is_usage());
        let e = Error::ArenaTooSmall {
            requested: 1024,
            minimum: 40960,
        };
        assert_eq!(
            e.to_string(),
            "an arena of 1 KiB is too small: this program needs at least 40 KiB (40960 bytes) for one worker and the smallest ring"
        );
    }
}
