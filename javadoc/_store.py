"""A per-archive cache of read :class:`DocSet`\\ s on disk, keyed by the
archive's content digest (docs/javadoc.md "Doc-index cache").

Reading a javadoc jar is the costly part of documenting a project's APIs
(spring-core's site: 5,000 members, seconds of HTML parsing); ``qare build``
reads the same library jars for many projects and in every worker process.
This store keeps what was read, one file per archive, so the jar is parsed
once per machine, not once per project and process.

Safety (the folder may be shared and its files come from earlier runs):

- the folder must be private (the ``check_private`` given, in qare
  :func:`callgraph.safefs.check_private`: owned by the user, not writable by
  others), else the store is not used;
- entries are zlib-compressed JSON decoded into the frozen dataclasses only —
  never pickle, nothing in a file can run code;
- an entry is read as a regular file inside the folder (no symlink out of
  it, no FIFO or device), bounded in
  bytes read and bytes inflated;
- a corrupt, foreign or older-format entry is a miss: the archive is read
  again and the entry rewritten (atomically, mode 0600);
- the archive itself is opened for hashing as the reader opens it
  (:func:`~javadoc._archive.open_archive_file`) and at most
  ``ZipLimits.max_archive_bytes`` of it is read.

Size: after each save the folder's regular entries are kept within
``max_bytes`` by removing the least recently used (by modification time,
which a hit sets to now: access times are unreliable under ``relatime`` /
``noatime``); the entry just written is always kept. Nothing but regular
files named like entries or the store's temporary files is ever removed,
and removing a link removes the link, never its target.

The key is the SHA-256 of the archive's bytes, the :class:`ZipLimits` and the
reader's code version (a digest of this package's sources), so a changed jar
at the same path, other limits, or a changed reader never hit a stale entry.
Paths inside the stored record (``DocSet.source`` and warning locations) are
rewritten to the archive's current path on loading, so a jar copied to
another place gives the same records as reading it there.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path

from records.safefs import FileRefused, read_regular

from ._archive import ZipLimits, open_archive_file
from ._model import ApiDoc, ClassDoc, DocSet, SiteLayout

__all__ = ["DocSetStore", "StoreRefused", "StoredMembers"]

FORMAT = "qare-docset 1"
_MAX_FILE = 512 << 20  # compressed bytes of one entry read at most
_MAX_JSON = 2 << 30  # inflated bytes at most (a jar's limits allow 2 GiB of text)
_HASH_CHUNK = 1 << 20
DEFAULT_MAX_BYTES = 256 << 20  # entries are ~0.1-1 MB a jar: hundreds of jars
_STALE_TMP_SECONDS = 3600  # a temporary file this old was left by a killed writer


class StoreRefused(OSError):
    """The store's folder cannot be trusted (another user could write it) or made."""


