//! How much of its arena a run used ([`Usage`], decoded from the control block) and the arena
//! sizing rule that follows the load ([`Policy`]). Both use only the manifest's arena layout and
//! statistics, so an engine that never links this crate can do the same (`docs/async.md`).

use crate::error::Error;
use crate::plan::WORD;
use crate::stats::Snapshot;
use dyngc_artifact::Manifest;
use std::collections::VecDeque;
use std::time::Duration;

/// The statistics [`Usage`] reads, by their manifest names.
pub const USAGE_STATS: [&str; 7] = [
    "ring_high_water",
    "stack_high_water",
    "fallback_spawns",
    "launches",
    "fuel_exhaustions",
    "batches",
    "idle_steps",
];

/// One observation of a run's arena: its size and layout, and the kernel's high-water marks so
/// far. Taken from any readback of the control block, final (`done`) or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// The arena size the run was prepared with (what [`crate::Stream::resize`] or the policy
    /// chose).
    pub arena_bytes: u64,
    /// Workers the run asked for; with `arena_bytes` it decides the layout (`docs/manifest.md`).
    pub requested_workers: u32,
    pub workers: u32,
    pub ring_slots: u32,
    /// Most slots in use in one ring shard, times the shards (the ring as full as its fullest
    /// shard).
    pub ring_high_water: u32,
    /// Most frames on one worker's stack at once.
    pub stack_high_water: u32,
    /// Arena bytes touched: every worker's stack up to the stack high-water mark, the ring up
    /// to its high-water mark ([`used_bytes`]).
    pub used_bytes: u64,
    /// Spawns the ring should have taken that found no room and ran serially on their spawner.
    pub fallback_spawns: u64,
    /// Launches of the main entry point that ran.
    pub launches: u64,
    /// Times a worker left a launch with work still on its stack.
    pub fuel_exhaustions: u64,
    /// Batches the workers ran, and plan steps in which a worker found nothing: with more idle
    /// steps than batches the workers were starved, not too few.
    pub batches: u64,
    pub idle_steps: u64,
    /// Whether the run had finished when the control block was copied.
    pub done: bool,
    /// From the run's first submission until the host saw this readback.
    pub elapsed: Duration,
}

impl Usage {
    /// Reads a decoded control block. `arena_bytes`, `requested_workers`, `workers` and
    /// `ring_slots` are what the host chose for the run; statistics the manifest lacks read as 0
    /// (see [`Policy::new`], which refuses such a manifest).
    pub fn new(
        manifest: &Manifest,
        snapshot: &Snapshot,
        arena_bytes: u64,
        requested_workers: u32,
        workers: u32,
        ring_slots: u32,
        elapsed: Duration,
    ) -> Usage {
        let stat = |name: &str| snapshot.stats.get(name).unwrap_or(0);
        let ring_high_water = stat("ring_high_water") as u32;
        let stack_high_water = stat("stack_high_water") as u32;
        Usage {
            arena_bytes,
            requested_workers,
            workers,
            ring_slots,
            ring_high_water,
            stack_high_water,
            used_bytes: used_bytes(manifest, workers, ring_slots, ring_high_water, stack_high_water),
            fallback_spawns: stat("fallback_spawns"),
            launches: stat("launches"),
            fuel_exhaustions: stat("fuel_exhaustions"),
            batches: stat("batches"),
            idle_steps: stat("idle_steps"),
            done: snapshot.done,
            elapsed,
        }
    }
}

/// Arena bytes a run touched: `workers * 4 * (1 + stack_high_water * frame_words)` (each
/// worker's stack-top word and its stack up to the high-water mark) plus
/// `ring_high_water * bytes_per_slot`. The marks are clamped to the layout (a worker's reserve,
/// the ring), so a stray statistic cannot claim more than the arena holds.
pub fn used_bytes(
    manifest: &Manifest,
    workers: u32,
    ring_slots: u32,
    ring_high_water: u32,
    stack_high_water: u32,
) -> u64 {
    let a = &manifest.executor.arena;
    let stack = stack_high_water.min(a.stack_frames) as u64;
    let ring = ring_high_water.min(ring_slots) as u64;
    workers as u64 * WORD * (1 + stack * a.frame_words as u64) + ring * a.bytes_per_slot
}

