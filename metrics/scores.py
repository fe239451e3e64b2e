"""Set metrics (Q-ARE) and ranking metrics (APIBench-Q) for one sample.

Every function takes already-normalised API strings (see
:func:`metrics.names.normalise_api`) and returns a float in ``[0, 1]``.
Edge-case decisions are documented in ``docs/metrics.md`` and in each
docstring; they are the same everywhere in the package.

Sources
-------
- Precision, Recall, F1 per sample averaged over samples, and API Exact Match
  (AEM): Q-ARE paper §4.3 (following Wei et al. 2022 for P/R/F1 and Lin et
  al. 2025 for AEM).
- Success Rate@k, MAP@k, MRR, NDCG@k: APIBench-Q (Peng et al. 2021,
  arXiv:2112.12653), definitions as its text states them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "SetScores",
    "dedupe",
    "set_scores",
    "micro_set_scores",
    "success_at_k",
    "precision_at_k",
    "map_at_k",
    "map_at_k_apibench_recipe",
    "mrr",
    "ndcg_at_k",
]


def dedupe(ranked: Iterable[str]) -> list[str]:
    """The ranking with repeated items removed, keeping each first occurrence.

    APIBench-Q re-implementations differ on duplicates; here a duplicate is
    neither a second hit nor a miss: it is dropped and later items move up.

    >>> dedupe(["a", "b", "a", "c"])
    ['a', 'b', 'c']
    """
    seen: set[str] = set()
    out = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


@dataclass(frozen=True, slots=True)
class SetScores:
    """Set metrics of one sample (or a micro-average over many).

    ``tp`` = |predicted ∩ gold|, ``n_pred`` = |predicted|, ``n_gold`` = |gold|
    (sets, so duplicates count once); ``precision``, ``recall``, ``f1`` and
    ``exact_match`` (1.0 when the predicted set equals the gold set) in [0, 1].
    """

    tp: int
    n_pred: int
    n_gold: int
    precision: float
    recall: float
    f1: float
    exact_match: float


def _prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    # Empty predictions: precision 0 unless the gold set is empty too (then
    # nothing was wrong and nothing was missed: 1). Symmetric for recall.
    # This matches sklearn's zero_division=0 for the usual case (gold
    # non-empty) and keeps "both empty" a perfect answer, as AEM does.
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def set_scores(predicted: Iterable[str], gold: Iterable[str]) -> SetScores:
    """Precision, Recall, F1 and API Exact Match of one sample.

    Parameters
    ----------
    predicted, gold : iterables of str
        Normalised API strings; both are taken as sets (order and duplicates
        ignored).

    Returns
    -------
    SetScores
        ``precision`` = tp/|pred| (0 when nothing is predicted and gold is
        non-empty), ``recall`` = tp/|gold| (0 when gold is empty and
        something is predicted), both 1 when both sets are empty;
        ``f1`` their harmonic mean (0 when both are 0); ``exact_match`` 1.0
        iff the sets are equal (Q-ARE's AEM).

    Examples
    --------
    >>> s = set_scores(["a", "b", "x"], ["a", "b", "c", "d"])
    >>> (s.precision, s.recall, round(s.f1, 4), s.exact_match)
    (0.6666666666666666, 0.5, 0.5714, 0.0)
    """
    p_set, g_set = set(predicted), set(gold)
    tp = len(p_set & g_set)
    p, r, f = _prf(tp, len(p_set), len(g_set))
    return SetScores(tp, len(p_set), len(g_set), p, r, f, 1.0 if p_set == g_set else 0.0)


def micro_set_scores(per_sample: Sequence[SetScores]) -> SetScores:
    """Micro-average: pool tp, |pred| and |gold| over samples, then P/R/F1.

    ``exact_match`` is the mean over samples (AEM has no pooled form).
    An empty sequence gives all-zero scores.
    """
    if not per_sample:
        return SetScores(0, 0, 0, 0.0, 0.0, 0.0, 0.0)
    tp = sum(s.tp for s in per_sample)
    n_pred = sum(s.n_pred for s in per_sample)
    n_gold = sum(s.n_gold for s in per_sample)
    p, r, f = _prf(tp, n_pred, n_gold)
    em = sum(s.exact_match for s in per_sample) / len(per_sample)
    return SetScores(tp, n_pred, n_gold, p, r, f, em)


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")


def success_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Success Rate@k of one query: 1.0 if a gold API is among the top k.

    APIBench-Q (Peng et al. 2021): |{q : gold(q) ∩ top_k(q) ≠ ∅}| / |Q| is the
    mean of this over queries. ``k`` larger than the list uses the whole list.
    Raises ``ValueError`` for k < 1.
    """
    _check_k(k)
    g = set(gold)
    return 1.0 if any(p in g for p in dedupe(ranked)[:k]) else 0.0


def precision_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """|top-k ∩ gold| / k (standard P@k; k, not the list length, divides)."""
    _check_k(k)
    g = set(gold)
    return sum(1 for p in dedupe(ranked)[:k] if p in g) / k


def map_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Average Precision@k of one query (MAP@k is its mean over queries).

    Standard definition, as APIBench-Q's text states it: the precision at
    each rank i ≤ k holding a hit, summed, divided by min(|gold|, k):
    ``AP@k = Σ_{i ≤ k, rel(i)} P@i / min(|gold|, k)``. Empty gold gives 0.

    >>> round(map_at_k(["x", "a", "b"], ["a", "b"], 3), 4)  # (1/2 + 2/3) / 2
    0.5833
    """
    _check_k(k)
    g = set(gold)
    if not g:
        return 0.0
    hits = 0
    total = 0.0
    for i, p in enumerate(dedupe(ranked)[:k], start=1):
        if p in g:
            hits += 1
            total += hits / i
    return total / min(len(g), k)


def map_at_k_apibench_recipe(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """The APIBench-Q evaluation recipe's MAP@k line, for reproducing numbers
    made with it: ``Σ_{i ≤ k, rel(i)} 1/i / min(|gold|, k)``.

    It sums the reciprocal rank of each hit instead of the precision at it,
    so it equals :func:`map_at_k` when there is at most one hit in the top k
    and is lower otherwise. Duplicates are dropped first, as everywhere here.
    Empty gold gives 0 (the recipe itself divides by zero).
    """
    _check_k(k)
    g = set(gold)
    if not g:
        return 0.0
    total = sum(1.0 / i for i, p in enumerate(dedupe(ranked)[:k], start=1) if p in g)
    return total / min(len(g), k)


def mrr(ranked: Sequence[str], gold: Iterable[str], k: int | None = None) -> float:
    """Reciprocal rank of the first hit (MRR is its mean over queries).

    APIBench-Q: 1 / rank of the first correct API; 0 when there is none.
    Without ``k`` the whole ranking is searched (as the APIBench-Q recipe
    does); with ``k`` only the top k (MRR@k).
    """
    if k is not None:
        _check_k(k)
    g = set(gold)
    items = dedupe(ranked)
    if k is not None:
        items = items[:k]
    for i, p in enumerate(items, start=1):
        if p in g:
            return 1.0 / i
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """NDCG@k with binary gain and log2 discount (APIBench-Q).

    ``DCG@k = Σ_{i ≤ k, rel(i)} 1 / log2(i + 1)``; the ideal DCG puts
    min(|gold|, k) hits at ranks 1…; NDCG = DCG / IDCG, 0 for empty gold.
    No class-prefix partial credit (a graded variant some re-implementations
    use).
    """
    _check_k(k)
    g = set(gold)
    if not g:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, p in enumerate(dedupe(ranked)[:k], start=1) if p in g)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(g), k) + 1))
    return dcg / idcg
