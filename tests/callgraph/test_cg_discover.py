"""Source discovery and decoding (callgraph._discover), on small trees written here."""

from __future__ import annotations

import os

import pytest

from callgraph import NoInputError, build_project_graph
from callgraph._discover import decode_source, discover_sources

CLS = "package p;\nclass {name} {{ void m() {{ }} }}\n"


def _w(root, rel, text="", data=None):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if data is not None:
        p.write_bytes(data)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_maven_roots_and_source_sets(tmp_path):
    _w(tmp_path, "src/main/java/p/A.java", CLS.format(name="A"))
    _w(tmp_path, "src/test/java/p/ATest.java", CLS.format(name="ATest"))
    _w(tmp_path, "src/integrationTest/java/p/AIT.java", CLS.format(name="AIT"))
    _w(tmp_path, "src/test/resources/data/Sample.java", CLS.format(name="Sample"))  # test data
    _w(tmp_path, "target/generated/p/Gen.java", CLS.format(name="Gen"))
    _w(tmp_path, "tools/Script.java", CLS.format(name="Script"))  # outside the source roots
    files, skipped = discover_sources(tmp_path)
    assert [(f.rel, f.source_set) for f in files] == [
        ("src/integrationTest/java/p/AIT.java", "test"),
        ("src/main/java/p/A.java", "main"),
        ("src/test/java/p/ATest.java", "test"),
    ]
    assert skipped == []


def test_multimodule_and_plain_layouts(tmp_path):
    mm = tmp_path / "mm"
    _w(mm, "core/src/main/java/p/A.java", CLS.format(name="A"))
    _w(mm, "web/src/test/java/p/B.java", CLS.format(name="B"))
    _w(mm, ".git/objects/X.java", CLS.format(name="X"))
    assert [(f.rel, f.source_set) for f in discover_sources(mm)[0]] == [
        ("core/src/main/java/p/A.java", "main"), ("web/src/test/java/p/B.java", "test")]
    plain = tmp_path / "plain"
    _w(plain, "A.java", CLS.format(name="A"))
    _w(plain, "test/T.java", CLS.format(name="T"))
    _w(plain, "build/B.java", CLS.format(name="B"))
    assert [(f.rel, f.source_set) for f in discover_sources(plain)[0]] == [
        ("A.java", "main"), ("test/T.java", "test")]


@pytest.mark.parametrize("setup", ["missing", "empty", "no-java"])
def test_no_input_is_a_named_error(tmp_path, setup):
    root = tmp_path / "proj"
    if setup != "missing":
        root.mkdir()
    if setup == "no-java":
        _w(root, "README.md", "hello")
        _w(root, "src/main/resources/a.txt", "x")
    with pytest.raises(NoInputError) as e:
        build_project_graph(root, jdk=None)
    assert ("does not exist" in str(e.value)) if setup == "missing" else (".java" in str(e.value))


def test_symlink_loop_is_reported_not_followed_forever(tmp_path):
    _w(tmp_path, "src/main/java/p/A.java", CLS.format(name="A"))
    os.symlink(tmp_path / "src", tmp_path / "src" / "main" / "java" / "p" / "loop")
    files, skipped = discover_sources(tmp_path)
    assert [f.rel for f in files] == ["src/main/java/p/A.java"]
    assert any("symlink loop" in why for _, why in skipped)


def test_files_over_the_size_limit_are_skipped_with_the_reason(tmp_path):
    _w(tmp_path, "p/Small.java", CLS.format(name="Small"))
    big = _w(tmp_path, "p/Big.java", CLS.format(name="Big") + "// " + "x" * 5000 + "\n")
    pg = build_project_graph(tmp_path, jdk=None, max_file_bytes=1000)
    assert pg.summary.files == 1
    assert [f for f, _ in pg.summary.skipped] == ["p/Big.java"]
    assert f"({big.stat().st_size} > 1000)" in pg.summary.skipped[0][1]
    assert pg.methods() == ["p.Small.<init>()", "p.Small.m()"]
    only_big = tmp_path / "only"
    _w(only_big, "Big.java", "x" * 2000)
    with pytest.raises(NoInputError, match="no usable"):
        build_project_graph(only_big, jdk=None, max_file_bytes=1000)


def test_decoding_boms_utf8_and_fallbacks():
    text = "class A { String s = \"Grüße €\"; }"
    assert decode_source(text.encode("utf-8")) == (text, None)
    assert decode_source(b"\xef\xbb\xbf" + text.encode("utf-8")) == (text, "utf-8-sig")
    assert decode_source(text.encode("utf-16")) == (text, "utf-16")  # with BOM (LE here)
    assert decode_source(b"\xfe\xff" + text.encode("utf-16-be")) == (text, "utf-16")
    latin = "class A { String s = \"Grüße, café, Straße\"; }"
    got, enc = decode_source(latin.encode("iso-8859-1"))
    assert enc is not None and got == latin


def test_latin1_file_keeps_its_comment_and_lines(tmp_path):
    src = ("package p;\n\n/** Grüße aus Köln. */\npublic class L {\n"
           "    /** Größe. */\n    int größe() { return 1; }\n}\n")
    _w(tmp_path, "p/L.java", data=src.encode("iso-8859-1"))
    pg = build_project_graph(tmp_path, jdk=None)
    m = pg.method("p.L.größe()")
    assert (m.start_line, m.end_line, m.comment) == (6, 6, "/** Größe. */")
    assert [f for f, _ in pg.summary.decoded_with_fallback] == ["p/L.java"]
