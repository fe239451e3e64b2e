"""Benchmark: the warm build cache's per-dependent invalidation (callgraph._deps).

Copies a project (default: JDK ``java.base`` from ``lib/src.zip``) to a
temporary folder and builds its call graph in this process with
``build_project_graph(cache=<temporary file>)``, timing one build per step:

- ``cold``: empty cache;
- ``warm``: nothing changed;
- ``body``: one statement added to the first method body of the first analysed file;
- ``signature``: a parameter added to that method (its callers change);
- ``new-class``: a new class in that file's package (names it might shadow).

Each step prints wall and CPU seconds (this process and its workers), the
build's phases, the cache counts (``resolved_misses`` = files resolved
again, ``resolved_verified`` = stored rows whose look-ups were replayed and
held), and whether the graph's node-link bytes equal a cold build of the same
sources (``--check``: one more cold build per step, slow). The raw tree-sitter
floor (read + parse + one query on one core) is printed beside them.

Usage::

    python3 benchmarks/bench_cache_deps.py [--project DIR] [--src-zip PATH] [--jobs 2] [--check]
                                           [--jdk auto|none] [--profile-step STEP --profile OUT]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_callgraph import DEFAULT_ZIP, extract, parse_floor  # noqa: E402


def _cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def _first_method(root: Path):
    import tree_sitter

    from callgraph._facts import JAVA

    from callgraph._discover import discover_sources

    parser = tree_sitter.Parser(JAVA)
    # a file the build analyses (discovery leaves out build logic such as buildSrc)
    for p in sorted(Path(sf.path) for sf in discover_sources(root)[0]):
        src = p.read_bytes()
        stack = [parser.parse(src).root_node]
        while stack:
            n = stack.pop()
            if n.type == "method_declaration" and n.child_by_field_name("body") is not None:
                return p, src, n
            stack.extend(reversed(n.children))
    raise SystemExit("no method to edit")


def _edit_body(root: Path) -> str:
    """Add a statement to the first method body of the first analysed file that has one."""
    p, src, n = _first_method(root)
    at = n.child_by_field_name("body").start_byte + 1
    p.write_bytes(src[:at] + b"\n        System.nanoTime();" + src[at:])
    return str(p.relative_to(root))


def _edit_signature(root: Path) -> str:
    """Add a parameter to the first method of the first file that has one."""
    p, src, n = _first_method(root)
    params = n.child_by_field_name("parameters")
    at = params.end_byte - 1
    sep = b", " if params.named_child_count else b""
    p.write_bytes(src[:at] + sep + b"int qareBenchAdded" + src[at:])
    return str(p.relative_to(root))


def _add_class(root: Path) -> str:
    """A new public class in the package of the first file with a method."""
    p, src, _n = _first_method(root)
    import re

    m = re.search(rb"^\s*package\s+([\w.]+)\s*;", src, re.M)
    pkg = m.group(1).decode() if m else None
    q = p.parent / "QareBenchAdded.java"
    q.write_text((f"package {pkg};\n" if pkg else "") + "public class QareBenchAdded {\n"
                 "    public void run() {\n    }\n}\n")
    return str(q.relative_to(root))


def _bytes(pg) -> bytes:
    from qare.cmd_callgraph import write_node_link_json

    buf = io.StringIO()
    write_node_link_json(pg.graph, buf)
    return buf.getvalue().encode()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", type=Path)
    ap.add_argument("--src-zip", default=DEFAULT_ZIP)
    ap.add_argument("--module", default="java.base")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--jdk", default="auto")
    ap.add_argument("--check", action="store_true", help="compare each step's graph with a cold build")
    ap.add_argument("--steps", default="cold,warm,body,signature,new-class")
    ap.add_argument("--profile-step", help="cProfile this step (in this process; jobs 1 recommended)")
    ap.add_argument("--profile", type=Path, help="where the profile of --profile-step goes")
    a = ap.parse_args(argv)

    from callgraph import build_project_graph

    jdk = None if a.jdk == "none" else a.jdk
    with tempfile.TemporaryDirectory(prefix="bench-deps-") as tmp:
        tmp = Path(tmp)
        root = tmp / "src"
        if a.project:
            shutil.copytree(a.project, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        else:
            extract(Path(a.src_zip), root, a.module)
        cache = tmp / "cache.sqlite"
        print(f"load average: {os.getloadavg()[0]:.1f} (2-core machine shared: wall times inflated under load)")
        floor, n, lines = parse_floor(root)
        print(f"floor (1 core): {floor:.1f} CPU-s, {n} files, {lines} lines")
        edits = {"body": _edit_body, "signature": _edit_signature, "new-class": _add_class}
        cold_cpu = None
        for step in [s.strip() for s in a.steps.split(",") if s.strip()]:
            what = edits[step](root) if step in edits else ""
            prof = None
            if step == a.profile_step:
                import cProfile

                prof = cProfile.Profile()
                prof.enable()
            t, c = time.perf_counter(), _cpu()
            pg = build_project_graph(root, auto_classpath=False, jdk=jdk, jobs=a.jobs, cache=cache)
            wall, cpu = time.perf_counter() - t, _cpu() - c
            if prof is not None:
                prof.disable()
                prof.dump_stats(str(a.profile))
            if step == "cold":
                cold_cpu = cpu
            s = pg.summary
            share = f", {100 * cpu / cold_cpu:.0f} % of cold CPU" if cold_cpu else ""
            print(f"{step:10s} {what}: {wall:.1f} s wall, {cpu:.1f} CPU-s{share}, cache {s.cache}")
            print(f"           phases {s.phases}")
            if a.check and step != "cold":
                same = _bytes(pg) == _bytes(build_project_graph(root, auto_classpath=False, jdk=jdk, jobs=a.jobs))
                print(f"           graph bytes equal a cold build: {same}")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
