"""``build_project_graph``: discovery → pass 1 (parse + declarations, parallel) →
project index → pass 2 (resolve call sites, parallel, index inherited by fork)
→ ``networkx`` graph."""

from __future__ import annotations

import gc
import hashlib
import multiprocessing as mp
import os
import sqlite3
import time
from dataclasses import replace
from operator import itemgetter
from pathlib import Path

from records.codeversion import code_version

from . import _codec, _contrib, _deps, _facts
from ._crew import Crew, CrewPlan, balanced_shares
from ._cache import BuildCache, CacheRefused, default_path as default_cache_path
from ._cputime import cpu as _cpu
from ._discover import SourceFile, decode_source, discover_sources
from ._errors import NoInputError
from ._gcpause import gc_paused as _gc_paused  # the one definition (warm rows, index, graph step)
from ._graph import DEFAULT_DISPATCH, DISPATCH_MODES, SITE_TYPES, BuildSummary, ProjectGraph
from ._index import ProjectIndex
from ._lazyindex import FactsOverlay, file_totals
from ._graphstore import CODE_DISTRIBUTIONS
from ._lombok import LombokConfig
from ._callsite import VALUE, Resolution
from ._resolve import FileResolver, pass2_captures
from ._rta import InstantiatedSet, collect as collect_instantiations
from ._statsig import RACY_NS
from .safefs import read_regular, walk as safefs_walk

# Set before forking pass-2 workers; read by them (copy-on-write).
_STATE: dict = {}


def _read(path: str, max_bytes: int):
    # regular files only, at most max_bytes read: a FIFO or /dev/zero named
    # *.java can neither block nor flood (callgraph.safefs)
    data = read_regular(path, max_bytes)
    text, enc = decode_source(data)
    return text.encode("utf-8", "surrogatepass"), enc


# Source bytes whose trees one process keeps from pass 1 for pass 2 (one
# job): a tree-sitter tree takes about 12 times its source (java.base: 52 MB
# of source, 624 MB of trees); files past the budget are parsed again
KEEP_TREES_SOURCE_BYTES = 48 << 20

#: a file whose facts are the index snapshot's (callgraph._lazyindex: not unpickled until asked for)
_IN_SNAPSHOT = object()
# The same for all the processes of a crew together (several jobs), split
# evenly: each of them also holds a project index, so together they keep
# fewer trees than one job does (spring-framework, 2 jobs, all processes:
# 1,521 MB with 48 MiB of trees, against the 1.5 GB)
CREW_TREES_SOURCE_BYTES = 40 << 20


