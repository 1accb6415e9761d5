//! The checked stage graph of a `.dyn` program.
//!
//! Entry point: [`check`], from an [`ast::File`] (plus its source text) to an [`Executable`] — a
//! [`Program`], the data the code generator consumes, that only the checker can make — and
//! diagnostics. Pure: no file IO.
//!
//! What a `Program` promises (the invariants code generation relies on):
//! - every name resolves; every spawn site's payload has its target's payload type (naga
//!   validated every body in the context the generator emits, see [`wgsl`]);
//! - every cycle of the stage graph is declared (tail loop with an exit condition, recursion
//!   through a stage with `@max_depth`, or a worklist through a keyed stage);
//! - [`Program::max_spawn_depth`] is finite and bounds how many non-keyed spawns can be nested
//!   along any chain of work (the serial fallback's stack depth), lone spawns ([`Edge::lone`])
//!   counting as `become`s.

use dyngc_syntax::ast::{self, Span};
use dyngc_syntax::Diagnostic;

pub mod wgsl;

mod check;
mod id;

pub use check::body::MAX_EMIT_PER_UNIT;
pub use check::check;
pub use id::{EdgeId, Id, IdVec, ParamId, ResourceId, StageId, StructId};

#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    /// The `.dyn` source; bodies and helpers are spans into it.
    pub source: String,
    pub structs: IdVec<StructId, StructDef>,
    pub resources: IdVec<ResourceId, Resource>,
    pub params: IdVec<ParamId, Param>,
    /// File-scope WGSL items (`fn`, `const`, `alias`, `var<workgroup>`) in source order, copied
    /// verbatim.
    pub helpers: Vec<Span>,
    /// The `var<workgroup>` items among the helpers: (name, declaration).
    pub workgroup_vars: Vec<(String, Span)>,
    pub stages: IdVec<StageId, Stage>,
    /// One edge per `spawn`/`become` site, in source order.
    pub edges: IdVec<EdgeId, Edge>,
    /// The stage graph: node weight = stage (node `i` is stage `i`), edge weight = its site.
    pub graph: petgraph::graph::DiGraph<StageId, EdgeId>,
    pub entry: Entry,
    /// Upper bound on nested non-keyed spawns along any chain of work, counting from any stage;
    /// `become`s and lone spawns ([`Edge::lone`]) do not nest.
    pub max_spawn_depth: u32,
    /// Largest number of frames one work unit can push: non-keyed spawns plus one for `become`.
    pub max_frames_per_unit: u32,
    /// Largest payload, in 32-bit words.
    pub max_payload_words: u32,
}

impl Program {
    /// The stream outputs, in declaration order (stream `j` of the executor is `streams()[j]`).
    pub fn streams(&self) -> Vec<ResourceId> {
        self.resources
            .iter()
            .filter(|(_, r)| r.stream)
            .map(|(id, _)| id)
            .collect()
    }

