"""The output cache's bytes move by the kernel (qare._outcache): an entry's
body is checked by its CRC-32 through a read-only mapping, pieces of it are
copied by ``copy_file_range`` (or read and written where there is none),
and the result is byte for byte the concatenation it stands for."""

from __future__ import annotations

import json
import os
import stat
import zlib

import pytest

from qare import _outcache


@pytest.fixture(params=["copy_file_range", "read and write"])
def oc(request, tmp_path, monkeypatch):
    if request.param != "copy_file_range":
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    return _outcache.OutputCache(tmp_path / "o")


def _publish(oc, tmp_path, key: str, data: bytes, frame="f" * 64):
    body = oc.temp_path(key, ".json")
    body.write_bytes(data)
    oc.publish(key, body, tmp_path / f"{key}.json", (1, 2, 0), frame)


def test_pieces_of_the_previous_body_and_new_bytes_make_the_new_entry_and_out(oc, tmp_path):
    old = bytes(range(256)) * 5000 + b"tail"  # over a MiB: several CRC chunks
    _publish(oc, tmp_path, "k1", old)
    body = oc.read_body("k1", None)
    assert body is not None and body.counts == (1, 2, 0) and body.frame == "f" * 64
    assert body.data[:4] == old[:4] and body.data.find(b"tail") == len(old) - 4
    pieces = [(0, 10), b"NEW", (300, 1_000_000), b"", (len(old) - 4, len(old))]
    out = tmp_path / "out.json"
    try:
        oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body)
    finally:
        body.close()
    want = old[:10] + b"NEW" + old[300:1_000_000] + old[-4:]
    assert out.read_bytes() == want
    meta = json.loads((tmp_path / "o" / "k2.meta").read_text())
    assert meta["crc32"] == zlib.crc32(want) and meta["size"] == len(want) and meta["frame"] == "e" * 64
    entry = tmp_path / "o" / "k2.body"
    assert entry.read_bytes() == want and stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert oc.copy_to("k2", tmp_path / "again.json") == (3, 4, 0)
    assert (tmp_path / "again.json").read_bytes() == want


def test_a_body_whose_crc_does_not_match_is_dropped_not_read(oc, tmp_path):
    _publish(oc, tmp_path, "k1", b"x" * 5000)
    entry = tmp_path / "o" / "k1.body"
    data = bytearray(entry.read_bytes())
    data[4321] = ord("y")  # same size: only the CRC can tell
    entry.write_bytes(bytes(data))
    assert oc.read_body("k1", None) is None
    assert not entry.exists()  # dropped
    _publish(oc, tmp_path, "k3", b"z" * 10)
    (tmp_path / "o" / "k3.body").write_bytes(b"z" * 9)  # shorter
    assert oc.copy_to("k3", tmp_path / "c.json") is None and not (tmp_path / "c.json").exists()


def test_an_empty_body_round_trips(oc, tmp_path):
    _publish(oc, tmp_path, "k1", b"")
    body = oc.read_body("k1", None)
    assert body is not None and len(body) == 0
    out = tmp_path / "out.json"
    oc.publish_pieces("k2", [b"abc"], out, (1, 0, 0), "e" * 64, source=body)
    body.close()
    assert out.read_bytes() == b"abc" and oc.copy_to("k2", tmp_path / "x.json") == (1, 0, 0)


def test_an_entry_larger_than_the_cache_keeps_is_never_read(oc, tmp_path, monkeypatch):
    # the tester (session 8): a sparse multi-GB body planted with a meta saying so was CRC'd and copied
    # to --out on every run; an entry over MAX_BYTES is a miss (read neither for its CRC nor for a copy)
    _publish(oc, tmp_path, "k1", b"x" * 5000)
    assert oc.copy_to("k1", tmp_path / "a.json") == (1, 2, 0)
    monkeypatch.setattr(_outcache, "MAX_BYTES", 4999)
    assert oc.copy_to("k1", tmp_path / "b.json") is None and not (tmp_path / "b.json").exists()
    assert oc.read_body("k1", None) is None


def _old_and_pieces(oc, tmp_path):
    old = bytes(range(256)) * 5000 + b"tail"
    _publish(oc, tmp_path, "k1", old)
    body = oc.read_body("k1", None)
    pieces = [(0, 10), b"NEW", (300, 1_000_000), (len(old) - 4, len(old))]
    return body, pieces, old[:10] + b"NEW" + old[300:1_000_000] + old[-4:]


def _leftovers(tmp_path) -> list:
    """Temporary files of a writer: ``.<name>.<pid>.tmp`` beside out, ``.<key>.<pid>.*`` in the cache."""
    return sorted(p.name for p in (*tmp_path.iterdir(), *(tmp_path / "o").iterdir()) if p.name.startswith("."))


def test_pieces_written_by_a_thread_are_there_once_settled(oc, tmp_path):
    # wait=False (qare graph stores the graph meanwhile): the body is handed over and closed by the thread;
    # the entry's CRC-32 is the one of the bytes in it, worked out from the pieces, not read back
    body, pieces, want = _old_and_pieces(oc, tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(b"before")
    oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body, wait=False)
    oc.settle()
    assert body.fd == -1 and body.data == b""  # closed by the thread
    assert out.read_bytes() == want
    entry = (tmp_path / "o" / "k2.body").read_bytes()
    meta = json.loads((tmp_path / "o" / "k2.meta").read_text())
    assert entry == want and meta["crc32"] == zlib.crc32(entry) and meta["size"] == len(entry)
    assert _leftovers(tmp_path) == []
    assert oc.read_body("k2", "e" * 64) is not None  # and it checks


