#!/usr/bin/env bash
# Device call (nvidia-h200, carrying bench/h200/carry-vulkan): what the NVIDIA Vulkan driver
# compiled each WGSL file's entry points into. vk-pipeline-stats writes each entry point's
# pipeline cache (registers and memory go to NAME.stats.txt); disassemble them here with
# `python3 bench/h200/s23/disasm.py DIR/*/*.cache` (README.md).
#   bash bench/h200/s23/sass.sh FILE.wgsl...   ->  $OUT/sass.tgz (NAME.stats.txt, NAME/ENTRY.cache)
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
source bench/h200/s17/setup.sh
work=/tmp/sass
mkdir -p "$work"
for f in "$@"; do
  name="$(basename "$f" .wgsl)"
  bench/h200/carry-vulkan/vk-pipeline-stats "$f" --cache-dump "$work/$name" > "$work/$name.stats.txt" 2>&1
done
tar czf "$OUT/sass.tgz" -C "$work" .
