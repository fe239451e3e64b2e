"""The same type declared in two Maven modules (spring-framework does so in
test sources): a note, not a failure; the node keeps both declarations'
members (fixtures/java/dup-modules)."""

from pathlib import Path

from click.testing import CliRunner

import callgraph
from callgraph._index import _module_of
from qare.cli import main

DUP = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "dup-modules"
T = "org.dup.SharedTestSupport"
ALPHA = "alpha/src/test/java/org/dup/SharedTestSupport.java"
BETA = "beta/src/test/java/org/dup/SharedTestSupport.java"


def test_module_of():
    assert _module_of("core/src/test/java/p/A.java") == "core"
    assert _module_of("a/b/src/main/java/p/A.java") == "a/b"
    assert _module_of("src/main/java/p/A.java") == ""
    assert _module_of("p/A.java") is None


def test_both_declarations_keep_their_members():
    pg = callgraph.build_project_graph(DUP)
    assert pg.summary.skipped == ()
    assert [f for f, _ in pg.summary.notes] == [BETA]
    assert f"also declared in module alpha ({ALPHA})" in pg.summary.notes[0][1]
    assert pg.method(f"{T}.onlyInAlpha()").file == ALPHA
    assert pg.method(f"{T}.onlyInBeta(java.lang.String)").file == BETA
    assert pg.method(f"{T}.setUp()").file == ALPHA  # declared in both: the first file's (sorted by path)
    edges = {(u, v): (d["resolution"], tuple(d["lines"])) for u, v, d in pg.graph.edges(data=True)}
    assert edges[(f"{T}.onlyInAlpha()", f"{T}.setUp()")] == ("exact", (12,))
    # beta's own field `service` types the receiver
    assert edges[(f"{T}.onlyInBeta(java.lang.String)", "org.dup.beta.Service.run(java.lang.String)")] == ("exact", (14,))
    assert pg.summary.unresolved == 0


def test_graph_exits_0_and_prints_the_note():
    r = CliRunner().invoke(main, ["graph", str(DUP), "-q", "--no-discover-classpath"])
    assert r.exit_code == 0, r.output
    assert "notes (1, no failure):" in r.output and BETA in r.output


def test_same_type_twice_in_one_module_is_still_reported(tmp_path):
    for sub in ("p", "q"):
        d = tmp_path / "m" / "src" / "main" / "java" / sub
        d.mkdir(parents=True)
        (d / "A.java").write_text("package p;\nclass A { void f() {} }\n")
    pg = callgraph.build_project_graph(tmp_path)
    assert [f for f, _ in pg.summary.skipped] == ["m/src/main/java/q/A.java"] and pg.summary.notes == ()
    r = CliRunner().invoke(main, ["graph", str(tmp_path), "-q", "--no-discover-classpath"])
    assert r.exit_code == 1


def test_each_module_compiles_on_its_own(tmp_path):
    from cg_fixture_support import java_files, javac

    javac(java_files(DUP / "alpha" / "src" / "test" / "java"), tmp_path / "alpha-test")
    javac(java_files(DUP / "beta" / "src" / "main" / "java"), tmp_path / "beta")
    javac(java_files(DUP / "beta" / "src" / "test" / "java"), tmp_path / "beta-test", [tmp_path / "beta"])
    assert (tmp_path / "alpha-test" / "org" / "dup" / "SharedTestSupport.class").is_file()
    assert (tmp_path / "beta-test" / "org" / "dup" / "SharedTestSupport.class").is_file()
