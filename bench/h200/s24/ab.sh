#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan, bench/h200/s24/old and the s23
# collatz folders): lone spawns staged as carries (session 24) against main before them.
# `old/dyngc-bench` is main's build (574d267), carry-vulkan's the new one; each compiles the
# examples itself, so each side has its own manifest (tree's reserve floor 149 -> 123 frames).
# Rounds alternate the two binaries; then session 23's pending collatz A/B (C0 = 277c7ac,
# C1 = 574d267's collatz and bfs kernels) through the new binary.
# old/ is git-ignored: rebuild it with `git worktree add /tmp/m574 574d267 && (cd /tmp/m574 &&
# cargo build --release -p dyngc-bench) && mkdir -p bench/h200/s24/old && cp
# /tmp/m574/target/release/dyngc-bench bench/h200/s24/old/`, and the new side with
# `bash bench/h200/build-vulkan.sh`.
#   bash bench/h200/s24/ab.sh TAG ROUNDS     # -> $OUT/CARD-vk-TAG-{old,new}-N.json, TAG.log
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
tag="${1:?usage: $0 TAG ROUNDS}"
rounds="${2:?usage: $0 TAG ROUNDS}"
bash bench/h200/binaries.sh "$tag" "$rounds" "old=bench/h200/s24/old/dyngc-bench new=bench/h200/carry-vulkan/dyngc-bench" \
  --workers 1024 --reps 5 --timeout-s 12 --methods expand,dyngc --arenas x256,p/16,p/4,expand \
  --case tree:1e7 --case tree:1e6
# Session 23's pending A/B of collatz and bfs kernels (its folders are git-ignored: made by
# `dyngc build` at 277c7ac and 574d267; bench/h200/s23/README.md).
if [ -d bench/h200/s23/C0 ] && [ -d bench/h200/s23/C1 ]; then
  bash bench/h200/s22/variants.sh "${tag}c" 3 "bench/h200/s23/C0 bench/h200/s23/C1" --methods static,expand,dyngc \
    --case collatz:1e6 --case bfs:kron20 --workers 1024 --reps 5 --timeout-s 12 --arenas expand
fi
