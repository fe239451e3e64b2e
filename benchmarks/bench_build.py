"""Times `qare build` stages on a project list; prints figures, asserts nothing.

    python3 benchmarks/bench_build.py [LIST] [--jobs N] [--repeat R]

LIST defaults to the bundled examples/projects.txt. Each repeat builds into a
fresh folder (no resume), then once more into the same folder to time a
resumed build (merge only). Per project: files, candidates, samples, and the
fetch/graph/methods/docs/total seconds from projects.jsonl.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from queries.build import BuildOptions, build_dataset


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("list", nargs="?", default=str(Path(__file__).resolve().parents[1] / "examples/projects.txt"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-require-docs", action="store_true")
    args = ap.parse_args()
    opts = BuildOptions(require_docs=not args.no_require_docs)
    walls, resumed = [], []
    last = None
    for _ in range(args.repeat):
        out = Path(tempfile.mkdtemp(prefix="qare-bench-"))
        t = time.perf_counter()
        last = build_dataset(args.list, out, opts, jobs=args.jobs, quiet=True)
        walls.append(time.perf_counter() - t)
        t = time.perf_counter()
        build_dataset(args.list, out, opts, jobs=args.jobs, quiet=True)
        resumed.append(time.perf_counter() - t)
        rows = [json.loads(x) for x in (out / "projects.jsonl").read_text().splitlines()]
        shutil.rmtree(out)
    print(f"list {args.list}  jobs {args.jobs}  repeats {args.repeat}")
    print(f"full build   median {statistics.median(walls):.2f} s  (min {min(walls):.2f}, max {max(walls):.2f})")
    print(f"resumed      median {statistics.median(resumed):.2f} s  (merge only)")
    print(f"samples {last.counts.get('samples', 0)}  APIs {last.counts.get('apis', 0)}  "
          f"candidates {last.counts.get('candidates', 0)}")
    print(f"{'project':<40} {'files':>6} {'cand':>6} {'samples':>7} {'fetch':>6} {'graph':>6} {'meth':>6} {'docs':>6} {'total':>6}")
    for r in rows:
        c, tm = r["counts"], r["timings"]
        print(f"{r['project'][:40]:<40} {c.get('files', 0):>6} {c.get('candidates', 0):>6} {c.get('samples', 0):>7} "
              + " ".join(f"{tm.get(k, 0):>6.2f}" for k in ("fetch", "graph", "methods", "docs", "total")))


if __name__ == "__main__":
    main()
