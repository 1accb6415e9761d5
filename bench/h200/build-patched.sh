#!/usr/bin/env bash
# Builds, here, a release dyngc-bench of HEAD with patches applied, for a device A/B against
# bench/h200/carry-vulkan (main): a worktree under /tmp, this checkout's target directory, the
# binary stripped into OUTDIR (git-ignored where the calling script's folder says so).
#   bash bench/h200/build-patched.sh OUTDIR PATCH...
# Build main (bench/h200/build-vulkan.sh) after it, so that the shared target directory ends on
# HEAD's sources.
set -euo pipefail
usage="usage: $0 OUTDIR PATCH..."
out="${1:?$usage}"
shift
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
tree=/tmp/dyngc-variant-$(basename "$out")
git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
git -C "$root" worktree add --detach "$tree" HEAD >/dev/null
names=""
for patch in "$@"; do
  git -C "$tree" apply "$(realpath "$patch")"
  names="$names-$(basename "$patch" .patch)"
done
(cd "$tree" && DYNGC_BENCH_COMMIT="$(git rev-parse HEAD)$names" CARGO_TARGET_DIR="$root/target" \
  cargo build --release -p dyngc-bench)
mkdir -p "$out"
cp "$root/target/release/dyngc-bench" "$out/"
strip "$out/dyngc-bench"
git -C "$root" worktree remove --force "$tree"
touch -c "$root"/crates/*/src/lib.rs
