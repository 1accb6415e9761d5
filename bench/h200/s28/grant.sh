#!/usr/bin/env bash
# Device call for issue 14 (carrying bench/h200/carry-vulkan, bench/h200/s28/grant16 and
# bench/h200/s28/grant256, built by bench/h200/s28/build-grants.sh): main's stream protocol
# against the lane grant (docs/executor.md, "Streams": a lane takes room for up to
# STREAM_GRANT_UNITS units' maxima when its sub-window has it, so it tops up once per several
# units), alternated round by round:
#   1. a window that holds the whole output (one drain at the end), as sessions 26-27 measured;
#   2. the default window (what `dyngc run` gives), one round.
# nvidia-smi samples the SM clock and power every 20 ms meanwhile ($OUT/CARD-smi-TAG.csv), for
# tessellate's two speeds (session 27).
#   bash bench/h200/s28/grant.sh TAG ROUNDS
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
source bench/h200/card.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv -lms 20 \
  > "$OUT/$card-smi-$tag.csv" 2>&1 &
smi=$!
trap 'kill $smi 2>/dev/null || true' EXIT
args=(--workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas expand
      --case tessellate:1e6 --case compact:1e8)
sides="main=bench/h200/carry-vulkan/dyngc-bench grant16=bench/h200/s28/grant16/dyngc-bench"
bash bench/h200/binaries.sh "${tag}w" "$rounds" "$sides grant256=bench/h200/s28/grant256/dyngc-bench" \
  "${args[@]}" --stream-capacity 40000000
bash bench/h200/binaries.sh "${tag}d" 1 "$sides" "${args[@]}"
