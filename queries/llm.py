"""A small client for OpenAI-compatible chat endpoints (OpenAI itself, vLLM,
Ollama, llama.cpp's server, ...), as used by Q-ARE's language-model steps
(§3.2 translation, §3.3 descriptions, §4.2 the LLM baseline).

What it adds to the ``openai`` package (extra ``llm``), which does the HTTP,
the retries with exponential backoff on 408/409/429/5xx and timeouts
(honouring ``Retry-After``):

- a **response cache** keyed by (endpoint, model, prompt hash, input hash)
  in an SQLite file in the qare cache folder, so a re-run costs nothing;
- a **budget** of requests (a cache miss sent to the endpoint is one
  request, whatever its retries), a **concurrency** bound and a **rate
  limit** (requests started per minute);
- **prompts** as files inside the package (``queries/prompts/*.txt``) whose
  SHA-256 goes into the cache key and the manifest;
- **never raising** for the endpoint's failures: :meth:`LLMClient.chat`
  returns an :class:`LLMReply` whose ``failure`` says why there is no text.

The API key is read from the environment only (:data:`API_KEY_ENVS`), never
from a flag or a file; it is never written anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

__all__ = [
    "API_KEY_ENVS",
    "LLM_INSTALL",
    "LLMConfig",
    "LLMClient",
    "LLMFailure",
    "LLMReply",
    "LLMUnavailable",
    "Prompt",
    "load_prompt",
    "llm_cache_path",
]

API_KEY_ENVS = ("QARE_LLM_API_KEY", "OPENAI_API_KEY")
"""Environment variables holding the endpoint's API key, first set one wins.
Local servers (vLLM, Ollama, llama.cpp) need none: a placeholder is sent."""

LLM_INSTALL = "pip install -e '.[llm]' in the qare checkout (or pip install 'openai>=1.40')"


class LLMUnavailable(RuntimeError):
    """The ``openai`` package is not installed (extra ``llm``)."""


class LLMFailure(str, Enum):
    """Why a reply has no text."""

    BUDGET = "budget_exhausted"  # --llm-budget requests already sent
    UNREACHABLE = "unreachable"  # connection refused / DNS / TLS
    TIMEOUT = "timeout"  # no answer within the timeout, retries included
    RATE_LIMITED = "rate_limited"  # 429 after every retry
    SERVER_ERROR = "server_error"  # 5xx after every retry
    REFUSED = "refused"  # another 4xx (bad model name, auth, context too long)
    BAD_RESPONSE = "bad_response"  # not a chat completion (malformed JSON, no choices, empty text)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


@dataclass(frozen=True, slots=True)
class LLMReply:
    """One chat completion, or why there is none.

    ``text`` is the first choice's message content (stripped), ``None`` on
    failure; ``failure`` the :class:`LLMFailure`, ``detail`` a one-line
    reason (status code, exception text); ``cached`` whether it came from the
    response cache (no request sent)."""

    text: str | None
    failure: LLMFailure | None = None
    detail: str = ""
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.text is not None


@dataclass(frozen=True, slots=True)
class Prompt:
    """A prompt file: ``name`` (file stem), ``system`` text (the file's text
    before a line ``---``, may be empty), ``user`` template (after it; ``{name}``
    placeholders filled by :meth:`render`), ``sha256`` of the file's bytes."""

    name: str
    system: str
    user: str
    sha256: str

    def render(self, **values: str) -> str:
        # one pass over the template, not str.format: inputs (source code, comments) hold braces,
        # and a value that itself contains "{name}" must stay as it is
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), self.user)


def load_prompt(name: str, package: str = "queries.prompts") -> Prompt:
    """The prompt file ``<package>/<name>.txt`` (package data).

    Raises ``FileNotFoundError`` when the package has no such file."""
    data = resources.files(package).joinpath(f"{name}.txt").read_bytes()
    text = data.decode("utf-8")
    system, sep, user = text.partition("\n---\n")
    if not sep:
        system, user = "", text
    return Prompt(name=name, system=system.strip(), user=user.strip() + "\n", sha256=hashlib.sha256(data).hexdigest())


