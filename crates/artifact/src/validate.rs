//! The manifest's internal consistency, which an engine checks before trusting its numbers.

use crate::{Access, Manifest, Role, SCHEMA};

impl Manifest {
    /// Checks the manifest's internal consistency, so nothing later divides by zero or indexes out
    /// of range: one parameter uniform, control block and arena; offsets inside their blocks;
    /// element sizes whole words; unique names, binding slots and stage ids.
    pub fn validate(&self) -> Result<(), String> {
        let m = self;
        let bad = |msg: String| Err(msg);
        if m.schema != SCHEMA {
            return bad(format!("schema is `{}`, this runtime reads `{}`", m.schema, SCHEMA));
        }
        if m.workgroup_size == 0 {
            return bad("workgroup_size is 0".into());
        }
        for role in [Role::Params, Role::Control, Role::Arena, Role::Marks] {
            let n = m.bindings.iter().filter(|b| b.role == role).count();
            if n > 1 || (n == 0 && role != Role::Marks) {
                return bad(format!(
                    "expected {} binding with role {role:?}, found {n}",
                    if role == Role::Marks {
                        "at most one"
                    } else {
                        "exactly one"
                    }
                ));
            }
        }
        for (i, b) in m.bindings.iter().enumerate() {
            if m.bindings[..i].iter().any(|o| o.name == b.name) {
                return bad(format!("binding name `{}` appears twice", b.name));
            }
            if m.bindings[..i]
                .iter()
                .any(|o| (o.group, o.binding) == (b.group, b.binding))
            {
                return bad(format!("@group({}) @binding({}) appears twice", b.group, b.binding));
            }
            if b.element.size == 0 || b.element.size % 4 != 0 {
                return bad(format!(
                    "`{}` has element size {}, not a positive multiple of 4",
                    b.name, b.element.size
                ));
            }
            if b.group >= 8 {
                return bad(format!(
                    "`{}` is in @group({}); at most 8 groups are supported",
                    b.name, b.group
                ));
            }
            let uniform = b.access == Access::Uniform;
            if uniform != (b.role == Role::Params) {
                return bad(format!("`{}` has role {:?} but access {:?}", b.name, b.role, b.access));
            }
        }
        let ex = &m.executor;
        if ex.params_size < 12 || ex.params_size % 16 != 0 {
            return bad(format!(
                "params_size {} is not a multiple of 16 holding the executor config",
                ex.params_size
            ));
        }
        let in_uniform = |what: &str, off: u32| -> Result<(), String> {
            if off % 4 != 0 || off as u64 + 4 > ex.params_size as u64 {
                return Err(format!(
                    "{what} offset {off} is outside the {}-byte parameter uniform",
                    ex.params_size
                ));
            }
            Ok(())
        };
        in_uniform("config.workers", ex.config.workers)?;
        in_uniform("config.ring_slots", ex.config.ring_slots)?;
        in_uniform("config.fuel", ex.config.fuel)?;
        for slot in &ex.lengths {
            in_uniform(&format!("length of `{}`", slot.binding), slot.offset)?;
            if !m
                .bindings
                .iter()
                .any(|b| b.name == slot.binding && matches!(b.role, Role::Input | Role::Output | Role::Buffer))
            {
                return bad(format!(
                    "executor.lengths names `{}`, which is not a user binding",
                    slot.binding
                ));
            }
        }
        for p in &m.params {
            in_uniform(&format!("parameter `{}`", p.name), p.offset)?;
        }
        let c = &ex.control;
        let in_control = |what: &str, word: u32, count: u64| -> Result<(), String> {
            if word as u64 + count > c.words as u64 {
                return Err(format!(
                    "control {what} (word {word}, {count} words) is outside the {}-word block",
                    c.words
                ));
            }
            Ok(())
        };
        in_control("indirect_args", c.indirect_args, 3)?;
        in_control("done", c.done, 1)?;
        in_control("error", c.error, 4)?;
        for s in &c.stats {
            in_control(&format!("stat `{}`", s.name), s.word, 1)?;
        }
        in_control("units_per_stage", c.units_per_stage, m.stages.len() as u64)?;
        for d in &m.entry_points.dispatches {
            in_control(
                &format!("dispatch `{}` indirect_args", d.entry_point),
                d.indirect_args,
                3,
            )?;
        }
        let stream_bindings = m.bindings.iter().filter(|b| b.role == Role::Stream).count();
        if stream_bindings != ex.streams.len() || (stream_bindings > 0) != ex.stream_full.is_some() {
            return bad(format!(
                "{stream_bindings} stream bindings, {} entries in executor.streams, stream_full {:?}: they must agree",
                ex.streams.len(),
                ex.stream_full
            ));
        }
        if let Some(w) = ex.stream_full {
            in_control("stream_full", w, 1)?;
        }
        for st in &ex.streams {
            if !m
                .bindings
                .iter()
                .any(|b| b.name == st.binding && b.role == Role::Stream)
            {
                return bad(format!(
                    "executor.streams names `{}`, which is not a stream binding",
                    st.binding
                ));
            }
            in_uniform(&format!("capacity of `{}`", st.binding), st.capacity_offset)?;
            in_control(&format!("sub-window count of `{}`", st.binding), st.sub_windows_word, 1)?;
            if st.max_sub_windows == 0 || !st.max_sub_windows.is_power_of_two() || st.counts_stride < 2 {
                return bad(format!(
                    "stream `{}`: max_sub_windows {} must be a power of two and counts_stride {} at least 2",
                    st.binding, st.max_sub_windows, st.counts_stride
                ));
            }
            let last = st.counts_word as u64 + (st.max_sub_windows as u64 - 1) * st.counts_stride as u64;
            in_control(
                &format!("counts of `{}`", st.binding),
                st.counts_word,
                last - st.counts_word as u64 + 2,
            )?;
        }
        let a = &ex.arena;
        if a.bytes_per_worker == 0 || a.bytes_per_slot == 0 {
            return bad("arena bytes_per_worker and bytes_per_slot must be positive".into());
        }
        if ex.defaults.workers == 0 || ex.defaults.fuel == 0 || ex.defaults.chain_length == 0 {
            return bad("executor defaults must be positive".into());
        }
        for (i, s) in m.stages.iter().enumerate() {
            if m.stages[..i].iter().any(|o| o.id == s.id) {
                return bad(format!("stage id {} appears twice", s.id));
            }
        }
        if !m.stages.iter().any(|s| s.id == m.entry.stage) {
            return bad(format!("the entry's stage {} is not a stage", m.entry.stage));
        }
        Ok(())
    }
}
