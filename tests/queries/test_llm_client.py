"""queries.llm against a local fake OpenAI-compatible server: answers, cache,
budget, retries on 429/5xx, timeouts, malformed JSON, unreachable endpoint."""

import socket
import sqlite3
import threading
import time

import pytest

pytest.importorskip("openai", reason="extra 'llm' (openai) not installed: pip install -e '.[llm]'")

from queries.llm import LLMClient, LLMConfig, LLMFailure, Prompt, load_prompt
from tests.llm_fake import Act, FakeLLM, ok, status, user_text

ECHO = Prompt(name="echo", system="sys", user="say {text}\n", sha256="0" * 64)


def client(url, tmp_path, **kw):
    kw.setdefault("cache", str(tmp_path / "c.sqlite"))
    kw.setdefault("retries", 2)
    kw.setdefault("timeout", 5)
    return LLMClient(LLMConfig(url=url, model="m1", **kw))


def test_answer_and_request_shape(tmp_path):
    with FakeLLM(lambda b, i: ok("  hello  ")) as srv:
        c = client(srv.url, tmp_path)
        r = c.chat(ECHO, text="{code} {text}")
    assert r.ok and r.text == "hello" and not r.cached
    body = srv.requests[0]
    assert body["model"] == "m1" and body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    # one-pass rendering: braces inside a value stay as they are
    assert user_text(body) == "say {code} {text}\n"


def test_cache_hit_sends_no_second_request(tmp_path):
    with FakeLLM(lambda b, i: ok(f"answer {i}")) as srv:
        a = client(srv.url, tmp_path).chat(ECHO, text="x")
        b = client(srv.url, tmp_path).chat(ECHO, text="x")  # a new client: the cache is on disk
        other_model = LLMClient(LLMConfig(url=srv.url, model="m2", cache=str(tmp_path / "c.sqlite"))).chat(ECHO, text="x")
    assert (a.text, b.text, b.cached) == ("answer 0", "answer 0", True)
    assert other_model.text == "answer 1"  # the model is part of the key
    assert len(srv.requests) == 2
    rows = sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT model, text FROM responses ORDER BY model").fetchall()
    assert rows == [("m1", "answer 0"), ("m2", "answer 1")]


def test_prompt_hash_is_part_of_the_key(tmp_path):
    changed = Prompt(name="echo", system="sys", user="say {text}\n", sha256="1" * 64)
    with FakeLLM(lambda b, i: ok(f"a{i}")) as srv:
        c = client(srv.url, tmp_path)
        assert c.chat(ECHO, text="x").text == "a0"
        assert c.chat(changed, text="x").text == "a1"
    assert len(srv.requests) == 2


def test_budget_is_respected(tmp_path):
    with FakeLLM(lambda b, i: ok("t")) as srv:
        # one at a time: with several in flight, which two requests win the budget is up to the scheduler
        c = client(srv.url, tmp_path, budget=2, concurrency=1)
        replies = c.map(ECHO, [{"text": str(k)} for k in range(5)])
        again = c.chat(ECHO, text="0")  # cached: costs no budget
    assert len(srv.requests) == 2
    assert [r.ok for r in replies] == [True, True, False, False, False]
    assert {r.failure for r in replies[2:]} == {LLMFailure.BUDGET}
    assert again.ok and again.cached
    assert c.summary()["requests"] == 2 and c.summary()["failures"] == {"budget_exhausted": 3}


def test_retries_429_and_5xx_then_answer(tmp_path):
    script = [status(429), status(503), ok("fine")]
    with FakeLLM(lambda b, i: script[i]) as srv:
        r = client(srv.url, tmp_path, retries=2).chat(ECHO, text="x")
    assert r.text == "fine" and len(srv.requests) == 3


def test_429_after_every_retry_is_rate_limited(tmp_path):
    with FakeLLM(lambda b, i: status(429)) as srv:
        c = client(srv.url, tmp_path, retries=1)
        r = c.chat(ECHO, text="x")
        assert c.chat(ECHO, text="x").failure is LLMFailure.RATE_LIMITED  # failures are not cached
    assert r.failure is LLMFailure.RATE_LIMITED and "429" in r.detail
    assert len(srv.requests) == 4


def test_server_error_and_refusal(tmp_path):
    with FakeLLM(lambda b, i: status(500 if user_text(b).startswith("say a") else 404)) as srv:
        c = client(srv.url, tmp_path, retries=1)
        a = c.chat(ECHO, text="a")
        b = c.chat(ECHO, text="b")
    assert a.failure is LLMFailure.SERVER_ERROR and "500" in a.detail
    assert b.failure is LLMFailure.REFUSED and "404" in b.detail
    assert len(srv.requests) == 3  # 500 retried once, 404 not retried


