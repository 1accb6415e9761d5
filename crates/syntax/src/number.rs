//! Number literals: the one reader of their text. The lexer finds a number token's end and what
//! is malformed in it with [`scan`]; the parser reads a token's value with [`read`], which scans
//! the token again and converts the parts the scan found.

use crate::ast::{FloatSuffix, IntSuffix};
use crate::lexer::is_ident_continue;
use std::num::IntErrorKind;
use std::ops::Range;

/// A number token as the lexer sees it.
pub(crate) struct Scan {
    /// Where the token ends (its suffix included).
    pub end: usize,
    /// An integer literal (`Tok::Int`), else a float (`Tok::Float`).
    pub is_int: bool,
    /// Why the text is not a WGSL number literal, and a hint.
    pub problem: Option<(String, Option<&'static str>)>,
    hex: bool,
    /// The digits and the point, without `0x`, exponent and suffix.
    mantissa: Range<usize>,
    /// The exponent's sign and digits, after `e` or `p`.
    exponent: Option<Range<usize>>,
    suffix: Range<usize>,
}

/// The value of a number token, without a sign (`-` is a token of its own).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int(u64, Option<IntSuffix>),
    Float(f64, Option<FloatSuffix>),
}

/// Why [`read`] has no value for a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// Not a well-formed literal: the lexer has reported it.
    Malformed,
    /// Well-formed, but an integer beyond 64 bits or a float beyond `f64` (WGSL's abstract types).
    TooLarge,
}

/// Scans the number starting at `start` (a digit, or a `.` before a digit).
pub(crate) fn scan(src: &str, start: usize) -> Scan {
    let bytes = src.as_bytes();
    let peek = |at: usize| bytes.get(at).copied().unwrap_or(0);
    let mut pos = start;
    let mut is_int = true;
    let mut problem: Option<(String, Option<&'static str>)> = None;
    let mut exponent = None;
    // At `e`/`E`/`p`/`P`: the exponent, reporting a missing digit sequence.
    let mut scan_exponent = |pos: &mut usize, problem: &mut Option<_>| {
        *pos += 1;
        let from = *pos;
        if matches!(peek(*pos), b'+' | b'-') {
            *pos += 1;
        }
        if !peek(*pos).is_ascii_digit() {
            *problem = Some((
                "exponent without digits".into(),
                Some("write the exponent as in `1e-3` or `0x1p4`"),
            ));
        }
        while peek(*pos).is_ascii_digit() {
            *pos += 1;
        }
        exponent = Some(from..*pos);
    };
    let hex = peek(pos) == b'0' && matches!(peek(pos + 1), b'x' | b'X');
    let mantissa_start;
    let mantissa_end;
    if hex {
        pos += 2;
        mantissa_start = pos;
        let mut digits = 0;
        while peek(pos).is_ascii_hexdigit() {
            pos += 1;
            digits += 1;
        }
        if peek(pos) == b'.' {
            is_int = false;
            pos += 1;
            while peek(pos).is_ascii_hexdigit() {
                pos += 1;
                digits += 1;
            }
        }
        mantissa_end = pos;
        if matches!(peek(pos), b'p' | b'P') {
            is_int = false;
            scan_exponent(&mut pos, &mut problem);
        }
        if digits == 0 {
            problem = Some((
                "hexadecimal literal without digits".into(),
                Some("write at least one hex digit after `0x`"),
            ));
        }
    } else {
        mantissa_start = pos;
        while peek(pos).is_ascii_digit() {
            pos += 1;
        }
        let int_digits = pos - mantissa_start;
        if peek(pos) == b'.' {
            is_int = false;
            pos += 1;
            while peek(pos).is_ascii_digit() {
                pos += 1;
            }
        }
        mantissa_end = pos;
        if matches!(peek(pos), b'e' | b'E') {
            is_int = false;
            scan_exponent(&mut pos, &mut problem);
        }
        if is_int && int_digits > 1 && bytes[mantissa_start] == b'0' {
            problem = Some((
                "decimal literal with a leading zero".into(),
                Some("WGSL does not allow leading zeros; octal literals do not exist, write the number without them"),
            ));
        }
    }
    // Suffix: every identifier character right after the number.
    let suffix_start = pos;
    while is_ident_continue(peek(pos)) {
        pos += 1;
    }
    let suffix = &src[suffix_start..pos];
    match suffix {
        "" => {}
        "u" | "i" if is_int => {}
        "f" | "h" if !hex => is_int = false,
        "f" | "h" if !is_int => {}
        _ => {
            if problem.is_none() {
                problem = Some((
                    format!("invalid suffix `{suffix}` on a number literal"),
                    Some("integer literals take the suffix `u` or `i`, float literals `f` or `h`"),
                ));
            }
        }
    }
    Scan {
        end: pos,
        is_int,
        problem,
        hex,
        mantissa: mantissa_start..mantissa_end,
        exponent,
        suffix: suffix_start..pos,
    }
}

/// The value of a number token's text.
pub(crate) fn read(text: &str) -> Result<Number, Unreadable> {
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Err(Unreadable::Malformed);
    }
    let s = scan(text, 0);
    if s.problem.is_some() || s.end != text.len() {
        return Err(Unreadable::Malformed);
    }
    let mantissa = &text[s.mantissa.clone()];
    if s.is_int {
        let suffix = match &text[s.suffix.clone()] {
            "u" => Some(IntSuffix::U),
            "i" => Some(IntSuffix::I),
            _ => None,
        };
        return match u64::from_str_radix(mantissa, if s.hex { 16 } else { 10 }) {
            Ok(v) => Ok(Number::Int(v, suffix)),
            Err(e) if *e.kind() == IntErrorKind::PosOverflow => Err(Unreadable::TooLarge),
            Err(_) => Err(Unreadable::Malformed),
        };
    }
    let suffix = match &text[s.suffix.clone()] {
        "f" => Some(FloatSuffix::F),
        "h" => Some(FloatSuffix::H),
        _ => None,
    };
    let v = if s.hex {
        hex_float(mantissa, s.exponent.map(|e| &text[e]))?
    } else {
        text[..s.suffix.start]
            .parse::<f64>()
            .map_err(|_| Unreadable::Malformed)?
    };
    if v.is_finite() {
        Ok(Number::Float(v, suffix))
    } else {
        Err(Unreadable::TooLarge)
    }
}