def _trim_heap() -> None:
    """Hand the C heap's free pages back to the system (glibc's
    ``malloc_trim``; nothing elsewhere). The trees freed after pass 2 were
    allocated by tree-sitter with ``malloc``; Python's small objects, which
    the graph step makes by the million, come from its own arenas and would
    not reuse that memory, so the process's peak RSS held both."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):
        pass


def _pass1(item, keep: list | None = None):
    """Parse one file. ``(facts, blob, digest, None)`` or ``(None, None, None,
    (rel, reason))``; with ``for_cache`` the declaration digest and the facts
    encoded for the cache (callgraph._codec) come too, else None. ``keep``
    (one job): ``(src, tree)`` is appended to it for pass 2."""
    sf, loc_mode, max_bytes, for_cache = item
    try:
        src, enc = _read(sf.path, max_bytes)
        tree = _facts.parse(src)
        ff = _facts.extract(src, tree, sf.rel, sf.source_set, enc, loc_mode)
        digest = _codec.declaration_digest(ff) if for_cache else None
        if keep is not None:
            keep.append((src, tree))
        return ff, (_codec.encode_facts(ff) if for_cache else None), digest, None
    except RecursionError:
        return None, None, None, (sf.rel, "declarations nested too deeply")
    except MemoryError:
        return None, None, None, (sf.rel, f"out of memory while parsing it ({sf.size} bytes)")
    except OSError as e:
        return None, None, None, (sf.rel, f"unreadable: {e.strerror or e}")
    except Exception as e:  # never lose the whole build to one file
        return None, None, None, (sf.rel, f"internal error while extracting declarations: {type(e).__name__}: {e}")


def _pass2(fi: int, for_cache: bool = False):
    """Resolve one file: ``(fi, result, blob, err, deps)``; ``result`` is the
    tuple ``(FileResult, made, classpath warnings)``, ``blob`` its
    ``_codec.encode_resolution`` bytes (``for_cache``) or None, ``deps`` the
    look-ups it made of the index (``_deps.encode``; None when not recorded).

    A worker hands back the objects themselves (the pool pickles them, as
    everything it passes between this process and its own forked children;
    nothing read from the cache is ever unpickled): decoding the cache blob in
    the parent instead cost it 3 times the unpickling (java/util: 1.07 against
    0.34 CPU-s), serial work while the workers wait."""
    # classpath warnings raised while resolving (a corrupt class, a bad CRC)
    # are appended to the index's list of this process: hand back the new
    # ones, a forked worker's list is lost with it
    cp = _STATE["index"].cp
    n0 = len(cp.warnings) if cp is not None else 0
    fi, fr, err, made, deps = _resolve_file(fi)
    warnings = [tuple(w) for w in cp.warnings[n0:]] if cp is not None else []
    if err is not None:
        return fi, None, None, err, None
    return fi, (fr, made, warnings), (_codec.encode_resolution(fr, made, warnings) if for_cache else None), None, deps


def _pass2_cached(fi: int):
    return _pass2(fi, True)


def _resolve_file(fi: int):
    idx = _STATE["index"]
    path = _STATE["paths"][fi]
    fps = _STATE.get("fingerprints")
    try:
        kept = _STATE.get("trees", {}).pop(fi, None)  # pass 1's tree (one job), used once
        if kept is not None:
            src, tree = kept
        else:
            src, _ = _read(path, _STATE["max_bytes"])
            tree = _facts.parse(src)
        # with a cache, the resolver sees the index through a recorder: what
        # it looked up is stored with the row (per-dependent invalidation)
        view = fps.recorder(idx, fi) if fps is not None else idx
        # one query finds what the resolver and RTA look at (one tree walk, not two)
        site_caps, rta_caps = pass2_captures(tree)
        fr = FileResolver(view, fi, src, tree).run(site_caps)
        try:
            made = collect_instantiations(view, fi, tree, rta_caps)
        except RecursionError:  # RTA facts are best effort: never cost the file's edges
            made = None
        deps = _deps.encode(view, fps) if fps is not None else None
        return fi, fr, None, made, deps
    except RecursionError:
        return fi, None, "expressions nested too deeply", None, None
    except MemoryError:
        return fi, None, "out of memory while resolving its calls", None, None
    except OSError as e:
        return fi, None, f"unreadable: {e.strerror or e}", None, None
    except Exception as e:  # never lose the whole build to one file
        return fi, None, f"internal error while resolving calls: {type(e).__name__}: {e}", None, None


def _start_crew(jobs: int, todo: list, files, loc_mode: str, max_bytes: int, for_cache: bool, cp, root):
    """Fork the workers of a build with ``jobs`` processes (callgraph._crew):
    the pass-1 files split by size, the tree budget split between the processes."""
    sizes = [sf.size for sf in files]

    def parse(i, keep):
        return _pass1((files[i], loc_mode, max_bytes, for_cache), keep)

    def make_index(facts):
        return ProjectIndex(facts, cp, loc_mode, root=root)

    def setup(index, order, trees):  # in a worker: what _resolve_file reads
        rels = [files[i].rel for i in order]
        _STATE.update(index=index, paths=[files[i].path for i in order], rels=rels,
                      fingerprints=_deps.Fingerprints(rels) if for_cache else None,
                      max_bytes=max_bytes, trees=trees)

    plan = CrewPlan(shares=balanced_shares(todo, sizes, jobs), budget=CREW_TREES_SOURCE_BYTES // jobs,
                    sizes=sizes, parse=parse, make_index=make_index, setup=setup,
                    resolve=_pass2_cached if for_cache else _pass2)
    return Crew(plan).start(len(files))


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


def _pool(jobs: int):
    # fork: workers inherit the project index instead of unpickling it
    return mp.get_context("fork").Pool(jobs)


def _can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


# The collector is off for the whole build: no stretch of it makes cyclic
# garbage (a build of the test fixtures leaves fewer than 40 objects for it,
# test_build_pipeline.py checks), and every full collection walks all the
# objects made so far — the facts, the index, every file's results. With it
# on, collections took a quarter of pass 2's CPU in each process (java.base,
# 2 jobs: 3.5-4 CPU-s of ~13 per process; spring-framework 6-7 of ~27) and a
# tenth of pass 1's; the crew's workers inherit the pause through the fork.
@_gc_paused()
def build_project_graph(root, *, classpath=(), auto_classpath: bool = True, jdk="auto", jobs: int = 1,
                        progress: bool = False, max_file_bytes: int = 2_000_000, loc_mode: str = "physical",
                        cache=None, dispatch: str = DEFAULT_DISPATCH, offline: bool = False,
                        maven_repo_local=None, sources=None, previous=None, compact: bool = False) -> ProjectGraph:
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
    cache : str, Path, "auto" or None
        The warm build cache (callgraph._cache: per-file declarations and
        resolved call sites in SQLite, exact invalidation): ``"auto"`` =
        ``<qare cache folder>/callgraph.sqlite`` (off when the cache folder
        is off; the CLI's default), a path, or None (the default here, so a
        library caller patching the resolver never reads or writes stale
        rows).
    dispatch : {"rta", "cha", "declared"}
        The graph's default dispatch mode for ``reach`` (docs/callgraph.md
        "Dispatch"); the graph always holds every ``cha`` edge, each with
        ``rta`` = the source sets whose instantiated types witness it.
    sources : (files, skipped), optional
        What ``discover_sources(root, max_file_bytes=max_file_bytes)`` returned
        when the caller already walked the project (``qare graph`` keys the
        graph store by those very files): not walked again.
    previous : StoredGraph, optional
        The project's graph as the graph store holds it
        (``GraphStore.previous``). With the warm cache on, when only method
        bodies changed since it was built (the same project key), the
        result is that graph patched (``callgraph._patch.PatchedGraph``):
        only the edited files are resolved, and the graph, summary and
        stored rows are the whole build's. Read only; the caller closes it
        (a patched graph reads from it until ``PatchedGraph.release``).
    compact : bool
        Keep the graph as arrays (``callgraph._compact.CompactGraph``: the
        graph store's and the JSON writer's form; ``graph`` makes the
        ``networkx.DiGraph`` on first use): for a caller that only stores
        and writes it (``qare graph``).

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

    files, skipped = sources if sources is not None else discover_sources(root, max_file_bytes=max_file_bytes)
    lap("discover")
    resolution = None
    classpath = list(classpath)
    if auto_classpath and root.is_dir():
        from .classpath import with_resolved

        classpath, resolution = with_resolved(root, classpath, offline=offline, repo_local=maven_repo_local,
                                              progress=progress)
    lap("classpath")
    cp, cp_warnings = _open_classpath(classpath, jdk) if jdk is not None or classpath else (None, [])
    tqdm = _tqdm(progress)
    lap("jdk_index")

    # pass 1 --------------------------------------------------------------
    store, cache_refused = _open_store(cache)
    facts: list = [None] * len(files)
    digests: list = [None] * len(files)
    fkeys: list = [None] * len(files)
    todo = []
    # the index snapshot of this project (callgraph._snapshot): the facts of
    # every file whose facts key is the snapshot's come from it, not decoded
    snaps = slot = snap = None
    with _gc_paused():
        if store is not None:
            version = _code_version()
            fkeys = [_facts_key(sf, loc_mode, max_file_bytes, version) for sf in files]
            snaps = _open_snapshots(store)
            slot = _snapshot_slot(root, loc_mode, max_file_bytes, version)
            snap = _load_snapshot(snaps, slot, files)
        for i, sf in enumerate(files):
            hit = None
            if snap is not None and fkeys[i] is not None and fkeys[i] == snap[0]["files"][i][2]:
                # a split snapshot's facts stay in their shards (callgraph._lazyindex) until asked for
                facts[i], digests[i] = _IN_SNAPSHOT, snap[0]["files"][i][3]
                store.stats["facts_hits"] += 1
                continue
            if store is not None:
                hit = store.get_facts(fkeys[i]) if fkeys[i] else None
            if hit is not None:
                facts[i], digests[i] = hit
            else:
                todo.append(i)
    for_cache = store is not None
    bar = tqdm(total=len(files), desc="parse", unit="file", initial=len(files) - len(todo))
    trees: dict = {}  # file index → (src, tree) kept for pass 2 (one job, within the budget)
    budget = [KEEP_TREES_SOURCE_BYTES]

    def parse_here(i, keep="budget"):
        if keep == "budget":
            keep = [] if budget[0] >= files[i].size else None
        r = _pass1((files[i], loc_mode, max_file_bytes, for_cache), keep)
        if keep:
            trees[i] = keep[0]
            budget[0] -= len(keep[0][0])
        return r

    # several jobs: a crew of this process and jobs - 1 forked workers, each
    # parsing a fixed share, keeping its trees and resolving them (_crew)
    crew = _start_crew(jobs, todo, files, loc_mode, max_file_bytes, for_cache, cp, root) \
        if jobs > 1 and len(todo) > 16 else None
    try:
        parsed = crew.parse_all() if crew is not None else ((i, parse_here(i)) for i in todo)
        for i, (ff, blob, digest, err) in parsed:
            if ff is None:
                facts[i] = err
            else:
                facts[i], digests[i] = ff, digest
                if store is not None and fkeys[i]:
                    store.put_facts(fkeys[i], digest, blob)
            bar.update(1)
    except BaseException:
        if crew is not None:
            crew.close()
        raise
    bar.close()
    snap_files = snap[1]["files"] if snap is not None else None
    # every file from a split snapshot or parsed (one job): the snapshot's facts left in their shards
    lazy_kept = crew is None and getattr(snap_files, "lazy", False) \
        and all(ff is _IN_SNAPSHOT or isinstance(ff, _facts.FileFacts) for ff in facts)
    if not lazy_kept:
        for i, ff in enumerate(facts):
            if ff is _IN_SNAPSHOT:
                facts[i] = snap_files[i]
    kept: list[_facts.FileFacts] = []
    kept_files: list[SourceFile] = []
    kept_keys: list = []
    kept_digests: list = []
    kept_trees: dict = {}
    order: list = []  # file index of each kept file
    for i, (sf, ff) in enumerate(zip(files, facts)):
        if ff is _IN_SNAPSHOT or isinstance(ff, _facts.FileFacts):
            if i in trees:
                kept_trees[len(kept)] = trees.pop(i)
            order.append(i)
            kept.append(ff)
            kept_files.append(sf)
            kept_keys.append(fkeys[i])
            kept_digests.append(digests[i])
        else:
            skipped.append(ff)
    if not kept:
        if crew is not None:
            crew.close()
        if store is not None:
            store.close()
        raise NoInputError(f"no parseable .java files under {root}")
    if lazy_kept:
        kept = FactsOverlay(snap_files, {i: ff for i, ff in enumerate(kept) if ff is not _IN_SNAPSHOT})
    if crew is not None:  # the workers build their index while this process builds its own
        crew.send_facts(order, facts)
    ekey = None
    if store is not None:
        try:
            ekey = _env_key(root, kept_files, classpath, cp, loc_mode)
        except BaseException:
            if crew is not None:
                crew.close()
            raise
    lap("parse")

    # index ---------------------------------------------------------------
    pending_snapshot = None
    try:
        with _gc_paused():
            idx = _snapshot_index(snap, cp, ekey, kept, kept_keys, kept_digests, store) \
                if snap is not None and len(kept) == len(files) else None
            if idx is None:
                if lazy_kept:  # the snapshot's index does not serve: its facts, loaded, build a new one
                    kept = list(kept)
                idx = ProjectIndex(kept, cp, loc_mode, root=root)
                if snaps is not None and len(kept) == len(files) and all(kept_keys):
                    header = {"files": [(sf.rel, sf.source_set, k, d)
                                        for sf, k, d in zip(kept_files, kept_keys, kept_digests)],
                              "ekey": ekey}
                    # taken now, written after pass 2: the pickler's memo of every
                    # object (~100 MB on spring-framework) then no longer adds to
                    # the crew workers' memory, the cold run's peak (session 7)
                    pending_snapshot = (header, idx.snapshot_state())
    except BaseException:
        if crew is not None:
            crew.close()
        raise
    skipped.extend(idx.duplicates)
    lap("index")

    # pass 2 --------------------------------------------------------------
    results = []
    rkeys: list = [None] * len(kept)
    todo = list(range(len(kept)))
    rels = [sf.rel for sf in kept_files]
    fps = None
    pkey = None
    if store is not None:
        fps = _deps.Fingerprints(rels)
        try:
            pkey = _project_key(ekey, kept_files, kept_digests)
            changed = _changed_files(previous, kept_files, kept_keys) \
                if previous is not None and crew is None and len(kept) == len(files) else None
            if changed:
                # only method bodies edited (the project key the stored graph was built under): the stored graph
                # with the edited files' methods replaced, no other file's resolution decoded (callgraph._patch)
                got = _resolve_changed(changed, store, idx, fps, kept_files, kept_keys, ekey, pkey, rkeys,
                                       kept_trees, max_file_bytes)
                mark = (list(clock), dict(phases))
                lap("resolve")

                def finish():
                    lap("graph")
                    phases["total_cpu"] = _cpu() - c0
                    return phases, time.perf_counter() - t0

                from ._graphstore import code_version as store_code
                from ._patch import patch

                with _gc_paused():
                    pg = patch(previous, pkey=pkey, code=store_code(), kept=kept, kept_files=kept_files,
                               fkeys=kept_keys, changed=got, idx=idx, skipped=list(skipped), cp=cp,
                               cp_warnings=list(cp_warnings), lines=sum(t[1] for t in file_totals(kept)),
                               stats=store.stats, finish=finish, root=str(root), dispatch=dispatch)
                if pg is not None:
                    t_end, c_end = time.perf_counter(), _cpu()
                    store.close()
                    fps.release()
                    if pending_snapshot is not None:
                        store.stats["snapshot_written"] += snaps.save(slot, *pending_snapshot, limit=_snapshot_limit(files))
                    pg.resolution = resolution
                    # the index and the facts are freed now, not as this returns: 2.5 M objects on
                    # spring-framework, ~0.3 s that no phase held; the graph step's end
                    snap = idx = pending_snapshot = None
                    facts = kept = kept_keys = kept_digests = kept_trees = results = None
                    _freed_in_graph_step(pg, time.perf_counter() - t_end, _cpu() - c_end)
                    return pg
                # not patched (a global part moved): the whole build goes on, its resolve phase from here
                clock[:] = mark[0]
                phases.clear()
                phases.update(mark[1])
                store.stats.pop("graph_patched", None)
            with _gc_paused():
                todo = _cached_resolutions(store, idx, fps, kept_keys, rels, ekey, pkey, rkeys, results, jobs)
        except BaseException:
            if crew is not None:
                crew.close()
            raise
    _STATE["index"] = idx
    _STATE["paths"] = [sf.path for sf in kept_files]
    _STATE["rels"] = rels
    _STATE["fingerprints"] = fps
    _STATE["max_bytes"] = max_file_bytes
    # trees of files whose resolution comes from the cache are dropped here
    todo_set = set(todo)
    if crew is not None:  # this process's own trees, by file index
        fi_of = {i: fi for fi, i in enumerate(order)}
        kept_trees = {fi_of[i]: t for i, t in crew.trees.items() if i in fi_of}
        crew.trees.clear()
    _STATE["trees"] = {fi: t for fi, t in kept_trees.items() if fi in todo_set}
    kept_trees.clear()
    trees.clear()
    bar = tqdm(total=len(kept), desc="resolve", unit="file", initial=len(kept) - len(todo))
    pooled = jobs > 1 and len(todo) > 16
    work = _pass2_cached if store is not None else _pass2
    try:
        if crew is not None and not pooled:
            crew.stop()  # too little to resolve for the workers: done here
        with (_pool(jobs) if pooled and crew is None else _nullpool()) as pool:
            if crew is not None and pooled:
                rs = crew.resolve_all(todo, fi_of, work)
            else:
                rs = pool.imap_unordered(work, todo, chunksize=4) if pooled else map(work, todo)
            for fi, res, blob, err, deps in rs:
                if res is not None and store is not None and rkeys[fi]:
                    store.put_resolved(rkeys[fi], blob, deps, pkey)
                results.append((fi, res, err))
                bar.update(1)
    finally:
        if crew is not None:
            crew.close()
        _STATE.clear()
        bar.close()
        if store is not None:
            store.close()
        if fps is not None:
            fps.release()  # its memos hold the index and every look-up: freed before the graph is built
    if pending_snapshot is not None:
        store.stats["snapshot_written"] += snaps.save(slot, *pending_snapshot, limit=_snapshot_limit(files))
        pending_snapshot = None
    _trim_heap()
    if crew is not None:
        # a worker's CPU reaches RUSAGE_CHILDREN when it is reaped (now): its
        # parse and index seconds, told by it, go back to their own phases
        moved = crew.cpu["parse"] + crew.cpu["index"]
        phases["parse_cpu"] += crew.cpu["parse"]
        phases["index_cpu"] += crew.cpu["index"]
        clock[1] += moved
    lap("resolve")

    # graph ---------------------------------------------------------------
    # nodes and edges are added in sorted order: the graph (and every file
    # written from it) is then byte-identical whatever the process count, the
    # hash seed or the order in which workers finished
    # no cyclic garbage is made here, but ~1.2 M new dicts and lists (java.base)
    # set off three full collections over the whole index: 2.8 of this step's
    # 6 CPU-s (load 11), so the collector waits until the graph is built
    with _gc_paused():
        infos = {}
        for pms in idx.methods.values():
            for p in pms:
                infos[p.info.id] = p.info
        apis: dict = {}
        edge_rows: list = []
        results.sort(key=lambda r: r[0])
        # each file's share of the summary, kept by the graph store per file: a graph patched after
        # a body edit sums the same shares (callgraph._contrib, callgraph._patch)
        contribs = [_contrib.failed(err) if res is None else _contrib.contribution(res[0], res[1], res[2])
                    for _fi, res, err in results] if store is not None else None
        made = {}
        for fi, res, err in results:
            if res is None:
                skipped.append((kept[fi].rel, err))
                continue
            fr, inst, _w = res
            if inst is not None:
                made[fi] = inst
            apis.update((a.id, a) for a in fr.apis)
            edge_rows.extend(fr.edges)
        counts, reasons, site_types, examples = _summed(
            contribs if contribs is not None else
            [_contrib.failed(err) if res is None else _contrib.share(res[0], res[2])
             for _fi, res, err in results], cp, cp_warnings)
        api_ids = [aid for aid in sorted(apis) if aid not in infos]
        edge_rows.sort(key=itemgetter(0, 1))
        instantiated = InstantiatedSet(idx, made)
        # as arrays when asked (callgraph._compact: no networkx graph made), when every edge's source is a
        # method node (else networkx's own merge adds a node, which only the networkx step reproduces)
        parts = _compact_edges(infos, api_ids, apis, edge_rows, instantiated) if compact else None
        if parts is not None:
            g = None
            cha, rta = parts.pop("cha"), parts.pop("rta_count")
        else:
            g, cha, rta = _networkx_graph(infos, api_ids, apis, edge_rows, instantiated)
    lap("graph")
    phases["total_cpu"] = _cpu() - c0
    resolved = {k: counts.get(k, 0) for k in ("exact", "arity", "name", "local")}
    summary = BuildSummary(
        files=len(kept), lines=sum(f.lines for f in kept), methods=len(infos),
        call_sites=sum(counts.values()), resolved=resolved, unresolved=counts.get("unresolved", 0),
        top_reasons=_contrib.top_reasons(reasons), cha_edges=cha, rta_edges=rta,
        instantiated_types=len(instantiated.types),
        parse_errors=tuple((f.rel, f.parse_errors) for f in kept if f.parse_errors),
        decoded_with_fallback=tuple((f.rel, f.encoding) for f in kept if f.encoding),
        skipped=tuple(skipped), classpath_warnings=tuple(tuple(w) for w in cp_warnings[:50]),
        seconds=time.perf_counter() - t0, examples=examples,
        phases={k: round(v, 3) for k, v in phases.items()}, notes=tuple(idx.module_duplicates),
        cache=dict(store.stats) if store is not None else ({"refused": cache_refused} if cache_refused else {}),
        site_types={k: site_types.get(k, 0) for k in SITE_TYPES})
    if g is None:
        from ._compact import CompactGraph

        pg = CompactGraph(summary, infos, str(root), dispatch, parts, instantiated=instantiated.types)
    else:
        pg = ProjectGraph(g, summary, infos, str(root), dispatch=dispatch, instantiated=instantiated.types)
    pg.resolution = resolution
    # the warm cache's project key (None without the cache): equal between two builds when no declaration
    # changed, so another file's resolution could not (qare._outpatch patches --out on it)
    pg.project_key = pkey
    # each kept file's share of the summary, in file order (None without the cache): the graph store keeps them
    pg.contributions = tuple(contribs) if contribs is not None and len(contribs) == len(kept) else None
    # the index, the facts and every file's results are freed now, not as this returns (millions of objects,
    # ~0.5 s on spring-framework that no phase held): the graph step's end
    t_end, c_end = time.perf_counter(), _cpu()
    idx = instantiated = results = edge_rows = facts = kept = kept_files = kept_keys = kept_digests = None
    made = apis = contribs = snap = None
    _STATE.clear()
    _freed_in_graph_step(pg, time.perf_counter() - t_end, _cpu() - c_end)
    return pg


def _freed_in_graph_step(pg, wall: float, cpu: float) -> None:
    """Add the ``wall`` and ``cpu`` seconds of freeing the build's objects
    (after the summary was made) to its graph phase, total CPU and time."""
    ph = pg.summary.phases
    for k, v in (("graph", wall), ("graph_cpu", cpu), ("total_cpu", cpu)):
        ph[k] = round(ph.get(k, 0.0) + v, 3)
    pg.summary = replace(pg.summary, seconds=pg.summary.seconds + wall)


def _networkx_graph(infos: dict, api_ids: list, apis: dict, edge_rows: list, instantiated):
    """``(networkx.DiGraph, cha edges, rta edges)`` of the graph step: the
    nodes (methods sorted, then API nodes sorted) and the edge rows (sorted
    by source then target) added straight into networkx's dicts."""
    import networkx as nx  # only here: a build answered as arrays (callgraph._compact) never imports it

    g = nx.DiGraph()
    # nodes go straight into networkx's node and adjacency dicts (what
    # ``add_node`` does, without its keyword dict copied into a second one)
    nodes, succ, pred = g._node, g._succ, g._pred
    for mid in sorted(infos):
        mi = infos[mid]
        nodes[mid] = {"kind": "method", "file": mi.file, "start_line": mi.start_line, "end_line": mi.end_line,
                      "loc": mi.loc, "comment": mi.comment, "third_party": False, "library": None,
                      "source_set": mi.source_set, "generated_by": mi.generated_by}
        succ[mid] = {}
        pred[mid] = {}
    for aid in api_ids:
        a = apis[aid]
        nodes[aid] = {"kind": "api", "file": None, "start_line": None, "end_line": None, "loc": None,
                      "comment": None, "third_party": bool(a.third_party), "library": a.library,
                      "source_set": None}
        succ[aid] = {}
        pred[aid] = {}
    # an edge's source is a method of the file that produced it, so rows of
    # different files never collide; a cha edge gets its rta witnesses as it
    # is added (one attribute dict per edge, the witnesses once per target).
    # The rows go straight into the adjacency dicts ``add_edges_from`` fills
    # (``_succ``/``_pred``, the same dicts in the same order): it made and
    # copied a second dict per edge, 1.3 of java.base's 2 CPU-s of adding edges
    cha = 0
    rta = 0
    witnesses: dict = {}
    cha_kind = Resolution.CHA
    value = VALUE
    for s, d, kind, lines in edge_rows:
        if d not in nodes:
            continue
        if kind is cha_kind:
            w = witnesses.get(d)
            if w is None:
                w = witnesses[d] = tuple(sorted(instantiated.witness(d)))
            cha += 1
            rta += bool(w)
            attrs = {"lines": list(lines), "resolution": value[kind], "rta": w}
        else:
            attrs = {"lines": list(lines), "resolution": value[kind]}
        out = succ.get(s)
        if out is None or d in out:  # a missing source node or a repeated pair: networkx's own merge
            g.add_edge(s, d, **attrs)
        else:
            out[d] = attrs
            pred[d][s] = attrs
    return g, cha, rta


