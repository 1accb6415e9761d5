#!/usr/bin/env bash
# Makes session 18's hand-edited kernels (README.md) in bench/h200/s17/V/ (git-ignored there), for
# bench/h200/s17/collatz.sh: G is `dyngc build examples/collatz.dyn` of 942530a (built in a
# temporary worktree), V = G + collatz-V.patch; LB, L4, L16 are G and U4B is U4 with
# `DYN_LANE_UNITS` set to 2^30, 4096 and 16384; GU is the build of 9577fe2 (the copies, 1,024
# units a batch) and GU4 is GU with 4096. C1 (here, in C1/) is compact.wgsl of 942530a and C4 the same with 4096.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../s17"
source "$here/../worktree-build.sh"
build_at 942530a "$out/G" - collatz
build_at 942530a "$here/C1" - compact
build_at 9577fe2 "$out/GU" - collatz
patch_variants "$out/G/collatz.wgsl" "$out" "$here"/collatz-*.patch
units() { # units FROM TO N: TO/collatz.wgsl (or compact) is FROM's with DYN_LANE_UNITS = N
  mkdir -p "$2"
  for f in "$1"/*.wgsl; do
    sed "s/^const DYN_LANE_UNITS: u32 = [0-9]*u;/const DYN_LANE_UNITS: u32 = $3u;/" "$f" > "$2/$(basename "$f")"
  done
}
units "$out/G" "$out/LB" 1073741824
units "$out/G" "$out/L4" 4096
units "$out/G" "$out/L16" 16384
units "$out/U4" "$out/U4B" 1073741824
units "$out/GU" "$out/GU4" 4096
units "$here/C1" "$here/C4" 4096
