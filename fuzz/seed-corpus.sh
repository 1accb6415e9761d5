#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ (git-ignored) with the examples, the UI test inputs and the committed
# regression inputs. Run from anywhere; safe to re-run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for target in parse check; do
    dir="$root/fuzz/corpus/$target"
    mkdir -p "$dir"
    while IFS= read -r -d '' f; do
        rel="${f#"$root"/}"
        cp "$f" "$dir/${rel//\//_}"
    done < <(find "$root/examples" "$root/tests/ui" "$root/fuzz/regressions" -name '*.dyn' -print0 2>/dev/null)
done
echo "seeded: $(ls "$root/fuzz/corpus/parse" | wc -l) files per target"
