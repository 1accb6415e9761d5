#!/usr/bin/env bash
# Builds, here, what bench/h200/s29/call.sh carries:
#   bench/h200/carry-vulkan/dyngc-bench   main (HEAD), by bench/h200/build-vulkan.sh
#   (bench/h200/s28/buffered/dyngc-bench: no longer; buffered.patch landed in session 31, ed9fa05)
#   bench/h200/s29/split/dyngc-bench      HEAD + bench/h200/s29/split.patch (ranges of stages with
#                                         a loop split finer; one index a lane after a split
#                                         while the home shard was empty)
#   bench/h200/s29/hunger/dyngc-bench     HEAD + bench/h200/s29/hunger.patch (any range split
#                                         finer while the home shard is empty, with the same
#                                         short window)
# and moves vk-pipeline-stats out of the carry folder (to /tmp), so that each call's binaries
# and the tracked tree stay under the device's 64 MiB carry. (bench/h200/s29/seed.patch, the
# entry seeded on the workers' stacks, is not built: docs/performance.md, "Session 29".)
#   bash bench/h200/s29/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s29/split" "$root/bench/h200/s29/split.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s29/hunger" "$root/bench/h200/s29/hunger.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
