"""A graph kept as arrays (callgraph._compact, ``build_project_graph(...,
compact=True)``, what ``qare graph`` builds): its ``networkx`` graph (made
on demand), its stored encoding and its ``--out`` (qare._jsonout, in this
process or a spawned one from the encoding) are those of the graph step
that builds ``networkx`` directly, for every fixture; repeated source and
target pairs (two modules' rows) merge as networkx merges them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from callgraph import _graphstore as gs
from callgraph import build_project_graph
from callgraph._build import _compact_edges, _networkx_graph
from callgraph._callsite import ApiTarget, CallEdge, Resolution
from callgraph._compact import CompactGraph
from qare import _jsonout
from qare.cmd_callgraph import write_node_link_json, _unresolved_nodes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "java"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in ("bad-input",))


def _lists(g):
    return (list(g.nodes(data=True)), list(g.edges(data=True)), [list(g.pred[n].items()) for n in g])


@pytest.mark.parametrize("name", NAMES)
def test_a_compact_build_is_the_networkx_build(tmp_path, name):
    (tmp_path / "a").mkdir(mode=0o700)
    (tmp_path / "b").mkdir(mode=0o700)
    whole = build_project_graph(FIXTURES / name, auto_classpath=False, cache=tmp_path / "a" / "c.sqlite")
    compact = build_project_graph(FIXTURES / name, auto_classpath=False, cache=tmp_path / "b" / "c.sqlite",
                                  compact=True)
    assert isinstance(compact, CompactGraph) and not isinstance(whole, CompactGraph)
    for f in ("files", "methods", "call_sites", "resolved", "top_reasons", "cha_edges", "rta_edges", "skipped",
              "examples", "site_types", "instantiated_types"):
        assert getattr(compact.summary, f) == getattr(whole.summary, f), f
    mine, theirs = compact.encoded_for_store(), gs.encode_graph(whole)
    for f in ("names", "apis", "rtas", "refs", "adj", "contrib", "row_bytes"):
        assert getattr(mine, f) == getattr(theirs, f), f
    # --out from the arrays, and from the encoding as a spawned writer reads it
    want = io.StringIO()
    write_node_link_json(whole.graph, want, frozenset(_unresolved_nodes(whole.graph)))
    infos = [compact._infos[m] for m in compact._parts["names"][:compact._parts["n_methods"]]]
    columns = [[getattr(mi, f) for mi in infos] for f in _jsonout.METHOD_FIELDS]
    for tables in (_jsonout.from_parts(compact._parts, compact._info_at),
                   _jsonout.decode([mine.names, mine.apis, mine.rtas, mine.adj, columns])):
        got = io.BytesIO()
        _jsonout.write(got, tables)
        assert got.getvalue().decode("utf-8") == want.getvalue()
    assert _lists(compact.graph) == _lists(whole.graph)  # made on demand, last: the writers never needed it


class _Witnesses:
    def witness(self, mid):
        return {"main"} if mid.endswith("B.run()") else set()


def test_repeated_pairs_merge_as_networkx_merges_them():
    """Two modules' rows with the same source and target (a merged type):
    networkx's ``add_edge`` keeps the pair's first dict and updates it with
    the later row's lines and kind, and keeps an ``rta`` only the earlier
    row had; cha counts every row."""
    from callgraph._index import MethodInfo

    def mi(mid):
        return MethodInfo(mid, "A.java", 1, 2, 2, None, "main", "p.A", mid.split(".")[-1][:-2], ())

    infos = {m: mi(m) for m in ("p.A.a()", "p.A.c()", "p.B.run()", "p.C.run()")}
    apis = {"x.L.f()": ApiTarget("x.L.f()", "x.L", "f", True, "g:a:1")}
    rows = [CallEdge("p.A.a()", "p.B.run()", Resolution.CHA, (3,)),
            CallEdge("p.A.a()", "p.B.run()", Resolution.EXACT, (4, 5)),  # the later row: exact, keeps the rta
            CallEdge("p.A.a()", "p.C.run()", Resolution.EXACT, (6,)),
            CallEdge("p.A.a()", "p.C.run()", Resolution.CHA, (7,)),  # cha later: gains an rta
            CallEdge("p.A.a()", "x.L.f()", Resolution.BY_ARITY, (8,)),
            CallEdge("p.A.c()", "nowhere.Gone.g()", Resolution.EXACT, (9,))]  # no such node: dropped
    g, cha, rta = _networkx_graph(infos, ["x.L.f()"], apis, list(rows), _Witnesses())
    parts = _compact_edges(infos, ["x.L.f()"], apis, list(rows), _Witnesses())
    assert (parts.pop("cha"), parts.pop("rta_count")) == (cha, rta) == (2, 1)
    from callgraph._compact import to_networkx

    h = to_networkx(parts, lambda idxs: {i: infos[parts["names"][i]] for i in idxs})
    assert _lists(h) == _lists(g)
    assert g.edges["p.A.a()", "p.B.run()"] == {"lines": [4, 5], "resolution": "exact", "rta": ("main",)}
    # a row whose source is no method node: networkx adds the node, the arrays cannot
    assert _compact_edges(infos, [], {}, [CallEdge("p.Nope.x()", "p.A.a()", Resolution.EXACT, (1,))],
                          _Witnesses()) is None
