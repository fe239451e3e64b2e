"""Call-site results (``callgraph/_callsite.py``): the ``Resolution`` Enum and the
frozen per-file result pass 2 hands to the build.

Expected values worked out by hand from the small Java file below."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from callgraph import _facts
from callgraph._callsite import (STRENGTH, ApiTarget, CallEdge, CallResolution, FileResult, Resolution)
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver
from callgraph.classpath import ClasspathIndex

SRC = b"""package u;
class U {
    void a() { b(); b(); java.util.Objects.hash(1); }
    void b() { unknown.foo(); this.a(); }
    void c(java.util.List<String> xs) { xs.size(); }
}
"""


def test_resolution_values_are_the_graph_strings():
    # the values edges carry in "resolution" (docs/callgraph.md "Resolution kinds")
    assert [r.value for r in Resolution] == ["exact", "arity", "cha", "name", "local", "unresolved", "none"]
    assert Resolution.BY_ARITY == "arity" and f"{Resolution.GUESSED_BY_NAME}" == "name"
    assert str(Resolution.CHA) == "cha" and json.dumps({"r": Resolution.EXACT}) == '{"r": "exact"}'
    assert sorted(STRENGTH, key=STRENGTH.get) == [Resolution.EXACT, Resolution.BY_ARITY, Resolution.CHA,
                                                  Resolution.GUESSED_BY_NAME]


def test_call_resolution_is_frozen():
    r = CallResolution(Resolution.EXACT, ("u.U.b()",))
    with pytest.raises(AttributeError):  # a NamedTuple: no attribute can be set
        r.ret = ("int", ())
    r2 = r.returning(("int", ()))
    assert r2.ret == ("int", ()) and r.ret is None and r2.targets == r.targets


@pytest.fixture(scope="module")
def file_result():
    ff = _facts.extract(SRC, _facts.parse(SRC), "src/main/java/u/U.java", "main", None)
    with ClasspathIndex.open([], jdk="/usr/lib/jvm/java-17-openjdk-amd64") as cp:
        idx = ProjectIndex([ff], cp)
        return FileResolver(idx, 0, SRC, _facts.parse(SRC)).run()


def test_file_result_is_plain_frozen_data(file_result):
    fr = file_result
    assert isinstance(fr, FileResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fr.edges = ()
    assert pickle.loads(pickle.dumps(fr)) == fr  # workers and caches hand it on as it is


def test_file_result_values(file_result):
    fr = file_result
    edges = {(e.src, e.dst): e for e in fr.edges}
    # b() twice on lines 3: one edge, its lines deduplicated
    assert edges[("u.U.a()", "u.U.b()")] == CallEdge("u.U.a()", "u.U.b()", Resolution.EXACT, (3,))
    assert edges[("u.U.b()", "u.U.a()")].resolution is Resolution.EXACT
    # unknown.foo(): `unknown` names no variable or type -> unresolved, no edge
    assert not any(e.dst.endswith("foo(*)") for e in fr.edges)
    hash_ = "java.util.Objects.hash(java.lang.Object...)"
    assert edges[("u.U.a()", hash_)].resolution is Resolution.EXACT
    size = "java.util.List.size()"
    assert edges[("u.U.c(java.util.List)", size)].lines == (5,)
    assert ApiTarget(hash_, "java.util.Objects", "hash", False, None) in fr.apis
    counts = dict(fr.counts)
    assert counts == {Resolution.EXACT: 5, Resolution.UNRESOLVED: 1}
    assert all(type(k) is Resolution for k in counts)
    assert dict(fr.reasons) == {"receiver name is neither a variable nor a known type": 1}
    assert dict(fr.examples) == {"receiver name is neither a variable nor a known type": "src/main/java/u/U.java:4"}


def test_edge_resolutions_are_the_records_vocabulary():
    # the graph's edges are read back by records/metrics with records.ids' names and strength
    # order; the call-site Enum adds only kinds that never become an edge
    from callgraph._callsite import STRENGTH
    from records.ids import RESOLUTION_STRENGTH

    assert {r.value: n for r, n in STRENGTH.items()} == RESOLUTION_STRENGTH
    assert all(isinstance(r, Resolution) for r in STRENGTH)
    # the three call-site-only kinds are none of the edge kinds
    assert {r.value for r in Resolution} - set(RESOLUTION_STRENGTH) == {"local", "unresolved", "none"}
