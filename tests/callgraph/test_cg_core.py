"""Core behaviour of callgraph on small Java written inline: erasure in method ids,
LOC and comments, broken files, attribution of initializers/lambdas/local classes,
reach (depth, chain, chain LOC, density, tie-breaks, dispatch), caching.

Expected values are worked out by hand from the sources below (line numbers
are counted from the first line of each source string).
"""

from __future__ import annotations

import pytest

from callgraph import UnknownMethodError, build_project_graph


def _project(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return tmp_path


def _edges(pg, mid):
    return {(v, d["resolution"], tuple(d["lines"])) for _, v, d in pg.graph.out_edges(mid, data=True)}


GENERIC = """package p;
import java.util.*;
public class G<K, V extends Number> {
    public <T extends Comparable<T>> void m(T t, List<String>[] a, Map.Entry<K, V> e, V v, String... xs) { }
    <E> E[] arr(E[] es, int[][] grid, java.util.function.Function<? super K, ? extends V> f) { return es; }
    class Inner { Inner(K k, int n[]) { } }
    static class Nested<K> { void put(K k, G<K, Integer> g) { } }
}
"""


def test_method_ids_use_erased_fully_qualified_parameter_types(tmp_path):
    pg = build_project_graph(_project(tmp_path, {"src/main/java/p/G.java": GENERIC}))
    assert set(pg.methods()) == {
        "p.G.<init>()",
        "p.G.m(java.lang.Comparable,java.util.List[],java.util.Map.Entry,java.lang.Number,java.lang.String...)",
        "p.G.arr(java.lang.Object[],int[][],java.util.function.Function)",
        "p.G.Inner.<init>(java.lang.Object,int[])",
        "p.G.Nested.<init>()",
        "p.G.Nested.put(java.lang.Object,p.G)",
    }


LOC_SRC = """package p;

public class C {
    // first line
    // second line
    @Deprecated
    @SuppressWarnings("x")
    public void a() {
        int x = 1; // trailing

        /* block */
        x++;
    }

    /** Doc. */
    void b() { }

    // separated by a blank line

    void c() { }

    /* plain block */
    void d() {}
}
"""


@pytest.mark.parametrize("mode, loc_a", [("physical", 8), ("code", 6)])
def test_loc_lines_and_comments(tmp_path, mode, loc_a):
    pg = build_project_graph(_project(tmp_path, {"p/C.java": LOC_SRC}), jdk=None, loc_mode=mode)
    a, b, c, d = (pg.method(f"p.C.{n}()") for n in "abcd")
    assert (a.start_line, a.end_line, a.loc) == (6, 13, loc_a)
    assert a.comment == "// first line\n// second line"
    assert (b.start_line, b.end_line, b.loc, b.comment) == (16, 16, 1, "/** Doc. */")
    assert c.comment is None
    assert d.comment == "/* plain block */"
    node = pg.graph.nodes["p.C.a()"]
    assert (node["kind"], node["file"], node["loc"], node["source_set"]) == ("method", "p/C.java", loc_a, "main")


BROKEN = """package p;
public class B {
    void ok() { helper(); }
    void broken( { int x = ; }
    void helper() {}
}
"""


def test_broken_file_keeps_what_was_recovered_and_reports_positions(tmp_path):
    pg = build_project_graph(_project(tmp_path, {"p/B.java": BROKEN, "p/Fine.java": "package p; class Fine {}"}),
                             jdk=None)
    errs = dict(pg.summary.parse_errors)
    assert list(errs) == ["p/B.java"]
    assert errs["p/B.java"] and all(line == 4 for line, _ in errs["p/B.java"])
    assert _edges(pg, "p.B.ok()") == {("p.B.helper()", "exact", (3,))}


ATTR = """package p;
import java.util.function.Supplier;
public class A {
    static int S = util();
    int f = util();
    static { util(); }
    { util(); }
    A() { }
    A(int x) { this(); }
    static int util() { return 1; }
    void outer() {
        Runnable r = new Runnable() { public void run() { util(); } };
        class Loc { void z() { util(); } }
        Supplier<Integer> s = () -> util();
        new Loc().z();
    }
}
"""


def test_initializers_lambdas_anonymous_and_local_classes_are_attributed(tmp_path):
    pg = build_project_graph(_project(tmp_path, {"p/A.java": ATTR}))
    util = "p.A.util()"
    assert _edges(pg, "p.A.<clinit>()") == {(util, "exact", (4, 6))}
    assert _edges(pg, "p.A.<init>()") == {(util, "exact", (5, 7))}
    assert _edges(pg, "p.A.<init>(int)") == {(util, "exact", (5, 7)), ("p.A.<init>()", "exact", (9,))}
    # the anonymous Runnable's body, the local class's body and the lambda belong to outer()
    assert _edges(pg, "p.A.outer()") == {(util, "exact", (12, 13, 14))}
    assert pg.summary.resolved["local"] == 2  # new Loc() and .z()
    assert not any("Loc" in m or "$" in m for m in pg.methods())
    clinit = pg.method("p.A.<clinit>()")
    assert (clinit.start_line, clinit.end_line, clinit.loc, clinit.implicit) == (4, 6, 2, True)


REACH = {
    "q/Q.java": """package q;
import org.lib.Api;
public class Q {
    void q() {
        f();
        e();
        a();
        b();
        Api.v();
    }
    void a() { Api.x(); }
    void b() {
        Api.x();
    }
    void e() { Api.w(); }
    void f() { Api.w(); }
    void viaI(I i) { i.run(); }
}
""",
    "q/I.java": "package q;\npublic interface I { void run(); }\n",
    "q/Impl.java": "package q;\nclass Impl implements I {\n    public void run() { org.lib.Api.u(); }\n}\n",
}


def test_reach_depth_chain_loc_density_and_tie_breaks(tmp_path):
    pg = build_project_graph(_project(tmp_path, REACH), jdk=None)
    got = {t.api: t for t in pg.reach("q.Q.q()")}
    assert sorted(got) == ["org.lib.Api.v", "org.lib.Api.w", "org.lib.Api.x"]
    v, w, x = got["org.lib.Api.v"], got["org.lib.Api.w"], got["org.lib.Api.x"]
    assert (v.depth, v.chain, v.chain_loc, v.signature) == (2, ("q.Q.q()", "org.lib.Api.v(*)"), 7, None)
    assert v.density == pytest.approx(1 / 7)
    # e() and f() tie on depth and LOC: the lexicographically smaller chain wins
    assert w.chain == ("q.Q.q()", "q.Q.e()", "org.lib.Api.w(*)") and (w.depth, w.chain_loc) == (3, 8)
    # a() (1 line) beats b() (3 lines) on chain LOC
    assert x.chain == ("q.Q.q()", "q.Q.a()", "org.lib.Api.x(*)") and x.chain_loc == 8
    assert x.call_sites == (("q/Q.java", 7), ("q/Q.java", 11))
    assert x.resolution == "arity" and x.class_ == "org.lib.Api"
    assert x.to_dict() == {"api": "org.lib.Api.x", "signature": None, "class": "org.lib.Api", "library": None,
                           "depth": 3, "chain": list(x.chain), "chain_loc": 8, "density": 1 / 8,
                           "resolution": "arity",
                           "call_sites": [{"file": "q/Q.java", "line": 7}, {"file": "q/Q.java", "line": 11}]}
    assert [t.api for t in pg.reach("q.Q.q()", max_depth=2)] == ["org.lib.Api.v"]
    assert pg.max_depth("q.Q.q()") == 3


def test_reach_dispatch_cha_and_declared(tmp_path):
    pg = build_project_graph(_project(tmp_path, REACH), jdk=None)
    assert _edges(pg, "q.Q.viaI(q.I)") == {("q.I.run()", "exact", (17,)), ("q.Impl.run()", "cha", (17,))}
    (u,) = pg.reach("Q.viaI")
    assert (u.api, u.depth, u.resolution, u.chain_loc) == ("org.lib.Api.u", 3, "cha", 2)
    assert pg.reach("Q.viaI", dispatch="declared") == []
    with pytest.raises(ValueError):
        pg.reach("Q.viaI", dispatch="virtual")


def test_find_methods_and_unknown_names(tmp_path):
    pg = build_project_graph(_project(tmp_path, REACH), jdk=None)
    assert pg.find_methods("run") == ["q.I.run()", "q.Impl.run()"]
    assert pg.find_methods("Q.a") == ["q.Q.a()"] == pg.find_methods("q.Q.a()")
    with pytest.raises(UnknownMethodError) as e:
        pg.reach("run")
    assert e.value.candidates == ["q.I.run()", "q.Impl.run()"]
    with pytest.raises(UnknownMethodError):
        pg.method("q.Q.nope()")


def test_cache_and_jobs_give_the_same_graph(tmp_path):
    files = dict(REACH)
    for i in range(20):  # enough files for the process pool to be used
        files[f"q/P{i}.java"] = f"package q;\nclass P{i} {{ void m() {{ new Q().a(); org.lib.Api.t{i}(); }} }}\n"
    root = _project(tmp_path / "proj", files)
    cache = tmp_path / "facts.sqlite"
    one = build_project_graph(root, jdk=None)
    two = build_project_graph(root, jdk=None, jobs=2, cache=cache)
    again = build_project_graph(root, jdk=None, cache=cache)

    def snap(pg):
        return (sorted(pg.graph.nodes(data=True)), sorted((u, v, d["resolution"], d["lines"])
                                                          for u, v, d in pg.graph.edges(data=True)))

    assert snap(one) == snap(two) == snap(again)
    assert one.summary.files == 23


LIB_GENERICS = """package g;
import java.util.*;
class Item { void run() {} }
class G {
    void m(Map<String, Item> map, List<Item> list, Optional<Item> o) {
        for (var e : map.entrySet()) { e.getValue().run(); }
        list.iterator().next().run();
        map.get("x").run();
        o.get().run();
        for (Item i : map.values()) { i.run(); }
    }
}
"""


def test_library_generic_returns_substitute_the_receivers_type_arguments(tmp_path):
    # JDK signatures: Map.entrySet() is Set<Map.Entry<K,V>>, List.iterator() Iterator<E>, ...
    pg = build_project_graph(_project(tmp_path, {"g/G.java": LIB_GENERICS}))
    edges = _edges(pg, "g.G.m(java.util.Map,java.util.List,java.util.Optional)")
    assert ("g.Item.run()", "exact", (6, 7, 8, 9, 10)) in edges
    assert ("java.util.Map.Entry.getValue()", "exact", (6,)) in edges
    assert pg.summary.unresolved == 0 and pg.summary.resolved["name"] == 0


def test_an_internal_error_costs_one_call_site_not_the_build(tmp_path, monkeypatch):
    from callgraph import _resolve

    def boom(self, n):
        raise KeyError("simulated resolver bug")

    monkeypatch.setattr(_resolve.FileResolver, "new", boom)
    src = {"n/N.java": "package n;\nclass N { void m() { new N(); helper(); }\n void helper() {} }\n"}
    pg = build_project_graph(_project(tmp_path, src), jdk=None)
    assert dict(pg.summary.top_reasons) == {"internal error (KeyError)": 1}
    assert pg.summary.unresolved == 1
    assert _edges(pg, "n.N.m()") == {("n.N.helper()", "exact", (2,))}


METHOD_REFS = """package m;
import java.util.function.*;
class M {
    static int f(int x) { return x; }
    static int f(int x, int y) { return x + y; }
    int g() { return 1; }
    int g(int a) { return a; }
    void use(IntUnaryOperator op) { }
    void run() {
        use(M::f);
        IntBinaryOperator b = M::f;
        Function<M, Integer> h = M::g;
        Supplier<Integer> s = this::g;
        Object o = (Runnable) this::g;
    }
}
"""


def test_overloaded_method_references_are_decided_by_the_functional_interface(tmp_path):
    pg = build_project_graph(_project(tmp_path, {"m/M.java": METHOD_REFS}))
    # a cast context is not used: line 14 stays `name` (both g overloads); an edge
    # keeps its strongest kind, so g() is `arity` with all three lines
    assert _edges(pg, "m.M.run()") == {
        ("m.M.use(java.util.function.IntUnaryOperator)", "exact", (10,)),
        ("m.M.f(int)", "arity", (10,)),  # IntUnaryOperator.applyAsInt(int)
        ("m.M.f(int,int)", "arity", (11,)),  # IntBinaryOperator.applyAsInt(int,int)
        ("m.M.g()", "arity", (12, 13, 14)),  # Function.apply(M) takes the receiver; Supplier.get()
        ("m.M.g(int)", "name", (14,)),
    }


def test_qualified_inner_class_creation(tmp_path):
    src = {"o/T.java": """package o;
class T {
    private Outer outer = new Outer();
    void m() {
        Outer.Inner i = outer.new Inner(1);
        i.go();
    }
    static class Outer {
        class Inner { Inner(int v) { } void go() { } }
    }
}
"""}
    pg = build_project_graph(_project(tmp_path, src))
    assert _edges(pg, "o.T.m()") == {("o.T.Outer.Inner.<init>(int)", "exact", (5,)),
                                     ("o.T.Outer.Inner.go()", "exact", (6,))}


def test_summary_lines_count_as_wc_does_plus_an_unterminated_last_line(tmp_path):
    # a new user, session 10: `lines: 4` for a 3-line file — the empty string
    # after the last newline was counted as a line
    from callgraph._facts import physical_lines

    assert [physical_lines(b) for b in (b"", b"\n", b"a", b"a\n", b"a\nb", b"a\nb\n", b"a\r\nb\r\n")] \
        == [0, 1, 1, 1, 2, 2, 2]
    root = _project(tmp_path, {
        "src/main/java/p/A.java": "package p;\nclass A {\n}\n",  # wc -l: 3
        "src/main/java/p/B.java": "package p;\nclass B {\n  void m() {}\n}",  # wc -l: 3, and an unterminated 4th
    })
    assert build_project_graph(root, jdk=None, auto_classpath=False).summary.lines == 3 + 4
