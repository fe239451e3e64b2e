"""The cyclic garbage collector paused for a stretch that only makes objects
that stay: decoding the warm cache's rows and building the index and the
graph (``callgraph._build``), reading a stored graph (``_graphstore``)."""

from __future__ import annotations

import gc
from contextlib import contextmanager


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
    that becomes garbage, so nothing waits for the collector."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
