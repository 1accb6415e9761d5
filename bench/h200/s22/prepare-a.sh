#!/usr/bin/env bash
# Makes bench/h200/s22/A/ (git-ignored): `dyngc build` of tree, collatz and bfs at 31c7908 (the
# start of session 22, a batch gathered by lane 0's walk), the A side of bench/h200/ab.sh against
# the working tree's build (the gather as a prefix scan over the lanes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../worktree-build.sh"
build_at 31c7908 "$here/A" - tree collatz bfs
rm -f "$here"/A/*.json
