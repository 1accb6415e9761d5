//! Compiles `examples/tree.dyn` into `OUT_DIR` (`tree.wgsl`, `tree.manifest.json` and the typed
//! names in `tree.rs`), as an engine would at its own build time: the program itself then embeds
//! only the artifact.

fn main() {
    dyngc_build::Build::new("../tree.dyn")
        .schedule(dyngc_build::ScheduleChoice::Megakernel)
        .compile();
}
