"""Shared fixtures: a real workspace built by the driftkit binary from the bundled library.

DRIFTKIT_BIN and DRIFTKIT_REPO come from scripts/pytest.sh.
"""
import os
import pathlib
import subprocess

import pytest

BIN = os.environ.get("DRIFTKIT_BIN")
REPO = pathlib.Path(os.environ.get("DRIFTKIT_REPO") or pathlib.Path(__file__).resolve().parents[2])
BENCH = REPO / "testdata" / "bench.jsonl"
MODES = ["dense", "bm25", "hybrid", "best"]


def driftkit(*args, cwd=None, env=None):
    """Runs the binary; a failure shows its stderr."""
    assert BIN, "DRIFTKIT_BIN not set: run through scripts/pytest.sh"
    p = subprocess.run([BIN, *map(str, args)], cwd=cwd or REPO, env=env, capture_output=True, text=True)
    assert p.returncode == 0, f"driftkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr}"
    return p.stdout


@pytest.fixture(scope="session")
def lean_ws(tmp_path_factory):
    """testdata/lean extracted, informalized (template), indexed (hash encoder), and evaluated on
    testdata/bench.jsonl in every mode with --per-item into WS/eval/<mode>.jsonl."""
    ws = tmp_path_factory.mktemp("lean-ws")
    driftkit("extract", "--src", "testdata/lean", "--library", "driftlib", "--ws", ws)
    driftkit("informalize", "--provider", "template", "--ws", ws)
    driftkit("index", "--ws", ws)
    (ws / "eval").mkdir()
    for m in MODES:
        driftkit("eval", "retrieval", "--ws", ws, "--bench", BENCH, "--mode", m, "--per-item", ws / "eval" / f"{m}.jsonl")
    return ws
