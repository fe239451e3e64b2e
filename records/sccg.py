"""SCCGBench records as released (Wang et al., arXiv 2610.12920), read exactly.

The release (``dataset/sccgbench_3135.json`` and ``dataset/splits/*.json``)
is a JSON array of records; qare's own tools write JSONL. Both are read here,
and the fields whose shape differs between the release and qare's
extractor are normalised by small readers shared by ``queries.sccg``
(redaction, leak check) and ``metrics.sccg`` (scores):

- ``api_metadata.code_params``: the release has a dict of code fragments
  (``headers_code``, ``querystring_code``, ``params_code``, ``payload_code``,
  …, or ``params``: a list of key names); ``qare sccg extract`` writes a
  list of ``{key, in, value}``. :func:`code_params` reads either.
- ``api_metadata.params`` (documented): a list of names or of dicts with
  ``name``/``key`` and ``in``; ``payload`` (documented body): dict, list or
  ``None``. :func:`documented_keys`.
- ``comments``: dicts ``{type, line, text}`` in the release, strings in
  qare's records. :func:`comment_texts`.

A record qare cannot use is reported by :func:`record_problem` with the
reason; callers make it a line error.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass

__all__ = [
    "CodeParam",
    "code_params",
    "comment_texts",
    "documented_keys",
    "read_records",
    "record_problem",
]

#: Parameter locations counted as request keys (ParamF1, redaction).
PARAM_LOCATIONS = ("query", "body", "form", "formData")
#: Header names that are never parameters (the benchmark's own exclusions).
HEADER_NAMES = frozenset({"x-rapidapi-host", "x-rapidapi-key", "x-rapidapi-proxy-secret", "content-type",
                          "accept", "authorization", "user-agent"})
_QUOTED_KEY = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_.\-]*)["']\s*:""")


@dataclass(frozen=True, slots=True)
class CodeParam:
    """One parameter the original code sends.

    Attributes
    ----------
    key : str
    location : str
        ``query``, ``body``, ``path`` or ``header``.
    value : object
        The literal value when the code has one, else ``None``.
    """

    key: str
    location: str
    value: object = None


def _fragment_location(name: str) -> str | None:
    n = name.lower()
    if "header" in n:
        return "header"
    if "path" in n:
        return "path"
    if any(t in n for t in ("payload", "data", "json", "body", "form")):
        return "body"
    if any(t in n for t in ("query", "params", "querystring")):
        return "query"
    return None


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _fragment_pairs(text: str) -> list[tuple[str, object]]:
    """``(key, literal value or None)`` of the dicts a code fragment builds.

    ``x = {"k": v, ...}``, ``dict(k=v)`` and ``x["k"] = v``; a fragment that
    does not parse (the release cuts some) falls back to quoted keys before
    a colon.
    """
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return [(k, None) for k in _QUOTED_KEY.findall(text)]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.append((k.value, _literal(v)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            out += [(kw.arg, _literal(kw.value)) for kw in node.keywords if kw.arg]
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
              and isinstance(node.targets[0].slice, ast.Constant) and isinstance(node.targets[0].slice.value, str)):
            out.append((node.targets[0].slice.value, _literal(node.value)))
    return out


def code_params(meta: dict) -> list[CodeParam]:
    """Parameters of the original code, from either ``code_params`` shape.

    Parameters
    ----------
    meta : dict
        ``api_metadata`` of a record.

    Returns
    -------
    list of CodeParam
        In order, first occurrence of each (key, location) kept. Header
        fragments give ``header`` entries; names in :data:`HEADER_NAMES` are
        dropped from the other locations.

    Examples
    --------
    >>> [(p.key, p.location, p.value) for p in code_params({"code_params": {
    ...     "querystring_code": 'querystring = {"units": "i", "lat": lat}'}})]
    [('units', 'query', 'i'), ('lat', 'query', None)]
    """
    raw = meta.get("code_params") if isinstance(meta, dict) else None
    out: list[CodeParam] = []
    if isinstance(raw, list):
        for p in raw:
            if isinstance(p, dict) and isinstance(p.get("key"), str) and p["key"]:
                out.append(CodeParam(p["key"], str(p.get("in") or "query"), p.get("value")))
    elif isinstance(raw, dict):
        for name, frag in raw.items():
            loc = _fragment_location(str(name))
            if loc is None:
                continue
            if isinstance(frag, list):  # "params": ["nextpage", "searchId"]
                out += [CodeParam(k, loc) for k in frag if isinstance(k, str) and k]
            elif isinstance(frag, str):
                out += [CodeParam(k, loc, v) for k, v in _fragment_pairs(frag)]
    seen, kept = set(), []
    for p in out:
        if (p.key, p.location) in seen or (p.location != "header" and p.key.lower() in HEADER_NAMES):
            continue
        seen.add((p.key, p.location))
        kept.append(p)
    return kept


def _names(value, where=None) -> list[tuple[str, str | None]]:
    if isinstance(value, str):
        return [(value, where)] if value.strip() else []
    if isinstance(value, dict):
        name = value.get("name") or value.get("key") or value.get("param")
        if isinstance(name, str):
            return [(name, value.get("in") or where)]
        return [(k, where) for k in value if isinstance(k, str)]
    if isinstance(value, list):
        return [n for item in value for n in _names(item, where)]
    return []


def documented_keys(meta: dict) -> list[str]:
    """Documented query/body keys: ``params`` (entries with an ``in`` outside
    :data:`PARAM_LOCATIONS` left out) and the keys of ``payload``; header
    names dropped. ``path_params`` and ``header_params`` are not request
    keys (the path is judged by the route, headers are not counted)."""
    if not isinstance(meta, dict):
        return []
    keys: list[str] = []
    for name, where in _names(meta.get("params")) + _names(meta.get("payload"), "body"):
        if (where is None or where in PARAM_LOCATIONS) and name.lower() not in HEADER_NAMES and name not in keys:
            keys.append(name)
    return keys


def comment_texts(record: dict) -> list[str]:
    """Comment strings of a record: release dicts (``text``) or plain strings."""
    out = []
    comments = record.get("comments")
    for c in comments if isinstance(comments, list) else []:
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, dict) and isinstance(c.get("text"), str):
            out.append(c["text"])
    return out


