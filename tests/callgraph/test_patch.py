"""A build after method-body edits patched from the stored graph
(callgraph._patch, docs/callgraph.md "One edited method body"). Every step
of a series of edits is compared with a cold build of the same sources
(no cache, a fresh folder): the graph (nodes, edges and their attributes,
in order), the summary (every field but the times and cache counts), the
graph store's rows and tables (byte for byte), ``qare graph``'s summary
lines and ``--out``, and ``qare chain``'s answers; the steps that must be
patched (only bodies changed, no node added or removed, no instantiated type
changed) are checked to have been, the others to have been built whole, and
why."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner

import callgraph
from callgraph import _graphstore as gs
from callgraph import build_project_graph
from callgraph._discover import discover_sources
from callgraph._patch import PatchedGraph
from qare.cli import main

SRC = {
    "I.java": "package p;\npublic interface I { void run(); }\n",
    "X.java": "package p;\npublic class X implements I {\n    public void run() { System.out.println(\"x\"); }\n}\n",
    "Y.java": "package p;\npublic class Y implements I {\n    public void run() { }\n}\n",
    "Main.java": """package p;
public class Main {
    void go(I i) {
        i.run();
        new X();
    }
    int size(java.util.List<String> l) {
        return l.size();
    }
}
""",
    "Other.java": """package p;
class Other {
    void call(I i) { i.run(); }
    int b() {
        int x = 1;
        return x;
    }
}
""",
    # A.a's cha edge to K.m (no instantiated K: witness tuple ()) comes first in method order: the
    # witness table numbers () before ("main",) while it is there, and after once it is gone
    "A.java": """package p;
interface J { void m(); }
class K implements J { public void m() { } }
class A {
    void a(J j) {
        j.m();
    }
}
""",
    "Z.java": """package p;
class Z {
    void z(Object o) {
        o.hashCode();
        missing.call();
    }
    void w() {
        unknownThing.go();
    }
}
""",
}


def _write(project: Path, files: dict) -> None:
    for name, text in files.items():
        p = project / "src/main/java/p" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _edit(project: Path, name: str, old: str, new: str) -> None:
    p = project / "src/main/java/p" / name
    text = p.read_text()
    assert old in text, (name, old)
    p.write_text(text.replace(old, new, 1))


# the steps of the series: (file, old, new, patched?, why not)
STEPS = [
    ("Main.java", "        i.run();\n", "        i.run();\n        i.run();\n", True, None),  # lines move after it
    ("Z.java", "        unknownThing.go();\n", "        o2();\n", True, None),  # a reason and its example go
    ("Other.java", "        int x = 1;\n", "        int x = 1;\n        new Y();\n", False, "another instantiated type"),
    ("Other.java", "        return x;\n", "        return Math.abs(x);\n", False, "a new node"),
    ("Main.java", "return l.size();", "return 0;", False, "an API node no file reaches any more"),
    ("Other.java", "    void call(I i) { i.run(); }\n", "    void call(I i) {\n        i.run();\n    }\n", True, None),
    ("Z.java", "        o.hashCode();\n", "        o.hashCode();\n        missing.call();\n", True, None),
    ("Other.java", "int b() {", "int b(int y) {", False, "another project key (a declaration changed)"),
    ("Other.java", "        int x = 1;\n", "        int x = 3;\n", True, None),
    ("A.java", "        j.m();\n", "        j.hashCode();\n", True, None),  # the witness table renumbered
    ("A.java", "        j.hashCode();\n", "        j.m();\n", True, None),  # and back
]


def _graph_lists(g):
    return (list(g.nodes(data=True)), list(g.edges(data=True)), [list(g.pred[n].items()) for n in g])


def _assert_same_build(pg, cold) -> None:
    """``pg`` (patched or whole) is ``cold``'s graph, summary and stored encoding."""
    assert _graph_lists(pg.graph) == _graph_lists(cold.graph)
    for f in dataclasses.fields(pg.summary):
        if f.name not in ("seconds", "phases", "cache"):
            assert getattr(pg.summary, f.name) == getattr(cold.summary, f.name), f.name
    mine = pg.encoded_for_store() if isinstance(pg, PatchedGraph) else gs.encode_graph(pg)
    theirs = gs.encode_graph(cold)
    for f in ("names", "apis", "rtas", "refs", "adj", "contrib", "row_bytes"):
        assert getattr(mine, f) == getattr(theirs, f), f
    if cold.project_key is not None:  # --out's frame: from the stored tables for a patched graph, no networkx
        from qare._outpatch import frame
        from qare.cmd_callgraph import _unresolved_nodes

        skip = frozenset(_unresolved_nodes(cold.graph))
        assert pg.instantiated == cold.instantiated
        view_frame = frame(pg, skip)
        assert view_frame == frame(cold, skip) and view_frame is not None


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "p"
    _write(root, SRC)
    return root


