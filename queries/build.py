"""The dataset builder: a project list → a Q-ARE-style dataset folder.

Two stages (DESIGN.md "A dataset on disk", Q-ARE §3):

1. **Per project** (:func:`analyse_project`, run in a process pool or on a
   ``dask.distributed`` cluster): fetch, select, build the call graph, and
   collect every *candidate* method (a project method with a comment whose
   description is not empty) with its query, language, direct third-party
   API count and targets, plus the documentation of every target API. The
   result is written atomically to ``OUT/.parts/<key>.json`` — its presence
   is the "project finished" marker a resumed build skips on.
2. **Merge** (:func:`merge_parts`): the interquartile-range filter over the
   direct-API counts of *all* candidates of the build, the documentation
   filter, translation, the leakage check, stable ids, and the files
   ``samples.jsonl``, ``apis.jsonl``, ``projects.jsonl``, ``manifest.json``
   (and Parquet copies).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import time
import traceback
from collections import Counter, OrderedDict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from . import _progress
from .comments import clean_comment, detect_lang, is_javadoc, query_from_description, reject_description
from .leaks import find_leaks
from .projects import (
    ProjectSpec,
    Selection,
    fetch_project,
    read_project_list,
    select_checkout,
    select_metadata,
)
from .schema import (
    APIS_FILE,
    MANIFEST_FILE,
    PROJECTS_FILE,
    SAMPLES_FILE,
    ApiRecord,
    SampleRecord,
)

__all__ = [
    "BuildOptions",
    "BuildResult",
    "BuildError",
    "analyse_project",
    "merge_parts",
    "build_dataset",
    "summary_table",
    "find_leaks",
    "sample_id",
]

PART_FORMAT = 1
PARTS_DIR = ".parts"
_TRANSLATIONS = ".translations.json"


class BuildError(RuntimeError):
    """The build cannot proceed at all (unreadable list, unwritable output folder, bad option)."""


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
        build (numpy ``percentile``, method ``"linear"``).
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


# ---------------------------------------------------------------- seams to callgraph / javadoc
# Module-level so tests (and other front ends) can substitute them.


def _build_graph(root: Path, classpath: list[str], opts: BuildOptions, progress: bool, cache: str | None = None):
    from callgraph import build_project_graph

    return build_project_graph(root, classpath=classpath, auto_classpath=False, jdk=opts.jdk, progress=progress,
                               loc_mode=opts.loc_mode, jobs=opts.graph_jobs, cache=cache)


def _discover_classpath(root: Path, opts: BuildOptions | None = None, progress: bool = False):
    """The project's libraries: ``ResolvedClasspath`` (``.jars``, ``.to_dict()``)."""
    from callgraph.classpath import resolve_classpath

    return resolve_classpath(root, offline=bool(opts and opts.offline),
                             repo_local=opts.maven_repo_local if opts else None, progress=progress)


def _fetch_doc_jars(libraries: list[str], kind: str, opts: BuildOptions, repositories=(), progress: bool = False):
    """``DocFetch`` of the ``kind`` ("javadoc"/"sources") jars of ``libraries`` (g:a:v)."""
    from callgraph.classpath import fetch_doc_jars

    return fetch_doc_jars(libraries, kind, repo_local=opts.maven_repo_local, offline=opts.offline,
                          repositories=repositories, progress=progress)


_DOCS_MEMO: "OrderedDict[str, Any]" = OrderedDict()
"""Site path → its one-path DocIndex, within one build (``build_dataset`` empties
it): projects sharing a javadoc site or source folder load it once, not once
each (DocIndex's own cache keeps archives only, never folders)."""
_DOCS_MEMO_SIZE = 32


def _open_docs(paths: list[str]):
    from javadoc import DocIndex

    docsets, warnings, failed = [], [], []
    for p in paths:
        key = os.path.realpath(p)
        one = _DOCS_MEMO.get(key)
        if one is None:
            t = time.perf_counter()
            one = DocIndex.open(p)
            _progress.note(f"javadoc {p}: {sum(len(d.members) for d in one.docsets)} members "
                           f"loaded in {time.perf_counter() - t:.1f} s (once per build)")
            _DOCS_MEMO[key] = one
            while len(_DOCS_MEMO) > _DOCS_MEMO_SIZE:
                _DOCS_MEMO.popitem(last=False)
        else:
            _DOCS_MEMO.move_to_end(key)
        docsets += one.docsets
        failed += one.failed
        if one.failed:  # a read failure's (path, reason); a read site's own warnings come with its DocSet
            warnings += one.warnings
    index = DocIndex(docsets, warnings)
    index.failed = tuple(failed)
    return index


# ---------------------------------------------------------------- per project


def _doc_paths_next_to(jars: Iterable[str]) -> list[str]:
    """``foo-1.0-javadoc.jar`` / ``foo-1.0-sources.jar`` beside each ``foo-1.0.jar``."""
    out = []
    for j in jars:
        p = Path(j)
        if p.suffix != ".jar" or p.stem.endswith(("-javadoc", "-sources")):
            continue
        for suffix in ("-javadoc.jar", "-sources.jar"):
            q = p.with_name(p.stem + suffix)
            if q.is_file():
                out.append(str(q))
    return out


def _tb_summary(exc: BaseException, frames: int = 6) -> list[str]:
    tb = traceback.extract_tb(exc.__traceback__)[-frames:]
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in tb]


def _doc_record(index, target) -> dict | None:
    """The ApiRecord dict of a target from the doc index, or ``None``.

    Join: the method id exactly; when the target has no signature (``(*)``
    node) or the id misses, the API name — used only when the name has a
    single documented overload. An undecided overload (``(*)``) whose name
    has several documented overloads gets none of their docs (which one the
    call runs is unknown; docs/dataset.md "Undecided overloads") — unless
    they all say the same, then it is the first in method-id order. A
    method found without any description (a sources file whose method has
    no doc comment) counts as undocumented."""
    if index is None:
        return None
    doc = None
    if target["signature"]:
        doc = index.get(target["signature"])
    if doc is None:
        docs = sorted(index.by_name(target["api"]) or (), key=lambda d: d.to_dict().get("signature") or "")
        if len(docs) == 1:
            doc = docs[0]
        elif docs and not target["signature"] and len({_doc_text(x) for x in docs}) == 1:
            doc = docs[0]  # every overload says the same: the doc is known whichever runs
    if doc is None:
        return None
    d = dict(doc.to_dict())
    if not (d.get("description") or d.get("first_sentence")):
        # found in the sources but without a doc comment: nothing describes it
        return None
    # identity comes from the call graph; only the documentation from the doc index
    d.update(api=target["api"], signature=target["signature"], **{"class": target["class"]})
    if target.get("library"):
        d["library"] = target["library"]
    return ApiRecord.from_dict(d).to_dict()


