#!/usr/bin/env bash
# Builds dyngc-bench in release for the team's H200 through wgpu's Vulkan backend (unpatched).
# Output (git-ignored, to `carry` to the device machine): bench/h200/carry-vulkan/
#   dyngc-bench               the binary
#   vk-pipeline-stats         registers and memory per shader, from the driver
#   *.deb                     the Vulkan loader and libglvnd's libGLX / libGLdispatch (libglx0, libglvnd0), which wgpu's
#                             Vulkan backend also loads; unpacked there with dpkg -x (run.sh does it)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/bench/h200/carry-vulkan"
cd "$root"
# The commit goes into the results (a copy of the tree on the device may carry stale git metadata).
DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)$(git diff --quiet HEAD || echo -dirty)" cargo build --release -p dyngc-bench
mkdir -p "$out"
cp target/release/dyngc-bench target/release/vk-pipeline-stats "$out/"
if ! ls "$out"/libvulkan1_*.deb "$out"/libglx0_*.deb "$out"/libglvnd0_*.deb >/dev/null 2>&1; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  mkdir -p /tmp/amd64/partial
  apt-get $o update >/dev/null
  (cd "$out" && apt-get $o download libvulkan1 libglx0 libglvnd0)
fi
ls -la "$out"
