//! The whole front end as `dyngc build` runs it (`dyngc_compiler`): parse; check when there is
//! no syntax error; generate (under both schedules, with 64 and 256 lanes) when the check succeeds. None of it may
//! panic, hang or overflow the stack, and every span a diagnostic reports must be usable to
//! slice the source.
#![no_main]

use dyngc_compiler::{Options, ScheduleChoice};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let checked = dyngc_compiler::check(src, "fuzz");
    for d in &checked.diagnostics {
        for l in std::iter::once(&d.primary).chain(&d.secondary) {
            let s = &l.span;
            assert!(s.start <= s.end && src.get(s.clone()).is_some(), "{} span {s:?} not in the source", d.code);
        }
    }
    if checked.program.is_some() {
        for schedule in [ScheduleChoice::Megakernel, ScheduleChoice::Partitioned] {
            for lanes in [64, 256] {
                let _ = dyngc_compiler::generate(&checked, Options { schedule, lanes });
            }
        }
    }
});
