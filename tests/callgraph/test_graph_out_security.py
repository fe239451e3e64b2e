"""``qare graph --out g.json`` streams the graph (docs/security.md, "Output"):
the file is byte for byte what ``json.dumps(node_link_data(...))`` gives,
and writing it holds one node or edge at a time, not the whole document."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import networkx as nx
from click.testing import CliRunner

from callgraph import build_project_graph
from qare.cli import main
from qare.cmd_callgraph import _write_graph

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "qare-example"


def _reference(g) -> bytes:
    return json.dumps(nx.node_link_data(g, edges="edges"), ensure_ascii=False, indent=1).encode("utf-8")


def test_graph_json_is_byte_identical_to_node_link_data(tmp_path):
    out = tmp_path / "g.json"
    r = CliRunner().invoke(main, ["graph", str(EXAMPLE), "--out", str(out), "--no-auto-classpath", "--quiet"])
    assert r.exit_code == 0, r.output
    pg = build_project_graph(EXAMPLE, auto_classpath=False)
    assert pg.graph.number_of_edges() > 10
    assert out.read_bytes() == _reference(pg.graph)
    assert list(tmp_path.iterdir()) == [out]  # no temp file left


def test_odd_graphs_are_byte_identical(tmp_path):
    g = nx.DiGraph()
    out = tmp_path / "g.json"
    _write_graph(g, out)
    assert out.read_bytes() == _reference(g)
    g.graph["note"] = {"a": [1, "é"]}
    g.add_node("x", id="shadowed", comment="/** a\nb € \u2028 */", loc=None, lines=[])
    g.add_edge("x", "y", lines=[3, 4], resolution="exact")
    _write_graph(g, out)
    assert out.read_bytes() == _reference(g)


def test_writing_holds_one_item_at_a_time(tmp_path):
    g = nx.DiGraph()
    for i in range(6_000):
        g.add_node(f"p.C{i}.m()", kind="method", file=f"src/C{i}.java", comment="/** " + "x" * 200 + " */")
        if i:
            g.add_edge(f"p.C{i - 1}.m()", f"p.C{i}.m()", lines=[i], resolution="exact")
    out = tmp_path / "g.json"
    tracemalloc.start()
    try:
        _write_graph(g, out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = out.stat().st_size
    assert size > 2_000_000
    assert peak < size / 4, (peak, size)  # the old dict + string held several times the file
    assert out.read_bytes() == _reference(g)


def test_fast_writer_matches_json_on_every_value_shape(tmp_path):
    # the writer does not call json's indenting encoder: every shape a node or
    # edge attribute can take must still come out as json.dumps writes it
    g = nx.DiGraph()
    g.graph.update({"f": 1.5, "nan": float("nan"), "big": 10 ** 30, "neg": -3, "t": True, "n": None,
                    "nested": {"a": [[], {}, [[1]], ("x", ("y",))], 1: "int key", None: "null key"}})
    g.add_node("a\u2028\x00\"\\é", lines=(), rta=("main", "test"), comment="\t\x7f\ud7ff")
    g.add_edge("a\u2028\x00\"\\é", "b", lines=[1, 2, 3], resolution="cha", rta=())
    out = tmp_path / "g.json"
    _write_graph(g, out)
    assert out.read_bytes() == _reference(g)


def test_edge_fast_path_falls_back_on_every_other_shape(tmp_path):
    # edges the build makes take a one-format path; an edge of any other shape
    # (bools or floats among the lines, an empty list, other keys, a key the
    # writer adds itself, a non-string resolution or rta) must come out as json writes it
    g = nx.DiGraph()
    shapes = [dict(lines=[True, 2], resolution="exact"), dict(lines=[1.5], resolution="exact"),
              dict(lines=[], resolution="exact"), dict(lines=(1, 2), resolution="exact"),
              dict(lines=[1], resolution="cha", rta=["main", "test"]), dict(lines=[1], resolution=None),
              dict(lines=[1], resolution="cha", rta=("main", 3)), dict(lines=[1], resolution="exact", source="s"),
              dict(lines=[1], resolution="exact", extra={"k": [1]}), dict(resolution="exact", lines=[1]),
              dict(lines=[1, 10 ** 20], resolution="name", rta=[])]
    for i, d in enumerate(shapes):
        g.add_edge(f"m{i}()", "t\u2028é()", **d)
    g.add_edge(3, "t\u2028é()", lines=[1], resolution="exact")  # a non-string node id
    out = tmp_path / "g.json"
    _write_graph(g, out)
    assert out.read_bytes() == _reference(g)


def test_skipped_nodes_are_left_out_as_if_removed(tmp_path):
    # `qare graph --out g.json` leaves unresolved API nodes out while writing,
    # without a copy: the bytes are those of the graph with them removed
    from qare.cmd_callgraph import _unresolved_nodes, export_graph

    g = nx.DiGraph()
    g.add_node("p.A.m()", kind="method", file="A.java")
    for n in ("?.add(*)", "?Foo.bar(*)", "java.util.List.add(java.lang.Object)"):
        g.add_node(n, kind="api", file=None)
    g.add_edge("p.A.m()", "?.add(*)", lines=[3], resolution="name")
    g.add_edge("p.A.m()", "java.util.List.add(java.lang.Object)", lines=[4], resolution="exact")
    g.add_edge("?Foo.bar(*)", "?.add(*)", lines=[5], resolution="exact")
    bad = frozenset(_unresolved_nodes(g))
    assert bad == {"?.add(*)", "?Foo.bar(*)"}
    out = tmp_path / "g.json"
    _write_graph(g, out, bad)
    h, dropped = export_graph(g)
    assert dropped == 2 and h.number_of_edges() == 1
    assert out.read_bytes() == _reference(h)
    assert g.number_of_nodes() == 4  # the graph itself is left as it was
