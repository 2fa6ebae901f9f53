#!/usr/bin/env bash
# Measures `driftkit import lean4export` on a synthetic export shaped like a
# large library's (shared, hash-consed expressions): wall time, lines/s and
# peak RSS. Usage: extract/lean4export/bench.sh [DECLS] [DIR] [BIN]
#   DECLS declarations (default 100000: ~44M expression lines, ~2.5 GB)
set -euo pipefail
decls=${1:-100000}
dir=${2:-work/bench-lean4export}
bin=${3:-bin/driftkit}
mkdir -p "$dir"
fixture="$dir/large-$decls.ndjson"
if [ ! -s "$fixture" ]; then
  DRIFTKIT_L4E_FIXTURE="$(realpath "$dir")/large-$decls.ndjson" DRIFTKIT_L4E_DECLS="$decls" \
    go test -run TestWriteLargeFixture -count=1 -v ./extract/lean4export/ | grep -E 'declarations|ok|FAIL'
fi
ls -l "$fixture"
rm -rf "$dir/ws"
/usr/bin/time -v "$bin" import lean4export --library bench --ws "$dir/ws" --quiet "$fixture" 2> "$dir/time.txt"
grep -E 'Elapsed|Maximum resident' "$dir/time.txt"
