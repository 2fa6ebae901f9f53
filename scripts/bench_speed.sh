#!/usr/bin/env bash
# The speed table of issue #29, for this binary and (OLD=…) another, from one
# run on one machine:
#   make bench-speed [OLD=path/to/driftkit] [MATHLIB=/path/to/mathlib4] [REUSE=WS] [OUT=work/bench-speed]
# Rows: extract (wall, CPU, peak RSS), index (same), cold `driftkit search`
# (a new process per query: median of 3 of wall, CPU and peak RSS), the
# server's CPU per search request under 200 clients of mixed requests
# (internal/tools/loadgen: every request a new query, and 10 repeated
# queries), and mine (queries/s, CPU, peak RSS). Each binary indexes and mines
# its own copy of one workspace: extracted and template-informalized once by
# this binary (REUSE=WS: copy WS's declarations/informal instead). It also
# checks that both binaries give the same search answers and the same
# pairs.parquet. Times are CPU seconds where the machine is shared (the load
# average is printed before and after each row).
set -euo pipefail
NEW=${NEW:-bin/driftkit}
OLD=${OLD:-}
MATHLIB=${MATHLIB:-/work/src/mathlib-head}
REUSE=${REUSE:-}
OUT=${OUT:-work/bench-speed}
REQUESTS=${REQUESTS:-3000}
CLIENTS=${CLIENTS:-200}
PORT=${PORT:-18391}
QUERIES=("the product of two prime numbers" "Nat.Prime.two_le" "a continuous function on a compact set is bounded")

load() { cut -d' ' -f1-3 /proc/loadavg; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
go build -o "$OUT/loadgen" ./internal/tools/loadgen
TIMES="$OUT/times.tsv"
: >"$TIMES"

# timed TAG ROW CMD…: runs CMD under /usr/bin/time, appends
# TAG ROW wall cpu rss_mb load to times.tsv.
timed() {
  local tag=$1 row=$2
  shift 2
  local tf
  tf=$(mktemp)
  /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >"$OUT/$tag-$row.out" 2>"$OUT/$tag-$row.err" ||
    { echo "$tag $row failed: $*" >&2; tail -5 "$OUT/$tag-$row.err" >&2; exit 1; }
  read -r wall user sys rss <"$tf"
  rm -f "$tf"
  printf '%s\t%s\t%s\t%.2f\t%.0f\t%s\n' "$tag" "$row" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc)" "$(load)" >>"$TIMES"
}

# The shared workspace: declarations and informal texts, made once.
BASE="$OUT/base"
if [ ! -f "$BASE/informal.parquet" ]; then
  rm -rf "$BASE"
  if [ -n "$REUSE" ]; then
    mkdir -p "$BASE"
    cp -a "$REUSE"/{declarations.parquet,modules.parquet,informal.parquet,manifest.json} "$BASE"/
  else
    rev=$(cat "$MATHLIB/.revision" 2>/dev/null || git -C "$MATHLIB" rev-parse HEAD)
    "$NEW" extract --src "$MATHLIB/Mathlib" --library mathlib --revision "${rev:0:8}" --ws "$BASE" --quiet
    "$NEW" informalize --ws "$BASE" --provider template --quiet
  fi
fi

# bench TAG BIN: every row for one binary.
bench() {
  local tag=$1 bin=$2 ws="$OUT/$1-ws"
  echo "== $tag: $bin (load $(load))" >&2
  rm -rf "$OUT/$tag-extract" "$ws"
  timed "$tag" extract "$bin" extract --src "$MATHLIB/Mathlib" --library mathlib --ws "$OUT/$tag-extract" --quiet
  rm -rf "$OUT/$tag-extract"
  mkdir -p "$ws"
  cp -a "$BASE"/{declarations.parquet,modules.parquet,informal.parquet,manifest.json} "$ws"/
  timed "$tag" index "$bin" index --ws "$ws" --quiet
  for q in "${QUERIES[@]}"; do
    timed "$tag" search "$bin" search --ws "$ws" --json "$q"
    cp "$OUT/$tag-search.out" "$OUT/$tag-search-$(echo "$q" | tr -c 'A-Za-z0-9' _).json"
  done
  timed "$tag" mine "$bin" mine --ws "$ws" --json --quiet
  cp "$ws/pairs.parquet" "$OUT/$tag-pairs.parquet"
  for distinct in 0 10; do
    "$bin" serve --ws "$ws" --addr "127.0.0.1:$PORT" --quiet --request-timeout 10m 2>"$OUT/$tag-serve.err" &
    local pid=$!
    for _ in $(seq 1 600); do
      curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
      sleep 0.2
    done
    # one request first: what a started server loads lazily is not the load's
    curl -fs "http://127.0.0.1:$PORT/api/search?q=warm+up" >/dev/null
    local l
    l=$(load)
    "$OUT/loadgen" -url "http://127.0.0.1:$PORT" -pid "$pid" -ws "$ws" -clients "$CLIENTS" -requests "$REQUESTS" -distinct "$distinct" \
      >"$OUT/$tag-serve-$distinct.json" || { kill "$pid"; cat "$OUT/$tag-serve-$distinct.json" >&2; exit 1; }
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    printf '%s\tserve-%s\t%s\n' "$tag" "$distinct" "$l" >>"$TIMES"
  done
}

bench new "$NEW"
[ -n "$OLD" ] && bench old "$OLD"

go run ./internal/tools/speedreport -out "$OUT" ${OLD:+-old}
