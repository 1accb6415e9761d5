//! A small `.dyn` parser for the checker's tests, used until `dyngc_syntax::parse` exists. It
//! assumes well-formed input and panics otherwise.

use crate::check::lex::{tokens, Kind, Token};
use dyngc_syntax::ast::*;

pub fn parse(src: &str) -> File {
    let toks = tokens(src, &(0..src.len()));
    let mut p = P { src, toks, i: 0 };
    let mut items = Vec::new();
    while p.i < p.toks.len() {
        items.push(p.item());
    }
    File { items }
}

struct P<'s> {
    src: &'s str,
    toks: Vec<Token>,
    i: usize,
}

impl<'s> P<'s> {
    fn peek(&self) -> &'s str {
        self.toks.get(self.i).map_or("", |t| &self.src[t.span.clone()])
    }
    fn peek_at(&self, k: usize) -> &'s str {
        self.toks.get(self.i + k).map_or("", |t| &self.src[t.span.clone()])
    }
    fn span(&self) -> Span {
        self.toks.get(self.i).map_or(self.src.len()..self.src.len(), |t| t.span.clone())
    }
    fn prev_end(&self) -> usize {
        self.toks[self.i - 1].span.end
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        self.i += 1;
        t
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.peek() == s {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Span {
        assert_eq!(self.peek(), s, "at {:?}", self.span());
        self.bump().span
    }
    fn ident(&mut self) -> Ident {
        let t = self.bump();
        assert_eq!(t.kind, Kind::Ident, "ident expected at {:?}", t.span);
        Ident { name: self.src[t.span.clone()].to_string(), span: t.span }
    }

    fn attrs(&mut self) -> Vec<Attribute> {
        let mut v = Vec::new();
        while self.peek() == "@" && self.peek_at(1) != "index" {
            let start = self.bump().span.start;
            let name = self.ident();
            let mut args = Vec::new();
            if self.eat("(") {
                while !self.eat(")") {
                    args.push(self.size());
                    self.eat(",");
                }
            }
            v.push(Attribute { name, args, span: start..self.prev_end() });
        }
        v
    }

    fn item(&mut self) -> Item {
        let start = self.span().start;
        let attrs = self.attrs();
        let kw = self.peek();
        match kw {
            "input" | "output" | "buffer" => {
                self.bump();
                let kind = match kw {
                    "input" => ResourceKind::Input,
                    "output" => ResourceKind::Output,
                    _ => ResourceKind::Buffer,
                };
                let name = self.ident();
                self.expect(":");
                let ty = if self.peek() == "array" {
                    let s = self.bump().span.start;
                    self.expect("<");
                    let elem = self.ty();
                    let len = if self.eat(",") { Some(self.size()) } else { None };
                    self.expect(">");
                    ResourceType::Array { elem, len, span: s..self.prev_end() }
                } else {
                    ResourceType::Single(self.ty())
                };
                let fill = if self.eat("=") { Some(self.literal()) } else { None };
                self.expect(";");
                Item::Resource(Resource { attrs, kind, name, ty, fill, span: start..self.prev_end() })
            }
            "param" => {
                self.bump();
                let name = self.ident();
                self.expect(":");
                let ty = self.ty();
                let default = if self.eat("=") { Some(self.literal()) } else { None };
                self.expect(";");
                Item::Param(Param { attrs, name, ty, default, span: start..self.prev_end() })
            }
            "struct" => {
                self.bump();
                let name = self.ident();
                self.expect("{");
                let mut fields = Vec::new();
                while !self.eat("}") {
                    let f = self.ident();
                    self.expect(":");
                    let ty = self.ty();
                    fields.push(Field { span: f.span.start..ty.span.end, name: f, ty });
                    self.eat(",");
                }
                Item::Struct(StructDecl { name, fields, span: start..self.prev_end() })
            }
            "fn" => {
                self.bump();
                let name = self.ident();
                while self.peek() != "{" {
                    self.bump();
                }
                let body = self.block();
                Item::Wgsl(WgslItem { kind: WgslItemKind::Fn, name, body: Some(body), span: start..self.prev_end() })
            }
            "const" | "alias" => {
                self.bump();
                let name = self.ident();
                while !self.eat(";") {
                    self.bump();
                }
                let kind = if kw == "const" { WgslItemKind::Const } else { WgslItemKind::Alias };
                Item::Wgsl(WgslItem { kind, name, body: None, span: start..self.prev_end() })
            }
            "stage" => {
                self.bump();
                let name = self.ident();
                self.expect("(");
                let (mut payload, mut index) = (None, None);
                while !self.eat(")") {
                    let ps = self.span().start;
                    let is_index = self.eat("@");
                    if is_index {
                        self.expect("index");
                    }
                    let pname = self.ident();
                    self.expect(":");
                    let ty = self.ty();
                    let sp = StageParam { name: pname, span: ps..ty.span.end, ty };
                    if is_index {
                        index = Some(sp);
                    } else {
                        payload = Some(sp);
                    }
                    self.eat(",");
                }
                let body = self.block();
                Item::Stage(Stage { attrs, name, payload, index, body, span: start..self.prev_end() })
            }
            "entry" => {
                self.bump();
                let is_loop = self.eat("loop");
                let stage = self.ident();
                self.expect("(");
                let count = self.size();
                self.expect(")");
                let until = if is_loop {
                    self.expect("until");
                    Some(self.block())
                } else {
                    None
                };
                self.eat(";");
                Item::Entry(Entry { attrs, stage, count, until, span: start..self.prev_end() })
            }
            other => panic!("unexpected `{other}` at {:?}", self.span()),
        }
    }

    fn ty(&mut self) -> TypeExpr {
        let name = self.ident();
        let mut args = Vec::new();
        if self.eat("<") {
            while !self.eat(">") {
                args.push(self.ty());
                self.eat(",");
            }
        }
        TypeExpr { span: name.span.start..self.prev_end(), name, args }
    }

    fn literal(&mut self) -> Literal {
        let start = self.span().start;
        if self.peek() == "-" {
            self.bump();
        }
        self.bump();
        Literal { text: self.src[start..self.prev_end()].to_string(), span: start..self.prev_end() }
    }

    fn size(&mut self) -> SizeExpr {
        let mut lhs = self.term();
        while matches!(self.peek(), "+" | "-") {
            let op = if self.bump_text() == "+" { BinOp::Add } else { BinOp::Sub };
            let rhs = self.term();
            let span = lhs.span().start..rhs.span().end;
            lhs = SizeExpr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), span };
        }
        lhs
    }
    fn term(&mut self) -> SizeExpr {
        let mut lhs = self.factor();
        while matches!(self.peek(), "*" | "/") {
            let op = if self.bump_text() == "*" { BinOp::Mul } else { BinOp::Div };
            let rhs = self.factor();
            let span = lhs.span().start..rhs.span().end;
            lhs = SizeExpr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), span };
        }
        lhs
    }
    fn bump_text(&mut self) -> &'s str {
        let t = self.bump();
        &self.src[t.span]
    }
    fn factor(&mut self) -> SizeExpr {
        if self.eat("(") {
            let e = self.size();
            self.expect(")");
            return e;
        }
        let t = self.bump();
        let text = &self.src[t.span.clone()];
        match t.kind {
            Kind::Number => {
                let body = text.trim_end_matches(['u', 'i']);
                let value = match body.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16).unwrap(),
                    None => body.parse().unwrap(),
                };
                SizeExpr::Int { value, span: t.span }
            }
            Kind::Ident if text == "len" => {
                self.expect("(");
                let resource = self.ident();
                self.expect(")");
                SizeExpr::Len { resource, span: t.span.start..self.prev_end() }
            }
            _ => SizeExpr::Param(Ident { name: text.to_string(), span: t.span }),
        }
    }

    fn block(&mut self) -> Block {
        let start = self.expect("{").start;
        let mut stmts = Vec::new();
        while !self.eat("}") {
            stmts.push(self.stmt());
        }
        Block { stmts, span: start..self.prev_end() }
    }

    /// Skips balanced tokens until `stop` at depth 0 (not consumed); returns the span skipped.
    fn until(&mut self, stop: &[&str]) -> Span {
        let start = self.span().start;
        let mut depth = 0i32;
        let mut end = start;
        while self.i < self.toks.len() {
            let t = self.peek();
            if depth == 0 && stop.contains(&t) {
                break;
            }
            match t {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
            end = self.bump().span.end;
        }
        start..end
    }

    fn spawn(&mut self) -> Spawn {
        let start = self.bump().span.start;
        let count = if self.eat("[") {
            let c = self.until(&["]"]);
            self.expect("]");
            Some(c)
        } else {
            None
        };
        let target = self.ident();
        self.expect("(");
        let payload = self.until(&[")"]);
        self.expect(")");
        self.expect(";");
        let payload = if payload.is_empty() { None } else { Some(payload) };
        Spawn { target, payload, count, span: start..self.prev_end() }
    }

    fn stmt(&mut self) -> Stmt {
        let start = self.span().start;
        match self.peek() {
            "spawn" => Stmt::Spawn(self.spawn()),
            "become" => Stmt::Become(self.spawn()),
            "{" => Stmt::Block(self.block()),
            "if" => self.if_stmt(),
            "for" => {
                self.bump();
                let header = self.until(&["{"]);
                let trip_count = self.trip_count(&header);
                let body = self.block();
                Stmt::Loop { kind: LoopKind::For, header, trip_count, body, span: start..self.prev_end() }
            }
            "while" => {
                self.bump();
                let header = self.until(&["{"]);
                let body = self.block();
                Stmt::Loop { kind: LoopKind::While, header, trip_count: None, body, span: start..self.prev_end() }
            }
            "loop" | "continuing" => {
                let kind = if self.peek() == "loop" { LoopKind::Loop } else { LoopKind::Continuing };
                let header = self.bump().span;
                let body = self.block();
                Stmt::Loop { kind, header, trip_count: None, body, span: start..self.prev_end() }
            }
            "switch" => {
                self.bump();
                let header = self.until(&["{"]);
                self.expect("{");
                let mut clauses = Vec::new();
                while !self.eat("}") {
                    self.until(&["{"]);
                    clauses.push(self.block());
                }
                Stmt::Switch { header, clauses, span: start..self.prev_end() }
            }
            _ => {
                self.until(&[";"]);
                self.expect(";");
                Stmt::Other { span: start..self.prev_end() }
            }
        }
    }

    fn if_stmt(&mut self) -> Stmt {
        let start = self.expect("if").start;
        let cond = self.until(&["{"]);
        let then = self.block();
        let else_ = if self.eat("else") {
            Some(Box::new(if self.peek() == "if" { self.if_stmt() } else { Stmt::Block(self.block()) }))
        } else {
            None
        };
        Stmt::If { cond, then, else_, span: start..self.prev_end() }
    }

    /// `(var i = A; i < B; i++)` with integer A, B: B - A.
    fn trip_count(&self, header: &Span) -> Option<u64> {
        let words: Vec<String> = tokens(self.src, header).iter().map(|t| self.src[t.span.clone()].to_string()).collect();
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let num = |s: &str| s.trim_end_matches(['u', 'i']).parse::<u64>().ok();
        match w.as_slice() {
            ["(", "var", i, "=", a, ";", j, "<", b, ";", k, "+", "+", ")"] if i == j && j == k => {
                Some(num(b)?.saturating_sub(num(a)?))
            }
            _ => None,
        }
    }
}
