"""Call-site resolution (``callgraph/_calls.py``): which method each method
invocation binds, with javac as the oracle — the ``invoke*`` instructions
``javap -c`` shows on a line (name, erased descriptor, owner) must be exactly
the resolver's ``exact`` edges on that line. The cases: receivers (``this``,
``super``, a local, a field, a static type, a chained call, a static import),
overloads decided by argument types (JLS §15.12.2 phases 1–3: ``remove(int)``
vs ``remove(Object)``, boxing, varargs, ``null``), inherited library methods
(``ArrayList.stream()`` is ``Collection.stream()``) and generic returns that
decide the next call."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._callsite import Resolution
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver
from callgraph.classpath import ClasspathIndex
from cg_fixture_support import JAVAC, javac_calls, method_name, params_descriptor

pytestmark = pytest.mark.skipif(shutil.which(JAVAC) is None and not Path(JAVAC).is_file(),
                                reason="javac not installed (it is the oracle)")
JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64"

SRC = """package c;
import static java.util.Collections.emptyList;
import java.util.*;
class Base { String name() { return ""; } }
class C extends Base {
    List<String> items = new ArrayList<>();
    @Override String name() { return super.name().trim(); }
    void m(List<Integer> ints, StringBuilder sb, Map<String, List<Integer>> map) {
        ints.remove(1);
        ints.remove(Integer.valueOf(1));
        sb.append(1).append('c').append("s").append(2L);
        sb.append((Object) null);
        String.format("%d %d", 1, 2);
        Objects.hash();
        items.stream().count();
        this.name().isEmpty();
        List<String> e = emptyList();
        map.get("k").get(0).intValue();
        Optional.of("x").map(s -> s.length()).get().byteValue();
        new ArrayList<String>().iterator().next().isBlank();
        Math.max(1, 2L);
        Math.max(1, 2);
        String.valueOf(new char[0]);
        String.valueOf((Object) "x");
        map.entrySet().iterator().next().getValue().size();
    }
}
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    root = tmp_path_factory.mktemp("calls")
    f = root / "c" / "C.java"
    f.parent.mkdir()
    f.write_text(SRC)
    truth, _ = javac_calls([f], tmp_path_factory.mktemp("callsc"), [], release=None,
                           javac_bin=str(Path(JDK17) / "bin" / "javac") if (Path(JDK17) / "bin/javac").exists()
                           else None)
    src = SRC.encode()
    tree = _facts.parse(src)
    ff = _facts.extract(src, tree, "src/main/java/c/C.java", "main", None)
    with ClasspathIndex.open([], jdk=JDK17) as cp:
        res = FileResolver(ProjectIndex([ff], cp), 0, src, tree).run()
    return res, truth["c/C.java"]


def _line(snippet: str) -> int:
    return next(i for i, ln in enumerate(SRC.splitlines(), 1) if snippet in ln)


def _by_line(res, kinds=(Resolution.EXACT,)):
    """{line: {(name, parameter descriptor, declaring type)}} of the resolver's edges."""
    out: dict = {}
    for e in res.edges:
        if e.resolution in kinds:
            for ln in e.lines:
                owner = e.dst.split("(")[0].rsplit(".", 1)[0]
                out.setdefault(ln, set()).add((method_name(e.dst), params_descriptor(e.dst),
                                               owner.replace(".", "/")))
    return out


def _javac(truth, ln):
    """javac's calls on a line as (name, parameter descriptor) — the owner javac
    writes is the receiver's static type, not the declaring type — without
    Object.<init>, the lambda plumbing and the boxing javac inserts."""
    return {(n, d) for n, d, o in truth.get(ln, ())
            if "$" not in n and not (n == "<init>" and o == "java/lang/Object")
            and not (o == "java/lang/Integer" and (n, d) in _BOXING)}


_BOXING = {("valueOf", "(I)"), ("intValue", "()")}


@pytest.mark.parametrize("snippet", [
    "ints.remove(1);", "sb.append(1).append('c')",
    "sb.append((Object) null);", 'String.format("%d %d", 1, 2);', "Objects.hash();",
    "items.stream().count();", "this.name().isEmpty();", "List<String> e = emptyList();",
    "super.name().trim()", "Math.max(1, 2L);", "Math.max(1, 2);",
    "String.valueOf(new char[0]);", 'String.valueOf((Object) "x");',
    "new ArrayList<String>().iterator().next().isBlank();",
    "map.entrySet().iterator().next().getValue().size();",
    "Optional.of(\"x\").map(s -> s.length()).get().byteValue();",
])
def test_each_line_binds_what_javac_binds(both, snippet):
    res, truth = both
    ln = _line(snippet)
    want = _javac(truth, ln)
    got = {(n, d) for n, d, _ in _by_line(res).get(ln, set())}
    assert want and got == want


def test_boxing_calls_in_the_source_are_bound(both):
    # `Integer.valueOf(1)` and `.intValue()` are written calls (javac's own boxing is left out above)
    res, _ = both
    assert ("valueOf", "(I)", "java/lang/Integer") in _by_line(res)[_line("ints.remove(Integer.valueOf(1));")]
    got = _by_line(res)[_line('map.get("k").get(0).intValue();')]
    assert got == {("get", "(Ljava/lang/Object;)", "java/util/Map"), ("get", "(I)", "java/util/List"),
                   ("intValue", "()", "java/lang/Integer")}
    # remove(Integer) binds remove(Object) in phase 1 (subtyping), remove(1) remove(int) (JLS 15.12.2.2)
    assert ("remove", "(Ljava/lang/Object;)", "java/util/List") in _by_line(res)[_line("ints.remove(Integer.valueOf")]
    assert ("remove", "(I)", "java/util/List") in _by_line(res)[_line("ints.remove(1);")]


def test_edges_name_the_declaring_type(both):
    # javap: List does not declare stream(), Collection does (a default method);
    # Integer declares byteValue() (overriding Number's)
    res, _ = both
    assert ("stream", "()", "java/util/Collection") in _by_line(res)[_line("items.stream().count();")]
    assert ("byteValue", "()", "java/lang/Integer") in _by_line(res)[_line("byteValue")]
    assert ("trim", "()", "java/lang/String") in _by_line(res)[_line("super.name().trim()")]
    assert ("name", "()", "c/Base") in _by_line(res)[_line("super.name().trim()")]  # super: not C.name
