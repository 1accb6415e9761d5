#!/usr/bin/env bash
# Device call for issue 12's arena goal (carrying bench/h200/carry-vulkan and
# bench/h200/s26/floor0): main against a build with `MIN_STACK_HALF_BATCHES` 0 instead of 1
# (crates/codegen/src/layout.rs), alternated. Tree's reserve floor is (D + 1) + 64 + 32 = 123
# frames, of which the half batch is 32: without it 91 frames, so that 1/16 of expand's peak
# (2.46 MB) holds all 1,024 workers instead of 791, at narrower batches. Session 21 measured the
# same trade before tree's atomics were fixed (session 23) and kept the half batch. floor0/ is
# git-ignored: `bash bench/h200/s26/build-variants.sh` builds it.
#   bash bench/h200/s26/floor.sh TAG ROUNDS   # -> $OUT/CARD-vk-TAG-{main,floor0}-N.json, TAG.log
# Session 27 ran it as `floor.sh s27g 2` (bench/results/h100-vk-s27g-*; docs/performance.md,
# "Session 27"): the half batch stays.
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
bash bench/h200/binaries.sh "$tag" "$rounds" "main=bench/h200/carry-vulkan/dyngc-bench floor0=bench/h200/s26/floor0/dyngc-bench" \
  --workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case tree:1e7 --case tree:1e6 --case bfs:kron14 --case bfs:kron18
