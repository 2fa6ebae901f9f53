#!/usr/bin/env bash
# The Weaviate backend at Mathlib scale, on a 3-node cluster on loopback (the
# pinned server of `make weaviate`, niced like everything here):
#   1. import throughput of every document's vector (DIMS, default "256 1024"),
#      with the CPU seconds of driftkit and of the three nodes
#   2. driftkit serve under 200 clients (serve/scripts/load.sh's benchmark),
#      the Weaviate-backed workspace against the in-process one, with the CPU
#      of the server and of the three nodes per request
#   3. one node's loss under load: errors, and the time until the node,
#      restarted, is healthy and answering
#   4. recall@10 of HNSW against the exact lists (the in-process backend's,
#      which the flat index equals), over QUERIES (last: building the graphs
#      is the costliest step)
# Every number is printed with the load average beside it. SECTIONS picks
# some; each run starts its own cluster, so 2 and 3 need section 1 of
# LOAD_DIM in the same run (the collection lives in that cluster).
# Every process of the benchmark (nodes, driftkit, serve, clients) runs at
# `nice` (10): run it under the measure lock, the helpers at nice 19.
# PPROF=1 gives the nodes profiling ports and saves a 20-s CPU profile of
# node0 during the Weaviate-backed serve load (OUT/serve.wv.node0.prof).
#   index/scripts/bench_weaviate.sh SOURCE OUT [QUERIES.jsonl]
# SOURCE is a workspace with informal.parquet (copied, never written) or a
# Mathlib checkout's Mathlib folder (extracted and informalized into OUT/base).
# QUERIES default to 2000 of the library's own theorems' informal statements
# (internal/tools/libqueries: no public benchmark's queries).
set -euo pipefail
USAGE="usage: index/scripts/bench_weaviate.sh SOURCE OUT [QUERIES.jsonl]"
SRC=${1:?$USAGE}
OUT=${2:?$USAGE}
QUERIES=${3:-}
DIMS=${DIMS:-"256 1024"}
LOAD_DIM=${LOAD_DIM:-256}
CLIENTS=${CLIENTS:-"200 4"}
SECTIONS=${SECTIONS:-"1 2 3 4"} # e.g. SECTIONS=1 DIMS=1024: the import alone
BIN=${BIN:-bin/driftkit}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
la() { cut -d' ' -f1-3 /proc/loadavg; }
on() { case " $SECTIONS " in *" $1 "*) return 0;; esac; return 1; }
go build -o "$BIN" ./cmd/driftkit
go build -o "$OUT/weaviatecluster" ./internal/tools/weaviatecluster

if [ ! -f "$OUT/base/informal.parquet" ]; then
  rm -rf "$OUT/base"
  if [ -f "$SRC/informal.parquet" ]; then
    cp -a "$SRC" "$OUT/base"
  else
    nice "$BIN" extract --src "$SRC" --library mathlib --ws "$OUT/base" --quiet
    nice "$BIN" informalize --ws "$OUT/base" --quiet
  fi
fi
if [ -z "$QUERIES" ]; then
  QUERIES=$OUT/queries.jsonl
  [ -s "$QUERIES" ] || go run ./internal/tools/libqueries -ws "$OUT/base" -n 2000 > "$QUERIES"
fi
echo "queries: $QUERIES ($(wc -l < "$QUERIES") lines)"

# The cluster reads "kill N" / "restart N" from a fifo.
rm -f "$OUT/ctl"; mkfifo "$OUT/ctl"
rm -rf "$OUT/cluster"
PPROF_FLAG=""; [ -n "${PPROF:-}" ] && PPROF_FLAG=-pprof
nice "$OUT/weaviatecluster" -dir "$OUT/cluster" $PPROF_FLAG < "$OUT/ctl" > "$OUT/cluster.out" 2>&1 &
CPID=$!
exec 7>"$OUT/ctl"
trap 'exec 7>&-; kill $CPID 2>/dev/null; wait $CPID 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do grep -q '^WEAVIATE=' "$OUT/cluster.out" && break; sleep 0.5; done
URLS=$(sed -n 's/^WEAVIATE=//p' "$OUT/cluster.out")
[ -n "$URLS" ] || { cat "$OUT/cluster.out"; exit 1; }
NODE_PIDS=$(sed -n 's/^node[0-9] pid \([0-9]*\) .*/\1/p' "$OUT/cluster.out" | tr '\n' ' ')
echo "cluster: $URLS (pids $NODE_PIDS)"
cpu() { local s=0; for p in "$@"; do s=$(awk -v s="$s" '{print s + ($14 + $15) / 100}' "/proc/$p/stat"); done; echo "$s"; }