def _compact_edges(infos: dict, api_ids: list, apis: dict, edge_rows: list, instantiated) -> dict | None:
    """The parts of a ``callgraph._compact.CompactGraph``: the graph
    :func:`_networkx_graph` makes, as arrays (node ids, each method's
    out-edges in CSR form, the witness table numbered by first use as the
    graph store numbers it), plus ``cha``/``rta_count``; None when a row's
    source is no method node (networkx would add it: that graph is made
    with networkx)."""
    from array import array

    from ._graphstore import _KIND_AT, _U32

    methods = sorted(infos)
    names = methods + api_ids
    index = dict(zip(names, range(len(names))))
    n = len(methods)
    offsets = [0] * (n + 1)
    targets, rta_at, counts, lines_all = array(_U32), array(_U32), array(_U32), array(_U32)
    kinds = bytearray()
    code = {r: _KIND_AT[VALUE[r]] for r in (Resolution.EXACT, Resolution.BY_ARITY, Resolution.CHA,
                                                 Resolution.GUESSED_BY_NAME)}
    cha_kind = Resolution.CHA
    witness_at: dict = {}  # target index -> (witness table index (1-based), witnessed at all)
    table: dict = {}  # witness tuple -> 1-based index, by first use
    cha = rta = 0
    last = (None, None)
    for s, d, kind, lines in edge_rows:
        t = index.get(d)
        if t is None:
            continue
        i = index.get(s)
        if i is None or i >= n:
            return None
        if kind is cha_kind:
            got = witness_at.get(t)
            if got is None:
                tup = tuple(sorted(instantiated.witness(d)))
                w = table.get(tup)
                if w is None:
                    w = table[tup] = len(table) + 1
                got = witness_at[t] = (w, bool(tup))
            w = got[0]
            cha += 1
            rta += got[1]
        else:
            w = 0
        if (s, d) == last:  # a repeated pair (two modules' rows): networkx's merge, the later row's values
            j = len(targets) - 1
            kinds[j] = code[kind]
            if w:
                rta_at[j] = w
            start = len(lines_all) - counts[j]
            del lines_all[start:]
            counts[j] = len(lines)
            lines_all.extend(lines)
            continue
        last = (s, d)
        offsets[i + 1] += 1
        targets.append(t)
        kinds.append(code[kind])
        rta_at.append(w)
        counts.append(len(lines))
        lines_all.extend(lines)
    for i in range(n):
        offsets[i + 1] += offsets[i]
    rtas = list(table)

    def api_attrs(i: int) -> dict:  # as _networkx_graph makes an API node's
        a = apis[api_ids[i]]
        return {"kind": "api", "file": None, "start_line": None, "end_line": None, "loc": None, "comment": None,
                "third_party": bool(a.third_party), "library": a.library, "source_set": None}

    return {"names": names, "n_methods": n, "offsets": offsets, "targets": targets, "kinds": bytes(kinds),
            "rta": rta_at, "counts": counts, "lines": lines_all, "rtas": rtas, "cha": cha, "rta_count": rta,
            "api_attrs": api_attrs, "api_kind": lambda i: "api"}


