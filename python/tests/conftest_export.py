"""Shared set-up for the export tests: a fixture workspace exported by the real driftkit binary.

The workspace is the minetest fixture (go run ./internal/testkit/minetest/fixturews), exported with
`driftkit export flagembedding` and `driftkit export hf`. DRIFTKIT_BIN and DRIFTKIT_REPO come from
scripts/pytest.sh; without them the binary is built here.
"""
import os
import pathlib
import shutil
import subprocess

REPO = pathlib.Path(os.environ.get("DRIFTKIT_REPO") or pathlib.Path(__file__).resolve().parents[2])
GO = os.environ.get("GO", "go")


def driftkit_bin(tmp: pathlib.Path) -> str:
    b = os.environ.get("DRIFTKIT_BIN")
    if b:
        return b
    out = tmp / "driftkit"
    subprocess.run([GO, "build", "-o", str(out), "./cmd/driftkit"], cwd=REPO, check=True)
    return str(out)


def exported_workspace(tmp: pathlib.Path) -> pathlib.Path:
    ws = tmp / "ws"
    if ws.exists():
        shutil.rmtree(ws)
    subprocess.run([GO, "run", "./internal/testkit/minetest/fixturews", "-pairs", str(ws)], cwd=REPO, check=True)
    bin_ = driftkit_bin(tmp)
    subprocess.run([bin_, "export", "flagembedding", "--ws", str(ws)], check=True)
    subprocess.run([bin_, "export", "hf", "--ws", str(ws), "--license", "apache-2.0", "--shard-rows", "40"], check=True)
    return ws
