#!/usr/bin/env bash
# Makes session 19's tree kernels in bench/h200/s19/V/ (git-ignored), for tree.sh: B is
# `dyngc build examples/tree.dyn` of 1a1aaba with keep.patch (kept fan-outs, not landed: docs/
# performance.md, session 19), and each variant is B with the kept fan-outs' constants set by sed
# (the build's caps and reserve are those of DYN_KEEP = 4, the most a variant keeps):
#   K0 keeps nothing (the executor before kept fan-outs, with a larger reserve); K1, K2, K4 keep
#   1, 2, 4 fan-outs a lane with DYN_KEEP_UNITS 32; K4U16, K4U128: K4 with 16 and 128 units.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../worktree-build.sh"
build_at 1a1aaba "$here/V/B" "$here/keep.patch" tree
variant() { # variant NAME KEEP UNITS
  mkdir -p "$here/V/$1"
  sed -e "s/^const DYN_KEEP: u32 = [0-9]*u;/const DYN_KEEP: u32 = $2u;/" \
      -e "s/^const DYN_KEEP_SLOTS: u32 = [0-9]*u;/const DYN_KEEP_SLOTS: u32 = $(( $2 > 0 ? $2 : 1 ))u;/" \
      -e "s/^const DYN_KEEP_UNITS: u32 = [0-9]*u;/const DYN_KEEP_UNITS: u32 = $3u;/" \
      "$here/V/B/tree.wgsl" > "$here/V/$1/tree.wgsl"
  grep -q "^const DYN_KEEP: u32 = $2u;" "$here/V/$1/tree.wgsl"
}
variant K0 0 32
variant K1 1 32
variant K2 2 32
variant K4 4 32
variant K4U16 4 16
variant K4U128 4 128
# WU, K4WU: K0 and K4 without the workgroup atomic that counts a lane's run of units at each change
# of stage (units_per_stage comes out short; the bench does not read it), to weigh that atomic.
# WD0, WD4: K0 and K4 with tree's per_depth counted in workgroup memory and added to the buffer
# once per worker and launch (the same result), to weigh the user's global atomic per node.
edit() { # edit wu|wd FROM TO
  mkdir -p "$here/V/$3"
  python3 - "$1" "$here/V/$2/tree.wgsl" "$here/V/$3/tree.wgsl" <<'PY'
import sys
mode, src, dst = sys.argv[1:]
s = open(src).read()
if mode == "wu":
    old = "let _e60 = atomicAdd((&dyn_wg_units[_e57]), _e59);"
    assert s.count(old) == 1
    s = s.replace(old, "")
else:
    old = "atomicAdd((&per_depth[n_2.depth]), 1u);"
    assert s.count(old) == 1
    s = s.replace(old, "atomicAdd((&dyn_wd[n_2.depth]), 1u);")
    s = s.replace("\nfn pcg(", "\nvar<workgroup> dyn_wd: array<atomic<u32>, 25>;\n\nfn pcg(", 1)
    exit_barrier = "    }\n    workgroupBarrier();\n"
    i = s.rindex(exit_barrier + "    if (lid == 0u) {\n        let _e") + len(exit_barrier)
    flush = (
        "    for (var d = lid; d < 25u; d += 64u) {\n        let v = atomicLoad(&dyn_wd[d]);\n"
        "        if (v != 0u) {\n            atomicAdd(&per_depth[d], v);\n        }\n    }\n"
    )
    s = s[:i] + flush + s[i:]
open(dst, "w").write(s)
PY
}
edit wu K0 WU
edit wu K4 K4WU
edit wd K0 WD0
edit wd K4 WD4