def _changed_files(previous, kept_files, kept_keys) -> list | None:
    """The indices of the files whose bytes differ from those the stored
    graph ``previous`` was built from (its inputs' SHA-256 against each
    facts key's), when the files are the same ones in the same order; None
    when they are not (or a file could not be read)."""
    inputs = getattr(previous, "inputs", None)
    if inputs is None or len(inputs.files) != len(kept_files):
        return None
    out = []
    for fi, (row, sf, fk) in enumerate(zip(inputs.files, kept_files, kept_keys)):
        if fk is None or row[1] != sf.rel or row[2] != sf.source_set:
            return None
        if row[8] != fk.partition(":")[0]:
            out.append(fi)
    return out


def _resolve_changed(changed: list, store, idx, fps, kept_files, kept_keys, ekey: str, pkey: str, rkeys: list,
                     trees: dict, max_bytes: int) -> dict:
    """``{file index: (FileResult, RTA facts, warnings) or an error}`` of the
    ``changed`` files: the warm cache's row when it was stored under this
    project key, else resolved here (and stored, with its look-ups)."""
    rels = [sf.rel for sf in kept_files]
    _STATE.update(index=idx, paths=[sf.path for sf in kept_files], rels=rels, fingerprints=fps,
                  max_bytes=max_bytes, trees={fi: trees[fi] for fi in changed if fi in trees})
    out: dict = {}
    try:
        for fi in changed:
            rkeys[fi] = f"{kept_keys[fi]}:{ekey}"
            row = store.get_resolved(rkeys[fi])
            if row is not None and row[2] == pkey:
                try:
                    out[fi] = _codec.decode_resolution(row[0])
                    store.stats["resolved_hits"] += 1
                    continue
                except _codec.CodecError:
                    pass
            _fi, res, blob, err, deps = _pass2_cached(fi)
            store.stats["resolved_misses"] += 1
            if res is None:
                out[fi] = err
                continue
            store.put_resolved(rkeys[fi], blob, deps, pkey)
            out[fi] = res
    finally:
        _STATE.clear()
    return out


