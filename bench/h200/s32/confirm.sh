#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan, bench/h200/s32/lendall and bench/h200/s31/rec,
# built here by bench/h200/s32/build.sh), one round each, under the device's 10 minutes:
#   TAG-lone: HEAD against HEAD lending a lone frame or hint as before session 32 (bfs on a path,
#     a star, kron14/18, tree 1e7, collatz 1e6 at the largest arena; the path at every step);
#   TAG-arena: issue 12's arena goal (expand's peak over 64, 16 and 4), HEAD against HEAD with
#     the recursion counter word in every frame (session 31's smaller frames).
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT
#   (while sleep 15; do tar czf $R/x.tmp.tgz -C $OUT . && mv $R/x.tmp.tgz $R/x.tgz; done) &
#   bash bench/h200/s32/confirm.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
bash bench/h200/binaries.sh "$tag-lone" 1 \
  "lendall=bench/h200/s32/lendall/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas expand \
  --case bfs:path1e4 --case bfs:star1e6 --case bfs:kron14 --case bfs:kron18 --case tree:1e7 \
  --case collatz:1e6
bash bench/h200/binaries.sh "$tag-path" 1 \
  "lendall=bench/h200/s32/lendall/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods dyngc --arenas min,x16,x256 --case bfs:path1e4
bash bench/h200/binaries.sh "$tag-arena" 1 \
  "rec=bench/h200/s31/rec/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case bfs:kron14 --case bfs:kron18 --case tree:1e7 --case tree:1e6
