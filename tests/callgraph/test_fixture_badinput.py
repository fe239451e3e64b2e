"""Bad input: a file that does not parse, an empty file, ISO-8859-1 and UTF-16 (BOM)
sources, symlink loops, files over the size limit, projects without Java files.

The odd encodings are written by the tests into tmp_path (never committed).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from cg_fixture_support import BAD_INPUT, callgraph_module, out_edges

BROKEN = "src/main/java/bad/Broken.java"


@pytest.fixture(scope="module")
def pg(graph_of):
    return graph_of(BAD_INPUT)


def test_recovered_facts_of_a_file_that_does_not_parse(pg):
    ids = set(pg.methods())
    assert {"bad.Broken.before()", "bad.Broken.after()", "bad.Good.call()"} <= ids
    assert out_edges(pg, "bad.Broken.before()") == {("bad.Broken.after()", "exact", (6,))}
    assert out_edges(pg, "bad.Broken.after()") == {("bad.Broken.before()", "exact", (15,))}
    assert out_edges(pg, "bad.Good.call()") == {
        ("bad.Broken.<init>()", "exact", (6,)),
        ("bad.Broken.after()", "exact", (6,)),
    }
    info = pg.method("bad.Broken.after()")
    assert (info.file, info.start_line, info.end_line, info.loc) == (BROKEN, 14, 16, 3)


def test_parse_errors_are_reported_with_positions(pg):
    errors = dict(pg.summary.parse_errors)
    assert set(errors) == {BROKEN}  # Empty.java is a valid (empty) compilation unit
    lines = [pos[0] for pos in errors[BROKEN]]
    assert lines and all(9 <= ln <= 12 for ln in lines), lines  # inside broken() only


def _write(root: Path, rel: str, text: str, encoding: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode(encoding))
    return p


LATIN1_SRC = """package enc;

public class Latin {

    /** Grüßt die Welt, café. */
    String greet() {
        String s = "Grüße";
        return s.trim();
    }
}
"""

UTF16_SRC = """package enc;

public class Wide {

