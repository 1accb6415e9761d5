//! Declarations: names, structs, resources, parameters, stage signatures, the entry.

use super::names::{closest, reserved, reserved_global, with_article};
use super::{Checker, Global, GlobalKind};
use crate::{Entry, Param, Resource, Scalar, SizeExpr, StructDef, Ty};
use dyngc_syntax::ast::{self, Item, ResourceKind, Span};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;

pub(super) struct Structs {
    pub defs: Vec<StructDef>,
    /// False when a struct contains itself (then `Ty::words` must not be called).
    pub acyclic: bool,
    /// Per struct: whether it contains an atomic.
    pub atomic: Vec<bool>,
    /// Per struct: its size in words, saturating (only meaningful when `acyclic`).
    pub words: Vec<u64>,
}

/// Widest `@width`: the megakernel's workgroup size.
pub(crate) const MAX_WIDTH: u32 = 64;

/// WebGPU's guaranteed `maxBindGroups`: `@group` numbers are below it.
pub(crate) const MAX_BIND_GROUPS: u32 = 4;

/// WebGPU's guaranteed `maxBindingsPerBindGroup`: `@binding` numbers are below it.
pub(crate) const MAX_BINDING: u32 = 1000;

/// Deepest nesting of structs inside structs.
pub(crate) const MAX_STRUCT_NESTING: usize = 32;

/// A stage's checked signature and attributes.
pub(super) struct StageSig {
    pub payload: Option<(String, Ty)>,
    pub index: Option<String>,
    /// True when the stage carries `@keyed`, even if its domain had errors.
    pub is_keyed: bool,
    pub keyed: Option<SizeExpr>,
    /// `@max_depth(D)` with the attribute's span.
    pub max_depth: Option<(u32, Span)>,
    /// True when a `@max_depth` was written but its argument was malformed (already reported):
    /// the stage's cycle is meant to be bounded, so cycle rules stay silent about it.
    pub bad_max_depth: bool,
    /// `@width(N)` with the attribute's span, when N is valid.
    pub width: Option<(u32, Span)>,
    /// `@max_emit(STREAM, N)`: (resource, N, the attribute's span), one per stream.
    pub max_emits: Vec<(usize, u32, Span)>,
}

/// Why a type expression could not become a [`Ty`].
pub(super) enum TyError {
    /// Already reported (unknown name).
    Reported,
    /// Resolved, but not a type dyngc supports here; the string says why.
    Unsupported(String),
    /// `array<..>`: why it is not allowed depends on where it is written.
    Array,
}

/// Where a size expression appears, which decides what `len(x)` may refer to.
#[derive(Clone, Copy)]
pub(super) enum SizeCtx {
    /// The length rule of `resources[i]`: inputs, or outputs/buffers declared before it.
    Length(usize),
    /// Entry counts and key domains: any array resource.
    Count,
}

impl<'a> Checker<'a> {
    pub(super) fn collect_names(&mut self) {
        let file = self.file;
        for item in &file.items {
            match item {
                Item::Resource(r) => {
                    let kind = GlobalKind::Resource(self.resources.len());
                    self.resources.push(r);
                    self.define(&r.name, kind);
                }
                Item::Param(p) => {
                    let kind = GlobalKind::Param(self.params.len());
                    self.params.push(p);
                    self.define(&p.name, kind);
                }
                Item::Struct(s) => {
                    let kind = GlobalKind::Struct(self.structs.len());
                    self.structs.push(s);
                    self.define(&s.name, kind);
                }
                Item::Wgsl(w) => {
                    self.helpers.push(w);
                    self.define(&w.name, GlobalKind::Helper(w.kind));
                }
                Item::Stage(s) => {
                    let kind = GlobalKind::Stage(self.stages.len());
                    self.stages.push(s);
                    self.define(&s.name, kind);
                }
                Item::Entry(e) => self.entries.push(e),
            }
        }
    }

    fn define(&mut self, name: &'a ast::Ident, kind: GlobalKind) {
        // A stage is emitted as `dyn_stage_NAME`; everything else under its own name.
        let why = match kind {
            GlobalKind::Stage(_) => reserved(&name.name),
            _ => reserved_global(&name.name),
        };
        self.report_reserved(name, why);
        if let Some(first) = self.globals.get_mut(name.name.as_str()) {
            first.redefined.push(kind);
            let (first_span, first_kind) = (first.span.clone(), first.kind);
            let d = Diagnostic::error(
                DYN0101,
                format!("`{}` is defined more than once", name.name),
                name.span.clone(),
                format!("`{}` redefined here", name.name),
            )
            .with_label(first_span, format!("first defined here, as {}", first_kind.describe()))
            .with_note("all top-level names (resources, parameters, structs, helpers, stages) share one namespace");
            self.error(d);
        } else {
            self.globals.insert(
                &name.name,
                Global {
                    kind,
                    span: name.span.clone(),
                    redefined: Vec::new(),
                },
            );
        }
    }

    pub(super) fn check_reserved(&mut self, name: &ast::Ident) {
        self.report_reserved(name, reserved(&name.name));
    }

    fn report_reserved(&mut self, name: &ast::Ident, why: Option<String>) {
        if let Some(why) = why {
            let d = Diagnostic::error(
                DYN0102,
                format!("`{}` is a reserved name", name.name),
                name.span.clone(),
                why,
            )
            .with_hint("choose another name");
            self.error(d);
        }
    }

    // ---------------------------------------------------------------- types

