"""The small project of the warm-cache tests (``test_build_cache.py``,
``test_build_cache_deps.py``): Java sources under ``fixtures/java/warm-cache/``
(docs/fixtures.md), copied into ``tmp_path`` because the tests edit them, and
the helpers both modules use."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from qare.cmd_callgraph import write_node_link_json

SOURCES = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "warm-cache"


def project(tmp_path: Path, files: tuple[str, ...]) -> Path:
    """``tmp_path/proj`` holding ``files`` (paths relative to the fixture, e.g. ``p/A.java``)."""
    root = tmp_path / "proj"
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCES / rel, root / rel)
    return root


def graph_bytes(pg) -> str:
    """The graph as ``qare graph --out`` writes its JSON (to compare warm and cold builds byte for byte)."""
    buf = io.StringIO()
    write_node_link_json(pg.graph, buf)
    return buf.getvalue()


def edit(root: Path, rel: str, old: str, new: str) -> None:
    """Replace ``old`` (which must occur) by ``new`` in ``root/rel``."""
    p = root / rel
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new))


def reseal(db) -> None:
    """Give every row the CRC-32 of its (tampered) fields: the decoder's own
    checks, not the checksum, are what a decoder test exercises."""
    from callgraph._cache import _facts_crc, _resolved_crc

    for key, digest, blob in db.execute("SELECT key, digest, blob FROM facts").fetchall():
        db.execute("UPDATE facts SET crc = ? WHERE key = ?", (_facts_crc(key, digest, blob), key))
    for key, blob, deps, pkey in db.execute("SELECT key, blob, deps, pkey FROM resolved").fetchall():
        db.execute("UPDATE resolved SET crc = ? WHERE key = ?", (_resolved_crc(key, blob, deps, pkey), key))
