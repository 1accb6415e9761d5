//! The per-graph WGSL the executor calls: parameter loading, entry seeding, the stage switch,
//! payload packing, keyed-mark addressing and one function per spawn site.

use crate::layout::Layout;
use crate::schedule::{Dispatch, Partition};
use dyngc_ir::{EdgeId, EdgeKind, IdVec, Program, RecursionStep, Scalar, SizeExpr, StageId, Ty};
use dyngc_syntax::ast::ResourceKind;
use std::fmt::Write;

/// A size expression as a WGSL `u32` expression.
pub fn size_expr(program: &Program, e: &SizeExpr) -> String {
    match e {
        SizeExpr::Int(v) => format!("{}u", (*v).min(u32::MAX as u64)),
        SizeExpr::Len(r) => format!("dyn_params.dyn_len_{}", program.resources[*r].name),
        SizeExpr::Param(p) => format!("u32(dyn_params.{})", program.params[*p].name),
        SizeExpr::Binary(op, a, b) => {
            format!("({} {} {})", size_expr(program, a), op.symbol(), size_expr(program, b))
        }
    }
}

fn scalar_from_word(s: Scalar, word: &str) -> String {
    match s {
        Scalar::U32 => word.to_string(),
        Scalar::I32 => format!("bitcast<i32>({word})"),
        Scalar::F32 => format!("bitcast<f32>({word})"),
    }
}

/// WGSL expression building a value of `ty` from consecutive words `word(i)`, starting at `*next`.
fn unpack(program: &Program, ty: &Ty, word: &dyn Fn(u32) -> String, next: &mut u32) -> String {
    let mut take = || {
        let w = word(*next);
        *next += 1;
        w
    };
    match ty {
        Ty::Scalar(s) | Ty::Atomic(s) => scalar_from_word(*s, &take()),
        Ty::Vector(n, s) => {
            let parts: Vec<String> = (0..*n).map(|_| scalar_from_word(*s, &take())).collect();
            format!("vec{n}<{}>({})", s.wgsl(), parts.join(", "))
        }
        Ty::Struct(i) => {
            let def = &program.structs[*i];
            let parts: Vec<String> = def.fields.iter().map(|(_, t)| unpack(program, t, word, next)).collect();
            format!("{}({})", def.name, parts.join(", "))
        }
    }
}

/// Where a spawn site writes a payload: the workgroup's staging area (persistent targets) or
/// straight into a queue frame in the arena (dispatched targets).
#[derive(Clone, Copy)]
enum PayloadSink {
    Staging,
    Arena,
    /// The lane's held unit (`dyn_held_words`), run next in registers or staged later.
    Held,
    /// The lane's private fallback stack (`dyn_fb`).
    Fallback,
}

/// Statements storing `value` of `ty` into words `o + i` of `sink`, starting at `*next`.
fn pack(program: &Program, ty: &Ty, value: &str, sink: PayloadSink, next: &mut u32, out: &mut String) {
    let mut store = |v: String, next: &mut u32| {
        let _ = match sink {
            PayloadSink::Staging => writeln!(out, "    dyn_wg_staging[o + {}u] = bitcast<u32>({v});", *next),
            PayloadSink::Arena => writeln!(out, "    atomicStore(&dyn_arena[o + {}u], bitcast<u32>({v}));", *next),
            PayloadSink::Held => writeln!(out, "    dyn_held_words[{}u] = bitcast<u32>({v});", *next),
            PayloadSink::Fallback => writeln!(out, "    dyn_fb[o + {}u] = bitcast<u32>({v});", *next),
        };
        *next += 1;
    };
    match ty {
        Ty::Scalar(_) | Ty::Atomic(_) => store(value.to_string(), next),
        Ty::Vector(n, _) => {
            for c in ["x", "y", "z", "w"].iter().take(*n as usize) {
                store(format!("{value}.{c}"), next);
            }
        }
        Ty::Struct(i) => {
            for (name, t) in &program.structs[*i].fields {
                pack(program, t, &format!("{value}.{name}"), sink, next, out);
            }
        }
    }
}

