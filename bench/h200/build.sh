#!/usr/bin/env bash
# Builds dyngc-bench in release for a machine whose only working GPU path is wgpu's GL backend
# through EGL (the team's H200: no Vulkan). wgpu-hal 30 asks EGL for an OpenGL 3.3 context, which
# has no compute shaders; this build patches a private copy of wgpu-hal to ask for 4.6.
# Nothing of wgpu-hal is committed: the copy lives in bench/h200/wgpu-hal (git-ignored).
#
# Output (git-ignored, to `carry` to the device machine): bench/h200/carry/
#   dyngc-bench               the binary
#   *.deb                     libegl1, libglvnd0 (libEGL.so.1, libGLdispatch.so.0), unpacked there
#                             with: for f in bench/h200/carry/*.deb; do dpkg -x $f /; done; ldconfig
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/h200"
src="$(ls -d "$HOME"/.cargo/registry/src/*/wgpu-hal-30.0.2 | head -n1)"
[ -d "$src" ] || { echo "wgpu-hal-30.0.2 not in ~/.cargo/registry/src (run cargo fetch first)"; exit 1; }
rm -rf "$here/wgpu-hal"
cp -r "$src" "$here/wgpu-hal"
egl="$here/wgpu-hal/src/gles/egl.rs"
# The change: desktop GL context 3.3 -> 4.6 (compute shaders, SSBOs).
sed -i -e '/gl_context_attributes.push(khronos_egl::CONTEXT_MAJOR_VERSION);/{n;s/push(3)/push(4)/}' \
       -e '/gl_context_attributes.push(khronos_egl::CONTEXT_MINOR_VERSION);/{n;s/push(3)/push(6)/}' "$egl"
grep -A1 'gl_context_attributes.push(khronos_egl::CONTEXT_MAJOR_VERSION)' "$egl" | grep -q 'push(4)' || { echo "patch did not apply"; exit 1; }
grep -A1 'gl_context_attributes.push(khronos_egl::CONTEXT_MINOR_VERSION)' "$egl" | grep -q 'push(6)' || { echo "patch did not apply"; exit 1; }
cd "$root"
# The patch rewrites wgpu-hal's entry in Cargo.lock (a path, no checksum): put the committed lock
# back afterwards, whatever happens.
cp Cargo.lock "$here/Cargo.lock.orig"
trap 'mv "$here/Cargo.lock.orig" "$root/Cargo.lock"' EXIT
DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)$(git diff --quiet HEAD || echo -dirty)" cargo build --release -p dyngc-bench --config "patch.crates-io.wgpu-hal.path=\"$here/wgpu-hal\"" --target-dir target/h200
mkdir -p "$here/carry"
cp target/h200/release/dyngc-bench "$here/carry/"
if ! ls "$here"/carry/libegl1_*.deb >/dev/null 2>&1 || ! ls "$here"/carry/libglvnd0_*.deb >/dev/null 2>&1; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  mkdir -p /tmp/amd64/partial
  apt-get $o update >/dev/null
  (cd "$here/carry" && apt-get $o download libegl1 libglvnd0)
fi
ls -la "$here/carry"
