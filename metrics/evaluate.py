"""Scoring a recommender's predictions against a dataset, overall and per
stratum (Q-ARE §4.3–4.4, APIBench-Q metrics)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from records.dataset import SampleRecord, TargetRecord

from .dataset import Dataset, Problem
from .names import LEVELS, normalise_api, normalise_many
from .scores import (
    SetScores,
    _check_k,
    dedupe,
    map_at_k,
    micro_set_scores,
    mrr,
    ndcg_at_k,
    set_scores,
    success_at_k,
)
from .strata import DEFAULT_LOC_BANDS, DEFAULT_RESAMPLES, bootstrap_cis, stratify

__all__ = ["DEFAULT_KS", "StratumScores", "EvalReport", "evaluate", "gold_names", "metric_names"]

DEFAULT_KS = (1, 3, 5, 10)


def metric_names(ks: Sequence[int]) -> list[str]:
    """Score names in report order: the set metrics (macro), then
    ``sr@k``, ``map@k``, ``ndcg@k`` for each k, then ``mrr``."""
    names = ["precision", "recall", "f1", "aem"]
    for k in ks:
        names += [f"sr@{k}", f"map@{k}", f"ndcg@{k}"]
    return names + ["mrr"]


@dataclass(frozen=True, slots=True)
class StratumScores:
    """Scores of one group of units (samples, or sample/target-group pairs).

    ``n`` units; ``scores`` metric → mean over units (macro); ``micro`` the
    pooled ``precision``/``recall``/``f1``; ``ci`` metric → (low, high) 95 %
    percentile bootstrap interval of the mean.
    """

    label: str
    n: int
    scores: dict[str, float]
    micro: dict[str, float]
    ci: dict[str, tuple[float, float]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "n": self.n,
            "scores": dict(self.scores),
            "micro": dict(self.micro),
            "ci95": {k: list(v) for k, v in self.ci.items()},
        }


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Result of :func:`evaluate`.

    ``overall`` over every scored sample; ``strata`` stratum name → groups in
    order; ``n_samples`` in the dataset, ``n_scored`` scored (samples with no
    gold at ``level`` are left out: ``no_gold``), ``missing`` sample ids with
    no prediction line (scored as empty predictions), ``unknown_ids``
    prediction ids not in the dataset; ``problems`` input problems;
    ``name_problems`` normalisation notes → count.
    """

    level: str
    ks: tuple[int, ...]
    overall: StratumScores
    strata: dict[str, tuple[StratumScores, ...]]
    n_samples: int
    n_scored: int
    missing: tuple[str, ...]
    unknown_ids: tuple[str, ...]
    no_gold: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    name_problems: dict[str, int] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        """True when some input was missing or unreadable (exit code 1)."""
        return bool(self.missing or self.unknown_ids or self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "ks": list(self.ks),
            "n_samples": self.n_samples,
            "n_scored": self.n_scored,
            "overall": self.overall.to_dict(),
            "strata": {k: [g.to_dict() for g in v] for k, v in self.strata.items()},
            "missing_predictions": list(self.missing),
            "unknown_ids": list(self.unknown_ids),
            "no_gold": list(self.no_gold),
            "problems": [p.to_dict() for p in self.problems],
            "name_problems": dict(self.name_problems),
        }


def _target_gold(t: TargetRecord, level: str) -> str:
    if level == "class":
        return t.class_
    if level == "name":
        return t.api
    return t.signature or f"{t.api}(*)"


def gold_names(
    targets: Sequence[TargetRecord], level: str, simple: bool = False, notes: Counter | None = None
) -> list[str]:
    """The normalised gold names of ``targets`` at ``level`` (duplicates
    merged, order kept). Names are passed through the same normaliser as
    predictions so both sides agree on forms like ``<init>``."""
    out: list[str] = []
    for t in targets:
        names, probs = normalise_api(_target_gold(t, level), level, simple)
        if notes is not None:
            for p in probs:
                notes[f"gold: {p}"] += 1
        out += names
    return dedupe(out)


def _reconcile_wildcards(preds: list[str], gold: set[str]) -> list[str]:
    # Gold "x.C.m(*)" is an overload the builder could not decide: any
    # prediction of x.C.m(...) counts as that target (DESIGN.md Identifiers).
    out = []
    for p in preds:
        if p not in gold and p.endswith(")") and "(" in p:
            wild = p[: p.index("(")] + "(*)"
            if wild in gold:
                p = wild
        out.append(p)
    return out


def _unit_scores(preds: list[str], gold: list[str], ks: Sequence[int], set_cutoff: int | None) -> tuple[list[float], SetScores]:
    g = set(gold)
    chosen = preds if set_cutoff is None else preds[:set_cutoff]
    s = set_scores(chosen, g)
    row = [s.precision, s.recall, s.f1, s.exact_match]
    for k in ks:
        # preds are already de-duplicated: only the top k matter here
        top = preds[:k]
        row += [success_at_k(top, g, k), map_at_k(top, g, k), ndcg_at_k(top, g, k)]
    row.append(mrr(preds, g))
    return row, s