    pub(super) fn resolve_ty(&mut self, te: &ast::TypeExpr) -> Result<Ty, TyError> {
        use Scalar::*;
        fn scalar(name: &str) -> Option<Scalar> {
            match name {
                "u32" => Some(U32),
                "i32" => Some(I32),
                "f32" => Some(F32),
                _ => None,
            }
        }
        let name = te.name.name.as_str();
        let unsupported = |s: String| Err(TyError::Unsupported(s));
        if let Some(s) = scalar(name) {
            return if te.args.is_empty() {
                Ok(Ty::Scalar(s))
            } else {
                unsupported(format!("`{name}` takes no type arguments"))
            };
        }
        let b = name.as_bytes();
        match name {
            "vec2" | "vec3" | "vec4" => {
                let n = b[3] - b'0';
                if te.args.len() != 1 {
                    return unsupported(format!("`{name}` takes one element type, as in `{name}<f32>`"));
                }
                let arg = &te.args[0];
                match scalar(&arg.name.name) {
                    Some(s) if arg.args.is_empty() => Ok(Ty::Vector(n, s)),
                    _ => unsupported(format!(
                        "vector elements must be `u32`, `i32` or `f32`, not `{}`",
                        arg.name.name
                    )),
                }
            }
            _ if b.len() == 5
                && name.starts_with("vec")
                && (b'2'..=b'4').contains(&b[3])
                && b"iufh".contains(&b[4]) =>
            {
                let s = match b[4] {
                    b'u' => U32,
                    b'i' => I32,
                    b'f' => F32,
                    _ => {
                        return unsupported(
                            "`f16` vectors need a device feature dyngc does not require; use `f32`".into(),
                        )
                    }
                };
                if te.args.is_empty() {
                    Ok(Ty::Vector(b[3] - b'0', s))
                } else {
                    unsupported(format!("`{name}` takes no type arguments"))
                }
            }
            "atomic" => match te.args.as_slice() {
                [arg] if arg.args.is_empty() && matches!(scalar(&arg.name.name), Some(U32 | I32)) => {
                    Ok(Ty::Atomic(scalar(&arg.name.name).unwrap_or(U32)))
                }
                _ => unsupported("only `atomic<u32>` and `atomic<i32>` exist".into()),
            },
            "bool" => unsupported("`bool` has no fixed memory layout; use `u32` (0 or 1)".into()),
            "f16" => unsupported("`f16` needs a device feature dyngc does not require; use `f32`".into()),
            "array" => Err(TyError::Array),
            _ if super::names::is_builtin_type(name) => unsupported(format!("`{name}` is not supported here")),
            _ => match self.lookup(name, |k| matches!(k, GlobalKind::Struct(_))) {
                Some(GlobalKind::Struct(i)) => {
                    if te.args.is_empty() {
                        Ok(Ty::Struct(i))
                    } else {
                        unsupported(format!("struct `{name}` takes no type arguments"))
                    }
                }
                Some(GlobalKind::Helper(ast::WgslItemKind::Alias)) => unsupported(format!(
                    "`{name}` is a type alias; aliases cannot be used here, write the type out"
                )),
                Some(other) => {
                    let d = Diagnostic::error(
                        DYN0100,
                        format!("`{name}` is not a type"),
                        te.name.span.clone(),
                        format!("`{name}` is {}, not a type", other.describe()),
                    );
                    self.error(d);
                    Err(TyError::Reported)
                }
                None => {
                    const TYPES: &[&str] = &["u32", "i32", "f32", "vec2", "vec3", "vec4", "atomic"];
                    let hint = self.suggest(name, TYPES, |k| matches!(k, GlobalKind::Struct(_)));
                    let mut d = Diagnostic::error(
                        DYN0100,
                        format!("unknown type `{name}`"),
                        te.name.span.clone(),
                        "no struct or type has this name",
                    );
                    if let Some(c) = hint {
                        d = d.with_hint(format!("did you mean `{c}`?"));
                    }
                    self.error(d);
                    Err(TyError::Reported)
                }
            },
        }
    }

