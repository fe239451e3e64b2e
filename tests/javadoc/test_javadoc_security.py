"""Unpacked javadoc sites and source folders are read within their root,
regular files only, with the byte limit on what is read (docs/security.md,
"A project's files"). Zip entries cannot be FIFOs or links, but an unpacked
site (a folder from a project list's ``javadoc`` column) can."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from javadoc import ZipLimits, read_site, read_sources

N_MEMBERS = 53  # members of the generated fixture site (test_javadoc_sites)
SRC = Path(__file__).resolve().parents[2] / "fixtures" / "javadoc" / "src"


@pytest.fixture()
def site(generated_sites, tmp_path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(generated_sites["jdk17"], dest)
    return dest


def _in_thread(fn, seconds=30.0):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    return t.is_alive(), box


def _release(fifo: Path) -> None:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def test_a_fifo_class_page_is_refused_not_opened(site):
    page = site / "com/acme/docs/Fifo.html"
    os.mkfifo(page)
    hung, box = _in_thread(lambda: read_site(str(site)))
    if hung:
        _release(page)
        pytest.fail("reading a FIFO class page blocked")
    ds = box["value"]
    assert len(ds.members) == N_MEMBERS
    assert [w for w in ds.warnings if "Fifo" in w[0]] == [
        (f"{site}/com/acme/docs/Fifo.html", f"unreadable: {page}: not a regular file (FIFO)")]


def test_a_fifo_in_a_source_folder_is_refused(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    fifo = src / "com/acme/docs/Fifo.java"
    os.mkfifo(fifo)
    hung, box = _in_thread(lambda: read_sources(str(src)))
    if hung:
        _release(fifo)
        pytest.fail("reading a FIFO named *.java in a sources folder blocked")
    ds = box["value"]
    assert ds.members and [w for w in ds.warnings if "Fifo" in w[0]] == [
        (f"{src}/com/acme/docs/Fifo.java", f"unreadable: {fifo}: not a regular file (FIFO)")]


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_a_device_page_is_never_read(site):
    page = site / "com/acme/docs/Zero.html"
    os.mknod(page, stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero
    hung, box = _in_thread(lambda: read_site(str(site), limits=ZipLimits(max_entry_bytes=1 << 20)))
    assert not hung, "reading a character device did not end"
    ds = box["value"]
    assert [w for w in ds.warnings if "Zero" in w[0]] == [
        (f"{site}/com/acme/docs/Zero.html", f"unreadable: {page}: not a regular file (character device)")]


def test_links_out_of_the_site_are_refused(site, tmp_path):
    secret = tmp_path / "Secret.html"
    secret.write_text("<h1 class='title'>Class Secret</h1><p>the production password is hunter2</p>")
    os.symlink(secret, site / "com/acme/docs/Secret.html")
    os.symlink("/", site / "com/acme/docs/slash")  # a folder link is never entered
    ds = read_site(str(site))
    assert len(ds.members) == N_MEMBERS
    assert not any("hunter2" in (m.description or "") for m in ds.members)
    assert [w for w in ds.warnings if "Secret" in w[0] or "slash" in w[0]] == [
        (f"{site}/com/acme/docs/Secret.html",
         f"unreadable: {site}/com/acme/docs/Secret.html: link leads outside {site}")]


def test_the_page_limit_holds_on_bytes_read(site, monkeypatch):
    # stat sizes can lie (a file growing after stat, /proc): the limit counts bytes
    big = site / "com/acme/docs/Box.html"
    size = big.stat().st_size
    import javadoc._archive as arch

    real_lstat = os.lstat

    def lying_lstat(p, *a, **kw):
        st = real_lstat(p, *a, **kw)
        if str(p).endswith("Box.html"):
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 1,
                                   st.st_atime, st.st_mtime, st.st_ctime))
        return st

    monkeypatch.setattr(arch.os.path, "getsize", lambda p: 1)  # what the old code asked
    monkeypatch.setattr(arch.os, "lstat", lying_lstat)
    ds = read_site(str(site), limits=ZipLimits(max_entry_bytes=size - 1))
    assert [w for w in ds.warnings if "Box.html" in w[0]] == [
        (f"{site}/com/acme/docs/Box.html",
         f"unreadable: {big}: more than {size - 1} bytes exceeds the per-file limit")]


def test_an_unreadable_folder_is_reported(site, monkeypatch):
    import javadoc._archive as arch

    real_scandir = os.scandir

    def scandir(path="."):
        if str(path).endswith("util"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(arch.os, "scandir", scandir)
    ds = read_site(str(site))
    assert (f"{site}/com/acme/docs/util", "unreadable folder: Permission denied; skipped") in ds.warnings


@pytest.mark.parametrize("layout", ["jdk17", "jdk25"])
def test_a_site_missing_class_pages_warns_and_exits_1(generated_sites, tmp_path, layout):
    from click.testing import CliRunner

    from qare.cli import main

    site = tmp_path / "site"
    shutil.copytree(generated_sites[layout], site)
    # 12 class pages: 10 in com.acme.docs (nested types have their own), 2 in com.acme.docs.util;
    # allclasses-index.html links 11 of them (javadoc leaves out Widget.Handle)
    pages = [p for p in site.glob("com/acme/docs/**/*.html") if not p.name.startswith("package-")]
    assert len(pages) == 12
    for rel in ("com/acme/docs/Box.html", "com/acme/docs/Widget.html"):
        (site / rel).unlink()
    ds = read_site(str(site))
    assert [w for w in ds.warnings if "allclasses" in w[0]] == [
        (f"{site}/allclasses-index.html", "2 of 11 class pages it lists are missing from the site "
         "(first: com/acme/docs/Box.html, com/acme/docs/Widget.html); their members are not documented")]
    r = CliRunner().invoke(main, ["javadoc", str(site), "--out", str(tmp_path / "a.jsonl")])
    assert r.exit_code == 1
    complete = CliRunner().invoke(main, ["javadoc", str(generated_sites[layout]), "--out", str(tmp_path / "b.jsonl")])
    assert complete.exit_code == 0, complete.output


def test_a_memory_error_names_the_archive_and_the_rest_is_read(site, tmp_path, monkeypatch):
    import javadoc._index as index_mod
    from javadoc import DocIndex

    real = index_mod._read_cached
    huge = str(tmp_path / "huge-javadoc.jar")

    def read(p, *a, **kw):
        if p == huge:
            raise MemoryError
        return real(p, *a, **kw)

    monkeypatch.setattr(index_mod, "_read_cached", read)
    idx = DocIndex.open(huge, str(site))
    assert list(idx.warnings) == [(huge, "out of memory while reading it; skipped")]
    assert idx.failed == (huge,) and len(idx) == N_MEMBERS
