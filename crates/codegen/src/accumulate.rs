//! Accumulated outputs (docs/executor.md, "Accumulated outputs"): an `output` of atomics that the
//! program only ever combines into (`atomicAdd` / `atomicSub`, or one of `atomicMax`,
//! `atomicMin`, `atomicAnd`, `atomicOr`, `atomicXor`), never reads, and whose result no unit
//! looks at, is accumulated in a copy in workgroup memory, one per worker and launch, and added
//! to the binding once when the worker leaves the launch. A tree's `per_depth[n.depth]` is such
//! an output: its few words took every unit's global atomic, and that contention, not the
//! executor, was most of tree 1e7's time at the largest arena (docs/performance.md,
//! "Session 23").
//!
//! Nothing can tell the difference: no unit reads the output, and the host reads it only after
//! the run, when every worker has added its copy. The proof is in the validated module, not the
//! source text: [`find`] counts, with naga's own reference counts, that every use of the binding
//! is an element pointer taken only by such atomics whose results are unused, and that no entry
//! point but `dyn_main` (which adds the copies) reaches it.

use dyngc_ir::{Program, Scalar, Ty};
use dyngc_syntax::ast::ResourceKind;
use naga::{AtomicFunction, Block, Expression, Function, Handle, Statement};

use crate::layout::ACCUMULATOR_BYTES;

/// How the units of one output combine into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    Add,
    Max,
    Min,
    And,
    Or,
    Xor,
}

impl Combine {
    /// `atomicSub` is an add of the negation: a worker's copy holds the net change, wrapped.
    fn of(fun: &AtomicFunction) -> Option<Combine> {
        match fun {
            AtomicFunction::Add | AtomicFunction::Subtract => Some(Combine::Add),
            AtomicFunction::Max => Some(Combine::Max),
            AtomicFunction::Min => Some(Combine::Min),
            AtomicFunction::And => Some(Combine::And),
            AtomicFunction::InclusiveOr => Some(Combine::Or),
            AtomicFunction::ExclusiveOr => Some(Combine::Xor),
            AtomicFunction::Exchange { .. } => None,
        }
    }

    /// The value combining changes nothing: a copy starts from it, and a word still holding it
    /// is not added.
    fn identity(self, scalar: Scalar) -> &'static str {
        match (self, scalar) {
            (Combine::Add | Combine::Or | Combine::Xor, Scalar::I32) => "0i",
            (Combine::Add | Combine::Or | Combine::Xor, _) => "0u",
            (Combine::Max, Scalar::I32) => "bitcast<i32>(0x80000000u)",
            (Combine::Max, _) => "0u",
            (Combine::Min, Scalar::I32) => "0x7fffffffi",
            (Combine::And, Scalar::I32) => "-1i",
            (Combine::Min | Combine::And, _) => "0xffffffffu",
        }
    }

    fn builtin(self) -> &'static str {
        match self {
            Combine::Add => "atomicAdd",
            Combine::Max => "atomicMax",
            Combine::Min => "atomicMin",
            Combine::And => "atomicAnd",
            Combine::Or => "atomicOr",
            Combine::Xor => "atomicXor",
        }
    }
}

/// One output accumulated in workgroup memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Accumulator {
    /// The binding's variable (the output's name).
    name: String,
    scalar: Scalar,
    /// Elements of an array output; `None` for a single value.
    len: Option<u32>,
    combine: Combine,
}

impl Accumulator {
    /// The output's name.
    pub(crate) fn output(&self) -> &str {
        &self.name
    }

    fn copy(&self) -> String {
        format!("dyn_acc_{}", self.name)
    }

    /// As the workgroup memory budget counts a variable (`WorkgroupMemory`): rounded up to 16.
    fn bytes(len: Option<u32>) -> u32 {
        (4 * len.unwrap_or(1)).next_multiple_of(16)
    }
}