    pub(super) fn check_structs(&mut self) -> Structs {
        let decls = self.structs.clone();
        let mut defs = Vec::new();
        for s in &decls {
            let mut fields = Vec::new();
            let mut seen: std::collections::HashMap<&str, &ast::Ident> = Default::default();
            if s.fields.is_empty() {
                let d = Diagnostic::error(
                    DYN0105,
                    format!("struct `{}` has no fields", s.name.name),
                    s.name.span.clone(),
                    "WGSL structs need at least one field",
                );
                self.error(d);
            }
            for f in &s.fields {
                self.check_reserved(&f.name);
                if let Some(first) = seen.get(f.name.name.as_str()) {
                    let d = Diagnostic::error(
                        DYN0101,
                        format!("field `{}` is defined more than once in `{}`", f.name.name, s.name.name),
                        f.name.span.clone(),
                        "redefined here",
                    )
                    .with_label(first.span.clone(), "first defined here");
                    self.error(d);
                }
                seen.entry(&f.name.name).or_insert(&f.name);
                let ty = match self.resolve_ty(&f.ty) {
                    Ok(t) => t,
                    Err(e @ (TyError::Unsupported(_) | TyError::Array)) => {
                        let why = match e {
                            TyError::Unsupported(why) => why,
                            _ => "a struct field cannot be an array".into(),
                        };
                        let d = Diagnostic::error(
                            DYN0105,
                            format!("unsupported type in field `{}` of struct `{}`", f.name.name, s.name.name),
                            f.ty.span.clone(),
                            why,
                        )
                        .with_note("struct fields may be u32, i32, f32, vectors of those, atomic<u32>/atomic<i32> and other structs, so that every struct can be a resource element or a payload");
                        self.error(d);
                        Ty::Scalar(Scalar::U32)
                    }
                    Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
                };
                fields.push((f.name.name.clone(), ty));
            }
            defs.push(StructDef {
                name: s.name.name.clone(),
                fields,
                span: s.span.clone(),
            });
        }
        // A struct must not contain itself. Structs are processed dependencies first (Kahn's
        // algorithm, no recursion: a file may hold a very long chain of structs); what is left
        // over lies on or behind a cycle.
        let n = defs.len();
        let mut pending = vec![0usize; n];
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, d) in defs.iter().enumerate() {
            for (_, ty) in &d.fields {
                if let Ty::Struct(j) = ty {
                    pending[i] += 1;
                    users[*j].push(i);
                }
            }
        }
        let mut atomic = vec![false; n];
        let mut words = vec![0u64; n];
        let mut depth = vec![1usize; n];
        let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for (_, ty) in &defs[i].fields {
                let (a, w) = match ty {
                    Ty::Scalar(_) => (false, 1),
                    Ty::Atomic(_) => (true, 1),
                    Ty::Vector(k, _) => (false, u64::from(*k)),
                    Ty::Struct(j) => {
                        depth[i] = depth[i].max(depth[*j] + 1);
                        (atomic[*j], words[*j])
                    }
                };
                atomic[i] |= a;
                words[i] = words[i].saturating_add(w);
            }
            for &u in &users[i] {
                pending[u] -= 1;
                if pending[u] == 0 {
                    ready.push(u);
                }
            }
        }
        let acyclic = done == n;
        // Deeply nested structs are useless as payloads and resources, and naga (here and in
        // the code generator) recurses over them.
        if let Some(i) = (0..n).find(|&i| depth[i] > MAX_STRUCT_NESTING) {
            let d = Diagnostic::error(
                DYN0105,
                format!("struct `{}` nests {} structs deep", defs[i].name, depth[i]),
                decls[i].name.span.clone(),
                format!("structs may nest at most {MAX_STRUCT_NESTING} deep"),
            )
            .with_hint("flatten the struct");
            self.error(d);
        }
        if !acyclic {
            let (comp, comps) = super::graph::components(
                n,
                defs.iter().enumerate().flat_map(|(i, d)| {
                    d.fields.iter().filter_map(move |(_, t)| match t {
                        Ty::Struct(j) => Some((i, *j)),
                        _ => None,
                    })
                }),
            );
            for members in &comps {
                // The first field (in source order) that closes a cycle in this component.
                let mut first: Option<(usize, usize, usize)> = None;
                for &i in members {
                    for (fi, (_, ty)) in defs[i].fields.iter().enumerate() {
                        if let Ty::Struct(j) = ty {
                            let start = decls[i].fields[fi].ty.span.start;
                            if comp[*j] == comp[i] && first.is_none_or(|(_, _, s)| start < s) {
                                first = Some((i, fi, start));
                            }
                        }
                    }
                }
                if let Some((i, fi, _)) = first {
                    let field = &decls[i].fields[fi];
                    let d = Diagnostic::error(
                        DYN0105,
                        format!("struct `{}` contains itself", defs[i].name),
                        field.ty.span.clone(),
                        format!(
                            "`{}` leads back to `{}`, so `{}` would be infinitely large",
                            field.name.name, defs[i].name, defs[i].name
                        ),
                    );
                    self.error(d);
                }
            }
        }
        Structs {
            defs,
            acyclic,
            atomic,
            words,
        }
    }

    /// True if `ty` is or contains an atomic.
    pub(super) fn contains_atomic(ty: &Ty, structs: &Structs) -> bool {
        match ty {
            Ty::Atomic(_) => true,
            Ty::Struct(i) => structs.atomic.get(*i).copied().unwrap_or(false),
            _ => false,
        }
    }

    // ------------------------------------------------------------ resources

    pub(super) fn check_resources(&mut self, structs: &Structs) -> Vec<Resource> {
        let decls = self.resources.clone();
        let mut out = Vec::new();
        let mut pins: Vec<Option<(u32, u32, Span)>> = Vec::new();
        for (i, r) in decls.iter().enumerate() {
            // Attributes.
            // Each attribute as written (first occurrence), with its value when well-formed.
            let mut group: Option<(Option<u32>, Span)> = None;
            let mut binding: Option<(Option<u32>, Span)> = None;
            for a in &r.attrs {
                let slot = match a.name.name.as_str() {
                    "group" => &mut group,
                    "binding" => &mut binding,
                    _ => {
                        self.unknown_attr(a, "resources", &["group", "binding"]);
                        continue;
                    }
                };
                if slot.is_some() {
                    self.duplicate_attr(a);
                } else {
                    *slot = Some((self.u32_attr(a), a.span.clone()));
                }
            }
            let pin = match (&group, &binding) {
                (Some((Some(g), gs)), Some((Some(b), bs))) => {
                    let in_range = self.binding_in_range("group", *g, MAX_BIND_GROUPS, "maxBindGroups", gs)
                        & self.binding_in_range("binding", *b, MAX_BINDING, "maxBindingsPerBindGroup", bs);
                    in_range.then(|| (*g, *b, gs.start.min(bs.start)..gs.end.max(bs.end)))
                }
                // A malformed argument was reported; its partner is there.
                (Some(_), Some(_)) => None,
                (Some((_, s)), None) | (None, Some((_, s))) => {
                    let d = Diagnostic::error(
                        DYN0104,
                        "`@group` and `@binding` go together",
                        s.clone(),
                        "this needs its partner",
                    )
                    .with_hint("pin a resource with both `@group(G) @binding(B)`, or with neither to let dyngc choose");
                    self.error(d);
                    None
                }
                (None, None) => None,
            };
            pins.push(pin);

            // Element type.
            let (elem_te, len, is_array, ty_span) = match &r.ty {
                ast::ResourceType::Array { elem, len, span } => (elem, len.as_ref(), true, span.clone()),
                ast::ResourceType::Single(te) => (te, None, false, te.span.clone()),
                ast::ResourceType::Stream { elem, span } => (elem, None, false, span.clone()),
            };
            let stream = matches!(r.ty, ast::ResourceType::Stream { .. });
            if stream {
                self.check_stream_decl(r, elem_te, &ty_span, structs);
            }
            let elem = match self.resolve_ty(elem_te) {
                Ok(t) => {
                    if r.kind == ResourceKind::Input && Self::contains_atomic(&t, structs) {
                        let d = Diagnostic::error(
                            DYN0105,
                            format!("input `{}` holds atomics", r.name.name),
                            elem_te.span.clone(),
                            "inputs are read-only storage, which cannot hold atomics",
                        )
                        .with_hint("use a non-atomic type, or make it a `buffer`/`output`");
                        self.error(d);
                    }
                    t
                }
                Err(e @ (TyError::Unsupported(_) | TyError::Array)) => {
                    let why = match e {
                        TyError::Unsupported(why) => why,
                        _ => "arrays cannot be nested".into(),
                    };
                    let d = Diagnostic::error(
                        DYN0105,
                        format!("unsupported type for resource `{}`", r.name.name),
                        elem_te.span.clone(),
                        why,
                    )
                    .with_note("resource elements may be u32, i32, f32, vectors of those, atomic<u32>/atomic<i32> (not in inputs) and structs of those");
                    self.error(d);
                    Ty::Scalar(Scalar::U32)
                }
                Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
            };

            // Length rule.
            let len = match (r.kind, is_array, len) {
                (ResourceKind::Input, _, Some(l)) => {
                    let d = Diagnostic::error(
                        DYN0106,
                        format!("input `{}` cannot declare a length", r.name.name),
                        l.span(),
                        "an input's length is the length of the data it is given",
                    )
                    .with_hint(format!(
                        "write `input {}: array<{}>;`",
                        r.name.name,
                        self.text(&elem_te.span)
                    ));
                    self.error(d);
                    None
                }
                (ResourceKind::Output | ResourceKind::Buffer, true, None) => {
                    let kind = if r.kind == ResourceKind::Output {
                        "output"
                    } else {
                        "buffer"
                    };
                    let d = Diagnostic::error(
                        DYN0106,
                        format!("{kind} array `{}` needs a length", r.name.name),
                        ty_span,
                        "no length given",
                    )
                    .with_hint(format!(
                        "write `array<{}, LEN>`, where LEN can use `len(input)`, parameters and integers",
                        self.text(&elem_te.span)
                    ));
                    self.error(d);
                    None
                }
                (_, _, Some(l)) => Some(self.size_expr(l, SizeCtx::Length(i)).unwrap_or(SizeExpr::Int(0))),
                _ => None,
            };

            // Fill (a stream's was refused above).
            let fill = match &r.fill {
                None => None,
                Some(_) if stream => None,
                Some(lit) => {
                    if r.kind == ResourceKind::Input {
                        let d = Diagnostic::error(
                            DYN0110,
                            format!("input `{}` cannot have a fill value", r.name.name),
                            lit.span.clone(),
                            "an input's contents come from its data",
                        );
                        self.error(d);
                        None
                    } else {
                        match elem {
                            Ty::Scalar(s) | Ty::Atomic(s) | Ty::Vector(_, s) => match literal_for(&lit.text, s) {
                                Ok(t) => Some(t),
                                Err(why) => {
                                    let d = Diagnostic::error(
                                        DYN0110,
                                        format!("fill value does not fit `{}`", s.wgsl()),
                                        lit.span.clone(),
                                        why,
                                    );
                                    self.error(d);
                                    None
                                }
                            },
                            Ty::Struct(_) => {
                                let d = Diagnostic::error(
                                    DYN0110,
                                    format!("resource `{}` of struct elements cannot have a fill value", r.name.name),
                                    lit.span.clone(),
                                    "fill values are single scalar literals",
                                )
                                .with_hint("remove it (elements start as zero) and initialise the fields in a stage");
                                self.error(d);
                                None
                            }
                        }
                    }
                }
            };

            out.push(Resource {
                kind: r.kind,
                name: r.name.name.clone(),
                elem,
                is_array,
                stream,
                len,
                fill,
                group: 0,
                binding: 0,
                span: r.span.clone(),
            });
        }

        // Bindings: pinned first, then the lowest free group-0 numbers in declaration order.
        let mut taken: std::collections::HashMap<(u32, u32), Span> = Default::default();
        for (i, pin) in pins.iter().enumerate() {
            if let Some((g, b, span)) = pin {
                if let Some(first) = taken.get(&(*g, *b)) {
                    let d = Diagnostic::error(
                        DYN0109,
                        format!("two resources use `@group({g}) @binding({b})`"),
                        span.clone(),
                        format!("`{}` pinned here", out[i].name),
                    )
                    .with_label(first.clone(), "already used here");
                    self.error(d);
                } else {
                    taken.insert((*g, *b), span.clone());
                }
                out[i].group = *g;
                out[i].binding = *b;
            }
        }
        let mut next = 0u64;
        for (i, pin) in pins.iter().enumerate() {
            if pin.is_none() {
                while next < u64::from(u32::MAX) && taken.contains_key(&(0, next as u32)) {
                    next += 1;
                }
                out[i].group = 0;
                out[i].binding = u32::try_from(next).unwrap_or(u32::MAX);
                next += 1;
            }
        }
        out
    }

    /// `@max_emit(STREAM, N)`: the stream's resource index and N (1..=MAX_EMIT_PER_UNIT), or
    /// `None` after reporting why not.
    fn max_emit_attr(&mut self, a: &ast::Attribute) -> Option<(usize, u32)> {
        let usage = |c: &mut Self, span: Span, label: String| {
            let d = Diagnostic::error(DYN0211, "malformed `@max_emit`", span, label).with_hint(
                "write `@max_emit(STREAM, N)`: a stream output and the most elements one unit emits into it",
            );
            c.error(d);
        };
        let [ast::SizeExpr::Param(stream), n] = a.args.as_slice() else {
            usage(self, a.span.clone(), "expected a stream name and a count".into());
            return None;
        };
        let r = match self.lookup(&stream.name, |k| matches!(k, GlobalKind::Resource(_))) {
            Some(GlobalKind::Resource(r)) if matches!(self.resources[r].ty, ast::ResourceType::Stream { .. }) => r,
            _ => {
                usage(
                    self,
                    stream.span.clone(),
                    format!("`{}` is not a stream output", stream.name),
                );
                return None;
            }
        };
        let value = match n {
            ast::SizeExpr::Int { value, .. } => *value,
            other => {
                usage(self, other.span(), "the count must be an integer literal".into());
                return None;
            }
        };
        if value == 0 || value > u64::from(super::body::MAX_EMIT_PER_UNIT) {
            let d = Diagnostic::error(
                DYN0211,
                format!("`@max_emit` of {value}"),
                n.span(),
                format!(
                    "a unit may emit 1 to {} elements into a stream",
                    super::body::MAX_EMIT_PER_UNIT
                ),
            )
            .with_note("the executor reserves this much room in the stream's window before it starts a unit")
            .with_hint(if value == 0 {
                "a stage that never emits into the stream needs no `@max_emit` for it"
            } else {
                "emit from a fan-out of smaller units (`spawn[n]`), each emitting a part"
            });
            self.error(d);
            return None;
        }
        Some((r, value as u32))
    }

    /// DYN0113: a `stream<T>` is an `output` of non-atomic elements without a fill value.
    fn check_stream_decl(&mut self, r: &ast::Resource, elem: &ast::TypeExpr, ty_span: &Span, structs: &Structs) {
        if r.kind != ResourceKind::Output {
            let kind = if r.kind == ResourceKind::Input {
                "input"
            } else {
                "buffer"
            };
            let d = Diagnostic::error(
                DYN0113,
                format!("{kind} `{}` cannot be a stream", r.name.name),
                ty_span.clone(),
                "only outputs are streams",
            )
            .with_note("a stream collects what stage bodies `emit` and hands it to the host while the graph runs")
            .with_hint(format!(
                "declare it `output {}: stream<{}>;`",
                r.name.name,
                self.text(&elem.span)
            ));
            self.error(d);
        }
        if let Some(lit) = &r.fill {
            let d = Diagnostic::error(
                DYN0113,
                format!("stream `{}` cannot have a fill value", r.name.name),
                lit.span.clone(),
                "a stream holds only the elements emitted into it",
            )
            .with_hint("remove the `= ...`");
            self.error(d);
        }
        if let Ok(t) = self.resolve_ty(elem) {
            if Self::contains_atomic(&t, structs) {
                let d = Diagnostic::error(
                    DYN0113,
                    format!("stream `{}` holds atomics", r.name.name),
                    elem.span.clone(),
                    "stream elements are written once by `emit` and never updated",
                )
                .with_hint("use the plain type (`u32` for `atomic<u32>`)");
                self.error(d);
            }
        }
    }

    /// DYN0104 unless `value < limit`, WebGPU's guaranteed minimum of the device limit `name`:
    /// beyond it pipeline creation fails on some devices, long after `check`.
    fn binding_in_range(&mut self, attr: &str, value: u32, limit: u32, name: &str, span: &Span) -> bool {
        if value < limit {
            return true;
        }
        let d = Diagnostic::error(
            DYN0104,
            format!("`@{attr}({value})` is out of range"),
            span.clone(),
            format!(
                "WebGPU guarantees `@{attr}` numbers 0 to {} (`{name}` is at least {limit})",
                limit - 1
            ),
        )
        .with_hint(format!(
            "use a `@{attr}` number below {limit}, or leave the attributes out to let dyngc choose"
        ));
        self.error(d);
        false
    }

    fn text(&self, span: &Span) -> &'a str {
        self.src.get(span.clone()).unwrap_or("T")
    }

    // -------------------------------------------------------- size exprs

    pub(super) fn size_expr(&mut self, e: &ast::SizeExpr, ctx: SizeCtx) -> Option<SizeExpr> {
        match e {
            ast::SizeExpr::Int { value, span } => {
                if u32::try_from(*value).is_err() {
                    self.size_range(span, format!("{value} does not fit in 32 bits"));
                    return None;
                }
                Some(SizeExpr::Int(*value))
            }
            ast::SizeExpr::Binary { op, lhs, rhs, span } => {
                let l = self.size_expr(lhs, ctx);
                let r = self.size_expr(rhs, ctx);
                let e = SizeExpr::Binary(*op, Box::new(l?), Box::new(r?));
                // Constant parts are evaluated here as the kernel will, in 32 bits; the rest at
                // run time (`LengthRule::eval`), where the values are known.
                if let Err(why) = e.constant() {
                    self.size_range(span, why);
                    return None;
                }
                Some(e)
            }
            ast::SizeExpr::Len { resource, span } => {
                let name = resource.name.as_str();
                match self.lookup(name, |k| matches!(k, GlobalKind::Resource(_))) {
                    Some(GlobalKind::Resource(j)) => {
                        let target = self.resources[j];
                        if let ast::ResourceType::Stream { .. } = target.ty {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("`len({name})` of a stream"),
                                span.clone(),
                                format!(
                                    "`{name}` is a stream: how many elements it gets is known only as the graph runs"
                                ),
                            )
                            .with_hint("size with the inputs and parameters the emits depend on, or make it an array");
                            self.error(d);
                            return None;
                        }
                        if !matches!(target.ty, ast::ResourceType::Array { .. }) {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("`len({name})` of a single value"),
                                span.clone(),
                                format!("`{name}` is not an array"),
                            );
                            self.error(d);
                            return None;
                        }
                        if let SizeCtx::Length(i) = ctx {
                            if target.kind != ResourceKind::Input && j >= i {
                                let label = if j == i {
                                    "a resource's length cannot depend on itself".to_string()
                                } else {
                                    format!("`{name}` is declared after this resource")
                                };
                                let d = Diagnostic::error(DYN0106, format!("length refers to `{name}`"), span.clone(), label)
                                    .with_note("a length may use inputs, parameters, integers and the lengths of outputs/buffers declared before it, so lengths never depend on each other in a circle")
                                    .with_hint(format!("declare `{name}` first, or use the input its length comes from"));
                                self.error(d);
                                return None;
                            }
                        }
                        Some(SizeExpr::Len(j))
                    }
                    Some(other) => {
                        let d = Diagnostic::error(
                            DYN0100,
                            format!("`len` needs a resource, `{name}` is {}", other.describe()),
                            resource.span.clone(),
                            format!("`{name}` is {}", other.describe()),
                        );
                        self.error(d);
                        None
                    }
                    None => {
                        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Resource(_)));
                        let mut d = Diagnostic::error(
                            DYN0100,
                            format!("unknown resource `{name}`"),
                            resource.span.clone(),
                            "no resource has this name",
                        );
                        if let Some(c) = hint {
                            d = d.with_hint(format!("did you mean `{c}`?"));
                        }
                        self.error(d);
                        None
                    }
                }
            }
            ast::SizeExpr::Param(id) => {
                let name = id.name.as_str();
                match self.lookup(name, |k| matches!(k, GlobalKind::Param(_))) {
                    Some(GlobalKind::Param(j)) => {
                        let p = self.params[j];
                        if p.ty.name.name != "u32" || !p.ty.args.is_empty() {
                            let d = Diagnostic::error(
                                DYN0106,
                                format!("parameter `{name}` is not a `u32`"),
                                id.span.clone(),
                                format!("`{name}` is `{}`; sizes and counts are `u32`", self.text(&p.ty.span)),
                            );
                            self.error(d);
                            return None;
                        }
                        Some(SizeExpr::Param(j))
                    }
                    Some(GlobalKind::Resource(_)) => {
                        let d = Diagnostic::error(
                            DYN0100,
                            format!("`{name}` is a resource, not a parameter"),
                            id.span.clone(),
                            "a size expression can use parameters, integers and `len(resource)`",
                        )
                        .with_hint(format!("for its element count write `len({name})`"));
                        self.error(d);
                        None
                    }
                    other => {
                        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Param(_)));
                        let label = match other {
                            Some(k) => format!("`{name}` is {}, not a parameter", k.describe()),
                            None => "no parameter has this name".to_string(),
                        };
                        let mut d =
                            Diagnostic::error(DYN0100, format!("unknown parameter `{name}`"), id.span.clone(), label);
                        if let Some(c) = hint {
                            d = d.with_hint(format!("did you mean `{c}`?"));
                        }
                        self.error(d);
                        None
                    }
                }
            }
        }
    }

    /// DYN0106: a constant size expression outside the 32 bits the kernel computes in.
    fn size_range(&mut self, span: &Span, why: String) {
        let d = Diagnostic::error(DYN0106, "size expression out of range", span.clone(), why)
            .with_note("sizes and counts are `u32`: every step of a size expression must stay within 0..=4294967295")
            .with_hint("keep every step within 32 bits: use smaller numbers, or divide before multiplying");
        self.error(d);
    }

    // -------------------------------------------------------- attributes

    fn unknown_attr(&mut self, a: &ast::Attribute, what: &str, known: &[&str]) {
        let name = a.name.name.as_str();
        let label = if known.is_empty() {
            format!("{what} take no attributes")
        } else {
            let list: Vec<String> = known.iter().map(|k| format!("`@{k}`")).collect();
            format!("{what} accept {}", list.join(", "))
        };
        let mut d = Diagnostic::error(DYN0104, format!("unknown attribute `@{name}`"), a.span.clone(), label);
        if let Some(c) = closest(name, known.iter().copied()) {
            d = d.with_hint(format!("did you mean `@{c}`?"));
        }
        self.error(d);
    }

    fn duplicate_attr(&mut self, a: &ast::Attribute) {
        let d = Diagnostic::error(
            DYN0104,
            format!("`@{}` given twice", a.name.name),
            a.span.clone(),
            "repeated attribute",
        );
        self.error(d);
    }

    /// The single integer argument of `@name(INT)`, reported when malformed.
    fn u32_attr(&mut self, a: &ast::Attribute) -> Option<u32> {
        match a.args.as_slice() {
            [ast::SizeExpr::Int { value, span }] => match u32::try_from(*value) {
                Ok(v) => Some(v),
                Err(_) => {
                    let d = Diagnostic::error(
                        DYN0104,
                        format!("`@{}` argument too large", a.name.name),
                        span.clone(),
                        "must fit in 32 bits",
                    );
                    self.error(d);
                    None
                }
            },
            _ => {
                let d = Diagnostic::error(
                    DYN0104,
                    format!("`@{}` takes one integer", a.name.name),
                    a.span.clone(),
                    format!("expected `@{}(N)` with an integer N", a.name.name),
                );
                self.error(d);
                None
            }
        }
    }

    /// The lane count of `@width(N)`: a power of two in 2..=64 (DYN0111 otherwise).
    fn width_attr(&mut self, a: &ast::Attribute) -> Option<u32> {
        let n = self.u32_attr(a)?;
        if (2..=MAX_WIDTH).contains(&n) && n.is_power_of_two() {
            return Some(n);
        }
        let d = Diagnostic::error(
            DYN0111,
            format!("`@width({n})` is not a stage width"),
            a.span.clone(),
            format!("the width must be a power of two from 2 to {MAX_WIDTH}"),
        )
        .with_note(format!(
            "a wide unit runs on N lanes of one {MAX_WIDTH}-lane workgroup, and {MAX_WIDTH} / N units share a batch"
        ))
        .with_hint(match n {
            0 | 1 => "drop `@width` for a one-lane stage".to_string(),
            _ => format!(
                "use `@width({})`",
                n.checked_next_power_of_two().unwrap_or(MAX_WIDTH).min(MAX_WIDTH)
            ),
        });
        self.error(d);
        None
    }

    // ------------------------------------------------------------ params

    pub(super) fn check_params(&mut self) -> Vec<Param> {
        let decls = self.params.clone();
        let mut out = Vec::new();
        for p in decls {
            for a in &p.attrs {
                self.unknown_attr(a, "parameters", &[]);
            }
            let ty = match (p.ty.name.name.as_str(), p.ty.args.is_empty()) {
                ("u32", true) => Some(Scalar::U32),
                ("i32", true) => Some(Scalar::I32),
                ("f32", true) => Some(Scalar::F32),
                _ => {
                    let d = Diagnostic::error(
                        DYN0107,
                        format!("parameter `{}` has an unsupported type", p.name.name),
                        p.ty.span.clone(),
                        "parameters must be `u32`, `i32` or `f32`",
                    );
                    self.error(d);
                    None
                }
            };
            let default = match (&p.default, ty) {
                (Some(lit), Some(s)) => match literal_for(&lit.text, s) {
                    Ok(t) => Some(t),
                    Err(why) => {
                        let d = Diagnostic::error(
                            DYN0107,
                            format!("default of `{}` does not match its type `{}`", p.name.name, s.wgsl()),
                            lit.span.clone(),
                            why,
                        );
                        self.error(d);
                        None
                    }
                },
                _ => None,
            };
            out.push(Param {
                name: p.name.name.clone(),
                ty: ty.unwrap_or(Scalar::U32),
                default,
                span: p.span.clone(),
            });
        }
        out
    }

    // ------------------------------------------------------------ stages

    pub(super) fn check_stage_sigs(&mut self, structs: &Structs) -> Vec<StageSig> {
        let decls = self.stages.clone();
        let mut out = Vec::new();
        for s in decls {
            let mut max_depth = None;
            let mut bad_max_depth = false;
            let mut keyed_attr: Option<&ast::Attribute> = None;
            let mut keyed = None;
            let mut width_attr: Option<&ast::Attribute> = None;
            let mut width = None;
            let mut max_emits = Vec::new();
            for a in &s.attrs {
                match a.name.name.as_str() {
                    "max_depth" => {
                        if max_depth.is_some() {
                            self.duplicate_attr(a);
                        } else if let Some(v) = self.u32_attr(a) {
                            max_depth = Some((v, a.span.clone()));
                        } else {
                            bad_max_depth = true;
                        }
                    }
                    "keyed" => {
                        if keyed_attr.is_some() {
                            self.duplicate_attr(a);
                            continue;
                        }
                        keyed_attr = Some(a);
                        if let [domain] = a.args.as_slice() {
                            keyed = self.size_expr(domain, SizeCtx::Count);
                        } else {
                            let d = Diagnostic::error(
                                DYN0104,
                                "`@keyed` takes one size expression",
                                a.span.clone(),
                                "expected `@keyed(DOMAIN)`, e.g. `@keyed(len(dist))`",
                            );
                            self.error(d);
                        }
                    }
                    "width" => {
                        if width_attr.is_some() {
                            self.duplicate_attr(a);
                            continue;
                        }
                        width_attr = Some(a);
                        width = self.width_attr(a).map(|w| (w, a.span.clone()));
                    }
                    "max_emit" => {
                        if let Some((r, n)) = self.max_emit_attr(a) {
                            if max_emits.iter().any(|(q, _, _)| *q == r) {
                                self.duplicate_attr(a);
                            } else {
                                max_emits.push((r, n, a.span.clone()));
                            }
                        }
                    }
                    _ => self.unknown_attr(a, "stages", &["max_depth", "keyed", "width", "max_emit"]),
                }
            }
            let payload = match &s.payload {
                None => None,
                Some(p) => {
                    self.check_reserved(&p.name);
                    let ty = match self.resolve_ty(&p.ty) {
                        Ok(t) if Self::contains_atomic(&t, structs) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("payload of `{}` holds atomics", s.name.name),
                                p.ty.span.clone(),
                                "a payload is a value copied into the work queue; it cannot be atomic",
                            );
                            self.error(d);
                            t
                        }
                        Ok(t) => t,
                        Err(TyError::Unsupported(why)) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("unsupported payload type for `{}`", s.name.name),
                                p.ty.span.clone(),
                                why,
                            )
                            .with_note("payloads may be u32, i32, f32, vectors of those, or structs of those");
                            self.error(d);
                            Ty::Scalar(Scalar::U32)
                        }
                        Err(TyError::Array) => {
                            let d = Diagnostic::error(
                                DYN0108,
                                format!("payload of `{}` is an array", s.name.name),
                                p.ty.span.clone(),
                                "a payload cannot be an array",
                            )
                            .with_note("a payload is copied into the work queue word by word: u32, i32, f32, vectors of those, or structs of those")
                            .with_hint("keep the values in a `buffer` (or `input`) and pass an index into it, or a `vec2<u32>` range");
                            self.error(d);
                            Ty::Scalar(Scalar::U32)
                        }
                        Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
                    };
                    Some((p.name.name.clone(), ty))
                }
            };
            let index = match &s.index {
                None => None,
                Some(p) => {
                    self.check_reserved(&p.name);
                    if p.ty.name.name != "u32" || !p.ty.args.is_empty() {
                        let d = Diagnostic::error(
                            DYN0108,
                            format!("`@index` parameter of `{}` must be `u32`", s.name.name),
                            p.ty.span.clone(),
                            "the child's position in its fan-out is a `u32`",
                        )
                        .with_hint(format!("write `@index {}: u32`", p.name.name));
                        self.error(d);
                    }
                    Some(p.name.name.clone())
                }
            };
            if let Some(a) = keyed_attr {
                let ok_payload = matches!(&payload, Some((_, Ty::Scalar(Scalar::U32))));
                if !ok_payload {
                    let span = s.payload.as_ref().map_or(s.name.span.clone(), |p| p.ty.span.clone());
                    let d = Diagnostic::error(
                        DYN0202,
                        format!("keyed stage `{}` must take a `u32` key", s.name.name),
                        span,
                        "the payload of a `@keyed` stage is its key, exactly one `u32`",
                    )
                    .with_label(a.span.clone(), "keyed here");
                    self.error(d);
                }
                if let Some(ix) = &s.index {
                    let d = Diagnostic::error(
                        DYN0202,
                        format!("keyed stage `{}` cannot have `@index`", s.name.name),
                        ix.span.clone(),
                        "keyed stages are spawned once per key, never fanned out",
                    )
                    .with_label(a.span.clone(), "keyed here");
                    self.error(d);
                }
            }
            if let (Some(k), Some(w)) = (keyed_attr, width_attr) {
                let d = Diagnostic::error(
                    DYN0112,
                    format!("keyed stage `{}` cannot be wide", s.name.name),
                    w.span.clone(),
                    "`@width` here",
                )
                .with_label(k.span.clone(), "`@keyed` here")
                .with_note("a keyed unit is claimed by clearing its key's mark, one lane at a time; a group of lanes has no such protocol")
                .with_hint("spawn a wide stage from the keyed one, or drop `@width`");
                self.error(d);
            }
            out.push(StageSig {
                payload,
                index,
                is_keyed: keyed_attr.is_some(),
                keyed,
                max_depth,
                bad_max_depth,
                width,
                max_emits,
            });
        }
        out
    }

    // ------------------------------------------------------------ entry

    pub(super) fn check_entry(&mut self, sigs: &[StageSig]) -> Option<Entry> {
        let entries = self.entries.clone();
        let Some(e) = entries.first().copied() else {
            let d = Diagnostic::error(DYN0103, "no entry", 0..0, "this file declares no `entry`").with_hint(
                "add `entry STAGE(COUNT);` naming the stage that starts the graph and how many units it starts",
            );
            self.error(d);
            return None;
        };
        for extra in &entries[1..] {
            let d = Diagnostic::error(DYN0103, "more than one entry", extra.span.clone(), "second entry")
                .with_label(e.span.clone(), "first entry here")
                .with_note("a `.dyn` file is one graph with one entry");
            self.error(d);
        }
        let stage = match self.lookup(&e.stage.name, |k| matches!(k, GlobalKind::Stage(_))) {
            Some(GlobalKind::Stage(i)) => Some(i),
            other => {
                self.unknown_stage(&e.stage, other);
                None
            }
        };
        if let Some(i) = stage {
            let st = self.stages[i];
            if sigs.get(i).is_some_and(|s| s.is_keyed) {
                // A keyed stage takes a key and no `@index` by design; DYN0205's advice (drop
                // the payload, add `@index`) would contradict its declaration, so this is all.
                let mut d = Diagnostic::error(
                    DYN0202,
                    format!("entry stage `{}` is keyed", st.name.name),
                    e.stage.span.clone(),
                    "the entry stage cannot be `@keyed`",
                );
                if let Some(a) = st.attrs.iter().find(|a| a.name.name == "keyed") {
                    d = d.with_label(a.span.clone(), "declared `@keyed` here");
                }
                let d = d.with_hint("start the graph at a stage with an `@index` parameter and no payload, and spawn the keyed stage from it");
                self.error(d);
            } else {
                if let Some(p) = &st.payload {
                    let d = Diagnostic::error(
                        DYN0205,
                        format!("entry stage `{}` takes a payload", st.name.name),
                        p.span.clone(),
                        "the host starts entry units with an index only",
                    )
                    .with_label(e.stage.span.clone(), "used as the entry here")
                    .with_hint("remove the payload; the entry stage reads its inputs by `@index`");
                    self.error(d);
                }
                if st.index.is_none() {
                    let d = Diagnostic::error(
                        DYN0205,
                        format!("entry stage `{}` has no `@index` parameter", st.name.name),
                        st.name.span.clone(),
                        "the entry starts COUNT units, told apart by their index",
                    )
                    .with_label(e.stage.span.clone(), "used as the entry here")
                    .with_hint(format!("declare it as `stage {}(@index i: u32)`", st.name.name));
                    self.error(d);
                }
            }
        }
        let mut max_rounds = None;
        for a in &e.attrs {
            match a.name.name.as_str() {
                "max_rounds" if e.until.is_some() => {
                    if max_rounds.is_some() {
                        self.duplicate_attr(a);
                    } else if let Some(v) = self.u32_attr(a) {
                        if v == 0 {
                            let d = Diagnostic::error(
                                DYN0304,
                                "`@max_rounds(0)` allows no round",
                                a.span.clone(),
                                "the loop could never run",
                            )
                            .with_hint("give at least 1");
                            self.error(d);
                        }
                        max_rounds = Some(v);
                    }
                }
                "max_rounds" => {
                    let d = Diagnostic::error(
                        DYN0104,
                        "`@max_rounds` on an entry that is not a loop",
                        a.span.clone(),
                        "only `entry loop ... until { }` runs rounds",
                    );
                    self.error(d);
                }
                _ => {
                    let known: &[&str] = if e.until.is_some() { &["max_rounds"] } else { &[] };
                    self.unknown_attr(a, "entries", known);
                }
            }
        }
        let count = self.size_expr(&e.count, SizeCtx::Count);
        if let Some(u) = &e.until {
            if !super::lex::has_ident(self.src, &u.span, "return") {
                let d = Diagnostic::error(
                    DYN0304,
                    "`until` block never returns",
                    u.span.clone(),
                    "this block must `return` a `bool`: `true` ends the loop",
                )
                .with_hint("end it with `return CONDITION;`");
                self.error(d);
            }
        }
        Some(Entry {
            stage: stage?,
            count: count.unwrap_or(SizeExpr::Int(0)),
            until: e.until.clone(),
            max_rounds,
            span: e.span.clone(),
        })
    }

    pub(super) fn unknown_stage(&mut self, id: &ast::Ident, found: Option<GlobalKind>) {
        let name = id.name.as_str();
        let label = match found {
            Some(k) => format!("`{name}` is {}, not a stage", k.describe()),
            None => "no stage has this name".to_string(),
        };
        let hint = self.suggest(name, &[], |k| matches!(k, GlobalKind::Stage(_)));
        let mut d = Diagnostic::error(DYN0100, format!("unknown stage `{name}`"), id.span.clone(), label);
        if let Some(c) = hint {
            d = d.with_hint(format!("did you mean `{c}`?"));
        }
        self.error(d);
    }
}

