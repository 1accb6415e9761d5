#!/usr/bin/env bash
# Session 17, device call: the fixed cost of a run against the workers launched.
set -uo pipefail
source bench/h200/s17/setup.sh
for w in 1 16 128 1024; do
  $here/dyngc-bench run --backend vulkan --warm-ms 100 --workers $w --reps 7 --timeout-s 12 --methods dyngc --arenas 64M \
    --case collatz:1e3 --case tree:1e3 --out $OUT/h200-vk-s17-fixed-w$w.json 2>&1 | grep -E "dyngc|rror" | sed "s/^/w$w /"
done
