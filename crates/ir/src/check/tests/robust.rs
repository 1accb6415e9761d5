//! `check` must never panic, whatever the tree: spans out of range or out of order, items
//! dropped or repeated, sites moved between stages.

use crate::check;
use dyngc_syntax::ast::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

fn span(r: &mut Rng, s: &mut Span, len: usize) {
    if r.chance(6) {
        let a = r.below(len as u64 + 20) as usize;
        let b = r.below(len as u64 + 20) as usize;
        *s = a..b;
    }
}

fn block(r: &mut Rng, b: &mut Block, len: usize) {
    span(r, &mut b.span, len);
    if r.chance(8) && b.stmts.len() > 1 {
        let i = r.below(b.stmts.len() as u64) as usize;
        let s = b.stmts.remove(i);
        b.stmts.push(s);
    }
    for s in &mut b.stmts {
        stmt(r, s, len);
    }
}

fn spawn(r: &mut Rng, s: &mut Spawn, len: usize) {
    span(r, &mut s.span, len);
    span(r, &mut s.target.span, len);
    if let Some(p) = &mut s.payload {
        span(r, p, len);
    }
    if r.chance(10) {
        s.payload = None;
    }
    if r.chance(10) {
        s.count = Some(s.span.clone());
    }
}

fn stmt(r: &mut Rng, s: &mut Stmt, len: usize) {
    if r.chance(20) {
        *s = Stmt::Block(Block {
            stmts: vec![s.clone(), s.clone()],
            span: s.span(),
        });
    }
    match s {
        Stmt::Spawn(sp) | Stmt::Become(sp) => spawn(r, sp, len),
        Stmt::Emit(e) => {
            span(r, &mut e.span, len);
            if let Some(v) = &mut e.value {
                span(r, v, len);
            }
        }
        Stmt::If {
            cond,
            then,
            else_,
            span: sp,
        } => {
            span(r, cond, len);
            span(r, sp, len);
            block(r, then, len);
            if let Some(e) = else_ {
                stmt(r, e, len);
            }
        }
        Stmt::Loop {
            header,
            trip_count,
            body,
            span: sp,
            ..
        } => {
            span(r, header, len);
            span(r, sp, len);
            if r.chance(4) {
                *trip_count = Some(r.next());
            }
            block(r, body, len);
        }
        Stmt::Switch {
            header,
            clauses,
            span: sp,
        } => {
            span(r, header, len);
            span(r, sp, len);
            for c in clauses {
                block(r, c, len);
            }
        }
        Stmt::Block(b) => block(r, b, len),
        Stmt::Other { span: sp } => span(r, sp, len),
    }
}

fn size(r: &mut Rng, e: &mut SizeExpr, len: usize) {
    match e {
        SizeExpr::Int { value, span: s } => {
            if r.chance(5) {
                *value = r.next();
            }
            span(r, s, len);
        }
        SizeExpr::Len { resource, span: s } => {
            span(r, &mut resource.span, len);
            span(r, s, len);
        }
        SizeExpr::Param(id) => span(r, &mut id.span, len),
        SizeExpr::Binary { lhs, rhs, span: s, .. } => {
            size(r, lhs, len);
            size(r, rhs, len);
            span(r, s, len);
        }
    }
}

fn item(r: &mut Rng, it: &mut Item, len: usize) {
    match it {
        Item::Resource(res) => {
            span(r, &mut res.span, len);
            span(r, &mut res.name.span, len);
            if let ResourceType::Array { len: Some(l), .. } = &mut res.ty {
                size(r, l, len);
            }
        }
        Item::Param(p) => span(r, &mut p.span, len),
        Item::Struct(s) => {
            span(r, &mut s.span, len);
            if r.chance(5) {
                s.fields.clear();
            }
        }
        Item::Wgsl(w) => {
            span(r, &mut w.span, len);
            if let Some(b) = &mut w.body {
                block(r, b, len);
            }
        }
        Item::Stage(s) => {
            span(r, &mut s.span, len);
            span(r, &mut s.name.span, len);
            if r.chance(8) {
                std::mem::swap(&mut s.payload, &mut s.index);
            }
            for a in &mut s.attrs {
                for e in &mut a.args {
                    size(r, e, len);
                }
            }
            block(r, &mut s.body, len);
        }
        Item::Entry(e) => {
            span(r, &mut e.span, len);
            size(r, &mut e.count, len);
            if let Some(u) = &mut e.until {
                block(r, u, len);
            }
        }
    }
}

