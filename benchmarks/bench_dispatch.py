"""Depth distributions and sample counts per dispatch mode (docs/dataset.md "Dispatch").

Usage: PYTHONPATH=. python3 benchmarks/bench_dispatch.py PROJECT [OUT.json] [--no-classpath]

Over every ``main`` method with a Javadoc comment and at least one target
(``ProjectGraph.reach`` directly, before the IQR and documentation filters),
prints per mode the samples, targets, target depth histogram and the
histogram of each sample's deepest target (as a JSON line, then drawn as
text bars, one row per depth); OUT.json gets each sample's ``[api, depth]``
list per mode, for comparing modes by hand. The project's libraries are
resolved from Maven Central as ``qare build`` does (``--no-classpath``: not).
"""

from __future__ import annotations

import collections
import json
import sys

from callgraph import build_project_graph
from callgraph._graph import DISPATCH_MODES


def histogram(title: str, counts: dict, width: int = 50) -> str:
    """``counts`` (depth -> n) as text bars scaled to ``width`` columns."""
    top = max(counts.values(), default=0)
    rows = [title]
    for d in range(min(counts, default=2), max(counts, default=1) + 1):
        n = counts.get(d, 0)
        bar = "#" * (round(n * width / top) if top else 0) or ("." if n else "")
        rows.append(f"  {d:>3} {n:>6} {bar}")
    return "\n".join(rows)


def main(root: str, out: str | None = None, classpath: bool = True) -> None:
    pg = build_project_graph(root, jobs=1, auto_classpath=classpath)
    s = pg.summary
    print(json.dumps({"files": s.files, "methods": s.methods, "cha_edges": s.cha_edges,
                      "rta_edges": s.rta_edges, "instantiated": s.instantiated_types,
                      "skipped": len(s.skipped), "resolved_share": round(s.resolved_share(), 3)}))
    res = {}
    for mode in reversed(DISPATCH_MODES):  # declared, cha, rta
        hist, deepest, per = collections.Counter(), collections.Counter(), {}
        for mid in pg.methods():
            info = pg.method(mid)
            if info.source_set != "main" or not (info.comment or "").lstrip().startswith("/**"):
                continue
            ts = pg.reach(mid, dispatch=mode)
            if not ts:
                continue
            hist.update(t.depth for t in ts)
            deepest[max(t.depth for t in ts)] += 1
            per[mid] = sorted((t.api, t.depth) for t in ts)
        res[mode] = per
        print(mode, "samples", len(per), "targets", sum(hist.values()),
              "target depths", dict(sorted(hist.items())), "deepest per sample", dict(sorted(deepest.items())))
        print(histogram(f"{mode}: target depths ({sum(hist.values())} targets)", hist))
        print(histogram(f"{mode}: deepest target per sample ({len(per)} samples)", deepest))
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=0)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--no-classpath"]
    main(*args[:2], classpath="--no-classpath" not in sys.argv)