def llm_cache_path() -> Path | None:
    """``<qare cache>/llm/responses.sqlite``; the qare cache folder is
    ``$QARE_CACHE_DIR``, else ``$XDG_CACHE_HOME/qare``, else ``~/.cache/qare``
    (``QARE_CACHE_DIR`` = ``""``/``0``/``off``: no cache, ``None``)."""
    env = os.environ.get("QARE_CACHE_DIR")
    if env is not None:
        if env in ("", "0", "off"):
            return None
        base = Path(env)
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "qare"
    return base / "llm" / "responses.sqlite"


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where and how to ask.

    Attributes
    ----------
    url : str
        Base URL of the OpenAI-compatible API (``http://127.0.0.1:8000/v1``,
        ``https://api.openai.com/v1``); trailing ``/`` ignored.
    model : str
        Model name as the endpoint knows it.
    budget : int or None
        Most requests sent (cache misses; retries of one request not
        counted); ``None`` = unbounded.
    concurrency : int
        Requests in flight at once.
    rpm : float or None
        Requests started per minute at most; ``None`` = no limit.
    timeout : float
        Seconds for one HTTP attempt.
    retries : int
        Retries of one request on 408/409/429/5xx, connection errors and
        timeouts (the ``openai`` package's backoff: 0.5 s doubling to 8 s,
        jittered, or the server's ``Retry-After`` up to 60 s).
    max_tokens : int or None
        ``max_tokens`` of each completion.
    cache : str or None
        SQLite cache file; ``""`` = :func:`llm_cache_path`, ``None`` = off.
    """

    url: str
    model: str
    budget: int | None = None
    concurrency: int = 4
    rpm: float | None = None
    timeout: float = 60.0
    retries: int = 3
    max_tokens: int | None = 512
    cache: str | None = ""

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/")


class _RateLimiter:
    """Start times spaced at least 60/rpm seconds apart (a simple scheduler:
    each caller reserves the next free slot, then sleeps until it)."""

    def __init__(self, rpm: float | None):
        self._gap = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self._gap:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self._gap
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)


class _Cache:
    """The response cache: one SQLite table, one row per successful reply."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = str(path)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, endpoint TEXT, model TEXT, "
                "prompt_sha256 TEXT, input_sha256 TEXT, text TEXT, created REAL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self._path, timeout=30)

    def get(self, key: str) -> str | None:
        with self._lock, self._connect() as db:
            row = db.execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, endpoint: str, model: str, prompt_sha: str, input_sha: str, text: str) -> None:
        with self._lock, self._connect() as db:
            db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (key, endpoint, model, prompt_sha, input_sha, text, time.time()))


def _api_key() -> tuple[str, str | None]:
    for name in API_KEY_ENVS:
        v = os.environ.get(name)
        if v:
            return v, name
    # local servers ignore the key, but the openai client insists on one
    return "no-key", None


