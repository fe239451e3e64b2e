"""Source sets in ``ProjectGraph.reach``: a main-source query method's chains never
enter test-source methods (a ``cha`` edge to a test double's override is not
followed); a test-source query method may enter both; ``source_sets`` overrides.

The project is written here (Maven layout, commons-lang3 on the classpath); every
expected LOC, depth and chain below is counted by hand from these sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cg_fixture_support import javac

SU = "org.apache.commons.lang3.StringUtils"
CAPITALIZE = f"{SU}.capitalize(java.lang.String)"
REVERSE = f"{SU}.reverse(java.lang.String)"
WELCOME = "app.Service.welcome(app.Greeter,java.lang.String)"
SHOUT = "app.Service.shout(java.lang.String)"
PLAIN = "app.PlainGreeter.greet(java.lang.String)"
FAKE = "app.FakeGreeter.greet(java.lang.String)"
TEST_WELCOME = "app.ServiceTest.testWelcome()"

SOURCES = {
    "src/main/java/app/Greeter.java": """\
package app;

public interface Greeter {
    String greet(String name);
}
""",
    # greet: 4 lines (annotation included)
    "src/main/java/app/PlainGreeter.java": """\
package app;

import org.apache.commons.lang3.StringUtils;

public class PlainGreeter implements Greeter {
    @Override
    public String greet(String name) {
        return StringUtils.capitalize(name);
    }
}
""",
    # welcome: 3 lines (doc comment excluded); shout: 3 lines
    "src/main/java/app/Service.java": """\
package app;

public class Service {
    /** Greets through any greeter. */
    public String welcome(Greeter g, String name) {
        return g.greet(name);
    }

    public String shout(String name) {
        return welcome(new PlainGreeter(), name);
    }
}
""",
    # greet: 5 lines
    "src/test/java/app/FakeGreeter.java": """\
package app;

import org.apache.commons.lang3.StringUtils;

public class FakeGreeter implements Greeter {
    @Override
    public String greet(String name) {
        String s = StringUtils.reverse(name);
        return s;
    }
}
""",
    # testWelcome: 3 lines
    "src/test/java/app/ServiceTest.java": """\
package app;

public class ServiceTest {
    public void testWelcome() {
        new Service().welcome(new FakeGreeter(), "x");
    }
}
""",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sourcesets")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pg(project, graph_of, commons_lang3):
    return graph_of(project, classpath=[commons_lang3])


def _chains(targets):
    return {t.signature: (t.depth, t.chain, t.chain_loc, t.resolution) for t in targets}


def test_project_compiles(project, tmp_path, commons_lang3):
    javac(sorted(project.rglob("*.java")), tmp_path, [commons_lang3])


def test_source_sets_and_loc(pg):
    assert {m: (pg.method(m).source_set, pg.method(m).loc) for m in (WELCOME, SHOUT, PLAIN, FAKE, TEST_WELCOME)} == {
        WELCOME: ("main", 3), SHOUT: ("main", 3), PLAIN: ("main", 4), FAKE: ("test", 5), TEST_WELCOME: ("test", 3),
    }


def test_graph_keeps_the_edge_into_test_code(pg):
    # the graph shows everything; only reach() filters
    assert pg.graph.edges[WELCOME, PLAIN]["resolution"] == "cha"
    assert pg.graph.edges[WELCOME, FAKE]["resolution"] == "cha"


def test_main_method_stays_in_main_sources(pg):
    assert _chains(pg.reach(WELCOME)) == {
        CAPITALIZE: (3, (WELCOME, PLAIN, CAPITALIZE), 3 + 4, "cha"),
    }
    assert pg.max_depth(WELCOME) == 3


def test_main_method_two_hops(pg):
    # shout → welcome → PlainGreeter.greet → capitalize; FakeGreeter.greet is never entered
    (t,) = pg.reach(SHOUT)
    assert (t.depth, t.chain, t.chain_loc, t.density) == (4, (SHOUT, WELCOME, PLAIN, CAPITALIZE), 3 + 3 + 4, 1 / 10)


def test_test_method_reaches_main_and_test_code(pg):
    assert _chains(pg.reach(TEST_WELCOME)) == {
        CAPITALIZE: (4, (TEST_WELCOME, WELCOME, PLAIN, CAPITALIZE), 3 + 3 + 4, "cha"),
        REVERSE: (4, (TEST_WELCOME, WELCOME, FAKE, REVERSE), 3 + 3 + 5, "cha"),
    }


def test_test_double_itself(pg):
    (t,) = pg.reach(FAKE)
    assert (t.depth, t.chain, t.chain_loc) == (2, (FAKE, REVERSE), 5)


def test_source_sets_none_follows_everything(pg):
    assert _chains(pg.reach(WELCOME, source_sets=None)) == {
        CAPITALIZE: (3, (WELCOME, PLAIN, CAPITALIZE), 7, "cha"),
        REVERSE: (3, (WELCOME, FAKE, REVERSE), 3 + 5, "cha"),
    }
    assert pg.max_depth(WELCOME, source_sets=None) == 3


def test_explicit_source_sets(pg):
    # a test query restricted to main sources loses the test double's API
    assert set(_chains(pg.reach(TEST_WELCOME, source_sets=("main",)))) == {CAPITALIZE}
    assert set(_chains(pg.reach(WELCOME, source_sets=["main", "test"]))) == {CAPITALIZE, REVERSE}


def test_declared_dispatch_has_no_cha_edges(pg):
    assert pg.reach(WELCOME, dispatch="declared") == []


@pytest.mark.parametrize("bad", ["main", "all", ("main", "prod")])
def test_bad_source_sets(pg, bad):
    with pytest.raises(ValueError):
        pg.reach(WELCOME, source_sets=bad)


def test_no_classpath_overload_undecided(project, graph_of):
    # without the jar the API nodes are (*) name nodes; the rule is the same
    pg0 = graph_of(project, classpath=(), jdk=None)
    assert [(t.api, t.signature, t.depth, t.chain[1:-1], t.chain_loc) for t in pg0.reach(WELCOME)] == [
        (f"{SU}.capitalize", None, 3, (PLAIN,), 7),
    ]
    assert [(t.api, t.depth) for t in pg0.reach(TEST_WELCOME)] == [(f"{SU}.capitalize", 4), (f"{SU}.reverse", 4)]
