#!/usr/bin/env bash
# Session 19, device call: registers and local memory of prepare.sh's kernels, from the driver.
#   bash bench/h200/s19/stats.sh "VARIANTS"
set -uo pipefail
source bench/h200/s17/setup.sh
for v in $1; do
  echo "== $v"; "$here/vk-pipeline-stats" bench/h200/s19/V/$v/tree.wgsl 2>&1 | grep -A30 "dyn_main" | head -30
done