#[test]
fn never_panics() {
    let loopy = super::BASE.replace(
        "entry root(len(n));",
        "@max_rounds(8) entry loop root(len(n)) until { return atomicLoad(&sums[0]) > 3u; }",
    );
    let sources = [
        super::TRIANGLE,
        super::COLLATZ,
        super::TREE,
        super::BFS,
        super::KEYED,
        super::CYCLE,
        &loopy,
    ];
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for src in sources {
        let file = super::parse(src);
        for round in 0..300 {
            let mut f = file.clone();
            if round % 3 == 0 && !f.items.is_empty() {
                let i = r.below(f.items.len() as u64) as usize;
                if r.chance(2) {
                    f.items.remove(i);
                } else {
                    let it = f.items[i].clone();
                    f.items.push(it);
                }
            }
            for it in &mut f.items {
                item(&mut r, it, src.len());
            }
            let _ = check(&f, src, "fuzz");
            // The same tree against other text (shorter, non-ASCII).
            let _ = check(&f, "é", "fuzz");
            let _ = check(&f, &src[..src.len() / 2], "fuzz");
        }
    }
    let _ = check(&File::default(), "", "empty");
}

#[test]
fn bad_spans_reach_no_copy() {
    let src = super::TREE;
    let mut f = super::parse(src);
    for it in &mut f.items {
        if let Item::Stage(s) = it {
            s.body.span = s.body.span.end..s.body.span.start;
        }
    }
    let c = check(&f, src, "tree");
    assert!(c.program.is_none());
    assert_eq!(c.diagnostics.len(), 1);
    assert_eq!(c.diagnostics[0].code, "DYN0400");
}

#[test]
fn never_panics_on_recovered_trees() {
    // Whatever the parser recovers from damaged text goes through the checker too.
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    for src in [super::TRIANGLE, super::COLLATZ, super::TREE, super::BFS, super::CYCLE] {
        for _ in 0..200 {
            let mut bytes = src.as_bytes().to_vec();
            for _ in 0..1 + r.below(4) {
                let i = r.below(bytes.len() as u64) as usize;
                match r.below(3) {
                    0 => {
                        bytes.remove(i);
                    }
                    1 => bytes.insert(i, b"{}();,<>[]@u0"[r.below(13) as usize]),
                    _ => bytes.truncate(i.max(1)),
                }
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let parsed = dyngc_syntax::parse(&text);
            let _ = check(&parsed.file, &text, "fuzz");
        }
    }
}

/// Checks `src` on a thread with a small stack.
fn check_small_stack(src: String) -> crate::Checked {
    let parsed = dyngc_syntax::parse(&src);
    assert!(parsed.diagnostics.is_empty());
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || check(&parsed.file, &src, "chain"))
        .unwrap()
        .join()
        .expect("no stack overflow")
}

#[test]
fn long_chains_do_not_recurse() {
    // Nothing in the checker may recurse per stage, per struct or per helper.
    let n = 5_000;
    let mut src = String::from("input x: array<u32>;\nstage s0(@index i: u32) { spawn s1(i); }\n");
    for i in 1..n {
        let next = if i + 1 < n {
            // Two spawns: a lone spawn would not nest.
            format!("spawn s{0}(v); spawn s{0}(v);", i + 1)
        } else {
            String::new()
        };
        src.push_str(&format!("stage s{i}(v: u32) {{ {next} }}\n"));
    }
    src.push_str("entry s0(len(x));\n");
    let c = check_small_stack(src);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics.first());
    // s0's one spawn is lone (it nests nothing); each later stage's two nest one level each.
    assert_eq!(c.program.unwrap().max_spawn_depth, n as u32 - 1);

    let mut src = String::from("input x: array<u32>;\nfn g0(v: u32) -> u32 { return v; }\n");
    for i in 1..n {
        src.push_str(&format!("fn g{i}(v: u32) -> u32 {{ return g{}(v) + 1u; }}\n", i - 1));
    }
    src.push_str(&format!(
        "stage s0(@index i: u32) {{ let y = g{}(i); }}\nentry s0(len(x));\n",
        n - 1
    ));
    let c = check_small_stack(src);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics.first());

    let n = 20_000;
    let mut src = String::from("input x: array<u32>;\nstruct S0 { a: u32 }\n");
    for i in 1..n {
        src.push_str(&format!("struct S{i} {{ a: S{} }}\n", i - 1));
    }
    src.push_str("stage s0(@index i: u32) { }\nentry s0(len(x));\n");
    let c = check_small_stack(src);
    let codes: Vec<_> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["DYN0105"]);
}
