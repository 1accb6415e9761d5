#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): issue 12's arena goal with
# reserves sized by the host (docs/executor.md, "Why the stack fits in its reserve"): tree and
# bfs at fractions of expand's peak, 1,024 workers asked for, under the layout rule's reserve
# (default) and a fixed one (`--stack-frames max` is the layout before session 21).
#   bash bench/h200/s21/peak.sh TAG [dyngc-bench arguments]   # -> $OUT/CARD-vk-TAG-peak.{json,log}
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG [dyngc-bench arguments]}"
source bench/h200/s17/setup.sh
bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --workers 1024 --reps 3 --timeout-s 12 --warm-ms 100 \
  --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case tree:1e6 --case tree:1e7 --case bfs:kron14 --case bfs:kron18 --case bfs:kron20 --case bfs:star1e6 \
  "${@:2}" --note "bench/h200/s21/peak.sh $tag ${*:2}" --out "$OUT/$card-vk-$tag-peak.json" 2>&1 | tee "$OUT/$card-vk-$tag-peak.log"