def _summed(contribs, cp, cp_warnings: list):
    """``(counts, reasons, site types, examples)`` of the files'
    contributions (``_contrib.aggregate``); the classpath warnings raised in
    this process (index, one job) and then by each file, once each, are
    appended to ``cp_warnings``."""
    seen_w = set(map(tuple, cp_warnings))
    if cp is not None:
        for w in cp.warnings:
            if tuple(w) not in seen_w:
                seen_w.add(tuple(w))
                cp_warnings.append(tuple(w))
        return _contrib.aggregate(contribs, cp_warnings, seen_w)
    return _contrib.aggregate(contribs, [], set())


class _nullpool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _open_store(cache):
    """``(BuildCache or None, why the named cache was refused or None)``."""
    if cache is None or cache is False:
        return None, None
    path = default_cache_path() if cache == "auto" else Path(cache)
    if path is None:
        return None, None
    try:
        if cache == "auto":  # qare's own file in its own folder: a foreign file there is replaced
            from .classpath import cache_dir

            return BuildCache(path, replace_foreign=True, trusted_root=cache_dir()), None
        return BuildCache(path), None
    except CacheRefused as e:  # never write through a link or into another's file or folder
        return None, f"{e.filename}: {e.strerror}"
    except (OSError, sqlite3.Error):  # an unusable cache costs speed, never the build
        return None, None


