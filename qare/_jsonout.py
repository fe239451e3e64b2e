"""``--out g.json`` written from a graph as the graph store encodes it (its
string table, API columns, witness table, adjacency arrays and method rows;
``callgraph._graphstore.EncodedGraph``) instead of from a ``networkx``
graph: the same text ``qare.cmd_callgraph.write_node_link_json`` writes, by
the same item writers for nodes, edge by edge from the arrays.

What runs it: a process of its own (``python -m qare._jsonout FILE``,
:func:`main`) that reads the encoded graph on its standard input and writes
``FILE`` while ``qare graph`` stores the graph (docs/callgraph.md "Graph,
store and output phases"). Spawned, not forked: it shares no page with the
building process, so the two together hold the building process's memory
plus the writer's own (a forked writer copied every page of the graph both
walked, and was off for spring-framework for it)."""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass

#: the writer's input: msgpack ``[FORMAT, names, apis, rtas, adjacency, method columns]`` — the store's
#: tables (callgraph._graphstore) and one list per field of METHOD_FIELDS, a value per method in order
FORMAT = "qare-json-writer 2"
#: the ``MethodInfo`` fields a method node's attributes take (``callgraph._graphstore._method_attrs``)
METHOD_FIELDS = ("file", "start_line", "end_line", "loc", "comment", "source_set", "generated_by")
_FLUSH = 1 << 20


class _Sink:
    """``write(str)`` as UTF-8 to a binary file, in ~1 MiB writes, its CRC-32 and size kept."""

    __slots__ = ("fh", "buf", "n", "crc", "size")

    def __init__(self, fh):
        self.fh, self.buf, self.n, self.crc, self.size = fh, [], 0, 0, 0

    def write(self, text: str) -> None:
        self.buf.append(text)
        self.n += len(text)
        if self.n >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            b = "".join(self.buf).encode("utf-8")
            self.crc = zlib.crc32(b, self.crc)
            self.size += len(b)
            self.fh.write(b)
            self.buf, self.n = [], 0


@dataclass(frozen=True, slots=True)
class Tables:
    """A graph as the writer reads it: the node ids (``n`` methods first),
    each node's attribute dict (``method_attrs(i)``, ``api_attrs(i)`` of API
    node ``n + i``, ``api_kind(i)`` its kind), each method's out-edges
    ``offsets[i] .. offsets[i + 1]`` (``targets``, ``kinds`` indices in the
    store's kinds, ``rta`` witness indices: 0 none, else ``rtas[rta - 1]``),
    edge ``j``'s lines ``lines[starts[j]:starts[j + 1]]``."""

    names: list
    n: int
    method_attrs: Callable
    api_attrs: Callable
    api_kind: Callable
    offsets: list
    targets: list
    kinds: bytes
    rta: list
    starts: list
    lines: list
    rtas: list


def decode(doc) -> Tables:
    """The tables of an encoded graph (``[names, apis, rtas, adjacency, method columns]``: the store's blobs
    and :data:`METHOD_FIELDS` columns), decoded and checked by the store's own decoders; ``StoreError`` when
    one does not decode."""
    from callgraph._graphstore import StoreError, _Adjacency, _ApiColumns, _decode_names, _decode_rtas

    names_blob, apis_blob, rtas_blob, adj_blob, columns = doc
    ids, names = _decode_names(names_blob)
    n = len(ids)
    apis = _ApiColumns(apis_blob, len(names) - n)
    rtas = _decode_rtas(rtas_blob)
    adj = _Adjacency(adj_blob, n, len(names), len(rtas))
    if type(columns) is not list or len(columns) != len(METHOD_FIELDS) or any(
            type(c) is not list or len(c) != n for c in columns):
        raise StoreError("method columns")
    files, starts_, ends, locs, comments, sets, generated = columns

    def method_attrs(i: int) -> dict:  # as _graphstore._method_attrs makes them
        return {"kind": "method", "file": files[i], "start_line": starts_[i], "end_line": ends[i], "loc": locs[i],
                "comment": comments[i], "third_party": False, "library": None, "source_set": sets[i],
                "generated_by": generated[i]}

    starts, lines = adj.sites()
    return Tables(names, n, method_attrs, apis.attrs, lambda i: apis.kinds[apis.kind[i]],
                  adj.offsets, adj.targets.tolist(), adj.kinds, adj.rta.tolist(), starts, lines, rtas)


def from_parts(parts: dict, info_at) -> Tables:
    """The tables of a graph kept as arrays (``callgraph._compact.CompactGraph``'s parts;
    ``info_at(indices)``: its methods' ``MethodInfo`` by index, read at once), nothing encoded or decoded."""
    from itertools import accumulate

    from callgraph._graphstore import _method_attrs

    names, n = parts["names"], parts["n_methods"]
    infos = info_at(range(n))
    return Tables(names, n, lambda i: _method_attrs(infos[i]), parts["api_attrs"], parts["api_kind"],
                  parts["offsets"], parts["targets"].tolist(), parts["kinds"], parts["rta"].tolist(),
                  list(accumulate(parts["counts"], initial=0)), parts["lines"].tolist(), parts["rtas"])


