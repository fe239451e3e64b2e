"""The output cache: the bytes ``qare graph --out`` wrote for a stored graph,
kept beside the graph store so that a run whose inputs are all unchanged
copies them instead of building, loading and writing the graph again
(docs/callgraph.md "Warm cache", "Nothing changed").

An entry is two files in one private folder (``<graph store>.out/``): the
body (the ``--out`` file byte for byte) and a small JSON meta file naming the
format, the key, the body's size and CRC-32 and the counts ``qare graph``
prints (nodes, edges, unresolved nodes left out). The bytes move by
``copy_file_range`` (the kernel copies them, none pass through this process)
and are checked through a read-only ``mmap``: a 245 MB body is checked in
~0.2 s and copied in ~0.25 s, where reading, hashing (SHA-256) and writing it
from Python took ~1.5 s. The key is a SHA-256 of
the stored graph's inputs (callgraph._graphstore.Inputs, all but the time
of the fingerprint: the same rule as ``GraphStore.holds``), the output
suffix, ``--dispatch``, ``--include-unresolved``, the code of this package
and the versions of the writers' libraries: another graph, another format or
another writer is another key.

Safety (docs/security.md "Caches"): the folder must be a real folder, owned
by this user and private (``safefs.check_private``); entries are opened with
``O_NOFOLLOW | O_NONBLOCK`` and must be regular files; the meta file is read
with a size bound and checked field by field; the body's CRC-32 is checked
before it is copied and the copy becomes ``--out`` only when size and CRC-32
match — otherwise the entry is deleted and the graph is written from the
build, as without the cache. (A checksum against damage, as the graph
store's rows carry: the meta file beside the body is no stronger than it,
so a cryptographic hash bought nothing but time.) At most :data:`MAX_ENTRIES` entries and
:data:`MAX_BYTES` of bodies are kept, least recently used deleted first.
"""

from __future__ import annotations

import errno
import hashlib
import json
import mmap
import os
import stat
import zlib
from dataclasses import replace
from pathlib import Path

FORMAT = "qare-graph-out 3"  # 2: the frame of a patchable body (qare._outpatch); 3: CRC-32, not SHA-256
MAX_ENTRIES = 4
MAX_BYTES = 1 << 30
_META_MAX = 4096
_CHUNK = 1 << 20
_HEX = frozenset("0123456789abcdef")


def out_key(inputs, suffix: str, dispatch: str, include_unresolved: bool) -> str:
    """The entry key of ``--out`` (``suffix`` lower-case, with its dot) for
    the graph built from ``inputs`` (a ``callgraph._graphstore.Inputs``)."""
    from records.codeversion import code_version

    ident = replace(inputs, taken_ns=0).to_blob()
    h = hashlib.sha256(f"{FORMAT}\0{suffix}\0{dispatch}\0{int(bool(include_unresolved))}\0".encode())
    h.update(code_version(Path(__file__).resolve().parent, distributions=("networkx", "pydot")).encode() + b"\0")
    h.update(ident)
    return h.hexdigest()[:40]


def _open_regular(path: Path) -> int:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise OSError(f"{path}: not a regular file of this user")
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Unreadable(Exception):
    """The entry could not be read while copied (not an error of ``--out``)."""


def _crc(view, chunk: int = _CHUNK) -> int:
    """CRC-32 of a buffer (an ``mmap`` or a view of one), ``chunk`` bytes at a time."""
    crc = 0
    mv = memoryview(view)
    try:
        for at in range(0, len(mv), chunk):
            crc = zlib.crc32(mv[at:at + chunk], crc)
    finally:
        mv.release()
    return crc


class Body:
    """An entry's body mapped read-only (``mmap``): ``data`` (the mapping:
    ``find``/``rfind``/slices as on ``bytes``), ``counts``, ``frame``, the
    open ``fd``; :meth:`close` unmaps it. Pieces of it are copied by the
    kernel (:meth:`OutputCache.publish_pieces`)."""

    def __init__(self, fd: int, size: int, counts, frame):
        self.fd = fd
        self.data = mmap.mmap(fd, size, prot=mmap.PROT_READ) if size else b""
        self.counts, self.frame = counts, frame

    def __len__(self) -> int:
        return len(self.data)

    def close(self) -> None:
        if isinstance(self.data, mmap.mmap):
            self.data.close()
        self.data = b""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _checked(fd: int, size: int, crc: int, chunk: int = _CHUNK) -> bool:
    """Does the open file hold ``size`` bytes whose CRC-32 is ``crc``?"""
    try:
        if os.fstat(fd).st_size != size:
            return False
        if not size:
            return crc == 0
        with mmap.mmap(fd, size, prot=mmap.PROT_READ) as m:
            return _crc(m, chunk) == crc
    except (OSError, ValueError):
        return False