/// The function for spawn/become site `k`.
pub fn site_fn(program: &Program, partition: &Partition, k: EdgeId) -> String {
    let edge = &program.edges[k];
    let target = &program.stages[edge.to];
    let payload_ty = target.payload.as_ref().map(|(_, t)| t);
    let mut params = Vec::new();
    if let Some(t) = payload_ty {
        params.push(format!("p: {}", t.wgsl(&program.structs)));
    }
    if edge.kind == EdgeKind::FanOut {
        params.push("n: u32".to_string());
    }
    let mut out = format!("fn dyn_site_{k}({}) {{\n", params.join(", "));
    let to = edge.to;
    if chain_site(program, partition, k) {
        if payload_ty.is_some() {
            let _ = writeln!(out, "    dyn_next_{to} = p;");
        }
        out.push_str("    dyn_again = true;\n}\n");
        return out;
    }
    let queue = partition.queue(to);
    if let Some(q) = queue {
        let d = &partition.dispatches[q as usize];
        queue_push(program, d, q, edge.kind, &mut out);
        if !d.wide {
            return out;
        }
        // A wide target's full queue: spawn it as usual, for the persistent kernel.
    }
    if edge.kind == EdgeKind::Keyed {
        let domain = target
            .keyed
            .as_ref()
            .map(|d| size_expr(program, d))
            .unwrap_or_else(|| "0u".into());
        let _ = writeln!(out, "    dyn_push_keyed({to}u, p, {domain});\n}}");
        return out;
    }
    let rec = match edge.recursion {
        RecursionStep::Reset => "0u".to_string(),
        RecursionStep::Keep => "dyn_cur_rec".to_string(),
        RecursionStep::Increment => {
            let bound = target.recursion.map(|(_, d)| d).unwrap_or(0);
            format!("dyn_rec_increment({to}u, {bound}u)")
        }
    };
    // A `become`, or a single spawn from a one-lane stage, is held in the lane's registers: the
    // lane runs it next, in the same batch, unless something makes it stage the unit as a frame
    // (docs/executor.md, "Units in registers"): a carry for a `become` or a lone spawn, which
    // continues its chain at the same level, else a child. Wide bodies stage every spawn.
    let held = match edge.kind {
        EdgeKind::Become => Some("DYN_HELD_CARRY"),
        EdgeKind::Spawn if edge.lone => Some("DYN_HELD_CARRY"),
        EdgeKind::Spawn if program.stages[edge.from].width == 1 => Some("DYN_HELD_CHILD"),
        _ => None,
    };
    if let Some(kind) = held {
        let _ = writeln!(out, "    dyn_hold({kind}, {to}u, {rec});");
        if let Some(t) = payload_ty {
            pack(program, t, "p", PayloadSink::Held, &mut 0, &mut out);
        }
        out.push_str("}\n");
        return out;
    }
    match edge.kind {
        EdgeKind::FanOut => {
            if queue.is_none() {
                out.push_str("    if (n == 0u) {\n        return;\n    }\n");
            }
            let _ = writeln!(out, "    let o = dyn_push_child({to}u, n, {rec});");
        }
        EdgeKind::Spawn => {
            let _ = writeln!(out, "    let o = dyn_push_child({to}u, 1u, {rec});");
        }
        EdgeKind::Become | EdgeKind::Keyed => unreachable!("handled above"),
    }
    match payload_ty {
        Some(t) => pack(program, t, "p", PayloadSink::Staging, &mut 0, &mut out),
        None => out.push_str("    _ = o;\n"),
    }
    out.push_str("}\n");
    out
}

/// True if one-lane stage `stage` runs its chain of `become`s to itself in a loop inside its
/// `dyn_execute` case, with the payload in a typed private variable (`dyn_next_S`), rather than
/// through the lane's held words and the generic loop of `dyn_run_units` (docs/executor.md,
/// "Chains in a loop"). Keyed units, units that emit (each reserves room before it starts) and
/// recursion counters that change leave it to the generic path.
fn chain_loops(program: &Program, partition: &Partition, stage: StageId) -> bool {
    let st = &program.stages[stage];
    st.width == 1
        && st.keyed.is_none()
        && st.max_emits.is_empty()
        && partition.queue(stage).is_none()
        && st.sites.iter().any(|&k| is_self_carry(program, k))
}

fn is_self_carry(program: &Program, k: EdgeId) -> bool {
    let edge = &program.edges[k];
    edge.kind == EdgeKind::Become && edge.from == edge.to && edge.recursion == RecursionStep::Keep
}

/// True if site `k` writes its carry to the chain's private variable: a `become` of a stage to
/// itself that [`chain_loops`] runs in a loop, or the refill feeder's `become` of it.
fn chain_site(program: &Program, partition: &Partition, k: EdgeId) -> bool {
    (is_self_carry(program, k) && chain_loops(program, partition, program.edges[k].from))
        || refill(program, partition).is_some_and(|r| r.site == k)
}

/// A chain refilled from its range window (docs/executor.md, "Refills"): when a unit of `chain`
/// ends without a carry, the lane runs the window's next unit of `feeder` inside the chain's
/// loop, whose only site (`site`) is a `become` of `chain`.
#[derive(Clone, Copy)]
struct Refill {
    feeder: StageId,
    chain: StageId,
    site: EdgeId,
}

/// The program's refill, if any: the first looping chain with a feeder that is a one-lane,
/// payload-free stage of the persistent kernel, not keyed, not emitting, whose only site is a
/// `become` of the chain that keeps or resets the recursion counter.
fn refill(program: &Program, partition: &Partition) -> Option<Refill> {
    program
        .stages
        .ids()
        .filter(|&s| chain_loops(program, partition, s))
        .find_map(|chain| {
            program.stages.iter().find_map(|(feeder, st)| {
                let &[site] = st.sites.as_slice() else {
                    return None;
                };
                let edge = &program.edges[site];
                let fits = feeder != chain
                    && st.width == 1
                    && st.payload.is_none()
                    && st.keyed.is_none()
                    && st.max_emits.is_empty()
                    && partition.queue(feeder).is_none()
                    && edge.kind == EdgeKind::Become
                    && edge.to == chain
                    && edge.recursion != RecursionStep::Increment;
                fits.then_some(Refill { feeder, chain, site })
            })
        })
}

/// The refill's constants for stdlib/executor.wgsl's `dyn_run_units` (stage 0 twice when none:
/// the code that reads them never runs then).
fn refill_consts(program: &Program, partition: &Partition) -> String {
    let r = refill(program, partition);
    format!(
        "const DYN_REFILL: bool = {};
const DYN_REFILL_FEEDER: u32 = {}u;
const DYN_REFILL_CHAIN: u32 = {}u;

",
        r.is_some(),
        r.map_or(0, |r| r.feeder.index()),
        r.map_or(0, |r| r.chain.index()),
    )
}

/// `dyn_execute`'s case for the refill feeder: its `become` wrote the chain's variable, which
/// the lane holds as a carry, as any other `become`.
fn feeder_case(program: &Program, r: Refill) -> String {
    let reset = if program.edges[r.site].recursion == RecursionStep::Reset {
        "
                dyn_cur_rec = 0u;"
    } else {
        ""
    };
    format!(
        "dyn_again = false;
            dyn_stage_{}(0u, dyn_unit_index);
            if (dyn_again) {{{reset}
                dyn_hold_next_{}();
            }}",
        program.stages[r.feeder].name, r.chain
    )
}