/// Checks a literal against a scalar type and returns its canonical WGSL spelling
/// (`5u`, `-3i`, `1.5f`), or why it does not fit.
pub(super) fn literal_for(text: &str, ty: Scalar) -> Result<String, String> {
    let t = text.trim();
    if t == "true" || t == "false" {
        return Err(format!("`{t}` is a `bool`, not {}", with_article(ty.wgsl())));
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    let lit = parse_number(body).ok_or_else(|| format!("`{t}` is not a number literal"))?;
    match (ty, lit) {
        (Scalar::U32, Num::Int(v, None | Some('u'))) => {
            if neg && v != 0 {
                Err(format!("`{t}` is negative; `u32` has no negative values"))
            } else if v > u32::MAX as u128 {
                Err(format!("`{t}` is larger than the largest `u32`, 4294967295"))
            } else {
                Ok(format!("{v}u"))
            }
        }
        (Scalar::I32, Num::Int(v, None | Some('i'))) => {
            let v = i64::try_from(v).unwrap_or(i64::MAX);
            let v = if neg { -v } else { v };
            if v < i32::MIN as i64 || v > i32::MAX as i64 {
                Err(format!("`{t}` does not fit in an `i32`"))
            } else {
                Ok(format!("{v}i"))
            }
        }
        (Scalar::F32, Num::Int(v, None)) => float_text(if neg { -(v as f64) } else { v as f64 }, t),
        (Scalar::F32, Num::Float(v, None | Some('f'))) => float_text(if neg { -v } else { v }, t),
        (_, Num::Int(_, Some(s))) => {
            let name = if s == 'u' { "u32" } else { "i32" };
            Err(format!(
                "`{t}` is {} literal, not {}",
                with_article(name),
                with_article(ty.wgsl())
            ))
        }
        (_, Num::Float(_, Some('h'))) => Err(format!("`{t}` is an `f16` literal, not {}", with_article(ty.wgsl()))),
        (_, Num::Float(..)) => Err(format!("`{t}` is a float, not {}", with_article(ty.wgsl()))),
    }
}

fn float_text(v: f64, t: &str) -> Result<String, String> {
    let f = v as f32;
    if !f.is_finite() {
        return Err(format!("`{t}` is too large for an `f32`"));
    }
    Ok(format!("{f:?}f"))
}

enum Num {
    Int(u128, Option<char>),
    Float(f64, Option<char>),
}

fn parse_number(s: &str) -> Option<Num> {
    if s.is_empty() || !s.is_ascii() {
        return None;
    }
    let (hex, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if hex {
        if digits.contains(['p', 'P', '.']) {
            return parse_hex_float(digits);
        }
        let (digits, suffix) = split_suffix(digits, &['u', 'i']);
        if digits.is_empty() {
            return None;
        }
        return u128::from_str_radix(digits, 16).ok().map(|v| Num::Int(v, suffix));
    }
    if digits.contains(['.', 'e', 'E']) || digits.ends_with(['f', 'h']) {
        let (digits, suffix) = split_suffix(digits, &['f', 'h']);
        if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            return None;
        }
        return digits
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|v| Num::Float(v, suffix));
    }
    let (digits, suffix) = split_suffix(digits, &['u', 'i']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u128>().ok().map(|v| Num::Int(v, suffix))
}

fn split_suffix<'s>(s: &'s str, suffixes: &[char]) -> (&'s str, Option<char>) {
    match s.chars().last() {
        Some(c) if suffixes.contains(&c) => (&s[..s.len() - 1], Some(c)),
        _ => (s, None),
    }
}

/// `1.8p3`, `1p-2f` (after `0x`).
fn parse_hex_float(s: &str) -> Option<Num> {
    let (s, suffix) = split_suffix(s, &['f', 'h']);
    let (mant, exp) = match s.find(['p', 'P']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp);
    v.is_finite().then_some(Num::Float(v, suffix))
}
