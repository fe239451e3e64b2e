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
from javadoc._store import FORMAT
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


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign-format", "other-key", "wrong-type",
                                    "deep-nesting", "empty"])
def test_a_corrupt_or_foreign_entry_is_rebuilt(tmp_path, sources_jar, damage):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    good = entry.read_bytes()
    obj = json.loads(zlib.decompress(good))
    if damage == "garbage":
        entry.write_bytes(b"\x00not zlib at all" * 10)
    elif damage == "truncated":
        entry.write_bytes(good[: len(good) // 2])
    elif damage == "foreign-format":
        entry.write_bytes(zlib.compress(json.dumps(dict(obj, format="someone else 9")).encode()))
    elif damage == "other-key":
        entry.write_bytes(zlib.compress(json.dumps(dict(obj, key="0" * 64)).encode()))
    elif damage == "wrong-type":
        obj["members"][0][0] = 42
        entry.write_bytes(zlib.compress(json.dumps(obj).encode()))
    elif damage == "deep-nesting":  # json's recursion limit, not a crash
        entry.write_bytes(zlib.compress(b"[" * 100_000))
    elif damage == "empty":
        entry.write_bytes(b"")
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
    assert left == sorted([".tmp-fresh.z", "0" * 64 + ".json.z", "notes.txt", "sub.json.z",
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


def test_a_bad_field_in_the_last_row_is_still_a_miss(tmp_path, sources_jar):
    sd = tmp_path / "store"
    store = DocSetStore(sd)
    DocIndex.open(str(sources_jar), store=store)
    entry = _entry(sd)
    obj = json.loads(zlib.decompress(entry.read_bytes()))
    obj["members"][-1][7] = [["name", 7]]  # a @param text that is no string, in a row no build looks up
    entry.write_bytes(zlib.compress(json.dumps(obj).encode()))
    _index._CACHE.clear()
    got = DocIndex.open(str(sources_jar), store=store).docsets[0]
    assert store.rebuilt == 1 and store.hits == 0
    assert got == read_any(str(sources_jar))
