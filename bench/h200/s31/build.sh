#!/usr/bin/env bash
# Builds, here, what bench/h200/s31/confirm.sh carries: bench/h200/s31/old/dyngc-bench, HEAD with
# the stream buffer of ed9fa05 taken out again (bench/h200/s31/unbuffered.patch, the reverse of
# its crates/codegen/src/streams.rs), and bench/h200/carry-vulkan/dyngc-bench, HEAD; and moves
# vk-pipeline-stats out of the carry folder (to /tmp) to keep the call under the 64 MiB carry.
#   bash bench/h200/s31/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s31/old" "$root/bench/h200/s31/unbuffered.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
