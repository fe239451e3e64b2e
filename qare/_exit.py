"""Ending the process without tearing the interpreter down, for commands that ask.

A ``qare build`` process ends holding the analysis modules (networkx, the
call-graph code), the JDK class index and the per-process memos; Python's own
shutdown frees every one of those objects and module dicts one by one: ~0.1
CPU-s after the last file is written, serial time whatever ``--jobs``
(docs/dataset.md "Scaling"). A command that has written and closed all its
output calls :func:`request`; the process's entry point (``qare.cli``'s group,
called as the console script or ``python -m qare`` — never through click's
``CliRunner``, which calls ``main`` and stays in the test's process) then ends
with :func:`now`: what ``atexit`` holds runs, stdout and stderr are flushed,
and ``os._exit`` ends the process with the exit code Python would have given.
"""

from __future__ import annotations

import atexit
import os
import sys

__all__ = ["request", "requested", "now"]

_REQUESTED = False


def request(on: bool = True) -> None:
    """Ask for :func:`now` when the command's ``SystemExit`` reaches the entry
    point (``on=False``: the entry point's reset before it runs a command)."""
    global _REQUESTED
    _REQUESTED = on


def requested() -> bool:
    return _REQUESTED


def now(code) -> None:
    """End the process with ``SystemExit(code)``'s exit status (``None`` 0, an
    int itself, anything else printed to stderr and 1), after the ``atexit``
    handlers and a flush of stdout and stderr; no other teardown."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        try:
            print(code, file=sys.stderr)
        except (OSError, ValueError):
            pass
        status = 1
    try:
        atexit._run_exitfuncs()  # what a normal exit runs (temporary folders, logging, multiprocessing)
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is None:
                continue
            try:
                stream.flush()
            except (OSError, ValueError) as e:
                # what Python's own shutdown does when a standard stream cannot be flushed (a reader
                # gone, a full disk): said on stderr if it can be, and exit status 120 whatever the
                # command's, so a lost summary is never a success (the tester, session 8: it was 0)
                status = 120
                if stream is sys.stdout:
                    try:
                        sys.stderr.write(f"qare: the output could not be written in full: {e}\n")
                        sys.stderr.flush()
                    except (OSError, ValueError, AttributeError):
                        pass
            except AttributeError:  # a replaced stream without flush
                pass
        os._exit(status & 0xFF)  # as the OS keeps it for any exit: sys.exit(-1) is 255
