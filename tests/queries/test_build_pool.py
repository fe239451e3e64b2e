"""The process pool of ``qare build`` (``queries._runners.PoolRunner``): its
two hooks — ``before_fork`` runs once in this process before any worker
exists, and forked workers see what it loaded; ``spare`` runs once, in this
process, as soon as fewer projects are in flight than there are workers —
and the ``qare build`` classpath line (``qare.cmd_build.classpath_line``),
worked out by hand from the resolution records given."""

import multiprocessing
import os

import pytest

from queries._part import ProjectPart
from queries._runners import PoolRunner, WorkerDied, make_runner
from queries.projects import ProjectSpec

pytestmark = pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                                reason="the hooks warm forked workers; this platform does not fork")

#: set by ``before_fork`` in the parent; a forked worker reads it
WARMED: dict = {}


def spec(name):
    return ProjectSpec(source=f"/nonexistent/{name}", name=name)


def work(s, progress):
    """The worker's pid and what it inherited from the parent's ``before_fork``."""
    if s.name == "die":
        os._exit(9)
    return (s.name, os.getpid(), WARMED.get("by"))


def test_before_fork_runs_once_in_the_parent_and_workers_inherit_it():
    events = []

    def before():
        events.append(("before_fork", os.getpid()))
        WARMED["by"] = os.getpid()

    got = {}
    runner = PoolRunner(2, before_fork=before, spare=lambda: events.append(("spare", len(got))))
    try:
        runner.run([spec(f"p{i}") for i in range(5)], work, lambda s, r: got.__setitem__(s.name, r))
    finally:
        WARMED.clear()
    assert events[0] == ("before_fork", os.getpid())
    assert [e for e in events if e[0] == "before_fork"] == [events[0]]
    assert sorted(got) == ["p0", "p1", "p2", "p3", "p4"]
    # every worker is another process, forked after the hook ran: it sees the parent's value
    assert {r[2] for r in got.values()} == {os.getpid()}
    assert all(r[1] != os.getpid() for r in got.values())
    # 5 projects, 2 workers: after the 4th result only one is in flight, a core is idle
    assert [e for e in events if e[0] == "spare"] == [("spare", 4)]


def test_spare_runs_once_even_when_the_pool_breaks_and_hooks_that_raise_are_ignored():
    calls = []

    def boom():
        calls.append("spare")
        raise RuntimeError("not worth failing the build")

    def bad_before():
        calls.append("before")
        raise ImportError("no such module")

    got = {}
    runner = PoolRunner(2, before_fork=bad_before, spare=boom)
    runner.run([spec("a"), spec("die"), spec("b")], work, lambda s, r: got.__setitem__(s.name, r))
    assert calls.count("before") == 1 and calls.count("spare") == 1
    assert isinstance(got["die"], WorkerDied)
    assert got["a"][0] == "a" and got["b"][0] == "b"


def test_make_runner_passes_the_hooks_to_the_pool_only():
    hook = lambda: None  # noqa: E731
    pool = make_runner(2, None, 3, False, before_fork=hook, spare=hook)
    assert isinstance(pool, PoolRunner) and pool.before_fork is hook and pool.spare is hook
    assert not isinstance(make_runner(1, None, 3, False, before_fork=hook, spare=hook), PoolRunner)


# ---------------------------------------------------------------- the classpath line


def part(classpath, jars=()):
    p = ProjectPart(fingerprint="f", key="k", spec={"source": "x", "classpath": []}, project="svc")
    p.classpath, p.classpath_jars = classpath, list(jars)
    return p


def rec(**kw):
    d = {"method": "maven", "artifacts": ["g:a:1", "g:b:2"], "unresolved": [], "warnings": [], "downloads": 0,
         "bytes_downloaded": 0, "seconds": 0.016, "from_cache": True, "repo_local": "/r"}
    d.update(kw)
    return d


