"""Other benchmarks' files → our dataset format, so the same metrics run on
them: APIBench-Q's Java query JSON and a CLEAR-style CSV.

Imported samples have no call chain: their targets carry ``depth`` 0,
``chain`` [], ``chain_loc`` 0, ``density`` 0.0 and ``resolution`` "name";
``project`` holds the benchmark's source (APIBench ``Source``) so
``--by project`` splits Stack Overflow from tutorial queries. Depth and
density strata are meaningless on them.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from records.dataset import ApiRecord, SampleRecord, TargetRecord

from .dataset import Problem, write_dataset
from .names import _split_top, parse_api

__all__ = ["ImportResult", "import_apibench", "import_clear_csv", "write_import", "MAX_IMPORT_BYTES"]

MAX_IMPORT_BYTES = 512 * 1024 * 1024
"""Input files larger than this are refused (APIBench-Q's is a few MB)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """Samples and API records read, the problems met (``line`` is the
    record's key or CSV row), and the ``source`` file."""

    source: str
    format: str
    samples: tuple[SampleRecord, ...]
    apis: tuple[ApiRecord, ...]
    problems: tuple[Problem, ...]
    dropped: int = 0
    """Records dropped whole (no query, no readable gold)."""


def _read_text(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_IMPORT_BYTES:
        raise ValueError(f"{path}: {size} bytes, more than the {MAX_IMPORT_BYTES} accepted")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 ({e.reason} at byte {e.start})") from None


def _targets(raws: Iterable[Any], where: str, file: str, problems: list[Problem],
             expect_parens: bool = False) -> list[TargetRecord]:
    out: list[TargetRecord] = []
    seen = set()
    for raw in raws:
        apis, probs = parse_api(raw)
        if expect_parens and apis and isinstance(raw, str) and "(" not in raw:
            problems.append(Problem(file, None, f"{where}: no parameter list in {raw!r}; signature unknown"))
        for p in probs:
            problems.append(Problem(file, None, f"{where}: {p}"))
        for a in apis:
            name = a.at("name")
            if name is None:
                problems.append(Problem(file, None, f"{where}: names a type, not a method: {a.class_!r}; dropped"))
                continue
            if a.class_.split(".", 1)[0][:1].isupper():
                problems.append(Problem(file, None, f"{where}: no package in {raw!r}: cannot match fully-qualified "
                                        "predictions at class/name/signature level unless --simple-names"))
            # These benchmarks write "()" whatever the real parameters are
            # (APIBench-Q: readAllLines() for readAllLines(Path)), so an empty
            # list means "parameters unknown", DESIGN.md's (*), not "no arguments".
            sig = a.at("signature") if a.params else None
            if (name, sig) in seen:
                continue
            seen.add((name, sig))
            out.append(TargetRecord(api=name, signature=sig, class_=a.class_, library=None, depth=0,
                                    chain=(), chain_loc=0, density=0.0, resolution="name"))
    return out


def _as_list(value: Any) -> list:
    """APIBench-Q writes one entry as a string, several as a list."""
    return [value] if isinstance(value, str) else value if isinstance(value, list) else []


def _sample(sid: str, project: str, file: str, query: str, targets: list[TargetRecord]) -> SampleRecord:
    return SampleRecord(
        id=sid, project=project, commit=None, file=file, method="", start_line=0, end_line=0, loc=0,
        query=query, comment=query, lang="en", n_direct_apis=len(targets), targets=tuple(targets),
        depth_max=0, depth_min=0, density=0.0, leaks=(),
    )


def _apis(samples: Iterable[SampleRecord]) -> tuple[ApiRecord, ...]:
    seen = {}
    for s in samples:
        for t in s.targets:
            seen.setdefault((t.api, t.signature), ApiRecord(api=t.api, signature=t.signature, class_=t.class_, library=None))
    return tuple(seen.values())


def import_apibench(path: str | os.PathLike) -> ImportResult:
    """Read an APIBench-Q Java query file.

    The file is a JSON object keyed ``"1"`` … ; each value has ``Query``,
    ``GroundTruth`` (a string or a list of strings, method level, e.g.
    ``java.io.File.mkdirs()``), ``APIClasses`` (class level) and ``Source``.
    Gold strings are normalised with :func:`metrics.parse_api`; everything
    repaired or dropped is a problem. APIBench-Q writes every gold API with
    an empty ``()`` whatever its real parameters, so an empty list means
    "parameters unknown": the target's ``signature`` is ``None`` (scored as
    ``api(*)``, matching any overload at ``signature`` level); a non-empty
    list is kept. A gold string without a package (``FileUtils.copyFile``)
    is kept and reported: it cannot match fully-qualified predictions
    unless scored with ``--simple-names``. A record without a readable query or
    any readable gold API is dropped and reported. ``APIClasses`` entries
    not among the gold APIs' classes are reported (the class-level gold
    here is the gold APIs' classes). Sample ids are ``apibench-<key>``.

    Raises ``ValueError`` when the file is not JSON, not an object, too
    large or not UTF-8; ``FileNotFoundError`` when missing.
    """
    p = Path(path)
    f = str(p)
    try:
        data = json.loads(_read_text(p))
    except json.JSONDecodeError as e:
        raise ValueError(f"{p}: not JSON: {e.msg} (line {e.lineno})") from None
    except RecursionError:
        raise ValueError(f"{p}: not JSON: nested too deeply") from None
    if isinstance(data, list):
        data = {str(i + 1): v for i, v in enumerate(data)}
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected a JSON object keyed by query number")
    problems: list[Problem] = []
    samples = []
    dropped = 0
    for key, rec in data.items():
        where = f"query {key}"
        if not isinstance(rec, dict):
            problems.append(Problem(f, None, f"{where}: not an object; dropped"))
            dropped += 1
            continue
        query = rec.get("Query")
        if not isinstance(query, str) or not query.strip():
            problems.append(Problem(f, None, f"{where}: no Query; dropped"))
            dropped += 1
            continue
        targets = _targets(_as_list(rec.get("GroundTruth")), where, f, problems, expect_parens=True)
        if not targets:
            problems.append(Problem(f, None, f"{where}: no readable GroundTruth API; dropped"))
            dropped += 1
            continue
        gold_classes = {t.class_ for t in targets}
        for c in _as_list(rec.get("APIClasses")):
            parsed, _ = parse_api(c)
            for a in parsed:
                if a.class_ not in gold_classes:
                    problems.append(Problem(f, None, f"{where}: APIClasses entry {a.class_!r} is not the class of a GroundTruth API"))
        source = rec.get("Source") if isinstance(rec.get("Source"), str) else "apibench"
        samples.append(_sample(f"apibench-{key}", source, p.name, query.strip(), targets))
    return ImportResult(f, "apibench", tuple(samples), _apis(samples), tuple(problems), dropped)


def _clear_cell(cell: str) -> list[str]:
    text = cell.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    parts = _split_top(text, {",", ";", "，", " ", "\t", "\n"})
    return [q for q in (x.strip().strip("'\"").strip() for x in parts) if q]


def import_clear_csv(path: str | os.PathLike) -> ImportResult:
    """Read a CLEAR-style CSV: a header row with ``query`` and ``apis``
    columns (``id`` and ``source`` optional; names case-insensitive).

    ``apis`` holds the gold APIs as CLEAR writes them — a Python-style list
    ``['java.util.Collections.max', 'java.util.List.add']`` — or separated
    by ``;``, ``,`` or spaces. Rows without ``id`` get ``clear-<row>``
    (1-based data row). Problems, empty ``()`` and names without a package
    as :func:`import_apibench`. Raises
    ``ValueError`` when the header lacks ``query`` or ``apis``.
    """
    p = Path(path)
    f = str(p)
    text = _read_text(p)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    fields = {(h or "").strip().lower(): h for h in (reader.fieldnames or [])}
    if "query" not in fields or "apis" not in fields:
        raise ValueError(f"{p}: the header needs 'query' and 'apis' columns, has {list(fields)}")
    problems: list[Problem] = []
    samples = []
    dropped = 0
    seen_ids = set()
    for n, row in enumerate(reader, start=1):
        where = f"row {n}"
        query = (row.get(fields["query"]) or "").strip()
        if not query:
            problems.append(Problem(f, n + 1, f"{where}: empty query; dropped"))
            dropped += 1
            continue
        targets = _targets(_clear_cell(row.get(fields["apis"]) or ""), where, f, problems)
        if not targets:
            problems.append(Problem(f, n + 1, f"{where}: no readable API; dropped"))
            dropped += 1
            continue
        sid = (row.get(fields["id"]) or "").strip() if "id" in fields else ""
        sid = sid or f"clear-{n}"
        if sid in seen_ids:
            problems.append(Problem(f, n + 1, f"{where}: id {sid!r} repeated; dropped"))
            dropped += 1
            continue
        seen_ids.add(sid)
        source = (row.get(fields["source"]) or "").strip() if "source" in fields else ""
        samples.append(_sample(sid, source or "clear", p.name, query, targets))
    return ImportResult(f, "clear", tuple(samples), _apis(samples), tuple(problems), dropped)


def write_import(result: ImportResult, out: str | os.PathLike) -> Path:
    """Write an :class:`ImportResult` as a dataset folder; the manifest
    records the source, format, counts and every problem."""
    manifest = {
        "tool": "qare import",
        "format": result.format,
        "source": result.source,
        "counts": {"samples": len(result.samples), "apis": len(result.apis), "dropped": result.dropped,
                   "problems": len(result.problems)},
        "problems": [pr.to_dict() for pr in result.problems],
    }
    return write_dataset(out, result.samples, result.apis, [], manifest)
