#!/usr/bin/env bash
# The embedding cache's Mathlib bump measurement (index/README.md): index
# Mathlib at OLD with --encoder openai against a fake OpenAI-compatible
# server in its own process (internal/tools/fakechat, DIM-long vectors),
# re-extract NEW into a copy of the workspace and index again, then index
# that copy once more with --no-cache in a third copy (a fresh build) and
# compare the vectors byte for byte. Informal text: the offline template.
#
#   index/scripts/bench_cache.sh [OLD/Mathlib] [NEW/Mathlib] [WS]
#
# Defaults: /work/src/mathlib-59fdb6b0/Mathlib → /work/src/mathlib-1cf1beb7/Mathlib,
# workspaces WS (default work/bench-cache), WS.v2 and WS.fresh; DIM=1024
# (BGE-M3's), BATCH=64 texts per request, CONC=8 requests in flight.
# Needs about 3 × (workspace + 2 × 178k × DIM × 4 bytes) of disk.
set -euo pipefail
OLD=${1:-/work/src/mathlib-59fdb6b0/Mathlib}
NEW=${2:-/work/src/mathlib-1cf1beb7/Mathlib}
WS=${3:-work/bench-cache}
DIM=${DIM:-1024}
BATCH=${BATCH:-64}
CONC=${CONC:-8}
GO=${GO:-go}
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
$GO build -o "$tools/driftkit" ./cmd/driftkit
$GO build -o "$tools/fakechat" ./internal/tools/fakechat
BIN=$tools/driftkit
export OPENAI_API_KEY=fake

# serve LABEL STATS: starts fakechat, sets URL and FAKE_PID; stdin is a fifo
# kept open by fd 9 until stop.
serve() {
  rm -f "$tools/in.$1" "$tools/url.$1"
  mkfifo "$tools/in.$1"
  "$tools/fakechat" -label "$1" -embed-dim "$DIM" -stats "$2" <"$tools/in.$1" >"$tools/url.$1" &
  FAKE_PID=$!
  exec 9>"$tools/in.$1"
  for _ in $(seq 100); do [ -s "$tools/url.$1" ] && break; sleep 0.1; done
  URL=$(head -1 "$tools/url.$1")
}
stop() { exec 9>&-; wait "$FAKE_PID"; }

# index_run LABEL W [FLAGS…]: index W against a fresh fake server.
index_run() {
  local label=$1 w=$2
  shift 2
  serve "$label" "$w.$label.json"
  echo "== [$label] index $w $* (fake server at $URL, $DIM dims)"
  /usr/bin/time -f "[$label] index: %e s wall, %U s user + %S s system CPU, %M KB peak RSS" \
    "$BIN" index --ws "$w" --encoder openai --model bge-m3 --base-url "$URL" --batch "$BATCH" --concurrency "$CONC" "$@"
  stop
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("[%s] server: %d embeddings requests, %d texts (%d distinct, %d sent more than once)" % (sys.argv[2], s["embeddings"]["requests"], s["embeddings"]["inputs"], s["embeddings"]["distinct"], s["embeddings"]["repeated"]))' "$w.$label.json" "$label"
  python3 -c 'import json,sys; d=sys.argv[1]; g=open(d+"/index/CURRENT").read().strip(); m=json.load(open(d+"/index/"+g+"/manifest.json")); c=m["embedding_cache"]; print("[%s] manifest: %s" % (sys.argv[2], json.dumps(c)))' "$w" "$label"
}

vectors() { echo "$1/index/$(cat "$1/index/CURRENT")/vectors.npy"; }

rm -rf "$WS" "$WS.v2" "$WS.fresh"
echo "== extract $OLD"
$BIN extract --src "$OLD" --library mathlib --ws "$WS" --quiet
$BIN informalize --ws "$WS" --provider template
index_run first "$WS"

cp -a "$WS" "$WS.v2"
echo "== extract $NEW into a copy of the workspace"
$BIN extract --src "$NEW" --library mathlib --ws "$WS.v2" --quiet
$BIN informalize --ws "$WS.v2" --provider template
index_run rebuild "$WS.v2"

cp -a "$WS.v2" "$WS.fresh"
rm -rf "$WS.fresh/embeddings"
index_run fresh "$WS.fresh" --no-cache

echo "== vectors of the rebuild vs a fresh build"
if cmp "$(vectors "$WS.v2")" "$(vectors "$WS.fresh")"; then
  echo "identical: $(stat -c %s "$(vectors "$WS.v2")") bytes"
else
  echo "VECTORS DIFFER"
  exit 1
fi
echo "== cache size"
du -sh "$WS/embeddings" "$WS.v2/embeddings"
$BIN cache stats --ws "$WS.v2" --used
