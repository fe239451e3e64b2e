"""A build after method-body edits, patched from the graph the store holds
(docs/callgraph.md "One edited method body").

When no declaration changed anywhere — the warm cache's project key is the
one the stored graph was built under — every unchanged file's resolution is
the stored one (docs/callgraph.md "Invalidation", case a). The graph then
differs from the stored one only in the edited files' methods (their
``MethodInfo``: lines, LOC, comment) and out-edges, and the summary only by
the edited files' contributions (callgraph._contrib) — unless a global part
moved: a node appeared or went (an API called for the first time or no
more), an API node's attributes, or the instantiated types whose RTA
witnesses every ``cha`` edge carries. :func:`patch` checks each of those and
answers None when any moved (the build then goes on as a whole build); else
a :class:`PatchedGraph`: the stored arrays with the edited methods' slices
replaced, the summary summed from the stored contributions with the edited
files' replaced, in the same order and by the same code as a whole build's,
so the graph, the summary, the stored rows and ``--out`` are a whole
build's byte for byte (tests/callgraph/test_patch.py).

Nothing is decoded for the unchanged files but the stored tables: no
resolution row, no ``networkx`` graph (:attr:`PatchedGraph.graph` builds one
on first use, from the store's rows, for a caller that needs it)."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from itertools import accumulate

import msgpack

from . import _contrib
from ._compact import CompactGraph, OutView
from ._lazyindex import file_totals
from ._graphstore import (_KIND_AT, _U32, EncodedGraph, StoreError, _decode_info, _encode_info, _encode_summary,
                          _row_key, decode_contributions, encode_contributions, instantiated_of, pack_adjacency)

__all__ = ["PatchedGraph", "patch"]

_CHA = _KIND_AT["cha"]


class PatchedGraph(CompactGraph):
    """A ``CompactGraph`` made by :func:`patch`: the stored graph with the
    edited files' methods replaced.

    ``summary``, ``project_key`` and ``contributions`` are a whole build's;
    ``edited`` the ids of the edited files' methods, ``edited_files`` their
    relative paths. :meth:`encoded_for_store` is what ``GraphStore.save``
    writes (the changed rows only); :meth:`out_view` what ``qare._outpatch``
    reads. ``graph`` (a ``networkx.DiGraph``, as a whole build's) and the
    ``MethodInfo`` of an unedited method are read from the stored graph on
    first use, which stays open (one read transaction) until
    :meth:`release`."""

    def __init__(self, summary, root: str, dispatch: str, parts: dict):
        super().__init__(summary, _Infos(parts), root, dispatch, parts)
        self.edited = parts["edited_ids"]
        self.edited_files = parts["edited_files"]
        self.project_key = parts["pkey"]
        self.contributions = parts["contribs"]
        self._instantiated = None

    @property
    def instantiated(self) -> dict:
        """The program's instantiated types (the stored graph's: a patch made none appear or go)."""
        if self._instantiated is None:
            self._instantiated = instantiated_of(self._parts["instantiated_columns"])
        return self._instantiated

    @instantiated.setter
    def instantiated(self, value):
        self._instantiated = value or None

    def _info_at(self, idxs) -> dict:
        return _read_infos(self._parts, list(idxs))

    def release(self) -> None:
        """Close the stored graph this one was patched from (its read transaction)."""
        sg = self._parts.get("stored")
        if sg is not None:
            sg.close()
            self._parts["stored"] = None

    def encoded_for_store(self) -> EncodedGraph:
        p = self._parts
        return EncodedGraph(p["names_blob"], p["apis_blob"], p["rtas_blob"], _encode_summary(self.summary),
                            p["refs"], p["adj_blob"], p["contrib_blob"], p["row_bytes"], base_crc=p["base_crc"],
                            grow=p["grow"], less=p["less"])

    def out_view(self, files=None) -> OutView:
        p = self._parts
        return OutView(p, p["edited_ids"], p["edited_files"], p["edited_infos"].__getitem__)


class _Infos(dict):
    """Every method's ``MethodInfo`` by id: the edited ones held, the others
    read from the stored graph when asked for (``ProjectGraph.method``)."""

    def __init__(self, parts: dict):
        super().__init__(parts["edited_infos"])
        self._parts = parts

    def __missing__(self, mid):
        p = self._parts
        names, n = p["names"], p["n_methods"]
        i = bisect_left(names, mid, 0, n)
        if i == n or names[i] != mid:
            raise KeyError(mid)
        mi = _read_infos(p, [i])[i]
        self[mid] = mi
        return mi

    def __contains__(self, mid):
        p = self._parts
        i = bisect_left(p["names"], mid, 0, p["n_methods"])
        return i < p["n_methods"] and p["names"][i] == mid

    def __iter__(self):
        return iter(self._parts["names"][:self._parts["n_methods"]])

    def __len__(self):
        return self._parts["n_methods"]

    def keys(self):
        return list(self)

    def get(self, mid, default=None):
        return self[mid] if mid in self else default

    def values(self):
        return [self[m] for m in self]

    def items(self):
        return [(m, self[m]) for m in self]


def _read_infos(p: dict, idxs) -> dict:
    """``{index: MethodInfo}`` of methods of the patched graph (the edited
    ones from memory, the others from the stored rows by their keys)."""
    edited = p["edited_at"]
    out = {i: p["edited_infos"][p["names"][i]] for i in idxs if i in edited}
    rest = [i for i in idxs if i not in edited]
    if rest:
        sg = p["stored"]
        if sg is None:
            raise StoreError("the stored graph was released")
        try:
            rows = sg._rows(rest)
            for i in rest:
                if i not in rows:
                    raise StoreError(f"no method row for {p['names'][i]}")
                out[i] = _decode_info(rows[i], p["names"][i])
        except StoreError as e:
            # as StoredGraph's own reads: the slot marked unreadable, so the whole build that follows
            # rewrites every row of it (a missing one was otherwise never written again: the tester,
            # session 8)
            sg.store.unreadable.add(sg.slot)
            raise StoreError(f"stored graph in {sg.store.path} unreadable ({e})") from None
    return out


def patch(stored, *, pkey: str, code: str, kept, kept_files, fkeys, changed: dict, idx, skipped: list,
          cp, cp_warnings: list, lines: int, stats: dict, finish, root: str, dispatch: str):
    """The graph of this build patched from ``stored`` (a
    ``callgraph._graphstore.StoredGraph`` of the project's slot), or None
    when it cannot be (module docstring: the build then goes on whole).

    ``pkey``: this build's project key; ``code``: the graph store's code
    version now; ``kept``/``kept_files``/``fkeys``: every file's facts,
    ``SourceFile`` and facts key (all files kept); ``changed``: ``{file
    index: (FileResult, RTA facts, warnings) or an error string}`` for each
    file whose bytes differ from the stored graph's; ``idx`` the project
    index (the edited files patched in); ``skipped``, ``cp``,
    ``cp_warnings``, ``lines``, ``stats``: what the build's summary takes,
    as for a whole build (``cp_warnings`` grows as there); ``finish()``,
    called once the graph is made, ends the build's ``graph`` phase and
    returns ``(phases, wall seconds)``. Raises nothing for a bad stored
    table (``StoreError`` is a None)."""
    try:
        return _patch(stored, pkey, code, kept, kept_files, fkeys, changed, idx, skipped, cp, cp_warnings, lines,
                      stats, finish, root, dispatch)
    except (StoreError, KeyError, IndexError, ValueError, OverflowError, TypeError) as e:
        return _refused(stats, f"{type(e).__name__}: {e}")


def _patch(sg, pkey, code, kept, kept_files, fkeys, changed, idx, skipped, cp, cp_warnings, lines, stats, finish,
           root, dispatch):
    from ._graph import SITE_TYPES, BuildSummary

    inputs = sg.inputs
    if inputs is None or inputs.code != code or not changed or len(inputs.files) != len(kept):
        return _refused(stats, "other code or files")
    for row, sf, fk in zip(inputs.files, kept_files, fkeys):
        if row[1] != sf.rel or row[2] != sf.source_set or fk is None:
            return _refused(stats, "other files")
    names, n = sg.names, sg.n_methods
    inst_cols: list = []
    stored_pkey, contribs = decode_contributions(sg.raw.get("contrib", b""), len(kept), names, inst_cols)
    if stored_pkey is None or stored_pkey != pkey:
        return _refused(stats, "another project key (a declaration changed)")
    summary0 = sg.summary
    rels = {kept[fi].rel for fi in changed}
    # a type another file declares too (module duplicates): a method's edges may come from both files
    for rel, text in (*summary0.notes, *summary0.skipped):
        if rel in rels or any(r in text for r in rels):
            return _refused(stats, "an edited file's type is declared twice")
    index = dict(zip(names, range(len(names))))
    a = sg.adjacency()
    apis = sg.apis
    contribs = list(contribs)
    new_by_file: dict = {}
    for fi, got in sorted(changed.items()):
        old = contribs[fi]
        if isinstance(got, str) or old.failed is not None:
            return _refused(stats, "an edited file fails to resolve")
        fr, made, warnings = got
        new = _contrib.contribution(fr, made, warnings)
        if new.made != old.made:
            return _refused(stats, "another instantiated type")
        for at in fr.apis:
            i = index.get(at.id)
            if i is None:
                return _refused(stats, "a new node")
            if i >= n and (apis.tp[i - n] != int(bool(at.third_party)) or apis.libs[apis.lib[i - n]] != at.library):
                return _refused(stats, "an API node's attributes changed")
        gone = set(old.apis) - set(new.apis)
        if gone and any(index[g] >= n for g in gone):
            listed = {g for c_fi, c in enumerate(contribs) if c_fi != fi for g in c.apis if g in gone}
            if any(index[g] >= n and g not in listed for g in gone):
                return _refused(stats, "an API node no file reaches any more")
        contribs[fi] = new
        new_by_file[kept[fi].rel] = fr
    # the edited files' methods: the stored ones of those files, their MethodInfo from the index now
    files, file_at = a.files, a.file_at
    file_ix = {f for f, name in enumerate(files) if name in rels}
    edited_at = [i for i in range(n) if file_at[i] in file_ix]
    edited_ids = [names[i] for i in edited_at]
    infos: dict = {}
    # the tables of the edited files' types (a merged type's too): not every table, which would load
    # every shard of a snapshot's index; a method missed here is a refusal below, never a wrong graph
    edited_fi = set(changed)
    keys = {k for k, f in idx.type_file.items() if f in edited_fi}
    keys.update(td.key for f, td in idx.merged if f in edited_fi)
    for key in sorted(keys):
        for p in idx.methods.get(key, ()):
            if p.info.file in rels:
                infos[p.info.id] = p.info
    if set(infos) != set(edited_ids) or {infos[m].file for m in edited_ids} != rels:
        return _refused(stats, "other methods in the edited files")
    # their new out-edges, as the graph step adds them: sorted by source then target, to nodes only
    edited_set = set(edited_ids)
    rows: dict = {m: [] for m in edited_ids}
    for fr in new_by_file.values():
        for e in fr.edges:
            if e[0] not in edited_set:
                return _refused(stats, "an edge from a method of another file")
            if e[1] in index:
                rows[e[0]].append(e)
    offsets, targets, kinds, rta, counts = a.offsets, a.targets, a.kinds, a.rta, a._counts
    starts = list(accumulate(counts, initial=0))
    lines_col = a._lines
    rtas = list(sg.rtas)
    witness_at: dict = {}
    inst: list = []

    def witness(t: int) -> int:
        # the witness tuple of a cha edge to t depends on t and the instantiated types only (they did not
        # move): any stored cha edge to t tells it; else it is worked out from the stored instantiated types
        w = witness_at.get(t)
        if w is None:
            try:
                j = -1
                while True:
                    j = targets.index(t, j + 1)  # ValueError when there is no stored cha edge to t
                    if kinds[j] == _CHA:
                        break
                w = rta[j]
            except ValueError:
                if not inst:
                    inst.append(_instantiated_set(idx, instantiated_of(inst_cols)))
                tup = tuple(sorted(inst[0].witness(names[t])))
                w = rtas.index(tup) + 1 if tup in rtas else 0
                if not w:
                    rtas.append(tup)
                    witnessed.append(bool(tup))
                    w = len(rtas)
            witness_at[t] = w
        return w

    pieces = []  # (method index, targets, kinds, rta, counts, lines) of each edited method
    cha_delta = rta_delta = 0
    witnessed = [False] + [bool(w) for w in rtas]
    for i, mid in zip(edited_at, edited_ids):
        s, e = offsets[i], offsets[i + 1]
        for j in range(s, e):
            if kinds[j] == _CHA:
                cha_delta -= 1
                rta_delta -= witnessed[rta[j]]
        es = sorted(rows[mid], key=lambda x: x[1])
        tg, kd, wt, ct, ls = [], bytearray(), [], [], []
        for _s, d, kind, lns in es:
            t = index[d]
            k = _KIND_AT[kind.value]
            if k == _CHA:
                w = witness(t)
                cha_delta += 1
                rta_delta += witnessed[w]
            else:
                w = 0
            tg.append(t)
            kd.append(k)
            wt.append(w)
            ct.append(len(lns))
            ls += lns
        pieces.append((i, tg, kd, wt, ct, ls))
    # the arrays with the edited methods' slices replaced
    n_targets, n_kinds, n_rta, n_counts, n_lines = array(_U32), bytearray(), array(_U32), array(_U32), array(_U32)
    n_off = []
    loc = list(a.loc)
    at_e = 0
    for i, tg, kd, wt, ct, ls in pieces:
        s, e = offsets[i], offsets[i + 1]
        n_targets.extend(targets[at_e:s])
        n_kinds += kinds[at_e:s]
        n_rta.extend(rta[at_e:s])
        n_counts.extend(counts[at_e:s])
        n_lines.extend(lines_col[starts[at_e]:starts[s]])
        n_targets.extend(tg)
        n_kinds += kd
        n_rta.extend(wt)
        n_counts.extend(ct)
        n_lines.extend(ls)
        at_e = e
        loc[i] = infos[names[i]].loc
    n_targets.extend(targets[at_e:])
    n_kinds += kinds[at_e:]
    n_rta.extend(rta[at_e:])
    n_counts.extend(counts[at_e:])
    n_lines.extend(lines_col[starts[at_e]:])
    shift = 0
    by_i = {i: len(tg) - (offsets[i + 1] - offsets[i]) for i, tg, *_ in pieces}
    for i in range(n + 1):
        n_off.append(offsets[i] + shift)
        shift += by_i.get(i, 0)
    # the witness table numbered by first use, as a whole build's save numbers it
    first = [w for w in dict.fromkeys(n_rta) if w]
    table = [rtas[w - 1] for w in first]
    if first != list(range(1, len(first) + 1)):
        renum = {0: 0, **{w: k for k, w in enumerate(first, 1)}}
        n_rta = array(_U32, map(renum.__getitem__, n_rta))
    adj_blob = pack_adjacency(len(names), list(files), list(a.sets), a.file_at, a.set_at, loc, n_off, n_targets,
                              n_kinds, n_rta, n_counts, n_lines)
    rtas_blob = msgpack.packb([list(w) for w in table], use_bin_type=True) if table != sg.rtas else sg.raw["rtas"]
    # the method rows: the edited methods' MethodInfo rows, the others' kept
    k = 16
    refs = bytearray(sg.refs)
    old_rows = sg._rows(edited_at)
    grow: dict = {}
    less: dict = {}
    row_delta = 0
    for i in edited_at:
        info = _encode_info(infos[names[i]])
        h = _row_key(info)
        old_h = bytes(refs[k * i:k * i + k])
        row_delta += len(info) - len(old_rows[i])
        if h != old_h:
            refs[k * i:k * i + k] = h
            g = grow.setdefault(h, [h, info, 0])
            g[2] += 1
            less[old_h] = less.get(old_h, 0) + 1
    if sg.row_bytes is None or sg.row_bytes < 0:
        return _refused(stats, "no size of the stored rows")
    row_bytes = sg.row_bytes + row_delta
    # the summary: the stored contributions with the edited files' replaced, summed as a whole build sums them
    counts_, reasons, site_types, examples = _summed(contribs, cp, cp_warnings)
    totals = file_totals(kept)  # a snapshot's facts left in their shards (callgraph._lazyindex)
    for fi, c in enumerate(contribs):
        if c.failed is not None:
            skipped.append((totals[fi][0], c.failed))
    resolved = {kd: counts_.get(kd, 0) for kd in ("exact", "arity", "name", "local")}
    stats["graph_patched"] = len(changed)
    contrib_blob = encode_contributions(contribs, index, pkey, instantiated_columns=inst_cols)
    phases, seconds = finish()  # the graph made: its phase ends here (the summary is no part of it)
    summary = BuildSummary(
        files=len(kept), lines=lines, methods=n, call_sites=sum(counts_.values()), resolved=resolved,
        unresolved=counts_.get("unresolved", 0), top_reasons=_contrib.top_reasons(reasons),
        cha_edges=summary0.cha_edges + cha_delta, rta_edges=summary0.rta_edges + rta_delta,
        instantiated_types=summary0.instantiated_types,
        parse_errors=tuple((rel, errs) for rel, _n, errs, _enc in totals if errs),
        decoded_with_fallback=tuple((rel, enc) for rel, _n, _errs, enc in totals if enc),
        skipped=tuple(skipped), classpath_warnings=tuple(tuple(w) for w in cp_warnings[:50]),
        seconds=seconds, examples=examples, phases={kk: round(v, 3) for kk, v in phases.items()},
        notes=tuple(idx.module_duplicates), cache=dict(stats),
        site_types={kk: site_types.get(kk, 0) for kk in SITE_TYPES})
    parts = _parts(sg, pkey, contribs, inst_cols, edited_ids, set(edited_at), {m: infos[m] for m in edited_ids},
                   rels, (n_off, n_targets, n_kinds, n_rta, n_counts, n_lines), table)
    parts.update({"names_blob": sg.raw["names"], "apis_blob": sg.raw["apis"], "rtas_blob": rtas_blob,
                  "refs": bytes(refs), "adj_blob": adj_blob, "contrib_blob": contrib_blob, "row_bytes": row_bytes,
                  "base_crc": sg.crc, "grow": tuple(tuple(g) for g in grow.values()),
                  "less": tuple((c, h) for h, c in less.items())})
    return PatchedGraph(summary, root, dispatch, parts)


def _parts(sg, pkey, contribs, inst_cols: list, edited_ids: list, edited_at: set, edited_infos: dict,
           edited_files: set, arrays: tuple, rtas: list) -> dict:
    """The ``parts`` of a ``PatchedGraph`` read from the stored graph ``sg``:
    its node ids and API nodes, the edited methods (ids, node indices,
    ``MethodInfo``, files), the adjacency ``arrays`` (offsets, targets, kinds, witnesses,
    line counts, lines) and witness table ``rtas`` of the graph made."""
    apis = sg.apis
    offsets, targets, kinds, rta, counts, lines = arrays
    return {"stored": sg, "names": sg.names, "n_methods": sg.n_methods, "api_attrs": apis.attrs,
            "api_kind": lambda i: apis.kinds[apis.kind[i]], "edited_ids": edited_ids,
            "edited_at": edited_at,
            "edited_infos": edited_infos, "edited_files": edited_files, "offsets": offsets, "targets": targets,
            "kinds": kinds, "rta": rta, "counts": counts, "lines": lines, "rtas": rtas, "pkey": pkey,
            "contribs": None if contribs is None else tuple(contribs), "instantiated_columns": inst_cols}


def stored_graph(sg, root: str, dispatch: str) -> PatchedGraph:
    """The stored graph ``sg`` (a ``_graphstore.StoredGraph``, held open
    until :meth:`PatchedGraph.release`) as a graph with nothing edited:
    what ``qare graph --out`` writes from when the store holds the
    project's graph but the output cache not this output of it (a first
    ``--out`` after ``qare chain`` or a plain ``qare graph``, another
    format), instead of building the graph again. Its arrays are the stored
    adjacency's, its ``MethodInfo`` the stored rows (read as the writer asks
    for them), its summary, project key, contributions and instantiated
    types the stored ones. Raises ``StoreError`` on a bad table."""
    inputs = sg.inputs
    if inputs is None:
        raise StoreError("no inputs of the stored graph")
    inst_cols: list = []
    pkey, contribs = decode_contributions(sg.raw.get("contrib", b""), len(inputs.files), sg.names, inst_cols)
    a = sg.adjacency()
    parts = _parts(sg, pkey, contribs, inst_cols, [], set(), {}, set(),
                   (a.offsets, a.targets, a.kinds, a.rta, a._counts, a._lines), list(sg.rtas))
    return PatchedGraph(sg.summary, root, dispatch, parts)


def _instantiated_set(idx, types: dict):
    """An ``_rta.InstantiatedSet`` of the project index ``idx`` holding the
    stored instantiated ``types`` (those the program's files make: not
    collected again, their files' facts unchanged)."""
    from ._rta import InstantiatedSet

    s = InstantiatedSet.__new__(InstantiatedSet)
    s.idx, s.types, s._memo = idx, types, {}
    return s


def _refused(stats: dict, why: str) -> None:
    """No patch: ``why`` goes into the summary's cache counts (``not_patched``)."""
    stats["not_patched"] = why
    return None


def _summed(contribs, cp, cp_warnings: list):
    from ._build import _summed as summed  # the whole build's own sum (one definition)

    return summed(contribs, cp, cp_warnings)
