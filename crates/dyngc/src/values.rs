//! Command-line values: `NAME=VALUE` pairs, parameter values by scalar kind, arena sizes.

use dyngc_artifact::{Manifest, ScalarKind};

/// Splits `NAME=VALUE` (at the first `=`).
pub fn split_pair<'a>(text: &'a str, what: &str) -> Result<(&'a str, &'a str), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim(), value)),
        _ => Err(format!(
            "`{text}` is not a {what} (expected NAME={})",
            if what == "parameter" { "VALUE" } else { "PATH" }
        )),
    }
}

fn scalar_name(s: ScalarKind) -> &'static str {
    match s {
        ScalarKind::U32 => "u32",
        ScalarKind::I32 => "i32",
        ScalarKind::F32 => "f32",
    }
}

/// A parameter value's 32-bit pattern: `u32` and `i32` in decimal or `0x` hex (a WGSL `u`/`i`
/// suffix is allowed), `f32` as a decimal float or its bit pattern in `0x` hex.
pub fn parse_param(name: &str, text: &str, scalar: ScalarKind) -> Result<u32, String> {
    let t = text.trim().replace('_', "");
    let bad = |expected: &str| {
        format!(
            "invalid value `{text}` for parameter `{name}` ({}): expected {expected}",
            scalar_name(scalar)
        )
    };
    let hex = |s: &str| {
        s.strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .map(|h| u32::from_str_radix(h, 16))
    };
    match scalar {
        ScalarKind::U32 => {
            let s = t.strip_suffix('u').unwrap_or(&t);
            match hex(s) {
                Some(v) => v.map_err(|_| bad("a u32 in 0x0..=0xFFFFFFFF")),
                None => s
                    .parse::<u32>()
                    .map_err(|_| bad("an integer in 0..=4294967295 (decimal or 0x hex)")),
            }
        }
        ScalarKind::I32 => {
            let s = t.strip_suffix('i').unwrap_or(&t);
            let (neg, body) = match s.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, s),
            };
            let expected = "an integer in -2147483648..=2147483647 (decimal, or 0x hex for the bit pattern)";
            match hex(body) {
                Some(Ok(bits)) if !neg => Ok(bits),
                Some(Ok(bits)) if bits <= 0x8000_0000 => Ok((bits as i64).wrapping_neg() as i32 as u32),
                Some(_) => Err(bad(expected)),
                None => s.parse::<i32>().map(|v| v as u32).map_err(|_| bad(expected)),
            }
        }
        ScalarKind::F32 => {
            if let Some(v) = hex(&t) {
                return v.map_err(|_| bad("a float, or its bit pattern in 0x hex"));
            }
            let s = t.strip_suffix('f').unwrap_or(&t);
            // Rust also reads `infinity`, `nan` and rounds `1e39` to infinity; a finite value
            // is what was meant, and the others stay reachable as bit patterns.
            s.parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .map(f32::to_bits)
                .ok_or_else(|| {
                    bad("a finite float such as 1.5, -2 or 1e-3 within ±3.4e38 (or its bit pattern in 0x hex, also for infinities and NaN)")
                })
        }
    }
}

/// `--arena`: `min` (the manifest's smallest arena) or a size with an optional unit.
pub fn parse_arena(text: &str, manifest: &Manifest) -> Result<u64, String> {
    if text.trim().eq_ignore_ascii_case("min") {
        return Ok(manifest.executor.arena.min_bytes);
    }
    dyngc_runtime::parse_size(text).map_err(|e| format!("invalid --arena: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params() {
        assert_eq!(parse_param("p", "42", ScalarKind::U32), Ok(42));
        assert_eq!(parse_param("p", "0xFFFFFFFF", ScalarKind::U32), Ok(u32::MAX));
        assert_eq!(parse_param("p", "7u", ScalarKind::U32), Ok(7));
        assert_eq!(parse_param("p", "1_000", ScalarKind::U32), Ok(1000));
        assert!(parse_param("seed", "-1", ScalarKind::U32)
            .unwrap_err()
            .contains("parameter `seed` (u32)"));
        assert!(parse_param("p", "4294967296", ScalarKind::U32).is_err());
        assert!(parse_param("p", "abc", ScalarKind::U32).is_err());
        assert_eq!(parse_param("p", "-1", ScalarKind::I32), Ok(u32::MAX));
        assert_eq!(parse_param("p", "-3i", ScalarKind::I32), Ok(-3i32 as u32));
        assert_eq!(parse_param("p", "0x80000000", ScalarKind::I32), Ok(0x8000_0000));
        assert_eq!(parse_param("p", "-0x10", ScalarKind::I32), Ok(-16i32 as u32));
        assert!(parse_param("p", "2147483648", ScalarKind::I32).is_err());
        assert_eq!(parse_param("p", "1.5", ScalarKind::F32), Ok(1.5f32.to_bits()));
        assert_eq!(parse_param("p", "-2", ScalarKind::F32), Ok((-2f32).to_bits()));
        assert_eq!(parse_param("p", "0x3f800000", ScalarKind::F32), Ok(1f32.to_bits()));
        assert!(parse_param("p", "one", ScalarKind::F32).is_err());
        for t in ["inf", "infinity", "-Infinity", "nan", "1e39", "-1e39"] {
            assert!(parse_param("p", t, ScalarKind::F32).is_err(), "{t}");
        }
        assert_eq!(parse_param("p", "3.4e38", ScalarKind::F32), Ok(3.4e38f32.to_bits()));
        assert_eq!(
            parse_param("p", "0x7f800000", ScalarKind::F32),
            Ok(f32::INFINITY.to_bits())
        );
    }

    #[test]
    fn pairs() {
        assert_eq!(split_pair("a=b=c", "parameter"), Ok(("a", "b=c")));
        assert!(split_pair("=3", "parameter").is_err());
        assert!(split_pair("x.npy", "input").unwrap_err().contains("NAME=PATH"));
    }
}
