#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan and bench/h200/s35/pack): the runtime clearing
# only the arena's stack positions and ring states ("clear": bench/h200/carry-vulkan, built by
# bench/h200/build-vulkan.sh from the change) against clearing the whole arena ("head": 3cd743d's
# build, kept in bench/h200/s35/head and packed as pack/bins.tar.xz), sides alternated:
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; tar xJf bench/h200/s35/pack/bins.tar.xz -C bench/h200/s35
#   bash bench/h200/s35/clear.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
sides="${SIDES:-head=bench/h200/s35/head/dyngc-bench clear=bench/h200/carry-vulkan/dyngc-bench}"
bash bench/h200/binaries.sh "$tag" 2 "$sides" \
  --workers 1024 --reps 5 --timeout-s 12 --methods static,expand,dyngc,dyngc-partitioned --arenas x256,expand \
  --case triangle:1e8 --case tree:1e7 --case bfs:kron18 --case bfs:kron20 --case collatz:1e6 --case bfs:star1e6
