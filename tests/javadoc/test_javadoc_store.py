"""javadoc._store: the per-archive doc-index cache on disk (docs/javadoc.md "Doc-index cache")."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import zipfile
import zlib
from pathlib import Path

import pytest

from callgraph.safefs import check_private
from javadoc import DocIndex, DocSetStore as _Store, StoreRefused, read_any
from javadoc import _index
from javadoc._archive import ZipLimits
from javadoc._store import _MAGIC, DIGESTS_FILE, FORMAT
from records.safefs import FileRefused

from .conftest import FIXTURE_SRC


def _zip_folder(folder: Path, dest: Path, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, p.relative_to(folder).as_posix())
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return dest


def DocSetStore(folder, trusted_root=None):
    return _Store(folder, trusted_root, check_private=check_private)


@pytest.fixture
def sources_jar(tmp_path) -> Path:
    # an unsafe entry name gives the DocSet a warning located inside the jar
    return _zip_folder(FIXTURE_SRC, tmp_path / "acme-sources.jar", {"../evil.java": b"class Evil {}"})


@pytest.fixture
def site_jar(tmp_path, generated_sites) -> Path:
    return _zip_folder(generated_sites["jdk17"], tmp_path / "acme-javadoc.jar")


@pytest.fixture(autouse=True)
def _empty_lru():
    _index._CACHE.clear()
    yield
    _index._CACHE.clear()


def _records(ds) -> str:
    """Every record of a DocSet as JSON text (what apis.jsonl would get), plus the rest."""
    return json.dumps({"members": [m.to_dict() for m in ds.members],
                       "raw": [repr(m) for m in ds.members], "classes": [repr(c) for c in ds.classes],
                       "warnings": list(ds.warnings), "source": ds.source, "pages": ds.pages,
                       "layout": str(ds.layout)}, sort_keys=True)


def _no_reading(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the archive was read although the store had it")

    monkeypatch.setattr(_index, "read_any", refuse)


@pytest.mark.parametrize("kind", ["sources", "site"])
def test_hit_gives_the_same_records_as_a_miss(tmp_path, monkeypatch, request, kind):
    jar = str(request.getfixturevalue(f"{kind}_jar"))
    fresh = read_any(jar)
    assert len(fresh.members) > 20
    if kind == "sources":
        assert any(f == f"{jar}!../evil.java" for f, _ in fresh.warnings)
    store = DocSetStore(tmp_path / "store")
    first = DocIndex.open(jar, store=store)
    assert (store.hits, store.misses) == (0, 1)
    assert len(list((tmp_path / "store").glob("*.json.z"))) == 1
    _index._CACHE.clear()
    _no_reading(monkeypatch)
    second = DocIndex.open(jar, store=store)
    assert (store.hits, store.misses) == (1, 1)
    assert second.docsets[0] == fresh == first.docsets[0]
    assert _records(second.docsets[0]) == _records(fresh)


def test_a_copied_jar_hits_and_names_its_own_path(tmp_path, sources_jar, monkeypatch):
    store = DocSetStore(tmp_path / "store")
    DocIndex.open(str(sources_jar), store=store)
    other = tmp_path / "elsewhere" / "copy-sources.jar"
    other.parent.mkdir()
    shutil.copy(sources_jar, other)
    expected = read_any(str(other))
    _index._CACHE.clear()
    _no_reading(monkeypatch)
    got = DocIndex.open(str(other), store=store).docsets[0]
    assert store.hits == 1
    assert got.source == str(other)
    assert got == expected
    assert any(f == f"{other}!../evil.java" for f, _ in got.warnings)


def test_changed_content_same_size_and_mtime_is_read_again(tmp_path, sources_jar):
    store = DocSetStore(tmp_path / "store")
    before = DocIndex.open(str(sources_jar), store=store).docsets[0]
    st = os.stat(sources_jar)
    data = bytearray(sources_jar.read_bytes())
    # rename one documented type in place (same length): a different archive
    i = data.find(b"Widget")
    assert i > 0
    with zipfile.ZipFile(sources_jar) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    entries = {n: v.replace(b"Widget", b"Gadget") for n, v in entries.items()}
    with zipfile.ZipFile(sources_jar, "w", zipfile.ZIP_STORED) as z:
        for n, v in entries.items():
            z.writestr(n.replace("Widget", "Gadget"), v)
    os.utime(sources_jar, ns=(st.st_atime_ns, st.st_mtime_ns))
    _index._CACHE.clear()
    after = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert store.hits == 0 and store.misses == 2
    assert after == read_any(str(sources_jar))
    assert {m.class_ for m in after.members} != {m.class_ for m in before.members}


def _entry(store_dir: Path) -> Path:
    (entry,) = list(store_dir.glob("*.json.z"))
    return entry


def _split(raw: bytes) -> tuple[dict, bytes]:
    """An entry's header (as JSON) and its blocks' bytes (javadoc/_store.py, "the data format")."""
    at = len(_MAGIC)
    hlen = int.from_bytes(raw[at:at + 4], "big")
    return json.loads(zlib.decompress(raw[at + 4:at + 4 + hlen])), raw[at + 4 + hlen:]


def _join(header: dict, body: bytes, magic: bytes = _MAGIC) -> bytes:
    """An entry of ``header`` and ``body``, its header's length right."""
    hz = zlib.compress(json.dumps(header).encode())
    return magic + len(hz).to_bytes(4, "big") + hz + body


