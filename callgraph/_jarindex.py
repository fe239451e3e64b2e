"""A jar's class-name index (its *listing*) and the on-disk cache that
shares listings between processes and runs (docs/classpath.md "Jar index").

A :class:`JarListing` is what ``ClasspathIndex`` needs of a jar's zip
central directory: each class entry's internal name and where its bytes are
(local header offset, compressed and uncompressed size, compression method,
flag bits, CRC-32), the ``pom.properties`` coordinates found in it, and the
warnings its reading gave. With it a class is read by one ``pread`` of the
local header and one of the data (``callgraph.classpath``), without parsing
the central directory again.

:class:`JarIndexCache` keeps listings in ``<qare cache>/jar-index.sqlite``
(one row per jar: its real path, its stat signature ``(size, mtime_ns,
ctime_ns, inode, device)``, the time the row was written, the last use, a
CRC-32 of key and data, and the listing as msgpack — data, never pickle).
A row answers only for the same real path and signature, and only when the
signature is not racy against the row's write time (callgraph._statsig:
a jar written within :data:`~callgraph._statsig.RACY_NS` of its indexing
is read from the zip again). A row that fails its CRC or its decoder is
read from the zip again and replaced. The file follows the other caches'
rules (callgraph._sqlitefile): a private folder, no link or special file,
a foreign or older file replaced. Bounded: at most :data:`MAX_BYTES` of
listings, least recently used rows deleted first.
"""

from __future__ import annotations

import sqlite3
import sys
import time
import zlib
from array import array

import msgpack

from ._sqlitefile import CacheRefused, PrivateSQLite
from ._statsig import trusted

__all__ = ["JarListing", "JarIndexCache", "CacheRefused", "encode", "decode", "MAX_BYTES", "FORMAT"]

_MAGIC = "qare-jar-index"
FORMAT = f"{_MAGIC} 1"
#: listing bytes the cache file holds at most (summed over rows); least recently used rows go first
MAX_BYTES = 128 << 20
#: a hit refreshes a row's last use only when that is older than this (a run writes nothing when all hits are recent)
TOUCH_NS = 3600 * 1_000_000_000
#: fields per class entry in :attr:`JarListing.ints`
FIELDS = 6  # header offset, compressed size, size, compression method, flag bits, CRC-32
_CODEC = 1


class JarListing:
    """The class entries of one jar.

    Attributes
    ----------
    names : dict[str, int]
        Internal class name (``org/x/A$B``, without ``.class``) → its row.
    ints : array('q')
        :data:`FIELDS` integers per row: local header offset (bytes from the
        file's start), compressed size, uncompressed size, compression method
        (zip's numbers: 0 stored, 8 deflate, ...), general purpose flag bits, CRC-32.
    odd : dict[int, str]
        Row → the entry's name as stored in the zip, for the rows where it is
        not ``name + ".class"`` (zipfile cuts a name at a NUL byte).
    found : tuple[tuple[str, str, str], ...]
        ``(groupId, artifactId, version)`` of each readable ``pom.properties``.
    messages : tuple[str, ...]
        Warnings met while listing (unsafe entry names, unreadable poms).
    """

    __slots__ = ("names", "ints", "odd", "found", "messages")

    def __init__(self, names, ints, odd, found, messages):
        self.names = names
        self.ints = ints
        self.odd = odd
        self.found = found
        self.messages = messages

    def __len__(self) -> int:
        return len(self.names)

    def entry(self, name: str) -> tuple:
        """``(stored name, header offset, compressed size, size, method, flags, crc)`` of a class; KeyError if absent."""
        i = self.names[name]
        j = i * FIELDS
        return (self.odd.get(i) or name + ".class",) + tuple(self.ints[j:j + FIELDS])

    def __eq__(self, other) -> bool:
        return isinstance(other, JarListing) and all(
            getattr(self, s) == getattr(other, s) for s in self.__slots__)

    @classmethod
    def from_infos(cls, classes, found=(), messages=()) -> "JarListing":
        """From ``(internal name, zipfile.ZipInfo)`` pairs (a name seen twice: the last one, as a dict would)."""
        names: dict[str, int] = {}
        rows: list = []
        odd: dict[int, str] = {}
        for name, info in classes:
            i = names.get(name)
            row = (info.header_offset, info.compress_size, info.file_size, info.compress_type,
                   info.flag_bits, info.CRC)
            if i is None:
                i = names[name] = len(rows)
                rows.append(row)
            else:
                rows[i] = row
                odd.pop(i, None)
            if info.orig_filename != name + ".class":
                odd[i] = info.orig_filename
        ints = array("q")
        for row in rows:
            ints.extend(row)
        return cls(names, ints, odd, tuple(tuple(f) for f in found), tuple(messages))


