//! A thin wgpu runtime for dyngc artifacts: a WGSL module holding the persistent megakernel and
//! its [`Manifest`]. It knows nothing of the compiler; everything it does follows from the
//! manifest (see `docs/manifest.md` for the launch protocol it implements).
//!
//! ```no_run
//! # fn main() -> Result<(), dyngc_runtime::Error> {
//! # let (manifest, wgsl, x): (dyngc_runtime::Manifest, String, Vec<u8>) = unimplemented!();
//! let gpu = pollster::block_on(dyngc_runtime::open_gpu())?;
//! let executor = dyngc_runtime::Executor::new(&gpu.device, &manifest, &wgsl)?;
//! let mut setup = dyngc_runtime::RunSetup::new(64 << 20);
//! setup.input("x", &x).param("seed", 42);
//! let mut run = executor.prepare(&gpu.queue, &setup)?;
//! let stats = run.execute(&Default::default(), &mut |_progress| {})?;
//! for (name, bytes) in run.read_outputs()? { /* ... */ }
//! # Ok(()) }
//! ```
//!
//! A host that must never block (a frame loop, a browser) drives runs through a [`Stream`]
//! instead: [`Stream::submit`] and [`Stream::poll`] never wait on the device, every asynchronous
//! readback yields a [`Usage`] sample, and a [`Policy`] grows or shrinks the arena of later runs
//! from those samples (`docs/async.md`).

mod error;
mod executor;
mod gpu;
mod plan;
mod policy;
mod setup;
mod size;
mod stats;
mod stream;

pub use dyngc_artifact::{self as artifact, Manifest};
pub use error::{Error, KernelError};
pub use executor::{Executor, Progress, Run, StreamSink, WaitOptions};
pub use gpu::{open_gpu, Gpu};
pub use plan::{BufferPlan, DeviceLimits, Plan, WORD};
pub use policy::{used_bytes, Policy, PolicyConfig, Usage, USAGE_STATS};
pub use setup::{InputData, RunSetup};
pub use size::{format_bytes, parse_size};
pub use stats::{HostStats, Snapshot, Stats};
pub use stream::{Completed, JobId, Outcome, Stream};
pub use wgpu;