if on 1; then
echo "== 1. import throughput"
for d in $DIMS; do
  rm -rf "$OUT/wv$d"; cp -a "$OUT/base" "$OUT/wv$d"
  if [ "$d" = "$LOAD_DIM" ]; then
    rm -rf "$OUT/mm$d"; cp -a "$OUT/base" "$OUT/mm$d"
    nice "$BIN" index --ws "$OUT/mm$d" --dim "$d" --quiet --json > "$OUT/mm$d.index.json"
  fi
  before=$(la); n0=$(cpu $NODE_PIDS)
  nice /usr/bin/time -f '%U %S' -o "$OUT/wv$d.time" "$BIN" index --ws "$OUT/wv$d" --dim "$d" --quiet --json \
    --backend weaviate --weaviate "$URLS" > "$OUT/wv$d.index.json"
  n1=$(cpu $NODE_PIDS)
  python3 - "$OUT/wv$d.index.json" "$d" "$before" "$(la)" "$(cat "$OUT/wv$d.time")" "$n0" "$n1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); s = r["phase_seconds"]["dense_weaviate"]
u, sy = map(float, sys.argv[5].split()); nodes = float(sys.argv[7]) - float(sys.argv[6])
print(f"dims {sys.argv[2]}: {r['docs']} documents imported and verified in {s:.0f} s = {r['docs']/s:.0f} rows/s "
      f"(3 nodes, 3 shards, replication 3, write=all, async repair on after the push); CPU: driftkit index {u+sy:.0f} s (whole build), the nodes {nodes:.0f} s "
      f"= {1e6*nodes/r['docs']:.0f} µs per row; load average before {sys.argv[3]}, after {sys.argv[4]}")
EOF
done
fi

if on 2; then
echo "== 2. serve under load (dims $LOAD_DIM), in-process vs Weaviate, CLIENTS=\"$CLIENTS\""
# The nodes' CPU per request: their CPU during the run minus their idle rate
# (compactions, replication checks) measured for 30 s just before.
for n in $CLIENTS; do
  for kind in mm wv; do
    pids=""; [ "$kind" = wv ] && pids=$NODE_PIDS
    if [ -n "$pids" ]; then i0=$(cpu $pids); sleep 30; i1=$(cpu $pids); fi
    c0=$(cpu $pids 2>/dev/null || echo 0); t0=$(date +%s.%N)
    if [ -n "$pids" ] && [ -n "${PPROF:-}" ]; then
      port=$(sed -n 's/^node0 pid .* pprof \([0-9]*\) .*/\1/p' "$OUT/cluster.out")
      (until grep -qs "^load average before" "$OUT/load.$kind.$n.txt"; do sleep 1; done; sleep 5
       curl -s "http://127.0.0.1:$port/debug/pprof/profile?seconds=20" > "$OUT/serve.$kind.node0.$n.prof") &
    fi
    echo "-- $kind$LOAD_DIM, $n clients (load average $(la))"
    DRIFTKIT_LOAD_CLIENTS=$n DRIFTKIT_LOAD_DURATION=${LOAD_SECONDS:-30}s DRIFTKIT_LOAD_SETTLE=0s BIN="$BIN" \
      serve/scripts/load.sh "$OUT/$kind$LOAD_DIM" "$QUERIES" > "$OUT/load.$kind.$n.txt" 2>&1
    grep -E "^load|server CPU|^  [a-z]|load average" "$OUT/load.$kind.$n.txt"
    if [ -n "$pids" ]; then
      c1=$(cpu $pids); t1=$(date +%s.%N)
      reqs=$(sed -n 's/^load: .*, \([0-9]*\) requests,.*/\1/p' "$OUT/load.$kind.$n.txt")
      python3 -c "idle=($i1-$i0)/30; busy=$c1-$c0-idle*($t1-$t0); print(f'weaviate nodes CPU: {busy:.1f} s above idle ({idle:.2f} CPU-s/s) for $reqs requests = {1000*busy/$reqs:.1f} ms per request')"
    fi
  done
