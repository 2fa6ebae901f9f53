#!/usr/bin/env bash
# Runs every Go fuzz target for a short time each: scripts/fuzz.sh 30s
set -euo pipefail
t=${1:-10s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "== $pkg $f ($t)"
    go test -run "^$" -fuzz "^$f\$" -fuzztime "$t" -fuzzminimizetime 3s "$pkg"
  done
done