def test_a_series_of_body_edits_is_patched_exactly_or_built_whole(tmp_path, project):
    (tmp_path / "c").mkdir(mode=0o700)
    store = gs.GraphStore(tmp_path / "c" / "g.sqlite")
    jdk = callgraph.classpath.find_jdk("auto")
    cold_n = [0]

    def build():
        files, skipped = discover_sources(project, max_file_bytes=2_000_000)
        prev = store.previous(project, "physical", 2_000_000)
        fp = gs.fingerprint(project, files, skipped, [], jdk, "physical", 2_000_000,
                            previous=prev.inputs if prev else None)
        pg = build_project_graph(project, auto_classpath=False, cache=tmp_path / "c" / "c.sqlite", previous=prev,
                                 sources=(files, skipped))
        cold_n[0] += 1
        fresh = tmp_path / f"fresh{cold_n[0]}"
        fresh.mkdir(mode=0o700)
        cold = build_project_graph(project, auto_classpath=False, cache=fresh / "c.sqlite")
        _assert_same_build(pg, cold)
        if isinstance(pg, PatchedGraph):
            pg.release()
        elif prev is not None:
            prev.close()
        assert store.save(fp, pg), store.last_error
        return pg

    try:
        pg = build()
        assert not isinstance(pg, PatchedGraph)
        for name, old, new, patched, why in STEPS:
            _edit(project, name, old, new)
            pg = build()
            assert isinstance(pg, PatchedGraph) == patched, (name, new, pg.summary.cache.get("not_patched"))
            assert pg.summary.cache.get("not_patched") == why, (name, new)
            if patched:
                assert pg.summary.cache["graph_patched"] == 1
    finally:
        store.close()


def test_the_whole_graph_of_a_patched_build_is_read_while_it_is_held(tmp_path, project):
    """``PatchedGraph.graph`` (for a caller that needs networkx: another
    format, another dispatch) and ``method()`` of an unedited method read the
    stored graph until ``release``; after it, a StoreError, never stale rows."""
    (tmp_path / "c").mkdir(mode=0o700)
    store = gs.GraphStore(tmp_path / "c" / "g.sqlite")
    files, skipped = discover_sources(project, max_file_bytes=2_000_000)
    fp = gs.fingerprint(project, files, skipped, [], None, "physical", 2_000_000)
    store.save(fp, build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite"))
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    prev = store.previous(project, "physical", 2_000_000)
    pg = build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite",
                             previous=prev)
    try:
        assert isinstance(pg, PatchedGraph)
        assert pg.method("p.Other.b()").start_line == 4  # an unedited method, from its stored row
        assert pg.method("p.Main.size(java.util.List)").start_line == 8  # an edited file's, moved one line
        cold = build_project_graph(project, auto_classpath=False, jdk=None)
        assert _graph_lists(pg.graph) == _graph_lists(cold.graph)
        pg.release()
        pg2 = build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite",
                                  previous=store.previous(project, "physical", 2_000_000))
        assert isinstance(pg2, PatchedGraph)
        pg2.release()
        with pytest.raises(gs.StoreError):
            pg2.graph
    finally:
        store.close()


def test_a_bad_contributions_table_is_built_whole(tmp_path, project):
    """The stored contributions are a stranger's data: one that does not
    decode (its CRC made to fit) is no patch, and the whole build is right."""
    (tmp_path / "c").mkdir(mode=0o700)
    store = gs.GraphStore(tmp_path / "c" / "g.sqlite")
    files, skipped = discover_sources(project, max_file_bytes=2_000_000)
    fp = gs.fingerprint(project, files, skipped, [], None, "physical", 2_000_000)
    store.save(fp, build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite"))
    store.close()
    with sqlite3.connect(tmp_path / "c" / "g.sqlite") as db:
        blob = db.execute("SELECT contrib FROM graphs").fetchone()[0]
        v = msgpack.unpackb(blob)
        v[18] = v[18][:-4] + (10 ** 6).to_bytes(4, "little")  # an API node past the string table
        _set_blob(db, "contrib", msgpack.packb(v))
    store = gs.GraphStore(tmp_path / "c" / "g.sqlite")
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    prev = store.previous(project, "physical", 2_000_000)
    try:
        pg = build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite",
                                 previous=prev)
        assert not isinstance(pg, PatchedGraph)
        assert "StoreError" in pg.summary.cache["not_patched"]
        _assert_same_build(pg, build_project_graph(project, auto_classpath=False, jdk=None,
                                                   cache=tmp_path / "fresh.sqlite"))
    finally:
        prev.close()
        store.close()


def _set_blob(db, column: str, value: bytes) -> None:
    import zlib

    db.execute(f"UPDATE graphs SET {column} = ?", (value,))
    cols = ("inputs", "names", "apis", "rtas", "summary", "refs", "adj", "contrib")
    for gid, *blobs in db.execute(f"SELECT gid, {', '.join(cols)} FROM graphs").fetchall():
        crc = 0
        for b in blobs:
            crc = zlib.crc32(b, crc)
        db.execute("UPDATE graphs SET crc = ? WHERE gid = ?", (crc, gid))


def test_a_patch_of_a_graph_replaced_meanwhile_is_not_stored(tmp_path, project):
    """Another process stored the slot's graph between this build's read of
    it and its write: the patch (made from the old one) is not stored over
    it, and says why."""
    (tmp_path / "c").mkdir(mode=0o700)
    path = tmp_path / "c" / "g.sqlite"
    store = gs.GraphStore(path)
    files, skipped = discover_sources(project, max_file_bytes=2_000_000)
    fp = gs.fingerprint(project, files, skipped, [], None, "physical", 2_000_000)
    whole = build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite")
    store.save(fp, whole)
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    prev = store.previous(project, "physical", 2_000_000)
    pg = build_project_graph(project, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite",
                             previous=prev)
    assert isinstance(pg, PatchedGraph)
    pg.release()
    fp2 = gs.fingerprint(project, files, skipped, [], None, "physical", 2_000_000)
    # meanwhile the file is edited again, and another process builds and stores that graph
    _edit(project, "Main.java", "        new X();\n", "        new X();\n        go(null);\n")
    other = gs.GraphStore(path)
    assert other.save(gs.fingerprint(project, files, skipped, [], None, "physical", 2_000_000),
                      build_project_graph(project, auto_classpath=False, jdk=None))
    other.close()
    assert not store.save(fp2, pg)
    assert "changed while" in store.last_error
    with sqlite3.connect(path) as db:  # the other process's graph and rows stand, counted right
        want: dict = {}
        for (refs,) in db.execute("SELECT refs FROM graphs"):
            for j in range(0, len(refs), 16):
                want[refs[j:j + 16]] = want.get(refs[j:j + 16], 0) + 1
        assert dict(db.execute("SELECT h, refs FROM rows").fetchall()) == want
    store.close()


# ------------------------------------------------------------------ the command line