done
fi

if on 3; then
echo "== 3. one node's loss under load (dims $LOAD_DIM)"
# The timeline starts when the load does (load.sh prints the load average
# as it starts the clients): the node is killed 20 s in, restarted 20 s later.
rm -f "$OUT/load.loss.txt"
(until grep -qs "^load average before" "$OUT/load.loss.txt"; do sleep 1; done
 sleep 20; echo "kill 2" >&7; sleep 20; echo "restart 2" >&7) &
TIMELINE=$!
DRIFTKIT_LOAD_SETTLE=0s DRIFTKIT_LOAD_DURATION=90s DRIFTKIT_LOAD_CLIENTS=${LOSS_CLIENTS:-50} BIN="$BIN" serve/scripts/load.sh "$OUT/wv$LOAD_DIM" "$QUERIES" 2>&1 \
  | tee "$OUT/load.loss.txt" | grep -E "^load|errors|load average"
wait $TIMELINE # not a bare wait: the cluster is a child too
echo "errors naming a refused or unavailable node: $(grep -c -i 'refused\|code = Unavailable' "$OUT/load.loss.txt" || true)"
grep -E "killed|restarted" "$OUT/cluster.out"
echo "load average: $(la)"
fi

if on 4; then
echo "== 4. HNSW recall@10 against exact (dims $LOAD_DIM; replication 1: recall does not depend on it, and HNSW graphs cost CPU on every replica)"
if [ ! -f "$OUT/mm$LOAD_DIM.index.json" ]; then
  rm -rf "$OUT/mm$LOAD_DIM"; cp -a "$OUT/base" "$OUT/mm$LOAD_DIM"
  nice "$BIN" index --ws "$OUT/mm$LOAD_DIM" --dim "$LOAD_DIM" --quiet --json > "$OUT/mm$LOAD_DIM.index.json"
fi
rm -rf "$OUT/hnsw$LOAD_DIM"; cp -a "$OUT/base" "$OUT/hnsw$LOAD_DIM"
before=$(la); n0=$(cpu $NODE_PIDS); t0=$(date +%s)
nice "$BIN" index --ws "$OUT/hnsw$LOAD_DIM" --dim "$LOAD_DIM" --quiet --backend weaviate --weaviate "$URLS" --vector-index hnsw --replication 1 > /dev/null
echo "HNSW import (replication 1): $(( $(date +%s) - t0 )) s wall (whole build), the nodes $(awk -v a="$n0" -v b="$(cpu $NODE_PIDS)" 'BEGIN{print b-a}') CPU-s; load average before $before, after $(la)"
for kind in mm hnsw; do
  nice "$BIN" eval retrieval --ws "$OUT/$kind$LOAD_DIM" --bench "$QUERIES" --mode dense --no-head --per-item "$OUT/recall.$kind.jsonl" > /dev/null
done
python3 - "$OUT/recall.mm.jsonl" "$OUT/recall.hnsw.jsonl" "$(la)" <<'EOF'
import json, sys
exact = [json.loads(l)["ranked"][:10] for l in open(sys.argv[1])]
approx = [json.loads(l)["ranked"][:10] for l in open(sys.argv[2])]
hit = sum(len(set(a) & set(e)) for a, e in zip(approx, exact)); tot = sum(len(e) for e in exact)
print(f"HNSW (ef 256, efConstruction 128, maxConnections 32) recall@10 against exact (the in-process backend = the flat index): {hit/tot:.4f} over {len(exact)} queries (load average {sys.argv[3]})")
EOF
fi
