"""Generic inference (``callgraph/_inference.py``): the type a generic call
returns — class type variables from the receiver's type arguments (through
supertypes, library ``Signature`` attributes included), method type variables
from the arguments (JLS §18.5.1: a parameter that is the variable, ``Class<V>``,
a generic type of it, an expression-bodied lambda's result), raw receivers
erased (JLS §4.8) — and the functional-interface target that types an untyped
lambda parameter (JLS §15.27.3). Expected types worked out by hand from the
JDK 17 signatures named per case (javap -s)."""

from __future__ import annotations

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver
from callgraph._scopes import Binding
from callgraph.classpath import ClasspathIndex

SRC = b"""package g;
import java.util.*;
import java.util.function.*;
class Box<T> {
    T value;
    T get() { return value; }
    static <V> V id(V v) { return v; }
    static <V> V make(Class<V> c) { return null; }
}
class StrBox extends Box<String> { }
class G {
    void m(Map<String, List<Integer>> map, List raw, StrBox sb, Box<Integer> bi) {
        Object[] e = {
            List.of("a"),
            Collections.singletonList(1),
            new ArrayList<String>().iterator(),
            map.entrySet(),
            map.get("k").get(0),
            Optional.of("x").map(s -> s.length()),
            Objects.requireNonNull("x"),
            raw.get(0),
            sb.get(),
            bi.get(),
            Box.id("s"),
            Box.make(StringBuilder.class),
            Arrays.asList(1, "a"),
            Optional.of(1).orElseGet(() -> 2),
        };
        Function<Integer, String> f = n -> n.toString();
        map.forEach((k, v) -> v.size());
    }
}
"""

STRING, INTEGER = ("java.lang.String", ()), ("java.lang.Integer", ())


def _walk(n):
    yield n
    for c in n.children:
        yield from _walk(c)


@pytest.fixture(scope="module")
def fr():
    tree = _facts.parse(SRC)
    ff = _facts.extract(SRC, tree, "src/main/java/g/G.java", "main", None)
    with ClasspathIndex.open([], jdk="/usr/lib/jvm/java-17-openjdk-amd64") as cp:
        r = FileResolver(ProjectIndex([ff], cp), 0, SRC, tree)
        r.run()
        r.nodes = list(_walk(tree.root_node))
        yield r


@pytest.fixture(scope="module")
def typed(fr):
    init = next(n for n in fr.nodes if n.type == "array_initializer")
    out = {}
    for e in init.named_children:
        with fr.within(fr.context_at(e.start_byte)):
            out[e.text.decode()] = fr.texpr(e)
    return out


def test_method_type_variables_from_arguments(typed):
    # List.of(E): E = String; Collections.singletonList(T) with an int: T = Integer (boxing)
    assert typed['List.of("a")'] == ("java.util.List", (STRING,))
    assert typed["Collections.singletonList(1)"] == ("java.util.List", (INTEGER,))
    assert typed['Objects.requireNonNull("x")'] == STRING  # <T> T requireNonNull(T)
    assert typed['Box.id("s")'] == STRING  # a project generic method
    assert typed["Box.make(StringBuilder.class)"] == ("java.lang.StringBuilder", ())  # Class<V> -> V
    # conflicting evidence (Integer, String) is left unknown, never guessed (javac: a lub)
    assert typed['Arrays.asList(1, "a")'] == ("java.util.List", (None,))


def test_class_type_variables_from_the_receiver(typed):
    # ArrayList<String>.iterator() returns Iterator<E>, E = String
    assert typed["new ArrayList<String>().iterator()"] == ("java.util.Iterator", (STRING,))
    # Map<String, List<Integer>>.entrySet(): Set<Map.Entry<K, V>>
    list_int = ("java.util.List", (INTEGER,))
    assert typed["map.entrySet()"] == ("java.util.Set", (("java.util.Map.Entry", (STRING, list_int)),))
    assert typed['map.get("k").get(0)'] == INTEGER
    # StrBox extends Box<String>: get() is String through the supertype
    assert typed["sb.get()"] == STRING
    assert typed["bi.get()"] == INTEGER


def test_a_raw_receiver_is_erased(typed):
    # JLS 4.8: the members of a raw type are erased: List.get(int) returns Object
    assert typed["raw.get(0)"] == ("java.lang.Object", ())


def test_lambda_results_bind_type_variables(typed):
    # Optional<T>.map(Function<? super T, ? extends U>): the lambda's body
    # s.length() is int, so U = Integer
    assert typed['Optional.of("x").map(s -> s.length())'] == ("java.util.Optional", (INTEGER,))
    # orElseGet(Supplier<? extends T>) returns T of the receiver: Integer
    assert typed["Optional.of(1).orElseGet(() -> 2)"] == INTEGER


def test_lambda_parameters_from_the_target_type(fr):
    def param(name):
        ent = next(e for e in fr.locals[name] if e[3][0] is Binding.LAMBDA_PARAM)
        pos = ent[0] + 1
        with fr.within(fr.context_at(pos)):
            return fr.local_type(name, pos)[0]
    assert param("s") == STRING  # map's Function<? super String, ..>
    assert param("n") == INTEGER  # a declared Function<Integer, String>
    # Map<String, List<Integer>>.forEach(BiConsumer<? super K, ? super V>)
    assert param("k") == STRING and param("v") == ("java.util.List", (INTEGER,))