# SHA-256 digests of source files taken just before this build by the graph
# store's fingerprint (qare graph hashes every file for it): path →
# (size, mtime_ns, ctime_ns, inode, device, max_bytes, hex digest), kept only
# for files whose mtime and ctime were older than the fingerprint by more
# than the racy window, so an unchanged stat now stands for the same bytes
# (docs/callgraph.md "Nothing changed", the stat rule). One build reads each
# file's digest from here instead of reading and hashing it a second time.
_KNOWN_DIGESTS: dict = {}


def remember_digests(rows, taken_ns: int, max_bytes: int) -> None:
    """Keep the digests of a fingerprint (``callgraph._graphstore.Inputs``:
    ``files`` rows ``[path, rel, source set, size, mtime_ns, ctime_ns, inode,
    device, sha256 hex or None]`` and its ``taken_ns``) for the next build of
    this process; :func:`forget_digests` drops them."""
    _KNOWN_DIGESTS.clear()
    before = taken_ns - RACY_NS
    for r in rows:
        if r[8] is not None and r[4] < before and r[5] < before:
            _KNOWN_DIGESTS[r[0]] = (*r[3:8], max_bytes, r[8])


def forget_digests() -> None:
    _KNOWN_DIGESTS.clear()


def _facts_key(sf: SourceFile, loc_mode: str, max_bytes: int, version: str | None = None) -> str | None:
    h = None
    known = _KNOWN_DIGESTS.get(sf.path)
    if known is not None:
        try:
            st = os.stat(sf.path)
            if (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, max_bytes) == known[:6]:
                h = known[6]
        except OSError:
            pass
    if h is None:
        try:
            h = hashlib.sha256(read_regular(sf.path, max_bytes)).hexdigest()
        except OSError:
            return None  # parsed without the cache; pass 1 reports the error
    # the code version once per build, not once per file: 9,187 calls cost
    # spring-framework's warm run 1.2 s (each resolves the package's path)
    return f"{h}:{sf.rel}:{sf.source_set}:{loc_mode}:{version or _code_version()}"


