#!/usr/bin/env bash
# Builds, here, what the session 33 device call carries:
#   bench/h200/carry-vulkan/dyngc-bench  HEAD (idle workers sweep keyed marks only once a hint
#                                        was dropped: marks_left)
#   bench/h200/s33/head/dyngc-bench      HEAD without 93fb425's gate (every idle worker sweeps,
#                                        as at 4f54505)
# and moves vk-pipeline-stats out of the carry folder.
#   bash bench/h200/s33/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
git -C "$root" diff 93fb425 4f54505 -- stdlib crates/codegen/src > /tmp/s33-ungate.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s33/head" /tmp/s33-ungate.patch
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
