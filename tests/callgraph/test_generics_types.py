"""The Signature grammar parser of callgraph/_types.py (JVMS §4.7.9.1); expected
values worked out by hand from the grammar, the signatures as javac writes them."""

from __future__ import annotations

import pytest

from callgraph._types import (ClassSignature, JArray, JClass, JPrim, JTypeVar, JWildcard, MethodSignature,
                              SignatureError, TypeParam, erasure, parse_class_signature,
                              parse_method_signature, substitute)

OBJ = JClass("java.lang.Object")


def test_self_typed_class_signature():
    # class AbstractStringAssert<SELF extends AbstractStringAssert<SELF>>
    #     extends AbstractCharSequenceAssert<SELF, String>
    s = ("<SELF:Lgl/AbstractStringAssert<TSELF;>;>"
         "Lgl/AbstractCharSequenceAssert<TSELF;Ljava/lang/String;>;")
    assert parse_class_signature(s) == ClassSignature(
        (TypeParam("SELF", (JClass("gl.AbstractStringAssert", (JTypeVar("SELF"),)),)),),
        JClass("gl.AbstractCharSequenceAssert", (JTypeVar("SELF"), JClass("java.lang.String"))),
        ())


def test_interface_bounds_wildcards_and_inner_of_generic_outer():
    # <K::Ljava/lang/Comparable<-TK;>;V:Ljava/lang/Object;> Object implements Map<K, ? extends V>,
    # Outer<K>.Inner<V>
    s = ("<K::Ljava/lang/Comparable<-TK;>;V:Ljava/lang/Object;>Ljava/lang/Object;"
         "Ljava/util/Map<TK;+TV;>;Lp/Outer<TK;>.Inner<TV;>;")
    cs = parse_class_signature(s)
    assert cs.type_params == (
        TypeParam("K", (JClass("java.lang.Comparable", (JWildcard(JTypeVar("K"), False),)),)),
        TypeParam("V", (OBJ,)))
    assert cs.interfaces == (JClass("java.util.Map", (JTypeVar("K"), JWildcard(JTypeVar("V"), True))),
                             JClass("p.Outer.Inner", (JTypeVar("V"),)))


def test_method_signature_varargs_arrays_primitives_throws():
    # <E> List<E> of(E... es) ; <T extends Throwable> void f(int[], T) throws T
    assert parse_method_signature("<E:Ljava/lang/Object;>([TE;)Ljava/util/List<TE;>;") == MethodSignature(
        (TypeParam("E", (OBJ,)),), (JArray(JTypeVar("E")),), JClass("java.util.List", (JTypeVar("E"),)))
    ms = parse_method_signature("<T:Ljava/lang/Throwable;>([ITT;)V^TT;")
    assert ms.params == (JArray(JPrim("int")), JTypeVar("T")) and ms.returns == JPrim("void")
    assert parse_method_signature("()Ljava/util/Map$Entry<**>;").returns == JClass(
        "java.util.Map.Entry", (JWildcard(), JWildcard()))


@pytest.mark.parametrize("bad", ["", "<T:", "Ljava/lang/Object", "<T:Ljava/lang/Object;>TT;",
                                 "(I", "(Q)V", "L;", "<>Ljava/lang/Object;" + "x",
                                 "()" + "Ljava/util/List<" * 200 + "TT;" + ">;" * 200,
                                 "()L" + "a" * 70_000 + ";"])
def test_malformed_signatures_raise_signature_error(bad):
    with pytest.raises(SignatureError):
        if bad.startswith("(") or bad.startswith("()"):
            parse_method_signature(bad)
        else:
            parse_class_signature(bad)


def test_substitute_and_erasure():
    t = JClass("java.util.Map", (JTypeVar("K"), JWildcard(JArray(JTypeVar("V")))))
    assert substitute(t, {"K": JClass("java.lang.String")}) == JClass(
        "java.util.Map", (JClass("java.lang.String"), JWildcard(JArray(JTypeVar("V")))))
    params = {"T": TypeParam("T", (JClass("java.lang.Number"),)), "U": TypeParam("U", ())}
    assert erasure(JArray(JTypeVar("T")), params) == "java.lang.Number[]"
    assert erasure(JTypeVar("U"), params) == "java.lang.Object"
    assert erasure(JTypeVar("X"), params) is None


# --- descriptors (JVMS §4.3): the same grammar without type variables or arguments ----------

def _nest(internal):
    # what classpath's InnerClasses-aware naming does for these names: a$ b is nesting
    return internal.replace("/", ".").replace("$", ".")


def test_descriptors_parse_with_the_signature_grammar():
    from callgraph._types import parse_field_descriptor, parse_method_descriptor

    # void put(int[][] a, java.util.Map.Entry e, long n); String[] of a field
    assert parse_method_descriptor("([[ILjava/util/Map$Entry;J)V", _nest) == MethodSignature(
        (), (JArray(JArray(JPrim("int"))), JClass("java.util.Map.Entry"), JPrim("long")), JPrim("void"))
    assert parse_method_descriptor("()Ljava/lang/String;", _nest).returns == JClass("java.lang.String")
    assert parse_field_descriptor("[Ljava/lang/String;", _nest) == JArray(JClass("java.lang.String"))
    # the caller names each class: a top-level class whose name holds a $ stays one name
    assert parse_field_descriptor("La/Top$Level;", lambda n: n.replace("/", ".")) == JClass("a.Top$Level")


@pytest.mark.parametrize("bad", ["", "V", "I;", "TT;", "Ljava/util/List<TT;>;", "La.b;", "[", "Lx",
                                 "L;", "Q"])
def test_malformed_field_descriptors_raise(bad):
    from callgraph._types import parse_field_descriptor

    with pytest.raises(SignatureError):
        parse_field_descriptor(bad, _nest)


@pytest.mark.parametrize("bad", ["", "V", "(", "(I", "()", "(V)V", "()VV", "(TT;)V", "<T:Ljava/lang/Object;>()V",
                                 "()V^Ljava/lang/Exception;", "(Ljava/util/List<*>;)V"])
def test_malformed_method_descriptors_raise(bad):
    from callgraph._types import parse_method_descriptor

    with pytest.raises(SignatureError):
        parse_method_descriptor(bad, _nest)
