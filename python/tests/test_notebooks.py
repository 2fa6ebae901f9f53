"""The notebooks run, in a Jupyter kernel (nbclient), on a real workspace built from the bundled library,
and draw their plots; the committed notebooks carry no outputs."""
import json
import os
import re

import pytest

from conftest import BENCH, MODES, REPO, driftkit

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = REPO / "notebooks"


def execute(name, env):
    """Runs notebooks/NAME in a fresh kernel with env added to its environment; returns the notebook,
    its printed text and how many PNG images it drew."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits the environment it starts with
    try:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text, images = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                text.append(out["text"])
            data = out.get("data", {})
            images += "image/png" in data
            if "text/plain" in data:
                text.append(data["text/plain"])
    return nb, "\n".join(text), images


def test_committed_notebooks_have_no_outputs():
    books = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert {"retrieval_errors.ipynb", "corpus.ipynb"} <= {b.name for b in books}
    for b in books:
        nb = nbformat.read(b, as_version=4)
        nbformat.validate(nb)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{b.name} cell {i} has outputs: clear them before committing"


def test_retrieval_errors(lean_ws):
    _, text, images = execute("retrieval_errors.ipynb", {"DRIFTKIT_WS": str(lean_ws), "DRIFTKIT_EVAL": str(lean_ws / "eval")})
    # recall/F1 curves, F1 histograms, misses by kind and module, the worst queries' ranks
    assert images == 4, f"{images} plots drawn"
    # The notebook's F1@10 per mode is eval retrieval's own number.
    got = {m: float(v) for m, v in re.findall(r"^(\w+): F1@10 = ([\d.]+)$", text, re.M)}
    assert set(got) == set(MODES), text
    for m in MODES:
        rep = json.loads(driftkit("eval", "retrieval", "--ws", lean_ws, "--bench", BENCH, "--mode", m, "--json"))
        f1 = next(a["f1"] for a in rep["at_k"] if a["k"] == 10)
        assert abs(got[m] - 100 * f1) < 0.01, (m, got[m], f1)
    assert "gold premise occurrences missed at K=10" in text
    assert "retrieved top 5 (✓ gold)" in text  # the worst queries' table


def test_corpus(lean_ws):
    _, text, images = execute("corpus.ipynb", {"DRIFTKIT_WS": str(lean_ws)})
    # namespaces, degree distributions, most used premises, informal coverage
    assert images == 4, f"{images} plots drawn"
    assert re.search(r"^\d+ declarations in .*driftlib \d+", text, re.M), text[:500]
    # The bundled workspace's informal text is the template fallback's, and is labelled so.
    assert "template (offline fallback)" in text
