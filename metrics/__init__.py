"""Scoring: set metrics, ranking metrics, API-name normalisation, stratified
reports and plots; SCCGBench virtual execution and scores.

Public API (Q-ARE / APIBench-Q side)::

    from metrics import set_scores, map_at_k, normalise_api, ...

Definitions, edge cases and sources: ``docs/metrics.md``.
"""

from .names import LEVELS, ParsedApi, normalise_api, normalise_many, parse_api, simple_name
from .scores import (
    SetScores,
    dedupe,
    map_at_k,
    map_at_k_apibench_recipe,
    micro_set_scores,
    mrr,
    ndcg_at_k,
    precision_at_k,
    set_scores,
    success_at_k,
)

__all__: list[str] = [
    # names
    "LEVELS",
    "ParsedApi",
    "parse_api",
    "normalise_api",
    "normalise_many",
    "simple_name",
    # scores
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