/// The knobs of [`Policy`]. [`PolicyConfig::new`] gives the defaults for a floor and ceiling.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyConfig {
    /// Smallest arena the policy picks; raised to the manifest's `min_bytes` if below it.
    pub floor: u64,
    /// Largest arena the policy picks.
    pub ceiling: u64,
    /// Each step multiplies (grow) or divides (shrink) the arena by this; more than 1.
    pub grow_factor: f64,
    /// A ring high-water mark of at least `touch * ring_slots` touches the capacity; in (0, 1].
    pub touch: f64,
    /// A finished run is calm when it used at most this fraction of its arena; in (0, 1).
    pub shrink_below: f64,
    /// Calm runs in a row, all at the current size, before a shrink; at least 1.
    pub shrink_after: u32,
}

impl PolicyConfig {
    /// Grow and shrink by 2; touch at 3/4 of the ring; shrink after 8 calm runs that used at
    /// most 1/8 of the arena.
    pub fn new(floor: u64, ceiling: u64) -> PolicyConfig {
        PolicyConfig {
            floor,
            ceiling,
            grow_factor: 2.0,
            touch: 0.75,
            shrink_below: 0.125,
            shrink_after: 8,
        }
    }
}

/// Arena sizing that follows the load, fed with [`Usage`] samples as they resolve:
///
/// - Only samples of runs prepared with the current size count (runs in flight keep the arena
///   they started with, so older samples describe a size already left behind).
/// - **Grow** at once when a sample, finished or not, is fallback-bound (`fallback_spawns >
///   idle_steps` and `ring_high_water >= touch * ring_slots`: the ring full, and more spawns
///   kept home than plan steps spent idle) or worker-bound (`fuel_exhaustions > 0` with
///   fewer workers than requested and `idle_steps <= batches`: its busy workers ran out of fuel with work on their stacks, and
///   the arena held no more of them; the executor keeps children home when no worker is hungry,
///   so such a run never fills the ring). The next size is `size * grow_factor`, at most the
///   ceiling.
/// - **Shrink** when the latest `shrink_after` finished samples were all calm (`used_bytes <=
///   shrink_below * size`, not fallback-bound) and the median of their fullest ring shards (the
///   upper median of an even window) would fill less than `touch` of a shard of the ring the
///   smaller size gets. The next size is `size / grow_factor`, at least the floor. The ring test
///   keeps the policy from shrinking into a ring that the same load would overflow (the worker
///   reserves are a fixed cost, so the ring does not shrink in proportion to the arena): the
///   median run, moved to the smaller size, would not touch its ring, which the grow rule asks
///   for. It compares shards, because a spawn falls back when its shard is full, and a ring
///   high-water mark is its fullest shard times the shards ([`Manifest::ring_shards`]): a few
///   busy workers lending to idle ones fill their home shards only, which, scaled to the ring,
///   read as a ring half full. It takes the median, because a calm run's fullest shard is one
///   spawner's burst: with 4 workers a shard, a shard of 32 slots, calm runs of the frame loop
///   filled 11 to 26 of them.
/// - Any other finished sample, and every change of size, restarts the count of calm samples.
#[derive(Clone, Debug)]
pub struct Policy {
    config: PolicyConfig,
    manifest: Manifest,
    size: u64,
    /// Fullest ring shards (slots) of the latest finished samples at this size, all calm; at
    /// most `shrink_after`.
    calm: VecDeque<u32>,
}

impl Policy {
    /// A policy starting at `initial` (clamped to the floor and ceiling). Refuses a manifest
    /// without the statistics it reads ([`USAGE_STATS`]) and knobs outside their ranges.
    pub fn new(manifest: &Manifest, mut config: PolicyConfig, initial: u64) -> Result<Policy, Error> {
        manifest.validate().map_err(Error::Manifest)?;
        for name in USAGE_STATS {
            if !manifest.executor.control.stats.iter().any(|s| s.name == name) {
                return Err(Error::Unsupported(format!(
                    "the arena policy needs the `{name}` statistic, which this program's manifest does not list"
                )));
            }
        }
        config.floor = config.floor.max(manifest.executor.arena.min_bytes);
        let bad = |what: String| Err(Error::Option(format!("arena policy: {what}")));
        if config.ceiling < config.floor {
            return bad(format!(
                "the ceiling ({} bytes) is below the floor ({} bytes, at least the program's minimum arena)",
                config.ceiling, config.floor
            ));
        }
        if !(config.grow_factor > 1.0 && config.grow_factor.is_finite()) {
            return bad(format!("the grow factor must be above 1 (got {})", config.grow_factor));
        }
        if !(config.touch > 0.0 && config.touch <= 1.0) {
            return bad(format!("`touch` must be in (0, 1] (got {})", config.touch));
        }
        if !(config.shrink_below > 0.0 && config.shrink_below < 1.0) {
            return bad(format!(
                "`shrink_below` must be in (0, 1) (got {})",
                config.shrink_below
            ));
        }
        if config.shrink_after == 0 {
            return bad("`shrink_after` must be at least 1".into());
        }
        let size = initial.clamp(config.floor, config.ceiling);
        Ok(Policy {
            config,
            manifest: manifest.clone(),
            size,
            calm: VecDeque::new(),
        })
    }