/// `dyn_execute`'s case for a stage that [`chain_loops`]: its units run one after another while
/// the body `become`s itself, nothing else is held or staged and the lane's budget lasts; a carry
/// left when the loop stops is held as usual. The body is written into the loop where it can be
/// ([`inline_chain_case`]); otherwise the loop calls the stage function and tests its flag.
fn chain_case(program: &Program, partition: &Partition, stage: StageId) -> String {
    let st = &program.stages[stage];
    // The fallback stack holds one unit's entries: each unit of the chain empties it.
    let fallback = run_fallback(
        program,
        partition,
        Kernel::Persistent,
        std::iter::once(stage),
        "                ",
    );
    let refilled = refill(program, partition).filter(|r| r.chain == stage);
    if fallback.is_empty() {
        if let Some(case) = inline_chain_case(program, stage, refilled) {
            return case;
        }
    }
    let (first, call, next) = match &st.payload {
        Some((_, ty)) => (
            format!("var dyn_p = {};\n            ", unit_payload(program, ty)),
            "dyn_p",
            format!("\n                dyn_p = dyn_next_{stage};"),
        ),
        None => (String::new(), "0u", String::new()),
    };
    // A unit that ended without a carry is followed by the window's next unit of the feeder
    // (docs/executor.md, "Refills").
    let refill = refilled.map_or_else(String::new, |r| {
        let carry_var = st.payload.as_ref().map(|_| "dyn_p");
        let step = refill_step(program, r, carry_var, "continue;", "break;");
        format!("\nif (!dyn_again) {{\n{step}\n}}")
    });
    format!(
        "{first}loop {{
                dyn_again = false;
                dyn_stage_{}({call}, 0u);{fallback}{refill}
                // `|`, not `||`: four loads and no branches (3-4% of a collatz step on SwiftShader).
                if (!dyn_again | (dyn_held != DYN_HELD_NONE) | dyn_lane_staged | (dyn_lane_ran >= DYN_LANE_UNITS)) {{
                    break;
                }}{next}
                dyn_lane_ran += 1u;
            }}
            if (dyn_again) {{
                dyn_hold_next_{stage}();
            }}",
        st.name
    )
}

/// The chain's loop with the stage's body written into it ([`dyngc_ir::wgsl::chain_body`]): a
/// `become` of the stage itself sets the loop's payload and starts the next iteration, and the
/// unit's other ends take the refill or leave. One branch per unit where calling the stage
/// function and testing its flag took two: 24% of a collatz step on the H200 (docs/performance.md,
/// session 17). A body that can only carry on or return is written [`CHAIN_UNROLL`] times over
/// ([`unrolled_chain_case`]). `None` when the body's exits cannot reach the loop.
fn inline_chain_case(program: &Program, stage: StageId, refilled: Option<Refill>) -> Option<String> {
    let st = &program.stages[stage];
    let carry_var = st.payload.as_ref().map(|_| "dyn_p");
    let keep = if st.payload.is_some() {
        format!("dyn_next_{stage} = dyn_p; ")
    } else {
        String::new()
    };
    // Written once, after the loop of the body's units: outside the body's scope, so no name the
    // body declares can capture one the refill or the feeder's body uses.
    let refill = |take: &str, leave: &str| {
        refilled.map_or_else(
            || leave.to_string(),
            |r| refill_step(program, r, carry_var, take, leave),
        )
    };
    let mut start = String::new();
    let mut bind = String::new();
    if let Some((name, ty)) = &st.payload {
        let _ = write!(start, "var dyn_p = {};\n            ", unit_payload(program, ty));
        let _ = write!(bind, "let {name} = dyn_p;\n                ");
    }
    let hold = format!(
        "if (dyn_again) {{
                dyn_hold_next_{stage}();
            }}"
    );
    if let Some(case) = unrolled_chain_case(program, st, &bind, &keep, &refill) {
        return Some(format!(
            "{start}dyn_again = false;\n            {case}\n            {hold}"
        ));
    }
    let carry = format!(
        "if ((dyn_held != DYN_HELD_NONE) | dyn_lane_staged | (dyn_lane_ran >= DYN_LANE_UNITS)) {{ {keep}dyn_again = true; break; }} dyn_lane_ran += 1u; continue;"
    );
    let how = dyngc_ir::wgsl::ChainLoop {
        carries: &|k| is_self_carry(program, k),
        carry_var,
        carry: &carry,
        end: "break;",
        fall_through: false,
    };
    let body = dyngc_ir::wgsl::chain_body(program, st, &how)?;
    let step = refill("continue;", "break;");
    Some(format!(
        "{start}dyn_again = false;
            loop {{
                loop {{
                    {bind}{body}
                }}
                if (dyn_again) {{ break; }}
                {step}
            }}
            {hold}"
    ))
}

/// Copies of a chain's body in one loop iteration, at most: each ends by falling into the next
/// (the unit's `become` only assigns the payload), and the lane's unit budget is tested once
/// per iteration. The test was half of a collatz step on the H200: 181 ms for one worker
/// against 98 without it, and 134 ms with eight copies (docs/performance.md, session 18). So a
/// lane may run up to `CHAIN_UNROLL - 1` units past `DYN_LANE_UNITS` in a batch.
pub const CHAIN_UNROLL: usize = 8;
/// The most bytes of body text the copies may add up to: fewer copies of a long body.
pub const CHAIN_UNROLL_BYTES: usize = 4096;

