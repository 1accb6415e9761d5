//! Declarations: names, structs, resources, parameters, stage signatures, the entry.

use super::names::{closest, reserved, reserved_global, with_article};
use super::{Checker, Global, GlobalKind};
use crate::{Entry, IdVec, Param, ParamId, Resource, ResourceId, Scalar, SizeExpr, StageId, StructDef, StructId, Ty};
use dyngc_syntax::ast::{self, Item, ResourceKind, Span};
use dyngc_syntax::codes::*;
use dyngc_syntax::Diagnostic;

mod attrs;
mod literals;
mod resources;
mod signatures;
mod sizes;
mod types;

use literals::literal_for;

pub(super) struct Structs {
    pub defs: IdVec<StructId, StructDef>,
    /// False when a struct contains itself (then `Ty::words` must not be called).
    pub acyclic: bool,
    /// Per struct (by index): whether it contains an atomic.
    pub atomic: Vec<bool>,
    /// Per struct (by index): its size in words, saturating (only meaningful when `acyclic`).
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
    pub max_emits: Vec<(ResourceId, u32, Span)>,
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
    /// The length rule of a resource: inputs, or outputs/buffers declared before it.
    Length(ResourceId),
    /// Entry counts and key domains: any array resource.
    Count,
}

impl<'a> Checker<'a> {
    pub(in crate::check) fn collect_names(&mut self) {
        let file = self.file;
        for item in &file.items {
            match item {
                Item::Resource(r) => {
                    let kind = GlobalKind::Resource(self.resources.push(r));
                    self.define(&r.name, kind);
                }
                Item::Param(p) => {
                    let kind = GlobalKind::Param(self.params.push(p));
                    self.define(&p.name, kind);
                }
                Item::Struct(s) => {
                    let kind = GlobalKind::Struct(self.structs.push(s));
                    self.define(&s.name, kind);
                }
                Item::Wgsl(w) => {
                    self.helpers.push(w);
                    self.define(&w.name, GlobalKind::Helper(w.kind));
                }
                Item::Stage(s) => {
                    let kind = GlobalKind::Stage(self.stages.push(s));
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

    pub(in crate::check) fn check_reserved(&mut self, name: &ast::Ident) {
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

    /// The source text of `span` (`T` if out of range).
    fn text(&self, span: &Span) -> &'a str {
        self.src.get(span.clone()).unwrap_or("T")
    }
}
