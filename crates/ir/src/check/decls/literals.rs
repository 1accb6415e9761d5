//! Literals against scalar types.

use super::*;

/// Checks a literal against a scalar type and returns its value, or why it does not fit.
pub(super) fn literal_for(text: &str, ty: Scalar) -> Result<crate::Literal, String> {
    let t = text.trim();
    if t == "true" || t == "false" {
        return Err(format!("`{t}` is a `bool`, not {}", with_article(ty.wgsl())));
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    let lit = parse_number(body).ok_or_else(|| format!("`{t}` is not a number literal"))?;
    match (ty, lit) {
        (Scalar::U32, Num::Int(v, None | Some('u'))) => {
            if neg && v != 0 {
                Err(format!("`{t}` is negative; `u32` has no negative values"))
            } else if v > u32::MAX as u128 {
                Err(format!("`{t}` is larger than the largest `u32`, 4294967295"))
            } else {
                Ok(crate::Literal {
                    scalar: ty,
                    bits: v as u32,
                })
            }
        }
        (Scalar::I32, Num::Int(v, None | Some('i'))) => {
            let v = i64::try_from(v).unwrap_or(i64::MAX);
            let v = if neg { -v } else { v };
            if v < i32::MIN as i64 || v > i32::MAX as i64 {
                Err(format!("`{t}` does not fit in an `i32`"))
            } else {
                Ok(crate::Literal {
                    scalar: ty,
                    bits: v as i32 as u32,
                })
            }
        }
        (Scalar::F32, Num::Int(v, None)) => float_text(if neg { -(v as f64) } else { v as f64 }, t),
        (Scalar::F32, Num::Float(v, None | Some('f'))) => float_text(if neg { -v } else { v }, t),
        (_, Num::Int(_, Some(s))) => {
            let name = if s == 'u' { "u32" } else { "i32" };
            Err(format!(
                "`{t}` is {} literal, not {}",
                with_article(name),
                with_article(ty.wgsl())
            ))
        }
        (_, Num::Float(_, Some('h'))) => Err(format!("`{t}` is an `f16` literal, not {}", with_article(ty.wgsl()))),
        (_, Num::Float(..)) => Err(format!("`{t}` is a float, not {}", with_article(ty.wgsl()))),
    }
}

fn float_text(v: f64, t: &str) -> Result<crate::Literal, String> {
    let f = v as f32;
    if !f.is_finite() {
        return Err(format!("`{t}` is too large for an `f32`"));
    }
    Ok(crate::Literal {
        scalar: Scalar::F32,
        bits: f.to_bits(),
    })
}

enum Num {
    Int(u128, Option<char>),
    Float(f64, Option<char>),
}

fn parse_number(s: &str) -> Option<Num> {
    if s.is_empty() || !s.is_ascii() {
        return None;
    }
    let (hex, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if hex {
        if digits.contains(['p', 'P', '.']) {
            return parse_hex_float(digits);
        }
        let (digits, suffix) = split_suffix(digits, &['u', 'i']);
        if digits.is_empty() {
            return None;
        }
        return u128::from_str_radix(digits, 16).ok().map(|v| Num::Int(v, suffix));
    }
    if digits.contains(['.', 'e', 'E']) || digits.ends_with(['f', 'h']) {
        let (digits, suffix) = split_suffix(digits, &['f', 'h']);
        if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            return None;
        }
        return digits
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|v| Num::Float(v, suffix));
    }
    let (digits, suffix) = split_suffix(digits, &['u', 'i']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u128>().ok().map(|v| Num::Int(v, suffix))
}

fn split_suffix<'s>(s: &'s str, suffixes: &[char]) -> (&'s str, Option<char>) {
    match s.chars().last() {
        Some(c) if suffixes.contains(&c) => (&s[..s.len() - 1], Some(c)),
        _ => (s, None),
    }
}

/// `1.8p3`, `1p-2f` (after `0x`).
fn parse_hex_float(s: &str) -> Option<Num> {
    let (s, suffix) = split_suffix(s, &['f', 'h']);
    let (mant, exp) = match s.find(['p', 'P']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp);
    v.is_finite().then_some(Num::Float(v, suffix))
}
