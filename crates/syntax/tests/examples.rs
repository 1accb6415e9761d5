//! Every example in `examples/` parses without diagnostics, to the expected shape.

mod common;

use common::*;
use dyngc_syntax::ast::*;

fn examples_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(examples_dir().join(name)).unwrap()
}

/// Every spawn/become in a block, recursively, as (target, is_become, has_count).
fn sites(b: &Block, out: &mut Vec<(String, bool, bool)>) {
    for s in &b.stmts {
        match s {
            Stmt::Spawn(x) => out.push((x.target.name.clone(), false, x.count.is_some())),
            Stmt::Become(x) => out.push((x.target.name.clone(), true, false)),
            Stmt::Emit(_) => {}
            Stmt::If { then, else_, .. } => {
                sites(then, out);
                if let Some(e) = else_ {
                    sites(
                        &Block {
                            stmts: vec![(**e).clone()],
                            span: 0..0,
                        },
                        out,
                    );
                }
            }
            Stmt::Loop { body, .. } => sites(body, out),
            Stmt::Switch { clauses, .. } => clauses.iter().for_each(|c| sites(c, out)),
            Stmt::Block(b) => sites(b, out),
            Stmt::Other { .. } => {}
        }
    }
}

fn stage_sites(file: &File, name: &str) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    sites(&stage(file, name).body, &mut out);
    out
}

#[test]
fn all_examples_parse_cleanly() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "dyn") {
            let src = std::fs::read_to_string(&path).unwrap();
            let p = parse_checked(&src);
            assert!(p.diagnostics.is_empty(), "{}: {:#?}", path.display(), p.diagnostics);
            assert!(!p.file.items.is_empty(), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 4, "expected the four examples, found {n}");
}

#[test]
fn triangle() {
    let src = read("triangle.dyn");
    let file = parse_ok(&src);
    assert_eq!(file.items.len(), 5);
    assert_eq!(stage_sites(&file, "element"), [("add".to_string(), false, true)]);
    let add = stage(&file, "add");
    assert_eq!(add.payload.as_ref().unwrap().name.name, "i");
    assert_eq!(add.index.as_ref().unwrap().name.name, "k");
    let Some(Item::Entry(e)) = file.items.last() else {
        panic!()
    };
    assert_eq!(e.stage.name, "element");
    assert!(matches!(&e.count, SizeExpr::Len { resource, .. } if resource.name == "n"));
    let Stmt::Spawn(s) = &stage(&file, "element").body.stmts[0] else {
        panic!()
    };
    assert_eq!(text(&src, s.count.as_ref().unwrap()), "n[i]");
}

#[test]
fn collatz() {
    let src = read("collatz.dyn");
    let file = parse_ok(&src);
    let Item::Struct(walk) = &file.items[2] else {
        panic!("{:?}", file.items[2])
    };
    assert_eq!(
        walk.fields.iter().map(|f| f.name.name.as_str()).collect::<Vec<_>>(),
        ["i", "value", "count"]
    );
    assert_eq!(stage_sites(&file, "start"), [("step".to_string(), true, false)]);
    assert_eq!(stage_sites(&file, "step"), [("step".to_string(), true, false)]);
    let step = stage(&file, "step");
    assert!(matches!(&step.body.stmts[0], Stmt::If { .. }));
    let Stmt::Become(b) = step.body.stmts.last().unwrap() else {
        panic!()
    };
    assert_eq!(text(&src, b.payload.as_ref().unwrap()), "Walk(w.i, next, w.count + 1u)");
}

#[test]
fn tree() {
    let src = read("tree.dyn");
    let file = parse_ok(&src);
    let node = stage(&file, "node");
    assert_eq!(node.attrs[0].name.name, "max_depth");
    assert!(matches!(node.attrs[0].args[..], [SizeExpr::Int { value: 24, .. }]));
    assert_eq!(stage_sites(&file, "node"), [("child".to_string(), false, true)]);
    assert_eq!(stage_sites(&file, "child"), [("node".to_string(), false, false)]);
    let pcg = file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Wgsl(w) if w.name.name == "pcg" => Some(w),
            _ => None,
        })
        .unwrap();
    assert_eq!(pcg.kind, WgslItemKind::Fn);
    assert!(text(&src, &pcg.span).starts_with("fn pcg(x: u32) -> u32 {"));
    assert!(text(&src, &pcg.span).ends_with("return (w >> 22u) ^ w;\n}"));
    let Item::Resource(per_depth) = &file.items[3] else {
        panic!()
    };
    assert!(matches!(
        &per_depth.ty,
        ResourceType::Array {
            len: Some(SizeExpr::Int { value: 25, .. }),
            ..
        }
    ));
}

#[test]
fn bfs() {
    let src = read("bfs.dyn");
    let file = parse_ok(&src);
    assert_eq!(file.items.len(), 8);
    let visit = stage(&file, "visit");
    assert_eq!(visit.attrs[0].name.name, "keyed");
    assert_eq!(text(&src, &visit.attrs[0].args[0].span()), "len(row_ptr) - 1");
    assert_eq!(stage_sites(&file, "seed"), [("visit".to_string(), false, false)]);
    assert_eq!(stage_sites(&file, "visit"), [("relax".to_string(), false, true)]);
    assert_eq!(stage_sites(&file, "relax"), [("visit".to_string(), false, false)]);
    let Item::Resource(dist) = &file.items[3] else { panic!() };
    assert_eq!(dist.name.name, "dist");
    assert_eq!(dist.fill.as_ref().unwrap().text, "0xFFFFFFFFu");
}
