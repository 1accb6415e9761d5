//! The dyngc command line: `check`, `explain`, `graph`, `build`, `run`, `adapter`. With
//! `dyngc-build` (for build scripts), the only crate that does file IO; the pipeline itself is
//! `dyngc_compiler`'s. Exit status: 0 success, 1 program errors (diagnostics, failed runs), 2 usage or IO
//! errors.

/// `println!` that ignores a closed stdout (`dyngc explain --list | head -1`) instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `eprintln!` that ignores a closed stderr.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod build;
mod check;
mod cli;
mod diag;
mod excerpt;
mod explain;
mod frontend;
mod graph;
mod npy;
mod run;
mod values;
mod watch;

use clap::Parser;
use std::process::ExitCode;

/// A command's failure: its exit status and what to print (`None`: already reported).
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: Option<String>,
}

impl Failure {
    /// Bad usage or an IO problem: exit status 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: Some(message.into()),
        }
    }

    /// The program or the run failed: exit status 1.
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            code: 1,
            message: Some(message.into()),
        }
    }

    /// Diagnostics were already printed: exit status 1.
    pub fn reported() -> Self {
        Failure { code: 1, message: None }
    }
}

pub type CmdResult = Result<(), Failure>;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        errln!("error: internal error: {info}\n  = note: this is a bug in dyngc; please report it with the input that caused it");
    }));
    let args = cli::Cli::parse();
    let ctx = diag::Ctx::new(args.color, args.message_format);
    let result = match args.command {
        cli::Command::Check(a) => check::run(&ctx, a),
        cli::Command::Explain(a) => explain::run(a),
        cli::Command::Graph(a) => graph::run(&ctx, a),
        cli::Command::Build(a) => build::run(&ctx, a),
        cli::Command::Run(a) => run::run(&ctx, a),
        cli::Command::Adapter => run::adapter(&ctx),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if let Some(m) = &f.message {
                ctx.error(m);
            }
            ExitCode::from(f.code)
        }
    }
}
