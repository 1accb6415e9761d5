#!/usr/bin/env bash
# Builds, here, what bench/h200/s31/confirm.sh carries:
#   bench/h200/carry-vulkan/dyngc-bench  HEAD
#   bench/h200/s31/old/dyngc-bench       HEAD without the stream buffer of ed9fa05
#                                        (bench/h200/s31/unbuffered.patch: the reverse of its
#                                        crates/codegen/src/streams.rs)
#   bench/h200/s31/rec/dyngc-bench       HEAD with the recursion counter word in every frame
#                                        again (bench/h200/s31/rec-word.patch: the reverse of
#                                        session 31's frames without it)
# and moves vk-pipeline-stats out of the carry folder (to /tmp): three binaries and the tracked
# tree stay under the device's 64 MiB carry.
#   bash bench/h200/s31/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s31/old" "$root/bench/h200/s31/unbuffered.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s31/rec" "$root/bench/h200/s31/rec-word.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
