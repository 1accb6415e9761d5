#!/usr/bin/env bash
# Builds, here, the two sides of bench/h200/s28/buffered.sh:
#   bench/h200/carry-vulkan/dyngc-bench   main (HEAD), by bench/h200/build-vulkan.sh
#   bench/h200/s28/buffered/dyngc-bench   HEAD with bench/h200/s28/buffered.patch applied (a
#                                         worktree under /tmp, this checkout's target directory)
# The patch (session 28, not measured on a GPU): a lane keeps the elements of several units of a
# buffered stream in its private buffer (up to STREAM_GRANT_UNITS maxima within
# EMIT_BUFFER_WORDS) and takes their slots with one atomicAdd when the buffer cannot hold the
# next unit's maximum, before it moves to another sub-window, and when its batch ends; with the
# loom model of it (two new paths, one new broken variant) and docs/executor.md.
#   bash bench/h200/s28/build-buffered.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
tree=/tmp/dyngc-variant-buffered
git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
git -C "$root" worktree add --detach "$tree" HEAD >/dev/null
git -C "$tree" apply "$root/bench/h200/s28/buffered.patch"
(cd "$tree" && DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)-buffered" CARGO_TARGET_DIR="$root/target" \
  cargo build --release -p dyngc-bench)
mkdir -p "$root/bench/h200/s28/buffered"
cp "$root/target/release/dyngc-bench" "$root/bench/h200/s28/buffered/"
strip "$root/bench/h200/s28/buffered/dyngc-bench"
git -C "$root" worktree remove --force "$tree"
# Main last, so that the shared target directory ends on HEAD's sources.
touch -c "$root"/crates/*/src/lib.rs
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
