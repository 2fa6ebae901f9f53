#!/usr/bin/env bash
# Tunes the weights of mode best on the tune half of the shared benchmarks
# (ConNF dev over the imported library, ProofNet valid over Mathlib; the
# split rule is retrieval/eval.SplitRule, the lists are committed in
# retrieval/eval/testdata/splits) and prints the held-out half for the
# weights chosen. Coordinate ascent from the defaults: each weight in turn
# takes the value of its grid that maximises the mean F1@5 of the two tune
# halves; two sweeps. The held-out half is never looked at while tuning.
#   index/scripts/tune_weights.sh WS_ROOT   (WS_ROOT/connf and WS_ROOT/mathlib,
#                                            as index/scripts/bench_retrieval.sh leaves them)
set -euo pipefail
ROOT=${1:?usage: tune_weights.sh WS_ROOT}
BENCH_DIR=${BENCH_DIR:-/work/shared/benchmarks}
BIN=${BIN:-bin/driftkit}
CONNF=$BENCH_DIR/connf/benchmark-dev.jsonl
PROOFNET=$BENCH_DIR/proofnet/valid.jsonl
# PROTOCOL adds eval flags for ConNF (e.g. "--unseen $CONNF --hold-out-module"
# to tune for the strictest protocol); default leave-one-out.
PROTOCOL=${PROTOCOL:-}
f1() { # ws bench split weights-json → F1@5
  local p=""
  [ "$1" = connf ] && p=$PROTOCOL
  # shellcheck disable=SC2086
  "$BIN" eval retrieval --ws "$ROOT/$1" --bench "$2" --split "$3" --weights "$4" --k 5 --json $p 2>/dev/null | jq '.at_k[0].f1'
}
score() { # weights-json → mean tune F1@5
  local a b
  a=$(f1 connf "$CONNF" tune "$1"); b=$(f1 mathlib "$PROOFNET" tune "$1")
  echo "$a $b" | awk '{printf "%.6f", ($1+$2)/2}'
}
declare -A grid=(
  [bm25]="0 0.25 0.5 1" [dense]="0 0.25 0.5 1" [neighbors]="1 2 3 4" [mention]="1 2 3"
  [prior]="0 0.1 0.25 0.5" [concept]="0 0.5 1 2" [concept_top]="1 2 3" [rrf_k]="5 10 20"
  [neighbor_docs]="10 20 40")
# retrieval.DefaultWeights:
w='{"bm25":0.5,"dense":0.5,"neighbors":3,"mention":2,"prior":0.25,"rrf_k":10,"depth":200,"neighbor_docs":20,"concept":1,"concept_top":2}'
best=$(score "$w")
echo "defaults: tune mean F1@5 $best"
for sweep in 1 2; do
  for k in bm25 dense neighbors mention prior concept concept_top rrf_k neighbor_docs; do
    for v in ${grid[$k]}; do
      c=$(echo "$w" | jq -c ".$k = $v")
      [ "$c" = "$w" ] && continue
      s=$(score "$c")
      if awk -v s="$s" -v b="$best" 'BEGIN{exit !(s > b + 0.0005)}'; then
        best=$s w=$c
        echo "sweep $sweep: $k=$v → tune mean F1@5 $best"
      fi
    done
  done
done
echo "chosen: $w (tune mean F1@5 $best)"
for spec in "connf:$CONNF" "mathlib:$PROOFNET"; do
  ws=${spec%%:*} bench=${spec#*:}
  for split in tune held-out; do
    echo "== $ws $split, chosen weights"
    p=""
    [ "$ws" = connf ] && p=$PROTOCOL
    # shellcheck disable=SC2086
    "$BIN" eval retrieval --ws "$ROOT/$ws" --bench "$bench" --split "$split" --weights "$w" $p 2>/dev/null | grep -E "^ +(1|5|10) |MRR|split|protocol"
  done
done
