#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan and each named binary): several
# builds of dyngc-bench alternated round by round, each compiling its own kernels and manifests
# (an A/B of executors whose host side differs too; bench/h200/ab.sh and s22/variants.sh swap
# kernels only):
#   bash bench/h200/binaries.sh TAG ROUNDS "NAME=BIN ..." [dyngc-bench run arguments...]
# A side may add arguments of its own after its binary, joined by `+`: one build run several ways
# (session 36: "w832=bench/h200/carry-vulkan/dyngc-bench+--workers+832").
# Writes $OUT/CARD-vk-TAG-NAME-N.json per round N and $OUT/CARD-vk-TAG.log (CARD: bench/h200/card.sh).
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 TAG ROUNDS \"NAME=BIN ...\" [dyngc-bench run arguments...]"
tag="${1:?$usage}"
rounds="${2:?$usage}"
sides="${3:?$usage}"
shift 3
source bench/h200/s17/setup.sh
log="$OUT/$card-vk-$tag.log"
for n in $(seq 1 "$rounds"); do
  for side in $sides; do
    name="${side%%=*}"
    IFS=+ read -ra own <<< "${side#*=}"
    "${own[0]}" run --backend vulkan --warm-ms 100 "$@" "${own[@]:1}" --note "binaries.sh $tag $name $n" \
      --out "$OUT/$card-vk-$tag-$name-$n.json" 2>&1 | tee -a "$log"
  done
done
