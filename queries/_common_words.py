"""The leak check's common-word answers, kept on disk between builds.

:func:`queries.leaks.is_common_word` asks ``wordfreq`` whether a one-part
name is a common English word. Loading wordfreq's English list costs about
0.3 s (import, gzip, msgpack) — in every build's serial merge stage, for a
handful of words. This memo keeps the answers in one small JSON file under
the qare cache, ``leaks/common-words-<tag>.json``, so a build whose words
were all asked before never loads wordfreq (docs/dataset.md "Scaling").

The tag is a digest of the wordfreq version, the word list and the
threshold: another version or threshold never sees these answers. The file
is data, never code: a JSON object of word → bool, read only in a private
qare cache folder (:func:`callgraph.safefs.check_private`), as a regular
file of at most :data:`MAX_BYTES`; anything else (corrupt, foreign, a link
out of the folder, a FIFO, too large) is ignored — the words are asked again
and the file is rewritten. A tampered file can change only which queries
count as leaky, as a tampered doc-index entry can change a description; the
privacy check keeps other users out of both.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["CommonWords", "MAX_BYTES"]

MAX_BYTES = 4 << 20  # ~100,000 words; a build asks a few hundred
FOLDER = "leaks"


def _tag(threshold: float) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        wf = version("wordfreq")
    except PackageNotFoundError:  # an unusual install: no memo rather than a wrong one
        wf = "unknown"
    return hashlib.sha256(f"wordfreq {wf}\0en best\0zipf >= {threshold!r}".encode()).hexdigest()[:16]


class CommonWords:
    """``word → is common`` answers of one process, backed by the memo file.

    Parameters
    ----------
    threshold : float
        The Zipf frequency at or above which a word is common.
    base : path-like or None
        The qare cache folder (``None``: no file, answers live in memory only).
    """

    def __init__(self, threshold: float, base: str | os.PathLike | None):
        self.threshold = threshold
        self.base = Path(base) if base is not None else None
        self.path = self.base / FOLDER / f"common-words-{_tag(threshold)}.json" if self.base is not None else None
        self.known: dict[str, bool] = {}
        self.new = 0  # answers asked of wordfreq since the last save
        self.loaded = False
        self.found = False  # the file was read (possibly with no answers yet)

    def _private(self) -> bool:
        from callgraph.safefs import check_private

        try:
            check_private(self.base, self.base / FOLDER)
        except OSError:
            return False
        return True

    def load(self) -> None:
        """Read the memo file once (a missing, unreadable or malformed file is none)."""
        if self.loaded:
            return
        self.loaded = True
        if self.path is None or not self._private():
            return
        from records.safefs import read_regular

        try:
            # another user's file is not read, even in the private folder (as the output cache)
            if os.lstat(self.path).st_uid != os.geteuid():
                return
            d = json.loads(read_regular(self.path, MAX_BYTES, root=self.base / FOLDER).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return
        if type(d) is not dict or not all(type(k) is str and type(v) is bool for k, v in d.items()):
            return  # foreign shape: ignored whole, rewritten at the next save
        for k, v in d.items():
            self.known.setdefault(k, v)
        self.found = True

    def __call__(self, word: str) -> bool:
        """Is ``word`` (lower-cased here) common? The memo's answer, else wordfreq's."""
        w = word.lower()
        got = self.known.get(w)
        if got is None:
            self.load()
            got = self.known.get(w)
        if got is None:
            from wordfreq import zipf_frequency

            got = zipf_frequency(w, "en") >= self.threshold
            self.known[w] = got
            self.new += 1
        return got

    def save(self) -> None:
        """Write the memo atomically (mode 0600) when wordfreq was asked
        anything new or no file was read (an empty memo tells the next build
        that no answer is missing yet); errors (disk full, folder not private)
        are swallowed — the answers are in hand, the file only saves the next
        build time."""
        self.load()
        if self.path is None or (self.found and not self.new):
            return
        from callgraph.safefs import write_private

        try:
            if not self._private():
                return
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self._private():  # the folder made (or found) is the one checked
                return
            # mode 0600 from the start, under a fresh name no planted link can sit at
            write_private(self.path, json.dumps(dict(sorted(self.known.items())), separators=(",", ":")).encode())
        except OSError:
            return
        self.new = 0
        self.found = True
