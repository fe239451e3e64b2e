"""``qare graph --out g.json`` after method bodies were edited: the previous
output with the edited files' method nodes and out-edges replaced, instead
of every node and edge written again (docs/callgraph.md "One edited method
body").

When only method bodies changed, no declaration anywhere did: the warm
cache's project key (callgraph._build._project_key) is the same, every
other file's resolution is reused unchanged (docs/callgraph.md
"Invalidation", case a), so the graph differs from the previous one only in
the edited files' methods (their attributes: lines, LOC, comment) and their
out-edges — unless a global part moved: a node appeared or went (an API
called for the first time or no more), an API node's attributes, or the
instantiated types whose RTA witnesses every ``cha`` edge carries (a body
edit adding ``new X()`` changes edges anywhere). Those global parts are one
digest, the *frame* (:func:`frame`), kept in the output cache's meta file
with the body; a patch is made only when the previous entry's frame is this
graph's. Anything else — another frame, other inputs than file contents
(files added, removed, the classpath, the JDK, a lombok.config, the code),
another format than node-link ``.json`` with ``--dispatch cha`` and no
``--include-unresolved``, a previous body that does not hash to its meta, a
search that does not find what it must — gives None and the caller writes
the whole file as before. The text is the one
``qare.cmd_callgraph.write_node_link_json`` writes (its own item writers
make the new items), so a patch is byte-identical to a full write
(tests/test_outpatch.py compares each with a cold build's)."""

from __future__ import annotations

import hashlib
from dataclasses import fields

FRAME_FORMAT = "qare-out-frame 1"


