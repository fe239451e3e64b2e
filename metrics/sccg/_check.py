"""Gold self-execution: does each record's own code hit its own annotation?

Each gold record's developer code (``code.complete_function``, else
``original_function``) runs in the sandbox as if it were a generation for
that record, with stand-ins, and is scored against the record. A record
whose own code misses is put in one class, so users can see which gold
records cannot be trusted (issue 16; docs/sccg.md, "check-gold").
"""

from __future__ import annotations

import ast
import re
from enum import Enum

from ._evaluate import evaluate

#: Modules whose functions need a framework's request/message context.
FRAMEWORKS = frozenset({"flask", "django", "fastapi", "starlette", "tornado", "bottle", "sanic", "aiohttp_jinja2",
                        "telegram", "telebot", "aiogram", "discord", "pyrogram", "slack_bolt", "streamlit",
                        "gradio", "rest_framework", "quart", "falcon", "pyramid", "chalice", "azure", "functions_framework"})
#: Parameter names that are a framework's context object.
CONTEXT_PARAMS = frozenset({"request", "req", "message", "update", "ctx", "context", "event", "callback_query",
                            "interaction", "bot", "msg"})
#: Framework objects a snippet uses without importing them (its file did):
#: Flask's ``request``/``render_template``/…, Streamlit's conventional ``st``.
#: Counted only when the run gave the name a ``global:`` stand-in.
FRAMEWORK_GLOBALS = frozenset({"request", "render_template", "redirect", "url_for", "jsonify", "flash", "abort",
                               "current_app", "make_response", "st", "bot", "dp"})
#: Calls that may make an HTTP request: a code with none of them makes none.
_HTTP_CALLS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request", "urlopen",
                         "send", "fetch", "stream", "getresponse", "Request", "build_opener", "open"})
_PLACEHOLDER_HOSTS = {"example.com", "", None}


class GoldClass(str, Enum):
    """Why a gold record's own code does or does not hit its annotation."""

    HIT = "hit"
    """Mock 1: host, route and method of a captured request match."""
    ANNOTATION_MISMATCH = "annotation_mismatch"
    """The code sends a request to a literal host, but host, route or method
    differ from the annotation (truncated routes, other endpoints, wrong
    hosts): the record's annotation is wrong for its code."""
    FRAMEWORK_CONTEXT = "framework_context"
    """The function needs a web/bot framework's context (Flask/Django
    ``request``, a Telegram ``message``) that no sandbox can supply."""
    DYNAMIC_URL = "dynamic_url"
    """The URL is computed from values the snippet does not have (a stand-in
    or a placeholder argument ended up in the host or route)."""
    BROKEN_CODE = "broken_code"
    """The released code does not compile, reads an attribute a real module
    it imports does not have (``import datetime as datetime`` then
    ``datetime.now()``), or the release's redaction cut a URL literal
    (``"https://%s:<REDACTED_EMAIL>/..." % (user, key)``)."""
    NEEDS_INPUT = "needs_input"
    """Nothing captured and the code reads the keyboard (``input()``): the
    request depends on what a user types."""
    MISSING_HELPER = "missing_helper"
    """Nothing captured and the gold function calls a function the snippet
    does not define (a ``global:`` stand-in called as ``NAME(...)``, or
    ``self.NAME(...)`` on the stand-in instance of a method cut out of its
    class): the request is made in the helper or depends on its result."""
    MISSING_FILE = "missing_file"
    """Nothing captured and the code failed opening a file of its project
    (``FileNotFoundError``): the request is built from that file."""
    ARGUMENT_DEPENDENT = "argument_dependent"
    """Nothing captured and the gold function itself raised (the innermost
    frame is the function: its own ``raise`` or lookup, not a library's or
    a helper's) on the arguments the rules gave it: the request needs
    argument values only its caller knows (``stationIDs[city]``, "either
    city or zip code is required")."""
    NO_REQUEST = "no_request"
    """Ran without capturing any request, for another reason (``error``)."""


def _imports(tree) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def _function(tree, name: str | None):
    short = (name or "").split(".")[-1]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == short:
            return node
    return None


