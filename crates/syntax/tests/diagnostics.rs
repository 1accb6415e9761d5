//! Syntax errors: codes, messages, labels, hints, and recovery (one parse reports every error
//! and keeps the good items).

mod common;

use common::*;
use dyngc_syntax::ast::*;
use dyngc_syntax::codes::*;

fn item_names(file: &File) -> Vec<String> {
    file.items
        .iter()
        .map(|i| match i {
            Item::Resource(r) => r.name.name.clone(),
            Item::Param(p) => p.name.name.clone(),
            Item::Struct(s) => s.name.name.clone(),
            Item::Wgsl(w) => w.name.name.clone(),
            Item::Stage(s) => s.name.name.clone(),
            Item::Entry(e) => format!("entry {}", e.stage.name),
        })
        .collect()
}

#[test]
fn two_broken_items_two_errors_good_items_kept() {
    let src = "input a: array<u32>;\n\
               input b array<u32>;\n\
               param p: u32 = 3u;\n\
               stage s(x u32) { spawn t(x); }\n\
               stage t(x: u32) { let y = x; }\n\
               entry t(1);\n";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001, DYN0001], "{:#?}", p.diagnostics);
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "array");
    assert!(
        p.diagnostics[0].message.contains("expected `:`"),
        "{}",
        p.diagnostics[0].message
    );
    assert!(p.diagnostics[0].primary.message.contains("identifier `array`"));
    assert_eq!(text(src, &p.diagnostics[1].primary.span), "u32");
    // The stage with the broken parameter is kept (without the parameter).
    assert_eq!(item_names(&p.file), ["a", "p", "s", "t", "entry t"]);
    assert!(stage(&p.file, "s").payload.is_none());
}

#[test]
fn errors_in_several_statements_are_all_reported() {
    let src = "stage s() {\n\
               spawn a b;\n\
               let x = 1;\n\
               become[2] c(1);\n\
               if { }\n\
               spawn d(1);\n\
               }\n\
               stage t() { else { } }";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001; 4], "{:#?}", p.diagnostics);
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "b");
    assert_eq!(text(src, &p.diagnostics[1].primary.span), "[2]");
    assert!(p.diagnostics[2].message.contains("condition"));
    assert_eq!(text(src, &p.diagnostics[3].primary.span), "else");
    assert!(p.diagnostics[3].message.contains("statement"));
    let s = stage(&p.file, "s");
    // The good statements survive.
    assert!(s
        .body
        .stmts
        .iter()
        .any(|st| matches!(st, Stmt::Spawn(x) if x.target.name == "d")));
    assert!(s
        .body
        .stmts
        .iter()
        .any(|st| matches!(st, Stmt::Become(x) if x.target.name == "c" && x.count.is_none())));
    stage(&p.file, "t");
}

#[test]
fn missing_semicolon_before_brace() {
    let src = "stage t(x: u32) { let y = x }";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0001]);
    assert_eq!(text(src, &d[0].primary.span), "}");
    assert!(d[0].message.contains("expected `;`"), "{}", d[0].message);
    assert_eq!(d[0].hint.as_deref(), Some("did you forget a `;`?"));
    // A second label points just after the statement.
    assert_eq!(d[0].secondary[0].span, 27..27);
}

#[test]
fn missing_semicolon_at_end_of_line() {
    let src = "stage s() {\n  spawn t(a)\n  x += 1u;\n}\ninput a: array<u32>\nparam n: u32;\n";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001, DYN0001]);
    for d in &p.diagnostics {
        assert_eq!(d.hint.as_deref(), Some("did you forget a `;`?"));
    }
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "x");
    assert_eq!(text(src, &p.diagnostics[1].primary.span), "param");
    // Both the spawn and the statement after it, and both declarations, are kept.
    let s = stage(&p.file, "s");
    assert_eq!(s.body.stmts.len(), 2);
    assert!(matches!(&s.body.stmts[0], Stmt::Spawn(_)));
    assert_eq!(item_names(&p.file), ["s", "a", "n"]);
}

#[test]
fn missing_semicolon_between_wgsl_statements() {
    let src = "stage visit(u: u32) {\n    let begin = row_ptr[u]\n    let end = row_ptr[u + 1u];\n    x = 1\n    spawn t(1);\n    loop { continuing { break if x > 3; } }\n}";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001, DYN0001], "{:#?}", p.diagnostics);
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "let");
    assert_eq!(text(src, &p.diagnostics[1].primary.span), "spawn");
    assert!(p
        .diagnostics
        .iter()
        .all(|d| d.hint.as_deref() == Some("did you forget a `;`?")));
    let s = stage(&p.file, "visit");
    let texts: Vec<String> = s.body.stmts.iter().map(|st| text(src, &st.span())).collect();
    assert_eq!(
        texts[..4],
        [
            "let begin = row_ptr[u]",
            "let end = row_ptr[u + 1u];",
            "x = 1",
            "spawn t(1);"
        ]
    );
    // `break if` is one statement.
    assert!(matches!(&s.body.stmts[4], Stmt::Loop { .. }));
}

