#!/usr/bin/env bash
# The device calls prepared in session 29 (no device was lent then), in order, each under the
# device's 10 minutes and its 64 MiB carry (the tracked tree is about 34 MB, each dyngc-bench
# 9 MB); everything is built here first by `bash bench/h200/s29/build.sh`:
#   1: bench/h200/s29/spread.sh: main against two ways to spread a wide range (split, hunger);
#      carry bench/h200/carry-vulkan, bench/h200/s29/split, bench/h200/s29/hunger.
#   2: (run in session 31; buffered.patch has landed, so its A/B is bench/h200/s31/confirm.sh now)
#      bench/h200/s28/buffered.sh (main against buffered.patch), then run.sh's main part (the
#      goal table with the warm-up that waits for the clock); carry bench/h200/carry-vulkan,
#      bench/h200/s28/buffered. (Rebuild main first if something landed after call 1.)
#   3: bench/h200/s28/reserve.sh (the tight-arena reserve rule), then run.sh's streams part;
#      carry bench/h200/carry-vulkan.
# Each part under its own limit, the results tarred after each (the device returns a limited
# number of files):
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s29/call.sh N TAG $R
# Read the results side by side here with python3 bench/h200/s29/summary.py FILE.json...
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 1|2|3 TAG RETURN_DIR"
call="${1:?$usage}"
tag="${2:?$usage}"
back="${3:?$usage}"
part() {
  local limit="$1" name="$2"
  shift 2
  timeout "$limit" "$@" > "$OUT/call-$name.out" 2>&1 || echo "$name: exit $?" >> "$OUT/call-$name.out"
  tar czf "$back/x.tgz" -C "$OUT" .
}
case "$call" in
  1) part 560 spread bash bench/h200/s29/spread.sh "$tag" ;;
  2) part 170 buffered bash bench/h200/s28/buffered.sh "${tag}b"
     part 400 main bash bench/h200/run.sh vulkan "$tag" main ;;
  3) part 380 reserve bash bench/h200/s28/reserve.sh "${tag}r"
     part 180 streams bash bench/h200/run.sh vulkan "$tag" streams ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
