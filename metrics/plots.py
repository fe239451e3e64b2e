"""Figures like Q-ARE Figures 3–6: a score per depth (line chart) and per
density group (bar chart). Each PNG is written with a JSON file beside it
holding the exact series drawn, so the figure's data can be checked and
re-plotted without reading pixels."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["plot_series", "plot_report"]

_LINE_STRATA = {"depth", "depth_min", "target_depth"}


def plot_series(
    out_png: str | os.PathLike,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    counts: Sequence[int] | None = None,
    kind: str = "line",
    title: str = "",
    xlabel: str = "",
    ylabel: str = "score",
) -> dict[str, Any]:
    """Draw ``series`` (name → one value per label) over ``labels`` as a line
    or grouped bar chart; write ``out_png`` and ``out_png`` with ``.json``
    instead of ``.png``. Returns the JSON object written: ``labels``,
    ``series``, ``counts``, ``kind``, ``title``, ``xlabel``, ``ylabel``.
    Raises ``ValueError`` when a series' length differs from ``labels``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [str(x) for x in labels]
    for name, vals in series.items():
        if len(vals) != len(labels):
            raise ValueError(f"series {name!r} has {len(vals)} values for {len(labels)} labels")
    if kind not in ("line", "bar"):
        raise ValueError(f"kind must be 'line' or 'bar', got {kind!r}")
    data = {
        "labels": labels,
        "series": {k: [float(v) for v in vals] for k, vals in series.items()},
        "counts": list(counts) if counts is not None else None,
        "kind": kind,
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
    }
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(labels) + 2), 3.6), dpi=100)
    try:
        x = list(range(len(labels)))
        n = max(1, len(series))
        for j, (name, vals) in enumerate(data["series"].items()):
            if kind == "line":
                ax.plot(x, vals, marker="o", label=name)
            else:
                w = 0.8 / n
                ax.bar([i - 0.4 + w * (j + 0.5) for i in x], vals, width=w, label=name)
        ticks = labels if counts is None else [f"{lab}\n(n={c})" for lab, c in zip(labels, counts)]
        ax.set_xticks(x)
        ax.set_xticklabels(ticks, fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if series:
            ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        out_png = Path(out_png)
        out_png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out_png)
    finally:
        plt.close(fig)
    out_png.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data


def plot_report(report, out_dir: str | os.PathLike, metrics: Sequence[str] = ("precision", "recall", "f1")) -> list[Path]:
    """One figure per stratum of an :class:`metrics.evaluate.EvalReport`
    (``<stratum>.png`` + ``.json`` in ``out_dir``): depth strata as lines
    (Q-ARE Fig. 3), the others as bars (Fig. 4). Returns the PNG paths."""
    out = []
    for by, groups in report.strata.items():
        labels = [g.label for g in groups]
        series = {m: [g.scores[m] for g in groups] for m in metrics}
        png = Path(out_dir) / f"{by}.png"
        plot_series(
            png,
            labels,
            series,
            counts=[g.n for g in groups],
            kind="line" if by in _LINE_STRATA else "bar",
            title=f"scores by {by} ({report.level} level)",
            xlabel=by,
        )
        out.append(png)
    return out
