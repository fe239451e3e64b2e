"""The command line of a child Python process that runs one of qare's own
modules, with this process's module search path and never the current
folder's.

``python -m MODULE`` puts the current folder first on the child's
``sys.path``, ahead of the standard library and site-packages: run from
inside a cloned repository (``qare graph . --out g.json``), a ``msgpack.py``,
``json.py`` or ``qare/`` at the repository's root would be imported, and run,
by the child (the tester, session 8: the spawned ``--out`` writer did so;
the JDT worker, started in the world-writable temporary folder, could import
a module anyone planted there). ``-P`` (Python 3.11) leaves it out, but
``requires-python`` is 3.10 and the child must still find qare when it is
not installed (run from a checkout): the child is started with ``-c`` and a
program that first sets ``sys.path`` to this process's own (its current
folder entry ``''`` dropped, relative entries made absolute) with qare's
folder first, before it imports anything but the built-in ``sys``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["module_argv"]

_QARE_ROOT = str(Path(__file__).resolve().parents[1])


def search_path() -> list[str]:
    """The child's ``sys.path``: qare's folder, then this process's entries
    (absolute; ``''``, the current folder, left out), each once."""
    seen, out = set(), []
    for p in [_QARE_ROOT, *sys.path]:
        if not isinstance(p, str) or not p:
            continue
        p = os.path.abspath(p)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def module_argv(module: str, *args: str) -> list[str]:
    """``argv`` that runs ``python -m module args`` with :func:`search_path`
    as its ``sys.path`` (see the module docstring); ``sys.argv[1:]`` of the
    child is ``args``.

    Raises
    ------
    OSError
        This process has no interpreter path (``sys.executable`` empty).
    """
    if not sys.executable:
        raise OSError("no Python interpreter to start")
    program = (f"import sys; sys.path[:] = {search_path()!r}; import runpy; "
               f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return [sys.executable, "-c", program, *args]
