"""Sandboxed virtual execution of one generation (SCCGBench §IV-D, hardened).

Each generation runs in its own process under bubblewrap: only ``/usr`` and
the interpreter's folders bound read-only, private tmpfs ``/tmp``, empty
network, PID, IPC and UTS namespaces, a seccomp filter against new
namespaces, dies with its parent. Without a working bubblewrap nothing runs
unless the caller asks for ``none-unsafe`` (a plain subprocess,
``isolated=False``). Either way the child sets RLIMIT_CPU/AS/NPROC/FSIZE/
NOFILE, drops root to ``nobody``, refuses Internet sockets and sees fake
HTTP libraries; its report lines carry an HMAC; the parent enforces a
wall-clock timeout by killing the whole process group and decides kills
from what it observes itself.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import select
import hmac
import hashlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ._cgroup import MemoryCgroup
from ._seccomp import namespace_filter

_CHILD_SOURCE = (Path(__file__).with_name("_child.py")).read_text(encoding="utf-8")
_MAX_CODE_BYTES = 512_000


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one execution.

    Attributes
    ----------
    cpu_s : int
        RLIMIT_CPU soft limit, seconds of CPU (SIGXCPU, then SIGKILL one
        second later).
    wall_s : float
        Wall-clock timeout in seconds, enforced by the parent (SIGKILL to the
        process group).
    memory_mb : int
        RLIMIT_AS, MiB of address space (each process).
    total_memory_mb : int or None
        Memory of all the generation's processes together, MiB, enforced by
        a cgroup of its own (:mod:`._cgroup`; ``None`` = *memory_mb*). Where
        no memory cgroup can be made, only the per-process bounds hold (the
        execution's ``note`` says so).
    nproc : int
        RLIMIT_NPROC for the ``nobody`` user the child runs as.
    fsize_mb : int
        RLIMIT_FSIZE, largest file the child may write, MiB.
    tmpfs_mb : int
        Size of the sandbox's private ``/tmp`` (bubblewrap only), MiB.
    max_requests : int
        Requests recorded per execution; later ones are counted, not kept.
    max_report_bytes : int
        Bytes read from the child's report pipe; the rest is discarded.
    """

    cpu_s: int = 3
    wall_s: float = 10.0
    memory_mb: int = 512
    total_memory_mb: int | None = None
    nproc: int = 32
    fsize_mb: int = 8
    tmpfs_mb: int = 64
    max_requests: int = 50
    max_report_bytes: int = 2_000_000