/// The chain's loop with [`CHAIN_UNROLL`] copies of the body, for a body whose only sites are
/// its carries, each in tail position, that emits nothing and ends every path in a carry or a
/// `return` ([`dyngc_ir::wgsl::ChainLoop::fall_through`]); `None` otherwise. Such a body cannot
/// hold, stage or defer, so those flags are read once, before the copies. A `return` breaks out
/// of the copies' loop to the refill, written once after it, whose carry starts the copies anew.
fn unrolled_chain_case(
    program: &Program,
    st: &dyngc_ir::Stage,
    bind: &str,
    keep: &str,
    refill: &dyn Fn(&str, &str) -> String,
) -> Option<String> {
    let carry = "dyn_done += 1u;";
    let how = dyngc_ir::wgsl::ChainLoop {
        carries: &|k| is_self_carry(program, k),
        carry_var: st.payload.as_ref().map(|_| "dyn_p"),
        carry,
        end: "break;",
        fall_through: true,
    };
    let body = dyngc_ir::wgsl::chain_body(program, st, &how)?;
    let copies = (CHAIN_UNROLL_BYTES / body.len().max(1)).clamp(1, CHAIN_UNROLL);
    let copy = format!("{{\n                    {bind}{body}\n                }}\n                ");
    let step = refill("continue;", "break;");
    Some(format!(
        "loop {{
                let dyn_ran0 = dyn_lane_ran;
                let dyn_budget = select(DYN_LANE_UNITS - min(dyn_ran0, DYN_LANE_UNITS), 0u, (dyn_held != DYN_HELD_NONE) | dyn_lane_staged);
                var dyn_done = 0u;
                loop {{
                {}if (dyn_done >= dyn_budget) {{ {keep}dyn_again = true; break; }}
                }}
                // The held carry was counted by its `become` and has not run.
                dyn_lane_ran = dyn_ran0 + dyn_done - select(0u, 1u, dyn_again);
                if (dyn_again) {{ break; }}
                {step}
            }}",
        copy.repeat(copies)
    ))
}

/// The refill of a chain (docs/executor.md, "Refills"), where one of its units ended without a
/// carry: the window's next unit of the feeder, counted as the lane's and as a refill (which
/// `dyn_run_units` moves to the feeder's count), then `take` with its carry in the chain's
/// variable. `leave` (a `break` of the chain's loop) when the lane leaves the loop as the generic
/// loop would (window empty, something held or staged, budget spent) or when that unit ends
/// without its `become` (`dyn_run_units` then takes the next index). Written out after the
/// body's units, outside their scope: a call there cost SwiftShader a fifth of collatz's time
/// (docs/performance.md, session 17).
fn refill_step(program: &Program, r: Refill, carry_var: Option<&str>, take: &str, leave: &str) -> String {
    // The chain's counter: the window's (kept by the `become`) or a new one.
    let rec = if program.edges[r.site].recursion == RecursionStep::Reset {
        "0u"
    } else {
        "dyn_win_rec"
    };
    let head = format!(
        "if ((dyn_win_n == 0u) | (dyn_held != DYN_HELD_NONE) | dyn_lane_staged | ((dyn_lane_ran + 1u) >= DYN_LANE_UNITS)) {{ {leave} }}
let dyn_k = atomicAdd(&dyn_wg_next, 1u);
if (dyn_k >= dyn_win_n) {{ dyn_win_n = 0u; {leave} }}
dyn_cur_rec = {rec};
dyn_refills += 1u;
dyn_lane_ran += 1u;
"
    );
    // The feeder's body, written here too where its exits can reach the loop.
    let feeder = &program.stages[r.feeder];
    let carry = format!("dyn_lane_ran += 1u; {take}");
    let how = dyngc_ir::wgsl::ChainLoop {
        carries: &|k| k == r.site,
        carry_var,
        carry: &carry,
        end: leave,
        fall_through: false,
    };
    let run = match dyngc_ir::wgsl::chain_body(program, feeder, &how) {
        Some(body) => {
            let bind = feeder
                .index
                .as_ref()
                .map_or(String::new(), |i| format!("let {i} = dyn_win_lo + dyn_k;\n"));
            format!("{{\n{bind}{body}\n}}")
        }
        None => {
            // The feeder's `become` set `dyn_again`; its carry is taken here, so it is cleared:
            // set, it would read as a carry the loop stopped on, and be held and run again.
            let copy = carry_var.map_or(String::new(), |v| format!("{v} = dyn_next_{}; ", r.chain));
            format!(
                "dyn_again = false;\ndyn_stage_{}(0u, dyn_win_lo + dyn_k);\nif (!dyn_again) {{ {leave} }}\n{copy}dyn_again = false; {carry}",
                feeder.name
            )
        }
    };
    head + &run
}

/// The private variable a looping stage's carry waits in, and the function that holds it as a
/// carry when the loop stops.
fn chain_decls(program: &Program, stage: StageId) -> String {
    let payload = program.stages[stage].payload.as_ref().map(|(_, ty)| ty);
    let mut out = String::new();
    if let Some(ty) = payload {
        let _ = writeln!(out, "var<private> dyn_next_{stage}: {};\n", ty.wgsl(&program.structs));
    }
    let _ = writeln!(
        out,
        "fn dyn_hold_next_{stage}() {{\n    dyn_hold(DYN_HELD_CARRY, {stage}u, dyn_cur_rec);"
    );
    if let Some(ty) = payload {
        pack(
            program,
            ty,
            &format!("dyn_next_{stage}"),
            PayloadSink::Held,
            &mut 0,
            &mut out,
        );
    }
    out.push_str("}\n\n");
    out
}

