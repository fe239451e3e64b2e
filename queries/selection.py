"""Selecting the projects of a list (Q-ARE §3.1): by the list's metadata
(stars, creation date) and by the checkout (test sources, imported
libraries)."""

from __future__ import annotations

import datetime as _dt
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from records.sourcesets import source_set

if TYPE_CHECKING:  # annotations only: projects imports this module
    from .projects import ProjectSpec

__all__ = ["Selection", "select_metadata", "select_checkout"]


@dataclass(frozen=True, slots=True)
class Selection:
    """Selection criteria (Q-ARE §3.1). ``None``/empty disables a criterion.

    Stars and dates apply when the list gives the metadata; a project
    without it is kept (with a note) unless ``require_metadata``.
    """

    min_stars: int | None = None
    created_after: _dt.date | None = None
    created_before: _dt.date | None = None
    require_metadata: bool = False
    require_tests: bool = False
    require_libs: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "min_stars": self.min_stars,
            "created_after": self.created_after.isoformat() if self.created_after else None,
            "created_before": self.created_before.isoformat() if self.created_before else None,
            "require_metadata": self.require_metadata,
            "require_tests": self.require_tests,
            "require_libs": list(self.require_libs),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Selection":
        """The inverse of :meth:`to_dict`: keys that are not criteria are
        ignored; dates may be ``date`` objects or ISO strings."""
        kw = {f: data[f] for f in cls.__slots__ if f in data}
        for k in ("created_after", "created_before"):
            if isinstance(kw.get(k), str):
                kw[k] = _dt.date.fromisoformat(kw[k])
        if "require_libs" in kw:
            kw["require_libs"] = tuple(kw["require_libs"])
        return cls(**kw)


def select_metadata(spec: ProjectSpec, sel: Selection) -> tuple[bool, str]:
    """Verdict from the list's metadata alone: ``(keep, reason)``.

    ``created_after`` and ``created_before`` are inclusive bounds.
    """
    notes = []
    if sel.min_stars is not None:
        if spec.stars is None:
            if sel.require_metadata:
                return False, "no stars metadata (--require-metadata)"
            notes.append("stars unknown")
        elif spec.stars < sel.min_stars:
            return False, f"stars {spec.stars} < {sel.min_stars}"
    if sel.created_after is not None or sel.created_before is not None:
        if spec.created_at is None:
            if sel.require_metadata:
                return False, "no created_at metadata (--require-metadata)"
            notes.append("created_at unknown")
        else:
            if sel.created_after and spec.created_at < sel.created_after:
                return False, f"created {spec.created_at} before {sel.created_after}"
            if sel.created_before and spec.created_at > sel.created_before:
                return False, f"created {spec.created_at} after {sel.created_before}"
    return True, "; ".join(notes)


_IMPORT = re.compile(rb"^\s*import\s+(?:static\s+)?([\w.]+)", re.M)


def _is_test_path(rel: Path) -> bool:
    # the call graph's own rule (records.sourcesets), so "has tests" means "has a test source set"
    return source_set(rel.parts) == "test"


def _java_files(root: Path):
    """``(real path, rel Path)`` of the ``.java`` files below *root*, hidden
    folders skipped, never leaving *root* (links out are not followed;
    callgraph.safefs)."""
    from callgraph.safefs import walk_tree

    for real, rel, _size in walk_tree(root, lambda n: n.endswith(".java"), lambda d: d.startswith(".")).files:
        yield real, Path(rel)


def _imported_prefix(source: bytes, prefixes: tuple[str, ...]) -> str | None:
    """The first of *prefixes* that an ``import`` in *source* names a type under."""
    for m in _IMPORT.finditer(source):
        name = m.group(1).decode("ascii", "replace")
        hit = next((p for p in prefixes if name == p or name.startswith(p + ".")), None)
        if hit:
            return hit
    return None


def select_checkout(root: Path, sel: Selection, max_files: int = 200_000) -> tuple[bool, str]:
    """Verdict from the checkout: test sources (``--require-tests``) and
    imported library prefixes (``--require-libs``): ``(keep, reason)``.

    A test source is a ``.java`` file of the ``test`` source set
    (:func:`records.sourcesets.source_set`: under ``src/<set>/java`` with
    ``test`` in the set's name, or in a plain layout under a ``test``/``tests``
    folder) — the same rule the call graph uses. A library
    is used when an ``import`` (or ``import static``) names a type under one
    of the prefixes (``org.springframework`` matches
    ``org.springframework.web.bind.annotation.GetMapping``).
    """
    if not sel.require_tests and not sel.require_libs:
        return True, ""
    has_tests = False
    found_lib = None
    prefixes = tuple(p.rstrip(".") for p in sel.require_libs)
    from callgraph.safefs import read_regular

    for path, rel in itertools.islice(_java_files(root), max_files):
        if not has_tests and _is_test_path(rel):
            has_tests = True
        if prefixes and found_lib is None:
            try:
                head = read_regular(path, 200_000, root=root, truncate=True)
            except OSError:  # FileRefused too: a FIFO, device or link out is not read
                continue
            found_lib = _imported_prefix(head, prefixes)
        if (has_tests or not sel.require_tests) and (found_lib or not prefixes):
            break
    if sel.require_tests and not has_tests:
        return False, "no test sources (--require-tests)"
    if prefixes and not found_lib:
        return False, f"imports none of {', '.join(prefixes)} (--require-libs)"
    return True, ""
