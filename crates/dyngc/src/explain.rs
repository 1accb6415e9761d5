//! `dyngc explain CODE`.

use crate::cli::ExplainArgs;
use crate::{CmdResult, Failure};
use dyngc_syntax::codes;

pub fn run(args: ExplainArgs) -> CmdResult {
    if args.list {
        for info in codes::ALL {
            outln!("{}  {}", info.code, info.title);
        }
        return Ok(());
    }
    let code = args.code.unwrap_or_default();
    let info = codes::lookup(&code).ok_or_else(|| {
        Failure::usage(format!(
            "`{code}` is not a dyngc diagnostic code\n  \
             = note: codes look like `DYN0300` (the `DYN` prefix and leading zeros are optional: `dyn300`, `300`)\n  \
             = help: `dyngc explain --list` lists every code"
        ))
    })?;
    let text = info.explanation.trim_end();
    if text.starts_with('#') {
        outln!("{text}");
    } else {
        outln!("# {}: {}\n\n{text}", info.code, info.title);
    }
    Ok(())
}
