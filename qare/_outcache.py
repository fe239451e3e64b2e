"""The output cache: the bytes ``qare graph --out`` wrote for a stored graph,
kept beside the graph store so that a run whose inputs are all unchanged
copies them instead of building, loading and writing the graph again
(docs/callgraph.md "Warm cache", "Nothing changed").

An entry is two files in one private folder (``<graph store>.out/``): the
body (the ``--out`` file byte for byte) and a small JSON meta file naming the
format, the key, the body's size and SHA-256 and the counts ``qare graph``
prints (nodes, edges, unresolved nodes left out). The key is a SHA-256 of
the stored graph's inputs (callgraph._graphstore.Inputs, all but the time
of the fingerprint: the same rule as ``GraphStore.holds``), the output
suffix, ``--dispatch``, ``--include-unresolved``, the code of this package
and the versions of the writers' libraries: another graph, another format or
another writer is another key.

Safety (docs/security.md "Caches"): the folder must be a real folder, owned
by this user and private (``safefs.check_private``); entries are opened with
``O_NOFOLLOW | O_NONBLOCK`` and must be regular files; the meta file is read
with a size bound and checked field by field; the body is hashed while it is
copied and the copy becomes ``--out`` only when size and SHA-256 match —
otherwise the entry is deleted and the graph is written from the build, as
without the cache. At most :data:`MAX_ENTRIES` entries and
:data:`MAX_BYTES` of bodies are kept, least recently used deleted first.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import replace
from pathlib import Path

FORMAT = "qare-graph-out 2"  # 2: the frame of a patchable body (qare._outpatch)
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


def _copy_hashed(src_fd: int, out: Path) -> tuple[str, int, Path]:
    """Copy ``src_fd`` to ``.<out name>.<pid>.tmp`` beside ``out`` (the name
    ``records.io.atomic_writer`` uses, so a dead writer's file is found and
    removed the same way); ``(sha256 hex, bytes, temporary path)``. Raises
    OSError (the temporary file removed) when it cannot be written,
    :class:`_Unreadable` when ``src_fd`` cannot be read."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    if tmp.is_symlink() or (tmp.exists() and not tmp.is_file()):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    h = hashlib.sha256()
    n = 0
    try:
        with open(fd, "wb", closefd=True) as fh:
            while True:
                try:
                    chunk = os.read(src_fd, _CHUNK)
                except OSError as e:
                    raise _Unreadable(str(e)) from None
                if not chunk:
                    break
                h.update(chunk)
                fh.write(chunk)
                n += len(chunk)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return h.hexdigest(), n, tmp


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
        size, sha, counts = m.get("size"), m.get("sha256"), m.get("counts")
        if type(size) is not int or size < 0 or not isinstance(sha, str) or len(sha) != 64 or not set(sha) <= _HEX:
            return None
        if not isinstance(counts, list) or len(counts) != 3 or any(type(c) is not int or c < 0 for c in counts):
            return None
        fr = m.get("frame")
        if fr is not None and not (isinstance(fr, str) and len(fr) == 64 and set(fr) <= _HEX):
            return None
        return m

    def read_body(self, key: str, frame: str | None):
        """``(body bytes, counts, frame)`` of the entry ``key`` when its meta
        names this ``frame`` (qare._outpatch; None: whatever frame it names,
        as long as it names one) and the body has the meta's size and
        SHA-256; None otherwise (a body that does not match is deleted)."""
        m = self._meta(key)
        if m is None or m.get("frame") is None or (frame is not None and m.get("frame") != frame):
            return None
        _, body_path = self._paths(key)
        try:
            fd = _open_regular(body_path)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size != m["size"]:
                self._drop(key)
                return None
            with open(fd, "rb", closefd=False) as fh:
                data = fh.read(m["size"] + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(data) != m["size"] or hashlib.sha256(data).hexdigest() != m["sha256"]:
            self._drop(key)
            return None
        return data, tuple(m["counts"]), m["frame"]

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
            if os.fstat(src).st_size != m["size"]:
                self._drop(key)
                return None
            sha, n, tmp = _copy_hashed(src, out)
        except _Unreadable:
            self._drop(key)
            return None
        finally:
            os.close(src)
        if sha != m["sha256"] or n != m["size"]:
            tmp.unlink(missing_ok=True)
            self._drop(key)
            return None
        os.replace(tmp, out)
        try:
            os.utime(meta_path)  # used now: the size bound deletes the least recently used first
        except OSError:
            pass
        return tuple(m["counts"])

    def temp_path(self, key: str, suffix: str) -> Path:
        """Where a writer puts a new body (the output's own suffix: the writer picks the format by it)."""
        return self.folder / f".{key}.{os.getpid()}.new{suffix}"

    def publish_pieces(self, key: str, pieces, out: Path, counts, frame: str | None = None) -> None:
        """The bytes ``pieces`` become ``out`` (atomically) and the entry
        ``key``, written to both at once and hashed once (qare._outpatch:
        no read back of a file just written). Raises OSError when ``out``
        cannot be written; an entry that cannot be kept costs the next run
        its speed only."""
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        if tmp.is_symlink() or (tmp.exists() and not tmp.is_file()):
            tmp.unlink()
        body = self.temp_path(key, out.suffix.lower())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            bfd = os.open(body, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except OSError:
            bfd = None
        h = hashlib.sha256()
        n = 0
        try:
            with open(fd, "wb") as fh, (open(bfd, "wb") if bfd is not None else open(os.devnull, "wb")) as bh:
                for p in pieces:
                    h.update(p)
                    fh.write(p)
                    bh.write(p)
                    n += len(p)
        except BaseException:
            tmp.unlink(missing_ok=True)
            body.unlink(missing_ok=True)
            raise
        os.replace(tmp, out)
        if bfd is not None:
            self._keep(key, body, n, h.hexdigest(), counts, frame)

    def publish(self, key: str, body: Path, out: Path, counts, frame: str | None = None) -> None:
        """``body`` (written at :meth:`temp_path`) becomes ``out`` (copied,
        hashed as it goes) and the entry ``key``. Raises OSError when ``out``
        cannot be written; an entry that cannot be kept costs the next run
        its speed only."""
        try:
            src = _open_regular(body)
            # the writer made it with the umask's mode (0644): an entry is private like the rest of the cache
            os.fchmod(src, 0o600)
        except OSError:
            body.unlink(missing_ok=True)
            raise
        try:
            sha, n, tmp = _copy_hashed(src, out)
        except BaseException as e:
            os.close(src)
            body.unlink(missing_ok=True)
            if isinstance(e, _Unreadable):  # our own new file could not be read back: --out cannot be written
                raise OSError(f"cannot read back the written graph: {e}") from None
            raise
        os.close(src)
        os.replace(tmp, out)
        self._keep(key, body, n, sha, counts, frame)

    def _keep(self, key: str, body: Path, n: int, sha: str, counts, frame) -> None:
        """``body`` (``n`` bytes hashing to ``sha``) becomes the entry ``key``, its meta written after it."""
        meta_path, body_path = self._paths(key)
        try:
            os.replace(body, body_path)
            meta = json.dumps({"format": FORMAT, "key": key, "size": n, "sha256": sha,
                               "counts": [int(c) for c in counts], "frame": frame}).encode()
            mtmp = self.folder / f".{key}.{os.getpid()}.meta"
            fd = os.open(mtmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with open(fd, "wb") as fh:
                fh.write(meta)
            os.replace(mtmp, meta_path)
            self._evict(keep=key)
        except OSError:
            body.unlink(missing_ok=True)
            self._drop(key)

    def _drop(self, key: str) -> None:
        for p in self._paths(key):
            try:
                p.unlink()
            except OSError:
                pass

    def _evict(self, keep: str) -> None:
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
                if pids and not any(pid_alive(x) for x in pids):  # a writer's leftover: it died
                    p.unlink(missing_ok=True)
        entries.sort(reverse=True)
        total = 0
        for i, (_kept, _used, key, size) in enumerate(entries):
            total += size
            if i > 0 and (i >= MAX_ENTRIES or total > MAX_BYTES):
                self._drop(key)
                total -= size


def open_beside(store):
    """The output cache beside a ``GraphStore`` (``<store file>.out/``), or None when it cannot be used."""
    path = getattr(store, "path", None)
    if path is None:
        return None
    try:
        return OutputCache(Path(str(path) + ".out"))
    except (OSError, ValueError):
        return None
