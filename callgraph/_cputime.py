"""CPU seconds of this process and the children it has reaped, one clock for
every phase figure (``BuildSummary.phases``' ``*_cpu``): its own module so
that a run answered from the graph store reads it without importing the
build (``callgraph._build`` pulls in the parser and the resolver, ~50 ms)."""

from __future__ import annotations

import resource
import time

__all__ = ["cpu"]


def cpu() -> float:
    """CPU seconds (user + system) of this process and its reaped children (workers, Maven)."""
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime
