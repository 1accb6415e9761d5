#!/usr/bin/env bash
# Second device call of session 26 (carrying bench/h200/carry-vulkan, bench/h200/s24/streams and
# bench/h200/s26/sw128), both parts with a window that holds the whole output
# (`--stream-capacity 40000000`), so that no drain leaves the GPU idle between submissions (its
# clock then drops, and the first call's S0 paid that where SN, which never drains, did not):
#   1. S0 (main's stream kernels) against SN (no stream atomic at all: bench/h200/s24/streams.py);
#   2. main's build against the same build with `STREAM_SUB_WINDOWS` 128 instead of 32
#      (crates/codegen/src/layout.rs), so that at 1,024 workers (128 ring shards) a sub-window's
#      counts are shared by 8 workers instead of 32. sw128/dyngc-bench is git-ignored:
#      `bash bench/h200/s26/build-variants.sh` builds it.
#   bash bench/h200/s26/subwindows.sh TAG ROUNDS   # -> $OUT/CARD-vk-TAGs-*, $OUT/CARD-vk-TAGb-*
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
args=(--workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas expand --stream-capacity 40000000
      --case tessellate:1e6 --case compact:1e8)
d=bench/h200/s24/streams
bash bench/h200/s22/variants.sh "${tag}s" "$rounds" "$d/S0 $d/SN" "${args[@]}" --unverified
bash bench/h200/binaries.sh "${tag}b" "$rounds" \
  "main=bench/h200/carry-vulkan/dyngc-bench sw128=bench/h200/s26/sw128/dyngc-bench" "${args[@]}"
