"""The output folder of a build: one builder at a time (``flock`` on
``OUT/.lock``), and the temporary files a killed build left behind. Files
are written by :mod:`records.io` (atomic, never through a planted link)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from records.io import pid_alive, tmp_owner

from ._options import BuildError

__all__ = ["lock_out", "remove_stale_tmp", "LOCK_FILE"]

LOCK_FILE = ".lock"


def lock_out(out: Path):
    """An exclusive ``flock`` on ``out/.lock``, held until the returned file
    is closed (or the process dies: the kernel drops it, so a killed build
    never leaves a stale lock). Raises ``BuildError`` when another build holds it."""
    import fcntl

    lock = out / LOCK_FILE
    try:
        # never through a symlink (a shared --out could point it at a victim
        # file), never a FIFO or device (open would block or read forever)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise BuildError(f"{lock}: cannot open the build lock ({e.strerror or e}); "
                         "remove it if it is a link or not a regular file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BuildError(f"{lock}: the build lock is not a regular file; remove it")
    fh = open(fd, "a+", encoding="utf-8")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise BuildError(f"{out}: another qare build ({holder}) is writing to this folder; "
                         "wait for it to finish or use another --out") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}\n")
    fh.flush()
    return fh


def remove_stale_tmp(*folders: Path) -> list[str]:
    """Remove ``.<name>.<pid>.tmp`` files of dead processes (a build killed
    during a write) — and this process's own: called under the lock, before
    this build writes anything, so one with its id is a dead writer's that
    had the same id (PID 1 in a container, run after run, where
    ``pid_alive(1)`` kept it for ever: the tester, session 9); returns their
    paths."""
    removed = []
    for d in folders:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            pid = tmp_owner(n)
            if pid is not None and (pid == os.getpid() or not pid_alive(pid)):
                try:
                    os.unlink(d / n)
                    removed.append(str(d / n))
                except OSError:
                    pass
    return removed
