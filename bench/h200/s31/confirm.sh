#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan, bench/h200/s31/old and bench/h200/s31/rec, all
# built here by bench/h200/s31/build.sh), one round each, under the device's 10 minutes:
#   TAG-window: the default stream window, HEAD against HEAD without the stream buffer (session
#     31's A/B of the buffer, bench/h200/s28/buffered.sh, ran the whole-output window only);
#   TAG-arena: issue 12's arena goal (expand's peak over 64, 16 and 4), HEAD against HEAD with
#     the recursion counter word in every frame (frames of 4 + payload words): bfs, triangle and
#     tree frames are a word smaller on HEAD.
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s31/confirm.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
bash bench/h200/binaries.sh "$tag-window" 1 \
  "old=bench/h200/s31/old/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas expand \
  --case tessellate:1e6 --case compact:1e8
bash bench/h200/binaries.sh "$tag-arena" 1 \
  "rec=bench/h200/s31/rec/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case bfs:kron14 --case bfs:kron18 --case tree:1e7 --case tree:1e6