_SHAPES = {
    "sample_id": (str, int),
    "api_host": (str, type(None)),
    "function_name": (str, type(None)),
    "api_metadata": (dict, type(None)),
    "code": (dict, type(None)),
    "comments": (list, type(None)),
}
_META_SHAPES = {
    "url": (str, type(None)),
    "route": (str, type(None)),
    "method": (str, type(None)),
    "params": (list, dict, str, type(None)),
    "payload": (list, dict, str, type(None)),
    "code_params": (list, dict, type(None)),
    "headers": (dict, type(None)),
}


def record_problem(record) -> str | None:
    """Why *record* cannot be used as an SCCGBench record, or ``None``.

    Checks the shapes of the fields qare reads (``sample_id`` present;
    ``api_metadata``, ``code``, ``comments``, ``code_params``, ``params``,
    … of a usable type). Extra fields are fine.
    """
    if not isinstance(record, dict):
        return "not a JSON object"
    if "sample_id" not in record:
        return "no sample_id"
    for field, types_ in _SHAPES.items():
        if field in record and not isinstance(record[field], types_):
            return f"{field} is a {type(record[field]).__name__}"
    meta = record.get("api_metadata") or {}
    for field, types_ in _META_SHAPES.items():
        if field in meta and not isinstance(meta[field], types_):
            return f"api_metadata.{field} is a {type(meta[field]).__name__}"
    return None


def read_records(data: bytes, name: str) -> tuple[list, list[str]]:
    """Records of a JSON array file (the release) or of a JSONL file.

    Parameters
    ----------
    data : bytes
        The file's content.
    name : str
        Its name, for messages.

    Returns
    -------
    (list of dict, list of str)
        The objects, and ``name:N: reason`` errors (N = line of a JSONL
        line, or ``[i]`` = index in an array). Undecodable text, bad JSON
        and nesting too deep to parse (``RecursionError``) are errors, never
        exceptions. Schema checks are the caller's (:func:`record_problem`).
    """
    head = data.lstrip()[:1]
    if head == b"[":
        try:
            arr = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            arr = None
            err = f"{name}: {_why(exc)}"
        if isinstance(arr, list):
            recs, errs = [], []
            for i, obj in enumerate(arr):
                (recs.append(obj) if isinstance(obj, dict) else errs.append(f"{name}:[{i}]: not a JSON object"))
            return recs, errs
        if arr is not None:
            err = f"{name}: not a JSON array of records"
        # a JSONL file whose first line is an array, or a broken array: try lines
        recs, errs = _lines(data, name)
        if recs:
            return recs, errs
        return [], [err]
    return _lines(data, name)


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "RecursionError: JSON nested too deeply"
    return f"{type(exc).__name__}: {exc}"


def _lines(data: bytes, name: str):
    records, errors = [], []
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            errors.append(f"{name}:{n}: {_why(exc)}")
            continue
        if not isinstance(obj, dict):
            errors.append(f"{name}:{n}: not a JSON object")
            continue
        records.append(obj)
    return records, errors
