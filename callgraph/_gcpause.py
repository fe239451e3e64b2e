"""The cyclic garbage collector paused for a stretch that only makes objects
that stay (callgraph._build keeps its own copy, ``_gc_paused``, to keep this
session's change out of the build module)."""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """The collector off inside the block, back as it was after.

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
