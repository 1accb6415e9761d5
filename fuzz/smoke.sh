#!/usr/bin/env bash
# A smoke run of both fuzz targets, for the test command: builds them with the coverage
# instrumentation cargo-fuzz uses (all of it accepted by the stable compiler, see README.md) and
# runs each for a fixed number of executions from the seed corpus, so that a target that no
# longer compiles, or an input that now crashes, fails the tests. The long runs stay manual.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${FUZZ_SMOKE_RUNS:-20000}"
"$root/fuzz/seed-corpus.sh" >/dev/null
cd "$root/fuzz"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions"
# Its own target directory: instrumented objects must not mix with the workspace's.
export CARGO_TARGET_DIR="$root/fuzz/target"
# An explicit target, as cargo-fuzz passes: then RUSTFLAGS reach the targets but not the build
# scripts (which cannot link the instrumentation's hooks).
host="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --quiet --release --bins --target "$host"
bin="$CARGO_TARGET_DIR/$host/release"
for target in parse check; do
    mkdir -p "$root/fuzz/artifacts/$target"
    log="$root/fuzz/artifacts/$target/smoke.log"
    status=0
    "$bin/$target" "$root/fuzz/corpus/$target" -runs="$runs" \
        -dict="$root/fuzz/dyn.dict" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$root/fuzz/artifacts/$target/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$log" | sed "s/^/$target: /"
    if [ "$status" -ne 0 ]; then
        tail -40 "$log" >&2
        echo "fuzz target $target failed (exit $status); the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
done
