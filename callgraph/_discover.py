"""Source discovery (source roots, source sets) and decoding of ``.java`` files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from records.sourcesets import source_set

from ._errors import NoInputError
from .safefs import walk_tree

# Build output and tool folders never hold project sources.
_SKIP_DIRS = frozenset({"target", "build", "out", "node_modules", "bin"})


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One ``.java`` file to analyse.

    Attributes
    ----------
    path : str
        Real absolute path (symlinks resolved; always inside the root).
    rel : str
        POSIX path relative to the project root (through an internal folder
        link when the file was only reachable that way).
    source_set : str
        ``"main"`` or ``"test"``.
    size : int
        Size in bytes.
    """

    path: str
    rel: str
    source_set: str
    size: int


def _source_set_of(rel_parts: tuple[str, ...]) -> str:
    # the one test-code rule, shared with queries' --require-tests
    return source_set(rel_parts)


def discover_sources(root, *, max_file_bytes: int = 2_000_000):
    """Find the ``.java`` files of a project.

    When the tree has Maven/Gradle source roots (``src/<set>/java`` at any
    depth, so multi-module builds are covered) only files under them are
    taken; otherwise every ``.java`` file of the folder (plain layout).
    Hidden folders and build output folders (``target``, ``build``, ``out``,
    ``bin``) are skipped. Symlinks never lead outside ``root``: a link to a
    file or folder outside is skipped and reported, and every folder is
    visited once, at its real location first (see :func:`callgraph.safefs.walk_tree`);
    a ``.java`` name that is not a regular file (FIFO, device) is reported.

    Parameters
    ----------
    root : str or Path
        Project folder (or a single ``.java`` file).
    max_file_bytes : int
        Files larger than this are skipped (recorded with the reason).

    Returns
    -------
    (list[SourceFile], list[tuple[str, str]])
        Files sorted by relative path; skipped ``(rel path, reason)`` pairs.

    Raises
    ------
    NoInputError
        ``root`` does not exist, or holds no ``.java`` file.
    """
    root = Path(root)
    if not root.exists():
        raise NoInputError(f"project path does not exist: {root}")
    skipped: list[tuple[str, str]] = []
    found: list[tuple[str, str, int | None]] = []  # (real path, rel, size)
    if root.is_file():
        if root.suffix != ".java":
            raise NoInputError(f"not a .java file or a folder: {root}")
        found.append((os.path.realpath(root), root.name, None))
        base = root.parent
    else:
        base = root
        listing = walk_tree(root, lambda n: n.endswith(".java"),
                            lambda d: d.startswith(".") or d in _SKIP_DIRS)
        found = listing.files
        skipped = listing.skipped
    if not found and not skipped:
        raise NoInputError(f"no .java files under {root}")
    has_roots = any(_source_set_root(rel) for _, rel, _ in found)
    files: list[SourceFile] = []
    for p, rel, size in found:
        if has_roots and not _source_set_root(rel):
            continue
        if size is None:
            try:
                size = os.stat(p).st_size
            except OSError as e:
                skipped.append((rel, f"unreadable: {e.strerror or e}"))
                continue
        if size > max_file_bytes:
            skipped.append((rel, f"larger than max_file_bytes ({size} > {max_file_bytes})"))
            continue
        files.append(SourceFile(p, rel, _source_set_of(tuple(rel.split("/"))), size))
    files.sort(key=lambda f: f.rel)
    if not files:
        raise NoInputError(f"no usable .java files under {base} "
                           f"({len(skipped)} skipped: {skipped[:3]})")
    return files, skipped


def _source_set_root(rel: str) -> bool:
    parts = rel.split("/")
    return any(parts[i] == "src" and parts[i + 2] == "java" for i in range(len(parts) - 3))


def decode_source(data: bytes) -> tuple[str, str | None]:
    """Decode Java source bytes.

    Order: a BOM (UTF-8, UTF-16 LE/BE) decides; else strict UTF-8; else
    charset-normalizer's best guess; else ISO-8859-1 (never fails).

    Returns
    -------
    (str, str or None)
        The text and the fallback encoding used (``None`` for plain UTF-8).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
        if best is not None and best.encoding:
            return str(best), best.encoding
    except Exception:  # the fallback below never fails
        pass
    return data.decode("iso-8859-1"), "iso-8859-1"
