#!/usr/bin/env bash
# Session 28's second stream call, with the warm-up that waits for the clock (crates/bench/src/
# gpu.rs, `Warm`: session 28 found 100 ms too short after ~300 ms of host work, which made every
# stream median since session 16 a measure of the idle clock). Carries bench/h200/carry-vulkan
# (main with that warm-up: bench/h200/build-vulkan.sh), bench/h200/s28/grant16 (the lane grant,
# bench/h200/s28/build-grants.sh) and bench/h200/s28/streams (S0/SN of main's kernels,
# bench/h200/s24/streams.py). In order of what matters if the call runs out:
#   1. main against the grant, whole-output window, 2 rounds;
#   2. S0 (main's kernels) against SN (no stream atomic), whole-output window, 1 round;
#   3. main against the grant, the default window, 1 round;
#   4. the arena goal again (tree 1e7, kron14 at p/16, p/4 and the largest arena), main.
# Run it with its results tarred (the device returns a limited number of files: this call lost
# four of them): R=$OUT; OUT=/tmp/res bash ... ; tar czf $R/x.tgz -C /tmp/res .
#   bash bench/h200/s28/warmed.sh TAG
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
args=(--workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas expand
      --case tessellate:1e6 --case compact:1e8)
sides="main=bench/h200/carry-vulkan/dyngc-bench grant16=bench/h200/s28/grant16/dyngc-bench"
bash bench/h200/binaries.sh "${tag}w" 2 "$sides" "${args[@]}" --stream-capacity 40000000
d=bench/h200/s28/streams
bash bench/h200/s22/variants.sh "${tag}s" 1 "$d/S0 $d/SN" "${args[@]}" --stream-capacity 40000000 --unverified
bash bench/h200/binaries.sh "${tag}d" 1 "$sides" "${args[@]}"
source bench/h200/card.sh
bench/h200/carry-vulkan/dyngc-bench run --backend vulkan --warm-ms 100 --workers 1024 --reps 5 --timeout-s 12 \
  --methods expand,dyngc --arenas p/16,p/4,expand --case tree:1e7 --case bfs:kron14 \
  --out "$OUT/$card-vk-${tag}a.json" 2>&1 | tee "$OUT/$card-vk-${tag}a.log"