def _cli(args, cache_dir: Path):
    env = {"QARE_CACHE_DIR": str(cache_dir)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _summary_lines(stdout: str, out: Path) -> list:
    return [ln.replace(str(out), "OUT") for ln in stdout.splitlines() if not ln.startswith(("time: ", "phases: "))]


def _store_state(path: Path) -> tuple:
    """The stored graph as data: its tables (all but the inputs' times and
    the summary's times and cache counts) and the rows it names."""
    with sqlite3.connect(path) as db:
        names, apis, rtas, summary, refs, adj, contrib = db.execute(
            "SELECT names, apis, rtas, summary, refs, adj, contrib FROM graphs").fetchone()
        rows = dict(db.execute("SELECT h, info FROM rows").fetchall())
    s = msgpack.unpackb(summary, strict_map_key=False)
    for k in ("seconds", "phases", "cache"):
        s.pop(k)
    return names, apis, rtas, refs, adj, contrib, s, sorted(rows[refs[j:j + 16]] for j in range(0, len(refs), 16))


METHODS = ["p.Main.go", "p.Other.call", "p.Z.z", "p.Other.b", "p.A.a"]


def test_qare_graph_after_body_edits_stores_and_answers_as_a_cold_build(tmp_path, project):
    """``qare graph --out`` on the warm cache and store after each step:
    its summary lines, ``--out``, the store's tables and rows and ``qare
    chain``'s answers from that store are those of a cold ``qare graph`` in
    a fresh cache folder."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    common = ["--no-discover-classpath", "-q", "--jobs", "1"]
    for step, (name, old, new, _patched, _why) in enumerate([(None, None, None, None, None), *STEPS]):
        if name is not None:
            _edit(project, name, old, new)
        warm_out, cold_out = tmp_path / f"w{step}.json", tmp_path / f"c{step}.json"
        warm = _cli(["graph", str(project), "--out", str(warm_out), *common], cache)
        fresh = tmp_path / f"fresh{step}"
        fresh.mkdir(mode=0o700)
        cold = _cli(["graph", str(project), "--out", str(cold_out), *common], fresh)
        assert warm.exit_code == cold.exit_code == 0, (warm.output, cold.output)
        assert _summary_lines(warm.stdout, warm_out) == _summary_lines(cold.stdout, cold_out), step
        assert warm_out.read_bytes() == cold_out.read_bytes(), step
        assert _store_state(cache / "graphs.sqlite") == _store_state(fresh / "graphs.sqlite"), step
        with sqlite3.connect(cache / "graphs.sqlite") as db:
            stored = msgpack.unpackb(db.execute("SELECT summary FROM graphs").fetchone()[0], strict_map_key=False)
        assert ("graph_patched" in stored["cache"]) == bool(_patched), (step, stored["cache"])
        for m in METHODS:
            a = _cli(["chain", str(project), m, *common], cache)
            b = _cli(["chain", str(project), m, *common], fresh)
            assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout, (step, m, a.output, b.output)


def test_an_edit_reads_the_stored_graph_once_and_checks_the_previous_output_while_it_builds(tmp_path, project,
                                                                                            monkeypatch):
    """``qare graph --out`` after a body edit: the look-up that finds the
    inputs changed reads the stored graph the patch then uses (one read of
    its 30 MB row on spring-framework, not two), and the previous output's
    body is checked in a thread started before the build."""
    from qare import _outcache

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    common = ["--no-discover-classpath", "-q", "--jobs", "1"]
    assert _cli(["graph", str(project), "--out", str(tmp_path / "a.json"), *common], cache).exit_code == 0
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    reads, prefetched = [], []
    real_read, real_prefetch = gs.GraphStore._read, _outcache.OutputCache.prefetch
    monkeypatch.setattr(gs.GraphStore, "_read", lambda self, *a: reads.append(1) or real_read(self, *a))
    monkeypatch.setattr(_outcache.OutputCache, "prefetch",
                        lambda self, key: prefetched.append(key) or real_prefetch(self, key))
    res = _cli(["graph", str(project), "--out", str(tmp_path / "b.json"), *common], cache)
    assert res.exit_code == 0, res.output
    assert reads == [1] and len(prefetched) == 1
    with sqlite3.connect(cache / "graphs.sqlite") as db:
        stored = msgpack.unpackb(db.execute("SELECT summary FROM graphs").fetchone()[0], strict_map_key=False)
    assert stored["cache"].get("graph_patched") == 1
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o700)
    assert _cli(["graph", str(project), "--out", str(tmp_path / "c.json"), *common], fresh).exit_code == 0
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()


def test_qare_chain_after_a_body_edit_patches_the_stored_graph_and_answers_from_it(tmp_path, project):
    """``qare chain`` whose project had a body edited since its graph was
    stored: the graph is patched and stored, then the answer comes from the
    store's arrays, as for an unchanged project — the cold build's answer."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    common = ["--no-discover-classpath", "-q", "--jobs", "1"]
    assert _cli(["chain", str(project), "p.Main.go", *common], cache).exit_code == 0
    for step, (name, old, new, patched, _why) in enumerate(STEPS[:3]):
        _edit(project, name, old, new)
        for m in METHODS:
            a = _cli(["chain", str(project), m, *common], cache)
            fresh = tmp_path / f"fresh{step}{m}"
            fresh.mkdir(mode=0o700)
            b = _cli(["chain", str(project), m, *common, "--no-cache"], fresh)
            assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout, (step, m, a.output, b.output)
        with sqlite3.connect(cache / "graphs.sqlite") as db:
            stored = msgpack.unpackb(db.execute("SELECT summary FROM graphs").fetchone()[0], strict_map_key=False)
        assert ("graph_patched" in stored["cache"]) == patched, (step, stored["cache"])


def _drop_row(db_path: Path, method: str) -> None:
    """Delete the stored row of ``method`` (the rows table has no CRC over it: its graph's does not cover it)."""
    import shutil

    with sqlite3.connect(db_path) as db:
        names, refs = db.execute("SELECT names, refs FROM graphs").fetchone()
        n, _total, text = msgpack.unpackb(names)
        i = text.decode().split("\0")[:n].index(method)
        assert db.execute("DELETE FROM rows WHERE h = ?", (refs[16 * i:16 * i + 16],)).rowcount == 1
    shutil.rmtree(f"{db_path}.out", ignore_errors=True)  # --out then written from the rows, not patched


def test_a_missing_stored_row_met_while_out_is_written_builds_whole(tmp_path, project):
    """The tester's case (session 8): after a body edit the patch reads only
    the edited methods' rows; ``--out`` written in full reads every other
    one. A missing row was exit 4 "cannot write --out"; now the graph is
    built whole and stored again over the damaged slot (its rows recounted:
    the missing row is back), ``--out`` is the cold build's, and the next
    run is answered from the store without a warning."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    common = ["--no-discover-classpath", "-q", "--jobs", "1"]
    assert _cli(["graph", str(project), "--out", str(tmp_path / "a.json"), *common], cache).exit_code == 0
    _drop_row(cache / "graphs.sqlite", "p.Other.b()")
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    res = _cli(["graph", str(project), "--out", str(tmp_path / "b.json"), *common], cache)
    assert res.exit_code == 0, res.output
    assert "unreadable (no method row for p.Other.b()); rebuilt and stored again" in res.stderr
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o700)
    assert _cli(["graph", str(project), "--out", str(tmp_path / "c.json"), *common], fresh).exit_code == 0
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()
    assert _store_state(cache / "graphs.sqlite") == _store_state(fresh / "graphs.sqlite")
    again = _cli(["graph", str(project), "--out", str(tmp_path / "d.json"), "--no-discover-classpath",
                  "--jobs", "1"], cache)
    assert again.exit_code == 0 and "warning" not in again.stderr and "graph: from the store" in again.stderr
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "c.json").read_bytes()


def test_a_missing_stored_row_met_by_chain_after_a_patch_builds_whole(tmp_path, project):
    """``qare chain`` after a body edit answers from the patched store; a
    row the patch did not read, missing, was a traceback (the tester,
    session 8): now built whole, stored again, the cold build's answer."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    common = ["--no-discover-classpath", "-q", "--jobs", "1"]
    assert _cli(["chain", str(project), "p.Other.call", *common], cache).exit_code == 0
    _drop_row(cache / "graphs.sqlite", "p.Other.call(p.I)")
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    res = _cli(["chain", str(project), "p.Other.call", *common], cache)
    assert res.exit_code == 0, res.output
    assert "no method row for p.Other.call(p.I)); rebuilt and stored again" in res.stderr
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o700)
    cold = _cli(["chain", str(project), "p.Other.call", *common, "--no-cache"], fresh)
    assert res.stdout == cold.stdout
    again = _cli(["chain", str(project), "p.Other.call", "--no-discover-classpath", "--jobs", "1"], cache)
    assert again.exit_code == 0 and "warning" not in again.stderr and again.stdout == cold.stdout


