#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan and the variant folders): several
# executors' kernels interleaved in one call, through Vulkan, like bench/h200/ab.sh with more
# than two sides. Each variant is a folder of `dyngc build` outputs (EXAMPLE.wgsl, passed as
# --wgsl EXAMPLE=FILE to the carried dyngc-bench):
#   bash bench/h200/s22/variants.sh TAG ROUNDS "DIR..." [dyngc-bench run arguments...]
# Writes $OUT/CARD-vk-TAG-V-N.json (CARD: bench/h200/card.sh) for variant folder V (its base name) and round N, after one
# discarded round, and $OUT/CARD-vk-TAG.log. DYNGC_BENCH names another carried dyngc-bench (a
# build whose manifests the variants need).
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 TAG ROUNDS \"DIR...\" [dyngc-bench run arguments...]"
tag="${1:?$usage}"
rounds="${2:?$usage}"
dirs="${3:?$usage}"
shift 3
source bench/h200/s17/setup.sh
log="$OUT/$card-vk-$tag.log"
overrides() {
  for f in "$1"/*.wgsl; do
    printf '%s\n' --wgsl "$(basename "$f" .wgsl)=$f"
  done
}
bench=("${DYNGC_BENCH:-bench/h200/carry-vulkan/dyngc-bench}" run --backend vulkan --warm-ms 100 "$@")
first="${dirs%% *}"
mapfile -t o < <(overrides "$first")
"${bench[@]}" "${o[@]}" --out /tmp/discarded.json > /dev/null 2>&1 || true
for n in $(seq 1 "$rounds"); do
  for d in $dirs; do
    v="$(basename "$d")"
    mapfile -t o < <(overrides "$d")
    "${bench[@]}" "${o[@]}" --note "variants.sh $tag $v $n" --out "$OUT/$card-vk-$tag-$v-$n.json" 2>&1 | tee -a "$log"
  done
done
