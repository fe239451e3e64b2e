"""Opening a qare-owned SQLite file safely: the warm build cache
(callgraph._cache) and the graph store (callgraph._graphstore) share it.

A private folder (``safefs.check_private``), no link or special file at the
path or its ``-wal``/``-shm``/``-journal`` companions (checked, then opened
with ``O_NOFOLLOW`` and the inode compared once SQLite holds it), and a file
that is not ours replaced only when ``replace_foreign`` (qare's own path),
refused and left unchanged otherwise. Light on purpose: answering from the
graph store must import neither the parser nor the row codec.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

__all__ = ["CacheRefused", "PrivateSQLite"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


class CacheRefused(OSError):
    """A cache file qare will not open (``strerror``: why; ``filename``: the path)."""

    def __init__(self, path, reason: str):
        super().__init__(0, reason, str(path))


class PrivateSQLite:
    """Base of a qare SQLite file. A subclass sets ``KIND`` (its name in
    messages), ``NOUN`` (in "cannot create the …"), ``MAGIC`` and ``FORMAT``
    (its ``meta`` table's ``format`` value: ``"MAGIC version"``),
    ``NOT_REPLACED`` and ``NOT_REPLACED_UNREADABLE`` (what the user can do),
    ``COLUMNS`` (the tables :meth:`_valid` checks) and provides
    ``_make_tables``, which :meth:`_create` calls; ``_open`` raises
    :class:`CacheRefused`."""

    KIND = "qare cache"
    NOUN = "cache"
    MAGIC = ""
    FORMAT = ""
    NOT_REPLACED = "not replaced: name another --cache file or delete it"
    NOT_REPLACED_UNREADABLE = NOT_REPLACED
    #: table → its column names: a dropped or altered table is a damaged file (rebuilt, not written into in vain)
    COLUMNS: dict = {}
    #: ``PRAGMA auto_vacuum = INCREMENTAL`` before the first table (it takes effect only then)
    AUTO_VACUUM = False

    def __init__(self, path, *, replace_foreign: bool = False, trusted_root=None):
        self.path = Path(path)
        self.replace_foreign = replace_foreign
        self.trusted_root = trusted_root
        self.db = None

    def _connect(self):
        db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 30000")
        return db

    def _valid(self) -> bool:
        """The file holds this version of this kind, with the tables of :data:`COLUMNS`."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.OperationalError:
            return False
        if row is None or row[0] != self.FORMAT:
            return False
        try:
            for table, cols in self.COLUMNS.items():
                if [r[1] for r in self.db.execute(f"PRAGMA table_info({table})")] != list(cols):
                    return False
        except sqlite3.DatabaseError:
            return False
        return True

    def _create(self) -> bool:
        """Create the tables in an empty file (False: the file holds something else)."""
        db = self.db
        if self.AUTO_VACUUM and not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("BEGIN IMMEDIATE")  # decided under the write lock: a concurrent creator is seen
        try:
            if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                ok = self._valid()
                db.execute("ROLLBACK")
                return ok
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            self._make_tables(db)
            db.execute("INSERT INTO meta VALUES ('format', ?)", (self.FORMAT,))
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _ours_older(self) -> bool:
        """The file is of this kind, another version (replaced, never misread)."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError:
            return False
        return row is not None and isinstance(row[0], str) and row[0].startswith(self.MAGIC + " ")

    def _rebuild(self) -> None:
        """Replace a corrupt, foreign or older file by an empty one of this kind."""
        self.stats["rebuilt"] += 1
        if self.db is not None:
            try:
                self.db.close()
            except sqlite3.Error:
                pass
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
        self.db = self._connect()
        if not self._create():
            raise sqlite3.DatabaseError(f"{self.path}: cannot create the {self.NOUN}")
        self._wal()

    def _wal(self) -> None:
        """WAL journal, set only once the file is known to be ours (it rewrites the header)."""
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")

    def _check_files(self) -> None:
        """Refuse links and special files at the database path and its companions."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = f"{self.path}{suffix}"
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                raise CacheRefused(p, "is a symlink (SQLite would write where it points)")
            if not stat.S_ISREG(st.st_mode):
                raise CacheRefused(p, "is not a regular file")

    def _open(self) -> None:
        from .safefs import FolderNotPrivate, check_private

        parent = self.path.parent
        parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            check_private(self.trusted_root or parent, parent)
        except FolderNotPrivate as e:
            raise CacheRefused(e.filename, f"cache folder {e.strerror}; anyone who can write it "
                                           "could change the results") from None
        self._check_files()
        # O_NOFOLLOW: a link swapped in after the check is refused here; the
        # same inode must still be at the path once SQLite has opened it
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise CacheRefused(self.path, "is not a regular file")
            head = os.pread(fd, 16, 0)
        finally:
            os.close(fd)
        if head and head != _SQLITE_MAGIC and not self.replace_foreign and st.st_size >= 16:
            raise CacheRefused(self.path, f"exists and is not a {self.KIND} (not an SQLite file); "
                                          f"{self.NOT_REPLACED}")
        try:
            self.db = self._connect()
            now = os.lstat(self.path)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                self.db.close()
                raise CacheRefused(self.path, "was replaced while being opened")
            self._check_files()
            if self._valid() or self._create():
                self._wal()
                return
            if not self.replace_foreign and not self._ours_older():
                self.db.close()
                raise CacheRefused(self.path, f"exists and is not a {self.KIND} (an SQLite database of "
                                              f"another program); {self.NOT_REPLACED}")
        except sqlite3.DatabaseError:  # not a database at all
            if not self.replace_foreign:
                raise CacheRefused(self.path, f"exists and is not a {self.KIND} (not a readable SQLite "
                                              f"database); {self.NOT_REPLACED_UNREADABLE}") from None
        self._rebuild()
