#!/usr/bin/env bash
# Session 17, device calls: hand-edited collatz kernels (prepare.sh makes them) against each
# other, rounds interleaved, 1,024 workers at 64 MiB, 2 MiB and the minimum arena (one worker).
#   bash bench/h200/s17/collatz.sh TAG "VARIANTS" "ROUNDS" CASE...
set -uo pipefail
source bench/h200/s17/setup.sh
tag="$1" variants="$2" rounds="$3"; shift 3
cases=(); for c in "$@"; do cases+=(--case "$c"); done
for n in $rounds; do
  for v in $variants; do
    "$here/dyngc-bench" run --backend vulkan --warm-ms 100 --workers 1024 --reps 5 --timeout-s 12 --methods dyngc \
      --arenas 64M,2M,min "${cases[@]}" --wgsl collatz=bench/h200/s17/$v/collatz.wgsl \
      --out "$OUT/h200-vk-$tag-collatz-$v-$n.json" 2>&1 | grep -E "dyngc|rror" | sed "s/^/$v $n /"
  done
done
