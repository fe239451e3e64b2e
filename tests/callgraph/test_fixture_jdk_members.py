"""JDK members are never third-party APIs (fixtures/java/jdk-members), and static
interface methods are not inherited (JLS 8.4.8, 9.4.1).

The fixture's library ``org.missing`` (``Base``, ``Thing``, enum ``Color``) is
given to javac as compile-only stubs and, for the "truth" graph, as a class
folder on the classpath; the graph under test is built without it — the case of
a library jar that could not be found. Expected targets are worked out by hand;
where the stubs or Guava are on the classpath, javac's own bindings
(``javap -c``) and the fully-known graph are the independent answer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, java_files, javac, javac_calls, line_of, method_name, params_descriptor

ROOT = FIXTURES / "jdk-members"
CALLS = ROOT / "src" / "main" / "java" / "jm" / "Calls.java"
GUAVA = Path("/usr/share/java/guava.jar")
O = "java.lang.Object."

# (snippet on its line in Calls.java) → (target, resolution) without the org.missing jar
EXPECTED = {
    "s.getClass()": (O + "getClass()", "arity"),
    "s.hashCode()": (O + "hashCode()", "arity"),
    "s.equals(o)": (O + "equals(java.lang.Object)", "arity"),
    "s.toString()": ("jm.Sub.toString()", "exact"),  # known to override it
    "s.label()": ("org.missing.Base.label(*)", "arity"),  # a real library method stays the library's
    "s.notifyAll()": (O + "notifyAll()", "arity"),
    "s.wait(10L)": (O + "wait(long)", "arity"),
    "t.next().hashCode()": (O + "hashCode()", "arity"),
    "t -> t.getClass()": (O + "getClass()", "arity"),  # an untyped lambda parameter: getClass is final  # on a value of an unknown library type
    "return t.hashCode()": (O + "hashCode()", "arity"),
    "Color.RED.name()": ("java.lang.Enum.name()", "arity"),
    "Color.GREEN.ordinal()": ("java.lang.Enum.ordinal()", "arity"),
    "p.equals(p)": ("java.lang.Record.equals(java.lang.Object)", "exact"),
    "return p.toString()": ("java.lang.Record.toString()", "exact"),
}


def _targets_on(pg, snippet: str) -> set:
    line = line_of(CALLS, snippet)
    return {(v, d["resolution"]) for u, v, d in pg.graph.edges(data=True)
            if u.startswith("jm.Calls.") and line in d["lines"]}


@pytest.fixture(scope="module")
def pg(graph_of):
    return graph_of(ROOT)


@pytest.mark.parametrize("snippet", sorted(EXPECTED))
def test_jdk_member_without_the_library_jar(pg, snippet):
    assert EXPECTED[snippet] in _targets_on(pg, snippet)
    target = EXPECTED[snippet][0]
    assert pg.graph.nodes[target]["third_party"] is target.startswith("org.missing")


def test_no_third_party_object_member_anywhere(pg):
    for n, d in pg.graph.nodes(data=True):
        if d["kind"] == "api" and d["third_party"]:
            assert n.split("(")[0].rsplit(".", 1)[1] not in (
                "getClass", "hashCode", "equals", "toString", "wait", "notify", "notifyAll", "name", "ordinal"), n


def test_a_static_interface_method_is_not_inherited(pg):
    # Impl.of("x"): Api.of(Object) would win in phase 1 if it were inherited
    line = line_of(CALLS, 'Impl.of("x")')
    e = pg.graph.edges["jm.Calls.statics()", "jm.Impl.of(java.lang.Object...)"]
    assert e["resolution"] == "exact" and line in e["lines"]
    assert pg.graph.edges["jm.Calls.statics()", "jm.Api.of(java.lang.Object)"]["lines"] == [line]  # Api.of("y")


@pytest.fixture(scope="module")
def stubs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("missing")
    javac(java_files(ROOT / "stubs"), out)
    return out


def test_same_jdk_members_as_with_the_jar(graph_of, stubs):
    """With the library on the classpath the hierarchy is known; every JDK member
    found without it must be the one found with it (Object's members of an enum
    constant are declared by Enum there, which the jar-less graph cannot know for
    ``c.toString()`` — not in EXPECTED)."""
    known = graph_of(ROOT, classpath=(stubs,))
    for snippet, (target, _) in EXPECTED.items():
        if target.startswith("java.lang."):
            assert target in {v for v, _ in _targets_on(known, snippet)}, snippet


@pytest.fixture(scope="module")
def javac_bound(tmp_path_factory, stubs):
    if shutil.which("javac") is None or shutil.which("javap") is None:
        pytest.skip("javac/javap not installed")
    if not GUAVA.is_file():
        pytest.skip(f"{GUAVA} missing (apt: libguava-java)")
    calls, indy = javac_calls(java_files(ROOT / "src" / "main" / "java"), tmp_path_factory.mktemp("jm"),
                              [stubs, GUAVA])
    return calls


def test_guava_static_varargs_is_what_javac_bound(graph_of, javac_bound):
    pg = graph_of(ROOT, classpath=(GUAVA,))
    line = line_of(CALLS, "ImmutableSet.of(1, 2")
    ((v, kind),) = _targets_on(pg, "ImmutableSet.of(1, 2")
    assert kind == "exact" and v.startswith("com.google.common.collect.ImmutableSet.of(")
    assert not any(t.startswith("java.util.Set.of") for t, _ in _targets_on(pg, "ImmutableSet.of(1, 2"))
    bound = {(n, d) for n, d, _ in javac_bound["jm/Calls.java"][line]}
    assert (method_name(v), params_descriptor(v)) in bound


def test_every_exact_edge_is_what_javac_bound(graph_of, javac_bound):
    pg = graph_of(ROOT, classpath=(GUAVA,))
    checked = 0
    for u, v, d in pg.graph.edges(data=True):
        if d["resolution"] != "exact" or not u.startswith("jm."):
            continue
        file = pg.graph.nodes[u]["file"].split("src/main/java/", 1)[1]
        for line in d["lines"]:
            checked += 1
            assert (method_name(v), params_descriptor(v)) in {
                (n, de) for n, de, _ in javac_bound[file][line]}, (u, v, line)
    assert checked >= 6
