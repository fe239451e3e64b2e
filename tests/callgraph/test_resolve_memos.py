"""The resolver's per-file memos (``FileResolver``: ``Scopes.ref``,
``Scopes.ident``, ``Scopes._type_name``, ``CallSites.target``'s CHA targets,
``GenericInference.project_return``) answer each call site as a fresh look-up
would. Every case below has two call sites in one file that share what a
memo with too coarse a key would share, and need different answers: a type
variable of the same name in two methods, a field of the same name in two
classes (and a local shadowing it), a generic versus a plain return, a member
type of the same simple name in two outer classes, and CHA on a supertype
versus on a subtype. The expected edges are worked out by hand from the JLS
(§6.4.1 shadowing, §6.5.5 type names, §15.12 method invocation, javac's
erasure of the type variable ``T extends A`` to ``A``)."""

from __future__ import annotations

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph._resolve import FileResolver

SRC = """package m;
class A { void a() {} }
class B { void b() {} }
class M {
    <T extends A> void f(T t) {
        t.a(); }
    <T extends B> void g(T t) {
        t.b(); }
}
class O1 { A x; void f() {
        x.a(); } }
class O2 { B x; void g() {
        x.b(); }
    void h() {
        x.b();
        A x = null;
        x.a(); } }
class Box<T> { T get() { return null; } }
class Plain { A get() { return null; } }
class U {
    static <T> T id(T t) { return t; }
    void k(Box<A> ba, Box<B> bb, Plain p) {
        ba.get().a();
        bb.get().b();
        p.get().a();
        id(new A()).a();
        id(new B()).b(); }
}
class P { static class N { static void n1() {} } void f() {
        N.n1(); } }
class Q { static class N { static void n2() {} } void g() {
        N.n2(); } }
class Animal { void speak() {} }
class Dog extends Animal { }
class Puppy extends Dog { void speak() {} }
class Cat extends Animal { void speak() {} }
class Z { void z(Animal a, Dog d) {
        a.speak();
        d.speak();
        a.speak(); } }
"""

K = "m.U.k(m.Box,m.Box,m.Plain)"
EXPECTED = {
    # a type variable T in each method: its own bound
    ("m.M.f(m.A)", "m.A.a()", "exact", (6,)),
    ("m.M.g(m.B)", "m.B.b()", "exact", (8,)),
    # field x of each enclosing class; in h the local x shadows the field after its declaration
    ("m.O1.f()", "m.A.a()", "exact", (11,)),
    ("m.O2.g()", "m.B.b()", "exact", (13,)),
    ("m.O2.h()", "m.B.b()", "exact", (15,)),
    ("m.O2.h()", "m.A.a()", "exact", (17,)),
    # Box<T>.get() returns the receiver's argument, Plain.get() always A, id(T) its argument's type
    (K, "m.Box.get()", "exact", (23, 24)),
    (K, "m.Plain.get()", "exact", (25,)),
    (K, "m.U.id(java.lang.Object)", "exact", (26, 27)),
    (K, "m.A.<init>()", "exact", (26,)),
    (K, "m.B.<init>()", "exact", (27,)),
    (K, "m.A.a()", "exact", (23, 25, 26)),
    (K, "m.B.b()", "exact", (24, 27)),
    # N: the member type of the enclosing class
    ("m.P.f()", "m.P.N.n1()", "exact", (30,)),
    ("m.Q.g()", "m.Q.N.n2()", "exact", (32,)),
    # CHA from Animal reaches Cat and Puppy; from Dog only Puppy
    ("m.Z.z(m.Animal,m.Dog)", "m.Animal.speak()", "exact", (38, 39, 40)),
    ("m.Z.z(m.Animal,m.Dog)", "m.Cat.speak()", "cha", (38, 40)),
    ("m.Z.z(m.Animal,m.Dog)", "m.Puppy.speak()", "cha", (38, 39, 40)),
    # the implicit super() of each constructor
    ("m.Dog.<init>()", "m.Animal.<init>()", "exact", (34,)),
    ("m.Puppy.<init>()", "m.Dog.<init>()", "exact", (35,)),
    ("m.Cat.<init>()", "m.Animal.<init>()", "exact", (36,)),
}


def _edges():
    src = SRC.encode()
    tree = _facts.parse(src)
    ff = _facts.extract(src, tree, "src/main/java/m/M.java", "main", None)
    res = FileResolver(ProjectIndex([ff], None), 0, src, tree).run()
    return res, {(e.src, e.dst, e.resolution.value, e.lines) for e in res.edges}


def test_each_call_site_gets_its_own_answer_from_the_memos():
    res, got = _edges()
    assert got == EXPECTED
    assert res.reasons == ()


def test_the_line_of_a_call_site_is_its_own_tuple_per_edge():
    # one call site's line is shared by its edges; a second line makes a sorted tuple
    res, _ = _edges()
    lines = {(e.src, e.dst): e.lines for e in res.edges}
    assert lines[("m.Z.z(m.Animal,m.Dog)", "m.Cat.speak()")] == (38, 40)
    assert all(type(e.lines) is tuple and list(e.lines) == sorted(set(e.lines)) for e in res.edges)


