"""The graph store (callgraph._graphstore, docs/callgraph.md "Graph store"):
``qare chain`` answered from the part of a stored graph that METHOD reaches
gives the very answer of a cold build (every dispatch mode, with and without
``name`` edges, with depth limits), for every method of the fixtures; any
changed input (a body edit that keeps size and mtime, a new file, another
classpath, other code) rebuilds; corrupt, foreign and linked files; bad rows;
the size bound; concurrent processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import callgraph
from callgraph import _graphstore as gs
from callgraph import build_project_graph
from callgraph._discover import discover_sources
from qare.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "java"
# fixtures with cha, rta-witnessed, name and library edges, tests and Lombok
EQUIV = ["chains", "resolution", "qare-example", "lombok", "multimodule"]


def _stored(tmp_path, root: Path, classpath=()):
    """Build ``root`` cold, store it, and look it up again: ``(pg, StoredGraph, store)``."""
    files, skipped = discover_sources(root, max_file_bytes=2_000_000)
    jdk = callgraph.classpath.find_jdk("auto")
    fp = gs.fingerprint(root, files, skipped, list(classpath), jdk, "physical", 2_000_000)
    pg = build_project_graph(root, classpath=list(classpath), auto_classpath=False)
    store = gs.GraphStore(tmp_path / "graphs.sqlite")
    assert store.save(fp, pg)
    sg, why = store.lookup(root, files, skipped, list(classpath), jdk, "physical", 2_000_000)
    assert why is None, why
    return pg, sg, store


@pytest.mark.parametrize("name", EQUIV)
def test_reach_from_the_store_equals_reach_on_the_whole_graph(tmp_path, name):
    pg, sg, store = _stored(tmp_path, FIXTURES / name)
    compared = 0
    try:
        for mid in pg.methods():
            for dispatch in ("rta", "cha", "declared"):
                for unresolved in (False, True):
                    for depth in (None, 2, 3):
                        want = pg.reach(mid, dispatch=dispatch, include_unresolved=unresolved, max_depth=depth)
                        part = sg.project_graph(pg.root)
                        sg.reachable(part, mid, dispatch=dispatch, include_unresolved=unresolved,
                                     max_depth=depth)
                        got = part.reach(mid, dispatch=dispatch, include_unresolved=unresolved, max_depth=depth)
                        assert got == want, (mid, dispatch, unresolved, depth)
                        # and computed on the adjacency blob itself, the view never built
                        assert sg.reach(sg.project_graph(pg.root), mid, dispatch=dispatch,
                                        include_unresolved=unresolved, max_depth=depth) == want
                        compared += bool(want)
                        if depth is None:  # the loaded part holds the whole graph's edges and attributes
                            _assert_part_of(part.graph, pg.graph, dispatch, unresolved)
    finally:
        sg.close()
        store.close()
    assert compared > 0  # some methods of every fixture reach an API


def _assert_part_of(part, whole, dispatch: str, unresolved: bool) -> None:
    """Every loaded method's out-edges of the kinds the query follows, with their attributes
    (lines, resolution, RTA witnesses), and every loaded node's attributes, as in the built graph."""
    kinds = {"exact", "arity"} | ({"cha"} if dispatch != "declared" else set()) | ({"name"} if unresolved else set())
    for u, out in part.adj.items():
        want = {v: {**d, "lines": list(d["lines"]), **({"rta": tuple(d["rta"])} if "rta" in d else {})}
                for v, d in whole.adj[u].items() if d["resolution"] in kinds}
        assert out == want, u
    for n, attrs in part.nodes.items():
        assert attrs == {k: whole.nodes[n][k] for k in attrs}, n
        assert n in part.adj or whole.nodes[n]["kind"] == "api" or not whole.adj[n], n


COMMONS_LANG3 = Path("/usr/share/java/commons-lang3.jar")


@pytest.mark.skipif(not COMMONS_LANG3.is_file(), reason="needs Debian's libcommons-lang3-java jar")
def test_only_the_reachable_part_is_loaded(tmp_path):
    pg, sg, store = _stored(tmp_path, FIXTURES / "qare-example", [COMMONS_LANG3])
    try:
        part = sg.project_graph(pg.root)
        mid = part.resolve_method("CommentService.processComment")
        sg.reachable(part, mid, dispatch="cha")
        # processComment → isCommentEmpty → StringUtils.isBlank, processComment → stored.add
        # (a List<String> field): worked out from the sources
        assert set(part.graph.nodes) == {mid, "com.acme.CommentService.isCommentEmpty(java.lang.String)",
                                         "java.util.List.add(java.lang.Object)",
                                         "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)"}
        assert len(part.graph.nodes) < pg.graph.number_of_nodes()
    finally:
        sg.close()
        store.close()


def test_method_lookup_from_the_store(tmp_path):
    pg, sg, store = _stored(tmp_path, FIXTURES / "qare-example")
    try:
        part = sg.project_graph(pg.root)
        assert part.methods() == pg.methods()
        for text in ("processComment", "CommentService.processComment(String)", "CommentService",
                     "com.acme.CommentService.processComment(java.lang.String)"):
            assert part.find_methods(text) == pg.find_methods(text)
        assert part.suggest_methods("procesComent") == pg.suggest_methods("procesComent") != []
        mid = pg.resolve_method("processComment")
        assert part.method(mid) == pg.method(mid)
        with pytest.raises(callgraph.UnknownMethodError):
            part.method("com.acme.Nope.x()")
    finally:
        sg.close()
        store.close()


# ------------------------------------------------------------------ CLI

def _chain(args, cache: Path, **kw):
    r = CliRunner().invoke(main, ["chain", *args, "--no-discover-classpath", "--cache", str(cache), "-q"], **kw)
    return r


