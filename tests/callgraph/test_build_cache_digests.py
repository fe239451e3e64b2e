"""The warm cache's facts keys reuse the digests of the graph store's
fingerprint (callgraph._build.remember_digests) only under the stat rule:
same size, mtime, ctime, inode and device, and timestamps older than the
fingerprint by more than the racy window; otherwise the file is hashed."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

import callgraph._build as build_mod
from callgraph import build_project_graph

A = """package p;
public class A {
    int f() { return 1; }
}
"""


@pytest.fixture(autouse=True)
def _clean():
    yield
    build_mod.forget_digests()


def _row(p: Path, sha: str) -> list:
    st = os.stat(p)
    return [str(p), "p/A.java", "main", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, sha]


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "proj" / "p" / "A.java"
    p.parent.mkdir(parents=True)
    p.write_text(A)
    return p


def test_a_remembered_digest_stands_for_an_unchanged_old_file(tmp_path, monkeypatch):
    p = _project(tmp_path)
    sha = hashlib.sha256(p.read_bytes()).hexdigest()
    # a fingerprint taken 10 s after the file's last write
    build_mod.remember_digests([_row(p, sha)], time.time_ns() + 10_000_000_000, 2_000_000)
    sf = build_mod.SourceFile(str(p), "p/A.java", "main", p.stat().st_size)
    monkeypatch.setattr(build_mod, "read_regular", lambda *a, **k: (_ for _ in ()).throw(AssertionError("read")))
    key = build_mod._facts_key(sf, "physical", 2_000_000)
    assert key.startswith(sha + ":p/A.java:main:physical:")


def test_a_recent_file_is_hashed(tmp_path):
    p = _project(tmp_path)
    # the fingerprint taken in the same second as the write: racy, never trusted
    build_mod.remember_digests([_row(p, "0" * 64)], time.time_ns(), 2_000_000)
    sf = build_mod.SourceFile(str(p), "p/A.java", "main", p.stat().st_size)
    assert build_mod._facts_key(sf, "physical", 2_000_000).startswith(hashlib.sha256(p.read_bytes()).hexdigest())


def test_a_file_written_after_the_fingerprint_is_hashed(tmp_path):
    p = _project(tmp_path)
    old = hashlib.sha256(p.read_bytes()).hexdigest()
    build_mod.remember_digests([_row(p, old)], time.time_ns() + 10_000_000_000, 2_000_000)
    p.write_text(A.replace("return 1;", "return 2;"))  # same size: only ctime/mtime tell
    sf = build_mod.SourceFile(str(p), "p/A.java", "main", p.stat().st_size)
    new = hashlib.sha256(p.read_bytes()).hexdigest()
    assert new != old and build_mod._facts_key(sf, "physical", 2_000_000).startswith(new)


def test_the_graph_of_a_changed_file_is_built_from_its_new_bytes(tmp_path):
    p = _project(tmp_path)
    root, cache = tmp_path / "proj", tmp_path / "c.sqlite"
    build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)
    build_mod.remember_digests([_row(p, hashlib.sha256(p.read_bytes()).hexdigest())],
                               time.time_ns() + 10_000_000_000, 2_000_000)
    p.write_text(A.replace("int f()", "int g()"))
    pg = build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)
    assert "p.A.g()" in pg.graph and "p.A.f()" not in pg.graph
