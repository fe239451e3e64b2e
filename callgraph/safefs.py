"""Walking and reading a project's files without leaving its root.

A project tree comes from a stranger, so a file name promises nothing: a
``.java`` entry may be a symlink to ``/etc/passwd``, a folder link may point
at ``/``, and ``Foo.java`` may be a FIFO (``open`` blocks forever) or a link
to ``/dev/zero`` (endless bytes). Everything that opens a project's files
goes through this module (docs/security.md):

- :func:`walk_tree` lists the files below a root by their **real** paths:
  a symlink (to a file or a folder) whose target lies outside the root is
  skipped and reported; folders are visited once, at their real location
  first (so an internal link seen before the real folder cannot hide it);
  a link to a folder inside the root is walked only when that folder is not
  walked anyway (for instance because it sits under a skipped build
  folder); an unreadable folder is reported, not silently skipped.
- :func:`read_regular` reads one file: only a regular file (checked with
  ``lstat`` before and ``fstat`` after an ``O_NONBLOCK | O_NOFOLLOW`` open,
  so a FIFO cannot block and a swapped-in link is refused) and never more
  than ``max_bytes`` bytes *read* (``stat`` sizes can lie: ``/proc`` files,
  devices, files that grow).

Both assume the tree does not change while qare reads it; the checks make a
change fail safe (refused file), not the other way round.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import Callable

# the reader is shared with javadoc (which imports nothing of ours but records)
from records.safefs import FileRefused, file_kind, is_inside, read_regular

__all__ = ["FileRefused", "FolderNotPrivate", "TreeListing", "walk_tree", "walk", "read_regular", "is_inside",
           "file_kind", "check_private", "make_private_dirs", "write_private"]

@dataclass(slots=True)
class TreeListing:
    """What :func:`walk_tree` found.

    Attributes
    ----------
    files : list of (str, str, int)
        ``(real path, rel path, size in bytes)`` of each wanted regular file,
        ``rel`` POSIX and relative to the root (through the link when a file
        was reached through an internal folder link), in walk order; each
        real file once.
    skipped : list of (str, str)
        ``(rel path, reason)``: links leading outside, broken links, links
        to what is visited at its real path, special files with a wanted
        name, unreadable folders.
    """

    files: list[tuple[str, str, int]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def walk(top: str | os.PathLike, followlinks: bool = False):
    """``os.walk(top, followlinks=followlinks)`` top-down, without recursion:
    yields ``(dirpath, dirnames, filenames)``, folders depth-first in
    ``dirnames`` order (prune or sort ``dirnames`` in place, as with
    ``os.walk``); a folder that cannot be listed is skipped. Python 3.11's
    ``os.walk`` recursed once per folder level, so a stranger's tree 1,000
    folders deep was a ``RecursionError`` (session 8: Maven discovery of
    such a project was a traceback)."""
    stack = [os.fspath(top)]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        dirs, files = [], []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(e.name)
        yield d, dirs, files
        for name in reversed(dirs):
            sub = os.path.join(d, name)
            if followlinks or not os.path.islink(sub):
                stack.append(sub)


def walk_tree(root: str | os.PathLike, want: Callable[[str], bool],
              skip_dir: Callable[[str], bool] = lambda name: False) -> TreeListing:
    """List the wanted files below ``root`` without leaving it.

    Parameters
    ----------
    root : path-like
        A folder (a symlinked root is resolved first and taken as the root).
    want : callable(str) -> bool
        Whether a file name (not path) is wanted (``lambda n: n.endswith(".java")``).
    skip_dir : callable(str) -> bool
        Whether a folder name is never entered (hidden, build output).

    Returns
    -------
    TreeListing
        Folders are entered in sorted order; the real tree is walked before
        any folder link, so the real location of a folder always wins.
    """
    root_real = os.path.realpath(root)
    out = TreeListing()
    visited: dict[str, str] = {}  # real folder -> rel where it was walked
    seen_files: dict[str, str] = {}  # real file -> rel
    dir_links: list[tuple[str, str, str]] = []  # (rel, link path, real target)
    file_links: list[tuple[str, str]] = []  # (rel, real target)

    def walk(start: str, start_rel: str) -> None:
        # a folder met by scandir that is no link lies at its parent's real path + its name: only
        # the start (the root, a folder link) needs realpath, which lstats every component
        # (a third of a warm `qare chain` on spring-framework's 3,000 folders)
        stack = [(start, start_rel, os.path.realpath(start))]
        while stack:
            d, rel, real_d = stack.pop()
            if real_d in visited:
                out.skipped.append((rel, "symlink loop or repeated folder (already visited at "
                                         f"{visited[real_d] or '.'})"))
                continue
            visited[real_d] = rel
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as e:
                out.skipped.append((rel or ".", f"unreadable folder: {e.strerror or e}"))
                continue
            subdirs = []
            for e in entries:
                erel = f"{rel}/{e.name}" if rel else e.name
                try:
                    if e.is_symlink():
                        target = os.path.realpath(e.path)
                        if not os.path.lexists(target) or not os.path.exists(e.path):
                            if want(e.name):
                                out.skipped.append((erel, "broken symlink"))
                            continue
                        is_dir = os.path.isdir(target)
                        if is_dir and skip_dir(e.name):
                            continue
                        if not is_dir and not want(e.name):
                            continue
                        if not is_inside(target, root_real):
                            out.skipped.append((erel, f"symlink leads outside the project (to {target})"))
                        elif is_dir:
                            dir_links.append((erel, e.path, target))
                        else:
                            file_links.append((erel, target))
                        continue
                    if e.is_dir(follow_symlinks=False):
                        if not skip_dir(e.name):
                            subdirs.append((e.path, erel, os.path.join(real_d, e.name)))
                        continue
                    if not want(e.name):
                        continue
                    st = e.stat(follow_symlinks=False)
                except OSError as exc:
                    if want(e.name):
                        out.skipped.append((erel, f"unreadable: {exc.strerror or exc}"))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    out.skipped.append((erel, f"not a regular file ({file_kind(st.st_mode)})"))
                    continue
                real_f = os.path.join(real_d, e.name)
                seen_files[real_f] = erel
                out.files.append((real_f, erel, st.st_size))
            stack.extend(reversed(subdirs))

    walk(root_real, "")
    # Folder links last: their target was walked at its real location unless
    # it lies under a skipped folder; links met while walking a link are
    # appended and handled in turn.
    i = 0
    while i < len(dir_links):
        rel, link, target = dir_links[i]
        i += 1
        if target in visited:
            out.skipped.append((rel, "symlink loop or repeated folder (already visited at "
                                     f"{visited[target] or '.'})"))
            continue
        walk(link, rel)
    for rel, target in file_links:
        if target in seen_files:
            out.skipped.append((rel, f"symlink to {seen_files[target]}, read at its real path"))
            continue
        try:
            st = os.lstat(target)
        except OSError as exc:
            out.skipped.append((rel, f"unreadable: {exc.strerror or exc}"))
            continue
        if not stat.S_ISREG(st.st_mode):
            out.skipped.append((rel, f"not a regular file ({file_kind(st.st_mode)})"))
            continue
        seen_files[target] = rel
        out.files.append((target, rel, st.st_size))
    return out


class FolderNotPrivate(OSError):
    """A cache folder qare will not trust: another user owns it, or a group
    or everyone may write into it (``strerror`` says which, ``filename`` the
    folder)."""

    def __init__(self, path: str, reason: str):
        super().__init__(0, reason, path)


def check_private(top: str | os.PathLike, below: str | os.PathLike | None = None) -> None:
    """Refuse a cache folder that someone else could have written into.

    Every existing folder from ``top`` down to ``below`` (both included;
    ``below`` defaults to ``top`` and must lie under it) is checked at its
    real path, like ``ssh`` checks ``~/.ssh``: it must be owned by the
    current user (or root) and not be world-writable, nor group-writable
    unless the group is the user's private group (:func:`_own_group`). Anything
    qare *runs* from a cache folder (JDT's jars, the compiled JDT visitor,
    Vineflower) and the warm cache's rows are trusted only after this check;
    a folder that does not exist yet passes (qare creates it, private).

    Raises
    ------
    FolderNotPrivate
        A folder owned by another user, or writable by group or others.
    """
    top_real = os.path.realpath(top)
    end = os.path.realpath(below) if below is not None else top_real
    if not is_inside(end, top_real):
        raise FolderNotPrivate(os.fspath(below), f"leads outside the cache folder {top_real}")
    rel = os.path.relpath(end, top_real)
    parts = [] if rel == "." else rel.split(os.sep)
    uid = os.getuid()
    d = top_real
    for part in [None, *parts]:
        if part is not None:
            d = os.path.join(d, part)
        try:
            st = os.lstat(d)
        except FileNotFoundError:
            return  # not made yet: qare makes the rest itself
        if stat.S_ISLNK(st.st_mode):  # swapped in after realpath
            raise FolderNotPrivate(d, "is a symlink")
        if st.st_uid not in (uid, 0):
            raise FolderNotPrivate(d, f"owned by another user (uid {st.st_uid})")
        if st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and not _own_group(st.st_gid, uid)):
            raise FolderNotPrivate(d, f"writable by group or others (mode {stat.S_IMODE(st.st_mode):o})")


def _own_group(gid: int, uid: int) -> bool:
    """Whether ``gid`` is the user's private group (named as the user, no
    other members): a umask of 002, usual with such groups, then makes
    group-writable folders that nobody else can write (ssh accepts them too)."""
    import grp
    import pwd

    try:
        user = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    return gid == user.pw_gid and group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}


def make_private_dirs(top: str | os.PathLike, path: str | os.PathLike) -> None:
    """Create the missing folders from ``top`` down to ``path`` (both included), each
    mode 0700 (folders above a missing ``top`` with the default mode), then
    :func:`check_private` the chain: an existing folder that is not private raises
    :class:`FolderNotPrivate`, it is never silently reused."""
    stop = os.path.abspath(top)
    if not os.path.lexists(stop):
        os.makedirs(os.path.dirname(stop), exist_ok=True)
        try:
            os.mkdir(stop, 0o700)  # the umask can only take bits away
        except FileExistsError:
            pass  # made meanwhile: check_private judges it
    check_private(top, path)
    missing = []
    p = os.path.abspath(path)
    while p != stop and not os.path.lexists(p) and os.path.dirname(p) != p:
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
    check_private(top, path)


def write_private(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, mode 0600: a temporary file with a
    random name opened ``O_CREAT | O_EXCL | O_NOFOLLOW`` (``tempfile.mkstemp``) in the
    same folder, fsynced and renamed over ``path``. A link planted at any name in the
    folder is never written through (``os.replace`` swaps the name, not the target)."""
    import tempfile

    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
