//! Reading the control block: the done flag, the kernel's error and the statistics.

use crate::error::KernelError;
use dyngc_artifact::Manifest;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::fmt;

/// Statistics of a run: every `executor.control.stats` word by name (value, meaning), the work
/// units each stage ran, and what the host did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// `(name, value, meaning)` in manifest order.
    pub fields: Vec<(String, u64, String)>,
    /// `(stage name, units run)` in stage id order.
    pub units_per_stage: Vec<(String, u64)>,
    pub host: HostStats,
}

/// What the host side of a run did and chose.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostStats {
    /// Command buffers submitted.
    pub submissions: u64,
    /// Launches of the main entry point recorded (`chain_length` per submission).
    pub launches: u64,
    pub workers: u32,
    pub ring_slots: u32,
    /// Frames of each worker's stack reserve.
    pub stack_frames: u32,
    pub arena_bytes: u64,
    pub fuel: u32,
    pub chain_length: u32,
    /// Wall-clock time from the first submission to the last read of the control block.
    pub elapsed_ms: u64,
    /// Times the stream windows were drained (each time a window filled, and once at the end).
    pub stream_drains: u64,
    /// Bytes of stream elements those drains delivered.
    pub stream_bytes: u64,
    /// Host time, in microseconds, of the blocking drains ([`crate::Run::drain`]) from recording
    /// the copy until the staging buffer was mapped (0 for the asynchronous [`crate::Stream`],
    /// which never waits), and of handing the elements to the sink or the collection.
    pub stream_copy_us: u64,
    pub stream_deliver_us: u64,
}

impl Stats {
    /// Value of the statistic called `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.fields.iter().find(|(n, _, _)| n == name).map(|(_, v, _)| *v)
    }

    /// Units the stage called `stage` ran.
    pub fn units(&self, stage: &str) -> Option<u64> {
        self.units_per_stage.iter().find(|(n, _)| n == stage).map(|(_, v)| *v)
    }

    pub fn total_units(&self) -> u64 {
        self.units_per_stage.iter().map(|(_, v)| v).sum()
    }
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a [(String, u64, String)]);
        impl Serialize for Fields<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Field<'a> {
                    name: &'a str,
                    value: u64,
                    meaning: &'a str,
                }
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (name, value, meaning) in self.0 {
                    seq.serialize_element(&Field {
                        name,
                        value: *value,
                        meaning,
                    })?;
                }
                seq.end()
            }
        }
        struct Units<'a>(&'a [(String, u64)]);
        impl Serialize for Units<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Unit<'a> {
                    stage: &'a str,
                    units: u64,
                }
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (stage, units) in self.0 {
                    seq.serialize_element(&Unit { stage, units: *units })?;
                }
                seq.end()
            }
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("fields", &Fields(&self.fields))?;
        map.serialize_entry("units_per_stage", &Units(&self.units_per_stage))?;
        map.serialize_entry("host", &self.host)?;
        map.end()
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name_w = self
            .fields
            .iter()
            .map(|(n, _, _)| n.len())
            .chain(self.units_per_stage.iter().map(|(n, _)| n.len() + 2))
            .chain([9])
            .max()
            .unwrap_or(9);
        let value_w = self
            .fields
            .iter()
            .map(|(_, v, _)| v.to_string().len())
            .chain(self.units_per_stage.iter().map(|(_, v)| v.to_string().len()))
            .chain([5])
            .max()
            .unwrap_or(5);
        writeln!(f, "{:<name_w$}  {:>value_w$}  meaning", "statistic", "value")?;
        for (name, value, meaning) in &self.fields {
            writeln!(f, "{name:<name_w$}  {value:>value_w$}  {meaning}")?;
        }
        if !self.units_per_stage.is_empty() {
            writeln!(f, "units per stage:")?;
            for (stage, units) in &self.units_per_stage {
                writeln!(f, "  {stage:<w$}  {units:>value_w$}", w = name_w - 2)?;
            }
        }
        let h = &self.host;
        write!(
            f,
            "host: {} submission{}, {} launches recorded, {} workers, {} ring slots, {} arena, fuel {}, {:.3} s",
            h.submissions,
            if h.submissions == 1 { "" } else { "s" },
            h.launches,
            h.workers,
            h.ring_slots,
            crate::size::format_bytes(h.arena_bytes),
            h.fuel,
            h.elapsed_ms as f64 / 1000.0
        )?;
        if h.stream_drains > 0 {
            write!(
                f,
                ", {} stream drain{} ({}, {:.3} s copying, {:.3} s delivering)",
                h.stream_drains,
                if h.stream_drains == 1 { "" } else { "s" },
                crate::size::format_bytes(h.stream_bytes),
                h.stream_copy_us as f64 / 1e6,
                h.stream_deliver_us as f64 / 1e6
            )?;
        }
        Ok(())
    }
}

