#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan and bench/h200/s33/head, built here by
# bench/h200/s33/build.sh): HEAD, whose idle workers sweep keyed marks only once a hint was
# dropped, against HEAD without the gate (93fb425), whose idle workers always sweep; two rounds, alternated:
#   TAG-path: bfs on a path at every arena step (the chain stayed on one worker only at the
#     minimum arena: the sweeps of idle workers took its keyed hint);
#   TAG-bfs: kron14, kron18 and star1e6 at expand's peak over 64, 16 and 4 and at expand's peak.
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT
#   (while sleep 15; do tar czf $R/x.tmp.tgz -C $OUT . && mv $R/x.tmp.tgz $R/x.tgz; done) &
#   bash bench/h200/s33/gate.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
sides="head=bench/h200/s33/head/dyngc-bench gate=bench/h200/carry-vulkan/dyngc-bench"
bash bench/h200/binaries.sh "$tag-path" 2 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods expand,dyngc --arenas min,x16,x256,expand --case bfs:path1e4
bash bench/h200/binaries.sh "$tag-bfs" 2 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case bfs:kron14 --case bfs:kron18 --case bfs:star1e6
