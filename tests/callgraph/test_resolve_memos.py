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
