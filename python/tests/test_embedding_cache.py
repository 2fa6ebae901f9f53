"""The embedding cache's shards (WS/embeddings/<spec>/*.npy) load in numpy and
hold exactly the vectors the index was built with.

Runs the real binary over the bundled library with --encoder openai against
internal/tools/fakechat (a fake OpenAI-compatible server in its own process),
twice: the second build is answered from the cache alone.
"""
import hashlib
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

BIN = os.environ.get("DRIFTKIT_BIN")
FAKECHAT = os.environ.get("DRIFTKIT_FAKECHAT")
REPO = pathlib.Path(os.environ.get("DRIFTKIT_REPO", "."))
DIMS = 16


def run(*args, ws, env=None):
    subprocess.run([BIN, *args, "--ws", str(ws)], check=True, cwd=REPO, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def current(ws):
    gen = ws / "index" / (ws / "index" / "CURRENT").read_text().strip()
    return gen, json.loads((gen / "manifest.json").read_text())


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    assert BIN and FAKECHAT, "DRIFTKIT_BIN or DRIFTKIT_FAKECHAT not set: run through scripts/pytest.sh"
    ws = tmp_path_factory.mktemp("ws")
    run("extract", "--src", "testdata/lean", "--library", "driftlib", ws=ws)
    run("informalize", "--provider", "template", ws=ws)
    srv = subprocess.Popen([FAKECHAT, "-embed-dim", str(DIMS)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    try:
        url = srv.stdout.readline().strip()
        assert url.startswith("http"), url
        env = dict(os.environ, OPENAI_API_KEY="fake")
        out = []
        for _ in range(2):
            run("index", "--encoder", "openai", "--base-url", url, "--model", "bge-m3",
                "--batch", "8", ws=ws, env=env)
            gen, man = current(ws)
            out.append((np.load(gen / "vectors.npy"), man))
    finally:
        srv.stdin.close()
        srv.wait(timeout=30)
    return ws, out


def test_shards_load_in_numpy_and_match_their_key_tables(builds):
    ws, [(vectors, man), _] = builds
    spec = ws / "embeddings" / man["embedding_cache"]["spec"]
    tables = sorted(spec.glob("*.keys.json"))
    assert tables, "no shard written"
    rows = 0
    for t in tables:
        kt = json.loads(t.read_text())
        npy = spec / kt["vectors"]
        data = npy.read_bytes()
        assert hashlib.sha256(data).hexdigest() == kt["vectors_sha256"], npy
        assert len(data) == kt["vectors_bytes"], npy
        a = np.load(npy)
        assert a.dtype == np.dtype("<f4") and a.shape == (kt["rows"], DIMS), (npy, a.dtype, a.shape)
        keys = b"".join(bytes.fromhex(k) for k in kt["keys"])
        assert hashlib.sha256(keys).hexdigest() == kt["keys_sha256"], t
        assert len(kt["keys"]) == kt["rows"]
        rows += kt["rows"]
    assert rows == len(vectors) == man["embedding_cache"]["entries"]


def test_shards_hold_the_index_vectors(builds):
    """Every cached row is one document's vector (each document's text is
    distinct, so the first build caches exactly one row per document)."""
    ws, [(vectors, man), _] = builds
    spec = ws / "embeddings" / man["embedding_cache"]["spec"]
    cached = np.concatenate([np.load(p) for p in sorted(spec.glob("*.npy"))])
    as_set = lambda m: sorted(r.tobytes() for r in m)
    assert as_set(cached) == as_set(vectors)


def test_second_build_is_answered_by_the_cache(builds):
    _, [(v1, m1), (v2, m2)] = builds
    c1, c2 = m1["embedding_cache"], m2["embedding_cache"]
    n = len(v1)
    assert (c1["mode"], c1["hits"], c1["misses"]) == ("on", 0, n)
    assert (c2["mode"], c2["hits"], c2["misses"], c2["requests"]) == ("on", n, 0, 0)
    assert v1.tobytes() == v2.tobytes()