def _copy_range(src_fd: int, dst_fd: int, offset: int, count: int) -> None:
    """``count`` bytes of ``src_fd`` from ``offset`` appended to ``dst_fd``
    (``copy_file_range``: copied by the kernel; a read/write loop where
    there is none). Raises :class:`_Unreadable` when the source cannot be
    read, OSError when the destination cannot be written."""
    end = offset + count
    copy = getattr(os, "copy_file_range", None)
    while offset < end:
        if copy is not None:
            try:
                n = copy(src_fd, dst_fd, min(end - offset, 1 << 30), offset)
            except OSError as e:
                if e.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                    raise
                copy = None
                continue
        else:
            try:
                chunk = os.pread(src_fd, min(end - offset, _CHUNK), offset)
            except OSError as e:
                raise _Unreadable(str(e)) from None
            n = len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(dst_fd, view):]
        if not n:
            raise _Unreadable("the entry ended early")
        offset += n


def _write_pieces(fd: int, pieces, source) -> int:
    """Append the concatenation of ``pieces`` (``bytes``, or ``(start, end)``
    stretches of ``source``'s file, copied by :func:`_copy_range`) to
    ``fd``; the bytes written. Raises as :func:`_copy_range` does."""
    n = 0
    for p in pieces:
        if type(p) is tuple:
            _copy_range(source.fd, fd, p[0], p[1] - p[0])
            n += p[1] - p[0]
        else:
            view = memoryview(p)
            n += len(view)
            while view:
                view = view[os.write(fd, view):]
    return n


def _pieces_crc(pieces, source) -> tuple[int, int]:
    """``(CRC-32, size)`` of the concatenation of ``pieces`` (as in
    :func:`_write_pieces`), the stretches read through ``source``'s mapping
    (``zlib`` lets go of the interpreter lock for each). A stretch past the
    end counts as far as the mapping goes: the copy of it fails, and the
    sizes then differ."""
    crc = n = 0
    with memoryview(source.data if source is not None else b"") as mv:
        for p in pieces:
            if type(p) is tuple:
                with mv[p[0]:p[1]] as part:  # released at once: a live slice keeps the mapping from closing
                    crc = zlib.crc32(part, crc)
                    n += len(part)
            else:
                crc = zlib.crc32(p, crc)
                n += len(p)
    return crc, n


class _Background:
    """``fn()`` in a daemon thread — here and now when no thread can be
    started — its answer or exception kept for the caller: the byte moving
    and checksumming of this module hold no interpreter lock, so they take
    the second core while the caller goes on."""

    __slots__ = ("_thread", "value", "error")

    def __init__(self, fn, name: str):
        import threading

        self.value = self.error = None

        def run():
            try:
                self.value = fn()
            except BaseException as e:  # handed to the caller's thread (result)
                self.error = e

        self._thread = threading.Thread(target=run, name=name, daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had
            self._thread = None
            run()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def result(self):
        """Wait; the answer, or the exception ``fn`` raised (raised here)."""
        self.join()
        if self.error is not None:
            raise self.error
        return self.value


def _write_both(pieces, source, out_fd: int, body_fd: int) -> tuple[int, int, bool]:
    """Write the concatenation of ``pieces`` (:func:`_write_pieces`) to
    ``out_fd`` and then to ``body_fd`` (-1: none), both closed here, while a
    thread takes its CRC-32 (:func:`_pieces_crc`); ``(CRC-32, size, body
    written whole)``. Raises as :func:`_copy_range` does when ``out_fd``
    cannot be written (a body that cannot be is only not written whole)."""
    crc = _Background(lambda: _pieces_crc(pieces, source), "qare-out-crc")
    try:
        try:
            n_out = _write_pieces(out_fd, pieces, source)
            n_body = -1
            if body_fd >= 0:
                try:
                    n_body = _write_pieces(body_fd, pieces, source)
                except (OSError, _Unreadable):
                    pass
        finally:
            crc.join()
    finally:
        os.close(out_fd)
        if body_fd >= 0:
            os.close(body_fd)
    c, n = crc.result()
    if n_out != n:
        raise _Unreadable(f"{n_out} bytes written of {n}")
    return c, n, n_body == n


def _open_new(path: Path, mode: int) -> int:
    """A new file at ``path``, opened for writing (and reading: mapped for
    its CRC). ``path`` carries this process's id (``.<name>.<pid>.tmp``,
    ``.<key>.<pid>.new<suffix>``), so no running writer owns what is there
    already — a file left by a writer killed under the same id (PID 1 in a
    container: every later run failed on it, the tester of session 9), or
    a link, FIFO or file planted at the guessable name: removed first, never
    written through. A folder there is an error (OSError)."""
    from records.io import drop_leftover

    drop_leftover(path)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)


