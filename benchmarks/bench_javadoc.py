"""Reading speed of the javadoc reader on the real sites of the tests.

Prints, per site: layout, class pages, members, wall and CPU seconds,
pages/s and members/s by wall clock (best of ``--repeat`` runs), serially
and with a process pool, and by CPU time for serial runs (the figure that
holds on a busy machine). Sites come from .cache/test-inputs/javadoc (made by
scripts/install-test-deps.sh); also a -javadoc.jar zipped from the largest
site, the fixture sources and commons-lang3's sources (rebuilt from the
site's src-html pages; rows in "pages" count .java files).

    python3 benchmarks/bench_javadoc.py [--repeat 3] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from javadoc import read_site, read_sources

SITES = [
    "libcommons-digester-java-doc", "libanimal-sniffer-java-doc", "libcommons-math3-java-doc",
    "libcommons-codec-java-doc", "libcommons-io-java-doc", "libjsoup-java-doc",
    "libcommons-lang3-java-doc", "libjackson2-annotations-java-doc",
]


def _site(pkg: str) -> Path:
    lib = pkg[: -len("-doc")]
    return REPO / ".cache" / "test-inputs" / "javadoc" / pkg / "usr" / "share" / "doc" / lib / "api"


def _time(fn, repeat):
    best = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        ds = fn()
        w, c = time.perf_counter() - w, time.process_time() - c
        if best is None or w < best[1]:
            best = (ds, w, c)
    return best


def _row(name, ds, wall, cpu, jobs):
    layout = ds.layout.value if ds.layout else "-"
    print(f"{name:42s} {layout:7s} {jobs:>4d} {ds.pages:>6d} {len(ds.members):>8d} {wall:>7.2f} {cpu:>7.2f} "
          f"{ds.pages / wall:>8.0f} {len(ds.members) / wall:>10.0f}"
          + (f" {ds.pages / cpu:>10.0f} {len(ds.members) / cpu:>12.0f}" if jobs == 1 and cpu > 0 else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}; best of {args.repeat}; "
          "cpu = this process only (pool workers not counted)")
    print(f"{'input':42s} {'layout':7s} {'jobs':>4s} {'pages':>6s} {'members':>8s} {'wall s':>7s} {'cpu s':>7s} "
          f"{'pages/s':>8s} {'members/s':>10s} {'pages/cpu-s':>10s} {'members/cpu-s':>12s}")
    largest = None
    for pkg in SITES:
        root = _site(pkg)
        if not root.is_dir():
            print(f"{pkg:42s} missing (run scripts/install-test-deps.sh)")
            continue
        for jobs in sorted({1, args.jobs}):
            ds, wall, cpu = _time(lambda r=root, j=jobs: read_site(str(r), workers=j), args.repeat)
            _row(pkg, ds, wall, cpu, jobs)
        if largest is None or ds.pages > largest[1]:
            largest = (root, ds.pages, pkg)
    if largest:
        with tempfile.TemporaryDirectory() as tmp:
            jar = Path(tmp) / "site-javadoc.jar"
            with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as zf:
                for f in largest[0].rglob("*"):
                    if f.is_file():
                        zf.write(f, f.relative_to(largest[0]).as_posix())
            for jobs in sorted({1, args.jobs}):
                ds, wall, cpu = _time(lambda j=jobs: read_site(str(jar), workers=j), args.repeat)
                _row(f"{largest[2]} (as -javadoc.jar)", ds, wall, cpu, jobs)
    src = REPO / "fixtures" / "javadoc" / "src"
    ds, wall, cpu = _time(lambda: read_sources(str(src)), args.repeat)
    _row("fixtures/javadoc/src (sources)", ds, wall, cpu, 1)
    lang3 = _site("libcommons-lang3-java-doc")
    if (lang3 / "src-html").is_dir():
        # commons-lang3's own sources, rebuilt from the site's src-html pages
        from lxml import etree

        with tempfile.TemporaryDirectory() as tmp:
            for page in (lang3 / "src-html").rglob("*.html"):
                if "." in page.stem:
                    continue  # a nested type's page repeats its outer file
                doc = etree.parse(str(page), etree.HTMLParser(no_network=True, encoding="utf-8"))
                lines = ["".join(x.itertext()) for x in doc.iter("span")
                         if (x.get("id") or "").startswith("line-")]
                dest = Path(tmp) / page.relative_to(lang3 / "src-html").with_suffix(".java")
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
            ds, wall, cpu = _time(lambda: read_sources(tmp), args.repeat)
            _row("commons-lang3 sources (from src-html)", ds, wall, cpu, 1)


if __name__ == "__main__":
    main()
