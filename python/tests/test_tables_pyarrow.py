"""driftkit's Parquet tables load in pyarrow with the schema DESIGN.md promises."""
import hashlib
import json
import os
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

SAMPLE = pathlib.Path(os.environ.get("DRIFTKIT_SAMPLE_DIR", ""))

LIST_STR = pa.list_(pa.string())

# Column -> arrow type (after dictionary decoding) for each table.
SCHEMAS = {
    "declarations.parquet": {
        "library": pa.string(), "revision": pa.string(), "name": pa.string(), "kind": pa.string(),
        "keyword": pa.string(), "module": pa.string(), "path": pa.string(),
        "line_start": pa.int32(), "line_end": pa.int32(), "namespace": pa.string(),
        "opens": LIST_STR, "modifiers": LIST_STR, "attributes": LIST_STR,
        "docstring": pa.string(), "signature": pa.string(), "code": pa.string(),
        "statement_deps": LIST_STR, "proof_deps": LIST_STR, "generated_from": pa.string(),
    },
    "modules.parquet": {"library": pa.string(), "revision": pa.string(), "name": pa.string(), "path": pa.string(),
                        "imports": LIST_STR, "docstring": pa.string()},
    "informal.parquet": {"name": pa.string(), "informal_name": pa.string(), "informal_statement": pa.string(),
                         "provider": pa.string(), "prompt_version": pa.string(), "input_sha256": pa.string(),
                         "prompt_tokens": pa.int64(), "completion_tokens": pa.int64(), "created_at": pa.string(),
                         # added with informalize's formal-input reuse rule (null in older rows)
                         "own_input_sha256": pa.string(), "informal_sha256": pa.string(),
                         "context": pa.list_(pa.struct([("name", pa.string()), ("informal_sha256", pa.string())]))},
    "pairs.parquet": {"query_id": pa.string(), "query": pa.string(), "query_source": pa.string(),
                      "theorem": pa.string(), "positives": LIST_STR, "negatives": LIST_STR, "split": pa.string(),
                      # added to label random fill (empty in older files)
                      "negative_sources": LIST_STR},
}


def plain(t):
    return t.value_type if pa.types.is_dictionary(t) else t


def check_schema(path, want):
    table = pq.read_table(path)
    got = {f.name: plain(f.type) for f in table.schema}
    for col, typ in want.items():
        assert col in got, f"{path}: no column {col}"
        g = got[col]
        if pa.types.is_list(typ) and pa.types.is_struct(typ.value_type):
            assert pa.types.is_list(g) or pa.types.is_large_list(g), f"{path}:{col} is {g}, want a list"
            items = g.value_type
            assert pa.types.is_struct(items), f"{path}:{col} items are {items}, want a struct"
            got_fields = [(f.name, plain(f.type)) for f in items]
            want_fields = [(f.name, f.type) for f in typ.value_type]
            assert got_fields == want_fields, f"{path}:{col} items are {items}, want {typ.value_type}"
        elif pa.types.is_list(typ):
            assert pa.types.is_list(g) or pa.types.is_large_list(g), f"{path}:{col} is {g}, want a list"
            assert plain(g.value_type) == typ.value_type, f"{path}:{col} items are {g.value_type}"
        else:
            assert g == typ, f"{path}:{col} is {g}, want {typ}"
    return table


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_sample_tables_load(name):
    assert SAMPLE.is_dir(), "DRIFTKIT_SAMPLE_DIR not set: run through scripts/pytest.sh"
    table = check_schema(SAMPLE / name, SCHEMAS[name])
    assert table.num_rows > 0


def test_sample_declarations_values():
    rows = pq.read_table(SAMPLE / "declarations.parquet").to_pylist()
    by_name = {r["name"]: r for r in rows}
    prime = by_name["Driftlib.Nat.Prime"]
    assert prime["opens"] == ["Driftlib"]
    assert prime["statement_deps"] == ["Nat"]
    assert prime["docstring"].startswith("A natural number `p` is *prime*")
    assert prime["generated_from"] is None
    thm = by_name["Driftlib.Nat.Prime.two_le"]
    assert thm["docstring"] is None, "a missing docstring must be null"
    assert thm["statement_deps"] == ["Driftlib.Nat.Prime", "LE.le"]
    weird = by_name["Driftlib.«weird name»"]
    assert weird["docstring"] == "", "an empty docstring must stay empty, not null"
    assert weird["generated_from"] == "Driftlib.Weird"
    assert weird["opens"] == []


def test_sample_informal_values():
    """The audit columns: informal_sha256 is sha256(informal_name + "\\n" +
    informal_statement), so a curator can recompute it, and a context entry
    names the dependency text a row was made with (the sample's is stale)."""
    rows = {r["name"]: r for r in pq.read_table(SAMPLE / "informal.parquet").to_pylist()}
    for r in rows.values():
        if r["informal_sha256"] is not None:
            text = (r["informal_name"] + "\n" + r["informal_statement"]).encode()
            assert r["informal_sha256"] == hashlib.sha256(text).hexdigest()
    # The curator's audit: rows made with a dependency text that changed since.
    stale = sorted(r["name"] for r in rows.values() for c in (r["context"] or [])
                   if c["name"] in rows and rows[c["name"]]["informal_sha256"] != c["informal_sha256"])
    assert stale == ["Driftlib.Nat.Prime.two_le"]
    old = rows["Driftlib.DSet"]
    assert old["own_input_sha256"] is None and old["informal_sha256"] is None, "rows of the older rule read as null"
    assert not old["context"]


def test_sample_pairs_values():
    rows = pq.read_table(SAMPLE / "pairs.parquet").to_pylist()
    assert rows[0]["negatives"] == ["Driftlib.Nat.Coprime", "Driftlib.DSet"]
    # one label per negative: a mined hard negative, then a random premise candidate
    assert rows[0]["negative_sources"] == ["mined", "random"]
    assert rows[1]["negatives"] == []
    assert rows[1]["negative_sources"] == []
