"""Several jobs (callgraph._crew): each file parsed once, where its pass-2
work then runs; the same graph as one job, also when a worker dies."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from callgraph import _build, _crew, _facts, build_project_graph

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "java" / "resolution"  # 67 files: a crew forms above 16


def _edges(pg):
    return list(pg.graph.nodes(data=True)), list(pg.graph.edges(data=True))


@pytest.fixture(scope="module")
def one_job():
    return _edges(build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=1))


def _count_parses(monkeypatch, log: Path):
    """Every parse, in any process of the crew, appends a line to ``log``
    (the patched module is inherited by the forked workers)."""
    real = _facts.parse

    def parse(src):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(src)

    monkeypatch.setattr(_facts, "parse", parse)


def test_two_jobs_parse_each_file_once_in_both_processes(monkeypatch, tmp_path, one_job):
    log = tmp_path / "parses"
    _count_parses(monkeypatch, log)
    real = _build._resolve_file

    def resolve(fi):  # was the file's tree there, in the process resolving it?
        with open(log, "a") as fh:
            fh.write(f"{'kept' if fi in _build._STATE['trees'] else 'again'}\n")
        return real(fi)

    monkeypatch.setattr(_build, "_resolve_file", resolve)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=2)
    lines = log.read_text().split()
    pids = [x for x in lines if x.isdigit()]
    n = len(sorted(FIXTURE.rglob("*.java")))
    assert pg.summary.files == n
    assert lines.count("kept") + lines.count("again") == n
    # parsed once in pass 1, and again only where a process that ran out of
    # its own work took another's file (a pool per pass parsed all twice)
    assert len(pids) == n + lines.count("again")
    assert lines.count("kept") >= n // 2
    assert len(set(pids)) == 2 and os.getpid() in map(int, pids)  # this process parses its share
    assert _edges(pg) == one_job


def test_without_a_tree_budget_files_are_parsed_again_and_the_graph_is_the_same(monkeypatch, tmp_path, one_job):
    monkeypatch.setattr(_build, "CREW_TREES_SOURCE_BYTES", 0)
    log = tmp_path / "parses"
    _count_parses(monkeypatch, log)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=3)
    n = pg.summary.files
    assert len(log.read_text().split()) == 2 * n
    assert _edges(pg) == one_job


@pytest.mark.parametrize("when", ["pass1", "pass2"])
def test_a_worker_that_dies_loses_nothing(monkeypatch, one_job, when):
    parent = os.getpid()
    if when == "pass1":
        real = _build._pass1

        def dying(item, keep=None):
            if os.getpid() != parent:
                os._exit(3)  # as if killed (out of memory): no message, no cleanup
            return real(item, keep)

        monkeypatch.setattr(_build, "_pass1", dying)
    else:
        real = _build._resolve_file

        def dying(fi):
            if os.getpid() != parent and fi % 5 == 4:
                os._exit(3)
            return real(fi)

        monkeypatch.setattr(_build, "_resolve_file", dying)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=2)
    assert pg.summary.skipped == ()
    assert _edges(pg) == one_job


def test_a_worker_parses_the_share_of_a_slow_parent(monkeypatch, tmp_path, one_job):
    """Pass 1 is balanced while it runs: this process holds its first file
    until the worker has parsed every other one, so the worker must have
    taken this process's share from its end; the graph is the same."""
    log = tmp_path / "parses"
    log.touch()
    parent = os.getpid()
    n = len(sorted(FIXTURE.rglob("*.java")))
    real = _build._pass1

    def worker_parses():
        return sum(1 for x in log.read_text().split() if int(x) != parent)

    def slow(item, keep=None):
        if os.getpid() == parent and not any(int(x) == parent for x in log.read_text().split()):
            deadline = time.monotonic() + 60
            while worker_parses() < n - 1 and time.monotonic() < deadline:
                pass  # a spin, not a sleep: a sandbox may make sleeps return at once
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(item, keep)

    monkeypatch.setattr(_build, "_pass1", slow)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=2)
    pids = [int(x) for x in log.read_text().split()]
    assert len(pids) == n  # each file parsed once in pass 1
    assert pids.count(parent) == 1 and worker_parses() == n - 1
    assert _edges(pg) == one_job


def test_steal_order_own_share_then_the_others_from_their_ends():
    shares = [[0, 2, 4], [1, 3], [5, 6]]
    assert list(_crew._steal_order(0, shares)) == [0, 2, 4, 3, 1, 6, 5]
    assert list(_crew._steal_order(1, shares)) == [1, 3, 4, 2, 0, 6, 5]


