"""Sandboxed execution of hostile and ordinary generations, scored exactly."""

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from metrics.sccg import Limits, evaluate, execute, sandbox_status, summarise
from metrics.sccg import _sandbox

BWRAP_OK, BWRAP_WHY = sandbox_status()
# without a working bwrap, auto refuses; the same cases then run opted-in unsafe
MODE = "auto" if BWRAP_OK else "none-unsafe"
LIMITS = Limits(cpu_s=1, wall_s=6.0, memory_mb=256)
GOLD = {
    "sample_id": "w1",
    "api_host": "weather.p.rapidapi.com",
    "function_name": "get_weather",
    "api_metadata": {
        "url": "https://weather.p.rapidapi.com/forecast/{location}",
        "route": "/forecast/{location}",
        "method": "GET",
        "params": [{"name": "days", "in": "query"}, {"name": "units", "in": "query"}, {"name": "location", "in": "path"}],
        "doc_match_type": "route",
    },
    "comments_source": "original",
}
HIT_URL = 'f"https://weather.p.rapidapi.com/forecast/{city}"'
OUTSIDE = Path("/var/tmp") / f"qare-sccg-test-{os.getpid()}"


def g(body: str) -> str:
    return textwrap.dedent(body).strip() + "\n"


GENERATIONS = {
    "hit": g(f"""
        import requests

        def get_weather(city, days):
            try:
                r = requests.get({HIT_URL}, params={{"days": days, "lang": "en"}},
                                 headers={{"X-RapidAPI-Key": "YOUR_RAPIDAPI_KEY"}})
                r.raise_for_status()
                return r.json()
            except requests.exceptions.RequestException as exc:
                return None
        """),
    "wrong_host": g("""
        import requests
        def get_weather(city):
            return requests.get("https://api.openweathermap.org/data/2.5/forecast", params={"q": city}).json()
        """),
    "wrong_endpoint": g("""
        import requests
        def get_weather(city):
            return requests.get(f"https://weather.p.rapidapi.com/current/{city}").json()
        """),
    "wrong_method": g(f"""
        import requests
        def get_weather(city):
            return requests.post({HIT_URL}, json={{"days": 3, "units": "metric"}}).json()
        """),
    "httpx_client": g("""
        import httpx
        def get_weather(location: str, days: int = 3):
            with httpx.Client(base_url="https://weather.p.rapidapi.com") as c:
                resp = c.get(f"/forecast/{location}", params={"days": days, "units": "metric"})
            if resp.status_code != 200:
                return None
            return resp.json()
        """),
    "aiohttp_async": g(f"""
        import aiohttp
        async def get_weather(city):
            async with aiohttp.ClientSession(headers={{"X-RapidAPI-Host": "weather.p.rapidapi.com"}}) as s:
                async with s.get({HIT_URL}, params={{"units": "metric"}}) as resp:
                    return await resp.json()
        """),
    "urllib": g("""
        import json, urllib.request
        def get_weather(city):
            req = urllib.request.Request("https://weather.p.rapidapi.com/forecast/" + city + "?days=2")
            with urllib.request.urlopen(req) as fh:
                return json.load(fh)
        """),
    "loop_after_request": g(f"""
        import requests
        def get_weather(city):
            requests.get({HIT_URL})
            while True:
                pass
        """),
    "loop": g("""
        def get_weather(city):
            n = 0
            while True:
                n += 1
        """),
    "sleep": g("""
        import time
        def get_weather(city):
            time.sleep(3600)
        """),
    "memory": g("""
        def get_weather(city):
            blocks = []
            while True:
                blocks.append(bytearray(50_000_000))
        """),
    "socket": g("""
        import socket
        def get_weather(city):
            s = socket.create_connection(("weather.p.rapidapi.com", 443), timeout=2)
            return s.recv(10)
        """),
    "write_outside": g(f"""
        def get_weather(city):
            open("{OUTSIDE}/pwned.txt", "w").write("x")
        """),
    "write_own_dir": g("""
        import os
        def get_weather(city):
            with open("scratch.txt", "w") as fh:
                fh.write("ok")
            return os.listdir(".")
        """),
    "sys_exit": g(f"""
        import sys, requests
        def get_weather(city):
            requests.get({HIT_URL})
            sys.exit(0)
        """),
    "raises": g("""
        def get_weather(city):
            raise RuntimeError("no key configured")
        """),
    "fork_bomb_lite": g("""
        import os, time
        def get_weather(city):
            for _ in range(400):
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
        """),
    "huge_output": g(f"""
        import requests
        def get_weather(city):
            chunk = "x" * 1_000_000
            for _ in range(40):
                print(chunk)
            return requests.get({HIT_URL}).json()
        """),
    "os_exit": g(f"""
        import os, requests
        def get_weather(city):
            requests.get({HIT_URL})
            os._exit(0)
        """),
    "syntax": "def get_weather(city)\n    return 1\n",
    "secret": g(f"""
        import requests
        def get_weather(city):
            headers = {{"X-RapidAPI-Key": "3f9a1b2c4dmsh5e6f7a8b9c0d1e2f3jsn4a5b6c7d8e9f"}}
            return requests.get({HIT_URL}, headers=headers).json()
        """),
}