/// `1.8` and `3` of `0x1.8p3`.
fn hex_float(mantissa: &str, exponent: Option<&str>) -> Result<f64, Unreadable> {
    let exp = match exponent {
        Some(e) => e.parse::<i32>().map_err(|_| Unreadable::TooLarge)?,
        None => 0,
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digit = |c: char| c.to_digit(16).map(f64::from).ok_or(Unreadable::Malformed);
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + digit(c)?;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += digit(c)? * scale;
        scale /= 16.0;
    }
    Ok(v * 2f64.powi(exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_form() {
        use Number::*;
        assert_eq!(read("25"), Ok(Int(25, None)));
        assert_eq!(read("0xFFFFFFFFu"), Ok(Int(0xFFFF_FFFF, Some(IntSuffix::U))));
        assert_eq!(read("3i"), Ok(Int(3, Some(IntSuffix::I))));
        assert_eq!(read("2f"), Ok(Float(2.0, Some(FloatSuffix::F))));
        assert_eq!(read("1.5"), Ok(Float(1.5, None)));
        assert_eq!(read(".5h"), Ok(Float(0.5, Some(FloatSuffix::H))));
        assert_eq!(read("1e3f"), Ok(Float(1000.0, Some(FloatSuffix::F))));
        assert_eq!(read("1.5e-3"), Ok(Float(1.5e-3, None)));
        assert_eq!(read("0x1.8p3"), Ok(Float(12.0, None)));
        assert_eq!(read("0x1p-2f"), Ok(Float(0.25, Some(FloatSuffix::F))));
        assert_eq!(read("0x.8"), Ok(Float(0.5, None)));
    }

    #[test]
    fn out_of_range_and_malformed() {
        assert_eq!(read("18446744073709551615"), Ok(Number::Int(u64::MAX, None)));
        assert_eq!(read("18446744073709551616"), Err(Unreadable::TooLarge));
        assert_eq!(read("0x10000000000000000u"), Err(Unreadable::TooLarge));
        assert_eq!(read("1e999"), Err(Unreadable::TooLarge));
        assert_eq!(read("0x1p99999"), Err(Unreadable::TooLarge));
        assert_eq!(read("0x1p99999999999"), Err(Unreadable::TooLarge));
        for bad in ["0x", "12q", "012", "1e+", "1.5u", "0x1h", "", "-1", "abc", "1 "] {
            assert_eq!(read(bad), Err(Unreadable::Malformed), "{bad}");
        }
    }

    #[test]
    fn scan_stops_at_the_token_end() {
        let s = scan("12u;", 0);
        assert_eq!((s.end, s.is_int, s.problem.is_none()), (3, true, true));
        let s = scan("x = 1.5e3f)", 4);
        assert_eq!((s.end, s.is_int), (10, false));
        assert!(scan("0x", 0).problem.is_some());
    }
}
