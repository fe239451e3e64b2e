"""Benchmark: the call graph of the JDK's own ``java.base`` sources.

Extracts module ``java.base`` (or every module with ``--all``) from the JDK's
``lib/src.zip`` into a temporary folder, builds the graph with
``callgraph.build_project_graph`` and prints files, lines, files/s, lines/s,
wall time, peak RSS (this process and its workers) and the share of call sites
per resolution kind.

Usage::

    python3 benchmarks/bench_callgraph.py [--src-zip PATH] [--module java.base | --all]
                                          [--jobs 2] [--jdk auto] [--profile out.prof]
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
    a = ap.parse_args(argv)

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


if __name__ == "__main__":
    sys.exit(main())
