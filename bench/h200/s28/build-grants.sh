#!/usr/bin/env bash
# Builds the git-ignored sides of session 28's stream call (bench/h200/s28/grant.sh), here:
#   grant16/dyngc-bench    this checkout as it is (`STREAM_GRANT_UNITS` 16)
#   grant256/dyngc-bench   the same with `STREAM_GRANT_UNITS` 256 (crates/codegen/src/layout.rs)
# Main's side is bench/h200/carry-vulkan (bench/h200/build-vulkan.sh at a commit before the grant).
#   bash bench/h200/s28/build-grants.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
layout=crates/codegen/src/layout.rs
build() { # NAME UNITS
  sed -i "s/^pub const STREAM_GRANT_UNITS: u32 = [0-9]*;/pub const STREAM_GRANT_UNITS: u32 = $2;/" "$layout"
  grep -q "^pub const STREAM_GRANT_UNITS: u32 = $2;" "$layout"
  DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)-$1" cargo build --release -p dyngc-bench
  mkdir -p "bench/h200/s28/$1"
  cp target/release/dyngc-bench "bench/h200/s28/$1/"
}
trap 'sed -i "s/^pub const STREAM_GRANT_UNITS: u32 = [0-9]*;/pub const STREAM_GRANT_UNITS: u32 = 16;/" "$layout"' EXIT
build grant256 256
build grant16 16
