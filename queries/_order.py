"""The order a pool analyses projects in: the largest first.

With ``--jobs N`` the build ends when its slowest worker does; a large
project taken last runs alone while the other workers idle. Starting the
largest ones first (longest processing time first, the classic list
schedule) leaves only small projects for the end, where they fill the gaps.
The order changes nothing in the output: parts are merged in list order.

A project's size is estimated before anything runs, from what is on disk:
the bytes of its ``.java`` files (a local folder, or the checkout a previous
build cloned into the cache). A project with nothing on disk yet (a URL not
cloned) is taken first: fetching it is a cost of its own, and its size is
unknown.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Sequence

from .fetching import _is_bare_repo
from .projects import ProjectSpec

__all__ = ["largest_first", "java_bytes"]

#: directory entries looked at per project at most: the estimate of a huge tree stops there
MAX_ENTRIES = 200_000


def java_bytes(root: str | os.PathLike, max_entries: int = MAX_ENTRIES) -> int | None:
    """Bytes of the ``.java`` files under ``root`` (hidden folders skipped,
    links never followed, at most ``max_entries`` entries looked at);
    ``None`` when ``root`` is not a folder."""
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            return None
    except OSError:
        return None
    total, seen, stack = 0, 0, [os.fspath(root)]
    while stack and seen < max_entries:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    seen += 1
                    if seen > max_entries:
                        break
                    try:
                        if e.is_dir(follow_symlinks=False):
                            if not e.name.startswith("."):
                                stack.append(e.path)
                        elif e.name.endswith(".java") and e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def _on_disk(spec: ProjectSpec, cache_dir: str | None) -> Path | None:
    """Where the project's sources are before its analysis runs, if anywhere
    (as :func:`~queries.fetching.fetch_project` finds them)."""
    src = Path(spec.source)
    if not spec.is_url and not _is_bare_repo(src):
        return src  # a folder used in place
    if cache_dir:
        return Path(cache_dir) / spec.key  # cloned by an earlier build, when it was
    return None


def largest_first(specs: Sequence[ProjectSpec], cache_dir: str | None = None) -> list[ProjectSpec]:
    """``specs`` with those of unknown size first, then by decreasing
    :func:`java_bytes`; list order among equals."""
    def key(item):
        i, s = item
        where = _on_disk(s, cache_dir)
        size = java_bytes(where) if where is not None else None
        return (0, 0, i) if size is None else (1, -size, i)

    return [s for _, s in sorted(enumerate(specs), key=key)]
