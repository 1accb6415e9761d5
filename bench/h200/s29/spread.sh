#!/usr/bin/env bash
# Device call for issues 12 and 14 (carrying bench/h200/carry-vulkan, bench/h200/s29/split and
# bench/h200/s29/hunger, built by bench/h200/s29/build.sh): two ways to bring a wide range to
# every worker, against main, alternated. Session 28's tessellate 1e6 ran with 509 of 1,024
# workers busy: pieces of at most two windows (2,048 indices) that a holder splits once per
# batch reach about four workers per shard's piece.
#   split  (s29/split.patch): ranges of stages with a loop split as fine as chains' (two
#          batches); a batch that has just lent half its range while its home shard was empty
#          runs one index a lane, to be back soon to lend again;
#   hunger (s29/hunger.patch): no stage flag: any range splits down to two batches while its
#          home shard is empty, with the same short window.
# Part s: the stream cases at the whole-output window; part m: the rest of the benchmark's
# shapes at p/16 and the largest arena; part c: collatz; one round each (about 6.5 minutes in
# all, from session 26-28's times: a process with compact 1e8 takes about a minute). The device returns a limited
# number of files: run it with the results tarred,
#   R=$OUT; export OUT=/tmp/res; mkdir -p $OUT; bash bench/h200/s29/spread.sh TAG; tar czf $R/x.tgz -C /tmp/res .
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG}"
sides="main=bench/h200/carry-vulkan/dyngc-bench split=bench/h200/s29/split/dyngc-bench hunger=bench/h200/s29/hunger/dyngc-bench"
bash bench/h200/binaries.sh "${tag}s" 1 "$sides" --workers 1024 --reps 3 --timeout-s 12 --methods expand,dyngc \
  --arenas expand --stream-capacity 40000000 --case tessellate:1e6 --case compact:1e8 --case tessellate:1e5
bash bench/h200/binaries.sh "${tag}m" 1 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods expand,dyngc --arenas p/16,expand --case triangle:1e6 --case triangle:1e8 --case tree:1e6 \
  --case tree:1e7 --case bfs:kron14 --case bfs:kron18 --case bfs:star1e6
# Collatz has no expand: its largest arena is twice the static kernel's peak.
bash bench/h200/binaries.sh "${tag}c" 1 "$sides" --workers 1024 --reps 3 --timeout-s 12 \
  --methods static,dyngc --arenas expand --case collatz:1e6
