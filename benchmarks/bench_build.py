"""Times `qare build` on a project list; prints figures, asserts nothing.

Two modes::

    python3 benchmarks/bench_build.py [LIST] [--jobs N] [--repeat R]
    python3 benchmarks/bench_build.py --project DIR --copies 1,10,100 [--jobs 1,2] [--doc-cache cold|warm]
    python3 benchmarks/bench_build.py --whole LIST [--jobs 1,2] [--repeat R]

The first (LIST defaults to the bundled examples/projects.txt) builds in this
process: each repeat into a fresh folder (no resume), then once more into the
same folder to time a resumed build (merge only); per project: files,
candidates, samples, and the fetch/graph/methods/docs/total seconds from
projects.jsonl.

The second (scaling) copies DIR (without ``.git``) to N folders at distinct
paths, so each copy is its own list entry with its own key and its own warm
cache in ``OUT/.cache`` — every copy is really analysed, none resumed or
deduplicated — and runs one whole ``qare build`` process per (N, jobs) into a
fresh ``--out``. Printed per run: the load average at its start, process
wall, CPU seconds of all processes, peak RSS (the largest single process; the
``qare build`` process itself; the sum over the process tree sampled every
0.1 s — an upper bound: pages a forked worker, or a subprocess before its
exec, shares with the parent count twice; and the tree's PSS sum, which
splits shared pages between the processes), the seconds the build itself reports (manifest), the
process start-up and exit around it, the sum of every project's per-stage
seconds from projects.jsonl, the speed-up (wall of jobs 1 over wall of jobs J, same N), and the
raw-parse floor of the same files (``bench_callgraph.parse_floor``, one core,
times N); then, per jobs, the wall and CPU per project at each N and the
marginal cost of a project between consecutive N. ``--doc-cache cold`` gives every run an empty qare cache folder
(``QARE_CACHE_DIR``; the Maven repository stays the usual one through
``--maven-repo-local``), so the per-jar javadoc index cache starts empty;
``warm`` (default) uses the user's qare cache as it is, after one
unreported warm-up build of the first copy (jobs 1, into a scratch ``--out``;
always run, with ``cold`` into a scratch qare cache: it byte-compiles the
modules) so the per-jar doc-index entries and the leak check's common-word memo exist
before the first timed run — without it a cold cache made the first (N, jobs)
run pay for building them and the next one look faster than it is (a bogus
4.48x). With ``PYTHONDONTWRITEBYTECODE`` set (as in some sandboxes) every process
would compile qare's ~90 modules again — a cost no installed qare pays — so
the builds run without it, byte-compiled once into a scratch
``PYTHONPYCACHEPREFIX`` (``--no-bytecode`` keeps the compiling).
``--check`` compares
``samples.jsonl``/``apis.jsonl`` of every run with the first run of the same N
(they must be byte-identical whatever the jobs).

``--whole LIST`` times whole ``qare build`` processes on a project list as it
is (distinct real projects, say), the same way: one unreported warm-up build
(jobs 1: Maven resolutions, doc jars and doc-index entries in the caches),
then ``--repeat`` rounds of one run per jobs, interleaved, each into a fresh
``--out``; the same columns, and the speed-up of each round's runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure this checkout, not whatever is installed

STAGES = ("fetch", "classpath", "graph", "methods", "docs", "total")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("list", nargs="?", default=str(ROOT / "examples/projects.txt"))
    ap.add_argument("--jobs", default="1", help="jobs (scaling mode: comma-separated, e.g. 1,2)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-require-docs", action="store_true")
    ap.add_argument("--project", help="scaling mode: the project folder to copy")
    ap.add_argument("--whole", metavar="LIST", help="time whole qare build processes on this project list")
    ap.add_argument("--copies", default="1,10", help="scaling mode: comma-separated N")
    ap.add_argument("--doc-cache", choices=("cold", "warm"), default="warm")
    ap.add_argument("--check", action="store_true", help="scaling mode: compare samples/apis bytes across jobs")
    ap.add_argument("--keep", help="scaling mode: copy each run's --out here (for comparisons)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="scaling mode: keep PYTHONDONTWRITEBYTECODE (every process compiles qare's modules)")
    args = ap.parse_args()
    if args.project:
        scaling(args)
    elif args.whole:
        whole(args)
    else:
        in_process(args)


def in_process(args) -> None:
    from queries.build import BuildOptions, build_dataset

    jobs = int(args.jobs)
    opts = BuildOptions(require_docs=not args.no_require_docs)
    walls, resumed = [], []
    last = None
    rows: list = []
    for _ in range(args.repeat):
        out = Path(tempfile.mkdtemp(prefix="qare-bench-"))
        t = time.perf_counter()
        last = build_dataset(args.list, out, opts, jobs=jobs, quiet=True)
        walls.append(time.perf_counter() - t)
        t = time.perf_counter()
        build_dataset(args.list, out, opts, jobs=jobs, quiet=True)
        resumed.append(time.perf_counter() - t)
        rows = [json.loads(x) for x in (out / "projects.jsonl").read_text().splitlines()]
        shutil.rmtree(out)
    print(f"list {args.list}  jobs {jobs}  repeats {args.repeat}")
    print(f"full build   median {statistics.median(walls):.2f} s  (min {min(walls):.2f}, max {max(walls):.2f})")
    print(f"resumed      median {statistics.median(resumed):.2f} s  (merge only)")
    print(f"samples {last.counts.get('samples', 0)}  APIs {last.counts.get('apis', 0)}  "
          f"candidates {last.counts.get('candidates', 0)}")
    print(f"{'project':<40} {'files':>6} {'cand':>6} {'samples':>7} {'fetch':>6} {'graph':>6} {'meth':>6} {'docs':>6} {'total':>6}")
    for r in rows:
        c, tm = r["counts"], r["timings"]
        print(f"{r['project'][:40]:<40} {c.get('files', 0):>6} {c.get('candidates', 0):>6} {c.get('samples', 0):>7} "
              + " ".join(f"{tm.get(k, 0):>6.2f}" for k in ("fetch", "graph", "methods", "docs", "total")))


# ------------------------------------------------------------------ scaling


def _parent_rss_kib(pid: int) -> int:
    """VmRSS (KiB) of the ``qare build`` process itself (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next((int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS:")), 0)
    except (OSError, ValueError):
        return 0


def _run_build(listfile: Path, out: Path, jobs: int, env: dict, extra: list[str]) -> dict:
    load = os.getloadavg()[0]
    cmd = [sys.executable, "-m", "qare", "build", str(listfile), "--out", str(out), "-q", "--jobs", str(jobs),
           *extra]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    from bench_callgraph import _tree_rss  # (RSS, PSS) bytes of a process tree

    peak = [0, 0, 0]  # RSS sum, PSS sum, the parent's own RSS (KiB / bytes as named below)
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            rss, pss = _tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            peak[2] = max(peak[2], _parent_rss_kib(proc.pid))
            stop.wait(0.1)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t
    stop.set()
    th.join()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"qare build failed ({proc.returncode}): {stderr[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [json.loads(x) for x in (out / "projects.jsonl").read_text().splitlines()]
    stages = {k: sum(r["timings"].get(k, 0) or 0 for r in rows) for k in STAGES}
    return {
        "wall": wall, "cpu": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime),
        "rss_max_mb": r1.ru_maxrss / 1024, "rss_tree_mb": peak[0] / (1 << 20), "pss_tree_mb": peak[1] / (1 << 20),
        "rss_parent_mb": peak[2] / 1024, "load": load, "build_s": manifest["seconds"],
        "stages": stages, "samples": manifest["counts"].get("samples", 0),
        "kept": manifest["counts"].get("kept", 0), "failed": manifest["counts"].get("failed", 0),
        "digest": {n: hashlib.sha256((out / n).read_bytes()).hexdigest()[:12] for n in ("samples.jsonl", "apis.jsonl")},
    }


def scaling(args) -> None:
    from bench_callgraph import parse_floor  # same folder: the floor code lives there

    copies = [int(x) for x in args.copies.split(",") if x.strip()]
    jobs_list = [int(x) for x in args.jobs.split(",") if x.strip()]
    src = Path(args.project).resolve()
    with tempfile.TemporaryDirectory(prefix="qare-bench-scale-") as tmp:
        tmp = Path(tmp)
        base = tmp / "copies"
        one = base / "p000"
        shutil.copytree(src, one, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        floor_cpu, files, lines = parse_floor(one)
        for i in range(1, max(copies)):
            shutil.copytree(one, base / f"p{i:03d}", symlinks=True)
        print(f"project {src}: {files} .java files, {lines} lines; raw-parse floor {floor_cpu:.2f} CPU-s per copy (1 core)")
        print(f"load average {os.getloadavg()[0]:.1f} (2-core machine shared with other work: wall times inflated "
              f"under load); doc-index cache {args.doc_cache}")
        # as an installed qare runs: byte-compiled once (the warm-up) into a scratch prefix, not
        # the checkout; else every timed process compiles ~90 modules again (~0.2-0.5 s each)
        env = _build_env(tmp, args.no_bytecode)
        if "PYTHONPYCACHEPREFIX" in env:
            print("PYTHONDONTWRITEBYTECODE dropped for the builds: modules byte-compiled once into a scratch "
                  "PYTHONPYCACHEPREFIX (--no-bytecode to keep compiling in every process)")
        extra: list[str] = []
        if args.doc_cache == "cold":
            from callgraph.classpath import cache_dir

            repo = (cache_dir() or Path.home() / ".cache/qare") / "m2" / "repository"
            extra = ["--maven-repo-local", str(repo)]
        # fill the caches the timed runs use (module docstring); cold: only the byte-compiled modules
        warm_env = dict(env)
        if args.doc_cache == "cold":
            (tmp / "qare-cache-warm").mkdir(mode=0o700)
            warm_env["QARE_CACHE_DIR"] = str(tmp / "qare-cache-warm")
        warm_list = tmp / "list-warm.txt"
        warm_list.write_text(f"{base / 'p000'}\n")
        w = _run_build(warm_list, tmp / "out-warm", 1, warm_env, extra)
        shutil.rmtree(tmp / "out-warm")
        print(f"warm-up build of one copy (not reported below): {w['wall']:.1f} s wall, docs {w['stages']['docs']:.1f} s")
        head = (f"{'N':>4} {'jobs':>4} {'load':>5} {'wall s':>7} {'CPU s':>7} {'speedup':>7} {'RSS max':>7} "
                f"{'parent':>6} {'RSS sum':>7} {'PSS sum':>7} {'build s':>7} {'start+exit':>10} {'floor xN':>8}  "
                "per-stage sums (s)  samples  digest")
        results = []
        for n in copies:
            listfile = tmp / f"list-{n}.txt"
            listfile.write_text("".join(f"{base / f'p{i:03d}'}\n" for i in range(n)))
            first = None
            of_n = {}
            for j in jobs_list:
                out = tmp / f"out-{n}-{j}"
                run_env = dict(env)
                if args.doc_cache == "cold":
                    qc = tmp / f"qare-cache-{n}-{j}"
                    qc.mkdir(mode=0o700)
                    run_env["QARE_CACHE_DIR"] = str(qc)
                r = _run_build(listfile, out, j, run_env, extra)
                if args.keep:
                    shutil.copytree(out, Path(args.keep) / out.name, dirs_exist_ok=True)
                first = first or r
                r["same"] = r["digest"] == first["digest"]
                of_n[j] = r
                results.append((n, j, r))
                print(_row(n, j, r, floor_cpu), flush=True)
                shutil.rmtree(out)
            one = of_n.get(1)
            for r in of_n.values():  # wall of jobs 1 over wall of jobs J (None without a jobs-1 run)
                r["speedup"] = one["wall"] / r["wall"] if one else None
        print(head)
        for n, j, r in results:
            print(_row(n, j, r, floor_cpu))
        _linearity(results)
        if args.check:
            bad = [(n, j) for n, j, r in results if not r["same"]]
            print("samples/apis identical across jobs: " + ("yes" if not bad else f"NO for {bad}"))
        print(f"load average after {os.getloadavg()[0]:.1f}")


def _build_env(tmp: Path, no_bytecode: bool) -> dict:
    """The builds' environment: this checkout first; byte-compiled once into a scratch prefix (module docstring)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if env.pop("PYTHONDONTWRITEBYTECODE", None) and not no_bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    elif no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def whole(args) -> None:
    """``--whole LIST``: interleaved whole-process builds of the list with each jobs (module docstring)."""
    jobs_list = [int(x) for x in args.jobs.split(",") if x.strip()]
    listfile = Path(args.whole).resolve()
    n = len([ln for ln in listfile.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")])
    with tempfile.TemporaryDirectory(prefix="qare-bench-whole-") as tmp:
        tmp = Path(tmp)
        env = _build_env(tmp, args.no_bytecode)
        w = _run_build(listfile, tmp / "out-warm", 1, env, [])
        shutil.rmtree(tmp / "out-warm")
        print(f"list {listfile}: {n} entries; load average {os.getloadavg()[0]:.1f}; warm-up build (not reported): "
              f"{w['wall']:.1f} s wall, {w['cpu']:.1f} CPU-s, {w['kept']} kept, {w['failed']} failed")
        results = []
        for rnd in range(args.repeat):
            of_round = {}
            for j in jobs_list:
                out = tmp / f"out-{rnd}-{j}"
                r = _run_build(listfile, out, j, env, [])
                r["same"] = r["digest"] == (results[0][2] if results else r)["digest"]
                of_round[j] = r
                results.append((n, j, r))
                shutil.rmtree(out)
            for r in of_round.values():
                r["speedup"] = of_round[1]["wall"] / r["wall"] if 1 in of_round else None
            for j, r in of_round.items():
                print(_row(n, j, r, 0.0), flush=True)
        print("samples/apis identical across runs: " + ("yes" if all(r["same"] for _, _, r in results) else "NO"))
        print(f"load average after {os.getloadavg()[0]:.1f}")


def _row(n: int, j: int, r: dict, floor_cpu: float) -> str:
    st = " ".join(f"{k} {r['stages'][k]:.1f}" for k in STAGES)
    sp = r.get("speedup")
    return (f"{n:>4} {j:>4} {r['load']:>5.1f} {r['wall']:>7.1f} {r['cpu']:>7.1f} "
            f"{(f'{sp:.2f}x' if sp else '-'):>7} {r['rss_max_mb']:>7.0f} {r['rss_parent_mb']:>6.0f} "
            f"{r['rss_tree_mb']:>7.0f} {r['pss_tree_mb']:>7.0f} {r['build_s']:>7.1f} {r['wall'] - r['build_s']:>10.1f} "
            f"{floor_cpu * n:>8.2f}  {st}  {r['samples']} ({r['kept']} kept, {r['failed']} failed)  "
            f"{r['digest']['samples.jsonl']}/{r['digest']['apis.jsonl']}")


def _linearity(results) -> None:
    """Per jobs, wall and CPU per project at each N, and the marginal cost of
    a project between consecutive N (linear when the marginal cost stays flat
    and the fixed part — the N = 1 figure minus one marginal project — does
    not grow)."""
    by_j: dict[int, list] = {}
    for n, j, r in results:
        by_j.setdefault(j, []).append((n, r))
    for j, rows in sorted(by_j.items()):
        rows.sort(key=lambda x: x[0])
        parts = [f"N={n}: {r['wall'] / n:.2f} s wall, {r['cpu'] / n:.2f} CPU-s per project" for n, r in rows]
        for (n0, a), (n1, b) in zip(rows, rows[1:]):
            parts.append(f"marginal {n0}->{n1}: {(b['wall'] - a['wall']) / (n1 - n0):.2f} s wall, "
                         f"{(b['cpu'] - a['cpu']) / (n1 - n0):.2f} CPU-s per project")
        print(f"jobs {j}: " + "; ".join(parts))


if __name__ == "__main__":
    main()
