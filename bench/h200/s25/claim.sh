#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan, bench/h200/s25/claim and
# bench/h200/s24/streams): the claimed sub-windows of session 25 (claim/dyngc-bench, a release
# build of branch streams-claimed-subwindows; each side compiles its own kernels and manifests)
# against main (carry-vulkan), alternated, then main's build timing SN (no stream atomic at all:
# docs/design/streams-per-batch.md) against S0 (main's kernels, by --wgsl).
#   bash bench/h200/s25/claim.sh TAG ROUNDS   # -> $OUT/h200-vk-TAG-{main,claim}-N.json, TAG.log
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
bash bench/h200/binaries.sh "$tag" "$rounds" "main=bench/h200/carry-vulkan/dyngc-bench claim=bench/h200/s25/claim/dyngc-bench" \
  --workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas x256,expand \
  --case tessellate:1e6 --case compact:1e8
d=bench/h200/s24/streams
bash bench/h200/s22/variants.sh "${tag}s" "$rounds" "$d/S0 $d/SN" --methods dyngc --case tessellate:1e6 \
  --case compact:1e8 --workers 1024 --reps 5 --timeout-s 12 --arenas expand --unverified
