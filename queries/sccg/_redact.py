"""Redaction of gold answers from code and ``LeakCheck`` (SCCGBench §III-C(3))."""

from __future__ import annotations

import ast
import re
import tokenize
from dataclasses import dataclass

from records.sccg import code_params, documented_keys

from ._secrets import rewrite_tokens, secret_positions, split_string_token
from ._static import TEMPLATE_SEG as _TEMPLATE_SEG
from ._static import docstring_expr

URL_MASK = "<URL>"
HOST_MASK = "<HOST>"
ROUTE_MASK = "<ROUTE>"
VALUE_MASK = "<VALUE>"
KEY_MASK = "<API_KEY>"
_VERSION_SEG = re.compile(r"^v?\d+(\.\d+)*$", re.I)
_PARAM_LOCATIONS = ("query", "body", "path", "form", "formData")


@dataclass(frozen=True, slots=True)
class Gold:
    """The answer tokens of one record: host, URL, route, parameter keys and
    literal parameter values (keys in first-seen order)."""

    host: str | None
    url: str | None
    route: str | None
    keys: tuple
    values: tuple

    @classmethod
    def from_record(cls, record: dict) -> "Gold":
        """Read ``api_host`` and ``api_metadata`` (``url``, ``route``,
        documented ``params`` — dicts with ``name``/``key`` or plain strings —
        and ``code_params`` in either shape, :mod:`records.sccg`) of an
        SCCGBench record."""
        meta = record.get("api_metadata") or {}
        if not isinstance(meta, dict):
            meta = {}
        keys: list[str] = []
        values: list[str] = []
        for name in documented_keys(meta):
            if name not in keys:
                keys.append(name)
        for p in code_params(meta):
            if p.location in _PARAM_LOCATIONS and p.key not in keys:
                keys.append(p.key)
            v = p.value
            if p.location in ("query", "body") and isinstance(v, str) and len(v) >= 2 and "{" not in v and v not in values:
                values.append(v)
        host = record.get("api_host") or None
        url = meta.get("url") or None
        return cls(host.lower() if host else None, url, meta.get("route") or None, tuple(keys), tuple(values))


def _route_regex(route: str | None) -> re.Pattern | None:
    if not route:
        return None
    segs = route.strip("/").split("/")
    if not any(segs):
        return None
    parts = []
    for s in segs:
        if _TEMPLATE_SEG.match(s):
            parts.append(r"(?:\{[^{}/]*\}|[^/?#'\"{}\s]+)")
        else:
            parts.append(re.escape(s))
    return re.compile("/" + "/".join(parts) + r"/?(?=$|[?#'\"\s])")


def _docstring_positions(tree: ast.AST) -> set[tuple[int, int]]:
    docs = (docstring_expr(node) for node in ast.walk(tree))
    return {(d.value.lineno, d.value.col_offset) for d in docs if d is not None}


def _word(word: str) -> re.Pattern:
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(word) + r"(?![A-Za-z0-9_])", re.I)


class _Redactor:
    def __init__(self, gold: Gold):
        self.gold = gold
        self.route_re = _route_regex(gold.route)
        self.key_masks = {k: f"<PARAM_{i}>" for i, k in enumerate(gold.keys, 1)}

    def common(self, text: str) -> str:
        g = self.gold
        if g.url and "://" in g.url:
            bare = g.url.split("?", 1)[0]
            for u in sorted({g.url, bare}, key=len, reverse=True):
                text = re.sub(re.escape(u) + r"(?=$|[?#'\"\s])", URL_MASK, text)
        if g.host:
            text = re.sub(re.escape(g.host), HOST_MASK, text, flags=re.I)
        if self.route_re is not None:
            text = self.route_re.sub(ROUTE_MASK, text)
        return text

    def string(self, body: str) -> str:
        if body in self.key_masks:
            return self.key_masks[body]
        if body in self.gold.values:
            return VALUE_MASK
        text = self.common(body)
        for k, mask in self.key_masks.items():
            text = re.sub(r"([?&])" + re.escape(k) + "=", lambda m: m.group(1) + mask + "=", text)
        return text

    def prose(self, text: str) -> str:
        text = self.common(text)
        for k, mask in self.key_masks.items():
            if len(k) >= 2:
                text = _word(k).sub(mask, text)
        return text