def _span(header: dict, kind: str, n: int) -> tuple[int, int]:
    """Offset and length of block ``n`` of ``kind`` in the body (the classes' blocks come first)."""
    before = header["class_blocks"] if kind == "class" else header["class_blocks"] + header["member_blocks"]
    k = n if kind == "class" else len(header["class_blocks"]) + n
    return sum(before[:k]), before[k]


def _rows(header: dict, body: bytes, kind: str, n: int) -> list:
    off, length = _span(header, kind, n)
    return json.loads(zlib.decompress(body[off:off + length]))


def _with_block(header: dict, body: bytes, kind: str, n: int, rows, *, crc: bool = True) -> bytes:
    """The entry with block ``n`` of ``kind`` replaced by ``rows`` (the blocks' CRC made right unless ``crc`` is False)."""
    off, length = _span(header, kind, n)
    z = zlib.compress(json.dumps(rows).encode())
    body = body[:off] + z + body[off + length:]
    header = json.loads(json.dumps(header))
    header[f"{kind}_blocks"][n] = len(z)
    if crc:
        header["body_crc"] = zlib.crc32(body)
    return _join(header, body)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign-format", "other-key", "wrong-type",
                                    "deep-nesting", "empty", "older-format", "block-crc", "block-outside",
                                    "header-bit", "missing-block", "trailing-bytes",
                                    "block-negative", "bytes-after-blocks"])
