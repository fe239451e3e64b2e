"""SCCGBench scores (Wang et al., arXiv 2610.12920, §III-A, §IV-C, Table VI).

Gold records are SCCGBench dicts; the fields read are ``sample_id``,
``api_host``, ``function_name``, ``comments_source`` and ``api_metadata``
(``url``, ``route``, ``method``, ``params``, ``code_params``,
``doc_match_type``).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from urllib.parse import unquote, urlsplit

from records.sccg import PARAM_LOCATIONS, code_params, documented_keys
# the one credential rule, shared with queries.sccg's redaction
from records.secrets import KEY_NAME_RE, RAPIDAPI_KEY_RE, is_credential_literal

from ..scores import set_scores

#: Modules the sandbox fakes, so always importable there.
FAKED_MODULES = frozenset({"requests", "httpx", "aiohttp"})
#: Earliest-failed-stage labels, in checking order (Table VI).
STAGES = ("syntax", "request_construction", "host", "endpoint", "method", "mock_hit")
_TEMPLATE_SEG = re.compile(r"^(\{[^{}]*\}|:[A-Za-z_]\w*|<[^<>]*>)$")
_STATUS_ATTRS = frozenset({"status_code", "status", "ok", "is_success", "is_error", "is_client_error", "is_server_error"})
# "auth" but not "authority" (an HTTP/2 pseudo-header copied from browser tools)


# --------------------------------------------------------------------------- matching


def _norm_host(host: str | None) -> str | None:
    if not host:
        return None
    h = host.strip().lower().rstrip(".")
    if "://" in h:
        h = urlsplit(h).hostname or ""
    return h.split(":", 1)[0] or None


def host_matches(gold_host: str | None, host: str | None) -> bool:
    """Case-insensitive host equality, port and trailing dot ignored."""
    g, h = _norm_host(gold_host), _norm_host(host)
    return g is not None and g == h


def _segments(path: str | None) -> list[str]:
    if not path:
        return []
    path = path.split("?", 1)[0].split("#", 1)[0]
    return [unquote(s) for s in path.split("/") if s]


def route_matches(gold_route: str | None, path: str | None, *, templates_both_sides: bool = False) -> bool:
    """Whether a request path hits the gold route, segment by segment.

    Templated gold segments (``{location}``, ``:id``, ``<id>``) match any one
    non-empty segment; literal segments must be equal ignoring case (the
    release's routes and its own code differ in case only, e.g. ``/Search``
    vs ``/search``); empty segments and a trailing ``/`` are ignored and both
    sides are percent-decoded. The original tooling compared strings, so a
    templated route could never match a filled URL.

    Parameters
    ----------
    gold_route : str
        Documented route, e.g. ``/forecast/{location}``.
    path : str
        Captured request path, e.g. ``/forecast/London``.
    templates_both_sides : bool
        Let templated segments of *path* match too (for comparing two
        documented routes, as in Endpoint@K).

    Examples
    --------
    >>> route_matches("/forecast/{location}", "/forecast/London/")
    True
    >>> route_matches("/forecast/{location}", "/forecast")
    False
    """
    if gold_route is None or path is None:
        return False
    g, p = _segments(gold_route), _segments(path)
    if len(g) != len(p):
        return False
    for a, b in zip(g, p):
        if _TEMPLATE_SEG.match(a) or (templates_both_sides and _TEMPLATE_SEG.match(b)):
            continue
        if a.lower() != b.lower():
            return False
    return True


def gold_tuple(gold: dict) -> tuple:
    """``(host, route, method, keys)`` of a gold record: host from
    ``api_host`` (else the URL's), route from ``api_metadata.route`` (else the
    URL's path), method upper-cased or ``None``, and the documented
    query/body parameter keys (fallback: the keys seen in the original code)."""
    meta = gold.get("api_metadata") or {}
    if not isinstance(meta, dict):
        meta = {}
    url = meta.get("url") or ""
    host = gold.get("api_host") or (urlsplit(url).hostname if "://" in url else None)
    route = meta.get("route") or (urlsplit(url).path if "://" in url else None)
    method = (meta.get("method") or "").upper() or None
    keys = documented_keys(meta)
    if not keys:
        keys = [p.key for p in code_params(meta) if p.location in PARAM_LOCATIONS]
    return host, route, method, frozenset(keys)


def request_keys(request: dict) -> frozenset:
    """Parameter keys a captured request sends: query (URL and ``params=``)
    plus the keys of a dict body."""
    keys = set((request.get("params") or {}).keys())
    body = request.get("body")
    if isinstance(body, dict):
        keys |= set(body.keys())
    return frozenset(keys)


def set_f1(predicted, gold) -> float:
    """Set F1; 1.0 when both sets are empty (:func:`metrics.scores.set_scores`)."""
    return set_scores(predicted, gold).f1


# --------------------------------------------------------------------------- static checks


@functools.lru_cache(maxsize=4096)
def _importable(name: str) -> bool:
    if name in sys.stdlib_module_names or name in FAKED_MODULES:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def dependencies_resolvable(tree: ast.AST, extra_modules=frozenset()) -> bool:
    """Dep.: every absolute import names a standard-library, faked or
    installed top-level module (or one of *extra_modules*); relative imports
    fail."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                return False
            tops = [(node.module or "").split(".")[0]]
        else:
            continue
        if not all(t in extra_modules or _importable(t) for t in tops):
            return False
    return True


_is_credential = is_credential_literal


def has_literal_secret(code: str, tree: ast.AST | None = None) -> bool:
    """A literal credential in the code: a RapidAPI-shaped key anywhere in a
    string, or a string that :func:`records.secrets.is_credential_literal`
    accepts (8+ non-blank characters, no placeholder wording) bound to a
    key-like name (dict key, keyword, assignment, default)."""
    if RAPIDAPI_KEY_RE.search(code):
        return True
    if tree is None:
        return False

    def lit(node):
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_credential(node.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and KEY_NAME_RE.search(k.value) and lit(v):
                    return True
        elif isinstance(node, ast.keyword) and node.arg and KEY_NAME_RE.search(node.arg) and lit(node.value):
            return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and lit(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "" for t in targets]
            if any(KEY_NAME_RE.search(n) for n in names):
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pos = a.args[len(a.args) - len(a.defaults):]
            for arg, d in list(zip(pos, a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
                if d is not None and KEY_NAME_RE.search(arg.arg) and lit(d):
                    return True
    return False


def has_status_check(tree: ast.AST) -> bool:
    """A ``raise_for_status()`` call, or a response status attribute
    (``status_code``, ``status``, ``ok``, ``is_success``, ``is_error``, …) or
    ``getcode()`` read inside a condition (``if``/``while``/``assert``/
    conditional expression/``match`` subject) or a comparison."""
    tests = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "raise_for_status":
            return True
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tests.append(node.test)
        elif isinstance(node, ast.Assert):
            tests.append(node.test)
        elif isinstance(node, ast.Compare):
            tests.append(node)
        elif isinstance(node, ast.Match):
            tests.append(node.subject)
    for t in tests:
        for sub in ast.walk(t):
            if isinstance(sub, ast.Attribute) and sub.attr in _STATUS_ATTRS:
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "getcode":
                return True
    return False


def has_exception_handling(tree: ast.AST) -> bool:
    """A ``try`` with at least one ``except`` handler whose body makes a call."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) and node.handlers:
            if any(isinstance(sub, ast.Call) for stmt in node.body for sub in ast.walk(stmt)):
                return True
    return False


# --------------------------------------------------------------------------- per generation


@dataclass(frozen=True, slots=True)
class GenerationScore:
    """SCCGBench diagnostics of one generation (booleans; ``param_f1`` in
    [0, 1], ``None`` when the gold has no parameter keys); ``stage`` is the earliest failed stage (one of :data:`STAGES`,
    ``mock_hit`` when nothing failed); ``request`` the captured request the
    judgement used, or ``None``."""

    syntax: bool
    dep: bool
    secret: bool
    exec_req: bool
    host: bool
    endpoint: bool
    method: bool
    param_f1: float | None
    mock: bool
    status_check: bool
    exception_handling: bool
    robust: bool
    stage: str
    request: dict | None

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def _judge(req: dict, host, route, method) -> tuple[bool, bool, bool]:
    return (
        host_matches(host, req.get("host")),
        route_matches(route, req.get("route")),
        method is None or (req.get("method") or "").upper() == method,
    )


#: Judging rules: ``qare`` (this module's definitions) or ``official`` (the
#: benchmark's own ``try_mock_execute`` rules, docs/sccg.md "Differences").
COMPAT_MODES = ("qare", "official")


def _judge_official(req: dict, gold: dict, host, route, method) -> tuple[bool, bool, bool]:
    """The release evaluator's Mock rules on one captured request: gold host a
    substring of the URL or of the headers' text; gold URL or route a
    case-insensitive substring of the URL; method equal, a missing gold
    method meaning GET."""
    url = str(req.get("url") or "").lower()
    meta = gold.get("api_metadata") if isinstance(gold.get("api_metadata"), dict) else {}
    h = bool(host) and (host.lower() in str(req.get("headers") or {}).lower() or host.lower() in url)
    gold_url = str(meta.get("url") or "").strip().lower()
    r = str(route or "").strip().lower()
    if r and not r.startswith("/"):
        r = "/" + r
    e = bool(gold_url and gold_url in url) or bool(r and r in url)
    m = (req.get("method") or "GET").upper() == (method or "GET")
    return h, e, m


def score_generation(code: str, requests, gold: dict, *, extra_modules=frozenset(),
                     compat: str = "qare") -> GenerationScore:
    """Score one generation from its code and the requests it attempted.

    Of several captured requests, the one matching most of host, endpoint and
    method is judged (ties: host first, then endpoint, then the earliest), so
    an authentication call before the real one is not held against it.

    Parameters
    ----------
    code : str
        The generation.
    requests : sequence of dict
        Captured requests (``host``, ``route``, ``method``, ``params``,
        ``body``), e.g. :attr:`Execution.requests`.
    gold : dict
        SCCGBench gold record (see :func:`gold_tuple`).
    extra_modules : frozenset of str
        Module names to count as resolvable for Dep.
    compat : {"qare", "official"}
        ``official`` judges host, endpoint and method (so Mock) by the
        release evaluator's rules on the *first* captured request
        (:func:`_judge_official`); the other scores stay qare's. It
        reproduces the official judging, not the official execution (which
        fakes fewer libraries and runs less of the code).

    Returns
    -------
    GenerationScore
    """
    if compat not in COMPAT_MODES:
        raise ValueError(f"compat must be one of {COMPAT_MODES}, not {compat!r}")
    host, route, method, keys = gold_tuple(gold)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        tree = None
    syntax = tree is not None
    dep = syntax and dependencies_resolvable(tree, frozenset(extra_modules))
    secret = not has_literal_secret(code, tree)
    reqs = list(requests or ())
    best, best_key = None, None
    h = e = m = False
    if compat == "official" and reqs:
        best = reqs[0]
        h, e, m = _judge_official(best, gold, host, route, method)
    for i, r in enumerate(reqs if compat == "qare" else ()):
        judged = _judge(r, host, route, method)
        k = (sum(judged), judged[0], judged[1], -i)
        if best_key is None or k > best_key:
            best, best_key = r, k
            h, e, m = judged
    # no gold keys: ParamF1 is undefined for the sample (left out of the mean,
    # counted), as in the benchmark's own evaluator
    f1 = None if not keys else (set_f1(request_keys(best), keys) if best is not None else 0.0)
    mock = h and e and m
    status = syntax and has_status_check(tree)
    exc = syntax and has_exception_handling(tree)
    if not syntax:
        stage = "syntax"
    elif best is None:
        stage = "request_construction"
    elif not h:
        stage = "host"
    elif not e:
        stage = "endpoint"
    elif not m:
        stage = "method"
    else:
        stage = "mock_hit"
    return GenerationScore(syntax, dep, secret, best is not None, h, e, m, f1, mock, status, exc,
                           mock and status and exc, stage, best)


# --------------------------------------------------------------------------- aggregates


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimator (Chen et al. 2021, eq. 1):
    ``1 - C(n-c, k) / C(n, k)``, computed as a stable product.

    Raises
    ------
    ValueError
        When ``k > n``, ``c > n`` or a value is negative.

    Examples
    --------
    >>> round(pass_at_k(5, 1, 3), 4)
    0.6
    """
    if min(n, c, k) < 0 or k > n or c > n:
        raise ValueError(f"need 0 <= c <= n and 0 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


METRICS = ("syntax", "dep", "secret", "exec_req", "host", "endpoint", "method", "param_f1", "mock", "robust")


def _means(rows) -> dict:
    n = len(rows)
    out = {"n": n}
    for m in METRICS:
        vals = [r["scores"][m] for r in rows if r["scores"].get(m) is not None]
        out[m] = (sum(float(v) for v in vals) / len(vals)) if vals else None
    # samples whose gold has no keys: ParamF1 undefined there, not 0 and not 1
    out["param_f1_undefined"] = sum(1 for r in rows if r["scores"].get("param_f1") is None)
    return out


def summarise(rows, *, ks=(1, 3, 5), group_by=("doc_match_type", "comments_source")) -> dict:
    """Aggregate scored generations.

    Parameters
    ----------
    rows : iterable of dict
        Per-generation results: ``sample_id``, ``scores`` (a
        :meth:`GenerationScore.to_dict`) and the grouping fields.
    ks : sequence of int
        pass@k values; a sample enters pass@k only when it has at least k
        generations (``pass_at_k[k]["samples"]`` says how many did).
    group_by : sequence of str
        Fields to stratify the diagnostics by (missing values → ``"unknown"``).

    Returns
    -------
    dict
        ``overall`` (mean of each metric over generations, fractions in
        [0, 1]; ``param_f1`` over the generations whose gold has keys,
        ``param_f1_undefined`` counts the others), ``groups`` (field → value → the same), ``failure_attribution``
        (stage → ``count``/``share``), ``pass_at_k`` (k → ``value``,
        ``samples``; Mock is the pass criterion).
    """
    rows = list(rows)
    out = {"overall": _means(rows), "groups": {}, "failure_attribution": {}, "pass_at_k": {}}
    for field in group_by:
        buckets = defaultdict(list)
        for r in rows:
            buckets[str(r.get(field)) if r.get(field) is not None else "unknown"].append(r)
        out["groups"][field] = {k: _means(v) for k, v in sorted(buckets.items())}
    stages = Counter(r["scores"]["stage"] for r in rows)
    out["failure_attribution"] = {
        s: {"count": stages.get(s, 0), "share": (stages.get(s, 0) / len(rows)) if rows else None} for s in STAGES
    }
    per_sample = defaultdict(lambda: [0, 0])
    for r in rows:
        per_sample[r["sample_id"]][0] += 1
        per_sample[r["sample_id"]][1] += bool(r["scores"]["mock"])
    for k in ks:
        vals = [pass_at_k(n, c, k) for n, c in per_sample.values() if n >= k]
        out["pass_at_k"][str(k)] = {"value": (sum(vals) / len(vals)) if vals else None, "samples": len(vals)}
    return out


def _candidate(c) -> tuple:
    if isinstance(c, str):
        parts = urlsplit(c if "://" in c else "https://" + c)
        return parts.hostname, parts.path or None
    url = c.get("url") or ""
    host = c.get("host") or c.get("api_host") or (urlsplit(url).hostname if "://" in url else None)
    route = c.get("route") or (urlsplit(url).path if "://" in url else None)
    return host, route


def retrieval_at_k(candidates: dict, golds: dict, ks=(1, 3, 5, 10)) -> dict:
    """Host@K and Endpoint@K of ranked retrieval candidates (§IV-C, Table VIII).

    A sample is a Host hit at K when one of its top-K candidates has the gold
    host, an Endpoint hit when one has the gold host *and* a route matching
    the gold route (templated segments on either side match any segment).

    Parameters
    ----------
    candidates : dict
        sample_id → ranked list of candidates: URLs, or dicts with ``host`` /
        ``route`` or ``url``.
    golds : dict
        sample_id → gold record. Samples without candidates count as misses.
    ks : sequence of int

    Returns
    -------
    dict
        ``{"n": samples, "host@K": fraction, "endpoint@K": fraction, …}``.
    """
    out: dict = {"n": len(golds)}
    for k in ks:
        hh = ee = 0
        for sid, gold in golds.items():
            host, route, _, _ = gold_tuple(gold)
            top = [_candidate(c) for c in (candidates.get(sid) or [])[:k]]
            hh += any(host_matches(host, h) for h, _ in top)
            ee += any(host_matches(host, h) and route_matches(route, r, templates_both_sides=True) for h, r in top)
        out[f"host@{k}"] = hh / len(golds) if golds else None
        out[f"endpoint@{k}"] = ee / len(golds) if golds else None
    return out