def _no_build(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("built although the stored graph was unchanged")

    monkeypatch.setattr(callgraph, "build_project_graph", boom)


@pytest.mark.parametrize("extra", [["--dispatch", "rta"], ["--dispatch", "cha"], ["--dispatch", "declared"],
                                   ["--include-unresolved"], ["--dispatch", "declared", "--include-unresolved"],
                                   ["--max-depth", "2"], ["--format", "json"]])
def test_warm_chain_prints_what_a_cold_chain_prints(tmp_path, monkeypatch, extra):
    root = str(FIXTURES / "chains")
    pg = build_project_graph(root, auto_classpath=False)
    mids = [m for m in pg.methods() if pg.reach(m, include_unresolved=True)][:6]
    assert mids
    cache = tmp_path / "c.sqlite"
    cold = {m: CliRunner().invoke(main, ["chain", root, m, "--no-discover-classpath", "--no-cache", "-q", *extra])
            for m in mids}
    first = _chain([root, mids[0], *extra], cache)  # builds and stores
    assert first.exit_code == 0 and first.stdout == cold[mids[0]].stdout
    assert (tmp_path / "c.sqlite.graphs").is_file()
    _no_build(monkeypatch)
    for m in mids:
        warm = _chain([root, m, *extra], cache)
        assert warm.exit_code == cold[m].exit_code == 0, warm.output
        assert warm.stdout == cold[m].stdout


def test_unknown_and_ambiguous_methods_from_the_store(tmp_path, monkeypatch):
    root = str(FIXTURES / "qare-example")
    cache = tmp_path / "c.sqlite"
    assert _chain([root, "processComment"], cache).exit_code == 0
    cold_bad = CliRunner().invoke(main, ["chain", root, "procesComent", "--no-discover-classpath", "--no-cache"])
    _no_build(monkeypatch)
    warm_bad = _chain([root, "procesComent"], cache)
    assert warm_bad.exit_code == cold_bad.exit_code == 3
    assert "close matches:" in warm_bad.stderr and warm_bad.stderr == cold_bad.stderr


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_an_edit_keeping_size_and_mtime_is_seen(tmp_path, monkeypatch):
    """The stat shortcut is safe: a body edit with the same size whose mtime
    is set back still changes ctime, so the file is hashed and the graph rebuilt."""
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    f = root / "src/main/java/com/acme/CommentService.java"
    old = f.read_text()
    assert "StringUtils.isBlank(comment)" in old
    cache = tmp_path / "c.sqlite"
    before = _chain([str(root), "processComment"], cache)
    assert "StringUtils.isBlank" in before.stdout
    st = os.stat(f)
    # same length: isBlank → isEmpty (both StringUtils(CharSequence) methods) plus padding
    new = old.replace("StringUtils.isBlank(comment)", "StringUtils.isEmpty(comment)", 1)
    new = new.replace("isEmpty(comment)", "isEmpty(comment)" + " " * (len(old) - len(new)), 1)
    assert len(new) == len(old)
    f.write_text(new)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(f).st_size == st.st_size and os.stat(f).st_mtime_ns == st.st_mtime_ns
    after = _chain([str(root), "processComment"], cache)
    assert "StringUtils.isEmpty" in after.stdout and "StringUtils.isBlank" not in after.stdout
    cold = CliRunner().invoke(main, ["chain", str(root), "processComment", "--no-discover-classpath", "--no-cache"])
    assert after.stdout == cold.stdout


class _SF:
    def __init__(self, path, rel, source_set="main"):
        self.path, self.rel, self.source_set = str(path), rel, source_set


def test_unchanged_rules(tmp_path):
    a = tmp_path / "A.java"
    a.write_text("class A {}\n")
    old = time.time_ns() - 60 * 10 ** 9
    os.utime(a, ns=(old, old))
    files = [_SF(a, "A.java")]
    fp = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000)
    assert gs._unchanged(fp, tmp_path, files, [], [], None) is None
    # a new file, another source set, a skipped file, a classpath entry, another JDK: all stale
    b = tmp_path / "B.java"
    b.write_text("class B {}\n")
    assert gs._unchanged(fp, tmp_path, files + [_SF(b, "B.java")], [], [], None)
    assert gs._unchanged(fp, tmp_path, [_SF(a, "A.java", "test")], [], [], None)
    assert gs._unchanged(fp, tmp_path, files, [("C.java", "too large")], [], None)
    assert gs._unchanged(fp, tmp_path, files, [], [str(b)], None) == "the classpath changed"
    assert gs._unchanged(fp, tmp_path, files, [], [], tmp_path) == "the JDK changed"
    (tmp_path / "lombok.config").write_text("lombok.accessors.fluent = true\n")
    assert gs._unchanged(fp, tmp_path, files, [], [], None) == "a lombok.config changed"
    (tmp_path / "lombok.config").unlink()
    # the same bytes rewritten (new ctime): hashed, found equal
    a.write_text("class A {}\n")
    assert gs._unchanged(fp, tmp_path, files, [], [], None) is None
    # a racy file (written within RACY_NS of the fingerprint) is hashed even when its stat matches
    c = tmp_path / "C.java"
    c.write_text("class C {}\n")
    fc = [_SF(c, "C.java")]
    fp2 = gs.fingerprint(tmp_path, fc, [], [], None, "physical", 1000)
    row = list(fp2.files[0])
    row[8] = "0" * 64  # a stored digest that the bytes do not have
    forged = gs.Inputs(**{**{f: getattr(fp2, f) for f in fp2.__dataclass_fields__}, "files": (tuple(row),)})
    assert gs._unchanged(forged, tmp_path, fc, [], [], None) == "C.java changed"
    aged = gs.Inputs(**{**{f: getattr(forged, f) for f in forged.__dataclass_fields__},
                        "taken_ns": forged.taken_ns + 10 * gs.RACY_NS})
    assert gs._unchanged(aged, tmp_path, fc, [], [], None) is None  # old enough: stat trusted
    # other code
    bumped = gs.Inputs(**{**{f: getattr(fp, f) for f in fp.__dataclass_fields__}, "code": "other"})
    assert gs._unchanged(bumped, tmp_path, files, [], [], None) == "qare's call-graph code changed"


def test_a_new_file_rebuilds(tmp_path):
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    assert _chain([str(root), "processComment"], cache).exit_code == 0
    (root / "src/main/java/com/acme/Extra.java").write_text(
        "package com.acme;\npublic class Extra {\n    public int extraMethod() { return 1; }\n}\n")
    r = _chain([str(root), "Extra.extraMethod"], cache)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("com.acme.Extra.extraMethod()")


# ------------------------------------------------------------------ file safety

def test_corrupt_store_at_qare_path_is_rebuilt_and_named_one_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    root = str(FIXTURES / "qare-example")
    (tmp_path / "qc").mkdir(mode=0o700)
    (tmp_path / "qc" / "graphs.sqlite").write_bytes(b"not a database" * 100)
    r = CliRunner().invoke(main, ["chain", root, "processComment", "--no-discover-classpath"])
    assert r.exit_code == 0 and "StringUtils.isBlank" in r.stdout
    with sqlite3.connect(tmp_path / "qc" / "graphs.sqlite") as db:
        assert db.execute("SELECT count(*) FROM graphs").fetchone()[0] == 1
    # a named --cache whose store is someone else's database: refused, not destroyed, build goes on
    named = tmp_path / "mine.sqlite"
    with sqlite3.connect(tmp_path / "mine.sqlite.graphs") as db:
        db.execute("CREATE TABLE precious (x)")
    r = _chain([root, "processComment"], named)
    assert r.exit_code == 0 and "StringUtils.isBlank" in r.stdout
    assert "graph store not used" in r.stderr
    with sqlite3.connect(tmp_path / "mine.sqlite.graphs") as db:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'precious'").fetchone()[0] == 1


def test_symlinked_store_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    (tmp_path / "c.sqlite.graphs").symlink_to(target)
    r = _chain([str(FIXTURES / "qare-example"), "processComment"], tmp_path / "c.sqlite")
    assert r.exit_code == 0 and "symlink" in r.stderr
    assert target.read_bytes() == b""


def _set_rows(db_path, info=None, crc=True):
    """Rewrite every method row's ``info``: with ``crc`` each row gets the
    key of its new bytes and every graph's references follow (a crafted
    row); without, the key stays (a damaged row)."""
    with sqlite3.connect(db_path) as db:
        new: dict = {}
        moved: dict = {}
        for h, old_info, refs in db.execute("SELECT h, info, refs FROM rows").fetchall():
            i = old_info if info is None else info(old_info) if callable(info) else info
            k = gs._row_key(i) if crc else h
            moved[h] = k
            n = new.setdefault(k, [i, 0])
            n[1] += refs
        db.execute("DELETE FROM rows")
        db.executemany("INSERT INTO rows VALUES (?, ?, ?)", [(k, i, n) for k, (i, n) in new.items()])
        for gid, refs in db.execute("SELECT gid, refs FROM graphs").fetchall():
            at = [refs[j:j + 16] for j in range(0, len(refs), 16)]
            _set_graph_blob(db, "refs", b"".join(moved[h] for h in at), gid)


