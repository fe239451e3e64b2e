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