/// The outputs of `program` that `module` (its megakernel, generated without accumulators and
/// validated into `info`) only accumulates into, in declaration order while their copies fit
/// in `room` bytes of workgroup memory and [`ACCUMULATOR_BYTES`].
pub(crate) fn find(
    program: &Program,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    room: u32,
) -> Vec<Accumulator> {
    let Some(main) = module.entry_points.iter().position(|e| e.name == "dyn_main") else {
        return Vec::new();
    };
    let mut left = room.min(ACCUMULATOR_BYTES);
    let mut found = Vec::new();
    for r in program.resources.values() {
        let Ty::Atomic(scalar) = r.elem else {
            continue;
        };
        if r.kind != ResourceKind::Output || r.stream {
            continue;
        }
        let len = if r.is_array {
            match r.len.as_ref().map(|l| l.constant()) {
                Some(Ok(Some(n))) if n > 0 && n <= u64::from(ACCUMULATOR_BYTES / 4) => Some(n as u32),
                _ => continue,
            }
        } else {
            None
        };
        if Accumulator::bytes(len) > left {
            continue;
        }
        let Some(global) = global_named(module, &r.name) else {
            continue;
        };
        let other_entry_reaches =
            (0..module.entry_points.len()).any(|i| i != main && !info.get_entry_point(i)[global].is_empty());
        if other_entry_reaches {
            continue;
        }
        let mut combine = None;
        let functions = module.functions.iter().map(|(h, f)| (f, &info[h]));
        let entries = module
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (&e.function, info.get_entry_point(i)));
        let only_combined = functions
            .chain(entries)
            .all(|(f, f_info)| only_combined(f, f_info, global, &mut combine));
        if let (true, Some(combine)) = (only_combined, combine) {
            left -= Accumulator::bytes(len);
            found.push(Accumulator {
                name: r.name.clone(),
                scalar,
                len,
                combine,
            });
        }
    }
    found
}

/// Whether every use of `global` in `f` is an element pointer (or the variable itself) that
/// only atomics of one [`Combine`] (the same as `combine`'s, which the first sets) take, each
/// with its result unused. naga's reference counts include every use, in expressions and
/// statements alike, so a count that does not match is a use of another kind.
fn only_combined(
    f: &Function,
    f_info: &naga::valid::FunctionInfo,
    global: Handle<naga::GlobalVariable>,
    combine: &mut Option<Combine>,
) -> bool {
    // naga's analysis says which globals a function (with its callees) touches: most do not.
    if f_info[global].is_empty() {
        return true;
    }
    let mut atomics = Vec::new();
    collect_atomics(&f.body, &mut atomics);
    let taken_by = |pointer: Handle<Expression>| atomics.iter().filter(move |a| a.0 == pointer);
    for (var, e) in f.expressions.iter() {
        if !matches!(e, Expression::GlobalVariable(g) if *g == global) {
            continue;
        }
        let elements: Vec<Handle<Expression>> = f
            .expressions
            .iter()
            .filter(|(_, x)| {
                matches!(x, Expression::Access { base, .. } | Expression::AccessIndex { base, .. } if *base == var)
            })
            .map(|(x, _)| x)
            .collect();
        if f_info[var].ref_count != elements.len() + taken_by(var).count() {
            return false;
        }
        if elements.iter().any(|&x| f_info[x].ref_count != taken_by(x).count()) {
            return false;
        }
        for &(_, fun, result) in std::iter::once(var).chain(elements).flat_map(taken_by) {
            let Some(c) = Combine::of(fun) else {
                return false;
            };
            if result.is_some_and(|r| f_info[r].ref_count != 0) || *combine.get_or_insert(c) != c {
                return false;
            }
        }
    }
    true
}

type AtomicUse<'a> = (Handle<Expression>, &'a AtomicFunction, Option<Handle<Expression>>);

