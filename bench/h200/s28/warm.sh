#!/usr/bin/env bash
# Device call for tessellate's two speeds (session 27: a run's first repetition 1.6-3.2 ms, the
# later ones 6-10 ms, after ~300 ms of host delivery with the GPU idle; nvidia-smi showed the SM
# clock at 345-500 MHz between repetitions). If the slow repetitions are the clock coming back
# from idle, a longer warm-up before each (1,000 ms instead of 100) removes them. Main and the
# lane grant (bench/h200/s28/build-grants.sh), whole-output window, both warm-ups.
#   bash bench/h200/s28/warm.sh TAG   # -> $OUT/CARD-vk-TAG-WARM-SIDE.json, TAG.log
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
source bench/h200/s17/setup.sh
log="$OUT/$card-vk-$tag.log"
for warm in 1000 100; do
  for side in main=bench/h200/carry-vulkan/dyngc-bench grant16=bench/h200/s28/grant16/dyngc-bench; do
    "${side#*=}" run --backend vulkan --warm-ms "$warm" --workers 1024 --reps 5 --timeout-s 12 \
      --methods expand,dyngc --arenas expand --stream-capacity 40000000 \
      --case tessellate:1e6 --case compact:1e8 --note "warm.sh $tag $warm ${side%%=*}" \
      --out "$OUT/$card-vk-$tag-$warm-${side%%=*}.json" 2>&1 | tee -a "$log"
  done
done
