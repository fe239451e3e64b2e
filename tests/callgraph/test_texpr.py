"""Typing of expressions (``callgraph/_texpr.py``): the static type the resolver
gives an expression, against the JLS (§3.10 literals, §15.15 unary and §15.17–
§15.24 binary operators with numeric promotion, §15.25 conditionals, §15.18
string concatenation, §15.27 lambdas). Expected values worked out by hand from
the JLS rules quoted per case; the kinds of type are told by class
(``NullT``, ``LambdaT``), never by name."""

from __future__ import annotations

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver
from callgraph._types import NULL, ClassT, LambdaT, NullT
from callgraph.classpath import ClasspathIndex

SRC = b"""package t;
class T {
    byte b; short s; char c; int i; long l; float f; double d; boolean flag;
    String str; int[][] grid; Integer boxed;
    void v() { }
    int n() { return 0; }
    void m() {
        Object[] e = {
            1, 1L, 1.5f, 1.5, 'x', true, "s", null, \"\"\"
            block\"\"\",
            b + s, c << 2L, 1L << 2, l + f, i + d, -b, !flag, i < l, b & s,
            "a" + 1, 1 + "a", str + null,
            flag ? 1 : 2L, flag ? null : 1, flag ? boxed : i, flag ? "a" : null,
            (byte) i, (Object) str, grid[0], grid[0][0], grid.length, new int[3][], new String[2],
            i++, i = 5, this, T.class, str.length(), (i),
            () -> { }, x -> x, () -> n(), () -> v(), (p, q) -> { return; }, String::length,
        };
    }
}
"""


@pytest.fixture(scope="module")
def typed():
    """{expression text: its type} for each element of the array initializer above."""
    tree = _facts.parse(SRC)
    ff = _facts.extract(SRC, tree, "src/main/java/t/T.java", "main", None)
    with ClasspathIndex.open([], jdk="/usr/lib/jvm/java-17-openjdk-amd64") as cp:
        idx = ProjectIndex([ff], cp)
        fr = FileResolver(idx, 0, SRC, tree)
        fr.run()
        init = next(n for n in _walk(tree.root_node) if n.type == "array_initializer")
        out = {}
        for e in init.named_children:
            with fr.within(fr.context_at(e.start_byte)):
                out[e.text.decode()] = fr.texpr(e)
        return out


def _walk(n):
    yield n
    for c in n.children:
        yield from _walk(c)


def _c(name, *args):
    return ClassT(name, args)


def test_literals(typed):
    # JLS 3.10: an int literal is int, with L long, with f float, else double; 'x' char
    assert typed["1"] == _c("int") and typed["1L"] == _c("long")
    assert typed["1.5f"] == _c("float") and typed["1.5"] == _c("double")
    assert typed["'x'"] == _c("char") and typed["true"] == _c("boolean")
    assert typed['"s"'] == _c("java.lang.String")
    assert typed['"""\n            block"""'] == _c("java.lang.String")  # a text block is a String (JLS 3.10.6)
    # the null literal has the null type (JLS 4.1), told by its class
    assert typed["null"] is NULL and type(typed["null"]) is NullT


def test_numeric_promotion(typed):
    # binary numeric promotion (JLS 5.6): byte+short -> int, long+float -> float, int+double -> double
    assert typed["b + s"] == _c("int") and typed["l + f"] == _c("float") and typed["i + d"] == _c("double")
    # shifts promote each operand on its own (JLS 15.19): char << long is int, long << int is long
    assert typed["c << 2L"] == _c("int") and typed["1L << 2"] == _c("long")
    assert typed["-b"] == _c("int")  # unary numeric promotion (JLS 15.15.4)
    assert typed["b & s"] == _c("int")  # integer bitwise (JLS 15.22.1)
    assert typed["!flag"] == _c("boolean") and typed["i < l"] == _c("boolean")


def test_string_concatenation(typed):
    # JLS 15.18.1: either operand a String makes + a concatenation
    for k in ('"a" + 1', '1 + "a"', "str + null"):
        assert typed[k] == _c("java.lang.String"), k


def test_conditional(typed):
    # JLS 15.25: numeric operands -> promoted; null and a primitive -> the box;
    # Integer and int -> unboxed numeric int; a reference and null -> the reference
    assert typed["flag ? 1 : 2L"] == _c("long")
    assert typed["flag ? null : 1"] == _c("java.lang.Integer")
    assert typed["flag ? boxed : i"] == _c("int")
    assert typed['flag ? "a" : null'] == _c("java.lang.String")


def test_casts_arrays_and_others(typed):
    assert typed["(byte) i"] == _c("byte") and typed["(Object) str"] == _c("java.lang.Object")
    # int[][] grid: grid[0] is int[], grid[0][0] int, .length int (JLS 10.7)
    assert typed["grid[0]"] == _c("int[]") and typed["grid[0][0]"] == _c("int") and typed["grid.length"] == _c("int")
    assert typed["new int[3][]"] == _c("int[][]") and typed["new String[2]"] == _c("java.lang.String[]")
    assert typed["i++"] == _c("int") and typed["i = 5"] == _c("int")  # JLS 15.14.2, 15.26
    assert typed["this"] == _c("t.T")
    assert typed["T.class"] == _c("java.lang.Class", _c("t.T"))  # JLS 15.8.2: Class<T>
    assert typed["str.length()"] == _c("int") and typed["(i)"] == _c("int")


def test_lambdas_by_shape(typed):
    # JLS 15.27.2: a block body without `return expr` is void-compatible only; an
    # expression body that is a statement expression is both; a name is a value
    assert typed["() -> { }"] == LambdaT("λ", (0, "void"))
    assert typed["x -> x"].shape == (1, "value")
    # `() -> n()`: n returns int, so both; `() -> v()`: v is void, so void only
    assert typed["() -> n()"].shape == (0, "both") and typed["() -> v()"].shape == (0, "void")
    assert typed["(p, q) -> { return; }"].shape == (2, "void")
    # a method reference's shape depends on the overload it binds
    assert type(typed["String::length"]) is LambdaT and typed["String::length"].shape == ()
    assert all(type(typed[k]) is LambdaT for k in ("() -> { }", "x -> x"))
