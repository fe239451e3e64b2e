"""Members in ``ProjectIndex`` (``callgraph/_index_members.py``): the method
table of a project type (written and implicit members), the methods visible
on a type (nearest first, overridden ones dropped, static interface methods
not inherited — JLS §8.4.8, §9.4.1), fields, the single abstract method of
a functional interface (JLS §9.8) and the CHA overriders of a virtual call.

Expected values are worked out by hand from the sources below (compiled with
javac first, so they are legal Java) and the JDK's declarations."""

from __future__ import annotations

from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph.classpath import ClasspathIndex
from cg_fixture_support import javac

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")

SOURCES = {
    "m/Greeter.java": ("package m; public interface Greeter { String greet(String who);"
                       " static Greeter polite() { return w -> \"Dear \" + w; }"
                       " default Greeter twice() { return this; } boolean equals(Object o); }"),
    "m/Animal.java": "package m; public abstract class Animal { abstract String sound(); String name() { return \"a\"; } int legs; }",
    "m/Dog.java": "package m; public class Dog extends Animal { String sound() { return \"woof\"; } }",
    "m/Puppy.java": "package m; public class Puppy extends Dog { }",
    "m/Cat.java": ("package m; public class Cat extends Animal { String sound() { return \"meow\"; }"
                   " String name() { return \"c\"; } }"),
    "m/Hello.java": "package m; public class Hello implements Greeter { public String greet(String w) { return w; } }",
    "m/Color.java": "package m; public enum Color { RED; static int n; static { n = 1; } }",
}


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    root = tmp_path_factory.mktemp("members")
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


def test_method_tables_with_implicit_members(idx):
    ids = lambda key: sorted(p.info.id for p in idx.methods[key])  # noqa: E731
    assert ids("m.Dog") == ["m.Dog.<init>()", "m.Dog.sound()"]  # the default constructor
    assert ids("m.Color") == ["m.Color.<clinit>()", "m.Color.<init>()", "m.Color.valueOf(java.lang.String)",
                              "m.Color.values()"]
    assert ids("m.Greeter") == ["m.Greeter.equals(java.lang.Object)", "m.Greeter.greet(java.lang.String)",
                                "m.Greeter.polite()", "m.Greeter.twice()"]  # an interface has no constructor
    implicit = {p.info.id: p.info.generated_by for p in idx.methods["m.Color"] if p.info.implicit}
    assert implicit == {"m.Color.<clinit>()": "javac", "m.Color.<init>()": "javac",
                        "m.Color.valueOf(java.lang.String)": "javac", "m.Color.values()": "javac"}
    assert idx.by_id["m.Dog.sound()"].owner == "m.Dog"


def test_methods_named_nearest_first(idx):
    out, unknown = idx.methods_named("m.Puppy", "sound")
    assert [m.id for m in out] == ["m.Dog.sound()"] and unknown is None  # Animal's abstract one is overridden
    out, _ = idx.methods_named("m.Puppy", "name")
    assert [m.id for m in out] == ["m.Animal.name()"]
    # static interface methods are not inherited; default ones are
    assert idx.methods_named("m.Hello", "polite")[0] == []
    assert [m.id for m in idx.methods_named("m.Hello", "twice")[0]] == ["m.Greeter.twice()"]
    assert [m.id for m in idx.methods_named("m.Greeter", "polite")[0]] == ["m.Greeter.polite()"]
    # Object's methods are visible on an interface too
    assert [m.id for m in idx.methods_named("m.Greeter", "hashCode")[0]] == ["java.lang.Object.hashCode()"]


def test_fields(idx):
    assert idx.field_type("m.Puppy", "legs") == (("int", ()), True)  # inherited from Animal
    assert idx.field_type("m.Puppy", "tail") == (None, False)
    # a library field: Integer.MAX_VALUE
    assert idx.field_type("java.lang.Integer", "MAX_VALUE") == (("int", ()), True)


