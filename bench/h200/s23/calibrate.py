"""Hand-edited tree kernels for session 23's calibration: work added to every lane of every
batch, just before the lanes run their units, to see which SM resource bounds a batch at the
largest arena.

    python3 calibrate.py TREE.wgsl OUTDIR

writes OUTDIR/{T0,TA,TM}/tree.wgsl:
  T0  unchanged
  TA  1,024 integer multiply-adds a lane, in four independent chains (issue slots)
  TM  256 workgroup-memory loads a lane, independent (the shared-memory pipe)
  WD, WDA  T0 and TA with the user's per_depth counted in workgroup memory
The results feed a branch no input takes (a statistics word), so nothing is optimized away.
"""
import os
import sys

src = open(sys.argv[1]).read()
out = sys.argv[2]
anchor = "                        dyn_run_lane(me_11, lid, _e69);\n"
assert src.count(anchor) == 1, "the anchor moved: look for dyn_run_lane in dyn_main"
sink = "if ({v} == 0x9e3779b9u) {{ dyn_wg_stats[9] = {v}; }}\n"


def alu():
    lines = [f"var cal{c}: u32 = lid * {2654435761 + 2 * c}u + _e69[1];\n" for c in range(4)]
    for k in range(256):
        for c in range(4):
            lines.append(f"cal{c} = cal{c} * 747796405u + {2891336453 + k}u;\n")
    lines.append("let cal = cal0 ^ cal1 ^ cal2 ^ cal3;\n")
    lines.append(sink.format(v="cal"))
    return lines


def shared():
    lines = ["var cal: u32 = lid;\n"]
    for k in range(256):
        lines.append(f"cal = cal + dyn_wg_heads[(lid + {k * 7}u) & 63u];\n")
    lines.append(sink.format(v="cal"))
    return lines


for name, body in (("T0", []), ("TA", alu()), ("TM", shared())):
    os.makedirs(f"{out}/{name}", exist_ok=True)
    block = "".join("                        " + line for line in body)
    if body:
        block = "                        {\n" + block + "                        }\n"
    open(f"{out}/{name}/tree.wgsl", "w").write(src.replace(anchor, block + anchor))

# WD: the user's per_depth counted in workgroup memory and added once per worker and launch
# (session 19's WD0), alone and with TA's multiply-adds.
def per_depth_in_workgroup(text):
    old = "    let _e6 = atomicAdd((&per_depth[n_1.depth]), 1u);\n"
    assert text.count(old) == 1
    text = text.replace(old, "    let _e6 = atomicAdd((&dyn_cal_depth[n_1.depth]), 1u);\n")
    decl = "var<workgroup> dyn_wg_units: array<atomic<u32>, 3>;\n"
    assert text.count(decl) == 1
    text = text.replace(decl, decl + "var<workgroup> dyn_cal_depth: array<atomic<u32>, 25>;\n")
    start = "    s_1 = lid;\n    loop {\n"
    assert text.count(start) == 1
    text = text.replace(start, "    if (lid < 25u) { atomicStore(&dyn_cal_depth[lid], 0u); }\n" + start)
    end = "    workgroupBarrier();\n    if (lid == 0u) {\n        let _e144 = dyn_stack_words(me_11);\n"
    assert text.count(end) == 1
    flush = ("    workgroupBarrier();\n    if (lid < 25u) { let v = atomicLoad(&dyn_cal_depth[lid]);"
             " if (v != 0u) { atomicAdd(&per_depth[lid], v); } }\n")
    return text.replace(end, flush + end[len("    workgroupBarrier();\n"):])


for name, base in (("WD", "T0"), ("WDA", "TA")):
    os.makedirs(f"{out}/{name}", exist_ok=True)
    text = open(f"{out}/{base}/tree.wgsl").read()
    open(f"{out}/{name}/tree.wgsl", "w").write(per_depth_in_workgroup(text))
