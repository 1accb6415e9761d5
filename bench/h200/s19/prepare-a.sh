#!/usr/bin/env bash
# Makes bench/h200/s19/A/ (git-ignored): `dyngc build` of tree, collatz, bfs, compact and tessellate at 1a1aaba (the
# start of session 19), the A side of bench/h200/ab.sh against the working tree's build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../worktree-build.sh"
build_at 1a1aaba "$here/A" - tree collatz bfs compact tessellate
rm -f "$here"/A/*.json