class LLMClient:
    """Chat completions from one endpoint and model, cached and bounded.

    Thread-safe: :meth:`chat` may be called from several threads; the
    concurrency bound is enforced inside. :meth:`map` runs many at once.

    Raises :class:`LLMUnavailable` (from the constructor) when the ``openai``
    package is missing.
    """

    def __init__(self, config: LLMConfig):
        try:
            import openai
        except ImportError:
            raise LLMUnavailable(f"the language-model steps need the package openai, not installed: {LLM_INSTALL}") from None
        self.config = config
        self._openai = openai
        key, self.api_key_env = _api_key()
        self._client = openai.OpenAI(base_url=config.endpoint, api_key=key, timeout=config.timeout,
                                     max_retries=config.retries)
        path = Path(config.cache) if config.cache else (llm_cache_path() if config.cache == "" else None)
        #: ``"FOLDER: why"`` when the default cache under the qare cache folder was refused
        self.cache_refused: str | None = None
        if path is not None and config.cache == "":
            from callgraph.safefs import FolderNotPrivate, make_private_dirs

            try:  # planted replies would become the dataset's queries (docs/security.md "Caches")
                make_private_dirs(path.parent.parent, path.parent)
            except FolderNotPrivate as e:
                self.cache_refused, path = f"{e.filename}: {e.strerror}; responses not cached", None
        self._cache = _Cache(path) if path else None
        self.cache_file = str(path) if path else None
        self._slots = threading.BoundedSemaphore(max(1, config.concurrency))
        self._rate = _RateLimiter(config.rpm)
        self._lock = threading.Lock()
        self.requests = 0
        self.cache_hits = 0
        self.failures: Counter = Counter()
        self.prompts: dict[str, str] = {}

    # -------------------------------------------------------------- one request
    def cache_key(self, prompt: Prompt, user: str) -> tuple[str, str]:
        """(cache key, input hash): SHA-256 over endpoint, model, prompt hash
        and the rendered user message's hash, NUL-separated."""
        input_sha = hashlib.sha256(user.encode("utf-8")).hexdigest()
        key = hashlib.sha256(
            "\0".join((self.config.endpoint, self.config.model, prompt.sha256, input_sha)).encode()
        ).hexdigest()
        return key, input_sha

    def chat(self, prompt: Prompt, **values: str) -> LLMReply:
        """Send ``prompt`` rendered with ``values``; never raises for the
        endpoint's failures (see :class:`LLMFailure`)."""
        user = prompt.render(**values)
        with self._lock:
            self.prompts[prompt.name] = prompt.sha256
        key, input_sha = self.cache_key(prompt, user)
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                with self._lock:
                    self.cache_hits += 1
                return LLMReply(text=hit, cached=True)
        with self._lock:
            if self.config.budget is not None and self.requests >= self.config.budget:
                self.failures[LLMFailure.BUDGET.value] += 1
                return LLMReply(None, LLMFailure.BUDGET, f"--llm-budget of {self.config.budget} requests used up")
            self.requests += 1
        with self._slots:
            self._rate.wait()
            reply = self._send(prompt, user)
        if reply.ok and self._cache is not None:
            self._cache.put(key, self.config.endpoint, self.config.model, prompt.sha256, input_sha, reply.text)
        if not reply.ok:
            with self._lock:
                self.failures[reply.failure.value] += 1
        return reply

    def _send(self, prompt: Prompt, user: str) -> LLMReply:
        oa = self._openai
        messages = ([{"role": "system", "content": prompt.system}] if prompt.system else []) + [
            {"role": "user", "content": user}]
        kw: dict[str, Any] = {"model": self.config.model, "messages": messages, "temperature": 0}
        if self.config.max_tokens:
            kw["max_tokens"] = self.config.max_tokens
        try:
            resp = self._client.chat.completions.create(**kw)
        except oa.APITimeoutError as e:
            return LLMReply(None, LLMFailure.TIMEOUT, _line(e))
        except oa.APIConnectionError as e:
            return LLMReply(None, LLMFailure.UNREACHABLE, _line(e))
        except oa.RateLimitError as e:
            return LLMReply(None, LLMFailure.RATE_LIMITED, f"HTTP 429: {_line(e)}")
        except oa.APIStatusError as e:
            kind = LLMFailure.SERVER_ERROR if e.status_code >= 500 else LLMFailure.REFUSED
            return LLMReply(None, kind, f"HTTP {e.status_code}: {_line(e)}")
        except (oa.APIError, ValueError, TypeError, AttributeError, KeyError) as e:
            # APIResponseValidationError, or a body that is not a chat completion at all
            return LLMReply(None, LLMFailure.BAD_RESPONSE, f"{type(e).__name__}: {_line(e)}")
        try:
            text = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            return LLMReply(None, LLMFailure.BAD_RESPONSE, "no choices[0].message.content in the reply")
        if not isinstance(text, str) or not text.strip():
            return LLMReply(None, LLMFailure.BAD_RESPONSE, "empty message content")
        return LLMReply(text.strip())

    # -------------------------------------------------------------- many
    def map(self, prompt: Prompt, inputs: Sequence[dict[str, str]]) -> list[LLMReply]:
        """:meth:`chat` for each dict of values, ``concurrency`` at a time;
        replies in input order. With a budget, the first inputs in order get
        it (requests are reserved in submission order)."""
        if not inputs:
            return []
        if self.config.concurrency <= 1 or len(inputs) == 1:
            return [self.chat(prompt, **v) for v in inputs]
        with ThreadPoolExecutor(max_workers=min(self.config.concurrency, len(inputs))) as pool:
            return list(pool.map(lambda v: self.chat(prompt, **v), inputs))

    def summary(self) -> dict[str, Any]:
        """What goes into ``manifest.json``: endpoint, model, the env var the
        key came from (never the key), prompt hashes, requests sent, cache
        hits, failures by reason, and the limits."""
        c = self.config
        return {
            "endpoint": c.endpoint,
            "model": c.model,
            "api_key_env": self.api_key_env,
            "prompts": dict(sorted(self.prompts.items())),
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "failures": dict(sorted(self.failures.items())),
            "budget": c.budget,
            "concurrency": c.concurrency,
            "rpm": c.rpm,
            "timeout": c.timeout,
            "retries": c.retries,
            "cache": self.cache_file,
            "cache_refused": self.cache_refused,
        }


def _line(e: BaseException, limit: int = 300) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:limit]
