#!/usr/bin/env bash
# Builds, here, what the session 33 device call carries:
#   bench/h200/carry-vulkan/dyngc-bench  HEAD (idle workers sweep keyed marks only once a hint
#                                        was dropped: marks_left)
#   bench/h200/s33/head/dyngc-bench      HEAD~1 (4f54505: every idle worker sweeps)
# and moves vk-pipeline-stats out of the carry folder.
#   bash bench/h200/s33/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
git -C "$root" diff HEAD~1 HEAD -- stdlib crates/codegen/src > /tmp/s33-gate.patch
git -C "$root" apply -R --check /tmp/s33-gate.patch
git -C "$root" diff HEAD HEAD~1 -- stdlib crates/codegen/src > /tmp/s33-ungate.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s33/head" /tmp/s33-ungate.patch
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
