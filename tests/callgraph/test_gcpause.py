"""The collector's pauses (callgraph._gcpause): inside ``survivors_frozen``
(``qare graph``/``qare chain``) each pause ends by freezing what it made, so
no later collection walks it; outside (a library caller, ``qare build``) a
pause leaves the collector as it was; the ``qare`` program itself
(``qare.cli.run``) keeps them frozen to its end, so the interpreter's
collection at exit skips them too."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from callgraph import _gcpause
from callgraph._gcpause import gc_paused, survivors_frozen

ROOT = Path(__file__).resolve().parents[2]


class _Node:
    pass


def _make(n: int) -> list:
    out = []
    for _ in range(n):
        x = _Node()
        x.d = {"k": [1]}
        out.append(x)
    return out


@pytest.fixture(autouse=True)
def _state(monkeypatch):
    monkeypatch.setattr(_gcpause, "_FROZEN", [0])
    monkeypatch.setattr(_gcpause, "_ENDING", [False])
    yield
    gc.unfreeze()


def test_a_pause_alone_freezes_nothing():
    gc.unfreeze()
    with gc_paused():
        kept = _make(1000)
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
    assert len(kept) == 1000


def test_a_pause_inside_survivors_frozen_freezes_what_it_made():
    gc.unfreeze()
    with survivors_frozen():
        with gc_paused():
            kept = _make(1000)
        assert gc.get_freeze_count() >= 3000  # each node, its dict and its list
        assert gc.isenabled()
    # handed back to the collector after the command (a test runner calls it many times)
    assert gc.get_freeze_count() == 0
    assert len(kept) == 1000


def test_the_collector_stays_off_when_it_was_off():
    gc.disable()
    try:
        with survivors_frozen():
            with gc_paused():
                _make(10)
            assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_ending_process_keeps_them_frozen():
    gc.unfreeze()
    _gcpause.ending_process()
    with survivors_frozen():
        with gc_paused():
            kept = _make(1000)
    assert gc.get_freeze_count() >= 3000
    assert len(kept) == 1000


_PROGRAM = """
import atexit, gc, runpy, sys
# registered first, so it runs last: after qare.cli.run has returned
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count(), file=sys.stderr))
sys.argv = ["qare"] + sys.argv[1:]
runpy.run_module("qare", run_name="__main__")
"""


def test_the_qare_program_ends_with_its_objects_frozen(tmp_path):
    """``python -m qare`` (``qare.cli.run``): the graph and index kept to
    the end are frozen, so the collection the interpreter makes at exit does
    not walk them (spring-framework: 1.9 s)."""
    fixture = ROOT / "fixtures" / "java" / "resolution"
    (tmp_path / "qc").mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QARE_CACHE_DIR": str(tmp_path / "qc")}
    r = subprocess.run([sys.executable, "-c", _PROGRAM, "graph", str(fixture), "-q", "--no-discover-classpath",
                        "--jobs", "1"], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    frozen = int(r.stderr.rpartition("frozen at exit:")[2].split()[0])
    assert frozen > 10_000, r.stderr