/// The start of a site whose target is dispatched: a frame in the target's queue. When the
/// queue is full, a one-lane target's indices go onto the lane's fallback stack, which ends the
/// site function (the serial fallback of the partitioned schedule, [`fallback_wgsl`]); a wide
/// target's site goes on to spawn it for the persistent kernel.
fn queue_push(program: &Program, d: &Dispatch, q: u32, kind: EdgeKind, out: &mut String) {
    let to = d.stage;
    let target = &program.stages[to];
    let count = if kind == EdgeKind::FanOut {
        out.push_str("    if (n == 0u) {\n        return;\n    }\n");
        "n"
    } else {
        "1u"
    };
    let _ = writeln!(
        out,
        "    let queued = dyn_queue_push({q}u, {to}u, {count}, {}u, {});\n    if (queued != DYN_QUEUE_FULL) {{\n        let o = queued;",
        d.chunk(),
        !d.wide
    );
    match &target.payload {
        Some((_, t)) => pack(program, t, "p", PayloadSink::Arena, &mut 0, out),
        None => out.push_str("    _ = o;\n"),
    }
    out.push_str("        return;\n    }\n");
    if !d.wide {
        let _ = writeln!(out, "    let o = dyn_fallback_push({to}u, {count});");
        match &target.payload {
            Some((_, t)) => pack(program, t, "p", PayloadSink::Fallback, &mut 0, out),
            None => out.push_str("    _ = o;\n"),
        }
        let _ = writeln!(out, "    atomicAdd(&dyn_control[DYN_C_UNITS + {to}u], {count});\n}}");
    }
}

/// True if a unit of `stage` can leave entries on the fallback stack: it spawns a one-lane
/// dispatched stage. Its kernel runs the stack after it ([`run_fallback`]).
fn falls_back(program: &Program, partition: &Partition, stage: StageId) -> bool {
    program.stages[stage]
        .sites
        .iter()
        .any(|&k| partition.bypasses_staging(program.edges[k].to))
}

/// Which kernel a unit runs in: the persistent one, or dispatch `q`'s. Each has its own
/// `dyn_fallback_run` holding only the bodies its units can reach.
#[derive(Clone, Copy)]
enum Kernel {
    Persistent,
    Dispatch(usize),
}

impl Kernel {
    fn run_fn(self) -> String {
        match self {
            Kernel::Persistent => "dyn_fallback_run".into(),
            Kernel::Dispatch(q) => format!("dyn_fallback_run_q{q}"),
        }
    }

    /// The stages whose units this kernel runs directly.
    fn roots(self, program: &Program, partition: &Partition) -> Vec<StageId> {
        match self {
            Kernel::Persistent => program.stages.ids().filter(|&s| partition.queue(s).is_none()).collect(),
            Kernel::Dispatch(q) => vec![partition.dispatches[q].stage],
        }
    }
}

/// The one-lane dispatched stages a fallback can run from units of `roots`, in id order.
fn fallback_reach(program: &Program, partition: &Partition, roots: &[StageId]) -> Vec<StageId> {
    let mut seen = program.stages.map(|_, _| false);
    let mut todo: Vec<StageId> = roots.to_vec();
    while let Some(s) = todo.pop() {
        for &k in &program.stages[s].sites {
            let t = program.edges[k].to;
            if partition.bypasses_staging(t) && !seen[t] {
                seen[t] = true;
                todo.push(t);
            }
        }
    }
    seen.iter().filter(|&(_, &s)| s).map(|(t, _)| t).collect()
}

/// The statement (`indent` deep) running `kernel`'s fallback stack after a unit of any of
/// `stages`, if one can fill it. Callers put it once after their switch over stages: a driver
/// that inlines calls copies `dyn_fallback_run` once per call site.
fn run_fallback(
    program: &Program,
    partition: &Partition,
    kernel: Kernel,
    mut stages: impl Iterator<Item = StageId>,
    indent: &str,
) -> String {
    if stages.any(|s| falls_back(program, partition, s)) {
        format!("\n{indent}{}();", kernel.run_fn())
    } else {
        String::new()
    }
}

/// Entries the fallback stack can hold at once. A unit of `s` pushes at most `max_spawns`
/// entries; running the top entry's next index leaves it there and pushes its unit's own, so
/// the stack holds at most the sum along one path of the (acyclic) graph of dispatched stages.
fn fallback_entries(program: &Program, partition: &Partition) -> u32 {
    let own = |s: StageId| {
        if falls_back(program, partition, s) {
            program.stages[s].max_spawns
        } else {
            0
        }
    };
    let mut need = program.stages.map(|_, _| 0u32);
    let deepest = |s: StageId, need: &IdVec<StageId, u32>| {
        program.stages[s]
            .sites
            .iter()
            .map(|&k| program.edges[k].to)
            .filter(|&t| partition.bypasses_staging(t))
            .map(|t| need[t])
            .max()
            .unwrap_or(0)
    };
    // Dispatches are in topological order: children first when walked backwards.
    for d in partition.dispatches.iter().rev() {
        need[d.stage] = own(d.stage).saturating_add(deepest(d.stage, &need));
    }
    program
        .stages
        .ids()
        .map(|s| own(s).saturating_add(deepest(s, &need)))
        .max()
        .unwrap_or(0)
}

/// Words before the payload of a fallback entry: a frame's header without its recursion counter
/// (dispatched stages do not recurse), the next index and the end at `DYN_F_LO` and `DYN_F_HI`.
const FALLBACK_HEADER_WORDS: u32 = 3;

