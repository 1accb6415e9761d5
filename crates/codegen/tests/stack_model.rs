//! A model of one worker's stack under the reserve rule (docs/executor.md, "Why the stack fits
//! in its reserve"): random programs within a depth bound D and F frames a unit, batches formed
//! as `dyn_gather` and `dyn_plan` form them (stdlib/executor.wgsl, `dyn_unit_room`), frames lent
//! to and claimed from a ring at random. Checks, for every reserve from the floor
//! `(D + 1) * F + B` up, that the stack never holds more than R frames and that every batch on a
//! non-empty stack runs at least one unit. Breaking the rule (stamping a child at the batch's
//! own depth, or forgetting that a frame taken in part stays) must fail the check. The kernel
//! forms a gathered batch by a prefix scan over the lanes (`dyn_gather_scan`); the model runs
//! that scan too and checks that it forms the batch the walk does.

/// A frame: its stored depth (what the kernel knows), its true spawn depth, its index count.
#[derive(Clone, Copy, Debug)]
struct Frame {
    depth: u32,
    true_depth: u32,
    size: u32,
}

/// xorshift64*: deterministic runs without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % n.max(1) as u64) as u32
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Rule,
    ChildAtBatchDepth,
    PartialFramePopped,
    /// Gathered batches formed by the kernel's prefix scan (`dyn_gather_scan`), each checked
    /// against the walk of `take`.
    Scanned,
    /// The scan with each frame's own depth instead of the shallowest so far: must differ.
    ScannedOwnDepth,
}

/// A packed scan word holds a depth from `DYN_DEPTH_SHIFT` up and a lane count below.
use dyngc_codegen::{DEPTH_SHIFT, SIZE_CLASSES};
const PACK_LANES: u32 = (1 << DEPTH_SHIFT) - 1;

struct Model {
    d: u32,
    f: u32,
    b: u32,
    r: u32,
    variant: Variant,
}

impl Model {
    /// `dyn_unit_room`: units a batch may run that leaves `left` frames, shallowest `depth`.
    fn room(&self, left: u32, depth: u32) -> u32 {
        let slots = self.r.saturating_sub(left) / self.f;
        slots.saturating_sub(self.d - depth.min(self.d))
    }

    /// Forms a batch from the stack's top (`dyn_gather`, or a range window for a top frame wider
    /// than a batch): the units' true depths and the batch's shallowest stored depth.
    fn take(&self, stack: &mut Vec<Frame>) -> (Vec<u32>, u32) {
        let top = *stack.last().expect("a batch needs frames");
        let height = stack.len() as u32;
        if top.size > self.b {
            let lanes = self.b.min(self.room(height, top.depth));
            stack.last_mut().unwrap().size -= lanes;
            return (vec![top.true_depth; lanes as usize], top.depth);
        }
        let (mut units, mut depth, mut full) = (Vec::new(), self.d, 0u32);
        while let Some(&fr) = stack.iter().rev().nth(full as usize) {
            let count = units.len() as u32;
            let d = depth.min(fr.depth);
            if count + fr.size <= self.b.min(self.room(height - full - 1, d)) {
                units.extend(std::iter::repeat_n(fr.true_depth, fr.size as usize));
                depth = d;
                full += 1;
                continue;
            }
            let left = if self.variant == Variant::PartialFramePopped {
                height - full - 1
            } else {
                height - full
            };
            let room = self.b.min(self.room(left, d));
            if room > count {
                let i = stack.len() - 1 - full as usize;
                stack[i].size -= room - count;
                units.extend(std::iter::repeat_n(fr.true_depth, (room - count) as usize));
                depth = d;
            }
            break;
        }
        stack.truncate(stack.len() - full as usize);
        (units, depth)
    }

    /// `take` for a gathered batch the way the kernel forms it: every lane's frame weighed by a
    /// Hillis-Steele scan of packed (shallowest depth, capped index count) words, the first frame
    /// not taken whole the least failing lane (`dyn_gather_scan`), then lane 0 takes it in part
    /// (`dyn_gather`).
    fn take_scanned(&self, stack: &mut Vec<Frame>) -> (Vec<u32>, u32) {
        let height = stack.len() as u32;
        let n = height.min(self.b);
        let frame = |j: u32| stack[stack.len() - 1 - j as usize];
        let mut acc: Vec<u32> = (0..self.b)
            .map(|lid| {
                let (depth, size) = if lid < n {
                    (frame(lid).depth.min(self.d), frame(lid).size.min(self.b + 1))
                } else {
                    (self.d, 0)
                };
                (depth << DEPTH_SHIFT) | size
            })
            .collect();
        let own = acc.clone();
        let mut step = 1;
        while step < n {
            let above = acc.clone();
            for lid in step..self.b {
                let (a, b) = (above[(lid - step) as usize], acc[lid as usize]);
                let depth = if self.variant == Variant::ScannedOwnDepth {
                    b
                } else {
                    a.min(b)
                };
                acc[lid as usize] = (depth & !PACK_LANES) + (a & PACK_LANES) + (b & PACK_LANES);
            }
            step <<= 1;
        }
        let full = (0..n)
            .find(|&lid| {
                let count = acc[lid as usize] & PACK_LANES;
                let before = count - (own[lid as usize] & PACK_LANES);
                let room = self
                    .b
                    .min(self.room(height - lid - 1, acc[lid as usize] >> DEPTH_SHIFT));
                before >= self.b || count > room
            })
            .unwrap_or(n);
        let before = if full == 0 {
            self.d << DEPTH_SHIFT
        } else {
            acc[full as usize - 1]
        };
        let (count, mut depth) = (before & PACK_LANES, before >> DEPTH_SHIFT);
        let mut units: Vec<u32> = (0..full)
            .flat_map(|j| std::iter::repeat_n(frame(j).true_depth, frame(j).size as usize))
            .collect();
        if full < n && count < self.b {
            let d = depth.min(frame(full).depth);
            let room = self.b.min(self.room(height - full, d));
            if room > count {
                units.extend(std::iter::repeat_n(frame(full).true_depth, (room - count) as usize));
                let i = stack.len() - 1 - full as usize;
                stack[i].size -= room - count;
                depth = d;
            }
        }
        stack.truncate(stack.len() - full as usize);
        (units, depth)
    }