def _framework_names(tree) -> set[str]:
    """Names the module binds by importing a framework (``from flask import
    request``, ``import streamlit as st``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in FRAMEWORKS}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module.split(".")[0] in FRAMEWORKS:
            out |= {a.asname or a.name for a in node.names}
    return out


def _needs_context(tree, gold: dict, req: dict | None) -> bool:
    """The function takes a framework's context object (a parameter named
    ``request``, ``message``, …) or uses a name its file imports from a
    framework (``request.form``, ``st.secrets``, ``render_template``). A file
    that merely imports a framework does not make its other functions need
    one when they sent a request to a literal host: such requests are judged
    like any other; with nothing sent (or a dynamic URL) the file's framework
    is taken for the cause. ``tree``: the parsed code, or None (no context)."""
    if tree is None:
        return False
    fn = _function(tree, gold.get("function_name"))
    if fn is None:
        return bool(_imports(tree) & FRAMEWORKS)
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    if params & CONTEXT_PARAMS:
        return True
    names = _framework_names(tree) | {n for n in _imports(tree) & FRAMEWORKS}
    # decorators count: `@app.route` / `@bot.message_handler` make it a handler
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    if names & used:
        return True
    # a framework file whose function sent nothing usable: its data came from
    # the framework (a Django model's rows, an app's settings)
    return bool(_imports(tree) & FRAMEWORKS) and (req is None or _dynamic(req))


def _calls(fn) -> tuple[set[str], set[str]]:
    """Names called as ``NAME(...)`` and methods called as ``self.NAME(...)`` in *fn*."""
    names, methods = set(), set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Name):
                names.add(n.func.id)
            elif isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                    and n.func.value.id in ("self", "cls"):
                methods.add(n.func.attr)
    return names, methods


def _parse(code: str):
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _makes_no_http_call(tree) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
            if name in _HTTP_CALLS or name.lower() in _HTTP_CALLS:
                return False
    return True


def _broken_at_run(tree, error: str) -> str | None:
    """Why the released code is broken when run, or ``None``."""
    m = re.match(r"AttributeError: module '([\w.]+)' has no attribute '(\w+)'", error or "")
    if m and m.group(1).split(".")[0] in _imports(tree):
        return f"the code reads {m.group(1)}.{m.group(2)}, which that module does not have"
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and re.match(r"\s*https?://", n.value) \
                and "<REDACTED_" in n.value:
            return f"the release's redaction cut a URL literal: {n.value[:120]}"
    return None


def _route_from_params(tree, gold: dict) -> list[str]:
    """Parameters of the gold function that start the path of a URL literal
    (``f"https://h/{path}"``, ``"https://h/" + path``), when none of
    the gold route's literal segments is written in the code: the annotated
    route then came from an argument's value. Empty otherwise (also for
    ``tree`` None: code that does not parse)."""
    fn = _function(tree, gold.get("function_name")) if tree is not None else None
    if fn is None:
        return []
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    meta = gold.get("api_metadata") if isinstance(gold.get("api_metadata"), dict) else {}
    segs = [x for x in str(meta.get("route") or "").split("/") if x and not re.fullmatch(r"[{<:].*", x)]
    literals = " ".join(n.value for n in ast.walk(fn) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    if not segs or any(x.lower() in literals.lower() for x in segs):
        return []
    found = []
    for n in ast.walk(fn):
        parts = []
        if isinstance(n, ast.JoinedStr):
            parts = n.values
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            parts = [n.left, n.right]
        head = parts[0] if parts else None
        # the parameter starts the path: the whole route is the argument's
        if isinstance(head, ast.Constant) and isinstance(head.value, str) and re.fullmatch(r"https?://[^/]+/?", head.value):
            for part in parts[1:]:
                v = part.value if isinstance(part, ast.FormattedValue) else part
                if isinstance(v, ast.Name) and v.id in params and v.id not in found:
                    found.append(v.id)
    return found


def _dynamic(req: dict) -> bool:
    url = str(req.get("url") or "")
    host = req.get("host")
    return host in _PLACEHOLDER_HOSTS or "<stand-in" in url or "{" in url or "://" not in url


def classify(code: str | None, execution: dict | None, scores: dict | None, gold: dict) -> tuple[GoldClass, str]:
    """The class of one gold self-execution and a short reason.

    Parameters
    ----------
    code : str or None
        The record's own code.
    execution, scores : dict or None
        ``execution`` and ``scores`` of the :func:`metrics.sccg.evaluate` row.
    gold : dict
        The record.
    """
    if not code or scores is None:
        return GoldClass.BROKEN_CODE, "no code"
    tree = _parse(code)  # once, for every rule below
    if scores.get("mock"):
        return GoldClass.HIT, ""
    if not scores.get("syntax"):
        return GoldClass.BROKEN_CODE, (execution or {}).get("error") or "syntax error"
    req = scores.get("request")
    ex = execution or {}
    stand_ins = [str(x) for x in ex.get("stand_ins") or []]
    globals_ = {x.split(":", 1)[1] for x in stand_ins if x.startswith("global:")}
    framework_globals = sorted(globals_ & FRAMEWORK_GLOBALS)
    if _needs_context(tree, gold, req) or framework_globals:
        # whatever was captured was built from a stand-in of the framework's context
        return GoldClass.FRAMEWORK_CONTEXT, ex.get("error") or (
            f"{req.get('method')} {req.get('url')}" if req else
            f"no request; uses {', '.join(framework_globals)} without importing it" if framework_globals
            else "no request")
    if req is None:
        error = ex.get("error") or ""
        if tree is not None:
            broken = _broken_at_run(tree, error)
            if broken:
                return GoldClass.BROKEN_CODE, broken
            if "stdin:input" in stand_ins:
                return GoldClass.NEEDS_INPUT, "reads input(); " + (error or "nothing sent with the default answer")
            fn = _function(tree, gold.get("function_name"))
            if fn is not None:
                names, methods = _calls(fn)
                helpers = sorted(names & globals_)
                if "arg:self" in stand_ins:
                    helpers += sorted(f"self.{m}" for m in methods)
                if helpers:
                    return GoldClass.MISSING_HELPER, f"calls {', '.join(helpers)}, not in the snippet" + (
                        f"; {error}" if error else "")
            if _makes_no_http_call(tree):
                return GoldClass.ANNOTATION_MISMATCH, "the code makes no HTTP call at all"
            if error.startswith("FileNotFoundError"):
                return GoldClass.MISSING_FILE, error
            short = (gold.get("function_name") or "").split(".")[-1]
            if ex.get("status") == "raised" and ex.get("error_site") == f"generation:{short}" and fn is not None \
                    and (fn.args.args or fn.args.kwonlyargs or fn.args.posonlyargs):
                return GoldClass.ARGUMENT_DEPENDENT, error
        return GoldClass.NO_REQUEST, error or ex.get("status") or ""
    if _dynamic(req):
        return GoldClass.DYNAMIC_URL, str(req.get("url"))[:200]
    host = str(req.get("host") or "")
    if scores.get("stage") == "endpoint":
        from_params = _route_from_params(tree, gold)
        if from_params:
            return GoldClass.DYNAMIC_URL, f"route built from parameter(s) {', '.join(from_params)}: {req.get('url')}"[:200]
    if host and re.search(re.escape(host), code, re.I):
        return GoldClass.ANNOTATION_MISMATCH, f"{scores.get('stage')}: code sends {req.get('method')} {req.get('url')}"
    return GoldClass.DYNAMIC_URL, str(req.get("url"))[:200]


def gold_code(record: dict) -> str | None:
    """``code.complete_function``, else ``original_function``, else ``None``."""
    code = record.get("code") if isinstance(record.get("code"), dict) else {}
    for field in ("complete_function", "original_function"):
        if isinstance(code.get(field), str) and code[field].strip():
            return code[field]
    return None


def check_gold(records, **evaluate_kwargs):
    """Run each record's own code against itself and classify the outcome.

    Parameters
    ----------
    records : iterable of dict
        Gold records (release or qare schema).
    **evaluate_kwargs
        Passed to :func:`metrics.sccg.evaluate` (``n_jobs``, ``limits``,
        ``sandbox``, ``protected``, ``stand_ins``).

    Yields
    ------
    dict
        ``sample_id``, ``class`` (a :class:`GoldClass` value), ``reason``,
        ``status``, ``stand_ins``, ``captured`` (method and URL of the judged
        request or ``None``), ``gold`` (host, route, method), ``scores``.
    """
    records = list(records)
    golds = {r.get("sample_id"): r for r in records}
    gens = [{"sample_id": r.get("sample_id"), "code": gold_code(r)} for r in records]
    for rec, row in zip(records, evaluate(gens, golds, **evaluate_kwargs)):
        ex, sc = row.get("execution"), row.get("scores")
        cls, reason = classify(gold_code(rec), ex, sc, rec)
        meta = rec.get("api_metadata") if isinstance(rec.get("api_metadata"), dict) else {}
        req = (sc or {}).get("request")
        yield {
            "sample_id": rec.get("sample_id"),
            "class": cls.value,
            "reason": reason,
            "status": (ex or {}).get("status"),
            "stand_ins": (ex or {}).get("stand_ins", []),
            "captured": None if not req else f"{req.get('method')} {req.get('url')}",
            "gold": {"host": rec.get("api_host"), "route": meta.get("route"), "method": meta.get("method")},
            "scores": sc,
            "duration_s": (ex or {}).get("duration_s"),
        }
