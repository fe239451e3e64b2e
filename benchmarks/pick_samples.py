"""Pick samples of a built dataset at random and print them for checking by hand (issue 10).

Usage: python3 benchmarks/pick_samples.py OUT/samples.jsonl [--seed N] [--per-project K] [--src ROOT]

Per project (sorted by name), ``random.Random(seed).sample`` draws K of its
samples sorted by id; when a project has fewer than K, the shortfall is drawn
from the project with the most samples by the same generator, so the set
always has K × projects samples (when there are that many). Each sample is
printed with its query, targets (depth, signature, declaring type, chain
LOC, density, resolution, chain) and, with ``--src ROOT``, the method's
source lines read from ``ROOT/<project>/<file>``. No code runs.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path


def pick(rows: list[dict], seed: int, per_project: int) -> list[dict]:
    """The drawn samples, in project order (see module docstring)."""
    by = collections.defaultdict(list)
    for r in rows:
        by[r["project"]].append(r)
    rng = random.Random(seed)
    picked: list[dict] = []
    for p in sorted(by):
        xs = sorted(by[p], key=lambda r: r["id"])
        picked += rng.sample(xs, min(per_project, len(xs)))
    want = per_project * len(by)
    if by and len(picked) < want:
        big = max(sorted(by), key=lambda p: len(by[p]))
        taken = {r["id"] for r in picked}
        rest = [r for r in sorted(by[big], key=lambda r: r["id"]) if r["id"] not in taken]
        picked += rng.sample(rest, min(want - len(picked), len(rest)))
    return picked


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("samples")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--per-project", type=int, default=5)
    ap.add_argument("--src", help="folder holding the projects' checkouts by project name")
    a = ap.parse_args()
    with open(a.samples, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for i, r in enumerate(pick(rows, a.seed, a.per_project), 1):
        print(f"=== S{i} {r['project']} {r['file']}:{r['start_line']}-{r['end_line']} loc={r['loc']} id={r['id']}")
        print("method:", r["method"])
        print("query:", r["query"])
        print("n_direct:", r["n_direct_apis"], "depth", r["depth_min"], r["depth_max"], "density", r["density"],
              "leaks", r.get("leaks"))
        for t in r["targets"]:
            print("  T", t["depth"], t["signature"] or t["api"], "| class", t["class"], "| loc", t["chain_loc"],
                  "dens", round(t["density"], 4), "res", t["resolution"])
            print("     chain:", " -> ".join(t["chain"]))
        if a.src:
            path = Path(a.src) / r["project"] / r["file"]
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            for n in range(r["start_line"] - 1, min(r["end_line"], len(lines))):
                print(f"{n + 1:5} {lines[n]}")


if __name__ == "__main__":
    main()
