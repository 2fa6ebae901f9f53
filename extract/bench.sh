#!/bin/sh
# Extracts all of Mathlib and reports wall time, peak RSS and the time per
# phase recorded in the manifest. Usage: extract/bench.sh MATHLIB_DIR [DRIFTKIT_BIN]
#   MATHLIB_DIR: a Mathlib checkout (its Mathlib/ folder is extracted)
set -eu
MATHLIB=${1:?usage: bench.sh MATHLIB_DIR [driftkit binary]}
BIN=${2:-./bin/driftkit}
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
SRC="$MATHLIB"
[ -d "$MATHLIB/Mathlib" ] && SRC="$MATHLIB/Mathlib"
echo "extracting $SRC into $WS"
/usr/bin/time -v "$BIN" extract --src "$SRC" --library mathlib --ws "$WS" --quiet 2> "$WS/time.txt"
grep -E "Elapsed|Maximum resident|User time|System time|Percent of CPU" "$WS/time.txt"
grep -A6 '"phase_seconds"' "$WS/manifest.json"