def write(fh, t: Tables) -> tuple:
    """Write the node-link JSON of the graph ``t`` to the binary file
    ``fh``, the unresolved API nodes (``qare.cmd_callgraph._unknown_owner``)
    and their edges left out as ``_write_out`` leaves them; ``((nodes,
    edges, left out), CRC-32, bytes)``."""
    from callgraph._graphstore import _KINDS

    from .cmd_callgraph import _ENC_STR, _item_text, _unknown_owner

    out = _Sink(fh)
    write_ = out.write
    names, n = t.names, t.n
    skip_at = {i for i in range(n, len(names)) if t.api_kind(i - n) == "api" and _unknown_owner(names[i])}
    write_("{\n")
    write_(' "directed": true,\n')
    write_(' "multigraph": false,\n')
    write_(' "graph": {},\n')
    strings: dict = {}
    write_(' "nodes": [')
    first = True
    buf: list = []
    n_nodes = 0
    method_attrs, api_attrs = t.method_attrs, t.api_attrs
    for i, v in enumerate(names):
        if i in skip_at:
            continue
        d = method_attrs(i) if i < n else api_attrs(i - n)
        buf.append(_item_text(d, (("id", v),), strings))
        n_nodes += 1
        if len(buf) >= 256:
            write_(("\n" if first else ",\n") + ",\n".join(buf))
            first, buf = False, []
    if buf:
        write_(("\n" if first else ",\n") + ",\n".join(buf))
        first, buf = False, []
    write_("]" if first else "\n ]")
    write_(",\n")
    # edges: the text _edge_text makes of each edge's attribute dict, straight from the arrays
    enc = [_ENC_STR(v) for v in names]
    kinds_text = [_ENC_STR(k) for k in _KINDS]
    rta_text = ["[\n    " + ",\n    ".join(map(_ENC_STR, w)) + "\n   ]" if w else "[]" for w in t.rtas]
    off, targets, kinds, rta, starts = t.offsets, t.targets, t.kinds, t.rta, t.starts
    lines_text = list(map(int.__repr__, t.lines))
    join = ",\n    ".join
    write_(' "edges": [')
    first = True
    n_edges = 0
    for i in range(n):
        s, e = off[i], off[i + 1]
        if s == e or i in skip_at:
            continue
        tail_u = ',\n   "source": ' + enc[i] + ',\n   "target": '
        for j in range(s, e):
            tj = targets[j]
            if tj in skip_at:
                continue
            r = rta[j]
            text = ('  {\n   "lines": [\n    ' + join(lines_text[starts[j]:starts[j + 1]]) + '\n   ],\n   "resolution": '
                    + kinds_text[kinds[j]] + (',\n   "rta": ' + rta_text[r - 1] if r else "") + tail_u + enc[tj]
                    + "\n  }")
            buf.append(text)
            n_edges += 1
            if len(buf) >= 256:
                write_(("\n" if first else ",\n") + ",\n".join(buf))
                first, buf = False, []
    if buf:
        write_(("\n" if first else ",\n") + ",\n".join(buf))
        first = False
    write_("]" if first else "\n ]")
    write_("\n")
    write_("}")
    out.flush()
    return (n_nodes, n_edges, len(skip_at)), out.crc, out.size


def main(argv=None) -> int:
    """``python -m qare._jsonout FILE [MODE]``: the encoded graph (msgpack,
    see :data:`FORMAT`) on standard input, its node-link JSON written to
    ``FILE`` (created with mode 0600, or 0644 when MODE says so; never
    through a link); one JSON line on standard output: ``{"counts": [...],
    "crc32": …, "size": …}`` or ``{"error": …}``."""
    import os

    import msgpack

    argv = sys.argv[1:] if argv is None else argv
    try:
        doc = msgpack.unpackb(sys.stdin.buffer.read(), raw=False, use_list=True)
        if not (type(doc) is list and len(doc) == 6 and doc[0] == FORMAT):
            raise ValueError("not an encoded graph")
        tables = decode(doc[1:])
        mode = 0o644 if argv[1:2] == ["0644"] else 0o600
        fd = os.open(argv[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with open(fd, "wb") as fh:
            counts, crc, size = write(fh, tables)
        answer = {"counts": list(counts), "crc32": crc, "size": size}
    except Exception as e:  # noqa: BLE001 — told to the parent, which writes the file itself
        answer = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0 if "counts" in answer else 1


if __name__ == "__main__":
    import gc

    gc.disable()  # a short process that makes only objects that stay until it ends
    sys.exit(main())
