#!/usr/bin/env bash
# Builds the git-ignored sides of this session's device calls, here (not on the device):
#   sw128/dyngc-bench   `STREAM_SUB_WINDOWS` 128 instead of 32   (subwindows.sh)
#   floor0/dyngc-bench  `MIN_STACK_HALF_BATCHES` 0 instead of 1  (floor.sh)
# each from HEAD in a worktree under /tmp with one constant of crates/codegen/src/layout.rs
# changed, sharing this checkout's target directory (so main's release binary there is
# overwritten: run bench/h200/build-vulkan.sh after, not before, if it must be current).
#   bash bench/h200/s26/build-variants.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build() { # NAME CONSTANT VALUE
  local tree="/tmp/dyngc-variant-$1"
  git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
  git -C "$root" worktree add --detach "$tree" HEAD >/dev/null
  sed -i "s/^pub const $2: u32 = [0-9]*;/pub const $2: u32 = $3;/" "$tree/crates/codegen/src/layout.rs"
  grep -q "^pub const $2: u32 = $3;" "$tree/crates/codegen/src/layout.rs"
  (cd "$tree" && DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)-$1" CARGO_TARGET_DIR="$root/target" \
    cargo build --release -p dyngc-bench)
  mkdir -p "$root/bench/h200/s26/$1"
  cp "$root/target/release/dyngc-bench" "$root/bench/h200/s26/$1/"
  git -C "$root" worktree remove --force "$tree"
}
build sw128 STREAM_SUB_WINDOWS 128
build floor0 MIN_STACK_HALF_BATCHES 0
