"""The on-disk jar index (``callgraph._jarindex``, ``<qare cache>/jar-index.sqlite``)
and class reads through per-process open jars (``classpath._OPEN``,
``classpath._read_member``): a listing from the cache equals the one read
from the zip, class bytes equal what ``zipfile`` reads, and a changed,
racy, corrupt, moved or foreign entry is never used."""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import time
import zipfile
from pathlib import Path

import pytest

from callgraph import _statsig
from callgraph import classpath as cp
from callgraph._jarindex import JarIndexCache, JarListing, decode, encode
from callgraph.classpath import ClasspathIndex, UnsolvedReason

LANG3 = Path("/usr/share/java/commons-lang3.jar")
REAL_JARS = sorted(glob.glob("/usr/share/java/*.jar")) + \
    sorted(glob.glob(os.path.expanduser("~/.cache/qare/m2/repository/org/springframework/**/*.jar"), recursive=True))[:40]


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    """A fresh per-process memo, a private qare cache of our own, no racy window
    (the jars these tests write are seconds old; the rule itself is tested below)."""
    monkeypatch.setattr(cp, "_JAR_MEMO", cp._JarIndexMemo(cp.JAR_MEMO_MAX_NAMES, cp.JAR_MEMO_MAX_JARS))
    cache = tmp_path / "qc"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(_statsig, "RACY_NS", 0)
    return cache


def _forget(monkeypatch):
    """What another process sees: nothing in memory."""
    monkeypatch.setattr(cp, "_JAR_MEMO", cp._JarIndexMemo(cp.JAR_MEMO_MAX_NAMES, cp.JAR_MEMO_MAX_JARS))


def _zip_listing(path) -> JarListing:
    fd = os.open(path, os.O_RDONLY)
    try:
        return cp._list_jar(fd, Path(path))
    finally:
        os.close(fd)


