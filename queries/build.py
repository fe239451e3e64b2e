"""The dataset builder: a project list → a Q-ARE-style dataset folder.

Two stages (DESIGN.md "A dataset on disk", Q-ARE §3), each in its module:

1. **Per project** (:func:`analyse_project`, :mod:`queries._analyse`; run by
   a :class:`~queries._runners.Runner`: serial, a process pool or a
   ``dask.distributed`` cluster): fetch, select, build the call graph, and
   collect every *candidate* method (a project method with a comment whose
   description is not empty) with its query, language, API counts and
   targets, plus the documentation of every target API. The result, a
   :class:`~queries._part.ProjectPart`, is written atomically to
   ``OUT/.parts/<key>.json`` — its presence is the "project finished"
   marker a resumed build skips on.
2. **Merge** (:func:`merge_parts`, :mod:`queries._merge`): the
   interquartile-range filter over the API counts of *all* candidates of the
   build, the documentation filter, translation, the leakage check, stable
   ids, and the files ``samples.jsonl``, ``apis.jsonl``; this module adds
   ``projects.jsonl``, ``manifest.json`` (and Parquet copies).

What the builder needs from ``callgraph`` and ``javadoc`` comes in as
:class:`BuildDeps` (``build_dataset(..., deps=)``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import gc
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from records import __version__
from records.dataset import MANIFEST_FILE, PROJECTS_FILE, ProjectRecord
from records.io import write_json, write_jsonl, write_text_atomic
from records.safefs import read_regular

from . import _progress
from ._analyse import analyse_project, default_cache, tb_summary
from ._docs import DEFAULT_DEPS, BuildDeps, clear_docs_memo
from ._merge import DENSITY_BINS, MergeResult, llm_steps, merge_parts, sample_id
from ._options import BuildError, BuildOptions, EmptyProjectList
from ._outdir import LOCK_FILE, lock_out, remove_stale_tmp
from ._part import PART_FORMAT, Candidate, ProjectPart, Verdict
from .fetching import local_tree_stamp
from ._order import largest_first
from ._runners import SerialRunner, make_runner
from .leaks import find_leaks, save_common_words
from .projects import ProjectSpec, read_project_list

__all__ = [
    "BuildOptions",
    "BuildResult",
    "BuildError",
    "EmptyProjectList",
    "BuildDeps",
    "Candidate",
    "ProjectPart",
    "Verdict",
    "MergeResult",
    "analyse_project",
    "merge_parts",
    "build_dataset",
    "summary_table",
    "find_leaks",
    "sample_id",
]

PARTS_DIR = ".parts"
_ = (DENSITY_BINS, LOCK_FILE, PART_FORMAT)  # re-exported names of the build's constants


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What :func:`build_dataset` did. ``projects`` are the ``projects.jsonl``
    rows; ``merge`` the merge stage's figures (:meth:`MergeResult.to_dict`)."""

    out: Path
    projects: tuple[dict, ...]
    counts: dict[str, Any]
    merge: dict[str, Any]
    analysed: tuple[str, ...]
    resumed: tuple[str, ...]

    @property
    def failed(self) -> int:
        return sum(1 for p in self.projects if p["verdict"] == "failed")

    @property
    def incomplete(self) -> list[tuple[str, int, int]]:
        """``(project, files skipped, files with parse errors)`` of every
        project whose graph left files out or read them only in part (each
        named with its reason in ``projects.jsonl`` ``warnings``)."""
        return [(p["project"], p["counts"].get("skipped", 0), p["counts"].get("parse_errors", 0))
                for p in self.projects if p["counts"].get("skipped") or p["counts"].get("parse_errors")]

    @property
    def unreadable(self) -> list[tuple[str, str, str]]:
        """``(project, path, reason)`` of every ``classpath=``/``javadoc=``
        path the list names that could not be read (``projects.jsonl``
        ``listed.unreadable``)."""
        return [(p["project"], u["path"], u["reason"]) for p in self.projects
                for u in ((p.get("listed") or {}).get("unreadable") or ())]


_STAGE_COUNTS = ("dropped_api_count", "dropped_no_targets", "dropped_undocumented", "dropped_leaky", "reached_apis",
                 "undocumented_apis")


