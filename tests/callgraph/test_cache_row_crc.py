"""The warm cache's CRC-32 per row (callgraph._cache): a byte flipped inside a
row that still decodes to well-typed values, or a row moved under another
key, is a miss — the file is parsed or resolved again and the graph is the
one a build without the cache gives."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from callgraph import _build as _build_mod, build_project_graph
from qare.cmd_callgraph import write_node_link_json

FILES = {
    "p/A.java": """package p;
public class A {
    public int alpha(int x) {
        return x + 1;
    }
}
""",
    "p/B.java": """package p;
public class B {
    int bravo(A a) {
        return a.alpha(2);
    }
}
""",
}


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _build(root, cache):
    return build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)


def _bytes(pg) -> str:
    buf = io.StringIO()
    write_node_link_json(pg.graph, buf)
    return buf.getvalue()


def _patch(cache: Path, table: str, old: bytes, new: bytes) -> int:
    """Replace ``old`` by ``new`` (same length: the row still decodes) in the
    blob of every row of ``table`` holding it; how many rows changed."""
    assert len(old) == len(new)
    db = sqlite3.connect(cache)
    n = 0
    for key, blob in db.execute(f"SELECT key, blob FROM {table}").fetchall():
        if old in blob:
            db.execute(f"UPDATE {table} SET blob = ? WHERE key = ?", (blob.replace(old, new), key))
            n += 1
    db.commit()
    db.close()
    return n


@pytest.fixture(autouse=True)
def _no_index_snapshot(monkeypatch):
    # these tests attack the warm cache's rows: the index snapshot
    # (test_snapshot.py) would hand the build every file's facts unread
    monkeypatch.setattr(_build_mod, "_open_snapshots", lambda store: None)


def test_a_flipped_byte_in_a_facts_row_is_a_miss(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    # A's method renamed inside its stored declarations: still a valid row,
    # and without the checksum the graph would hold p.A.alphb(int)
    assert _patch(cache, "facts", b"alpha", b"alphb") == 1
    warm = _build(root, cache)
    assert warm.summary.cache["facts_misses"] == 1 and warm.summary.cache["facts_hits"] == 1
    assert "p.A.alpha(int)" in warm.graph and "p.A.alphb(int)" not in warm.graph
    assert _bytes(warm) == _bytes(cold) == _bytes(_build(root, None))


def test_a_flipped_byte_in_a_resolution_row_is_a_miss(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    # the callee of B's call renamed in B's stored resolution: well typed,
    # and without the checksum the edge would point at a node that is not there
    assert _patch(cache, "resolved", b"p.A.alpha(int)", b"p.A.alphb(int)") == 1
    warm = _build(root, cache)
    assert warm.summary.cache["resolved_misses"] == 1 and warm.summary.cache["resolved_hits"] == 1
    assert warm.graph.has_edge("p.B.bravo(p.A)", "p.A.alpha(int)")
    assert _bytes(warm) == _bytes(cold)


def test_rows_swapped_between_keys_are_misses(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    db = sqlite3.connect(cache)
    for table in ("facts", "resolved"):
        (k1, b1, c1), (k2, b2, c2) = db.execute(f"SELECT key, blob, crc FROM {table} ORDER BY key").fetchall()
        # each row's blob and checksum moved to the other key, left as they were
        db.execute(f"UPDATE {table} SET blob = ?, crc = ? WHERE key = ?", (b2, c2, k1))
        db.execute(f"UPDATE {table} SET blob = ?, crc = ? WHERE key = ?", (b1, c1, k2))
    db.commit()
    db.close()
    warm = _build(root, cache)
    assert warm.summary.cache["facts_misses"] == 2 and warm.summary.cache["resolved_misses"] == 2
    assert _bytes(warm) == _bytes(cold)
    # and overwritten: the next run reads both from the cache again
    again = _build(root, cache)
    assert again.summary.cache["facts_hits"] == 2 and again.summary.cache["resolved_hits"] == 2


def test_a_row_without_a_checksum_is_a_miss(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    db = sqlite3.connect(cache)
    db.execute("UPDATE facts SET crc = NULL")
    db.execute("UPDATE resolved SET crc = 'x'")
    db.commit()
    db.close()
    warm = _build(root, cache)
    assert warm.summary.cache["facts_misses"] == 2 and warm.summary.cache["resolved_misses"] == 2
    assert _bytes(warm) == _bytes(cold)
