"""qare build follows ``ProjectGraph.reach``'s source-set rule: a main-source
sample's targets, depths and density never count a test double reached by
class-hierarchy dispatch; a test-source sample (--include-tests) keeps both.

Project written here; expected values counted by hand from these sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from queries.build import BuildOptions, Verdict, analyse_project
from queries.projects import ProjectSpec

COMMONS_LANG3 = Path("/usr/share/java/commons-lang3.jar")
SU = "org.apache.commons.lang3.StringUtils"
WELCOME = "app.Service.welcome(app.Greeter,java.lang.String)"
PLAIN = "app.PlainGreeter.greet(java.lang.String)"
FAKE = "app.FakeGreeter.greet(java.lang.String)"
TEST_WELCOME = "app.ServiceTest.testWelcome()"

SOURCES = {
    "src/main/java/app/Greeter.java": "package app;\n\npublic interface Greeter {\n    String greet(String name);\n}\n",
    # greet: 4 lines
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
    # welcome: 3 lines
    "src/main/java/app/Service.java": """\
package app;

public class Service {
    /** Greets through any greeter. */
    public String welcome(Greeter g, String name) {
        return g.greet(name);
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
    /** Welcomes through the fake greeter. */
    public void testWelcome() {
        new Service().welcome(new FakeGreeter(), "x");
    }
}
""",
}


@pytest.fixture(scope="module")
def part(tmp_path_factory):
    if not COMMONS_LANG3.is_file():
        pytest.fail(f"{COMMONS_LANG3} missing: run scripts/install-test-deps.sh (libcommons-lang3-java)")
    root = tmp_path_factory.mktemp("build-sourcesets")
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    spec = ProjectSpec(source=str(root), name="sourcesets", classpath=(str(COMMONS_LANG3),))
    opts = BuildOptions(include_tests=True, discover_classpath=False, facts_cache_dir=None, require_docs=False)
    p = analyse_project(spec, opts)
    assert p.verdict is Verdict.KEPT, p.error or p.reason
    return {c.method: c for c in p.candidates}


def test_main_sample_ignores_the_test_double(part):
    c = part[WELCOME]
    assert [(list(t.chain), t.depth, t.chain_loc) for t in c.targets] == [
        ([WELCOME, PLAIN, f"{SU}.capitalize(java.lang.String)"], 3, 3 + 4),
    ]
    assert (c.depth_max, c.depth_min, c.density) == (3, 3, 1 / 7)


def test_test_sample_reaches_both(part):
    c = part[TEST_WELCOME]
    assert [(list(t.chain), t.depth, t.chain_loc) for t in c.targets] == [
        ([TEST_WELCOME, WELCOME, PLAIN, f"{SU}.capitalize(java.lang.String)"], 4, 3 + 3 + 4),
        ([TEST_WELCOME, WELCOME, FAKE, f"{SU}.reverse(java.lang.String)"], 4, 3 + 3 + 5),
    ]
    # union of project methods: testWelcome 3 + welcome 3 + PlainGreeter.greet 4 + FakeGreeter.greet 5
    assert (c.depth_max, c.depth_min, c.density) == (4, 4, 1 / 15)