#[test]
fn stage_parameter_errors() {
    let src = "stage s(a: u32, b: u32) {}\n\
               stage t(@index a: u32, @index b: u32) {}\n\
               stage u(a: u32, @index b: u32, c: u32) {}\n\
               stage v(@foo a: u32) {}\n\
               stage w(@index(2) a: u32) {}";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001; 5]);
    let d = &p.diagnostics;
    assert!(d[0].message.contains("two payload parameters"), "{}", d[0].message);
    assert_eq!(text(src, &d[0].primary.span), "b: u32");
    assert_eq!(text(src, &d[0].secondary[0].span), "a: u32");
    assert!(d[1].message.contains("two `@index` parameters"), "{}", d[1].message);
    assert_eq!(text(src, &d[1].primary.span), "@index b: u32");
    assert!(d[2].message.contains("at most two"), "{}", d[2].message);
    assert!(d[3].message.contains("`@foo`"), "{}", d[3].message);
    assert!(d[4].message.contains("no arguments"), "{}", d[4].message);
    // The stages are still there.
    assert_eq!(p.file.items.len(), 5);
    let t = stage(&p.file, "t");
    assert_eq!(t.index.as_ref().unwrap().name.name, "a");
}

#[test]
fn spawn_errors() {
    let src = "stage s() { become[4] t(1); spawn[] t(2); let x = spawn t(3); spawn t; }";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0001; 4]);
    assert!(d[0].message.contains("`become` cannot fan out"));
    assert!(d[1].message.contains("empty fan-out count"));
    assert!(d[2].message.contains("`spawn` can only start a statement"));
    assert_eq!(text(src, &d[2].primary.span), "spawn");
    assert!(d[3].message.contains("expected `(`"), "{}", d[3].message);
}

#[test]
fn reserved_words_as_names() {
    let src = "input stage: u32;\nparam spawn: u32;\nstage become() {}\nparam ok: u32;";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001; 3]);
    for d in &p.diagnostics {
        assert!(d.hint.as_deref().unwrap_or("").contains("reserved word"), "{d:#?}");
    }
    assert_eq!(item_names(&p.file), ["ok"]);
}

#[test]
fn struct_errors() {
    let src = "struct A { a: u32; b: vec3<f32>, @align(16) c: u32 }\n\
               @foo struct B { x: u32 }\n\
               struct C { a: array<f32, 4>, b: u32 }\n\
               struct D { a u32, b: u32 }";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001; 5], "{:#?}", p.diagnostics);
    let d = &p.diagnostics;
    assert!(d[0].message.contains("separated by `,`"));
    assert!(d[1].message.contains("attributes on struct fields"));
    assert_eq!(text(src, &d[1].primary.span), "@align(16)");
    assert!(d[2].message.contains("not allowed on `struct`"));
    assert!(d[3].message.contains("expected a type, found integer literal `4`"));
    assert!(d[4].message.contains("expected `:`"));
    // All four structs survive, with their good fields.
    assert_eq!(p.file.items.len(), 4);
    match &p.file.items[3] {
        Item::Struct(s) => assert_eq!(s.fields.iter().map(|f| f.name.name.as_str()).collect::<Vec<_>>(), ["b"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn type_errors_recover() {
    let src = "input a: vec3<f32;\ninput b: array<u32, 4;\ninput c: array<>;\ninput d: vec3<f32 u32>;\nparam e: u32;";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001; 4], "{:#?}", p.diagnostics);
    assert_eq!(item_names(&p.file), ["a", "b", "c", "d", "e"]);
}

#[test]
fn unclosed_delimiters() {
    let src = "stage s() { foo(1;  }";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0002]);
    assert!(d[0].message.contains("unclosed delimiter `(`"));
    assert_eq!(text(src, &d[0].primary.span), "}");
    assert_eq!(d[0].secondary[0].span, 15..16, "the opening delimiter is labelled");

    let src = "stage s() {\n  if (x) {\n    foo();\n";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0002]);
    assert_eq!(d[0].primary.span, src.len()..src.len());
    let opened: Vec<&str> = d[0].secondary.iter().map(|l| &src[l.span.clone()]).collect();
    assert_eq!(opened, ["{", "{"]);
    assert_eq!(d[0].secondary[1].span, 10..11);
}

#[test]
fn stray_closing_delimiters() {
    let src = "stage s() { } }\ninput a: u32;";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001]);
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "}");
    assert!(p.diagnostics[0].message.contains("unexpected closing delimiter"));
    assert_eq!(p.file.items.len(), 2);

    let src = "stage s() { bar(]; }";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0001, DYN0002]);
    assert_eq!(d[0].hint.as_deref(), Some("did you mean `)`?"));
}

