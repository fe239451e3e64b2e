"""A local OpenAI-compatible chat endpoint for the language-model tests.

Listens on 127.0.0.1 only (a free port), answers ``POST /v1/chat/completions``
from a script: a callable that gets the request body (dict) and the request's
number (0-based) and returns an :class:`Act`. Every request body received is
kept in ``requests``. Use as a context manager; it stops by itself on exit.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Act:
    """What the server does with one request: wait ``sleep`` seconds, then
    answer ``status`` with ``text`` as the completion (status 200), or the
    ``raw`` body instead, with ``headers``."""

    text: str | None = "ok"
    status: int = 200
    sleep: float = 0.0
    raw: bytes | None = None
    headers: dict = field(default_factory=dict)


def ok(text: str) -> Act:
    return Act(text=text)


def status(code: int, **headers) -> Act:
    # retry-after-ms keeps the openai client's backoff short in tests
    return Act(text=None, status=code, headers={"retry-after-ms": "10", **headers})


def completion(text: str, model: str = "fake") -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def user_text(body: dict) -> str:
    """The user message of a request body."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class FakeLLM:
    def __init__(self, script: Callable[[dict, int], Act]):
        self.script = script
        self.requests: list[dict] = []
        self.auth: list[str | None] = []  # the Authorization header of each request
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with outer._lock:
                    i = len(outer.requests)
                    outer.requests.append(body)
                    outer.auth.append(self.headers.get("authorization"))
                act = outer.script(body, i)
                if act.sleep:
                    time.sleep(act.sleep)
                if act.raw is not None:
                    payload = act.raw
                elif act.status == 200:
                    payload = json.dumps(completion(act.text, body.get("model", "fake"))).encode()
                else:
                    payload = json.dumps({"error": {"message": f"scripted {act.status}", "type": "x"}}).encode()
                try:
                    self.send_response(act.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in act.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "FakeLLM":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
