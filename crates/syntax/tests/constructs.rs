//! Every construct of the language parses to the expected tree with correct spans.

mod common;

use common::*;
use dyngc_syntax::ast::*;

fn int(v: u64) -> impl Fn(&SizeExpr) -> bool {
    move |e| matches!(e, SizeExpr::Int { value, .. } if *value == v)
}

#[test]
fn empty_and_blank_files() {
    for src in [
        "",
        "   \n\t\r\n",
        "// only a comment",
        "/* block */",
        "/* /* nested */ */\n// x",
        "\u{FEFF}",
    ] {
        let file = parse_ok(src);
        assert!(file.items.is_empty(), "{src:?}");
    }
}

#[test]
fn resources() {
    let src = "input n: array<u32>;\n\
               output sums: array<atomic<u32>, len(n)> = 0u;\n\
               buffer total: atomic<u32>;\n\
               @group(0) @binding(3) output dist: array<atomic<u32>, len(row_ptr) - 1> = 0xFFFFFFFFu;\n\
               buffer v: vec3f = -3i;\n";
    let file = parse_ok(src);
    assert_eq!(file.items.len(), 5);
    let r: Vec<&Resource> = file
        .items
        .iter()
        .map(|i| match i {
            Item::Resource(r) => r,
            other => panic!("{other:?}"),
        })
        .collect();

    assert_eq!(r[0].kind, ResourceKind::Input);
    assert_eq!(r[0].name.name, "n");
    assert_eq!(text(src, &r[0].name.span), "n");
    assert_eq!(text(src, &r[0].span), "input n: array<u32>;");
    match &r[0].ty {
        ResourceType::Array { elem, len: None, span } => {
            assert_eq!(elem.name.name, "u32");
            assert_eq!(text(src, span), "array<u32>");
        }
        other => panic!("{other:?}"),
    }
    assert!(r[0].fill.is_none());

    assert_eq!(r[1].kind, ResourceKind::Output);
    match &r[1].ty {
        ResourceType::Array {
            elem,
            len: Some(SizeExpr::Len { resource, span }),
            ..
        } => {
            assert_eq!(elem.name.name, "atomic");
            assert_eq!(elem.args.len(), 1);
            assert_eq!(elem.args[0].name.name, "u32");
            assert_eq!(text(src, &elem.span), "atomic<u32>");
            assert_eq!(resource.name, "n");
            assert_eq!(text(src, span), "len(n)");
        }
        other => panic!("{other:?}"),
    }
    let fill = r[1].fill.as_ref().unwrap();
    assert_eq!(fill.text, "0u");
    assert_eq!(text(src, &fill.span), "0u");

    assert_eq!(r[2].kind, ResourceKind::Buffer);
    match &r[2].ty {
        ResourceType::Single(t) => {
            assert_eq!(t.name.name, "atomic");
            assert_eq!(text(src, &t.span), "atomic<u32>");
        }
        other => panic!("{other:?}"),
    }

    assert_eq!(r[3].attrs.len(), 2);
    assert_eq!(r[3].attrs[0].name.name, "group");
    assert!(int(0)(&r[3].attrs[0].args[0]));
    assert_eq!(text(src, &r[3].attrs[0].span), "@group(0)");
    assert_eq!(r[3].attrs[1].name.name, "binding");
    assert!(int(3)(&r[3].attrs[1].args[0]));
    assert!(text(src, &r[3].span).starts_with("@group(0) @binding(3) output dist"));
    match &r[3].ty {
        ResourceType::Array {
            len:
                Some(SizeExpr::Binary {
                    op: BinOp::Sub,
                    lhs,
                    rhs,
                    span,
                }),
            ..
        } => {
            assert!(matches!(&**lhs, SizeExpr::Len { resource, .. } if resource.name == "row_ptr"));
            assert!(int(1)(rhs));
            assert_eq!(text(src, span), "len(row_ptr) - 1");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r[3].fill.as_ref().unwrap().text, "0xFFFFFFFFu");

    match &r[4].ty {
        ResourceType::Single(t) => assert_eq!(t.name.name, "vec3f"),
        other => panic!("{other:?}"),
    }
    let fill = r[4].fill.as_ref().unwrap();
    assert_eq!(fill.text, "-3i");
    assert_eq!(text(src, &fill.span), "-3i");
}

#[test]
fn literals() {
    let int = |negative, magnitude, suffix| LiteralValue::Int {
        negative,
        magnitude,
        suffix,
    };
    let float = |negative, magnitude, suffix| LiteralValue::Float {
        negative,
        magnitude,
        suffix,
    };
    for (lit, expected, value) in [
        ("25", "25", int(false, 25, None)),
        ("25u", "25u", int(false, 25, Some(IntSuffix::U))),
        ("-3i", "-3i", int(true, 3, Some(IntSuffix::I))),
        ("- 3i", "-3i", int(true, 3, Some(IntSuffix::I))),
        (
            "0xFFFFFFFFu",
            "0xFFFFFFFFu",
            int(false, 0xFFFF_FFFF, Some(IntSuffix::U)),
        ),
        (
            "18446744073709551615",
            "18446744073709551615",
            int(false, u64::MAX, None),
        ),
        ("1.5", "1.5", float(false, 1.5, None)),
        ("1e-3", "1e-3", float(false, 1e-3, None)),
        ("2.0f", "2.0f", float(false, 2.0, Some(FloatSuffix::F))),
        ("2f", "2f", float(false, 2.0, Some(FloatSuffix::F))),
        ("1h", "1h", float(false, 1.0, Some(FloatSuffix::H))),
        ("-0.5", "-0.5", float(true, 0.5, None)),
        (".5", ".5", float(false, 0.5, None)),
        ("1.", "1.", float(false, 1.0, None)),
        ("0x1.8p3", "0x1.8p3", float(false, 12.0, None)),
        ("0x1p-2f", "0x1p-2f", float(false, 0.25, Some(FloatSuffix::F))),
        ("true", "true", LiteralValue::Bool(true)),
        ("false", "false", LiteralValue::Bool(false)),
    ] {
        let src = format!("param p: f32 = {lit};");
        let file = parse_ok(&src);
        match &file.items[..] {
            [Item::Param(p)] => {
                let d = p.default.as_ref().unwrap();
                assert_eq!(d.text, expected);
                assert_eq!(d.value, value, "{lit}");
                assert_eq!(text(&src, &d.span), lit);
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A well-formed number beyond WGSL's abstract types is a syntax error where it is written; a
/// malformed one is reported once, by the lexer.
#[test]
fn unreadable_literals() {
    for (lit, message, at) in [
        (
            "18446744073709551616",
            "integer literal `18446744073709551616` is too large",
            "18446744073709551616",
        ),
        (
            "-0x10000000000000000u",
            "integer literal `0x10000000000000000u` is too large",
            "0x10000000000000000u",
        ),
        ("1e999", "float literal `1e999` is too large", "1e999"),
        ("0x1p99999f", "float literal `0x1p99999f` is too large", "0x1p99999f"),
        ("012", "decimal literal with a leading zero", "012"),
        ("1e+", "exponent without digits", "1e+"),
    ] {
        let src = format!("param p: f32 = {lit};");
        let ds = parse_err(&src);
        assert_eq!(codes(&ds), ["DYN0005"], "{lit}");
        assert_eq!(ds[0].message, message);
        assert_eq!(text(&src, &ds[0].primary.span), at);
        let file = dyngc_syntax::parse(&src).file;
        match &file.items[..] {
            [Item::Param(p)] => assert_eq!(p.default.as_ref().unwrap().value, LiteralValue::Invalid),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn params() {
    let src = "param seed: u32;\n@foo param max_children: u32 = 4u;";
    let file = parse_ok(src);
    match &file.items[..] {
        [Item::Param(a), Item::Param(b)] => {
            assert_eq!(a.name.name, "seed");
            assert_eq!(a.ty.name.name, "u32");
            assert!(a.default.is_none());
            assert_eq!(text(src, &a.span), "param seed: u32;");
            assert_eq!(b.attrs[0].name.name, "foo");
            assert!(b.attrs[0].args.is_empty());
            assert_eq!(b.default.as_ref().unwrap().text, "4u");
            assert_eq!(text(src, &b.span), "@foo param max_children: u32 = 4u;");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn types() {
    let src = "param a: vec3<f32>; param b: array<atomic<u32>>; param c: mat<vec2<f32>, u32,>; param d: Node;";
    let file = parse_ok(src);
    let tys: Vec<&TypeExpr> = file
        .items
        .iter()
        .map(|i| match i {
            Item::Param(p) => &p.ty,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(text(src, &tys[0].span), "vec3<f32>");
    assert_eq!(tys[0].args[0].name.name, "f32");
    // `>>` closes two lists.
    assert_eq!(text(src, &tys[1].span), "array<atomic<u32>>");
    assert_eq!(text(src, &tys[1].args[0].span), "atomic<u32>");
    assert_eq!(tys[1].args[0].args[0].name.name, "u32");
    assert_eq!(text(src, &tys[2].span), "mat<vec2<f32>, u32,>");
    assert_eq!(tys[2].args.len(), 2);
    assert_eq!(tys[3].name.name, "Node");
    assert!(tys[3].args.is_empty());
}

#[test]
fn size_expressions() {
    let cases = [
        "1 + 2 * 3",
        "10 - 2 - 3",
        "(1 + 2) * 3",
        "n / 2u + len(x)",
        "0x10u",
        "((n))",
    ];
    for case in cases {
        let src = format!("entry s({case});");
        let file = parse_ok(&src);
        let Item::Entry(e) = &file.items[0] else { panic!() };
        // Parentheses around the whole expression are not part of any node.
        let expected = if case == "((n))" { "n" } else { case };
        assert_eq!(text(&src, &e.count.span()), expected, "span of {case}");
        match case {
            "1 + 2 * 3" => match &e.count {
                SizeExpr::Binary {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                    ..
                } => {
                    assert!(int(1)(lhs));
                    match &**rhs {
                        SizeExpr::Binary {
                            op: BinOp::Mul,
                            lhs,
                            rhs,
                            span,
                        } => {
                            assert!(int(2)(lhs) && int(3)(rhs));
                            assert_eq!(text(&src, span), "2 * 3");
                        }
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            },
            "10 - 2 - 3" => match &e.count {
                SizeExpr::Binary {
                    op: BinOp::Sub,
                    lhs,
                    rhs,
                    ..
                } => {
                    assert!(int(3)(rhs));
                    assert!(matches!(&**lhs, SizeExpr::Binary { op: BinOp::Sub, .. }));
                    assert_eq!(text(&src, &lhs.span()), "10 - 2");
                }
                other => panic!("{other:?}"),
            },
            "(1 + 2) * 3" => match &e.count {
                SizeExpr::Binary {
                    op: BinOp::Mul, lhs, ..
                } => {
                    assert!(matches!(&**lhs, SizeExpr::Binary { op: BinOp::Add, .. }));
                    assert_eq!(text(&src, &lhs.span()), "1 + 2");
                }
                other => panic!("{other:?}"),
            },
            "n / 2u + len(x)" => match &e.count {
                SizeExpr::Binary {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                    ..
                } => {
                    match &**lhs {
                        SizeExpr::Binary {
                            op: BinOp::Div,
                            lhs,
                            rhs,
                            ..
                        } => {
                            assert!(matches!(&**lhs, SizeExpr::Param(id) if id.name == "n"));
                            assert!(int(2)(rhs));
                        }
                        other => panic!("{other:?}"),
                    }
                    assert!(matches!(&**rhs, SizeExpr::Len { resource, .. } if resource.name == "x"));
                }
                other => panic!("{other:?}"),
            },
            "0x10u" => assert!(int(16)(&e.count)),
            "((n))" => assert!(matches!(&e.count, SizeExpr::Param(id) if id.name == "n")),
            _ => unreachable!(),
        }
    }
    // The largest u64 fits.
    let file = parse_ok("entry s(18446744073709551615);");
    let Item::Entry(e) = &file.items[0] else { panic!() };
    assert!(int(u64::MAX)(&e.count));
}

#[test]
fn structs() {
    let src = "struct Node {\n    id: u32,\n    depth: u32,\n}\nstruct P { a: vec3<f32>, b: u32 };\nstruct E {}";
    let file = parse_ok(src);
    match &file.items[..] {
        [Item::Struct(a), Item::Struct(b), Item::Struct(e)] => {
            assert_eq!(a.name.name, "Node");
            assert_eq!(a.fields.len(), 2);
            assert_eq!(a.fields[0].name.name, "id");
            assert_eq!(text(src, &a.fields[0].span), "id: u32");
            assert_eq!(a.fields[1].ty.name.name, "u32");
            assert_eq!(text(src, &a.span), "struct Node {\n    id: u32,\n    depth: u32,\n}");
            assert_eq!(b.fields.len(), 2);
            assert_eq!(text(src, &b.fields[0].ty.span), "vec3<f32>");
            assert_eq!(text(src, &b.span), "struct P { a: vec3<f32>, b: u32 };");
            assert!(e.fields.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wgsl_items() {
    let src = "// The u32 PCG hash.\n\
               fn pcg(x: u32) -> u32 {\n    let s = x * 747796405u;\n    return s;\n}\n\
               @must_use fn f(a: array<f32, 4>) -> array<f32, 4> { return a; }\n\
               fn g() { spawn h(1u); }\n\
               const K: u32 = 4u;\nconst L = vec3(1, 2, 3);\n\
               alias V = array<f32, 4>;";
    let file = parse_ok(src);
    let items = wgsl_items_of(&file);
    assert_eq!(items.len(), 6);
    assert_eq!(items[0].kind, WgslItemKind::Fn);
    assert_eq!(items[0].name.name, "pcg");
    assert_eq!(
        text(src, &items[0].span),
        "fn pcg(x: u32) -> u32 {\n    let s = x * 747796405u;\n    return s;\n}"
    );
    let body = items[0].body.as_ref().unwrap();
    assert_eq!(body.stmts.len(), 2);
    assert_eq!(text(src, &body.stmts[1].span()), "return s;");
    assert_eq!(
        text(src, &items[1].span),
        "@must_use fn f(a: array<f32, 4>) -> array<f32, 4> { return a; }"
    );
    // Spawns in helpers are parsed (the checker rejects them).
    assert!(matches!(&items[2].body.as_ref().unwrap().stmts[0], Stmt::Spawn(s) if s.target.name == "h"));
    assert_eq!(items[3].kind, WgslItemKind::Const);
    assert_eq!(items[3].name.name, "K");
    assert!(items[3].body.is_none());
    assert_eq!(text(src, &items[3].span), "const K: u32 = 4u;");
    assert_eq!(text(src, &items[4].span), "const L = vec3(1, 2, 3);");
    assert_eq!(items[5].kind, WgslItemKind::Alias);
    assert_eq!(items[5].name.name, "V");
    assert_eq!(text(src, &items[5].span), "alias V = array<f32, 4>;");
}

/// The file's items, all of which must be WGSL items.
fn wgsl_items_of(file: &File) -> Vec<&WgslItem> {
    file.items
        .iter()
        .map(|i| match i {
            Item::Wgsl(w) => w,
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn workgroup_variables() {
    let src = "var<workgroup> partial: array<u32, 64>;\nvar<workgroup> flag: atomic<u32>;\n";
    let p = parse_checked(src);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let items = wgsl_items_of(&p.file);
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].kind, WgslItemKind::Workgroup);
    assert_eq!(items[0].name.name, "partial");
    assert_eq!(text(src, &items[0].span), "var<workgroup> partial: array<u32, 64>;");
    assert_eq!(items[1].name.name, "flag");
}

#[test]
fn stages() {
    let src = "stage a() { }\n\
               stage b(n: Node) { }\n\
               stage c(@index i: u32) { }\n\
               @max_depth(24) stage d(n: Node, @index j: u32) { }\n\
               @keyed(len(dist) - 1) stage e(@index k: u32, p: P,) { }";
    let file = parse_ok(src);
    let a = stage(&file, "a");
    assert!(a.payload.is_none() && a.index.is_none() && a.attrs.is_empty());
    assert_eq!(text(src, &a.span), "stage a() { }");
    assert_eq!(text(src, &a.body.span), "{ }");
    let b = stage(&file, "b");
    assert_eq!(b.payload.as_ref().unwrap().name.name, "n");
    assert_eq!(b.payload.as_ref().unwrap().ty.name.name, "Node");
    assert_eq!(text(src, &b.payload.as_ref().unwrap().span), "n: Node");
    assert!(b.index.is_none());
    let c = stage(&file, "c");
    assert!(c.payload.is_none());
    assert_eq!(c.index.as_ref().unwrap().name.name, "i");
    assert_eq!(text(src, &c.index.as_ref().unwrap().span), "@index i: u32");
    let d = stage(&file, "d");
    assert_eq!(d.attrs[0].name.name, "max_depth");
    assert!(int(24)(&d.attrs[0].args[0]));
    assert_eq!(d.payload.as_ref().unwrap().name.name, "n");
    assert_eq!(d.index.as_ref().unwrap().name.name, "j");
    assert!(text(src, &d.span).starts_with("@max_depth(24) stage d"));
    let e = stage(&file, "e");
    assert_eq!(e.attrs[0].name.name, "keyed");
    assert_eq!(text(src, &e.attrs[0].args[0].span()), "len(dist) - 1");
    assert_eq!(e.index.as_ref().unwrap().name.name, "k");
    assert_eq!(e.payload.as_ref().unwrap().name.name, "p");
}

#[test]
fn entries() {
    let src = "entry root(len(n));\n\
               @max_rounds(100) entry loop step(len(rank)) until {\n    return done == 0u;\n}\n\
               entry loop other(4) until { return true; };";
    let file = parse_ok(src);
    match &file.items[..] {
        [Item::Entry(a), Item::Entry(b), Item::Entry(c)] => {
            assert_eq!(a.stage.name, "root");
            assert!(matches!(&a.count, SizeExpr::Len { resource, .. } if resource.name == "n"));
            assert!(a.until.is_none());
            assert_eq!(text(src, &a.span), "entry root(len(n));");
            assert_eq!(b.attrs[0].name.name, "max_rounds");
            assert_eq!(b.stage.name, "step");
            let until = b.until.as_ref().unwrap();
            assert_eq!(until.stmts.len(), 1);
            assert_eq!(text(src, &until.stmts[0].span()), "return done == 0u;");
            assert!(text(src, &b.span).starts_with("@max_rounds(100) entry loop step"));
            assert!(text(src, &b.span).ends_with('}'));
            assert!(c.until.is_some());
            assert_eq!(text(src, &c.span), "entry loop other(4) until { return true; };");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn spawn_and_become() {
    let src = "stage s() {\n\
               spawn visit(source);\n\
               spawn[end - begin] relax(Edge(u, row_ptr[u]));\n\
               spawn t();\n\
               spawn t(  a + b  );\n\
               become step(Walk(w.i, next, w.count + 1u));\n\
               spawn [ n[i] ] add(i);\n\
               }";
    let stmts = body(src);
    let sp: Vec<(&Spawn, bool)> = stmts
        .iter()
        .map(|s| match s {
            Stmt::Spawn(x) => (x, false),
            Stmt::Become(x) => (x, true),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sp[0].0.target.name, "visit");
    assert_eq!(text(src, sp[0].0.payload.as_ref().unwrap()), "source");
    assert!(sp[0].0.count.is_none());
    assert_eq!(text(src, &sp[0].0.span), "spawn visit(source);");
    assert_eq!(sp[1].0.target.name, "relax");
    assert_eq!(text(src, sp[1].0.count.as_ref().unwrap()), "end - begin");
    assert_eq!(text(src, sp[1].0.payload.as_ref().unwrap()), "Edge(u, row_ptr[u])");
    assert_eq!(
        text(src, &sp[1].0.span),
        "spawn[end - begin] relax(Edge(u, row_ptr[u]));"
    );
    assert!(sp[2].0.payload.is_none());
    assert_eq!(text(src, sp[3].0.payload.as_ref().unwrap()), "a + b");
    assert!(sp[4].1);
    assert_eq!(sp[4].0.target.name, "step");
    assert!(sp[4].0.count.is_none());
    assert_eq!(
        text(src, sp[4].0.payload.as_ref().unwrap()),
        "Walk(w.i, next, w.count + 1u)"
    );
    assert_eq!(text(src, &sp[4].0.span), "become step(Walk(w.i, next, w.count + 1u));");
    assert_eq!(text(src, sp[5].0.count.as_ref().unwrap()), "n[i]");
}

#[test]
fn if_else_chains() {
    let src = "stage s() {\n\
               if (a) { spawn t(1); }\n\
               if a < b { } else { x = 1; }\n\
               if (a) { } else if b { } else if (c) { spawn t(2); } else { }\n\
               }";
    let stmts = body(src);
    match &stmts[0] {
        Stmt::If {
            cond,
            then,
            else_: None,
            span,
        } => {
            assert_eq!(text(src, cond), "(a)");
            assert!(matches!(&then.stmts[0], Stmt::Spawn(_)));
            assert_eq!(text(src, span), "if (a) { spawn t(1); }");
        }
        other => panic!("{other:?}"),
    }
    match &stmts[1] {
        Stmt::If {
            cond, else_: Some(e), ..
        } => {
            assert_eq!(text(src, cond), "a < b");
            match &**e {
                Stmt::Block(b) => assert_eq!(text(src, &b.span), "{ x = 1; }"),
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    match &stmts[2] {
        Stmt::If {
            cond,
            else_: Some(e1),
            span,
            ..
        } => {
            assert_eq!(text(src, cond), "(a)");
            assert_eq!(
                text(src, span),
                "if (a) { } else if b { } else if (c) { spawn t(2); } else { }"
            );
            match &**e1 {
                Stmt::If {
                    cond,
                    else_: Some(e2),
                    span,
                    ..
                } => {
                    assert_eq!(text(src, cond), "b");
                    assert_eq!(text(src, span), "if b { } else if (c) { spawn t(2); } else { }");
                    match &**e2 {
                        Stmt::If {
                            cond,
                            then,
                            else_: Some(e3),
                            ..
                        } => {
                            assert_eq!(text(src, cond), "(c)");
                            assert!(matches!(&then.stmts[0], Stmt::Spawn(_)));
                            assert!(matches!(&**e3, Stmt::Block(_)));
                        }
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
}

fn for_trip(header: &str) -> Option<u64> {
    let src = format!("stage s() {{ for ({header}) {{ }} }}");
    match &body(&src)[0] {
        Stmt::Loop {
            kind: LoopKind::For,
            header: h,
            trip_count,
            ..
        } => {
            assert_eq!(text(&src, h), header.trim());
            *trip_count
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn constant_trip_counts() {
    assert_eq!(for_trip("var i = 0u; i < 4u; i++"), Some(4));
    assert_eq!(for_trip("var i: u32 = 0u; i < 4u; i++"), Some(4));
    assert_eq!(for_trip("var i: i32 = 2; i < 10; i++"), Some(8));
    assert_eq!(for_trip("let i = 0; i <= 4; i += 1"), Some(5));
    assert_eq!(for_trip("var k = 1u; k <= 1u; k += 1u"), Some(1));
    assert_eq!(for_trip("var i = 0x10u; i < 0x20u; i = i + 1u"), Some(16));
    assert_eq!(for_trip("var i = 0u; i < 0u; i = i + 1"), Some(0));
    assert_eq!(for_trip("var i = 9u; i < 3u; i++"), Some(0));
    assert_eq!(for_trip("var i = 9u; i <= 3u; i++"), Some(0));
    // Not recognised.
    assert_eq!(for_trip("var i = 0u; i < n; i++"), None);
    assert_eq!(for_trip("var i = a; i < 4u; i++"), None);
    assert_eq!(for_trip("var i = 0u; j < 4u; i++"), None);
    assert_eq!(for_trip("var i = 0u; i < 4u; j++"), None);
    assert_eq!(for_trip("var i = 0u; i < 4u; i += 2u"), None);
    assert_eq!(for_trip("var i = 0u; i < 4u; ++i"), None); // WGSL has no prefix `++`
    assert_eq!(for_trip("var i = 0u; i > 4u; i--"), None);
    assert_eq!(for_trip("var i: f32 = 0; i < 4; i++"), None);
    assert_eq!(for_trip("var i = 0u; i < 4u; i = i + 1u + 0u"), None);
    assert_eq!(for_trip(";;"), None);
    assert_eq!(for_trip(""), None);
}

#[test]
fn loops_and_blocks() {
    let src = "stage s() {\n\
               while (x < 3) { x++; }\n\
               while x < 3 { }\n\
               loop { if x { break; } continuing { x++; break if x > 3; } }\n\
               { let z = 1; }\n\
               }";
    let stmts = body(src);
    match &stmts[0] {
        Stmt::Loop {
            kind: LoopKind::While,
            header,
            trip_count: None,
            body,
            span,
        } => {
            assert_eq!(text(src, header), "(x < 3)");
            assert_eq!(body.stmts.len(), 1);
            assert_eq!(text(src, span), "while (x < 3) { x++; }");
        }
        other => panic!("{other:?}"),
    }
    match &stmts[1] {
        Stmt::Loop {
            kind: LoopKind::While,
            header,
            ..
        } => assert_eq!(text(src, header), "x < 3"),
        other => panic!("{other:?}"),
    }
    match &stmts[2] {
        Stmt::Loop {
            kind: LoopKind::Loop,
            header,
            body,
            span,
            ..
        } => {
            assert!(header.is_empty());
            assert_eq!(header.start, span.start + "loop".len());
            assert!(matches!(&body.stmts[0], Stmt::If { .. }));
            match &body.stmts[1] {
                Stmt::Loop {
                    kind: LoopKind::Continuing,
                    header,
                    body,
                    span,
                    ..
                } => {
                    assert!(header.is_empty());
                    assert_eq!(body.stmts.len(), 2);
                    assert_eq!(text(src, &body.stmts[1].span()), "break if x > 3;");
                    assert_eq!(text(src, span), "continuing { x++; break if x > 3; }");
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    match &stmts[3] {
        Stmt::Block(b) => assert_eq!(text(src, &b.span), "{ let z = 1; }"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn switches() {
    let src = "stage s() {\n\
               switch x { case 1, 2: { spawn t(1); } case 3 { } case 4, default: { } default { } }\n\
               switch (y) { default: { a = 1; } }\n\
               }";
    let stmts = body(src);
    match &stmts[0] {
        Stmt::Switch { header, clauses, span } => {
            assert_eq!(text(src, header), "x");
            assert_eq!(clauses.len(), 4);
            assert!(matches!(&clauses[0].stmts[0], Stmt::Spawn(_)));
            assert_eq!(text(src, &clauses[0].span), "{ spawn t(1); }");
            assert!(text(src, span).starts_with("switch x {"));
            assert!(text(src, span).ends_with("default { } }"));
        }
        other => panic!("{other:?}"),
    }
    match &stmts[1] {
        Stmt::Switch { header, clauses, .. } => {
            assert_eq!(text(src, header), "(y)");
            assert_eq!(clauses.len(), 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn other_statements() {
    let src = "stage s() {\n\
               let v = col_idx[row_ptr[u] + k];\n\
               atomicAdd(&sums[i], k + 1u);\n\
               return;\n\
               x += 1u;\n\
               var next = w.value / 2u;\n\
               ;\n\
               @diagnostic(off, derivative_uniformity) if a { }\n\
               const c = input + output;\n\
               }";
    let stmts = body(src);
    let texts: Vec<String> = stmts.iter().map(|s| text(src, &s.span())).collect();
    assert_eq!(
        texts[..6],
        [
            "let v = col_idx[row_ptr[u] + k];",
            "atomicAdd(&sums[i], k + 1u);",
            "return;",
            "x += 1u;",
            "var next = w.value / 2u;",
            ";",
        ]
    );
    assert!(stmts[..6].iter().all(|s| matches!(s, Stmt::Other { .. })));
    assert!(matches!(&stmts[6], Stmt::If { .. }));
    // .dyn keywords other than `spawn` and `become` may appear inside WGSL code.
    assert_eq!(texts[7], "const c = input + output;");
}

#[test]
fn comments_are_skipped() {
    let src = "/* header /* nested */ still comment */\n\
               input a: array<u32>; // trailing\n\
               stage s(/* none */) {\n    // a comment with spawn x(1);\n    spawn t(/* c */ a /* d */);\n}\n";
    let file = parse_ok(src);
    assert_eq!(file.items.len(), 2);
    let s = stage(&file, "s");
    assert_eq!(s.body.stmts.len(), 1);
    match &s.body.stmts[0] {
        Stmt::Spawn(x) => assert_eq!(text(src, x.payload.as_ref().unwrap()), "a"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unicode_identifiers_and_text() {
    let src = "param größe: u32;\nstage s() { let π = 3.14; }";
    let file = parse_ok(src);
    match &file.items[0] {
        Item::Param(p) => {
            assert_eq!(p.name.name, "größe");
            assert_eq!(text(src, &p.name.span), "größe");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn items_in_any_order() {
    let src = "entry s(1);\nstage s(@index i: u32) { t(); }\nfn t() {}\ninput x: array<u32>;\nstruct A { a: u32 }";
    let file = parse_ok(src);
    assert_eq!(file.items.len(), 5);
    assert!(matches!(file.items[0], Item::Entry(_)));
    assert!(matches!(file.items[4], Item::Struct(_)));
}

#[test]
fn emit_statements_and_stream_types() {
    let src = "output v: stream<vec2<f32>>;\nstage s(@index i: u32) {\n    if (i > 0u) { emit v(vec2(f32(i), 0.0)); }\n    emit v();\n}\n";
    let file = parse_ok(src);
    let Item::Resource(r) = &file.items[0] else {
        panic!("expected the resource first: {:#?}", file.items[0]);
    };
    assert!(matches!(&r.ty, ResourceType::Stream { elem, .. } if &src[elem.span.clone()] == "vec2<f32>"));
    let s = stage(&file, "s");
    let Stmt::If { then, .. } = &s.body.stmts[0] else {
        panic!("expected an if: {:#?}", s.body.stmts[0]);
    };
    let Stmt::Emit(e) = &then.stmts[0] else {
        panic!("expected an emit: {:#?}", then.stmts[0]);
    };
    assert_eq!(e.stream.name, "v");
    assert_eq!(&src[e.value.clone().unwrap()], "vec2(f32(i), 0.0)");
    assert!(matches!(&s.body.stmts[1], Stmt::Emit(e) if e.value.is_none()));
}
