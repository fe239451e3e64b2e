"""API-name normalisation across datasets (DESIGN.md "Identifiers").

Every recommender and benchmark writes API names its own way:

- ours / javadoc 11+: ``com.acme.Outer.Inner.name(java.lang.String,int[])``,
  constructors ``<init>``, unresolved overloads ``name(*)``;
- APIBench-Q: ``java.io.File.mkdirs()``, constructors ``javax.swing.JList.JList()``,
  noise: no ``()``, argument lists inside ``()``, several APIs joined by
  full-width commas, placeholders such as ``idk``;
- CLEAR: ``java.util.Collections.max`` (no parentheses);
- DeepAPI: simple class names, ``StringBuilder.<init>`` or ``StringBuilder.new``;
- javadoc links: ``java.io.File#mkdirs()``; method references ``File::mkdirs``.

:func:`normalise_api` maps any of these to one string per API at the chosen
granularity and returns the problems it met instead of raising: a string it
cannot read gives no name and a problem, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from records.javalang import JAVA_LANG_TYPES

from .scores import dedupe

__all__ = ["LEVELS", "ParsedApi", "parse_api", "normalise_api", "normalise_many", "simple_name"]

LEVELS = ("class", "name", "signature")
"""Granularities: declaring type, API name (type + method), full method id."""

_IDENT = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_MEMBER_SPECIAL = {"<init>", "<clinit>"}
# Several APIs in one gold string: full-width comma, ideographic comma,
# semicolons, ASCII commas outside a parameter list.
_LIST_SEPARATORS = {"，", "、", ";", "；", ","}
_PRIMITIVES = {"int", "long", "short", "byte", "char", "boolean", "float", "double"}
# java.lang types written without package inside parameter lists: the one list (records.javalang)
_JAVA_LANG = JAVA_LANG_TYPES


@dataclass(frozen=True, slots=True)
class ParsedApi:
    """One API read from a string.

    ``class_`` the declaring type, dotted (nested types joined by ``.``);
    ``member`` the method name (``<init>`` for constructors) or ``None`` when
    the string names a type only; ``params`` the erased parameter types, or
    ``None`` when the string carries no parameter list.
    """

    class_: str
    member: str | None
    params: tuple[str, ...] | None

    def at(self, level: str) -> str | None:
        """The name at ``level`` (see :data:`LEVELS`); ``None`` if the string
        had no method name and ``level`` is ``name`` or ``signature``.
        At ``signature`` level a missing parameter list is written ``(*)``
        (the form DESIGN.md uses for undecided overloads)."""
        if level == "class":
            return self.class_
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        if self.member is None:
            return None
        name = f"{self.class_}.{self.member}"
        if level == "name":
            return name
        return name + ("(*)" if self.params is None else "(" + ",".join(self.params) + ")")


def simple_name(dotted: str) -> str:
    """Drop the package: the leading segments that start in lower case
    (``java.util.Map.Entry`` → ``Map.Entry``). Parameter lists are kept and
    their types simplified the same way."""
    m = re.match(r"([^(]*)(\((.*)\))?$", dotted)
    head, params = (m.group(1), m.group(3)) if m else (dotted, None)

    def _simple(path: str) -> str:
        segs = path.split(".")
        i = 0
        while i < len(segs) - 1 and segs[i][:1].islower():
            i += 1
        return ".".join(segs[i:])

    out = _simple(head)
    if params is not None:
        items = params.split(",") if params else []
        out += "(" + ",".join(p if p == "*" else _simple(p) for p in items) + ")"
    return out


def _split_top(s: str, seps: set[str]) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth = max(0, depth - 1)
        if depth == 0 and ch in seps:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _strip_generics(s: str) -> str:
    s = s.replace("<init>", "\0i").replace("<clinit>", "\0c")
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"<[^<>]*>", "", s)
    return s.replace("\0i", "<init>").replace("\0c", "<clinit>")


def _param_type(raw: str, problems: list[str]) -> str | None:
    p = re.sub(r"@[\w.$]+(\([^)]*\))?", " ", _strip_generics(raw)).strip()
    p = re.sub(r"\bfinal\s+", "", p)
    if not p:
        problems.append(f"empty parameter in {raw!r}")
        return None
    tokens = p.split()
    # "String s", "int[] a", "String... args": the last token is the name.
    if len(tokens) >= 2 and _IDENT.fullmatch(tokens[-1]):
        tokens = tokens[:-1]
    t = "".join(tokens)
    base = t.rstrip("[].")
    suffix = t[len(base):]
    if not all(_IDENT.fullmatch(seg) for seg in base.split(".")):
        problems.append(f"unreadable parameter type {raw.strip()!r}")
        return None
    last = base.rsplit(".", 1)[-1]
    if last[:1].islower() and base not in _PRIMITIVES:
        # "format(\"%d\", count)": an argument, not a parameter type.
        problems.append(f"argument instead of a parameter type: {raw.strip()!r}")
        return None
    if base in _JAVA_LANG:
        base = "java.lang." + base
    elif re.fullmatch(r"[A-Z][0-9]?", base):
        # A type variable (E, K, V, T1): its erasure is Object unless bounded,
        # and a bound cannot be known from the name alone.
        base = "java.lang.Object"
    return base + suffix


def _parse_one(s: str, problems: list[str]) -> ParsedApi | None:
    s = s.strip().strip("`'\"").strip().replace("（", "(").replace("）", ")")
    if not s:
        problems.append("empty API string")
        return None
    ctor_new = False
    if s.startswith("new "):
        s, ctor_new = s[4:].strip(), True
    s = s.replace("::", ".").replace("#", ".")
    params: tuple[str, ...] | None = None
    if "(" in s:
        i = s.index("(")
        head, rest = s[:i], s[i + 1:]
        depth, j = 1, 0
        while j < len(rest) and depth:
            depth += {"(": 1, ")": -1}.get(rest[j], 0)
            j += 1
        if depth:
            problems.append(f"unclosed parenthesis in {s!r}")
            inner, tail = rest, ""
        else:
            inner, tail = rest[: j - 1], rest[j:]
        if tail.strip():
            problems.append(f"text after the parameter list ignored: {tail.strip()!r}")
        plist: list[str] | None = []
        if inner.strip() == "*":
            plist = None  # our own "overload undecided" form
        elif inner.strip():
            for raw in _split_top(inner, {",", "，"}):
                t = _param_type(raw, problems)
                if t is None:
                    # One unreadable parameter makes the whole list unknown,
                    # not a shorter (wrong) signature.
                    plist = None
                    break
                plist.append(t)
        params = tuple(plist) if plist is not None else None
        s = head
    s = _strip_generics(s).strip().rstrip(".")
    segs = [seg.strip() for seg in s.split(".")]
    for seg_i, seg in enumerate(segs):
        if seg in _MEMBER_SPECIAL and seg_i == len(segs) - 1:
            continue
        if not _IDENT.fullmatch(seg):
            problems.append(f"not a Java name: {s!r}")
            return None
    if ctor_new:
        return ParsedApi(".".join(segs), "<init>", params)
    last = segs[-1]
    is_member = (
        params is not None
        or last in _MEMBER_SPECIAL
        or last == "new"
        or not last[:1].isupper()
        or (len(segs) >= 2 and last == segs[-2])  # "java.io.File.File": constructor without ()
    )
    if len(segs) == 1:
        if is_member:
            # "idk", "none", "mkdirs": no declaring type to score against.
            problems.append(f"no declaring type (placeholder?): {s!r}")
            return None
        return ParsedApi(last, None, None)
    if not is_member:
        return ParsedApi(".".join(segs), None, None)
    cls = ".".join(segs[:-1])
    member = last
    if member == "new" or member == segs[-2]:
        member = "<init>"
    return ParsedApi(cls, member, params)


def parse_api(raw: str) -> tuple[tuple[ParsedApi, ...], tuple[str, ...]]:
    """Read one API string of any supported style.

    Parameters
    ----------
    raw : str
        e.g. ``"java.io.File.mkdirs()"``, ``"javax.swing.JList.JList()"``,
        ``"java.util.Collections.max"``, ``"StringBuilder.<init>"``,
        ``"java.io.File#renameTo(File dest)"``, ``"a.B.c()，a.B.d()"``.

    Returns
    -------
    (apis, problems)
        ``apis``: the APIs read (usually one; several when the string joins
        several; none when it cannot be read); ``problems``: human-readable
        notes on what was repaired or dropped. Never raises for bad text;
        a non-string gives no API and a problem.
    """
    problems: list[str] = []
    if not isinstance(raw, str):
        return (), (f"not a string: {raw!r}",)
    parts = _split_top(raw, _LIST_SEPARATORS)
    parts = [p for p in parts if p.strip()]
    if len(parts) > 1:
        seps = sorted({ch for ch in raw if ch in _LIST_SEPARATORS})
        problems.append(f"several APIs in one string, split on {' '.join(seps)}: {raw!r}")
    if not parts:
        problems.append("empty API string")
    out = []
    for part in parts:
        parsed = _parse_one(part, problems)
        if parsed is not None:
            out.append(parsed)
    return tuple(out), tuple(problems)


def normalise_api(raw: str, level: str = "name", simple: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Normalise one API string to ``level`` (``class`` | ``name`` | ``signature``).

    Returns ``(names, problems)``: ``names`` the normalised names (several
    when the string joins several APIs, none when unreadable or when it
    names only a type and ``level`` needs a method); ``problems`` what was
    repaired or could not be read. With ``simple=True`` package prefixes are
    dropped (for DeepAPI-style simple names; both sides must use it).
    Raises ``ValueError`` only for an unknown ``level``.

    >>> normalise_api("javax.swing.JList.JList()")
    (('javax.swing.JList.<init>',), ())
    >>> normalise_api("java.io.File#renameTo(File dest)", "signature")
    (('java.io.File.renameTo(File)',), ())
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if isinstance(raw, str):
        # the same API strings recur across thousands of predictions
        return _normalise_cached(raw, level, simple)
    return _normalise(raw, level, simple)


@lru_cache(maxsize=1 << 17)
def _normalise_cached(raw: str, level: str, simple: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return _normalise(raw, level, simple)


def _normalise(raw, level: str, simple: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    apis, problems = parse_api(raw)
    names = []
    probs = list(problems)
    for a in apis:
        n = a.at(level)
        if n is None:
            probs.append(f"names a type, not a method: {a.class_!r}")
            continue
        names.append(simple_name(n) if simple else n)
    return tuple(dedupe(names)), tuple(probs)


def normalise_many(raws, level: str = "name", simple: bool = False) -> tuple[list[str], list[str]]:
    """Normalise a ranked list: names in order, first occurrence kept, and
    all problems. An unreadable entry is dropped (later entries move up) and
    reported."""
    out: list[str] = []
    probs: list[str] = []
    for raw in raws:
        names, p = normalise_api(raw, level, simple)
        probs.extend(p)
        out.extend(names)
    return dedupe(out), probs