def test_classpath_line_as_qare_graph_prints_it():
    from qare.cmd_build import classpath_line

    assert classpath_line(part(rec(), ["/r/a.jar", "/r/b.jar"])) == \
        "svc: classpath (maven): 2 jars, 0 unresolved; cached result in 0.0 s"
    miss = [{"coords": f"g:m{i}:1", "reason": "not-found", "detail": "", "file": None} for i in range(6)]
    line = classpath_line(part(rec(unresolved=miss, from_cache=False, downloads=3, bytes_downloaded=3 * 1024 ** 2,
                                   seconds=12.34, warnings=[["pom.xml", "refused <build> plugin"]]), ["/r/a.jar"]))
    assert line == ("svc: classpath (maven): 1 jar, 6 unresolved: g:m0:1 (not-found), g:m1:1 (not-found), "
                    "g:m2:1 (not-found), g:m3:1 (not-found), … 2 more; 3 files downloaded (3.0 MiB) in 12.3 s; "
                    "1 build-file warning(s), first: pom.xml: refused <build> plugin")
    # failed before its graph: no jar list recorded, the resolved artifacts are counted
    assert classpath_line(part(rec(method="gradle-declared"))) == \
        "svc: classpath (gradle-declared): 2 artifacts, 0 unresolved; cached result in 0.0 s"
    assert classpath_line(part(rec(method="none", artifacts=[], seconds=0.0))) == \
        "svc: classpath: no pom.xml or build.gradle(.kts) in the project; no libraries added"
    refused = [{"coords": "/r", "reason": "cache-not-private", "detail": "/r is writable by others", "file": None}]
    assert classpath_line(part(rec(method="none", artifacts=[], unresolved=refused))) == \
        ("svc: classpath (none): 0 jars, 1 unresolved: /r (cache-not-private); /r is writable by others; "
         "cached result in 0.0 s")
    assert classpath_line(part(None)) is None


def test_quiet_shows_only_classpath_lines_that_report_a_failure(capsys):
    from qare.cmd_build import _print_classpath_lines

    ok = part(rec(), ["/r/a.jar"])
    bad = part(rec(unresolved=[{"coords": "g:x:1", "reason": "timeout", "detail": "", "file": None}]), ["/r/a.jar"])
    for p in (ok, bad):
        _print_classpath_lines(True)(p)
    assert capsys.readouterr().err.splitlines() == [
        "svc: classpath (maven): 1 jar, 1 unresolved: g:x:1 (timeout); cached result in 0.0 s"]
    _print_classpath_lines(False)(ok)
    assert capsys.readouterr().err == "svc: classpath (maven): 1 jar, 0 unresolved; cached result in 0.0 s\n"


def test_docs_line_says_which_doc_jars_were_read_and_downloaded(capsys):
    """New-user pass (session 6): 52 of petclinic's 61 s went to fetching 20.7 MB
    of javadoc jars, and stderr did not say so."""
    from qare.cmd_build import _print_classpath_lines, docs_line

    p = part(None)
    assert docs_line(p) is None  # the build did not get to the docs
    p.docs = {"javadoc": [], "sources": [], "failures": [], "downloads": 0, "bytes_downloaded": 0}
    assert docs_line(p) is None  # no reached library needed one
    p.docs = {"javadoc": ["g:a:1", "g:b:2"], "sources": ["g:c:3"], "downloads": 6,
              "bytes_downloaded": 20699987, "failures": [{"coords": "g:d:4", "reason": "not-found", "kind": "sources"}]}
    assert docs_line(p) == ("svc: docs: 2 javadoc jars, 1 sources jar; 6 files downloaded (19.7 MiB); "
                            "none found for 1: g:d:4 (not-found)")
    _print_classpath_lines(True)(p)  # -q: shown, since a library got no documentation
    assert capsys.readouterr().err == docs_line(p) + "\n"
    p.docs["failures"] = []
    _print_classpath_lines(True)(p)
    assert capsys.readouterr().err == ""
    _print_classpath_lines(False)(p)
    assert capsys.readouterr().err == "svc: docs: 2 javadoc jars, 1 sources jar; 6 files downloaded (19.7 MiB)\n"


def frozen(s, progress):
    import gc

    return gc.get_freeze_count()


def test_workers_inherit_the_parents_objects_frozen_and_the_build_unfreezes_them(tmp_path):
    """``_warm_before_fork`` moves what the parent loaded out of the collector's reach
    (a worker's collections neither walk nor copy those pages); the build gives them
    back to the collector once its workers are gone."""
    import functools
    import gc

    from queries.build import BuildOptions, _warm_before_fork, build_dataset

    assert gc.get_freeze_count() == 0
    got = []
    runner = PoolRunner(2, before_fork=functools.partial(_warm_before_fork, BuildOptions(jdk=None)))
    try:
        runner.run([spec("a"), spec("b")], frozen, lambda s, r: got.append(r))
    finally:
        frozen_in_parent = gc.get_freeze_count()
        gc.unfreeze()
    assert frozen_in_parent > 0 and len(got) == 2 and all(n > 0 for n in got)  # the workers inherit it
    lst = tmp_path / "list.txt"
    lst.write_text(f"{tmp_path / 'missing-a'}\n{tmp_path / 'missing-b'}\n")
    res = build_dataset(lst, tmp_path / "out", BuildOptions(jdk=None, discover_classpath=False), jobs=2, quiet=True)
    assert res.failed == 2  # both analysed (and failed: no such folders) by the pool
    assert gc.get_freeze_count() == 0


