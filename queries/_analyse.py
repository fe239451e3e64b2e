"""The per-project stage of a build, as named steps over one
:class:`~queries._part.ProjectPart`:

1. :func:`select_and_fetch` — list metadata, fetch, checkout selection;
2. :func:`resolve_classpath` — the explicit classpath plus Maven's resolution;
3. :func:`build_graph` — the call graph and its counts;
4. :func:`collect_candidates` — every commented method → :class:`Candidate`;
5. :func:`document_targets` — the documentation of every target API.

:func:`analyse_project` runs them; a step that ends the project (dropped,
failed) says so on the part and the rest are skipped.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from records.dataset import TargetRecord

from . import _progress
from ._docs import DEFAULT_DEPS, BuildDeps, add_fetched_docs, doc_paths_next_to, doc_record, open_doc_index
from ._options import BuildOptions
from ._part import Candidate, ProjectPart, Verdict
from .comments import clean_comment, detect_lang, is_javadoc, query_from_description, reject_description
from .fetching import local_tree_stamp
from .projects import ProjectSpec, fetch_project, select_checkout, select_metadata

__all__ = ["analyse_project", "make_candidate", "default_cache"]


def default_cache() -> str:
    """The folder git URLs are cloned into (``<qare cache>/repos``)."""
    from callgraph.classpath import cache_dir

    # clones need a folder even when the other caches are switched off
    base = cache_dir() or Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "qare"
    return str(base / "repos")


def tb_summary(exc: BaseException, frames: int = 6) -> list[str]:
    """The last ``frames`` frames of ``exc``'s traceback as ``file:line in function``."""
    tb = traceback.extract_tb(exc.__traceback__)[-frames:]
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in tb]


def _timed(timings: dict, name: str, t: float) -> None:
    timings[name] = round(time.perf_counter() - t, 3)


def make_candidate(pg, mid: str, info, description: str, opts: BuildOptions, node_loc: dict[str, int]) -> Candidate:
    """The candidate of one commented method: its query, language, targets
    (by depth, then API node id), API counts and per-sample depth and
    density. ``node_loc`` caches project methods' LOC across the candidates
    of a project."""
    targets = sorted(
        (t.to_record() for t in pg.reach(mid, max_depth=opts.max_depth, dispatch=opts.dispatch,
                                         include_unresolved=opts.keep_unresolved)),
        key=lambda t: (t.depth, t.node))
    depth_max = depth_min = density = None
    if targets:
        union = {m for t in targets for m in t.chain[:-1]}
        for m in union:
            if m not in node_loc:
                node_loc[m] = int(pg.method(m).loc)
        total = sum(node_loc[m] for m in union)
        depth_max = max(t.depth for t in targets)
        depth_min = min(t.depth for t in targets)
        density = 1.0 / total if total > 0 else None
    return Candidate(
        method=mid, file=info.file, start_line=info.start_line, end_line=info.end_line, loc=info.loc,
        comment=info.comment, description=description, query=query_from_description(description, opts.query_lines),
        lang=detect_lang(description), n_direct_apis=len({t.node for t in targets if t.depth == 2}),
        n_reached_apis=len({t.node for t in targets}), targets=tuple(targets), depth_max=depth_max,
        depth_min=depth_min, density=density)


def select_and_fetch(part: ProjectPart, spec: ProjectSpec, opts: BuildOptions) -> Path | None:
    """Steps 1: the list's metadata, the checkout, its selection. Returns the
    checkout root, or ``None`` when the project is dropped (verdict and
    reason set). Fetch errors raise."""
    keep, reason = select_metadata(spec, opts.selection)
    if not keep:
        part.verdict, part.reason = Verdict.DROPPED, reason
        return None
    if reason:
        part.reason = reason  # a note (metadata unknown), joined with the others at the end
    t = time.perf_counter()
    _progress.set_phase(spec.name, "fetch")
    root, commit = fetch_project(spec, opts.cache_dir or default_cache())
    part.root, part.commit = str(root), commit
    # a local folder's working tree as it is before it is read: a resumed build redoes the project when it
    # changed (its commit does not say: uncommitted edits)
    part.tree = local_tree_stamp(spec)
    _timed(part.timings, "fetch", t)
    t = time.perf_counter()
    keep, reason = select_checkout(root, opts.selection)
    _timed(part.timings, "select", t)
    if not keep:
        part.verdict, part.reason = Verdict.DROPPED, reason
        return None
    return root


