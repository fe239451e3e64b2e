"""The cyclic garbage collector paused for a stretch that only makes objects
that stay: decoding the warm cache's rows and building the index and the
graph (``callgraph._build``), reading a stored graph (``_graphstore``).

A pause only postpones the collector's walk: the first collection after it
finds every object the stretch made still young, and walks them all (a
young collection, then a middle one, each over the whole stretch's
objects). Inside :func:`survivors_frozen` (a command that builds one graph
and ends: ``qare graph``, ``qare chain``) each pause ends with
``gc.freeze()`` instead, so what it made is never walked again
(docs/callgraph.md "Graph, store and output phases")."""

from __future__ import annotations

import gc
from contextlib import contextmanager

# how many survivors_frozen() blocks are open (the end of a pause freezes while > 0)
_FROZEN = [0]
# set by ending_process(): this process ends after its command (nothing is unfrozen)
_ENDING = [False]


@contextmanager
def gc_paused():
    """The collector off inside the block, back as it was after.

    Each of the millions of tuples and records made while the warm cache's
    rows are decoded and the index is built counts towards a collection, and
    every collection walks all the objects made so far — about half of
    decoding java.base's cached rows and a quarter of building its index
    (docs/callgraph.md "Warm cache").

    Each new dict, list or tuple counts towards a collection, and each full
    collection walks every tracked object made so far: decoding a stored
    graph's tables and building the 96,000 edge dicts of one large
    ``qare chain`` answer (spring-framework) spent more than half of that
    step in the collector (0.34 → 0.14 s). Nothing made there forms a cycle
    that becomes garbage, so nothing waits for the collector.

    Inside :func:`survivors_frozen` the block ends with ``gc.freeze()``:
    every object tracked so far moves to the permanent generation, which no
    collection walks (a one-body edit of spring-framework spent 5.3 s in the
    collections right after its pauses, each over the objects a pause had
    made)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _FROZEN[0]:
            gc.freeze()
        if was:
            gc.enable()


@contextmanager
def survivors_frozen():
    """Inside the block, every :func:`gc_paused` stretch freezes what it
    made (``gc.freeze``): for a command that builds one project's graph,
    whose objects stay until it ends. After the block, the frozen objects
    are handed back to the collector (``gc.unfreeze``: a cycle that became
    garbage meanwhile is collected later, as in a test runner calling the
    command many times) — unless :func:`ending_process` was called."""
    _FROZEN[0] += 1
    try:
        yield
    finally:
        _FROZEN[0] -= 1
        if not _FROZEN[0] and not _ENDING[0]:
            gc.unfreeze()


def ending_process() -> None:
    """Say this process ends when its command does (the ``qare`` program,
    ``qare.cli.run``; never a library caller or a test runner):
    :func:`survivors_frozen` then leaves its objects frozen, and the
    collection the interpreter makes at exit skips them (spring-framework's
    graph: 1.9 s of walking 1.4 M objects to free nothing that the process's
    end would not)."""
    _ENDING[0] = True