def _code_version() -> str:
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for p in sorted(here.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


_CODE = _code_version()


def file_digest(path: str, max_bytes: int) -> str:
    """SHA-256 (hex) of the archive at ``path``, at most ``max_bytes`` bytes
    read (1 MiB chunks).

    Opened by :func:`~javadoc._archive.open_archive_file`, as the reader
    opens it: a FIFO, device, link swapped in, or a file whose ``fstat`` size
    exceeds ``max_bytes`` (``ZipLimits.max_archive_bytes``) is refused before
    a byte is read, so an over-limit archive costs no hashing and gets the
    reader's own answer. A file that grows past ``max_bytes`` while read is
    refused once ``max_bytes + 1`` bytes were read.

    Raises
    ------
    FileRefused
        As :func:`~javadoc._archive.open_archive_file`, or grew past the limit.
    OSError
        Missing or unreadable.
    """
    h = hashlib.sha256()
    with open_archive_file(path, max_bytes) as fh:
        got = 0
        while got <= max_bytes:
            chunk = fh.read(min(_HASH_CHUNK, max_bytes + 1 - got))
            if not chunk:
                break
            got += len(chunk)
            h.update(chunk)
    if got > max_bytes:
        raise FileRefused(path, f"archive grew past the limit of {max_bytes} bytes while read")
    return h.hexdigest()


class DocSetStore:
    """DocSets of archives, one compressed JSON file each under ``folder``.

    Parameters
    ----------
    folder : path-like
        Where entries live; created mode 0700 when missing.
    trusted_root : path-like, optional
        The folder privacy is checked from (every folder from it down to
        ``folder``); default ``folder`` itself.
    check_private : callable
        ``check_private(top, below)`` raising ``OSError`` (``strerror`` the
        reason, ``filename`` the folder) when a folder from ``top`` down to
        ``below`` could be written by someone else —
        :func:`callgraph.safefs.check_private`, passed in because this
        package imports only ``records`` (tests/records/test_records_layer.py).
    max_bytes : int
        Bytes of entries kept at most (default 256 MiB); least recently used
        entries are removed after a save to stay within it.

    Raises
    ------
    StoreRefused
        The folder (or one above it up to ``trusted_root``) is owned by
        another user or writable by others, or cannot be created.
    """

    def __init__(self, folder: str | os.PathLike, trusted_root: str | os.PathLike | None = None, *,
                 check_private, max_bytes: int = DEFAULT_MAX_BYTES):
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, not {max_bytes}")
        self.folder = Path(folder)
        self.max_bytes = max_bytes
        top = trusted_root or self.folder
        try:
            check_private(top, self.folder)  # before mkdir: nothing is made in a folder others can write
        except OSError as e:
            raise StoreRefused(0, f"doc-index cache folder {e.strerror}; anyone who can write it could "
                                  "change the documentation", e.filename) from None
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as e:
            raise StoreRefused(0, f"doc-index cache folder cannot be made ({e.strerror or e})",
                               str(self.folder)) from None
        try:
            check_private(top, self.folder)  # again: the folder made (or found) is the one checked
        except OSError as e:
            raise StoreRefused(0, f"doc-index cache folder {e.strerror}; anyone who can write it could "
                                  "change the documentation", e.filename) from None
        self.hits = 0
        self.misses = 0
        self.rebuilt = 0  # entries present but unreadable (corrupt, foreign, older format)
        self.evicted = 0  # entries removed to stay within max_bytes

    def key(self, path: str, limits: ZipLimits) -> str:
        """The entry key of the archive at ``path`` read within ``limits``."""
        h = hashlib.sha256()
        h.update(f"{FORMAT}\0{_CODE}\0{file_digest(path, limits.max_archive_bytes)}\0".encode())
        h.update(json.dumps(astuple(limits)).encode())
        return h.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / f"{key}.json.z"

    def load(self, path: str, limits: ZipLimits, key: str | None = None) -> DocSet | None:
        """The stored DocSet of the archive at ``path``, or ``None`` (missing,
        corrupt, foreign: counted in :attr:`misses`/:attr:`rebuilt`)."""
        key = key or self.key(path, limits)
        entry = self._entry(key)
        try:
            raw = read_regular(entry, _MAX_FILE, root=self.folder)  # a link out of the folder is refused
        except FileNotFoundError:
            self.misses += 1
            return None
        except (FileRefused, OSError):
            self.misses += 1
            self.rebuilt += 1
            return None
        try:
            ds = _decode(raw, key, path)
        except (ValueError, TypeError, KeyError, IndexError, zlib.error, RecursionError):
            self.misses += 1
            self.rebuilt += 1
            return None
        self.hits += 1
        try:  # the entry's mtime is its last use, for eviction; the link itself, were one swapped in
            os.utime(entry, follow_symlinks=False)
        except OSError:
            pass
        return ds

    def save(self, path: str, limits: ZipLimits, docset: DocSet, key: str | None = None) -> None:
        """Store ``docset`` (read from the archive at ``path``) atomically;
        an ``OSError`` (disk full, folder gone) is swallowed: the cache is an
        optimisation, the records are already in hand."""
        key = key or self.key(path, limits)
        data = _encode(docset, key, path)
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".z", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, self._entry(key))
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            return
        self.evict(keep=self._entry(key).name)

    def entries(self) -> list[tuple[str, int, int]]:
        """The regular files of the folder the store owns, as ``(name, bytes,
        mtime_ns)``: entries (``*.json.z``) and temporary files (``.tmp-*``).
        Links, folders, FIFOs and other names are not listed (never read,
        never removed). An unreadable folder lists nothing."""
        out = []
        try:
            with os.scandir(self.folder) as it:
                for e in it:
                    if not (e.name.endswith(".json.z") or e.name.startswith(".tmp-")):
                        continue
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISREG(st.st_mode):
                        out.append((e.name, st.st_size, st.st_mtime_ns))
        except OSError:
            pass
        return out

    def evict(self, keep: str | None = None) -> int:
        """Remove least recently used entries until the folder's entries take
        at most :attr:`max_bytes` (``keep``, a file name, is never removed),
        and temporary files older than an hour. Returns the bytes removed;
        errors (a file gone meanwhile: another process evicting) are skipped."""
        now = time.time_ns()
        files = self.entries()
        total = sum(size for _, size, _ in files)
        removed = 0
        doomed = [f for f in files if f[0].startswith(".tmp-") and now - f[2] > _STALE_TMP_SECONDS * 10**9]
        entries = sorted((f for f in files if f[0].endswith(".json.z") and f[0] != keep), key=lambda f: (f[2], f[0]))
        it = iter(entries)
        for f in doomed:
            total -= f[1]
        while total > self.max_bytes:
            f = next(it, None)
            if f is None:
                break
            doomed.append(f)
            total -= f[1]
        for name, size, _ in doomed:
            try:
                os.unlink(self.folder / name)
            except OSError:
                continue
            removed += size
            if name.endswith(".json.z"):
                self.evicted += 1
        return removed


