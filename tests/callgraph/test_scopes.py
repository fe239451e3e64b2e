"""Scopes and names (``callgraph/_scopes.py``): which declaration a simple name
means at a position and how its type is found — locals, parameters, for-each
variables, resources, patterns and lambda parameters (JLS §6.3 scopes, the
innermost declaration wins), then fields of the enclosing types outward, then
static imports (JLS §6.5.6.1). Expected types worked out by hand from the JLS
and the JDK 17 signatures (``List.of(E)`` returns ``List<E>``,
``Function<T, R>.apply(T)``)."""

from __future__ import annotations

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver
from callgraph._scopes import Binding, MethodContext
from callgraph.classpath import ClasspathIndex

SRC = b"""package s;
import static java.lang.Math.PI;
class S {
    String f;
    static int COUNT;
    class Inner { void g() { int here = 0; } }
    void m(int p, String... rest) {
        long x = 1;
        { String inBlock = "a"; int mark1 = 0; }
        int mark2 = 0;
        for (var e : java.util.List.of("a")) { int mark3 = 0; }
        for (int[] row : new int[0][]) { int mark4 = 0; }
        try (var in = new java.io.StringReader("")) { int mark5 = 0; } catch (java.io.IOException ex) { }
        Object o = p;
        if (o instanceof Integer i) { int mark6 = 0; }
        var v = new StringBuilder();
        java.util.function.Function<String, Integer> fn = q -> q.length();
        int f = 3;
        int arr[] = null;
        int mark7 = 0;
    }
}
"""


def _walk(n):
    yield n
    for c in n.children:
        yield from _walk(c)


@pytest.fixture(scope="module")
def fr():
    tree = _facts.parse(SRC)
    ff = _facts.extract(SRC, tree, "src/main/java/s/S.java", "main", None)
    with ClasspathIndex.open([], jdk="/usr/lib/jvm/java-17-openjdk-amd64") as cp:
        r = FileResolver(ProjectIndex([ff], cp), 0, SRC, tree)
        r.run()
        r.marks = {n.text.decode(): n.start_byte for n in _walk(tree.root_node)
                   if n.type == "identifier" and n.text.startswith((b"mark", b"here"))}
        yield r


def _local(fr, name, mark):
    pos = fr.marks[mark]
    with fr.within(fr.context_at(pos)):
        return fr.local_type(name, pos)


def test_locals_and_parameters(fr):
    assert _local(fr, "x", "mark2") == (("long", ()), True)
    assert _local(fr, "p", "mark2") == (("int", ()), True)
    # a variable-arity parameter is an array (JLS 8.4.1)
    assert _local(fr, "rest", "mark2") == (("java.lang.String[]", ()), True)
    # `int arr[]`: the brackets on the name make it int[] (JLS 10.2)
    assert _local(fr, "arr", "mark7") == (("int[]", ()), True)


def test_block_scope_ends_with_its_block(fr):
    assert _local(fr, "inBlock", "mark1") == (("java.lang.String", ()), True)
    assert _local(fr, "inBlock", "mark2") == (None, False)  # JLS 6.3: scope is the rest of the block
    assert _local(fr, "e", "mark4") == (None, False)  # a for-each variable lives in its statement


def test_var_foreach_resource_and_pattern(fr):
    # `for (var e : List.of("a"))`: E inferred String, the element type of List<String> (JLS 14.14.2)
    assert _local(fr, "e", "mark3") == (("java.lang.String", ()), True)
    assert _local(fr, "row", "mark4") == (("int[]", ()), True)
    assert _local(fr, "in", "mark5") == (("java.io.StringReader", ()), True)  # var: the initializer's type
    assert _local(fr, "i", "mark6") == (("java.lang.Integer", ()), True)  # a type pattern (JLS 14.30.1)
    assert _local(fr, "v", "mark7") == (("java.lang.StringBuilder", ()), True)


def test_lambda_parameter_typed_from_its_target(fr):
    # Function<String, Integer>: apply(T) with T = String (JLS 15.27.3)
    lam = next(e for e in fr.locals["q"])
    pos = lam[0] + 1
    with fr.within(fr.context_at(pos)):
        assert fr.local_type("q", pos) == (("java.lang.String", ()), True)


def test_each_local_records_how_its_type_is_found(fr):
    kinds = {name: ents[0][3][0] for name, ents in fr.locals.items()}
    assert kinds["x"] is Binding.DECLARED and kinds["v"] is Binding.VAR_INIT and kinds["in"] is Binding.VAR_INIT
    assert kinds["e"] is Binding.FOREACH_ELEM and kinds["q"] is Binding.LAMBDA_PARAM
    assert all(type(k) is Binding for k in kinds.values())


def test_names_locals_then_fields_outward_then_static_imports(fr):
    pos = fr.marks["mark2"]
    with fr.within(fr.context_at(pos)):
        assert fr.ident("f", pos) == (("java.lang.String", ()), True)  # the field: the local comes later
        assert fr.ident("COUNT", pos) == (("int", ()), True)
        assert fr.ident("PI", pos) == (("double", ()), True)  # import static java.lang.Math.PI
        assert fr.ident("nothing", pos) == (None, False)
    pos = fr.marks["mark7"]
    with fr.within(fr.context_at(pos)):
        assert fr.ident("f", pos) == (("int", ()), True)  # the local `int f` shadows the field (JLS 6.4.1)
    pos = fr.marks["here"]
    with fr.within(fr.context_at(pos)):
        # in Inner: S's field, found through the enclosing type
        assert fr.ident("COUNT", pos) == (("int", ()), True)


def test_context_is_a_value(fr):
    ctx = fr.context_at(fr.marks["mark2"])
    assert isinstance(ctx, MethodContext) and ctx.type_key == "s.S" and ctx.method.info.name == "m"
    inner = fr.context_at(fr.marks["here"])
    assert inner.type_key == "s.S.Inner" and inner.method.info.name == "g"
    before = fr.ctx
    with fr.within(inner):
        assert fr.ctx is inner
    assert fr.ctx is before  # `within` gives the caller's context back
