"""The graph store: finished call graphs kept in SQLite, so ``qare chain``
answers from the part of a graph it reaches instead of rebuilding it
(docs/callgraph.md "Graph store").

One SQLite file beside the warm cache (``<qare cache>/graphs.sqlite``; with
``--cache FILE``, ``FILE.graphs``), one stored graph per *slot* (the real
project path and the LOC mode). A stored graph is used only when everything
it was built from is unchanged (:class:`Inputs`):

- the discovered ``.java`` files (paths, relative paths, source sets, in
  order) and the files discovery skipped, with why;
- each file's content: its ``(size, mtime_ns, ctime_ns, inode, device)``
  unchanged *and* its mtime and ctime older than the stored fingerprint's
  time by more than :data:`RACY_NS` stand for its SHA-256; otherwise (any
  field differs, or the file was written so close to the fingerprint that a
  later write could keep the same timestamps) the bytes are hashed and
  compared. Writing a file sets its ctime to now, which no caller can set
  back (``utime`` sets mtime only, and sets ctime to now), and replacing it
  changes the inode, so an unchanged stat with old timestamps means
  unchanged content;
- the classpath entries (jars by path, size, mtime, ctime, inode; class
  folders file by file), the JDK (``release``, ``lib/modules``), the
  ``lombok.config`` files on the way from each source folder to the root
  (by content), the LOC mode, the file-size limit and the code version
  (every ``callgraph`` module's size and mtime).

The fingerprint is taken *before* the build reads the files: a file edited
while the build runs leaves a fingerprint that no longer matches, so the
next run rebuilds (never the other way round).

Rows (format 3; format 5 without edges): ``rows`` holds each distinct
method row — a project method's :class:`~callgraph._index.MethodInfo`
fields — keyed by the digest of its bytes and shared by every graph that
holds it; the ``graphs`` row holds the node ids (the sorted method ids serve
:meth:`ProjectGraph.find_methods`), the API nodes' attributes, the build
summary, the inputs and ``refs``, the key of each method's row. A rebuild
writes only the rows new to its slot (docs/callgraph.md "Graph store").
Format 4 adds the graph row's *adjacency* blob: every method's out-edges
in compressed-sparse-row arrays and the method attributes ``reach`` reads
(:func:`encode_adjacency`), decoded and checked once per query; format 5
drops the edges the rows still carried (no query read them: the store
encoded every edge twice) and adds each file's *contributions* to the
summary (:func:`encode_contributions`), from which a graph patched after a
body edit (``callgraph._patch``) takes its summary.
:meth:`StoredGraph.reach` answers ``qare chain`` on those arrays (the
answer of :meth:`ProjectGraph.reach` on the whole graph; one method row
read, the query's); :meth:`StoredGraph.reachable` loads the reachable part
into a read-only view with the ``adj``/``nodes``/``edges`` of a
``networkx`` graph, on which the *same* :meth:`ProjectGraph.reach` runs.

Safety as in the warm cache (callgraph._cache, docs/security.md "Caches"):
a private folder, no symlinks or special files at the path or its
companions, a foreign or corrupt file detected (rebuilt at qare's own path,
refused elsewhere), WAL and one transaction per write (concurrent
processes), msgpack decoded into checked values only — never pickle.

Size bound: after each write the least recently used graphs are deleted
until the stored graphs take at most ``QARE_GRAPH_STORE_MAX_BYTES``
(default :data:`DEFAULT_MAX_BYTES`) and number at most :data:`MAX_GRAPHS`;
the freed pages go back to the file system (``auto_vacuum=INCREMENTAL``).
"""

from __future__ import annotations

import hashlib
from hashlib import blake2b
import os
import sqlite3
import stat
import sys
import time
import zlib
from array import array
from bisect import bisect_left
from itertools import accumulate, chain
from dataclasses import dataclass, fields
from pathlib import Path

import msgpack

from ._gcpause import gc_paused
from ._sqlitefile import CacheRefused, PrivateSQLite
from ._statsig import MISSING, RACY_NS, signature, signature_of, trusted  # noqa: F401  (RACY_NS: re-exported)
from .safefs import walk as safefs_walk

_MAGIC = "qare-graph-store"
# 2: string table, uint32 edge arrays, CRC-32 per row (s5); 3: rows shared by content (s6);
# 4: the graph row's adjacency blob, what a query reads instead of one row per reached method (s7);
# 5: method rows without their edges (the adjacency holds them), each file's contributions (s8)
_VERSION = "5"
FORMAT = f"{_MAGIC} {_VERSION}"
DEFAULT_MAX_BYTES = 2 << 30
MAX_GRAPHS = 64
_BATCH = 500  # ids per `IN (...)` query (SQLite allows 32,766 parameters)
_MAX_CLASS_FOLDER_FILES = 200_000

__all__ = ["GraphStore", "Inputs", "StoredGraph", "GraphView", "fingerprint", "default_path", "open_store",
           "StoreError", "CacheRefused"]


class StoreError(ValueError):
    """A stored row that is not what this version wrote (treated as a miss)."""


# ------------------------------------------------------------------ inputs

def _stat_key(st: os.stat_result) -> list:
    return list(signature_of(st))


def _sha(path: str, max_bytes: int, root: str | None = None) -> str | None:
    from .safefs import read_regular

    try:
        return hashlib.sha256(read_regular(path, max_bytes, root=root)).hexdigest()
    except OSError:
        return None


def _entry_sigs(classpath) -> list:
    """``[real path, size, mtime_ns, ctime_ns, inode]`` of each classpath entry; a
    class folder adds one row per file (a folder too large to list: a random
    row, so it never matches)."""
    out = []
    for entry in classpath:
        # keyed by real path: `--classpath lib/x.jar` and its absolute path (or a link to it) are one input
        p = os.path.realpath(entry)
        try:
            st = os.stat(p)
        except OSError:
            out.append([p, "missing"])
            continue
        out.append([p, *_stat_key(st)[:4]])
        if stat.S_ISDIR(st.st_mode):
            n = 0
            for dirpath, dirs, names in safefs_walk(p):
                dirs.sort()
                for name in sorted(names):
                    f = os.path.join(dirpath, name)
                    try:
                        out.append([f, *_stat_key(os.lstat(f))[:4]])
                    except OSError:
                        out.append([f, "missing"])
                    n += 1
                if n > _MAX_CLASS_FOLDER_FILES:
                    out.append([os.urandom(16).hex()])
                    break
    return out


def _jdk_sigs(jdk_home) -> list:
    if jdk_home is None:
        return [None]
    out = [str(jdk_home)]
    for part in ("release", "lib/modules", "jmods", "jre/lib/rt.jar", "lib/rt.jar"):
        try:
            out.append([part, *_stat_key(os.stat(Path(jdk_home) / part))[:4]])
        except OSError:
            out.append([part, "missing"])
    return out


def _lombok_configs(root: Path, files) -> list:
    """``[path, sha256]`` of every ``lombok.config`` from each source file's
    folder up to the project root (the files the warm cache's project key
    reads, callgraph._build._project_key; strings, not Paths: 9,000 files
    on spring-framework).

    Read by the rule of the build's reader (callgraph._lombok.LombokConfig,
    not imported: it brings the parser into a warm answer): a config that
    is a symlink, FIFO or device is not read (``[path, "not a regular
    file"]``: the build ignores it too), and no folder outside the project
    is visited."""
    # the real root (the files' paths are real): a relative or linked root still reaches its own config
    base = os.path.realpath(root if root.is_dir() else root.parent)
    under = base.rstrip(os.sep) + os.sep
    dirs = set()
    for sf in files:
        d = os.path.dirname(sf.path)
        while d not in dirs and (d == base or d.startswith(under)):
            dirs.add(d)
            parent = os.path.dirname(d)
            if d == base or parent == d or not d.startswith(under):
                break
            d = parent
    out = []
    for d in sorted(dirs):
        cfg = os.path.join(d, "lombok.config")
        try:
            st = os.lstat(cfg)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            out.append([cfg, "not a regular file"])  # never followed: a link may lead anywhere
        else:
            # the folders are real paths and the name no link: read_regular's O_NOFOLLOW refuses one swapped in
            out.append([cfg, _sha(cfg, 4 << 20, root=base)])
    return out


# besides the code itself, what decides a file's facts and call sites: the
# grammar, the parser, the row codec (callgraph._build uses the same list)
CODE_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-java-orchard", "msgpack")