def _project_row(part: ProjectPart, merge: MergeResult) -> ProjectRecord:
    pc = merge.project_counts.get(part.key, {})
    counts = dict(part.counts, samples=merge.samples_per_project.get(part.key, 0),
                  **{k: pc.get(k, 0) for k in _STAGE_COUNTS if part.verdict is Verdict.KEPT})
    return ProjectRecord(
        project=part.project, source=part.spec["source"], requested_commit=part.spec["commit"], commit=part.commit,
        line=part.spec["line"], verdict=part.verdict.value, reason=part.reason, counts=counts, timings=part.timings,
        error=part.error, traceback=tuple(part.traceback) if part.traceback is not None else None,
        warnings=tuple(part.warnings[:50]), classpath=part.classpath, docs=part.docs,
        no_samples_reason=merge.no_samples_reasons.get(part.key),
        # the list line's own classpath=/javadoc= paths (a new user, session 8: docs.javadoc lists fetched jars
        # only, so a javadoc= source folder the build read was recorded nowhere)
        listed={"classpath": list(part.spec.get("classpath") or ()), "javadoc": list(part.spec.get("javadoc") or ()),
                "unreadable": [{"path": p, "reason": why} for p, why in part.unreadable]})


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




_MAX_PART_BYTES = 1 << 30


def _read_part(path: Path):
    """A part file's JSON: a regular file only, bounded (a FIFO planted in a shared
    ``--out`` would block the resume forever)."""
    return json.loads(read_regular(path, _MAX_PART_BYTES).decode("utf-8"))


def _stamp(spec: ProjectSpec) -> str | None:
    """``local_tree_stamp(spec)``; a stamp no part holds when its paths
    cannot be walked (the project is then analysed again, its error there)."""
    try:
        return local_tree_stamp(spec)
    except (OSError, ValueError, RecursionError) as e:
        return f"unreadable: {e}"


def _load_part(path: Path, fingerprint: str) -> ProjectPart | None:
    try:
        d = _read_part(path)
    except (OSError, ValueError, RecursionError):  # json recurses per nesting level: a deep part is redone
        return None
    if not isinstance(d, dict) or d.get("format") != PART_FORMAT or d.get("fingerprint") != fingerprint \
            or d.get("verdict") == "failed":
        return None
    try:
        return ProjectPart.from_dict(d)
    except (KeyError, TypeError, ValueError, AttributeError):  # a part of another shape: analyse again
        return None


def _light(part: ProjectPart) -> ProjectPart:
    """``part`` without what grows with the project (candidates, documentation,
    library and jar lists, warnings): the verdict, key, counts and timings the
    build needs until its end."""
    return replace(part, candidates=[], apis={}, warnings=[], classpath=None, docs=None, doc_paths=[],
                   classpath_jars=[], traceback=None)


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


#: What every project's analysis imports (``_docs.build_graph``, ``open_docs``): imported once in
#: the parent before a forked pool starts, instead of once in every worker.
_WORKER_MODULES = ("callgraph._build", "callgraph.classpath", "javadoc")


def _warm_before_fork(opts: BuildOptions) -> None:
    """Load, in this process, what every forked worker would load for itself:
    the analysis modules and the JDK's class index (its image and name index
    are cached per process; the image is read through a read-only ``mmap``,
    which forked processes share safely), then freezes the collector's view
    of it (``gc.freeze``: workers' collections skip those objects, so their
    pages stay shared; ~16 MB less PSS in all with 2 workers on petclinic copies;
    the build unfreezes once its workers are gone). Only under the ``fork``
    start method; elsewhere the workers would not inherit it."""
    import importlib
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        return
    for name in _WORKER_MODULES:
        importlib.import_module(name)
    if opts.jdk is not None:
        from callgraph.classpath import ClasspathIndex

        ClasspathIndex.open([], jdk=opts.jdk).close()
    # what the parent holds now lives as long as the workers: out of the collector's reach, a
    # worker's collections neither walk nor touch (copy) those pages (the gc module's advice for
    # fork). No collection first: it found ~24 unreachable objects here and took ~25 ms of the
    # parent's serial time (a quarter of what it costs to import networkx), every build
    gc.freeze()


