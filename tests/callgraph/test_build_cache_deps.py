"""Per-dependent invalidation of the warm cache (callgraph._deps,
docs/callgraph.md "Warm cache"): a file's stored resolution is reused iff
every look-up its resolver made of the project index gives the same answer
again. Each case checks which files were resolved again and that the warm
graph is byte-identical to a cold build of the same sources."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgpack
import pytest

import callgraph._build as build_mod
from callgraph import build_project_graph
from callgraph import _deps
from tests.callgraph._warm_project import reseal as _reseal, edit as _edit, graph_bytes as _bytes, project

FILES = (  # under fixtures/java/warm-cache/ (tests/callgraph/_warm_project.py)
    "p/A.java", "p/B.java", "p/Shape.java", "p/Circle.java", "p/Use.java", "r/Helper.java", "q/U.java", "q/D.java",
)


def _project(tmp_path: Path) -> Path:
    return project(tmp_path, FILES)



def _build(root, cache, monkeypatch=None, jobs=1):
    """(graph, rel paths of the files resolved in this run)."""
    resolved = []
    if monkeypatch is not None:
        real = build_mod._resolve_file

        def spy(fi):
            resolved.append(build_mod._STATE["rels"][fi])
            return real(fi)

        monkeypatch.setattr(build_mod, "_resolve_file", spy)
    pg = build_project_graph(root, auto_classpath=False, jdk=None, cache=cache, jobs=jobs)
    if monkeypatch is not None:
        monkeypatch.undo()
    return pg, sorted(resolved)


def _warm_equals_cold(root, cache, monkeypatch):
    warm, resolved = _build(root, cache, monkeypatch)
    cold, _ = _build(root, None)
    assert _bytes(warm) == _bytes(cold)
    return warm, resolved


def test_body_edit_re_resolves_only_its_own_file(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    _edit(root, "p/A.java", "        return x + 1;\n", "        int y = x * 2;\n\n        return y + g();\n")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert resolved == ["p/A.java"]
    assert warm.summary.cache["resolved_verified"] == 0  # no declaration changed: no look-up replayed
    assert warm.graph.has_edge("p.A.f(int)", "p.A.g()")


def test_signature_change_re_resolves_its_dependents_only(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    _edit(root, "p/A.java", "public int f(int x)", "public int f(long x)")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert resolved == ["p/A.java", "p/B.java"]  # B calls A.f; nothing else looks at A
    assert warm.summary.cache["resolved_verified"] == 6  # the others' look-ups replayed, same answers
    assert warm.graph.has_edge("p.B.use(p.A)", "p.A.f(long)")
    # and the next run needs no replay: the rows now carry this project key
    again, resolved = _build(root, cache, monkeypatch)
    assert resolved == [] and again.summary.cache["resolved_verified"] == 0


def test_the_replay_in_worker_processes_gives_the_same_verdicts(tmp_path, monkeypatch):
    """Several jobs: the distinct look-ups of every row are asked in forked
    workers (``_deps.verify_many``); same files resolved, same graph."""
    import multiprocessing

    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    _edit(root, "p/A.java", "public int f(int x)", "public int f(long x)")
    pools = []
    real = multiprocessing.get_context

    def context(method=None):
        pools.append(method)
        return real(method)

    monkeypatch.setattr(_deps, "_POOL_MIN_LOOKUPS", 0)
    monkeypatch.setattr(_deps, "_CHUNK_MIN", 1)  # many tasks: their answers must come back in order
    monkeypatch.setattr(multiprocessing, "get_context", context)
    warm = build_project_graph(root, auto_classpath=False, jdk=None, cache=cache, jobs=2)
    monkeypatch.undo()
    assert pools == ["fork"]  # the replay's pool (pass 2 has 2 files: no pool)
    assert warm.summary.cache["resolved_verified"] == 6 and warm.summary.cache["resolved_misses"] == 2
    assert _bytes(warm) == _bytes(_build(root, None)[0])


def test_verify_many_fails_only_the_files_whose_answers_changed(tmp_path):
    from callgraph._index import ProjectIndex
    from callgraph._build import _pass1
    from callgraph._discover import discover_sources

    root = _project(tmp_path)
    files, _ = discover_sources(root)
    facts = [_pass1((sf, "physical", 2_000_000, False))[0] for sf in files]
    idx = ProjectIndex(facts, None, "physical", root=root)
    rels = [f.rel for f in facts]
    fps = _deps.Fingerprints(rels)
    fi_of = {r: i for i, r in enumerate(rels)}
    known = fps.fingerprint(idx.types.get("p.A"))
    rows = [["t", "types", _deps._pack(("p.A",)), _deps._pack(()), known]]
    wrong = [["t", "types", _deps._pack(("p.A",)), _deps._pack(()), b"?" * 12]]
    gone = [["t", "type_file", _deps._pack((_deps.FileRef("p/Gone.java"),)), _deps._pack(()), known]]
    blobs = [msgpack.packb(r) for r in (rows, wrong, rows + wrong, gone)] + [b"\xc1", msgpack.packb([])]
    assert _deps.verify_many(blobs, idx, fps, fi_of) == [True, False, False, False, False, True]
    assert _deps.verify(blobs[0], idx, fps, fi_of)


def test_a_new_class_shadowing_an_on_demand_import_re_resolves_the_importer(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold, _ = _build(root, cache)
    assert cold.graph.has_edge("q.U.u(r.Helper)", "r.Helper.run()")
    # a type of U's own package beats the on-demand import r.* (JLS 6.4.1)
    (root / "q/Helper.java").write_text("package q;\npublic class Helper {\n    public void run() {\n    }\n}\n")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert "q/U.java" in resolved and "q/Helper.java" in resolved
    assert not {"p/A.java", "p/B.java", "p/Use.java", "p/Circle.java"} & set(resolved)
    assert warm.graph.has_edge("q.U.u(q.Helper)", "q.Helper.run()")


def test_a_new_overriding_subclass_re_resolves_the_cha_callers(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold, _ = _build(root, cache)
    assert cold.graph.has_edge("p.Use.total(p.Shape)", "p.Circle.area()")
    (root / "p/Square.java").write_text(
        "package p;\npublic class Square extends Shape {\n    public double area() {\n        return 4.0;\n    }\n}\n")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert "p/Use.java" in resolved  # the overriders of Shape.area() changed
    assert not {"p/A.java", "p/B.java", "q/U.java", "q/D.java"} & set(resolved)
    assert warm.graph.edges["p.Use.total(p.Shape)", "p.Square.area()"]["resolution"] == "cha"


def test_a_series_of_edits_stays_identical_to_cold_builds(tmp_path, monkeypatch):
    """The real test of exactness: after every edit the warm graph is the
    cold one, byte for byte."""
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    edits = [
        ("p/B.java", "return a.f(3) + a.g();", "return a.f(3) + a.g() + new A().g();"),  # body
        ("p/A.java", "public int g() {", "public int g(int... more) {"),  # signature: varargs
        ("p/Circle.java", "public double area()", "public double area(int scale)"),  # no longer overrides
        ("r/Helper.java", "public void run() {", "public void run() {\n    }\n    public void run(int n) {"),
        ("q/U.java", "h.run();", "h.run(1);"),
        ("p/A.java", "public class A {", "public class A extends Shape {\n    public double area() { return 0; }"),
        ("p/Circle.java", "public double area(int scale)", "public double area()"),  # back again
    ]
    for rel, old, new in edits:
        _edit(root, rel, old, new)
        _warm_equals_cold(root, cache, monkeypatch)
    (root / "p/Shape.java").unlink()  # a removed type: its dependents re-resolve
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert {"p/Use.java", "p/Circle.java"} <= set(resolved)


def test_new_file_shifting_the_file_indices_invalidates_nothing_by_itself(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    # one type declared in two modules: the index lists them with file indices (ProjectIndex.merged)
    for m in ("m1", "m2"):
        (root / m / "src/main/java/z").mkdir(parents=True)
        (root / m / "src/main/java/z/Dup.java").write_text("package z;\npublic class Dup {\n}\n")
    _build(root, cache)
    # sorts before both Dup files: their indices shift by one
    (root / "m1/src/main/java/a").mkdir()
    (root / "m1/src/main/java/a/First.java").write_text("package a;\npublic class First {\n}\n")
    _, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert resolved == ["m1/src/main/java/a/First.java"]


def test_a_recorded_look_up_of_another_door_is_never_replayed(tmp_path, monkeypatch):
    """A row names the look-ups to replay: one that is not a read-only door of
    the index (a stranger's row asking it to rebuild its tables) is a miss,
    never called."""
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    called = []
    monkeypatch.setattr("callgraph._index.ProjectIndex._build_methods", lambda *a: called.append(a))
    db = sqlite3.connect(cache)
    bad = msgpack.packb([["m", "_build_methods", _deps._pack(("p.A", None)), _deps._pack(()), b"x" * 12]])
    db.execute("UPDATE resolved SET deps = ?, pkey = 'other'", (bad,))
    _reseal(db)
    db.commit()
    db.close()
    monkeypatch.undo()
    pg, resolved = _build(root, cache, monkeypatch)
    assert not called and len(resolved) == len(FILES)


@pytest.mark.parametrize("deps", [b"\xc1", msgpack.packb({"a": 1}), msgpack.packb([[1, 2]]),
                                  msgpack.packb([["t", "types", b"\xc1", b"\x90", b"?" * 12]])])
def test_malformed_dependencies_are_a_miss(tmp_path, monkeypatch, deps):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold, _ = _build(root, cache)
    db = sqlite3.connect(cache)
    db.execute("UPDATE resolved SET deps = ?, pkey = 'other'", (deps,))
    _reseal(db)
    db.commit()
    db.close()
    warm, resolved = _build(root, cache, monkeypatch)
    assert len(resolved) == len(FILES) and _bytes(warm) == _bytes(cold)


def test_fingerprints_leave_out_positions_and_keep_declarations():
    from callgraph._facts import MethodDecl

    def m(name, start, comment):
        return MethodDecl(name, (), False, ("int", (), 0), (), False, False, False, start, start + 2, 3,
                          comment, start * 10, start * 10 + 30)

    fps = _deps.Fingerprints(["x/A.java"])
    assert fps.fingerprint(m("f", 3, None)) == fps.fingerprint(m("f", 9, "/** moved */"))
    assert fps.fingerprint(m("f", 3, None)) != fps.fingerprint(m("g", 3, None))
    # a file index is fingerprinted as the file's path
    assert fps.fingerprint(0, file_valued=True) == _deps.Fingerprints(["x/A.java", "y"]).fingerprint(
        0, file_valued=True)
    assert fps.fingerprint({"a": frozenset({2, 1})}) == fps.fingerprint({"a": frozenset({1, 2})})
    assert fps.fingerprint({"a": frozenset({2, 1})}) != fps.fingerprint({"a": frozenset({1, 3})})
    # an object of a kind it does not know matches nothing another process stored
    import subprocess
    import sys

    code = "from callgraph import _deps; print(_deps.Fingerprints([]).fingerprint(object()).hex())"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[2]).stdout.strip()
    assert fps.fingerprint(object()).hex() != other


LOMBOK = {
    "p/L.java": """package p;
import lombok.Getter;
public class L {
    @Getter private int x;
}
""",
    "p/M.java": """package p;
public class M {
    int m(L l) {
        return l.getX() + l.getY();
    }
}
""",
    "p/W.java": """package p;
import lombok.experimental.Delegate;
public class W {
    @Delegate private final A a = new A();
}
""",
    "p/N.java": """package p;
public class N {
    int n(W w) {
        return w.f(1);
    }
}
""",
}


def test_lombok_and_delegate_members_are_dependencies(tmp_path, monkeypatch):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    for rel, text in LOMBOK.items():
        (root / rel).write_text(text)
    cold, _ = _build(root, cache)
    assert cold.graph.has_edge("p.M.m(p.L)", "p.L.getX()") and not cold.graph.has_edge("p.M.m(p.L)", "p.L.getY()")
    assert cold.graph.has_edge("p.N.n(p.W)", "p.W.f(int)")
    # a new @Getter field: getY() appears, its caller is resolved again
    _edit(root, "p/L.java", "@Getter private int x;", "@Getter private int x;\n    @Getter private int y;")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert "p/M.java" in resolved and "p/N.java" not in resolved
    assert warm.graph.has_edge("p.M.m(p.L)", "p.L.getY()")
    # A's f changes: W's forwarded f changes with it, and so do W's callers
    _edit(root, "p/A.java", "public int f(int x)", "public int f(long x)")
    warm, resolved = _warm_equals_cold(root, cache, monkeypatch)
    assert "p/N.java" in resolved and "p/M.java" not in resolved
    assert warm.graph.has_edge("p.N.n(p.W)", "p.W.f(long)")


def test_every_look_up_of_the_fixture_is_stored(tmp_path):
    """Every row carries its look-ups: a new index method the resolver calls
    that is not on ``_deps._DOORS`` (or a bare attribute read) would make the
    rows reusable only under an unchanged project key — correct, but every
    declaration change would re-resolve everything again."""
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    for rel, text in LOMBOK.items():
        (root / rel).write_text(text)
    _build(root, cache)
    db = sqlite3.connect(cache)
    rows = list(db.execute("SELECT key, deps FROM resolved"))
    db.close()
    assert len(rows) == len(FILES) + len(LOMBOK)
    assert [k for k, deps in rows if deps is None] == []


def test_a_build_with_the_cache_frees_its_index_without_the_collector(tmp_path):
    """The dependency recorder's memos (callgraph._deps.Fingerprints) hold
    the project index; once the build has returned nothing may keep it,
    even with the collector off (qare graph stores and writes the graph with
    it paused: spring-framework's index and memos, ~250 MB, were kept there)."""
    import gc

    from callgraph._index import ProjectIndex

    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    gc.collect()
    gc.disable()
    try:
        pg, _ = _build(root, cache)
        assert pg.graph.number_of_edges() > 0
        assert [o for o in gc.get_objects() if type(o) is ProjectIndex] == []
    finally:
        gc.enable()
