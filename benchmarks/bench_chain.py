"""Benchmark: ``qare chain PROJECT METHOD`` cold, from the warm per-file cache,
and from the graph store (docs/callgraph.md "Graph store"), whole processes,
side by side with the raw tree-sitter parse floor of the same files.

Usage::

    python3 benchmarks/bench_chain.py --project DIR --method METHOD [--jobs 2] [--warm 3]
                                      [--no-floor] [-- extra qare chain options, e.g. --no-discover-classpath]

Rows (each one ``python -m qare chain`` process, start-up to exit; peak RSS of
that process and its workers from ``wait4``):

- ``cold``: an empty ``--cache`` in a fresh private folder (neither the warm
  per-file cache nor the graph store holds anything): parse, resolve, build,
  store;
- ``rows``: the graph store deleted, the per-file cache kept — what a warm
  ``qare chain`` cost before the store (rebuild from cached rows), and it
  stores the graph again;
- ``store`` (``--warm`` times): the answer from the stored graph;
- ``floor``: read + parse + one query over the same ``.java`` files in this
  process (``bench_callgraph.parse_floor``, CPU seconds on one core).

The stdout of every row is compared with the cold one (``same``). Wall times
on a shared machine are inflated by its load: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def run_chain(project: Path, method: str, cache: Path, jobs: int, extra) -> dict:
    """One ``qare chain`` process: wall seconds, CPU seconds, peak RSS (MB), stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "qare", "chain", str(project), method, "-q", "--jobs", str(jobs),
           "--cache", str(cache), *extra]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        _pid, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if p.returncode != 0:
        raise SystemExit(f"qare chain failed ({p.returncode}): {stderr[-2000:]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024, "stdout": stdout}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, required=True)
    ap.add_argument("--method", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--warm", type=int, default=3, help="answers from the store to time")
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("extra", nargs="*", help="more qare chain options (after --)")
    a = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-chain-") as tmp:
        os.chmod(tmp, 0o700)
        cache = Path(tmp) / "cache.sqlite"
        cold = run_chain(a.project, a.method, cache, a.jobs, a.extra)
        rows.append(("cold", cold))
        for suffix in ("", "-wal", "-shm"):
            p = Path(f"{cache}.graphs{suffix}")
            if p.exists():
                p.unlink()
        rows.append(("rows (no store)", run_chain(a.project, a.method, cache, a.jobs, a.extra)))
        for i in range(a.warm):
            rows.append((f"store {i + 1}", run_chain(a.project, a.method, cache, a.jobs, a.extra)))
        store_mb = os.path.getsize(f"{cache}.graphs") / 2 ** 20
    floor = None
    if not a.no_floor:
        from benchmarks.bench_callgraph import parse_floor

        floor = parse_floor(a.project)
    print(f"project {a.project}  method {a.method}  jobs {a.jobs}  extra {' '.join(a.extra) or '-'}  "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}  graph store {store_mb:.1f} MB")
    print(f"{'run':16s} {'wall s':>8s} {'CPU s':>8s} {'RSS MB':>8s}  output")
    for name, r in rows:
        same = "same" if r["stdout"] == cold["stdout"] else "DIFFERENT"
        print(f"{name:16s} {r['wall']:8.2f} {r['cpu']:8.2f} {r['rss']:8.0f}  {same} "
              f"({len(r['stdout'].splitlines())} lines)")
    if floor is not None:
        secs, n, lines = floor
        print(f"{'floor (1 core)':16s} {'-':>8s} {secs:8.2f} {'-':>8s}  {n} files, {lines} lines parsed")
    return 0 if all(r["stdout"] == cold["stdout"] for _, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
