"""Lombok planning in ``ProjectIndex`` (``callgraph/_index_lombok.py``): the
members and builder types Lombok generates enter the index's tables, and a
``@Delegate`` field becomes the delegate type's public instance methods,
each with a generated call to the delegate's method.

Expected values are worked out by hand from Lombok's documented behaviour
(projectlombok.org/features: ``@Getter``, ``@Builder``,
``@experimental.Delegate``) and the JDK's ``java.lang.Runnable``."""

from __future__ import annotations

from pathlib import Path

import pytest

from callgraph import _facts
from callgraph._index import ProjectIndex
from callgraph.classpath import ClasspathIndex

JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")

SOURCES = {
    "l/Bag.java": ("package l; import lombok.Getter; import lombok.Builder; import lombok.experimental.Delegate;\n"
                   "@Getter @Builder public class Bag { private int size;"
                   " @Delegate private final Runnable task; public void run(int times) {} }"),
}


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    root = tmp_path_factory.mktemp("lombok")
    facts = []
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        src = text.encode()
        facts.append(_facts.extract(src, _facts.parse(src), rel, "main", None))
    cp = ClasspathIndex.open([], jdk=JDK17)
    yield ProjectIndex(facts, cp, root=root)
    cp.close()


def test_generated_members_in_the_tables(idx):
    gen = {p.info.id: p.info.generated_by for p in idx.methods["l.Bag"] if p.info.generated_by}
    assert gen == {
        "l.Bag.getSize()": "lombok.Getter",
        "l.Bag.getTask()": "lombok.Getter",
        "l.Bag.builder()": "lombok.Builder",
        "l.Bag.<init>(int,java.lang.Runnable)": "lombok.Builder",  # @Builder's all-args constructor
        # Runnable.run() is delegated; run(int) is written and has another arity, so it does not block it
        "l.Bag.run()": "lombok.experimental.Delegate",
    }
    # the nested builder type is a project type now, with its setters and build()
    assert "l.Bag.BagBuilder" in idx.types and idx.members["l.Bag"]["BagBuilder"] == "l.Bag.BagBuilder"
    assert {p.info.name for p in idx.methods["l.Bag.BagBuilder"]} >= {"size", "task", "build", "toString"}
    assert idx.solver.view("l.Bag.BagBuilder").is_source  # no longer a cached miss


def test_delegate_calls_the_delegate(idx):
    fi = idx.type_file["l.Bag"]
    edges = [(s, d, a.id if a else None) for s, d, a in idx.gen_edges[fi]]
    assert edges == [("l.Bag.run()", "java.lang.Runnable.run()", "java.lang.Runnable.run()")]
    assert idx.by_id["l.Bag.run()"].info.implicit and idx.by_name["run"].count("l.Bag.run()") == 1