def _doc_text(doc) -> tuple:
    d = doc.to_dict()
    return (d.get("description") or "", d.get("first_sentence") or "")


def api_count(cand: dict, mode: str) -> int:
    """The API count of a candidate for the IQR filter: ``"direct"`` =
    ``n_direct_apis`` (distinct API nodes called at depth 2), ``"reached"``
    = distinct API nodes among all its targets."""
    if mode == "direct":
        return cand["n_direct_apis"]
    if mode == "reached":
        n = cand.get("n_reached_apis")
        return n if n is not None else len({t["chain"][-1] for t in cand["targets"]})
    raise BuildError(f"api_count must be 'direct' or 'reached', got {mode!r}")


def _candidate(pg, mid: str, info, description: str, opts: BuildOptions, node_loc: dict[str, int]) -> dict[str, Any]:
    """The candidate dict of one commented method (see :func:`analyse_project`):
    its query, language, targets (by depth, then node id), direct-API count
    and per-sample depth and density. ``node_loc`` caches project methods' LOC
    across the candidates of a project."""
    targets = [
        t.to_dict()
        for t in pg.reach(mid, max_depth=opts.max_depth, dispatch=opts.dispatch, include_unresolved=opts.keep_unresolved)
    ]
    targets.sort(key=lambda d: (d["depth"], d["chain"][-1]))
    cand = {
        "method": mid,
        "file": info.file,
        "start_line": info.start_line,
        "end_line": info.end_line,
        "loc": info.loc,
        "comment": info.comment,
        "description": description,
        "query": query_from_description(description, opts.query_lines),
        "lang": detect_lang(description),
        "n_direct_apis": len({d["chain"][-1] for d in targets if d["depth"] == 2}),
        "n_reached_apis": len({d["chain"][-1] for d in targets}),
        "targets": targets,
        "depth_max": None,
        "depth_min": None,
        "density": None,
    }
    if targets:
        union = {m for d in targets for m in d["chain"][:-1]}
        for m in union:
            if m not in node_loc:
                node_loc[m] = int(pg.method(m).loc)
        total = sum(node_loc[m] for m in union)
        cand["depth_max"] = max(d["depth"] for d in targets)
        cand["depth_min"] = min(d["depth"] for d in targets)
        cand["density"] = 1.0 / total if total > 0 else None
    return cand


def analyse_project(spec: ProjectSpec, opts: BuildOptions, progress: bool = False) -> dict[str, Any]:
    """Analyse one project into a *part* (a JSON-ready dict). Never raises
    for a project's own failure: the part then has ``verdict == "failed"``,
    ``error`` and ``traceback``.

    Returns
    -------
    dict
        ``format``, ``fingerprint``, ``key``, ``spec`` (the list entry),
        ``project`` (name), ``commit``, ``root``, ``verdict``
        (``kept``/``dropped``/``failed``), ``reason``, ``error``,
        ``traceback``, ``counts``, ``timings`` (seconds), ``candidates``
        (one dict per candidate method: ``method``, ``file``,
        ``start_line``, ``end_line``, ``loc``, ``comment``, ``description``,
        ``query``, ``lang``, ``n_direct_apis``, ``targets`` (TargetRecord
        dicts), ``depth_max``, ``depth_min``, ``density``), ``apis``
        (target node id → ApiRecord dict, or ``None`` when undocumented),
        ``warnings``.
    """
    part = _new_part(spec, opts)
    timings = part["timings"]
    t_all = time.perf_counter()
    try:
        keep, reason = select_metadata(spec, opts.selection)
        if not keep:
            part.update(verdict="dropped", reason=reason)
            return part
        notes = [reason] if reason else []
        t = time.perf_counter()
        _progress.set_phase(spec.name, "fetch")
        root, commit = fetch_project(spec, opts.cache_dir or _default_cache())
        part.update(root=str(root), commit=commit)
        timings["fetch"] = round(time.perf_counter() - t, 3)
        t = time.perf_counter()
        keep, reason = select_checkout(root, opts.selection)
        timings["select"] = round(time.perf_counter() - t, 3)
        if not keep:
            part.update(verdict="dropped", reason=reason)
            return part
        classpath = list(spec.classpath)
        resolution = None
        if opts.discover_classpath:
            _progress.set_phase(spec.name, "classpath (Maven resolution; downloads on a cold cache)")
            t = time.perf_counter()
            try:
                resolution = _discover_classpath(root, opts, progress)
                jars = [str(p) for p in getattr(resolution, "jars", resolution)]
                classpath += [p for p in jars if p not in classpath]  # explicit entries first: they win
                if hasattr(resolution, "to_dict"):
                    part["classpath"] = resolution.to_dict()
            except Exception as e:  # discovery is best effort; the graph still builds without it
                part["warnings"].append(f"classpath discovery failed: {type(e).__name__}: {e}")
            timings["classpath"] = round(time.perf_counter() - t, 3)
        t = time.perf_counter()
        cache = None
        if opts.facts_cache_dir:
            Path(opts.facts_cache_dir).mkdir(parents=True, exist_ok=True)
            cache = str(Path(opts.facts_cache_dir) / f"{spec.key}.sqlite")
        _progress.set_phase(spec.name, "call graph")
        pg = _build_graph(root, classpath, opts, progress, cache=cache)
        timings["graph"] = round(time.perf_counter() - t, 3)
        t = time.perf_counter()
        counts = part["counts"]
        summary = getattr(pg, "summary", None)
        for attr in ("files", "call_sites"):
            v = getattr(summary, attr, None)
            if isinstance(v, int):
                counts[attr] = v
        for attr in ("parse_errors", "skipped"):
            v = getattr(summary, attr, None)
            if isinstance(v, (list, tuple)):
                counts[attr] = len(v)
        _progress.set_phase(spec.name, "methods and chains")
        mids = list(pg.methods())
        counts["methods"] = len(mids)
        source_sets = ("main", "test") if opts.include_tests else ("main",)
        commented = empty = not_javadoc = 0
        rejected: Counter = Counter()
        node_loc: dict[str, int] = {}
        it = mids
        if progress:
            from tqdm import tqdm

            # disable=None: off when stderr is not a terminal (no carriage returns or cursor codes in logs)
            it = tqdm(mids, desc=spec.name[:30], unit="method", leave=False, position=1, file=sys.stderr,
                      disable=None)
        for mid in it:
            info = pg.method(mid)
            if info.source_set not in source_sets or not info.comment:
                continue
            commented += 1
            if opts.comments == "javadoc" and not is_javadoc(info.comment):
                not_javadoc += 1
                continue
            description = clean_comment(info.comment)
            if not description:
                empty += 1
                continue
            why = reject_description(description)
            if why is not None:
                rejected[why.value] += 1
                continue
            part["candidates"].append(_candidate(pg, mid, info, description, opts, node_loc))
        counts["commented"] = commented
        counts["empty_description"] = empty
        counts["not_javadoc"] = not_javadoc
        for why, n in sorted(rejected.items()):
            counts[f"rejected_{why}"] = n
        counts["candidates"] = len(part["candidates"])
        counts["with_targets"] = sum(1 for c in part["candidates"] if c["targets"])
        timings["methods"] = round(time.perf_counter() - t, 3)
        # documentation of every target API
        t = time.perf_counter()
        targets_by_node: dict[str, dict] = {}
        for c in part["candidates"]:
            for d in c["targets"]:
                targets_by_node.setdefault(d["chain"][-1], d)
        counts["distinct_apis"] = len(targets_by_node)
        counts["distinct_api_names"] = len({d["api"] for d in targets_by_node.values()})
        doc_paths = list(spec.javadoc) + [p for p in _doc_paths_next_to(classpath) if p not in spec.javadoc]
        if targets_by_node and doc_paths:
            _progress.set_phase(spec.name, f"javadoc ({len(doc_paths)} site{'s' if len(doc_paths) != 1 else ''})")
        index = _open_doc_index(doc_paths, part) if targets_by_node and doc_paths else None
        if opts.discover_classpath and targets_by_node:
            _progress.set_phase(spec.name, "docs (javadoc/sources jars of the reached libraries)")
            index, doc_paths = _add_fetched_docs(targets_by_node, index, doc_paths, resolution, opts, part, progress)
        part["doc_paths"] = doc_paths
        part["classpath_jars"] = [str(j) for j in classpath]  # the jars the describe step reads undocumented members from
        for node, d in sorted(targets_by_node.items()):
            part["apis"][node] = _doc_record(index, d)
        if "docs" in part:
            reached = len(targets_by_node)
            documented = sum(1 for v in part["apis"].values() if v)
            part["docs"].update(reached_apis=reached, documented_apis=documented,
                                coverage=round(documented / reached, 4) if reached else None)
        counts["documented_apis"] = sum(1 for v in part["apis"].values() if v)
        timings["docs"] = round(time.perf_counter() - t, 3)
        part["reason"] = "; ".join(notes)
    except Exception as e:
        part.update(_failure(e), candidates=[], apis={})
    finally:
        timings["total"] = round(time.perf_counter() - t_all, 3)
    return part


