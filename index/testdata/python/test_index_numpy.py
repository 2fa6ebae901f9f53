"""Interoperability check for driftkit's index files (issue 4).

vectors.npy must load in numpy (and so in FAISS) as float32 C-order with one
row per docs.parquet row, and the rows must be unit vectors (or zero for an
empty document). Run: DRIFTKIT_INDEX=WS/index python -m pytest this_file.
"""
import json
import os
import pathlib

import numpy as np
import pytest

INDEX = os.environ.get("DRIFTKIT_INDEX")


@pytest.mark.skipif(not INDEX, reason="set DRIFTKIT_INDEX=WS/index")
def test_vectors_load_in_numpy():
    d = pathlib.Path(INDEX)
    man = json.loads((d / "manifest.json").read_text())
    v = np.load(d / "vectors.npy")
    assert v.dtype == np.float32 and v.flags["C_CONTIGUOUS"]
    assert v.shape == (man["docs"], man["dims"])
    norms = np.linalg.norm(v, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-3) | (norms == 0))
    mm = np.load(d / "vectors.npy", mmap_mode="r")  # FAISS users often memory-map
    assert np.array_equal(mm[:5], v[:5])
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return
    docs = pq.read_table(d / "docs.parquet")
    assert docs.num_rows == v.shape[0]
    assert {"name", "kind", "text", "deps"} <= set(docs.column_names)
