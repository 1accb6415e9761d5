#!/usr/bin/env bash
# Builds, here, what the session 34 device calls carry (bench/h200/s34/sort.sh):
#   bench/h200/carry-vulkan/dyngc-bench  HEAD: children ordered by size on a stack over half
#                                        its reserve, a counting sort ("count")
#   bench/h200/s34/head/dyngc-bench      HEAD with e0d6445's executor (the staging order)
#   bench/h200/s34/loop/dyngc-bench      HEAD with loop.patch: a rank of each child by comparing
#                                        all pairs, four sizes a step ("gate"/"loop" in the calls)
#   bench/h200/s34/always/dyngc-bench    HEAD with always.patch: children ordered on every batch
#                                        (call 12: `bash bench/h200/build-patched.sh
#                                        bench/h200/s34/always bench/h200/s34/always.patch`)
#   bench/h200/s34/pack/bins.tar.xz      head and loop packed: the tree and three plain binaries
#                                        pass the device's 64 MiB; unpack there first with
#                                        `tar xJf bench/h200/s34/pack/bins.tar.xz -C bench/h200/s34`
# and moves vk-pipeline-stats out of the carry folder.
#   bash bench/h200/s34/build.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
git -C "$root" diff HEAD e0d6445 -- stdlib crates/codegen/src > /tmp/s34-head.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s34/head" /tmp/s34-head.patch
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s34/loop" "$root/bench/h200/s34/loop.patch"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s34/always" "$root/bench/h200/s34/always.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
mv "$root/bench/h200/carry-vulkan/vk-pipeline-stats" /tmp/
mkdir -p "$root/bench/h200/s34/pack"
tar cJf "$root/bench/h200/s34/pack/bins.tar.xz" -C "$root/bench/h200/s34" head loop
