//! Arbitrary bytes; when they are UTF-8, parse them. The parser must never panic, hang or
//! overflow the stack, and every span it reports must be usable to slice the source (the CLI's
//! renderer does).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        let parsed = dyngc_syntax::parse(src);
        for d in &parsed.diagnostics {
            for l in std::iter::once(&d.primary).chain(&d.secondary) {
                let s = &l.span;
                assert!(s.start <= s.end && src.get(s.clone()).is_some(), "{} span {s:?} not in the source", d.code);
            }
        }
    }
});
