//! The whole front end as `dyngc build` runs it: parse; check when there is no syntax error;
//! generate (under both schedules) when the check succeeds. None of it may panic, hang or overflow the stack, and every
//! span the checker reports must be usable to slice the source.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let parsed = dyngc_syntax::parse(src);
    if parsed.has_errors() {
        return;
    }
    let checked = dyngc_ir::check(&parsed.file, src, "fuzz");
    for d in &checked.diagnostics {
        for l in std::iter::once(&d.primary).chain(&d.secondary) {
            let s = &l.span;
            assert!(s.start <= s.end && src.get(s.clone()).is_some(), "{} span {s:?} not in the source", d.code);
        }
    }
    if let Some(program) = &checked.program {
        for schedule in [dyngc_codegen::Schedule::Megakernel, dyngc_codegen::Schedule::Partitioned] {
            let _ = dyngc_codegen::generate(program, schedule);
        }
    }
});
