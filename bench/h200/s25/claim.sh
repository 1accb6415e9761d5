#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan, bench/h200/s25/claim and
# bench/h200/s24/streams): the claimed sub-windows of session 25 (claim/dyngc-bench, built from
# that session's working tree; each side compiles its own kernels and manifests) against main
# (carry-vulkan, 50dcb33), alternated, then main's build timing SN (no stream atomic at all:
# docs/design/streams-per-batch.md) against S0 (its own kernels by --wgsl).
#   bash bench/h200/s25/claim.sh TAG ROUNDS   # -> $OUT/h200-vk-TAG-{main,claim}-N.json, TAG.log
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
source bench/h200/s17/setup.sh
log="$OUT/h200-vk-$tag.log"
args=(run --backend vulkan --warm-ms 100 --workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc
  --arenas x256,expand --case tessellate:1e6 --case compact:1e8)
for n in $(seq 1 "$rounds"); do
  for v in main claim; do
    bin=bench/h200/carry-vulkan/dyngc-bench
    [ "$v" = claim ] && bin=bench/h200/s25/claim/dyngc-bench
    "$bin" "${args[@]}" --note "s25/claim.sh $tag $v $n" --out "$OUT/h200-vk-$tag-$v-$n.json" 2>&1 | tee -a "$log"
  done
done
d=bench/h200/s24/streams
bash bench/h200/s22/variants.sh "${tag}s" "$rounds" "$d/S0 $d/SN" --methods dyngc --case tessellate:1e6 \
  --case compact:1e8 --workers 1024 --reps 5 --timeout-s 12 --arenas expand --unverified
