#!/usr/bin/env bash
# Device call (carrying bench/h200/carry-vulkan, bench/h200/s33/head and bench/h200/s33/gate,
# built here by bench/h200/s33/build.sh), two rounds, alternated: when idle workers sweep keyed
# marks. head: always (4f54505); gate: only once a hint was dropped (93fb425); new (HEAD): also
# while more work is pending than there are workers, and a lone hint kept at home is owned.
#   TAG-path: bfs on a path at every arena step (the chain stayed on one worker only at the
#     minimum arena: the sweeps of idle workers took its keyed hint);
#   TAG-bfs: kron14, kron18 and star1e6 at expand's peak over 64, 16 and 4 and at expand's peak.
# The first call (s33g) ran head and gate only (sides given as the second argument).
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT
#   (while sleep 15; do tar czf $R/x.tmp.tgz -C $OUT . && mv $R/x.tmp.tgz $R/x.tgz; done) &
#   bash bench/h200/s33/gate.sh TAG; tar czf $R/x.tgz -C $OUT .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG [SIDES]}"
sides="${2:-head=bench/h200/s33/head/dyngc-bench gate=bench/h200/s33/gate/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench}"
bash bench/h200/binaries.sh "$tag-path" 2 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods expand,dyngc --arenas min,x16,x256,expand --case bfs:path1e4
bash bench/h200/binaries.sh "$tag-bfs" 2 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods expand,dyngc --arenas p/64,p/16,p/4,expand \
  --case bfs:kron14 --case bfs:kron18 --case bfs:star1e6