# (stage, exec_req, host, endpoint, method, param_f1, mock, robust, secret)
EXPECTED = {
    "hit": ("mock_hit", True, True, True, True, 0.5, True, True, True),
    "wrong_host": ("host", True, False, False, True, 0.0, False, False, True),
    "wrong_endpoint": ("endpoint", True, True, False, True, 0.0, False, False, True),
    "wrong_method": ("method", True, True, True, False, 1.0, False, False, True),
    "httpx_client": ("mock_hit", True, True, True, True, 1.0, True, False, True),
    "aiohttp_async": ("mock_hit", True, True, True, True, 2 / 3, True, False, True),
    "urllib": ("mock_hit", True, True, True, True, 2 / 3, True, False, True),
    "loop_after_request": ("mock_hit", True, True, True, True, 0.0, True, False, True),
    "loop": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "sleep": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "memory": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "socket": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "write_outside": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "write_own_dir": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "sys_exit": ("mock_hit", True, True, True, True, 0.0, True, False, True),
    "raises": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "fork_bomb_lite": ("request_construction", False, False, False, False, 0.0, False, False, True),
    "huge_output": ("mock_hit", True, True, True, True, 0.0, True, False, True),
    "os_exit": ("mock_hit", True, True, True, True, 0.0, True, False, True),
    "syntax": ("syntax", False, False, False, False, 0.0, False, False, True),
    "secret": ("mock_hit", True, True, True, True, 0.0, True, False, False),
}


def _nobody_tasks():
    return _sandbox._tasks_of(65534)


@pytest.fixture(scope="module")
def rows():
    OUTSIDE.mkdir(exist_ok=True)
    try:
        before = _nobody_tasks()
        t0 = time.monotonic()
        gens = [{"sample_id": "w1", "name": k, "code": v} for k, v in GENERATIONS.items()]
        out = list(evaluate(gens, {"w1": GOLD}, n_jobs=2, limits=LIMITS, sandbox=MODE))
        elapsed = time.monotonic() - t0
        time.sleep(0.3)
        after = _nobody_tasks()
        written = sorted(p.name for p in OUTSIDE.iterdir())
    finally:
        for p in OUTSIDE.glob("*"):
            p.unlink()
        OUTSIDE.rmdir()
    return dict(zip(GENERATIONS, out)), elapsed, before, after, written


