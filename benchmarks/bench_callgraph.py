"""Benchmark: the call graph of the JDK's own ``java.base`` sources.

Extracts module ``java.base`` (or every module with ``--all``) from the JDK's
``lib/src.zip`` into a temporary folder, builds the graph with
``callgraph.build_project_graph`` and prints files, lines, files/s, lines/s,
wall time, peak RSS (this process and its workers) and the share of call sites
per resolution kind.

Usage::

    python3 benchmarks/bench_callgraph.py [--src-zip PATH] [--module java.base | --all]
                                          [--jobs 2] [--jdk auto] [--profile out.prof]
    python3 benchmarks/bench_callgraph.py --modes floor,cold,warm,edit [--project DIR] [--jobs 2]

``--modes`` times whole ``qare graph --out g.json`` processes (start-up to
exit, peak RSS of all processes) side by side with the raw tree-sitter floor
measured in the same run: ``floor`` = read + parse + one query over the same
files on one core; ``cold`` = empty warm cache (``--cache`` in a temporary
folder); ``warm`` = the same again; ``edit`` = one method body changed (a
statement added to the first method of one file) — the cache counts say how
many files were re-parsed and re-resolved. ``--project`` benchmarks a folder
(e.g. spring-framework; its libraries with ``--discover-classpath``) instead of src.zip.
``--memory`` adds, per mode, the peak memory of each phase: the process
tree is sampled every 50 ms and each sample falls in the phase its time
since start does (the ``phases:`` line's wall times, in their order).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import zipfile
from pathlib import Path

# measure this checkout, not whatever `callgraph` is installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_ZIP = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"
MAX_ENTRIES = 200_000
MAX_BYTES = 2_000_000_000


def extract(src_zip: Path, dest: Path, module: str | None) -> int:
    """Extract the ``.java`` entries of one module (or all) with size and path limits."""
    n, total = 0, 0
    with zipfile.ZipFile(src_zip) as z:
        infos = z.infolist()
        if len(infos) > MAX_ENTRIES:
            raise SystemExit(f"{src_zip}: too many entries ({len(infos)})")
        for info in infos:
            name = info.filename
            if not name.endswith(".java") or name.startswith("/") or ".." in Path(name).parts:
                continue
            if module is not None and not name.startswith(module + "/"):
                continue
            total += info.file_size
            if total > MAX_BYTES:
                raise SystemExit("src.zip expands to more than the size limit")
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))
            n += 1
    return n


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src-zip", default=DEFAULT_ZIP)
    ap.add_argument("--module", default="java.base")
    ap.add_argument("--all", action="store_true", help="every module of src.zip")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--jdk", default="auto", help="JDK home for library lookups ('none' for none)")
    ap.add_argument("--profile", help="write a cProfile of the main process here")
    ap.add_argument("--modes", help="comma-separated floor,cold,warm,edit: whole-process timings (see above)")
    ap.add_argument("--project", help="with --modes: a project folder instead of src.zip")
    ap.add_argument("--memory", action="store_true",
                    help="with --modes: peak PSS (all processes) and largest RSS of each phase")
    ap.add_argument("--discover-classpath", action="store_true",
                    help="with --project: let qare resolve the project's libraries (default: sources and JDK only)")
    a = ap.parse_args(argv)
    if a.modes:
        return run_modes(a)

    from callgraph import build_project_graph

    with tempfile.TemporaryDirectory(prefix="bench-cg-") as tmp:
        root = Path(tmp) / "src"
        t = time.perf_counter()
        n = extract(Path(a.src_zip), root, None if a.all else a.module)
        print(f"extracted {n} files in {time.perf_counter() - t:.1f} s")
        prof = None
        if a.profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        load0 = f"{os.getloadavg()[0]:.1f}"
        t0 = time.perf_counter()
        pg = build_project_graph(root, jobs=a.jobs, jdk=None if a.jdk == "none" else a.jdk,
                                 progress=sys.stderr.isatty())
        wall = time.perf_counter() - t0
        if prof is not None:
            prof.disable()
            prof.dump_stats(a.profile)
        s = pg.summary
        own, kids = peak_rss_mb()
        print(f"module: {'all' if a.all else a.module}  jobs: {a.jobs}")
        print(f"files: {s.files}  lines: {s.lines}  methods: {s.methods}  "
              f"nodes: {pg.graph.number_of_nodes()}  edges: {pg.graph.number_of_edges()}")
        print(f"wall: {wall:.1f} s  files/s: {s.files / wall:.0f}  lines/s: {s.lines / wall:.0f}")
        print("phases (wall): " + "  ".join(f"{k} {v:.1f} s" for k, v in s.phases.items() if "cpu" not in k))
        print("phases (CPU, all processes): "
              + "  ".join(f"{k[:-4]} {v:.1f} s" for k, v in s.phases.items() if k.endswith("_cpu")))
        print(f"load average before/after: {load0} / {os.getloadavg()[0]:.1f}")
        print(f"peak RSS: main {own:.0f} MB, largest worker {kids:.0f} MB")
        print(f"call sites: {s.call_sites}")
        for k, v in list(s.resolved.items()) + [("unresolved", s.unresolved)]:
            print(f"  {k:10s} {v:8d}  {v / max(s.call_sites, 1):6.1%}")
        print(f"  resolved share (exact+arity+local): {s.resolved_share():.1%}   cha edges: {s.cha_edges}")
        print("top reasons:")
        for r, c in s.top_reasons:
            print(f"  {c:7d}  {r}  (e.g. {s.examples.get(r, '-')})")
        print(f"parse errors: {len(s.parse_errors)} files; skipped: {len(s.skipped)}; "
              f"fallback-decoded: {len(s.decoded_with_fallback)}")
        for f, why in s.skipped[:10]:
            print(f"  skipped {f}: {why}")
    return 0


def parse_floor(root: Path) -> tuple[float, int, int]:
    """Read + tree-sitter parse + one query (method invocations) over every
    ``.java`` file under ``root`` in this process: ``(CPU seconds, files, lines)``."""
    import tree_sitter

    from callgraph._facts import JAVA

    parser = tree_sitter.Parser(JAVA)
    query = tree_sitter.Query(JAVA, "(method_invocation name: (identifier) @n)")
    paths = sorted(root.rglob("*.java"))
    t = time.process_time()  # CPU seconds: the floor's wall time is the load's, not the parser's
    lines = 0
    for p in paths:
        src = p.read_bytes()
        lines += src.count(b"\n")
        tree = parser.parse(src)
        tree_sitter.QueryCursor(query).captures(tree.root_node)
    return time.process_time() - t, len(paths), lines


def _edit_one_body(root: Path) -> str:
    """Add a call to the first method body of the first file qare reads that has
    one (the files ``qare graph`` discovers: an edit of a file it skips, such as
    spring-framework's ``buildSrc/``, changes nothing and was timed as a warm run)."""
    import tree_sitter

    from callgraph._discover import discover_sources
    from callgraph._facts import JAVA

    parser = tree_sitter.Parser(JAVA)
    files, _ = discover_sources(root)
    for p in sorted(Path(f.path) for f in files):
        src = p.read_bytes()
        stack = [parser.parse(src).root_node]
        while stack:
            n = stack.pop()
            if n.type == "method_declaration" and n.child_by_field_name("body") is not None:
                at = n.child_by_field_name("body").start_byte + 1
                p.write_bytes(src[:at] + b"\n        System.nanoTime();" + src[at:])
                return str(p.relative_to(root))
            stack.extend(reversed(n.children))
    raise SystemExit("no method body to edit")


def _qare_graph(root: Path, out: Path, cache: Path, jobs: int, extra=(), memory: bool = False) -> dict:
    import re
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cmd = [sys.executable, "-m", "qare", "graph", str(root), "--out", str(out), "-q", "--jobs", str(jobs),
           "--cache", str(cache), *extra]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        proc = subprocess.Popen(cmd, env=env, stdout=so, stderr=se, text=True)
        timeline: list | None = [] if memory else None
        total_rss, total_pss = _sample_tree_rss(proc, 0.05 if memory else 0.1, timeline)
        so.seek(0)
        se.seek(0)
        r = subprocess.CompletedProcess(cmd, proc.returncode, so.read(), se.read())
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        raise SystemExit(f"qare graph failed ({r.returncode}): {r.stderr[-2000:]}")
    phases = next((ln for ln in r.stdout.splitlines() if ln.startswith("phases: ")), "")
    import sqlite3  # noqa: F401  (the counts come from the summary line below)

    return {"wall": wall, "cpu": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime),
            "rss": r1.ru_maxrss / 1024, "rss_all": total_rss / (1 << 20), "pss_all": total_pss / (1 << 20),
            "phases": phases, "sha": _sha(out), "by_phase": _by_phase(timeline, phases) if memory else None,
            "edges": re.search(r"graph: \d+ nodes, (\d+) edges", r.stdout).group(1)}


