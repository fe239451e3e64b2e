"""Classpath index speed: JDK open time, package count, lookups/s over java.base.

Usage: python3 benchmarks/bench_classpath.py [JDK_HOME ...] [--jar JAR ...]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from callgraph import classpath as cp  # noqa: E402
from callgraph.classpath import ClasspathIndex, Solved  # noqa: E402

DEFAULT_JDKS = ["/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64"]


def cpu_timed(fn):
    """(result, wall s, CPU s of this process): CPU time is the fairer figure on a busy machine."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def timed(fn):
    """(result, wall s)."""
    return cpu_timed(fn)[:2]


def bench_jdk(home: str) -> None:
    print(f"== JDK {home} (load average {os.getloadavg()[0]:.1f})")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["QARE_CACHE_DIR"] = cache
        cp._JDK_CACHE.clear()
        _, cold = timed(lambda: ClasspathIndex.open((), jdk=home))
        cp._JDK_CACHE.clear()
        _, disk = timed(lambda: ClasspathIndex.open((), jdk=home))
        ix, mem = timed(lambda: ClasspathIndex.open((), jdk=home))
    os.environ.pop("QARE_CACHE_DIR")
    print(f"open: cold {cold * 1000:.0f} ms | from disk cache {disk * 1000:.0f} ms | in-memory {mem * 1000:.0f} ms")
    print(f"packages: {len(ix.jdk_packages)}; classes indexed: {len(ix._owner)}; warnings: {len(ix.warnings)}")
    image = ix._sources[0]._image
    names = sorted(n for n in image.classes if image.module_of(n) == "java.base")
    fqns = [n.replace("/", ".") for n in names]
    _, t_has = timed(lambda: [ix.has_type(f) for f in fqns])
    results, t_look, c_look = cpu_timed(lambda: [ix.lookup_result(n) for n in names])
    _, t_hit = timed(lambda: [ix.lookup_result(n) for n in names])
    ix2 = ClasspathIndex.open((), jdk=home)
    _, t_shared = timed(lambda: [ix2.lookup_result(n) for n in names])
    solved = sum(isinstance(r, Solved) for r in results)
    methods = sum(len(r.type.methods) for r in results if isinstance(r, Solved))
    print(f"java.base: {len(names)} classes, {solved} types solved ({methods} methods), "
          f"{len(names) - solved} unsolved (anonymous/local/package-info)")
    print(f"first lookups: {len(names) / t_look:,.0f}/s wall ({t_look / len(names) * 1e6:.0f} µs each, "
          f"{t_look:.2f} s total); CPU {c_look / len(names) * 1e6:.0f} µs each")
    print(f"cached lookups: {len(names) / t_hit:,.0f}/s; a second index (JDK types shared): "
          f"{len(names) / t_shared:,.0f}/s; has_type: {len(fqns) / t_has:,.0f}/s")


def bench_jar(jar: str) -> None:
    print(f"== jar {jar}")
    ix, t = timed(lambda: ClasspathIndex.open([jar], jdk=None))
    names = list(ix._owner)
    res, tl = timed(lambda: [ix.lookup_result(n) for n in names])
    print(f"open {t * 1000:.1f} ms; {len(names)} classes; lookups {len(names) / tl:,.0f}/s; "
          f"library {next((r.type.library for r in res if isinstance(r, Solved)), None)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("jdks", nargs="*", default=DEFAULT_JDKS)
    ap.add_argument("--jar", action="append", default=["/usr/share/java/commons-lang3.jar"])
    a = ap.parse_args()
    for home in a.jdks:
        if Path(home, "lib", "modules").is_file():
            bench_jdk(home)
    for jar in a.jar:
        if Path(jar).is_file():
            bench_jar(jar)


if __name__ == "__main__":
    main()