def test_every_generation_scored_exactly(rows):
    by_name = rows[0]
    got = {
        k: (
            r["scores"]["stage"],
            r["scores"]["exec_req"],
            r["scores"]["host"],
            r["scores"]["endpoint"],
            r["scores"]["method"],
            round(r["scores"]["param_f1"], 6),
            r["scores"]["mock"],
            r["scores"]["robust"],
            r["scores"]["secret"],
        )
        for k, r in by_name.items()
    }
    assert got == {k: v[:5] + (round(v[5], 6),) + v[6:] for k, v in EXPECTED.items()}


def test_statuses_and_containment(rows):
    by_name, elapsed, *_ = rows
    status = {k: r["execution"]["status"] for k, r in by_name.items()}
    assert status["hit"] == "ok" and status["urllib"] == "ok" and status["aiohttp_async"] == "ok"
    assert status["loop"] in ("cpu_limit", "timeout")
    assert status["loop_after_request"] in ("cpu_limit", "timeout")
    assert status["sleep"] == "timeout"
    assert status["memory"] in ("memory_limit", "killed")
    assert status["sys_exit"] == "exit"
    assert status["raises"] == "raised"
    assert status["os_exit"] == "crashed"
    assert status["syntax"] == "syntax_error"
    assert status["huge_output"] == "ok"
    assert by_name["huge_output"]["execution"]["stdout_bytes"] == 40 * 1_000_001
    assert by_name["raises"]["execution"]["error"] == "RuntimeError: no key configured"
    # every execution ended within its wall limit (plus scheduling slack)
    for k, r in by_name.items():
        assert r["execution"]["duration_s"] < LIMITS.wall_s + 2.0, k
    assert elapsed < 120  # 21 runs, two at a time, four of them hit a limit


def test_network_is_refused(rows):
    ex = rows[0]["socket"]["execution"]
    assert ex["status"] == "raised"
    assert ex["socket_attempts"] == 1
    assert ex["error"].startswith("SandboxNetworkError")
    assert ex["requests"] == []


def test_write_outside_lands_nowhere(rows):
    by_name, _, _, _, written = rows
    if not BWRAP_OK:
        # the fallback cannot stop writes: it must say so
        assert by_name["write_outside"]["execution"]["isolated"] is False
        assert by_name["write_outside"]["execution"]["note"]
        return
    assert written == []
    assert by_name["write_outside"]["execution"]["status"] == "raised"
    if BWRAP_OK:
        # /var/tmp is not in the sandbox at all
        assert by_name["write_outside"]["execution"]["error"].startswith("FileNotFoundError")
        # its own working directory is writable
        assert by_name["write_own_dir"]["execution"]["status"] == "ok"


def test_fork_bomb_bounded_and_reaped(rows):
    by_name, _, before, after, _ = rows
    ex = by_name["fork_bomb_lite"]["execution"]
    if BWRAP_OK:
        assert ex["status"] == "raised" and ex["error"].startswith("BlockingIOError")
    assert after <= before  # no sandboxed process survives its run


def test_isolation_reported(rows):
    for r in rows[0].values():
        assert r["execution"]["isolated"] is BWRAP_OK
        assert r["execution"]["sandbox"] == ("bwrap" if BWRAP_OK else "subprocess")


@pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap unusable here: {BWRAP_WHY}")
def test_bwrap_is_used_when_available():
    ex = execute("import socket\ndef f():\n    socket.socket().connect(('10.0.0.1', 80))\n", sandbox="bwrap")
    assert ex.isolated is True and ex.sandbox == "bwrap" and ex.socket_attempts == 1


def test_fallback_contains_loops_and_memory_and_says_not_isolated():
    loop = execute("def f():\n    while True:\n        pass\n", limits=LIMITS, sandbox="none-unsafe")
    assert loop.isolated is False and loop.sandbox == "subprocess"
    assert loop.status in ("cpu_limit", "timeout")
    assert "NOT isolated" in loop.note
    mem = execute("def f():\n    x = []\n    while True:\n        x.append(bytearray(50_000_000))\n",
                  limits=LIMITS, sandbox="none-unsafe")
    assert mem.isolated is False and mem.status in ("memory_limit", "killed")
    sock = execute("import socket\ndef f():\n    socket.create_connection(('10.0.0.1', 80))\n", sandbox="none-unsafe")
    assert sock.socket_attempts == 1 and sock.status == "raised"