def test_timeout(tmp_path):
    with FakeLLM(lambda b, i: Act(text="late", sleep=1.5)) as srv:
        r = client(srv.url, tmp_path, timeout=0.3, retries=0).chat(ECHO, text="x")
    assert r.failure is LLMFailure.TIMEOUT


@pytest.mark.parametrize("raw", [b"{not json", b'{"choices": []}', b'{"id": "x"}'])
def test_malformed_reply_is_bad_response(tmp_path, raw):
    with FakeLLM(lambda b, i: Act(raw=raw)) as srv:
        c = client(srv.url, tmp_path, retries=0)
        r = c.chat(ECHO, text="x")
    assert r.failure is LLMFailure.BAD_RESPONSE, r
    assert c.summary()["failures"] == {"bad_response": 1}


def test_empty_content_is_bad_response(tmp_path):
    with FakeLLM(lambda b, i: ok("   ")) as srv:
        r = client(srv.url, tmp_path, retries=0).chat(ECHO, text="x")
    assert r.failure is LLMFailure.BAD_RESPONSE


def test_unreachable_endpoint(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    r = client(f"http://127.0.0.1:{port}/v1", tmp_path, retries=0).chat(ECHO, text="x")
    assert r.failure is LLMFailure.UNREACHABLE


def test_concurrency_bound(tmp_path):
    live = []
    peak = [0]
    lock = threading.Lock()

    def script(b, i):
        with lock:
            live.append(1)
            peak[0] = max(peak[0], len(live))
        time.sleep(0.15)
        with lock:
            live.pop()
        return ok("x")

    with FakeLLM(script) as srv:
        client(srv.url, tmp_path, concurrency=2).map(ECHO, [{"text": str(k)} for k in range(6)])
    assert peak[0] == 2


def test_rate_limiter_spaces_starts(monkeypatch):
    import queries.llm as ql

    clock = [100.0]
    starts = []

    class FakeTime:
        @staticmethod
        def monotonic():
            return clock[0]

        @staticmethod
        def sleep(dt):
            clock[0] += dt

    monkeypatch.setattr(ql, "time", FakeTime)
    rl = ql._RateLimiter(rpm=600)  # one start every 0.1 s
    for _ in range(3):
        rl.wait()
        starts.append(clock[0])
    clock[0] += 1.0  # idle: the next one may start at once
    rl.wait()
    starts.append(clock[0])
    assert starts == pytest.approx([100.0, 100.1, 100.2, 101.2])


def test_rate_limit_end_to_end(tmp_path):
    starts = []
    with FakeLLM(lambda b, i: (starts.append(time.monotonic()), ok("x"))[1]) as srv:
        client(srv.url, tmp_path, rpm=300, concurrency=3).map(ECHO, [{"text": str(k)} for k in range(3)])
    # 300/min = one start every 0.2 s at the client; arrival times at the server jitter a little
    assert len(starts) == 3 and starts[-1] - starts[0] >= 0.3


def test_key_from_environment_only(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("QARE_LLM_API_KEY", "sekrit")
    with FakeLLM(lambda b, i: ok("x")) as srv:
        c = client(srv.url, tmp_path)
        c.chat(ECHO, text="x")
    assert srv.auth == ["Bearer sekrit"]
    assert c.api_key_env == "QARE_LLM_API_KEY"
    assert "sekrit" not in repr(c.summary())


def test_shipped_prompts_load():
    for name in ("translate", "describe"):
        p = load_prompt(name)
        assert p.system and "{" in p.user and len(p.sha256) == 64


def test_the_default_cache_in_a_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    """Planted replies in <qare cache>/llm/responses.sqlite would become the
    dataset's queries: the folder chain must pass check_private."""
    import os

    qc = tmp_path / "qc"
    (qc / "llm").mkdir(parents=True)
    planted = sqlite3.connect(qc / "llm" / "responses.sqlite")
    planted.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, endpoint TEXT, model TEXT, "
                    "prompt_sha256 TEXT, input_sha256 TEXT, text TEXT, created REAL)")
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    with FakeLLM(lambda b, i: ok("real")) as srv:
        c = LLMClient(LLMConfig(url=srv.url, model="m1", cache=""))
        key, _ = c.cache_key(ECHO, "say x\n")
        with planted:
            planted.execute("INSERT INTO responses VALUES (?, '', '', '', '', 'planted', 0)", (key,))
        assert c.chat(ECHO, text="x").text == "planted"  # private: the cache is trusted
        (qc / "llm").chmod(0o770)
        try:
            os.chown(qc / "llm", -1, 65534)  # a group that is not the user's own
        except PermissionError:
            (qc / "llm").chmod(0o777)
        c = LLMClient(LLMConfig(url=srv.url, model="m1", cache=""))
        r = c.chat(ECHO, text="x")
    assert r.text == "real" and not r.cached
    assert c.cache_file is None and "writable by group or others" in c.summary()["cache_refused"]