/// (pointer, function, result) of every atomic statement in `block`, nested blocks included.
fn collect_atomics<'a>(block: &'a Block, out: &mut Vec<AtomicUse<'a>>) {
    for statement in block.iter() {
        match statement {
            Statement::Atomic {
                pointer, fun, result, ..
            } => out.push((*pointer, fun, *result)),
            Statement::Block(b) => collect_atomics(b, out),
            Statement::If { accept, reject, .. } => {
                collect_atomics(accept, out);
                collect_atomics(reject, out);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| collect_atomics(&c.body, out)),
            Statement::Loop { body, continuing, .. } => {
                collect_atomics(body, out);
                collect_atomics(continuing, out);
            }
            _ => {}
        }
    }
}

/// The copies and the two functions stdlib/executor.wgsl's `dyn_main` calls: each worker, each
/// launch, `dyn_accumulators_init` before its first batch and `dyn_accumulators_flush` after
/// its last (both after a barrier of all its lanes). Empty functions without accumulators.
pub(crate) fn wgsl(accumulators: &[Accumulator]) -> String {
    let mut decls = String::new();
    let mut init = String::new();
    let mut flush = String::new();
    for a in accumulators {
        let (copy, name) = (a.copy(), &a.name);
        let elem = match a.scalar {
            Scalar::I32 => "atomic<i32>",
            _ => "atomic<u32>",
        };
        let identity = a.combine.identity(a.scalar);
        let combine = a.combine.builtin();
        match a.len {
            Some(len) => {
                decls.push_str(&format!("var<workgroup> {copy}: array<{elem}, {len}>;\n"));
                init.push_str(&format!(
                    "\n    for (var i = lid; i < {len}u; i += DYN_WG) {{\n        atomicStore(&{copy}[i], {identity});\n    }}"
                ));
                flush.push_str(&format!(
                    "\n    for (var i = lid; i < {len}u; i += DYN_WG) {{\n        let v = atomicLoad(&{copy}[i]);\n        if (v != {identity}) {{\n            {combine}(&{name}[i], v);\n        }}\n    }}"
                ));
            }
            None => {
                decls.push_str(&format!("var<workgroup> {copy}: {elem};\n"));
                init.push_str(&format!(
                    "\n    if (lid == 0u) {{\n        atomicStore(&{copy}, {identity});\n    }}"
                ));
                flush.push_str(&format!(
                    "\n    if (lid == 0u) {{\n        let v = atomicLoad(&{copy});\n        if (v != {identity}) {{\n            {combine}(&{name}, v);\n        }}\n    }}"
                ));
            }
        }
    }
    format!(
        "{decls}
// Each worker, each launch, before its first batch: the accumulated outputs' copies start empty.
fn dyn_accumulators_init(lid: u32) {{{init}
}}

// Each worker, each launch, after its last batch: what its units combined goes to the outputs.
fn dyn_accumulators_flush(lid: u32) {{{flush}
}}

"
    )
}

/// Points the units' atomics at the copies: every use of an accumulated output's binding but
/// `dyn_accumulators_flush`'s. `module` is the megakernel generated with [`wgsl`]'s text for
/// the same accumulators.
pub(crate) fn redirect(module: &mut naga::Module, accumulators: &[Accumulator]) {
    for a in accumulators {
        let (Some(binding), Some(copy)) = (global_named(module, &a.name), global_named(module, &a.copy())) else {
            continue;
        };
        let functions = module
            .functions
            .iter_mut()
            .filter(|(_, f)| f.name.as_deref() != Some("dyn_accumulators_flush"))
            .map(|(_, f)| f);
        for f in functions.chain(module.entry_points.iter_mut().map(|e| &mut e.function)) {
            for (_, e) in f.expressions.iter_mut() {
                if *e == Expression::GlobalVariable(binding) {
                    *e = Expression::GlobalVariable(copy);
                }
            }
        }
    }
}

fn global_named(module: &naga::Module, name: &str) -> Option<Handle<naga::GlobalVariable>> {
    module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some(name))
        .map(|(h, _)| h)
}
