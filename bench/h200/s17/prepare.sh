#!/usr/bin/env bash
# Makes the hand-edited collatz kernels of collatz.sh (README.md): M is `dyngc build
# examples/collatz.dyn` of commit e303ef3 (built in a temporary worktree), V = M + collatz-V.patch.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../worktree-build.sh"
build_at e303ef3 "$here/M" - collatz
patch_variants "$here/M/collatz.wgsl" "$here" "$here"/collatz-*.patch
