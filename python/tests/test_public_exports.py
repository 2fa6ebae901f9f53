"""What `export hf`, `export flagembedding` and `export embeddings` publish names no folder of the
exporting machine: not the workspace, the working directory, HOME, the temporary folder, nor the
folder of a benchmark given to `mine --exclude` by its absolute path. The card names that benchmark
by file name and sha256."""
import hashlib
import os
import pathlib
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import BENCH, REPO, driftkit


def strings(value):
    """Every string inside a pyarrow value (lists and structs flattened)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("machine")
    home, tmp, cwd, bench_dir = (root / n for n in ("home-of-someone", "private-tmp", "elsewhere", "benchmarks"))
    for d in (home, tmp, cwd, bench_dir):
        d.mkdir()
    ws = root / "workspace-abs"
    bench = bench_dir / "bench-copy.jsonl"
    shutil.copy(BENCH, bench)
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp)}
    lean = REPO / "testdata" / "lean"
    run = lambda *a: driftkit(*a, cwd=cwd, env=env)  # noqa: E731
    run("extract", "--src", lean, "--library", "driftlib", "--ws", ws)
    run("informalize", "--provider", "template", "--ws", ws)
    run("index", "--ws", ws)
    run("mine", "--ws", ws, "--allow-template", "--exclude", bench)
    run("export", "flagembedding", "--ws", ws)
    run("export", "hf", "--ws", ws, "--license", "apache-2.0")
    run("export", "embeddings", "--ws", ws)
    machine = [str(p) for p in (ws, home, tmp, cwd, bench_dir, pathlib.Path.home(), REPO, pathlib.Path.cwd())]
    import tempfile
    machine.append(tempfile.gettempdir())
    return ws, bench, machine


def leaks(text, machine):
    return [p for p in machine if p in text]


def test_the_manifest_keeps_the_absolute_path(exported):
    """The fixture exercises the leak: the workspace's own record names the benchmark's folder."""
    ws, bench, _ = exported
    assert str(bench) in (ws / "manifest.json").read_text()


def test_card(exported):
    ws, bench, machine = exported
    card = (ws / "export" / "hf" / "README.md").read_text(encoding="utf-8")
    assert not leaks(card, machine), leaks(card, machine)
    sha = hashlib.sha256(bench.read_bytes()).hexdigest()
    assert f"`bench-copy.jsonl` (sha256 `{sha}`" in card, card
    assert "mining parameters" in card and '"exclude":["bench-copy.jsonl"]' in card


def test_flagembedding_files(exported):
    ws, _, machine = exported
    files = sorted((ws / "export" / "flagembedding").iterdir())
    assert any(f.name == "finetune.sh" for f in files)
    for f in files:
        found = leaks(f.read_text(encoding="utf-8"), machine)
        assert not found, f"{f.name} names {found}"


def test_parquet_metadata_and_values(exported):
    ws, _, machine = exported
    files = sorted((ws / "export").rglob("*.parquet"))
    assert any(f.name == "embeddings.parquet" for f in files) and any("hf" in f.parts for f in files)
    for f in files:
        pf = pq.ParquetFile(f)
        meta = {**(pf.metadata.metadata or {}), **(pf.schema_arrow.metadata or {})}
        for k, v in meta.items():
            found = leaks(k.decode() + v.decode(errors="replace"), machine)
            assert not found, f"{f.relative_to(ws)}: metadata {k!r} names {found}"
        assert not leaks(pf.metadata.created_by or "", machine)
        t = pf.read()
        for name in t.column_names:
            col = t.column(name)
            if not (pa.types.is_string(col.type) or pa.types.is_list(col.type) or pa.types.is_large_string(col.type)):
                continue
            for s in strings(col.to_pylist()):
                found = leaks(s, machine)
                assert not found, f"{f.relative_to(ws)}: column {name} holds {s[:200]!r}, naming {found}"