/// The partitioned schedule's serial fallback: a spawn that finds a one-lane target's queue full
/// pushes `[stage, next index, end, payload...]` on the lane's private stack; after the unit,
/// its kernel calls its `dyn_fallback_run`, which runs the top entry's next index until the
/// stack is empty (depth first, so the stack stays within [`fallback_entries`]). A kernel's
/// `dyn_fallback_run` holds each body its units can reach once, so what it compiles grows
/// linearly with the graph; direct calls from the sites copied a body once per path to it.
pub fn fallback_wgsl(program: &Program, partition: &Partition) -> String {
    let targets: Vec<StageId> = partition
        .dispatches
        .iter()
        .filter(|d| !d.wide)
        .map(|d| d.stage)
        .collect();
    if targets.is_empty() {
        return String::new();
    }
    let payload_words = targets
        .iter()
        .map(|&t| {
            program.stages[t]
                .payload
                .as_ref()
                .map_or(0, |(_, ty)| ty.words(&program.structs))
        })
        .max()
        .unwrap_or(0);
    let entries = fallback_entries(program, partition).max(1);
    let mut out = format!(
        "
const DYN_FB_HEADER: u32 = {FALLBACK_HEADER_WORDS}u;
const DYN_FB_WORDS: u32 = {words}u;
const DYN_FB_ENTRIES: u32 = {entries}u;
// One entry more than the bound: a push past it (a dyngc bug) writes there and fails the run.
var<private> dyn_fb: array<u32, {total}>;
var<private> dyn_fb_top: u32;

fn dyn_fallback_push(stage: u32, n: u32) -> u32 {{
    var e = dyn_fb_top;
    if (e >= DYN_FB_ENTRIES) {{
        dyn_fail(DYN_ERR_INTERNAL, stage, e, DYN_FB_ENTRIES);
        e = DYN_FB_ENTRIES;
    }} else {{
        dyn_fb_top = e + 1u;
    }}
    let f = e * DYN_FB_WORDS;
    dyn_fb[f] = stage;
    dyn_fb[f + DYN_F_LO] = 0u;
    dyn_fb[f + DYN_F_HI] = n;
    return f + DYN_FB_HEADER;
}}

",
        words = FALLBACK_HEADER_WORDS + payload_words,
        total = (FALLBACK_HEADER_WORDS + payload_words) * (entries + 1),
    );
    let kernels = std::iter::once(Kernel::Persistent).chain((0..partition.dispatches.len()).map(Kernel::Dispatch));
    for kernel in kernels {
        let reach = fallback_reach(program, partition, &kernel.roots(program, partition));
        if reach.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "
fn {}() {{
    loop {{
        if (dyn_fb_top == 0u) {{
            break;
        }}
        let f = (dyn_fb_top - 1u) * DYN_FB_WORDS;
        let index = dyn_fb[f + DYN_F_LO];
        if (index + 1u >= dyn_fb[f + DYN_F_HI]) {{
            dyn_fb_top -= 1u;
        }} else {{
            dyn_fb[f + DYN_F_LO] = index + 1u;
        }}
        // The payload is read before the body runs: its pushes may reuse the entry.
        switch dyn_fb[f] {{
",
            kernel.run_fn()
        );
        for &t in &reach {
            let stage = &program.stages[t];
            let payload = stage.payload.as_ref().map_or("0u".to_string(), |(_, ty)| {
                unpack(program, ty, &|i| format!("dyn_fb[f + DYN_FB_HEADER + {i}u]"), &mut 0)
            });
            let _ = writeln!(
                out,
                "            case {t}u: {{\n                let p = {payload};\n                dyn_stage_{}(p, index);\n            }}",
                stage.name
            );
        }
        out.push_str("            default: {\n                dyn_fb_top = 0u;\n            }\n        }\n    }\n}\n");
    }
    out
}

/// A payload of type `ty` read from the frame that starts at word `f` of the arena.
fn frame_payload(program: &Program, ty: &Ty) -> String {
    unpack(
        program,
        ty,
        &|i| format!("atomicLoad(&dyn_arena[f + DYN_FRAME_HEADER + {i}u])"),
        &mut 0,
    )
}

/// The call running unit `dyn_unit_index` of `stage`, its payload read by `payload` (from a frame, or
/// from the lane's registers).
fn call_stage(program: &Program, stage: StageId, payload: fn(&Program, &Ty) -> String) -> String {
    let s = &program.stages[stage];
    let payload = s
        .payload
        .as_ref()
        .map_or("0u".to_string(), |(_, ty)| payload(program, ty));
    format!("dyn_stage_{}({payload}, dyn_unit_index)", s.name)
}

/// A payload of type `ty` from the lane's unit words (`dyn_unit_words`, loaded from its frame or
/// moved from a held unit).
fn unit_payload(program: &Program, ty: &Ty) -> String {
    unpack(program, ty, &|i| format!("dyn_unit_words[{i}u]"), &mut 0)
}

/// One compute entry point per dispatched stage: its workgroups drain the stage's queue.
pub fn dispatch_kernels(program: &Program, partition: &Partition) -> String {
    // Queue q's stage, for the error of a check launch (dyn_check_dispatches).
    let mut out = String::from("fn dyn_queue_stage(q: u32) -> u32 {\n    switch q {\n");
    for (q, d) in partition.dispatches.iter().enumerate() {
        let _ = writeln!(
            out,
            "        case {q}u: {{\n            return {}u;\n        }}",
            d.stage
        );
    }
    out.push_str("        default: {\n            return DYN_STAGES;\n        }\n    }\n}\n");
    for (q, d) in partition.dispatches.iter().enumerate() {
        let wg = d.workgroup_size;
        // One lane per unit, several units per lane; or a wide stage's one unit on all lanes at
        // a time, from uniform control flow (`take` is uniform), as its barriers need.
        let after = run_fallback(
            program,
            partition,
            Kernel::Dispatch(q),
            std::iter::once(d.stage),
            "            ",
        );
        let run = if d.wide {
            format!(
                "for (var j = 0u; j < take[2]; j++) {{
            let dyn_unit_index = take[1] + j;
            {};{after}
        }}
        if (lid == 0u) {{
            units += take[2];
        }}",
                call_stage(program, d.stage, frame_payload)
            )
        } else {
            format!(
                "for (var j = lid; j < take[2]; j += {wg}u) {{
            let dyn_unit_index = take[1] + j;
            {};{after}
            units += 1u;
        }}",
                call_stage(program, d.stage, frame_payload)
            )
        };
        let _ = write!(
            out,
            "\n@compute @workgroup_size({wg})\nfn {entry}(@builtin(local_invocation_index) lid: u32, @builtin(num_workgroups) groups: vec3<u32>) {{
    dyn_load_params();
    dyn_lane_index = lid;
    var units = 0u;
    loop {{
        if (lid == 0u) {{
            dyn_queue_take({q}u, {chunk}u);
        }}
        let take = workgroupUniformLoad(&dyn_q_take);
        if (take[2] == 0u) {{
            break;
        }}
        let f = take[0];
        {run}
        // All lanes are done with `take` before lane 0 claims the next chunk into dyn_q_take.
        // (Without this barrier OpenGL on an NVIDIA H200 hung once a dispatch had a few
        // workgroups; bench/results/h200-partitioned-hang.md.)
        workgroupBarrier();
    }}
    dyn_queue_leave({q}u, {stage}u, lid, units, groups.x);
}}
",
            entry = dispatch_entry_point(program, d),
            chunk = d.chunk(),
            stage = d.stage,
        );
    }
    out
}

