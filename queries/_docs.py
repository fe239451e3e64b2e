"""What the builder needs from ``callgraph`` and ``javadoc``, passed in as
:class:`BuildDeps` (tests and other front ends give their own), and the
documentation step: the doc index of a project, the record of each target
API, and fetching ``-javadoc.jar``/``-sources.jar`` files for the rest.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from records.dataset import ApiRecord, TargetRecord

from . import _progress
from ._options import BuildOptions

__all__ = ["BuildDeps", "DEFAULT_DEPS", "doc_record"]


def build_graph(root: Path, classpath: list[str], opts: BuildOptions, progress: bool, cache: str | None = None):
    from callgraph import build_project_graph

    return build_project_graph(root, classpath=classpath, auto_classpath=False, jdk=opts.jdk, progress=progress,
                               loc_mode=opts.loc_mode, jobs=opts.graph_jobs, cache=cache)


def discover_classpath(root: Path, opts: BuildOptions | None = None, progress: bool = False):
    """The project's libraries: ``ResolvedClasspath`` (``.jars``, ``.to_dict()``)."""
    from callgraph.classpath import resolve_classpath

    return resolve_classpath(root, offline=bool(opts and opts.offline),
                             repo_local=opts.maven_repo_local if opts else None, progress=progress)


def fetch_doc_jars(libraries: list[str], kind: str, opts: BuildOptions, repositories=(), progress: bool = False):
    """``DocFetch`` of the ``kind`` ("javadoc"/"sources") jars of ``libraries`` (g:a:v)."""
    from callgraph.classpath import fetch_doc_jars

    return fetch_doc_jars(libraries, kind, repo_local=opts.maven_repo_local, offline=opts.offline,
                          repositories=repositories, progress=progress)


_DOCS_MEMO: "OrderedDict[str, Any]" = OrderedDict()
"""Site path → its one-path DocIndex, within one build (``build_dataset`` empties
it): projects sharing a javadoc site or source folder load it once, not once
each (DocIndex's own cache keeps archives only, never folders)."""
_DOCS_MEMO_SIZE = 32
_DOCS_MEMO_MEMBERS = 400_000
"""Members held in the memo at most (beyond the newest entry): a list of projects
with many large javadoc jars must not keep them all in a worker; the doc-index
cache on disk makes a re-open cheap."""


DOC_STORE_DIR = "javadoc-index"
"""The per-jar doc-index cache's folder under the qare cache (docs/javadoc.md "Doc-index cache")."""

_STORE: dict = {}  # qare cache folder (None: off) -> its DocSetStore or None, made once per process


def doc_store():
    """This process's :class:`javadoc.DocSetStore` at ``<qare cache>/javadoc-index``,
    or ``None`` when the qare cache is off (``QARE_CACHE_DIR=off``) or its folder
    is not private (noted once). Looked up again when ``QARE_CACHE_DIR`` changes."""
    from callgraph.classpath import cache_dir

    base = cache_dir()
    if base not in _STORE:
        from callgraph.safefs import check_private
        from javadoc import DocSetStore, StoreRefused

        store = None
        if base is not None:
            try:
                store = DocSetStore(base / DOC_STORE_DIR, trusted_root=base, check_private=check_private)
            except StoreRefused as e:
                _progress.note(f"doc-index cache not used: {e.filename}: {e.strerror}")
        _STORE[base] = store
    return _STORE[base]


_COMBINED: list = []
"""The last ``(one-path DocIndexes, their combined DocIndex)`` of :func:`open_docs`:
projects with the same doc jars (copies, forks, one organisation's projects)
share the combined index instead of indexing every member again per project
(~25 ms of a petclinic project's 330). One entry: it never holds more than the
memo's newest site list."""


def clear_docs_memo() -> None:
    """Forget the per-build documentation memos (``build_dataset`` calls it at its start and end)."""
    _DOCS_MEMO.clear()
    _COMBINED.clear()


def open_docs(paths: list[str]):
    from javadoc import DocIndex

    ones = []
    for p in paths:
        key = os.path.realpath(p)
        one = _DOCS_MEMO.get(key)
        if one is None:
            t = time.perf_counter()
            store = doc_store()
            hits = store.hits if store is not None else 0
            one = DocIndex.open(p, store=store)
            how = "from the doc-index cache" if store is not None and store.hits > hits else "once per build"
            if one.failed:  # "0 members loaded" read as if it had been (a new user, session 10)
                _progress.note(f"javadoc {p}: not read ({'; '.join(r for _p, r in one.warnings[:1])})")
            else:
                _progress.note(f"javadoc {p}: {sum(len(d.members) for d in one.docsets)} members "
                               f"loaded in {time.perf_counter() - t:.1f} s ({how})")
            _DOCS_MEMO[key] = one
            _trim_memo()
        else:
            _DOCS_MEMO.move_to_end(key)
        ones.append(one)
    if _COMBINED and len(_COMBINED[0]) == len(ones) and all(a is b for a, b in zip(_COMBINED[0], ones)):
        return _COMBINED[1]  # read-only for its users (doc_record, the warnings copied from it)
    docsets, warnings, failed = [], [], []
    for one in ones:
        docsets += one.docsets
        failed += one.failed
        if one.failed:  # a read failure's (path, reason); a read site's own warnings come with its DocSet
            warnings += one.warnings
    index = DocIndex(docsets, warnings)
    index.failed = tuple(failed)
    _COMBINED[:] = [tuple(ones), index]
    return index


