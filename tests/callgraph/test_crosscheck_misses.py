"""Call sites where qare and Eclipse JDT disagreed on real projects (issue 13 figures), as fixtures.

``fixtures/java/xcheck-lib`` (a self-written library, compiled into a jar here)
and ``fixtures/java/xcheck`` (one class, ``xc.Misses``, one method per cause).
Each shape was found by ``qare crosscheck`` on a real project (docs/crosscheck.md,
"Figures"): a lambda returned from a method (spring-petclinic
``JCacheManagerCustomizer``, booking_backend ``Customizer``), a method reference
choosing among ``String``/``Function`` overloads (AssertJ ``extracting``), a class
that implements an interface its superclass already implements with a concrete
method (Spring Security ``HttpSecurity.build()``), and a diamond anonymous class
(Spring ``new ParameterizedTypeReference<>() {}``).

Oracles: javac/javap for the method name and erased descriptor bound on each line
(``test_generics.compare``); JDT for the declaring type, which javac does not record
(its ``invoke*`` owner is the receiver's static type).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, JAVAC, java_files, javac, javac_calls, line_of

def _generics_helpers():
    # --import-mode=importlib: test modules are not importable by name; the javac
    # comparison of test_generics.py is reused, not copied
    spec = importlib.util.spec_from_file_location("_qare_test_generics", Path(__file__).with_name("test_generics.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod._edges_by_line, mod._jar, mod.compare


_edges_by_line, _jar, compare = _generics_helpers()

XC = FIXTURES / "xcheck"
XC_LIB = FIXTURES / "xcheck-lib"
MISSES = XC / "src/main/java/xc/Misses.java"

pytestmark = pytest.mark.skipif(shutil.which(JAVAC) is None and not Path(JAVAC).is_file(),
                                reason="javac not installed (it is the oracle)")


@pytest.fixture(scope="module")
def xl_jar(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("xl")
    javac(java_files(XC_LIB / "src/main/java"), out / "classes")
    return _jar(out / "classes", out / "xcheck-lib.jar")


@pytest.fixture(scope="module")
def misses(graph_of, xl_jar, tmp_path_factory):
    calls, _ = javac_calls(java_files(XC / "src/main/java"), tmp_path_factory.mktemp("xcc"), [xl_jar])
    return graph_of(XC, classpath=[xl_jar]), calls


def _line(text: str) -> int:
    return line_of(MISSES, text)


def test_misses_match_javac(misses):
    pg, calls = misses
    wrong, missed = compare(pg, calls, "src/main/java", "xc/Misses.java")
    # the method reference's target is a bootstrap argument of javac's invokedynamic, not an invoke
    assert wrong == [(_line("a.extracting(Misses::date)"), "xc.Misses.date(xc.Misses)")]
    assert missed == []


def test_returned_lambda_parameter_typed_from_return_type(misses):
    """``return c -> c.create(..)`` in a method returning ``Customizer<Cache>``: the
    lambda's target is the return type (JLS 15.27.3, 14.17), so ``c`` is a Cache;
    javac binds ``xl/Cache.create(Ljava/lang/String;)`` there."""
    pg, calls = misses
    ln = _line('c.create("vets")')
    assert ("create", "(Ljava/lang/String;)", "xl/Cache") in calls["xc/Misses.java"][ln]
    assert ("xl.Cache.create(java.lang.String)", "exact") in _edges_by_line(pg, "src/main/java/xc/Misses.java")[ln]


def test_method_reference_is_not_a_string(misses):
    """``a.extracting(Misses::date)``: a method reference is compatible only with a
    functional interface type (JLS 15.13.2), so ``extracting(String)`` is not
    applicable and phase 1 leaves ``extracting(Function)`` alone (javac:
    ``extracting(Ljava/util/function/Function;)``)."""
    pg, calls = misses
    ln = _line("a.extracting(Misses::date)")
    assert ("extracting", "(Ljava/util/function/Function;)", "xl/ObjAssert") \
        in calls["xc/Misses.java"][ln]
    edges = _edges_by_line(pg, "src/main/java/xc/Misses.java")[ln]
    assert ("xl.ObjAssert.extracting(java.util.function.Function)", "exact") in edges
    assert ("xl.ObjAssert.isNotNull()", "exact") in edges


# ------------------------------------------------------------------ JDT as the oracle

@pytest.fixture(scope="module")
def jdt_misses(xl_jar):
    from callgraph import crosscheck

    reason = crosscheck.jdt_available()
    if reason is not None:
        pytest.skip(f"Eclipse JDT unavailable, JDT oracle tests skipped: {reason}")
    return crosscheck.run_jdt(XC, [xl_jar])


def _jdt_sigs(jdt, ln: int) -> set:
    return {c.signature for c in jdt.calls if c.file.endswith("xc/Misses.java") and c.line == ln}


def test_concrete_superclass_method_before_direct_interface(misses, jdt_misses):
    """``Http extends AbstractBuilder<String> implements Builder<String>``:
    ``AbstractBuilder.build()`` is concrete and overrides ``Builder.build()``, so
    ``Http`` inherits only it (JLS 8.4.8) — JDT binds ``xl.AbstractBuilder.build()``,
    even though a breadth-first walk of Http's supertypes meets ``Builder`` first."""
    pg, _ = misses
    ln = _line("http.build()")
    assert _jdt_sigs(jdt_misses, ln) == {"xl.AbstractBuilder.build()"}
    assert _edges_by_line(pg, "src/main/java/xc/Misses.java")[ln] == {("xl.AbstractBuilder.build()", "exact")}


