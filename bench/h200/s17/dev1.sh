#!/usr/bin/env bash
# Session 17, device call: workgroup sizes 64 / 128 / 256 on tree, collatz, bfs.
set -uo pipefail
source bench/h200/s17/setup.sh
rounds="${1:-1}"
log="$OUT/s17-wg.log"
cases=(--case tree:1e7 --case tree:1e6 --case collatz:1e6 --case collatz:1e7 --case bfs:kron20 --case bfs:star1e6)
if [ "${2:-}" = base ]; then
  $here/dyngc-bench run --backend vulkan --warm-ms 100 --workers 1024 --reps 5 --timeout-s 12 --methods static,expand --arenas 512M \
    "${cases[@]}" --out $OUT/h200-vk-s17-wg-base.json 2>&1 | grep -E "static|expand" | tee -a $log
fi
for n in $rounds; do
  for v in "64 1024" "128 512" "128 1024" "256 256" "256 512"; do
    set -- $v
    B=$here/dyngc-bench; [ "$1" = 64 ] || B=$here/dyngc-bench-wg$1
    start=$SECONDS
    $B run --backend vulkan --warm-ms 100 --workers $2 --reps 5 --timeout-s 12 --methods dyngc --arenas 512M \
      "${cases[@]}" --out $OUT/h200-vk-s17-wg$1-w$2-$n.json 2>&1 | grep -E "dyngc|rror" | sed "s/^/wg$1 w$2 r$n /" | tee -a $log
    echo "wg$1 w$2 r$n took $((SECONDS - start)) s" | tee -a $log
  done
done
