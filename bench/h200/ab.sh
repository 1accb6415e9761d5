#!/usr/bin/env bash
# A/B of two executors on the team's H200, interleaved in one device call, through Vulkan.
# B is the carried dyngc-bench as built (bench/h200/build-vulkan.sh); A is the same bench running
# other shaders, given as `dyngc build` outputs of another commit (--wgsl EXAMPLE=FILE; only
# examples whose default schedule is the megakernel: tree, collatz, bfs, ...). Run on the device
# machine from the repository root, with bench/h200/carry-vulkan and the A folder carried:
#   bash bench/h200/ab.sh TAG ADIR ROUNDS [dyngc-bench run arguments...]
# ADIR holds EXAMPLE.wgsl for each example to replace. Writes $OUT/CARD-vk-TAG-{A,B}-N.json for
# rounds N = 1..ROUNDS (A, B, A, B, ...), after one discarded round (a fresh device's first
# round runs on cold clocks: docs/performance.md, session 12), and $OUT/CARD-vk-TAG-ab.log (CARD: bench/h200/card.sh).
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 TAG ADIR ROUNDS [dyngc-bench run arguments...]"
tag="${1:?$usage}"
adir="${2:?$usage}"
rounds="${3:?$usage}"
shift 3
source bench/h200/s17/setup.sh
overrides=()
for f in "$adir"/*.wgsl; do
  overrides+=(--wgsl "$(basename "$f" .wgsl)=$f")
done
bench=("$here/dyngc-bench" run --backend vulkan --warm-ms 100 "$@")
log="$OUT/$card-vk-$tag-ab.log"
"${bench[@]}" "${overrides[@]}" --out /tmp/discarded.json > /dev/null 2>&1 || true
for n in $(seq 1 "$rounds"); do
  "${bench[@]}" "${overrides[@]}" --note "ab.sh $tag A $n" --out "$OUT/$card-vk-$tag-A-$n.json" 2>&1 | tee -a "$log"
  "${bench[@]}" --note "ab.sh $tag B $n" --out "$OUT/$card-vk-$tag-B-$n.json" 2>&1 | tee -a "$log"
done
