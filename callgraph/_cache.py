"""Per-file declaration cache in SQLite, keyed by content hash (DESIGN.md "Scale")."""

from __future__ import annotations

import hashlib
import pickle
import sqlite3

from ._facts import FileFacts
from .safefs import read_regular

_SCHEMA_VERSION = 3  # bump when FileFacts changes shape


class FactsCache:
    """``FileFacts`` stored by (sha256 of the bytes, path, source set, loc mode).

    Only pickles this process wrote itself are read back (the file is the
    user's own cache, not untrusted input); a row that fails to load is
    ignored and re-parsed.
    """

    def __init__(self, path, max_bytes: int = 2_000_000):
        self.max_bytes = max_bytes
        self.db = sqlite3.connect(str(path))
        self.db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, blob BLOB)")
        self._pending: list = []

    @staticmethod
    def _key(data: bytes, rel: str, source_set: str, loc_mode: str) -> str:
        h = hashlib.sha256(data).hexdigest()
        return f"{_SCHEMA_VERSION}:{h}:{rel}:{source_set}:{loc_mode}"

    def get(self, path: str, rel: str, source_set: str, loc_mode: str) -> FileFacts | None:
        try:
            key = self._key(read_regular(path, self.max_bytes), rel, source_set, loc_mode)
        except OSError:
            return None
        row = self.db.execute("SELECT blob FROM facts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            ff = pickle.loads(row[0])
        except Exception:
            return None
        return ff if isinstance(ff, FileFacts) else None

    def put(self, path: str, ff: FileFacts, loc_mode: str) -> None:
        try:
            key = self._key(read_regular(path, self.max_bytes), ff.rel, ff.source_set, loc_mode)
        except OSError:
            return
        self._pending.append((key, pickle.dumps(ff, protocol=pickle.HIGHEST_PROTOCOL)))
        if len(self._pending) >= 500:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self.db.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?)", self._pending)
            self.db.commit()
            self._pending = []

    def close(self) -> None:
        self.flush()
        self.db.close()