def resolve_classpath(part: ProjectPart, spec: ProjectSpec, root: Path, opts: BuildOptions, progress: bool,
                      deps: BuildDeps) -> tuple[list[str], Any]:
    """Step 2: the explicit classpath, then the jars Maven resolves (best
    effort: a failure is a warning). Returns ``(classpath, resolution or None)``."""
    classpath = list(spec.classpath)
    resolution = None
    if opts.discover_classpath:
        _progress.set_phase(spec.name, "classpath (Maven resolution; downloads on a cold cache)")
        t = time.perf_counter()
        try:
            resolution = deps.discover_classpath(root, opts, progress)
            jars = [str(p) for p in getattr(resolution, "jars", resolution)]
            classpath += [p for p in jars if p not in classpath]  # explicit entries first: they win
            if hasattr(resolution, "to_dict"):
                part.classpath = resolution.to_dict()
        except Exception as e:  # discovery is best effort; the graph still builds without it
            part.warnings.append(f"classpath discovery failed: {type(e).__name__}: {e}")
        _timed(part.timings, "classpath", t)
    return classpath, resolution


def build_graph(part: ProjectPart, spec: ProjectSpec, root: Path, classpath: list[str], opts: BuildOptions,
                progress: bool, deps: BuildDeps):
    """Step 3: the project's call graph (per-file facts cached in
    ``<facts_cache_dir>/<key>.sqlite``), and the counts it reports."""
    t = time.perf_counter()
    cache = None
    if opts.facts_cache_dir:
        Path(opts.facts_cache_dir).mkdir(parents=True, exist_ok=True)
        cache = str(Path(opts.facts_cache_dir) / f"{spec.key}.sqlite")
    _progress.set_phase(spec.name, "call graph")
    pg = deps.build_graph(root, classpath, opts, progress, cache=cache)
    _timed(part.timings, "graph", t)
    summary = getattr(pg, "summary", None)
    # a jar that could not be read (missing, corrupt) costs its types, not the project: recorded, and a
    # classpath= path of the list's own is an input that failed (a new user, session 10: it was silent)
    listed = {os.path.normpath(p) for p in spec.classpath}
    for w in getattr(summary, "classpath_warnings", None) or ():
        if isinstance(w, (list, tuple)) and len(w) == 2:
            part.warnings.append(f"classpath: {w[0]}: {w[1]}")
            if os.path.normpath(str(w[0])) in listed:
                part.unreadable.append([str(w[0]), str(w[1])])
    for attr in ("files", "call_sites"):
        v = getattr(summary, attr, None)
        if isinstance(v, int):
            part.counts[attr] = v
    for attr in ("parse_errors", "skipped"):
        v = getattr(summary, attr, None)
        if isinstance(v, (list, tuple)):
            part.counts[attr] = len(v)
    # each file not read, or not parsed in full, with why: in warnings, and qare build exits 1 (they were
    # counted only: a FIFO named Foo.java or a link out of the project went by with exit 0 — the attacker's
    # review, session 10; qare graph lists them and exits 1)
    for rel, why in (getattr(summary, "skipped", None) or ())[:20]:
        part.warnings.append(f"skipped {rel}: {why}")
    for rel, pos in (getattr(summary, "parse_errors", None) or ())[:20]:
        part.warnings.append(f"parse errors in {rel} (line:col): " + ", ".join(f"{a}:{b}" for a, b in pos[:5]))
    # the issue-9 figure: third-party call sites whose type is on the classpath (docs/callgraph.md)
    st = getattr(summary, "site_types", None)
    if isinstance(st, dict) and st:
        part.counts["third_party_sites"] = sum(st.get(k, 0) for k in (
            "third-party-on-classpath", "third-party-off-classpath", "unknown-type"))
        part.counts["third_party_sites_on_classpath"] = st.get("third-party-on-classpath", 0)
    return pg


