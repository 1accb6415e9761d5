//! The abstract syntax tree of a `.dyn` file.
//!
//! Every node carries a [`Span`] (byte offsets into the source). Stage bodies are WGSL: the tree
//! keeps only what the checker and code generator need to understand (control structure, `spawn`
//! and `become` statements, constant loop trip counts); everything else stays source text,
//! addressed by span, so the generator can copy it verbatim.

use std::ops::Range;

/// Byte range into the source file.
pub type Span = Range<usize>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole `.dyn` file: one graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Resource(Resource),
    Param(Param),
    Struct(StructDecl),
    /// A WGSL `fn`, `const`, `alias` or `var<workgroup>` at file scope, copied verbatim into the
    /// module.
    Wgsl(WgslItem),
    Stage(Stage),
    Entry(Entry),
}

/// `@name(args)` before a declaration. Arguments are size expressions (`@max_depth(24)`,
/// `@keyed(len(dist))`, `@group(0)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub args: Vec<SizeExpr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// `input`: read-only storage, contents supplied by the user.
    Input,
    /// `output`: read-write storage, written back to the user after a run.
    Output,
    /// `buffer`: read-write storage internal to the graph.
    Buffer,
}

/// `input n: array<u32>;`, `output sums: array<atomic<u32>, len(n)> = 0u;`, `buffer total: atomic<u32>;`
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub attrs: Vec<Attribute>,
    pub kind: ResourceKind,
    pub name: Ident,
    pub ty: ResourceType,
    /// `= literal`: the value every element starts with (zero when absent).
    pub fill: Option<Literal>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ResourceType {
    /// `array<T>` or `array<T, LEN>`; the length rule is a size expression.
    Array {
        elem: TypeExpr,
        len: Option<SizeExpr>,
        span: Span,
    },
    /// A single value of type `T`.
    Single(TypeExpr),
    /// `stream<T>` (outputs only): as many elements as the graph emits, collected while it runs.
    Stream { elem: TypeExpr, span: Span },
}

/// A WGSL type as written: `u32`, `vec3<f32>`, `vec3f`, `atomic<u32>`, `Node`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub name: Ident,
    pub args: Vec<TypeExpr>,
    pub span: Span,
}

/// A fill value or parameter default (`25`, `0xFFFFFFFFu`, `1.5`, `-3i`, `true`), read once by
/// the parser.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: LiteralValue,
    /// As written, the sign joined to the number (`-3i` for `- 3i`): what diagnostics quote.
    pub text: String,
    pub span: Span,
}

/// A literal's value. As in WGSL, a number without a suffix is abstract (its type comes from
/// where it is used); numbers keep their sign apart, so that `-0` and `-2147483648i` check exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LiteralValue {
    Bool(bool),
    /// WGSL's AbstractInt range: magnitudes up to 64 bits.
    Int {
        negative: bool,
        magnitude: u64,
        suffix: Option<IntSuffix>,
    },
    /// WGSL's AbstractFloat: a finite `f64`.
    Float {
        negative: bool,
        magnitude: f64,
        suffix: Option<FloatSuffix>,
    },
    /// A number the syntax could not read; the parse reported it (DYN0005).
    Invalid,
}

/// `u` (`u32`) or `i` (`i32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSuffix {
    U,
    I,
}

/// `f` (`f32`) or `h` (`f16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatSuffix {
    F,
    H,
}

/// Host-evaluable integer expression: sizes, counts, key domains, bounds.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Int {
        value: u64,
        span: Span,
    },
    /// `len(name)`: element count of a resource.
    Len {
        resource: Ident,
        span: Span,
    },
    /// A run-time parameter by name.
    Param(Ident),
    Binary {
        op: BinOp,
        lhs: Box<SizeExpr>,
        rhs: Box<SizeExpr>,
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl BinOp {
    /// The operator as written in source (and in WGSL): `+`, `-`, `*` or `/`.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }
}

/// `param seed: u32;` or `param max_children: u32 = 4u;`
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub ty: TypeExpr,
    pub default: Option<Literal>,
    pub span: Span,
}

