"""Reading and writing a dataset folder (DESIGN.md "A dataset on disk") and
prediction files, losing nothing: a bad line is recorded, the rest is read.

The line reader and the atomic writer are :mod:`records.io`'s (one of each
for every package); this module puts a dataset folder together from them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from records.dataset import (
    APIS_FILE,
    MANIFEST_FILE,
    PROJECTS_FILE,
    SAMPLES_FILE,
    ApiRecord,
    SampleRecord,
)
from records.io import Problem, read_jsonl, write_json, write_jsonl

__all__ = [
    "Problem",
    "Dataset",
    "DatasetError",
    "load_dataset",
    "write_dataset",
    "load_predictions",
    "write_predictions",
    "read_jsonl",
]


class DatasetError(Exception):
    """The dataset folder or file cannot be used at all (missing, not a
    folder, no samples file). ``no_input`` is True when there is nothing to
    read (exit code 3), False when the input is unusable otherwise."""

    def __init__(self, message: str, no_input: bool = True):
        super().__init__(message)
        self.no_input = no_input


@dataclass(frozen=True, slots=True)
class Dataset:
    """A dataset folder read into records.

    ``samples`` in file order (a repeated id keeps its first record),
    ``apis`` likewise, ``projects`` the raw ``projects.jsonl`` objects,
    ``manifest`` the ``manifest.json`` object (``{}`` when absent),
    ``problems`` every line that could not be read.
    """

    path: str
    samples: tuple[SampleRecord, ...]
    apis: tuple[ApiRecord, ...] = ()
    projects: tuple[dict, ...] = ()
    manifest: dict = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()


def load_dataset(path: str | os.PathLike) -> Dataset:
    """Read a dataset folder.

    ``samples.jsonl`` is required; ``apis.jsonl``, ``projects.jsonl`` and
    ``manifest.json`` are optional. Raises ``DatasetError`` when the folder
    or its samples file is missing.
    """
    root = Path(path)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset folder (missing or not a directory)")
    sfile = root / SAMPLES_FILE
    if not sfile.is_file():
        if os.path.lexists(sfile):  # a FIFO, device or folder by that name: say so
            from records.safefs import file_kind

            try:
                what = file_kind(os.stat(sfile).st_mode)
            except OSError:
                what = "broken symlink"
            raise DatasetError(f"{root}: {SAMPLES_FILE} is a {what}, not a regular file")
        raise DatasetError(f"{root}: no {SAMPLES_FILE}")
    samples, problems = read_jsonl(sfile, SampleRecord.from_dict)
    seen: set[str] = set()
    unique = []
    for s in samples:
        if s.id in seen:
            problems.append(Problem(str(sfile), None, f"sample id {s.id!r} repeated; first record kept"))
            continue
        seen.add(s.id)
        unique.append(s)
    apis: list[ApiRecord] = []
    if (root / APIS_FILE).is_file():
        apis, p = read_jsonl(root / APIS_FILE, ApiRecord.from_dict)
        problems += p
    projects: list[dict] = []
    if (root / PROJECTS_FILE).is_file():
        projects, p = read_jsonl(root / PROJECTS_FILE, _require_object)
        problems += p
    manifest: dict = {}
    mfile = root / MANIFEST_FILE
    if mfile.is_file():
        try:
            manifest = json.loads(mfile.read_text(encoding="utf-8"))
            if not isinstance(manifest, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:  # json recurses per nesting level
            problems.append(Problem(str(mfile), None, f"unreadable manifest: {type(e).__name__}: {e}"))
            manifest = {}
    return Dataset(str(root), tuple(unique), tuple(apis), tuple(projects), manifest, tuple(problems))


def _require_object(obj: Any) -> dict:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def write_dataset(
    path: str | os.PathLike,
    samples: Iterable[SampleRecord],
    apis: Iterable[ApiRecord] = (),
    projects: Iterable[dict] = (),
    manifest: dict | None = None,
) -> Path:
    """Write a dataset folder (created if needed): the three JSONL files and
    ``manifest.json``. Each file is written to a temporary name and renamed,
    so a reader never sees half a file. Returns the folder."""
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    write_jsonl(root / SAMPLES_FILE, samples)
    write_jsonl(root / APIS_FILE, apis)
    write_jsonl(root / PROJECTS_FILE, projects)
    write_json(root / MANIFEST_FILE, manifest or {})
    return root


def _prediction(obj: Any) -> tuple[str, list[str], list[str]]:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    if "id" not in obj:
        raise ValueError("no 'id'")
    if "predictions" not in obj:
        raise ValueError("no 'predictions'")
    preds = obj["predictions"]
    if not isinstance(preds, list):
        raise ValueError("'predictions' is not a list")
    good = [p for p in preds if isinstance(p, str)]
    notes = [f"non-string prediction dropped: {p!r}" for p in preds if not isinstance(p, str)]
    return str(obj["id"]), good, notes


def load_predictions(path: str | os.PathLike) -> tuple[dict[str, list[str]], list[Problem]]:
    """Read a predictions JSONL file: one ``{"id": ..., "predictions": [...]}``
    a line, predictions ranked best first.

    Returns ``({id: ranked list}, problems)``; a repeated id keeps its first
    line. Raises ``FileNotFoundError`` if the file is missing.
    """
    records, problems = read_jsonl(path, _prediction)
    out: dict[str, list[str]] = {}
    for sid, preds, notes in records:
        for note in notes:
            problems.append(Problem(str(path), None, f"id {sid!r}: {note}"))
        if sid in out:
            problems.append(Problem(str(path), None, f"id {sid!r} repeated; first line kept"))
            continue
        out[sid] = preds
    return out, problems


def write_predictions(path: str | os.PathLike, predictions: Iterable[tuple[str, list[str]]]) -> Path:
    """Write ``(id, ranked list)`` pairs as predictions JSONL."""
    p = Path(path)
    if p.parent:
        p.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(p, ({"id": sid, "predictions": list(preds)} for sid, preds in predictions))
    return p
