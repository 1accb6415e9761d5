//! Identifiers and calls in body text, found with the syntax crate's lexer (comments are
//! skipped, so a commented-out `workgroupBarrier()` is not a call).

use dyngc_syntax::ast::Span;
use dyngc_syntax::tokens;

/// Identifiers (and keywords) in `src[span]`, with their spans.
pub(super) fn idents<'s>(src: &'s str, span: &Span) -> Vec<(&'s str, Span)> {
    tokens(src, span)
        .into_iter()
        .filter(|t| t.word)
        .map(|t| (&src[t.span.clone()], t.span))
        .collect()
}

/// Identifiers immediately followed by `(` (comments and whitespace between are allowed).
pub(super) fn calls<'s>(src: &'s str, span: &Span) -> Vec<(&'s str, Span)> {
    let toks = tokens(src, span);
    toks.windows(2)
        .filter(|w| w[0].word && &src[w[1].span.clone()] == "(")
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
