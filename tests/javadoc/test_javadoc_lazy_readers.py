"""The javadoc package loads its readers (site: lxml; sources: javalang,
tree-sitter) when an archive is first read, not when imported: a build whose
doc jars all come from the doc-index cache never loads them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_importing_the_package_or_opening_the_store_loads_no_reader():
    out = _run("import sys, javadoc\n"
               "from javadoc import DocIndex, DocSetStore, read_any\n"
               "print(sorted(m for m in ('javadoc._site', 'javadoc._sources', 'javadoc._text') if m in sys.modules))")
    assert out == "[]"


def test_the_readers_are_there_when_asked_for():
    out = _run("import javadoc\n"
               "from javadoc import read_site, read_sources\n"
               "from javadoc._site import read_site as s\n"
               "from javadoc._sources import read_sources as r\n"
               "print(read_site is s, read_sources is r, hasattr(javadoc, 'nope'))")
    assert out == "True True False"