    pub fn config(&self) -> &PolicyConfig {
        &self.config
    }

    /// The arena size the policy wants for the next run.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Continues from `bytes`, a size the host chose (used as it is, even outside the floor and
    /// ceiling; the policy's next steps move back into its range).
    pub fn resize(&mut self, bytes: u64) {
        self.change(bytes);
    }

    /// Feeds one sample; returns the new size when it changes.
    pub fn observe(&mut self, usage: &Usage) -> Option<u64> {
        if usage.arena_bytes != self.size {
            return None;
        }
        let c = &self.config;
        // The ring full and more spawns kept home than plan steps the workers spent idle: work
        // waited for room. A small run whose busy workers lend to many idle ones fills a small
        // ring for a moment and keeps a few spawns home while the others idle: not a load.
        let fallback_bound = usage.fallback_spawns > usage.idle_steps
            && usage.ring_high_water as f64 >= c.touch * usage.ring_slots as f64;
        // Out of fuel with fewer workers than asked for, while the workers were busy: one
        // worker left with a long chain while the others idled says nothing about the arena.
        let worker_bound =
            usage.fuel_exhaustions > 0 && usage.workers < usage.requested_workers && usage.idle_steps <= usage.batches;
        if fallback_bound || worker_bound {
            // Never below the current size, should the host have set one above the ceiling.
            let next = ((self.size as f64 * c.grow_factor) as u64)
                .min(c.ceiling)
                .max(self.size);
            // Only an arena that holds more workers or ring slots helps (the ring may be at its
            // per-worker cap already).
            let gains = self.ring_slots_at(next, usage.requested_workers) > Some(usage.ring_slots)
                || self.workers_at(next, usage.requested_workers) > usage.workers;
            if gains {
                return self.change(next);
            }
        }
        if !usage.done {
            return None;
        }
        if usage.used_bytes as f64 > c.shrink_below * self.size as f64 {
            self.calm.clear();
            return None;
        }
        if self.calm.len() == c.shrink_after as usize {
            self.calm.pop_front();
        }
        let shards = self.manifest.ring_shards(usage.workers, usage.ring_slots);
        self.calm.push_back(usage.ring_high_water.div_ceil(shards));
        if self.calm.len() < c.shrink_after as usize {
            return None;
        }
        let next = ((self.size as f64 / c.grow_factor) as u64).max(c.floor).min(self.size);
        let mut fullest: Vec<u32> = self.calm.iter().copied().collect();
        fullest.sort_unstable();
        let median = fullest[fullest.len() / 2];
        let workers = self.workers_at(next, usage.requested_workers);
        let fits = self.ring_slots_at(next, usage.requested_workers).is_some_and(|slots| {
            (median as f64) < c.touch * (slots / self.manifest.ring_shards(workers, slots)) as f64
        });
        if fits {
            self.change(next)
        } else {
            None
        }
    }

    /// Workers an arena of `bytes` holds of `requested` (`docs/manifest.md`, the arena).
    fn workers_at(&self, bytes: u64, requested: u32) -> u32 {
        requested.min(self.manifest.max_workers(bytes)).max(1)
    }

    /// Ring slots an arena of `bytes` gets beside them; `None` below the minimum.
    fn ring_slots_at(&self, bytes: u64, requested: u32) -> Option<u32> {
        self.manifest.ring_slots(bytes, self.workers_at(bytes, requested))
    }

