#!/usr/bin/env bash
# Reproduces the retrieval numbers of the README (hash encoder, offline):
# ConNF dev over the imported RAutoformalizer library, ProofNet valid over
# Mathlib 59fdb6b0 extracted by driftkit (docstrings as informal text), every
# mode, then the Mathlib-scale speed benchmarks.
#   index/scripts/bench_retrieval.sh [OUT_DIR]
# Needs /work/shared/benchmarks and /work/src/mathlib-59fdb6b0 (override with
# BENCH_DIR and MATHLIB_SRC).
set -euo pipefail
OUT=${1:-work/bench-retrieval}
BENCH_DIR=${BENCH_DIR:-/work/shared/benchmarks}
MATHLIB_SRC=${MATHLIB_SRC:-/work/src/mathlib-59fdb6b0/Mathlib}
BIN=${BIN:-bin/driftkit}
mkdir -p "$OUT"
go build -o "$BIN" ./cmd/driftkit

"$BIN" import rauto --library "$BENCH_DIR/connf/library.jsonl" --ws "$OUT/connf" --force
"$BIN" index --ws "$OUT/connf" --force
if [ ! -f "$OUT/mathlib/declarations.parquet" ]; then
  "$BIN" extract --src "$MATHLIB_SRC" --library mathlib --ws "$OUT/mathlib" --quiet --force
fi
/usr/bin/time -v "$BIN" index --ws "$OUT/mathlib" --force 2> "$OUT/mathlib-index.time"
grep -E "Elapsed|Maximum resident|User time|System time" "$OUT/mathlib-index.time"

for spec in "connf:$BENCH_DIR/connf/benchmark-dev.jsonl" "mathlib:$BENCH_DIR/proofnet/valid.jsonl"; do
  ws=${spec%%:*} bench=${spec#*:}
  for mode in bm25 dense hybrid best; do
    echo "== $ws $mode"
    "$BIN" eval retrieval --ws "$OUT/$ws" --bench "$bench" --mode "$mode" --per-item "$OUT/$ws-$mode.items.jsonl" 2>/dev/null
  done
  echo "== $ws best, informal + formal statement (not an autoformalization input)"
  "$BIN" eval retrieval --ws "$OUT/$ws" --bench "$bench" --use-formal 2>/dev/null
  echo "== $ws bm25, all kinds (theorems too)"
  "$BIN" eval retrieval --ws "$OUT/$ws" --bench "$bench" --mode bm25 --all-kinds 2>/dev/null
done

# The README's table: the held-out half (retrieval/eval.SplitRule) under
# each protocol.
C=$BENCH_DIR/connf/benchmark-dev.jsonl P=$BENCH_DIR/proofnet/valid.jsonl
for proto in "" "--hold-out-module" "--unseen $C" "--unseen $C --hold-out-module"; do
  echo "== connf best, held-out half, protocol: ${proto:-leave-one-out}"
  "$BIN" eval retrieval --ws "$OUT/connf" --bench "$C" --split held-out $proto 2>/dev/null
done
echo "== mathlib best, held-out half, leave-one-out (= unseen: no ProofNet theorem is in Mathlib)"
"$BIN" eval retrieval --ws "$OUT/mathlib" --bench "$P" --split held-out 2>/dev/null

DRIFTKIT_BENCH_WS="$OUT/mathlib" DRIFTKIT_BENCH_FILE="$BENCH_DIR/proofnet/valid.jsonl" \
  go test ./index -run '^$' -bench 'WorkspaceSearch|Dot|DenseScan' -cpu 1 -benchtime 178x -v 2>/dev/null | grep -E "ns/op|heap"
DRIFTKIT_BENCH_WS="$OUT/mathlib" go test ./index -run '^$' -bench WorkspaceBuild -benchtime 1x 2>/dev/null | grep -E "ns/op"
