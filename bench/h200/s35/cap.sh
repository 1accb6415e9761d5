#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan and bench/h200/s35/pack, built here by
# bench/h200/build-vulkan.sh and `bash bench/h200/build-patched.sh bench/h200/s35/cap
# bench/h200/s35/cap.patch`, cap/ packed as pack/bins.tar.xz): the lend budget capped at the
# home shard's room ("cap") against HEAD, sides alternated round by round:
#   TAG-arena: tree 1e7 / 1e6, kron14 / 18 at expand's peak over 64, 16, 4 and the largest arena;
#   TAG-rest: bfs star, collatz, triangle at the largest arena; TAG-path: bfs path at every step.
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; tar xJf bench/h200/s35/pack/bins.tar.xz -C bench/h200/s35
#   bash bench/h200/s35/cap.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
sides="${SIDES:-head=bench/h200/carry-vulkan/dyngc-bench cap=bench/h200/s35/cap/dyngc-bench}"
bash bench/h200/binaries.sh "$tag-arena" 2 "$sides" \
  --workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case tree:1e7 --case tree:1e6 --case bfs:kron14 --case bfs:kron18
bash bench/h200/binaries.sh "$tag-rest" 1 "$sides" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas expand \
  --case bfs:star1e6 --case collatz:1e6 --case triangle:1e8
bash bench/h200/binaries.sh "$tag-path" 1 "$sides" \
  --workers 1024 --reps 3 --timeout-s 12 --methods dyngc --arenas min,x16,x256,expand --case bfs:path1e4