def _open_snapshots(store):
    """The index snapshots beside the warm cache ``store`` (``<file>.index/``),
    or None when their folder or key is refused (the build then builds the
    index, as without them): the reason is then in ``store.stats``
    (``snapshots_refused``, which the summary's ``cache`` carries and
    ``qare graph``/``qare chain`` print as a warning)."""
    from ._snapshot import IndexSnapshots

    try:
        return IndexSnapshots(Path(f"{store.path}.index"), store.trusted_root)
    except (OSError, ValueError) as e:
        # "<path>: <why>" (an OSError's str is "[Errno 0] why: 'path'")
        fn, why = getattr(e, "filename", None), getattr(e, "strerror", None)
        store.stats["snapshots_refused"] = f"{fn}: {why}" if fn and why else str(e)
        return None


def _snapshot_slot(root: Path, loc_mode: str, max_bytes: int, version: str) -> str:
    """One snapshot per project folder, LOC mode, size limit and code version
    (what it holds is checked against its header: the files, their facts
    keys and declaration digests, the environment key)."""
    key = f"{root.resolve()}\0{loc_mode}\0{max_bytes}\0{version}\0{_codec.FORMAT}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _snapshot_limit(files) -> int:
    """The largest snapshot of these files written or read, in bytes: an
    index holds about as much as its sources (spring-framework: 62 MB for
    9,187 files of 53 MB), so a far larger file in the slot is not read and
    hashed (up to ``_snapshot.MAX_BYTES``, 1 GiB, otherwise)."""
    return (16 << 20) + 8 * sum(sf.size for sf in files)


def _load_snapshot(snaps, slot: str, files):
    """``(header, state)`` of the project's snapshot when it was built from
    these very files (paths and source sets, in this order), else None."""
    if snaps is None:
        return None
    got = snaps.load(slot, limit=_snapshot_limit(files))
    if got is None:
        return None
    header, state = got
    try:
        ok = len(header["files"]) == len(files) == len(state["files"]) and all(
            h[0] == sf.rel and h[1] == sf.source_set for h, sf in zip(header["files"], files))
    except (KeyError, TypeError, IndexError):
        return None
    return got if ok else None