def test_a_corrupt_or_foreign_entry_is_rebuilt(tmp_path, sources_jar, damage):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    good = entry.read_bytes()
    obj, body = _split(good)
    if damage == "garbage":
        entry.write_bytes(b"\x00not zlib at all" * 10)
    elif damage == "truncated":
        entry.write_bytes(good[: len(good) // 2])
    elif damage == "foreign-format":
        entry.write_bytes(_join(dict(obj, format="someone else 9"), body))
    elif damage == "other-key":
        entry.write_bytes(_join(dict(obj, key="0" * 64), body))
    elif damage == "wrong-type":
        entry.write_bytes(_join(dict(obj, member_ids=[42] + obj["member_ids"][1:]), body))
    elif damage == "deep-nesting":  # json's recursion limit, not a crash
        hz = zlib.compress(b"[" * 100_000)
        entry.write_bytes(_MAGIC + len(hz).to_bytes(4, "big") + hz)
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "older-format":  # format 1: the whole DocSet as one zlib-compressed JSON object
        entry.write_bytes(zlib.compress(json.dumps(dict(obj, format="qare-docset 1")).encode()))
    elif damage == "block-crc":  # one bit of the last block's bytes flipped
        entry.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    elif damage == "block-outside":
        blocks = list(obj["member_blocks"])
        blocks[-1] += 1
        entry.write_bytes(_join(dict(obj, member_blocks=blocks), body))
    elif damage == "block-negative":
        blocks = list(obj["member_blocks"])
        blocks[0], blocks[1] = blocks[0] + blocks[1] + 1, -1
        entry.write_bytes(_join(dict(obj, member_blocks=blocks), body))
    elif damage == "header-bit":  # zlib's checksum of the header's bytes
        at = len(_MAGIC) + 20
        entry.write_bytes(good[:at] + bytes([good[at] ^ 1]) + good[at + 1:])
    elif damage == "missing-block":
        entry.write_bytes(_join(dict(obj, member_blocks=obj["member_blocks"][:-1]), body))
    elif damage == "bytes-after-blocks":
        entry.write_bytes(good + b"x")
    elif damage == "trailing-bytes":  # a header that inflates with bytes after its end
        hz = zlib.compress(json.dumps(obj).encode()) + b"x"
        entry.write_bytes(_MAGIC + len(hz).to_bytes(4, "big") + hz + body)
    _index._CACHE.clear()
    got = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert got == read_any(str(sources_jar))
    assert store.rebuilt == 1 and store.hits == 0
    assert entry.read_bytes() == good  # rewritten
    _index._CACHE.clear()
    DocIndex.open(str(sources_jar), store=store)
    assert store.hits == 1


def test_a_pickle_entry_is_never_unpickled(tmp_path, sources_jar):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    for payload in (pickle.dumps(Evil()), zlib.compress(pickle.dumps(Evil()))):
        entry.write_bytes(payload)
        _index._CACHE.clear()
        got = DocIndex.open(str(sources_jar), store=store).docsets[0]
        assert got == read_any(str(sources_jar))
    assert not marker.exists()
    assert store.rebuilt == 2


@pytest.mark.parametrize("what", ["fifo", "symlink"])
def test_an_entry_that_is_no_regular_file_is_not_read(tmp_path, sources_jar, what):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    good = entry.read_bytes()
    entry.unlink()
    if what == "fifo":
        os.mkfifo(entry)  # a blocking read would hang the test
    else:
        target = tmp_path / "planted"
        target.write_bytes(good)
        entry.symlink_to(target)
    _index._CACHE.clear()
    got = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert got == read_any(str(sources_jar))
    assert store.hits == 0 and store.rebuilt == 1
    assert entry.is_file() and not entry.is_symlink() and entry.read_bytes() == good


def test_a_folder_others_can_write_is_refused(tmp_path):
    sd = tmp_path / "store"
    sd.mkdir()
    os.chmod(sd, 0o777)
    with pytest.raises(StoreRefused, match="writable by group or others"):
        DocSetStore(sd)
    top = tmp_path / "top"
    (top / "below").mkdir(parents=True)
    os.chmod(top, 0o757)
    with pytest.raises(StoreRefused):
        DocSetStore(top / "below", trusted_root=top)


def test_made_private_and_entries_0600(tmp_path, sources_jar):
    sd = tmp_path / "new" / "store"
    store = DocSetStore(sd)
    assert (os.stat(sd).st_mode & 0o777) == 0o700
    DocIndex.open(str(sources_jar), store=store)
    assert (os.stat(_entry(sd)).st_mode & 0o777) == 0o600


def test_other_limits_are_another_entry(tmp_path, sources_jar):
    store = DocSetStore(tmp_path / "store")
    DocIndex.open(str(sources_jar), store=store)
    _index._CACHE.clear()
    DocIndex.open(str(sources_jar), store=store, limits=ZipLimits(max_entries=100_000))
    assert store.hits == 0 and len(list((tmp_path / "store").glob("*.json.z"))) == 2
    assert FORMAT.startswith("qare-docset")


def test_inflating_past_the_bound_is_a_miss(tmp_path, sources_jar, monkeypatch):
    from javadoc import _store

    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    monkeypatch.setattr(_store, "_MAX_JSON", 1000)  # the real bound is 2 GiB: too big to build here
    _index._CACHE.clear()
    got = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert store.rebuilt == 1 and store.hits == 0
    assert got == read_any(str(sources_jar))


def test_the_in_process_cache_is_bounded_in_members(tmp_path, sources_jar, monkeypatch):
    n = len(read_any(str(sources_jar)).members)
    monkeypatch.setattr(_index, "_CACHE_MEMBERS", 2 * n)  # room for two archives of this size
    copies = []
    for i in range(4):
        c = tmp_path / f"copy{i}-sources.jar"
        shutil.copy(sources_jar, c)
        copies.append(str(c))
        DocIndex.open(str(c))
    assert [k[0] for k in _index._CACHE] == [os.path.realpath(c) for c in copies[-2:]]
    monkeypatch.setattr(_index, "_CACHE_MEMBERS", 1)  # the newest archive always stays
    DocIndex.open(copies[0])
    assert [k[0] for k in _index._CACHE] == [os.path.realpath(copies[0])]


# ------------------------------------------------ the archive digest (attack report F3)


def _in_thread(fn, seconds=20.0):
    """``(hung, box)``: ``fn()`` run in a daemon thread, its value or error in ``box``."""
    import threading
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


def _opened(store, path, limits=ZipLimits()):
    hung, box = _in_thread(lambda: store.key(str(path), limits))
    assert not hung, "hashing the archive did not stop"
    return box


def test_a_sparse_archive_over_the_limit_is_refused_before_hashing(tmp_path):
    # 3 GiB of holes: the old digest read all of it (~10 s) before the reader
    # refused it; now the fstat size is checked first and nothing is read.
    big = tmp_path / "big-javadoc.jar"
    with open(big, "wb") as fh:
        fh.truncate(3 << 30)
    store = DocSetStore(tmp_path / "store")
    box = _opened(store, big)
    assert isinstance(box.get("error"), FileRefused)
    assert box["error"].strerror == f"archive of {3 << 30} bytes exceeds the limit of {2 << 30} bytes"
    plain = DocIndex.open(str(big))
    _index._CACHE.clear()
    stored = DocIndex.open(str(big), store=store)
    assert stored.warnings == plain.warnings == [(str(big), box["error"].strerror)]
    assert stored.failed == plain.failed == (str(big),)
    assert list((tmp_path / "store").iterdir()) == []


def test_the_archive_limit_is_the_readers_own(tmp_path, sources_jar):
    size = os.path.getsize(sources_jar)
    tight = ZipLimits(max_archive_bytes=size - 1)
    store = DocSetStore(tmp_path / "store")
    plain = DocIndex.open(str(sources_jar), limits=tight, cache=False)
    stored = DocIndex.open(str(sources_jar), limits=tight, store=store)
    reason = f"archive of {size} bytes exceeds the limit of {size - 1} bytes"
    assert stored.warnings == plain.warnings == [(str(sources_jar), reason)]
    assert not list((tmp_path / "store").glob("*.json.z"))
    _index._CACHE.clear()
    exact = DocIndex.open(str(sources_jar), limits=ZipLimits(max_archive_bytes=size), store=store)
    assert exact.failed == () and store.misses == 1
    assert exact.docsets[0] == read_any(str(sources_jar))


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_link_to_a_device_or_fifo_is_refused_without_reading(tmp_path, target):
    if target == "fifo":
        target = tmp_path / "pipe"
        os.mkfifo(target)
    link = tmp_path / "x-javadoc.jar"
    link.symlink_to(target)
    box = _opened(DocSetStore(tmp_path / "store"), link)
    assert isinstance(box.get("error"), FileRefused)
    assert box["error"].strerror.startswith("not a regular file (")


def test_a_link_to_a_regular_jar_is_followed_as_the_reader_follows_it(tmp_path, sources_jar):
    link = tmp_path / "link-sources.jar"
    link.symlink_to(sources_jar)
    store = DocSetStore(tmp_path / "store")
    assert store.key(str(link), ZipLimits()) == store.key(str(sources_jar), ZipLimits())
    got = DocIndex.open(str(link), store=store).docsets[0]
    assert got == read_any(str(link))


@pytest.mark.parametrize("swap", ["fifo", "link to /dev/zero", "other file"])
def test_a_file_swapped_in_after_the_check_is_refused(tmp_path, sources_jar, monkeypatch, swap):
    """Between the checks and the open another file takes the archive's
    place: a FIFO (would read as empty), a link to /dev/zero (would be read
    without end), another regular file (not the inode checked)."""
    real = os.path.realpath(sources_jar)
    true_open = os.open
    swapped = []

    def racing_open(path, flags, *a, **k):
        if os.fspath(path) in (real, str(sources_jar)) and not swapped:
            swapped.append(path)
            if swap == "other file":  # made before the old one goes, so it cannot reuse its inode number
                other = tmp_path / "other.jar"
                other.write_bytes(b"PK")
                os.rename(other, real)
            elif swap == "fifo":
                os.unlink(real)
                os.mkfifo(real)
            else:
                os.unlink(real)
                os.symlink("/dev/zero", real)
        return true_open(path, flags, *a, **k)

    store = DocSetStore(tmp_path / "store")
    monkeypatch.setattr(os, "open", racing_open)
    box = _opened(store, sources_jar)
    monkeypatch.undo()
    assert swapped
    err = box.get("error")
    assert isinstance(err, OSError), box
    if swap != "link to /dev/zero":  # a link is refused by O_NOFOLLOW itself (ELOOP)
        assert isinstance(err, FileRefused) and "not a regular file" in err.strerror


# ------------------------------------------------ the size bound (LRU by use)


def _jars(tmp_path, n) -> list[Path]:
    """``n`` sources jars of different content (so different entries), about the same size."""
    return [_zip_folder(FIXTURE_SRC, tmp_path / f"lib{i}-sources.jar", {f"p/Extra{i}.java": b"class X {}"})
            for i in range(n)]


def _set_mtime(sd: Path, name: str, seconds: int) -> None:
    os.utime(sd / name, (seconds, seconds))


def test_the_least_recently_used_entry_goes_when_the_bound_is_passed(tmp_path):
    a, b, c = _jars(tmp_path, 3)
    sd = tmp_path / "store"
    big = DocSetStore(sd)
    DocIndex.open(str(a), store=big)
    (name_a, size, _), = big.entries()
    DocIndex.open(str(b), store=big)
    (name_b,) = {n for n, _, _ in big.entries()} - {name_a}
    _set_mtime(sd, name_a, 1_000_000)  # a was written first, b later...
    _set_mtime(sd, name_b, 2_000_000)
    store = _Store(sd, check_private=check_private, max_bytes=int(2.5 * size))  # two entries fit, not three
    _index._CACHE.clear()
    DocIndex.open(str(a), store=store)  # ...but a was used last
    assert store.hits == 1
    assert os.stat(sd / name_a).st_mtime > 2_000_000
    DocIndex.open(str(c), store=store)
    names = {n for n, _, _ in store.entries()}
    assert name_b not in names and name_a in names and len(names) == 2
    assert store.evicted == 1
    assert sum(s for _, s, _ in store.entries()) <= store.max_bytes
    _index._CACHE.clear()
    DocIndex.open(str(a), str(c), store=store)
    assert store.hits == 3


def test_the_entry_just_written_is_kept_even_over_the_bound(tmp_path):
    a, b = _jars(tmp_path, 2)
    sd = tmp_path / "store"
    store = _Store(sd, check_private=check_private, max_bytes=0)
    DocIndex.open(str(a), str(b), store=store)
    (only,) = store.entries()
    assert only[0] == _Store(sd, check_private=check_private).key(str(b), ZipLimits()) + ".json.z"
    assert store.evicted == 1


def test_eviction_removes_only_the_stores_own_regular_files(tmp_path, sources_jar):
    sd = tmp_path / "store"
    store = _Store(sd, check_private=check_private, max_bytes=0)
    outside = tmp_path / "precious.json.z"
    outside.write_bytes(b"keep me")
    (sd / ("0" * 64 + ".json.z")).symlink_to(outside)
    (sd / "notes.txt").write_bytes(b"x" * 1000)
    (sd / "sub.json.z").mkdir()
    (sd / ".tmp-fresh.z").write_bytes(b"x" * 1000)
    stale = sd / ".tmp-stale.z"
    stale.write_bytes(b"x" * 1000)
    _set_mtime(sd, stale.name, 1_000_000)
    DocIndex.open(str(sources_jar), store=store)
    left = sorted(p.name for p in sd.iterdir())
    assert left == sorted([".tmp-fresh.z", "0" * 64 + ".json.z", "notes.txt", "sub.json.z", DIGESTS_FILE,
                           store.key(str(sources_jar), ZipLimits()) + ".json.z"])
    assert outside.read_bytes() == b"keep me"
    assert store.evicted == 0


def test_a_negative_bound_is_refused(tmp_path):
    with pytest.raises(ValueError, match="max_bytes"):
        _Store(tmp_path / "store", check_private=check_private, max_bytes=-1)


def test_a_hit_makes_only_the_records_looked_up_and_they_equal_a_fresh_read(tmp_path, sources_jar):
    from javadoc._store import StoredMembers

    store = DocSetStore(tmp_path / "store")
    DocIndex.open(str(sources_jar), store=store)
    _index._CACHE.clear()
    index = DocIndex.open(str(sources_jar), store=store)
    assert store.hits == 1
    (ds,) = index.docsets
    assert isinstance(ds.members, StoredMembers)
    assert ds.members._made == [None] * len(ds.members)  # nothing made by opening and indexing
    fresh = DocIndex.open(str(sources_jar), cache=False)
    some = fresh.members()[3]
    assert index.get(some.id) == some
    assert sum(m is not None for m in ds.members._made) == 1
    assert index.by_name(some.api) == fresh.by_name(some.api)
    assert index.members() == fresh.members()
    assert [c.fqn for c in index.classes()] == [c.fqn for c in fresh.classes()]
    assert ds == read_any(str(sources_jar)) and ds.members[-1] == fresh.docsets[0].members[-1]
    assert ds.members[1:3] == fresh.docsets[0].members[1:3]


def test_a_changed_row_whose_crc_was_not_made_right_is_a_miss(tmp_path, sources_jar):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    obj, body = _split(entry.read_bytes())
    last = len(obj["member_blocks"]) - 1
    rows = _rows(obj, body, "member", last)
    rows[-1][5] = "a description no reader wrote"
    entry.write_bytes(_with_block(obj, body, "member", last, rows, crc=False))
    _index._CACHE.clear()
    got = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert store.rebuilt == 1 and store.hits == 0
    assert got == read_any(str(sources_jar))


@pytest.mark.parametrize("kind, field, value", [
    ("member", 7, [["name", 7]]),  # a @param text that is no string
    ("member", 0, "p.Other.id()"),  # a row that is not the member the header names
    ("member", 1, "p.Other.api"),
    ("member", 12, "no-such-layout"),
    ("member", 15, [7]),  # an overridden member's id that is no string
    ("member", 15, "p.Base.m()"),  # the overridden members not a list
    ("class", 9, [1]),
    ("class", 0, "p.Other"),
])
def test_a_row_written_by_another_writer_is_refused_when_looked_up(tmp_path, sources_jar, kind, field, value):
    """A block whose CRC is right (no accident of the disk) but whose row is not
    what this store writes: the look-up raises DamagedEntry (never a wrong
    record, never another error) and the entry is removed, so the next open
    reads the archive again."""
    from javadoc._store import DamagedEntry

    sd = tmp_path / "store"
    store = DocSetStore(sd)
    fresh = DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    obj, body = _split(entry.read_bytes())
    rows = _rows(obj, body, kind, 0)
    rows[0][field] = value
    entry.write_bytes(_with_block(obj, body, kind, 0, rows))
    _index._CACHE.clear()
    index = DocIndex.open(str(sources_jar), store=store)
    assert store.hits == 1
    with pytest.raises(DamagedEntry):
        if kind == "member":
            index.get(obj["member_ids"][0])
        else:
            index.get_class(obj["class_fqns"][0])
    assert store.rebuilt == 1 and not entry.exists()
    with pytest.raises(DamagedEntry):  # the same answer when asked again
        index.members() if kind == "member" else index.classes()
    # the rows of another block are still served
    from javadoc._store import _BLOCK_ROWS

    if kind == "member":
        assert len(obj["member_ids"]) > _BLOCK_ROWS
        assert index.get(obj["member_ids"][_BLOCK_ROWS]) == fresh.get(obj["member_ids"][_BLOCK_ROWS])
    _index._CACHE.clear()
    again = DocIndex.open(str(sources_jar), store=store)
    assert store.misses == 2 and again.members() == fresh.members() and again.classes() == fresh.classes()


def test_a_hit_inflates_only_the_blocks_looked_up(tmp_path, site_jar):
    store = DocSetStore(tmp_path / "store")
    DocIndex.open(str(site_jar), store=store)
    _index._CACHE.clear()
    index = DocIndex.open(str(site_jar), store=store)
    (ds,) = index.docsets
    assert ds.members._rows == [None] * len(ds.members._rows) and ds.classes._rows == [None] * len(ds.classes._rows)
    first = ds.members._keys[0]
    assert index.get(first) is not None
    assert sum(r is not None for r in ds.members._rows) == 1
    c = ds.classes.keys()[-1]
    assert index.get_class(c).fqn == c
    assert sum(r is not None for r in ds.classes._rows) == 1


def test_entries_written_in_blocks_give_every_record_back(tmp_path, sources_jar, monkeypatch):
    """Row counts around the block size: none, one block short, exactly one, one over."""
    from javadoc import ApiDoc, ClassDoc, DocSet, SiteLayout
    from javadoc import _store

    store = DocSetStore(tmp_path / "store")
    key = store.key(str(sources_jar), ZipLimits())
    for n in (0, 1, _store._BLOCK_ROWS - 1, _store._BLOCK_ROWS, _store._BLOCK_ROWS + 1, 3 * _store._BLOCK_ROWS):
        members = tuple(ApiDoc(id=f"p.C.m{i}()", api=f"p.C.m{i}", class_="p.C", kind="method", signature_text="void m()",
                               description=f"d{i}", first_sentence=None, params=(("a", "b"),), returns=None,
                               throws=(), deprecated=None, doc_source="sources", layout=SiteLayout.SOURCES,
                               location=f"p/C.java:{i}", anchor="") for i in range(n))
        classes = tuple(ClassDoc(fqn=f"p.C{i}", kind="class", signature_text="class C", description=None,
                                 first_sentence=None, deprecated=None, doc_source="sources",
                                 layout=SiteLayout.SOURCES, location="p/C.java", members=("x",), package="p")
                        for i in range(n))
        ds = DocSet(source=str(sources_jar), layout=SiteLayout.SOURCES, classes=classes, members=members)
        back = _store._decode(_store._encode(ds, key, str(sources_jar)), key, str(sources_jar))
        assert back == ds and tuple(back.members) == members and tuple(back.classes) == classes
        assert list(back.members[-2:]) == list(members[-2:]) and back.members[::-1] == members[::-1]


def _no_hashing(monkeypatch):
    from javadoc import _store

    def refuse(*a, **k):
        raise AssertionError("the archive was hashed although its digest was remembered")

    monkeypatch.setattr(_store, "file_digest", refuse)


def test_an_unchanged_jar_is_hashed_once_per_machine(tmp_path, sources_jar, monkeypatch):
    sd = tmp_path / "store"
    key = DocSetStore(sd).key(str(sources_jar), ZipLimits())
    assert (sd / DIGESTS_FILE).is_file() and oct((sd / DIGESTS_FILE).stat().st_mode & 0o777) == "0o600"
    _no_hashing(monkeypatch)
    assert DocSetStore(sd).key(str(sources_jar), ZipLimits()) == key  # another process: remembered
    link = tmp_path / "link.jar"
    link.symlink_to(sources_jar)
    assert DocSetStore(sd).key(str(link), ZipLimits()) == key  # by its real path


@pytest.mark.parametrize("change", ["rewritten-same-size-and-mtime", "replaced", "touched"])
def test_a_changed_jar_is_hashed_again(tmp_path, sources_jar, change, monkeypatch):
    sd = tmp_path / "store"
    before = DocSetStore(sd).key(str(sources_jar), ZipLimits())
    st = sources_jar.stat()
    data = sources_jar.read_bytes()
    if change == "rewritten-same-size-and-mtime":  # another byte, the stamp put back: only ctime tells
        i = data.index(b"Widget")
        sources_jar.write_bytes(data[:i] + b"Gidget" + data[i + 6:])
        os.utime(sources_jar, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert sources_jar.stat().st_size == st.st_size
    elif change == "replaced":  # the same bytes in a new file (another inode): the same digest
        tmp = tmp_path / "new.jar"
        tmp.write_bytes(data)
        os.replace(tmp, sources_jar)
    else:
        os.utime(sources_jar)
    from javadoc import _store

    hashed = []
    real = _store.file_digest
    monkeypatch.setattr(_store, "file_digest", lambda *a, **k: hashed.append(a) or real(*a, **k))
    after = DocSetStore(sd).key(str(sources_jar), ZipLimits())
    assert len(hashed) == 1
    assert (after != before) == (change == "rewritten-same-size-and-mtime")


@pytest.mark.parametrize("planted", ["garbage", "wrong-row", "other-format", "fifo", "link-out", "huge"])
def test_a_bad_digests_file_is_ignored_and_rewritten(tmp_path, sources_jar, planted):
    sd = tmp_path / "store"
    key = DocSetStore(sd).key(str(sources_jar), ZipLimits())
    memo = sd / DIGESTS_FILE
    good = json.loads(memo.read_bytes())
    memo.unlink()
    real = os.path.realpath(sources_jar)
    if planted == "garbage":
        memo.write_bytes(b"\x00{not json")
    elif planted == "wrong-row":  # a row that would name another digest, of the wrong shape
        memo.write_text(json.dumps(dict(good, files={real: good["files"][real][:5] + [12345]})))
    elif planted == "other-format":
        memo.write_text(json.dumps(dict(good, format="someone else 1")))
    elif planted == "fifo":
        os.mkfifo(memo)
    elif planted == "link-out":
        outside = tmp_path / "outside.json"
        outside.write_text(json.dumps(good))
        memo.symlink_to(outside)
    else:
        with open(memo, "wb") as fh:
            fh.truncate((8 << 20) + 1)
    store = DocSetStore(sd)
    assert store.key(str(sources_jar), ZipLimits()) == key  # hashed again, never blocked
    if planted != "fifo":  # a FIFO is left as it is (the write goes through a rename that replaces it)
        assert json.loads(memo.read_bytes()) == good


def test_a_jar_that_changes_while_hashed_is_not_remembered(tmp_path, sources_jar, monkeypatch):
    from javadoc import _store

    real = _store.file_digest

    def changing(path, max_bytes):
        d = real(path, max_bytes)
        os.utime(sources_jar)  # the stamp moves while (just after) the bytes were read
        return d

    monkeypatch.setattr(_store, "file_digest", changing)
    sd = tmp_path / "store"
    DocSetStore(sd).key(str(sources_jar), ZipLimits())
    assert not (sd / DIGESTS_FILE).exists()
