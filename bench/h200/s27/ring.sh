#!/usr/bin/env bash
# Device call for issue 12's arena goal (carrying bench/h200/carry-vulkan): at `p/16`, tree 1e7
# overflows its ring (4,096 slots, high water 4,096, 3.2 M fallback spawns run serially) while
# the 791 worker reserves hold 96% of the arena; at the largest arena the ring's high water is
# 28,800 (session 27, docs/performance.md). This trades reserves for ring: ring slots 4,096 (the
# runtime's split), 8,192, 16,384 and 32,768 (28 bytes a slot: 0.9 MB of the 2.46 MB), each with
# as many workers as the rest holds (at 123 frames, 2,960 bytes each: 520 at 32,768) and with 512.
# Tree 1e7 only: at `p/16` tree 1e6 (260 KB) and kron14 (472 KB) hold no such ring.
#   bash bench/h200/s27/ring.sh TAG   # -> $OUT/CARD-vk-TAG-RING-WORKERS.json, TAG.log
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
source bench/h200/s17/setup.sh
log="$OUT/$card-vk-$tag.log"
for ring in default 8192 16384 32768; do
  for workers in 1024 512; do
    ring_arg=()
    [ "$ring" = default ] || ring_arg=(--ring-slots "$ring")
    bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --warm-ms 100 --reps 5 --timeout-s 12 \
      --methods expand,dyngc --arenas p/16 --case tree:1e7 \
      --workers "$workers" "${ring_arg[@]}" --note "ring.sh $tag $ring $workers" \
      --out "$OUT/$card-vk-$tag-$ring-$workers.json" 2>&1 | tee -a "$log"
  done
done
