"""Query ↔ target-API documentation similarity per stratum (Q-ARE RQ2.3,
Figures 5–6): cosine similarity of sentence embeddings of the sample's query
and each target API's description."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from records.dataset import ApiRecord, SampleRecord, TargetRecord

from .baselines import Encoder, load_encoder
from .dataset import Dataset
from .strata import DEFAULT_LOC_BANDS, DEFAULT_RESAMPLES, bootstrap_ci, stratify

__all__ = ["SimilarityGroup", "SimilarityReport", "similarity", "DEFAULT_SIMILARITY_STRATA"]

DEFAULT_SIMILARITY_STRATA = ("target_depth", "target_density")
"""Q-ARE groups by "the Depth (Density) of its corresponding target APIs":
each (query, target) pair falls in its target's group."""


@dataclass(frozen=True, slots=True)
class SimilarityGroup:
    """``label``, ``n`` (query, target) pairs, ``mean`` cosine, ``ci`` 95 %
    bootstrap interval of the mean (None when n = 0)."""

    label: str
    n: int
    mean: float
    ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "n": self.n, "mean": self.mean, "ci95": list(self.ci) if self.ci else None}


@dataclass(frozen=True, slots=True)
class SimilarityReport:
    """``overall`` over all pairs; ``strata`` name → groups; ``n_pairs``
    scored; ``undocumented`` targets skipped for want of a description."""

    overall: SimilarityGroup
    strata: dict[str, tuple[SimilarityGroup, ...]]
    n_pairs: int
    undocumented: int

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.overall.to_dict(), "n_pairs": self.n_pairs, "undocumented": self.undocumented,
                "strata": {k: [g.to_dict() for g in v] for k, v in self.strata.items()}}


def _doc_index(apis: Sequence[ApiRecord]) -> tuple[dict[str, str], dict[str, str]]:
    by_sig: dict[str, str] = {}
    by_name: dict[str, str] = {}
    for a in apis:
        text = a.description or a.first_sentence
        if not text:
            continue
        if a.signature:
            by_sig.setdefault(a.signature, text)
        by_name.setdefault(a.api, text)
    return by_sig, by_name


def similarity(
    dataset: Dataset,
    *,
    by: Sequence[str] = DEFAULT_SIMILARITY_STRATA,
    encoder: Encoder | None = None,
    density_bins: int | Sequence[float] | None = None,
    loc_bands: Sequence[int] = DEFAULT_LOC_BANDS,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> SimilarityReport:
    """Mean cosine similarity between each sample's ``query`` and the
    description of each of its targets (found in ``apis.jsonl`` by
    signature, else by API name), overall and per stratum.

    The unit is a (sample, target) pair; in a sample stratum (``depth``,
    ``density``, …) all the sample's pairs fall in the sample's group, in a
    target stratum each pair in its target's group. Targets without a
    description are skipped and counted. ``encoder`` defaults to the offline
    all-MiniLM-L6-v2 model (raises ``DenseUnavailable`` if not installed).
    """
    by_sig, by_name = _doc_index(dataset.apis)

    def doc(t: TargetRecord) -> str | None:
        return (by_sig.get(t.signature) if t.signature else None) or by_name.get(t.api)

    pairs: list[tuple[SampleRecord, TargetRecord, str]] = []
    undocumented = 0
    for s in dataset.samples:
        for t in s.targets:
            d = doc(t)
            if d is None:
                undocumented += 1
            else:
                pairs.append((s, t, d))
    sims: dict[tuple[str, int], float] = {}
    if pairs:
        enc = encoder or load_encoder()
        texts = sorted({s.query for s, _, _ in pairs} | {d for _, _, d in pairs})
        emb = enc(texts)
        row = {t: i for i, t in enumerate(texts)}
        for s, t, d in pairs:
            sims[(s.id, id(t))] = float(np.dot(emb[row[s.query]], emb[row[d]]))

    def group(label: str, values: list[float]) -> SimilarityGroup:
        return SimilarityGroup(label, len(values), float(np.mean(values)) if values else 0.0,
                               bootstrap_ci(values, n_resamples=n_resamples, seed=seed))

    overall = group("all", list(sims.values()))
    strata = {}
    for b in by:
        groups = []
        for g in stratify(dataset.samples, b, bins=density_bins, loc_bands=loc_bands):
            vals = [sims[(s.id, id(t))] for s, ts in g.members for t in (ts if ts is not None else s.targets)
                    if (s.id, id(t)) in sims]
            if vals:
                groups.append(group(g.label, vals))
        strata[b] = tuple(groups)
    return SimilarityReport(overall, strata, len(sims), undocumented)