def _open_doc_index(doc_paths: list[str], part: dict):
    try:
        index = _open_docs(doc_paths)
    except Exception as e:  # unreadable docs cost the documentation, not the project
        part["warnings"].append(f"docs: cannot open {', '.join(doc_paths)}: {type(e).__name__}: {e}")
        return None
    for w in getattr(index, "warnings", ()) or ():
        part["warnings"].append(f"docs: {w[0]}: {w[1]}" if isinstance(w, tuple) and len(w) == 2 else f"docs: {w}")
    return index


def _add_fetched_docs(targets_by_node: dict, index, doc_paths: list[str], resolution, opts: BuildOptions,
                      part: dict, progress: bool):
    """Fetch the ``-javadoc.jar`` of every library a target belongs to, then the
    ``-sources.jar`` of those whose javadoc jar is missing or lacks a target; the
    paths given (``javadoc=``) and those beside the jars stay first, so they win.
    Records ``part["docs"]``: jars fetched, failures, downloads."""
    def undocumented_libs(ix) -> list[str]:
        return sorted({d["library"] for d in targets_by_node.values()
                       if d.get("library") and _doc_record(ix, d) is None})

    libs = undocumented_libs(index)
    if not libs:
        return index, doc_paths
    repos = tuple(getattr(resolution, "repositories", ()) or ())
    rec = part.setdefault("docs", {"javadoc": [], "sources": [], "failures": [], "downloads": 0,
                                   "bytes_downloaded": 0})
    failures: list = []
    for kind in ("javadoc", "sources"):
        if not libs:
            break
        try:
            got = _fetch_doc_jars(libs, kind, opts, repos, progress)
        except Exception as e:  # fetching is best effort: the build goes on without
            part["warnings"].append(f"docs: fetching {kind} jars failed: {type(e).__name__}: {e}")
            break
        new = [p for p in got.paths() if p not in doc_paths]
        rec[kind] = [j.coords for j in got.jars]
        rec["downloads"] += got.downloads
        rec["bytes_downloaded"] += got.bytes_downloaded
        failures += [dict(f.to_dict(), kind=kind) for f in got.failures]
        if new:
            doc_paths = doc_paths + new
            index = _open_doc_index(doc_paths, part)
        libs = undocumented_libs(index)
    # a missing javadoc jar is no failure when the sources jar stood in
    rec["failures"] = [f for f in failures if f["coords"] in libs]
    return index, doc_paths


