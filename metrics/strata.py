"""Stratification of samples (or of their targets) by depth, density, chain
LOC, project and library, and percentile bootstrap confidence intervals.

Two kinds of strata (see ``docs/metrics.md``):

- **sample strata** put each whole sample in one group: ``depth`` (its
  ``depth_max``), ``depth_min``, ``density`` (the sample's density), ``loc``
  (its total chain LOC = 1 / density), ``project``;
- **target strata** split a sample's targets into groups: ``target_depth``,
  ``target_density``, ``target_loc`` (each target's own chain), ``library``.
  A (sample, group) pair is scored with the group's targets as gold, and
  predictions that hit the sample's *other* targets removed from the list
  (neither credited nor penalised in this group).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from records.dataset import SampleRecord, TargetRecord

__all__ = [
    "STRATA",
    "SAMPLE_STRATA",
    "TARGET_STRATA",
    "DEFAULT_DENSITY_BINS",
    "DEFAULT_LOC_BANDS",
    "Stratum",
    "density_bins",
    "density_bin",
    "loc_band",
    "stratify",
    "bootstrap_ci",
    "bootstrap_cis",
    "DEFAULT_RESAMPLES",
]

SAMPLE_STRATA = ("depth", "depth_min", "density", "loc", "project")
TARGET_STRATA = ("target_depth", "target_density", "target_loc", "library")
STRATA = SAMPLE_STRATA + TARGET_STRATA

DEFAULT_DENSITY_BINS = 6
"""Q-ARE §4.4.2: six equal groups of density on [0, 1/3]."""
DEFAULT_LOC_BANDS = (10, 25, 50, 125, 245)
"""Upper bounds (inclusive, lines) of chain-LOC bands; beyond the last is one
more band. 125 and 245 are the lengths Q-ARE RQ2.2 reads off its Figure 4."""
DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples per stratum."""

_EXACT = 10**6  # densities are 1/LOC: recovered exactly as fractions


@dataclass(frozen=True, slots=True)
class Stratum:
    """One group: ``key`` sorts groups, ``label`` names them; ``members`` the
    (sample, gold targets or ``None`` for all targets) pairs in it."""

    key: tuple
    label: str
    members: tuple[tuple[SampleRecord, tuple[TargetRecord, ...] | None], ...]


def density_bins(spec: int | Sequence[float] | None = None) -> tuple[Fraction, ...]:
    """Bin edges: an int n gives n equal bins on [0, 1/3] (Q-ARE); a sequence
    gives the edges themselves (ascending, at least two). Raises
    ``ValueError`` for a bad spec."""
    if spec is None:
        spec = DEFAULT_DENSITY_BINS
    if isinstance(spec, int):
        if spec < 1:
            raise ValueError("density bins: need at least one bin")
        return tuple(Fraction(1, 3) * i / spec for i in range(spec + 1))
    edges = tuple(Fraction(float(e)).limit_denominator(_EXACT) for e in spec)
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"density bins: edges must be ascending, at least two: {list(spec)}")
    return edges


def _fmt(x: Fraction) -> str:
    return f"{float(x):.4g}"


def density_bin(value: float | None, edges: Sequence[Fraction]) -> tuple[int, str]:
    """(index, label) of ``value`` among ``edges``.

    Bins are half-open ``[e_i, e_{i+1})`` except the last, which is closed
    ``[e_{n-1}, e_n]`` so Q-ARE's upper end 1/3 (chain LOC 3) falls inside.
    Values above the last edge go to an extra bin ``> e_n`` (index n), values
    below the first to ``< e_0`` (index -1). The value is compared as the
    exact fraction it stands for (1/LOC), so 1/18 lands on the edge 1/18.
    ``None`` (a gold file that does not state the density) goes to
    ``unknown`` (index n + 1, after every bin).
    """
    if value is None:
        return len(edges), "unknown"
    v = Fraction(float(value)).limit_denominator(_EXACT)
    n = len(edges) - 1
    if v < edges[0]:
        return -1, f"< {_fmt(edges[0])}"
    if v > edges[-1]:
        return n, f"> {_fmt(edges[-1])}"
    for i in range(n):
        lo, hi = edges[i], edges[i + 1]
        if v < hi or i == n - 1:
            close = "]" if i == n - 1 else ")"
            return i, f"[{_fmt(lo)}, {_fmt(hi)}{close}"
    raise AssertionError("unreachable")


