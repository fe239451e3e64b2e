"""Reading and writing dataset files, streaming and losing nothing.

One reader (:func:`iter_jsonl`, and :func:`read_jsonl` on top of it): every
line that is not UTF-8, longer than ``MAX_LINE`` bytes, not JSON, or rejected
by the record parser becomes a :class:`Problem` with file, line and reason;
the other lines are read. One writer (:func:`write_jsonl`,
:func:`write_json`): records are streamed to a temporary file opened with
``O_EXCL | O_NOFOLLOW`` (a planted link or file at its name makes the write
fail instead of landing elsewhere), fsynced and renamed over the target, so a
reader never sees half a file.

:func:`report_problems` is the one way commands tell the user which input
lines they skipped: the first ``limit`` as ``file:line: reason``, then how
many more.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .dataset import SchemaError

__all__ = [
    "MAX_LINE",
    "Problem",
    "iter_jsonl",
    "read_jsonl",
    "write_jsonl",
    "write_json",
    "write_text_atomic",
    "atomic_writer",
    "tmp_owner",
    "pid_alive",
    "drop_leftover",
    "report_problems",
]

MAX_LINE = 16 * 1024 * 1024
"""One JSONL record larger than this (bytes) is refused."""


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


def _lines(path: Path, problems: list[Problem]) -> Iterator[tuple[int, str]]:
    with open(path, "rb") as fh:
        n = 0
        while True:
            # bounded: ``for raw in fh`` would hold a whole line (a stranger's
            # file may be one endless line) before any length check
            raw = fh.readline(MAX_LINE + 1)
            if not raw:
                break
            n += 1
            if len(raw) > MAX_LINE:
                while not raw.endswith(b"\n"):  # skip the rest of the line, 1 MiB at a time
                    raw = fh.readline(1 << 20)
                    if not raw:
                        break
                problems.append(Problem(str(path), n, f"line longer than {MAX_LINE} bytes, skipped"))
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                problems.append(Problem(str(path), n, f"not UTF-8 ({e.reason} at byte {e.start}), skipped"))
                continue
            if text.strip():
                yield n, text


def iter_jsonl(path: str | os.PathLike, parse: Callable[[Any], Any] = lambda x: x,
               problems: list[Problem] | None = None) -> Iterator[tuple[int, Any]]:
    """``(line number, parse(object))`` for each good line of a JSONL file,
    streaming; bad lines are appended to ``problems`` (a list the caller
    owns). ``parse`` rejects a record by raising ``SchemaError``,
    ``TypeError``, ``ValueError`` or ``KeyError``. A missing file raises
    ``FileNotFoundError``."""
    path = Path(path)
    problems = [] if problems is None else problems
    for n, text in _lines(path, problems):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            problems.append(Problem(str(path), n, f"not JSON: {e.msg} (column {e.colno})"))
            continue
        except RecursionError:  # e.g. 100,000 nested '[': json recurses per level
            problems.append(Problem(str(path), n, "not JSON: nested too deeply"))
            continue
        except ValueError as e:  # an integer of more than 4300 digits (Python's int limit)
            problems.append(Problem(str(path), n, f"not JSON: {e}"))
            continue
        try:
            rec = parse(obj)
        except (SchemaError, TypeError, ValueError, KeyError) as e:
            problems.append(Problem(str(path), n, f"bad record: {e}"))
            continue
        yield n, rec


def read_jsonl(path: str | os.PathLike, parse: Callable[[Any], Any] = lambda x: x) -> tuple[list, list[Problem]]:
    """All good records of a JSONL file and the problems of the others (see :func:`iter_jsonl`)."""
    problems: list[Problem] = []
    out = [rec for _, rec in iter_jsonl(path, parse, problems)]
    return out, problems


_TMP_OF_PID = re.compile(r"\..+\.([0-9]+)\.tmp", re.ASCII)
_PID_MAX = 1 << 22  # Linux's PID_MAX_LIMIT: no process has a larger id


def drop_leftover(path: str | os.PathLike) -> None:
    """Remove whatever is at ``path`` unless it is a folder (then the
    caller's ``O_EXCL`` open fails: an error). For temporary names that carry
    this process's id (``.<name>.<pid>.tmp``): what is there already is no
    running writer's — a link or FIFO planted in a shared folder (never
    written through), or a file left by a writer killed under the same id
    (PID 1 in a container: ``O_EXCL`` failed on it in every later run, the
    tester of session 9)."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _open_tmp(path: Path):
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # the name tmp_owner reads back
    drop_leftover(tmp)
    # O_NOFOLLOW | O_EXCL: a link or file planted at the guessable name between
    # the check and the open makes the open fail instead of writing elsewhere
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    return tmp, open(fd, "w", encoding="utf-8")


@contextmanager
def atomic_writer(path: str | os.PathLike, *, fsync: bool = True) -> Iterator[Any]:
    """A text file (UTF-8) that becomes ``path`` only when the block ends
    without an exception: written as ``.<name>.<pid>.tmp`` beside it (never
    through a planted link), flushed (and fsynced with ``fsync``), then
    renamed over ``path``; on an exception the temporary file is removed and
    ``path`` is left as it was."""
    path = Path(path)
    tmp, fh = _open_tmp(path)
    try:
        with fh:
            yield fh
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:
        os.replace(tmp, path)
    except BaseException:  # path is a folder, or its folder went away: the complete file is not left beside it
        tmp.unlink(missing_ok=True)
        raise


def tmp_owner(name: str) -> int | None:
    """The process id in a temporary file name :func:`atomic_writer` makes
    (``.samples.jsonl.4242.tmp`` → 4242), or None for any other name."""
    m = _TMP_OF_PID.fullmatch(name)
    return int(m.group(1)) if m else None


def pid_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` exists (any user's: signal 0 to it).
    Ids no process can have (≤ 0, above the kernel's limit) are not alive —
    they come from file names, which anyone can write."""
    if not 0 < pid <= _PID_MAX:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_jsonl(path: str | os.PathLike, records: Iterable[Any]) -> int:
    """Write ``records`` (dicts, or objects with ``to_dict()``) one JSON
    object a line (UTF-8, non-ASCII kept), atomically; returns the count.
    ``records`` is consumed once, as it comes."""
    n = 0
    with atomic_writer(path) as fh:
        for r in records:
            fh.write(json.dumps(r.to_dict() if hasattr(r, "to_dict") else r, ensure_ascii=False) + "\n")
            n += 1
    return n


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (as :func:`write_jsonl`)."""
    with atomic_writer(path) as fh:
        fh.write(text)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write one JSON document (``manifest.json``): indented by 2, non-ASCII kept, newline-terminated."""
    write_text_atomic(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def report_problems(problems: Iterable[Problem], echo: Callable[[str], Any], *, limit: int = 20,
                    more_hint: str = "") -> int:
    """Tell the user which input lines were skipped: ``problem: file:line:
    reason`` for the first ``limit``, then ``... N more problems`` (with
    ``more_hint``, e.g. where the full list is). Returns the count."""
    n = 0
    for p in problems:
        if n < limit:
            echo(f"problem: {p}")
        n += 1
    if n > limit:
        echo(f"... {n - limit} more problem{'s' if n - limit != 1 else ''}{more_hint}")
    return n