# --------------------------------------------------------------------------- codec

def encode(listing: JarListing) -> bytes:
    """The msgpack bytes of a listing (integers little-endian, 8 bytes each)."""
    ints = listing.ints
    if sys.byteorder != "little":
        ints = array("q", ints)
        ints.byteswap()
    # names joined by NUL, a character no zip member name holds (zipfile cuts a name there): one string to decode
    return msgpack.packb([_CODEC, len(listing.names), "\0".join(listing.names), ints.tobytes(),
                          sorted(listing.odd.items()), [list(f) for f in listing.found],
                          list(listing.messages)], use_bin_type=True)


def decode(data: bytes) -> JarListing:
    """A listing from :func:`encode`'s bytes; ValueError for anything else
    (wrong shape or type, duplicate names, negative numbers)."""
    try:
        obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    except Exception as exc:  # msgpack raises several kinds for malformed input
        raise ValueError(f"undecodable: {type(exc).__name__}") from None
    if not (isinstance(obj, list) and len(obj) == 7 and obj[0] == _CODEC):
        raise ValueError("not a jar listing")
    _, count, names, raw, odd, found, messages = obj
    if not (type(count) is int and type(names) is str and isinstance(raw, bytes) and isinstance(odd, list)
            and isinstance(found, list) and isinstance(messages, list)):
        raise ValueError("bad field types")
    names = names.split("\0") if count else []  # one empty name (a member named ".class") is [""]
    if len(names) != count:
        raise ValueError("name count does not match")
    if len(raw) != 8 * FIELDS * len(names):
        raise ValueError("entry table length does not match the names")
    index = dict(zip(names, range(len(names))))
    if len(index) != len(names):
        raise ValueError("duplicate names")
    ints = array("q")
    ints.frombytes(raw)
    if sys.byteorder != "little":
        ints.byteswap()
    if ints and min(ints) < 0:
        raise ValueError("negative offset or size")
    odd_map: dict[int, str] = {}
    for item in odd:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int
                and 0 <= item[0] < len(names) and type(item[1]) is str):
            raise ValueError("bad stored name")
        odd_map[item[0]] = item[1]
    for f in found:
        if not (isinstance(f, list) and len(f) == 3 and all(type(x) is str for x in f)):
            raise ValueError("bad coordinates")
    if not all(type(m) is str for m in messages):
        raise ValueError("bad message")
    return JarListing(index, ints, odd_map, tuple(tuple(f) for f in found), tuple(messages))


def _key_text(real: str, sig) -> bytes:
    return (real + "\0" + ",".join(str(int(x)) for x in sig)).encode("utf-8", "surrogateescape")


def _crc(real: str, sig, data: bytes) -> int:
    # seeded by the key: a row moved to another jar's key fails its check
    return zlib.crc32(data, zlib.crc32(_key_text(real, sig)))


# --------------------------------------------------------------------------- the file

