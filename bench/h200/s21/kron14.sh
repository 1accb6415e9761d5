#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): bfs kron14 at 1/16 of expand's
# peak with the ring fixed (`--ring-slots`; the workers get what it leaves, their reserves
# spread as the rule does), to see whether the ring or the workers hold it back.
#   bash bench/h200/s21/kron14.sh TAG "slots..."   # -> $OUT/h200-vk-TAG-kron14-SLOTS.json
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG SLOTS}"
source bench/h200/s17/setup.sh
for s in $2; do
  bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --workers 1024 --reps 5 --timeout-s 12 --warm-ms 100 \
    --methods expand,dyngc --arenas p/16 --ring-slots "$s" --case bfs:kron14 \
    --note "bench/h200/s21/kron14.sh $tag: --ring-slots $s" --out "$OUT/h200-vk-$tag-kron14-$s.json" >/dev/null 2>&1
done
