"""A memory cgroup per generation: one bound on the memory of all its processes.

RLIMIT_AS bounds each process; a generation that forks N children may use
N times that (issue 16: 10 × 450 MiB children were ``ok``). A cgroup counts
the resident memory of every process in it, so each execution gets a fresh
child cgroup of the cgroup qare runs in, with ``memory.max`` (v2) or
``memory.limit_in_bytes`` (v1) set to :attr:`Limits.total_memory_mb`, and
the sandbox command is started inside it (``/bin/sh`` writes its own PID
into ``cgroup.procs`` and ``exec``\\ s bubblewrap, so every descendant is
in it from its first instruction). When the kernel's OOM killer fires in
that cgroup, the parent kills the whole process group and reports
``memory_limit``.

Which hierarchy: cgroup v2 when the unified hierarchy of this process
offers the ``memory`` controller; else the v1 ``memory`` hierarchy (hybrid
systems such as this container: v2 offers only ``hugetlb``). Unusable (no
memory controller, cgroup folder not writable — unprivileged users, most
containers — or creating a child fails): :func:`memory_cgroup_status` says
why, and the execution's ``note`` says the memory is bounded per process
only (RLIMIT_AS times RLIMIT_NPROC processes).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import signal
import stat
import threading
import time

from records.io import pid_alive

_counter = itertools.count()
_lock = threading.Lock()


def _mounts():
    """(mount root, mount point, fstype, super options) of cgroup mounts."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        f, r = left.split(), right.split()
        if len(f) >= 5 and len(r) >= 3 and r[0] in ("cgroup", "cgroup2"):
            out.append((f[3], f[4].replace("\\040", " "), r[0], set(r[2].split(","))))
    return out


def _own_cgroups() -> dict:
    """Controller (``""`` for v2) → this process's cgroup path."""
    out = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    for c in parts[1].split(",") if parts[1] else [""]:
                        out[c] = parts[2]
    except OSError:
        pass
    return out


def _join(mount_root: str, mount_point: str, path: str) -> str | None:
    rel = os.path.relpath(path, mount_root) if path.startswith(mount_root) else None
    if rel is None or rel.startswith(".."):
        return None
    return os.path.normpath(os.path.join(mount_point, rel))


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read()
    except OSError:
        return ""


@functools.lru_cache(maxsize=1)
def _parent() -> tuple[str | None, int, str]:
    """(folder to create cgroups in, version 1 or 2, why not) — found once."""
    own = _own_cgroups()
    mounts = _mounts()
    for root, point, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in own:
            d = _join(root, point, own[""])
            if d and "memory" in _read(os.path.join(d, "cgroup.controllers")).split():
                # a v2 child gets the controller only if the parent already
                # delegates it; qare does not change the hierarchy's settings
                # (enabling it needs the folder to hold no process itself)
                if "memory" in _read(os.path.join(d, "cgroup.subtree_control")).split() and os.access(d, os.W_OK):
                    return d, 2, ""
    for root, point, fstype, opts in mounts:
        if fstype == "cgroup" and "memory" in opts and "memory" in own:
            d = _join(root, point, own["memory"])
            if d and os.path.isfile(os.path.join(d, "memory.limit_in_bytes")):
                if os.access(d, os.W_OK):
                    return d, 1, ""
                return None, 0, f"the memory cgroup {d} is not writable by uid {os.getuid()}"
    return None, 0, "no cgroup hierarchy with the memory controller is mounted for this process"


_STALE_NAME = re.compile(r"qare-sccg-([0-9]+)-[0-9]+", re.ASCII)


def _remove_stale(parent: str) -> None:
    """Remove empty ``qare-sccg-<pid>-<n>`` cgroups of qare processes that are
    gone (a qare killed by a signal cannot remove its own).

    ``parent`` is the folder qare creates its cgroups in (:func:`_parent`); only
    folders whose whole name is qare's pattern (ASCII digits where qare puts
    digits), that are folders themselves (not symlinks) and belong to this user
    are touched: another program's cgroup that happens to start alike is left alone."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        m = _STALE_NAME.fullmatch(name)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or pid_alive(pid):
            continue
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            os.rmdir(path)  # fails (EBUSY) while a process is still in it
        except OSError:
            pass


class MemoryCgroup:
    """One execution's cgroup (create with :meth:`create`).

    Attributes
    ----------
    path : str
        The cgroup folder.
    version : int
        1 or 2.
    limit_bytes : int
        The memory limit of all its processes together.
    """

    def __init__(self, path: str, version: int, limit_bytes: int):
        self.path, self.version, self.limit_bytes = path, version, limit_bytes

    @classmethod
    def create(cls, limit_bytes: int) -> tuple["MemoryCgroup | None", str]:
        """A fresh cgroup limited to *limit_bytes*, or ``(None, why not)``."""
        parent, version, why = _parent()
        if parent is None:
            return None, why
        with _lock:
            n = next(_counter)
            name = f"qare-sccg-{os.getpid()}-{n}"
        if n == 0:
            _remove_stale(parent)
        path = os.path.join(parent, name)
        try:
            os.mkdir(path)
        except OSError as exc:
            return None, f"cannot create a cgroup in {parent}: {exc.strerror}"
        cg = cls(path, version, limit_bytes)
        try:
            if version == 2:
                cg._write("memory.max", str(limit_bytes))
                cg._write("memory.swap.max", "0", optional=True)
                cg._write("memory.oom.group", "1", optional=True)  # the OOM killer takes the whole generation
            else:
                cg._write("memory.limit_in_bytes", str(limit_bytes))
                # memory + swap together, so the generation cannot swap its way past the limit
                cg._write("memory.memsw.limit_in_bytes", str(limit_bytes), optional=True)
        except OSError as exc:
            cg.remove()
            return None, f"cannot set the memory limit of {path}: {exc.strerror}"
        return cg, ""

    def _write(self, name: str, value: str, optional: bool = False) -> None:
        try:
            with open(os.path.join(self.path, name), "w") as fh:
                fh.write(value)
        except OSError:
            if not optional:
                raise

    @property
    def procs_file(self) -> str:
        """``cgroup.procs``: a PID written there moves that process in."""
        return os.path.join(self.path, "cgroup.procs")

    def wrap(self, cmd: list[str]) -> list[str]:
        """*cmd* started inside this cgroup (the shell moves itself in, then ``exec``\\ s)."""
        # unset: sh exports PWD, and the environment of the command must stay the one given
        return ["/bin/sh", "-c", 'echo $$ > "$0" && unset PWD OLDPWD && exec "$@"', self.procs_file] + list(cmd)

    def oom_kills(self) -> int:
        """Processes the kernel's OOM killer killed in this cgroup so far."""
        if self.version == 2:
            text = _read(os.path.join(self.path, "memory.events"))
        else:
            text = _read(os.path.join(self.path, "memory.oom_control"))
        for line in text.splitlines():
            k, _, v = line.partition(" ")
            if k == "oom_kill" and v.strip().isdigit():
                return int(v)
        return 0

    def remove(self) -> None:
        """Kill what is left in the cgroup and remove it (best effort, bounded)."""
        for _ in range(50):
            pids = [int(p) for p in _read(self.procs_file).split() if p.isdigit()]
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def memory_cgroup_status() -> tuple[bool, str]:
    """Whether each execution can get its own memory cgroup, and how (or why not).

    Probed by creating (and removing) one cgroup.
    """
    cg, why = MemoryCgroup.create(64 * 1024 * 1024)
    if cg is None:
        return False, why
    cg.remove()
    return True, f"cgroup v{cg.version} under {os.path.dirname(cg.path)}"
