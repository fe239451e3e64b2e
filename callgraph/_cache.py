"""The warm build cache: one SQLite file under the qare cache folder
(``<cache>/callgraph.sqlite``, docs/callgraph.md "Warm cache").

Two tables of msgpack blobs (callgraph._codec — data, never pickle):

- ``facts``: a file's declarations, keyed by the sha256 of its bytes, its
  path, source set and LOC mode; the row also holds the file's declaration
  digest.
- ``resolved``: a file's resolved call sites and RTA facts, keyed by the
  facts key plus the *environment key* (the classpath: jar paths, sizes,
  mtimes; the JDK; the ``lombok.config`` files), with the index look-ups the
  resolution made (``callgraph._deps``) and the *project key* (environment
  and every file's declaration digest) it last held under. The build reuses
  a row under the same project key as is, else iff its look-ups, replayed,
  give the same answers (callgraph._build._cached_resolutions).

Safe under concurrent processes: WAL journal, a busy timeout, each batch of
writes one transaction, ``INSERT OR REPLACE`` (two writers of one key write
the same value). A row that does not decode is a miss and is overwritten.
An older qare cache (its ``meta`` row names another version) is deleted and
created anew. A file that is not a qare cache (not SQLite, no ``meta`` row)
is replaced only at the default path in qare's own folder
(``replace_foreign=True``); a path the user named is never destroyed:
:class:`CacheRefused`, and the build runs without the cache.

Refused as well (docs/security.md "Caches"), the build then running without
the cache: a symlink (or anything but a regular file) at the database path
or its ``-wal``/``-shm``/``-journal`` files, which would make SQLite write
where the link points; a folder that another user owns or a group or others
may write (:func:`callgraph.safefs.check_private`), where anyone could plant
rows or links.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path

from . import _codec
from ._sqlitefile import CacheRefused, PrivateSQLite  # noqa: F401  (CacheRefused: callgraph._build's import)

_MAGIC = "qare-callgraph-cache"
_VERSION = f"6.{_codec.FORMAT}"  # bump with any change of keys or tables (6: a CRC-32 per row)
_FLUSH_EVERY = 500


class BuildCache(PrivateSQLite):
    """Per-file facts and resolutions in one SQLite file (module docstring).

    ``stats`` counts ``facts_hits``, ``facts_misses``, ``resolved_hits``,
    ``resolved_misses`` and ``rebuilt`` (the file was corrupt or foreign).
    """

    MAGIC = _MAGIC
    FORMAT = f"{_MAGIC} {_VERSION}"

    def __init__(self, path, *, replace_foreign: bool = False, trusted_root=None):
        super().__init__(path, replace_foreign=replace_foreign, trusted_root=trusted_root)
        self.stats = {"facts_hits": 0, "facts_misses": 0, "resolved_hits": 0, "resolved_misses": 0,
                      "resolved_verified": 0, "rebuilt": 0,
                      # the index snapshot (callgraph._snapshot): loaded (1/0), files patched into it, written
                      "snapshot_loaded": 0, "snapshot_patched": 0, "snapshot_written": 0}
        self._pending: dict[str, list] = {"facts": [], "resolved": []}
        self._open()

    # ----------------------------------------------------------- file
    def _make_tables(self, db) -> None:
        db.execute("CREATE TABLE facts (key TEXT PRIMARY KEY, digest BLOB, blob BLOB, crc INTEGER)")
        db.execute("CREATE TABLE resolved (key TEXT PRIMARY KEY, blob BLOB, deps BLOB, pkey TEXT, crc INTEGER)")

    def _query(self, sql: str, args: tuple):
        try:
            return self.db.execute(sql, args).fetchone()
        except sqlite3.DatabaseError:  # corrupted under us: start over, this is a miss
            self._rebuild()
            return None

    # ----------------------------------------------------------- rows
    def get_facts(self, key: str):
        """``(FileFacts, declaration digest)`` or None."""
        row = self._query("SELECT digest, blob, crc FROM facts WHERE key = ?", (key,))
        if row is not None and type(row[0]) is bytes and type(row[1]) is bytes \
                and _facts_crc(key, row[0], row[1]) == row[2]:
            try:
                ff = _codec.decode_facts(row[1])
                self.stats["facts_hits"] += 1
                return ff, bytes(row[0])
            except (_codec.CodecError, TypeError):
                pass
        self.stats["facts_misses"] += 1
        return None

    def put_facts(self, key: str, digest: bytes, blob: bytes) -> None:
        self._pending["facts"].append((key, digest, blob, _facts_crc(key, digest, blob)))
        if len(self._pending["facts"]) >= _FLUSH_EVERY:
            self.flush()

    def get_resolved(self, key: str):
        """``(blob, deps, project key)`` or None: the ``_codec.encode_resolution``
        blob, the look-ups it was resolved with (``_deps.encode``, or None) and
        the project key it was last known to hold under. The caller decides
        whether it holds and says so with :meth:`count_resolved`."""
        row = self._query("SELECT blob, deps, pkey, crc FROM resolved WHERE key = ?", (key,))
        if row is None or type(row[0]) is not bytes or (row[1] is not None and type(row[1]) is not bytes) \
                or (row[2] is not None and type(row[2]) is not str) \
                or _resolved_crc(key, row[0], row[1], row[2]) != row[3]:
            return None  # a damaged or moved row is a miss, resolved again and overwritten
        return row[0], row[1], row[2]

    def count_resolved(self, hit: bool) -> None:
        self.stats["resolved_hits" if hit else "resolved_misses"] += 1

    def put_resolved(self, key: str, blob: bytes, deps: bytes | None = None, pkey: str | None = None) -> None:
        self._pending["resolved"].append((key, blob, deps, pkey, _resolved_crc(key, blob, deps, pkey)))
        if len(self._pending["resolved"]) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write the pending rows in one transaction."""
        facts, resolved = self._pending["facts"], self._pending["resolved"]
        if not facts and not resolved:
            return
        self._pending = {"facts": [], "resolved": []}
        try:
            self.db.execute("BEGIN IMMEDIATE")
            if facts:
                self.db.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?)", facts)
            if resolved:
                self.db.executemany("INSERT OR REPLACE INTO resolved VALUES (?, ?, ?, ?, ?)", resolved)
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            # a cache that cannot be written costs the next run its speed, never this run

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.db.close()


# A CRC-32 per row, seeded by the row's key (as the graph store seeds a row's
# by its place): a flipped byte inside a string or an int decodes to a
# well-typed wrong value the codec's checks cannot see (a path, a negative
# end line, a callee that is no node), and a row copied under another key
# (another file's facts) would be read as that file's; both are now a miss.
# The fields are separated by their lengths, so bytes moved from one field to
# the next change the sum too.
# (the CRC runs on over each length and its field, never over their
# concatenation: that copied every row once more, ~200 MB on a cold
# spring-framework run, in the process that also resolves)
def _facts_crc(key: str, digest: bytes, blob: bytes) -> int:
    crc = zlib.crc32(key.encode("utf-8", "surrogatepass"))
    crc = zlib.crc32(digest, zlib.crc32(len(digest).to_bytes(8, "little"), crc))
    return zlib.crc32(blob, crc)


def _resolved_crc(key: str, blob: bytes, deps, pkey) -> int:
    crc = zlib.crc32(key.encode("utf-8", "surrogatepass"))
    crc = zlib.crc32(blob, zlib.crc32(len(blob).to_bytes(8, "little"), crc))
    if deps is None:
        crc = zlib.crc32(b"\0", crc)
    else:
        crc = zlib.crc32(deps, zlib.crc32(b"\1" + len(deps).to_bytes(8, "little"), crc))
    return zlib.crc32(b"\0" if pkey is None else b"\1" + pkey.encode("utf-8", "surrogatepass"), crc)


def default_path() -> Path | None:
    """``<qare cache folder>/callgraph.sqlite``, or None when the cache folder is off."""
    from .classpath import cache_dir

    d = cache_dir()
    return None if d is None else d / "callgraph.sqlite"