def _jar(path: Path, entries: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def _row(cache: Path, jar) -> JarListing | None:
    c = JarIndexCache(cache / "jar-index.sqlite")
    try:
        return c.get(os.path.realpath(jar), _statsig.signature(jar))
    finally:
        c.close()


@pytest.mark.skipif(len(REAL_JARS) < 5, reason="no jars in /usr/share/java or ~/.cache/qare/m2")
def test_listing_from_the_cache_equals_the_listing_from_the_zip_on_real_jars(fresh, monkeypatch):
    jars = [j for j in REAL_JARS if os.path.isfile(j)]
    ClasspathIndex.open(jars, jdk=None)  # fills the disk index
    checked = 0
    for j in jars:
        try:
            want = _zip_listing(j)
        except (zipfile.BadZipFile, cp._EntryError):
            continue
        got = _row(fresh, j)
        assert got == want, j
        assert len(got.ints) == 6 * len(got.names)
        checked += bool(got.names)
    assert checked >= 5
    # a whole index from the cache (another process) answers as one from the zips
    _forget(monkeypatch)
    from_cache = ClasspathIndex.open(jars, jdk=None)
    monkeypatch.setenv("QARE_CACHE_DIR", "off")
    _forget(monkeypatch)
    from_zip = ClasspathIndex.open(jars, jdk=None)
    assert list(from_cache._owner) == list(from_zip._owner)
    assert from_cache.warnings == from_zip.warnings
    assert [s.library for s in from_cache._sources] == [s.library for s in from_zip._sources]
    names = list(from_zip._owner)[::max(1, len(list(from_zip._owner)) // 200)]
    for n in names:
        assert from_cache.lookup_result(n) == from_zip.lookup_result(n), n


@pytest.mark.skipif(not REAL_JARS, reason="no jars in /usr/share/java")
def test_class_bytes_read_through_the_listing_equal_zipfiles(fresh):
    done = 0
    for j in REAL_JARS[:12]:
        try:
            listing = _zip_listing(j)
        except (zipfile.BadZipFile, cp._EntryError):
            continue
        key = (os.path.realpath(j), _statsig.signature(j))
        with zipfile.ZipFile(j) as zf:
            for name in listing.names:
                assert cp._read_member(key, listing.entry(name)) == zf.read(name + ".class"), (j, name)
                done += 1
    assert done > 100


def test_stored_and_deflated_members_and_a_bad_crc(tmp_path):
    data = bytes(range(256)) * 40
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        jar = _jar(tmp_path / f"m{method}.jar", {"p/A.class": data, "p/B$C.class": b"\xca\xfe"}, method)
        listing = _zip_listing(jar)
        key = (os.path.realpath(jar), _statsig.signature(jar))
        assert cp._read_member(key, listing.entry("p/A")) == data
        assert cp._read_member(key, listing.entry("p/B$C")) == b"\xca\xfe"
        i = listing.names["p/A"] * 6 + 5
        listing.ints[i] ^= 1  # the central directory's CRC-32, one bit off
        with pytest.raises(zipfile.BadZipFile, match="CRC"):
            cp._read_member(key, listing.entry("p/A"))


def test_a_second_process_reads_the_listing_from_disk_not_the_zip(fresh, monkeypatch, tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe\xba\xbe", "p/Beta.class": b"x"})
    assert ClasspathIndex.open([jar], jdk=None).has_type("p.Alpha")
    assert _row(fresh, jar) == _zip_listing(jar)
    _forget(monkeypatch)

    def no_zip(*a):
        raise AssertionError("central directory read again")
    monkeypatch.setattr(cp, "_list_jar", no_zip)
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.has_type("p.Alpha") and ix.has_type("p.Beta") and ix.warnings == []


def test_a_jar_rewritten_in_place_with_the_same_size_and_mtime_is_listed_again(fresh, monkeypatch, tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe\xba\xbe"}, zipfile.ZIP_STORED)
    other = _jar(tmp_path / "other.jar", {"p/Gamma.class": b"\xca\xfe\xba\xbe"}, zipfile.ZIP_STORED)
    st = jar.stat()
    assert ClasspathIndex.open([jar], jdk=None).has_type("p.Alpha")
    with open(jar, "r+b") as fh:
        fh.write(other.read_bytes())
    os.utime(jar, ns=(st.st_atime_ns, st.st_mtime_ns))
    _forget(monkeypatch)
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.has_type("p.Gamma") and not ix.has_type("p.Alpha")


def test_a_racy_row_is_not_trusted(fresh, monkeypatch, tmp_path):
    monkeypatch.setattr(_statsig, "RACY_NS", 3_000_000_000)
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe"})  # written just now
    ClasspathIndex.open([jar], jdk=None)
    c = JarIndexCache(fresh / "jar-index.sqlite")
    assert c.get(os.path.realpath(jar), _statsig.signature(jar)) is None
    assert c.stats["racy"] == 1
    c.close()


@pytest.mark.parametrize("damage", ["flip", "move", "garbage"])
def test_a_damaged_or_moved_row_is_read_from_the_zip_and_replaced(fresh, monkeypatch, tmp_path, damage):
    a = _jar(tmp_path / "a.jar", {"p/Alpha.class": b"\xca\xfe"})
    b = _jar(tmp_path / "b.jar", {"q/Beta.class": b"\xca\xfe"})
    ClasspathIndex.open([a, b], jdk=None)
    db = sqlite3.connect(fresh / "jar-index.sqlite")
    ra, rb = os.path.realpath(a), os.path.realpath(b)
    if damage == "flip":
        data = bytearray(db.execute("SELECT data FROM jars WHERE path = ?", (ra,)).fetchone()[0])
        data[data.index(b"Alpha")] ^= 0x20  # still decodes: p/alpha; only the CRC tells
        db.execute("UPDATE jars SET data = ? WHERE path = ?", (bytes(data), ra))
    elif damage == "move":  # b's row under a's path, with a's signature: well-formed, wrong jar
        row = db.execute("SELECT data, crc FROM jars WHERE path = ?", (rb,)).fetchone()
        db.execute("UPDATE jars SET data = ?, crc = ? WHERE path = ?", (row[0], row[1], ra))
    else:
        db.execute("UPDATE jars SET data = ? WHERE path = ?", (b"\x93\x01\x02", ra))
    db.commit()
    db.close()
    c = JarIndexCache(fresh / "jar-index.sqlite")
    assert c.get(ra, _statsig.signature(a)) is None and c.stats["bad"] == 1
    c.close()
    _forget(monkeypatch)
    ix = ClasspathIndex.open([a, b], jdk=None)
    assert ix.has_type("p.Alpha") and not ix.has_type("p.alpha") and ix.has_type("q.Beta")
    assert _row(fresh, a) == _zip_listing(a)  # replaced by the zip's listing


def test_a_foreign_file_is_replaced_and_a_shared_folder_refused(fresh, monkeypatch, tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/Alpha.class": b"\xca\xfe"})
    (fresh / "jar-index.sqlite").write_bytes(b"not a database, whatever it is" * 10)
    assert ClasspathIndex.open([jar], jdk=None).has_type("p.Alpha")
    assert _row(fresh, jar) == _zip_listing(jar)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("QARE_CACHE_DIR", str(shared))
    _forget(monkeypatch)
    ix = ClasspathIndex.open([jar], jdk=None)
    assert ix.has_type("p.Alpha")
    assert [w for w in ix.warnings if "jar class indexes not cached" in w[1]]
    assert not (shared / "jar-index.sqlite").exists()


def test_the_file_keeps_within_its_bound_least_recently_used_first(fresh, tmp_path):
    jars = [_jar(tmp_path / f"l{i}.jar", {f"p{i}/C{k}.class": b"x" for k in range(50)}) for i in range(4)]
    listings = [_zip_listing(j) for j in jars]
    size = len(encode(listings[0]))
    c = JarIndexCache(fresh / "jar-index.sqlite", max_bytes=3 * size)
    now = time.time_ns()
    for t, (j, lst) in enumerate(zip(jars, listings)):  # written (and so last used) in this order
        c.put(os.path.realpath(j), _statsig.signature(j), now + t, lst)
        c.flush()
    kept = [c.get(os.path.realpath(j), _statsig.signature(j)) is not None for j in jars]
    assert kept == [False, True, True, True] and c.stats["evicted"] == 1
    c.close()


def test_decode_refuses_what_encode_never_writes(tmp_path):
    jar = _jar(tmp_path / "lib.jar", {"p/A.class": b"x", "p/B.class": b"y"})
    good = encode(_zip_listing(jar))
    assert decode(good) == _zip_listing(jar)
    import msgpack
    obj = msgpack.unpackb(good, raw=False)
    for bad in ([*obj[:1], 3, *obj[2:]],          # count says 3 names, 2 there
                [*obj[:3], obj[3][:-8], *obj[4:]],  # entry table cut short
                [*obj[:2], "p/A\0p/A", *obj[3:]],  # a name twice
                [*obj[:4], [[7, "x"]], *obj[5:]],  # stored name of a row that is not there
                [2, *obj[1:]]):                    # another codec
        with pytest.raises(ValueError):
            decode(msgpack.packb(bad, use_bin_type=True))
    neg = bytearray(obj[3])
    neg[7] = 0x80  # the first header offset negative
    with pytest.raises(ValueError):
        decode(msgpack.packb([*obj[:3], bytes(neg), *obj[4:]], use_bin_type=True))


def test_open_jars_are_bounded_and_a_jar_replaced_after_indexing_is_refused(fresh, monkeypatch, tmp_path):
    monkeypatch.setattr(cp, "_OPEN", cp._OpenJars(2))
    jars = [_jar(tmp_path / f"l{i}.jar", {f"p{i}/A.class": b"\xca\xfe\xba\xbe"}) for i in range(3)]
    ix = ClasspathIndex.open(jars, jdk=None)
    before = len(os.listdir("/proc/self/fd"))
    for i in range(3):
        ix.lookup_result(f"p{i}.A")  # read (a bad class file, but read)
    assert len(cp._OPEN) == 2 and len(os.listdir("/proc/self/fd")) == before + 2
    _jar(tmp_path / "new.jar", {"p0/A.class": b"\xca\xfe\xba\xbe\0\0"})
    os.replace(tmp_path / "new.jar", jars[0])  # p0 was evicted: reopening it finds another file
    r = ix.lookup_result("p0.A")  # cached from the first read
    ix2 = ClasspathIndex.open(jars[1:], jdk=None)
    assert r.reason is UnsolvedReason.MALFORMED
    src = ix._owner["p0/A"]
    with pytest.raises(cp._EntryError, match="changed since it was indexed"):
        src.read("p0/A")
    assert ix2.has_type("p1.A")
    cp._OPEN.close()
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_listing_that_lies_is_refused_member_by_member(tmp_path):
    """The reader trusts nothing of the listing that zipfile would not: each
    lie about a member (flags zipfile refuses, an offset off the local header,
    a header naming another member, a size past the bound) is an error of that
    member, never bytes of another one."""
    jar = _jar(tmp_path / "a.jar", {"p/A.class": b"\xca\xfe\xba\xbe" * 8, "p/B.class": b"\xca\xfe"})
    key = (os.path.realpath(jar), _statsig.signature(jar))
    base = _zip_listing(jar)
    i = base.names["p/A"] * 6
    for field, value, error, match in (
            (4, 0x1, cp._EntryError, "encrypted"),
            (4, 0x20, cp._EntryError, "patched data"),
            (4, 0x40, cp._EntryError, "strong encryption"),
            (0, 1, zipfile.BadZipFile, "Bad magic"),
            (0, jar.stat().st_size + 10, zipfile.BadZipFile, "Truncated"),
            (2, cp.MAX_CLASS_BYTES + 1, cp._EntryError, "exceeds limit")):
        listing = _zip_listing(jar)
        listing.ints[i + field] = value
        with pytest.raises(error, match=match):
            cp._read_member(key, listing.entry("p/A"))
    listing = _zip_listing(jar)  # p/A's entry pointed at p/B's local header
    listing.ints[i] = base.ints[base.names["p/B"] * 6]
    with pytest.raises(zipfile.BadZipFile, match="differ"):
        cp._read_member(key, listing.entry("p/A"))
