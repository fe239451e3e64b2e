"""Reading one untrusted file safely: the bounded regular-file reader every
package uses (``callgraph`` for sources and build files, ``javadoc`` for
site pages, anything reading a project's or a stranger's file).

:func:`read_regular` reads only a regular file (checked with ``lstat``
before and ``fstat`` after an ``O_NONBLOCK | O_NOFOLLOW`` open, so a FIFO
cannot block and a swapped-in link is refused) and never more than
``max_bytes`` bytes *read* (``stat`` sizes can lie: ``/proc`` files,
devices, files that grow). It lives in the bottom package so that
``javadoc``, which imports no other package of ours, needs no copy of it
(docs/security.md). The tree walk stays in :mod:`callgraph.safefs`.
"""

from __future__ import annotations

import os
import stat

__all__ = ["FileRefused", "read_regular", "is_inside", "file_kind"]

_CHUNK = 1 << 20


class FileRefused(OSError):
    """A file qare will not read: not a regular file, too large, or outside
    the project. ``strerror`` is the reason (shown as ``unreadable: <reason>``
    by callers that report ``OSError``)."""

    def __init__(self, path: str, reason: str):
        super().__init__(0, reason, path)


def file_kind(mode: int) -> str:
    """A file type for messages: ``"FIFO"``, ``"character device"``, ..."""
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "symlink")):
        if test(mode):
            return name
    return "special file"


def is_inside(real: str, root_real: str) -> bool:
    """Whether the real path ``real`` is ``root_real`` or below it (both
    already passed through ``os.path.realpath``)."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def read_regular(path: str | os.PathLike, max_bytes: int, *, root: str | os.PathLike | None = None,
                 truncate: bool = False) -> bytes:
    """The bytes of a regular file, at most ``max_bytes`` of them.

    Parameters
    ----------
    path : path-like
        The file; a symlink is followed to its real path first.
    max_bytes : int
        Upper bound on the bytes read (the limit holds on what is read, not
        on what ``stat`` says).
    root : path-like, optional
        When given, the file's real path must lie inside ``root``'s real path.
    truncate : bool
        Return the first ``max_bytes`` bytes of a longer file instead of
        refusing it.

    Raises
    ------
    FileRefused
        Outside ``root``; not a regular file (FIFO, device, socket, folder);
        more than ``max_bytes`` bytes (unless ``truncate``).
    OSError
        The file cannot be opened or read (missing, permissions).
    """
    path = os.fspath(path)
    # A path whose last part is no link names the very file its real path
    # does (the kernel follows the folder links, and `..` after them, as
    # realpath does): without a root to check, realpath, which lstats every
    # part of the path, is not needed (a build reads each of its files twice,
    # by the real paths walk_tree listed; realpath was half of that read)
    st = os.lstat(path) if root is None else None
    if st is not None and not stat.S_ISLNK(st.st_mode):
        real = path
    else:
        real = os.path.realpath(path)
        if root is not None and not is_inside(real, os.path.realpath(root)):
            raise FileRefused(path, f"symlink leads outside the project (to {real})")
        st = os.lstat(real)
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(path, f"not a regular file ({file_kind(st.st_mode)})")
    # O_NONBLOCK: should a FIFO appear between lstat and open, open returns
    # at once; O_NOFOLLOW: a link swapped in is refused (ELOOP).
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode) or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
            raise FileRefused(path, f"not a regular file ({file_kind(fst.st_mode)})")
        chunks = []
        got = 0
        while got <= max_bytes:
            b = os.read(fd, min(_CHUNK, max_bytes + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
        if got > max_bytes:
            if truncate:
                return b"".join(chunks)[:max_bytes]
            raise FileRefused(path, f"larger than the limit of {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