def _summarise(label: str, rows: list[list[float]], sets: list[SetScores], names: list[str],
               n_resamples: int, seed: int) -> StratumScores:
    arr = np.asarray(rows, dtype=float).reshape(len(rows), len(names))
    if len(rows):
        means = arr.mean(axis=0)
        scores = {n: float(v) for n, v in zip(names, means)}
        ci = dict(zip(names, bootstrap_cis(arr, n_resamples=n_resamples, seed=seed)))
    else:
        scores, ci = {n: 0.0 for n in names}, {}
    m = micro_set_scores(sets)
    micro = {"precision": m.precision, "recall": m.recall, "f1": m.f1}
    return StratumScores(label, len(rows), scores, micro, ci)


def evaluate(
    predictions: Mapping[str, Sequence[str]],
    dataset: Dataset | Sequence[SampleRecord],
    *,
    level: str = "name",
    ks: Sequence[int] = DEFAULT_KS,
    by: Sequence[str] = (),
    simple: bool = False,
    set_cutoff: int | None = None,
    density_bins: int | Sequence[float] | None = None,
    loc_bands: Sequence[int] = DEFAULT_LOC_BANDS,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    problems: Sequence[Problem] = (),
) -> EvalReport:
    """Score ranked predictions against a dataset's targets.

    Parameters
    ----------
    predictions : mapping of sample id → ranked list of API strings
        Any naming style :func:`metrics.normalise_api` reads; unreadable
        entries are dropped (counted in ``name_problems``).
    dataset : Dataset or sequence of SampleRecord
    level : {"class", "name", "signature"}
    ks : cut-offs for SR@k, MAP@k, NDCG@k (positive ints)
    by : stratum names (:data:`metrics.strata.STRATA`), each reported
        separately
    simple : compare without package prefixes (DeepAPI-style output)
    set_cutoff : use only the top ``set_cutoff`` predictions for the set
        metrics (default: the whole list, as Q-ARE scores predicted sets)
    density_bins, loc_bands : see :func:`metrics.strata.stratify`
    n_resamples, seed : bootstrap settings for the 95 % intervals
    problems : input problems to carry into the report

    Returns
    -------
    EvalReport

    Raises
    ------
    ValueError
        unknown level or stratum, k < 1.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    ks = tuple(ks)
    for k in ks:
        _check_k(k)
    samples = dataset.samples if isinstance(dataset, Dataset) else tuple(dataset)
    all_problems = list(problems) + (list(dataset.problems) if isinstance(dataset, Dataset) else [])
    names = metric_names(ks)
    notes: Counter = Counter()
    ids = {s.id for s in samples}
    unknown = tuple(sorted(i for i in predictions if i not in ids))
    missing = tuple(s.id for s in samples if s.id not in predictions)

    norm_preds: dict[str, list[str]] = {}
    gold_all: dict[str, list[str]] = {}
    scored: list[SampleRecord] = []
    no_gold = []
    for s in samples:
        gold = gold_names(s.targets, level, simple, notes)
        if not gold:
            no_gold.append(s.id)
            continue
        preds, probs = normalise_many(predictions.get(s.id, ()), level, simple)
        for p in probs:
            notes[f"prediction: {p}"] += 1
        if level == "signature":
            preds = dedupe(_reconcile_wildcards(preds, set(gold)))
        norm_preds[s.id] = preds
        gold_all[s.id] = gold
        scored.append(s)

    def score_group(label, members) -> StratumScores:
        rows, sets = [], []
        for s, targets in members:
            preds, gold = norm_preds[s.id], gold_all[s.id]
            if targets is not None:
                part = gold_names(targets, level, simple)
                others = set(gold) - set(part)
                preds = [p for p in preds if p not in others]
                gold = part
            row, st = _unit_scores(preds, gold, ks, set_cutoff)
            rows.append(row)
            sets.append(st)
        return _summarise(label, rows, sets, names, n_resamples, seed)

    overall = score_group("all", [(s, None) for s in scored])
    strata = {}
    for b in by:
        groups = stratify(scored, b, bins=density_bins, loc_bands=loc_bands)
        strata[b] = tuple(score_group(g.label, g.members) for g in groups)
    return EvalReport(
        level=level,
        ks=ks,
        overall=overall,
        strata=strata,
        n_samples=len(samples),
        n_scored=len(scored),
        missing=missing,
        unknown_ids=unknown,
        no_gold=tuple(no_gold),
        problems=tuple(all_problems),
        name_problems=dict(notes.most_common()),
    )