def test_run_returns_with_every_result_and_close_waits_until_the_workers_are_gone():
    """The workers' exits overlap what the build does next (the merge); ``close``
    (called before ``OUT/.lock`` is released, which they hold too) reaps them."""
    got = {}
    runner = PoolRunner(2)
    runner.run([spec(f"p{i}") for i in range(4)], work, lambda s, r: got.__setitem__(s.name, r))
    assert sorted(got) == ["p0", "p1", "p2", "p3"]
    pids = {r[1] for r in got.values()}
    assert pids and os.getpid() not in pids
    runner.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):  # exited and reaped
            os.kill(pid, 0)
    runner.close()  # twice is harmless


def slow_to_exit(spec, progress, **kw):
    """The build's per-project work, in a worker that then takes a second to exit (module level: pickled by name)."""
    import time
    from multiprocessing import util

    import queries.build as qbuild

    util.Finalize(None, time.sleep, args=(1.0,), exitpriority=0)  # runs as the worker exits
    return qbuild.analyse_project(spec, kw["opts"], progress=progress, deps=kw["deps"])


def test_no_worker_holds_the_out_lock_once_the_build_returns(tmp_path, monkeypatch):
    """The workers' exits overlap the merge, but ``build_dataset`` returns only
    once they are gone: a worker holds ``OUT/.lock`` (inherited) while it lives."""
    import fcntl

    import queries.build as qbuild
    from queries.build import BuildOptions, build_dataset

    monkeypatch.setattr(qbuild, "_run_one", slow_to_exit)
    lst = tmp_path / "list.txt"
    lst.write_text(f"{tmp_path / 'missing-a'}\n{tmp_path / 'missing-b'}\n{tmp_path / 'missing-c'}\n")
    res = build_dataset(lst, tmp_path / "out", BuildOptions(jdk=None, discover_classpath=False), jobs=2, quiet=True)
    assert res.failed == 3
    with open(tmp_path / "out" / ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError while a worker holds it


def sigint_handler(s, progress):
    import signal

    return s.name, signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_worker_interrupted_while_idle_exits_quietly_and_while_working_raises():
    """Ctrl-C reaches every worker: one that waits for work ends with exit 130
    and no traceback (a new user, session 9: ``Process ForkProcess-1:
    Traceback … KeyboardInterrupt`` under the build's ``interrupted`` line);
    one analysing a project gets ``KeyboardInterrupt`` as before."""
    import signal
    import subprocess
    import sys
    import textwrap

    from concurrent.futures import ProcessPoolExecutor

    import queries._runners as runners

    made = []

    def pool(**kw):
        made.append(kw.get("initializer"))
        return ProcessPoolExecutor(**kw)

    got = {}
    saved = runners.ProcessPoolExecutor
    runners.ProcessPoolExecutor = pool
    try:
        PoolRunner(2).run([spec("a"), spec("b")], sigint_handler, lambda s, r: got.__setitem__(s.name, r))
    finally:
        runners.ProcessPoolExecutor = saved
    assert made == [runners._worker_init]  # every worker starts with the idle handler
    assert got == {"a": ("a", True), "b": ("b", True)}  # and has Python's own while it works
    # an idle worker (initialised, blocked in its queue) sent SIGINT
    prog = textwrap.dedent("""
        import multiprocessing, os, signal, sys, time
        from queries._runners import _worker_init

        def idle(ready):
            _worker_init()
            ready.set()
            multiprocessing.Queue().get()  # waits, as a pool worker waits for work

        ready = multiprocessing.Event()
        p = multiprocessing.Process(target=idle, args=(ready,))
        p.start()
        ready.wait(30)
        time.sleep(0.2)
        os.kill(p.pid, signal.SIGINT)
        p.join(30)
        print(p.exitcode)
    """)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert r.stdout.strip() == "130" and "Traceback" not in r.stderr, (r.stdout, r.stderr)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process untouched