def _library_totals(rows: list[dict]) -> dict[str, Any]:
    """Build-wide figures of library resolution and documentation fetching (manifest ``libraries``)."""
    methods: Counter = Counter()
    t = Counter()
    for r in rows:
        cp, docs = r.get("classpath") or {}, r.get("docs") or {}
        if cp:
            methods[cp.get("method")] += 1
            t["artifacts"] += len(cp.get("artifacts", ()))
            t["unresolved"] += len(cp.get("unresolved", ()))
            t["downloads"] += cp.get("downloads", 0)
            t["bytes_downloaded"] += cp.get("bytes_downloaded", 0)
        if docs:
            t["doc_jars"] += len(docs.get("javadoc", ())) + len(docs.get("sources", ()))
            t["doc_failures"] += len(docs.get("failures", ()))
            t["downloads"] += docs.get("downloads", 0)
            t["bytes_downloaded"] += docs.get("bytes_downloaded", 0)
            t["reached_apis"] += docs.get("reached_apis") or 0
            t["documented_apis"] += docs.get("documented_apis") or 0
    out: dict[str, Any] = {"methods": dict(methods), **{k: t[k] for k in (
        "artifacts", "unresolved", "doc_jars", "doc_failures", "downloads", "bytes_downloaded", "reached_apis",
        "documented_apis")}}
    out["doc_coverage"] = round(t["documented_apis"] / t["reached_apis"], 4) if t["reached_apis"] else None
    return out


def _default_cache() -> str:
    from callgraph.classpath import cache_dir

    # clones need a folder even when the other caches are switched off
    base = cache_dir() or Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "qare"
    return str(base / "repos")


# ---------------------------------------------------------------- merge


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if tmp.is_symlink() or (tmp.exists() and not tmp.is_file()):
        tmp.unlink()  # planted in a shared --out: never write through it
    # O_NOFOLLOW | O_EXCL: a link or file planted at the guessable name between
    # the check and the open makes the open fail instead of writing elsewhere
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with open(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


_TMP_OF_PID = re.compile(r"^\..+\.(\d+)\.tmp$")
LOCK_FILE = ".lock"


def _lock_out(out: Path):
    """An exclusive ``flock`` on ``out/.lock``, held until the returned file
    is closed (or the process dies: the kernel drops it, so a killed build
    never leaves a stale lock). Raises ``BuildError`` when another build holds it."""
    import fcntl

    lock = out / LOCK_FILE
    try:
        # never through a symlink (a shared --out could point it at a victim
        # file), never a FIFO or device (open would block or read forever)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise BuildError(f"{lock}: cannot open the build lock ({e.strerror or e}); "
                         "remove it if it is a link or not a regular file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BuildError(f"{lock}: the build lock is not a regular file; remove it")
    fh = open(fd, "a+", encoding="utf-8")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise BuildError(f"{out}: another qare build ({holder}) is writing to this folder; "
                         "wait for it to finish or use another --out") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}\n")
    fh.flush()
    return fh


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_tmp(*folders: Path) -> list[str]:
    """Remove ``.<name>.<pid>.tmp`` files of dead processes (a build killed
    during a write); returns their paths. Called under the lock."""
    removed = []
    for d in folders:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            m = _TMP_OF_PID.match(n)
            if m and not _pid_alive(int(m.group(1))):
                try:
                    os.unlink(d / n)
                    removed.append(str(d / n))
                except OSError:
                    pass
    return removed