class JarIndexCache(PrivateSQLite):
    """Jar listings shared between processes (module docstring). Raises
    :class:`CacheRefused` for a file qare will not use. ``stats``:
    ``rebuilt`` (the file was corrupt, foreign or older), ``hits``,
    ``misses``, ``bad`` (rows that failed their CRC or decoder),
    ``racy``, ``evicted``. One process, one connection: open, use, :meth:`close`
    (a connection is never carried across a fork)."""

    KIND = "qare jar index"
    NOUN = "jar index"
    MAGIC = _MAGIC
    FORMAT = FORMAT
    NOT_REPLACED = "not replaced"

    def __init__(self, path, *, replace_foreign: bool = True, trusted_root=None, max_bytes: int | None = None):
        super().__init__(path, replace_foreign=replace_foreign, trusted_root=trusted_root)
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes
        self.stats = {"rebuilt": 0, "hits": 0, "misses": 0, "bad": 0, "racy": 0, "evicted": 0}
        self._puts: list = []
        self._touch: list = []
        self._open()

    COLUMNS = {"jars": ["path", "sig", "written_ns", "used_ns", "size", "crc", "data"]}

    def _make_tables(self, db) -> None:
        db.execute("CREATE TABLE jars (path TEXT PRIMARY KEY, sig TEXT NOT NULL, written_ns INTEGER NOT NULL, "
                   "used_ns INTEGER NOT NULL, size INTEGER NOT NULL, crc INTEGER NOT NULL, data BLOB NOT NULL)")
        db.execute("CREATE INDEX jars_used ON jars (used_ns)")

    def get(self, real: str, sig) -> JarListing | None:
        """The stored listing of the jar at real path ``real`` with stat
        signature ``sig``, or None (absent, another signature, racy, damaged)."""
        try:
            row = self.db.execute("SELECT sig, written_ns, used_ns, crc, data FROM jars WHERE path = ?",
                                  (real,)).fetchone()
        except (sqlite3.Error, ValueError):  # ValueError: a path SQLite cannot take (not UTF-8)
            row = None
        if row is None or row[0] != ",".join(str(int(x)) for x in sig):
            self.stats["misses"] += 1
            return None
        _sig, written, used, crc, data = row
        if not (type(written) is int and type(used) is int and type(data) is bytes):
            self.stats["bad"] += 1
            return None
        if not trusted(tuple(sig), written):
            self.stats["racy"] += 1
            return None
        if crc != _crc(real, sig, data):
            self.stats["bad"] += 1
            return None
        try:
            listing = decode(data)
        except ValueError:
            self.stats["bad"] += 1
            return None
        self.stats["hits"] += 1
        if used < time.time_ns() - TOUCH_NS:
            self._touch.append(real)
        return listing

    def put(self, real: str, sig, written_ns: int, listing: JarListing) -> None:
        """Queue the listing of a jar read from its zip, ``written_ns`` taken
        before the jar was stat'ed; written by :meth:`flush`."""
        try:
            data = encode(listing)
            real.encode("utf-8")
        except ValueError:  # a name or path that is not UTF-8: not stored, read from the zip each time
            return
        if len(data) <= self.max_bytes:
            self._puts.append((real, ",".join(str(int(x)) for x in sig), written_ns, written_ns,
                               len(data), _crc(real, sig, data), data))

    def flush(self) -> bool:
        """Write the queued rows and last uses in one transaction, then apply
        the size bound; False when the write failed (the cache is an optimisation only)."""
        if not self._puts and not self._touch:
            return True
        db = self.db
        now = time.time_ns()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                if self._puts:
                    db.executemany("INSERT OR REPLACE INTO jars VALUES (?, ?, ?, ?, ?, ?, ?)", self._puts)
                if self._touch:
                    db.executemany("UPDATE jars SET used_ns = ? WHERE path = ?", [(now, p) for p in self._touch])
                if self._puts:
                    self._bound(db)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            return False
        finally:
            self._puts.clear()
            self._touch.clear()
        return True

    def _bound(self, db) -> None:
        total = db.execute("SELECT coalesce(sum(size), 0) FROM jars").fetchone()[0]
        if total <= self.max_bytes:
            return
        gone = []
        for path, size in db.execute("SELECT path, size FROM jars ORDER BY used_ns, path"):
            if total <= self.max_bytes:
                break
            gone.append((path,))
            total -= size
        db.executemany("DELETE FROM jars WHERE path = ?", gone)
        self.stats["evicted"] += len(gone)

    def close(self) -> None:
        if self.db is not None:
            try:
                self.flush()
            finally:
                self.db.close()
                self.db = None