def code_version() -> str:
    """The store's format and the code that builds graphs (callgraph's and
    records' modules by content, the parser's versions; records.codeversion):
    another resolver never answers from a graph the old one built."""
    from records.codeversion import code_version as _code

    return hashlib.sha256(f"{FORMAT}:{_code(Path(__file__).resolve().parent, distributions=CODE_DISTRIBUTIONS)}"
                          .encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a graph was built from (module docstring).

    ``files`` rows are ``[path, rel, source_set, size, mtime_ns, ctime_ns,
    inode, device, sha256 hex]``; ``taken_ns`` the wall clock (ns since the
    epoch) just before the files were stat'ed; the rest as in
    :func:`fingerprint`.
    """

    root: str
    loc_mode: str
    max_file_bytes: int
    code: str
    taken_ns: int
    files: tuple
    skipped: tuple
    classpath: tuple
    jdk: tuple
    lombok: tuple

    def slot(self) -> str:
        return slot_key(self.root, self.loc_mode, self.max_file_bytes)

    def to_blob(self) -> bytes:
        """msgpack; ``files`` as columns (paths, rels, source sets, the five
        stat fields of every file in one flat list, digests), checked by a
        few passes instead of a Python check per value (:meth:`from_blob`)."""
        rows = self.files
        files = [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                 [x for r in rows for x in r[3:8]], [r[8] for r in rows]]
        return msgpack.packb([FORMAT, *(files if f.name == "files" else getattr(self, f.name) for f in fields(self))],
                             use_bin_type=True)

    @staticmethod
    def from_blob(blob) -> "Inputs":
        try:
            v = msgpack.unpackb(blob, raw=False, use_list=True, strict_map_key=True)
        except Exception as e:  # msgpack raises several types on bad data
            raise StoreError(f"inputs: {type(e).__name__}") from None
        names = [f.name for f in fields(Inputs)]
        if not isinstance(v, list) or len(v) != len(names) + 1 or v[0] != FORMAT:
            raise StoreError("inputs: not this format")
        vals = dict(zip(names, v[1:]))
        for n in ("root", "loc_mode", "code"):
            if not isinstance(vals[n], str):
                raise StoreError(f"inputs: {n}")
        for n in ("max_file_bytes", "taken_ns"):
            if type(vals[n]) is not int:
                raise StoreError(f"inputs: {n}")
        for n in ("files", "skipped", "classpath", "jdk", "lombok"):
            if not isinstance(vals[n], list):
                raise StoreError(f"inputs: {n}")
        vals["files"] = _file_rows(vals["files"])
        return Inputs(**{n: (x if n == "files" else _freeze(x) if isinstance(x, list) else x)
                         for n, x in vals.items()})


_STR = {str}
_INT = {int}
_DIGEST = {str, type(None)}


def _file_rows(cols) -> tuple:
    """The ``files`` rows of :class:`Inputs` from their stored columns (``StoreError`` unless each column has its type and length)."""
    if not (type(cols) is list and len(cols) == 5 and all(type(c) is list for c in cols)):
        raise StoreError("inputs: file rows")
    paths, rels, sets, a, digests = cols
    n = len(paths)
    if not (len(rels) == len(sets) == len(digests) == n and len(a) == 5 * n):
        raise StoreError("inputs: file rows")
    if n and not (set(map(type, paths)) == set(map(type, rels)) == set(map(type, sets)) == _STR
                  and set(map(type, a)) == _INT and set(map(type, digests)) <= _DIGEST):
        raise StoreError("inputs: a file row")
    return tuple(zip(paths, rels, sets, a[0::5], a[1::5], a[2::5], a[3::5], a[4::5], digests))


def _freeze(v):
    return tuple(_freeze(x) for x in v) if isinstance(v, (list, tuple)) else v


def slot_key(root: str, loc_mode: str, max_file_bytes: int) -> str:
    return f"{os.path.realpath(root)}\0{loc_mode}\0{max_file_bytes}"


def fingerprint(root, files, skipped, classpath, jdk_home, loc_mode: str, max_file_bytes: int,
                previous: Inputs | None = None, probe: dict | None = None) -> Inputs:
    """The :class:`Inputs` of a build about to run on ``files`` (the
    ``discover_sources`` result), ``classpath`` (the final entry list) and
    ``jdk_home``; hashes every file (taken before the build reads them).

    ``previous`` (the slot's stored fingerprint, :meth:`GraphStore.stored_inputs`):
    a file whose path, signature and size limit are those of a row of it,
    not racy against its time (callgraph._statsig, the rule
    :meth:`GraphStore.lookup` answers by), keeps that row's digest instead of
    being read and hashed again (spring-framework after one edit: 1.0 of
    the fingerprint's 1.1 s).

    ``probe`` (filled by :meth:`GraphStore.lookup` for these very inputs):
    the signatures, classpath, JDK and ``lombok.config`` rows the look-up
    took just before, and its time — not taken a second time (9,187
    ``stat`` calls and the ``lombok.config`` walk on spring-framework)."""
    root = Path(root)
    probe = probe if probe and probe.get("complete") and probe.get("files") == len(files) else None
    taken = probe["taken_ns"] if probe is not None else time.time_ns()
    sigs = probe["sigs"] if probe is not None else {}
    known: dict = {}
    if previous is not None and previous.max_file_bytes == max_file_bytes:
        before = previous.taken_ns
        for r in previous.files:
            if r[8] is not None and trusted(r[3:8], before):
                known[r[0]] = r
    rows = []
    for sf in files:
        sig = sigs.get(sf.path) or signature(sf.path)
        old = known.get(sf.path)
        digest = old[8] if old is not None and old[3:8] == sig else _sha(sf.path, max_file_bytes)
        rows.append((sf.path, sf.rel, sf.source_set, *sig, digest))
    if probe is not None:
        cp, jdk, lombok = probe["classpath"], probe["jdk"], probe["lombok"]
    else:
        cp, jdk, lombok = (_freeze(_entry_sigs(classpath)), _freeze(_jdk_sigs(jdk_home)),
                           _freeze(_lombok_configs(root, files)))
    return Inputs(str(os.path.realpath(root)), loc_mode, max_file_bytes, code_version(), taken, tuple(rows),
                  _freeze([list(map(str, s)) for s in skipped]), cp, jdk, lombok)


def _unchanged(stored: Inputs, root, files, skipped, classpath, jdk_home, probe: dict | None = None) -> str | None:
    """None when the stored graph was built from exactly these inputs, else
    why not. With ``probe`` (a dict), every signature is taken even past a
    changed file, and kept there with the classpath, JDK and
    ``lombok.config`` rows (``probe["complete"]`` when all were), for the
    build's :func:`fingerprint` that follows."""
    if probe is not None:
        probe.update(taken_ns=time.time_ns(), sigs={}, files=len(files), complete=False)
    if stored.code != code_version():
        return "qare's call-graph code changed"
    if len(stored.files) != len(files):
        return "the set of .java files changed"
    if _freeze([list(map(str, s)) for s in skipped]) != stored.skipped:
        return "the skipped files changed"
    written = stored.taken_ns
    why = None
    sigs = probe["sigs"] if probe is not None else None
    for row, sf in zip(stored.files, files):
        if row[0] != sf.path or row[1] != sf.rel or row[2] != sf.source_set:
            return "the set of .java files changed"
        now = signature(sf.path)
        if sigs is not None:
            sigs[sf.path] = now
        if why is not None:
            continue  # only taking the signatures for the fingerprint
        if now == MISSING:
            why = f"{sf.rel} unreadable"
        elif now == row[3:8] and trusted(now, written):
            continue  # same inode, size and timestamps, written well before the fingerprint (callgraph._statsig)
        elif row[8] is None or _sha(sf.path, stored.max_file_bytes) != row[8]:
            why = f"{sf.rel} changed"
        if why is not None and sigs is None:
            return why
    cp, jdk, lombok = (_freeze(_entry_sigs(classpath)), _freeze(_jdk_sigs(jdk_home)),
                       _freeze(_lombok_configs(Path(root), files)))
    if probe is not None:
        probe.update(classpath=cp, jdk=jdk, lombok=lombok, complete=True)
    if why is not None:
        return why
    if cp != stored.classpath:
        return "the classpath changed"
    if jdk != stored.jdk:
        return "the JDK changed"
    if lombok != stored.lombok:
        return "a lombok.config changed"
    return None


# ------------------------------------------------------------------ rows
#
# Format 2, kept since (docs/callgraph.md "Graph store", "Rows"): a graph's node ids are
# one string table (project methods first, sorted, then API nodes, sorted);
# everything else names a node by its index in it. A project method's row
# holds its MethodInfo fields (msgpack, without the id; format 5: nothing
# else, its out-edges are the adjacency blob's). A row's key is the digest
# of its bytes and the graph row carries a CRC-32: a damaged row is a miss,
# not an answer from wrong indices.

_CLS: list = []


def _method_info_cls():
    if not _CLS:
        try:  # its own small module once the index is cut up; _index imports the parser and the solver
            from ._methodinfo import MethodInfo
        except ImportError:
            from ._index import MethodInfo
        _CLS.append(MethodInfo)
    return _CLS[0]


_INFO_FIELDS: list = []


def _info_fields():
    if not _INFO_FIELDS:
        _INFO_FIELDS.extend(f.name for f in fields(_method_info_cls()))
    return _INFO_FIELDS


_OPT_STR = (str, type(None))
# the type of each MethodInfo field (checked on decoding: a stored row is a stranger's data)
_INFO_TYPES = {"id": str, "file": str, "start_line": int, "end_line": int, "loc": int, "comment": _OPT_STR,
               "source_set": str, "declaring_type": str, "name": str, "params": tuple, "static": bool,
               "abstract": bool, "private": bool, "implicit": bool, "varargs": bool,
               "generated_by": _OPT_STR}
_ROW_TYPES: set = set()


def _row_types() -> set:
    """Every tuple of exact value types a valid stored MethodInfo row (all
    fields but ``id``) may have (the optional fields None or str): one set
    lookup checks a row."""
    if not _ROW_TYPES:
        combos = [()]
        for name in _info_fields()[1:]:
            want = _INFO_TYPES[name]
            opts = want if isinstance(want, tuple) else (want,)
            combos = [c + (t,) for c in combos for t in opts]
        _ROW_TYPES.update(combos)
    return _ROW_TYPES


_INFO_GETTER: list = []


def _encode_info(mi) -> bytes:
    """A MethodInfo's fields but its id (the string table holds it), msgpack."""
    if not _INFO_GETTER:
        from operator import attrgetter

        _INFO_GETTER.append(attrgetter(*_info_fields()[1:]))  # one C call for the 15 fields
    return msgpack.packb(_INFO_GETTER[0](mi), use_bin_type=True)


_PARAMS_AT = 8  # index of MethodInfo.params in a stored row (without the id; checked in the tests)


def _decode_info(blob, mid: str):
    """The MethodInfo of method ``mid`` from its stored row (``StoreError`` unless every field has its type)."""
    try:
        v = msgpack.unpackb(blob, raw=False, use_list=False)
    except Exception:
        raise StoreError("method row") from None
    if type(v) is not tuple or tuple(map(type, v)) not in _row_types():
        raise StoreError("method row")
    try:
        "".join(v[_PARAMS_AT])  # one C pass: TypeError unless every item is a str (msgpack makes no subclass)
    except TypeError:
        raise StoreError("method row: params") from None
    return _method_info_cls()(mid, *v)


def _method_attrs(mi) -> dict:
    # the attributes callgraph._build gives a method node
    return {"kind": "method", "file": mi.file, "start_line": mi.start_line, "end_line": mi.end_line,
            "loc": mi.loc, "comment": mi.comment, "third_party": False, "library": None,
            "source_set": mi.source_set, "generated_by": mi.generated_by}


_KINDS = ("exact", "arity", "cha", "name")


def _resolution(kind: str):
    from ._callsite import Resolution

    return Resolution(kind)
_KIND_AT = {k: i for i, k in enumerate(_KINDS)}
# a 4-byte unsigned array type (``I`` on every platform CPython supports; ``L`` as a fallback)
_U32 = next(t for t in "IL" if array(t).itemsize == 4)
_SWAP = sys.byteorder != "little"  # stored little-endian


def _u32(values) -> bytes:
    a = array(_U32, values)  # OverflowError for a value outside 0..2**32-1: not stored (GraphStore.save)
    if _SWAP:
        a.byteswap()
    return a.tobytes()


def _u32_of(blob, what: str):
    if type(blob) is not bytes or len(blob) % 4:
        raise StoreError(what)
    a = array(_U32)
    a.frombytes(blob)
    if _SWAP:
        a.byteswap()
    return a


# ------------------------------------------------------------------ adjacency (format 4)
#
# One blob per stored graph (the ``adj`` column of its ``graphs`` row), what
# a query reads instead of one row per reached method: the out-edges of every
# project method in compressed-sparse-row form, and the three method
# attributes ``ProjectGraph.reach`` reads (file, LOC, source set), as
# msgpack ``[n_nodes, files, source sets, file_at, set_at, loc, offsets,
# targets, kinds, rta, line counts, lines]``: ``files``/``source sets``
# lists of str; ``set_at`` and ``kinds`` one byte per method / edge; the rest
# little-endian uint32 arrays. Method ``i``'s edges are ``offsets[i] ..
# offsets[i + 1]`` (``offsets`` has ``n_methods + 1`` words, starts at 0,
# never decreases and ends at E); edge ``j`` goes to node ``targets[j]``
# (an index in the string table), has resolution ``_KINDS[kinds[j]]``, RTA
# witnesses ``rta[j]`` (0 = none, else 1 + index in the witness table) and
# ``counts[j] ≥ 1`` call-site lines, the lines of all edges one after the
# other in ``lines``. Decoded by ``array`` and checked by C-level passes
# (:class:`_Adjacency`); the graph row's CRC-32 covers it.

def encode_adjacency(methods: list, infos, succ, index: dict, rtas: dict) -> bytes:
    """The adjacency blob of a graph (the format above).

    ``methods``: the sorted project method ids (the string table's first
    ids); ``infos``: their ``MethodInfo`` by id; ``succ``: ``{method id:
    {target id: edge attributes}}`` (a method without an entry has no
    out-edges); ``index``: node id → index in the string table; ``rtas``:
    witness tuple → 1-based index, grown with new tuples (store the table
    after this call). Raises ``OverflowError`` for a value beyond 32 bits,
    ``KeyError`` for a target not in ``index``. Used by
    :meth:`GraphStore.save`; a save that patches a stored graph calls it too."""
    files: dict = {}
    sets: dict = {}
    file_at, loc, offsets = [], [], [0]
    set_at = bytearray()
    targets, kinds, witnessed, counts, lines = [], bytearray(), [], [], []
    kind_at, empty = _KIND_AT, {}
    for mid in methods:
        mi = infos[mid]
        file_at.append(files.setdefault(mi.file, len(files)))
        set_at.append(sets.setdefault(mi.source_set, len(sets)))
        loc.append(mi.loc)
        out = succ[mid] if mid in succ else empty
        vals = out.values()
        targets += map(index.__getitem__, out)
        kinds += bytes(kind_at[d["resolution"]] for d in vals)
        for d in vals:
            w = d.get("rta")
            if w is None:
                witnessed.append(0)
            else:
                w = tuple(w)
                i = rtas.get(w)
                if i is None:
                    i = rtas[w] = len(rtas) + 1
                witnessed.append(i)
            ls = d["lines"]
            counts.append(len(ls))
            lines += ls
        offsets.append(len(targets))
    return pack_adjacency(len(index), list(files), list(sets), file_at, set_at, loc, offsets, targets, kinds,
                          witnessed, counts, lines)


def method_columns(infos) -> tuple:
    """``(files, source sets, file_at, set_at, loc)`` of the adjacency blob
    for the ``MethodInfo`` of every method, in method order."""
    files: dict = {}
    sets: dict = {}
    file_at, loc, set_at = [], [], bytearray()
    for mi in infos:
        file_at.append(files.setdefault(mi.file, len(files)))
        set_at.append(sets.setdefault(mi.source_set, len(sets)))
        loc.append(mi.loc)
    return list(files), list(sets), file_at, set_at, loc


def pack_adjacency(n_nodes: int, files: list, sets: list, file_at, set_at, loc, offsets, targets, kinds, rta,
                   counts, lines) -> bytes:
    """The adjacency blob (the format above) of columns already made:
    :func:`encode_adjacency`'s, a graph kept as arrays
    (``callgraph._compact``) or one patched from the stored one. Raises
    ``OverflowError`` for a value beyond 32 bits or more than 256 source sets."""
    if len(sets) > 256:
        raise OverflowError("more than 256 source sets")
    return msgpack.packb([n_nodes, files, sets, _u32(file_at), bytes(set_at), _u32(loc), _u32(offsets),
                          _u32(targets), bytes(kinds), _u32(rta), _u32(counts), _u32(lines)], use_bin_type=True)



class _Adjacency:
    """A decoded adjacency blob (the format above), every index checked
    against the graph it belongs to: ``StoreError("adjacency…")`` for one
    that is not what :func:`encode_adjacency` writes for a graph of
    ``n_methods`` methods, ``n_nodes`` nodes and ``n_rtas`` witness tuples.
    The method columns are lists (indexing a list costs less than an
    array), ``targets``/``rta`` arrays and ``kinds``/``set_at`` bytes."""

    __slots__ = ("files", "sets", "file_at", "set_at", "loc", "offsets", "targets", "kinds", "rta", "_counts",
                 "_lines", "_sites")

    def __init__(self, blob, n_methods: int, n_nodes: int, n_rtas: int):
        try:
            v = msgpack.unpackb(blob, raw=False, use_list=True)
        except Exception:
            raise StoreError("adjacency") from None
        if not (type(v) is list and len(v) == 12 and type(v[0]) is int and type(v[1]) is list
                and type(v[2]) is list and all(type(x) is bytes for x in v[3:])):
            raise StoreError("adjacency")
        if v[0] != n_nodes or not all(type(x) is str for x in v[1]) or not all(type(x) is str for x in v[2]):
            raise StoreError("adjacency: tables")
        self.files, self.sets = v[1], v[2]
        self.set_at, self.kinds = v[4], v[8]
        # the per-edge columns a query reads by slices stay arrays (no list of 600,000 ints made)
        self.targets, self.rta = _u32_of(v[7], "adjacency"), _u32_of(v[9], "adjacency")
        self._counts, self._lines = _u32_of(v[10], "adjacency"), _u32_of(v[11], "adjacency")
        self._sites = None
        counts = self._counts
        (self.file_at, self.loc, self.offsets) = (_u32_of(v[i], "adjacency").tolist() for i in (3, 5, 6))
        if not len(self.file_at) == len(self.set_at) == len(self.loc) == n_methods:
            raise StoreError("adjacency: method columns")
        if n_methods and (max(self.file_at) >= len(self.files) or max(self.set_at) >= len(self.sets)):
            raise StoreError("adjacency: method columns")
        off, e = self.offsets, len(self.targets)
        # monotone: sorting a sorted list is one linear C pass
        if len(off) != n_methods + 1 or off[0] != 0 or off[-1] != e or off != sorted(off):
            raise StoreError("adjacency: offsets")
        if not len(self.kinds) == len(self.rta) == len(counts) == e:
            raise StoreError("adjacency: edge columns")
        if e and (max(self.targets) >= n_nodes or max(self.kinds) >= len(_KINDS) or max(self.rta) > n_rtas
                  or min(counts) < 1):
            raise StoreError("adjacency: edge columns")
        if sum(counts) != len(self._lines):
            raise StoreError("adjacency: lines")

    def sites(self) -> tuple:
        """``(starts, lines)`` as lists, edge ``j``'s call-site lines being
        ``lines[starts[j]:starts[j + 1]]``; made on first use (a query that
        reaches no API never needs them)."""
        if self._sites is None:
            self._sites = (list(accumulate(self._counts, initial=0)), self._lines.tolist())
        return self._sites

    def attrs(self, i: int) -> dict:
        """The attributes of method node ``i`` that ``ProjectGraph.reach`` reads."""
        return {"kind": "method", "file": self.files[self.file_at[i]], "loc": self.loc[i], "third_party": False,
                "library": None, "source_set": self.sets[self.set_at[i]]}


def _encode_apis(g, apis: list) -> bytes:
    """The API nodes' attributes as columns (:func:`encode_api_columns`)."""
    nodes = g.nodes
    ds = [nodes[n] for n in apis]
    return encode_api_columns([d.get("third_party") for d in ds], [d.get("library") for d in ds],
                              [d.get("kind", "api") for d in ds])


def encode_api_columns(third_party, library, kind) -> bytes:
    """The API nodes' attributes (one value per node of each list) as
    columns: ``[libraries, kinds, third_party bytes (0/1), library index
    uint32 (0 = None, else 1 + index), kind bytes]``."""
    libs: dict = {}
    kinds: dict = {}
    tp, lib, kd = bytearray(), [], bytearray()
    for t, name, k in zip(third_party, library, kind):
        tp.append(1 if t else 0)
        lib.append(0 if name is None else libs.setdefault(name, len(libs) + 1))
        kd.append(kinds.setdefault(k, len(kinds)))
    return msgpack.packb([list(libs), list(kinds), bytes(tp), _u32(lib), bytes(kd)], use_bin_type=True)


class _ApiColumns:
    """The decoded API-node columns of a stored graph (``attrs(i)``: the attribute dict of API node ``i``)."""

    __slots__ = ("libs", "kinds", "tp", "lib", "kind")

    def __init__(self, blob, n: int):
        try:
            v = msgpack.unpackb(blob, raw=False, use_list=True)
        except Exception:
            raise StoreError("api nodes") from None
        if not (type(v) is list and len(v) == 5 and type(v[0]) is list and type(v[1]) is list
                and all(type(x) is str for x in v[0]) and all(type(x) is str for x in v[1])
                and type(v[2]) is bytes and type(v[4]) is bytes):
            raise StoreError("api nodes")
        self.libs, self.kinds, self.tp = [None, *v[0]], v[1], v[2]
        self.lib = _u32_of(v[3], "api nodes")
        self.kind = v[4]
        if not (len(self.tp) == len(self.lib) == len(self.kind) == n):
            raise StoreError("api nodes")
        if n and (self.tp.translate(None, b"\0\1") or max(self.lib) >= len(self.libs)
                  or max(self.kind) >= len(self.kinds)):
            raise StoreError("api nodes")

    def attrs(self, i: int) -> dict:
        return {"kind": self.kinds[self.kind[i]], "file": None, "start_line": None, "end_line": None, "loc": None,
                "comment": None, "third_party": self.tp[i] == 1, "library": self.libs[self.lib[i]],
                "source_set": None}


def _encode_names(names: list, n_methods: int) -> bytes:
    """The string table: msgpack ``[n_methods, n_names, every id in UTF-8,
    NUL-separated]`` (one split decodes it; ValueError for an id holding a
    NUL, which no Java name has: such a graph is not stored)."""
    text = "\0".join(names)
    if text.count("\0") != max(len(names) - 1, 0):
        raise ValueError("a node id holds a NUL")
    return msgpack.packb([n_methods, len(names), text.encode("utf-8", "surrogatepass")], use_bin_type=True)


def _decode_names(blob):
    """``(method ids, every node id)`` from the string table; ``StoreError``
    unless it is ``[n_methods, n_names, bytes]`` holding ``n_names`` unique
    ids, the first ``n_methods`` sorted."""
    try:
        v = msgpack.unpackb(blob, raw=False, use_list=True)
    except Exception:
        raise StoreError("node ids") from None
    if not (type(v) is list and len(v) == 3 and type(v[0]) is int and type(v[1]) is int and type(v[2]) is bytes):
        raise StoreError("node ids")
    n, total, text = v
    try:
        names = text.decode("utf-8", "surrogatepass").split("\0") if total else []
    except UnicodeDecodeError:
        raise StoreError("node ids") from None
    if len(names) != total or not 0 <= n <= total or len(set(names)) != total:
        raise StoreError("node ids")
    ids = names[:n]
    if ids != sorted(ids):
        raise StoreError("node ids: methods not sorted")
    return ids, names


def _decode_rtas(blob) -> list:
    try:
        v = msgpack.unpackb(blob, raw=False, use_list=True)
    except Exception:
        raise StoreError("rta witnesses") from None
    if type(v) is not list or not all(type(w) is list and all(type(x) is str for x in w) for w in v):
        raise StoreError("rta witnesses")
    return [tuple(w) for w in v]


# ------------------------------------------------------------------ contributions (format 5)
#
# What each file adds to the graph besides its edges (callgraph._contrib):
# msgpack ``[project key, n_files, labels, kinds, site types, count offsets,
# count kinds, counts, reason offsets, reason labels, reason counts, example
# offsets, example labels, example texts, site offsets, site type indices,
# site counts, api offsets, api nodes, made digests, warnings, failures]`` —
# one row per file in the graph's file order (its ``files`` in the inputs), then
# the program's instantiated types ``[types, hows, how bits, source sets, set
# bits]`` (the RTA witnesses of a ``cha`` edge a patch adds: callgraph._rta);
# ``labels`` the reasons (and example keys), ``kinds`` resolution values;
# each ``… offsets`` has one word more than there are files (file ``i``'s
# items are ``offsets[i] .. offsets[i+1]``); ``api nodes`` indices in the
# string table; ``made digests`` 16 bytes per file; ``warnings`` and
# ``failures`` ``[file index, …]`` pairs for the few files that have them.
# Decoded and checked like the adjacency (:func:`decode_contributions`);
# covered by the graph row's CRC-32. Empty (no contributions) when the graph
# was built without the warm cache: such a graph is never patched.

_MADE = 16


def encode_contributions(contribs, index: dict, pkey, instantiated: dict | None = None,
                         instantiated_columns: list | None = None) -> bytes:
    """The contributions blob of ``contribs`` (one ``FileContribution`` per
    file, in file order) for a graph whose string table is ``index``
    (node id → index), built under warm-cache project key ``pkey``, whose
    program instantiates ``instantiated`` (``ProjectGraph.instantiated``:
    type → ``InstantiatedType``; or, as :func:`decode_contributions` gave
    them, ``instantiated_columns``); b"" without a key (nothing to patch from)."""
    if not pkey:
        return b""
    if instantiated_columns is None:
        instantiated_columns = _instantiated_columns(instantiated or {})
    labels: dict = {}
    kinds: dict = {}
    stypes: dict = {}
    c_off, c_n, r_off, r_at, r_n, e_off, e_at, e_text = [0], [], [0], [], [], [0], [], []
    s_off, s_n, a_off, a_at = [0], [], [0], []
    c_at, s_at, made = bytearray(), bytearray(), bytearray()
    warnings, failures = [], []
    label = labels.setdefault
    for fi, c in enumerate(contribs):
        for k, n in c.counts:
            c_at.append(kinds.setdefault(getattr(k, "value", k), len(kinds)))
            c_n.append(n)
        for r, n in c.reasons:
            r_at.append(label(r, len(labels)))
            r_n.append(n)
        for r, text in c.examples:
            e_at.append(label(r, len(labels)))
            e_text.append(text)
        for t, n in c.sites:
            s_at.append(stypes.setdefault(t, len(stypes)))
            s_n.append(n)
        a_at += map(index.__getitem__, c.apis)
        c_off.append(len(c_n))
        r_off.append(len(r_n))
        e_off.append(len(e_text))
        s_off.append(len(s_n))
        a_off.append(len(a_at))
        if len(c.made) != _MADE:
            raise ValueError("a made digest of another size")
        made += c.made
        if c.warnings:
            warnings.append([fi, [list(w) for w in c.warnings]])
        if c.failed is not None:
            failures.append([fi, c.failed])
    if len(kinds) > 256 or len(stypes) > 256:
        raise OverflowError("more than 256 resolution kinds or site types")
    return msgpack.packb([pkey, len(contribs), list(labels), list(kinds), list(stypes), _u32(c_off), bytes(c_at),
                          _u32(c_n), _u32(r_off), _u32(r_at), _u32(r_n), _u32(e_off), _u32(e_at), e_text,
                          _u32(s_off), bytes(s_at), _u32(s_n), _u32(a_off), _u32(a_at), bytes(made), warnings,
                          failures, *instantiated_columns], use_bin_type=True)


def _instantiated_columns(instantiated: dict) -> list:
    """``[types, hows, how bits, source sets, set bits]`` of the instantiated types."""
    hows: dict = {}
    sets: dict = {}
    types, how_bits, set_bits = [], [], []
    for t in sorted(instantiated):  # sorted throughout: the same bytes in every process (sets hash by seed)
        v = instantiated[t]
        types.append(t)
        how_bits.append(sum(1 << hows.setdefault(h, len(hows)) for h in sorted(getattr(x, "value", x) for x in v.how)))
        set_bits.append(sum(1 << sets.setdefault(x, len(sets)) for x in sorted(v.source_sets)))
    if len(hows) > 32 or len(sets) > 32:
        raise OverflowError("more than 32 kinds of instantiation or source sets")
    return [types, list(hows), _u32(how_bits), list(sets), _u32(set_bits)]


def _offsets(blob, n: int, total: int, what: str) -> list:
    off = _u32_of(blob, what).tolist()
    if len(off) != n + 1 or off[0] != 0 or off[-1] != total or off != sorted(off):
        raise StoreError(what)
    return off


def _contrib_doc(blob, n_files: int) -> list:
    """The contributions blob unpacked, its columns' types and the file count checked."""
    try:
        v = msgpack.unpackb(blob, raw=False, use_list=True)
    except Exception:
        raise StoreError("contributions") from None
    if not (type(v) is list and len(v) == 27 and type(v[0]) is str and type(v[1]) is int and v[1] == n_files
            and all(type(v[i]) is list for i in (2, 3, 4, 13, 20, 21, 22, 23, 25))
            and all(type(v[i]) is bytes for i in (5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 24, 26))):
        raise StoreError("contributions")
    return v


def decode_contributions(blob, n_files: int, names: list, columns: list | None = None):
    """``(project key, [FileContribution] in file order)`` from a
    contributions blob of a graph of ``n_files`` files whose string table is
    ``names``; ``StoreError`` unless it is what :func:`encode_contributions`
    writes (every column's type and length, offsets, every index inside its
    table, resolution kinds known). An empty blob is ``(None, None)``. The
    instantiated types' columns, not decoded yet, are appended to the list
    ``columns`` when given (:func:`instantiated_of` decodes them)."""
    from ._callsite import Resolution
    from ._contrib import FileContribution

    if blob == b"":
        return None, None
    v = _contrib_doc(blob, n_files)
    pkey, n, labels, kinds, stypes = v[0], v[1], v[2], v[3], v[4]
    if not all(type(x) is str for x in (*labels, *kinds, *stypes, *v[13])):
        raise StoreError("contributions: tables")
    values = {r.value: r for r in Resolution}
    if not all(k in values for k in kinds):
        raise StoreError("contributions: kinds")
    kinds = [values[k] for k in kinds]
    c_at, s_at = v[6], v[15]
    c_n, r_at, r_n, e_at, s_n, a_at = (_u32_of(v[i], "contributions").tolist() for i in (7, 9, 10, 12, 16, 18))
    e_text = v[13]
    c_off = _offsets(v[5], n, len(c_n), "contributions: counts")
    r_off = _offsets(v[8], n, len(r_n), "contributions: reasons")
    e_off = _offsets(v[11], n, len(e_text), "contributions: examples")
    s_off = _offsets(v[14], n, len(s_n), "contributions: sites")
    a_off = _offsets(v[17], n, len(a_at), "contributions: apis")
    if not (len(c_at) == len(c_n) and len(r_at) == len(r_n) and len(e_at) == len(e_text) and len(s_at) == len(s_n)):
        raise StoreError("contributions: columns")
    if (c_at and max(c_at) >= len(kinds)) or (s_at and max(s_at) >= len(stypes)) \
            or (r_at and max(r_at) >= len(labels)) or (e_at and max(e_at) >= len(labels)) \
            or (a_at and max(a_at) >= len(names)):
        raise StoreError("contributions: an index past its table")
    made = v[19]
    if len(made) != _MADE * n:
        raise StoreError("contributions: made")
    extra: dict = {}
    for what, rows, item in (("warnings", v[20], lambda x: type(x) is list and all(
            type(w) is list and len(w) == 2 and type(w[0]) is str and type(w[1]) is str for w in x)),
                             ("failures", v[21], lambda x: type(x) is str)):
        got = {}
        for r in rows:
            if not (type(r) is list and len(r) == 2 and type(r[0]) is int and 0 <= r[0] < n and r[0] not in got
                    and item(r[1])):
                raise StoreError(f"contributions: {what}")
            got[r[0]] = r[1]
        extra[what] = got
    warn, fail = extra["warnings"], extra["failures"]
    out = []
    for i in range(n):
        w = warn.get(i)
        out.append(FileContribution(
            tuple(zip(map(kinds.__getitem__, c_at[c_off[i]:c_off[i + 1]]), c_n[c_off[i]:c_off[i + 1]])),
            tuple(zip(map(labels.__getitem__, r_at[r_off[i]:r_off[i + 1]]), r_n[r_off[i]:r_off[i + 1]])),
            tuple(zip(map(labels.__getitem__, e_at[e_off[i]:e_off[i + 1]]), e_text[e_off[i]:e_off[i + 1]])),
            tuple(zip(map(stypes.__getitem__, s_at[s_off[i]:s_off[i + 1]]), s_n[s_off[i]:s_off[i + 1]])),
            tuple(tuple(x) for x in w) if w else (), tuple(map(names.__getitem__, a_at[a_off[i]:a_off[i + 1]])),
            made[_MADE * i:_MADE * i + _MADE], fail.get(i)))
    if columns is not None:
        columns.extend(v[22:])
    return pkey, out


def instantiated_of(cols) -> dict:
    """The instantiated types (``{type: InstantiatedType}``, as
    ``ProjectGraph.instantiated``) of a contributions blob's last five
    columns (:func:`decode_contributions`); ``StoreError`` unless they are
    what :func:`encode_contributions` writes."""
    from ._rta import Instantiation, InstantiatedType

    types, hows, how_bits, sets, set_bits = cols
    how_bits, set_bits = _u32_of(how_bits, "contributions").tolist(), _u32_of(set_bits, "contributions").tolist()
    values = {r.value: r for r in Instantiation}
    if not (all(type(t) is str for t in types) and all(h in values for h in hows)
            and all(type(x) is str for x in sets) and len(how_bits) == len(set_bits) == len(types)
            and len(set(types)) == len(types) and len(hows) <= 32 and len(sets) <= 32):
        raise StoreError("contributions: instantiated types")
    if types and (max(how_bits) >> len(hows) or max(set_bits) >> len(sets)):
        raise StoreError("contributions: instantiated types")
    hows = [values[h] for h in hows]
    return {t: InstantiatedType(t, frozenset(h for k, h in enumerate(hows) if hb >> k & 1),
                                frozenset(x for k, x in enumerate(sets) if sb >> k & 1))
            for t, hb, sb in zip(types, how_bits, set_bits)}


def _encode_summary(s) -> bytes:
    return msgpack.packb({f.name: getattr(s, f.name) for f in fields(s)}, use_bin_type=True)


def _count(x) -> bool:
    return type(x) is int and x >= 0


def _pairs(first, second):
    """A check: a tuple of 2-tuples whose items pass ``first`` and ``second``."""
    return lambda v: type(v) is tuple and all(type(r) is tuple and len(r) == 2 and first(r[0]) and second(r[1])
                                             for r in v)


def _mapping(value):
    """A check: a dict of str keys whose values pass ``value``."""
    return lambda v: type(v) is dict and all(type(k) is str and value(x) for k, x in v.items())


def _is_str(x) -> bool:
    return type(x) is str


def _number(x) -> bool:
    return type(x) in (int, float)


# each BuildSummary field's check (a stored summary is a stranger's data: the CLI formats every
# field and decides the exit code from classpath_warnings, skipped, parse_errors)
_SUMMARY_CHECKS = {
    "files": _count, "lines": _count, "methods": _count, "call_sites": _count, "unresolved": _count,
    "cha_edges": _count, "rta_edges": _count, "instantiated_types": _count,
    "resolved": _mapping(_count), "site_types": _mapping(_count), "examples": _mapping(_is_str),
    "phases": _mapping(_number), "cache": _mapping(lambda x: _count(x) or type(x) is str),
    "top_reasons": _pairs(_is_str, _count),
    "parse_errors": _pairs(_is_str, _pairs(_count, _count)),
    "decoded_with_fallback": _pairs(_is_str, _is_str), "skipped": _pairs(_is_str, _is_str),
    "classpath_warnings": _pairs(_is_str, _is_str), "notes": _pairs(_is_str, _is_str),
    "seconds": _number,
}


def _decode_summary(blob):
    """The stored :class:`~callgraph._graph.BuildSummary`, every field's type
    and shape checked (``StoreError`` naming the first bad field)."""
    from ._graph import BuildSummary

    try:
        v = msgpack.unpackb(blob, raw=False, use_list=False, strict_map_key=False)
    except Exception:
        raise StoreError("summary") from None
    names = {f.name for f in fields(BuildSummary)}
    if not isinstance(v, dict) or set(v) != names:
        raise StoreError("summary")
    for name in sorted(names):
        check = _SUMMARY_CHECKS.get(name)
        if check is None or not check(v[name]):
            raise StoreError(f"summary: {name}")
    return BuildSummary(**v)


# ------------------------------------------------------------------ the view

class _EdgeView:
    __slots__ = ("_adj",)

    def __init__(self, adj):
        self._adj = adj

    def __getitem__(self, uv):
        u, v = uv
        return self._adj[u][v]


class GraphView:
    """The loaded part of a stored graph, read-only, with the access
    ``ProjectGraph.reach`` uses on a ``networkx.DiGraph``: ``adj[u]`` (target
    → edge attributes), ``nodes[n]`` (node attributes), ``edges[u, v]``.
    ``adj`` holds the nodes whose out-edges were loaded."""

    __slots__ = ("adj", "nodes", "edges")

    def __init__(self, adj: dict, nodes: dict):
        self.adj = adj
        self.nodes = nodes
        self.edges = _EdgeView(adj)

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        return sum(map(len, self.adj.values()))


class _MethodTable(dict):
    """``ProjectGraph._infos`` of a stored graph: every method id is a key
    (``in``, iteration, ``len``: ``find_methods``/``suggest_methods`` iterate
    them); a ``MethodInfo`` is read from the store on first use. The loaded
    ones are the dict's own items, so a lookup of a loaded method (``reach``
    makes one per method it meets) is dict's own, not a Python call. The ids
    are the stored sorted list (``in`` bisects it: no dict of 100,000 ids is
    built for a query that meets a few)."""

    __slots__ = ("_load", "_ids")

    def __init__(self, ids, load):
        super().__init__()
        self._ids = ids  # sorted (checked by _decode_names)
        self._load = load

    def __missing__(self, mid):
        if mid not in self:
            raise KeyError(mid)
        mi = self._load(mid)
        dict.__setitem__(self, mid, mi)
        return mi

    def __contains__(self, mid):
        ids = self._ids
        i = bisect_left(ids, mid) if type(mid) is str else len(ids)
        return i < len(ids) and ids[i] == mid

    def __iter__(self):
        return iter(self._ids)

    def __len__(self):
        return len(self._ids)

    def keys(self):
        return list(self._ids)

    def get(self, mid, default=None):
        return self[mid] if mid in self else default

    def values(self):
        return [self[m] for m in self._ids]

    def items(self):
        return [(m, self[m]) for m in self._ids]


# ------------------------------------------------------------------ a whole graph encoded

@dataclass(frozen=True, slots=True)
class EncodedGraph:
    """A graph as the store keeps it: the ``graphs`` row's blobs (all but
    the inputs, which :meth:`GraphStore.save` adds) and its method rows.

    ``rows``: ``{digest: [info blob, how many methods have it]}``, every row
    of the graph (:func:`encode_graph`). A graph patched from the stored one
    (``callgraph._patch``) has ``base_crc``, the CRC of the ``graphs`` row
    it was made from, and only its changes: ``grow`` ``(digest, info, n)``,
    ``less`` ``(n, digest)``. ``row_bytes``: the size of all its method rows
    (the size bound counts them)."""

    names: bytes
    apis: bytes
    rtas: bytes
    summary: bytes
    refs: bytes
    adj: bytes
    contrib: bytes
    row_bytes: int
    rows: dict | None = None
    base_crc: int | None = None
    grow: tuple = ()
    less: tuple = ()


def method_rows(method_infos) -> tuple[dict, bytearray, int]:
    """``(rows, refs, size)`` of ``method_infos`` (``MethodInfo``s in method
    order): ``rows`` digest → ``[encoded row, how many of the methods have
    it]``, ``refs`` each method's row digest in order, ``size`` the bytes of
    all the encoded rows (duplicates counted)."""
    rows: dict = {}
    refs = bytearray()
    size = 0
    for mi in method_infos:
        info = _encode_info(mi)
        h = _row_key(info)
        refs += h
        r = rows.get(h)
        if r is None:
            rows[h] = [info, 1]
        else:
            r[1] += 1
        size += len(info)
    return rows, refs, size


def encode_graph(pg) -> EncodedGraph:
    """``pg`` (a built ``ProjectGraph``) encoded for the store; raises
    ``OverflowError``/``ValueError`` for what the format cannot hold."""
    g = pg.graph
    infos = pg._infos
    methods = sorted(infos)
    known = set(methods)
    apis = sorted(n for n in g.nodes if n not in known)
    names = methods + apis
    index = dict(zip(names, range(len(names))))
    # networkx's own dicts when there are (its adjacency views cost a Python call per item)
    succ = getattr(g, "_succ", None)
    if not isinstance(succ, dict):
        succ = g.adj
    rtas: dict = {}
    rows, refs, size = method_rows(infos[mid] for mid in methods)
    adjacency = encode_adjacency(methods, infos, succ, index, rtas)  # before the witness table is packed
    contrib = getattr(pg, "contributions", None)
    return EncodedGraph(_encode_names(names, len(methods)), _encode_apis(g, apis),
                        msgpack.packb([list(w) for w in rtas], use_bin_type=True), _encode_summary(pg.summary),
                        bytes(refs), adjacency,
                        b"" if contrib is None else encode_contributions(contrib, index,
                                                                         getattr(pg, "project_key", None),
                                                                         pg.instantiated),
                        size, rows=rows)


# ------------------------------------------------------------------ the store

_GRAPHS_COLUMNS = (("gid", "INTEGER PRIMARY KEY AUTOINCREMENT"), ("slot", "TEXT UNIQUE NOT NULL"),
                   ("inputs", "BLOB"), ("names", "BLOB"), ("apis", "BLOB"), ("rtas", "BLOB"), ("summary", "BLOB"),
                   ("refs", "BLOB"), ("adj", "BLOB"), ("contrib", "BLOB"), ("crc", "INTEGER"), ("bytes", "INTEGER"),
                   ("used", "REAL"))
_ROWS_COLUMNS = (("h", "BLOB PRIMARY KEY"), ("info", "BLOB"), ("refs", "INTEGER"))
_USES_COLUMNS = (("gid", "INTEGER PRIMARY KEY"), ("used", "REAL"))
# a graph's last use: the later of its row's ``used`` (when it was stored) and its ``uses`` row (touch)
_USED = "SELECT g.gid, g.slot, g.bytes, g.used, u.used FROM graphs g LEFT JOIN uses u ON u.gid = g.gid"
_KEY_BYTES = 16


def _row_key(info: bytes) -> bytes:
    """A method row's key: BLAKE2b-128 of its bytes."""
    return blake2b(info, digest_size=_KEY_BYTES).digest()


def _ref_counts(refs) -> dict | None:
    """``{digest: how many methods name it}`` of a graph's ``refs`` blob (None when it is not one)."""
    if type(refs) is not bytes or len(refs) % _KEY_BYTES:
        return None
    counts: dict = {}
    get = counts.get
    for i in range(0, len(refs), _KEY_BYTES):
        h = refs[i:i + _KEY_BYTES]
        counts[h] = get(h, 0) + 1
    return counts


class GraphStore(PrivateSQLite):
    """Stored call graphs in one SQLite file (module docstring); raises
    :class:`CacheRefused` for a file qare will not use. ``stats``:
    ``rebuilt`` (the file was corrupt, foreign or older), ``evicted``
    (graphs deleted by the size bound), ``dropped`` (graphs deleted because
    their ``graphs`` row was not valid).

    Opening follows the warm cache's rules (callgraph._sqlitefile, shared
    with callgraph._cache; answering from the store imports neither the
    parser nor the codec): a private folder, no link or special file at the path or its
    ``-wal``/``-shm``/``-journal`` companions (checked, then opened with
    ``O_NOFOLLOW`` and the inode compared), a file that is not this store
    replaced only when ``replace_foreign`` (qare's own path)."""

    def __init__(self, path, *, replace_foreign: bool = False, trusted_root=None):
        super().__init__(path, replace_foreign=replace_foreign, trusted_root=trusted_root)
        self.stats = {"rebuilt": 0, "evicted": 0, "dropped": 0}
        # slots whose stored graph failed to decode in this process: save() replaces them even
        # when holds() finds the same inputs (a bad row must not outlive the rebuild it caused)
        self.unreadable: set[str] = set()
        #: why the last :meth:`save` stored nothing (None after one that stored)
        self.last_error: str | None = None
        self._open()

    KIND = "qare graph store"
    NOUN = "graph store"
    MAGIC = _MAGIC
    FORMAT = FORMAT
    NOT_REPLACED = "not replaced: delete it or name another --cache file"
    NOT_REPLACED_UNREADABLE = "not replaced"

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    COLUMNS = {"graphs": [c[0] for c in _GRAPHS_COLUMNS], "rows": [c[0] for c in _ROWS_COLUMNS],
               "uses": [c[0] for c in _USES_COLUMNS]}
    AUTO_VACUUM = True

    def _make_tables(self, db) -> None:
        db.execute(f"CREATE TABLE graphs ({', '.join(' '.join(c) for c in _GRAPHS_COLUMNS)})")
        # one row per distinct method row (its MethodInfo fields and its out-edges, module notes
        # "rows"), keyed by its content digest and shared by every graph that holds it
        db.execute(f"CREATE TABLE rows ({', '.join(' '.join(c) for c in _ROWS_COLUMNS)}) WITHOUT ROWID")
        # when a stored graph was last used, beside its row (format 5): setting a column of the graph row
        # made SQLite read and compare every page of it (33 MB on spring-framework, 0.2 s a warm answer)
        db.execute(f"CREATE TABLE uses ({', '.join(' '.join(c) for c in _USES_COLUMNS)})")

    # ------------------------------------------------------------- write
    def holds(self, inputs: Inputs) -> bool:
        """Is the slot's stored graph one built from these very inputs (all but
        the time of the fingerprint equal)? Then storing it again is skipped."""
        try:
            row = self.db.execute("SELECT gid, inputs FROM graphs WHERE slot = ?", (inputs.slot(),)).fetchone()
            if row is None:
                return False
            old = Inputs.from_blob(row[1])
        except (sqlite3.DatabaseError, StoreError):
            return False
        same = all(getattr(old, f.name) == getattr(inputs, f.name) for f in fields(Inputs) if f.name != "taken_ns")
        if same:
            self.touch(row[0])
        return same

    def save(self, inputs: Inputs, pg, encoded: "EncodedGraph | None" = None) -> bool:
        """Store ``pg`` (a built ``ProjectGraph``, or one patched from this
        store: ``callgraph._patch``) as the graph of ``inputs.slot()``,
        replacing the slot's previous graph, then apply the size bound;
        nothing is written when the slot already holds a graph of the same
        inputs (:meth:`holds`) that decoded (a slot in :attr:`unreadable` is
        always rewritten). False when it could not be written (costs the next
        run its speed, never this one). ``encoded``: ``encode_graph(pg)``
        when the caller made it already (``qare graph`` hands it to the
        ``--out`` writer too).

        Every row is encoded before the write transaction starts (a patched
        graph brings its own encoding: only its changed rows), then inserted
        with one ``executemany`` (module notes on the format)."""
        self.last_error = None
        own = getattr(pg, "encoded_for_store", None)
        # a patched graph's inputs differ from the stored graph's (an edited file): nothing to compare
        if own is None and inputs.slot() not in self.unreadable and self.holds(inputs):
            return True
        try:
            enc = encoded if encoded is not None else own() if own is not None else encode_graph(pg)
            blobs = (inputs.to_blob(), enc.names, enc.apis, enc.rtas, enc.summary, enc.refs, enc.adj, enc.contrib)
        except (OverflowError, KeyError, TypeError, ValueError):
            self.last_error = "a graph this format cannot hold (an index or line beyond 32 bits)"
            return False
        crc = 0
        size = enc.row_bytes
        for b in blobs:
            crc = zlib.crc32(b, crc)
            size += len(b)
        slot = inputs.slot()
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            old = db.execute("SELECT gid, refs, crc FROM graphs WHERE slot = ?", (slot,)).fetchone()
            if enc.base_crc is not None:
                # a patch of the graph this slot held when it was read: still that graph, else not stored
                if old is None or old[2] != enc.base_crc or slot in self.unreadable:
                    db.execute("ROLLBACK")
                    self.last_error = "the stored graph changed while this one was patched from it"
                    return False
                db.execute("DELETE FROM graphs WHERE gid = ?", (old[0],))
                self._write_delta(enc.grow, enc.less)
                lost = False
            else:
                old_counts = None
                if old is not None:
                    old_counts = _ref_counts(old[1])
                    db.execute("DELETE FROM graphs WHERE gid = ?", (old[0],))
                # a slot that failed to decode: its rows are written again even where unchanged (a
                # damaged row keeps its key, so an upsert of the same key must replace its bytes), and every
                # count recounted (a missing row, written anew, would otherwise lose the old graph's count
                # and be deleted: the tester, session 8)
                lost = (old is not None and old_counts is None) or slot in self.unreadable
                self._write_rows(enc.rows, old_counts or {}, lost)
            self.unreadable.discard(slot)
            cur = db.execute("INSERT INTO graphs (slot, inputs, names, apis, rtas, summary, refs, adj, contrib, crc, "
                             "bytes, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (slot, *blobs, crc, size, time.time()))
            if lost:  # the old graph's references unknown: every count recounted from the graphs' own lists
                self._sweep()
            self._evict(keep=cur.lastrowid)
            db.execute("DELETE FROM uses WHERE gid NOT IN (SELECT gid FROM graphs)")  # the uses of graphs gone
            db.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self.last_error = f"{type(e).__name__}: {e}"
            return False
        try:
            db.execute("PRAGMA incremental_vacuum")
        except sqlite3.DatabaseError:
            pass
        self.last_error = None
        return True

    def _write_delta(self, grow: list, less: list) -> None:
        """A patched graph's rows: ``grow`` ``(digest, info, n)`` gain ``n``
        references (inserted when new), ``less`` ``(n, digest)`` lose them."""
        grow = sorted(grow)
        self.db.executemany("INSERT INTO rows (h, info, refs) VALUES (?, ?, ?) ON CONFLICT (h) DO UPDATE "
                            "SET refs = refs + excluded.refs", grow)
        self._release(less)

    def _write_rows(self, rows: dict, old_counts: dict, rewrite: bool) -> None:
        """Make the rows table hold ``rows`` (digest → [info, count]) for a
        graph replacing one that held ``old_counts`` (digest → count): only
        rows new to the slot are written, each row's ``refs`` (how many
        stored methods name it) moves by the difference, and a row no method
        names any more is deleted; with ``rewrite`` every row is written and
        no count is taken off (the caller then recounts: :meth:`_sweep`)."""
        get = old_counts.get
        if rewrite:  # the caller recounts every row (_sweep): a row's count here would be a guess
            grow = [(h, info, n) for h, (info, n) in rows.items()]
            less = []
        else:
            grow = [(h, info, n - get(h, 0)) for h, (info, n) in rows.items() if n > get(h, 0)]
            less = [(get(h) - n, h) for h, (_i, n) in rows.items() if n < get(h, 0)]
            less += [(n, h) for h, n in old_counts.items() if h not in rows]
        grow.sort()  # in key order: B-tree appends, not inserts at random pages (keys are digests)
        self.db.executemany("INSERT INTO rows (h, info, refs) VALUES (?, ?, ?) ON CONFLICT (h) DO UPDATE "
                            "SET info = excluded.info, refs = refs + excluded.refs", grow)
        self._release(less)

    def _release(self, counts) -> None:
        """Take ``(count, digest)`` references off their rows; delete the rows left unnamed."""
        if counts:
            self.db.executemany("UPDATE rows SET refs = refs - ? WHERE h = ?", counts)
            self.db.executemany("DELETE FROM rows WHERE h = ? AND refs <= 0", [(h,) for _c, h in counts])

    def _sweep(self) -> None:
        """Recount every row's references from the graphs' own lists (rows no
        graph names are deleted; a graph whose list does not decode is dropped)."""
        db = self.db
        counts: dict = {}
        for gid, refs in db.execute("SELECT gid, refs FROM graphs").fetchall():
            c = _ref_counts(refs)
            if c is None:
                db.execute("DELETE FROM graphs WHERE gid = ?", (gid,))
                self.stats["dropped"] += 1
                continue
            for h, n in c.items():
                counts[h] = counts.get(h, 0) + n
        have = [r[0] for r in db.execute("SELECT h FROM rows")]
        db.executemany("DELETE FROM rows WHERE h = ?", [(h,) for h in have if h not in counts])
        db.executemany("UPDATE rows SET refs = ? WHERE h = ?", [(n, h) for h, n in counts.items()])

    def _delete(self, gid: int) -> None:
        """Delete a graph and release its rows (inside the caller's write transaction)."""
        row = self.db.execute("SELECT refs FROM graphs WHERE gid = ?", (gid,)).fetchone()
        if row is None:
            return  # already gone (a sweep dropped it)
        self.db.execute("DELETE FROM graphs WHERE gid = ?", (gid,))
        self.db.execute("DELETE FROM uses WHERE gid = ?", (gid,))
        counts = _ref_counts(row[0])
        if counts is None:
            self._sweep()
        else:
            self._release([(c, h) for h, c in counts.items()])

    def prune(self, limit: int | None = None) -> int:
        """Apply the size bound now (``limit`` bytes instead of
        :func:`max_bytes`; 0 deletes every graph); returns how many graphs
        were deleted."""
        before = self.stats["evicted"]
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            self._evict(keep=None, cap=limit)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("PRAGMA incremental_vacuum")
        return self.stats["evicted"] - before

    def _evict(self, keep: int | None, cap: int | None = None) -> None:
        """Delete the least recently used graphs beyond ``cap`` bytes (default
        :func:`max_bytes`) or :data:`MAX_GRAPHS`, and every graph whose row has
        no valid ``bytes``/``used`` (a negative or non-integer size would
        otherwise switch the bound off; such a row is not this version's)."""
        cap = max_bytes() if cap is None else cap
        rows = self.db.execute(_USED).fetchall()
        good = []
        for gid, _slot, size, used, touched in rows:
            if _row_problem(size, used) is None:
                good.append((_last_use(used, touched), gid, size))
            elif gid != keep:
                self._delete(gid)
                self.stats["dropped"] += 1
        good.sort(reverse=True)  # most recently used first (ties: the newer graph)
        total, count = 0, 0
        for _used, gid, size in good:
            total += size
            count += 1
            if gid != keep and (total > cap or count > MAX_GRAPHS):
                self._delete(gid)
                total -= size
                count -= 1
                self.stats["evicted"] += 1

    def graphs(self) -> list[dict]:
        """One dict per stored graph, most recent first: ``project``,
        ``loc_mode``, ``bytes`` (encoded size), ``used`` (Unix time of the last
        use), ``problem`` (None, or why the row is not valid: then ``bytes``
        is 0 and ``used`` 0.0, and the next write deletes the row)."""
        out = []
        for _gid, slot, size, used, touched in self.db.execute(_USED):
            problem = _row_problem(size, used)
            used = _last_use(used, touched) if problem is None else used
            if type(slot) is not str:
                problem, slot = "the slot is not text", str(slot)
            root, _, rest = slot.partition("\0")
            ok = problem is None
            out.append({"project": root, "loc_mode": rest.partition("\0")[0], "bytes": size if ok else 0,
                        "used": float(used) if ok else 0.0, "problem": problem})
        out.sort(key=lambda g: g["used"], reverse=True)
        return out

    def stored_inputs(self, root, loc_mode: str, max_file_bytes: int) -> Inputs | None:
        """The fingerprint the slot's stored graph was built from (for
        :func:`fingerprint`'s ``previous``), None when there is none or it
        does not decode (checked as :meth:`lookup` checks it)."""
        slot = slot_key(str(root), loc_mode, max_file_bytes)
        try:
            row = self.db.execute("SELECT inputs FROM graphs WHERE slot = ?", (slot,)).fetchone()
            if row is None or type(row[0]) is not bytes:
                return None
            stored = Inputs.from_blob(row[0])
            return stored if stored.slot() == slot else None
        except (sqlite3.DatabaseError, StoreError, ValueError, TypeError):
            return None

    # ------------------------------------------------------------- read
    def lookup(self, root, files, skipped, classpath, jdk_home, loc_mode: str, max_file_bytes: int,
               previous: list | None = None, probe: dict | None = None):
        """``(StoredGraph or None, why not)``: the stored graph of this
        project, when built from exactly these inputs. The graph stays
        readable (one read transaction) until :meth:`StoredGraph.close`.
        With a list ``previous``, a stored graph whose inputs changed is
        appended to it, read all the same (what :meth:`previous` answers:
        a build after body edits patches it, and the row is read once).
        With a dict ``probe``, what the check took for :func:`fingerprint`
        (``_unchanged``)."""
        with gc_paused():  # the inputs' 9,000 file rows, the string table's 100,000 ids
            return self._lookup(root, files, skipped, classpath, jdk_home, loc_mode, max_file_bytes, previous,
                                probe)

    def _lookup(self, root, files, skipped, classpath, jdk_home, loc_mode: str, max_file_bytes: int,
                previous: list | None = None, probe: dict | None = None):
        why: list = []

        def check(stored):
            w = _unchanged(stored, root, files, skipped, classpath, jdk_home, probe)
            if w is not None and previous is not None:
                why.append(w)
                return None  # read on, for the caller's patch
            return w

        sg, w = self._read(slot_key(str(root), loc_mode, max_file_bytes), check)
        if sg is not None and why:
            sg.touch_on_close = False
            previous.append(sg)
            return None, why[0]
        return sg, w

    def previous(self, root, loc_mode: str, max_file_bytes: int):
        """The slot's stored graph whatever its inputs (``StoredGraph`` or
        None when there is none or it does not decode): what a build after
        body edits patches (``callgraph._patch``). Readable until
        :meth:`StoredGraph.close`; not marked used."""
        with gc_paused():
            sg, _why = self._read(slot_key(str(root), loc_mode, max_file_bytes), None)
        if sg is not None:
            # its use is the save that replaces it: marking it used would rewrite nothing but read
            # (and compare) every page of its row, 0.2 s on spring-framework's
            sg.touch_on_close = False
        return sg

    def _read(self, slot: str, check):
        """``(StoredGraph or None, why not)`` for ``slot``: the graph row read
        in a read transaction, its CRC-32 and slot checked, ``check(inputs)``
        (None: no check) saying why its inputs do not hold, the tables decoded."""
        db = self.db
        try:
            db.execute("BEGIN")
            row = db.execute("SELECT gid, inputs, names, apis, rtas, summary, refs, adj, contrib, crc, bytes "
                             "FROM graphs WHERE slot = ?", (slot,)).fetchone()
            if row is None:
                db.execute("COMMIT")
                return None, "no stored graph"
            crc = 0
            for b in row[1:9]:
                if type(b) is not bytes:
                    raise StoreError("graph row")
                crc = zlib.crc32(b, crc)
            if crc != row[9]:
                raise StoreError("graph row: checksum")
            stored = Inputs.from_blob(row[1])
            # the slot column is outside the checksum: a row moved under another
            # slot (the same project's other LOC mode) is not this slot's graph
            if stored.slot() != slot:
                raise StoreError("graph row: stored under another slot")
            why = check(stored) if check is not None else None
            if why is not None:
                db.execute("COMMIT")
                return None, why
            ids, names = _decode_names(row[2])
            apis = _ApiColumns(row[3], len(names) - len(ids))
            rtas = _decode_rtas(row[4])
            summary = _decode_summary(row[5])
            if len(row[6]) != _KEY_BYTES * len(ids):
                raise StoreError("row references")
        except (sqlite3.DatabaseError, StoreError, ValueError, TypeError) as e:
            try:
                db.execute("COMMIT")
            except sqlite3.Error:
                pass
            self.unreadable.add(slot)
            return None, f"stored graph in {self.path} unreadable ({e})"
        sg = StoredGraph(self, row[0], ids, names, apis, rtas, summary, slot, row[6], stored.taken_ns, row[7])
        sg.inputs = stored  # what it was built from: the output cache's key (qare._outcache)
        # what a patch reuses as it is (callgraph._patch): the tables' bytes, the row's CRC, the size of
        # its method rows (the row's size less its blobs: what the size bound counts)
        sg.raw = {"names": row[2], "apis": row[3], "rtas": row[4], "contrib": row[8]}
        sg.crc = row[9]
        sg.row_bytes = row[10] - sum(map(len, row[1:9])) if type(row[10]) is int else None
        return sg, None

    def touch(self, gid: int) -> None:
        """Mark a graph used now (for the size bound); best effort."""
        # a short wait only: a warm answer must not queue behind another process storing a graph
        try:
            self.db.execute("PRAGMA busy_timeout = 200")
            self.db.execute("INSERT OR REPLACE INTO uses (gid, used) VALUES (?, ?)", (gid, time.time()))
        except sqlite3.DatabaseError:
            pass
        finally:
            try:
                self.db.execute("PRAGMA busy_timeout = 30000")
            except sqlite3.Error:
                pass


class StoredGraph:
    """A stored graph found unchanged by :meth:`GraphStore.lookup`."""

    def __init__(self, store: GraphStore, gid: int, ids: list, names: list, apis: _ApiColumns, rtas: list,
                 summary, slot: str, refs: bytes = b"", built_ns: int = 0, adjacency: bytes = b""):
        self.store = store
        self._adjacency_blob = adjacency  # decoded (and checked) by the first query: :meth:`adjacency`
        self._adjacency = None
        self.refs = refs  # the row key of method i at refs[16 i : 16 i + 16]
        #: when the stored graph's inputs were fingerprinted (ns since the epoch): just before its build read them
        self.built_ns = built_ns
        self.gid = gid
        self.slot = slot
        self.summary = summary
        self.names = names
        self.n_methods = len(ids)
        self.apis = apis
        self.rtas = rtas
        self.infos = _MethodTable(ids, self._load_info)
        self.inputs = None  # the stored Inputs (set by lookup)
        self._open = True
        self.raw: dict = {}  # the graph row's blobs a patch keeps as they are (set by GraphStore._read)
        self.crc: int | None = None
        self.row_bytes: int | None = None
        self.touch_on_close = True  # marked used (for the size bound) when closed

    def _rows(self, idxs):
        """``{index: info blob}`` of the given method indices, each row's key (its content digest) checked."""
        db = self.store.db
        out = {}
        refs = self.refs
        k = _KEY_BYTES
        for chunk in _chunks(idxs):
            at: dict = {}
            for i in chunk:
                at.setdefault(refs[k * i:k * i + k], []).append(i)
            q = f"SELECT h, info FROM rows WHERE h IN ({','.join('?' * len(at))})"
            for h, info in db.execute(q, tuple(at)):
                if type(info) is not bytes or _row_key(info) != h:
                    raise StoreError("method row: checksum")
                for i in at.get(h, ()):
                    out[i] = info
        return out

    def _load_info(self, mid: str):
        try:
            i = bisect_left(self.names, mid, 0, self.n_methods)
            if i == self.n_methods or self.names[i] != mid:
                raise StoreError(f"no method row for {mid}")
            row = self._rows([i]).get(i)
            if row is None:
                raise StoreError(f"no method row for {mid}")
            return _decode_info(row, mid)
        except StoreError as e:
            self.store.unreadable.add(self.slot)
            raise StoreError(f"stored graph in {self.store.path} unreadable ({e})") from None

    def project_graph(self, root, dispatch=None, resolution=None):
        """A ``ProjectGraph`` with every method id and no edges loaded yet
        (``find_methods``, ``resolve_method``, ``suggest_methods``, ``method``
        work; ``reachable`` loads what ``reach`` needs)."""
        from ._graph import DEFAULT_DISPATCH, ProjectGraph

        return ProjectGraph(GraphView({}, {}), self.summary, self.infos, str(root),
                            dispatch=dispatch or DEFAULT_DISPATCH, resolution=resolution)

    def reachable(self, pg, mid: str, *, dispatch: str, include_unresolved: bool = False,
                  max_depth: int | None = None) -> None:
        """Load into ``pg.graph`` every node reachable from ``mid`` along the
        edges ``pg.reach(mid, dispatch=…, include_unresolved=…, max_depth=…)``
        can follow (their resolution kinds), with the out-edges of each
        method ``reach`` may expand: a superset of what it visits, so its
        answer is the one on the whole graph. Raises ``StoreError`` on a bad
        row, naming the store file (and marks the slot :attr:`GraphStore.unreadable`)."""
        try:
            with gc_paused():
                self._reachable(pg, mid, dispatch, include_unresolved, max_depth)
        except StoreError as e:
            self.store.unreadable.add(self.slot)
            raise StoreError(f"stored graph in {self.store.path} unreadable ({e})") from None

    def reach(self, pg, mid: str, *, max_depth: int | None = None, dispatch: str | None = None,
              include_unresolved: bool = False, source_sets="auto") -> list:
        """``pg.reach(mid, …)`` computed on the adjacency blob itself (no
        ``networkx``-shaped view is built): the same list of
        :class:`~callgraph._graph.Target` (same BFS by level, same ties — a
        method's index orders as its id, the string table's methods being
        sorted), for ``pg`` from :meth:`project_graph`. Raises what
        ``ProjectGraph.reach`` raises for bad arguments, and ``StoreError``
        (naming the store file; the slot marked unreadable) on a bad row."""
        from ._graph import _FOLLOW

        if dispatch is None:
            dispatch = pg.dispatch
        if dispatch not in _FOLLOW:
            pg.reach(mid, dispatch=dispatch)  # its ValueError
        if max_depth is not None and max_depth < 2:
            raise ValueError("max_depth counts both ends of a chain: it must be ≥ 2")
        if mid not in pg._infos:
            mid = pg.resolve_method(mid)
        allowed = pg._allowed_source_sets(mid, source_sets)  # reads the query's row (its own StoreError)
        try:
            with gc_paused():
                return self._reach(pg, mid, max_depth, dispatch, include_unresolved, allowed)
        except StoreError as e:
            self.store.unreadable.add(self.slot)
            raise StoreError(f"stored graph in {self.store.path} unreadable ({e})") from None

    def _reach(self, pg, mid, max_depth, dispatch, include_unresolved, allowed) -> list:
        from records.ids import split_id

        from ._graph import _FOLLOW, _STRENGTH, Target

        follow = {_KIND_AT[r.value] for r in _FOLLOW[dispatch]} | ({_KIND_AT["name"]} if include_unresolved else set())
        cha = _KIND_AT["cha"] if dispatch == "rta" else -1  # the kind whose edges need a witness
        rank = [_STRENGTH[r] for r in map(_resolution, _KINDS)]
        names, n, apis = self.names, self.n_methods, self.apis
        a = self.adjacency()
        offsets, targets, kinds, witnesses, loc, set_at = a.offsets, a.targets, a.kinds, a.rta, a.loc, a.set_at
        # per witness index: may a cha edge with it be followed under rta (0: no witness, never)
        witnessed = [False] + [bool(w) and (allowed is None or any(x in allowed for x in w)) for w in self.rtas]
        sets_ok = None if allowed is None else {k for k, name in enumerate(a.sets) if name in allowed}
        tp = apis.tp
        i0 = bisect_left(names, mid, 0, n)
        best = {i0: (pg._infos[mid].loc, (i0,))}  # as reach: the query's LOC from its MethodInfo
        frontier = [i0]
        found: dict = {}
        depth = 1
        while frontier and (max_depth is None or depth < max_depth):
            depth += 1
            nxt: dict = {}
            for u in frontier:
                uloc, uchain = best[u]
                s, e = offsets[u], offsets[u + 1]
                for t, k, r in zip(targets[s:e], kinds[s:e], witnesses[s:e]):
                    if k not in follow or (k == cha and not witnessed[r]):
                        continue
                    if t >= n:  # an API node
                        if tp[t - n] != 1:
                            continue
                        old = found.get(t)
                        if old is not None and old[0] < depth:
                            continue
                        cand = (uloc, uchain + (t,))
                        if old is None or (old[0] == depth and cand < old[1]):
                            found[t] = (depth, cand)
                        continue
                    if t in best or (sets_ok is not None and set_at[t] not in sets_ok):
                        continue
                    cand = (uloc + loc[t], uchain + (t,))
                    old = nxt.get(t)
                    if old is None or cand < old:
                        nxt[t] = cand
            best.update(nxt)
            frontier = sorted(nxt)
        out = []
        files, file_at = a.files, a.file_at
        starts, lines = a.sites() if found else ((), ())
        for t, (d, (chain_loc, chain)) in found.items():
            v = names[t]
            cls, api, params = split_id(v)
            weakest = _KIND_AT["exact"]
            sites = []
            for x, y in zip(chain, chain[1:]):
                s, e = offsets[x], offsets[x + 1]
                j = next(j for j in range(s, e) if targets[j] == y and kinds[j] in follow)
                if rank[kinds[j]] > rank[weakest]:
                    weakest = kinds[j]
                sites.append((files[file_at[x]], lines[starts[j]]))
            out.append(Target(api, None if params is None else v, cls, apis.libs[apis.lib[t - n]], d,
                              tuple(names[i] for i in chain), chain_loc, (1.0 / chain_loc) if chain_loc else 0.0,
                              _KINDS[weakest], tuple(sites)))
        out.sort(key=lambda t: (t.depth, t.api, t.signature or ""))
        return out

    def adjacency(self) -> _Adjacency:
        """The graph's decoded adjacency blob (decoded and checked once; ``StoreError`` when it is bad)."""
        if self._adjacency is None:
            self._adjacency = _Adjacency(self._adjacency_blob, self.n_methods, len(self.names), len(self.rtas))
            self._adjacency_blob = b""
        return self._adjacency

    def _reachable(self, pg, mid, dispatch, include_unresolved, max_depth) -> None:
        follow = {_KIND_AT["exact"], _KIND_AT["arity"]} | ({_KIND_AT["cha"]} if dispatch in ("cha", "rta") else set()) \
            | ({_KIND_AT["name"]} if include_unresolved else set())
        names, n_methods, rtas, apis = self.names, self.n_methods, self.rtas, self.apis
        i0 = bisect_left(names, mid, 0, n_methods)
        if i0 == n_methods or names[i0] != mid:
            raise StoreError(f"no method row for {mid}")
        # the query method's own row now (reach and the caller read its MethodInfo): a bad row is a
        # StoreError here, where the caller rebuilds, not later inside reach
        row = self._rows([i0]).get(i0)
        if row is None:
            raise StoreError(f"no method row for {mid}")
        dict.__setitem__(self.infos, mid, _decode_info(row, mid))
        a = self.adjacency()
        offsets, targets, kinds, witnesses = a.offsets, a.targets, a.kinds, a.rta
        starts, lines = a.sites()
        method_attrs, kind_names = a.attrs, _KINDS
        adj: dict = {}
        nodes = {mid: method_attrs(i0)}
        seen = {i0}  # indices of the nodes reached
        frontier = [i0]
        level = 0
        # level by level as reach expands: the out-edges of every method reached within the depth
        # reach can expand, of the kinds it can follow (it skips the others first thing)
        while frontier and (max_depth is None or level <= max_depth - 2):
            nxt = []
            for i in frontier:
                out = {}
                s, e = offsets[i], offsets[i + 1]
                for t, k, r, l0, l1 in zip(targets[s:e], kinds[s:e], witnesses[s:e], starts[s:e], starts[s + 1:e + 1]):
                    if k not in follow:
                        continue
                    v = names[t]
                    if r:
                        out[v] = {"lines": lines[l0:l1], "resolution": kind_names[k], "rta": rtas[r - 1]}
                    else:
                        out[v] = {"lines": lines[l0:l1], "resolution": kind_names[k]}
                    if t not in seen:
                        seen.add(t)
                        if t < n_methods:
                            nodes[v] = method_attrs(t)
                            nxt.append(t)
                        else:
                            nodes[v] = apis.attrs(t - n_methods)
                adj[names[i]] = out
            frontier = nxt
            level += 1
        pg.graph = GraphView(adj, nodes)

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                self.store.db.execute("COMMIT")
            except sqlite3.Error:
                pass
            if self.touch_on_close:
                self.store.touch(self.gid)


def _last_use(used, touched) -> float:
    """A graph's last use: its row's time, or the later ``uses`` time when that one is a time at all."""
    if type(touched) in (int, float) and 0 <= touched < 1e11 and touched > used:
        return float(touched)
    return used


def _row_problem(size, used) -> str | None:
    """Why a ``graphs`` row's ``bytes``/``used`` are not what :meth:`GraphStore.save` writes (None: valid)."""
    if type(size) is not int or size < 0:
        return f"bytes is {size!r}, not a size"
    if type(used) not in (int, float) or not 0 <= used < 1e11:  # NaN fails too; localtime needs a real year
        return f"used is {used!r}, not a time"
    return None


def _chunks(xs):
    for i in range(0, len(xs), _BATCH):
        yield xs[i:i + _BATCH]


def max_bytes() -> int:
    """The size bound of the store: ``$QARE_GRAPH_STORE_MAX_BYTES`` (bytes,
    a plain integer), else :data:`DEFAULT_MAX_BYTES`."""
    env = os.environ.get("QARE_GRAPH_STORE_MAX_BYTES")
    try:
        return max(0, int(env)) if env else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def default_path(cache=None) -> Path | None:
    """Where the store lives: ``<qare cache folder>/graphs.sqlite`` (None when
    the cache folder is off), or ``FILE.graphs`` beside a ``--cache FILE``."""
    if cache not in (None, "auto"):
        p = Path(cache)
        return p.with_name(p.name + ".graphs")
    from .classpath import cache_dir

    d = cache_dir()
    return None if d is None else d / "graphs.sqlite"


def open_store(cache=None):
    """``(GraphStore or None, why it was refused or None)``: the store beside
    the warm cache ``cache`` (None/"auto": qare's own, where a foreign file is
    replaced; a named file's store is never replaced)."""
    path = default_path(cache)
    if path is None:
        return None, None
    try:
        if cache in (None, "auto"):
            from .classpath import cache_dir

            return GraphStore(path, replace_foreign=True, trusted_root=cache_dir()), None
        return GraphStore(path), None
    except CacheRefused as e:
        return None, f"{e.filename}: {e.strerror}"
    except (OSError, sqlite3.Error):
        return None, None
