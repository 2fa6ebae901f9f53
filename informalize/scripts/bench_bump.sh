#!/usr/bin/env bash
# The Mathlib bump measurement of the README: informalize Mathlib at OLD
# against a fake OpenAI-compatible server that answers at once
# (llm/fakeopenai in its own process, internal/tools/fakechat), extract NEW
# into the same workspace, dry-run, informalize again against a fresh fake
# server, and check that every declaration has exactly one row.
#
#   informalize/scripts/bench_bump.sh [OLD/Mathlib] [NEW/Mathlib] [WS]
#
# Defaults: /work/src/mathlib-59fdb6b0/Mathlib → /work/src/mathlib-1cf1beb7/Mathlib,
# workspace work/bench-bump (about 2 GB). RULE_FLAGS=--refresh-dependents
# measures the full cascade instead of the default rule.
set -euo pipefail
OLD=${1:-/work/src/mathlib-59fdb6b0/Mathlib}
NEW=${2:-/work/src/mathlib-1cf1beb7/Mathlib}
WS=${3:-work/bench-bump}
CONC=${CONC:-64}
RULE_FLAGS=${RULE_FLAGS:-}
GO=${GO:-go}
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
$GO build -o "$tools/driftkit" ./cmd/driftkit
$GO build -o "$tools/fakechat" ./internal/tools/fakechat
$GO build -o "$tools/informalcheck" ./internal/tools/informalcheck
BIN=$tools/driftkit
export OPENAI_API_KEY=fake
prices=(--price-prompt 0.27 --price-completion 1.10)

# serve LABEL STATS: starts fakechat, sets URL and FAKE_PID; stdin is a fifo
# kept open by fd 9 until stop.
serve() {
  mkfifo "$tools/in.$1"
  "$tools/fakechat" -label "$1" -stats "$2" <"$tools/in.$1" >"$tools/url.$1" &
  FAKE_PID=$!
  exec 9>"$tools/in.$1"
  for _ in $(seq 100); do [ -s "$tools/url.$1" ] && break; sleep 0.1; done
  URL=$(head -1 "$tools/url.$1")
}
stop() { exec 9>&-; wait "$FAKE_PID"; }

rm -rf "$WS"
echo "== extract $OLD"
$BIN extract --src "$OLD" --library mathlib --ws "$WS" --quiet
serve v1 "$WS.first.json"
echo "== informalize (first run, fake server at $URL, concurrency $CONC)"
/usr/bin/time -f "first run: %e s wall, %U s user + %S s system CPU, %M KB peak RSS" \
  $BIN informalize --ws "$WS" --model fake --base-url "$URL" --concurrency "$CONC" "${prices[@]}"
stop
cat "$WS.first.json"

echo "== extract $NEW into the same workspace"
$BIN extract --src "$NEW" --library mathlib --ws "$WS" --quiet
echo "== dry run"
$BIN informalize --ws "$WS" --model fake --dry-run "${prices[@]}" $RULE_FLAGS
serve v2 "$WS.rerun.json"
echo "== informalize (rerun)"
/usr/bin/time -f "rerun: %e s wall, %U s user + %S s system CPU, %M KB peak RSS" \
  $BIN informalize --ws "$WS" --model fake --base-url "$URL" --concurrency "$CONC" "${prices[@]}" $RULE_FLAGS
stop
cat "$WS.rerun.json"
echo "== check: every declaration exactly once"
"$tools/informalcheck" "$WS"
