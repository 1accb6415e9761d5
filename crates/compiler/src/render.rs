//! Diagnostics as people read them, with codespan-reporting: shared by the CLI (which renders
//! excerpts of large files, in colour) and `dyngc-build` (plain text for a build script).

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Files, SimpleFile};
use codespan_reporting::term::{self, termcolor};
use dyngc_syntax::{Diagnostic, Severity};
use std::ops::Range;

/// A span clamped into the source and onto character boundaries, so rendering never fails.
pub fn clamp(span: &Range<usize>, source: &str) -> Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(source.len());
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = fix(span.start);
    start..fix(span.end.max(span.start)).max(start)
}

/// `error` or `warning`.
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The codespan diagnostic, with label spans already translated (`spans[0]` is the primary's).
pub fn to_codespan(d: &Diagnostic, spans: &[Range<usize>]) -> cs::Diagnostic<()> {
    let severity = match d.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    let mut labels = vec![cs::Label::primary((), spans[0].clone()).with_message(&d.primary.message)];
    labels.extend(
        d.secondary
            .iter()
            .zip(&spans[1..])
            .map(|(l, s)| cs::Label::secondary((), s.clone()).with_message(&l.message)),
    );
    let mut notes: Vec<String> = d.notes.iter().map(|n| format!("note: {n}")).collect();
    if let Some(h) = &d.hint {
        notes.push(format!("help: {h}"));
    }
    cs::Diagnostic::new(severity)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}

/// The labels' spans of `d`, clamped into `source` (the primary's first).
pub fn spans(d: &Diagnostic, source: &str) -> Vec<Range<usize>> {
    std::iter::once(&d.primary)
        .chain(&d.secondary)
        .map(|l| clamp(&l.span, source))
        .collect()
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = clamp(&(offset..offset), source).start;
    match SimpleFile::new("", source).location((), offset) {
        Ok(l) => (l.line_number, l.column_number),
        Err(_) => (1, 1),
    }
}

/// One line: `FILE:LINE:COL: error[CODE]: MESSAGE`, at the primary label.
pub fn headline(d: &Diagnostic, display: &str, source: &str) -> String {
    let (line, column) = line_column(source, d.primary.span.start);
    format!(
        "{display}:{line}:{column}: {}[{}]: {}",
        severity_word(d.severity),
        d.code,
        d.message
    )
}

/// Every diagnostic rendered with its source excerpt, labels, notes and hint, without colour.
pub fn render(display: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let file = SimpleFile::new(display, source);
    let mut out = termcolor::NoColor::new(Vec::new());
    for d in diagnostics {
        let spans = spans(d, source);
        if term::emit_to_write_style(&mut out, &term::Config::default(), &file, &to_codespan(d, &spans)).is_err() {
            return diagnostics
                .iter()
                .map(|d| headline(d, display, source) + "\n")
                .collect();
        }
    }
    String::from_utf8_lossy(&out.into_inner()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_code_and_hint() {
        // Columns count characters: `ü` is two bytes, one column.
        let src = "// ü\nstage s(@index i: u32) { spawn chlid(i); }\n";
        let start = src.find("chlid").unwrap();
        let d = Diagnostic::error("DYN0100", "unknown stage `chlid`", start..start + 5, "not a stage")
            .with_hint("did you mean `child`?");
        assert_eq!(line_column(src, start), (2, 32));
        assert_eq!(line_column(src, 4), (1, 4));
        assert_eq!(
            headline(&d, "g/t.dyn", src),
            "g/t.dyn:2:32: error[DYN0100]: unknown stage `chlid`"
        );
        let text = render("g/t.dyn", src, std::slice::from_ref(&d));
        assert!(text.starts_with("error[DYN0100]: unknown stage `chlid`\n"), "{text}");
        assert!(text.contains("g/t.dyn:2:32"), "{text}");
        assert!(text.contains("help: did you mean `child`?"), "{text}");
    }

    #[test]
    fn spans_outside_the_source_do_not_fail() {
        let src = "héllo";
        assert_eq!(clamp(&(2..100), src), 1..6);
        let (start, end) = (9, 3);
        assert_eq!(clamp(&(start..end), src), 6..6);
        let d = Diagnostic::warning("DYN0302", "w", 50..60, "here");
        let text = render("x.dyn", src, &[d]);
        assert!(text.contains("warning[DYN0302]: w"), "{text}");
    }
}
