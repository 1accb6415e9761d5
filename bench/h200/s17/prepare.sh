#!/usr/bin/env bash
# Makes the hand-edited collatz kernels of collatz.sh (README.md): M is the build of
# examples/collatz.dyn (the patches apply to commit e303ef3's), V = M + collatz-V.patch.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../.."
(cd "$root" && cargo run --quiet -p dyngc -- build examples/collatz.dyn -o "$here/M" >/dev/null)
for p in "$here"/collatz-*.patch; do
  v="$(basename "$p" .patch)"; v="${v#collatz-}"
  mkdir -p "$here/$v"
  patch --quiet -o "$here/$v/collatz.wgsl" "$here/M/collatz.wgsl" "$p"
done