def frame(pg, skip) -> str | None:
    """The digest of the parts of ``pg``'s ``--out`` a body edit leaves
    alone unless it changes them everywhere: the warm cache's project key
    (None without one: no patch), every node id in order and the left-out
    ones (``skip``), the API nodes' attributes, and every instantiated type
    with why and where (the RTA witnesses of all ``cha`` edges)."""
    pkey = getattr(pg, "project_key", None)
    if not pkey:
        return None
    h = hashlib.sha256(f"{FRAME_FORMAT}\0{pkey}\0".encode())
    ids = []
    apis = []
    # a patched graph (callgraph._patch) without building networkx: its nodes from the stored tables
    view = pg.out_view() if hasattr(pg, "out_view") else None
    for n, d in (view.nodes_data() if view is not None else pg.graph.nodes(data=True)):
        ids.append(n)
        if d.get("kind") != "method":
            apis.append(repr((n, sorted(d.items(), key=lambda kv: kv[0]))))
    h.update("\0".join(ids).encode("utf-8", "surrogatepass"))
    h.update(b"\1" + "\0".join(sorted(skip)).encode("utf-8", "surrogatepass"))
    h.update(b"\1" + "\n".join(apis).encode("utf-8", "surrogatepass"))
    inst = getattr(pg, "instantiated", None) or {}
    for t in sorted(inst):
        v = inst[t]
        h.update(repr((t, sorted(map(repr, v.how)), sorted(v.source_sets))).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def changed_files(previous, inputs) -> set | None:
    """The relative paths of the files whose content differs between two
    fingerprints (``callgraph._graphstore.Inputs``) that are otherwise the
    same inputs (same files in the same order, skipped files, classpath, JDK,
    lombok.config files, code, LOC mode, size limit); None when they are not."""
    if previous is None or inputs is None:
        return None
    for f in fields(inputs):
        if f.name not in ("files", "taken_ns") and getattr(previous, f.name) != getattr(inputs, f.name):
            return None
    if len(previous.files) != len(inputs.files):
        return None
    out = set()
    for a, b in zip(previous.files, inputs.files):
        if a[:3] != b[:3]:
            return None
        if a[8] is None or a[8] != b[8]:
            out.add(b[1])
    return out


def _merged(pg, files: set) -> bool:
    """Does an edited file declare a type another file declares too (a
    summary note: another module's, whose members are merged, callgraph._index
    ``ProjectIndex.merged``; or a skipped duplicate of one module)? The edges
    of a method both declare may then come from both files while its node
    names one, so a patch by file could miss them."""
    for rel, text in (*getattr(pg.summary, "notes", ()), *getattr(pg.summary, "skipped", ())):
        if rel in files or any(f in text for f in files):
            return True
    return False


def _enc(s: str) -> bytes:
    from .cmd_callgraph import _ENC_STR

    return _ENC_STR(s).encode("utf-8")


_ITEM = b"\n  {\n"
_NODES = b' "nodes": [\n'
_EDGES_HEAD = b'\n ],\n "edges": [\n'
_TAIL = b"\n ]\n}"


class _GraphView:
    """What :func:`patch` reads of a ``networkx`` graph: the node order, the
    edited files' method nodes and their out-edges."""

    def __init__(self, g, files: set, skip):
        self._nodes = g._node if isinstance(getattr(g, "_node", None), dict) else dict(g.nodes(data=True))
        self._succ = g._succ if isinstance(getattr(g, "_succ", None), dict) else {u: dict(g.adj[u]) for u in g}
        self.n_nodes = g.number_of_nodes()
        self.edited = [n for n, d in self._nodes.items()
                       if n not in skip and d.get("kind") == "method" and d.get("file") in files]
        self.edited_files = {self._nodes[n]["file"] for n in self.edited}

    def node_attrs(self, n):
        return self._nodes[n]

    def out_edges(self, u) -> dict:
        return self._succ[u]

    def nodes(self, skip):
        """``(id, has an out-edge to a node not in skip)`` of every node not in ``skip``, in order."""
        succ = self._succ
        for u in self._nodes:
            if u not in skip:
                yield u, any(v not in skip for v in succ[u])


def patch(body: bytes, g, files: set, skip, counts) -> tuple[list, tuple] | None:
    """``(pieces, counts)``: the pieces (``bytes``, or ``(start, end)``
    stretches of ``body``) whose concatenation is the
    node-link JSON of ``g`` without the nodes ``skip``, made from ``body``
    (the same text of the previous graph, whose counts were ``counts``) by
    replacing the nodes of the methods of ``files`` and their out-edges;
    None when ``body`` is not what that needs (then write it all). ``g``: a
    ``networkx`` graph, or a patched graph's ``out_view()``
    (callgraph._patch), which names its edited methods itself."""
    view = g if hasattr(g, "edited_files") else _GraphView(g, files, skip)
    return _patch_body(body, view, files, skip, counts)


def _patch_body(body: bytes, view, files: set, skip, counts):
    from .cmd_callgraph import _edge_text, _item_text

    n_at = body.find(_NODES)
    e_at = body.find(_EDGES_HEAD)
    if n_at < 0 or e_at < n_at or body[len(body) - len(_TAIL):] != _TAIL:
        return None
    e_first = e_at + len(_EDGES_HEAD)  # the first edge item (the edges section is not empty: checked below)
    e_close = len(body) - len(_TAIL)  # just after the last edge item's "}"
    if body[e_first:e_first + 4] != b"  {\n":
        return None
    if view.n_nodes - len(skip) != counts[0] or len(skip) != counts[2]:
        return None
    strings: dict = {}
    edited = [n for n in view.edited if n not in skip]
    if not edited or view.edited_files != files:
        return None  # an edited file without a method node here: nothing ties its edits to nodes
    edited_set = set(edited)
    pieces: list = []
    cur = 0
    # nodes: one for one, in node order, each found by its id line (the last of a node item)
    for n in edited:
        pat = b'\n   "id": ' + _enc(n) + b"\n  }"
        hit = body.find(pat, cur, e_at + 1)
        if hit < 0:
            return None
        start = body.rfind(_ITEM, cur, hit) + 1
        if start <= 0:
            return None
        pieces.append((cur, start))  # a stretch of the body, copied as it is (by the kernel: qare._outcache)
        pieces.append(_item_text(view.node_attrs(n), (("id", n),), strings).encode("utf-8"))
        cur = hit + len(pat)
    if cur > e_at:
        return None
    pieces.append((cur, e_first))
    cur = e_first
    n_edges = counts[1]

    def items_of(u):
        return [_edge_text(d, (("source", u), ("target", v)), strings).encode("utf-8")
                for v, d in view.out_edges(u).items() if v not in skip]

    edited_enc = {_enc(u) for u in edited}
    # edges: runs of edited sources between the copied blocks of the sources around them (A before, B after);
    # B's first item is found forward from where the last run ended (one pass in all), the end of A's block
    # backward from there (a short way: only the run's old items lie between)
    for run, before, u in _runs(view, edited_set, skip):
        if u is not None:
            hit = _find_source(body, u, cur, e_close)
            end = body.rfind(_ITEM, cur - 1, hit) + 1 if hit >= 0 else 0
            if end <= 0:
                return None
            got = _replace_run(body, run, cur, _after(body, before, cur, end, e_first), end, items_of,
                               edited_enc, pieces, True)
            if got is None:
                return None
            cur, n_edges = end, n_edges + got
        else:
            got = _replace_run(body, run, cur, _after(body, before, cur, e_close, e_first), e_close, items_of,
                               edited_enc, pieces, False)
            if got is None:
                return None
            n_edges += got
            cur = e_close
    pieces.append((cur, len(body)))
    return [p for p in pieces if type(p) is not tuple or p[1] > p[0]], (counts[0], n_edges, counts[2])


def _runs(view, edited: set, skip) -> list:
    """``(run, before, after)`` of each run of ``edited`` sources, in node
    order: ``run`` the edited nodes (not in ``skip``) with no other source
    of an edge item between them, ``before``/``after`` the nearest other
    such sources around it (None: none). A view that finds them itself
    (``runs``: a compact graph's, from the edited nodes' places) is asked;
    otherwise every node is walked."""
    fast = getattr(view, "runs", None)
    if fast is not None:
        return fast(edited, skip)
    found: list = []
    run: list = []
    before = None
    for u, has_out in view.nodes(skip):
        if u in edited:
            run.append(u)
            continue
        if not has_out:
            continue
        if run:
            found.append((run, before, u))
            run = []
        before = u
    if run:
        found.append((run, before, None))
    return found


_TARGET = b'",\n   "target": '


def _find_source(body, u, lo, hi, backward=False) -> int:
    """Where an edge item of source ``u`` names it in ``body[lo:hi]`` (the
    first, or the last when ``backward``), -1 if none. The pattern ends
    inside the id (a ``)``), not at the frequent blank after it: a search
    whose last byte is common in the haystack is several times slower."""
    pat = b'"source": ' + _enc(u)[:-1]
    n = len(pat)
    while True:
        hit = body.rfind(pat, lo, hi) if backward else body.find(pat, lo, hi)
        if hit < 0 or body[hit + n:hit + n + len(_TARGET)] == _TARGET:
            return hit
        if backward:
            hi = hit + n - 1
        else:
            lo = hit + 1


def _after(body, before, lo, end, e_first) -> int:
    """Where the run's old items begin: just after the last item of the
    copied source ``before`` (at ``e_first`` when there is none), found
    backward from ``end``; -1 when it is not there."""
    if before is None:
        return e_first if lo == e_first else -1
    hit = _find_source(body, before, lo, end, backward=True)
    if hit < 0:
        return -1
    close = body.find(b"\n  }", hit, end + 4)
    return -1 if close < 0 else close + 4 + (2 if close + 4 < end else 0)


def _replace_run(body, run, lo, start, end, items_of, edited_enc, pieces, before_copied):
    """Replace the old edge items of the edited sources ``run``,
    ``body[start:end]`` (``end``: the first item of the next copied block, or
    the close of the section when ``before_copied`` is False), by their new
    items; appends to ``pieces`` what comes from ``lo`` up to ``end`` and
    returns the change in the number of edges, or None (a stretch that is not
    theirs alone)."""
    if start < lo or start > end:
        return None
    # every old item there must be an edited source's: else the graphs were not what the frame said
    removed = 0
    at = body.find(b'"source": ', start, end)
    while at >= 0:
        stop = body.find(_TARGET, at, end)
        if stop < 0 or body[at + 10:stop + 1] not in edited_enc:
            return None
        removed += 1
        at = body.find(b'"source": ', stop, end)
    new = [t for u in run for t in items_of(u)]
    if before_copied:
        pieces.append((lo, start))
        pieces.append(b"".join(t + b",\n" for t in new))
        return len(new) - removed
    # at the end of the section: the items are joined by ",\n", none after the last
    if start == end:  # nothing of the run was there: append after the last item
        pieces.append((lo, end))
        if new:
            pieces.append(b",\n" + b",\n".join(new))
        return len(new)
    if body[start - 2:start] != b",\n":
        return None  # the run held the section's first item: an emptied section is written in full
    if new:
        pieces.append((lo, start))
        pieces.append(b",\n".join(new))
    else:
        pieces.append((lo, start - 2))
    return len(new) - removed


def unresolved(pg) -> frozenset:
    """The API nodes ``--out`` leaves out (``qare.cmd_callgraph._unresolved_nodes``), from the view of a
    graph kept as arrays when it has one (no networkx graph made)."""
    from .cmd_callgraph import _unknown_owner, _unresolved_nodes

    if hasattr(pg, "out_view"):
        return frozenset(n for n, kind in pg.out_view().api_kinds() if kind == "api" and _unknown_owner(n))
    return frozenset(_unresolved_nodes(pg.graph))


def write(pg, out, oc, key: str, suffix: str, dispatch: str, include_unresolved: bool, wait: bool = True):
    """``(counts or None, frame or None)``: ``pg``'s ``--out`` written to
    ``out`` and kept as the output cache ``oc``'s entry ``key``, patched from
    the entry of the previous build of the slot (``pg.previous_inputs``, set
    by ``qare graph`` with ``pg.inputs``) when it can be (module docstring);
    counts None when not (nothing written: the caller writes it all, and the
    frame goes into the new entry's meta). A graph patched from the stored
    one (``callgraph._patch``) has the stored graph's frame by construction
    (no node, API attribute or instantiated type moved): the previous
    entry's, whatever it is. Raises OSError when ``out`` cannot be written.
    With ``wait`` False ``out`` may still be renaming into place
    (``OutputCache.publish_pieces``: the caller settles ``oc``)."""
    if suffix != ".json" or dispatch != "cha" or include_unresolved:
        return None, None
    from ._outcache import out_key

    prev = getattr(pg, "previous_inputs", None)
    files = changed_files(prev, getattr(pg, "inputs", None))
    # a graph kept as arrays (callgraph._compact; a patched one too): read through its view, no networkx
    view = pg.out_view(files) if hasattr(pg, "out_view") else None
    skip = unresolved(pg)
    if hasattr(pg, "release"):  # patched from the stored graph: the previous entry's frame, whatever it is
        if not files or files != view.edited_files:
            return None, frame(pg, skip)
        body = oc.read_body(out_key(prev, suffix, dispatch, include_unresolved), None)
        if body is None:  # no entry to patch: written in full, its frame worked out
            return None, frame(pg, skip)
        fr = body.frame
    else:
        fr = frame(pg, skip)
        if fr is None:
            return None, None
        if not files or _merged(pg, files):
            return None, fr
        body = oc.read_body(out_key(prev, suffix, dispatch, include_unresolved), fr)
        if body is None:
            return None, fr
    g = view if view is not None else pg.graph
    handed = False  # to publish_pieces's thread, which closes it (wait False)
    try:
        try:
            made = patch(body.data, g, files, skip, body.counts)
        except UnicodeEncodeError:  # a lone surrogate: the full writer says so
            return None, fr
        if made is None:
            return None, fr
        pieces, counts = made
        oc.publish_pieces(key, pieces, out, counts, fr, source=body, wait=wait)
        handed = not wait
    finally:
        if not handed:
            body.close()
    return counts, fr
