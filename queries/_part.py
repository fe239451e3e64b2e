"""The typed values passed between the builder's steps.

- :class:`Verdict` — what the build made of a project (kept, dropped, failed).
- :class:`Candidate` — one commented project method with its query,
  language, API counts and targets (:class:`records.TargetRecord`), before
  the build-wide filters.
- :class:`ProjectPart` — everything the per-project stage found: the
  ``OUT/.parts/<key>.json`` file (:meth:`ProjectPart.to_dict`) whose
  presence marks a project finished for a resumed build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from records.dataset import ApiRecord, TargetRecord

from ._options import BuildOptions
from .projects import ProjectSpec

__all__ = ["Verdict", "Candidate", "ProjectPart", "PART_FORMAT"]

PART_FORMAT = 3
"""Version of the part file; a part of another format is analysed again."""


class Verdict(str, Enum):
    """A project's verdict (``projects.jsonl`` ``verdict``)."""

    KEPT = "kept"
    DROPPED = "dropped"
    FAILED = "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A project method with a usable comment (see :func:`queries.build.analyse_project`).

    ``targets`` sorted by depth, then API node id; ``n_direct_apis`` the
    distinct API nodes it calls itself (depth 2), ``n_reached_apis`` those
    among all its targets; ``depth_max``/``depth_min``/``density`` ``None``
    without targets (``density`` also when the chains' LOC sum is 0).
    """

    method: str
    file: str
    start_line: int
    end_line: int
    loc: int
    comment: str
    description: str
    query: str
    lang: str
    n_direct_apis: int
    n_reached_apis: int
    targets: tuple[TargetRecord, ...]
    depth_max: int | None = None
    depth_min: int | None = None
    density: float | None = None

    @property
    def api_nodes(self) -> list[str]:
        """The API node id of each target, in target order."""
        return [t.node for t in self.targets]

    def api_count(self, mode: str) -> int:
        """The count the API-count filter uses: ``"direct"`` or ``"reached"``."""
        if mode == "direct":
            return self.n_direct_apis
        if mode == "reached":
            return self.n_reached_apis
        from ._options import BuildError

        raise BuildError(f"api_count must be 'direct' or 'reached', got {mode!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method, "file": self.file, "start_line": self.start_line, "end_line": self.end_line,
            "loc": self.loc, "comment": self.comment, "description": self.description, "query": self.query,
            "lang": self.lang, "n_direct_apis": self.n_direct_apis, "n_reached_apis": self.n_reached_apis,
            "targets": [t.to_dict() for t in self.targets], "depth_max": self.depth_max,
            "depth_min": self.depth_min, "density": self.density,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Candidate":
        kw = dict(d)
        kw["targets"] = tuple(TargetRecord.from_dict(t) for t in d["targets"])
        if kw.get("n_reached_apis") is None:
            kw["n_reached_apis"] = len({t.node for t in kw["targets"]})
        return cls(**kw)


@dataclass(slots=True, kw_only=True)
class ProjectPart:
    """What the per-project stage found (the part file).

    ``apis`` maps each target API node id to its documentation
    (:class:`records.ApiRecord`), or ``None`` when undocumented;
    ``counts``/``timings`` (seconds) are the ``projects.jsonl`` figures;
    ``classpath``/``docs`` the library-resolution and doc-fetching records
    (``None`` when not run); ``doc_paths`` the documentation read and
    ``classpath_jars`` the jars (the describe step reads members from them);
    ``tree`` the stamp of a local folder's working tree as it was read (a
    resumed build redoes the project when it differs); ``unreadable`` the
    list line's own ``classpath=``/``javadoc=`` paths that could not be
    read, ``[path, reason]`` each (the build goes on without them and
    ``qare build`` exits 1).
    """

    fingerprint: str
    key: str
    spec: dict[str, Any]
    project: str
    commit: str | None = None
    root: str | None = None
    verdict: Verdict = Verdict.KEPT
    reason: str = ""
    error: str | None = None
    traceback: list[str] | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    apis: dict[str, ApiRecord | None] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    classpath: dict | None = None
    docs: dict | None = None
    doc_paths: list[str] = field(default_factory=list)
    classpath_jars: list[str] = field(default_factory=list)
    #: a local folder's working-tree stamp when it was read (``fetching.local_tree_stamp``; None for a clone)
    tree: str | None = None
    #: the list's own classpath=/javadoc= paths that could not be read: [path, reason] each
    unreadable: list[list[str]] = field(default_factory=list)

    @classmethod
    def new(cls, spec: ProjectSpec, opts: BuildOptions, **fields: Any) -> "ProjectPart":
        """A part before analysis (kept, nothing found yet), ``fields`` overriding."""
        return cls(fingerprint=opts.fingerprint(), key=spec.key, spec=spec.to_dict(), project=spec.name, **fields)

    def fail(self, error: str, traceback: list[str]) -> None:
        """Mark the part failed: nothing it found is kept."""
        self.verdict, self.reason, self.error, self.traceback = Verdict.FAILED, "error", error, traceback
        self.candidates, self.apis = [], {}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"format": PART_FORMAT}
        for name in self.__slots__:
            d[name] = getattr(self, name)
        d["verdict"] = self.verdict.value
        d["candidates"] = [c.to_dict() for c in self.candidates]
        d["apis"] = {k: (v.to_dict() if v is not None else None) for k, v in self.apis.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ProjectPart":
        kw = {k: d[k] for k in cls.__slots__ if k in d}
        kw["verdict"] = Verdict(d["verdict"])
        kw["candidates"] = [Candidate.from_dict(c) for c in d.get("candidates") or ()]
        kw["apis"] = {k: (ApiRecord.from_dict(v) if v else None) for k, v in (d.get("apis") or {}).items()}
        return cls(**kw)