/// The control block decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub done: bool,
    pub error: Option<KernelError>,
    /// A unit found a stream window full: the host drains the streams before launching again.
    pub stream_full: bool,
    /// Per stream (manifest order), per sub-window: (reserved, written) elements since the
    /// last drain.
    pub streams: Vec<Vec<(u32, u32)>>,
    /// Kernel statistics; `host` is left at its default.
    pub stats: Stats,
}

impl Snapshot {
    /// Decodes the control block's words (`executor.control.words` of them; missing words read
    /// as zero).
    pub fn decode(manifest: &Manifest, words: &[u32]) -> Snapshot {
        let c = &manifest.executor.control;
        let word = |i: u32| words.get(i as usize).copied().unwrap_or(0);
        let code = word(c.error);
        let error = (code != 0).then(|| {
            let stage_id = word(c.error + 1);
            let info = manifest.executor.errors.iter().find(|e| e.code == code);
            KernelError {
                code,
                name: info.map_or_else(|| "unknown".to_string(), |e| e.name.clone()),
                meaning: info.map_or_else(|| format!("unknown kernel error code {code}"), |e| e.meaning.clone()),
                stage_id,
                stage: manifest
                    .stages
                    .iter()
                    .find(|s| s.id == stage_id)
                    .map(|s| s.name.clone()),
                value: word(c.error + 2),
                bound: word(c.error + 3),
            }
        });
        let fields = c
            .stats
            .iter()
            .map(|s| (s.name.clone(), word(s.word) as u64, s.meaning.clone()))
            .collect();
        let mut stages: Vec<_> = manifest.stages.iter().collect();
        stages.sort_by_key(|s| s.id);
        let units_per_stage = stages
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), word(c.units_per_stage + i as u32) as u64))
            .collect();
        Snapshot {
            done: word(c.done) != 0,
            error,
            stream_full: manifest.executor.stream_full.is_some_and(|w| word(w) != 0),
            streams: manifest
                .executor
                .streams
                .iter()
                .map(|st| {
                    (0..word(st.sub_windows_word).min(st.max_sub_windows))
                        .map(|s| {
                            let at = st.counts_word + s * st.counts_stride;
                            (word(at), word(at + 1))
                        })
                        .collect()
                })
                .collect(),
            stats: Stats {
                fields,
                units_per_stage,
                host: HostStats::default(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::manifest;

    #[test]
    fn decodes_control() {
        let m = manifest();
        let mut w = vec![0u32; 32];
        w[3] = 1;
        w[8] = 12;
        w[9] = 7;
        w[16] = 1;
        w[17] = 40;
        w[18] = 100;
        let s = Snapshot::decode(&m, &w);
        assert!(s.done && s.error.is_none());
        assert_eq!(s.stats.get("launches"), Some(12));
        assert_eq!(s.stats.units("relax"), Some(100));
        assert_eq!(s.stats.total_units(), 141);
        w[4] = 1;
        w[5] = 1;
        w[6] = 25;
        w[7] = 24;
        let e = Snapshot::decode(&m, &w).error.unwrap();
        assert_eq!(
            e.to_string(),
            "stage `visit` exceeded its declared @max_depth(24) (reached 25)"
        );
        w[4] = 9;
        let e = Snapshot::decode(&m, &w).error.unwrap();
        assert_eq!(e.name, "unknown");
    }

    #[test]
    fn serializes_and_displays() {
        let m = manifest();
        let mut s = Snapshot::decode(&m, &[0; 32]).stats;
        s.host.submissions = 2;
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["fields"][0]["name"], "launches");
        assert_eq!(json["units_per_stage"][2]["stage"], "relax");
        assert_eq!(json["host"]["submissions"], 2);
        let text = s.to_string();
        assert!(
            text.starts_with("statistic    value  meaning\nlaunches         0  main launches\n"),
            "{text}"
        );
        assert!(text.contains("units per stage:\n  seed           0\n"), "{text}");
    }
}
