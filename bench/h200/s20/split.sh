#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): at 1/16 of expand's peak, how the
# arena is best split between worker reserves and the ring. Each SLOTS is a ring size
# (`--ring-slots`; the workers, at most 1,024, get the rest), `default` the runtime's split
# (reserves at most half the arena).
#   bash bench/h200/s20/split.sh TAG "default 2048 8192 ..."   # -> $OUT/h200-vk-TAG-split-SLOTS.json
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG SLOTS...}"
source bench/h200/s17/setup.sh
for slots in $2; do
  ring=()
  if [ "$slots" != default ]; then ring=(--ring-slots "$slots"); fi
  bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --workers 1024 --reps 3 --timeout-s 12 --warm-ms 100 \
    --methods expand,dyngc --arenas p/16 "${ring[@]}" \
    --case bfs:kron14 --case bfs:kron18 --case bfs:kron20 --case bfs:star1e6 --case tree:1e7 \
    --note "bench/h200/s20/split.sh $tag $slots" --out "$OUT/h200-vk-$tag-split-$slots.json" 2>&1 \
    | grep -E "dyngc arena|error" || true
done
