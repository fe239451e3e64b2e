"""Bad input: zip bombs, entry limits, '../' names, broken HTML, wrong
declared encodings, sites without member pages, jars that are not javadoc
sites. Each gives a warning or error naming the file; everything readable
is still read."""

from __future__ import annotations

import os
import shutil
import time
import zipfile
from pathlib import Path

import pytest

from javadoc import DocIndex, JavadocError, ZipLimits, read_any, read_site, read_sources

P = "com.acme.docs"
N_MEMBERS = 53  # members of the generated fixture site (test_javadoc_sites)


def _zip_dir(src: Path, dest: Path, prefix: str = "", extra: dict | None = None) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                zf.write(f, prefix + f.relative_to(src).as_posix())
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return dest


@pytest.fixture()
def site(generated_sites, tmp_path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(generated_sites["jdk17"], dest)
    return dest


def test_javadoc_jar_nested_root_reads_everything(site, tmp_path):
    jar = _zip_dir(site, tmp_path / "acme-1.0-javadoc.jar", prefix="apidocs/")
    ds = read_site(str(jar))
    assert len(ds.members) == N_MEMBERS and not ds.warnings
    assert ds.members[0].location.startswith("com/acme/docs/")


def test_zip_bomb_entry_skipped(site, tmp_path):
    bomb = b"\0" * (4 * 1024 * 1024)  # deflates ~1000:1
    jar = _zip_dir(site, tmp_path / "bomb-javadoc.jar", extra={"com/acme/docs/Bomb.html": bomb})
    ds = read_site(str(jar))
    assert len(ds.members) == N_MEMBERS
    (where, reason), = ds.warnings
    assert where == f"{jar}!com/acme/docs/Bomb.html" and "compression ratio" in reason


def test_entry_count_and_size_limits(site, tmp_path):
    jar = _zip_dir(site, tmp_path / "many-javadoc.jar")
    with pytest.raises(JavadocError, match=r"many-javadoc\.jar: \d+ entries exceed the limit of 10"):
        read_site(str(jar), limits=ZipLimits(max_entries=10))
    idx = DocIndex.open(str(jar), str(site), limits=ZipLimits(max_entries=10))
    assert idx.failed == (str(jar),) and len(idx) == N_MEMBERS  # the folder is still read
    # per-entry size: the big Widget page is skipped, the rest read
    ds = read_site(str(jar), limits=ZipLimits(max_entry_bytes=20_000))
    skipped = {w for w, r in ds.warnings if "per-entry limit" in r}
    assert f"{jar}!com/acme/docs/Widget.html" in skipped
    assert 0 < len(ds.members) < N_MEMBERS
    assert not any(m.class_ in ("com.acme.docs.Widget",) for m in ds.members)
    # total budget: later entries skipped with a warning, no crash
    ds = read_site(str(jar), limits=ZipLimits(max_total_bytes=300_000))
    assert any("total uncompressed size limit" in r for _, r in ds.warnings)


def test_corrupt_entry_is_a_warning(site, tmp_path):
    jar = _zip_dir(site, tmp_path / "corrupt-javadoc.jar")
    data = bytearray(jar.read_bytes())
    with zipfile.ZipFile(jar) as zf:
        info = zf.getinfo("com/acme/docs/Box.html")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for k in range(start + 10, start + 40):  # scramble compressed bytes of Box.html
        data[k] ^= 0x5A
    jar.write_bytes(bytes(data))
    ds = read_site(str(jar))
    (where, reason), = ds.warnings
    assert where == f"{jar}!com/acme/docs/Box.html" and "corrupt entry" in reason
    assert len(ds.members) == N_MEMBERS - 4  # Box's constructor and 3 methods lost, the rest read


def test_traversal_names_ignored(site, tmp_path):
    jar = _zip_dir(site, tmp_path / "evil-javadoc.jar",
                   extra={"../evil.html": b"<html></html>", "/abs/Thing.html": b"x",
                          "com/acme/../../../x/Y.html": b"y"})
    ds = read_site(str(jar))
    assert len(ds.members) == N_MEMBERS
    bad = sorted(w for w, r in ds.warnings if "unsafe entry name" in r)
    assert bad == sorted(f"{jar}!{n}" for n in ("../evil.html", "/abs/Thing.html", "com/acme/../../../x/Y.html"))


def test_broken_html_pages(site):
    widget = site / "com/acme/docs/Widget.html"
    data = widget.read_bytes()
    cut = data.index(b'<section class="detail" id="render(int[][])">')
    widget.write_bytes(data[:cut] + b"<div class=\"block\">trunc")  # truncated mid-page
    (site / "com/acme/docs/Color.html").write_bytes(b"\x00\xff garbage <<<>>> not html")
    ds = read_site(str(site))
    ids = {m.id for m in ds.members}
    assert f"{P}.Widget.render(java.lang.String[])" in ids  # before the cut
    assert f"{P}.Widget.render(int[][])" not in ids
    assert f"{P}.Box.set(java.lang.Number)" in ids  # other pages intact
    assert not any(m.class_ == f"{P}.Color" for m in ds.members)
    color = [(w, r) for w, r in ds.warnings if "Color" in w]
    assert {w for w, _ in color} == {str(site / "com/acme/docs/Color.html")}
    assert [r for _, r in color] == [
        "not valid UTF-8 (declared nothing); read as cp1252",
        "no class title (h1.title/h2.title): not a class page; skipped"]


def test_wrong_declared_encodings(site):
    box = site / "com/acme/docs/Box.html"
    data = box.read_bytes()
    assert b"charset=utf-8" in data
    text = "Größe café: a box holding one number."
    # UTF-8 bytes on a page declaring iso-8859-1: the UTF-8 wins
    box.write_bytes(data.replace(b"charset=utf-8", b"charset=iso-8859-1")
                    .replace(b"A box holding one number.", text.encode("utf-8")))
    # latin-1 bytes on a page declaring utf-8: read as cp1252, with a warning
    shape = site / "com/acme/docs/Shape.html"
    shape.write_bytes(shape.read_bytes().replace(b"A shape with an area.", "Fläche à la carte.".encode("latin-1")))
    ds = read_site(str(site))
    classes = {c.fqn: c for c in ds.classes}
    assert classes[f"{P}.Box"].description == text
    assert classes[f"{P}.Shape"].description == "Fläche à la carte."
    (where, reason), = ds.warnings
    assert where.endswith("com/acme/docs/Shape.html") and "not valid UTF-8" in reason
    assert len(ds.members) == N_MEMBERS


def test_site_without_member_pages(tmp_path):
    root = tmp_path / "empty-site"
    root.mkdir()
    (root / "element-list").write_text("com.acme\n")
    (root / "index.html").write_text("<html><body>Overview</body></html>")
    ds = read_site(str(root))
    assert ds.members == () and ds.pages == 0
    assert ds.warnings == ((str(root), "javadoc site without class pages: no members"),)


def test_jar_that_is_not_a_site(tmp_path):
    jar = tmp_path / "lib-1.0.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        zf.writestr("com/acme/Thing.class", b"\xca\xfe\xba\xbe")
    with pytest.raises(JavadocError, match=r"lib-1\.0\.jar: archive is neither a javadoc site"):
        read_any(str(jar))
    with pytest.raises(JavadocError, match=r"lib-1\.0\.jar: not a javadoc site"):
        read_site(str(jar))
    corrupt = tmp_path / "broken-javadoc.jar"
    corrupt.write_bytes(b"PK\x03\x04 this is not really a zip")
    idx = DocIndex.open(str(jar), str(corrupt), str(tmp_path / "missing.jar"))
    assert len(idx) == 0
    assert [w for w, _ in idx.warnings] == [str(jar), str(corrupt), str(tmp_path / "missing.jar")]
    assert "not a readable zip archive" in idx.warnings[1][1]
    assert idx.warnings[2][1] == "no such file or folder"


def test_sources_with_syntax_errors_and_bad_bytes(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "Good.java").write_text(
        "package p;\n/** Good. */\npublic class Good {\n  /** Works. @return 1 */\n  public int one() { return 1; }\n}\n")
    (tmp_path / "p" / "Bad.java").write_bytes(
        b"package p;\n/** Caf\xe9. */\npublic class Bad {\n  /** Half. */\n  public void ok() {}\n  public void broken( {\n}\n")
    ds = read_sources(str(tmp_path))
    ids = {m.id for m in ds.members}
    assert "p.Good.one()" in ids and "p.Bad.ok()" in ids
    assert [r for w, r in ds.warnings if w.endswith("Bad.java")] == [
        "not valid UTF-8; read as cp1252", "syntax errors; declarations read as far as possible"]
    assert ds.classes[[c.fqn for c in ds.classes].index("p.Bad")].description == "Café."
    # escapes: a surrogate pair makes one character, a lone one U+FFFD
    (tmp_path / "p" / "Esc.java").write_text(
        "package p;\n/** Smile \\uD83D\\uDE00, lone \\uD800, a\\u0020b. */\npublic class Esc {}\n")
    esc, = [c for c in read_sources(str(tmp_path)).classes if c.fqn == "p.Esc"]
    assert esc.description == "Smile \U0001F600, lone \ufffd, a b."
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.txt").write_text("no sources here")
    with pytest.raises(JavadocError, match=r"empty: no \.java files"):
        read_sources(str(tmp_path / "empty"))


def test_archive_cache_follows_changes(site, tmp_path):
    jar = _zip_dir(site, tmp_path / "cached-javadoc.jar")
    a = DocIndex.open(str(jar))
    b = DocIndex.open(str(jar))
    assert a.docsets[0] is b.docsets[0]  # read once
    assert DocIndex.open(str(jar), cache=False).docsets[0] is not a.docsets[0]
    time.sleep(0.01)
    _zip_dir(site, jar, extra={"../late.html": b"x"})  # changed archive: read again
    os.utime(jar, ns=(time.time_ns(), time.time_ns()))
    c = DocIndex.open(str(jar))
    assert c.docsets[0] is not a.docsets[0]
    assert any("unsafe entry name" in r for _, r in c.warnings)