#[test]
fn unterminated_block_comment() {
    let src = "input a: u32;\n/* start /* nested */ never closed";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0002]);
    let d = &p.diagnostics[0];
    assert!(d.message.contains("unterminated block comment"));
    assert_eq!(d.primary.span, src.len()..src.len());
    assert_eq!(text(src, &d.secondary[0].span), "/*");
    assert_eq!(d.secondary[0].span.start, 14);
    assert_eq!(p.file.items.len(), 1);

    let d = parse_err("/* a /* b */ c");
    assert!(d[0].notes.iter().any(|n| n.contains("nest")), "{d:#?}");
}

#[test]
fn invalid_characters() {
    let src = "input $x: u32;  #\nparam n: u32 = 1u; `";
    let p = parse_checked(src);
    assert_eq!(
        codes(&p.diagnostics),
        [DYN0003, DYN0003, DYN0003],
        "{:#?}",
        p.diagnostics
    );
    assert_eq!(text(src, &p.diagnostics[0].primary.span), "$");
    assert_eq!(text(src, &p.diagnostics[1].primary.span), "#");
    assert!(p.diagnostics[1].hint.as_deref().unwrap().contains("//"));
    // Invalid characters are dropped; the items around them parse.
    assert!(p.file.items.len() >= 2);

    // A run of invalid characters is one diagnostic.
    let d = parse_err("param n: u32; ¤¤¤");
    assert_eq!(codes(&d), [DYN0003]);
    assert!(d[0].message.contains("3 invalid characters"));
}

#[test]
fn invalid_literals() {
    let src = "entry a(123456789012345678901234567890);\n\
               entry b(0xFFFFFFFFFFFFFFFFF);\n\
               entry c(-3);\n\
               entry d(1.5);\n\
               entry e(012);\n\
               entry f(1abc);\n\
               entry g(0x);\n\
               entry h(1e);\n\
               param p: f32 = 1e+;\n";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0005; 9], "{:#?}", p.diagnostics);
    let spans: Vec<String> = p.diagnostics.iter().map(|d| text(src, &d.primary.span)).collect();
    assert_eq!(
        spans,
        [
            "123456789012345678901234567890",
            "0xFFFFFFFFFFFFFFFFF",
            "-3",
            "1.5",
            "012",
            "1abc",
            "0x",
            "1e",
            "1e+"
        ]
    );
    assert!(p.diagnostics[0].message.contains("too large"));
    assert_eq!(p.file.items.len(), 9);
}

#[test]
fn wrong_item_starts() {
    let d = parse_err("var<private> x: u32;");
    assert_eq!(codes(&d), [DYN0001]);
    assert!(d[0].message.contains("var<private>"), "{}", d[0].message);
    assert!(!d[0].notes.is_empty());

    let d = parse_err("var x: u32;");
    assert_eq!(codes(&d), [DYN0001]);
    assert!(
        d[0].notes.iter().any(|n| n.contains("var<workgroup>")),
        "{:?}",
        d[0].notes
    );

    let d = parse_err("entry s(1) until { return true; }");
    assert!(d[0].hint.as_deref().unwrap().contains("entry loop"));

    let d = parse_err("entry s();");
    assert!(d[0].message.contains("size expression"));
}

#[test]
fn missing_block_braces_in_switch() {
    let src = "stage s() { switch (y) { case 1: foo(); default: {} } spawn t(1); }";
    let p = parse_checked(src);
    assert_eq!(codes(&p.diagnostics), [DYN0001]);
    assert!(p.diagnostics[0].hint.as_deref().unwrap().contains("{ ... }"));
    let s = stage(&p.file, "s");
    match &s.body.stmts[0] {
        Stmt::Switch { clauses, .. } => assert_eq!(clauses.len(), 1),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&s.body.stmts[1], Stmt::Spawn(_)));
}

#[test]
fn expected_found_messages_name_both_sides() {
    let src = "stage s { }";
    let d = parse_err(src);
    assert_eq!(d[0].code, DYN0001);
    assert!(d[0].message.starts_with("expected "), "{}", d[0].message);
    assert!(d[0].message.contains("found `{`"), "{}", d[0].message);
    assert_eq!(d[0].primary.message, "unexpected `{`");

    let src = "param x: u32 =";
    let d = parse_err(src);
    assert!(d[0].message.contains("expected literal"), "{}", d[0].message);
    assert!(d[0].message.contains("end of file"), "{}", d[0].message);
    assert_eq!(d[0].primary.span, src.len()..src.len());
}

#[test]
fn diagnostics_are_sorted_by_position() {
    let src = "input a array<u32>; $ stage s() { let x = 1 } entry s(99999999999999999999999);";
    let d = parse_err(src);
    assert_eq!(codes(&d), [DYN0001, DYN0003, DYN0001, DYN0005]);
    assert!(d.windows(2).all(|w| w[0].primary.span.start <= w[1].primary.span.start));
}