# ---------------------------------------------------------------- the data format


def _rel(loc: str, source: str) -> list:
    """A warning location relative to the archive's path (``[1, suffix]``) or absolute (``[0, loc]``)."""
    if loc == source or loc.startswith(source + "!") or loc.startswith(source + "/"):
        return [1, loc[len(source):]]
    return [0, loc]


def _encode(ds: DocSet, key: str, path: str) -> bytes:
    source = ds.source
    obj = {
        "format": FORMAT,
        "key": key,
        "layout": ds.layout.value if ds.layout is not None else None,
        "pages": ds.pages,
        "source_is_path": source == path,
        "source": None if source == path else source,
        "warnings": [[*_rel(f, source), r] for f, r in ds.warnings],
        "classes": [[c.fqn, c.kind, c.signature_text, c.description, c.first_sentence, c.deprecated,
                     c.doc_source, c.layout.value, c.location, list(c.members), c.package] for c in ds.classes],
        "members": [[m.id, m.api, m.class_, m.kind, m.signature_text, m.description, m.first_sentence,
                     [list(p) for p in m.params], m.returns, [list(t) for t in m.throws], m.deprecated,
                     m.doc_source, m.layout.value, m.location, m.anchor] for m in ds.members],
    }
    return zlib.compress(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)


def _str(x) -> str:
    if type(x) is not str:
        raise TypeError("not a string")
    return x


def _opt(x) -> str | None:
    return None if x is None else _str(x)


def _pairs(x) -> tuple[tuple[str, str], ...]:
    if type(x) is not list:
        raise TypeError("not a list")
    out = []
    for p in x:
        if type(p) is not list or len(p) != 2:
            raise TypeError("not a pair")
        out.append((_str(p[0]), _str(p[1])))
    return tuple(out)


