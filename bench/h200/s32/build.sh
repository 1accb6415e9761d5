#!/usr/bin/env bash
# Builds, here, what the next device calls carry:
#   bench/h200/carry-vulkan/dyngc-bench  HEAD
#   bench/h200/s32/lendall/dyngc-bench   HEAD without session 32's lone frame and hint kept at home
#                                        (bench/h200/s32/lend-all.patch)
#   bench/h200/s31/rec/dyngc-bench       HEAD with the recursion counter word in every frame
#                                        (bench/h200/s31/rec-word.patch)
# and moves vk-pipeline-stats out of the carry folder: three binaries stay under the 64 MiB carry.
#   bash bench/h200/s32/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s32/lendall" "$root/bench/h200/s32/lend-all.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s31/rec" "$root/bench/h200/s31/rec-word.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