@dataclass(frozen=True, slots=True)
class Execution:
    """What one sandboxed execution did.

    Attributes
    ----------
    status : str
        ``ok`` (the function returned), ``raised`` (an exception escaped),
        ``exit`` (``sys.exit``), ``syntax_error``, ``no_function``, and the
        kills (:data:`KILL_STATUSES`, decided by the parent from the wall
        clock and the exit signal, so never ``ok`` even after a capture):
        ``timeout`` (wall clock), ``cpu_limit`` (RLIMIT_CPU),
        ``memory_limit`` (a ``MemoryError`` under RLIMIT_AS escaped, or the
        kernel killed a process for the generation's cgroup memory limit),
        ``killed`` (another signal); ``crashed`` (the process ended without
        reporting, e.g. ``os._exit``), ``sandbox_error`` (the sandbox could
        not start).
    isolated : bool
        True when bubblewrap isolated the run; False for the fallback.
    sandbox : str
        ``bwrap`` or ``subprocess``.
    requests : tuple of dict
        Attempted requests in order: ``lib``, ``method``, ``url``, ``host``,
        ``route``, ``params`` (query string and ``params=`` merged),
        ``headers``, ``body``.
    socket_attempts : int
        Refused Internet connections/binds/DNS look-ups.
    error : str or None
        ``Type: message`` of the failure.
    function : str or None
        The function that was called.
    stdout_bytes : int
        Characters the generation printed (discarded).
    n_requests : int
        Requests attempted (may exceed ``len(requests)``).
    duration_s : float
        Wall time of the execution, seconds.
    note : str
        Why the run was not isolated, when it was not; report lines dropped.
    stand_ins : tuple of str
        ``module:NAME``, ``global:NAME``, ``env:NAME``, ``arg:self``,
        ``stdin:input``: each inert stand-in the run used (a module no finder
        has or a heavy one never imported, a global the snippet never
        defines, a key-like environment variable that is not set, the
        instance of a method cut out of its class, a line read by
        ``input()``).
    error_site : str or None
        Where the escaped exception was raised (innermost frame):
        ``generation:NAME`` (the generation's own function NAME) or
        ``library:NAME``; ``None`` when nothing escaped.
    """

    status: str
    isolated: bool
    sandbox: str
    requests: tuple = ()
    socket_attempts: int = 0
    error: str | None = None
    function: str | None = None
    stdout_bytes: int = 0
    n_requests: int = 0
    duration_s: float = 0.0
    note: str = ""
    stand_ins: tuple = ()
    error_site: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict (``requests`` as a list)."""
        return {
            "status": self.status,
            "isolated": self.isolated,
            "sandbox": self.sandbox,
            "requests": list(self.requests),
            "socket_attempts": self.socket_attempts,
            "error": self.error,
            "function": self.function,
            "stdout_bytes": self.stdout_bytes,
            "n_requests": self.n_requests,
            "duration_s": round(self.duration_s, 4),
            "note": self.note,
            "stand_ins": list(self.stand_ins),
            "error_site": self.error_site,
        }


#: ``--sandbox`` modes: ``auto`` and ``bwrap`` both need a working bubblewrap
#: and fail (:class:`SandboxUnavailable`) without one; only ``none-unsafe``
#: runs generations unisolated, and its name says so.
SANDBOX_MODES = ("auto", "bwrap", "none-unsafe")

#: Top-level folders of the host whose symlinks (Debian's merged ``/usr``) or
#: read-only copies the interpreter and its shared libraries need.
_USR_TOPS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")

_ROOT = Path(__file__).resolve().parents[2]
# the source tree when run from a checkout; an installed copy has no repo to hide
_REPO = str(_ROOT) if (_ROOT / "pyproject.toml").is_file() else None


class SandboxUnavailable(RuntimeError):
    """No working bubblewrap, and unisolated running was not asked for."""


class SandboxExposure(RuntimeError):
    """A protected path (gold data) lies inside something the sandbox must show."""


#: Folders never bound whole, even when ``sys.path`` names one: homes, data,
#: temporary and runtime trees (a venv *inside* one of them is bound alone).
_NEVER_BOUND = frozenset({"/", "/root", "/home", "/tmp", "/var", "/var/tmp", "/etc", "/work", "/srv", "/mnt",
                          "/media", "/run", "/proc", "/sys", "/dev", "/boot"})


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _interpreter_paths() -> list[str]:
    """Absolute paths the child interpreter needs, as given and resolved.

    The venv (``sys.prefix``), the base installation (``sys.base_prefix``,
    ``sys.exec_prefix``), ``sys.executable`` resolved and its folder, the
    ``home`` of a venv's base interpreter, site-packages and the other
    ``sys.path`` entries. ``sys.path`` entries inside or above this
    repository, the working directory and ``''`` are left out: the runner is
    self-contained and generations must not see the project's tree.
    """
    import site

    needed = [sys.prefix, sys.base_prefix, sys.exec_prefix, getattr(sys, "base_exec_prefix", sys.exec_prefix),
              os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]
    base_exe = getattr(sys, "_base_executable", None)
    if base_exe:
        needed += [os.path.dirname(base_exe), os.path.dirname(os.path.realpath(base_exe))]
    extra = list(site.getsitepackages())
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site:
        extra.append(user_site)
    cwd = os.path.realpath(os.getcwd())
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if real == cwd or (_REPO and (_under(real, _REPO) or _under(_REPO, real))):
            continue
        extra.append(entry)
    out = []
    for p in needed + extra:
        if not p:
            continue
        for q in (os.path.abspath(p), os.path.realpath(p)):
            if q not in out:
                out.append(q)
    return out


def _interpreter_binds() -> list[tuple[str, str]]:
    """``(source, destination)`` read-only binds for the interpreter outside ``/usr``.

    Each needed path (:func:`_interpreter_paths`) is mounted at its own
    location from its resolved source; a path whose ancestor is bound
    already is carried by that bind; ``/`` and ``/usr`` itself are never
    bound (``/usr`` is bound whole by :func:`_bwrap_command`).
    """
    wanted = set()
    for p in _interpreter_paths():
        if p == "/" or _under(p, "/usr") or not os.path.exists(p):
            continue
        if p in _NEVER_BOUND:
            # a top folder (/root, /home, /tmp, /var, ...) whole would undo the point
            continue
        wanted.add(p)
    keep = sorted(p for p in wanted if not any(p != q and _under(p, q) for q in wanted))
    return [(os.path.realpath(p), p) for p in keep]


def _check_protected(binds, protected) -> None:
    # /usr is bound whole (the interpreter's shared libraries live there), and
    # _interpreter_binds leaves out what lies under it: check it too
    binds = [("/usr", "/usr"), *binds]
    for path in protected:
        real = os.path.realpath(path)
        for src, dest in binds:
            if _under(real, src) or _under(real, os.path.realpath(dest)):
                raise SandboxExposure(f"{path} lies inside {dest}, which the sandbox shows to generated code "
                                      f"(the interpreter needs it); keep gold data elsewhere")


def _bwrap_command(limits: Limits, seccomp_fd: int, protected=()) -> list[str]:
    """The bubblewrap command line (without the program to run).

    Nothing of the host is visible but ``/usr`` (and Debian's ``/bin``,
    ``/lib*`` symlinks into it), the interpreter's own folders, a minimal
    ``/dev`` and a ``/proc`` of the sandbox's PID namespace: no ``/etc``,
    ``/var`` (``/var/tmp``), ``/root``, ``/home``, ``/run`` (host unix
    sockets) or the host's ``/tmp``. New namespaces are denied by the seccomp
    filter on *seccomp_fd* (:mod:`._seccomp`).

    Raises
    ------
    SandboxExposure
        A *protected* path lies inside one of the interpreter's folders.
    """
    binds = _interpreter_binds()
    _check_protected(binds, protected)
    args = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/usr", "/usr"]
    for top in _USR_TOPS:
        p = "/" + top
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    args += [
        "--perms", "1777", "--size", str(limits.tmpfs_mb * 1024 * 1024), "--tmpfs", "/tmp",
        "--perms", "0777", "--dir", "/tmp/work",
    ]
    made = {"/", "/tmp", "/tmp/work"}
    for src, dest in binds:
        # folders bwrap creates on the way would copy the host's modes (/root is 0700)
        parts = dest.strip("/").split("/")
        for i in range(1, len(parts)):
            d = "/" + "/".join(parts[:i])
            if d not in made:
                made.add(d)
                args += ["--perms", "0755", "--dir", d]
        args += ["--ro-bind", src, dest]
    args += [
        "--dev", "/dev",
        "--proc", "/proc",
        "--chdir", "/tmp/work",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--new-session", "--die-with-parent",
        "--seccomp", str(seccomp_fd),
        "--clearenv",
    ]
    if os.getuid() == 0:
        # the runner needs CAP_SETUID/SETGID once, to become the real nobody; setuid clears them
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for k, v in _child_env("/tmp/work").items():
        args += ["--setenv", k, v]
    return args


def _child_env(home: str) -> dict:
    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def _seccomp_fd() -> int:
    """A file descriptor holding the namespace filter, positioned at its start."""
    prog = namespace_filter()
    if prog is None:
        raise SandboxUnavailable(f"no seccomp namespace filter for {os.uname().machine}")
    fd = os.memfd_create("qare-sccg-seccomp", 0)  # no MFD_CLOEXEC: bwrap inherits it
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _tasks_of(uid: int) -> int:
    """Tasks (threads) the kernel counts against *uid* for RLIMIT_NPROC."""
    n = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if os.stat(entry.path).st_uid != uid:
                continue
            n += len(os.listdir(os.path.join(entry.path, "task")))
        except OSError:
            continue
    return n


def _readable_by_others(path: str) -> bool:
    p = os.path.realpath(path)
    while True:
        try:
            mode = os.stat(p).st_mode
        except OSError:
            return False
        if not mode & 0o005:
            return False
        parent = os.path.dirname(p)
        if parent == p:
            return True
        p = parent


@functools.lru_cache(maxsize=1)
def sandbox_status() -> tuple[bool, str]:
    """Whether bubblewrap can isolate a child here, and why not.

    The probe runs the real sandbox command (minimal binds, seccomp
    namespace filter, dropped capabilities) on ``python3 -I``; a missing,
    broken or too old ``bwrap`` (found on ``PATH``), or a kernel without
    the namespaces it needs, makes it fail. ``QARE_SCCG_NO_BWRAP=1`` in the
    environment makes it fail too (for tests).

    Returns
    -------
    (bool, str)
        ``(True, "")`` when the probe succeeded, else ``(False, reason)``.
    """
    if os.environ.get("QARE_SCCG_NO_BWRAP"):
        return False, "bwrap disabled by QARE_SCCG_NO_BWRAP"
    if shutil.which("bwrap") is None:
        return False, "bwrap not found on PATH (install the bubblewrap package)"
    if namespace_filter() is None:
        return False, f"no seccomp namespace filter for {os.uname().machine}"
    fd = _seccomp_fd()
    try:
        proc = subprocess.run(
            _bwrap_command(Limits(), fd) + [sys.executable, "-I", "-c", "import os; os.write(1, b'ok')"],
            capture_output=True, timeout=20, pass_fds=(fd,), cwd="/", env=_child_env("/"),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bwrap probe failed: {exc}"
    finally:
        os.close(fd)
    if proc.returncode != 0 or proc.stdout != b"ok":
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, f"bwrap unusable here: {reason[-1] if reason else f'exit code {proc.returncode}'}"
    return True, ""


def _exited(pid: int) -> bool:
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _resolve_mode(sandbox: str) -> tuple[bool, str]:
    """``(use_bwrap, note)`` for a ``--sandbox`` mode; raises when it cannot run."""
    if sandbox not in SANDBOX_MODES:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_MODES)}, not {sandbox!r}")
    if sandbox == "none-unsafe":
        return False, "NOT isolated: --sandbox none-unsafe"
    ok, reason = sandbox_status()
    if not ok:
        raise SandboxUnavailable(f"{reason}; generated code is never run unisolated unless asked "
                                 f"(--sandbox none-unsafe)")
    return True, ""


def execute(code: str, function_name: str | None = None, *, limits: Limits = Limits(), sandbox: str = "auto",
            protected=(), hints=None, stand_ins: bool = True) -> Execution:
    """Run *code* in a fresh sandboxed process and capture its requests.

    Parameters
    ----------
    code : str
        A generation: Python source defining the function to call.
    function_name : str, optional
        Function to call (``Class.method`` instantiates the class first);
        default or when absent: the first function the code defines.
    limits : Limits
        Resource limits.
    sandbox : {"auto", "bwrap", "none-unsafe"}
        ``auto`` and ``bwrap`` run under bubblewrap and raise
        :class:`SandboxUnavailable` when :func:`sandbox_status` says it does
        not work; ``none-unsafe`` runs a plain subprocess (rlimits, root
        dropped to ``nobody`` when qare runs as root, blocked sockets,
        throwaway working directory, cleared environment; *not* isolated:
        ``isolated`` is False and ``note`` says what was not contained).
    protected : iterable of str
        Paths (gold files) the generation must not be able to read: raises
        :class:`SandboxExposure` when one lies inside a folder the sandbox
        has to show.
    hints : dict, optional
        Parameter name → literal value (the gold's own parameter values): a
        function parameter of that name gets it instead of the name rules.
    stand_ins : bool
        Give unimportable modules, undefined globals and unset key-like
        environment variables inert stand-ins (recorded in
        :attr:`Execution.stand_ins`); off = they fail as in plain Python.

    Returns
    -------
    Execution

    Raises
    ------
    ValueError
        Unknown *sandbox* mode.
    SandboxUnavailable
        ``auto``/``bwrap`` without a working bubblewrap.
    SandboxExposure
    """
    if not isinstance(code, str):
        raise TypeError("code must be str")
    use_bwrap, reason = _resolve_mode(sandbox)
    kind = "bwrap" if use_bwrap else "subprocess"
    if len(code.encode("utf-8", "replace")) > _MAX_CODE_BYTES:
        return Execution("syntax_error", use_bwrap, kind, error=f"code larger than {_MAX_CODE_BYTES} bytes", note=reason)
    workdir = None
    cgroup = None
    seccomp = -1
    r, w = os.pipe()
    key = secrets.token_bytes(32)
    start = time.monotonic()
    try:
        uid = os.getuid()
        if use_bwrap:
            seccomp = _seccomp_fd()
            cmd = _bwrap_command(limits, seccomp, protected) + [sys.executable, "-I", "-c", _CHILD_SOURCE]
            cwd = "/"
            env = _child_env("/tmp/work")
            # the interpreter is bound into the sandbox: readable by nobody there
            drop, preload = uid == 0, False
        else:
            workdir = tempfile.mkdtemp(prefix="qare-sccg-")
            os.chmod(workdir, 0o777)
            cmd = [sys.executable, "-I", "-c", _CHILD_SOURCE]
            cwd = workdir
            env = _child_env(workdir)
            drop = uid == 0
            # as nobody, an interpreter under /root cannot import what it has not imported yet
            preload = drop and not _readable_by_others(sys.base_prefix)
            if drop:
                reason += ("; root dropped to nobody (uid 65534) before the generation runs"
                           + (", after preloading common modules (the interpreter is not readable by nobody)"
                              if preload else ""))
            else:
                reason += (f"; runs with the rights of uid {uid} (not root, so nothing to drop): it can read and "
                           f"write whatever that user can")
            reason += "; not contained: the file system, raw _socket, processes that setsid away"
        nproc = _tasks_of(65534 if drop else uid) + limits.nproc
        safe_hints = {str(k): v for k, v in (hints or {}).items() if isinstance(v, (str, int, float, bool))}
        job = {"code": code, "function_name": function_name, "fd": w, "key": key.hex(), "drop_to_nobody": drop,
               "preload": preload, "hints": safe_hints, "stand_ins": bool(stand_ins), "limits": {
                   "cpu_s": limits.cpu_s, "memory_mb": limits.memory_mb, "nproc": nproc,
                   "fsize_mb": limits.fsize_mb, "max_requests": limits.max_requests}}
        total = limits.total_memory_mb or limits.memory_mb
        cgroup, why = MemoryCgroup.create(total * 1024 * 1024)
        if cgroup is None:
            reason = (reason + "; " if reason else "") + (
                f"no memory cgroup ({why}): memory bounded per process only "
                f"({limits.memory_mb} MiB address space x {limits.nproc} processes)")
        else:
            cmd = cgroup.wrap(cmd)
        try:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(w,) + ((seccomp,) if seccomp >= 0 else ()), start_new_session=True, cwd=cwd, env=env,
            )
        except OSError as exc:
            if cgroup is not None:
                cgroup.remove()
            return Execution("sandbox_error", use_bwrap, kind, error=str(exc), note=reason)
        os.close(w)
        w = -1
        if seccomp >= 0:
            os.close(seccomp)
            seccomp = -1
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        lines, timed_out = _read_events(r, proc.pid, start + limits.wall_s, limits.max_report_bytes,
                                        cgroup.oom_kills if cgroup is not None else None)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers; the zombie keeps the pgid ours
        except (ProcessLookupError, PermissionError):
            pass
        rc = proc.wait()
        oom = 0
        if cgroup is not None:
            oom = cgroup.oom_kills()
            cgroup.remove()
            cgroup = None
        events, forged = _verified(lines, key)
        res = _result(events, timed_out, rc, use_bwrap, kind, time.monotonic() - start, reason, forged)
        if oom:
            # the kernel killed a process of the generation for the total: a kill, whatever else happened
            res = replace(res, status="memory_limit", error=(
                f"cgroup memory limit of the generation ({total} MiB, all processes together) exceeded: "
                f"{oom} process(es) killed by the kernel"))
        return res
    finally:
        if cgroup is not None:
            cgroup.remove()
        for fd in (w, seccomp):
            if fd >= 0:
                os.close(fd)
        os.close(r)
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)


def _read_events(r: int, pid: int, deadline: float, cap: int, oom_kills=None):
    # oom_kills: the cgroup's OOM-kill counter; once it moves, the generation
    # is over (the rest of its processes are killed with the group)
    buf = bytearray()
    got = 0
    exited_at = None
    timed_out = False
    while True:
        now = time.monotonic()
        if now >= deadline:
            timed_out = not _exited(pid)
            break
        if exited_at is None and _exited(pid):
            exited_at = now
        if exited_at is not None and now - exited_at > 0.5:
            break  # a descendant still holds the pipe; the group is killed next
        if oom_kills is not None and oom_kills():
            break
        ready, _, _ = select.select([r], [], [], min(0.05, deadline - now))
        if not ready:
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            stop = min(deadline, time.monotonic() + 1.0)
            while not _exited(pid) and time.monotonic() < stop:
                time.sleep(0.005)
            break
        if got < cap:
            buf.extend(chunk[: cap - got])
        got += len(chunk)
    return [line for line in bytes(buf).split(b"\n") if line.strip()], timed_out


def _verified(lines, key: bytes):
    """Report lines whose MAC checks out, in order, and the number rejected.

    Each line the runner writes is ``<hex HMAC-SHA256> <json>``, the MAC
    taken over ``"<n>:" + json`` with *n* its position among the runner's
    lines, under a per-run key the parent sent on stdin. A line without a
    valid MAC for the next position (written by the generation, replayed,
    torn) is dropped and counted.
    """
    events, rejected = [], 0
    for line in lines:
        mac, _, payload = line.partition(b" ")
        want = hmac.new(key, f"{len(events)}:".encode() + payload, hashlib.sha256).hexdigest().encode()
        if not hmac.compare_digest(mac, want):
            rejected += 1
            continue
        try:
            obj = json.loads(payload)
        except (ValueError, RecursionError):
            rejected += 1
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return events, rejected


#: Statuses of a run the sandbox ended: never ``ok``, whatever was captured before.
KILL_STATUSES = ("timeout", "cpu_limit", "memory_limit", "killed")


def _result(events, timed_out, rc, isolated, kind, duration, reason, rejected=0) -> Execution:
    reqs = tuple(e for e in events if e.get("event") == "request")
    reqs = tuple({k: v for k, v in e.items() if k != "event"} for e in reqs)
    sockets = sum(1 for e in events if e.get("event") == "socket")
    done = next((e for e in events if e.get("event") == "done"), None)
    started = any(e.get("event") == "start" for e in events)
    if rejected:
        reason = (reason + "; " if reason else "") + f"{rejected} report line(s) without a valid MAC ignored"
    stand = tuple(f"{e.get('kind')}:{e.get('name')}" for e in events if e.get("event") == "stand_in")
    common = dict(isolated=isolated, sandbox=kind, requests=reqs, socket_attempts=sockets,
                  duration_s=duration, note=reason, stand_ins=stand)
    n = int(done.get("n_requests") or len(reqs)) if done else len(reqs)
    # the parent's own observations (wall clock, exit signal) come first: a
    # run that was killed is reported killed even after a capture or a report
    if timed_out:
        return Execution("timeout", error="wall-clock timeout", n_requests=n, **common)
    if isolated and rc > 128:
        rc = -(rc - 128)  # bwrap reports a signalled child as 128 + signal
    if rc < 0:
        try:
            sig = signal.Signals(-rc)
        except ValueError:
            return Execution("killed", error=f"signal {-rc}", n_requests=n, **common)
        status = "cpu_limit" if sig == signal.SIGXCPU else "killed"
        return Execution(status, error=sig.name, n_requests=n, **common)
    if done is not None:
        site = done.get("error_site")
        return Execution(str(done.get("status", "crashed")), error=done.get("error"), function=done.get("function"),
                         error_site=site if isinstance(site, str) else None,
                         stdout_bytes=int(done.get("stdout_bytes") or 0), n_requests=n, **common)
    if not started:
        return Execution("sandbox_error", error=f"child exited with {rc} before starting", **common)
    return Execution("crashed", error=f"exit code {rc} without a report", n_requests=n, **common)


def execute_many(jobs, *, n_jobs: int = 2, limits: Limits = Limits(), sandbox: str = "auto", protected=(),
                 stand_ins: bool = True):
    """Execute ``(code, function_name)`` or ``(code, function_name, hints)``
    tuples, *n_jobs* sandboxes at a time (see :func:`execute`).

    Each job is its own sandboxed process; the pool's threads only start
    them and wait, so a thread pool is enough (no Python work is shared).

    Yields
    ------
    Execution
        In input order.
    """
    if n_jobs < 1:
        raise ValueError("n_jobs must be >= 1")
    _resolve_mode(sandbox)  # fail before the first job, not inside the pool
    if sandbox != "none-unsafe":
        _check_protected(_interpreter_binds(), protected)
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        yield from pool.map(lambda job: execute(job[0], job[1], limits=limits, sandbox=sandbox, protected=protected,
                                                  hints=job[2] if len(job) > 2 else None, stand_ins=stand_ins), jobs)
