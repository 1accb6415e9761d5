//! `dyngc check FILE...`.

use crate::cli::CheckArgs;
use crate::diag::Ctx;
use crate::frontend::Source;
use crate::{CmdResult, Failure};

pub fn run(ctx: &Ctx, args: CheckArgs) -> CmdResult {
    let mut status = 0u8;
    for path in &args.files {
        match Source::read(path) {
            Ok(src) => {
                let diagnostics = src.check().diagnostics;
                if ctx.report(&src.display, &src.text, &diagnostics, "check") > 0 {
                    status = status.max(1);
                }
            }
            Err(f) => {
                if let Some(m) = &f.message {
                    ctx.error(m);
                }
                status = status.max(f.code);
            }
        }
    }
    match status {
        0 => Ok(()),
        code => Err(Failure { code, message: None }),
    }
}
