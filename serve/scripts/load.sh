#!/usr/bin/env bash
# Load benchmark of driftkit serve: starts the server over WS (niced), then
# BenchmarkServeLoad (vegeta as a library: 200 concurrent clients, 30 s of
# mixed search requests), then stops the server.
#   serve/scripts/load.sh WS [QUERIES.jsonl]
# e.g. serve/scripts/load.sh /work/tmp/serve/W ../shared/benchmarks/proofnet/valid.jsonl
set -euo pipefail
WS=${1:?usage: serve/scripts/load.sh WS [QUERIES.jsonl]}
QUERIES=${2:-}
ADDR=${ADDR:-127.0.0.1:18181}
BIN=${BIN:-bin/driftkit}
go build -o "$BIN" ./cmd/driftkit
nice "$BIN" serve --ws "$WS" --addr "$ADDR" --quiet &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -fs "http://$ADDR/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://$ADDR/readyz" >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
DRIFTKIT_LOAD_URL="http://$ADDR" DRIFTKIT_LOAD_PID=$PID DRIFTKIT_LOAD_QUERIES="$QUERIES" \
  nice go test -run '^$' -bench BenchmarkServeLoad -benchtime 1x -timeout 30m ./serve
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