/// `struct Node { id: u32, depth: u32 }`
#[derive(Clone, Debug, PartialEq)]
pub struct StructDecl {
    pub name: Ident,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Ident,
    pub ty: TypeExpr,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WgslItemKind {
    Fn,
    Const,
    Alias,
    /// `var<workgroup> name: T;`: memory shared by the lanes of a workgroup (`@width` stages).
    Workgroup,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WgslItem {
    pub kind: WgslItemKind,
    pub name: Ident,
    /// For `fn`: the parsed body, so spawns in helpers can be reported.
    pub body: Option<Block>,
    pub span: Span,
}

/// ```text
/// @max_depth(24)
/// stage node(n: Node, @index j: u32) { ... }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub payload: Option<StageParam>,
    /// The `@index` parameter: the child's position in a fan-out.
    pub index: Option<StageParam>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StageParam {
    pub name: Ident,
    pub ty: TypeExpr,
    pub span: Span,
}

/// `entry root(len(n));` or
/// `@max_rounds(100) entry loop step(len(rank)) until { ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub attrs: Vec<Attribute>,
    pub stage: Ident,
    pub count: SizeExpr,
    /// Present for a graph-level loop: the WGSL block evaluated on the device after every round;
    /// the loop ends when it returns `true`.
    pub until: Option<Block>,
    pub span: Span,
}

/// A `{ ... }` block of WGSL statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `spawn stage(payload);` or fan-out `spawn[count] stage(payload);`
    Spawn(Spawn),
    /// `become stage(payload);`: replace the current work item and end this invocation.
    Become(Spawn),
    /// `emit stream(value);`: append one element to a `stream` output.
    Emit(Emit),
    /// `if (..) { } else if (..) { } else { }`; `else_` holds a nested `If` or a `Block`.
    If {
        cond: Span,
        then: Block,
        else_: Option<Box<Stmt>>,
        span: Span,
    },
    /// `for`, `while` or `loop`. `trip_count` is set when the header is a recognised constant
    /// counting loop such as `for (var i = 0u; i < 4u; i++)`.
    Loop {
        kind: LoopKind,
        header: Span,
        trip_count: Option<u64>,
        body: Block,
        span: Span,
    },
    /// `switch (..) { case ..: { } default: { } }`: each clause body in order.
    Switch {
        header: Span,
        clauses: Vec<Block>,
        span: Span,
    },
    Block(Block),
    /// Any other WGSL statement, verbatim.
    Other {
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    For,
    While,
    Loop,
    /// `continuing { }` inside a `loop`.
    Continuing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Spawn {
    pub target: Ident,
    /// The payload expression's text span, absent for `stage()`.
    pub payload: Option<Span>,
    /// Fan-out count expression's text span (`spawn[n] ...`).
    pub count: Option<Span>,
    pub span: Span,
}

/// `emit verts(v);`
#[derive(Clone, Debug, PartialEq)]
pub struct Emit {
    pub stream: Ident,
    /// The value expression's text span (absent for `emit s();`, which the checker refuses).
    pub value: Option<Span>,
    pub span: Span,
}

impl SizeExpr {
    pub fn span(&self) -> Span {
        match self {
            SizeExpr::Int { span, .. } | SizeExpr::Len { span, .. } | SizeExpr::Binary { span, .. } => span.clone(),
            SizeExpr::Param(id) => id.span.clone(),
        }
    }
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Spawn(s) | Stmt::Become(s) => s.span.clone(),
            Stmt::Emit(e) => e.span.clone(),
            Stmt::If { span, .. } | Stmt::Loop { span, .. } | Stmt::Switch { span, .. } | Stmt::Other { span } => {
                span.clone()
            }
            Stmt::Block(b) => b.span.clone(),
        }
    }
}