    fn change(&mut self, next: u64) -> Option<u64> {
        self.calm.clear();
        (next != self.size).then(|| {
            self.size = next;
            next
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::manifest;
    use dyngc_artifact::StatField;

    /// The test manifest (bytes_per_worker 484, bytes_per_slot 20, min 1764 bytes, 4 words a
    /// frame, 256 workers by default, `launches` in word 8) with the other statistics the
    /// policy reads in words 10, 11, 12.
    fn with_stats() -> Manifest {
        let mut m = manifest();
        for (word, name) in (10..).zip([
            "ring_high_water",
            "stack_high_water",
            "fallback_spawns",
            "fuel_exhaustions",
            "batches",
            "idle_steps",
        ]) {
            m.executor.control.stats.push(StatField {
                name: name.to_string(),
                word,
                meaning: String::new(),
            });
        }
        m
    }

    fn config() -> PolicyConfig {
        PolicyConfig {
            shrink_after: 3,
            ..PolicyConfig::new(0, 1 << 20)
        }
    }

    /// A sample of a run at `size` with these marks, laid out as the runtime would.
    fn sample(m: &Manifest, size: u64, ring_hw: u32, fallbacks: u64, done: bool) -> Usage {
        let workers = 256.min(m.max_workers(size)).max(1);
        let ring_slots = m.ring_slots(size, workers).unwrap();
        Usage {
            arena_bytes: size,
            requested_workers: 256,
            workers,
            ring_slots,
            ring_high_water: ring_hw.min(ring_slots),
            stack_high_water: 2,
            used_bytes: used_bytes(m, workers, ring_slots, ring_hw, 2),
            fallback_spawns: fallbacks,
            launches: 1,
            fuel_exhaustions: 0,
            batches: 10,
            idle_steps: 0,
            done,
            elapsed: Duration::from_millis(1),
        }
    }

    #[test]
    fn used_bytes_follows_the_layout() {
        let m = with_stats();
        // 3 workers: 4 bytes of stack top + 5 frames of 4 words each; 7 ring slots of 20 bytes.
        assert_eq!(used_bytes(&m, 3, 64, 7, 5), 3 * (4 + 5 * 16) + 7 * 20);
        // Marks past the layout are clamped to it (30 frames a stack, 64 slots).
        assert_eq!(used_bytes(&m, 1, 64, 1000, 1000), 4 + 30 * 16 + 64 * 20);
    }

    #[test]
    fn decodes_usage_from_the_control_block() {
        let m = with_stats();
        let mut words = vec![0u32; 32];
        words[3] = 1;
        words[10] = 9; // ring_high_water
        words[11] = 4; // stack_high_water
        words[12] = 17; // fallback_spawns
        words[8] = 5; // launches
        let u = Usage::new(
            &m,
            &Snapshot::decode(&m, &words),
            4096,
            8,
            2,
            64,
            Duration::from_millis(3),
        );
        assert_eq!((u.ring_high_water, u.stack_high_water), (9, 4));
        assert_eq!((u.fallback_spawns, u.launches, u.done), (17, 5, true));
        assert_eq!(u.used_bytes, 2 * (4 + 4 * 16) + 9 * 20);
    }

    #[test]
    fn refuses_bad_knobs_and_missing_stats() {
        assert!(matches!(
            Policy::new(&manifest(), config(), 0),
            Err(Error::Unsupported(e)) if e.contains("ring_high_water")
        ));
        let m = with_stats();
        let bad = [
            PolicyConfig::new(4096, 2048),
            PolicyConfig {
                grow_factor: 1.0,
                ..config()
            },
            PolicyConfig { touch: 0.0, ..config() },
            PolicyConfig {
                shrink_below: 1.0,
                ..config()
            },
            PolicyConfig {
                shrink_after: 0,
                ..config()
            },
        ];
        for c in bad {
            assert!(matches!(Policy::new(&m, c.clone(), 0), Err(Error::Option(_))), "{c:?}");
        }
        // The floor is raised to the program's minimum; the start is clamped into the range.
        let p = Policy::new(&m, config(), 0).unwrap();
        assert_eq!((p.config().floor, p.size()), (1764, 1764));
        assert_eq!(Policy::new(&m, config(), u64::MAX).unwrap().size(), 1 << 20);
    }

    #[test]
    fn grows_when_fallback_bound_up_to_the_ceiling() {
        let m = with_stats();
        let mut p = Policy::new(&m, config(), 4096).unwrap();
        // Fallbacks with a ring far from full are contention, not a lack of room.
        assert_eq!(p.observe(&sample(&m, 4096, 10, 5, true)), None);
        // A full ring without fallbacks is not fallback-bound either.
        assert_eq!(p.observe(&sample(&m, 4096, 1 << 20, 0, true)), None);
        // Nor a full ring with fewer fallbacks than idle steps: busy workers lending to idle
        // ones filled it for a moment.
        let mut lending = sample(&m, 4096, 1 << 20, 5, true);
        lending.idle_steps = 5;
        assert_eq!(p.observe(&lending), None);
        // Full ring and fallbacks, even before the run is done: grow at once.
        assert_eq!(p.observe(&sample(&m, 4096, 1 << 20, 5, false)), Some(8192));
        // Samples of runs still on the old size are ignored.
        assert_eq!(p.observe(&sample(&m, 4096, 1 << 20, 5, true)), None);
        let mut size = 8192;
        while size < 1 << 20 {
            let next = p.observe(&sample(&m, size, 1 << 20, 1, true)).unwrap();
            assert!(next > size && next <= 1 << 20);
            size = next;
        }
        assert_eq!(
            p.observe(&sample(&m, size, 1 << 20, 1, true)),
            None,
            "stays at the ceiling"
        );
    }

    /// With the ring at its per-worker cap, a fallback-bound run gains nothing from a larger
    /// arena: the policy stays.
    #[test]
    fn does_not_grow_past_the_rings_cap() {
        let mut m = with_stats();
        m.executor.arena.ring_slots_per_worker = 1;
        let mut p = Policy::new(&m, config(), 1 << 18).unwrap();
        let u = sample(&m, 1 << 18, 1 << 20, 5, false);
        assert_eq!((u.workers, u.ring_slots), (256, 256), "256 workers of one slot each");
        assert_eq!(p.observe(&u), None);
        m.executor.arena.ring_slots_per_worker = 0;
        let mut p = Policy::new(&m, config(), 1 << 18).unwrap();
        assert_eq!(p.observe(&sample(&m, 1 << 18, 1 << 20, 5, false)), Some(1 << 19));
    }

    #[test]
    fn grows_when_worker_bound() {
        let m = with_stats();
        let mut p = Policy::new(&m, config(), 4096).unwrap();
        let out_of_fuel = |size: u64, workers_short: bool| {
            let mut u = sample(&m, size, 1, 0, false);
            u.fuel_exhaustions = 3;
            if !workers_short {
                u.requested_workers = u.workers;
            }
            u
        };
        // Out of fuel with all the workers it asked for: more memory would not help.
        assert_eq!(p.observe(&out_of_fuel(4096, false)), None);
        // Out of fuel with fewer workers than asked for, but the others idled (one long
        // chain): more workers would not help either.
        let mut starved = out_of_fuel(4096, true);
        starved.idle_steps = starved.batches + 1;
        assert_eq!(p.observe(&starved), None);
        // Out of fuel with fewer, busy workers than asked for: grow, for more workers.
        assert_eq!(p.observe(&out_of_fuel(4096, true)), Some(8192));
    }

    #[test]
    fn shrinks_after_calm_runs_with_hysteresis() {
        let m = with_stats();
        let mut p = Policy::new(&m, config(), 1 << 20).unwrap();
        let calm = |p: &mut Policy| p.observe(&sample(&m, p.size(), 4, 0, true));
        assert_eq!(calm(&mut p), None);
        assert_eq!(calm(&mut p), None);
        // A busy run (more than 1/8 of the arena used) restarts the count.
        assert_eq!(p.observe(&sample(&m, 1 << 20, 1 << 20, 0, true)), None);
        // Runs not yet done do not count as calm.
        assert_eq!(p.observe(&sample(&m, 1 << 20, 4, 0, false)), None);
        assert_eq!(calm(&mut p), None);
        assert_eq!(calm(&mut p), None);
        assert_eq!(calm(&mut p), Some(1 << 19));
        // Down to the floor, one step per three calm runs, never below it.
        let mut steps = 1;
        while p.size() > 1764 {
            let before = p.size();
            assert_eq!(calm(&mut p), None);
            assert_eq!(calm(&mut p), None);
            let after = calm(&mut p);
            if after.is_none() {
                break;
            }
            assert!(after.unwrap() < before && after.unwrap() >= 1764);
            steps += 1;
        }
        assert!(steps >= 5, "{steps} shrink steps");
    }

    /// Every finished run calm by bytes (almost any use counts): only the ring test decides.
    fn loose() -> PolicyConfig {
        PolicyConfig {
            shrink_below: 0.99,
            ..config()
        }
    }

    /// Slots of one ring shard at `bytes` (256 workers requested), and the fullest shard of a
    /// ring high-water mark of `ring_hw` there.
    fn shard_slots(m: &Manifest, bytes: u64) -> Option<u32> {
        let workers = 256.min(m.max_workers(bytes)).max(1);
        let slots = m.ring_slots(bytes, workers)?;
        Some(slots / m.ring_shards(workers, slots))
    }

    fn fullest_shard(m: &Manifest, bytes: u64, ring_hw: u32) -> u32 {
        let workers = 256.min(m.max_workers(bytes)).max(1);
        let slots = m.ring_slots(bytes, workers).unwrap();
        ring_hw.min(slots).div_ceil(m.ring_shards(workers, slots))
    }

    #[test]
    fn the_median_calm_run_decides() {
        let m = with_stats();
        let mut p = Policy::new(&m, loose(), 1 << 16).unwrap();
        // 65536 bytes: 67 workers' reserves leave 1024 ring slots in 8 shards; half of it gets
        // 512 slots, for 33 workers: 4 shards of 128, which the median run must fill less than
        // 3/4 of (96 slots).
        assert_eq!(shard_slots(&m, 1 << 16), Some(128));
        assert_eq!(shard_slots(&m, 1 << 15), Some(128));
        assert_eq!(fullest_shard(&m, 1 << 16, 1000), 125);
        assert_eq!(p.observe(&sample(&m, 1 << 16, 1000, 0, true)), None);
        assert_eq!(p.observe(&sample(&m, 1 << 16, 1000, 0, true)), None);
        // The window (3 samples) holds 125, 125, 2: the median run would fill 125 > 96.
        assert_eq!(p.observe(&sample(&m, 1 << 16, 10, 0, true)), None);
        // Now 125, 2, 2: one burst does not hold the size.
        assert_eq!(p.observe(&sample(&m, 1 << 16, 10, 0, true)), Some(1 << 15));
    }

    /// A ring high-water mark is the fullest shard times the shards: 600 slots of a 1024-slot
    /// ring in 8 shards is one shard of 128 with 75 frames, under 3/4 of a shard of the smaller
    /// ring though 600 > 3/4 * 512 (the ring test before session 24 compared whole rings).
    #[test]
    fn compares_the_fullest_shard_not_the_whole_ring() {
        let m = with_stats();
        let mut p = Policy::new(&m, loose(), 1 << 16).unwrap();
        assert_eq!(m.ring_slots(1 << 15, 256.min(m.max_workers(1 << 15))), Some(512));
        for _ in 0..2 {
            assert_eq!(p.observe(&sample(&m, 1 << 16, 600, 0, true)), None);
        }
        assert_eq!(p.observe(&sample(&m, 1 << 16, 600, 0, true)), Some(1 << 15));
    }

    #[test]
    fn does_not_shrink_into_a_ring_the_load_would_fill() {
        let m = with_stats();
        // Every run calm by bytes (almost any use counts), but with a peak of 40 ring slots: the
        // policy shrinks while the fullest shard fills less than 3/4 of a shard of the smaller
        // size's ring, then stops.
        let touch = loose().touch;
        let mut p = Policy::new(&m, loose(), 1 << 20).unwrap();
        let mut sizes = vec![p.size()];
        for _ in 0..100 {
            if let Some(s) = p.observe(&sample(&m, p.size(), 40, 0, true)) {
                sizes.push(s);
            }
        }
        assert!(sizes.len() > 2, "it shrank: {sizes:?}");
        for w in sizes.windows(2) {
            let room = shard_slots(&m, w[1]).unwrap();
            assert!((fullest_shard(&m, w[0], 40) as f64) < touch * room as f64, "{sizes:?}");
        }
        let last = *sizes.last().unwrap();
        let fullest = fullest_shard(&m, last, 40);
        assert!(
            shard_slots(&m, last / 2).is_none_or(|room| fullest as f64 >= touch * room as f64),
            "{sizes:?}"
        );
    }
}
