#!/bin/sh
# The scanner before and after issue 22 in one run: every source of the
# corpus package, per source and per category, for the scanner of a
# baseline commit (default: main just before issue 22's work) and the
# current one (rules alone, rules + learned detector, and each training
# source with a model refitted without it). Prints the Markdown tables
# quoted in BENCHMARKS.md.
#
#   scripts/scan-eval-22.sh [BASELINE_COMMIT]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
base=${1:-369ff78}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
# where the scanner lives here and there
here=$(ls -d internal/scan memcore/scan 2>/dev/null | while read d; do [ -f "$d/scan.go" ] && echo "$d"; done | head -1)
there=$(cd "$tmp/base" && ls -d internal/scan memcore/scan 2>/dev/null | while read d; do [ -f "$d/scan.go" ] && echo "$d"; done | head -1)
mkdir -p "$tmp/base/$there/internal/corpus" "$tmp/base/$there/internal/evaldetector"
for f in "$here"/internal/corpus/*.go "$here"/internal/evaldetector/main.go "$here"/internal/evaldetector/baseline.go; do
	sed "s#odekmem/odekmem/$here#odekmem/odekmem/$there#g" "$f" > "$tmp/base/$there/${f#"$here"/}"
done
(cd "$tmp/base" && go run -tags baseline "./$there/internal/evaldetector" -root "$root" -tsv "$tmp/before.tsv" >/dev/null)
go run "./$here/internal/evaldetector" -loso -baseline "$tmp/before.tsv"
