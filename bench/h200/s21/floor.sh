#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): the reserve's floor. Tree and bfs
# kron14 at 1/16 of expand's peak with each worker's reserve fixed (`--stack-frames`), so that
# the arena holds fewer workers with more frames each as the reserve grows.
#   bash bench/h200/s21/floor.sh TAG "tree frames..." "bfs frames..."   # -> $OUT/h200-vk-TAG-floor-*.json
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG TREE_FRAMES BFS_FRAMES}"
source bench/h200/s17/setup.sh
run() {
  local name=$1 frames=$2; shift 2
  bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --workers 1024 --reps 5 --timeout-s 12 --warm-ms 100 \
    --methods expand,dyngc --arenas p/16 --stack-frames "$frames" "$@" \
    --note "bench/h200/s21/floor.sh $tag: $name --stack-frames $frames" --out "$OUT/h200-vk-$tag-floor-$name-$frames.json" >/dev/null 2>&1
}
for f in $2; do run tree "$f" --case tree:1e6 --case tree:1e7; done
for f in $3; do run bfs "$f" --case bfs:kron14 --case bfs:star1e6; done
