"""Where the per-project stage runs: in this process, in a process pool, or
on a ``dask.distributed`` cluster — one interface (:class:`Runner`), so the
build neither knows nor cares which (DESIGN.md "Scale").

A runner calls ``work(spec, progress)`` for each project (``work`` must be
picklable for the pool and dask: a module-level function or a
``functools.partial`` of one) and hands each result — a
:class:`~queries._part.ProjectPart`, or the exception that escaped — to
``done(spec, result)`` in the calling process, as results arrive.

:meth:`Runner.close` waits until the runner's processes are gone: a
:class:`PoolRunner` returns from ``run`` once every result is in, while its
workers are still exiting (the build merges meanwhile).

A :class:`PoolRunner` takes two optional hooks, each called once in the
calling process: ``before_fork`` just before the first worker starts (what it
loads, forked workers inherit copy-on-write instead of each loading it
again), and ``spare`` as soon as fewer projects are in flight than there are
workers (a core is idle from then on: the build loads its merge stage's
modules there instead of after the last project). A hook that raises is
ignored: it only warms what the work loads anyway.
"""

from __future__ import annotations

import signal
from abc import ABC, abstractmethod
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Optional, Sequence

from ._options import BuildError
from .projects import ProjectSpec

__all__ = ["Runner", "SerialRunner", "PoolRunner", "DaskRunner", "WorkerDied", "make_runner"]

Work = Callable[[ProjectSpec, bool], object]
Done = Callable[[ProjectSpec, object], None]
Hook = Optional[Callable[[], None]]


def _call_hook(hook: Hook) -> None:
    if hook is None:
        return
    try:
        hook()
    except Exception:  # warming only: the work itself loads (and reports) whatever failed here
        pass


def _worker_init() -> None:
    """A pool worker's start: a SIGINT while it waits for work ends it
    quietly (exit 130). With Python's own handler the idle worker, blocked
    in its queue, died of ``KeyboardInterrupt`` with a traceback on the
    terminal under the build's ``interrupted`` line whenever Ctrl-C came
    while a worker had nothing left to do (a new user, session 9)."""
    signal.signal(signal.SIGINT, _idle_interrupt)


def _idle_interrupt(signum, frame):
    raise SystemExit(130)  # multiprocessing ends a process on SystemExit without a traceback


def _interruptible(work: Work, spec: ProjectSpec, progress: bool):
    """``work(spec, progress)`` in a pool worker with Python's own SIGINT
    handler (``KeyboardInterrupt``, which the pool hands back to the build
    as the project's exception), the idle one again after it."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return work(spec, progress)
    finally:
        signal.signal(signal.SIGINT, old)


class WorkerDied(RuntimeError):
    """A worker process died (killed by a signal or out of memory) while analysing the project."""

    def __init__(self):
        super().__init__("the worker process died (killed by a signal or out of memory)")


class Runner(ABC):
    """Runs the per-project work of a build."""

    @abstractmethod
    def run(self, specs: Sequence[ProjectSpec], work: Work, done: Done) -> None:
        """Call ``work`` for every spec; pass each result (or escaped exception) to ``done``."""

    def close(self) -> None:
        """Wait until whatever :meth:`run` started is gone (the build calls it
        before it releases ``OUT/.lock``, which forked workers hold too)."""


class SerialRunner(Runner):
    """One project after the other in this process; ``progress`` bars allowed."""

    def __init__(self, progress: bool = False):
        self.progress = progress

    def run(self, specs, work, done):
        for s in specs:
            try:
                result = work(s, self.progress)
            except Exception as e:  # analyse_project catches its own; this is a last guard
                result = e
            done(s, result)


class PoolRunner(Runner):
    """A ``ProcessPoolExecutor`` of ``jobs`` processes. A dying worker breaks
    the whole pool, failing every project still in it; those are re-run one
    per fresh process, so only the culprit fails (with :class:`WorkerDied`).
    ``before_fork``/``spare``: the hooks of the module docstring."""

    def __init__(self, jobs: int, *, before_fork: Hook = None, spare: Hook = None):
        self.jobs = jobs
        self.before_fork = before_fork
        self.spare = spare
        self._stopping: list = []  # the threads that reap the workers of pools told to stop

    def close(self) -> None:
        threads, self._stopping = self._stopping, []
        for t in threads:
            t.join()

    def run(self, specs, work, done):
        for s in self._run(specs, work, done, self.jobs):
            if self._run([s], work, done, 1):
                done(s, WorkerDied())
        self._spare()  # every project lost to a broken pool: the merge still comes

    def _spare(self) -> None:
        hook, self.spare = self.spare, None
        _call_hook(hook)

    def _run(self, specs, work, done, jobs) -> list:
        """Run ``specs`` in a pool; returns those lost to a broken pool."""
        from concurrent.futures.process import BrokenProcessPool

        hook, self.before_fork = self.before_fork, None
        _call_hook(hook)
        broken = []
        workers = min(jobs, len(specs))
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
        finished = False
        try:
            futs = {pool.submit(_interruptible, work, s, False): s for s in specs}
            left = len(futs)
            for fut in as_completed(futs):
                s = futs[fut]
                left -= 1
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    broken.append(s)
                    continue
                except Exception as e:  # e.g. a result that cannot be pickled
                    result = e
                done(s, result)
                if left < workers:
                    self._spare()
            finished = True
        finally:
            # every result is in: the workers are told to stop, and their exits (the kernel freeing
            # their memory) overlap the merge; :meth:`close` waits for them. Else (``done`` raised)
            # the work not started is cancelled and the running work waited for, as before
            # the pool's own thread stops the workers and reaps them; ``shutdown(wait=False)`` forgets
            # it, so it is kept here for ``close`` (where there is none, the wait is done now)
            reaper = getattr(pool, "_executor_manager_thread", None) if finished else None
            pool.shutdown(wait=reaper is None, cancel_futures=not finished)
            if reaper is not None:
                self._stopping.append(reaper)
        return broken


class DaskRunner(Runner):
    """Submits each project to the ``dask.distributed`` scheduler at ``address`` (extra ``dist``)."""

    def __init__(self, address: str):
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise BuildError("--scheduler needs the package distributed (dask), which is not installed: "
                             "pip install -e '.[dist]' in the qare checkout") from None
        self.address = address

    def run(self, specs, work, done):
        from distributed import Client, as_completed as dask_completed

        with Client(self.address) as client:
            futs = {client.submit(work, s, False, pure=False): s for s in specs}
            for fut in dask_completed(futs):
                s = futs[fut]
                try:
                    result = fut.result()
                except Exception as e:
                    result = e
                done(s, result)


def make_runner(jobs: int, scheduler: str | None, n_todo: int, progress: bool, *,
                before_fork: Hook = None, spare: Hook = None) -> Runner:
    """The runner for a build: dask when a scheduler is given, else a pool
    for ``jobs`` > 1 and more than one project to analyse (with the hooks),
    else serial."""
    if scheduler:
        return DaskRunner(scheduler)
    if jobs <= 1 or n_todo <= 1:
        return SerialRunner(progress)
    return PoolRunner(jobs, before_fork=before_fork, spare=spare)
