#!/usr/bin/env bash
# Makes V/G, V/NS, V/NST, V/NSP (git-ignored) for tree.sh: G is `dyngc build examples/tree.dyn` of
# the working tree; NS is G with every storageBarrier() written as workgroupBarrier() (the same
# control barrier without its storage-memory fence); NST only the one at the top of dyn_main's
# loop; NSP only dyn_publish's two. To weigh the fences (correct at one worker in practice:
# every arena word is accessed atomically; the bench checks each result).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
(cd "$root" && cargo run --quiet --release -p dyngc -- build examples/tree.dyn -o "$here/V/G" >/dev/null)
rm -f "$here/V/G/tree.manifest.json"
python3 - "$here/V" <<'PY'
import os, re, sys
v = sys.argv[1]
g = open(f"{v}/G/tree.wgsl").read()
def put(name, text):
    os.makedirs(f"{v}/{name}", exist_ok=True)
    open(f"{v}/{name}/tree.wgsl", "w").write(text)
put("NS", g.replace("storageBarrier();", "workgroupBarrier();"))
top = "    loop {\n        storageBarrier();\n        dyn_prescan("
assert g.count(top) == 1
put("NST", g.replace(top, top.replace("storageBarrier", "workgroupBarrier")))
i = g.index("\nfn dyn_publish(")
j = g.index("\n}\n", i)
body = g[i:j]
assert body.count("storageBarrier();") == 2
put("NSP", g[:i] + body.replace("storageBarrier();", "workgroupBarrier();") + g[j:])
PY
