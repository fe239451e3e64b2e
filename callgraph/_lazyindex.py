"""An index snapshot loaded a file at a time (docs/callgraph.md "Index
snapshot", "Loaded in shards").

A body edit resolves the edited file alone: it looks at a few hundred of
the index's types, yet unpickling the whole index (spring-framework: 2.8 M
objects in 63 MB) took ~1.1 s of a 3.7 s run. So a snapshot keeps the
index's per-file part — each file's facts (``FileFacts``, its
``TypeDecl``s) and the method tables of the types it declares
(``MethodCandidate``s) — as one pickle per *shard*, and the rest (names,
hierarchy, the kept memos: strings and tuples) as the *core*. A load
unpickles the core; ``files``, ``types``, ``methods`` and ``by_id`` are
stand-ins (:class:`LazyFiles`, :class:`LazyMap`) that unpickle a shard the
first time one of its entries is asked for.

Exactness: the eager index compares declarations by identity
(``idx.types.get(td.key) is td``), so every object lives in one shard
only. Files that share objects — a type declared in two modules, merged
into one table — are one shard; an index whose tables are not of that shape
(Lombok's generated types and members, ``@Delegate``, a ``by_id`` entry
that is in no method table, ``types`` and ``type_file`` in different
orders) is not split (:func:`split` gives None: the snapshot is one pickle
as before). A stand-in iterated, measured or copied loads every shard and
rebuilds its table in the eager index's insertion order, so a whole build
from it sees what it would have seen from the eager index.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

__all__ = ["split", "open_state", "LazyFiles", "LazyMap", "FactsOverlay", "file_totals"]

#: the tables a shard holds, taken out of the core
SHARDED = ("files", "types", "methods", "by_id")
#: tables that must be empty for a split (Lombok's and ``@Delegate``'s: they
#: tie one file's declarations to another's)
_MUST_BE_EMPTY = ("gen_edges", "_gen_methods", "gen_fields", "_delegates")
#: a method's place in the tables: ``method key index << _POS_BITS | position``
_POS_BITS = 20
_MISSING = object()


def _groups(state) -> list[int] | None:
    """Each file's shard number: files tied by a merged type in one shard
    (union-find over file indices); None when a merged type's key has no file."""
    n = len(state["files"])
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    tf = state["type_file"]
    for fi, td in state["merged"]:
        first = tf.get(td.key)
        if first is None:
            return None
        a, b = find(fi), find(first)
        if a != b:
            parent[max(a, b)] = min(a, b)
    numbers: dict = {}
    return [numbers.setdefault(find(fi), len(numbers)) for fi in range(n)]


def split(state: dict):
    """``(core, shards)``: ``state`` (``ProjectIndex.snapshot_state``) as a
    core dict and a list of shard objects to pickle one by one (shard ``g``:
    ``(file indices, their FileFacts, [(type key, method table), ...])``);
    None when the index is not of a shape that splits exactly (module
    docstring; or not an index's state at all). Reads ``state``, changes nothing."""
    if type(state) is not dict or not all(k in state for k in (*SHARDED, "type_file", "merged")) \
            or any(state.get(k) for k in _MUST_BE_EMPTY):
        return None
    files, types, methods, by_id = state["files"], state["types"], state["methods"], state["by_id"]
    tf = state["type_file"]
    if len(types) != len(tf) or list(types) != list(tf):
        return None
    # each type is the first declaration of its key in its file, or at a recorded position
    type_pos: dict = {}
    for key, td in types.items():
        fi = tf[key]
        tds = files[fi].types
        first = next((i for i, t in enumerate(tds) if t.key == key), None)
        if first is not None and tds[first] is td:
            continue
        at = next((i for i, t in enumerate(tds) if t is td), None)
        if at is None:
            return None  # a type of no file (Lombok's generated ones)
        type_pos[key] = at
    method_keys = list(methods)
    where: dict = {}
    for ki, key in enumerate(method_keys):
        if key not in tf:
            return None
        for pos, p in enumerate(methods[key]):
            where.setdefault(id(p), (ki << _POS_BITS) | pos)
    by_id_at: dict = {}
    for mid, p in by_id.items():
        ref = where.get(id(p))
        if ref is None:
            return None
        by_id_at[mid] = ref
    merged_refs = []
    for fi, td in state["merged"]:
        at = next((i for i, t in enumerate(files[fi].types) if t is td), None)
        if at is None:
            return None
        merged_refs.append((fi, at))
    group = _groups(state)
    if group is None:
        return None
    n_groups = max(group, default=-1) + 1
    shards = [([], [], []) for _ in range(n_groups)]
    for fi, ff in enumerate(files):
        shards[group[fi]][0].append(fi)
        shards[group[fi]][1].append(ff)
    for key in method_keys:
        shards[group[tf[key]]][2].append((key, methods[key]))
    core = {k: v for k, v in state.items() if k not in SHARDED and k not in ("merged", "merged_by_key")}
    core["_ref_memo"] = {}  # its keys hold ids of dicts a shard holds: rebuilt as the edit resolves
    core["_shape"] = {
        "group": group, "type_pos": type_pos, "method_keys": method_keys, "by_id_at": by_id_at,
        "merged": merged_refs,
        # what a run's summary takes of every file, without loading it (file_totals)
        "totals": [(ff.rel, ff.lines, ff.parse_errors, ff.encoding) for ff in files],
    }
    return core, shards