def test_single_abstract_method(idx):
    # equals(Object) is Object's public method: it does not count (JLS 9.8)
    assert idx.sam("m.Greeter") == (1, False)
    assert idx.sam_method("m.Greeter")[1].id == "m.Greeter.greet(java.lang.String)"
    assert idx.sam("m.Animal") == "none"  # a class
    assert idx.sam("java.lang.Runnable") == (0, True)
    assert idx.sam("java.util.function.Function") == (1, False)  # compose/andThen are default
    assert idx.sam("java.util.List") == "none"  # many abstract methods
    assert idx.sam("org.example.Missing") is None


def test_overriders_cha(idx):
    assert idx.overriders("m.Animal", "sound", ()) == ("m.Cat.sound()", "m.Dog.sound()")
    # Dog and Puppy inherit Animal's name(); Cat overrides it
    assert idx.overriders("m.Animal", "name", ()) == ("m.Animal.name()", "m.Cat.name()")
    # with the resolved method as base, the base itself is no overrider: on a Dog
    # receiver, Puppy's inherited name() is Animal's
    assert idx.overriders("m.Dog", "name", (), idx.by_id["m.Animal.name()"]) == ()
    # Puppy does not override sound(): it runs Dog's, which a call without base keeps
    assert idx.overriders("m.Dog", "sound", ()) == ("m.Dog.sound()",)
    assert idx.overriders("m.Greeter", "greet", ("java.lang.String",)) == ("m.Hello.greet(java.lang.String)",)


# The JDK's own sources as the project (java.base): java.lang.Object is then a
# project type, and ``supers`` lists it as its own superclass — the CHA walk
# up a superclass chain must still end there with the right answer.
OBJECT_SOURCES = {
    "java/lang/Object.java": ("package java.lang; public class Object { public Object() { }"
                              " public int hashCode() { return 0; }"
                              " public String toString() { return null; } }"),
    "m/A.java": "package m; public class A { }",
    "m/B.java": "package m; public class B extends A { public int hashCode() { return 1; } }",
    "m/C.java": "package m; public class C extends B implements I { public void run() { } }",
    "m/I.java": "package m; public interface I { void run(); }",
}


@pytest.fixture(scope="module")
def object_idx(tmp_path_factory):
    root = tmp_path_factory.mktemp("own-object")
    for rel, text in OBJECT_SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # compiled as java.base's own sources are: Object patched into java.base
    javac([root / rel for rel in OBJECT_SOURCES], root / "classes", release=None,
          extra_args=("--patch-module", f"java.base={root}"))
    facts = []
    for rel in OBJECT_SOURCES:
        src = (root / rel).read_bytes()
        facts.append(_facts.extract(src, _facts.parse(src), rel, "main", None))
    cp = ClasspathIndex.open([], jdk=JDK17)
    yield ProjectIndex(facts, cp, root=root)
    cp.close()


def test_overriders_with_object_a_project_type(object_idx):
    idx = object_idx
    # A inherits Object's hashCode (walked up to the project's Object), B and
    # C run B's; asked on A, only B's (A's own inherited one is the base call)
    assert idx.overriders("java.lang.Object", "hashCode", ()) == ("java.lang.Object.hashCode()", "m.B.hashCode()")
    assert idx.overriders("m.A", "hashCode", ()) == ("m.B.hashCode()",)
    # no class in the chain declares it: the walk ends at Object with nothing
    assert idx.overriders("java.lang.Object", "run", ()) == ("m.C.run()",)
    assert idx.overriders("m.A", "wait", ()) == ()
    # the same name with other parameter types is another question
    assert idx.overriders("java.lang.Object", "hashCode", ("int",)) == ()
    # asked again in another order, the memoised answers are the same
    assert idx.overriders("m.A", "toString", ()) == ("java.lang.Object.toString()",)
    assert idx.overriders("m.I", "run", ()) == ("m.C.run()",)