def _tree_rss(pid: int, largest: list | None = None) -> tuple[int, int]:
    """``(RSS, PSS)`` bytes of ``pid`` and its descendants now (Linux /proc;
    0 elsewhere). RSS counts a page shared after fork once per process (an
    upper bound); PSS (``smaps_rollup``) splits it between the processes
    sharing it, so its sum is the memory they really hold together.
    ``largest``: ``[bytes]``, raised to the largest single process's RSS."""
    pids, seen, rss, pss = [pid], set(), 0, 0
    while pids:
        p = pids.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/statm") as fh:
                one = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            rss += one
            if largest is not None:
                largest[0] = max(largest[0], one)
            try:
                with open(f"/proc/{p}/smaps_rollup") as fh:
                    pss += next(int(ln.split()[1]) for ln in fh if ln.startswith("Pss:")) * 1024
            except (OSError, StopIteration, ValueError):
                pass
            with open(f"/proc/{p}/task/{p}/children") as fh:
                pids.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            continue
    return rss, pss


def _sample_tree_rss(proc, every: float = 0.1, timeline: list | None = None) -> tuple[int, int]:
    """Wait for ``proc``; the largest ``(RSS, PSS)`` of it and its workers
    together (each its own peak), sampled every ``every`` seconds; with
    ``timeline``, ``(seconds since start, PSS all, largest RSS)`` of each
    sample is appended to it."""
    peak, peak_pss = 0, 0
    t0 = time.perf_counter()
    while proc.poll() is None:
        largest = [0]
        rss, pss = _tree_rss(proc.pid, largest)
        peak, peak_pss = max(peak, rss), max(peak_pss, pss)
        if timeline is not None:
            timeline.append((time.perf_counter() - t0, pss, largest[0]))
        time.sleep(every)
    return peak, peak_pss


