"""A fingerprint of the code that produced a cached result.

Caches (the warm per-file cache, the graph store) must never answer from rows
another version of qare wrote: a changed resolver, a changed record reader
(this package) or another tree-sitter grammar can change every answer. The
fingerprint hashes the *contents* of the given packages' modules — not their
size and mtime, which an editor or a checkout can keep — and the installed
versions of the given distributions.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["code_version"]

_HERE = Path(__file__).resolve().parent
_MEMO: dict = {}


def code_version(*folders: str | os.PathLike, distributions: tuple[str, ...] = ()) -> str:
    """16 hex digits over the ``*.py`` modules of ``folders`` and of this
    ``records`` package (name and bytes of each, in sorted order) and the
    installed version of each distribution in ``distributions`` (PyPI names;
    ``missing`` when not installed). Memoised per process: the code does not
    change under a running process that already imported it.
    """
    key = (tuple(os.fspath(f) for f in folders), tuple(distributions))
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    h = hashlib.sha256()
    for folder in sorted({Path(f).resolve() for f in folders} | {_HERE}):
        h.update(f"package {folder.name}\n".encode())
        for p in sorted(folder.glob("*.py")):
            try:
                data = p.read_bytes()
            except OSError:
                data = b"\0missing"
            h.update(p.name.encode() + b"\0" + hashlib.sha256(data).digest())
    if distributions:
        from importlib import metadata

        for d in distributions:
            try:
                v = metadata.version(d)
            except metadata.PackageNotFoundError:
                v = "missing"
            h.update(f"dist {d}=={v}\n".encode())
    out = _MEMO[key] = h.hexdigest()[:16]
    return out