def test_diamond_anonymous_class_is_the_super_constructor(misses, jdt_misses):
    """``new TypeRef<>() {}`` as the argument of a generic method (Spring's
    ``bodyToMono(new ParameterizedTypeReference<>() {})``): the anonymous class's
    constructor runs the superclass's ``TypeRef()``, which is qare's target and
    JDT's (javac emits ``xl/TypeRef.<init>:()V`` in the anonymous class). A guard
    for the shape, not a fix: on poleepo JDT answered ``TypeRef.<factory>()`` at
    such sites in a longer chain (docs/crosscheck.md), not reproduced here."""
    pg, _ = misses
    ln = _line("new TypeRef<>()")
    assert _jdt_sigs(jdt_misses, ln) == {"xl.Cache.body(xl.TypeRef)", "xl.TypeRef.<init>()"}
    assert ("xl.TypeRef.<init>()", "exact") in _edges_by_line(pg, "src/main/java/xc/Misses.java")[ln]


def test_crosscheck_agrees_on_every_miss(misses, jdt_misses, xl_jar):
    from callgraph import crosscheck
    from callgraph.classpath import ClasspathIndex

    pg, _ = misses
    report = crosscheck.crosscheck(pg, jdt_misses, ClasspathIndex.open([str(xl_jar)]))
    assert [d.to_dict() for d in report.disagreements] == []
    s = report.score("all", "signature")
    assert (s.tp, s.fp, s.fn) == (6, 0, 0)  # create, build, extracting, isNotNull, body, TypeRef.<init>


XC_BROKEN = FIXTURES / "xcheck-broken"


def test_diamond_factory_in_unbound_call_is_unjudgeable(graph_of, xl_jar, jdt_misses):
    """``client.body(new TypeRef<>() {})`` with ``client`` undeclared (on poleepo: a
    Lombok ``@Slf4j``/``@RequiredArgsConstructor`` class, whose generated members JDT
    does not see): JDT has no binding for ``body`` and answered the creation with
    its synthetic ``TypeRef.<factory>()``, judged ``ok`` — so qare's right
    ``TypeRef.<init>()`` counted as a false positive. That answer is now
    ``recovered`` (unjudgeable), keyed ``<init>`` like every creation."""
    from callgraph import crosscheck
    from callgraph.classpath import ClasspathIndex

    jdt = crosscheck.run_jdt(XC_BROKEN, [xl_jar])
    ln = line_of(XC_BROKEN / "src/main/java/xb/Broken.java", "new TypeRef<>()")
    got = {(c.callee_name, c.judgement.value) for c in jdt.calls if c.line == ln}
    assert got == {("body", "nobinding"), ("<init>", "recovered")}
    report = crosscheck.crosscheck(graph_of(XC_BROKEN, classpath=[xl_jar]), jdt, ClasspathIndex.open([str(xl_jar)]))
    assert report.disagreements == ()
    assert report.unjudgeable_sites == 2 and report.unjudgeable_qare_targets == 1