def test_a_row_moved_to_another_method_is_a_miss(tmp_path):
    """A row is found by the digest of its bytes: rows swapped between
    methods, unchanged, are bad rows — not another method's lines and LOC
    (the tester's swap of ``pkg.A.m()``'s and ``pkg.B.run``'s rows answered
    with B's lines and APIs, exit 0); so is the graph's list of row keys
    rotated (the graph row's CRC)."""
    root = str(FIXTURES / "qare-example")
    cache = tmp_path / "c.sqlite"
    store = tmp_path / "c.sqlite.graphs"
    good = _chain([root, "processComment"], cache)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT h, info FROM rows ORDER BY h").fetchall()
        assert len(rows) > 1
        for (h, _), (_h, info) in zip(rows, rows[1:] + rows[:1]):  # each one place on
            db.execute("UPDATE rows SET info = ? WHERE h = ?", (info, h))
    r = _chain([root, "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout, r.output
    assert "checksum" in r.stderr, r.stderr
    with sqlite3.connect(store) as db:
        refs = db.execute("SELECT refs FROM graphs").fetchone()[0]
        db.execute("UPDATE graphs SET refs = ?", (refs[16:] + refs[:16],))
    r = _chain([root, "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout, r.output
    assert "graph row: checksum" in r.stderr, r.stderr


def test_a_graph_moved_to_another_slot_is_a_miss(tmp_path):
    """The slot column is outside the graph row's CRC: the tester swapped the
    slots of one project's ``physical`` and ``code`` graphs (session 7), and
    ``qare chain --loc-mode physical`` answered with the code-LOC graph's
    chain LOC and density. The stored inputs name their slot: a row under
    another is a bad row, rebuilt, and the answer is the cold one."""
    src = tmp_path / "p" / "src" / "main" / "java" / "a"
    src.mkdir(parents=True)
    # 8 physical lines, 4 of code: the two modes' chain LOC differ
    (src / "A.java").write_text("package a;\nimport org.apache.commons.lang3.StringUtils;\nclass A {\n"
                                "    boolean m(String s) {\n\n        // a comment\n\n"
                                "        boolean b = StringUtils.isBlank(s);\n\n        return b;\n    }\n}\n")
    root = str(tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    store = tmp_path / "c.sqlite.graphs"
    method = "A.m"
    phys = _chain([root, method, "--loc-mode", "physical"], cache)
    code = _chain([root, method, "--loc-mode", "code"], cache)
    assert phys.exit_code == 0 and code.exit_code == 0
    assert phys.stdout != code.stdout  # the fixture's LOC differ between the modes
    with sqlite3.connect(store) as db:
        (a, sa), (b, sb) = db.execute("SELECT gid, slot FROM graphs ORDER BY gid").fetchall()
        db.execute("UPDATE graphs SET slot = ? WHERE gid = ?", ("tmp", a))
        db.execute("UPDATE graphs SET slot = ? WHERE gid = ?", (sa, b))
        db.execute("UPDATE graphs SET slot = ? WHERE gid = ?", (sb, a))
    r = _chain([root, method, "--loc-mode", "physical"], cache)
    assert r.exit_code == 0 and r.stdout == phys.stdout, r.output
    assert "another slot" in r.stderr, r.stderr


_GRAPH_BLOBS = ("inputs", "names", "apis", "rtas", "summary", "refs", "adj", "contrib")


def _set_graph_blob(db_or_path, column, value, gid=None):
    """Rewrite one blob of a ``graphs`` row (every row when ``gid`` is None)
    and recompute its CRC (a crafted row, not a damaged one)."""
    import zlib

    db = sqlite3.connect(db_or_path) if not isinstance(db_or_path, sqlite3.Connection) else db_or_path
    with db:
        where = "" if gid is None else f" WHERE gid = {int(gid)}"
        db.execute(f"UPDATE graphs SET {column} = ?{where}", (value,))
        for g, *blobs in db.execute(f"SELECT gid, {', '.join(_GRAPH_BLOBS)} FROM graphs{where}").fetchall():
            crc = 0
            for b in blobs:
                crc = zlib.crc32(b, crc)
            db.execute("UPDATE graphs SET crc = ? WHERE gid = ?", (crc, g))


def _u32(*words) -> bytes:
    import struct

    return struct.pack(f"<{len(words)}I", *words)


def test_bad_rows_are_a_miss_never_a_wrong_answer(tmp_path, monkeypatch):
    root = str(FIXTURES / "qare-example")
    cache = tmp_path / "c.sqlite"
    store = tmp_path / "c.sqlite.graphs"
    good = _chain([root, "processComment"], cache)
    import msgpack

    n_nodes = msgpack.unpackb(sqlite3.connect(store).execute("SELECT names FROM graphs").fetchone()[0])[1]
    # one damaged byte (the key no longer matches): a miss, not an answer from another row
    _set_rows(store, info=lambda i: i[:-1] + bytes([i[-1] ^ 1]), crc=False)
    r = _chain([root, "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout and "checksum" in r.stderr, r.output
    # a method row of the wrong shape
    _set_rows(store, info=msgpack.packb(["x"]))
    r = _chain([root, "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout and "unreadable (method row)" in r.stderr, r.output
    # the graph row: garbage inputs, a string table with a repeated id or unsorted methods, bad API columns
    n_methods, total, text = msgpack.unpackb(sqlite3.connect(store).execute("SELECT names FROM graphs").fetchone()[0])
    ids = text.split(b"\0")
    assert len(ids) == total == n_nodes
    table = lambda ids, n=n_methods, total=total: msgpack.packb([n, total, b"\0".join(ids)])  # noqa: E731
    for column, value, why in (
            ("inputs", b"\xc1garbage", "inputs"),
            ("names", table([*ids[:-1], ids[0]]), "node ids"),  # an id twice
            ("names", table(ids[::-1]), "node ids"),  # methods not sorted
            ("names", table(ids, total=total + 1), "node ids"),  # fewer ids than said
            ("names", table([*ids[:-1], b"\xff"]), "node ids"),  # not UTF-8
            ("names", msgpack.packb([n_methods, [s.decode() for s in ids]]), "node ids"),  # format 2's table
            ("apis", msgpack.packb([[], [], b"\x02" * (total - n_methods), b"", b""]), "api nodes"),
            ("rtas", msgpack.packb([[1]]), "rta witnesses")):
        _set_graph_blob(store, column, value)
        r = _chain([root, "processComment"], cache)
        assert r.exit_code == 0 and r.stdout == good.stdout, (column, r.output)
        assert f"unreadable ({why}" in r.stderr, (column, r.stderr)
    with sqlite3.connect(store) as db:  # a damaged graph row
        db.execute("UPDATE graphs SET crc = crc + 1")
    r = _chain([root, "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout and "unreadable (graph row: checksum)" in r.stderr


def test_method_rows_are_checked_field_by_field():
    import msgpack

    from callgraph._index import MethodInfo

    assert gs._info_fields()[gs._PARAMS_AT + 1] == "params"  # a stored row has every field but the id
    mi = MethodInfo("p.A.m(int)", "A.java", 1, 3, 3, None, "main", "p.A", "m", ("int",))
    assert gs._decode_info(gs._encode_info(mi), mi.id) == mi
    row = list(msgpack.unpackb(gs._encode_info(mi), raw=False))
    for i, bad in ((1, "1"), (3, True), (8, [1]), (9, 1), (14, 3)):
        forged = list(row)
        forged[i] = bad
        with pytest.raises(gs.StoreError):
            gs._decode_info(msgpack.packb(forged), mi.id)
    with pytest.raises(gs.StoreError):
        gs._decode_info(msgpack.packb(row[:-1]), mi.id)


def test_pickle_is_never_loaded(tmp_path):
    import pickle

    marker = tmp_path / "ran"

    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with pytest.raises(gs.StoreError):
        gs.Inputs.from_blob(pickle.dumps(Boom()))
    with pytest.raises(gs.StoreError):
        gs._decode_info(pickle.dumps(Boom()), "x")
    with pytest.raises(gs.StoreError):
        gs.decode_contributions(pickle.dumps(Boom()), 0, [])
    with pytest.raises(gs.StoreError):
        gs._decode_names(pickle.dumps(Boom()))
    assert not marker.exists()


# ------------------------------------------------------------------ size bound

def test_size_bound_evicts_the_least_recently_used(tmp_path, monkeypatch):
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    b = _copy(FIXTURES / "qare-example", tmp_path / "b")
    cache = tmp_path / "c.sqlite"
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    assert _chain([str(b), "processComment"], cache).exit_code == 0
    store = gs.GraphStore(tmp_path / "c.sqlite.graphs")
    assert sorted(Path(g["project"]).name for g in store.graphs()) == ["a", "b"]
    one = min(g["bytes"] for g in store.graphs())
    store.close()
    monkeypatch.setenv("QARE_GRAPH_STORE_MAX_BYTES", str(one + one // 2))  # room for one graph
    time.sleep(0.01)
    assert _chain([str(a), "processComment"], cache).exit_code == 0  # a used: b is the least recent
    c = _copy(FIXTURES / "qare-example", tmp_path / "c")
    assert _chain([str(c), "processComment"], cache).exit_code == 0
    store = gs.GraphStore(tmp_path / "c.sqlite.graphs")
    try:
        assert [Path(g["project"]).name for g in store.graphs()] == ["c"]
        with sqlite3.connect(tmp_path / "c.sqlite.graphs") as db:  # rows of evicted graphs are gone too
            _assert_rows_counted(db)
    finally:
        store.close()


def test_a_use_is_kept_beside_the_graph_row_not_in_it(tmp_path, monkeypatch):
    """A warm answer marks its graph used in the small ``uses`` table: the
    graph row (30 MB on spring-framework, every page of which SQLite read to
    set one column of it) is not written; the size bound and ``qare cache``
    read the later of the two times; a ``uses`` row that is no time is
    ignored, never a traceback; the uses of an evicted graph go with it."""
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    b = _copy(FIXTURES / "qare-example", tmp_path / "b")
    cache = tmp_path / "c.sqlite"
    path = tmp_path / "c.sqlite.graphs"
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    assert _chain([str(b), "processComment"], cache).exit_code == 0
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE written (n INTEGER)")
        db.execute("INSERT INTO written VALUES (0)")
        db.execute("CREATE TRIGGER count_updates AFTER UPDATE ON graphs BEGIN UPDATE written SET n = n + 1; END")
        stored_a = db.execute("SELECT used FROM graphs WHERE slot LIKE ?", (f"{os.path.realpath(a)}%",)).fetchone()[0]
    time.sleep(0.01)
    assert _chain([str(a), "processComment"], cache).exit_code == 0  # from the store: a used now
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT n FROM written").fetchone() == (0,)
        (touched,) = db.execute("SELECT u.used FROM uses u JOIN graphs g ON g.gid = u.gid "
                                "WHERE g.slot LIKE ?", (f"{os.path.realpath(a)}%",)).fetchone()
    assert touched > stored_a
    store = gs.GraphStore(path)
    try:
        assert [Path(g["project"]).name for g in store.graphs()] == ["a", "b"]  # a, last used, first
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE uses SET used = 'soon'")
    store = gs.GraphStore(path)
    try:
        assert [Path(g["project"]).name for g in store.graphs()] == ["b", "a"]  # by their rows' times again
        assert store.prune(0) == 2
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM uses").fetchone() == (0,)


def _assert_rows_counted(db) -> None:
    """The rows table holds exactly the rows the stored graphs name, each with its count of names."""
    want: dict = {}
    for (refs,) in db.execute("SELECT refs FROM graphs"):
        for j in range(0, len(refs), 16):
            want[refs[j:j + 16]] = want.get(refs[j:j + 16], 0) + 1
    assert dict(db.execute("SELECT h, refs FROM rows").fetchall()) == want


def test_qare_cache_reports_and_prunes(tmp_path):
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    b = _copy(FIXTURES / "plain", tmp_path / "b")
    cache = tmp_path / "c.sqlite"
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    r = CliRunner().invoke(main, ["graph", str(b), "--no-discover-classpath", "--cache", str(cache), "-q"])
    assert r.exit_code == 0, r.output  # qare graph stores its graph too
    report = CliRunner().invoke(main, ["cache", "--cache", str(cache)])
    assert report.exit_code == 0 and ": 2 graphs," in report.stdout
    assert str(a) in report.stdout and str(b) in report.stdout
    pruned = CliRunner().invoke(main, ["cache", "--cache", str(cache), "--prune", "--max-bytes", "0"])
    assert pruned.exit_code == 0 and "pruned 2 stored graphs" in pruned.stdout and ": 0 graphs," in pruned.stdout


def test_the_same_inputs_are_not_stored_twice(tmp_path):
    root = _copy(FIXTURES / "plain", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    args = ["graph", str(root), "--no-discover-classpath", "--cache", str(cache), "-q"]
    assert CliRunner().invoke(main, args).exit_code == 0
    gid = lambda: sqlite3.connect(tmp_path / "c.sqlite.graphs").execute("SELECT gid FROM graphs").fetchall()  # noqa: E731
    first = gid()
    assert CliRunner().invoke(main, args).exit_code == 0
    assert gid() == first  # kept, not rewritten
    (root / "Extra.java").write_text("class Extra { void m() {} }\n")
    assert CliRunner().invoke(main, args).exit_code == 0
    assert len(gid()) == 1 and gid() != first  # the slot's graph replaced


# ------------------------------------------------------------------ concurrency

def test_concurrent_processes_agree(tmp_path):
    root = _copy(FIXTURES / "chains", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    pg = build_project_graph(root, auto_classpath=False)
    mid = next(m for m in pg.methods() if pg.reach(m))
    cmd = [sys.executable, "-m", "qare", "chain", str(root), mid, "--no-discover-classpath", "--cache", str(cache),
           "-q", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(4)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    want = [t.to_dict() for t in pg.reach(mid)]
    assert want and all(json.loads(o[0]) == want for o in outs)
    again = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
    assert again.returncode == 0 and json.loads(again.stdout) == want


# ------------------------------------------------------------------ -q

@pytest.mark.parametrize("command", [["graph"], ["chain", "processComment"]])
def test_quiet_hides_the_classpath_line(tmp_path, command):
    root = str(FIXTURES / "qare-example")
    args = [command[0], root, *command[1:], "--cache", str(tmp_path / "c.sqlite")]
    loud = CliRunner().invoke(main, args)
    quiet = CliRunner().invoke(main, [*args, "-q"])
    assert loud.exit_code in (0, 1) and quiet.exit_code == loud.exit_code
    assert "classpath (" in loud.stderr or "classpath:" in loud.stderr
    assert "classpath (" not in quiet.stderr and "classpath:" not in quiet.stderr


# ------------------------------------------------------------------ attack pass s4 (F4, F5, F6, Note)

def _summary_row(cache: Path):
    import msgpack

    with sqlite3.connect(f"{cache}.graphs") as db:
        return msgpack.unpackb(db.execute("SELECT summary FROM graphs").fetchone()[0], raw=False)


def _set_summary(cache: Path, v: dict) -> None:
    import msgpack

    _set_graph_blob(f"{cache}.graphs", "summary", msgpack.packb(v))  # crafted: the CRC recomputed


@pytest.mark.parametrize("field,bad", [("classpath_warnings", 5), ("classpath_warnings", [["a", 1]]),
                                       ("files", "x"), ("files", -1), ("seconds", "1"), ("phases", {"a": "b"}),
                                       ("skipped", [["a"]]), ("parse_errors", [["f", [[1, "x"]]]]),
                                       ("resolved", {"exact": True}), ("cache", {"refused": None})])
def test_summary_values_are_type_checked(tmp_path, field, bad):
    root = str(FIXTURES / "qare-example")
    cache = tmp_path / "c.sqlite"
    good = _chain([root, "processComment"], cache)
    assert good.exit_code == 0
    v = _summary_row(cache)
    assert gs._decode_summary(__import__("msgpack").packb(v)).files == v["files"]  # the stored one decodes
    _set_summary(cache, {**v, field: bad})
    r = _chain([root, "processComment"], cache)  # a miss naming the file, then a rebuild: never a traceback
    assert r.exit_code == 0 and r.stdout == good.stdout, r.output
    assert f"{cache}.graphs unreadable (summary: {field})" in r.stderr
    after = _summary_row(cache)  # replaced by the rebuild's summary (times and cache counts differ)
    assert after["methods"] == v["methods"]
    if field not in ("seconds", "phases", "cache"):
        assert after[field] == v[field]


def test_bad_graphs_rows_are_dropped_not_a_traceback(tmp_path):
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    cache = tmp_path / "c.sqlite"
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    with sqlite3.connect(f"{cache}.graphs") as db:
        db.execute("UPDATE graphs SET bytes = 'x'")
    report = CliRunner().invoke(main, ["cache", "--cache", str(cache)])
    assert report.exit_code == 0, report.output
    assert "bad row (bytes is 'x', not a size" in report.stdout and str(a) in report.stdout
    pruned = CliRunner().invoke(main, ["cache", "--cache", str(cache), "--prune"])
    assert pruned.exit_code == 0 and ": 0 graphs," in pruned.stdout, pruned.output
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    with sqlite3.connect(f"{cache}.graphs") as db:
        db.execute("UPDATE graphs SET used = 'soon'")
    store = gs.GraphStore(f"{cache}.graphs")
    try:
        assert [g["problem"] for g in store.graphs()] == ["used is 'soon', not a time"]
        store.prune()
        assert store.graphs() == [] and store.stats["dropped"] == 1
    finally:
        store.close()
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    with sqlite3.connect(f"{cache}.graphs") as db:
        db.execute("UPDATE graphs SET bytes = -1")
    b = _copy(FIXTURES / "plain", tmp_path / "b")  # storing b runs the bound over the bad row: dropped
    r = CliRunner().invoke(main, ["graph", str(b), "--no-discover-classpath", "--cache", str(cache), "-q"])
    assert r.exit_code == 0, r.output
    store = gs.GraphStore(f"{cache}.graphs")
    try:
        assert [(Path(g["project"]).name, g["problem"]) for g in store.graphs()] == [("b", None)]
    finally:
        store.close()


def test_a_negative_size_does_not_switch_the_bound_off(tmp_path, monkeypatch):
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    b = _copy(FIXTURES / "qare-example", tmp_path / "b")
    cache = tmp_path / "c.sqlite"
    assert _chain([str(a), "processComment"], cache).exit_code == 0
    assert _chain([str(b), "processComment"], cache).exit_code == 0
    with sqlite3.connect(f"{cache}.graphs") as db:
        one = db.execute("SELECT min(bytes) FROM graphs").fetchone()[0]
        # a forged row: with its size counted, a would "make room" for every other graph
        db.execute("UPDATE graphs SET bytes = ? WHERE slot LIKE ?", (-10 ** 12, f"{a}%"))
    monkeypatch.setenv("QARE_GRAPH_STORE_MAX_BYTES", str(one + one // 2))  # room for one graph
    c = _copy(FIXTURES / "qare-example", tmp_path / "c")
    assert _chain([str(c), "processComment"], cache).exit_code == 0
    store = gs.GraphStore(f"{cache}.graphs")
    try:
        assert [Path(g["project"]).name for g in store.graphs()] == ["c"]
    finally:
        store.close()


def test_a_row_that_failed_to_decode_is_replaced_and_said_once(tmp_path, monkeypatch):
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    good = _chain([str(root), "processComment"], cache)
    with sqlite3.connect(f"{cache}.graphs") as db:
        pass
    _set_rows(f"{cache}.graphs", info=b"\xc1")  # a crafted row: its key fits, its bytes are no MethodInfo
    r = _chain([str(root), "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout
    assert r.stderr.count("unreadable (method row); rebuilt and stored again") == 1, r.stderr
    assert f"{cache}.graphs" in r.stderr
    with sqlite3.connect(f"{cache}.graphs") as db:
        assert b"\xc1" not in {row[0] for row in db.execute("SELECT info FROM rows")}
        _assert_rows_counted(db)
    _no_build(monkeypatch)  # the replaced graph answers: no rebuild, no warning
    again = _chain([str(root), "processComment"], cache)
    assert again.exit_code == 0 and again.stdout == good.stdout and again.stderr == ""


def test_a_linked_lombok_config_is_not_read(tmp_path):
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    src = next(root.rglob("*.java")).parent
    (src / "lombok.config").symlink_to(outside)
    (root / "lombok.config").write_text("lombok.accessors.fluent = true\n")
    files, skipped = discover_sources(root, max_file_bytes=2_000_000)
    fp = gs.fingerprint(root, files, skipped, [], None, "physical", 2_000_000)
    import hashlib

    assert dict(fp.lombok) == {
        str(src.resolve() / "lombok.config"): "not a regular file",
        str(root.resolve() / "lombok.config"): hashlib.sha256(b"lombok.accessors.fluent = true\n").hexdigest()}
    outside.write_text("changed\n")  # what the build ignores does not decide a rebuild either
    assert gs._unchanged(fp, root, files, skipped, [], None) is None
    (root / "lombok.config").write_text("lombok.accessors.fluent = false\n")
    assert gs._unchanged(fp, root, files, skipped, [], None) == "a lombok.config changed"


def test_chain_exits_1_on_an_unreadable_classpath_entry_fresh_and_stored(tmp_path, monkeypatch):
    root = str(FIXTURES / "qare-example")
    bad = tmp_path / "bad.jar"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    cache = tmp_path / "c.sqlite"
    args = [root, "processComment", "--classpath", str(bad)]
    graph = CliRunner().invoke(main, ["graph", root, "--classpath", str(bad), "--no-discover-classpath", "--no-cache",
                                      "-q"])
    assert graph.exit_code == 1
    fresh = _chain(args, cache)
    assert fresh.exit_code == 1 and "processComment" in fresh.stdout
    assert f"classpath entry {bad}: unreadable classpath entry" in fresh.stderr
    _no_build(monkeypatch)
    stored = _chain(args, cache)  # the stored summary carries the warning that decides the exit code
    assert stored.exit_code == 1 and stored.stdout == fresh.stdout and stored.stderr == fresh.stderr
    assert _chain([*args, "--format", "json"], cache).exit_code == 1


# ------------------------------------------------------------------ format versions (s5)

@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_an_older_format_store_is_rebuilt_not_misread(tmp_path, monkeypatch, version):
    """A format-1 file (text keys, one msgpack document per row, no checksums), format-2
    file (one row per method and graph, CRC seeded by its index), format-3 file (rows
    shared by content, no adjacency blob) or format-4 file (rows with their edges, no
    contributions), tables as that version created them, holding a graph of this very
    project: never read, replaced by an empty store of this format, even at a named
    --cache (it is qare's own older file)."""
    import msgpack

    assert gs.FORMAT == "qare-graph-store 5"
    root = str(FIXTURES / "qare-example")
    old = tmp_path / "c.sqlite.graphs"
    slot = gs.slot_key(root, "physical", 2_000_000)
    with sqlite3.connect(old) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        if version == 1:
            db.execute("CREATE TABLE graphs (gid INTEGER PRIMARY KEY AUTOINCREMENT, slot TEXT UNIQUE NOT NULL, "
                       "inputs BLOB, methods BLOB, summary BLOB, bytes INTEGER, used REAL)")
            db.execute("CREATE TABLE adj (gid INTEGER, src TEXT, blob BLOB, PRIMARY KEY (gid, src)) WITHOUT ROWID")
            db.execute("CREATE TABLE nodes (gid INTEGER, id TEXT, info BLOB, attrs BLOB, PRIMARY KEY (gid, id)) "
                       "WITHOUT ROWID")
            db.execute("INSERT INTO graphs VALUES (1, ?, ?, ?, ?, 10, ?)",
                       (slot, b"\x90", msgpack.packb([]), b"\x80", time.time()))
        elif version == 3:
            db.execute("CREATE TABLE graphs (gid INTEGER PRIMARY KEY AUTOINCREMENT, slot TEXT UNIQUE NOT NULL, "
                       "inputs BLOB, names BLOB, apis BLOB, rtas BLOB, summary BLOB, refs BLOB, crc INTEGER, "
                       "bytes INTEGER, used REAL)")
            db.execute("CREATE TABLE rows (h BLOB PRIMARY KEY, info BLOB, edges BLOB, refs INTEGER) WITHOUT ROWID")
            db.execute("INSERT INTO graphs VALUES (1, ?, ?, ?, ?, ?, ?, ?, 0, 10, ?)",
                       (slot, b"\x90", b"\x90", b"\x90", b"\x90", b"\x80", b"", time.time()))
        elif version == 4:
            db.execute("CREATE TABLE graphs (gid INTEGER PRIMARY KEY AUTOINCREMENT, slot TEXT UNIQUE NOT NULL, "
                       "inputs BLOB, names BLOB, apis BLOB, rtas BLOB, summary BLOB, refs BLOB, adj BLOB, "
                       "crc INTEGER, bytes INTEGER, used REAL)")
            db.execute("CREATE TABLE rows (h BLOB PRIMARY KEY, info BLOB, edges BLOB, refs INTEGER) WITHOUT ROWID")
            db.execute("INSERT INTO graphs VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 10, ?)",
                       (slot, b"\x90", b"\x90", b"\x90", b"\x90", b"\x80", b"", b"", time.time()))
        else:
            db.execute("CREATE TABLE graphs (gid INTEGER PRIMARY KEY AUTOINCREMENT, slot TEXT UNIQUE NOT NULL, "
                       "inputs BLOB, names BLOB, apis BLOB, rtas BLOB, summary BLOB, crc INTEGER, bytes INTEGER, "
                       "used REAL)")
            db.execute("CREATE TABLE nodes (gid INTEGER, idx INTEGER, info BLOB, edges BLOB, crc INTEGER, "
                       "PRIMARY KEY (gid, idx)) WITHOUT ROWID")
            db.execute("INSERT INTO graphs VALUES (1, ?, ?, ?, ?, ?, ?, 0, 10, ?)",
                       (slot, b"\x90", b"\x90", b"\x90", b"\x90", b"\x80", time.time()))
        db.execute("INSERT INTO meta VALUES ('format', ?)", (f"qare-graph-store {version}",))
    cold = CliRunner().invoke(main, ["chain", root, "processComment", "--no-discover-classpath", "--no-cache", "-q"])
    r = _chain([root, "processComment"], tmp_path / "c.sqlite")
    assert r.exit_code == 0 and r.stdout == cold.stdout, r.output
    assert "not used" not in r.stderr and "unreadable" not in r.stderr, r.stderr  # replaced, never read
    with sqlite3.connect(old) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == ("qare-graph-store 5",)
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name IN ('adj', 'nodes')").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM graphs").fetchone() == (1,)  # the graph just built
    _no_build(monkeypatch)
    again = _chain([root, "processComment"], tmp_path / "c.sqlite")
    assert again.exit_code == 0 and again.stdout == cold.stdout


def test_inputs_file_columns_round_trip_and_are_checked(tmp_path):
    import msgpack

    for name in ("A.java", "B.java"):
        (tmp_path / name).write_text(f"class {name[0]} {{}}\n")
    files = [_SF(tmp_path / "A.java", "A.java"), _SF(tmp_path / "B.java", "B.java", "test")]
    fp = gs.fingerprint(tmp_path, files, [], [], None, "physical", 1000)
    back = gs.Inputs.from_blob(fp.to_blob())
    assert back == fp and back.files[1][:3] == (str(tmp_path / "B.java"), "B.java", "test")
    st = os.stat(tmp_path / "B.java")
    assert back.files[1][3:8] == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    v = msgpack.unpackb(fp.to_blob(), raw=False)
    at = 1 + [f.name for f in gs.fields(gs.Inputs)].index("files")
    paths, rels, sets, stats, digests = v[at]
    for bad in ([paths, rels, sets, stats[:-1], digests], [paths, rels, sets, [*stats[:-1], "1"], digests],
                [paths, rels[:1], sets, stats, digests], [paths, rels, [1, 2], stats, digests],
                [paths, rels, sets, stats, [b"x", None]], [paths, rels, sets, b"\0" * 80, digests]):
        forged = list(v)
        forged[at] = bad
        with pytest.raises(gs.StoreError):
            gs.Inputs.from_blob(msgpack.packb(forged, use_bin_type=True))


# ------------------------------------------------------------------ the tester's store findings (s6)

def test_a_dropped_table_is_made_anew_and_the_graph_stored_again(tmp_path, monkeypatch):
    """After ``DROP TABLE graphs`` or ``DROP TABLE rows`` every chain used to say
    "rebuilt and stored again" and store nothing: the store is now made anew
    (its tables checked on opening), the graph stored, and the next call answers
    from it without a build."""
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    good = _chain([str(root), "processComment"], cache)
    for table in ("graphs", "rows"):
        with sqlite3.connect(f"{cache}.graphs") as db:
            db.execute(f"DROP TABLE {table}")
        r = CliRunner().invoke(main, ["chain", str(root), "processComment", "--no-discover-classpath",
                                      "--cache", str(cache)])
        assert r.exit_code == 0 and r.stdout == good.stdout, r.output
        assert "graph: built and stored (no stored graph; the store file was damaged" in r.stderr, r.stderr
        with monkeypatch.context() as m:
            _no_build(m)
            again = _chain([str(root), "processComment"], cache)
        assert again.exit_code == 0 and again.stdout == good.stdout, again.output


def test_a_graph_that_could_not_be_stored_is_said_so(tmp_path):
    """A write the store refuses (here a trigger aborts it) is a warning naming
    why, even with -q; never "stored"."""
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    good = _chain([str(root), "processComment"], cache)
    with sqlite3.connect(f"{cache}.graphs") as db:
        db.execute("DELETE FROM graphs")
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON graphs BEGIN SELECT RAISE(ABORT, 'refused here'); END")
    r = _chain([str(root), "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout, r.output
    assert "warning: graph built but not stored in" in r.stderr and "refused here" in r.stderr, r.stderr
    assert "stored again" not in r.stderr


def test_a_relative_and_an_absolute_classpath_entry_are_one_key(tmp_path, monkeypatch):
    """``--classpath lib/x.jar`` and its absolute path (or a link to it) name one
    jar: the second call answers from the graph the first stored."""
    import zipfile

    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    (tmp_path / "lib").mkdir()
    with zipfile.ZipFile(tmp_path / "lib" / "x.jar", "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    (tmp_path / "link.jar").symlink_to(tmp_path / "lib" / "x.jar")
    cache = tmp_path / "c.sqlite"
    monkeypatch.chdir(tmp_path)
    first = _chain([str(root), "processComment", "--classpath", "lib/x.jar"], cache)
    assert first.exit_code == 0, first.output
    _no_build(monkeypatch)
    for entry in (str(tmp_path / "lib" / "x.jar"), "link.jar", "./lib/../lib/x.jar"):
        r = _chain([str(root), "processComment", "--classpath", entry], cache)
        assert r.exit_code == 0 and r.stdout == first.stdout, (entry, r.output)


def test_an_answer_from_the_store_says_so_in_one_line(tmp_path, monkeypatch):
    """A new user could not tell when an answer came from the stored graph: one
    stderr line says it (without -q), and one says a graph was built and stored, and why."""
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    args = ["chain", str(root), "processComment", "--no-discover-classpath", "--cache", str(cache)]
    before = time.time()
    built = CliRunner().invoke(main, args)
    assert built.exit_code == 0 and "graph: built and stored (no stored graph)" in built.stderr, built.stderr
    _no_build(monkeypatch)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0 and r.stdout == built.stdout
    n = len(discover_sources(root)[0])
    lines = [x for x in r.stderr.splitlines() if x.startswith("graph:")]
    stamps = {time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) for t in (before - 1, time.time())}
    assert len(lines) == 1 and any(lines[0] == f"graph: from the store (built {s}, {n} files unchanged)"
                                   for s in stamps), r.stderr
    assert "graph:" not in CliRunner().invoke(main, [*args, "-q"]).stderr


def test_a_body_edit_writes_only_the_rows_that_changed(tmp_path):
    """Rows are shared by content and hold a method's ``MethodInfo`` only
    (format 5: its edges are in the adjacency blob): a body gaining a call
    on the same lines writes no row at all; a line added to it writes
    exactly the rows of the methods whose lines moved and drops their old
    ones; every other row is kept as it was, each counted once, and the
    answer is a cold build's."""
    root = _copy(FIXTURES / "qare-example", tmp_path / "p")
    cache = tmp_path / "c.sqlite"
    _chain([str(root), "processComment"], cache)
    rows = lambda: dict(sqlite3.connect(f"{cache}.graphs").execute("SELECT h, info FROM rows").fetchall())  # noqa: E731
    written = lambda: sqlite3.connect(f"{cache}.graphs").execute("SELECT n FROM written").fetchone()[0]  # noqa: E731
    before = rows()
    with sqlite3.connect(f"{cache}.graphs") as db:  # counts every row written (inserted, or its bytes rewritten)
        db.execute("CREATE TABLE written (n INTEGER)")
        db.execute("INSERT INTO written VALUES (0)")
        for event in ("INSERT", "UPDATE OF info"):
            db.execute(f"CREATE TRIGGER count_{event[:6]} AFTER {event} ON rows BEGIN "
                       "UPDATE written SET n = n + 1; END")
    src = root / "src/main/java/com/acme/CommentService.java"
    src.write_text(src.read_text().replace("        return true;\n", "        return count() >= 0;\n"))

    def cold():
        return CliRunner().invoke(main, ["chain", str(root), "processComment", "--no-discover-classpath",
                                         "--no-cache", "-q"])

    r = _chain([str(root), "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == cold().stdout, r.output
    assert written() == 0 and rows() == before  # only processComment's edges moved
    text = src.read_text()
    at = text.index("        return count() >= 0;\n")
    src.write_text(text[:at] + "        count();\n" + text[at:])  # one line more: this method and those after it
    r = _chain([str(root), "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == cold().stdout, r.output
    after = rows()
    new, gone = set(after) - set(before), set(before) - set(after)
    assert written() == len(new) >= 1 and len(gone) == len(new) and len(after) == len(before)
    with sqlite3.connect(f"{cache}.graphs") as db:
        _assert_rows_counted(db)


def test_a_graph_whose_row_list_is_bad_is_replaced_and_rows_recounted(tmp_path, monkeypatch):
    """A ``refs`` list that is no list of keys (its CRC recomputed: crafted):
    the graph is a miss and rebuilt, every row's count is recounted from the
    graphs' own lists (rows no graph names deleted), and another project's
    graph in the same store still answers."""
    a = _copy(FIXTURES / "qare-example", tmp_path / "a")
    b = _copy(FIXTURES / "chains", tmp_path / "b")
    cache = tmp_path / "c.sqlite"
    good_a = _chain([str(a), "processComment"], cache)
    good_b = _chain([str(b), "Paths.manyTargets"], cache)
    assert good_a.exit_code == 0 and good_b.exit_code == 0, good_b.output
    with sqlite3.connect(f"{cache}.graphs") as db:
        gid = db.execute("SELECT gid FROM graphs WHERE slot LIKE ?", (f"{a}%",)).fetchone()[0]
        db.execute("UPDATE rows SET refs = refs + 5")  # counts gone wrong too
    _set_graph_blob(f"{cache}.graphs", "refs", b"x", gid)
    r = _chain([str(a), "processComment"], cache)
    assert r.exit_code == 0 and r.stdout == good_a.stdout and "unreadable (row references)" in r.stderr, r.output
    with sqlite3.connect(f"{cache}.graphs") as db:
        _assert_rows_counted(db)
    _no_build(monkeypatch)
    for root, method, good in ((a, "processComment", good_a), (b, "Paths.manyTargets", good_b)):
        again = _chain([str(root), method], cache)
        assert again.exit_code == 0 and again.stdout == good.stdout, again.output


# ------------------------------------------------------------------ adjacency blob (format 4, s7)

def test_the_equivalence_fixtures_hold_cycles_cha_and_rta_edges():
    """What test_reach_from_the_store_equals_reach_on_the_whole_graph relies on to cover the
    adjacency's cases: a cycle (chains: Paths.cycle ↔ Paths.back; resolution: LibCalls.build
    calls itself), cha edges and rta-witnessed ones (resolution)."""
    import networkx as nx

    chains = build_project_graph(FIXTURES / "chains", auto_classpath=False).graph
    assert nx.find_cycle(chains)
    res = build_project_graph(FIXTURES / "resolution", auto_classpath=False).graph
    assert res.has_edge("res.lib.LibCalls.build()", "res.lib.LibCalls.build()")
    kinds = [d["resolution"] for _u, _v, d in res.edges(data=True)]
    assert "cha" in kinds and "name" in kinds and any(d.get("rta") for _u, _v, d in res.edges(data=True))


def test_the_adjacency_blob_holds_the_edges_worked_out_by_hand():
    """Two methods and one API: p.A.m() → p.B.n() (cha, witnessed by rta tuple 1, lines 7 and
    9), p.A.m() → x.Api.f() (exact, line 3); p.B.n() has no out-edge."""
    import msgpack

    from callgraph._index import MethodInfo

    names = ["p.A.m()", "p.B.n()", "x.Api.f()"]
    infos = {"p.A.m()": MethodInfo("p.A.m()", "A.java", 1, 4, 4, None, "main", "p.A", "m", ()),
             "p.B.n()": MethodInfo("p.B.n()", "B.java", 2, 3, 2, None, "test", "p.B", "n", ())}
    succ = {"p.A.m()": {"p.B.n()": {"lines": [7, 9], "resolution": "cha", "rta": ["main"]},
                        "x.Api.f()": {"lines": [3], "resolution": "exact"}}}
    rtas: dict = {}
    blob = gs.encode_adjacency(names[:2], infos, succ, {n: i for i, n in enumerate(names)}, rtas)
    assert rtas == {("main",): 1}
    assert msgpack.unpackb(blob) == [3, ["A.java", "B.java"], ["main", "test"], _u32(0, 1), b"\0\1", _u32(4, 2),
                                     _u32(0, 2, 2), _u32(1, 2), b"\2\0", _u32(1, 0), _u32(2, 1), _u32(7, 9, 3)]
    a = gs._Adjacency(blob, 2, 3, 1)
    assert (a.offsets, list(a.targets), list(a.kinds), list(a.rta), a.sites()) == (
        [0, 2, 2], [1, 2], [2, 0], [1, 0], ([0, 2, 3], [7, 9, 3]))
    assert a.attrs(1) == {"kind": "method", "file": "B.java", "loc": 2, "third_party": False, "library": None,
                          "source_set": "test"}
    for n_methods, n_nodes, n_rtas in ((1, 3, 1), (2, 4, 1), (2, 3, 0)):  # another graph's blob
        with pytest.raises(gs.StoreError):
            gs._Adjacency(blob, n_methods, n_nodes, n_rtas)


def _adjacency_of(store) -> list:
    import msgpack

    return msgpack.unpackb(sqlite3.connect(store).execute("SELECT adj FROM graphs").fetchone()[0])


def _words(b: bytes) -> list:
    import struct

    return list(struct.unpack(f"<{len(b) // 4}I", b))


def _forged(v: list, at: int, change) -> bytes:
    """The adjacency ``v`` with column ``at`` (a uint32 column, as a list of words) changed by ``change``."""
    import msgpack

    v = list(v)
    v[at] = _u32(*change(_words(v[at])))
    return msgpack.packb(v)


def _non_monotone(off: list) -> list:
    # two neighbouring offsets swapped where they differ: first and last stay 0 and E
    i = next(i for i in range(1, len(off) - 2) if off[i] != off[i + 1])
    off[i], off[i + 1] = off[i + 1], off[i]
    return off


def test_a_bad_adjacency_blob_is_a_miss(tmp_path):
    """A damaged adjacency blob (a flipped byte: the graph row's CRC) and crafted ones (CRC
    recomputed: truncated, offsets past the edges, non-monotone offsets, a target past the
    string table, an unknown kind, a witness past the table, an edge without a line, lines
    missing, a file index past the table, a column that is no whole number of words, another
    graph's node count): each a miss, rebuilt, the cold answer printed, never a traceback."""
    import msgpack

    root = str(FIXTURES / "resolution")
    cache = tmp_path / "c.sqlite"
    store = tmp_path / "c.sqlite.graphs"
    method = "res.lib.LibCalls.build()"  # calls itself and library code
    good = _chain([root, method, "--dispatch", "rta"], cache)
    assert good.exit_code == 0 and "depth" in good.stdout, good.output
    v = _adjacency_of(store)
    assert len(_words(v[6])) > 3  # offsets: enough methods to swap two
    cases = [
        ("truncated", msgpack.packb(v)[:-5], "adjacency"),
        ("offsets past the edges", _forged(v, 6, lambda o: o[:-1] + [o[-1] + 1]), "adjacency: offsets"),
        ("non-monotone offsets", _forged(v, 6, _non_monotone), "adjacency: offsets"),
        ("target past the string table", _forged(v, 7, lambda t: [v[0]] + t[1:]), "adjacency: edge columns"),
        ("witness past the table", _forged(v, 9, lambda r: [len(r) + 99] + r[1:]), "adjacency: edge columns"),
        ("an edge without a line", _forged(v, 10, lambda c: [0] + c[1:]), "adjacency: edge columns"),
        ("lines missing", _forged(v, 11, lambda ls: ls[:-1]), "adjacency: lines"),
        ("file index past the table", _forged(v, 3, lambda f: [len(v[1])] + f[1:]), "adjacency: method columns"),
        ("no whole number of words", msgpack.packb([*v[:7], v[7] + b"\0", *v[8:]]), "adjacency"),
        ("another graph's node count", msgpack.packb([v[0] + 1, *v[1:]]), "adjacency: tables"),
        ("an unknown kind", msgpack.packb([*v[:8], b"\4" + v[8][1:], *v[9:]]), "adjacency: edge columns"),
    ]
    for what, blob, why in cases:
        _set_graph_blob(store, "adj", blob)
        r = _chain([root, method, "--dispatch", "rta"], cache)
        assert r.exit_code == 0 and r.stdout == good.stdout, (what, r.output)
        assert f"unreadable ({why}" in r.stderr, (what, r.stderr)
        assert _adjacency_of(store) == v, what  # stored again, as built
    with sqlite3.connect(store) as db:  # one damaged byte, the CRC left as it was
        db.execute("UPDATE graphs SET adj = ?", (msgpack.packb(v)[:-1] + bytes([msgpack.packb(v)[-1] ^ 1]),))
    r = _chain([root, method, "--dispatch", "rta"], cache)
    assert r.exit_code == 0 and r.stdout == good.stdout and "unreadable (graph row: checksum)" in r.stderr, r.output


def test_reach_from_the_store_keeps_main_methods_out_of_test_code(tmp_path, commons_lang3):
    """test_cg_reach_sourcesets' project (its chains counted by hand there): a main method's
    cha edge to a test double (FakeGreeter.greet) is not followed from the store either, a
    test method enters both; every method, every dispatch mode, the view and the blob."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_sourcesets", Path(__file__).with_name("test_cg_reach_sourcesets.py"))
    ss = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ss)
    CAPITALIZE, PLAIN, REVERSE, SOURCES, TEST_WELCOME, WELCOME = (ss.CAPITALIZE, ss.PLAIN, ss.REVERSE, ss.SOURCES,
                                                                  ss.TEST_WELCOME, ss.WELCOME)

    root = tmp_path / "p"
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    pg, sg, store = _stored(tmp_path, root, [commons_lang3])
    try:
        got = sg.reach(sg.project_graph(pg.root), WELCOME, dispatch="cha")
        assert [(t.signature, t.chain) for t in got] == [(CAPITALIZE, (WELCOME, PLAIN, CAPITALIZE))]
        assert {t.signature for t in sg.reach(sg.project_graph(pg.root), TEST_WELCOME)} == {CAPITALIZE, REVERSE}
        for mid in pg.methods():
            for dispatch in ("rta", "cha", "declared"):
                want = pg.reach(mid, dispatch=dispatch)
                part = sg.project_graph(pg.root)
                sg.reachable(part, mid, dispatch=dispatch)
                assert part.reach(mid, dispatch=dispatch) == want, (mid, dispatch)
                assert sg.reach(sg.project_graph(pg.root), mid, dispatch=dispatch) == want, (mid, dispatch)
    finally:
        sg.close()
        store.close()


# ------------------------------------------------------------------ contributions (format 5, s8)

def _contrib_examples():
    from callgraph._callsite import Resolution
    from callgraph._contrib import FileContribution, made_digest

    a = FileContribution(((Resolution.EXACT, 3), (Resolution.UNRESOLVED, 1)), (("no receiver type", 1),),
                         (("no receiver type", "A.java:7"),), (("project", 2), ("jdk", 2)), (),
                         ("x.Api.f()",), made_digest(((("p.A", "new"),), ())))
    b = FileContribution(warnings=(("lib.jar", "bad CRC"),), made=made_digest(None), failed=None)
    c = FileContribution(made=made_digest(None), failed="expressions nested too deeply")
    return [a, b, c], ["p.A.m()", "p.B.n()", "x.Api.f()"]


def test_contributions_round_trip_worked_out_by_hand():
    """Three files: A resolved (counts, a reason with its example, site types, one API), B
    resolved with a classpath warning, C failed; the blob's columns as written by hand."""
    import msgpack

    from callgraph._rta import Instantiation, InstantiatedType

    contribs, names = _contrib_examples()
    inst = {"p.B": InstantiatedType("p.B", frozenset({Instantiation.NEW}), frozenset({"test"})),
            "p.A": InstantiatedType("p.A", frozenset({Instantiation.STEREOTYPE, Instantiation.NEW}),
                                    frozenset({"main", "test"}))}
    blob = gs.encode_contributions(contribs, {n: i for i, n in enumerate(names)}, "pk", inst)
    v = msgpack.unpackb(blob)
    assert v[:5] == ["pk", 3, ["no receiver type"], ["exact", "unresolved"], ["project", "jdk"]]
    assert (v[5], v[6], v[7]) == (_u32(0, 2, 2, 2), b"\0\1", _u32(3, 1))
    assert (v[8], v[9], v[10], v[11], v[12], v[13]) == (_u32(0, 1, 1, 1), _u32(0), _u32(1), _u32(0, 1, 1, 1),
                                                        _u32(0), ["A.java:7"])
    assert (v[14], v[15], v[16], v[17], v[18]) == (_u32(0, 2, 2, 2), b"\0\1", _u32(2, 2), _u32(0, 1, 1, 1), _u32(2))
    assert len(v[19]) == 48 and v[20] == [[1, [["lib.jar", "bad CRC"]]]] and v[21] == [[2, contribs[2].failed]]
    # the instantiated types sorted, each kind and source set a bit in the order first seen
    assert v[22:] == [["p.A", "p.B"], ["new", "stereotype"], _u32(3, 1), ["main", "test"], _u32(3, 2)]
    cols: list = []
    assert gs.decode_contributions(blob, 3, names, cols) == ("pk", contribs)
    assert gs.instantiated_of(cols) == inst
    assert gs.encode_contributions(contribs, {n: i for i, n in enumerate(names)}, "pk",
                                   instantiated_columns=cols) == blob
    assert gs.encode_contributions(contribs, {}, None) == b"" and gs.decode_contributions(b"", 3, names) == (None, None)


def test_a_bad_contributions_blob_is_refused():
    """Each crafted blob (the CRC would fit: only its shape is wrong) is a StoreError, never
    an IndexError, a wrong count or another file's share."""
    import msgpack

    contribs, names = _contrib_examples()
    v = msgpack.unpackb(gs.encode_contributions(contribs, {n: i for i, n in enumerate(names)}, "pk"))

    def forged(at, value):
        w = list(v)
        w[at] = value
        return msgpack.packb(w)

    for why, blob, n_files in (
            ("not a list", msgpack.packb({"a": 1}), 3),
            ("another graph's file count", msgpack.packb(v), 4),
            ("a key that is no string", forged(0, 5), 3),
            ("an unknown resolution kind", forged(3, ["exact", "guessed"]), 3),
            ("counts offsets past the end", forged(5, _u32(0, 2, 2, 3)), 3),
            ("non-monotone offsets", forged(8, _u32(0, 1, 0, 1)), 3),
            ("a reason past its table", forged(9, _u32(1)), 3),
            ("an example past its table", forged(12, _u32(4)), 3),
            ("examples without their texts", forged(13, []), 3),
            ("a site type past its table", forged(15, b"\0\2"), 3),
            ("an API past the string table", forged(18, _u32(3)), 3),
            ("a short made column", forged(19, b"\0" * 47), 3),
            ("a warning of a file past the graph", forged(20, [[3, [["a", "b"]]]]), 3),
            ("a warning that is no pair", forged(20, [[1, [["a"]]]]), 3),
            ("a failure twice", forged(21, [[2, "x"], [2, "y"]]), 3),
            ("a column of half words", forged(7, b"\1\0\0"), 3),
            ("no instantiated types", msgpack.packb(v[:22]), 3)):
        with pytest.raises(gs.StoreError):
            gs.decode_contributions(blob, n_files, names)
            pytest.fail(why)
    for why, at, value in (("an unknown kind of instantiation", 23, ["made up"]),
                           ("a kind bit past the table", 24, _u32(2)),
                           ("a source-set bit past the table", 26, _u32(2)),
                           ("a type twice", 22, ["p.A", "p.A"]),
                           ("one bit word for no type", 22, [])):
        w = list(v)
        w[22:] = [["p.A"], ["new"], _u32(1), ["main"], _u32(1)]
        w[at] = value
        cols: list = []
        gs.decode_contributions(msgpack.packb(w), 3, names, cols)
        with pytest.raises(gs.StoreError):
            gs.instantiated_of(cols)
            pytest.fail(why)


def test_a_cached_build_stores_each_files_contribution(tmp_path):
    """A build with the warm cache keeps every file's share of the summary in the store
    (summed again, it is the build's own counts, reasons, examples and site types); one
    without the cache keeps none (such a graph is never patched)."""
    from callgraph._contrib import aggregate, top_reasons

    root = FIXTURES / "resolution"
    (tmp_path / "qc").mkdir(mode=0o700)
    pg = build_project_graph(root, auto_classpath=False, cache=tmp_path / "qc" / "c.sqlite")
    assert pg.contributions is not None and len(pg.contributions) == pg.summary.files
    counts, reasons, sites, examples = aggregate(pg.contributions, [], set())
    s = pg.summary
    assert sum(counts.values()) == s.call_sites and top_reasons(reasons) == s.top_reasons
    assert examples == s.examples and dict(sites) == {k: v for k, v in s.site_types.items() if v}
    files, skipped = discover_sources(root, max_file_bytes=2_000_000)
    fp = gs.fingerprint(root, files, skipped, [], callgraph.classpath.find_jdk("auto"), "physical", 2_000_000)
    store = gs.GraphStore(tmp_path / "qc" / "g.sqlite")
    try:
        assert store.save(fp, pg)
        sg = store.previous(root, "physical", 2_000_000)
        assert gs.decode_contributions(sg.raw["contrib"], len(fp.files), sg.names) == (pg.project_key,
                                                                                       list(pg.contributions))
        sg.close()
        bare = build_project_graph(root, auto_classpath=False)
        assert bare.contributions is None
        store.unreadable.add(fp.slot())  # stored again although its inputs are the same
        assert store.save(fp, bare)
        sg = store.previous(root, "physical", 2_000_000)
        assert sg.raw["contrib"] == b""
        sg.close()
    finally:
        store.close()
