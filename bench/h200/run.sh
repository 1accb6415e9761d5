#!/usr/bin/env bash
# Runs dyngc-bench on the team's H200 (wgpu GL backend through EGL). Run on the device machine,
# from the repository root, with bench/h200/carry carried there (built by bench/h200/build.sh).
# Writes JSON and a log to $OUT. Two parts, each well under one device call's 10 minutes:
#   bash bench/h200/run.sh main   # every workload but the large Kronecker graphs
#   bash bench/h200/run.sh kron   # bfs on Graph500 Kronecker scale 16, 21, 22
#   bash bench/h200/run.sh rows   # row_sum (a wide stage): megakernel against partitioned
# (main runs triangle under both schedules too: dyngc-partitioned is a default method)
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
for f in bench/h200/carry/*.deb; do dpkg -x "$f" /; done
ldconfig
export WGPU_BACKEND=gl
bin=bench/h200/carry/dyngc-bench
common=(run --backend gl --workers 1024 --reps 3 --timeout-s 12 --arenas min,x16,x256,expand)
case "${1:-}" in
  main)
    cases=(--case triangle:1e6 --case triangle:1e8 --case triangle:1e9 --case tree:1e5 --case tree:1e6
           --case tree:1e7 --case bfs:kron14 --case bfs:kron18 --case bfs:kron20 --case bfs:path1e4
           --case bfs:star1e6 --case collatz:1e6) ;;
  kron)
    cases=(--case bfs:kron16 --case bfs:kron21 --case bfs:kron22) ;;
  rows)
    cases=(--case row_sum:kron16 --case row_sum:kron18 --case row_sum:kron20 --methods cpu,dyngc,dyngc-partitioned,dyngc-narrow) ;;
  *) echo "usage: $0 main|kron|rows" >&2; exit 2 ;;
esac
"$bin" "${common[@]}" "${cases[@]}" --note "bench/h200/run.sh $1" --out "$OUT/h200-third-$1.json" 2>&1 |
  tee "$OUT/h200-third-$1.log"
