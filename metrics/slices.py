"""Depth/Density-stratified evaluation slices: one dataset folder per
stratum, in the same format as the source (DESIGN.md "A dataset on disk")."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from records.dataset import ApiRecord, SampleRecord

from .dataset import Dataset, Problem, load_dataset, write_dataset
from .strata import DEFAULT_LOC_BANDS, SAMPLE_STRATA, stratify

__all__ = ["SLICE_STRATA", "SliceInfo", "SliceSummary", "write_slices", "restrict_apis", "SUMMARY_FILE"]

SLICE_STRATA = SAMPLE_STRATA
"""Slices put whole samples in one stratum; target strata are not sliced."""
SUMMARY_FILE = "summary.json"


@dataclass(frozen=True, slots=True)
class SliceInfo:
    """One slice written: stratum ``label``, ``folder`` name under the output
    folder, counts of samples, APIs and projects in it."""

    label: str
    folder: str
    n_samples: int
    n_apis: int
    n_projects: int

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "folder": self.folder, "n_samples": self.n_samples,
                "n_apis": self.n_apis, "n_projects": self.n_projects}


@dataclass(frozen=True, slots=True)
class SliceSummary:
    """What :func:`write_slices` wrote (also saved as ``summary.json``)."""

    by: str
    source: str
    out: str
    slices: tuple[SliceInfo, ...]
    problems: tuple[Problem, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"by": self.by, "source": self.source, "slices": [s.to_dict() for s in self.slices],
                "problems": [p.to_dict() for p in self.problems]}


def restrict_apis(apis: Sequence[ApiRecord], samples: Sequence[SampleRecord]) -> list[ApiRecord]:
    """The API records the samples' targets refer to, in ``apis`` order.

    A target with a signature matches the record with that signature; a
    target without one (undecided overload) matches every record of its API
    name; a record without a signature matches every target of its name.
    """
    sigs = set()
    names_any = set()
    names = set()
    for s in samples:
        for t in s.targets:
            names.add(t.api)
            if t.signature:
                sigs.add(t.signature)
            else:
                names_any.add(t.api)
    return [
        a for a in apis
        if (a.signature and a.signature in sigs) or a.api in names_any or (a.signature is None and a.api in names)
    ]


def _folder_name(by: str, label: str, used: set[str]) -> str:
    text = label.replace(">", "gt").replace("<", "lt")
    text = re.sub(r"[\[\]()\s]", "", text).replace(",", "-")
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"
    name = f"{by}-{text}"[:120]
    base, n = name, 2
    while name in used:
        name = f"{base}-{n}"
        n += 1
    used.add(name)
    return name


def _project_key(p: dict) -> Any:
    for key in ("project", "name", "id"):
        if key in p:
            return p[key]
    return None


def write_slices(
    dataset: Dataset | str | os.PathLike,
    by: str,
    out: str | os.PathLike,
    *,
    bins: int | Sequence[float] | None = None,
    loc_bands: Sequence[int] = DEFAULT_LOC_BANDS,
) -> SliceSummary:
    """Write one dataset folder per stratum of ``by`` under ``out``.

    Each slice has ``samples.jsonl`` (the stratum's samples, unchanged),
    ``apis.jsonl`` (restricted by :func:`restrict_apis`), ``projects.jsonl``
    (records whose ``project``/``name``/``id`` is one of the slice's
    projects) and ``manifest.json`` (``slice``: by, label, source, counts;
    ``source_manifest``: the source's manifest). ``out/summary.json`` lists
    the slices. Raises ``ValueError`` for a ``by`` not in
    :data:`SLICE_STRATA`, ``metrics.DatasetError`` for an unreadable source.
    """
    if by not in SLICE_STRATA:
        raise ValueError(f"cannot slice by {by!r}; one of {', '.join(SLICE_STRATA)}")
    ds = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    infos = []
    for group in stratify(ds.samples, by, bins=bins, loc_bands=loc_bands):
        samples = [s for s, _ in group.members]
        apis = restrict_apis(ds.apis, samples)
        proj_names = {s.project for s in samples}
        projects = [p for p in ds.projects if _project_key(p) in proj_names]
        folder = _folder_name(by, group.label, used)
        manifest = {
            "slice": {
                "by": by,
                "label": group.label,
                "source": ds.path,
                "n_samples": len(samples),
                "n_apis": len(apis),
                "n_projects": len(proj_names),
            },
            "source_manifest": ds.manifest,
        }
        write_dataset(root / folder, samples, apis, projects, manifest)
        infos.append(SliceInfo(group.label, folder, len(samples), len(apis), len(proj_names)))
    summary = SliceSummary(by, ds.path, str(root), tuple(infos), ds.problems)
    (root / SUMMARY_FILE).write_text(json.dumps(summary.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return summary
