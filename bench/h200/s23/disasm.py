"""Machine code out of an NVIDIA Vulkan pipeline cache (vk-pipeline-stats --cache-dump).

    python3 disasm.py FILE.cache...   ->  FILE.sass beside each (needs zstd and nvdisasm)

The cache blob is the driver's own format: a header, then a zstd frame holding an "NVuc"
container of metadata and the SM90 machine code. The code ends with the usual EXIT and the
branch-to-self after it; its start is found by walking back 16-byte instruction by instruction
while nvdisasm still reads them as legal (the metadata before it is not). nvdisasm comes in
NVIDIA's `nvidia-cuda-nvdisasm` wheel (pip download), or on the bench machine's image.
"""
import re
import subprocess
import sys
import tempfile

BRANCH_TO_SELF = bytes.fromhex("4779fc00fcffffff")


def legal(code: bytes) -> bool:
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(code)
        f.flush()
        out = subprocess.run(["nvdisasm", "-b", "SM90", f.name], capture_output=True, text=True)
    return out.returncode == 0 and "error" not in out.stderr


for path in sys.argv[1:]:
    blob = open(path, "rb").read()
    frame = blob.find(b"\x28\xb5\x2f\xfd")
    raw = subprocess.run(["zstd", "-d", "-c", "-q"], input=blob[frame:], capture_output=True, check=True).stdout
    end = [m.start() for m in re.finditer(re.escape(BRANCH_TO_SELF), raw)][-1] + 16
    # Binary search on the legal prefix would miss a metadata word that happens to decode; the
    # walk stops at the first illegal word, in chunks of 64 instructions, then one by one.
    start = end - 16
    step = 64 * 16
    while step >= 16:
        while start - step >= 0 and legal(raw[start - step : end]):
            start -= step
        step //= 2 if step > 16 else 32
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(raw[start:end])
        f.flush()
        sass = subprocess.run(["nvdisasm", "-b", "SM90", f.name], capture_output=True, text=True, check=True).stdout
    out = path[: -len(".cache")] + ".sass"
    open(out, "w").write(sass)
    print(f"{out}: {(end - start) // 16} instructions")