def _remove(path: Path) -> None:
    """Remove a temporary file of ours, if it is there; an error removing it
    (a folder turned read-only) is not the error being reported."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _open_old(path: Path) -> int:
    """An open descriptor of the regular file ``path`` that nothing else
    links, or -1: held while its name is replaced or removed, so that its
    blocks are freed when it is closed (``OutputCache._let_go``), not by
    the rename or unlink (~0.05 s for a 245 MB file on ext4)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return -1
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return -1
    try:
        now = os.fstat(fd)
    except OSError:
        now = None
    if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        return -1
    return fd


def _replace(tmp: Path, out: Path, held: list | None = None) -> None:
    """Rename the complete ``tmp`` over ``out``; when that fails (``out`` a
    folder, its folder gone) ``tmp`` is removed, not left beside it. With
    ``held`` (a list), the file ``out`` named before is opened first and its
    descriptor appended (:func:`_open_old`)."""
    old = _open_old(out) if held is not None else -1
    try:
        os.replace(tmp, out)
    except BaseException:
        if old >= 0:
            os.close(old)
        _remove(tmp)
        raise
    if old >= 0:
        held.append(old)


def _close_all(fds: list) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _copy_to_out(src_fd: int, size: int, out: Path) -> Path:
    """Copy ``size`` bytes of ``src_fd`` to ``.<out name>.<pid>.tmp`` beside
    ``out`` (the name ``records.io.atomic_writer`` uses, so a dead writer's
    file is found and removed the same way); the temporary path. Raises
    OSError (the temporary file removed) when it cannot be written,
    :class:`_Unreadable` when ``src_fd`` cannot be read."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    fd = _open_new(tmp, 0o644)
    try:
        try:
            _copy_range(src_fd, fd, 0, size)
        finally:
            os.close(fd)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


class OutputCache:
    """The entries of one folder (module docstring). ``OSError`` from the
    constructor: the folder cannot be made or is not private (then there is
    no output cache this run)."""

    def __init__(self, folder):
        from callgraph.safefs import check_private

        self.folder = Path(folder)
        try:
            os.mkdir(self.folder, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(self.folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise OSError(f"{self.folder}: not a private folder of this user")
        check_private(self.folder.parent, self.folder)
        self._prefetched: dict = {}  # key -> (thread, its answer): bodies being checked (prefetch)
        self._pending: list = []  # (thread, its answer): work left to threads until settle()

    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.folder / f"{key}.meta", self.folder / f"{key}.body"

    def _meta(self, key: str):
        """The entry's checked meta dict, or None."""
        meta_path, _ = self._paths(key)
        try:
            fd = _open_regular(meta_path)
        except OSError:
            return None
        try:
            data = os.read(fd, _META_MAX + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(data) > _META_MAX:
            return None
        try:
            m = json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):  # json recurses per nesting level
            return None
        if not isinstance(m, dict) or m.get("format") != FORMAT or m.get("key") != key:
            return None
        size, crc, counts = m.get("size"), m.get("crc32"), m.get("counts")
        # a body larger than the whole cache keeps is no entry this cache wrote whole: neither hashed nor
        # copied (a planted sparse multi-GB body was read and copied on every run: the tester, session 8)
        if type(size) is not int or not 0 <= size <= MAX_BYTES or type(crc) is not int or not 0 <= crc < 1 << 32:
            return None
        if not isinstance(counts, list) or len(counts) != 3 or any(type(c) is not int or c < 0 for c in counts):
            return None
        fr = m.get("frame")
        if fr is not None and not (isinstance(fr, str) and len(fr) == 64 and set(fr) <= _HEX):
            return None
        return m

    def prefetch(self, key: str) -> None:
        """Start checking the entry ``key``'s body (its size and CRC-32) in
        a thread: :meth:`read_body` then takes the answer. CRC-32 runs on
        the mapped body without the interpreter lock, so the check takes the
        second core while the build holds the first (the index snapshot's
        unpickling, ~1.3 s on spring-framework, against ~0.15 s of checking)."""
        m = self._meta(key)
        if m is None:
            return
        _, body_path = self._paths(key)
        try:
            fd = _open_regular(body_path)
        except OSError:
            return
        self._prefetched[key] = (fd, m, _Background(lambda: _checked(fd, m["size"], m["crc32"], chunk=8 << 20),
                                                    "qare-out-check"))

    def close(self) -> None:
        """Let go of the bodies :meth:`prefetch` opened that no one read; wait
        for the work left to threads (:meth:`settle`, its error not raised:
        every writer settles before it answers, so one left here was cut
        short by an exception already on its way)."""
        for fd, _m, check in self._prefetched.values():
            check.join()
            os.close(fd)
        self._prefetched.clear()
        try:
            self.settle()
        except OSError:
            pass

    def _later(self, work, name: str) -> None:
        """Run ``work()`` in a thread until :meth:`settle`; here and now when no thread can be started."""
        self._pending.append(_Background(work, name))

    def _let_go(self, held: list) -> None:
        """Close the descriptors ``held`` (:func:`_open_old`) in a thread:
        freeing the blocks of a replaced ``--out`` and of evicted bodies
        (~0.05 s for one of spring-framework's) takes the second core while
        this one goes on."""
        if held:
            self._later(lambda: _close_all(held), "qare-out-free")

    def settle(self) -> None:
        """Wait for the work left to threads (:meth:`publish_pieces`'s
        renaming into place, files being freed). Raises the OSError of a
        renaming that failed (``out`` as it was, no temporary file left)."""
        error = None
        while self._pending:
            work = self._pending[0]
            # taken off only once joined: a join cut short (Ctrl-C) leaves it for close(), which waits for the
            # thread to finish or remove its temporary file (the tester, session 9: a partial .tmp was left)
            work.join()
            self._pending.pop(0)
            error = error or work.error
        if error is not None:
            raise error

    def read_body(self, key: str, frame: str | None):
        """The entry ``key``'s :class:`Body` (mapped; the caller closes it)
        when its meta names this ``frame`` (qare._outpatch; None: whatever
        frame it names, as long as it names one) and the body has the meta's
        size and CRC-32; None otherwise (a body that does not match is
        deleted)."""
        pre = self._prefetched.pop(key, None)
        if pre is not None:
            fd, m, check = pre
            check.join()
            ok = check.value is True  # (_checked answers False for what it cannot read)
            if m.get("frame") is None or (frame is not None and m.get("frame") != frame):
                os.close(fd)
                return None
        else:
            m = self._meta(key)
            if m is None or m.get("frame") is None or (frame is not None and m.get("frame") != frame):
                return None
            _, body_path = self._paths(key)
            try:
                fd = _open_regular(body_path)
            except OSError:
                return None
            ok = _checked(fd, m["size"], m["crc32"])
        if not ok:
            os.close(fd)
            self._drop(key)
            return None
        try:
            return Body(fd, m["size"], tuple(m["counts"]), m["frame"])
        except (OSError, ValueError):
            os.close(fd)
            return None

    def copy_to(self, key: str, out: Path):
        """Write the entry's body to ``out`` (atomically: complete or as it
        was); the counts ``(nodes, edges, unresolved left out)``, or None
        when there is no good entry (a bad one is deleted). Raises OSError
        when ``out`` itself cannot be written."""
        m = self._meta(key)
        if m is None:
            return None
        meta_path, body_path = self._paths(key)
        try:
            src = _open_regular(body_path)
        except OSError:
            return None
        try:
            if not _checked(src, m["size"], m["crc32"]):
                self._drop(key)
                return None
            tmp = _copy_to_out(src, m["size"], out)
        except _Unreadable:
            self._drop(key)
            return None
        finally:
            os.close(src)
        _replace(tmp, out)
        try:
            os.utime(meta_path)  # used now: the size bound deletes the least recently used first
        except OSError:
            pass
        return tuple(m["counts"])

    def temp_path(self, key: str, suffix: str) -> Path:
        """Where a writer puts a new body (the output's own suffix: the writer picks the format by it)."""
        return self.folder / f".{key}.{os.getpid()}.new{suffix}"

    def publish_pieces(self, key: str, pieces, out: Path, counts, frame: str | None = None,
                       source: Body | None = None, wait: bool = True) -> None:
        """The concatenation of ``pieces`` — ``bytes``, or ``(start, end)``
        stretches of ``source`` (the previous entry's body: copied by the
        kernel) — becomes ``out`` (atomically) and the entry ``key``. Raises
        OSError when ``out`` cannot be written (``out`` as it was, no
        temporary file left); an entry that cannot be kept costs the next
        run its speed only.

        With ``wait`` False only the temporary files are made here: a thread
        writes them, renames them into place and closes ``source`` (handed
        over: the caller no longer reads it), and the caller calls
        :meth:`settle` — which raises that OSError — before it says ``out``
        is written. ``qare graph`` stores the graph meanwhile: the copies,
        the CRC and the renames hold no interpreter lock, so they take the
        second core while the store (Python) takes the first.

        ``out``'s temporary file and then the entry's body are written from
        the pieces while another thread takes the CRC-32 of the pieces from
        ``source``'s mapping: the CRC of the bytes written, with no file
        read back (the stretches were read, and checked, when the entry was).
        Each copy of spring-framework's 245 MB takes ~0.1 s."""
        body = self.temp_path(key, out.suffix.lower())
        try:
            body_fd = _open_new(body, 0o600)
        except OSError:
            body_fd = -1  # no entry this time: out is written all the same
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        try:
            out_fd = _open_new(tmp, 0o644)
        except BaseException:
            if body_fd >= 0:
                os.close(body_fd)
                _remove(body)
            raise

        def work():
            held: list = []  # what the renames replace and the eviction removes, freed when closed
            try:
                try:
                    crc, n, kept = _write_both(pieces, source, out_fd, body_fd)
                    _replace(tmp, out, held)
                except BaseException as e:
                    _remove(tmp)
                    _remove(body)
                    if isinstance(e, _Unreadable):
                        raise OSError(f"cannot read the previous output back: {e}") from None
                    raise
                if kept:
                    self._keep(key, body, n, crc, counts, frame, held)
                else:
                    _remove(body)
            finally:
                # ext4 frees a 245 MB file's blocks in ~0.05 s when its last descriptor closes
                _close_all(held)
                if not wait and source is not None:
                    source.close()

        if wait:
            work()
        else:
            self._later(work, "qare-out-pieces")

    def _publish(self, key: str, body: Path, n: int, crc: int | None, out: Path, counts, frame) -> None:
        """``body`` (``n`` bytes, in this folder) copied to ``out`` and kept
        as the entry ``key``, its CRC-32 ``crc`` — or, when None, taken from
        the body (mapped) in a thread while the kernel copies it to ``out``:
        neither holds the interpreter lock, so the two take both cores."""
        try:
            src = _open_regular(body)
        except OSError:
            _remove(body)
            raise

        def body_crc():
            with mmap.mmap(src, n, prot=mmap.PROT_READ) if n else _Empty() as m:
                return _crc(m, 8 << 20)

        check = _Background(body_crc, "qare-out-crc") if crc is None else None
        try:
            tmp = _copy_to_out(src, n, out)
        except BaseException as e:
            _remove(body)
            if isinstance(e, _Unreadable):  # our own new file could not be read back: --out cannot be written
                raise OSError(f"cannot read back the written graph: {e}") from None
            raise
        finally:
            if check is not None:
                check.join()
            os.close(src)
        if check is not None:
            if check.error is not None:
                _remove(body)
                _remove(tmp)
                if not isinstance(check.error, (OSError, ValueError)):
                    raise check.error
                raise OSError(f"cannot read back the written graph: {check.error}")
            crc = check.value
        held: list = []
        try:
            _replace(tmp, out, held)
        except OSError:
            _remove(body)
            raise
        self._keep(key, body, n, crc, counts, frame, held)
        self._let_go(held)

    def publish_written(self, key: str, body: Path, n: int, crc: int, out: Path, counts, frame=None) -> None:
        """``body`` (at :meth:`temp_path`, private), written by a writer that
        also told its size ``n`` and CRC-32 ``crc`` (``qare._jsonout``),
        becomes ``out`` (copied) and the entry ``key``; checked against the
        file: a size that differs is an OSError. Raises OSError when ``out``
        cannot be written."""
        if type(n) is not int or type(crc) is not int or os.lstat(body).st_size != n:
            _remove(body)
            raise OSError("the writer's file is not what it said")
        self._publish(key, body, n, crc, out, counts, frame)

    def publish(self, key: str, body: Path, out: Path, counts, frame: str | None = None) -> None:
        """``body`` (written at :meth:`temp_path`) becomes ``out`` (copied)
        and the entry ``key``. Raises OSError when ``out`` cannot be
        written; an entry that cannot be kept costs the next run its speed
        only."""
        try:
            src = _open_regular(body)
        except OSError:
            _remove(body)
            raise
        try:
            # the writer made it with the umask's mode (0644): an entry is private like the rest of the cache
            os.fchmod(src, 0o600)
            n = os.fstat(src).st_size
        except OSError as e:
            _remove(body)
            raise OSError(f"cannot read back the written graph: {e}") from None
        finally:
            os.close(src)
        self._publish(key, body, n, None, out, counts, frame)

    def _keep(self, key: str, body: Path, n: int, crc: int, counts, frame, held: list) -> None:
        """``body`` (``n`` bytes of CRC-32 ``crc``) becomes the entry ``key``, its meta written after it;
        the evicted bodies' descriptors appended to ``held`` (:func:`_open_old`)."""
        meta_path, body_path = self._paths(key)
        try:
            os.replace(body, body_path)
            meta = json.dumps({"format": FORMAT, "key": key, "size": n, "crc32": crc,
                               "counts": [int(c) for c in counts], "frame": frame}).encode()
            mtmp = self.folder / f".{key}.{os.getpid()}.meta"
            fd = os.open(mtmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with open(fd, "wb") as fh:
                fh.write(meta)
            os.replace(mtmp, meta_path)
            self._evict(key, held)
        except OSError:
            _remove(body)
            self._drop(key)

    def _drop(self, key: str) -> None:
        for p in self._paths(key):
            try:
                p.unlink()
            except OSError:
                pass

    def _evict(self, keep: str, held: list) -> None:
        """Keep at most MAX_ENTRIES entries and MAX_BYTES of bodies, most recently used first;
        delete bodies without a meta file and leftovers of writers that died."""
        entries = []
        metas = set()
        for p in self.folder.iterdir():
            name = p.name
            if name.endswith(".meta") and not name.startswith("."):
                key = name[:-5]
                metas.add(key)
                try:
                    used = p.lstat().st_mtime
                    size = (self.folder / f"{key}.body").lstat().st_size
                except OSError:
                    self._drop(key)
                    continue
                entries.append((key == keep, used, key, size))
        for p in self.folder.iterdir():
            name = p.name
            if name.endswith(".body") and name[:-5] not in metas:
                p.unlink(missing_ok=True)
            elif name.startswith("."):
                from records.io import pid_alive

                pids = [int(x) for x in name.split(".") if x.isdigit() and len(x) < 12]
                # a writer's leftover: it died — or it had this process's id (PID 1 in a container, run after
                # run): this process writes none of them now (its own body was renamed into place before this)
                if pids and all(x == os.getpid() or not pid_alive(x) for x in pids):
                    p.unlink(missing_ok=True)
        entries.sort(reverse=True)
        total = 0
        for i, (_kept, _used, key, size) in enumerate(entries):
            total += size
            if i > 0 and (i >= MAX_ENTRIES or total > MAX_BYTES):
                fd = _open_old(self._paths(key)[1])  # freed when the caller closes it
                if fd >= 0:
                    held.append(fd)
                self._drop(key)
                total -= size


class _Empty:
    """Stands for the mapping of an empty file (``mmap`` cannot map none)."""

    def __enter__(self):
        return b""

    def __exit__(self, *exc):
        return False


def open_beside(store):
    """The output cache beside a ``GraphStore`` (``<store file>.out/``), or None when it cannot be used."""
    path = getattr(store, "path", None)
    if path is None:
        return None
    try:
        return OutputCache(Path(str(path) + ".out"))
    except (OSError, ValueError):
        return None