@pytest.mark.parametrize("wait", [True, False])
@pytest.mark.parametrize("fails", ["out", "entry", "rename"])
def test_a_copy_that_fails_leaves_out_as_it_was_and_no_temporary_file(oc, tmp_path, monkeypatch, wait, fails):
    # out's temporary file is written first, then the entry's body: a failure of out's is the error (raised
    # by publish_pieces, or by settle when in a thread), out as it was; one of the body's only loses the entry
    body, pieces, want = _old_and_pieces(oc, tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(b"before")
    real, calls = _outcache._write_pieces, []

    def write_pieces(fd, *a):
        calls.append(fd)
        if (fails == "out" and len(calls) == 1) or (fails == "entry" and len(calls) == 2):
            os.write(fd, b"partial")
            raise OSError(28, "No space left on device")
        return real(fd, *a)

    monkeypatch.setattr(_outcache, "_write_pieces", write_pieces)
    if fails == "rename":
        def no_rename(tmp, out, held=None):
            tmp.unlink()
            raise IsADirectoryError(21, "Is a directory")

        monkeypatch.setattr(_outcache, "_replace", no_rename)
    try:
        if fails == "entry":
            oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body, wait=wait)
            oc.settle()
            assert out.read_bytes() == want
        else:
            with pytest.raises(OSError):
                oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body, wait=wait)
                oc.settle()
            assert out.read_bytes() == b"before"
    finally:
        body.close()
    assert len(calls) == 2 or fails == "out"
    assert not (tmp_path / "o" / "k2.meta").exists() and not (tmp_path / "o" / "k2.body").exists()
    assert _leftovers(tmp_path) == []
    assert oc.read_body("k1", None) is not None  # the previous entry untouched


def test_a_previous_body_shorter_than_its_pieces_is_an_error_not_a_short_out(oc, tmp_path):
    body, _pieces, _want = _old_and_pieces(oc, tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(b"before")
    try:
        with pytest.raises(OSError, match="cannot read the previous output back"):
            oc.publish_pieces("k2", [b"x", (0, len(body) + 10)], out, (1, 0, 0), "e" * 64, source=body)
    finally:
        body.close()
    assert out.read_bytes() == b"before" and _leftovers(tmp_path) == []
    assert not (tmp_path / "o" / "k2.meta").exists()


def test_a_file_left_at_our_temporary_names_is_replaced_not_an_error(oc, tmp_path):
    # a writer killed under this very process id (PID 1 in a container) left its temporary files: the
    # names carry the id, so no running writer owns them; every later run failed on O_EXCL (the tester,
    # session 9)
    body, pieces, want = _old_and_pieces(oc, tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(b"before")
    left = [tmp_path / f".out.json.{os.getpid()}.tmp", oc.temp_path("k2", ".json")]
    for p in left:
        p.write_bytes(b"a killed writer's half")
    try:
        oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body)
    finally:
        body.close()
    assert out.read_bytes() == want and (tmp_path / "o" / "k2.body").read_bytes() == want
    assert _leftovers(tmp_path) == []


def test_a_settle_cut_short_is_waited_for_by_close(oc, tmp_path, monkeypatch):
    # Ctrl-C while settle() joins the writing thread: the thread stays pending, and close() (the command's
    # finally) waits for it, so it removes or renames its temporary file (the tester, session 9: a partial
    # .tmp was left beside --out)
    import threading

    body, pieces, want = _old_and_pieces(oc, tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(b"before")
    go = threading.Event()
    real = _outcache._write_pieces

    def slow(fd, *a):
        go.wait(10)
        return real(fd, *a)

    monkeypatch.setattr(_outcache, "_write_pieces", slow)
    oc.publish_pieces("k2", pieces, out, (3, 4, 0), "e" * 64, source=body, wait=False)
    (pending,) = oc._pending
    t = pending._thread  # the writing thread: its join interrupted once
    real_join = t.join

    def interrupted_join(*a, **k):
        raise KeyboardInterrupt

    t.join = interrupted_join
    with pytest.raises(KeyboardInterrupt):
        oc.settle()
    t.join = real_join
    assert oc._pending, "the thread was forgotten"
    go.set()
    oc.close()
    assert out.read_bytes() == want  # finished: complete and new (or, had it failed, as it was)
    assert _leftovers(tmp_path) == []


def test_a_leftover_of_a_writer_with_this_process_id_is_deleted(oc, tmp_path):
    # an entry body a writer killed as PID 1 left (".<key>.1.new.json"): every later run is PID 1 too, and
    # pid_alive(1) is always true — it was never deleted, nor counted in the size bound (the tester, session 9)
    own = oc.folder / f".{'a' * 64}.{os.getpid()}.new.json"
    live = oc.folder / f".{'b' * 64}.{os.getppid()}.new.json"
    for p in (own, live):
        p.write_bytes(b"half")
    _publish(oc, tmp_path, "k1", b"[1]")
    assert not own.exists() and live.exists()
