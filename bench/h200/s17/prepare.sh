#!/usr/bin/env bash
# Makes the hand-edited collatz kernels of collatz.sh (README.md): M is `dyngc build
# examples/collatz.dyn` of commit e303ef3 (built in a temporary worktree), V = M + collatz-V.patch.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
tree="$(mktemp -d)"
git -C "$root" worktree add --quiet --detach "$tree" e303ef3
(cd "$tree" && CARGO_TARGET_DIR="$root/target" cargo run --quiet -p dyngc -- build examples/collatz.dyn -o "$here/M" >/dev/null)
git -C "$root" worktree remove --force "$tree"
for p in "$here"/collatz-*.patch; do
  v="$(basename "$p" .patch)"; v="${v#collatz-}"
  mkdir -p "$here/$v"
  patch --quiet -o "$here/$v/collatz.wgsl" "$here/M/collatz.wgsl" "$p"
done
