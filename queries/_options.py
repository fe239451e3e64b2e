"""The parameters of a build: :class:`BuildOptions` (recorded whole in
``manifest.json``) and :class:`BuildError`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .projects import Selection

__all__ = ["BuildOptions", "BuildError", "EmptyProjectList"]


class BuildError(RuntimeError):
    """The build cannot proceed at all (unreadable list, unwritable output folder, bad option)."""


class EmptyProjectList(BuildError):
    """The project list names no project (``qare build`` exits 3): nothing
    is written, not even the output folder."""


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """Every parameter of a build (recorded whole in ``manifest.json``).

    Attributes
    ----------
    selection : Selection
        Project selection criteria (Q-ARE §3.1).
    include_tests : bool
        Candidates from test sources too (default: main sources only).
    query_lines : int
        Description lines that make the query (Q-ARE: 2).
    api_count_range : (float, float) or None
        Inclusive range of direct third-party API counts kept; ``None`` =
        the interquartile range [Q1, Q3] over all candidate methods of the
        build (linear interpolation, as numpy ``percentile(method="linear")``).
    api_count : str
        What the API-count filter counts per method (docs/dataset.md "API
        count"): ``"direct"`` (default) = distinct third-party APIs it calls
        itself (depth 2), ``"reached"`` = its whole target set (every depth).
    comments : str
        Which comments make queries: ``"javadoc"`` (default; ``/** … */``
        only, as Q-ARE's method comments) or ``"any"`` (also ``//`` and
        ``/* */`` blocks directly above the method).
    iqr_over : str
        The population of the IQR: ``"calling"`` = candidates with at least
        one direct third-party API (Q-ARE's boxplot of API counts), ``"all"``
        = every candidate (zeros included). The filter itself applies to all
        candidates.
    keep_unresolved : bool
        Follow ``name`` edges (receiver type unknown) to targets.
    dispatch : str
        ``"rta"``, ``"cha"`` or ``"declared"`` (see ``ProjectGraph.reach``);
        default ``callgraph._graph.DEFAULT_DISPATCH`` (docs/dataset.md "Dispatch").
    max_depth : int or None
        Longest chain kept (depth counts both ends); ``None`` = unbounded.
    require_docs : bool
        Drop undocumented target APIs and every sample that reaches one.
    drop_leaky : bool
        Drop samples whose query names one of its targets.
    translate_cmd : str or None
        Shell-free command (split with ``shlex``) that reads a non-English
        query on stdin and writes its translation on stdout.
    translate : str or None
        ``"llm"``: translate non-English queries through the language model
        (``llm_*``; see :mod:`queries.translate`). Wins over ``translate_cmd``.
    describe_undocumented : str or None
        ``"llm"``: describe undocumented target APIs from their source
        (sources jar, else decompiled class) through the language model;
        see :mod:`queries.describe`.
    llm_url, llm_model : str or None
        OpenAI-compatible endpoint and model (:class:`queries.llm.LLMConfig`);
        the key comes from the environment only.
    llm_budget, llm_concurrency, llm_rpm, llm_timeout, llm_retries, llm_cache
        The :class:`queries.llm.LLMConfig` limits (requests, in flight,
        per minute, seconds per attempt, retries, cache file ``""`` = the
        qare cache folder, ``None`` = off).
    discover_classpath : bool
        Add the project's libraries resolved by ``callgraph.classpath.resolve_classpath``
        (Maven's resolver on a sanitised model), and fetch the ``-javadoc.jar`` (else
        ``-sources.jar``) of every library a target API belongs to.
    offline : bool
        Resolve and fetch from the local Maven repository only.
    maven_repo_local : str or None
        The local Maven repository (None: ``<cache>/m2/repository``).
    jdk : str or None
        Passed to ``build_project_graph``.
    loc_mode : str
        ``"physical"`` or ``"code"`` (DESIGN.md LOC).
    cache_dir : str
        Where git URLs are cloned.
    facts_cache_dir : str or None
        Folder of the per-project SQLite caches of parsed files
        (``<key>.sqlite``; ``""`` = ``OUT/.cache``, ``None`` = no cache).
    graph_jobs : int
        Worker processes inside one project's call-graph build (used when
        the build has a single project to analyse and ``jobs`` > 1).
    """

    selection: Selection = field(default_factory=Selection)
    include_tests: bool = False
    query_lines: int = 2
    api_count_range: tuple[float, float] | None = None
    api_count: str = "direct"
    comments: str = "javadoc"
    iqr_over: str = "calling"
    keep_unresolved: bool = False
    dispatch: str = field(default_factory=lambda: _default_dispatch())
    max_depth: int | None = None
    require_docs: bool = True
    drop_leaky: bool = False
    translate_cmd: str | None = None
    translate: str | None = None
    describe_undocumented: str | None = None
    llm_url: str | None = None
    llm_model: str | None = None
    llm_budget: int | None = None
    llm_concurrency: int = 4
    llm_rpm: float | None = None
    llm_timeout: float = 60.0
    llm_retries: int = 3
    llm_cache: str | None = ""
    discover_classpath: bool = True
    offline: bool = False
    maven_repo_local: str | None = None
    jdk: str | None = "auto"
    loc_mode: str = "physical"
    cache_dir: str = ""
    facts_cache_dir: str | None = ""
    graph_jobs: int = 1

    def to_dict(self) -> dict[str, Any]:
        d = {f: getattr(self, f) for f in self.__slots__}
        d["selection"] = self.selection.to_dict()
        d["api_count_range"] = list(self.api_count_range) if self.api_count_range else None
        return d

    def fingerprint(self) -> str:
        """Hash of the parameters that change a project's part file (not the
        merge-stage ones), so a resumed build with other analysis parameters
        re-analyses instead of mixing results."""
        d = self.to_dict()
        for k in ("api_count_range", "api_count", "iqr_over", "require_docs", "drop_leaky", "translate_cmd",
                  "cache_dir", "facts_cache_dir", "graph_jobs", "translate", "describe_undocumented", "llm_url",
                  "llm_model", "llm_budget", "llm_concurrency", "llm_rpm", "llm_timeout", "llm_retries", "llm_cache",
                  "offline", "maven_repo_local"):
            d.pop(k)
        return hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:12]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BuildOptions":
        """The inverse of :meth:`to_dict` (a manifest's ``parameters`` too):
        keys that are not options are ignored, missing ones take their
        defaults; ``selection`` may be a :class:`Selection` or its dict."""
        kw = {f: data[f] for f in cls.__slots__ if f in data}
        if isinstance(kw.get("selection"), dict):
            kw["selection"] = Selection.from_dict(kw["selection"])
        if kw.get("api_count_range") is not None:
            kw["api_count_range"] = tuple(kw["api_count_range"])
        return cls(**kw)


def _default_dispatch() -> str:
    from callgraph._graph import DEFAULT_DISPATCH

    return DEFAULT_DISPATCH
