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
    """The released code does not compile."""
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


def _needs_context(code: str, gold: dict) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    fn = _function(tree, gold.get("function_name"))
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} if fn is not None else set()
    return bool(_imports(tree) & FRAMEWORKS) or bool(params & CONTEXT_PARAMS)


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
    if scores.get("mock"):
        return GoldClass.HIT, ""
    if not scores.get("syntax"):
        return GoldClass.BROKEN_CODE, (execution or {}).get("error") or "syntax error"
    req = scores.get("request")
    if _needs_context(code, gold):
        # whatever was captured was built from a stand-in of the framework's context
        return GoldClass.FRAMEWORK_CONTEXT, (execution or {}).get("error") or (
            f"{req.get('method')} {req.get('url')}" if req else "no request")
    if req is None:
        return GoldClass.NO_REQUEST, (execution or {}).get("error") or (execution or {}).get("status") or ""
    if _dynamic(req):
        return GoldClass.DYNAMIC_URL, str(req.get("url"))[:200]
    host = str(req.get("host") or "")
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
