#!/usr/bin/env bash
# Builds, here, the two sides of bench/h200/s28/buffered.sh:
#   bench/h200/carry-vulkan/dyngc-bench   main (HEAD), by bench/h200/build-vulkan.sh
#   bench/h200/s28/buffered/dyngc-bench   HEAD with bench/h200/s28/buffered.patch applied
# The patch (session 28, not measured on a GPU): a lane keeps the elements of several units of a
# buffered stream in its private buffer (up to STREAM_GRANT_UNITS maxima within
# EMIT_BUFFER_WORDS) and takes their slots with one atomicAdd when the buffer cannot hold the
# next unit's maximum, before it moves to another sub-window, and when its batch ends; with the
# loom model of it (two new paths, one new broken variant) and docs/executor.md.
#   bash bench/h200/s28/build-buffered.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
bash "$root/bench/h200/build-patched.sh" "$root/bench/h200/s28/buffered" "$root/bench/h200/s28/buffered.patch"
bash "$root/bench/h200/build-vulkan.sh"
strip "$root/bench/h200/carry-vulkan/dyngc-bench"