def _decode(raw: bytes, key: str, path: str) -> DocSet:
    d = zlib.decompressobj()
    text = d.decompress(raw, _MAX_JSON)
    if d.unconsumed_tail or not d.eof:
        raise ValueError("entry inflates past the limit or is truncated")
    obj = json.loads(text.decode("utf-8"))
    if type(obj) is not dict or obj.get("format") != FORMAT or obj.get("key") != key:
        raise ValueError("not an entry of this format and key")
    layouts = {x.value: x for x in SiteLayout}
    lay = obj["layout"]
    layout = None if lay is None else layouts[_str(lay)]
    pages = obj["pages"]
    if type(pages) is not int:
        raise TypeError("pages")
    stored_source = None if obj["source_is_path"] is True else _str(obj["source"])
    source = path if stored_source is None else stored_source
    warnings = []
    for w in obj["warnings"]:
        if type(w) is not list or len(w) != 3 or w[0] not in (0, 1):
            raise TypeError("warning")
        loc = _str(w[1])
        warnings.append(((source + loc) if w[0] == 1 else loc, _str(w[2])))
    classes = []
    for c in obj["classes"]:
        if type(c) is not list or len(c) != 11 or type(c[9]) is not list:
            raise TypeError("class")
        classes.append(ClassDoc(fqn=_str(c[0]), kind=_str(c[1]), signature_text=_str(c[2]), description=_opt(c[3]),
                                first_sentence=_opt(c[4]), deprecated=_opt(c[5]), doc_source=_str(c[6]),
                                layout=layouts[_str(c[7])], location=_str(c[8]),
                                members=tuple(_str(m) for m in c[9]), package=_str(c[10])))
    rows = obj["members"]
    if type(rows) is not list:
        raise TypeError("members")
    for m in rows:
        _check_member(m, layouts)
    return DocSet(source=source, layout=layout, classes=tuple(classes), members=StoredMembers(rows, layouts),
                  warnings=tuple(warnings), pages=pages)


_S, _OPT = str, (str, type(None))


def _check_member(m, layouts: dict) -> None:
    """Raise ``TypeError`` unless ``m`` is a member row as :func:`_encode` writes it
    (15 fields of the right types, known layout) — the whole entry is then a miss."""
    if type(m) is not list or len(m) != 15:
        raise TypeError("member")
    if not (type(m[0]) is _S and type(m[1]) is _S and type(m[2]) is _S and type(m[3]) is _S
            and type(m[4]) is _S and type(m[5]) in _OPT and type(m[6]) in _OPT and type(m[8]) in _OPT
            and type(m[10]) in _OPT and type(m[11]) is _S and type(m[12]) is _S and m[12] in layouts
            and type(m[13]) is _S and type(m[14]) is _S):
        raise TypeError("member field")
    for pairs in (m[7], m[9]):
        if type(pairs) is not list:
            raise TypeError("not a list")
        for p in pairs:
            if type(p) is not list or len(p) != 2 or type(p[0]) is not _S or type(p[1]) is not _S:
                raise TypeError("not a pair")


class StoredMembers(Sequence):
    """The members of a DocSet read from the store: every row checked when
    the entry was decoded (a bad one made the entry a miss), each made into
    its :class:`ApiDoc` only when first asked for — a build looks up a few
    dozen of a jar's thousands of members, and making them all was most of a
    worker's doc step (docs/dataset.md "Scaling"). Read-only; equal to the
    tuple of the same records (so a DocSet from the store equals the one
    read from the jar)."""

    __slots__ = ("_rows", "_made", "_layouts")

    def __init__(self, rows: list, layouts: dict):
        self._rows = rows
        self._made: list = [None] * len(rows)
        self._layouts = layouts

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        m = self._made[i]
        if m is None:
            r = self._rows[i]
            m = ApiDoc(id=r[0], api=r[1], class_=r[2], kind=r[3], signature_text=r[4], description=r[5],
                       first_sentence=r[6], params=tuple((a, b) for a, b in r[7]), returns=r[8],
                       throws=tuple((a, b) for a, b in r[9]), deprecated=r[10], doc_source=r[11],
                       layout=self._layouts[r[12]], location=r[13], anchor=r[14])
            self._made[i] = m
        return m

    def id_api(self) -> list[tuple[str, str]]:
        """``(id, api)`` of every member, in order, without making the records."""
        return [(r[0], r[1]) for r in self._rows]

    def __eq__(self, other):
        if isinstance(other, (tuple, list, StoredMembers)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"StoredMembers({len(self)} members)"
