"""Stat signatures: "is this file unchanged since we recorded it?" answered
by one ``stat`` instead of reading it, git-index style (docs/callgraph.md
"Graph store", "Stat rule").

A file's *signature* is ``(size, mtime_ns, ctime_ns, inode, device)``. A
recorded signature stands for the file's content only when it was recorded
well after the file was last written: a file whose mtime or ctime is not
older than the record's own write time minus :data:`RACY_NS` is *racy* (a
later write in the same timestamp tick could leave the signature unchanged,
git's "racy clean" problem) and must be hashed. Why an equal, non-racy
signature means equal content: every write sets ctime to the current time
and nothing a user runs can set it back (``utime``/``touch -d`` set mtime
and, in doing so, ctime to now); a file replaced by rename has another
inode; the window covers coarse (2 s FAT) timestamps.

Used by the graph store (callgraph._graphstore) and meant for the warm
cache's input check too: one rule, one place. Imports nothing heavy: a
warm ``qare chain`` loads it.
"""

from __future__ import annotations

import os

__all__ = ["RACY_NS", "MISSING", "signature", "signature_of", "trusted", "unchanged"]

#: a file whose mtime or ctime is this close to (or after) the record's write time is hashed, never trusted by stat
RACY_NS = 3_000_000_000
#: the signature of a file that could not be stat'ed (never equal to a real one: sizes are >= 0)
MISSING = (-1, -1, -1, -1, -1)


def signature_of(st: os.stat_result) -> tuple:
    """``(size, mtime_ns, ctime_ns, inode, device)`` of a stat result."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def signature(path) -> tuple:
    """The signature of ``path`` (following links, as reading it does), :data:`MISSING` when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return MISSING
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def trusted(sig, written_ns: int) -> bool:
    """Does the recorded signature ``sig`` stand for the file's content, the
    record having been written at ``written_ns`` (ns since the epoch, taken
    *before* the file was stat'ed)? False for a racy or missing signature."""
    limit = written_ns - RACY_NS
    return sig[0] >= 0 and sig[1] < limit and sig[2] < limit


def unchanged(path, recorded, written_ns: int, digest, recorded_digest) -> bool:
    """Is ``path`` the file recorded with signature ``recorded`` and content
    digest ``recorded_digest`` at time ``written_ns``? One ``stat`` when the
    signature is equal and not racy; otherwise ``digest(path)`` (None when
    unreadable) is compared with ``recorded_digest`` (None never matches)."""
    now = signature(path)
    if now == tuple(recorded) and trusted(now, written_ns):
        return True
    return recorded_digest is not None and digest(path) == recorded_digest
