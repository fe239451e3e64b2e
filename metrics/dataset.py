"""Reading and writing a dataset folder (DESIGN.md "A dataset on disk") and
prediction files, losing nothing: a bad line is recorded, the rest is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queries.schema import (
    APIS_FILE,
    MANIFEST_FILE,
    PROJECTS_FILE,
    SAMPLES_FILE,
    ApiRecord,
    SampleRecord,
    SchemaError,
)

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

_MAX_LINE = 16 * 1024 * 1024  # one JSONL record larger than this is refused


class DatasetError(Exception):
    """The dataset folder or file cannot be used at all (missing, not a
    folder, no samples file). ``no_input`` is True when there is nothing to
    read (exit code 3), False when the input is unusable otherwise."""

    def __init__(self, message: str, no_input: bool = True):
        super().__init__(message)
        self.no_input = no_input


@dataclass(frozen=True, slots=True)
class Problem:
    """One input problem: ``file`` path, 1-based ``line`` (or None), ``reason``."""

    file: str
    line: int | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "reason": self.reason}

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}" if self.line else f"{self.file}: {self.reason}"


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


def _lines(path: Path, problems: list[Problem]) -> Iterator[tuple[int, str]]:
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if len(raw) > _MAX_LINE:
                problems.append(Problem(str(path), n, f"line longer than {_MAX_LINE} bytes, skipped"))
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                problems.append(Problem(str(path), n, f"not UTF-8 ({e.reason} at byte {e.start}), skipped"))
                continue
            if text.strip():
                yield n, text


def read_jsonl(path: str | os.PathLike, parse: Callable[[Any], Any] = lambda x: x) -> tuple[list, list[Problem]]:
    """Records of a JSONL file, each passed through ``parse``; lines that are
    not UTF-8, not JSON, or rejected by ``parse`` (``SchemaError``,
    ``TypeError``, ``ValueError``) become problems. A missing file raises
    ``FileNotFoundError``."""
    path = Path(path)
    problems: list[Problem] = []
    out = []
    for n, text in _lines(path, problems):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            problems.append(Problem(str(path), n, f"not JSON: {e.msg} (column {e.colno})"))
            continue
        except RecursionError:  # e.g. 100,000 nested '[': json recurses per level
            problems.append(Problem(str(path), n, "not JSON: nested too deeply"))
            continue
        try:
            out.append(parse(obj))
        except (SchemaError, TypeError, ValueError, KeyError) as e:
            problems.append(Problem(str(path), n, f"bad record: {e}"))
    return out, problems


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
        except (ValueError, UnicodeDecodeError) as e:
            problems.append(Problem(str(mfile), None, f"unreadable manifest: {e}"))
            manifest = {}
    return Dataset(str(root), tuple(unique), tuple(apis), tuple(projects), manifest, tuple(problems))


def _require_object(obj: Any) -> dict:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _write_jsonl(path: Path, objs: Iterable[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for o in objs:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


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
    _write_jsonl(root / SAMPLES_FILE, (s.to_dict() for s in samples))
    _write_jsonl(root / APIS_FILE, (a.to_dict() for a in apis))
    _write_jsonl(root / PROJECTS_FILE, projects)
    tmp = root / (MANIFEST_FILE + ".tmp")
    tmp.write_text(json.dumps(manifest or {}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, root / MANIFEST_FILE)
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
    _write_jsonl(p, ({"id": sid, "predictions": list(preds)} for sid, preds in predictions))
    return p
