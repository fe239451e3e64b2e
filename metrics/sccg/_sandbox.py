"""Sandboxed virtual execution of one generation (SCCGBench §IV-D, hardened).

Each generation runs in its own process: under bubblewrap (read-only root,
private tmpfs ``/tmp``, empty network and PID namespaces, dies with its
parent) when available, else as a plain subprocess (``isolated=False``).
Either way the child sets RLIMIT_CPU/AS/NPROC/FSIZE/NOFILE, drops root to
``nobody``, refuses Internet sockets and sees fake HTTP libraries; the parent
enforces a wall-clock timeout by killing the whole process group.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

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
        RLIMIT_AS, MiB of address space.
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
        ``exit`` (``sys.exit``), ``syntax_error``, ``no_function``,
        ``timeout`` (wall clock), ``cpu_limit`` (RLIMIT_CPU), ``killed``
        (another signal, e.g. memory), ``crashed`` (the process ended without
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
        Why the run was not isolated, when it was not.
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
        }


def _bwrap_command(limits: Limits) -> list[str]:
    return [
        shutil.which("bwrap") or "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--perms", "1777", "--size", str(limits.tmpfs_mb * 1024 * 1024), "--tmpfs", "/tmp",
        "--perms", "0777", "--dir", "/tmp/work",
        "--chdir", "/tmp/work",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--new-session", "--die-with-parent",
        "--setenv", "HOME", "/tmp/work",
        "--setenv", "TMPDIR", "/tmp/work",
    ] + _hide_homes()


#: Top-level folders masked by an empty tmpfs inside the sandbox (homes,
#: project and data trees; ``/tmp`` gets its own private tmpfs). What the
#: interpreter needs is re-bound read-only wherever it lives
#: (:func:`_interpreter_paths`): pyenv installs under /root, venvs anywhere.
HIDDEN_DIRS = ("/root", "/home", "/work", "/srv", "/mnt", "/media")

_ROOT = Path(__file__).resolve().parents[2]
# the source tree when run from a checkout; an installed copy has no repo to hide
_REPO = str(_ROOT) if (_ROOT / "pyproject.toml").is_file() else None


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


def _hide_homes() -> list[str]:
    """bwrap arguments masking :data:`HIDDEN_DIRS` and re-binding, read-only,
    the interpreter's paths that lie under them or under ``/tmp`` (which
    :func:`_bwrap_command` has already replaced by a tmpfs).

    A path is mounted at its own location from its resolved source; the tmpfs
    path components leading to it are created traversable by ``nobody``.
    A path equal to a masked top folder (or ``/``) is never re-bound: that
    would undo the mask.
    """
    tops = ("/tmp",) + tuple(t for t in HIDDEN_DIRS if os.path.isdir(t) and not os.path.islink(t))
    wanted = set()
    for p in _interpreter_paths():
        if p == "/" or p in tops or not os.path.exists(p):
            continue
        if any(_under(p, t) for t in tops):
            wanted.add(p)
    # an ancestor's bind already carries its descendants
    keep = sorted(p for p in wanted if not any(p != q and _under(p, q) for q in wanted))
    args: list[str] = []
    for top in tops:
        if top != "/tmp":
            args += ["--perms", "0755", "--tmpfs", top]
        for p in keep:
            if not _under(p, top):
                continue
            parts = p[len(top) + 1 :].split("/")
            for i in range(1, len(parts)):
                args += ["--perms", "0755", "--dir", top + "/" + "/".join(parts[:i])]
            args += ["--ro-bind", os.path.realpath(p), p]
    return args


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

    Returns
    -------
    (bool, str)
        ``(True, "")`` when a probe run under ``bwrap`` succeeded, else
        ``(False, reason)``.
    """
    if os.environ.get("QARE_SCCG_NO_BWRAP"):
        return False, "bwrap disabled by QARE_SCCG_NO_BWRAP"
    if shutil.which("bwrap") is None:
        return False, "bwrap not found (install the bubblewrap package)"
    try:
        proc = subprocess.run(
            _bwrap_command(Limits()) + [sys.executable, "-I", "-c", "import os; os.write(1, b'ok')"],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bwrap probe failed: {exc}"
    if proc.returncode != 0 or proc.stdout != b"ok":
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, f"bwrap unusable here (user namespaces?): {reason[-1] if reason else proc.returncode}"
    return True, ""


def _exited(pid: int) -> bool:
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def execute(code: str, function_name: str | None = None, *, limits: Limits = Limits(), sandbox: str = "auto") -> Execution:
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
    sandbox : {"auto", "bwrap", "none"}
        ``auto`` uses bubblewrap when :func:`sandbox_status` says it works,
        else the fallback; ``bwrap`` raises when it cannot; ``none`` forces
        the fallback (rlimits, dropped root, blocked sockets, throwaway
        working directory; *not* isolated).

    Returns
    -------
    Execution

    Raises
    ------
    ValueError
        Unknown *sandbox* mode.
    RuntimeError
        ``sandbox="bwrap"`` but bubblewrap is unusable.
    """
    if sandbox not in ("auto", "bwrap", "none"):
        raise ValueError(f"sandbox must be auto, bwrap or none, not {sandbox!r}")
    if not isinstance(code, str):
        raise TypeError("code must be str")
    ok, reason = sandbox_status() if sandbox != "none" else (False, "sandbox disabled (--sandbox none)")
    if sandbox == "bwrap" and not ok:
        raise RuntimeError(reason)
    use_bwrap = ok
    kind = "bwrap" if use_bwrap else "subprocess"
    if len(code.encode("utf-8", "replace")) > _MAX_CODE_BYTES:
        return Execution("syntax_error", use_bwrap, kind, error=f"code larger than {_MAX_CODE_BYTES} bytes", note=reason)
    workdir = None
    r, w = os.pipe()
    start = time.monotonic()
    try:
        if use_bwrap:
            cmd = _bwrap_command(limits) + [sys.executable, "-I", "-c", _CHILD_SOURCE]
            cwd = "/"
        else:
            workdir = tempfile.mkdtemp(prefix="qare-sccg-")
            os.chmod(workdir, 0o777)
            cmd = [sys.executable, "-I", "-c", _CHILD_SOURCE]
            cwd = workdir
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": workdir or "/tmp/work",
            "TMPDIR": workdir or "/tmp/work",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        uid = os.getuid()
        # uid 0 is exempt from RLIMIT_NPROC even without capabilities
        drop = uid == 0 and (use_bwrap or _readable_by_others(sys.base_prefix))
        if not use_bwrap and uid == 0 and not drop:
            reason += "; RLIMIT_NPROC not enforced (root, interpreter not readable by nobody)"
        nproc = _tasks_of(65534 if drop else uid) + limits.nproc
        job = {"code": code, "function_name": function_name, "fd": w, "drop_to_nobody": drop, "limits": {
            "cpu_s": limits.cpu_s, "memory_mb": limits.memory_mb, "nproc": nproc,
            "fsize_mb": limits.fsize_mb, "max_requests": limits.max_requests}}
        try:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(w,), start_new_session=True, cwd=cwd, env=env,
            )
        except OSError as exc:
            return Execution("sandbox_error", use_bwrap, kind, error=str(exc), note=reason)
        os.close(w)
        w = -1
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        events, timed_out = _read_events(r, proc.pid, start + limits.wall_s, limits.max_report_bytes)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers; the zombie keeps the pgid ours
        except (ProcessLookupError, PermissionError):
            pass
        rc = proc.wait()
        return _result(events, timed_out, rc, use_bwrap, kind, time.monotonic() - start, reason)
    finally:
        if w >= 0:
            os.close(w)
        os.close(r)
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)


def _read_events(r: int, pid: int, deadline: float, cap: int):
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
    events = []
    for line in bytes(buf).split(b"\n"):
        if line.strip():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue  # a torn or forged line
    return events, timed_out


def _result(events, timed_out, rc, isolated, kind, duration, reason) -> Execution:
    reqs = tuple(e for e in events if e.get("event") == "request")
    reqs = tuple({k: v for k, v in e.items() if k != "event"} for e in reqs)
    sockets = sum(1 for e in events if e.get("event") == "socket")
    done = next((e for e in events if e.get("event") == "done"), None)
    started = any(e.get("event") == "start" for e in events)
    common = dict(isolated=isolated, sandbox=kind, requests=reqs, socket_attempts=sockets,
                  duration_s=duration, note=reason)
    if done is not None:
        return Execution(done.get("status", "crashed"), error=done.get("error"), function=done.get("function"),
                         stdout_bytes=int(done.get("stdout_bytes") or 0), n_requests=int(done.get("n_requests") or 0),
                         **common)
    n = len(reqs)
    if timed_out:
        return Execution("timeout", error="wall-clock timeout", n_requests=n, **common)
    if not started:
        return Execution("sandbox_error", error=f"child exited with {rc} before starting", **common)
    if isolated and rc > 128:
        rc = -(rc - 128)  # bwrap reports a signalled child as 128 + signal
    if rc < 0:
        try:
            sig = signal.Signals(-rc)
        except ValueError:
            return Execution("killed", error=f"signal {-rc}", n_requests=n, **common)
        status = "cpu_limit" if sig in (signal.SIGXCPU,) else "killed"
        return Execution(status, error=sig.name, n_requests=n, **common)
    return Execution("crashed", error=f"exit code {rc} without a report", n_requests=n, **common)


def execute_many(jobs, *, n_jobs: int = 2, limits: Limits = Limits(), sandbox: str = "auto"):
    """Execute ``(code, function_name)`` pairs, *n_jobs* sandboxes at a time.

    Each job is its own sandboxed process; the pool's threads only start
    them and wait, so a thread pool is enough (no Python work is shared).

    Yields
    ------
    Execution
        In input order.
    """
    if n_jobs < 1:
        raise ValueError("n_jobs must be >= 1")
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        yield from pool.map(lambda job: execute(job[0], job[1], limits=limits, sandbox=sandbox), jobs)
