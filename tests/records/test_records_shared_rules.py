"""The rules defined once in records and used by several packages."""

import os

import pytest

from records.javalang import JAVA_LANG_TYPES
from records.safefs import FileRefused, read_regular
from records.sourcesets import source_set


@pytest.mark.parametrize("path,expected", [
    ("src/main/java/a/B.java", "main"),
    ("src/test/java/a/BTest.java", "test"),
    ("core/src/integrationTest/java/a/B.java", "test"),
    ("app/src/androidTest/java/a/B.java", "test"),
    ("lib/src/testFixtures/java/a/B.java", "test"),
    ("src/main/java/a/BTest.java", "main"),  # the folder decides, not the name
    ("src/main/java/test/B.java", "main"),  # a package named test under a main root
    ("tests/B.java", "test"),
    ("a/test/B.java", "test"),
    ("a/B.java", "main"),
])
def test_source_set(path, expected):
    assert source_set(tuple(path.split("/"))) == expected


def test_callgraph_and_queries_share_the_rule(tmp_path):
    from callgraph._discover import discover_sources
    from queries.selection import _is_test_path

    for rel in ("src/main/java/a/ATest.java", "src/test/java/a/B.java", "src/it/java/a/C.java"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("class X {}\n")
    files, _skipped = discover_sources(tmp_path)
    got = {f.rel: f.source_set for f in files}
    from pathlib import Path

    assert got == {r: ("test" if _is_test_path(Path(r)) else "main") for r in got}
    assert got["src/main/java/a/ATest.java"] == "main" and got["src/test/java/a/B.java"] == "test"


def test_java_lang_list():
    # javap -public java.lang.* on JDK 17: these are public top-level types; Entry-like nested ones are not
    assert {"String", "Object", "AutoCloseable", "Record", "StringBuilder", "Iterable"} <= JAVA_LANG_TYPES
    assert not {"List", "Map", "Entry", "Thread.State", ""} & JAVA_LANG_TYPES


def test_metrics_and_javadoc_use_the_one_java_lang_list():
    import javadoc._sources as js
    import metrics.names as mn

    assert mn._JAVA_LANG is JAVA_LANG_TYPES and js._java_lang() is JAVA_LANG_TYPES
    # AutoCloseable was missing from metrics' own 25-name list
    assert mn.normalise_api("a.B.close(AutoCloseable)", "signature") == (("a.B.close(java.lang.AutoCloseable)",), ())


def test_read_regular_bounds_and_refuses_special_files(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x" * 10)
    assert read_regular(f, 10) == b"x" * 10
    with pytest.raises(FileRefused, match="larger than the limit of 9 bytes"):
        read_regular(f, 9)
    assert read_regular(f, 4, truncate=True) == b"xxxx"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match=r"not a regular file \(FIFO\)"):
        read_regular(fifo, 10)
    with pytest.raises(FileRefused, match="outside"):
        read_regular(f, 10, root=tmp_path / "sub")


def test_read_regular_follows_links_and_skips_realpath_for_a_plain_file(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    (real / "A.java").write_bytes(b"class A {}")
    (tmp_path / "dirlink").symlink_to(real, target_is_directory=True)
    (tmp_path / "filelink.java").symlink_to(real / "A.java")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "fifolink").symlink_to(tmp_path / "fifo")
    # a link as the last part is followed to its target, as before
    assert read_regular(tmp_path / "filelink.java", 100) == b"class A {}"
    with pytest.raises(FileRefused, match=r"not a regular file \(FIFO\)"):
        read_regular(tmp_path / "fifolink", 10)
    # a folder link and `..` after it, as the kernel (and realpath) resolve them
    assert read_regular(tmp_path / "dirlink" / "A.java", 100) == b"class A {}"
    assert read_regular(tmp_path / "dirlink" / ".." / "real" / "A.java", 100) == b"class A {}"
    # a plain file (walk_tree's real paths, read twice per build) needs no realpath
    import posixpath

    def no_realpath(*a, **k):
        raise AssertionError("realpath called for a path whose last part is no link")

    monkeypatch.setattr(posixpath, "realpath", no_realpath)
    assert read_regular(real / "A.java", 100) == b"class A {}"
    assert read_regular(tmp_path / "dirlink" / "A.java", 100) == b"class A {}"


def test_javadoc_and_callgraph_share_the_reader():
    import callgraph.safefs as cs
    import javadoc._archive as ja

    assert cs.read_regular is read_regular and ja.read_regular is read_regular


@pytest.mark.parametrize("value,is_secret", [
    ("Summer2024!", True),  # 11 characters: a real password; the Secret score missed it with its old 16 rule
    ("a1b2c3d4", True),  # 8: the NIST SP 800-63B minimum
    ("a1b2c3d", False),  # 7
    ("YOUR_API_KEY_HERE", False),
    ("<token>", False),
    ("{api_key}", False),
    ("example-key-123456", False),
    ("two words here ok", False),
])
def test_redaction_and_secret_score_agree(value, is_secret):
    from metrics.sccg._scores import has_literal_secret
    from queries.sccg import mask_credentials
    import ast

    code = f'headers = {{"X-Api-Key": "{value}"}}\npassword = "{value}"\n'
    masked = mask_credentials(code)
    assert (value not in masked) is is_secret
    assert has_literal_secret(code, ast.parse(code)) is is_secret
