"""``build_project_graph``: discovery → pass 1 (parse + declarations, parallel) →
project index → pass 2 (resolve call sites, parallel, index inherited by fork)
→ ``networkx`` graph."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import Counter
from pathlib import Path

import networkx as nx

from . import _facts
from ._cache import FactsCache
from ._discover import SourceFile, decode_source, discover_sources
from ._errors import NoInputError
from ._graph import DEFAULT_DISPATCH, DISPATCH_MODES, BuildSummary, ProjectGraph
from ._index import ProjectIndex
from ._callsite import VALUE, Resolution
from ._resolve import FileResolver
from ._rta import InstantiatedSet, collect as collect_instantiations
from .safefs import read_regular

# Set before forking pass-2 workers; read by them (copy-on-write).
_STATE: dict = {}


def _read(path: str, max_bytes: int):
    # regular files only, at most max_bytes read: a FIFO or /dev/zero named
    # *.java can neither block nor flood (callgraph.safefs)
    data = read_regular(path, max_bytes)
    text, enc = decode_source(data)
    return text.encode("utf-8", "surrogatepass"), enc


def _pass1(item):
    sf, loc_mode, max_bytes = item
    try:
        src, enc = _read(sf.path, max_bytes)
        tree = _facts.parse(src)
        return _facts.extract(src, tree, sf.rel, sf.source_set, enc, loc_mode), None
    except RecursionError:
        return None, (sf.rel, "declarations nested too deeply")
    except MemoryError:
        return None, (sf.rel, f"out of memory while parsing it ({sf.size} bytes)")
    except OSError as e:
        return None, (sf.rel, f"unreadable: {e.strerror or e}")
    except Exception as e:  # never lose the whole build to one file
        return None, (sf.rel, f"internal error while extracting declarations: {type(e).__name__}: {e}")


def _pass2(fi: int):
    # classpath warnings raised while resolving (a corrupt class, a bad CRC)
    # are appended to the index's list of this process: hand back the new
    # ones, a forked worker's list is lost with it
    cp = _STATE["index"].cp
    n0 = len(cp.warnings) if cp is not None else 0
    fi, fr, err, made = _resolve_file(fi)
    return fi, fr, err, made, (cp.warnings[n0:] if cp is not None else [])


def _resolve_file(fi: int):
    idx = _STATE["index"]
    path = _STATE["paths"][fi]
    try:
        src, _ = _read(path, _STATE["max_bytes"])
        tree = _facts.parse(src)
        fr = FileResolver(idx, fi, src, tree).run()
        try:
            made = collect_instantiations(idx, fi, tree)
        except RecursionError:  # RTA facts are best effort: never cost the file's edges
            made = None
        return fi, fr, None, made
    except RecursionError:
        return fi, None, "expressions nested too deeply", None
    except MemoryError:
        return fi, None, "out of memory while resolving its calls", None
    except OSError as e:
        return fi, None, f"unreadable: {e.strerror or e}", None
    except Exception as e:  # never lose the whole build to one file
        return fi, None, f"internal error while resolving calls: {type(e).__name__}: {e}", None


def _open_classpath(classpath, jdk):
    try:
        from .classpath import ClasspathIndex
    except ImportError:
        return None, [("callgraph.classpath", "classpath support not available")]
    try:
        cp = ClasspathIndex.open([str(p) for p in classpath], jdk=jdk)
    except Exception as e:  # a broken JDK/jar must not stop a source-only build
        return None, [("classpath", f"{type(e).__name__}: {e}")]
    return cp, list(cp.warnings)


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (workers)."""
    import resource

    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def _pool(jobs: int):
    # fork: workers inherit the project index instead of unpickling it
    return mp.get_context("fork").Pool(jobs)


def _can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


