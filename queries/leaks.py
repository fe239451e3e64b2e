"""The leak check: does a query give one of its target APIs away?

A query *leaks* a target (docs/dataset.md "Leaks") when it names

- the target's **class**: its simple name (the last ``.``-part; nested
  types by their own name) as a whole token, case-insensitively, or — for
  a name of two or more camel-case parts — those parts as consecutive words
  in order (``StringUtils`` ↔ "string utils"); a one-part name that is a
  common English word leaks only written in its exact case after the
  query's first token ("Returns an Optional", not "Optional fields are
  skipped" nor "an optional field");
- a **distinctive method name**: the method's simple name as a whole token,
  case-insensitively, when it is distinctive: two or more camel-case parts
  (``isBlank``, ``decodeBase64``, ``toString``), or one part that is not a
  common English word.

A one-part name (class or method) is a *common English word* when its Zipf
frequency in English (``wordfreq.zipf_frequency``, Speer et al.; 3 = once
per million words) is at least ``COMMON_ZIPF`` — ``value``, ``trim``,
``parse``, ``Logger`` never leak on their own; ``md5``, ``uuid``,
``substring`` do. Constructors (``<init>``) are named by their class only.
Tokens are runs of letters, digits, ``_`` and ``$``. The answers are kept
between builds in the qare cache (:mod:`queries._common_words`; call
:func:`save_common_words` after a build), so wordfreq's list is loaded only
for words never asked before.
"""

from __future__ import annotations

import re
from typing import Iterable

from ._common_words import CommonWords

__all__ = ["COMMON_ZIPF", "camel_parts", "is_common_word", "find_leaks", "save_common_words", "warm_common_words"]

COMMON_ZIPF = 2.5
_TOKEN = re.compile(r"[\w$]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def camel_parts(name: str) -> list[str]:
    """Lower-cased camel-case parts: ``HTTPClientV2`` → ``["http", "client", "v", "2"]``;
    ``_`` and ``$`` separate parts too."""
    return [p.lower() for p in _CAMEL.findall(name)]


_MEMOS: dict = {}  # qare cache folder (None: off) -> its CommonWords, one per process


def _memo() -> CommonWords:
    from callgraph.classpath import cache_dir

    base = cache_dir()
    memo = _MEMOS.get(base)
    if memo is None:
        memo = _MEMOS[base] = CommonWords(COMMON_ZIPF, base)
    return memo


def is_common_word(word: str) -> bool:
    """Is ``word`` (any case) a common English word (Zipf frequency ≥ ``COMMON_ZIPF``)?"""
    return _memo()(word)


def save_common_words() -> None:
    """Write the answers wordfreq gave this process to the qare cache (best effort)."""
    for memo in _MEMOS.values():
        memo.save()


def warm_common_words() -> None:
    """Load the kept answers; with no memo file, wordfreq's list (the merge's
    first question would load it). A pure look-up: no answer changes."""
    memo = _memo()
    memo.load()
    if not memo.found:
        from wordfreq import zipf_frequency

        zipf_frequency("the", "en")


def _names(target) -> list[tuple[str, str]]:
    """``(kind, simple name)`` pairs a target (a ``records.TargetRecord`` or
    its dict) can leak by: its class and its method."""
    cls_, api = (target["class"], target["api"]) if isinstance(target, dict) else (target.class_, target.api)
    cls = cls_.rsplit(".", 1)[-1].rsplit("$", 1)[-1]
    meth = api.rsplit(".", 1)[-1]
    out = [("class", cls)]
    if meth != "<init>":
        out.append(("method", meth))
    return out


def _leaks(kind: str, name: str, tokens: set[str], words: list[str], later: set[str]) -> bool:
    parts = camel_parts(name)
    if not parts:
        return False
    if len(parts) == 1 and is_common_word(name):
        # a capitalised common word mid-sentence names the type; a method name never
        return kind == "class" and name in later
    if name.lower() in tokens:
        return True
    if kind == "class" and len(parts) >= 2:
        n = len(parts)
        return any(words[i:i + n] == parts for i in range(len(words) - n + 1))
    return False


def find_leaks(query: str, targets: Iterable) -> list[str]:
    """The target class and method names that ``query`` gives away (module docstring).

    Parameters
    ----------
    query : str
    targets : iterable of records.TargetRecord (or their dicts)
        The sample's targets (their ``api`` and ``class``).

    Returns
    -------
    list[str]
        The leaking simple names, sorted, each once.
    """
    raw = _TOKEN.findall(query)
    tokens = {t.lower() for t in raw}
    later = set(raw[1:])  # exact-case tokens after the first
    words = [t.lower() for t in raw]  # "string utils" names StringUtils; "decodeBase64" does not name Base64
    found = set()
    for t in targets:
        for kind, name in _names(t):
            if name not in found and _leaks(kind, name, tokens, words, later):
                found.add(name)
    return sorted(found)