    /// The most elements one unit of `stage` may emit into resource `stream` (0: none).
    pub fn max_emit(&self, stage: StageId, stream: ResourceId) -> u32 {
        self.stages[stage]
            .max_emits
            .iter()
            .find(|(r, _)| *r == stream)
            .map_or(0, |(_, m)| *m)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `u32`, `i32`, `f32`.
    Scalar(Scalar),
    /// `vecN<T>` (also the `vec3f` spellings), N in 2..=4.
    Vector(u8, Scalar),
    Atomic(Scalar),
    Struct(StructId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    U32,
    I32,
    F32,
}

/// A checked scalar literal (a fill value, a parameter's default): its type and its 32-bit
/// pattern, parsed once by the checker so that nothing downstream reads literal text again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal {
    pub scalar: Scalar,
    pub bits: u32,
}

impl Literal {
    /// The canonical WGSL spelling (`5u`, `-3i`, `1.5f`), which the checker's tests compare.
    #[cfg(test)]
    pub fn wgsl(&self) -> String {
        match self.scalar {
            Scalar::U32 => format!("{}u", self.bits),
            Scalar::I32 => format!("{}i", self.bits as i32),
            Scalar::F32 => format!("{:?}f", f32::from_bits(self.bits)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Resource {
    pub kind: ast::ResourceKind,
    pub name: String,
    pub elem: Ty,
    /// True for `array<T, ..>`, false for a single value or a stream.
    pub is_array: bool,
    /// `stream<T>`: an output of as many elements as the graph emits (no length, no fill).
    pub stream: bool,
    /// Element count rule; `None` for inputs (their length is the data's) and single values.
    pub len: Option<SizeExpr>,
    /// Initial value of every element (`None`: zero).
    pub fill: Option<Literal>,
    pub group: u32,
    pub binding: u32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Scalar,
    pub default: Option<Literal>,
    pub span: Span,
}

/// Integer expression over resource lengths, parameters and constants, evaluated by the host
/// (sizes) and by the device (entry counts, key domains).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Int(u64),
    /// Element count of a resource.
    Len(ResourceId),
    Param(ParamId),
    Binary(ast::BinOp, Box<SizeExpr>, Box<SizeExpr>),
}

impl SizeExpr {
    /// The value of a constant expression (`None` when it uses a parameter or a length), or why
    /// it leaves the `u32` range the kernel computes in. Only the top operation is checked: the
    /// checker builds expressions bottom-up and checks each level as it goes.
    pub fn constant(&self) -> Result<Option<u64>, String> {
        let (op, a, b) = match self {
            SizeExpr::Int(v) => return Ok(Some(*v)),
            SizeExpr::Len(_) | SizeExpr::Param(_) => return Ok(None),
            SizeExpr::Binary(op, a, b) => (op, a, b),
        };
        let (x, y) = (a.constant()?, b.constant()?);
        if *op == ast::BinOp::Div && y == Some(0) {
            return Err("this divides by zero".into());
        }
        let (Some(x), Some(y)) = (x, y) else {
            return Ok(None);
        };
        let v = match op {
            ast::BinOp::Add => Some(x + y),
            ast::BinOp::Sub => x.checked_sub(y),
            ast::BinOp::Mul => x.checked_mul(y),
            ast::BinOp::Div => x.checked_div(y),
        };
        let shown = format!("{x} {} {y}", op.symbol());
        match v {
            Some(v) if v <= u64::from(u32::MAX) => Ok(Some(v)),
            Some(v) => Err(format!("`{shown}` is {v}, which does not fit in 32 bits")),
            None if *op == ast::BinOp::Div => Err(format!("`{shown}` divides by zero")),
            None => Err(format!("`{shown}` is negative")),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Stage {
    pub name: String,
    pub payload: Option<(String, Ty)>,
    /// Name of the `@index` parameter, if the stage is a fan-out target.
    pub index: Option<String>,
    /// `@keyed(domain)`: payload is a `u32` key in `0..domain`, with set semantics.
    pub keyed: Option<SizeExpr>,
    /// `@max_depth(D)` as declared on this stage.
    pub max_depth: Option<u32>,
    /// `@width(N)`: lanes cooperating on one unit (a power of two, 2..=64); 1 without it.
    pub width: u32,
    pub body: ast::Block,
    /// The sites in this body, in source order.
    pub sites: Vec<EdgeId>,
    /// Non-keyed spawns one unit can make (constant loop trip counts multiplied in).
    pub max_spawns: u32,
    /// True if the body contains a `become`.
    pub becomes: bool,
    /// The `emit` statements of the body, in source order.
    pub emits: Vec<EmitSite>,
    /// Per stream this stage emits into: (resource, most elements one unit may emit), declared
    /// with `@max_emit` or counted from the body. The executor reserves that room before it
    /// starts a unit.
    pub max_emits: Vec<(ResourceId, u32)>,
    /// Strongly connected component of the stage graph this stage belongs to.
    pub scc: usize,
    /// Recursion counter rule for this stage's SCC: `Some((annotated stage, D))` when the SCC
    /// recurses through spawns and is bounded by `@max_depth(D)` on that stage.
    pub recursion: Option<(StageId, u32)>,
    pub span: Span,
}

/// `emit stream(value);` in a stage body.
#[derive(Clone, Debug)]
pub struct EmitSite {
    /// A stream output.
    pub stream: ResourceId,
    pub value: Span,
    /// The whole statement.
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// `spawn s(p);` to a non-keyed stage.
    Spawn,
    /// `spawn[n] s(p);`
    FanOut,
    /// `spawn s(key);` to a `@keyed` stage.
    Keyed,
    /// `become s(p);`
    Become,
}

/// What a child's recursion counter is, relative to its parent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecursionStep {
    /// The child starts a new count (it enters another SCC, or is keyed).
    Reset,
    /// Same count as the parent.
    Keep,
    /// Parent's count + 1: an edge into the SCC's annotated stage from inside the SCC. The
    /// generated code stops the run with an error if the count exceeds the bound.
    Increment,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub kind: EdgeKind,
    pub from: StageId,
    pub to: StageId,
    /// The whole statement.
    pub span: Span,
    pub payload: Option<Span>,
    pub count: Option<Span>,
    /// True if the site is inside an `if`/`switch`/loop, or follows (in its block or an
    /// enclosing one) a statement that may `return` or `become`: i.e. it has a condition.
    pub conditional: bool,
    pub recursion: RecursionStep,
    /// A lone spawn: a single `spawn` from a one-lane stage whose only non-keyed spawn it is
    /// (no other, none in a loop, no `become`) into a one-lane stage. Like a `become`, the
    /// executor stages it at its spawner's level (a carry), so it adds nothing to
    /// [`Program::max_spawn_depth`].
    pub lone: bool,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub stage: StageId,
    pub count: SizeExpr,
    /// Graph-level loop: the exit condition evaluated after every round, and the round limit.
    pub until: Option<ast::Block>,
    pub max_rounds: Option<u32>,
    pub span: Span,
}

/// Result of [`check`]: the program when there were no errors, and every diagnostic.
#[derive(Debug)]
pub struct Checked {
    pub program: Option<Executable>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A [`Program`] that [`check`] accepted, and the only way to get one: its field is private to
/// this crate and it derefs to `&Program` only, so what the generator takes (`&Executable`) was
/// built and proved by the checker and cannot have been edited since (as naga's `ModuleInfo`
/// proves a module validated). A hand-built or edited `Program` does not type-check as one.
#[derive(Clone, Debug)]
pub struct Executable(Program);

impl Executable {
    pub(crate) fn new(program: Program) -> Executable {
        Executable(program)
    }
}

impl std::ops::Deref for Executable {
    type Target = Program;

    fn deref(&self) -> &Program {
        &self.0
    }
}

impl Ty {
    /// Size in 32-bit words when packed into a work item (no padding).
    pub fn words(&self, structs: &IdVec<StructId, StructDef>) -> u32 {
        match self {
            Ty::Scalar(_) | Ty::Atomic(_) => 1,
            Ty::Vector(n, _) => *n as u32,
            Ty::Struct(i) => structs[*i].fields.iter().map(|(_, t)| t.words(structs)).sum(),
        }
    }

    /// The WGSL spelling.
    pub fn wgsl(&self, structs: &IdVec<StructId, StructDef>) -> String {
        match self {
            Ty::Scalar(s) => s.wgsl().to_string(),
            Ty::Vector(n, s) => format!("vec{n}<{}>", s.wgsl()),
            Ty::Atomic(s) => format!("atomic<{}>", s.wgsl()),
            Ty::Struct(i) => structs[*i].name.clone(),
        }
    }
}

impl Scalar {
    pub fn wgsl(self) -> &'static str {
        match self {
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::F32 => "f32",
        }
    }
}
