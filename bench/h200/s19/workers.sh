#!/usr/bin/env bash
# Session 19, device call: tree 1e7 at a 512 MiB arena with more workers than the bench's largest
# tree arena gives (464), to see what a smaller worker reserve would buy.
#   bash bench/h200/s19/workers.sh TAG "WORKERS"
set -uo pipefail
source bench/h200/s17/setup.sh
for w in $2; do
  "$here/dyngc-bench" run --backend vulkan --warm-ms 100 --workers "$w" --reps 5 --timeout-s 12 --methods dyngc \
    --arenas 512M --case tree:1e7 --out "$OUT/h200-vk-$1-tree-w$w.json" 2>&1 | grep -E "dyngc|rror"
  python3 bench/h200/s19/counters.py "$OUT/h200-vk-$1-tree-w$w.json" | sed "s/^/w$w /"
done
