#!/usr/bin/env bash
# The device call of session 26 (carrying bench/h200/carry-vulkan, bench/h200/s24/old and
# bench/h200/s24/streams), in the order the report needs its parts, so that a call cut off at
# the time limit still returns the first ones:
#   1. main re-measured after sessions 24-25 (issue 12's goal table): run.sh's main part;
#   2. the arena goal: s21/peak.sh;
#   3. issue 14: S0 (main's stream kernels) against SN (no stream atomic at all:
#      bench/h200/s24/streams.py), how much of a stream run its window atomics are;
#   4. session 24's lone spawns: s24/ab.sh, 574d267's build against this one, one round;
#   5. the arena goal's tree 1e7 at `p/16` with fewer workers than the arena holds (session 23's
#      s23w, after lone spawns halved tree's depth term): whether a reserve above the floor pays;
#   6. the stream outputs against expand and retry: run.sh's streams part.
#   bash bench/h200/s26/call.sh TAG   # -> $OUT/CARD-vk-TAG-{main,peak,streams}.*, TAGs-*, TAGa-*, TAGw-*
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
bash bench/h200/run.sh vulkan "$tag" main
bash bench/h200/s21/peak.sh "$tag"
d=bench/h200/s24/streams
bash bench/h200/s22/variants.sh "${tag}s" 2 "$d/S0 $d/SN" --methods expand,dyngc --case tessellate:1e6 \
  --case compact:1e8 --workers 1024 --reps 5 --timeout-s 12 --arenas expand --unverified
bash bench/h200/s24/ab.sh "${tag}a" 1
source bench/h200/s17/setup.sh
for w in 256 384 512 768; do
  bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --warm-ms 100 --workers "$w" --reps 5 --timeout-s 12 \
    --methods expand,dyngc --arenas p/16 --case tree:1e7 --note "bench/h200/s26/call.sh $tag workers $w" \
    --out "$OUT/$card-vk-${tag}w-$w.json" 2>&1 | tee -a "$OUT/$card-vk-${tag}w.log"
done
bash bench/h200/run.sh vulkan "$tag" streams
