#!/bin/sh
# Scanner before/after in one run: measures the current scanner and the
# scanner of a baseline commit (default: main just before issue 11's work)
# on the same corpora, same machine, one after the other, and prints the
# Markdown rows quoted in BENCHMARKS.md.
#
#   scripts/scan-eval.sh [BASELINE_COMMIT]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
base=${1:-$(git rev-parse "$(git log --format=%H --grep='^Held-out attack set' | tail -1)^")}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
# The baseline gets this evaluation command and the credential generator,
# with a block-level scan that does not exist there.
mkdir -p "$tmp/base/internal/scan/internal/evalscan" "$tmp/base/internal/testcreds"
cp internal/scan/internal/evalscan/main.go internal/scan/internal/evalscan/cputime_*.go "$tmp/base/internal/scan/internal/evalscan/"
cp internal/testcreds/testcreds.go "$tmp/base/internal/testcreds/"
cat > "$tmp/base/internal/scan/internal/evalscan/across.go" <<'GO'
package main

// The baseline has no block-level scan.
func acrossBlocked([]string) bool { return false }
GO
echo "| corpus | scanner | measure | result | p50 µs | p99 µs |"
echo "|---|---|---|---|---|---|"
(cd "$tmp/base" && go run ./internal/scan/internal/evalscan -root "$root" -label "before ($(git rev-parse --short "$base"))")
go run ./internal/scan/internal/evalscan -root "$root" -label "after ($(git rev-parse --short HEAD))"
