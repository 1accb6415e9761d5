#!/usr/bin/env bash
# Device call for issue 14 (carrying bench/h200/carry-vulkan and bench/h200/s28/buffered, built by
# bench/h200/s28/build-buffered.sh): main against buffered.patch (slots taken once per lane
# buffer instead of once per emitting unit), alternated round by round, the whole-output window
# (2 rounds) and the default one (1 round). The device returns a limited number of files: run it
# with the results tarred,
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s28/buffered.sh TAG; tar czf $R/x.tgz -C /tmp/res .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
args=(--workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas expand
      --case tessellate:1e6 --case compact:1e8)
sides="main=bench/h200/carry-vulkan/dyngc-bench buffered=bench/h200/s28/buffered/dyngc-bench"
bash bench/h200/binaries.sh "${tag}w" 2 "$sides" "${args[@]}" --stream-capacity 40000000
bash bench/h200/binaries.sh "${tag}d" 1 "$sides" "${args[@]}"