def _jsonl(records: Iterable[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def sample_id(project: str, commit: str | None, method: str) -> str:
    """Stable sample id: the first 16 hex digits of SHA-1 over
    ``project NUL commit NUL method`` (commit ``""`` when unknown)."""
    return hashlib.sha1(f"{project}\0{commit or ''}\0{method}".encode()).hexdigest()[:16]


def _translate(cmd: str, text: str, cache: dict[str, str]) -> tuple[str, str | None]:
    if text in cache:
        return cache[text], None
    try:
        r = subprocess.run(shlex.split(cmd), input=text, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return text, f"{type(e).__name__}: {e}"
    out = r.stdout.strip()
    if r.returncode != 0 or not out:
        err = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        return text, f"translator failed: {err}" if r.returncode else "translator printed nothing"
    cache[text] = " ".join(out.split())
    return cache[text], None


def _llm_steps(opts: BuildOptions):
    """The language-model steps of a build (:class:`queries.llm_steps.LLMSteps`), or ``None`` when off."""
    if opts.translate != "llm" and opts.describe_undocumented != "llm":
        return None
    from .llm_steps import LLMSteps

    try:
        return LLMSteps.from_options(opts)
    except (ValueError, RuntimeError) as e:  # no --llm-url/--llm-model, openai not installed
        raise BuildError(str(e)) from None


def _api_count_range(counts: list[int], fixed: tuple[float, float] | None, over: str) -> dict[str, Any]:
    import numpy as np

    if fixed is not None:
        return {"mode": "fixed", "low": fixed[0], "high": fixed[1], "n": len(counts)}
    if over == "calling":
        counts = [n for n in counts if n > 0]
    elif over != "all":
        raise BuildError(f"iqr_over must be 'calling' or 'all', got {over!r}")
    if not counts:
        return {"mode": "iqr", "over": over, "low": None, "high": None, "n": 0, "method": "linear"}
    q1, q3 = np.percentile(np.asarray(counts, dtype=float), [25, 75], method="linear")
    return {"mode": "iqr", "over": over, "low": float(q1), "high": float(q3), "n": len(counts), "method": "linear"}


def _no_samples_reason(pc: Counter, rng: dict, opts: BuildOptions, *, docs_given: bool) -> str:
    """Why a kept project contributed no sample: the filter stage that removed
    its last candidates (stages run IQR → targets → docs → leaks), with the
    option that would change it. ``pc`` holds the project's per-stage counts."""
    n = pc["candidates"]
    if not n:
        return "0 samples: 0 candidate methods with comments"
    left = n - pc["dropped_api_count"]
    if not left:
        if rng.get("mode") == "fixed":
            where = f"the --api-count-range [{rng['low']:g}, {rng['high']:g}]"
        else:
            where = f"the IQR [{rng['low']:g}, {rng['high']:g}] of direct-API counts"
        return f"0 samples: no method within {where} (all {n} candidates outside)"
    left -= pc["dropped_no_targets"]
    if not left:
        hint = "" if opts.keep_unresolved else "; give the classpath or use --keep-unresolved"
        return f"0 samples: none of the {n - pc['dropped_api_count']} candidates in range reaches a third-party API{hint}"
    left -= pc["dropped_undocumented"]
    if not left:
        reached, undoc = pc["reached_apis"], pc["undocumented_apis"]
        what = f"all {reached} reached APIs undocumented" if undoc == reached else (
            f"{undoc} of {reached} reached APIs undocumented and every candidate reaches one")
        given = "" if docs_given else " (no javadoc given)"
        return f"0 samples: {what}{given} — give javadoc/sources jars or use --no-require-docs"
    return f"0 samples: all {left} remaining candidates name a target in their query (--drop-leaky)"


def merge_parts(
    parts: Iterable[dict], opts: BuildOptions, out: Path, *, direct_counts: list[int] | None = None
) -> dict[str, Any]:
    """Filter the candidates of all parts and write ``samples.jsonl`` and ``apis.jsonl``.

    Order: IQR on ``n_direct_apis`` → candidates without targets dropped →
    documentation (``require_docs``) → translation → leaks (``drop_leaky``).

    Parameters
    ----------
    parts : iterable of dict
        Parts as made by :func:`analyse_project`, in list order. May be a
        generator (read once) when ``direct_counts`` is given, so a large
        build never holds every project's candidates at once.
    opts : BuildOptions
    out : Path
    direct_counts : list of int, optional
        ``n_direct_apis`` of every candidate of the kept parts (the IQR
        population before ``iqr_over``); computed from ``parts`` if omitted.

    Returns
    -------
    dict
        ``counts`` (per stage), ``api_count_range``, ``depth_histogram``
        (target depth → targets), ``sample_depth_histogram`` (depth_max →
        samples), ``density_histogram`` (bin label → samples),
        ``translation_errors``, ``samples_per_project`` and
        ``project_counts`` (part key → per-stage counts: ``candidates``,
        ``dropped_api_count``, ``dropped_no_targets``,
        ``dropped_undocumented``, ``dropped_leaky``, ``reached_apis``,
        ``undocumented_apis``, ``samples``), ``no_samples_reasons`` (part
        key → why a kept project gave no sample, see
        :func:`_no_samples_reason`).
    """
    if direct_counts is None:
        parts = list(parts)
        direct_counts = [api_count(c, opts.api_count) for p in parts if p["verdict"] == "kept" for c in p["candidates"]]
    rng = _api_count_range(direct_counts, opts.api_count_range, opts.iqr_over)
    translated = leaky = 0  # the other build-wide counts are sums of the per-project ones
    samples: list[SampleRecord] = []
    apis: dict[str, dict] = {}
    undocumented: set[str] = set()
    per_project: dict[str, Counter] = {}
    per_reason: dict[str, str] = {}
    tr_cache: dict[str, str] = {}
    tr_path = out / _TRANSLATIONS
    if opts.translate_cmd and tr_path.is_file():
        try:
            tr_cache = json.loads(tr_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tr_cache = {}
    tr_errors: list[str] = []
    steps = _llm_steps(opts)  # the language-model steps (--translate llm, --describe-undocumented llm) or None
    langs: Counter = Counter()  # the samples' query languages (before translation)
    untranslated = 0
    for p in parts:
        pc = per_project.setdefault(p["key"], Counter())
        if p["verdict"] != "kept":
            continue
        reached: set[str] = set()
        undoc_here: set[str] = set()
        in_range = [c for c in p["candidates"]
                    if rng["low"] is None or rng["low"] <= api_count(c, opts.api_count) <= rng["high"]]
        if steps is not None and steps.describer is not None:
            steps.describe_part(p, in_range)  # fills p["apis"] for undocumented APIs it can describe
        survivors = []
        for c in p["candidates"]:
            pc["candidates"] += 1
            n = api_count(c, opts.api_count)
            if rng["low"] is not None and not (rng["low"] <= n <= rng["high"]):
                pc["dropped_api_count"] += 1
                continue
            if not c["targets"]:
                pc["dropped_no_targets"] += 1
                continue
            reached.update(t["chain"][-1] for t in c["targets"])
            missing = [t["chain"][-1] for t in c["targets"] if not p["apis"].get(t["chain"][-1])]
            if missing:
                undocumented.update(missing)
                undoc_here.update(missing)
                if opts.require_docs:
                    pc["dropped_undocumented"] += 1
                    continue
            survivors.append(c)
        # translation after the filters, so only samples that are kept cost a translation
        foreign = [c for c in survivors if (steps is not None and steps.translator is not None or opts.translate_cmd)
                   and c["lang"] not in ("en", "und")]
        if steps is not None and steps.translator is not None:
            english = steps.translator.translate_many([c["query"] for c in foreign])
            done = {id(c): (t.text, t.error) for c, t in zip(foreign, english)}
        else:
            done = {}
            for c in foreign:
                text, err = _translate(opts.translate_cmd, c["query"], tr_cache)
                done[id(c)] = (None if err else text, err)
        for c in survivors:
            query, source = c["query"], "comment"
            if id(c) in done:
                text, err = done[id(c)]
                if err:
                    tr_errors.append(f"{p['project']} {c['method']}: {err}")
                else:
                    query, source = text, "translated"
                    translated += 1
            leaks = find_leaks(query, c["targets"])
            if leaks:
                leaky += 1
                if opts.drop_leaky:
                    pc["dropped_leaky"] += 1
                    continue
            rec = SampleRecord.from_dict({
                **c,
                "id": sample_id(p["project"], p["commit"], c["method"]),
                "project": p["project"],
                "commit": p["commit"],
                "query": query,
                "query_original": c["query"],
                "query_source": source,
                "leaks": leaks,
            })
            samples.append(rec)
            pc["samples"] += 1
            langs[c["lang"]] += 1
            if c["lang"] not in ("en", "und") and source != "translated":
                untranslated += 1
            for t in c["targets"]:
                node = t["chain"][-1]
                doc = p["apis"].get(node)
                if node not in apis or (apis[node]["doc_source"] is None and doc):
                    apis[node] = doc or ApiRecord(
                        api=t["api"], signature=t["signature"], class_=t["class"], library=t["library"]
                    ).to_dict()
        pc["reached_apis"] = len(reached)
        pc["undocumented_apis"] = len(undoc_here)
        if not pc["samples"]:
            per_reason[p["key"]] = _no_samples_reason(pc, rng, opts, docs_given=bool(p.get("doc_paths")))
    if opts.translate_cmd and tr_cache:
        _write_atomic(tr_path, json.dumps(tr_cache, ensure_ascii=False))
    def total(key: str) -> int:
        return sum(pc[key] for pc in per_project.values())

    stats = {
        "candidates": total("candidates"),
        "dropped_api_count": total("dropped_api_count"),
        "dropped_no_targets": total("dropped_no_targets"),
        "dropped_undocumented": total("dropped_undocumented"),
        "translated": translated,
        "leaky": leaky,
        "dropped_leaky": total("dropped_leaky"),
        "samples": len(samples),
        "apis": len(apis),
        "api_names": len({r["api"] for r in apis.values()}),
        "undocumented_apis": len(undocumented),
        "untranslated_non_english": untranslated,
    }
    samples.sort(key=lambda s: (s.project, s.file, s.start_line, s.method))
    _write_atomic(out / SAMPLES_FILE, _jsonl(s.to_dict() for s in samples))
    api_rows = [apis[k] for k in sorted(apis)]
    _write_atomic(out / APIS_FILE, _jsonl(api_rows))
    depth_hist = Counter(t.depth for s in samples for t in s.targets)
    sample_depth = Counter(s.depth_max for s in samples)
    return {
        "counts": dict(stats),
        "languages": dict(sorted(langs.items(), key=lambda kv: (-kv[1], kv[0]))),
        "api_count_range": rng,
        "depth_histogram": {str(k): depth_hist[k] for k in sorted(depth_hist)},
        "sample_depth_histogram": {str(k): sample_depth[k] for k in sorted(sample_depth)},
        "density_histogram": _density_histogram([s.density for s in samples]),
        "translation_errors": tr_errors,
        "llm": steps.summary() if steps is not None else None,
        "samples_per_project": {k: v["samples"] for k, v in per_project.items()},
        "project_counts": {k: dict(v) for k, v in per_project.items()},
        "no_samples_reasons": per_reason,
        "_samples": samples,
        "_apis": api_rows,
    }


DENSITY_BINS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def _density_histogram(values: list[float]) -> dict[str, int]:
    """Samples per density bin (lower bound exclusive, upper inclusive)."""
    out = {}
    for lo, hi in zip(DENSITY_BINS, DENSITY_BINS[1:]):
        out[f"({lo:g}, {hi:g}]"] = sum(1 for v in values if v is not None and lo < v <= hi)
    return out


# ---------------------------------------------------------------- the whole build


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What :func:`build_dataset` did. ``projects`` are the ``projects.jsonl`` rows."""

    out: Path
    projects: tuple[dict, ...]
    counts: dict[str, Any]
    merge: dict[str, Any]
    analysed: tuple[str, ...]
    resumed: tuple[str, ...]

    @property
    def failed(self) -> int:
        return sum(1 for p in self.projects if p["verdict"] == "failed")


_STAGE_COUNTS = ("dropped_api_count", "dropped_no_targets", "dropped_undocumented", "dropped_leaky", "reached_apis",
                 "undocumented_apis")


def _project_row(part: dict) -> dict[str, Any]:
    return {
        "project": part["project"],
        "source": part["spec"]["source"],
        "requested_commit": part["spec"]["commit"],
        "commit": part["commit"],
        "line": part["spec"]["line"],
        "verdict": part["verdict"],
        "reason": part["reason"],
        "counts": part["counts"],
        "timings": part["timings"],
        "error": part["error"],
        "traceback": part["traceback"],
        "warnings": part["warnings"][:50],
        "classpath": part.get("classpath"),
        "docs": part.get("docs"),
    }


def _light(part: dict) -> dict:
    """A part without its candidates and API docs (kept in memory for the whole build)."""
    light = {k: v for k, v in part.items() if k not in ("candidates", "apis")}
    light["direct_counts"] = [c["n_direct_apis"] for c in part["candidates"]]
    light["reached_counts"] = [api_count(c, "reached") for c in part["candidates"]]
    return light


def _load_part(path: Path, fingerprint: str) -> dict | None:
    try:
        part = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if part.get("format") != PART_FORMAT or part.get("fingerprint") != fingerprint or part.get("verdict") == "failed":
        return None
    return part


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def _run_one(spec: ProjectSpec, opts: BuildOptions, progress: bool) -> dict:
    # a module-level function that looks analyse_project up when it runs, so workers
    # pickle it by name and a substituted analyse_project (tests) is the one called
    return analyse_project(spec, opts, progress=progress)


def build_dataset(
    project_list: str | os.PathLike | list[ProjectSpec],
    out: str | os.PathLike,
    opts: BuildOptions | None = None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    formats: tuple[str, ...] = ("jsonl",),
    quiet: bool = False,
    resume: bool = True,
) -> BuildResult:
    """Build a dataset folder from a project list.

    Parameters
    ----------
    project_list : path-like or list of ProjectSpec
        The list file (see :mod:`queries.projects`) or parsed entries.
    out : path-like
        The output folder; created if missing. Finished projects' parts in
        ``out/.parts`` are re-used (``resume``); failed ones are retried.
    opts : BuildOptions
    jobs : int
        Projects analysed in parallel processes (1 = in this process).
    scheduler : str or None
        ``tcp://host:port`` of a ``dask.distributed`` scheduler (extra
        ``dist``); overrides ``jobs``.
    formats : tuple of str
        ``"jsonl"`` always; ``"parquet"`` adds ``samples.parquet``,
        ``apis.parquet`` and ``projects.parquet`` (extra ``parquet``).
    quiet : bool
        No progress bars.

    Returns
    -------
    BuildResult

    Raises
    ------
    BuildError
        Unreadable list (wraps ``ProjectListError``), unwritable output
        folder, a missing optional dependency.
    """
    from .projects import ProjectListError

    opts = opts or BuildOptions()
    if not opts.cache_dir:
        opts = replace(opts, cache_dir=_default_cache())
    started = _dt.datetime.now(_dt.timezone.utc)
    if isinstance(project_list, (list, tuple)):
        specs = list(project_list)
        list_name = None
    else:
        try:
            specs = read_project_list(project_list)
        except ProjectListError as e:
            raise BuildError(str(e)) from None
        list_name = str(Path(project_list).resolve())
    if "parquet" in formats:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise BuildError("--format parquet needs the package pyarrow, which is not installed: "
                             "pip install -e '.[parquet]' in the qare checkout (or pip install 'pyarrow>=15')") from None
    _llm_steps(opts)  # a missing --llm-url/--llm-model or openai package stops the build now, not after analysis
    out = Path(out)
    if opts.facts_cache_dir == "":
        opts = replace(opts, facts_cache_dir=str((out / ".cache").resolve()))
    parts_dir = out / PARTS_DIR
    try:
        parts_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"{out}: cannot create output folder ({e.strerror or e})") from None
    lock = _lock_out(out)  # a second build on the same --out is refused
    try:
        _remove_stale_tmp(out, parts_dir)
        return _build_locked(specs, list_name, out, parts_dir, opts, started, jobs=jobs,
                             scheduler=scheduler, formats=formats, quiet=quiet, resume=resume)
    finally:
        lock.close()


def _build_locked(specs, list_name, out: Path, parts_dir: Path, opts: BuildOptions, started, *,
                  jobs, scheduler, formats, quiet, resume) -> BuildResult:
    fp = opts.fingerprint()
    # duplicate list entries (same source and commit) are analysed once
    seen: dict[str, ProjectSpec] = {}
    for s in specs:
        seen.setdefault(s.key, s)
    unique = list(seen.values())
    parts: dict[str, dict] = {}
    resumed = []
    if resume:
        for s in unique:
            part = _load_part(parts_dir / f"{s.key}.json", fp)
            if part is not None:
                parts[s.key] = _light(part)
                resumed.append(s.key)
    todo = [s for s in unique if s.key not in parts]

    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal, so a redirected log stays plain text
    bar = tqdm(total=len(unique), initial=len(resumed), desc="projects", unit="project",
               disable=True if quiet else None, file=sys.stderr)
    # callgraph draws its own bars: ask for them only when someone can see them
    progress = not quiet and _stderr_is_tty()
    # not on a terminal: plain lines (per project, and every ~10 s) instead of bars
    lines = _progress.BuildProgress(len(unique), len(resumed), lines=not quiet and not progress,
                                    on_phase=bar.set_postfix_str if progress else None)
    _DOCS_MEMO.clear()

    def finish(spec: ProjectSpec, part: dict) -> None:
        _write_atomic(parts_dir / f"{spec.key}.json", json.dumps(part, ensure_ascii=False))
        parts[spec.key] = _light(part)
        bar.set_postfix_str(f"{spec.name[:30]}: {part['verdict']}")
        bar.update(1)
        lines.finished(spec.name, part["verdict"], (part.get("timings") or {}).get("total"))

    def crashed(spec: ProjectSpec, e: BaseException) -> dict:
        return _failed_part(spec, opts, e)

    try:
        lines.__enter__()
        if scheduler:
            try:
                from distributed import Client, as_completed as dask_completed
            except ImportError:
                raise BuildError("--scheduler needs the package distributed (dask), which is not installed: "
                                 "pip install -e '.[dist]' in the qare checkout") from None
            with Client(scheduler) as client:
                futs = {client.submit(_run_one, s, opts, False, pure=False): s for s in todo}
                for fut in dask_completed(futs):
                    s = futs[fut]
                    try:
                        finish(s, fut.result())
                    except Exception as e:
                        finish(s, crashed(s, e))
        elif jobs <= 1 or len(todo) <= 1:
            if jobs > 1:
                # one project left: give the processes to its call-graph build instead
                opts = replace(opts, graph_jobs=jobs)
            for s in todo:
                try:
                    part = _run_one(s, opts, progress)
                except Exception as e:  # analyse_project catches its own; this is a last guard
                    part = crashed(s, e)
                finish(s, part)
        else:
            broken = _pool_run(todo, opts, jobs, finish, crashed)
            # A dying worker (out of memory, a signal) breaks the whole pool, failing every project
            # still in it; re-run those one per fresh process so only the culprit fails.
            for s in broken:
                if not _pool_run([s], opts, 1, finish, crashed):
                    continue
                finish(s, crashed(s, RuntimeError("the worker process died (killed by a signal or out of memory)")))
    finally:
        lines.__exit__(None, None, None)
        _DOCS_MEMO.clear()
        bar.close()

    ordered = [parts[s.key] for s in unique]

    def full_parts():
        for light in ordered:
            if light["verdict"] != "kept":
                yield dict(light, candidates=[], apis={})
                continue
            path = parts_dir / f"{light['key']}.json"
            try:
                yield json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise BuildError(f"{path}: cannot read back the project's results ({e})") from None

    key = "reached_counts" if opts.api_count == "reached" else "direct_counts"
    counts = [n for p in ordered if p["verdict"] == "kept" for n in p.get(key, p["direct_counts"])]
    merge = merge_parts(full_parts(), opts, out, direct_counts=counts)
    rows = []
    for p in ordered:
        row = _project_row(p)
        pc = merge["project_counts"].get(p["key"], {})
        row["counts"] = dict(row["counts"], samples=merge["samples_per_project"].get(p["key"], 0),
                             **{k: pc.get(k, 0) for k in _STAGE_COUNTS if p["verdict"] == "kept"})
        row["no_samples_reason"] = merge["no_samples_reasons"].get(p["key"])
        rows.append(row)
    _write_atomic(out / PROJECTS_FILE, _jsonl(rows))
    verdicts = Counter(r["verdict"] for r in rows)
    counts = {
        "projects": len(rows),
        "kept": verdicts.get("kept", 0),
        "dropped": verdicts.get("dropped", 0),
        "failed": verdicts.get("failed", 0),
        "list_entries": len(specs),
        "resumed": len(resumed),
        **merge["counts"],
    }
    if "parquet" in formats:
        _write_parquet(out, merge["_samples"], merge["_apis"], rows)
    ended = _dt.datetime.now(_dt.timezone.utc)
    from records import __version__

    manifest = {
        "tool": "qare",
        "version": __version__,
        "project_list": list_name,
        "out": str(out.resolve()),
        "parameters": {**opts.to_dict(), "jobs": jobs, "scheduler": scheduler, "formats": list(formats)},
        "api_count_range": merge["api_count_range"],
        "counts": counts,
        "languages": merge["languages"],
        "depth_histogram": merge["depth_histogram"],
        "sample_depth_histogram": merge["sample_depth_histogram"],
        "density_histogram": merge["density_histogram"],
        "translation_errors": merge["translation_errors"][:100],
        "llm": merge["llm"],
        "libraries": _library_totals(rows),
        "started": started.isoformat(timespec="seconds"),
        "ended": ended.isoformat(timespec="seconds"),
        "seconds": round((ended - started).total_seconds(), 3),
        "python": sys.version.split()[0],
    }
    _write_atomic(out / MANIFEST_FILE, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    public_merge = {k: v for k, v in merge.items() if not k.startswith("_")}
    return BuildResult(
        out=out,
        projects=tuple(rows),
        counts=counts,
        merge=public_merge,
        analysed=tuple(s.key for s in todo),
        resumed=tuple(resumed),
    )


def _pool_run(specs, opts, jobs, finish, crashed) -> list:
    """Run ``specs`` in a process pool; returns those lost to a broken pool."""
    from concurrent.futures.process import BrokenProcessPool

    broken = []
    with ProcessPoolExecutor(max_workers=min(jobs, len(specs))) as pool:
        futs = {pool.submit(_run_one, s, opts, False): s for s in specs}
        for fut in as_completed(futs):
            s = futs[fut]
            try:
                part = fut.result()
            except BrokenProcessPool:
                broken.append(s)
                continue
            except Exception as e:  # analyse_project catches its own; e.g. a result that cannot be pickled
                part = crashed(s, e)
            finish(s, part)
    return broken


def _new_part(spec: ProjectSpec, opts: BuildOptions, **fields: Any) -> dict[str, Any]:
    """A part before analysis (``verdict`` ``"kept"``, nothing found yet), ``fields`` overriding."""
    return {
        "format": PART_FORMAT,
        "fingerprint": opts.fingerprint(),
        "key": spec.key,
        "spec": spec.to_dict(),
        "project": spec.name,
        "commit": None,
        "root": None,
        "verdict": "kept",
        "reason": "",
        "error": None,
        "traceback": None,
        "counts": {},
        "timings": {},
        "candidates": [],
        "apis": {},
        "warnings": [],
        **fields,
    }


def _failure(e: BaseException) -> dict[str, Any]:
    """The fields of a part that failed with ``e``."""
    return {"verdict": "failed", "reason": "error", "error": f"{type(e).__name__}: {e}", "traceback": _tb_summary(e)}


def _failed_part(spec: ProjectSpec, opts: BuildOptions, e: BaseException) -> dict:
    return _new_part(spec, opts, **_failure(e))


def _write_parquet(out: Path, samples: list[SampleRecord], apis: list[dict], rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(name: str, records: list[dict]) -> None:
        tmp = out / f".{name}.tmp"
        table = pa.Table.from_pylist(records) if records else pa.table({})
        pq.write_table(table, tmp)
        os.replace(tmp, out / name)

    write("samples.parquet", [s.to_dict() for s in samples])
    write("apis.parquet", apis)
    # free-form nested dicts (counts, timings) as JSON text: their keys vary between projects
    flat = [{k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in r.items()} for r in rows]
    write("projects.parquet", flat)


#: share of samples whose query is non-English and untranslated above which the summary warns
NON_ENGLISH_WARN_SHARE = 0.2


def language_warning(counts: dict, languages: dict) -> str | None:
    """The summary's warning when at least ``NON_ENGLISH_WARN_SHARE`` of the
    samples have a non-English query that was not translated, else None."""
    n = sum(languages.values())
    left = counts.get("untranslated_non_english", 0)
    if not n or left / n < NON_ENGLISH_WARN_SHARE:
        return None
    top = ", ".join(f"{k} {v / n:.0%}" for k, v in languages.items() if k not in ("en", "und"))
    return (f"warning: {left / n:.0%} of the queries are not English and untranslated ({top}); "
            "translate them with --translate-cmd (docs/dataset.md)")


def summary_table(result: BuildResult) -> str:
    """The human summary printed at the end of ``qare build``."""
    c = result.counts
    m = result.merge
    lines = [
        f"projects  {c['projects']:>7}  kept {c['kept']}, dropped {c['dropped']}, failed {c['failed']}"
        + (f"  (resumed {c['resumed']})" if c.get("resumed") else ""),
        f"candidates{c.get('candidates', 0):>7}",
    ]
    rng = m["api_count_range"]
    if rng["low"] is not None:
        label = f"IQR (over {'methods calling >= 1 API' if rng.get('over') == 'calling' else 'all candidates'})" if rng["mode"] == "iqr" else "fixed range"
        lines.append(
            f"  direct-API count {label} [{rng['low']:g}, {rng['high']:g}] from {rng['n']} methods: "
            f"dropped {c.get('dropped_api_count', 0)}"
        )
    lines.append(f"  without targets: dropped {c.get('dropped_no_targets', 0)}")
    lines.append(
        f"  undocumented APIs {c.get('undocumented_apis', 0)}: samples dropped {c.get('dropped_undocumented', 0)}"
    )
    lines.append(f"  leaky queries {c.get('leaky', 0)}: dropped {c.get('dropped_leaky', 0)}")
    lines.append(f"samples   {c.get('samples', 0):>7}")
    lines.append(f"APIs      {c.get('api_names', c.get('apis', 0)):>7} names ({c.get('apis', 0)} signatures or "
                 "undecided-overload nodes in apis.jsonl)")
    langs = m.get("languages") or {}
    if langs:
        lines.append("query languages " + "  ".join(f"{k}:{v}" for k, v in langs.items()))
    warn = language_warning(c, langs)
    if warn:
        lines.append(warn)
    if m["depth_histogram"]:
        lines.append("target depth   " + "  ".join(f"{k}:{v}" for k, v in m["depth_histogram"].items()))
        lines.append("sample depth_max " + "  ".join(f"{k}:{v}" for k, v in m["sample_depth_histogram"].items()))
        lines.append("sample density " + "  ".join(f"{k}:{v}" for k, v in m["density_histogram"].items() if v))
    for r in result.projects:
        if r["verdict"] != "kept":
            lines.append(f"  {r['verdict']:<8}{r['project']}: {r['error'] or r['reason']}")
        elif r.get("no_samples_reason"):
            lines.append(f"  {'kept':<8}{r['project']}: {r['no_samples_reason']}")
    return "\n".join(lines)