def _warm_merge() -> None:
    """Load the merge stage's data (the leak check's kept common-word answers,
    or wordfreq's English frequency list when none are kept) while the last
    projects are still analysed, rather than after them. Pure look-ups: no
    result of the build changes."""
    from .leaks import warm_common_words

    warm_common_words()


def _run_one(spec: ProjectSpec, progress: bool, *, opts: BuildOptions, deps: BuildDeps) -> ProjectPart:
    # module level (with functools.partial) so pool and dask workers pickle it by name
    return analyse_project(spec, opts, progress=progress, deps=deps)


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
    deps: BuildDeps | None = None,
    on_project: Callable[[ProjectPart], None] | None = None,
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
    resume : bool
        Re-use the parts of finished projects.
    deps : BuildDeps, optional
        The call-graph and documentation functions (default: ``callgraph``'s
        and ``javadoc``'s); a pool or dask run needs them picklable.
    on_project : callable, optional
        Called in this process with each analysed project's whole
        :class:`ProjectPart`, as soon as its part file is written (in the
        order projects finish; resumed ones are not passed). ``qare build``
        prints its classpath line from it. An exception it raises ends the
        build.

    Returns
    -------
    BuildResult

    Raises
    ------
    BuildError
        Unreadable list (wraps ``ProjectListError``), unwritable output
        folder, a missing optional dependency; :class:`EmptyProjectList`
        (a ``BuildError``) when the list names no project, before the
        output folder is created.
    """
    from .projects import ProjectListError

    opts = opts or BuildOptions()
    if not opts.cache_dir:
        opts = replace(opts, cache_dir=default_cache())
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
    if not specs:  # nothing to build: --out is neither created nor touched (a new user, session 10)
        raise EmptyProjectList(f"{project_list if list_name else 'the list'}: the project list names no project")
    if "parquet" in formats:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise BuildError("--format parquet needs the package pyarrow, which is not installed: "
                             "pip install -e '.[parquet]' in the qare checkout (or pip install 'pyarrow>=15')") from None
    llm_steps(opts)  # a missing --llm-url/--llm-model or openai package stops the build now, not after analysis
    out = Path(out)
    if opts.facts_cache_dir == "":
        opts = replace(opts, facts_cache_dir=str((out / ".cache").resolve()))
    parts_dir = out / PARTS_DIR
    try:
        parts_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"{out}: cannot create output folder ({e.strerror or e})") from None
    lock = lock_out(out)  # a second build on the same --out is refused
    try:
        remove_stale_tmp(out, parts_dir)
        return _build_locked(specs, list_name, out, parts_dir, opts, started, jobs=jobs, scheduler=scheduler,
                             formats=formats, quiet=quiet, resume=resume, deps=deps or DEFAULT_DEPS,
                             on_project=on_project)
    finally:
        lock.close()


def _build_locked(specs, list_name, out: Path, parts_dir: Path, opts: BuildOptions, started, *,
                  jobs, scheduler, formats, quiet, resume, deps: BuildDeps, on_project=None) -> BuildResult:
    fp = opts.fingerprint()
    # duplicate list entries (same source and commit) are analysed once
    seen: dict[str, ProjectSpec] = {}
    for s in specs:
        seen.setdefault(s.key, s)
    unique = list(seen.values())
    # held for the whole build, so only what is small and fixed in size per project: the
    # candidates, documentation, library records and warnings stay in the part files and
    # are read back one part at a time (the parent's memory must not grow with the
    # libraries of every project of a long list)
    light: dict[str, ProjectPart] = {}
    counts_of: dict[str, list[int]] = {}  # each part's candidates' API counts (the IQR population)
    resumed = []
    changed = []  # finished parts whose local paths changed since (analysed again, and said)

    def keep_light(part: ProjectPart) -> None:
        counts_of[part.key] = [c.api_count(opts.api_count) for c in part.candidates]
        light[part.key] = _light(part)

    if resume:
        for s in unique:
            part = _load_part(parts_dir / f"{s.key}.json", fp)
            if part is not None and part.root is not None and _stamp(s) not in (None, part.tree):
                part = None  # a local folder changed since it was read (uncommitted edits): analysed again
                changed.append(s.key)
            if part is not None:
                keep_light(part)
                resumed.append(s.key)
    todo = [s for s in unique if s.key not in light]

    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal, so a redirected log stays plain text
    bar = tqdm(total=len(unique), initial=len(resumed), desc="projects", unit="project",
               disable=True if quiet else None, file=sys.stderr)
    # callgraph draws its own bars: ask for them only when someone can see them
    progress = not quiet and _stderr_is_tty()
    # not on a terminal: plain lines (per project, and every ~10 s) instead of bars
    lines = _progress.BuildProgress(len(unique), len(resumed), lines=not quiet and not progress,
                                    on_phase=bar.set_postfix_str if progress else None)
    clear_docs_memo()

    def done(spec: ProjectSpec, result) -> None:
        part = result if isinstance(result, ProjectPart) else _failed_part(spec, opts, result)
        write_text_atomic(parts_dir / f"{spec.key}.json", json.dumps(part.to_dict(), ensure_ascii=False))
        if on_project is not None:
            on_project(part)
        keep_light(part)
        bar.set_postfix_str(f"{spec.name[:30]}: {part.verdict.value}")
        bar.update(1)
        lines.finished(spec.name, part.verdict.value, part.timings.get("total"))

    if not scheduler and len(todo) == 1 and jobs > 1:
        # one project left: give the processes to its call-graph build instead
        opts = replace(opts, graph_jobs=jobs)
    runner = make_runner(jobs, scheduler, len(todo), progress,
                         before_fork=functools.partial(_warm_before_fork, opts), spare=_warm_merge)
    # in parallel, the largest first: a large project taken last would run alone (queries/_order.py)
    run_order = todo if isinstance(runner, SerialRunner) else largest_first(todo, opts.cache_dir)
    try:
        lines.__enter__()
        runner.run(run_order, functools.partial(_run_one, opts=opts, deps=deps), done)
    except BaseException:
        runner.close()
        raise
    finally:
        lines.__exit__(None, None, None)
        clear_docs_memo()
        bar.close()
        gc.unfreeze()  # the workers have all their work done: the parent's objects are the collector's again
    try:
        return _merge_and_write(specs, list_name, out, parts_dir, opts, started, unique, light, counts_of, resumed,
                                todo, jobs=jobs, scheduler=scheduler, formats=formats, changed=changed)
    finally:
        runner.close()  # the workers' exits overlapped the merge; gone before OUT/.lock is released


def _merge_and_write(specs, list_name, out: Path, parts_dir: Path, opts: BuildOptions, started, unique, light,
                     counts_of, resumed, todo, *, jobs, scheduler, formats, changed=()) -> BuildResult:
    """The merge stage and the files of the whole build (:func:`_build_locked`'s second half)."""
    ordered = [light[s.key] for s in unique]

    def read_back(lp: ProjectPart) -> ProjectPart:
        path = parts_dir / f"{lp.key}.json"
        try:
            return ProjectPart.from_dict(_read_part(path))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise BuildError(f"{path}: cannot read back the project's results ({e})") from None

    def full_parts():
        for lp in ordered:
            yield read_back(lp) if lp.verdict is Verdict.KEPT else lp

    api_counts = [n for p in ordered if p.verdict is Verdict.KEPT for n in counts_of[p.key]]
    merge = merge_parts(full_parts(), opts, out, api_counts=api_counts)
    save_common_words()
    rows = [_project_row(read_back(p), merge).to_dict() for p in ordered]
    write_jsonl(out / PROJECTS_FILE, rows)
    verdicts = Counter(r["verdict"] for r in rows)
    counts = {
        "projects": len(rows),
        "kept": verdicts.get("kept", 0),
        "dropped": verdicts.get("dropped", 0),
        "failed": verdicts.get("failed", 0),
        # classpath=/javadoc= paths of the list that could not be read (listed.unreadable; qare build exits 1)
        "unreadable_inputs": sum(len(r["listed"]["unreadable"]) for r in rows),
        "list_entries": len(specs),
        "resumed": len(resumed),
        # finished before, analysed again: a local path they read changed since (fetching.local_tree_stamp)
        "changed_since_resumed": len(changed),
        **merge.counts,
    }
    if "parquet" in formats:
        _write_parquet(out, merge.samples, [a.to_dict() for a in merge.apis], rows)
    ended = _dt.datetime.now(_dt.timezone.utc)
    from callgraph._mvn_resolve import default_repo_local

    manifest = {
        "tool": "qare",
        "version": __version__,
        "project_list": list_name,
        "out": str(out.resolve()),
        "parameters": {**opts.to_dict(), "jobs": jobs, "scheduler": scheduler, "formats": list(formats)},
        "api_count_range": merge.api_count_range,
        "counts": counts,
        "languages": merge.languages,
        "depth_histogram": merge.depth_histogram,
        "sample_depth_histogram": merge.sample_depth_histogram,
        "density_histogram": merge.density_histogram,
        "translation_errors": merge.translation_errors[:100],
        "llm": merge.llm,
        "libraries": _library_totals(rows),
        # the repository the libraries came from, also when no option named it
        # ($QARE_MAVEN_REPO_LOCAL or qare's cache): what reproducing the classpath needs
        "maven_repo_local_used": str(Path(opts.maven_repo_local).resolve()) if opts.maven_repo_local
        else str(default_repo_local()),
        "started": started.isoformat(timespec="seconds"),
        "ended": ended.isoformat(timespec="seconds"),
        "seconds": round((ended - started).total_seconds(), 3),
        "python": sys.version.split()[0],
    }
    write_json(out / MANIFEST_FILE, manifest)
    return BuildResult(
        out=out,
        projects=tuple(rows),
        counts=counts,
        merge=merge.to_dict(),
        analysed=tuple(s.key for s in todo),
        resumed=tuple(resumed),
    )


def _failed_part(spec: ProjectSpec, opts: BuildOptions, e: BaseException) -> ProjectPart:
    part = ProjectPart.new(spec, opts)
    part.fail(f"{type(e).__name__}: {e}", tb_summary(e))
    return part


def _write_parquet(out: Path, samples, apis: list[dict], rows: list[dict]) -> None:
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


#: undocumented APIs named in the summary (the rest are counted)
UNDOCUMENTED_SHOWN = 10

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
        + (f"  (resumed {c['resumed']})" if c.get("resumed") else "")
        + (f"  (analysed again, their files changed since: {c['changed_since_resumed']})"
           if c.get("changed_since_resumed") else ""),
        f"candidates{c.get('candidates', 0):>7}",
    ]
    rng = m["api_count_range"]
    if rng["low"] is not None:
        label = f"IQR (over {'methods calling >= 1 API' if rng.get('over') == 'calling' else 'all candidates'})" if rng["mode"] == "iqr" else "fixed range"
        lines.append(
            f"  direct-API count {label} [{rng['low']:g}, {rng['high']:g}] from {rng['n']} methods: "
            f"dropped {c.get('dropped_api_count', 0)}"
        )
    # candidates reaching no third-party API: the stage drops those the API-count range kept
    # (with the default IQR over calling methods, the range has already dropped them all)
    kept_rows = [r for r in result.projects if r["verdict"] == "kept"]
    no_targets = sum((r["counts"].get("candidates") or 0) - (r["counts"].get("with_targets") or 0) for r in kept_rows)
    dropped = c.get("dropped_no_targets", 0)
    before = no_targets - dropped
    lines.append(f"  without targets {no_targets}"
                 + (f" ({before} already outside the API-count range)" if before > 0 else "")
                 + f": dropped {dropped}")
    lines.append(
        f"  undocumented APIs {c.get('undocumented_apis', 0)}: samples dropped {c.get('dropped_undocumented', 0)}"
    )
    undocumented = list(m.get("undocumented_apis") or ())
    if undocumented:
        more = len(undocumented) - UNDOCUMENTED_SHOWN
        lines.append("    " + ", ".join(undocumented[:UNDOCUMENTED_SHOWN])
                     + (f" (+{more} more: apis.jsonl lists them with doc_source null)" if more > 0 else ""))
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
