#!/usr/bin/env bash
# Device call for issue 12's arena goal (carrying bench/h200/carry-vulkan): session 28 found tree
# 1e7 at p/16 bound by the workers its arena holds, not by its ring, and faster with fewer
# workers of larger reserves (512 workers of 190 frames: 2.18 ms against 791 of 123: 2.49). This
# asks whether a runtime rule "reserves of at least F frames" (as many workers as fit at F) beats
# the runtime's "as many workers as fit at the floor" across the cases the goal names: each F is
# `--stack-frames F` with 1,024 workers asked (the runtime fits as many as the arena holds).
# The device returns a limited number of files: run it with the results tarred,
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s28/reserve.sh TAG; tar czf $R/x.tgz -C /tmp/res .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
source bench/h200/s17/setup.sh
log="$OUT/$card-vk-$tag.log"
for frames in default 160 190 250; do
  frames_arg=()
  [ "$frames" = default ] || frames_arg=(--stack-frames "$frames")
  bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --warm-ms 100 --reps 5 --timeout-s 12 \
    --methods expand,dyngc --arenas p/64,p/16,p/4,expand --workers 1024 "${frames_arg[@]}" \
    --case tree:1e7 --case tree:1e6 --case bfs:kron14 --case bfs:kron18 \
    --note "reserve.sh $tag $frames" --out "$OUT/$card-vk-$tag-$frames.json" 2>&1 | tee -a "$log"
done
