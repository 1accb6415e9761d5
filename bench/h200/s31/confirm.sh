#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan, HEAD, and bench/h200/s31/old, HEAD without the
# stream buffer of ed9fa05; both built here by bench/h200/s31/build.sh): the default stream
# window, which session 31's A/B of the buffer (bench/h200/s28/buffered.sh, whole-output window)
# did not reach, old against new, one round.
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s31/confirm.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
bash bench/h200/binaries.sh "$tag" 1 \
  "old=bench/h200/s31/old/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas expand \
  --case tessellate:1e6 --case compact:1e8
