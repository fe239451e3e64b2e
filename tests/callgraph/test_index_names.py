"""Type names in ``ProjectIndex`` (``callgraph/_index_names.py``): a simple or
qualified type name used in a file resolved per JLS §6.4.1/§6.5.5 — member
types of the enclosing and inherited types, single-type imports, the
package, on-demand imports, ``java.lang`` — and the classpath helpers.

The expected types are javac's: the fixture is compiled and each field's
descriptor, read with ``javap``, is the answer the index must give for the
field's type name as written."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph.classpath import ClasspathIndex
from cg_fixture_support import JAVAC, javac, type_descriptor

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JAVAP = str(Path(JAVAC).resolve().parent / "javap")

SOURCES = {
    "p/Outer.java": "package p; public class Outer { public static class Inner {} public interface Nested {} }",
    # member types inherited from the superclass are in scope (JLS 8.5)
    "p/Sub.java": "package p; public class Sub extends Outer { Inner a; Nested b; }",
    "q/Helper.java": "package q; class Helper {}",
    "q/Inner.java": "package q; class Inner {}",
    "r/Helper.java": "package r; public class Helper {}",
    # single-type import shadows the package's own Inner; the package's Helper
    # shadows the on-demand r.*; java.lang and java.util.* fill the rest
    "q/A.java": ("package q; import p.Outer.Inner; import r.*; import java.util.*;\n"
                 "class A { Inner x; Helper h; String s; List<String> l; Map.Entry<String, String> e;\n"
                 " java.util.concurrent.TimeUnit t; p.Outer.Nested n; }"),
    # a member type of the class itself shadows a single-type import
    "q/B.java": "package q; import r.Helper; class B { static class Helper {} Helper h; }",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    classes = root / "classes"
    javac([root / rel for rel in SOURCES], classes)
    facts = []
    for rel in SOURCES:
        src = (root / rel).read_bytes()
        facts.append(_facts.extract(src, _facts.parse(src), rel, "main", None))
    cp = ClasspathIndex.open([], jdk=JDK17)
    yield ProjectIndex(facts, cp, root=root), classes
    cp.close()


def _javap_fields(classes: Path, binary: str) -> dict[str, str]:
    out = subprocess.run([JAVAP, "-p", "-s", "-cp", str(classes), binary], capture_output=True, text=True,
                         check=True).stdout
    # "  p.Outer$Inner a;" followed by "    descriptor: Lp/Outer$Inner;"
    return dict(re.findall(r" (\w+);\n\s+descriptor: (\S+)", out))


@pytest.mark.parametrize("key,binary", [("p.Sub", "p.Sub"), ("q.A", "q.A"), ("q.B", "q.B")])
def test_field_type_names_resolve_as_javac(world, key, binary):
    idx, classes = world
    expected = _javap_fields(classes, binary)
    td = idx.types[key]
    fi = idx.type_file[key]
    got = {f.name: type_descriptor(idx.resolve_name(f.type[0], fi, key)) for f in td.fields}
    assert got == expected and len(got) == len(td.fields)


def test_names_worked_out_by_hand(world):
    idx, _ = world
    fi = idx.type_file["q.A"]
    assert idx.resolve_name("Inner", fi, "q.A") == "p.Outer.Inner"
    assert idx.resolve_name("Helper", fi, "q.A") == "q.Helper"
    assert idx.resolve_name("Map.Entry", fi, "q.A") == "java.util.Map.Entry"
    assert idx.resolve_name("Helper", idx.type_file["q.B"], "q.B") == "q.B.Helper"
    # not imported, not in the package, not java.lang's: unknown
    assert idx.resolve_name("Deque2", fi, "q.A") is None
    # an unknown library type written fully qualified keeps its name
    assert idx.resolve_name("org.example.Missing", fi, "q.A") == "org.example.Missing"
    # member_type: inherited member types, and none on an unknown type
    assert idx.member_type("p.Sub", "Inner") == "p.Outer.Inner"
    assert idx.member_type("java.util.Map", "Entry") == "java.util.Map.Entry"
    assert idx.member_type("p.Sub", "Nope") is None


def test_classpath_helpers(world):
    idx, _ = world
    assert idx.lib("java.util.List").kind == "interface"
    assert idx.lib("q.A") is None  # a project type is not a library type
    assert idx.lib_has("java.util.Map.Entry") and not idx.lib_has("java.util.Nope")
    assert idx.third_party("java.util.List") is False
    assert idx.third_party("org.example.Missing") is True
    assert idx.library_of("java.util.List") is None  # the JDK is no Maven library
