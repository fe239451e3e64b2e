"""The graph step of ``build_project_graph``: nodes and edges filled straight
into networkx's dicts behave as ``add_node``/``add_edge`` would make them,
one attribute dict per node and per edge, and the garbage collector is held
off during the step and restored after it."""

from __future__ import annotations

import gc

import networkx as nx
import pytest

from callgraph import _build, _rta, build_project_graph

SRC = {
    "src/main/java/s/Shape.java": "package s;\npublic interface Shape { double area(); }\n",
    "src/main/java/s/Sq.java": "package s;\npublic class Sq implements Shape {\n"
                               "    public double area() { return 1; }\n}\n",
    "src/main/java/s/Circle.java": "package s;\npublic class Circle implements Shape {\n"
                                   "    public double area() { return Math.abs(-3.0); }\n}\n",
    "src/main/java/s/Use.java": """package s;
public class Use {
    double total(Shape a, Shape b) {
        return a.area() + b.area();
    }
    void run() {
        total(new Sq(), new Sq());
        String t = String.valueOf(total(new Sq(), new Sq()));
    }
}
""",
}


@pytest.fixture()
def project(tmp_path):
    for rel, text in SRC.items():
        p = tmp_path / "proj" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path / "proj"


def test_graph_is_what_networkx_would_build(project):
    g = build_project_graph(project, auto_classpath=False, cache=None).graph
    # the same graph through networkx's own API, in the same order
    h = nx.DiGraph()
    h.add_nodes_from(g.nodes(data=True))
    h.add_edges_from(g.edges(data=True))
    assert list(h.nodes(data=True)) == list(g.nodes(data=True))
    assert list(h.edges(data=True)) == list(g.edges(data=True))
    assert list(h.in_edges(data=True)) == list(g.in_edges(data=True))
    assert list(g.adj) == list(g.pred) == list(g.nodes)
    # hand-checked: total calls area() on Shape, dispatched by CHA to Sq and Circle;
    # run calls total twice on lines 7 and 8, and String.valueOf on line 8
    total = "s.Use.total(s.Shape,s.Shape)"
    assert g.edges[total, "s.Sq.area()"] == {"lines": [4], "resolution": "cha", "rta": ("main",)}
    assert g.edges[total, "s.Circle.area()"] == {"lines": [4], "resolution": "cha", "rta": ()}
    assert g.edges["s.Use.run()", total] == {"lines": [7, 8], "resolution": "exact"}
    assert g.nodes["s.Sq.area()"]["kind"] == "method" and g.nodes["s.Sq.area()"]["loc"] == 1
    assert g.nodes["java.lang.Math.abs(double)"]["kind"] == "api"


def test_one_attribute_dict_per_node_and_per_edge(project):
    g = build_project_graph(project, auto_classpath=False, cache=None).graph
    total = "s.Use.total(s.Shape,s.Shape)"
    assert g.succ[total]["s.Sq.area()"] is g.pred["s.Sq.area()"][total]  # networkx's own sharing
    g.edges[total, "s.Sq.area()"]["resolution"] = "changed"
    g.edges[total, "s.Sq.area()"]["lines"].append(99)
    assert g.edges[total, "s.Circle.area()"] == {"lines": [4], "resolution": "cha", "rta": ()}
    g.nodes["s.Sq.area()"]["kind"] = "changed"
    assert g.nodes["s.Circle.area()"]["kind"] == "method"
    g.nodes["java.lang.Math.abs(double)"]["library"] = "changed"
    assert all(d["library"] is None for n, d in g.nodes(data=True) if n != "java.lang.Math.abs(double)")


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_waits_during_the_graph_step_and_is_restored(project, monkeypatch, enabled):
    seen = []
    real = _rta.InstantiatedSet.witness

    def witness(self, target):  # called while the edges are added
        seen.append(gc.isenabled())
        return real(self, target)

    monkeypatch.setattr(_rta.InstantiatedSet, "witness", witness)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        build_project_graph(project, auto_classpath=False, cache=None)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen and not any(seen)


def test_gc_paused_restores_on_an_error():
    assert gc.isenabled()
    with pytest.raises(KeyError):
        with _build._gc_paused():
            assert not gc.isenabled()
            raise KeyError("x")
    assert gc.isenabled()
