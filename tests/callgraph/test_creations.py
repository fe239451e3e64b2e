"""Constructors, enum constants and method references (``callgraph/_creations.py``),
with javac as the oracle: the constructor a ``new`` binds (overloads decided by
the argument types, JLS §15.9.3), the implicit ``super()`` of a constructor
without an explicit one (JLS §8.8.7: javac emits ``invokespecial`` of the
superclass's no-argument constructor), ``this(..)``, ``super(..)``, enum
constants' constructors, and the method a method reference binds (JLS §15.13.1:
the target functional interface's arity decides among overloads)."""

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

SRC = """package n;
import java.util.function.*;
class A {
    A() { }
    A(int x) { this(); }
    A(String s) { super(); }
}
class B extends A {
    B() { }
    B(long v) { super((int) v); }
    void m() {
        new StringBuilder("x");
        new StringBuilder(16);
        new A("s");
        new B(2L);
        Runnable r = new Runnable() { public void run() { } };
        Function<String, Integer> parse = Integer::parseInt;
        BiFunction<String, Integer, Integer> parse2 = Integer::parseInt;
        Supplier<StringBuilder> mk = StringBuilder::new;
        Function<String, Integer> len = String::length;
    }
}
enum E {
    X(1), Y("y");
    E(int i) { }
    E(String s) { }
}
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    root = tmp_path_factory.mktemp("new")
    f = root / "n" / "N.java"
    f.parent.mkdir()
    f.write_text(SRC)
    jb = Path(JDK17) / "bin" / "javac"
    truth, _ = javac_calls([f], tmp_path_factory.mktemp("newc"), [], release=None,
                           javac_bin=str(jb) if jb.exists() else None)
    src = SRC.encode()
    tree = _facts.parse(src)
    ff = _facts.extract(src, tree, "src/main/java/n/N.java", "main", None)
    with ClasspathIndex.open([], jdk=JDK17) as cp:
        res = FileResolver(ProjectIndex([ff], cp), 0, src, tree).run()
    return res, truth["n/N.java"]


def _line(snippet: str) -> int:
    return next(i for i, ln in enumerate(SRC.splitlines(), 1) if snippet in ln)


def _got(res, ln, kinds=(Resolution.EXACT, Resolution.BY_ARITY)):
    return {(method_name(e.dst), params_descriptor(e.dst), e.dst.split("(")[0].rsplit(".", 1)[0])
            for e in res.edges if e.resolution in kinds and ln in e.lines}


def _javac(truth, ln, here):
    """javac's calls on a line as (name, parameter descriptor, owner), without
    Object.<init>; javap leaves out the owner when it is the class the code is
    in (``here``)."""
    return {(n, d, (o or here).replace("/", ".")) for n, d, o in truth.get(ln, ())
            if "$" not in n and not (n == "<init>" and o == "java/lang/Object")}


@pytest.mark.parametrize("snippet, here, want", [
    ('new StringBuilder("x");', "n.B", {("<init>", "(Ljava/lang/String;)", "java.lang.StringBuilder")}),
    ("new StringBuilder(16);", "n.B", {("<init>", "(I)", "java.lang.StringBuilder")}),
    ('new A("s");', "n.B", {("<init>", "(Ljava/lang/String;)", "n.A")}),
    ("new B(2L);", "n.B", {("<init>", "(J)", "n.B")}),
    ("A(int x) { this(); }", "n.A", {("<init>", "()", "n.A")}),
    ("B(long v) { super((int) v); }", "n.B", {("<init>", "(I)", "n.A")}),
    ("B() { }", "n.B", {("<init>", "()", "n.A")}),  # the implicit super() (JLS 8.8.7)
])
def test_constructor_calls_are_javacs(both, snippet, here, want):
    res, truth = both
    ln = _line(snippet)
    assert _javac(truth, ln, here) == want  # the hand-worked answer is javac's
    assert _got(res, ln) == want


def test_enum_constants_call_their_constructor(both):
    res, truth = both
    ln = _line("X(1), Y(")
    # javac passes the constant's name and ordinal first: E(String, int, int)
    assert {(n, o) for n, _, o in _javac(truth, ln, "n.E") if n == "<init>"} == {("<init>", "n.E")}
    assert _got(res, ln) == {("<init>", "(I)", "n.E"), ("<init>", "(Ljava/lang/String;)", "n.E")}


def test_an_anonymous_interface_class_calls_no_constructor(both):
    res, _ = both
    assert _got(res, _line("new Runnable()")) == set()


def test_method_references_bind_by_the_target_arity(both):
    # Integer.parseInt has overloads (String), (String, int), (CharSequence, int, int, int):
    # Function's apply takes 1 argument, BiFunction's 2 (JLS 15.13.1)
    res, _ = both
    assert _got(res, _line("Function<String, Integer> parse =")) == {
        ("parseInt", "(Ljava/lang/String;)", "java.lang.Integer")}
    assert _got(res, _line("parse2 =")) == {("parseInt", "(Ljava/lang/String;I)", "java.lang.Integer")}
    assert _got(res, _line("StringBuilder::new")) <= {("<init>", "()", "java.lang.StringBuilder")}
    # String::length has one candidate: exact
    assert _got(res, _line("String::length"), (Resolution.EXACT,)) == {
        ("length", "()", "java.lang.String")}