def collect_candidates(part: ProjectPart, spec: ProjectSpec, pg, opts: BuildOptions, progress: bool) -> None:
    """Step 4: every method of the chosen source sets whose comment gives a
    usable description becomes a candidate; the others are counted by why."""
    t = time.perf_counter()
    counts = part.counts
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
        it = tqdm(mids, desc=spec.name[:30], unit="method", leave=False, position=1, file=sys.stderr, disable=None)
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
        part.candidates.append(make_candidate(pg, mid, info, description, opts, node_loc))
    counts["commented"] = commented
    counts["empty_description"] = empty
    counts["not_javadoc"] = not_javadoc
    for why, n in sorted(rejected.items()):
        counts[f"rejected_{why}"] = n
    counts["candidates"] = len(part.candidates)
    counts["with_targets"] = sum(1 for c in part.candidates if c.targets)
    _timed(part.timings, "methods", t)


def document_targets(part: ProjectPart, spec: ProjectSpec, classpath: list[str], resolution, opts: BuildOptions,
                     progress: bool, deps: BuildDeps) -> None:
    """Step 5: the documentation of every target API — javadoc given in the
    list, beside the jars, then fetched from Maven Central for the libraries
    still undocumented."""
    t = time.perf_counter()
    counts = part.counts
    targets_by_node: dict[str, TargetRecord] = {}
    for c in part.candidates:
        for tr in c.targets:
            targets_by_node.setdefault(tr.node, tr)
    counts["distinct_apis"] = len(targets_by_node)
    counts["distinct_api_names"] = len({tr.api for tr in targets_by_node.values()})
    doc_paths = list(spec.javadoc) + [p for p in doc_paths_next_to(classpath) if p not in spec.javadoc]
    if targets_by_node and doc_paths:
        _progress.set_phase(spec.name, f"javadoc ({len(doc_paths)} site{'s' if len(doc_paths) != 1 else ''})")
    index = open_doc_index(doc_paths, part.warnings, deps, listed=spec.javadoc, unreadable=part.unreadable) \
        if targets_by_node and doc_paths else None
    if opts.discover_classpath and targets_by_node:
        _progress.set_phase(spec.name, "docs (javadoc/sources jars of the reached libraries)")
        index, doc_paths = add_fetched_docs(targets_by_node, index, doc_paths, resolution, opts, part, progress, deps)
    part.doc_paths = doc_paths
    part.classpath_jars = [str(j) for j in classpath]  # the jars the describe step reads undocumented members from
    for node, tr in sorted(targets_by_node.items()):
        part.apis[node] = doc_record(index, tr)
    documented = sum(1 for v in part.apis.values() if v)
    if part.docs is not None:
        reached = len(targets_by_node)
        part.docs.update(reached_apis=reached, documented_apis=documented,
                         coverage=round(documented / reached, 4) if reached else None)
    counts["documented_apis"] = documented
    _timed(part.timings, "docs", t)


def analyse_project(spec: ProjectSpec, opts: BuildOptions, progress: bool = False,
                    deps: BuildDeps = DEFAULT_DEPS) -> ProjectPart:
    """Analyse one project into a :class:`ProjectPart` (steps above). Never
    raises for a project's own failure: the part then has verdict
    ``failed``, ``error`` and ``traceback``, and no candidates."""
    part = ProjectPart.new(spec, opts)
    t_all = time.perf_counter()
    try:
        root = select_and_fetch(part, spec, opts)
        if root is not None:
            notes = [part.reason] if part.reason else []
            classpath, resolution = resolve_classpath(part, spec, root, opts, progress, deps)
            pg = build_graph(part, spec, root, classpath, opts, progress, deps)
            collect_candidates(part, spec, pg, opts, progress)
            document_targets(part, spec, classpath, resolution, opts, progress, deps)
            part.reason = "; ".join(notes)
    except Exception as e:
        part.fail(f"{type(e).__name__}: {e}", tb_summary(e))
    finally:
        part.timings["total"] = round(time.perf_counter() - t_all, 3)
    return part