def redact_code(code: str, record: dict) -> str:
    """Replace the record's answers in *code* with placeholders.

    In string literals (f-strings included) the full URL becomes ``<URL>``,
    the host ``<HOST>``, the route (templated segments match any filled
    segment) ``<ROUTE>``, a literal equal to a parameter key ``<PARAM_i>``
    (``i`` = the key's position in the gold key list, from 1), ``?key=`` /
    ``&key=`` in URLs ``?<PARAM_i>=``, a literal equal to a gold parameter
    value ``<VALUE>``, and credential literals ``<API_KEY>``. Comments and
    docstrings get the same URL/host/route masks and parameter keys masked as
    whole words. Identifiers are kept so that the code stays readable.

    Parameters
    ----------
    code : str
        Python source.
    record : dict
        SCCGBench record (see :meth:`Gold.from_record`).

    Returns
    -------
    str
        The redacted source; layout and comments otherwise unchanged.

    Raises
    ------
    SyntaxError
        When *code* does not parse.
    """
    tree = ast.parse(code)
    secrets = secret_positions(tree)
    docstrings = _docstring_positions(tree)
    r = _Redactor(Gold.from_record(record))

    def rewrite(tok):
        if tok.type == tokenize.STRING:
            prefix, body, q = split_string_token(tok.string)
            if tok.start in secrets:
                return prefix + KEY_MASK + q
            if tok.start in docstrings:
                return prefix + r.prose(body) + q
            return prefix + r.string(body) + q
        if tok.type == tokenize.COMMENT:
            return r.prose(tok.string)
        return None

    return rewrite_tokens(code, rewrite)


# --------------------------------------------------------------------------- LeakCheck


@dataclass(frozen=True, slots=True)
class LeakReport:
    """Which gold tokens a text contains.

    Attributes
    ----------
    host : bool
        The host, or the API's name label (``weatherapi-com`` of
        ``weatherapi-com.p.rapidapi.com``), occurs.
    url : bool
        The full URL (without query) occurs.
    route : bool
        The route's literal prefix (up to the first templated segment, at
        least one identifying segment) occurs.
    route_segments : tuple of str
        Identifying literal route segments found as whole words.
    param_keys : tuple of str
        Parameter keys found (see ``docs/sccg.md`` for the rules).
    """

    host: bool
    url: bool
    route: bool
    route_segments: tuple
    param_keys: tuple

    @property
    def leaked(self) -> bool:
        """True when any gold token was found."""
        return self.host or self.url or self.route or bool(self.route_segments) or bool(self.param_keys)

    @property
    def tokens(self) -> tuple:
        """The leaked tokens as strings (``host``, ``url``, ``route`` then the
        segments and keys)."""
        out = [n for n in ("host", "url", "route") if getattr(self, n)]
        return tuple(out) + self.route_segments + self.param_keys


def _identifying(token: str) -> bool:
    """A token shaped like code rather than a plain word: it has ``_``, ``-``,
    ``.``, a digit or an inner capital."""
    return bool(re.search(r"[_\-.\d]", token) or re.search(r"[a-z][A-Z]", token))


def leak_check(text: str, gold: dict | Gold) -> LeakReport:
    """``LeakCheck(t, g)``: the gold tokens (host, route, parameter keys) that
    *text* contains (SCCGBench §III-C(3)c).

    Matching is case-insensitive. A route segment or key counts when it occurs
    as a whole word (not inside a longer identifier) and is identifying
    (``_``, ``-``, ``.``, digit or camelCase) — plain words such as ``city``
    or ``forecast`` count only in code form: quoted (``"city"``), backticked,
    braced (``{city}``) or as ``city=``. Version segments (``v1``, ``2``) and
    one-letter keys are ignored.

    Parameters
    ----------
    text : str
        A comment or generated intent.
    gold : dict or Gold
        An SCCGBench record, or its :class:`Gold` tokens.

    Returns
    -------
    LeakReport
    """
    g = gold if isinstance(gold, Gold) else Gold.from_record(gold)
    low = text.lower()
    host = False
    if g.host:
        host = g.host in low
        label = g.host.split(".")[0]
        if not host and g.host.endswith(".p.rapidapi.com") and len(label) >= 4:
            host = bool(_word(label).search(text))
    url = bool(g.url and "://" in g.url and g.url.split("?", 1)[0].lower() in low)
    segs_found: list[str] = []
    route = False
    if g.route:
        segs = [s for s in g.route.strip("/").split("/") if s]
        prefix = []
        for s in segs:
            if _TEMPLATE_SEG.match(s):
                break
            prefix.append(s)
        if prefix and any(not _VERSION_SEG.match(s) for s in prefix):
            route = ("/" + "/".join(prefix)).lower() in low
        for s in segs:
            if _TEMPLATE_SEG.match(s) or _VERSION_SEG.match(s) or len(s) < 3 or s in segs_found:
                continue
            if _found(s, text):
                segs_found.append(s)
    keys = tuple(k for k in g.keys if len(k) >= 2 and _found(k, text))
    return LeakReport(host, url, route, tuple(segs_found), keys)


def _found(token: str, text: str) -> bool:
    if _identifying(token):
        return bool(_word(token).search(text))
    t = re.escape(token)
    code_form = rf"(?:[\"'`]{t}[\"'`]|\{{{t}\}}|(?<![A-Za-z0-9_]){t}\s*=)"
    return bool(re.search(code_form, text, re.I))


#: The paper's name for :func:`leak_check`.
LeakCheck = leak_check
