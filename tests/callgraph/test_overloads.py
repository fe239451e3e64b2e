"""Overload selection (``callgraph/_overloads.py``), JLS §15.12.2 phases 1–3 and
the most specific method, on real JDK 17 overloads. Expected values are the
methods javac binds (JLS examples: ``List.remove(int)`` vs ``remove(Object)``)."""

from __future__ import annotations

import pytest

from callgraph._index import ProjectIndex
from callgraph._overloads import applicable, arity_ok, assignable, choose
from callgraph._types import NULL, UNKNOWN_LIB, ClassT, lambda_type
from callgraph.classpath import ClasspathIndex

INT, LONG, CHAR = ClassT("int"), ClassT("long"), ClassT("char")
INTEGER, STRING = ClassT("java.lang.Integer"), ClassT("java.lang.String")


@pytest.fixture(scope="module")
def idx():
    with ClasspathIndex.open([], jdk="/usr/lib/jvm/java-17-openjdk-amd64") as cp:
        yield ProjectIndex([], cp)


def _pick(idx, t, name, ats):
    cands = idx.methods_named(t, name)[0]
    chosen, by_types = choose(idx, cands, len(ats), lambda: list(ats))
    return [c.id for c in chosen], by_types


def test_phase_1_prefers_no_boxing(idx):
    # list.remove(1) -> remove(int); list.remove(Integer) -> remove(Object), both phase 1
    assert _pick(idx, "java.util.List", "remove", [INT]) == (["java.util.List.remove(int)"], True)
    assert _pick(idx, "java.util.List", "remove", [INTEGER]) == (["java.util.List.remove(java.lang.Object)"], True)


def test_most_specific_by_widening(idx):
    # Math.max(int, long): only max(long,long), max(float,float), max(double,double) apply; long is most specific
    assert _pick(idx, "java.lang.Math", "max", [INT, LONG]) == (["java.lang.Math.max(long,long)"], True)
    assert _pick(idx, "java.lang.String", "valueOf", [CHAR]) == (["java.lang.String.valueOf(char)"], True)


def test_phase_2_unboxing(idx):
    # Math.abs(Integer): no phase-1 method; phase 2 unboxes to int, abs(int) most specific
    assert _pick(idx, "java.lang.Math", "abs", [INTEGER]) == (["java.lang.Math.abs(int)"], True)
    assert assignable(idx, INTEGER, "int", 1) is False and assignable(idx, INTEGER, "int", 2) is True


def test_phase_3_varargs(idx):
    fmt = idx.methods_named("java.lang.String", "format")[0]
    one = next(c for c in fmt if len(c.ptypes) == 2)  # format(String, Object...)
    assert arity_ok(one, 1) and arity_ok(one, 4) and not arity_ok(one, 0)
    assert applicable(idx, one, [STRING, INT, INT], 2) is False
    assert applicable(idx, one, [STRING, INT, INT], 3) is True
    assert _pick(idx, "java.lang.String", "format", [STRING, INT, INT]) == (
        ["java.lang.String.format(java.lang.String,java.lang.Object...)"], True)


def test_unknown_argument_leaves_the_overload_undecided(idx):
    ids, by_types = _pick(idx, "java.util.List", "remove", [None])
    assert sorted(ids) == ["java.util.List.remove(int)", "java.util.List.remove(java.lang.Object)"]
    assert by_types is False
    assert assignable(idx, NULL, "java.lang.Object", 1) is True and assignable(idx, NULL, "int", 1) is False


def test_argument_types_are_computed_only_when_the_arity_fits(idx):
    cands = idx.methods_named("java.util.List", "size")[0]

    def boom():
        raise AssertionError("argument types typed for no applicable candidate")

    assert choose(idx, cands, 2, boom) == ([], None)


def test_lambda_and_unknown_arguments_are_told_by_their_class(idx):
    # JLS 15.27.3: a lambda fits a functional interface of the same arity whose
    # function type's result matches the body (Runnable.run() is void,
    # Supplier.get() returns a value, Function.apply takes one argument)
    void0, value1 = lambda_type((0, "void")), lambda_type((1, "value"))
    assert assignable(idx, void0, "java.lang.Runnable", 1) is True
    assert assignable(idx, void0, "java.util.function.Supplier", 1) is False
    assert assignable(idx, value1, "java.util.function.Function", 1) is True
    assert assignable(idx, value1, "java.lang.Runnable", 1) is False
    assert assignable(idx, value1, "java.lang.String", 1) is False  # not a functional interface
    # a value of a type outside the classpath: fits Object, never a primitive
    # or an array, maybe anything else
    assert assignable(idx, UNKNOWN_LIB, "java.lang.Object", 1) is True
    assert assignable(idx, UNKNOWN_LIB, "int", 2) is False
    assert assignable(idx, UNKNOWN_LIB, "java.lang.String[]", 1) is False
    assert assignable(idx, UNKNOWN_LIB, "java.lang.String", 1) is None
    # the kind is the value's class, not its name: a class type that happens
    # to be called "λ" or "null" is an (unknown) class type
    assert assignable(idx, ClassT("λ", (1, "value")), "java.util.function.Function", 1) is None
    assert assignable(idx, ClassT("null"), "java.lang.String", 1) is None
