"""Source-root discovery: a Maven multi-module build, a Gradle app and a plain folder
of ``.java`` files (fixtures/java/multimodule, gradle-app, plain)."""

from __future__ import annotations

import pytest

from cg_fixture_support import COMMONS_LANG3_GAV, GRADLE_APP, MULTIMODULE, PLAIN, out_edges

PRINTLN = "java.io.PrintStream.println(java.lang.String)"
CAP = "org.apache.commons.lang3.StringUtils.capitalize(java.lang.String)"


@pytest.fixture(scope="module")
def mm(graph_of, commons_lang3):
    return graph_of(MULTIMODULE, classpath=[commons_lang3])


def test_multimodule_methods_files_and_source_sets(mm):
    text = "com.mm.core.Greeting.text(java.lang.String)"
    main = "com.mm.app.Main.main(java.lang.String[])"
    check = "com.mm.core.GreetingCheck.main(java.lang.String[])"
    assert {text, main, check} <= set(mm.methods())
    assert {m for m in mm.methods() if "<init>" not in m} == {text, main, check}
    got = {m: (mm.method(m).file, mm.method(m).source_set, mm.method(m).start_line, mm.method(m).loc)
           for m in (text, main, check)}
    assert got == {
        text: ("core/src/main/java/com/mm/core/Greeting.java", "main", 7, 3),
        main: ("app/src/main/java/com/mm/app/Main.java", "main", 7, 3),
        check: ("core/src/test/java/com/mm/core/GreetingCheck.java", "test", 5, 3),
    }


def test_multimodule_cross_module_edges_and_reach(mm):
    main = "com.mm.app.Main.main(java.lang.String[])"
    text = "com.mm.core.Greeting.text(java.lang.String)"
    assert out_edges(mm, main) == {
        ("com.mm.core.Greeting.<init>()", "exact", (8,)),
        (text, "exact", (8,)),
        (PRINTLN, "exact", (8,)),  # text(...) returns String: println(String), not println(Object)
    }
    assert out_edges(mm, text) == {(CAP, "exact", (8,))}
    (t,) = mm.reach(main)
    assert t.chain == (main, text, CAP)
    assert (t.depth, t.chain_loc, t.library) == (3, 6, COMMONS_LANG3_GAV)
    assert t.density == pytest.approx(1 / 6)


def test_gradle_app(graph_of, commons_lang3):
    pg = graph_of(GRADLE_APP, classpath=[commons_lang3])
    main, shout = "com.gr.App.main(java.lang.String[])", "com.gr.App.shout(java.lang.String)"
    check = "com.gr.AppCheck.main(java.lang.String[])"
    assert {m for m in pg.methods() if "<init>" not in m} == {main, shout, check}
    assert pg.method(main).file == "src/main/java/com/gr/App.java"
    assert pg.method(check).source_set == "test"
    assert out_edges(pg, main) == {(shout, "exact", (8,)), (PRINTLN, "exact", (8,))}
    upper = "org.apache.commons.lang3.StringUtils.upperCase(java.lang.String)"
    assert out_edges(pg, shout) == {(upper, "exact", (12,))}
    (t,) = pg.reach(check)
    assert (t.chain, t.depth, t.chain_loc) == ((check, shout, upper), 3, 3 + 3)


def test_plain_folder(graph_of):
    pg = graph_of(PLAIN)
    main, shout = "Hello.main(java.lang.String[])", "util.Strings.shout(java.lang.String)"
    assert {m for m in pg.methods() if "<init>" not in m} == {main, shout}
    assert pg.method(main).file == "Hello.java"
    assert pg.method(shout).file == "util/Strings.java"
    assert (pg.method(shout).start_line, pg.method(shout).end_line, pg.method(shout).loc) == (8, 10, 3)
    assert out_edges(pg, main) == {(shout, "exact", (6,)), (PRINTLN, "exact", (6,))}
    assert out_edges(pg, shout) == {("java.lang.String.toUpperCase()", "exact", (9,))}
    assert pg.reach(main) == []  # only JDK APIs: no third-party target


def test_progress_goes_to_stderr_only(capsys):
    import callgraph

    pg = callgraph.build_project_graph(PLAIN, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "file" in captured.err  # tqdm's unit
    assert "Hello.main(java.lang.String[])" in pg.methods()
