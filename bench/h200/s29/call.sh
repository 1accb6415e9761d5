#!/usr/bin/env bash
# The first device call prepared in session 29 (no device was lent then), carrying
# bench/h200/carry-vulkan, bench/h200/s28/buffered and bench/h200/s29/seed, all built here by
# bash bench/h200/s29/build.sh:
#   1. bench/h200/s29/seed.sh TAG: main against the entry seeded one piece per worker;
#   2. bench/h200/s28/buffered.sh TAGb: main against a lane's buffer of several units' elements.
# Each part under its own limit, the results tarred after each (the device returns a limited
# number of files):
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s29/call.sh TAG $R
# Then, in later calls: bash bench/h200/s29/full.sh (the goal table and the streams, with
# whatever lands) and bench/h200/s28/reserve.sh (the tight-arena reserve rule).
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 TAG RETURN_DIR"
tag="${1:?$usage}"
back="${2:?$usage}"
timeout 330 bash bench/h200/s29/seed.sh "$tag" > "$OUT/call-seed.out" 2>&1 || echo "seed.sh: exit $?" >> "$OUT/call-seed.out"
tar czf "$back/x.tgz" -C "$OUT" .
timeout 200 bash bench/h200/s28/buffered.sh "${tag}b" > "$OUT/call-buffered.out" 2>&1 || echo "buffered.sh: exit $?" >> "$OUT/call-buffered.out"
tar czf "$back/x.tgz" -C "$OUT" .
