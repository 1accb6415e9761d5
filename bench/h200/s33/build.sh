#!/usr/bin/env bash
# Builds, here, what the session 33 device calls carry:
#   bench/h200/carry-vulkan/dyngc-bench  HEAD (the calls ran 93a1eb6 as "new": idle workers sweep
#                                        keyed marks only once a hint was dropped (marks_left) or
#                                        while more work is pending than there are workers; a lone
#                                        hint kept at home is owned)
#   bench/h200/s33/head/dyngc-bench      HEAD with 4f54505's executor (every idle worker sweeps)
#   bench/h200/s33/gate/dyngc-bench      HEAD with 93fb425's executor (sweeps only after a
#                                        dropped hint; the hint kept at home keeps its mark)
# and moves vk-pipeline-stats out of the carry folder. The other variants of the session's calls
# are patches on 93a1eb6 (`git worktree add` it, then bench/h200/build-patched.sh OUT PATCH):
# batch.patch (sweep while more than a batch is pending), pace.patch (a skipped sweep paced by
# loads of the worker's own words), always.patch (no gate), seen.patch (also sweep when the
# prescan saw queued frames: landed in 2c6e0fd).
#   bash bench/h200/s33/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
git -C "$root" diff HEAD 4f54505 -- stdlib crates/codegen/src > /tmp/s33-head.patch
git -C "$root" diff HEAD 93fb425 -- stdlib crates/codegen/src > /tmp/s33-gate.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s33/head" /tmp/s33-head.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s33/gate" /tmp/s33-gate.patch
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