def _snapshot_index(snap, cp, ekey, kept, kept_keys, kept_digests, store):
    """The index from the snapshot, the files edited since patched in
    (``ProjectIndex.patch_file``), when it was built from the same
    environment and the same declarations (every file's declaration digest:
    the project key); None otherwise (a changed signature, an added or
    removed file, another classpath, JDK or lombok.config)."""
    header, state = snap
    if header.get("ekey") != ekey or [h[3] for h in header["files"]] != kept_digests:
        return None
    changed = [fi for fi, (h, k) in enumerate(zip(header["files"], kept_keys)) if h[2] != k]
    idx = ProjectIndex.from_snapshot(state, cp)
    for fi in changed:
        if not idx.patch_file(fi, kept[fi]):
            return None
    store.stats["snapshot_loaded"] += 1
    store.stats["snapshot_patched"] += len(changed)
    return idx


def _code_version() -> str:
    """A fingerprint of the code (callgraph's and records' modules, by content,
    and the parser's versions): an upgraded or edited resolver never reads
    results of the old one (records.codeversion)."""
    return code_version(Path(__file__).resolve().parent, distributions=CODE_DISTRIBUTIONS)


def _stat_sig(p: Path) -> str:
    # ctime and inode besides size and mtime: `cp -p`, `rsync -t` or `touch -r`
    # give changed bytes the old size and mtime, but a write always sets ctime
    # (no user call can set it back) and a replaced file has another inode
    try:
        st = p.stat()
    except OSError:
        return f"{p}:missing"
    return f"{p}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}"


def _cached_resolutions(store, idx, fps, kept_keys, rels, ekey: str, pkey: str, rkeys, results,
                        jobs: int = 1) -> list:
    """Fill ``results`` with the files whose stored resolution still holds and
    return the indices of the others (to resolve). A row is keyed by the
    file's facts key and the environment key; it holds when it was stored
    under this very project key (no declaration anywhere changed), or when
    every look-up it recorded gives this index the same answer
    (``_deps.verify_many``, the distinct look-ups of all such rows asked once,
    by ``jobs`` workers; the row then gets this project key)."""
    todo = []
    held = []  # (file index, blob, verified): rows to decode
    replay = []  # (file index, blob, deps): rows whose look-ups are asked again
    for fi, fk in enumerate(kept_keys):
        rkeys[fi] = f"{fk}:{ekey}" if fk else None
        row = store.get_resolved(rkeys[fi]) if fk else None
        if row is None:
            todo.append(fi)
            continue
        blob, deps, stored_pkey = row
        if stored_pkey == pkey:
            held.append((fi, blob, None))
        elif deps is not None:
            replay.append((fi, blob, deps))
        else:
            todo.append(fi)
    if replay:
        fi_of = {r: i for i, r in enumerate(rels)}
        verdicts = _deps.verify_many([deps for _fi, _b, deps in replay], idx, fps, fi_of, jobs)
        for (fi, blob, deps), ok in zip(replay, verdicts):
            if ok:
                held.append((fi, blob, deps))
            else:
                todo.append(fi)
    for fi, blob, deps in held:
        try:
            decoded = _codec.decode_resolution(blob)
        except _codec.CodecError:
            todo.append(fi)
            continue
        if deps is not None:
            store.stats["resolved_verified"] += 1
            store.put_resolved(rkeys[fi], blob, deps, pkey)
        results.append((fi, decoded, None))
    store.stats["resolved_hits"] += len(results)
    store.stats["resolved_misses"] += len(todo)
    todo.sort()
    return todo


def _project_key(ekey: str, kept_files, digests) -> str:
    """The environment key and every file's declaration digest: a row stored
    under the same project key holds without checking its look-ups (nothing
    any file declares has changed)."""
    h = hashlib.sha256(f"{ekey}\n".encode())
    for sf, d in sorted(zip(kept_files, digests), key=lambda x: (x[0].rel, x[0].source_set)):
        h.update(f"{sf.rel}\0{sf.source_set}\0".encode() + (d or b"?") + b"\n")
    return h.hexdigest()[:32]


def _env_key(root: Path, kept_files, classpath, cp, loc_mode: str) -> str:
    """What every file's resolution depends on besides its own bytes and the
    project's declarations: the classpath (entries by path, size, mtime, ctime and inode;
    class folders file by file), the JDK and the lombok.config files of the
    source folders (docs/callgraph.md "Warm cache")."""
    h = hashlib.sha256(f"{_codec.FORMAT}:{loc_mode}\n".encode())
    for entry in classpath:
        p = Path(entry)
        h.update(_stat_sig(p).encode() + b"\n")
        if os.path.isdir(p):  # never raises (Path.is_dir does for a name too long: the whole project failed)
            n = 0
            for dirpath, _dirs, names in safefs_walk(p):
                for name in sorted(names):
                    h.update(_stat_sig(Path(dirpath) / name).encode() + b"\n")
                    n += 1
                if n > 200_000:
                    h.update(os.urandom(16))  # too large to fingerprint: never reuse
                    break
    home = getattr(cp, "jdk_home", None) if cp is not None else None
    h.update(f"jdk:{home}\n".encode())
    if home is not None:
        for part in ("release", "lib/modules", "jmods"):
            h.update(_stat_sig(Path(home) / part).encode() + b"\n")
    # the directives of every lombok.config a source folder can see, read as
    # the index reads them (one reader): a comment edit is no change, and a new
    # folder without a config of its own changes nothing (each folder's
    # effective settings follow from these files and the bubbling rule)
    lombok = LombokConfig(root)
    dirs = set()
    for sf in kept_files:
        d = sf.rel.rsplit("/", 1)[0] if "/" in sf.rel else ""
        while d not in dirs:
            dirs.add(d)
            if not d:
                break
            d = d.rsplit("/", 1)[0] if "/" in d else ""
    for d in sorted(dirs):
        directives = lombok._read(d)
        if directives:
            h.update(f"lombok:{d}\0{directives!r}\n".encode())
    return h.hexdigest()[:32]


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