# Session 8's memos of the index's answers (``FileResolver.tdecl``,
# ``is_subtype``, ``sam``, ``qualified``, ``type_file`` and ``by_name``'s
# per-arity ids): the same checks, on call sites whose answers differ only
# in what a coarser key would drop (the arity of a guess by name; the
# parameter type an argument type is tested against)
SRC2 = """package m;
import static m.S.*;
class Animal {}
class Dog extends Animal {}
class X { void foo() {} }
class Y { void foo(int i) {} }
class S { static void st(int i) {} }
class Sel {
    void p(Animal a) {}
    void p(String s) {}
    void q(String s) {}
    void q(Animal a) {}
    void f(Dog d) {
        p(d);
        q(d);
        var u = nowhere();
        u.foo(); u.foo(1);
        st(1); }
}
"""
EXPECTED2 = {
    ("m.Sel.f(m.Dog)", "m.Sel.p(m.Animal)", "exact", (14,)),
    ("m.Sel.f(m.Dog)", "m.Sel.q(m.Animal)", "exact", (15,)),
    # no JDK here: Object's hierarchy is unknown, so nowhere() is Object's, of an unknown type
    ("m.Sel.f(m.Dog)", "java.lang.Object.nowhere(*)", "arity", (16,)),
    ("m.Sel.f(m.Dog)", "m.X.foo()", "name", (17,)),
    ("m.Sel.f(m.Dog)", "m.Y.foo(int)", "name", (17,)),
    ("m.Sel.f(m.Dog)", "m.S.st(int)", "exact", (18,)),
    ("m.Dog.<init>()", "m.Animal.<init>()", "exact", (4,)),
}

# every memo of an index answer a FileResolver keeps (not the call-site and
# local-type caches, which also guard against recursion)
_INDEX_MEMOS = ("_refs", "_field_names", "_type_names", "_named", "_lib_api", "_placed", "_cha",
                "_plain_returns", "_tds", "_by_name", "_subtypes", "_sams", "_qualified", "_tfiles", "_stars",
                "_returns", "_jtuples", "_captured", "_super_args", "_field_types")


class _Forgetful(dict):
    """A memo that keeps nothing: every ask goes to the index."""

    def __setitem__(self, k, v):
        pass


class _CountingSet(set):
    adds = 0

    def add(self, x):
        self.adds += 1
        set.add(self, x)


def _resolve(src: str, memos: bool):
    from callgraph import _deps

    b = src.encode()
    tree = _facts.parse(b)
    ff = _facts.extract(b, tree, "src/main/java/m/M.java", "main", None)
    view = _deps.RecordingIndex(ProjectIndex([ff], None), 0, ["src/main/java/m/M.java"])
    # the recorder keeps each distinct look-up once (a number per look-up, a set of them per file); every
    # ask of a method or a set/list table adds its number to that set: counted here (a dict table answers
    # a repeated key by itself, unseen)
    view._asked.lids = lids = _CountingSet()
    fr = FileResolver(view, 0, b, tree)
    assert all(type(getattr(fr, m)) is dict for m in _INDEX_MEMOS)
    if not memos:
        for m in _INDEX_MEMOS:
            setattr(fr, m, _Forgetful())
    res = fr.run()
    rows = view._asked.lookups.asked
    asked = {(kind, door, repr(args)) for kind, door, args, _ in [rows[lid] for lid in lids] + view._asked.extra}
    if memos:  # each answer a memo holds was asked of the recorder once
        for memo, kind, door, args in (("_tds", "t", "types", lambda k: k),
                                       ("_tfiles", "t", "type_file", lambda k: k),
                                       ("_by_name", "t", "by_name", lambda k: k[0]),
                                       ("_subtypes", "m", "is_subtype", lambda k: k),
                                       ("_sams", "m", "sam", lambda k: (k,)),
                                       ("_qualified", "m", "_resolve_qualified", lambda k: (k,)),
                                       ("_named", "m", "methods_named", lambda k: k)):
            held = getattr(fr, memo)
            assert all((kind, door, repr(args(k))) in asked for k in held), memo
    return {(e.src, e.dst, e.resolution.value, e.lines) for e in res.edges}, asked, lids.adds


def test_the_index_memos_answer_as_the_index_does():
    got, _, _ = _resolve(SRC2, True)
    assert got == EXPECTED2


def test_the_recorder_sees_every_distinct_look_up_with_the_memos_on():
    # the first ask of each memo goes to the index, so a warm cache stores the
    # same dependencies; only the repeated asks are gone
    for src in (SRC, SRC2):
        e1, asked1, n1 = _resolve(src, True)
        e0, asked0, n0 = _resolve(src, False)
        assert e1 == e0
        assert asked1 == asked0
        assert n1 < n0


def test_a_receiver_of_unknown_type_is_named_by_its_node_type():
    # the reason of a guess on a receiver expression of unknown type names
    # the expression's kind (a variable of the resolver once shadowed it)
    src = b"package m;\nclass R { void f(int a) { a[0].size(); (a[0]).size(); } }\n"
    tree = _facts.parse(src)
    ff = _facts.extract(src, tree, "src/main/java/m/R.java", "main", None)
    res = FileResolver(ProjectIndex([ff], None), 0, src, tree).run()
    reasons = dict(res.reasons)
    assert reasons.get("receiver array_access of unknown type") == 1
    assert reasons.get("receiver parenthesized_expression of unknown type") == 1
