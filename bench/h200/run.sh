#!/usr/bin/env bash
# Runs dyngc-bench on the team's H200. Run on the device machine, from the repository root, with
# the backend's carry folder carried there:
#   vulkan (the default; wgpu unpatched): bench/h200/carry-vulkan, from bench/h200/build-vulkan.sh
#   gl (wgpu-hal patched for OpenGL 4.6): bench/h200/carry, from bench/h200/build.sh
# Writes JSON and a log to $OUT, named CARD-vk-TAG-PART (vulkan) or CARD-gl-TAG-PART (gl), CARD the
# GPU the call got (h100, h200: bench/h200/card.sh). Parts,
# each well under one device call's 10 minutes:
#   bash bench/h200/run.sh vulkan TAG main   # triangle, tree, bfs (kron14/18/20, path, star), collatz
#   bash bench/h200/run.sh vulkan TAG kron   # bfs on Kronecker scale 16, 21, 22
#   bash bench/h200/run.sh vulkan TAG rows   # row_sum (a wide stage): megakernel against partitioned
#   bash bench/h200/run.sh vulkan TAG streams  # compact, tessellate: stream outputs (default window)
#   bash bench/h200/run.sh vulkan TAG window   # the same with a window of 65,536 elements
# Arguments after the part go to dyngc-bench, e.g. `... vulkan TAG main --lanes 128`.
set -euo pipefail
: "${OUT:?set OUT to the directory the results go to}"
usage="usage: $0 vulkan|gl TAG main|kron|rows|streams|window [dyngc-bench arguments]"
backend="${1:?$usage}"
tag="${2:?$usage}"
part="${3:?$usage}"
extra=("${@:4}")
case "$backend" in
  vulkan) here=bench/h200/carry-vulkan; short=vk
          # The driver's own ICD file names libGLX_nvidia, whose vkCreateInstance is missing on
          # the machine since session 11 (the loader: "Could not get 'vkCreateInstance'"); the
          # same driver's libEGL_nvidia exports a working one.
          icd=/tmp/dyngc-nvidia-egl-icd.json
          echo '{"file_format_version":"1.0.1","ICD":{"library_path":"libEGL_nvidia.so.0","api_version":"1.4.312"}}' > "$icd"
          export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd} ;;
  gl) here=bench/h200/carry; short=gl ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
for f in "$here"/*.deb; do dpkg -x "$f" /; done
ldconfig
export WGPU_BACKEND=$backend
source bench/h200/card.sh
# --warm-ms: the GPU kept busy before each repetition, at least 100 ms and then until the clock
# is back, so that runs start at full clock (docs/performance.md, sessions 12 and 28: the driver
# idles the SM clock while the host checks results).
common=(run --backend "$backend" --workers 1024 --reps 3 --timeout-s 12 --warm-ms 100 --arenas min,x16,x256,expand)
case "$part" in
  main)
    cases=(--case triangle:1e6 --case triangle:1e8 --case triangle:1e9 --case tree:1e5 --case tree:1e6
           --case tree:1e7 --case bfs:kron14 --case bfs:kron18 --case bfs:kron20 --case bfs:path1e4
           --case bfs:star1e6 --case collatz:1e6) ;;
  kron)
    cases=(--case bfs:kron16 --case bfs:kron21 --case bfs:kron22) ;;
  rows)
    cases=(--case row_sum:kron16 --case row_sum:kron18 --case row_sum:kron20 --methods cpu,dyngc,dyngc-partitioned,dyngc-narrow) ;;
  streams|window)
    cases=(--case compact:1e6 --case compact:1e8 --case tessellate:1e5 --case tessellate:1e6 --methods expand,retry,dyngc)
    if [ "$part" = window ]; then cases+=(--stream-capacity 65536); fi ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
"$here/dyngc-bench" "${common[@]}" "${cases[@]}" "${extra[@]}" --note "bench/h200/run.sh $backend $tag $part ${extra[*]}" \
  --out "$OUT/$card-$short-$tag-$part.json" 2>&1 | tee "$OUT/$card-$short-$tag-$part.log"