    /// One run: returns the most frames the stack held, or the first broken promise.
    fn run(&self, seed: u64) -> Result<u32, String> {
        let mut rng = Rng(seed | 1);
        let mut stack: Vec<Frame> = Vec::new();
        let mut ring: Vec<Frame> = vec![Frame {
            depth: 0,
            true_depth: 0,
            size: 1 + rng.below(4 * self.b),
        }];
        let mut high = 0;
        for _ in 0..400 {
            if stack.is_empty() {
                if ring.is_empty() {
                    break;
                }
                // A claim: up to a batch of ring frames onto the empty stack.
                let n = (1 + rng.below(self.b)).min(ring.len() as u32) as usize;
                stack.extend(ring.drain(..n));
                high = high.max(stack.len() as u32);
                continue;
            }
            let scanned = matches!(self.variant, Variant::Scanned | Variant::ScannedOwnDepth);
            let (units, depth) = if scanned && stack.last().unwrap().size <= self.b {
                let mut walked = stack.clone();
                let batch = self.take(&mut walked);
                let before = stack.clone();
                let got = self.take_scanned(&mut stack);
                if got != batch || walked.iter().map(|f| f.size).ne(stack.iter().map(|f| f.size)) {
                    return Err(format!(
                        "the scan formed {got:?} where the walk formed {batch:?} from {before:?}"
                    ));
                }
                got
            } else {
                self.take(&mut stack)
            };
            if units.is_empty() {
                return Err(format!("a batch took nothing from a stack of {}", stack.len()));
            }
            let (mut carries, mut children) = (Vec::new(), Vec::new());
            for &t in &units {
                // Frames of the unit, or of a descendant it ran in registers (deeper, same budget).
                let t = (t + rng.below(2)).min(self.d - 1);
                let mut budget = self.f;
                if rng.below(3) == 0 {
                    carries.push(Frame {
                        depth,
                        true_depth: t,
                        size: 1,
                    });
                    budget -= 1;
                }
                if t + 1 < self.d {
                    for _ in 0..rng.below(budget + 1) {
                        let stamp = if self.variant == Variant::ChildAtBatchDepth {
                            depth
                        } else {
                            depth + 1
                        };
                        let size = if rng.below(2) == 0 {
                            1
                        } else {
                            1 + rng.below(3 * self.b)
                        };
                        children.push(Frame {
                            depth: stamp.min(self.d),
                            true_depth: t + 1,
                            size,
                        });
                    }
                }
            }
            // Some children and an old frame go to the ring; carries stay, below the children.
            // Over half the reserve, the kernel orders the children by size (`dyn_publish`):
            // four indices or more first, to the ring, the smallest on top of the stack.
            let lent = rng.below(children.len() as u32 + 1) as usize;
            if 2 * (stack.len() + carries.len() + children.len() - lent) > self.r as usize {
                children.sort_by_key(|f| std::cmp::Reverse(f.size.min(SIZE_CLASSES)));
            }
            ring.extend(children.drain(..lent));
            if rng.below(4) == 0 && stack.len() > 1 {
                ring.push(stack.remove(0));
            }
            stack.extend(carries);
            stack.extend(children);
            high = high.max(stack.len() as u32);
            if stack.len() as u32 > self.r {
                return Err(format!(
                    "the stack holds {} frames, more than its reserve of {}",
                    stack.len(),
                    self.r
                ));
            }
        }
        Ok(high)
    }
}

/// Every shape of program the layout produces: depth bounds, frames a unit, batch widths, and
/// reserves from the floor to several times it.
fn check(variant: Variant) -> Result<(), String> {
    for (d, f, b) in [
        (1, 1, 4),
        (2, 3, 4),
        (5, 2, 8),
        (12, 1, 16),
        (3, 4, 64),
        (26, 1, 64),
        (52, 1, 64),
    ] {
        let floor = (d + 1) * f + b;
        for r in [floor, floor + 1, floor + f * b / 2, 2 * floor, 4 * floor] {
            let model = Model { d, f, b, r, variant };
            for seed in 0..300 {
                model
                    .run(seed * 7919 + u64::from(r))
                    .map_err(|e| format!("D {d}, F {f}, B {b}, R {r}, seed {seed}: {e}"))?;
            }
        }
    }
    Ok(())
}

#[test]
fn the_stack_stays_within_every_reserve_from_the_floor_up() {
    check(Variant::Rule).unwrap();
}

#[test]
fn the_scan_forms_the_batch_the_walk_forms() {
    check(Variant::Scanned).unwrap();
}

#[test]
fn a_scan_without_the_shallowest_depth_forms_other_batches() {
    assert!(check(Variant::ScannedOwnDepth).is_err());
}

#[test]
fn a_child_stamped_at_its_batchs_depth_overflows() {
    assert!(check(Variant::ChildAtBatchDepth).is_err());
}

#[test]
fn a_partly_taken_frame_counted_as_gone_overflows() {
    assert!(check(Variant::PartialFramePopped).is_err());
}
