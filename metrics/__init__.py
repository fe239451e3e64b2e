"""Scoring: set metrics, ranking metrics, API-name normalisation, stratified
reports and plots; SCCGBench virtual execution and scores."""

__all__: list[str] = []
