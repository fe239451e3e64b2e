"""The type hierarchy and generic substitution in ``ProjectIndex``
(``callgraph/_index_hierarchy.py``): direct and transitive supertypes,
subtyping on erased names (JLS §4.10, arrays §4.10.3), type arguments of a
supertype seen from a subtype (through project declarations and library
``Signature`` attributes), erasure of declared types.

Expected values are worked out by hand from the sources below (compiled
with javac first, so they are legal Java) and the JDK's declarations."""

from __future__ import annotations

from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph.classpath import ClasspathIndex
from cg_fixture_support import javac

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")
S = ("java.lang.String", ())

SOURCES = {
    "h/Shape.java": "package h; public interface Shape {}",
    "h/Base.java": ("package h; public abstract class Base<T> implements Shape, Comparable<Base<T>> {"
                    " public int compareTo(Base<T> o) { return 0; } }"),
    "h/Box.java": ("package h; public class Box<E> extends Base<E> implements java.util.function.Supplier<E> {"
                   " public E get() { return null; } <X extends Number> X first(java.util.List<? extends X> xs,"
                   " E[] es) { return null; } }"),
    "h/ItemBox.java": "package h; public class ItemBox extends Box<String> {}",
    "h/Color.java": "package h; public enum Color { RED }",
    "h/Point.java": "package h; public record Point(int x, int y) {}",
}


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    root = tmp_path_factory.mktemp("hier")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    javac([root / rel for rel in SOURCES], root / "classes")
    facts = []
    for rel in SOURCES:
        src = (root / rel).read_bytes()
        facts.append(_facts.extract(src, _facts.parse(src), rel, "main", None))
    cp = ClasspathIndex.open([], jdk=JDK17)
    yield ProjectIndex(facts, cp, root=root)
    cp.close()


def test_direct_supertypes(idx):
    assert idx.supers("h.ItemBox") == ("h.Box",)
    assert idx.supers("h.Box") == ("h.Base", "java.util.function.Supplier")
    assert idx.supers("h.Base") == ("java.lang.Object", "h.Shape", "java.lang.Comparable")
    assert idx.supers("h.Shape") == ()
    assert idx.supers("h.Color") == ("java.lang.Enum",)
    assert idx.supers("h.Point") == ("java.lang.Record",)
    # a library type: its class file's superclass, then interfaces
    assert idx.supers("java.util.ArrayList") == ("java.util.AbstractList", "java.util.List", "java.util.RandomAccess",
                                                  "java.lang.Cloneable", "java.io.Serializable")


def test_all_supers_and_subtyping(idx):
    assert idx.all_supers("h.ItemBox") == {"h.ItemBox", "h.Box", "h.Base", "h.Shape", "java.lang.Comparable",
                                           "java.util.function.Supplier", "java.lang.Object"}
    assert idx.is_subtype("h.ItemBox", "h.Shape") is True
    assert idx.is_subtype("h.Shape", "h.Box") is False
    assert idx.is_subtype("h.Color", "java.io.Serializable") is True  # through java.lang.Enum
    assert idx.is_subtype("h.ItemBox[]", "h.Shape[]") is True  # arrays are covariant (JLS 4.10.3)
    assert idx.is_subtype("int[]", "long[]") is False
    assert idx.is_subtype("h.ItemBox[]", "java.io.Serializable") is True
    assert idx.is_subtype("int", "java.lang.Object") is False
    # a supertype nobody declares: "maybe", except for what is known
    assert idx.all_supers("org.example.Missing") is None
    assert idx.is_subtype("org.example.Missing", "h.Shape") is None


def test_super_type_args(idx):
    # class ItemBox extends Box<String>: every supertype's argument is String
    assert idx.super_type_args("h.ItemBox", (), "h.Box") == (S,)
    assert idx.super_type_args("h.ItemBox", (), "h.Base") == (S,)
    assert idx.super_type_args("h.ItemBox", (), "java.util.function.Supplier") == (S,)
    # Comparable<Base<T>> with T = String
    assert idx.super_type_args("h.ItemBox", (), "java.lang.Comparable") == (("h.Base", (S,)),)
    # through the JDK's Signature attributes: ArrayList<E> ... AbstractCollection<E> implements Collection<E>
    assert idx.super_type_args("java.util.ArrayList", (S,), "java.util.Collection") == (S,)
    assert idx.super_type_args("h.ItemBox", (), "java.util.List") is None  # not a supertype


def test_erasure_of_declared_types(idx):
    box = idx.types["h.Box"]
    m = next(m for m in box.methods if m.name == "first")
    mt = dict(m.type_params)
    fi = idx.type_file["h.Box"]
    # List<? extends X> erases to List, E[] to the bound of E (Object) as an array; X to its bound Number
    assert [idx.erase_ref(p[1], fi, "h.Box", mt) for p in m.params] == ["java.util.List", "java.lang.Object[]"]
    assert idx.erase_ref(m.returns, fi, "h.Box", mt) == "java.lang.Number"
    assert idx.tparams_of("h.Box").keys() == {"E"}
    # resolve_ref keeps the type arguments it can resolve: X's bound for ? extends X
    assert idx.resolve_ref(m.params[0][1], fi, "h.Box", mt) == ("java.util.List", (("java.lang.Number", ()),))


def test_library_signatures(idx):
    cs = idx.lib_class_sig("java.util.ArrayList")
    assert [tp.name for tp in cs.type_params] == ["E"]
    assert [tp.name for tp in idx.lib_type_params("java.util.Map")] == ["K", "V"]
    assert idx.lib_type_params("h.Box") == ()  # a project type has no class file
    # capture (JLS 5.1.10): an unknown argument becomes its formal bound unless that is Object;
    # Enum<E extends Enum<E>>: the bound's own E stays unknown
    assert idx.capture_lib(("java.util.List", (None,))) == ("java.util.List", (None,))
    assert idx.capture_lib(("java.lang.Enum", (None,))) == ("java.lang.Enum", (("java.lang.Enum", (None,)),))