def test_auto_refuses_when_bwrap_unusable(monkeypatch):
    # issue 15 item 2: never unisolated by default
    monkeypatch.setattr(_sandbox, "sandbox_status", lambda: (False, "bwrap unusable here: test"))
    for mode in ("auto", "bwrap"):
        with pytest.raises(_sandbox.SandboxUnavailable, match="bwrap unusable here: test.*none-unsafe"):
            _sandbox.execute("import requests\ndef f(q):\n    requests.get('https://a.example.com/x')\n", sandbox=mode)
    ex = _sandbox.execute("import requests\ndef f(q):\n    requests.get('https://a.example.com/x', params={'q': q})\n",
                          sandbox="none-unsafe")
    assert ex.isolated is False and ex.sandbox == "subprocess" and "NOT isolated" in ex.note
    assert ex.requests[0]["params"] == {"q": "test"}
    with pytest.raises(ValueError, match="none-unsafe"):
        _sandbox.execute("def f():\n    pass\n", sandbox="none")


def test_summary_over_the_run(rows):
    s = summarise(rows[0].values(), ks=(1,))
    n = len(EXPECTED)
    mocks = sum(v[6] for v in EXPECTED.values())
    assert s["overall"]["n"] == n
    assert s["overall"]["mock"] == pytest.approx(mocks / n)
    assert s["failure_attribution"]["host"]["count"] == 1
    assert s["failure_attribution"]["syntax"]["count"] == 1
    assert s["failure_attribution"]["mock_hit"]["count"] == mocks
    assert s["groups"]["doc_match_type"]["route"]["n"] == n
    # 21 generations of one sample, `mocks` of them hit: pass@1 = c / n
    assert s["pass_at_k"]["1"] == {"value": pytest.approx(mocks / n), "samples": 1}


def test_argument_value_rules():
    code = g("""
        import requests
        from typing import Optional

        def lookup(city, lat, lon: float, limit, page, api_key, user_id, verbose, count: int,
                   name: str, date, q: Optional[int], days=7, *args, **kw):
            requests.get("https://a.example.com/x", params=dict(
                city=city, lat=lat, lon=lon, limit=limit, page=page, api_key=api_key, user_id=user_id,
                verbose=verbose, count=count, name=name, date=date, q=q, days=days, args=len(args)))
        """)
    ex = execute(code, "lookup", limits=LIMITS, sandbox=MODE)
    assert ex.status == "ok", ex.error
    assert ex.requests[0]["params"] == {
        "city": "London", "lat": 51.5074, "lon": -0.1278, "limit": 10, "page": 1, "api_key": "test-api-key",
        "user_id": "1", "verbose": False, "count": 10, "name": "test", "date": "2024-01-01", "q": 1,
        "days": 7, "args": 0,
    }


def test_method_target_and_first_function_fallback():
    code = g("""
        import httpx
        class Api:
            def __init__(self, token):
                self.token = token
            def fetch(self, symbol):
                return httpx.get("https://q.example.com/quote/" + symbol, headers={"Authorization": self.token})
        def helper():
            return 1
        """)
    ex = execute(code, "Api.fetch", limits=LIMITS, sandbox=MODE)
    assert (ex.status, ex.function) == ("ok", "Api.fetch")
    assert ex.requests[0]["route"] == "/quote/AAPL" and ex.requests[0]["headers"] == {"Authorization": "test-api-key"}
    assert execute(code, "missing_name", limits=LIMITS, sandbox=MODE).function == "helper"  # first top-level function
    assert execute("x = 1\n", "f", limits=LIMITS, sandbox=MODE).status == "no_function"


@pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap unusable here: {BWRAP_WHY}")
def test_hidden_trees_are_empty_inside():
    repo = Path(__file__).resolve().parents[2]
    code = g(f"""
        import os, requests
        def f():
            try:
                seen = ",".join(sorted(os.listdir({str(repo)!r})))
            except OSError as exc:
                seen = type(exc).__name__
            requests.get("https://a.example.com/x", params={{"root": ",".join(os.listdir("/root")), "repo": seen}})
        """)
    ex = execute(code, "f", limits=LIMITS)
    params = ex.requests[0]["params"]
    assert params["root"] in ("", ".pyenv")  # only the interpreter's prefix is re-bound
    # the checkout is hidden; a virtual environment inside it (as the README
    # suggests) is the interpreter's prefix, re-bound read-only: then the
    # checkout shows that one folder and nothing else of it
    inside = sorted({Path(p).resolve().relative_to(repo).parts[0] for p in (sys.prefix, sys.base_prefix)
                     if Path(p).resolve().is_relative_to(repo) and Path(p).resolve() != repo})
    assert params["repo"] == (",".join(inside) if inside else "FileNotFoundError")


_VENV_SCRIPT = '''
import json, sys
from metrics.sccg import execute, sandbox_status
venv, secret = sys.argv[1], sys.argv[2]
gens = {
    "request": "import requests\\ndef f(city):\\n    requests.get('https://a.example.com/w/' + city, params={'d': 2})\\n",
    "read_secret": "def f():\\n    return open(%r).read()\\n" % secret,
    "write_venv": "def f():\\n    open(%r, 'w').write('x')\\n" % (venv + "/pwned.txt"),
}
out = {"prefix": sys.prefix, "base_prefix": sys.base_prefix, "status": list(sandbox_status())}
for name, code in gens.items():
    out[name] = execute(code, "f", sandbox="bwrap").to_dict()
print(json.dumps(out))
'''


@pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap unusable here: {BWRAP_WHY}")
def test_sandbox_from_a_venv_under_tmp(tmp_path):
    # issue 6: a venv under /tmp (masked by the sandbox's own tmpfs) whose
    # python3 links to a base interpreter under /root must still start
    import json
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    secret = home / "secret.txt"
    secret.write_text("do-not-leak")
    py = venv / "bin" / "python3"
    proc = subprocess.run([str(py), "-c", _VENV_SCRIPT, str(venv), str(secret)], capture_output=True, text=True,
                          cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": str(repo)}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["prefix"] == str(venv) and out["base_prefix"] != str(venv)
    assert out["status"] == [True, ""]
    req = out["request"]
    assert (req["status"], req["isolated"], req["sandbox"]) == ("ok", True, "bwrap"), req
    assert [(r["url"], r["params"]) for r in req["requests"]] == [("https://a.example.com/w/London", {"d": 2})]
    # a masked folder nothing needs stays empty; the venv is read-only
    assert out["read_secret"]["status"] == "raised"
    assert out["read_secret"]["error"].startswith("FileNotFoundError")
    assert out["write_venv"]["status"] == "raised"
    assert "Read-only file system" in out["write_venv"]["error"]
    assert not (venv / "pwned.txt").exists()


def test_interpreter_paths_skip_the_repo_and_masked_tops(monkeypatch):
    repo = str(Path(__file__).resolve().parents[2])
    monkeypatch.setattr(sys, "path", [*sys.path, repo, "/", "", "relative/dir"])
    paths = _sandbox._interpreter_paths()
    assert repo not in paths and "/" not in paths and "" not in paths
    assert os.path.realpath(sys.executable) in [os.path.join(d, os.path.basename(os.path.realpath(sys.executable)))
                                                 for d in paths]
    binds = _sandbox._interpreter_binds()
    dests = [d for _, d in binds]
    assert not any(d in _sandbox._NEVER_BOUND or d == repo or d.startswith("/usr/") for d in dests)
    assert not any(a != b and a.startswith(b + "/") for a in dests for b in dests)  # ancestors carry descendants
