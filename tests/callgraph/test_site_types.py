"""Third-party call sites and the share whose type is on the classpath
(``BuildSummary.site_types`` / ``on_classpath_share``; docs/callgraph.md "Third-party call sites").

The expected counts are worked out by hand from the fixture below: ``org.acme.text``
is on the classpath (the compiled acme-lib jar), ``org.gone`` is not, ``java.*`` is the JDK."""

from __future__ import annotations

from pathlib import Path

import pytest

APP = """\
package app;

import org.acme.text.Texts;
import org.acme.text.Tokenizer;
import org.gone.Missing;

public class App {
    private int helper() {
        return 1;
    }

    int run(Missing gone, String s) {
        String a = Texts.upper(s);
        Tokenizer t = new Tokenizer();
        t.first(s);
        gone.vanish();
        Missing.create();
        s.length();
        helper();
        undefinedVar.call();
        t.noSuchMethod();
        this.noSuchEither(1);
        int n = 3;
        return n;
    }
}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sites")
    (root / "src/main/java/app").mkdir(parents=True)
    (root / "src/main/java/app/App.java").write_text(APP)
    return root


def _build(root, classpath):
    from callgraph import build_project_graph

    return build_project_graph(root, classpath=classpath, auto_classpath=False).summary


def test_site_types_with_the_library_on_the_classpath(project, acme_jar):
    s = _build(project, [acme_jar])
    st = s.site_types
    # Texts.upper, new Tokenizer(), t.first: declared in the acme jar; t.noSuchMethod(): no such
    # method, but the receiver's type (Tokenizer) is on the classpath
    assert st["third-party-on-classpath"] == 4
    # gone.vanish(), Missing.create(): org.gone.Missing is imported but on no classpath
    assert st["third-party-off-classpath"] == 2
    # undefinedVar.call(): no variable, no type, no project method named call
    assert st["unknown-type"] == 1
    assert st["jdk"] == 1          # s.length() (App declares no constructor: no implicit super() site)
    assert st["project"] == 2      # helper(); this.noSuchEither(1) (unresolved, on a project type)
    assert st["not-a-type"] == 0
    assert sum(st.values()) == s.call_sites
    assert s.on_classpath_share() == pytest.approx(4 / 7)
    assert s.to_dict()["on_classpath_share"] == round(4 / 7, 4)


def test_without_the_jar_its_sites_are_off_the_classpath(project):
    s = _build(project, [])
    st = s.site_types
    assert st["third-party-on-classpath"] == 0
    # t.noSuchMethod() too: Tokenizer is imported but on no classpath
    assert st["third-party-off-classpath"] == 6
    assert st["unknown-type"] == 1
    assert s.on_classpath_share() == 0.0


def test_no_third_party_site_gives_no_share(tmp_path):
    (tmp_path / "A.java").write_text("class A { int f(String s) { return s.length() + g(); } int g() { return 1; } }")
    s = _build(tmp_path, [])
    assert s.site_types["jdk"] >= 1 and s.site_types["project"] == 1
    assert s.on_classpath_share() is None and s.to_dict()["on_classpath_share"] is None


def test_a_primitive_receiver_is_not_a_type(tmp_path):
    (tmp_path / "B.java").write_text("class B { void f(int n) { n.foo(); } }")
    s = _build(tmp_path, [])
    assert s.site_types["not-a-type"] == 1 and s.on_classpath_share() is None


def test_a_warm_cache_gives_the_same_site_types(project, acme_jar, tmp_path):
    # the per-file resolved rows carry the site types: a warm build must count as a cold one
    from callgraph import build_project_graph

    db = tmp_path / "cache.sqlite"
    cold = build_project_graph(project, classpath=[acme_jar], auto_classpath=False, cache=db).summary
    warm = build_project_graph(project, classpath=[acme_jar], auto_classpath=False, cache=db).summary
    assert warm.cache.get("resolved_hits") == 1
    assert warm.site_types == cold.site_types
    assert warm.site_types["third-party-on-classpath"] == 4