def _members(index) -> int:
    return sum(len(d.members) for d in index.docsets)


def _trim_memo() -> None:
    """Evict the oldest entries past :data:`_DOCS_MEMO_SIZE` entries or
    :data:`_DOCS_MEMO_MEMBERS` members (the newest entry always stays)."""
    held = sum(_members(x) for x in _DOCS_MEMO.values())
    while len(_DOCS_MEMO) > 1 and (len(_DOCS_MEMO) > _DOCS_MEMO_SIZE or held > _DOCS_MEMO_MEMBERS):
        _key, old = _DOCS_MEMO.popitem(last=False)
        held -= _members(old)


@dataclass(frozen=True, slots=True)
class BuildDeps:
    """The builder's dependencies on the other packages (module-level
    functions, so a process pool or a dask worker can pickle them by name).

    ``build_graph(root, classpath, opts, progress, cache=)`` → a
    ``callgraph.ProjectGraph``; ``discover_classpath(root, opts, progress)``
    → a ``ResolvedClasspath`` (``.jars``, ``.to_dict()``, ``.repositories``)
    or a list of jars; ``fetch_doc_jars(libraries, kind, opts, repositories,
    progress)`` → a ``DocFetch``; ``open_docs(paths)`` → a ``javadoc.DocIndex``.
    """

    build_graph: Callable[..., Any] = build_graph
    discover_classpath: Callable[..., Any] = discover_classpath
    fetch_doc_jars: Callable[..., Any] = fetch_doc_jars
    open_docs: Callable[[list[str]], Any] = open_docs


DEFAULT_DEPS = BuildDeps()


def doc_paths_next_to(jars: Iterable[str]) -> list[str]:
    """``foo-1.0-javadoc.jar`` / ``foo-1.0-sources.jar`` beside each ``foo-1.0.jar``."""
    out = []
    for j in jars:
        p = Path(j)
        if p.suffix != ".jar" or p.stem.endswith(("-javadoc", "-sources")):
            continue
        for suffix in ("-javadoc.jar", "-sources.jar"):
            q = p.with_name(p.stem + suffix)
            if os.path.isfile(q):  # never raises (Path.is_file does for a name too long)
                out.append(str(q))
    return out


