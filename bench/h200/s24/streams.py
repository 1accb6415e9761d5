"""Hand-edited stream kernels for the measurement docs/design/streams-per-batch.md asks for
first: how much of a stream run's time its window atomics are.

    python3 streams.py BUILD_DIR OUTDIR

BUILD_DIR holds `dyngc build` outputs (tessellate.wgsl, compact.wgsl: one buffered stream
each); writes OUTDIR/{S0,SN}/EXAMPLE.wgsl:
  S0  unchanged
  SN  no stream atomic at all: a unit starts without reserving room, and its elements go to a
      region of the window that only its lane writes (the lane's index times the window's
      share a lane, wrapping around), so no count is kept and nothing is drained. The outputs
      are wrong by design: time it with `dyngc-bench run --unverified`. SN's time is the
      floor any emit protocol can reach with the rest of the executor as it is.
"""
import os
import re
import sys

build, out = sys.argv[1], sys.argv[2]


def function(src, name):
    """The span of `fn name(...` up to its closing brace at column 0."""
    start = src.index(f"fn {name}(")
    end = src.index("\n}\n", start) + 3
    return start, end


def replace_function(src, name, body):
    start, end = function(src, name)
    return src[:start] + body + src[end:]


def no_atomics(src):
    stream = re.search(r"var<storage, read_write> (dyn_stream_\w+): array<", src).group(1)
    src = replace_function(src, "dyn_reserve_0_", """fn dyn_reserve_0_(m: u32) -> bool {
    dyn_emitted_0_ = 0u;
    dyn_emit_max_0_ = m;
    return true;
}
""")
    src = replace_function(src, "dyn_release_0_", f"""fn dyn_release_0_() {{
    let n = dyn_emitted_0_;
    let share = max(1u, arrayLength(&{stream}) / dyn_sn_lanes);
    for (var k = 0u; k < n; k++) {{
        {stream}[dyn_sn_lane * share + (dyn_sn_count + k) % share] = dyn_emit_buf_0_[k];
    }}
    dyn_sn_count += n;
    dyn_emitted_0_ = 0u;
}}
""")
    src = replace_function(src, "dyn_release_all_0_", """fn dyn_release_all_0_() {
}
""")
    decl = "var<private> dyn_emit_room_0_: u32;\n"
    assert src.count(decl) == 1, "the stream's private variables moved"
    src = src.replace(decl, decl + "var<private> dyn_sn_lane: u32;\nvar<private> dyn_sn_lanes: u32;\nvar<private> dyn_sn_count: u32;\n")
    start, _ = function(src, "dyn_main")
    call = "    dyn_load_params();\n"
    at = src.index(call, start) + len(call)
    lanes = re.findall(r"@workgroup_size\((\d+)", src[:start])[-1]
    src = src[:at] + f"    dyn_sn_lane = wid.x * {lanes}u + lid;\n    dyn_sn_lanes = groups.x * {lanes}u;\n" + src[at:]
    return src


for example in ("tessellate", "compact"):
    src = open(os.path.join(build, f"{example}.wgsl")).read()
    for variant, edit in (("S0", lambda s: s), ("SN", no_atomics)):
        os.makedirs(os.path.join(out, variant), exist_ok=True)
        with open(os.path.join(out, variant, f"{example}.wgsl"), "w") as f:
            f.write(edit(src))