def _by_phase(timeline: list, phases_line: str) -> list:
    """``[(phase, peak PSS all processes, largest RSS)]`` (bytes) from a
    sampled ``timeline``: the wall phases of ``qare graph``'s ``phases:``
    line run in their order from the process's start, so a sample at ``t``
    falls in the phase whose running sum first passes ``t`` (start-up of the
    interpreter before the first phase counts in ``startup``)."""
    import re

    wall = phases_line.split(";")[0]
    ends, t = [], 0.0
    for name, secs in re.findall(r"([a-z][a-z ]*?) ([\d.]+) s", wall.removeprefix("phases: ")):
        t += float(secs)
        ends.append((t, name))
    peaks: dict = {name: [0, 0] for _t, name in ends}
    peaks["after"] = [0, 0]
    for ts, pss, rss in timeline:
        name = next((n for end, n in ends if ts <= end), "after")
        peaks[name] = [max(peaks[name][0], pss), max(peaks[name][1], rss)]
    return [(n, p, r) for n, (p, r) in peaks.items() if p or r]


def _sha(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()[:12]


def run_modes(a) -> int:
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-cg-") as tmp:
        tmp = Path(tmp)
        if a.project:
            import shutil

            root = tmp / "src"
            shutil.copytree(a.project, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            extra = [] if a.discover_classpath else ["--no-discover-classpath"]
        else:
            root = tmp / "src"
            extract(Path(a.src_zip), root, None if a.all else a.module)
            extra = ["--no-discover-classpath"]
        cache = tmp / "cache.sqlite"
        print(f"load average: {os.getloadavg()[0]:.1f} (2-core machine shared: wall times inflated under load)")
        rows = []
        memory_rows = []
        floor = None
        if "floor" in modes:
            secs, n, lines = parse_floor(root)
            floor = secs
            rows.append(("floor (1 core)", float("nan"), secs, 0.0, f"{n} files, {lines} lines", ""))
        for m in modes:
            if m == "floor":
                continue
            if m == "edit":
                print(f"edit: one method body in {_edit_one_body(root)}")
            if m == "cold" and cache.exists():
                cache.unlink()
            r = _qare_graph(root, tmp / f"{m}.json", cache, a.jobs, extra, a.memory)
            rows.append((f"{m} (jobs {a.jobs})", r["wall"], r["cpu"], r["rss"],
                         f"{r['edges']} edges sha {r['sha']}; all processes RSS {r['rss_all']:.0f} MB, "
                         f"PSS {r['pss_all']:.0f} MB", r["phases"]))
            if r["by_phase"]:
                memory_rows.append((f"{m} (jobs {a.jobs})", r["by_phase"]))
        # xfloor compares CPU seconds (all processes) with the floor's CPU seconds:
        # on a shared machine wall times measure the load as much as the tool
        # RSS MB: the largest single process; "all processes" in the output column
        print(f"{'mode':16s} {'wall s':>8s} {'CPU s':>8s} {'CPU xfloor':>10s} {'RSS MB':>7s}  output")
        for name, wall, cpu, rss, what, _ph in rows:
            ratio = f"{cpu / floor:.2f}" if floor else "-"
            print(f"{name:16s} {wall:8.1f} {cpu:8.1f} {ratio:>10s} {rss:7.0f}  {what}")
        for name, *_rest, ph in rows:
            if ph:
                print(f"  {name}: {ph}")
        for name, by in memory_rows:
            print(f"  {name} memory by phase (peak PSS all processes / largest process RSS, MB): "
                  + ", ".join(f"{n} {p / (1 << 20):.0f}/{r / (1 << 20):.0f}" for n, p, r in by))
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
