#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): issue 12's arena goal, "within
# 1.25x of its best time at 1/16 of expand's peak", measured at fractions of expand's peak
# (`--arenas p/N`) beside the largest arena (`expand`, twice the peak), 1,024 workers asked for.
#   bash bench/h200/s20/peak.sh TAG   # -> $OUT/h200-vk-TAG-peak.{json,log}
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
source bench/h200/s17/setup.sh
bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --workers 1024 --reps 3 --timeout-s 12 --warm-ms 100 \
  --methods expand,dyngc --arenas p/64,p/32,p/16,p/8,p/4,expand \
  --case tree:1e6 --case tree:1e7 --case bfs:kron14 --case bfs:kron18 --case bfs:kron20 --case bfs:star1e6 \
  --note "bench/h200/s20/peak.sh $tag" --out "$OUT/h200-vk-$tag-peak.json" 2>&1 | tee "$OUT/h200-vk-$tag-peak.log"