class _Shards:
    """The shard pickles of one snapshot (``buf[offsets[g]:offsets[g + 1]]``)
    and the stand-ins they fill."""

    def __init__(self, buf, offsets: list, shape: dict, type_file: dict):
        self.buf, self.offsets = buf, offsets
        self.loaded = bytearray(len(offsets) - 1)
        self.group = shape["group"]
        self.type_pos = shape["type_pos"]
        self.method_keys = shape["method_keys"]
        self.type_file = type_file
        self.files: LazyFiles | None = None
        self.types = self.methods = self.by_id = None
        self.by_id_at = shape["by_id_at"]
        self.kindex = None  # method key -> its index (made on the first by_id fill)

    def load(self, g: int) -> None:
        if self.loaded[g]:
            return
        self.loaded[g] = 1
        fis, ffs, tables = pickle.loads(self.buf[self.offsets[g]:self.offsets[g + 1]])
        tf, tpos = self.type_file, self.type_pos
        fl = self.files._l
        td_ = self.types._d
        for fi, ff in zip(fis, ffs):
            if fl[fi] is None:
                fl[fi] = ff
            for at, td in enumerate(ff.types):
                key = td.key
                if tf.get(key) == fi and key not in td_:
                    want = tpos.get(key)
                    if want is None or want == at:
                        td_[key] = td
        md, bd, bat = self.methods._d, self.by_id._d, self.by_id_at
        if self.kindex is None:
            self.kindex = {k: i for i, k in enumerate(self.method_keys)}
        for key, pms in tables:
            if key not in md:
                md[key] = pms
            base = self.kindex[key] << _POS_BITS
            for pos, p in enumerate(pms):
                mid = p.info.id
                if bat.get(mid) == base | pos and mid not in bd:
                    bd[mid] = p

    def load_all(self) -> None:
        for g in range(len(self.loaded)):
            self.load(g)

    def group_of_type(self, key):
        fi = self.type_file.get(key)
        return None if fi is None else self.group[fi]


class LazyFiles(Sequence):
    """The index's ``files``: file ``i``'s ``FileFacts``, its shard loaded on
    first use. Iterating loads every shard."""

    lazy = True

    def __init__(self, n: int, shards: _Shards):
        self._l: list = [None] * n
        self._s = shards
        self.totals: list = []  # (rel, lines, parse_errors, encoding) of each file, from the core

    def __len__(self) -> int:
        return len(self._l)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._l)))]
        ff = self._l[i]
        if ff is None:
            self._s.load(self._s.group[i if i >= 0 else i + len(self._l)])
            ff = self._l[i]
        return ff

    def __setitem__(self, i, ff) -> None:
        self[i]  # its shard first: loading it later must not put the old facts back
        self._l[i] = ff

    def __iter__(self):
        self._s.load_all()
        return iter(self._l)

    def __reduce__(self):
        return list, (list(self),)


class LazyMap:
    """A dict of the index (``types``, ``methods``, ``by_id``) whose entries
    come from the shards: ``[]``, ``get``, ``in`` and assignment load only the
    entry's shard; iteration, ``len``, ``items``/``keys``/``values`` load
    every shard and order the entries as the eager index inserted them."""

    __slots__ = ("_d", "_s", "_where", "_order", "_whole")

    def __init__(self, shards: _Shards, where, order):
        self._d: dict = {}
        self._s = shards
        self._where = where  # key -> shard number, None for no such key
        self._order = order  # the eager table's keys, in its order
        self._whole = False

    def __getitem__(self, k):
        d = self._d
        if k in d:
            return d[k]
        if not self._whole:
            g = self._where(k)
            if g is not None:
                self._s.load(g)
                return d[k]
        raise KeyError(k)

    def get(self, k, default=None):
        v = self._d.get(k, _MISSING)
        if v is not _MISSING:
            return v
        if not self._whole:
            g = self._where(k)
            if g is not None:
                self._s.load(g)
                return self._d.get(k, default)
        return default

    def __contains__(self, k) -> bool:
        return k in self._d or (not self._whole and self._where(k) is not None)

    def __setitem__(self, k, v) -> None:
        if not self._whole:
            g = self._where(k)
            if g is not None:
                self._s.load(g)  # first: a later load keeps what is set now (it fills missing keys only)
        self._d[k] = v

    def setdefault(self, k, default=None):
        v = self.get(k, _MISSING)
        if v is _MISSING:
            self._d[k] = v = default
        return v

    def whole(self) -> dict:
        """The table as a plain dict, every shard loaded, in the eager order."""
        if not self._whole:
            self._s.load_all()
            d = self._d
            out = {k: d[k] for k in self._order if k in d}
            for k, v in d.items():  # added since the load: after the snapshot's own, as a dict appends them
                if k not in out:
                    out[k] = v
            self._d = out
            self._whole = True
        return self._d

    def __iter__(self):
        return iter(self.whole())

    def __len__(self) -> int:
        return len(self.whole())

    def __bool__(self) -> bool:
        return bool(self._d) or bool(self._order)

    def keys(self):
        return self.whole().keys()

    def values(self):
        return self.whole().values()

    def items(self):
        return self.whole().items()

    def __eq__(self, other):
        return self.whole() == (other.whole() if isinstance(other, LazyMap) else other)

    __hash__ = None

    def __reduce__(self):
        return dict, (dict(self.whole()),)


