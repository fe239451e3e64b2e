"""Pass 2's one tree-sitter query per file (``_resolve.pass2_captures``): the
resolver and RTA get exactly what their own queries would have found, in the
same order, from a single walk of the tree."""

from __future__ import annotations

from pathlib import Path

import tree_sitter

from callgraph import _facts, _resolve, _rta, build_project_graph

ROOT = Path(__file__).resolve().parents[2]
SRC = b"""
package p;
import java.util.*;
@Deprecated
class A<T> extends B implements Runnable {
    @Override public void run() {
        List<String> xs = new ArrayList<>();
        for (String s : xs) { s.length(); }
        Runnable r = () -> System.out.println(xs);
        java.util.function.Supplier<A> f = A::new;
        Object o = new Object() { public String toString() { return "x"; } };
        if (o instanceof String t && t.isEmpty()) { t.trim(); }
        try (var in = new java.io.StringReader("a")) { in.read(); } catch (java.io.IOException | RuntimeException e) { }
        new A<T>().run(); this.run(); String.valueOf(A.class);
    }
    A() { super(); }
    A(int... xs) { this(); }
    enum E { X { }, Y; }
    record R(int a) { R { } }
}
"""


def _site_alone(tree):
    q = tree_sitter.Query(_facts.JAVA, _resolve._SITE_QUERY_PATTERNS)
    caps = [(n.start_byte, name, n) for name, nodes in tree_sitter.QueryCursor(q).captures(tree.root_node).items()
            for n in nodes]
    caps.sort(key=lambda c: (c[0], -c[2].end_byte))
    return caps


def _key(n):
    return n.start_byte, n.end_byte, n.type


def test_one_query_gives_each_consumer_what_its_own_query_gave():
    tree = _facts.parse(SRC)
    site, rta = _resolve.pass2_captures(tree)
    alone = _site_alone(tree)
    assert [(b, name, _key(n)) for b, name, n in site] == [(b, name, _key(n)) for b, name, n in alone]
    rta_alone = tree_sitter.QueryCursor(_rta._QUERY).captures(tree.root_node)
    assert [(k, [_key(n) for n in v]) for k, v in rta.items()] == \
        [(k, [_key(n) for n in v]) for k, v in rta_alone.items()]
    # worked out by hand from SRC: 4 object creations (ArrayList, Object, StringReader, A<T>),
    # @Deprecated and @Override, a lambda and a method reference, one class literal
    assert sorted(rta) == ["ann_method", "ann_type", "fn", "lit", "new"]
    assert len(rta["new"]) == 4 and len(rta["ann_type"]) == 1 and len(rta["ann_method"]) == 1
    assert len(rta["fn"]) == 2 and len(rta["lit"]) == 1
    assert sum(1 for _b, name, _n in site if name == "call") == 8  # length, println, isEmpty, trim, read, run, run, valueOf


def test_pass2_walks_each_tree_once(monkeypatch):
    # count the query cursors pass 2 runs (one job: in this process)
    made = []
    real = tree_sitter.QueryCursor

    class Counting:
        def __init__(self, query):
            made.append(query)
            self._cur = real(query)

        def captures(self, node):
            return self._cur.captures(node)

    monkeypatch.setattr(_resolve.tree_sitter, "QueryCursor", Counting)
    fixture = ROOT / "fixtures" / "java" / "resolution"
    pg = build_project_graph(fixture, jobs=1, jdk=None, auto_classpath=False)
    n = pg.summary.files
    assert n > 10
    pass2 = [q for q in made if q is _resolve._PASS2_QUERY]
    others = [q for q in made if q is not _resolve._PASS2_QUERY and q is not _facts._DECL_QUERY
              and q is not _facts._ERROR_QUERY and q is not _facts._COMMENT_QUERY]
    assert len(pass2) == n and others == []


def test_facts_pickle_to_equal_facts_through_their_fields():
    # facts cross between the processes of a build by pickle (_facts._pickled_by_fields)
    import pickle

    ff = _facts.extract(SRC, _facts.parse(SRC), "p/A.java", "main", None)
    kinds = {type(ff), type(ff.imports[0]), type(ff.types[0]), type(ff.types[0].methods[0]),
             type(ff.types[0].fields[0]) if ff.types[0].fields else None,
             type(ff.types[0].annotations[0])}
    back = pickle.loads(pickle.dumps(ff, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == ff and back is not ff
    for k in kinds - {None}:
        assert k.__reduce__ is not object.__reduce__


def test_nodes_that_start_together_come_outer_first_in_every_parse():
    # the query alone gives a.b().c().d()'s invocations (all starting at `a`)
    # in an order that changes from one parse to the next; the first call
    # site of an unresolved reason is its summary's example, so the order is
    # fixed: the outer first
    src = b"class C { void f(Object a) { a.b().c().d().e().f().g().h(); a.x(\n).y(\n).z(); } }"
    orders = set()
    for _ in range(20):
        site, _ = _resolve.pass2_captures(_facts.parse(src))
        calls = [(b, n.end_byte) for b, name, n in site if name == "call"]
        assert calls == sorted(calls, key=lambda c: (c[0], -c[1]))
        orders.add(tuple(calls))
    assert len(orders) == 1
