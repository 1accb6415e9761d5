#!/usr/bin/env bash
# Makes bench/h200/s19/A/ (git-ignored): `dyngc build` of tree, collatz, bfs, compact and tessellate at 1a1aaba (the
# start of session 19), the A side of bench/h200/ab.sh against the working tree's build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
tree="$(mktemp -d)"
# Its own target directory: the worktree build must not replace target/release/dyngc.
git -C "$root" worktree add --quiet --detach "$tree" 1a1aaba
for e in tree collatz bfs compact tessellate; do
  (cd "$tree" && CARGO_TARGET_DIR="$root/target/worktree" cargo run --quiet --release -p dyngc -- build "examples/$e.dyn" -o "$here/A" >/dev/null)
done
git -C "$root" worktree remove --force "$tree"
rm -f "$here"/A/*.json
