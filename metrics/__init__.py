"""Scoring: set metrics, ranking metrics, API-name normalisation, stratified
reports and plots; SCCGBench virtual execution and scores.

Public API (Q-ARE / APIBench-Q side)::

    from metrics import set_scores, map_at_k, normalise_api, ...

Definitions, edge cases and sources: ``docs/metrics.md``.
"""

from .baselines import BASELINES, DENSE_INSTALL, DenseUnavailable, check_dense, api_document, bm25_rank, dense_rank, load_encoder, run_baseline, tokenize
from .similarity import SimilarityGroup, SimilarityReport, similarity
from .dataset import Dataset, DatasetError, Problem, load_dataset, load_predictions, write_dataset, write_predictions
from .evaluate import DEFAULT_KS, EvalReport, StratumScores, evaluate, gold_names, metric_names
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
from .importers import ImportResult, import_apibench, import_clear_csv, write_import
from .slices import SLICE_STRATA, SliceInfo, SliceSummary, restrict_apis, write_slices
from .plots import plot_report, plot_series
from .strata import STRATA, bootstrap_ci, density_bin, density_bins, loc_band, stratify

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
    # dataset files
    "Dataset",
    "DatasetError",
    "Problem",
    "load_dataset",
    "write_dataset",
    "load_predictions",
    "write_predictions",
    # evaluation and strata
    "DEFAULT_KS",
    "EvalReport",
    "StratumScores",
    "evaluate",
    "gold_names",
    "metric_names",
    "STRATA",
    "stratify",
    "density_bins",
    "density_bin",
    "loc_band",
    "bootstrap_ci",
    # slices and imports
    "SLICE_STRATA",
    "SliceInfo",
    "SliceSummary",
    "write_slices",
    "restrict_apis",
    "ImportResult",
    "import_apibench",
    "import_clear_csv",
    "write_import",
    # baselines and similarity
    "BASELINES",
    "DenseUnavailable",
    "DENSE_INSTALL",
    "check_dense",
    "tokenize",
    "api_document",
    "bm25_rank",
    "dense_rank",
    "load_encoder",
    "run_baseline",
    "SimilarityGroup",
    "SimilarityReport",
    "similarity",
    # plots
    "plot_series",
    "plot_report",
]