def loc_band(loc: int | None, bands: Sequence[int] = DEFAULT_LOC_BANDS) -> tuple[int, str]:
    """(index, label) of a chain LOC among bands with inclusive upper bounds:
    with (10, 25) the bands are ``1-10``, ``11-25``, ``>25``. ``None`` or
    non-positive LOC gives (-1, ``unknown``)."""
    if loc is None or loc <= 0:
        return -1, "unknown"
    lo = 1
    for i, hi in enumerate(bands):
        if loc <= hi:
            return i, f"{lo}-{hi}"
        lo = hi + 1
    return len(bands), f">{bands[-1]}"


def _known(v) -> tuple[tuple, str]:
    """(key, label) of a value a hand-made gold file may leave out (``None``):
    unknown sorts last and is labelled ``unknown``."""
    return ((v is None, v if v is not None else 0), "unknown" if v is None else str(v))


def _sample_loc(s: SampleRecord) -> int | None:
    return round(1 / s.density) if s.density and s.density > 0 else None


def stratify(
    samples: Sequence[SampleRecord],
    by: str,
    *,
    bins: int | Sequence[float] | None = None,
    loc_bands: Sequence[int] = DEFAULT_LOC_BANDS,
) -> list[Stratum]:
    """Group samples (or their targets) by ``by`` (one of :data:`STRATA`).

    Returns the groups in ascending order of their key (depth, bin, band;
    project and library alphabetically, unknown library last). Samples with
    no targets are left out of target strata. Raises ``ValueError`` for an
    unknown ``by``.
    """
    if by not in STRATA:
        raise ValueError(f"unknown stratum {by!r}; one of {', '.join(STRATA)}")
    edges = density_bins(bins)
    groups: dict[tuple, tuple[str, list]] = {}

    def put(key: tuple, label: str, member) -> None:
        groups.setdefault(key, (label, []))[1].append(member)

    def indexed(pair: tuple[int, str]) -> tuple[tuple, str]:
        return (pair[0],), pair[1]

    # (key, label) of a sample (sample strata) or of a target (target strata)
    sample_keys = {
        "depth": lambda s: _known(s.depth_max),
        "depth_min": lambda s: _known(s.depth_min),
        "density": lambda s: indexed(density_bin(s.density, edges)),
        "loc": lambda s: indexed(loc_band(_sample_loc(s), loc_bands)),
        "project": lambda s: ((s.project is None, s.project or ""), s.project or "unknown"),
    }
    target_keys = {
        "target_depth": lambda t: _known(t.depth),
        "target_density": lambda t: indexed(density_bin(t.density, edges)),
        "target_loc": lambda t: indexed(loc_band(t.chain_loc, loc_bands)),
        "library": lambda t: ((t.library is None, t.library or ""), t.library or "unknown"),
    }
    if by in sample_keys:
        sample_key = sample_keys[by]
        for s in samples:
            put(*sample_key(s), (s, None))
    else:
        target_key = target_keys[by]
        for s in samples:
            parts: dict[tuple, tuple[str, list[TargetRecord]]] = {}
            for t in s.targets:
                key, lab = target_key(t)
                parts.setdefault(key, (lab, []))[1].append(t)
            for key, (lab, ts) in parts.items():
                put(key, lab, (s, tuple(ts)))
    return [Stratum(k, lab, tuple(m)) for k, (lab, m) in sorted(groups.items())]


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap confidence interval of the mean.

    ``values`` one score per unit; resampled with replacement
    ``n_resamples`` times with ``numpy.random.default_rng(seed)``; returns
    the (α/2, 1-α/2) percentiles of the resampled means, ``None`` for no
    values. Deterministic for a given seed.
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return None
    return bootstrap_cis(arr.reshape(-1, 1), n_resamples=n_resamples, seed=seed, confidence=confidence)[0]


def bootstrap_cis(
    matrix: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[tuple[float, float]]:
    """:func:`bootstrap_ci` of every column of ``matrix`` (units × metrics),
    all columns resampled with the same unit indices (paired), so each
    column's interval equals ``bootstrap_ci(column)`` with the same seed.
    Returns one (low, high) per column; raises ``ValueError`` for no rows."""
    arr = np.asarray(matrix, dtype=float)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError("bootstrap_cis needs a non-empty units x metrics matrix")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    n, m = arr.shape
    rng = np.random.default_rng(seed)
    means = np.empty((n_resamples, m))
    # chunks keep memory at ~8 MB of indices for large strata
    chunk = max(1, 1_000_000 // n)
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        for j in range(m):
            means[start:stop, j] = arr[idx, j].mean(axis=1)
    alpha = (1 - confidence) / 2
    q = np.quantile(means, [alpha, 1 - alpha], axis=0)
    return [(float(q[0, j]), float(q[1, j])) for j in range(m)]
