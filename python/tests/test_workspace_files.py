"""Every file the offline pipeline writes loads in its Python consumer.

Runs the real binary over the bundled library (testdata/lean) into a temporary
workspace, then reads every Parquet table with pyarrow and vectors.npy with numpy.
"""
import hashlib
import json
import os
import pathlib
import subprocess

import numpy as np
import pyarrow.parquet as pq
import pytest

BIN = os.environ.get("DRIFTKIT_BIN")
REPO = pathlib.Path(os.environ.get("DRIFTKIT_REPO", "."))


def run(*args, ws):
    subprocess.run([BIN, *args, "--ws", str(ws)], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    assert BIN, "DRIFTKIT_BIN not set: run through scripts/pytest.sh"
    ws = tmp_path_factory.mktemp("ws")
    run("extract", "--src", "testdata/lean", "--library", "driftlib", ws=ws)
    run("informalize", "--provider", "template", ws=ws)
    run("index", ws=ws)
    return ws


def index_dir(ws):
    """The current index generation: index/CURRENT names its folder."""
    return ws / "index" / (ws / "index" / "CURRENT").read_text().strip()


def test_every_parquet_file_loads(ws):
    files = sorted(ws.rglob("*.parquet"))
    names = {f.relative_to(ws).as_posix() for f in files}
    gen = index_dir(ws).relative_to(ws).as_posix()
    for want in ["declarations.parquet", "modules.parquet", "informal.parquet",
                 f"{gen}/docs.parquet", f"{gen}/usage.parquet"]:
        assert want in names, f"{want} missing; have {sorted(names)}"
    manifest = json.loads((ws / "manifest.json").read_text())
    recorded = {o["path"]: o.get("rows") for r in manifest["runs"] for o in r["outputs"]}
    for f in files:
        t = pq.read_table(f)
        rel = f.relative_to(ws).as_posix()
        if recorded.get(rel):
            assert t.num_rows == recorded[rel], f"{rel}: pyarrow reads {t.num_rows} rows, manifest says {recorded[rel]}"


def test_declarations_content(ws):
    rows = pq.read_table(ws / "declarations.parquet").to_pylist()
    names = {r["name"] for r in rows}
    assert "Driftlib.Nat.Prime" in names
    assert len(rows) > 500
    prime = next(r for r in rows if r["name"] == "Driftlib.Nat.Prime")
    assert prime["kind"] == "definition" and prime["docstring"]
    generated = [r for r in rows if r["generated_from"] is not None]
    assert generated, "constructors/projections/twins should carry generated_from"
    assert all(r["line_start"] <= r["line_end"] for r in rows)


def test_informal_labelled_as_template(ws):
    t = pq.read_table(ws / "informal.parquet")
    assert set(t.column("provider").to_pylist()) == {"template"}
    rows = t.to_pylist()
    # Every row carries its reuse key, its own-input hash and its text's hash.
    assert all(len(r["input_sha256"]) == 64 and len(r["own_input_sha256"]) == 64 for r in rows)
    assert all(r["informal_sha256"] == hashlib.sha256((r["informal_name"] + "\n" + r["informal_statement"]).encode()).hexdigest()
               for r in rows)


def test_vectors_npy_loads_in_numpy(ws):
    gen = index_dir(ws)
    vec = np.load(gen / "vectors.npy")
    docs = pq.read_table(gen / "docs.parquet")
    assert vec.dtype == np.float32 and vec.ndim == 2
    assert vec.flags["C_CONTIGUOUS"]
    assert vec.shape[0] == docs.num_rows
    norms = np.linalg.norm(vec, axis=1)
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-4), "hash vectors are L2-normalised"
    manifest = json.loads((gen / "manifest.json").read_text())
    assert vec.shape == (manifest["docs"], manifest["dims"])
    assert manifest["encoder_spec"]["kind"] == "hash" and manifest["encoder_spec"]["fallback"]
    mm = np.load(gen / "vectors.npy", mmap_mode="r")  # FAISS users often memory-map
    assert np.array_equal(mm[:5], vec[:5])
    assert {"name", "kind", "library", "text", "signature", "informal_name", "informal_statement",
            "informal_source", "deps"} <= set(docs.column_names)


def test_notebook_runs_on_the_workspace(ws, monkeypatch, capsys):
    """notebooks/workspace.ipynb: every code cell runs against a real workspace."""
    nb = json.loads((REPO / "notebooks" / "workspace.ipynb").read_text())
    monkeypatch.setenv("DRIFTKIT_WS", str(ws))
    scope = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), "workspace.ipynb", "exec"), scope)
    out = capsys.readouterr().out
    assert "declarations;" in out and "generated rows" in out and "vectors from encoder hash" in out
