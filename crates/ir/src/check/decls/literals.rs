//! Literals against scalar types: the parser read their values, this checks that they fit.

use super::*;
use ast::{FloatSuffix, IntSuffix, LiteralValue};

/// Checks a literal against a scalar type and returns its value, or why it does not fit.
pub(super) fn literal_for(lit: &ast::Literal, ty: Scalar) -> Result<crate::Literal, String> {
    let t = lit.text.as_str();
    let not = with_article(ty.wgsl());
    let sign = |negative: bool, v: f64| if negative { -v } else { v };
    match (ty, lit.value) {
        (_, LiteralValue::Bool(_)) => Err(format!("`{t}` is a `bool`, not {not}")),
        // Reported by the parser; only a caller that checks a file with syntax errors gets here.
        (_, LiteralValue::Invalid) => Err(format!("`{t}` is not a number literal")),
        (
            Scalar::U32,
            LiteralValue::Int {
                negative,
                magnitude: v,
                suffix: None | Some(IntSuffix::U),
            },
        ) => {
            if negative && v != 0 {
                Err(format!("`{t}` is negative; `u32` has no negative values"))
            } else if v > u64::from(u32::MAX) {
                Err(format!("`{t}` is larger than the largest `u32`, 4294967295"))
            } else {
                Ok(crate::Literal {
                    scalar: ty,
                    bits: v as u32,
                })
            }
        }
        (
            Scalar::I32,
            LiteralValue::Int {
                negative,
                magnitude,
                suffix: None | Some(IntSuffix::I),
            },
        ) => {
            let v = i64::try_from(magnitude).unwrap_or(i64::MAX);
            let v = if negative { -v } else { v };
            match i32::try_from(v) {
                Ok(v) => Ok(crate::Literal {
                    scalar: ty,
                    bits: v as u32,
                }),
                Err(_) => Err(format!("`{t}` does not fit in an `i32`")),
            }
        }
        (
            Scalar::F32,
            LiteralValue::Int {
                negative,
                magnitude,
                suffix: None,
            },
        ) => f32_bits(sign(negative, magnitude as f64), t),
        (
            Scalar::F32,
            LiteralValue::Float {
                negative,
                magnitude,
                suffix: None | Some(FloatSuffix::F),
            },
        ) => f32_bits(sign(negative, magnitude), t),
        (_, LiteralValue::Int { suffix: Some(s), .. }) => {
            let name = if s == IntSuffix::U { "u32" } else { "i32" };
            Err(format!("`{t}` is {} literal, not {not}", with_article(name)))
        }
        (
            _,
            LiteralValue::Float {
                suffix: Some(FloatSuffix::H),
                ..
            },
        ) => Err(format!("`{t}` is an `f16` literal, not {not}")),
        (_, LiteralValue::Float { .. }) => Err(format!("`{t}` is a float, not {not}")),
    }
}

fn f32_bits(v: f64, t: &str) -> Result<crate::Literal, String> {
    let f = v as f32;
    if !f.is_finite() {
        return Err(format!("`{t}` is too large for an `f32`"));
    }
    Ok(crate::Literal {
        scalar: Scalar::F32,
        bits: f.to_bits(),
    })
}
