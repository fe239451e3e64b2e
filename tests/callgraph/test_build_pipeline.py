"""The pipeline of ``build_project_graph`` (callgraph/_build.py): with one
job each file is parsed once (pass 1's tree is kept for pass 2 within a
memory budget), and the graph phase fills networkx's adjacency dicts itself —
the graph must be the one ``add_edges_from`` makes."""

from __future__ import annotations

import gc
from pathlib import Path

import networkx as nx
import pytest

from callgraph import _build, _facts, build_project_graph

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "resolution"


def test_graph_is_what_add_edges_from_makes():
    g = build_project_graph(FIXTURE, auto_classpath=False, jdk=None).graph
    assert g.number_of_edges() > 100
    ref = nx.DiGraph()
    ref.add_nodes_from(g.nodes(data=True))
    ref.add_edges_from((u, v, dict(d)) for u, v, d in g.edges(data=True))
    assert list(g.edges(data=True)) == list(ref.edges(data=True))
    for n in g:  # predecessors in the order networkx would have them
        assert list(g.pred[n]) == list(ref.pred[n])
        for p, d in g.pred[n].items():
            assert g.succ[p][n] is d  # one dict per edge, seen from both ends
    assert g.number_of_edges() == sum(d for _n, d in g.in_degree())
    assert nx.utils.graphs_equal(g.reverse(copy=True).reverse(copy=True), g)


def _count_parses(monkeypatch) -> list:
    calls = []
    real = _facts.parse

    def parse(src):
        calls.append(len(src))
        return real(src)

    monkeypatch.setattr(_facts, "parse", parse)
    return calls


@pytest.mark.parametrize("budget, parses_per_file", [(_build.KEEP_TREES_SOURCE_BYTES, 1), (0, 2)])
def test_one_job_parses_each_file_once_within_the_budget(monkeypatch, budget, parses_per_file):
    files = sorted(FIXTURE.rglob("*.java"))
    monkeypatch.setattr(_build, "KEEP_TREES_SOURCE_BYTES", budget)
    calls = _count_parses(monkeypatch)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=1)
    assert pg.summary.files == len(files)
    assert len(calls) == parses_per_file * len(files)


def test_kept_trees_give_the_graph_of_parsing_again(monkeypatch):
    kept = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=1).graph
    monkeypatch.setattr(_build, "KEEP_TREES_SOURCE_BYTES", 0)
    again = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=1).graph
    assert list(kept.nodes(data=True)) == list(again.nodes(data=True))
    assert list(kept.edges(data=True)) == list(again.edges(data=True))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_build_makes_no_cyclic_garbage(tmp_path, jobs):
    """``build_project_graph`` runs with the collector off (a full collection
    walks every fact, index entry and result made so far): that holds no
    memory only while nothing it makes forms a cycle that becomes garbage.
    A per-file cycle (a resolver holding itself, its tree with it) would
    leave at least one object per file of this 67-file fixture here."""
    was = gc.isenabled()
    build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=jobs)  # imports and memos made once
    assert gc.isenabled() == was  # given back as it was found
    gc.collect()
    gc.disable()
    try:
        pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=jobs,
                                 cache=tmp_path / "c.sqlite")  # the cache's recorder too
        left = gc.collect()
    finally:
        if was:
            gc.enable()
    assert pg.summary.files == 67
    assert left < 40, left
