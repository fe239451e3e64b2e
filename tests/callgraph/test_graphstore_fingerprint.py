"""The graph store's fingerprint taken against the slot's previous one
(callgraph._graphstore.fingerprint ``previous=``, GraphStore.stored_inputs):
a file unchanged by the stat rule keeps its stored digest instead of being
hashed again; a racy, rewritten or replaced file, or another size limit, is
hashed. A forged stored digest shows which way each file went (the rule's
own safety is callgraph._statsig's, tested in test_graphstore.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time

from callgraph import _graphstore as gs

FORGED = "f" * 64


class _SF:
    def __init__(self, path, rel, source_set="main"):
        self.path, self.rel, self.source_set = str(path), rel, source_set


def _aged(path, seconds=60):
    old = time.time_ns() - seconds * 10 ** 9
    os.utime(path, ns=(old, old))


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _forged(fp):
    """``fp`` with every digest replaced by one no file here has."""
    return dataclasses.replace(fp, files=tuple((*r[:8], FORGED) for r in fp.files))


def _files(tmp_path, n=3):
    out = []
    for i in range(n):
        p = tmp_path / f"F{i}.java"
        p.write_text(f"class F{i} {{}}\n")
        out.append(p)
    return out


def test_a_file_unchanged_by_the_stat_rule_keeps_the_previous_digest(tmp_path):
    paths = _files(tmp_path)
    for p in paths:
        _aged(p)  # written a minute ago, but the ctime is now: not trusted yet
    files = [_SF(p, p.name) for p in paths]
    first = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000)
    assert [r[8] for r in first.files] == [_sha(p) for p in paths]
    # the ctime of the files is within the racy window of `first`: all hashed again
    again = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000, previous=_forged(first))
    assert [r[8] for r in again.files] == [_sha(p) for p in paths]
    # the same fingerprint as if taken well after the writes: its digests are taken, not hashed
    old = dataclasses.replace(_forged(first), taken_ns=first.taken_ns + 10 * gs.RACY_NS)
    reused = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000, previous=old)
    assert [r[8] for r in reused.files] == [FORGED] * 3
    assert [r[3:8] for r in reused.files] == [r[3:8] for r in first.files]
    # another size limit is another slot: never its digests
    other = gs.fingerprint(tmp_path, files, [], [], None, "physical", 999, previous=old)
    assert [r[8] for r in other.files] == [_sha(p) for p in paths]
    # one file rewritten (new ctime, new size) and one replaced (new inode): those two are hashed
    paths[0].write_text("class F0 { void m() {} }\n")
    tmp = tmp_path / "x.tmp"
    tmp.write_text("class F1 {}\n")
    os.replace(tmp, paths[1])
    mixed = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000, previous=old)
    assert [r[8] for r in mixed.files] == [_sha(paths[0]), _sha(paths[1]), FORGED]
    # a stored row without a digest (the file was unreadable then) is hashed now
    none = dataclasses.replace(old, files=tuple((*r[:8], None) for r in old.files))
    assert [r[8] for r in gs.fingerprint(tmp_path, files[2:], [], [], None, "physical", 1000,
                                         previous=none).files] == [_sha(paths[2])]


def test_stored_inputs_is_the_saved_fingerprint_or_none(tmp_path):
    from callgraph import build_project_graph
    from callgraph._discover import discover_sources

    src = tmp_path / "p"
    src.mkdir()
    (src / "A.java").write_text("class A { void a() { b(); } void b() {} }\n")
    files, skipped = discover_sources(src, max_file_bytes=2_000_000)
    fp = gs.fingerprint(src, files, skipped, [], None, "physical", 2_000_000)
    store = gs.GraphStore(tmp_path / "graphs.sqlite")
    try:
        assert store.stored_inputs(src, "physical", 2_000_000) is None
        assert store.save(fp, build_project_graph(src, auto_classpath=False, jdk=None))
        assert store.stored_inputs(src, "physical", 2_000_000) == fp
        assert store.stored_inputs(src, "code", 2_000_000) is None  # another slot
        store.db.execute("UPDATE graphs SET inputs = ?", (b"\x93not inputs",))
        assert store.stored_inputs(src, "physical", 2_000_000) is None  # undecodable: no previous, all hashed
    finally:
        store.close()


def test_the_look_ups_probe_gives_the_fingerprint_it_would_take(tmp_path, monkeypatch):
    """The look-up that finds a file changed takes every file's signature on
    the way (even past the changed file), the classpath, JDK and
    lombok.config rows: the build's fingerprint reuses them (no second
    ``stat`` of any file) and is the one it would have taken, its time the
    look-up's."""
    paths = _files(tmp_path, 4)
    for p in paths:
        _aged(p)
    files = [_SF(p, p.name) for p in paths]
    stored = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000)
    paths[1].write_text("class F1 { int x; }\n")  # the second of four changed: the check goes on past it
    probe: dict = {}
    assert gs._unchanged(stored, tmp_path, files, [], [], None, probe) == "F1.java changed"
    assert probe["complete"] and set(probe["sigs"]) == {str(p) for p in paths}
    calls = []
    real = gs.signature
    monkeypatch.setattr(gs, "signature", lambda p: calls.append(p) or real(p))
    reused = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000, probe=probe)
    assert calls == []
    fresh = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000)
    assert dataclasses.replace(reused, taken_ns=0) == dataclasses.replace(fresh, taken_ns=0)
    assert reused.taken_ns == probe["taken_ns"] <= fresh.taken_ns
    # a probe of other files (or one cut short) is not used
    assert len(calls) == 4
    gs.fingerprint(tmp_path, files[:3], [], [], None, "physical", 1000, probe=probe)
    assert len(calls) == 7