def build_project_graph(root, *, classpath=(), auto_classpath: bool = True, jdk="auto", jobs: int = 1,
                        progress: bool = False, max_file_bytes: int = 2_000_000, loc_mode: str = "physical",
                        cache=None, dispatch: str = DEFAULT_DISPATCH, offline: bool = False,
                        maven_repo_local=None) -> ProjectGraph:
    """Build the call graph of a Java project from its sources.

    Parameters
    ----------
    root : str or Path
        Project folder (Maven/Gradle layout, multi-module, or any folder of
        ``.java`` files) or one ``.java`` file.
    classpath : iterable of str or Path
        Jars and class folders of the project's libraries (their return
        types, supertypes and overloads resolve; third-party APIs get their
        Maven coordinates). They come first: an explicit entry wins over a
        discovered one holding the same class.
    auto_classpath : bool
        Add the project's libraries resolved by
        :func:`callgraph.classpath.resolve_classpath` (Maven's resolver on a
        sanitised copy of the poms / Gradle's declared coordinates; the offline
        pom model when ``mvn`` is missing), as ``qare graph`` does. The outcome
        is ``ProjectGraph.resolution`` (a ``ResolvedClasspath``, or None when off).
    offline : bool
        Resolve from the local repository only (Maven's ``-o``).
    maven_repo_local : str or Path, optional
        The local Maven repository (default ``<cache>/m2/repository``).
    jdk : str or None
        JDK home for JDK types, ``"auto"`` (JAVA_HOME, else the ``java`` on
        PATH) or None (no JDK: JDK calls stay ``(*)``/unresolved).
    jobs : int
        Worker processes (fork); 1 runs in this process.
    progress : bool
        tqdm progress bars on stderr.
    max_file_bytes : int
        Larger files are skipped and listed in ``summary.skipped``.
    loc_mode : {"physical", "code"}
        LOC of a method: physical lines of the declaration, or non-blank
        non-comment lines.
    cache : str or Path, optional
        SQLite file caching per-file declarations by content hash.
    dispatch : {"rta", "cha", "declared"}
        The graph's default dispatch mode for ``reach`` (docs/callgraph.md
        "Dispatch"); the graph always holds every ``cha`` edge, each with
        ``rta`` = the source sets whose instantiated types witness it.

    Returns
    -------
    ProjectGraph

    Raises
    ------
    NoInputError
        Missing path, no ``.java`` files, nothing parseable.
    ValueError
        Bad ``loc_mode``, ``jobs`` or ``dispatch``.
    """
    if dispatch not in DISPATCH_MODES:
        raise ValueError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, not {dispatch!r}")
    if loc_mode not in ("physical", "code"):
        raise ValueError(f"loc_mode must be 'physical' or 'code', not {loc_mode!r}")
    if jobs < 1:
        raise ValueError("jobs must be ≥ 1")
    if not _can_fork():
        jobs = 1  # no fork (Windows): one process
    t0 = time.perf_counter()
    root = Path(root)
    phases: dict = {}
    c0 = _cpu()
    clock = [t0, c0]  # wall and CPU seconds at the start of the current phase

    def lap(phase: str) -> None:
        """Record the wall and CPU seconds of ``phase``, which ends now."""
        now, cpu = time.perf_counter(), _cpu()
        phases[phase], phases[phase + "_cpu"] = now - clock[0], cpu - clock[1]
        clock[:] = [now, cpu]

    files, skipped = discover_sources(root, max_file_bytes=max_file_bytes)
    resolution = None
    classpath = list(classpath)
    if auto_classpath and root.is_dir():
        from .classpath import with_resolved

        classpath, resolution = with_resolved(root, classpath, offline=offline, repo_local=maven_repo_local,
                                              progress=progress)
    cp, cp_warnings = _open_classpath(classpath, jdk) if jdk is not None or classpath else (None, [])
    tqdm = _tqdm(progress)
    lap("discover")

    # pass 1 --------------------------------------------------------------
    facts: list = [None] * len(files)
    store = FactsCache(cache, max_bytes=max_file_bytes) if cache else None
    todo = []
    for i, sf in enumerate(files):
        hit = store.get(sf.path, sf.rel, sf.source_set, loc_mode) if store else None
        if hit is not None:
            facts[i] = hit
        else:
            todo.append(i)
    items = [(files[i], loc_mode, max_file_bytes) for i in todo]
    bar = tqdm(total=len(files), desc="parse", unit="file", initial=len(files) - len(todo))
    if jobs > 1 and len(items) > 16:
        with _pool(jobs) as pool:
            results = pool.imap(_pass1, items, chunksize=8)
            for i, (ff, err) in zip(todo, results):
                facts[i] = ff if ff is not None else err
                bar.update(1)
    else:
        for i, item in zip(todo, items):
            ff, err = _pass1(item)
            facts[i] = ff if ff is not None else err
            bar.update(1)
    bar.close()
    kept: list[_facts.FileFacts] = []
    kept_files: list[SourceFile] = []
    parsed = set(todo)  # the others came from the cache: nothing new to store
    for i, (sf, ff) in enumerate(zip(files, facts)):
        if isinstance(ff, _facts.FileFacts):
            kept.append(ff)
            kept_files.append(sf)
            if store is not None and i in parsed:
                store.put(sf.path, ff, loc_mode)
        else:
            skipped.append(ff)
    if store is not None:
        store.close()
    if not kept:
        raise NoInputError(f"no parseable .java files under {root}")
    lap("parse")

    # index ---------------------------------------------------------------
    idx = ProjectIndex(kept, cp, loc_mode, root=root)
    skipped.extend(idx.duplicates)
    lap("index")

    # pass 2 --------------------------------------------------------------
    _STATE["index"] = idx
    _STATE["paths"] = [sf.path for sf in kept_files]
    _STATE["max_bytes"] = max_file_bytes
    results = []
    bar = tqdm(total=len(kept), desc="resolve", unit="file")
    try:
        if jobs > 1 and len(kept) > 16:
            with _pool(jobs) as pool:
                for r in pool.imap_unordered(_pass2, range(len(kept)), chunksize=4):
                    results.append(r)
                    bar.update(1)
        else:
            for fi in range(len(kept)):
                results.append(_pass2(fi))
                bar.update(1)
    finally:
        _STATE.clear()
        bar.close()
    lap("resolve")

    # graph ---------------------------------------------------------------
    g = nx.DiGraph()
    infos = {}
    for pms in idx.methods.values():
        for p in pms:
            mi = p.info
            infos[mi.id] = mi
            g.add_node(mi.id, kind="method", file=mi.file, start_line=mi.start_line,
                       end_line=mi.end_line, loc=mi.loc, comment=mi.comment,
                       third_party=False, library=None, source_set=mi.source_set,
                       generated_by=mi.generated_by)
    counts: Counter = Counter()
    reasons: Counter = Counter()
    examples: dict = {}
    apis: dict = {}
    edge_rows: list = []
    results.sort(key=lambda r: r[0])
    if cp is not None:  # those raised in this process (index, jobs=1) and by workers, once each
        seen_w = set(map(tuple, cp_warnings))
        for w in [*cp.warnings, *(w for r in results for w in r[4])]:
            if tuple(w) not in seen_w:
                seen_w.add(tuple(w))
                cp_warnings.append(tuple(w))
    made = {}
    for fi, fr, err, inst, _w in results:
        if inst is not None:
            made[fi] = inst
        if fr is None:
            skipped.append((kept[fi].rel, err))
            continue
        counts.update(dict(fr.counts))
        reasons.update(dict(fr.reasons))
        for k, v in fr.examples:
            examples.setdefault(k, v)
        apis.update((a.id, a) for a in fr.apis)
        edge_rows.extend(fr.edges)
    g.add_nodes_from(
        (aid, {"kind": "api", "file": None, "start_line": None, "end_line": None, "loc": None,
               "comment": None, "third_party": bool(a.third_party), "library": a.library, "source_set": None})
        for aid, a in apis.items() if aid not in infos)
    # an edge's source is a method of the file that produced it, so rows of
    # different files never collide
    g.add_edges_from((e.src, e.dst, {"lines": list(e.lines), "resolution": VALUE[e.resolution]})
                     for e in edge_rows if e.dst in g)
    cha = 0
    rta = 0
    instantiated = InstantiatedSet(idx, made)
    cha_kind = Resolution.CHA
    for e in edge_rows:
        if e.resolution is cha_kind and e.dst in g:
            w = tuple(sorted(instantiated.witness(e.dst)))
            g.edges[e.src, e.dst]["rta"] = w
            cha += 1
            rta += bool(w)
    lap("graph")
    phases["total_cpu"] = _cpu() - c0
    resolved = {k: counts.get(k, 0) for k in ("exact", "arity", "name", "local")}
    summary = BuildSummary(
        files=len(kept), lines=sum(f.lines for f in kept), methods=len(infos),
        call_sites=sum(counts.values()), resolved=resolved, unresolved=counts.get("unresolved", 0),
        top_reasons=tuple(reasons.most_common(10)), cha_edges=cha, rta_edges=rta,
        instantiated_types=len(instantiated.types),
        parse_errors=tuple((f.rel, f.parse_errors) for f in kept if f.parse_errors),
        decoded_with_fallback=tuple((f.rel, f.encoding) for f in kept if f.encoding),
        skipped=tuple(skipped), classpath_warnings=tuple(tuple(w) for w in cp_warnings[:50]),
        seconds=time.perf_counter() - t0, examples=examples,
        phases={k: round(v, 3) for k, v in phases.items()}, notes=tuple(idx.module_duplicates))
    pg = ProjectGraph(g, summary, infos, str(root), dispatch=dispatch,
                      instantiated=instantiated.types)
    pg.resolution = resolution
    return pg


def _tqdm(progress: bool):
    from tqdm import tqdm

    def make(**kw):
        return tqdm(disable=not progress, leave=False, **kw)

    return make


def default_jobs() -> int:
    """Worker processes to use by default: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1