def test_three_jobs_each_build_the_whole_index(monkeypatch, tmp_path, one_job):
    """Facts a worker parsed reach the other worker through this process: all
    three processes build the index of every file (a worker missing some
    would fail and leave its work to this process, the graph still right)."""
    log = tmp_path / "indexes"
    real = _build.ProjectIndex

    def index(facts, *a, **kw):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}:{len(facts)}\n")
        return real(facts, *a, **kw)

    monkeypatch.setattr(_build, "ProjectIndex", index)
    sent = []
    real_send = _crew.Crew._send

    def send(self, p, msg):
        sent.append((p, msg[0], len(msg[2]) if msg[0] == "index" else None))
        return real_send(self, p, msg)

    monkeypatch.setattr(_crew.Crew, "_send", send)
    pg = build_project_graph(FIXTURE, auto_classpath=False, jdk=None, jobs=3)
    built = dict(x.split(":") for x in log.read_text().split())
    assert len(built) == 3 and set(built.values()) == {str(pg.summary.files)}
    # every fact went to the workers while they parsed: none was left for the index message
    assert sorted((p, n) for p, kind, n in sent if kind == "index") == [(1, 0), (2, 0)]
    assert _edges(pg) == one_job


def test_shares_are_runs_of_neighbouring_files_balanced_by_size():
    # sizes by file index, 26 bytes in all: a file goes to the share its
    # middle byte falls in (cut at 13): 0 (bytes 0-5, middle 2.5) and 1
    # (5-14, middle 9.5) → A; 2 (14-18, middle 16), 3 and 4 → B: 14 against 12
    sizes = [5, 9, 4, 7, 1]
    assert _crew.balanced_shares([0, 1, 2, 3, 4], sizes, 2) == [[0, 1], [2, 3, 4]]
    assert _crew.balanced_shares([4, 3, 2, 1, 0], sizes, 2) == [[0, 1], [2, 3, 4]]
    # 9 bytes in thirds (cuts at 3 and 6): 0's middle 2.5 → first, 2's (5 + 2 = 7) → third
    assert _crew.balanced_shares([0, 2], sizes, 3) == [[0], [], [2]]
    # one file: the first share; empty files: all in the first share
    assert _crew.balanced_shares([3], sizes, 2) == [[3], []]
    assert _crew.balanced_shares([0, 1], [0, 0], 2) == [[0, 1], []]


def test_claim_order_own_then_free_then_others_from_the_end():
    todo = [0, 1, 2, 3, 4, 5]
    owner = {0: 0, 1: 1, 2: 0, 4: 1}
    assert list(_crew._claim_order(0, todo, owner)) == [0, 2, 3, 5, 4, 1]
    assert list(_crew._claim_order(1, todo, owner)) == [1, 4, 3, 5, 2, 0]


def test_claim_order_takes_free_files_of_its_own_share_first():
    # shares: 0-2 → process 0, 3-5 → process 1; trees: 0 and 4 kept by 0, 1 by 1
    todo = [0, 1, 2, 3, 4, 5]
    owner = {0: 0, 4: 0, 1: 1}
    home = {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1}
    # own trees (0, 4); free of its share (2); free of others' from the end (5, 3); others' trees (1)
    assert list(_crew._claim_order(0, todo, owner, home)) == [0, 4, 2, 5, 3, 1]
    assert list(_crew._claim_order(1, todo, owner, home)) == [1, 3, 5, 2, 4, 0]
    # a file in no share (from the warm cache) is free for every process in its own order
    assert list(_crew._claim_order(1, [0, 7], {}, {0: 0})) == [7, 0]


def _wmem_max() -> int:
    try:
        return int(Path("/proc/sys/net/core/wmem_max").read_text())
    except (OSError, ValueError):
        return 0


@pytest.mark.skipif(_wmem_max() < _crew._SOCKET_BUFFER, reason="the system caps socket buffers below the crew's")
def test_a_worker_sends_megabytes_ahead_of_the_reader():
    """A worker's results wait in its socket's buffer while this process is
    busy (its reader thread waits for the GIL): the worker goes on resolving
    instead of blocking in ``send`` (the default buffer held ~200 KB)."""
    import multiprocessing as mp

    here, there = mp.get_context("fork").Pipe(duplex=True)
    _crew._widen(here)
    _crew._widen(there)
    os.set_blocking(there.fileno(), False)
    try:
        there.send_bytes(b"x" * (3 << 20))  # nobody reads yet: all of it is buffered
        assert len(here.recv_bytes()) == 3 << 20
    finally:
        here.close()
        there.close()