def doc_record(index, target: TargetRecord) -> ApiRecord | None:
    """The documentation of a target from the doc index, or ``None``.

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
    if target.signature:
        doc = index.get(target.signature)
    if doc is None:
        docs = sorted(index.by_name(target.api) or (), key=lambda d: d.to_dict().get("signature") or "")
        if len(docs) == 1:
            doc = docs[0]
        elif docs and not target.signature and len({_doc_text(x) for x in docs}) == 1:
            doc = docs[0]  # every overload says the same: the doc is known whichever runs
    if doc is None:
        return None
    d = dict(doc.to_dict())
    parent = index.inherited(doc) if hasattr(index, "inherited") else None
    if parent is not None:
        # no comment of its own, and its page names the member it overrides or implements, documented in
        # another jar of the build (javadoc copies such a comment when it has the supertype's sources)
        d.update({k: v for k, v in parent.to_dict().items()
                  if k in ("description", "first_sentence", "params", "returns", "throws")},
                 doc_source=parent.doc_source, doc_from=parent.id)
    if not (d.get("description") or d.get("first_sentence")):
        # found in the sources but without a doc comment: nothing describes it
        return None
    # identity comes from the call graph; only the documentation from the doc index
    d.update(api=target.api, signature=target.signature, **{"class": target.class_})
    if target.library:
        d["library"] = target.library
    return ApiRecord.from_dict(d)


def _doc_text(doc) -> tuple:
    d = doc.to_dict()
    return (d.get("description") or "", d.get("first_sentence") or "")


def open_doc_index(doc_paths: list[str], warnings: list[str], deps: BuildDeps, listed=(), unreadable=None):
    """The documentation of ``doc_paths`` (``deps.open_docs``), or None when
    it cannot be opened at all; what it could not read is appended to
    ``warnings`` (``"docs: PATH: REASON"``), and those of the paths
    ``listed`` (the list line's own ``javadoc=``) to ``unreadable`` as
    ``[path, reason]``."""
    listed = set(listed)
    try:
        index = deps.open_docs(doc_paths)
    except Exception as e:  # unreadable docs cost the documentation, not the project
        warnings.append(f"docs: cannot open {', '.join(doc_paths)}: {type(e).__name__}: {e}")
        if unreadable is not None:
            unreadable.extend([p, f"{type(e).__name__}: {e}"] for p in doc_paths if p in listed)
        return None
    why = {}
    for w in getattr(index, "warnings", ()) or ():
        if isinstance(w, tuple) and len(w) == 2:
            why.setdefault(w[0], w[1])
        warnings.append(f"docs: {w[0]}: {w[1]}" if isinstance(w, tuple) and len(w) == 2 else f"docs: {w}")
    if unreadable is not None:
        failed = tuple(getattr(index, "failed", ()) or ())
        unreadable.extend([p, why.get(p, "could not be read")] for p in failed if p in listed)
        # a listed jar or folder read in part: a file in it that could not be read (a bad CRC, a source file
        # that does not parse, a FIFO) lost its members without a word, exit 0 (the attacker's second
        # review, session 10)
        inside: dict = {}
        prefixes = {p: (p + "!", p + "/") for p in listed.difference(failed)}
        for w in getattr(index, "warnings", ()) or ():
            if isinstance(w, tuple) and len(w) == 2 and isinstance(w[0], str):
                for p, pre in prefixes.items():
                    if w[0].startswith(pre):
                        inside.setdefault(p, []).append(w)
        for p, ws in sorted(inside.items()):
            unreadable.append([p, f"{len(ws)} file{'s' if len(ws) != 1 else ''} in it not read in full, "
                                  f"first {ws[0][0][len(p) + 1:]}: {ws[0][1]}"])
    return index


def add_fetched_docs(targets_by_node: dict[str, TargetRecord], index, doc_paths: list[str], resolution,
                     opts: BuildOptions, part, progress: bool, deps: BuildDeps):
    """Fetch the ``-javadoc.jar`` of every library a target belongs to, then the
    ``-sources.jar`` of those whose javadoc jar is missing or lacks a target; the
    paths given (``javadoc=``) and those beside the jars stay first, so they win.
    Records ``part.docs``: jars fetched, failures, downloads."""
    def undocumented_libs(ix) -> list[str]:
        return sorted({t.library for t in targets_by_node.values() if t.library and doc_record(ix, t) is None})

    if part.docs is None:
        part.docs = {"javadoc": [], "sources": [], "failures": [], "downloads": 0, "bytes_downloaded": 0}
    rec = part.docs
    libs = undocumented_libs(index)
    if not libs:
        _record_beside(rec, targets_by_node, doc_paths, resolution)
        return index, doc_paths
    repos = tuple(getattr(resolution, "repositories", ()) or ())
    failures: list = []
    for kind in ("javadoc", "sources"):
        if not libs:
            break
        try:
            got = deps.fetch_doc_jars(libs, kind, opts, repos, progress)
        except Exception as e:  # fetching is best effort: the build goes on without
            part.warnings.append(f"docs: fetching {kind} jars failed: {type(e).__name__}: {e}")
            break
        new = [p for p in got.paths() if p not in doc_paths]
        rec[kind] = [j.coords for j in got.jars]
        rec["downloads"] += got.downloads
        rec["bytes_downloaded"] += got.bytes_downloaded
        failures += [dict(f.to_dict(), kind=kind) for f in got.failures]
        if new:
            doc_paths = doc_paths + new
            index = open_doc_index(doc_paths, part.warnings, deps)
        libs = undocumented_libs(index)
    # a missing javadoc jar is no failure when the sources jar stood in
    rec["failures"] = [f for f in failures if f["coords"] in libs]
    _record_beside(rec, targets_by_node, doc_paths, resolution)
    return index, doc_paths


def _record_beside(rec: dict, targets_by_node: dict[str, TargetRecord], doc_paths: list[str], resolution) -> None:
    """``rec["javadoc"]``/``rec["sources"]``: every reached library whose doc jar
    the index read — fetched now, or already beside the library's jar in the
    local repository from an earlier run (so a warm build records the same
    provenance as a cold one)."""
    reached = {t.library for t in targets_by_node.values() if t.library}
    paths = set(doc_paths)
    for kind in ("javadoc", "sources"):
        have = set(rec.get(kind) or ())
        for a in getattr(resolution, "artifacts", ()) or ():
            if a.coords in reached:
                p = Path(a.path)
                if str(p.with_name(f"{p.stem}-{kind}.jar")) in paths:
                    have.add(a.coords)
        rec[kind] = sorted(have)
