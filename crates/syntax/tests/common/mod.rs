//! Helpers shared by the integration tests.
#![allow(dead_code)]

use dyngc_syntax::ast::*;
use dyngc_syntax::{parse, Diagnostic, Parsed};

/// Parses `src`, checks every span is well formed, and returns the result.
pub fn parse_checked(src: &str) -> Parsed {
    let p = parse(src);
    check_spans(src, &p);
    p
}

/// Parses `src` and asserts there are no diagnostics.
pub fn parse_ok(src: &str) -> File {
    let p = parse_checked(src);
    assert!(
        p.diagnostics.is_empty(),
        "unexpected diagnostics for {src:?}:\n{:#?}",
        p.diagnostics
    );
    p.file
}

/// Parses `src` and returns its diagnostics, asserting there is at least one.
pub fn parse_err(src: &str) -> Vec<Diagnostic> {
    let p = parse_checked(src);
    assert!(
        !p.diagnostics.is_empty(),
        "expected diagnostics for {src:?}, got none; tree: {:#?}",
        p.file
    );
    p.diagnostics
}

pub fn codes(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code).collect()
}

/// The source text a span covers.
pub fn text(src: &str, span: &Span) -> String {
    src[span.clone()].to_string()
}

fn check_span(src: &str, span: &Span, what: &str) {
    assert!(span.start <= span.end, "{what}: inverted span {span:?}");
    assert!(
        span.end <= src.len(),
        "{what}: span {span:?} past the end ({})",
        src.len()
    );
    assert!(
        src.is_char_boundary(span.start) && src.is_char_boundary(span.end),
        "{what}: span {span:?} not on char boundaries"
    );
}

/// Every span in the diagnostics and the tree lies inside the source, on character boundaries,
/// and child spans lie inside their parents.
pub fn check_spans(src: &str, p: &Parsed) {
    for d in &p.diagnostics {
        assert!(!d.message.is_empty());
        assert!(
            d.code.starts_with("DYN000"),
            "syntax diagnostics use DYN0001..DYN0005, got {}",
            d.code
        );
        check_span(src, &d.primary.span, "diagnostic");
        for l in &d.secondary {
            check_span(src, &l.span, "diagnostic label");
        }
    }
    for item in &p.file.items {
        let span = match item {
            Item::Resource(r) => &r.span,
            Item::Param(x) => &x.span,
            Item::Struct(x) => &x.span,
            Item::Wgsl(x) => &x.span,
            Item::Stage(x) => &x.span,
            Item::Entry(x) => &x.span,
        };
        check_span(src, span, "item");
        match item {
            Item::Stage(s) => check_block(src, &s.body, span),
            Item::Wgsl(w) => {
                if let Some(b) = &w.body {
                    check_block(src, b, span)
                }
            }
            Item::Entry(e) => {
                if let Some(b) = &e.until {
                    check_block(src, b, span)
                }
            }
            _ => {}
        }
    }
}

fn inside(src: &str, child: &Span, parent: &Span, what: &str) {
    check_span(src, child, what);
    assert!(
        parent.start <= child.start && child.end <= parent.end,
        "{what}: {child:?} not inside {parent:?}"
    );
}

fn check_block(src: &str, b: &Block, parent: &Span) {
    inside(src, &b.span, parent, "block");
    for s in &b.stmts {
        check_stmt(src, s, &b.span);
    }
}

fn check_stmt(src: &str, s: &Stmt, parent: &Span) {
    let span = s.span();
    inside(src, &span, parent, "statement");
    match s {
        Stmt::Spawn(x) | Stmt::Become(x) => {
            inside(src, &x.target.span, &span, "spawn target");
            if let Some(p) = &x.payload {
                inside(src, p, &span, "payload");
            }
            if let Some(c) = &x.count {
                inside(src, c, &span, "count");
            }
        }
        Stmt::Emit(e) => {
            inside(src, &e.stream.span, &span, "emit stream");
            if let Some(v) = &e.value {
                inside(src, v, &span, "emitted value");
            }
        }
        Stmt::If { cond, then, else_, .. } => {
            inside(src, cond, &span, "cond");
            check_block(src, then, &span);
            if let Some(e) = else_ {
                check_stmt(src, e, &span);
            }
        }
        Stmt::Loop { header, body, .. } => {
            inside(src, header, &span, "header");
            check_block(src, body, &span);
        }
        Stmt::Switch { header, clauses, .. } => {
            inside(src, header, &span, "header");
            for c in clauses {
                check_block(src, c, &span);
            }
        }
        Stmt::Block(b) => check_block(src, b, parent),
        Stmt::Other { .. } => {}
    }
}

/// The single stage named `name`.
pub fn stage<'a>(file: &'a File, name: &str) -> &'a Stage {
    file.items
        .iter()
        .find_map(|i| match i {
            Item::Stage(s) if s.name.name == name => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no stage {name}"))
}

/// The statements of the body of the only stage in `src` (which must parse cleanly).
pub fn body(src: &str) -> Vec<Stmt> {
    let file = parse_ok(src);
    match &file.items[..] {
        [Item::Stage(s)] => s.body.stmts.clone(),
        other => panic!("expected one stage, got {other:#?}"),
    }
}
