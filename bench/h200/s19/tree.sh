#!/usr/bin/env bash
# Session 19, device calls: tree 1e7 with prepare.sh's kernels, rounds interleaved, at one worker
# and at 464 workers (the bench's largest tree arena had 464), a 512 MiB arena for every variant.
#   bash bench/h200/s19/tree.sh TAG "VARIANTS" "ROUNDS"
set -uo pipefail
source bench/h200/s17/setup.sh
tag="$1" variants="$2" rounds="$3"
"$here/dyngc-bench" run --backend vulkan --warm-ms 100 --reps 5 --methods static,expand --case tree:1e7 \
  --out "$OUT/h200-vk-$tag-tree-base.json" 2>&1 | grep -E "static|expand|rror"
for n in $rounds; do
  for v in $variants; do
    for w in 1 464; do
      "$here/dyngc-bench" run --backend vulkan --warm-ms 100 --workers $w --reps 5 --timeout-s 12 --methods dyngc \
        --arenas 512M --case tree:1e7 --wgsl tree=bench/h200/s19/V/$v/tree.wgsl \
        --out "$OUT/h200-vk-$tag-tree-$v-w$w-$n.json" 2>&1 | grep -E "dyngc|rror" | sed "s/^/$v $n /"
      python3 bench/h200/s19/counters.py "$OUT/h200-vk-$tag-tree-$v-w$w-$n.json" | sed "s/^/$v $n w$w /"
    done
  done
done
