"""Hostile and broken classpath input: warnings naming the file, never an exception."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from callgraph import _classfile as cf
from callgraph import classpath as cp
from callgraph.classpath import ClasspathIndex, Solved, Unsolved, UnsolvedReason

JAVAC = shutil.which("javac") or "/usr/bin/javac"
JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")

SRC = """package bad.pkg;
public class Good {
    public static String hello(String who, int... n) { return who; }
    public static class Nested { public int x; }
}
"""


@pytest.fixture(scope="module")
def good_classes(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad-src")
    (d / "Good.java").write_text(SRC)
    out = d / "classes"
    subprocess.run([JAVAC, "--release", "17", "-d", str(out), str(d / "Good.java")], check=True)
    return out


@pytest.fixture(scope="module")
def good_bytes(good_classes) -> bytes:
    return (good_classes / "bad" / "pkg" / "Good.class").read_bytes()


def make_jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def test_corrupt_jar_is_a_warning_and_the_rest_works(tmp_path, good_classes, good_bytes):
    junk = tmp_path / "junk.jar"
    junk.write_bytes(b"PK\x03\x04 this is not really a zip" * 10)
    good = make_jar(tmp_path / "good.jar", {"bad/pkg/Good.class": good_bytes})
    ix = ClasspathIndex.open([junk, tmp_path / "missing.jar", good], jdk=None)
    paths = [w[0] for w in ix.warnings]
    assert str(junk) in paths and str(tmp_path / "missing.jar") in paths
    assert "BadZipFile" in dict(ix.warnings)[str(junk)]
    (hello,) = [m for m in ix.lookup("bad.pkg.Good").methods if m.name == "hello"]
    assert hello.params == ("java.lang.String", "int...") and hello.varargs and hello.static


def test_truncated_class_in_jar(tmp_path, good_bytes):
    jar = make_jar(tmp_path / "t.jar", {"bad/pkg/Good.class": good_bytes[: len(good_bytes) // 2],
                                        "bad/pkg/Empty.class": b"",
                                        "bad/pkg/Magic.class": b"\x00\x01\x02\x03" + good_bytes[4:]})
    ix = ClasspathIndex.open([jar], jdk=None)
    for name, word in (("bad.pkg.Good", "truncated"), ("bad.pkg.Empty", "truncated"), ("bad.pkg.Magic", "magic")):
        r = ix.lookup_result(name)
        assert isinstance(r, Unsolved) and r.reason is UnsolvedReason.MALFORMED and word in r.detail, r
        assert r.text == r.detail and r.detail.startswith(f"bad class file {name.replace('.', '/')}.class: ")
        assert ix.lookup(name) is None
    assert len(ix.warnings) == 3 and all(w[0] == str(jar) for w in ix.warnings)


def test_class_file_under_wrong_name(tmp_path, good_bytes):
    jar = make_jar(tmp_path / "w.jar", {"other/Name.class": good_bytes})
    ix = ClasspathIndex.open([jar], jdk=None)
    r = ix.lookup_result("other.Name")
    assert isinstance(r, Unsolved) and r.reason is UnsolvedReason.WRONG_NAME
    assert r.detail == "other/Name.class declares bad/pkg/Good"


def test_every_prefix_of_a_class_file_fails_cleanly(good_bytes):
    for n in range(len(good_bytes)):
        with pytest.raises(cf.ClassFormatError):
            cf.parse_class(good_bytes[:n])
    assert cf.parse_class(good_bytes).name == "bad/pkg/Good"


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_corruption_never_escapes(good_bytes, data):
    buf = bytearray(good_bytes)
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    try:
        cf.parse_class(bytes(buf))
    except cf.ClassFormatError:
        pass


def test_random_corruption_through_the_index(tmp_path, good_bytes):
    # Corrupt bytes that parse must still never raise out of lookup.
    import random
    rnd = random.Random(7)
    entries = {}
    for k in range(200):
        buf = bytearray(good_bytes)
        for _ in range(4):
            buf[rnd.randrange(10, len(buf))] = rnd.randrange(256)
        entries[f"bad/pkg/Good{k}.class"] = bytes(buf)
    jar = make_jar(tmp_path / "fuzz.jar", entries)
    ix = ClasspathIndex.open([jar], jdk=None)
    results = [ix.lookup_result(f"bad.pkg.Good{k}") for k in range(200)]
    assert all(isinstance(r, (Solved, Unsolved)) for r in results)
    assert all(isinstance(r, Unsolved) for r in results)  # the name never matches Good{k}


def test_unsafe_paths_are_ignored(tmp_path, good_bytes):
    jar = make_jar(tmp_path / "slip.jar", {"../../evil/X.class": good_bytes, "/abs/Y.class": good_bytes,
                                           "bad/pkg/Good.class": good_bytes})
    ix = ClasspathIndex.open([jar], jdk=None)
    assert not ix.has_type("evil.X") and not ix.has_type("abs.Y") and ix.has_type("bad.pkg.Good")
    assert ix.warnings == [(str(jar), "2 zip entries with unsafe paths ('..', absolute) ignored")]


def test_too_many_entries(tmp_path, good_bytes, monkeypatch):
    monkeypatch.setattr(cp, "MAX_ZIP_ENTRIES", 50)
    jar = make_jar(tmp_path / "many.jar", {f"p/C{i}.class": b"" for i in range(51)})
    good = make_jar(tmp_path / "good.jar", {"bad/pkg/Good.class": good_bytes})
    ix = ClasspathIndex.open([jar, good], jdk=None)
    assert ix.warnings[0][0] == str(jar) and "51 entries" in ix.warnings[0][1]
    assert not ix.has_type("p.C0") and ix.has_type("bad.pkg.Good")


def test_huge_declared_and_real_size(tmp_path, good_bytes, monkeypatch):
    monkeypatch.setattr(cp, "MAX_CLASS_BYTES", 10_000)
    jar = make_jar(tmp_path / "bomb.jar", {"p/Big.class": b"\0" * 5_000_000, "bad/pkg/Good.class": good_bytes})
    ix = ClasspathIndex.open([jar], jdk=None)
    r = ix.lookup_result("p.Big")
    assert isinstance(r, Unsolved) and r.reason is UnsolvedReason.UNREADABLE and "exceeds limit" in r.detail
    # A central directory that lies about the size: the read itself is bounded.
    src = ix._owner["p/Big"]
    listing = src._infos
    size_at = listing.names["p/Big"] * 6 + 2  # the row's uncompressed size
    listing.ints[size_at] = 100
    with pytest.raises(zipfile.BadZipFile, match="CRC"):
        src.read("p/Big")  # zipfile stops at the declared size; the CRC then fails
    listing.ints[size_at] = 50_000_000
    with pytest.raises(cp._EntryError, match="exceeds limit"):
        src.read("p/Big")
    assert ix.lookup("bad.pkg.Good") is not None


def test_multi_release_jar_prefers_base_entries(tmp_path, good_bytes):
    jar = make_jar(tmp_path / "mr.jar", {
        "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n",
        "bad/pkg/Good.class": good_bytes,
        "META-INF/versions/11/bad/pkg/Good.class": b"garbage",
        "META-INF/versions/11/bad/pkg/OnlyNew.class": good_bytes,
    })
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.lookup("bad.pkg.Good") is not None and not ix.has_type("bad.pkg.OnlyNew")
    assert not ix.has_type("META-INF.versions.11.bad.pkg.Good") and ix.warnings == []


def test_first_entry_wins(tmp_path, good_bytes):
    a = make_jar(tmp_path / "a.jar", {"bad/pkg/Good.class": good_bytes})
    b = make_jar(tmp_path / "b.jar", {"bad/pkg/Good.class": b"broken"})
    assert ClasspathIndex.open([a, b], jdk=None).lookup("bad.pkg.Good").location == str(a)
    assert ClasspathIndex.open([b, a], jdk=None).lookup("bad.pkg.Good") is None


def test_class_folder_with_symlink_loop(tmp_path, good_classes):
    d = tmp_path / "cls"
    shutil.copytree(good_classes, d)
    os.symlink(d, d / "bad" / "loop")
    ix = ClasspathIndex.open([d], jdk=None)
    assert ix.lookup("bad.pkg.Good.Nested").fields[0].name == "x"


def test_unreadable_jimage_falls_back_to_ct_sym(tmp_path):
    home = tmp_path / "jdk"
    (home / "lib").mkdir(parents=True)
    (home / "lib" / "modules").write_bytes(b"\xda\xda\xfe\xca" + b"\0" * 10)
    os.symlink(JDK17 / "lib" / "ct.sym", home / "lib" / "ct.sym")
    ix = ClasspathIndex.open((), jdk=home)
    reasons = " | ".join(r for _, r in ix.warnings)
    assert "cannot read jimage" in reasons and "ct.sym" in reasons
    s = ix.lookup("java.lang.String")
    assert s.origin == "jdk" and s.location == "jrt:/java.base"
    assert ("char[]",) in {m.params for m in s.methods if m.name == "valueOf"}
    assert ix.is_jdk_package("javax.xml.parsers") and not ix.is_jdk_package("javax.servlet")


def test_bad_magic_jimage(tmp_path):
    home = tmp_path / "jdk"
    (home / "lib").mkdir(parents=True)
    (home / "lib" / "modules").write_bytes(b"not an image at all, sorry" * 3)
    ix = ClasspathIndex.open((), jdk=home)
    assert any("bad magic" in r for _, r in ix.warnings)
    assert ix.jdk_packages == frozenset()


@pytest.mark.slow
def test_zip_compressed_jimage(tmp_path):
    # A real compressed image: jlink --compress=2 stores every resource zlib-compressed.
    jlink = JDK17 / "bin" / "jlink"
    if not jlink.exists():
        pytest.skip("no jlink")
    out = tmp_path / "rt"
    subprocess.run([str(jlink), "--add-modules", "java.base", "--compress=2", "--output", str(out)],
                   check=True, capture_output=True)
    ix = ClasspathIndex.open((), jdk=out)
    assert any("compressed" in r for _, r in ix.warnings)
    plain = ClasspathIndex.open((), jdk=JDK17)
    for name in ("java.lang.String", "java.util.Map.Entry", "java.util.ArrayList"):
        assert ix.lookup(name) == plain.lookup(name)
    assert ix.is_jdk_package("java.lang") and not ix.is_jdk_package("javax.xml.parsers")  # java.base only


def test_class_folder_fifo_is_a_warning_not_a_hang(tmp_path, good_classes):
    """A project's class folder may hold a FIFO named like a class file: the
    read must be refused at once (it used to block in read_bytes forever,
    stat() reporting size 0)."""
    folder = tmp_path / "classes"
    shutil.copytree(good_classes, folder)
    os.mkfifo(folder / "bad" / "pkg" / "Pipe.class")
    idx = ClasspathIndex.open([folder], jdk=None)
    assert idx.lookup("bad.pkg.Good") is not None
    r = idx.lookup_result("bad.pkg.Pipe")
    assert isinstance(r, Unsolved) and "not a regular file (FIFO)" in r.text
    assert any("Pipe.class" in w and "FIFO" in w for _, w in idx.warnings)


def test_class_folder_link_out_of_the_folder_is_not_indexed(tmp_path, good_classes):
    """A folder linked from inside a class folder to elsewhere on the machine
    is not part of that class folder: its classes are not indexed, and a
    class file linked out is refused on reading."""
    outside = tmp_path / "elsewhere"
    shutil.copytree(good_classes, outside)
    folder = tmp_path / "classes"
    (folder / "evil").mkdir(parents=True)
    (folder / "bad").symlink_to(outside / "bad")            # a linked package folder
    (folder / "evil" / "Leak.class").symlink_to(outside / "bad" / "pkg" / "Good.class")
    idx = ClasspathIndex.open([folder], jdk=None)
    assert idx.lookup("bad.pkg.Good") is None
    assert isinstance(idx.lookup_result("bad.pkg.Good"), Unsolved)
    r = idx.lookup_result("evil.Leak")
    assert isinstance(r, Unsolved) and "outside" in r.text


def test_a_classpath_path_that_is_no_file_nor_folder_says_what_it_is(tmp_path):
    # a FIFO, a device and a link loop were all "classpath entry does not
    # exist" (the attacker's review, session 10)
    import os

    from callgraph.classpath import ClasspathIndex

    os.mkfifo(tmp_path / "fifo.jar")
    (tmp_path / "loop.jar").symlink_to(tmp_path / "loop.jar")
    entries = [tmp_path / "fifo.jar", "/dev/zero", tmp_path / "loop.jar", tmp_path / "none.jar"]
    cp = ClasspathIndex.open([str(e) for e in entries], jdk=None)
    assert cp.warnings == [
        (str(tmp_path / "fifo.jar"), "not a jar, zip or class folder (FIFO)"),
        ("/dev/zero", "not a jar, zip or class folder (character device)"),
        (str(tmp_path / "loop.jar"), "unreadable classpath entry: Too many levels of symbolic links"),
        (str(tmp_path / "none.jar"), "classpath entry does not exist"),
    ]
