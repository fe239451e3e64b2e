"""The type-solver chain (``callgraph/_solver.py``): project sources first, then
the classpath; typed ``Solved``/``Unsolved(name, Reason)`` answers; misses
cached; nested lookups through the whole chain.

Expected values are worked out by hand from the tiny Java sources below (the
library half compiled with javac, so the class files are real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph._solver import (ChainTypeSolver, ClasspathTypeSolver, Origin, Reason, Solved,
                               SourceTypeSolver, Unsolved)
from callgraph.classpath import ClasspathIndex
from cg_fixture_support import javac

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")

PROJECT = {
    "src/main/java/p/Base.java": "package p; public class Base implements Marker { public void fromProject() {} }",
    "src/main/java/p/Marker.java": "package p; public interface Marker {}",
    # also on the classpath (below) with another member: the source declaration wins
    "src/main/java/q/Shadow.java": "package q; public class Shadow { public void inSource() {} }",
    "src/main/java/p/Orphan.java": "package p; public class Orphan extends z.Missing { void m() {} }",
}
LIBRARY = {
    # a library class extending a *project* class: its supertypes are found
    # only when the nested lookup goes back through the whole chain
    "q/Lib.java": ("package q; public class Lib extends p.Base { public void fromLib() {}"
                   " Runnable r = new Runnable() { public void run() {} }; }"),
    "q/Shadow.java": "package q; public class Shadow { public void inJar() {} }",
}


def _write(root: Path, files: dict[str, str]) -> list[Path]:
    out = []
    for rel, text in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
        out.append(f)
    return out


def _facts_of(root: Path, rels):
    out = []
    for rel in rels:
        src = (root / rel).read_bytes()
        out.append(_facts.extract(src, _facts.parse(src), rel, "main", None))
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("solver")
    proj = tmp / "proj"
    _write(proj, PROJECT)
    libsrc = tmp / "libsrc"
    classes = tmp / "classes"
    # the library is compiled against the project's Base/Marker, then those
    # class files are removed: only sources declare them
    srcs = _write(libsrc, LIBRARY) + [proj / "src/main/java/p/Base.java", proj / "src/main/java/p/Marker.java"]
    javac(srcs, classes)
    for f in ("p/Base.class", "p/Marker.class"):
        (classes / f).unlink()
    (classes / "q" / "Bad.class").write_bytes(b"\xca\xfe\xba\xbe garbage")
    cp = ClasspathIndex.open([classes], jdk=JDK17)
    idx = ProjectIndex(_facts_of(proj, PROJECT), cp, root=proj)
    yield idx, cp
    cp.close()


def test_source_first_then_classpath(world):
    idx, _ = world
    shadow = idx.solver.solve("q.Shadow")
    assert isinstance(shadow, Solved) and shadow.view.origin is Origin.SOURCE
    assert shadow.view.decl.methods[0].name == "inSource"
    lib = idx.solver.solve("q.Lib")
    assert isinstance(lib, Solved) and lib.view.origin is Origin.LIBRARY
    assert lib.view.sig.superclass == "p.Base" and lib.view.kind == "class"


def test_unsolved_reasons(world):
    idx, cp = world
    miss = idx.solver.solve("q.Nowhere")
    assert miss == Unsolved("q.Nowhere", Reason.NOT_ON_CLASSPATH, "not on the classpath")
    bad = idx.solver.solve("q.Bad")
    assert isinstance(bad, Unsolved) and bad.reason is Reason.UNREADABLE and "q/Bad.class" in bad.detail
    anon = idx.solver.solve("q.Lib$1")  # the anonymous Runnable's class file
    assert isinstance(anon, Unsolved) and anon.reason is Reason.NOT_A_TYPE
    assert idx.solver.solve("?Foo").reason is Reason.UNRESOLVED_NAME
    # no classpath at all
    assert ClasspathTypeSolver(None).solve("q.Lib") == Unsolved("q.Lib", Reason.NO_CLASSPATH)
    # sources alone say "not ours"; the chain reports the classpath's more specific no
    assert SourceTypeSolver(idx.types).solve("q.Lib").reason is Reason.NOT_IN_PROJECT


def test_nested_lookups_go_through_the_whole_chain(world):
    idx, _ = world
    # q.Lib (a jar) -> p.Base (sources) -> p.Marker (sources), Object
    assert idx.all_supers("q.Lib") == frozenset({"q.Lib", "p.Base", "p.Marker", "java.lang.Object"})
    cands, unknown = idx.methods_named("q.Lib", "fromProject")
    assert [c.info.id for c in cands] == ["p.Base.fromProject()"] and unknown is None
    assert idx.is_subtype("q.Lib", "p.Marker") is True


def test_unknown_supertype_carries_its_reason(world):
    idx, _ = world
    cands, unknown = idx.methods_named("p.Orphan", "absent")
    assert cands == []
    assert unknown == Unsolved("z.Missing", Reason.NOT_ON_CLASSPATH, "not on the classpath")
    assert idx.all_supers("p.Orphan") is None  # part of the hierarchy unknown: "maybe"


class _Counting:
    def __init__(self, inner):
        self.inner, self.asked = inner, []

    def solve(self, name):
        self.asked.append(name)
        return self.inner.solve(name)


def test_misses_and_hits_are_cached_and_forget_drops_one(world):
    idx, cp = world
    types = dict(idx.types)
    src, lib = _Counting(SourceTypeSolver(types)), _Counting(ClasspathTypeSolver(cp))
    chain = ChainTypeSolver((src, lib))
    for _ in range(3):
        assert chain.solve("q.Nowhere").reason is Reason.NOT_ON_CLASSPATH
        assert chain.solve("q.Lib").view.origin is Origin.LIBRARY
        assert chain.solve("p.Base").view.origin is Origin.SOURCE
    assert src.asked == ["q.Nowhere", "q.Lib", "p.Base"]
    assert lib.asked == ["q.Nowhere", "q.Lib"]  # the source answer ends the chain
    # a type added to the sources later (Lombok's builders): forget its miss
    types["q.Nowhere"] = types["p.Base"]
    assert chain.solve("q.Nowhere").reason is Reason.NOT_ON_CLASSPATH  # still the cached miss
    chain.forget("q.Nowhere")
    assert chain.solve("q.Nowhere").view.origin is Origin.SOURCE


def test_chain_first_answer_wins_in_order(world):
    idx, cp = world
    # the classpath first: the jar's q.Shadow (member inJar) wins over the source one
    chain = ChainTypeSolver((ClasspathTypeSolver(cp), SourceTypeSolver(idx.types)))
    v = chain.solve("q.Shadow").view
    assert v.origin is Origin.LIBRARY and [m.name for m in v.sig.methods if m.name != "<init>"] == ["inJar"]


# ------------------------------------------------- one candidate type (callgraph/_candidates.py)

def test_library_and_project_candidates_share_one_shape(world):
    idx, _ = world
    from callgraph._candidates import MethodCandidate

    lib = next(c for c in idx.methods_named("java.lang.String", "format")[0] if len(c.ptypes) == 2)
    assert isinstance(lib, MethodCandidate) and not lib.is_source
    # String.format(String, Object...): the id keeps "...", the erased parameters end in "[]"
    assert lib.id == "java.lang.String.format(java.lang.String,java.lang.Object...)"
    assert lib.ptypes == ("java.lang.String", "java.lang.Object[]") and lib.varargs and lib.static
    (src,), unknown = idx.methods_named("p.Base", "fromProject")
    assert isinstance(src, MethodCandidate) and src.is_source and unknown is None
    assert (src.id, src.owner, src.ptypes, src.static, src.void) == ("p.Base.fromProject()", "p.Base", (), False, True)
    # the functional-interface look-up reads the same fields from both origins
    assert idx.sam("java.util.function.Function") == (1, False)
    assert idx.sam("java.lang.Runnable") == (0, True)
    assert idx.sam("p.Marker") == "none"  # a project interface with no abstract method


def test_declared_supertypes_walks_breadth_first_through_the_chain(world):
    idx, _ = world
    walk = [(x, d is not None) for x, d in idx.declared_supertypes("q.Lib")]
    # the jar class, its project superclass, that class's project interface; Object left out
    assert walk == [("q.Lib", True), ("p.Base", True), ("p.Marker", True)]
    # an unknown superclass is yielded once, as unknown, and ends that branch
    assert [(x, d is not None) for x, d in idx.declared_supertypes("p.Orphan")] == [
        ("p.Orphan", True), ("z.Missing", False)]
    assert [x for x, _ in idx.declared_supertypes("java.lang.Object")] == ["java.lang.Object"]


def test_classpath_reasons_map_by_kind_not_text():
    # Every classpath.UnsolvedReason has one chain Reason, decided by the Enum
    # (the old mapping read the words of the message).
    from callgraph._solver import _classpath_reason
    from callgraph.classpath import UnsolvedReason as R

    expected = {R.NOT_ON_CLASSPATH: Reason.NOT_ON_CLASSPATH, R.INTERNAL_ERROR: Reason.INTERNAL_ERROR,
                R.UNREADABLE: Reason.UNREADABLE, R.MALFORMED: Reason.UNREADABLE, R.WRONG_NAME: Reason.UNREADABLE,
                R.MODULE_INFO: Reason.NOT_A_TYPE, R.PACKAGE_INFO: Reason.NOT_A_TYPE,
                R.LOCAL_OR_ANONYMOUS: Reason.NOT_A_TYPE, R.SYNTHETIC: Reason.NOT_A_TYPE}
    assert set(expected) == set(R)
    assert {r: _classpath_reason(r) for r in R} == expected


def test_classpath_detail_reaches_the_chain(world):
    # The chain's detail is the classpath's text: the fixed text of a kind, or the
    # entry's own words for a class file that cannot be used.
    idx, cp = world
    assert cp.lookup_result("q.Nowhere").detail == ""
    assert idx.solver.solve("q.Nowhere").detail == "not on the classpath"
    raw = cp.lookup_result("q.Bad")
    assert raw.detail.startswith("bad class file q/Bad.class: ")
    assert idx.solver.solve("q.Bad").detail == raw.detail