def test_a_rebuild_after_a_bad_stored_row_says_the_classpath_warnings_once(tmp_path, project):
    """The build made again after a bad stored row (met while ``--out`` is
    written after a patch, or by ``qare chain``) printed the classpath
    warnings its first build had printed, a second time (session 8's note)."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    notes = tmp_path / "passwd"
    notes.write_text("root:x:0:0:root:/root:/bin/bash\n")
    warning = f"warning: classpath entry {notes}: unreadable classpath entry: BadZipFile: File is not a zip file"
    common = ["--no-discover-classpath", "-q", "--jobs", "1", "--classpath", str(notes)]
    first = _cli(["graph", str(project), "--out", str(tmp_path / "a.json"), *common], cache)
    assert first.exit_code == 1 and first.stderr.count(warning) == 1, first.stderr
    _drop_row(cache / "graphs.sqlite", "p.Other.b()")
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    res = _cli(["graph", str(project), "--out", str(tmp_path / "b.json"), *common], cache)
    assert res.exit_code == 1 and "rebuilt and stored again" in res.stderr, res.stderr
    assert res.stderr.count(warning) == 1, res.stderr
    _drop_row(cache / "graphs.sqlite", "p.Other.call(p.I)")
    res = _cli(["chain", str(project), "p.Other.call", *common], cache)
    assert res.exit_code == 1 and "rebuilt and stored again" in res.stderr, res.stderr
    assert res.stderr.count(warning) == 1, res.stderr
