#!/usr/bin/env bash
# make run: the whole pipeline on the bundled Lean library (testdata/lean),
# offline: template informalizer, hash encoder, no network, no GPU, no key.
# Stages that are not built yet are reported and skipped.
set -euo pipefail
BIN=${BIN:-bin/driftkit}
WS=${WS:-work/run}
BENCH=testdata/bench.jsonl
EXAMPLE=${EXAMPLE:-"If p is a prime number dividing the product of two natural numbers, then p divides one of them."}

missing=()
built() { ! "$BIN" help | grep -Eq "^  $1 .*not built yet"; }
built_sub() { ! "$BIN" "$1" --help 2>&1 | grep -Eq "^  $2 .*not built yet"; }
step() { printf '\n==> %s\n' "$*"; }

mkdir -p "$WS"
echo "driftkit: $("$BIN" version)"
echo "workspace: $WS"

if built extract; then
  step "extract testdata/lean"
  "$BIN" extract --src testdata/lean --library driftlib --ws "$WS" --force
else missing+=("extract (issue 3)"); fi

if built informalize; then
  step "informalize (template provider: offline fallback, labelled provider=template)"
  "$BIN" informalize --ws "$WS" --provider template
else missing+=("informalize (issue 5)"); fi

if built index; then
  step "index (built-in hash encoder)"
  "$BIN" index --ws "$WS"
  if built_sub eval retrieval; then
    # --no-head: the raw embeddings, also when an earlier run of this script
    # left a trained head in the workspace (the numbers do not depend on it).
    step "eval retrieval on $BENCH (raw embeddings, no head)"
    "$BIN" eval retrieval --ws "$WS" --bench "$BENCH" --no-head
    step "per-query results of every mode for notebooks/retrieval_errors.ipynb ($WS/eval/MODE.jsonl)"
    mkdir -p "$WS/eval"
    for m in dense bm25 hybrid best; do
      "$BIN" eval retrieval --ws "$WS" --bench "$BENCH" --mode "$m" --no-head \
        --per-item "$WS/eval/$m.jsonl" >"$WS/eval/$m.txt"
      echo "$m: $(grep -E '^ +10 ' "$WS/eval/$m.txt" | awk '{print "F1@10 " $4}')"
    done
  else missing+=("eval retrieval (issue 4)"); fi
  if built_sub export embeddings; then
    step "export embeddings (documents and hash-encoder vectors as one Parquet table)"
    "$BIN" export embeddings --ws "$WS"
  fi
else missing+=("index (issue 4)"); fi

if built mine; then
  step "mine training pairs"
  "$BIN" mine --ws "$WS" --allow-template --exclude "$BENCH"
  if built_sub export flagembedding; then
    step "export flagembedding and hf"
    "$BIN" export flagembedding --ws "$WS"
    "$BIN" export hf --ws "$WS" --license apache-2.0
  fi
  if built_sub train head; then
    step "train a small projection head"
    "$BIN" train head --ws "$WS"
    step "eval retrieval on $BENCH with the trained head"
    "$BIN" eval retrieval --ws "$WS" --bench "$BENCH" --k 1,5,10
  fi
else missing+=("mine/export/train (issue 6)"); fi

if built search; then
  step "retrieve premises for an example statement"
  echo "query: $EXAMPLE"
  "$BIN" search --ws "$WS" "$EXAMPLE"
else missing+=("search (issue 4)"); fi

if built drift; then
  step "DRIFT formalization context for the example statement (offline: no LLM)"
  "$BIN" drift --ws "$WS" --context-only "$EXAMPLE"
else missing+=("drift (issue 10)"); fi

if [ ${#missing[@]} -gt 0 ]; then
  printf '\nNot built yet, skipped: %s\n' "$(IFS=', '; echo "${missing[*]}")"
fi
echo
echo "done; outputs in $WS (manifest: $WS/manifest.json)"
echo "plots of this workspace: DRIFTKIT_WS=$WS jupyter lab notebooks/ (corpus.ipynb, retrieval_errors.ipynb)"
if built serve; then
  echo
  echo "next: serve the search page, the API and #leansearch over this workspace:"
  echo "  $BIN serve --ws $WS --addr :8080"
  echo "  then open http://localhost:8080/ or: curl 'http://localhost:8080/api/search?q=prime+divides+a+product'"
fi
