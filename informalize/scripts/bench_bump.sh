#!/usr/bin/env bash
# The Mathlib bump measurement of the README: informalize Mathlib at OLD
# against a fake OpenAI-compatible server that answers at once
# (internal/testkit/fakeopenai in its own process, internal/tools/fakechat), extract NEW
# into the same workspace, dry-run, informalize again against a fresh fake
# server, and check that every declaration has exactly one row.
#
#   informalize/scripts/bench_bump.sh [OLD/Mathlib] [NEW/Mathlib] [WS]
#
# Defaults: /work/src/mathlib-59fdb6b0/Mathlib → /work/src/mathlib-1cf1beb7/Mathlib,
# workspace work/bench-bump (about 70 MB, and a copy per rule). RULES lists
# the reuse rules to rerun with, each from a copy of the first run's
# workspace (default "default refresh"; refresh = --refresh-dependents).
set -euo pipefail
OLD=${1:-/work/src/mathlib-59fdb6b0/Mathlib}
NEW=${2:-/work/src/mathlib-1cf1beb7/Mathlib}
WS=${3:-work/bench-bump}
CONC=${CONC:-64}
RULES=${RULES:-default refresh}
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
  rm -f "$tools/in.$1" "$tools/url.$1"
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

# Keep the first run's workspace, so that each rule starts from the same state.
rm -rf "$WS.v1"
cp -a "$WS" "$WS.v1"
for rule in $RULES; do
  flags=()
  [ "$rule" = refresh ] && flags=(--refresh-dependents)
  W=$WS
  if [ "$rule" != "${RULES%% *}" ]; then W=$WS.$rule; rm -rf "$W"; cp -a "$WS.v1" "$W"; fi
  echo "== [$rule] extract $NEW into the same workspace"
  $BIN extract --src "$NEW" --library mathlib --ws "$W" --quiet
  echo "== [$rule] dry run"
  $BIN informalize --ws "$W" --model fake --dry-run "${prices[@]}" "${flags[@]}"
  serve "v2-$rule" "$W.rerun.json"
  echo "== [$rule] informalize (rerun)"
  /usr/bin/time -f "rerun: %e s wall, %U s user + %S s system CPU, %M KB peak RSS" \
    $BIN informalize --ws "$W" --model fake --base-url "$URL" --concurrency "$CONC" "${prices[@]}" "${flags[@]}"
  stop
  cat "$W.rerun.json"
  echo "== [$rule] check: every declaration exactly once"
  "$tools/informalcheck" "$W"
done