/// The entry point name of a dispatched stage.
pub fn dispatch_entry_point(program: &Program, d: &Dispatch) -> String {
    format!("dyn_dispatch_{}", program.stages[d.stage].name)
}

const EXECUTE_DEFAULT: &str =
    "        default: {\n            dyn_fail(DYN_ERR_INTERNAL, dyn_unit_stage, dyn_unit_index, DYN_STAGES);\n        }\n    }";

/// Everything else the executor calls (see the header of stdlib/executor.wgsl).
pub fn executor_glue(program: &Program, partition: &Partition, layout: &Layout) -> String {
    let mut out = refill_consts(program, partition);
    out.push_str("fn dyn_load_params() {\n    dyn_stack_setup();\n");
    for p in program.params.values() {
        let _ = writeln!(out, "    {0} = dyn_params.{0};", p.name);
    }
    out.push_str("}\n\n");

    let entry = &program.entry;
    let _ = writeln!(
        out,
        "fn dyn_entry_stage() -> u32 {{\n    return {}u;\n}}\n",
        entry.stage
    );
    let _ = writeln!(
        out,
        "fn dyn_entry_count() -> u32 {{\n    return {};\n}}\n",
        size_expr(program, &entry.count)
    );

    // The graph-level loop: its exit condition and round limit (docs/executor.md, "Rounds").
    let _ = writeln!(out, "const DYN_LOOP: bool = {};", entry.until.is_some());
    let _ = writeln!(
        out,
        "const DYN_MAX_ROUNDS: u32 = {}u;\n",
        entry.max_rounds.unwrap_or(u32::MAX)
    );
    out.push_str("fn dyn_until() -> bool ");
    match &entry.until {
        Some(block) => out.push_str(&program.source[block.span.clone()]),
        None => out.push_str("{\n    return true;\n}"),
    }
    out.push_str("\n\n");

    // Queues of dispatched stages: set up by dyn_init; a dispatched entry is queued there and
    // leaves the persistent kernel nothing to do, so the run is done once this chain has run.
    out.push_str("fn dyn_seed_queues() -> bool {\n");
    if !partition.dispatches.is_empty() {
        out.push_str("    dyn_queues_init();\n");
    }
    match partition.queue(entry.stage) {
        Some(q) => {
            let chunk = partition.dispatches[q as usize].chunk();
            // The queue is empty: its first frame is taken whatever the host's cap.
            let _ = writeln!(
                out,
                "    let count = dyn_entry_count();\n    if (count > 0u) {{\n        _ = dyn_queue_push({q}u, {}u, count, {chunk}u, false);\n    }}\n    return true;\n}}\n",
                entry.stage
            );
        }
        None => out.push_str("    return false;\n}\n\n"),
    }
    if partition.dispatches.is_empty() {
        // With queues, stdlib/queues.wgsl defines both: the run ends after the dispatches.
        out.push_str("fn dyn_finish() {\n    dyn_stop();\n}\n\nfn dyn_check_dispatches() {\n}\n\n");
    }

    // Two switches: Tint rejects a call of a function with a barrier (a wide body) from
    // non-uniform control flow even where it cannot happen, and one-lane units run under `lid`.
    // Dispatched stages run in their own kernels only.
    // Parameters in the generator's namespace: a chain's body written into a case sees them.
    out.push_str("fn dyn_execute(dyn_unit_stage: u32, dyn_unit_index: u32) {\n    switch dyn_unit_stage {\n");
    let one_lane = || {
        program
            .stages
            .iter()
            .filter(|&(s, st)| st.width == 1 && partition.queue(s).is_none())
            .map(|(s, _)| s)
    };
    let mut chains = String::new();
    let fed = refill(program, partition);
    for id in one_lane() {
        let case = if chain_loops(program, partition, id) {
            chains.push_str(&chain_decls(program, id));
            chain_case(program, partition, id)
        } else if let Some(r) = fed.filter(|r| r.feeder == id) {
            feeder_case(program, r)
        } else {
            let domain = program.stages[id].keyed.as_ref().map(|d| size_expr(program, d));
            crate::streams::execute_case(program, id, &call_stage(program, id, unit_payload), domain)
        };
        let _ = writeln!(out, "        case {id}u: {{\n            {case}\n        }}");
    }
    out.push_str(EXECUTE_DEFAULT);
    let run = run_fallback(program, partition, Kernel::Persistent, one_lane(), "    ");
    let _ = write!(out, "{run}\n}}\n\n{chains}");
    // Wide units: every lane calls this from uniform control flow; the lanes of a group without
    // a unit run the body too (they must reach its barriers) with index 0 and a zero payload.
    out.push_str(
        "fn dyn_execute_wide(dyn_unit_stage: u32, dyn_unit_index: u32, f: u32) {\n    switch dyn_unit_stage {\n",
    );
    for (id, stage) in program.stages.iter().filter(|(_, s)| s.width > 1) {
        let p = match &stage.payload {
            Some((_, ty)) => {
                let _ = writeln!(
                    out,
                    "        case {id}u: {{\n            var p = {}();\n            if (dyn_lane_active) {{\n                p = {};\n            }}",
                    ty.wgsl(&program.structs),
                    frame_payload(program, ty)
                );
                "p"
            }
            None => {
                let _ = writeln!(out, "        case {id}u: {{");
                "0u"
            }
        };
        let _ = writeln!(
            out,
            "            dyn_stage_{}({p}, dyn_unit_index);\n        }}",
            stage.name
        );
    }
    out.push_str(EXECUTE_DEFAULT);
    let wide = program.stages.iter().filter(|(_, s)| s.width > 1).map(|(s, _)| s);
    let run = run_fallback(program, partition, Kernel::Persistent, wide, "    ");
    let _ = write!(out, "{run}\n}}\n\n");
    let per_stage = |name: &str, value: &dyn Fn(StageId) -> u32, default: u32| {
        let mut f = format!("fn {name}(stage: u32) -> u32 {{\n    switch stage {{\n");
        for id in program.stages.ids() {
            let v = value(id);
            if v != default {
                let _ = writeln!(f, "        case {id}u: {{\n            return {v}u;\n        }}");
            }
        }
        let _ = write!(
            f,
            "        default: {{\n            return {default}u;\n        }}\n    }}\n}}\n\n"
        );
        f
    };
    let _ = writeln!(
        out,
        "const DYN_WIDE: bool = {};\n",
        program.stages.values().any(|s| s.width > 1)
    );
    out.push_str(&per_stage("dyn_width", &|id| program.stages[id].width, 1));

    // Units of a wide stage in one batch (0 for a one-lane stage).
    out.push_str(&per_stage(
        "dyn_wide_groups",
        &|id| {
            if program.stages[id].width > 1 {
                layout.units[id]
            } else {
                0
            }
        },
        0,
    ));

    // Keyed marks: stages in id order, each ceil(domain / 32) words.
    let keyed: Vec<(StageId, String)> = program
        .stages
        .iter()
        .filter_map(|(id, s)| {
            s.keyed
                .as_ref()
                // ceil(domain / 32) without `domain + 31u`, which wraps for the largest domains.
                .map(|d| {
                    let d = size_expr(program, d);
                    (id, format!("({d} / 32u + u32({d} % 32u != 0u))"))
                })
        })
        .collect();
    let predicate = |out: &mut String, name: &str, ids: &mut dyn Iterator<Item = StageId>| {
        let test: Vec<String> = ids.map(|id| format!("stage == {id}u")).collect();
        let test = if test.is_empty() {
            "false".into()
        } else {
            test.join(" || ")
        };
        let _ = writeln!(out, "fn {name}(stage: u32) -> bool {{\n    return {test};\n}}\n");
    };
    predicate(&mut out, "dyn_is_keyed", &mut keyed.iter().map(|(id, _)| *id));
    predicate(
        &mut out,
        "dyn_becomes",
        &mut program.stages.iter().filter(|(_, s)| s.becomes).map(|(id, _)| id),
    );
    let offset = |upto: usize| -> String {
        let parts: Vec<&str> = keyed.iter().take(upto).map(|(_, w)| w.as_str()).collect();
        if parts.is_empty() {
            "0u".into()
        } else {
            parts.join(" + ")
        }
    };
    out.push_str("fn dyn_mark_offset(stage: u32) -> u32 {\n");
    for (i, (id, _)) in keyed.iter().enumerate() {
        let _ = writeln!(out, "    if (stage == {id}u) {{\n        return {};\n    }}", offset(i));
    }
    out.push_str("    return 0u;\n}\n\n");
    out.push_str(
        "fn dyn_mark_word(stage: u32, key: u32) -> u32 {\n    return dyn_mark_offset(stage) + key / 32u;\n}\n\n",
    );
    let _ = writeln!(
        out,
        "fn dyn_keyed_words() -> u32 {{\n    return {};\n}}\n",
        offset(keyed.len())
    );
    out.push_str("fn dyn_word_stage(word: u32) -> u32 {\n");
    for (i, (id, _)) in keyed.iter().enumerate() {
        let _ = writeln!(
            out,
            "    if (word < {}) {{\n        return {id}u;\n    }}",
            offset(i + 1)
        );
    }
    out.push_str("    return 0u;\n}\n\n");
    out.push_str("fn dyn_word_first_key(word: u32) -> u32 {\n    return (word - dyn_mark_offset(dyn_word_stage(word))) * 32u;\n}\n");
    out
}