    /** Überall ein Gruß. */
    String shout(String s) {
        String t = "Ωmega";
        return new Latin().greet() + t.toLowerCase();
    }
}
"""


@pytest.fixture(scope="module")
def encodings_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("enc")
    latin = _write(root, "src/main/java/enc/Latin.java", LATIN1_SRC, "iso-8859-1")
    wide = _write(root, "src/main/java/enc/Wide.java", UTF16_SRC, "utf-16")  # with BOM
    assert wide.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    with pytest.raises(UnicodeDecodeError):
        latin.read_bytes().decode("utf-8")
    return root


def test_non_utf8_sources_are_decoded_not_dropped(graph_of, encodings_project):
    pg = graph_of(encodings_project)
    greet, shout = "enc.Latin.greet()", "enc.Wide.shout(java.lang.String)"
    assert {greet, shout} <= set(pg.methods())
    assert out_edges(pg, greet) == {("java.lang.String.trim()", "exact", (8,))}
    assert out_edges(pg, shout) == {
        ("enc.Latin.<init>()", "exact", (8,)),
        (greet, "exact", (8,)),
        ("java.lang.String.toLowerCase()", "exact", (8,)),
    }
    assert "Grüßt die Welt, café." in pg.method(greet).comment
    assert "Überall ein Gruß." in pg.method(shout).comment
    assert (pg.method(shout).start_line, pg.method(shout).end_line) == (6, 9)
    assert pg.summary.parse_errors == [] or dict(pg.summary.parse_errors) == {}
    fallback = {f if isinstance(f, str) else f[0] for f in pg.summary.decoded_with_fallback}
    assert "src/main/java/enc/Latin.java" in fallback


def test_symlink_loop(graph_of, tmp_path):
    _write(tmp_path, "src/main/java/p/A.java", "package p;\n\nclass A {\n    void m() {\n        m();\n    }\n}\n", "utf-8")
    os.symlink("..", tmp_path / "src/main/java/p/loop")  # p/loop -> src/main/java
    os.symlink(tmp_path, tmp_path / "src/main/java/p/root")  # back to the project root
    pg = graph_of(tmp_path)
    assert pg.methods().count("p.A.m()") == 1
    assert out_edges(pg, "p.A.m()") == {("p.A.m()", "exact", (5,))}


def test_file_over_the_size_limit_is_skipped_and_reported(graph_of, tmp_path):
    _write(tmp_path, "src/main/java/p/Small.java", "package p;\n\nclass Small {\n    void s() {\n    }\n}\n", "utf-8")
    big = "package p;\n\nclass Big {\n    void b() {\n    }\n" + "    // padding\n" * 400 + "}\n"
    assert len(big) > 4000
    _write(tmp_path, "src/main/java/p/Big.java", big, "utf-8")
    pg = graph_of(tmp_path, max_file_bytes=2000)
    assert "p.Small.s()" in pg.methods()
    assert "p.Big.b()" not in pg.methods()
    skipped = dict(pg.summary.skipped)
    assert "src/main/java/p/Big.java" in {str(k) for k in skipped}
    assert "src/main/java/p/Small.java" not in {str(k) for k in skipped}


@pytest.mark.parametrize("layout", ["empty", "no-java", "only-empty-dirs"])
def test_no_java_files_is_a_clear_error(tmp_path, layout):
    cg = callgraph_module()
    if layout == "no-java":
        (tmp_path / "README.md").write_text("no sources here\n")
        (tmp_path / "pom.xml").write_text("<project/>\n")
    elif layout == "only-empty-dirs":
        (tmp_path / "src" / "main" / "java").mkdir(parents=True)
    with pytest.raises(Exception) as info:
        cg.build_project_graph(tmp_path)
    assert type(info.value).__name__ == "NoInputError"
    assert "java" in str(info.value).lower()
    assert str(tmp_path) in str(info.value) or tmp_path.name in str(info.value)


def test_missing_path_is_a_clear_error(tmp_path):
    cg = callgraph_module()
    with pytest.raises(Exception) as info:
        cg.build_project_graph(tmp_path / "nope")
    assert type(info.value).__name__ == "NoInputError"


def test_cli_graph_on_a_project_without_java_exits_3(tmp_path):
    callgraph_module()
    from qare.cli import main
    from qare.exitcodes import NO_INPUT


    (tmp_path / "README.md").write_text("nothing\n")
    res = CliRunner().invoke(main, ["graph", str(tmp_path)])
    assert res.exit_code == NO_INPUT, res.output
    assert "java" in res.output.lower()
    assert "Traceback" not in res.output


def test_crlf_bom_nul_dangling_symlink_and_a_folder_named_java(graph_of, tmp_path):
    src = tmp_path / "src/main/java/o"
    src.mkdir(parents=True)
    (src / "Crlf.java").write_bytes(
        b"package o;\r\n\r\nclass Crlf {\r\n\r\n    void a() {\r\n        b();\r\n    }\r\n\r\n    void b() {\r\n    }\r\n}\r\n"
    )
    (src / "Bom.java").write_bytes(
        b"\xef\xbb\xbfpackage o;\n\nclass Bom {\n    void c() {\n        new Crlf().a();\n    }\n}\n"
    )
    (src / "Nul.java").write_bytes(
        b'package o;\n\nclass Nul {\n    String s = "a\x00b";\n\n    void d() {\n        new Bom().c();\n    }\n}\n'
    )
    os.symlink(tmp_path / "nowhere" / "X.java", src / "Dangling.java")
    (src / "Folder.java").mkdir()
    pg = graph_of(tmp_path)
    assert (pg.method("o.Crlf.a()").start_line, pg.method("o.Crlf.a()").end_line, pg.method("o.Crlf.a()").loc) == (5, 7, 3)
    assert out_edges(pg, "o.Crlf.a()") == {("o.Crlf.b()", "exact", (6,))}
    assert out_edges(pg, "o.Bom.c()") == {("o.Crlf.<init>()", "exact", (5,)), ("o.Crlf.a()", "exact", (5,))}
    assert pg.method("o.Bom.c()").start_line == 4
    assert out_edges(pg, "o.Nul.d()") == {("o.Bom.<init>()", "exact", (7,)), ("o.Bom.c()", "exact", (7,))}
    assert pg.summary.files == 3
    assert list(pg.summary.parse_errors) == []
    assert [f for f, _ in pg.summary.skipped] == ["src/main/java/o/Dangling.java"]


def test_very_deep_expressions_do_not_crash(graph_of, tmp_path):
    n = 3000
    body = (
        "        new Node()" + ".next()" * n + ".done();\n"
        "        int x = " + " + ".join(["1"] * n) + ";\n"
        "        int y = " + "f(" * 500 + "0" + ")" * 500 + ";\n"
    )
    src = (
        "package d;\n\nclass Node {\n    Node next() {\n        return this;\n    }\n\n    void done() {\n    }\n\n"
        "    static int f(int v) {\n        return v;\n    }\n\n    void deep() {\n" + body + "    }\n\n"
        "    void after() {\n        done();\n    }\n}\n"
    )
    p = tmp_path / "src/main/java/d/Node.java"
    p.parent.mkdir(parents=True)
    p.write_text(src)
    pg = graph_of(tmp_path)
    assert out_edges(pg, "d.Node.after()") == {("d.Node.done()", "exact", (22,))}
    deep = {(v, r) for v, r, _ in out_edges(pg, "d.Node.deep()")}
    assert {("d.Node.<init>()", "exact"), ("d.Node.next()", "exact"), ("d.Node.f(int)", "exact")} <= deep
    # whatever is given up on is counted, never guessed as a decided edge
    assert ("d.Node.done()", "exact") not in deep or pg.summary.unresolved == 0
    assert pg.summary.call_sites == n + 1 + 1 + 500 + 1


def _two_modules_same_type(root: Path) -> None:
    _write(root, "a/src/main/java/p/A.java",
           "package p;\n\npublic class A {\n    void m() {\n        new Second().s();\n    }\n}\n\n"
           "class Second {\n    void s() {\n    }\n}\n", "utf-8")
    _write(root, "b/src/main/java/p/A.java",
           "package p;\n\npublic class A {\n    void m() {\n        other();\n    }\n\n    void other() {\n    }\n}\n",
           "utf-8")


def test_second_top_level_class_in_a_file(graph_of, tmp_path):
    _two_modules_same_type(tmp_path)
    pg = graph_of(tmp_path)
    assert out_edges(pg, "p.A.m()") >= {("p.Second.<init>()", "exact", (5,)), ("p.Second.s()", "exact", (5,))}
    assert pg.method("p.Second.s()").file == "a/src/main/java/p/A.java"


def test_duplicate_type_is_kept_or_reported(graph_of, tmp_path):
    _two_modules_same_type(tmp_path)
    pg = graph_of(tmp_path)
    kept = "p.A.other()" in pg.methods()
    reported = "b/src/main/java/p/A.java" in {str(f) for f, _ in pg.summary.skipped}
    assert kept or reported


def test_parse_errors_are_the_same_with_two_jobs(pg, graph_of):
    two = graph_of(BAD_INPUT, jobs=2)
    assert two.summary.parse_errors == pg.summary.parse_errors
    assert set(two.graph.edges) == set(pg.graph.edges)