def open_state(core: dict, buf, offsets: list) -> dict:
    """The index state of a split snapshot: ``core`` (as :func:`split` made
    it) with ``files``, ``types``, ``methods`` and ``by_id`` as stand-ins over
    the shard pickles ``buf[offsets[g]:offsets[g + 1]]`` (``buf``: the shards'
    bytes, all of them: ValueError when the offsets do not fit them), and ``merged`` /
    ``merged_by_key`` resolved (their shards loaded: a few files)."""
    state = dict(core)
    shape = state.pop("_shape")
    tf = state["type_file"]
    # the MAC vouches for these (written by this user's qare); checked all the same, so that a bad table
    # is a miss here (ValueError: the caller's), never an error in the middle of a resolution
    group = shape["group"]
    if len(offsets) != max(group, default=-1) + 2 or offsets[0] != 0 or offsets[-1] != len(buf) \
            or any(a > b for a, b in zip(offsets, offsets[1:])) or len(shape["totals"]) != len(group):
        raise ValueError("shard offsets do not fit the shards")
    s = _Shards(buf, offsets, shape, tf)
    s.files = files = LazyFiles(len(group), s)
    mkeys = shape["method_keys"]
    methods_set = frozenset(mkeys)
    bat = s.by_id_at

    def type_where(k):
        fi = tf.get(k)
        return None if fi is None else group[fi]

    def method_where(k):
        return group[tf[k]] if k in methods_set else None

    def id_where(mid):
        ref = bat.get(mid)
        return None if ref is None else group[tf[mkeys[ref >> _POS_BITS]]]

    s.types = LazyMap(s, type_where, tf)
    s.methods = LazyMap(s, method_where, mkeys)
    s.by_id = LazyMap(s, id_where, bat)
    merged = [(fi, files[fi].types[at]) for fi, at in shape["merged"]]
    merged_by_key: dict = {}
    for fi, td in merged:
        merged_by_key.setdefault(td.key, []).append((fi, td))
    files.totals = shape["totals"]
    state.update(files=files, types=s.types, methods=s.methods, by_id=s.by_id, merged=merged,
                 merged_by_key=merged_by_key)
    return state


class FactsOverlay(Sequence):
    """Every file's facts for a build whose files all come from a split
    snapshot (``base``, a :class:`LazyFiles`) but the parsed ones
    (``fresh``: ``{file index: FileFacts}``): what ``_build`` passes as
    ``kept`` without loading the snapshot's shards."""

    lazy = True

    def __init__(self, base: LazyFiles, fresh: dict):
        self._base, self._fresh, self._totals = base, fresh, base.totals

    def __len__(self) -> int:
        return len(self._base)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        ff = self._fresh.get(i if i >= 0 else i + len(self))
        return ff if ff is not None else self._base[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def totals(self):
        """``(rel, lines, parse_errors, encoding)`` of each file, none loaded."""
        fresh = self._fresh
        return [(ff.rel, ff.lines, ff.parse_errors, ff.encoding) if (ff := fresh.get(i)) is not None else t
                for i, t in enumerate(self._totals)]

    def __reduce__(self):
        return list, (list(self),)


def file_totals(kept):
    """``(rel, lines, parse_errors, encoding)`` of every file of ``kept`` (a
    list of ``FileFacts`` or a :class:`FactsOverlay`, whose shards it leaves unloaded)."""
    if isinstance(kept, FactsOverlay):
        return kept.totals()
    return [(ff.rel, ff.lines, ff.parse_errors, ff.encoding) for ff in kept]
