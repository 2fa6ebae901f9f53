"""`driftkit export embeddings` loads in the consumers curators and vector databases use:
pyarrow (the vector column is a FixedSizeList of float32), DuckDB (array_cosine_similarity ranks
as `driftkit search --mode dense` does), Hugging Face datasets, and LanceDB (its nearest neighbour
agrees too)."""
import json
import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="driftkit-hf-datasets-"))

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import driftkit

ROW_GROUP = 100


@pytest.fixture(scope="module")
def table(lean_ws):
    out = driftkit("export", "embeddings", "--ws", lean_ws, "--row-group-rows", ROW_GROUP)
    assert "offline fallback encoder" in out, out
    return lean_ws / "export" / "embeddings.parquet"


@pytest.fixture(scope="module")
def index_docs(lean_ws):
    gen = lean_ws / "index" / (lean_ws / "index" / "CURRENT").read_text().strip()
    return np.load(gen / "vectors.npy"), pq.read_table(gen / "docs.parquet").to_pylist(), json.loads((gen / "manifest.json").read_text())


def queries(t, n=12):
    """Documents used as queries: premise candidates spread over the table."""
    rows = t.select(["name", "kind", "text"]).to_pylist()
    premises = [r for r in rows if r["kind"] not in ("theorem", "instance")]
    step = max(1, len(premises) // n)
    return premises[::step][:n]


def dense_top(ws, q):
    """driftkit's dense top hit for a document's text with the document itself excluded: the query
    encoder embeds the text exactly as the document was embedded, so the top hit is its nearest
    neighbour."""
    out = driftkit("search", "--ws", ws, "--mode", "dense", "--json", "--no-head", "--all-kinds",
                   "--k", 3, "--exclude", q["name"], q["text"])
    return json.loads(out)["hits"]


def test_pyarrow_reads_a_fixed_size_list(table, index_docs):
    vecs, docs, manifest = index_docs
    f = pq.ParquetFile(table)
    assert f.metadata.num_rows == len(docs)
    assert f.metadata.num_row_groups == -(-len(docs) // ROW_GROUP), "written in row groups"
    t = f.read()
    vt = t.schema.field("vector").type
    assert pa.types.is_fixed_size_list(vt) and vt.list_size == manifest["dims"], vt
    assert vt.value_type == pa.float32()
    assert t.column_names == ["name", "kind", "module", "library", "revision", "informal_source", "text", "vector"]
    # Row i is document i of the index, with its vector bit for bit.
    assert t.column("name").to_pylist() == [d["name"] for d in docs]
    assert t.column("text").to_pylist() == [d["text"] for d in docs]
    got = t.column("vector").combine_chunks().flatten().to_numpy().reshape(len(docs), vt.list_size)
    assert np.array_equal(got, vecs)
    decls = {r["name"]: r for r in pq.read_table(table.parent.parent / "declarations.parquet",
                                                 columns=["name", "revision", "kind"]).to_pylist()}
    for r in t.select(["name", "kind", "revision"]).to_pylist():
        assert r["kind"] == decls[r["name"]]["kind"]
        assert r["revision"] == (decls[r["name"]]["revision"] or None)
    # The encoder spec in the key-value metadata; the hash encoder labelled as the fallback.
    meta = {k.decode(): v.decode() for k, v in f.schema_arrow.metadata.items()}
    spec = json.loads(meta["driftkit.encoder_spec"])
    want = {k: v for k, v in manifest["encoder_spec"].items() if k != "base_url"}
    assert spec == want
    assert meta["driftkit.encoder_fallback"] == "true" and "fallback" in meta["driftkit.note"]
    assert meta["driftkit.index_generation"] == manifest["generation"]
    # The Parquet footer's key-value metadata has them too, and the row count known at the end.
    kv = {k.decode(): v.decode() for k, v in f.metadata.metadata.items()}
    assert kv["driftkit.encoder_spec"] == meta["driftkit.encoder_spec"]
    assert kv["driftkit.rows"] == str(len(docs))


def test_duckdb_cosine_agrees_with_dense_search(lean_ws, table):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    dims = pq.read_schema(table).field("vector").type.list_size
    qs = queries(pq.read_table(table))
    agree = 0
    for q in qs:
        hits = dense_top(lean_ws, q)
        top = con.execute(
            f"""SELECT e.name, array_cosine_similarity(e.vector::FLOAT[{dims}], q.vector::FLOAT[{dims}]) AS s
                FROM read_parquet(?) e, (SELECT vector FROM read_parquet(?) WHERE name = ?) q
                WHERE e.name <> ? ORDER BY s DESC, e.name LIMIT 3""",
            [str(table), str(table), q["name"], q["name"]]).fetchall()
        # Same best score; the same name unless tied at that score.
        assert abs(top[0][1] - hits[0]["score"]) < 1e-4, (q["name"], top, hits)
        tied = {n for n, s in top if abs(s - top[0][1]) < 1e-6}
        assert hits[0]["name"] in tied, (q["name"], top, hits)
        agree += hits[0]["name"] == top[0][0]
    assert agree >= len(qs) - 2, f"DuckDB and driftkit agree on {agree} of {len(qs)} top hits"


def test_datasets_load_dataset(table, index_docs):
    datasets = pytest.importorskip("datasets")
    vecs, docs, manifest = index_docs
    ds = datasets.load_dataset("parquet", data_files=str(table), split="train")
    assert ds.num_rows == len(docs)
    vf = ds.features["vector"]  # List(Value('float32'), length=dims): a fixed-length sequence
    assert vf.length == manifest["dims"] and vf.feature.dtype == "float32", vf
    row = ds[7]
    assert row["name"] == docs[7]["name"]
    assert np.allclose(np.asarray(row["vector"], dtype=np.float32), vecs[7])
    mat = ds.with_format("numpy")["vector"][:]
    assert np.asarray(mat).shape == vecs.shape


def test_lancedb_nearest_neighbour_agrees(lean_ws, table, tmp_path):
    lancedb = pytest.importorskip("lancedb")
    db = lancedb.connect(str(tmp_path / "lance"))
    t = pq.read_table(table)
    tbl = db.create_table("declarations", data=t)
    assert tbl.count_rows() == t.num_rows
    vectors = {r["name"]: r["vector"] for r in t.select(["name", "vector"]).to_pylist()}
    qs = queries(t)
    agree = 0
    for q in qs:
        hits = dense_top(lean_ws, q)
        res = (tbl.search(np.asarray(vectors[q["name"]], dtype=np.float32), vector_column_name="vector")
               .distance_type("cosine").where(f"name != '{q['name']}'", prefilter=True).limit(3).to_list())
        # LanceDB's cosine distance is 1 - cosine similarity (brute force without an ANN index).
        assert abs((1 - res[0]["_distance"]) - hits[0]["score"]) < 1e-4, (q["name"], res[0]["name"], hits)
        tied = {r["name"] for r in res if abs(r["_distance"] - res[0]["_distance"]) < 1e-6}
        assert hits[0]["name"] in tied, (q["name"], [(r["name"], r["_distance"]) for r in res], hits)
        agree += hits[0]["name"] == res[0]["name"]
    assert agree >= len(qs) - 2, f"LanceDB and driftkit agree on {agree} of {len(qs)} nearest neighbours"
