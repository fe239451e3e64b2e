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
- entries are zlib-compressed JSON sections decoded into the frozen
  dataclasses only — never pickle, nothing in a file can run code;
- an entry is read as a regular file inside the folder (no symlink out of
  it, no FIFO or device), bounded in
  bytes read and bytes inflated;
- a corrupt (any block's CRC), foreign or older-format entry is a miss: the
  archive is read again and the entry rewritten (atomically, mode 0600);
  rows are checked when their block is first read, and a block that fails
  then raises :class:`DamagedEntry` and has its entry removed ("the data
  format" below);
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
from itertools import accumulate
from dataclasses import astuple
from pathlib import Path

from records.safefs import FileRefused, read_regular

from ._archive import ZipLimits, open_archive_file
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout

__all__ = ["DocSetStore", "StoreRefused", "StoredMembers", "StoredClasses", "DamagedEntry"]

FORMAT = "qare-docset 3"  # 3: members carry overrides (session 10)
_MAX_FILE = 512 << 20  # compressed bytes of one entry read at most
_MAX_JSON = 2 << 30  # inflated bytes at most (a jar's limits allow 2 GiB of text)
_HASH_CHUNK = 1 << 20
DEFAULT_MAX_BYTES = 256 << 20  # entries are ~0.1-1 MB a jar: hundreds of jars
DIGESTS_FILE = "digests.json"
"""The archives' remembered digests in the store's folder (:meth:`DocSetStore._file_digest`)."""
_DIGESTS_FORMAT = "qare-docset-digests 1"
_MAX_DIGESTS = 20_000  # files remembered at most (~150 bytes each)
_MAX_DIGESTS_FILE = 8 << 20
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
        self._digest_memo: dict | None = None
        self.hits = 0
        self.misses = 0
        self.rebuilt = 0  # entries present but unreadable (corrupt, foreign, older format)
        self.evicted = 0  # entries removed to stay within max_bytes

    def key(self, path: str, limits: ZipLimits) -> str:
        """The entry key of the archive at ``path`` read within ``limits``."""
        h = hashlib.sha256()
        h.update(f"{FORMAT}\0{_CODE}\0{self._file_digest(path, limits.max_archive_bytes)}\0".encode())
        h.update(json.dumps(astuple(limits)).encode())
        return h.hexdigest()

    def _file_digest(self, path: str, max_bytes: int) -> str:
        """:func:`file_digest`, remembered in :data:`DIGESTS_FILE` under the
        file's real path with its device, inode, size, modification and change
        times: a file whose stamp is unchanged is not read again (spring-
        petclinic's 10 doc jars, 38 MB: 30 ms in every process before). Any
        write to the file changes its change time, which no ``touch`` can set
        back, and a file put in its place has another inode. A file the
        reader would refuse is always handed to :func:`file_digest`, which
        refuses it as before."""
        real = os.path.realpath(path)
        try:
            st = os.stat(real, follow_symlinks=False)
        except OSError:
            st = None
        stamp = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size <= max_bytes:
            stamp = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
            known = self._digests().get(real)
            if known is not None and known[:5] == stamp:
                return known[5]
        digest = file_digest(path, max_bytes)
        if stamp is not None:
            try:
                after = os.stat(real, follow_symlinks=False)
            except OSError:
                return digest
            if [after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns, after.st_ctime_ns] == stamp:
                self._remember(real, stamp + [digest])  # not when the file changed while it was read
        return digest

    def _digests(self) -> dict:
        """The remembered digests (:data:`DIGESTS_FILE`), read once: a regular
        file inside the folder, at most ``_MAX_DIGESTS_FILE`` bytes, every row
        checked; anything else counts as empty (and is rewritten)."""
        if self._digest_memo is None:
            memo: dict = {}
            try:
                obj = json.loads(read_regular(self.folder / DIGESTS_FILE, _MAX_DIGESTS_FILE, root=self.folder))
            except (OSError, ValueError, RecursionError):
                obj = None
            if type(obj) is dict and obj.get("format") == _DIGESTS_FORMAT and type(obj.get("files")) is dict:
                for k, v in obj["files"].items():
                    if type(v) is list and len(v) == 6 and all(type(x) is int for x in v[:5]) \
                            and type(v[5]) is str and len(v[5]) == 64:
                        memo[k] = v
            self._digest_memo = memo
        return self._digest_memo

    def _remember(self, real: str, row: list) -> None:
        memo = self._digests()
        memo.pop(real, None)
        memo[real] = row  # newest last: the oldest go first past the bound
        while len(memo) > _MAX_DIGESTS:
            memo.pop(next(iter(memo)))
        data = json.dumps({"format": _DIGESTS_FORMAT, "files": memo}, separators=(",", ":")).encode()
        try:
            _write_replacing(self.folder / DIGESTS_FILE, data, ".json")
        except OSError:  # the memo is an optimisation: the digest is in hand
            pass

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
            ds = _decode(raw, key, path, damaged=lambda: self._drop(entry))
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

    def _drop(self, entry: Path) -> None:
        """Remove an entry whose block failed its checks (the next open reads the archive again)."""
        self.rebuilt += 1
        try:
            if stat.S_ISREG(os.lstat(entry).st_mode):
                os.unlink(entry)
        except OSError:
            pass

    def save(self, path: str, limits: ZipLimits, docset: DocSet, key: str | None = None) -> None:
        """Store ``docset`` (read from the archive at ``path``) atomically;
        an ``OSError`` (disk full, folder gone) is swallowed: the cache is an
        optimisation, the records are already in hand."""
        key = key or self.key(path, limits)
        data = _encode(docset, key, path)
        try:
            _write_replacing(self._entry(key), data, ".z")
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
#
# An entry: MAGIC, the header's length (big-endian, 4 bytes), the header
# (zlib-compressed JSON: the DocSet's scalars and warnings, every member's id
# and API name, every class's FQN, the length of each block and the CRC-32 of
# all of them), then the blocks, back to back, the classes' first (each
# zlib-compressed JSON: up to _BLOCK_ROWS class or member rows). Loading
# inflates and checks the header (zlib's own checksum covers its bytes) and
# the blocks' CRC, so a damaged entry is a miss at once; a block is inflated
# and its rows checked only when a record in it is first asked for: a build
# looks up a few of a jar's thousands of members, and parsing them all was
# most of a worker's first doc step.

_MAGIC = b"qare-docset 2\n"
_BLOCK_ROWS = 16


def _rel(loc: str, source: str) -> list:
    """A warning location relative to the archive's path (``[1, suffix]``) or absolute (``[0, loc]``)."""
    if loc == source or loc.startswith(source + "!") or loc.startswith(source + "/"):
        return [1, loc[len(source):]]
    return [0, loc]


def _json_z(obj) -> bytes:
    return zlib.compress(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)


def _encode(ds: DocSet, key: str, path: str) -> bytes:
    source = ds.source
    body = bytearray()

    def blocks(rows: list) -> list:
        out = []
        for i in range(0, len(rows), _BLOCK_ROWS):
            z = _json_z(rows[i:i + _BLOCK_ROWS])
            out.append(len(z))
            body.extend(z)
        return out

    classes = [[c.fqn, c.kind, c.signature_text, c.description, c.first_sentence, c.deprecated,
                c.doc_source, c.layout.value, c.location, list(c.members), c.package] for c in ds.classes]
    members = [[m.id, m.api, m.class_, m.kind, m.signature_text, m.description, m.first_sentence,
                [list(p) for p in m.params], m.returns, [list(t) for t in m.throws], m.deprecated,
                m.doc_source, m.layout.value, m.location, m.anchor, list(m.overrides)] for m in ds.members]
    header = {
        "format": FORMAT,
        "key": key,
        "layout": ds.layout.value if ds.layout is not None else None,
        "pages": ds.pages,
        "source_is_path": source == path,
        "source": None if source == path else source,
        "warnings": [[*_rel(f, source), r] for f, r in ds.warnings],
        "block_rows": _BLOCK_ROWS,
        "class_fqns": [c[0] for c in classes],
        "class_blocks": blocks(classes),
        "member_ids": [m[0] for m in members],
        "member_apis": [m[1] for m in members],
        "member_blocks": blocks(members),
    }
    header["body_crc"] = zlib.crc32(body)
    hz = _json_z(header)
    return _MAGIC + len(hz).to_bytes(4, "big") + hz + bytes(body)


def _str(x) -> str:
    if type(x) is not str:
        raise TypeError("not a string")
    return x


def _opt(x) -> str | None:
    return None if x is None else _str(x)


def _strs(x) -> list:
    if type(x) is not list or not set(map(type, x)) <= {str}:  # map/set: the check stays in C
        raise TypeError("not a list of strings")
    return x


def _inflate(z) -> bytes:
    d = zlib.decompressobj()
    text = d.decompress(z, _MAX_JSON)
    if d.unconsumed_tail or not d.eof or d.unused_data:
        raise ValueError("entry section inflates past the limit, is truncated or has trailing bytes")
    return text


def _lengths(spec, n: int) -> list:
    """The block lengths of ``n`` rows, checked: ``ceil(n / _BLOCK_ROWS)`` ints ≥ 0."""
    if type(spec) is not list or len(spec) != -(-n // _BLOCK_ROWS) or not set(map(type, spec)) <= {int} \
            or (spec and min(spec) < 0):
        raise TypeError("blocks")
    return spec


def _spans(lengths: list, start: int) -> list:
    """``(offset, length)`` of blocks laid out back to back from ``start``."""
    return list(zip(accumulate(lengths, initial=start), lengths))


def _decode(raw: bytes, key: str, path: str, damaged=None) -> DocSet:
    """The DocSet of an entry's bytes; ``damaged()`` is called if a block
    later fails its checks. Raises ``ValueError``/``TypeError``/``KeyError``/
    ``zlib.error``/``RecursionError`` for an entry that is not whole and of
    this format and key."""
    if not raw.startswith(_MAGIC):
        raise ValueError("not an entry of this format")
    at = len(_MAGIC)
    if len(raw) < at + 4:
        raise ValueError("truncated")
    hlen = int.from_bytes(raw[at:at + 4], "big")
    hz = raw[at + 4:at + 4 + hlen]
    if len(hz) != hlen:
        raise ValueError("header truncated")
    body = memoryview(raw)[at + 4 + hlen:]
    obj = json.loads(_inflate(hz).decode("utf-8"))
    if type(obj) is not dict or obj.get("format") != FORMAT or obj.get("key") != key:
        raise ValueError("not an entry of this format and key")
    if obj["block_rows"] != _BLOCK_ROWS:
        raise ValueError("other block size")
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
    fqns = _strs(obj["class_fqns"])
    ids, apis = _strs(obj["member_ids"]), _strs(obj["member_apis"])
    if len(ids) != len(apis):
        raise ValueError("member ids and names differ in number")
    class_lengths = _lengths(obj["class_blocks"], len(fqns))
    member_lengths = _lengths(obj["member_blocks"], len(ids))
    in_classes = sum(class_lengths)
    if in_classes + sum(member_lengths) != len(body) or zlib.crc32(body) != obj["body_crc"]:
        raise ValueError("blocks damaged, missing or followed by other bytes")
    classes = StoredClasses(body, _spans(class_lengths, 0), fqns, layouts, damaged)
    members = StoredMembers(body, _spans(member_lengths, in_classes), ids, apis, layouts, damaged)
    return DocSet(source=source, layout=layout, classes=classes, members=members, warnings=tuple(warnings),
                  pages=pages)


_S, _OPT = str, (str, type(None))


def _check_member(m, layouts: dict) -> None:
    """Raise ``TypeError`` unless ``m`` is a member row as :func:`_encode` writes it
    (16 fields of the right types, known layout)."""
    if type(m) is not list or len(m) != 16 or type(m[15]) is not list or not all(type(x) is _S for x in m[15]):
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


def _check_class(c, layouts: dict) -> None:
    """Raise ``TypeError`` unless ``c`` is a class row as :func:`_encode` writes it."""
    if type(c) is not list or len(c) != 11 or type(c[9]) is not list:
        raise TypeError("class")
    if not (type(c[0]) is _S and type(c[1]) is _S and type(c[2]) is _S and type(c[3]) in _OPT
            and type(c[4]) in _OPT and type(c[5]) in _OPT and type(c[6]) is _S and type(c[7]) is _S
            and c[7] in layouts and type(c[8]) is _S and type(c[10]) is _S
            and all(type(x) is _S for x in c[9])):
        raise TypeError("class field")


class DamagedEntry(JavadocError):
    """A block of a doc-index cache entry failed its checks when first read
    (its CRC matched: not an accident of the disk, but an entry written by
    something other than this store's writer)."""


class _StoredRows(Sequence):
    """Records of one kind from an entry: each block inflated and its rows
    checked (types, and the id or FQN the header gave) when a record in it is
    first asked for, each record made once. Read-only; equal to the tuple of
    the same records (so a DocSet from the store equals the one read from
    the jar). A block that fails its checks raises :class:`DamagedEntry`."""

    __slots__ = ("_body", "_blocks", "_keys", "_layouts", "_made", "_rows", "_damaged", "_positions")

    def __init__(self, body: memoryview, blocks: list, keys: list, layouts: dict, damaged=None):
        self._body = body
        self._blocks = blocks
        self._keys = keys
        self._layouts = layouts
        self._damaged = damaged  # called once a block fails: the store drops the entry
        self._made: list = [None] * len(keys)
        self._rows: list = [None] * len(blocks)
        self._positions = None

    def keys(self) -> list[str]:
        """The id (members) or FQN (classes) of every record, in order, without reading the records."""
        return self._keys

    def positions(self) -> dict[str, int]:
        """``key -> position`` of each key's first record (made once, from the header)."""
        if self._positions is None:
            from ._index import first_positions

            self._positions = first_positions(self._keys)
        return self._positions

    def __len__(self) -> int:
        return len(self._keys)

    def _row(self, i: int) -> list:
        b = i // _BLOCK_ROWS
        rows = self._rows[b]
        if rows is None:
            off, length = self._blocks[b]
            first = b * _BLOCK_ROWS
            try:
                rows = json.loads(_inflate(self._body[off:off + length]).decode("utf-8"))
                if type(rows) is not list or len(rows) != min(_BLOCK_ROWS, len(self._keys) - first):
                    raise TypeError("block rows")
                for j, r in enumerate(rows):
                    self._check(r, first + j)
            except (ValueError, TypeError, KeyError, IndexError, zlib.error, RecursionError) as e:
                if self._damaged is not None:
                    self._damaged()
                raise DamagedEntry(f"doc-index cache entry damaged ({e}); remove the javadoc-index "
                                   "folder of the qare cache") from None
            self._rows[b] = rows
        return rows[i - b * _BLOCK_ROWS]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        m = self._made[i]
        if m is None:
            m = self._made[i] = self._make(self._row(i))
        return m

    def __eq__(self, other):
        if isinstance(other, (tuple, list, _StoredRows)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)})"


class StoredMembers(_StoredRows):
    """The members (:class:`ApiDoc`) of a DocSet read from the store."""

    __slots__ = ("_apis", "_named")

    def __init__(self, body: memoryview, blocks: list, ids: list, apis: list, layouts: dict, damaged=None):
        super().__init__(body, blocks, ids, layouts, damaged)
        self._apis = apis
        self._named = None

    def named(self) -> dict[str, list[int]]:
        """``api -> positions`` of the members with that API name (made once, from the header)."""
        if self._named is None:
            from ._index import grouped

            self._named = grouped(self._apis)
        return self._named

    def _check(self, r, i: int) -> None:
        _check_member(r, self._layouts)
        if r[0] != self._keys[i] or r[1] != self._apis[i]:
            raise ValueError("row and header disagree")

    def _make(self, r) -> ApiDoc:
        return ApiDoc(id=r[0], api=r[1], class_=r[2], kind=r[3], signature_text=r[4], description=r[5],
                      first_sentence=r[6], params=tuple((a, b) for a, b in r[7]), returns=r[8],
                      throws=tuple((a, b) for a, b in r[9]), deprecated=r[10], doc_source=r[11],
                      layout=self._layouts[r[12]], location=r[13], anchor=r[14], overrides=tuple(r[15]))



class StoredClasses(_StoredRows):
    """The types (:class:`ClassDoc`) of a DocSet read from the store."""

    __slots__ = ()

    def _check(self, r, i: int) -> None:
        _check_class(r, self._layouts)
        if r[0] != self._keys[i]:
            raise ValueError("row and header disagree")

    def _make(self, c) -> ClassDoc:
        return ClassDoc(fqn=c[0], kind=c[1], signature_text=c[2], description=c[3], first_sentence=c[4],
                        deprecated=c[5], doc_source=c[6], layout=self._layouts[c[7]], location=c[8],
                        members=tuple(c[9]), package=c[10])


def _write_replacing(target: Path, data: bytes, suffix: str) -> None:
    """Write ``data`` to a private temporary file beside ``target`` (``mkstemp``:
    mode 600, never through a link), then rename it over ``target``; the
    temporary file is removed when anything fails (the error is raised)."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
