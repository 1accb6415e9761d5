#!/usr/bin/env bash
# Builds, here, what bench/h200/s29/call.sh carries:
#   bench/h200/carry-vulkan/dyngc-bench   main (HEAD), by bench/h200/build-vulkan.sh
#   bench/h200/s28/buffered/dyngc-bench   HEAD + bench/h200/s28/buffered.patch
#   bench/h200/s29/seed/dyngc-bench       HEAD + bench/h200/s29/seed.patch (the entry seeded one
#                                         piece per worker, on its stack)
#   bench/h200/s29/split/dyngc-bench      HEAD + bench/h200/s29/split.patch (long units' ranges
#                                         split finer, one index a lane after a split)
# and moves vk-pipeline-stats out of the carry folder (to /tmp), so that the four binaries and
# the tracked tree stay under the device's 64 MiB carry.
#   bash bench/h200/s29/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s28/buffered" "$root/bench/h200/s28/buffered.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s29/seed" "$root/bench/h200/s29/seed.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s29/split" "$root/bench/h200/s29/split.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
