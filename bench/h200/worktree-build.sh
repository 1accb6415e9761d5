# Sourced by the sessions' prepare scripts (bench/h200/s*/prepare*.sh): hand-edited kernels start
# from another commit's `dyngc build`.

# build_at COMMIT OUT PATCH EXAMPLE...: `dyngc build examples/EXAMPLE.dyn -o OUT` for each EXAMPLE
# as of COMMIT, with PATCH applied first (- for none), in a temporary worktree. Its own target
# directory (target/worktree): sharing target/ replaced target/release/dyngc with the old
# commit's, and the next run of this checkout's build used it unknowingly (session 19).
build_at() {
  local commit="$1" out="$2" patch="$3" root tree e
  shift 3
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  tree="$(mktemp -d)"
  git -C "$root" worktree add --quiet --detach "$tree" "$commit"
  if [ "$patch" != - ]; then
    git -C "$tree" apply "$patch"
  fi
  for e in "$@"; do
    (cd "$tree" && CARGO_TARGET_DIR="$root/target/worktree" cargo run --quiet --release -p dyngc -- \
      build "examples/$e.dyn" -o "$out" >/dev/null)
  done
  git -C "$root" worktree remove --force "$tree"
}

# patch_variants BASE OUT PATCH...: OUT/V/NAME is BASE (a .wgsl file named NAME) with each
# PREFIX-V.patch applied.
patch_variants() {
  local base="$1" out="$2" p v
  shift 2
  for p in "$@"; do
    v="$(basename "$p" .patch)"
    v="${v#*-}"
    mkdir -p "$out/$v"
    patch --quiet -o "$out/$v/$(basename "$base")" "$base" "$p"
  done
}