/// The uniform struct: executor configuration, then user parameters, array lengths and stream
/// window capacities.
pub fn params_struct(program: &Program) -> String {
    let mut out = String::from("struct DynParams {\n    dyn_workers: u32,\n    dyn_ring_slots: u32,\n    dyn_fuel: u32,\n    dyn_dispatch_groups: u32,\n    dyn_queue_frames: u32,\n    dyn_stack_frames: u32,\n");
    for p in program.params.values() {
        let _ = writeln!(out, "    {}: {},", p.name, p.ty.wgsl());
    }
    for r in length_slots(program) {
        let _ = writeln!(out, "    dyn_len_{}: u32,", r.name);
    }
    for r in program.resources.values().filter(|r| r.stream) {
        let _ = writeln!(out, "    dyn_cap_{}: u32,", r.name);
    }
    out.push_str("}\n");
    out
}

/// Resources whose element count the host passes in the parameter uniform, after the user
/// parameters, in declaration order.
pub fn length_slots(program: &Program) -> impl Iterator<Item = &dyngc_ir::Resource> {
    program.resources.values().filter(|r| r.is_array)
}

/// True if some resource's WGSL access needs the binding declared read-write.
pub fn is_writable(kind: ResourceKind) -> bool {
    kind != ResourceKind::Input
}
