"""Several jobs, each file parsed once: this process and ``jobs - 1`` forked
workers each start pass 1 on a share of the files (split by size) and then
parse the others' from their ends, so no process waits while another still
has a queue; each keeps its trees (within a budget of source bytes per
process). Every process then builds the project index itself from everyone's
facts and resolves (pass 2) the files whose trees it holds. A file without a
kept tree (past the budget, or its facts came from the cache) goes to
whichever process is free; a process that has run out of work takes the last
files of another's share (parsing them again), so again no process waits
idle while another still has a queue.

Why not a pool per pass: a tree-sitter tree cannot leave the process that
made it (it cannot be pickled), so with a pool for pass 1 and another forked
after the index every file was parsed twice (java.base: ~5.7 CPU-s more, a
third of the parse phase). The price here: each worker builds the index once
more (java.base ~2.6 CPU-s, at the same time as this process's) and the facts
of the others' files are pickled to it once. docs/callgraph.md "Several jobs"
has the figures.

Messages (worker → this process, over one socket pair per worker, read by
one thread per worker into a queue): ``("facts", [(i, result, kept), ...])``,
``("parsed", cpu)``, ``("indexed", cpu)``, ``("resolved", [result, ...])``,
``("done", cpu)``, ``("error", text)``; a worker that dies is an end of file
on its pipe. This process → worker: ``("peer", [(i, facts), ...])`` during
pass 1 (the facts this process and the other workers parsed, as they come),
``("index", order, facts)`` (the facts it has not had yet), then
``("resolve", todo, owner)`` or ``("stop",)``. File indices ``i`` are
positions in the discovered file list, ``fi`` positions in the kept list
(the project index's file indices).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import socket
import threading
import time
from dataclasses import dataclass
from typing import Callable

_BATCH = 8  # results per message: fewer, larger pickles
# Bytes a worker may have sent that this process has not read yet. The pipe
# is a Unix socket pair whose default send buffer (~200 KB) holds one or two
# batches; this process's reader thread needs the GIL for every chunk it
# reads, and gets it only when the resolving main thread yields it (every
# 5 ms), so the worker blocked in ``send`` for 10-15 s of a ~60 s pass 2
# (spring-framework, load 6) and did fewer files. The kernel doubles the
# value and caps it at ``net.core.wmem_max``.
_SOCKET_BUFFER = 4 << 20


@dataclass
class CrewPlan:
    """What every process of a crew needs; set before the fork, inherited by it.

    ``shares[p]``: the file indices process ``p`` parses first (0 is this
    process), ascending. ``budget``: source bytes of trees each process keeps.
    ``parse(i, keep)``: pass 1 of file ``i`` (appends ``(src, tree)`` to
    ``keep`` when it is a list). ``make_index(facts)``: the project index of
    the kept facts in order. ``setup(index, order, trees)``: get a worker
    ready to resolve (``trees``: ``fi → (src, tree)``). ``resolve(fi)``: pass 2
    of kept file ``fi``. ``sizes[i]``: file ``i``'s size in bytes.
    """

    shares: list
    budget: int
    sizes: list
    parse: Callable
    make_index: Callable
    setup: Callable
    resolve: Callable


def balanced_shares(todo: list, sizes: list, n: int) -> list:
    """``todo`` split into ``n`` ascending shares of about equal source bytes,
    each a run of neighbouring files (the list in file order, cut where the
    bytes so far reach ``k/n`` of all): files of one package ask the index
    mostly the same questions, so each process answers and fingerprints its
    own packages' look-ups rather than both processes every package's (see
    docs/callgraph.md "Shares of neighbouring files"). The same split for the
    same files. Each process starts pass 1 on its share; who parses the last
    files depends on timing (``_steal_order``)."""
    order = sorted(todo)
    total = sum(sizes[i] for i in order)
    shares: list = [[] for _ in range(n)]
    done = 0
    for i in order:
        # the share whose part of the bytes this file's middle falls in (on a cut: the lower)
        p = min(n - 1, max(0, ((2 * done + sizes[i]) * n - 1) // (2 * total))) if total else 0
        shares[p].append(i)
        done += sizes[i]
    return shares


class Crew:
    """This process and its forked workers (see the module docstring).

    Use: ``start``; iterate ``parse_all``; ``send_facts``; iterate
    ``resolve_all`` (or ``stop``); ``close``. ``cpu`` holds the workers' CPU
    seconds per phase (``parse``, ``index``, ``resolve``) once they have
    said them; a worker's CPU reaches ``RUSAGE_CHILDREN`` only when it is reaped.
    """

    def __init__(self, plan: CrewPlan):
        self.plan = plan
        self.n = len(plan.shares)
        self.trees: dict = {}  # this process's kept trees: i -> (src, tree)
        self.owner: dict = {}  # i -> process that keeps its tree
        self.cpu = {"parse": 0.0, "index": 0.0, "resolve": 0.0}
        self._cpu_seen = [0.0] * self.n
        self._procs: list = []
        self._conns: list = []
        self._threads: list = []
        self._q: queue.Queue = queue.Queue()
        self._alive = set()
        # file indices whose facts each worker has (parsed, or sent to it)
        self._known: list = [set() for _ in range(self.n)]
        self._taken = None
        self._claims = None
        self._lock = None

    # ------------------------------------------------------------ setup
    def start(self, n_files: int) -> "Crew":
        ctx = mp.get_context("fork")
        # one flag per file, set by the process that parses it (pass 1), and
        # one per kept file, set by the process that resolves it (pass 2)
        self._taken = ctx.RawArray("b", max(n_files, 1))
        self._claims = ctx.RawArray("b", max(n_files, 1))
        self._lock = ctx.Lock()
        for p in range(1, self.n):
            here, there = ctx.Pipe(duplex=True)
            _widen(here)
            _widen(there)
            proc = ctx.Process(target=self._worker, args=(p, there, here), daemon=True)
            proc.start()
            there.close()
            self._procs.append(proc)
            self._conns.append(here)
            self._alive.add(p)
        # threads only after every fork: a fork copies no thread but may copy a held lock
        for p, conn in enumerate(self._conns, start=1):
            t = threading.Thread(target=self._reader, args=(p, conn), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _reader(self, p: int, conn) -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                self._q.put((p, ("dead",)))
                return
            except Exception as e:  # a message that cannot be read: the worker is lost to us
                self._q.put((p, ("error", f"{type(e).__name__}: {e}")))
                return
            self._q.put((p, msg))
            if msg[0] in ("done", "error"):
                return

    def _send(self, p: int, msg) -> None:
        if p in self._alive:
            try:
                self._conns[p - 1].send(msg)
            except (OSError, EOFError, BrokenPipeError):
                self._alive.discard(p)

    def _lost(self, p: int) -> None:
        self._alive.discard(p)

    # ------------------------------------------------------------ pass 1
    def parse_all(self):
        """Yield ``(i, result)`` for every file of every share as it is parsed.

        This process parses its own share meanwhile, then the others' from
        their ends (``_steal_order``: no process waits while another still
        has a queue; this one also reads the workers' facts and writes the
        cache, so it is the slower one), and streams the facts it parsed to
        the workers as it goes, so a worker has them when it builds its index
        instead of waiting for one large message at the end. A dead worker's
        unparsed files are parsed here at the end."""
        plan = self.plan
        budget = plan.budget
        pending = set(range(1, self.n)) & self._alive
        got: set = set()
        out: list = []  # this process's facts not yet sent to the workers
        for i in _steal_order(0, plan.shares):
            if not self._take(self._taken, i):
                continue
            keep = [] if budget >= plan.sizes[i] else None
            r = plan.parse(i, keep)
            if keep:
                self.trees[i] = keep[0]
                self.owner[i] = 0
                budget -= len(keep[0][0])
            got.add(i)
            if r[0] is not None:
                out.append((i, r[0]))
                if len(out) >= _BATCH:
                    self._share(0, out)
                    out = []
            yield i, r
            yield from self._drain_facts(pending, got, block=False)
        self._share(0, out)
        while pending:
            yield from self._drain_facts(pending, got, block=True)
        for share in plan.shares:
            for i in share:
                if i not in got:  # taken by a worker that died
                    got.add(i)
                    yield i, plan.parse(i, None)

    def _share(self, p: int, batch: list) -> None:
        """Send the facts ``[(i, facts), ...]`` process ``p`` parsed to every
        other worker (a worker's own facts stay with it)."""
        if not batch:
            return
        for q in sorted(self._alive):
            if q != p:
                self._send(q, ("peer", batch))
                self._known[q].update(i for i, _ff in batch)

    def _drain_facts(self, pending: set, got: set, block: bool):
        while True:
            try:
                p, msg = self._q.get(block=block)
            except queue.Empty:
                return
            kind = msg[0]
            if kind == "facts":
                self._known[p].update(i for i, _r, _k in msg[1])
                if self.n > 2:  # the other workers need them too
                    self._share(p, [(i, r[0]) for i, r, _k in msg[1] if r[0] is not None])
                for i, r, kept in msg[1]:
                    got.add(i)
                    if kept:
                        self.owner[i] = p
                    yield i, r
            elif kind == "parsed":
                self._add_cpu(p, "parse", msg[1])
                pending.discard(p)
                return
            else:  # dead or error
                self._lost(p)
                pending.discard(p)
                return

    def _add_cpu(self, p: int, phase: str, total: float) -> None:
        self.cpu[phase] += total - self._cpu_seen[p]
        self._cpu_seen[p] = total

    # ------------------------------------------------------------ index
    def send_facts(self, order: list, facts: list) -> None:
        """Give every worker the kept files (``order``: their file indices, in
        the project index's order) and the facts it has not got yet (those
        of the warm cache, or redone here for a dead worker), so it builds
        the same index."""
        for p in sorted(self._alive):
            known = self._known[p]
            self._send(p, ("index", order, {i: facts[i] for i in order if i not in known}))

    def stop(self) -> None:
        """No pass 2 in the workers (nothing to resolve there)."""
        for p in sorted(self._alive):
            self._send(p, ("stop",))

    # ------------------------------------------------------------ pass 2
    def resolve_all(self, todo: list, fi_of: dict, local_resolve: Callable):
        """Yield the pass-2 result of every ``fi`` in ``todo``: each process
        takes its own trees first, then files nobody holds, then others'
        (last first). ``fi_of``: file index → kept index; ``local_resolve(fi)``
        resolves in this process (whose own trees its caller has handed over)."""
        owner_fi = {fi_of[i]: p for i, p in self.owner.items() if i in fi_of}
        for p in sorted(self._alive):
            self._send(p, ("resolve", todo, owner_fi))
        done: set = set()
        pending = set(self._alive)
        home_fi = _homes(self.plan.shares, fi_of)
        for fi in _claim_order(0, todo, owner_fi, home_fi):
            if not self._claim(fi):
                continue
            r = local_resolve(fi)
            done.add(fi)
            yield r
            yield from self._drain_results(pending, done, block=False)
        while pending:
            yield from self._drain_results(pending, done, block=True)
        for fi in todo:  # claimed by a worker that died before handing it back
            if fi not in done:
                done.add(fi)
                yield local_resolve(fi)

    def _claim(self, fi: int) -> bool:
        return self._take(self._claims, fi)

    def _take(self, flags, k: int) -> bool:
        """Set flag ``k`` unless another process has: True when this one did."""
        with self._lock:
            if flags[k]:
                return False
            flags[k] = 1
            return True

    def _drain_results(self, pending: set, done: set, block: bool):
        while True:
            try:
                p, msg = self._q.get(block=block)
            except queue.Empty:
                return
            kind = msg[0]
            if kind == "resolved":
                for r in msg[1]:
                    done.add(r[0])
                    yield r
            elif kind == "indexed":
                self._add_cpu(p, "index", msg[1])
            elif kind == "done":
                self._add_cpu(p, "resolve", msg[1])
                pending.discard(p)
                return
            elif kind in ("dead", "error"):
                self._lost(p)
                pending.discard(p)
                return

    def close(self) -> None:
        """Wait for (reap) every worker; a worker still running is ended."""
        for conn in self._conns:
            try:
                conn.close()
            except OSError:
                pass
        for proc in self._procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for t in self._threads:
            t.join(timeout=1)
        while not self._q.empty():  # "indexed" of a worker told to stop
            p, msg = self._q.get()
            if msg[0] == "indexed":
                self._add_cpu(p, "index", msg[1])
            elif msg[0] == "done":
                self._add_cpu(p, "resolve", msg[1])

    # ------------------------------------------------------------ worker
    def _worker(self, p: int, conn, parent_end) -> None:
        """The life of worker ``p`` (in the forked process)."""
        # this process's ends of the pipes (this worker's and its elder
        # siblings'), inherited by the fork: closed, so that the death of this
        # process is an end of file for the worker (and a sibling's for it)
        parent_end.close()
        for c in self._conns:
            c.close()
        plan = self.plan
        try:
            trees: dict = {}
            mine: dict = {}  # i -> facts: this worker's, and those the others parsed (sent to it)
            budget = plan.budget
            batch: list = []
            for i in _steal_order(p, plan.shares):
                if not self._take(self._taken, i):
                    continue
                keep = [] if budget >= plan.sizes[i] else None
                r = plan.parse(i, keep)
                kept = bool(keep)
                if kept:
                    trees[i] = keep[0]
                    budget -= len(keep[0][0])
                mine[i] = r[0]
                batch.append((i, r, kept))
                if len(batch) >= _BATCH:
                    conn.send(("facts", batch))
                    batch = []
                while conn.poll():  # the others' facts, read as they come (their sender need not wait)
                    msg = conn.recv()
                    if msg[0] != "peer":
                        return
                    mine.update(msg[1])
            conn.send(("facts", batch))
            conn.send(("parsed", time.process_time()))
            while True:
                msg = conn.recv()
                if msg[0] != "peer":
                    break
                mine.update(msg[1])
            if msg[0] != "index":
                return
            _, order, others = msg
            facts = [mine[i] if i in mine else others[i] for i in order]
            del others
            index = plan.make_index(facts)
            conn.send(("indexed", time.process_time()))
            msg = conn.recv()
            if msg[0] != "resolve":
                return
            _, todo, owner_fi = msg
            fi_of = {i: fi for fi, i in enumerate(order)}
            todo_set = set(todo)
            plan.setup(index, order, {fi_of[i]: t for i, t in trees.items()
                                      if i in fi_of and fi_of[i] in todo_set})
            trees.clear()
            mine.clear()
            batch = []
            for fi in _claim_order(p, todo, owner_fi, _homes(plan.shares, fi_of)):
                if not self._claim(fi):
                    continue
                batch.append(plan.resolve(fi))
                if len(batch) >= _BATCH:
                    conn.send(("resolved", batch))
                    batch = []
            conn.send(("resolved", batch))
            conn.send(("done", time.process_time()))
        except BaseException as e:  # noqa: BLE001 — told to this process, which redoes the work
            try:
                conn.send(("error", f"{type(e).__name__}: {e}"))
            except Exception:
                pass
        finally:
            conn.close()
            os._exit(0)  # no atexit handlers or finalisers of the parent's objects in a fork


def _widen(conn) -> None:
    """Give the socket under ``conn`` send and receive buffers of
    ``_SOCKET_BUFFER`` bytes (best effort: a refusal leaves the default)."""
    try:
        fd = os.dup(conn.fileno())
    except OSError:
        return
    try:
        sk = socket.socket(fileno=fd)
    except OSError:
        os.close(fd)
        return
    try:
        for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            sk.setsockopt(socket.SOL_SOCKET, opt, _SOCKET_BUFFER)
    except OSError:
        pass
    finally:
        sk.close()  # the duplicate only: the connection keeps its own descriptor


def _steal_order(p: int, shares: list):
    """Process ``p``'s order of parsing files in pass 1: its own share, then
    the others' from their ends (their owners work from the start)."""
    yield from shares[p]
    for q in range(len(shares)):
        if q != p:
            yield from reversed(shares[q])


def _homes(shares: list, fi_of: dict) -> dict:
    """Kept file index → the process whose pass-1 share held the file."""
    return {fi_of[i]: p for p, share in enumerate(shares) for i in share if i in fi_of}


def _claim_order(p: int, todo: list, owner_fi: dict, home_fi: dict | None = None):
    """Process ``p``'s order of taking files: its own trees, then the files
    no process holds — those of its own share first (neighbours of what it
    resolves anyway, see ``balanced_shares``), then the others from the end
    of the list —, then the others' trees from the end of the list."""
    home_fi = home_fi or {}
    own = [fi for fi in todo if owner_fi.get(fi) == p]
    free = [fi for fi in todo if fi not in owner_fi and home_fi.get(fi, p) == p]
    free_others = [fi for fi in reversed(todo) if fi not in owner_fi and home_fi.get(fi, p) != p]
    others = [fi for fi in reversed(todo) if owner_fi.get(fi, p) != p]
    yield from own
    yield from free
    yield from free_others
    yield from others
