#!/usr/bin/env bash
# The speed table of issue #29, for this binary and (OLD=…) another, from one
# run on one machine:
#   make bench-speed [OLD=path/to/driftkit] [MATHLIB=/path/to/mathlib4] [REUSE=WS] [OUT=work/bench-speed]
#                    [ROWS="extract index search mine serve"] [TAGS="new old"] [REPEAT=3]
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
#
# ROWS and TAGS pick rows and binaries, so a long run can be split (each part
# under its own measure lock); a row run again replaces that binary's earlier
# numbers for it in OUT/times.tsv, the others stay. search, mine and serve
# need the binary's index row in OUT first. REPEAT runs extract, index and
# mine that many times (the table shows the median by wall time); cold search
# is always one run of each of the three queries (the median of 3).
set -euo pipefail
NEW=${NEW:-bin/driftkit}
OLD=${OLD:-}
MATHLIB=${MATHLIB:-/work/src/mathlib-head}
REUSE=${REUSE:-}
OUT=${OUT:-work/bench-speed}
REQUESTS=${REQUESTS:-3000}
CLIENTS=${CLIENTS:-200}
PORT=${PORT:-18391}
ROWS=${ROWS:-extract index search mine serve}
TAGS=${TAGS:-new${OLD:+ old}}
REPEAT=${REPEAT:-1}
QUERIES=("the product of two prime numbers" "Nat.Prime.two_le" "a continuous function on a compact set is bounded")

load() { cut -d' ' -f1-3 /proc/loadavg; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
go build -o "$OUT/loadgen" ./internal/tools/loadgen
TIMES="$OUT/times.tsv"
touch "$TIMES"

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
    [ ! -f "$REUSE/notations.parquet" ] || cp -a "$REUSE/notations.parquet" "$BASE"/
  else
    rev=$(cat "$MATHLIB/.revision" 2>/dev/null || git -C "$MATHLIB" rev-parse HEAD)
    "$NEW" extract --src "$MATHLIB/Mathlib" --library mathlib --revision "${rev:0:8}" --ws "$BASE" --quiet
    "$NEW" informalize --ws "$BASE" --provider template --quiet
  fi
fi

# forget TAG ROW: drops TAG's earlier numbers for ROW (serve: serve-*).
forget() {
  awk -F'\t' -v t="$1" -v r="$2" '!($1 == t && ($2 == r || (r == "serve" && $2 ~ /^serve-/)))' "$TIMES" >"$TIMES.tmp"
  mv "$TIMES.tmp" "$TIMES"
}

row_extract() {
  local tag=$1 bin=$2
  for _ in $(seq 1 "$REPEAT"); do
    rm -rf "$OUT/$tag-extract"
    timed "$tag" extract "$bin" extract --src "$MATHLIB/Mathlib" --library mathlib --ws "$OUT/$tag-extract" --quiet
  done
  rm -rf "$OUT/$tag-extract"
}

row_index() {
  local tag=$1 bin=$2 ws="$OUT/$1-ws"
  for _ in $(seq 1 "$REPEAT"); do
    rm -rf "$ws"
    mkdir -p "$ws"
    cp -a "$BASE"/*.parquet "$BASE/manifest.json" "$ws"/
    timed "$tag" index "$bin" index --ws "$ws" --quiet
  done
}

row_search() {
  local tag=$1 bin=$2 ws="$OUT/$1-ws"
  for q in "${QUERIES[@]}"; do
    timed "$tag" search "$bin" search --ws "$ws" --json "$q"
    cp "$OUT/$tag-search.out" "$OUT/$tag-search-$(echo "$q" | tr -c 'A-Za-z0-9' _).json"
  done
}

row_mine() {
  local tag=$1 bin=$2 ws="$OUT/$1-ws"
  for i in $(seq 1 "$REPEAT"); do
    rm -f "$ws/pairs.parquet"
    timed "$tag" mine "$bin" mine --ws "$ws" --json --quiet
    cp "$OUT/$tag-mine.out" "$OUT/$tag-mine-$i.json"
  done
  cp "$ws/pairs.parquet" "$OUT/$tag-pairs.parquet"
}

# settle PID: waits until the process's CPU time stops growing (at most 2
# clock ticks, 0.02 s at USER_HZ 100, in a second; at most two minutes),
# whatever binary it is.
settle() {
  local prev now
  prev=$(awk '{print $14 + $15}' "/proc/$1/stat")
  for _ in $(seq 1 120); do
    sleep 1
    now=$(awk '{print $14 + $15}' "/proc/$1/stat")
    [ $((now - prev)) -le 2 ] && return
    prev=$now
  done
}

row_serve() {
  local tag=$1 bin=$2 ws="$OUT/$1-ws"
  for distinct in 0 10; do
    "$bin" serve --ws "$ws" --addr "127.0.0.1:$PORT" --quiet --request-timeout 10m 2>"$OUT/$tag-serve.err" &
    local pid=$!
    for _ in $(seq 1 600); do
      curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
      sleep 0.2
    done
    # one request first: what a started server loads lazily is not the load's
    curl -fs "http://127.0.0.1:$PORT/api/search?q=warm+up" >/dev/null
    # nor what it does in the background once started (warming the index,
    # the premise server's proof graph: seconds of CPU for Mathlib)
    settle "$pid"
    local l
    l=$(load)
    "$OUT/loadgen" -url "http://127.0.0.1:$PORT" -pid "$pid" -ws "$ws" -clients "$CLIENTS" -requests "$REQUESTS" -distinct "$distinct" \
      >"$OUT/$tag-serve-$distinct.json" || { kill "$pid"; cat "$OUT/$tag-serve-$distinct.json" >&2; exit 1; }
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    printf '%s\tserve-%s\t%s\n' "$tag" "$distinct" "$l" >>"$TIMES"
  done
}

for tag in $TAGS; do
  case $tag in
  new) bin=$NEW ;;
  old) bin=${OLD:?OLD=path/to/driftkit for TAGS=old} ;;
  *) echo "bench_speed: unknown tag $tag (new, old)" >&2 && exit 2 ;;
  esac
  echo "== $tag: $bin rows: $ROWS (load $(load))" >&2
  for row in $ROWS; do
    case $row in
    extract | index | search | mine | serve) ;;
    *) echo "bench_speed: unknown row $row (extract index search mine serve)" >&2 && exit 2 ;;
    esac
    forget "$tag" "$row"
    "row_$row" "$tag" "$bin"
  done
done

go run ./internal/tools/speedreport -out "$OUT" ${OLD:+-old}
