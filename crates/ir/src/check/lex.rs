//! A tiny WGSL token scanner, enough to find identifiers and calls in body text (comments are
//! skipped, so a commented-out `workgroupBarrier()` is not a call).

use dyngc_syntax::ast::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Ident,
    Number,
    Punct,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub kind: Kind,
    pub span: Span,
}

/// Tokens of `src[span]`, with absolute spans. An out-of-range span yields nothing.
pub(super) fn tokens(src: &str, span: &Span) -> Vec<Token> {
    let Some(text) = src.get(span.clone()) else {
        return Vec::new();
    };
    let base = span.start;
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 1usize;
            i += 2;
            while i < b.len() && depth > 0 {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            continue;
        }
        let start = i;
        let kind = if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 {
            while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric() || b[i] >= 0x80) {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i += 1;
            while i < b.len() {
                let d = b[i];
                let exponent_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if !(d.is_ascii_alphanumeric() || d == b'_' || d == b'.' || exponent_sign) {
                    break;
                }
                i += 1;
            }
            Kind::Number
        } else {
            i += 1;
            Kind::Punct
        };
        out.push(Token {
            kind,
            span: base + start..base + i,
        });
    }
    out
}

/// Identifiers in `src[span]`, with their spans.
pub(super) fn idents<'s>(src: &'s str, span: &Span) -> Vec<(&'s str, Span)> {
    tokens(src, span)
        .into_iter()
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| (&src[t.span.clone()], t.span))
        .collect()
}

/// Identifiers immediately followed by `(` (comments and whitespace between are allowed).
pub(super) fn calls<'s>(src: &'s str, span: &Span) -> Vec<(&'s str, Span)> {
    let toks = tokens(src, span);
    toks.windows(2)
        .filter(|w| w[0].kind == Kind::Ident && w[1].kind == Kind::Punct && &src[w[1].span.clone()] == "(")
        .map(|w| (&src[w[0].span.clone()], w[0].span.clone()))
        .collect()
}

/// True if `src[span]` contains the identifier `word`.
pub(super) fn has_ident(src: &str, span: &Span, word: &str) -> bool {
    idents(src, span).iter().any(|(name, _)| *name == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_comments_and_numbers() {
        let src = "a /* b /* c */ d */ e // f\n 1e-3f g(0x1Fu) h (";
        let names: Vec<_> = idents(src, &(0..src.len())).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "e", "g", "h"]);
        let calls: Vec<_> = calls(src, &(0..src.len())).into_iter().map(|(n, _)| n).collect();
        assert_eq!(calls, ["g", "h"]);
        assert!(idents(src, &(5..1000)).is_empty());
    }
}
