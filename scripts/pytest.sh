#!/usr/bin/env bash
# Python interoperability tests: the tables, arrays and exports driftkit
# writes must load in pyarrow, numpy, datasets and FlagEmbedding.
# It writes sample tables and, where the stages exist, a real workspace from the
# bundled library, then runs pytest on python/tests.
set -euo pipefail
PYTHON=${PYTHON:-python3}
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO run ./internal/tools/sampletables "$tmp/sample" >/dev/null
export DRIFTKIT_SAMPLE_DIR="$tmp/sample"
$GO build -o "$tmp/driftkit" ./cmd/driftkit
export DRIFTKIT_BIN="$tmp/driftkit"
$GO build -o "$tmp/fakechat" ./internal/tools/fakechat
export DRIFTKIT_FAKECHAT="$tmp/fakechat"
export DRIFTKIT_REPO="$PWD"
set +e
"$PYTHON" -m pytest -q python/tests
rc=$?
set -e
# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
exit $rc
