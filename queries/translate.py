"""Translation of non-English queries (Q-ARE §3.2: "For comments written in
Chinese, large language models are used to translate them into English").

:func:`needs_translation` says which samples qualify (their ``lang``, from
:func:`queries.comments.detect_lang`, is neither ``en`` nor ``und``);
:class:`LLMTranslator` asks an OpenAI-compatible endpoint through
:class:`queries.llm.LLMClient` with the packaged prompt ``translate.txt``.
A failed request leaves the query untranslated and says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .llm import LLMClient, load_prompt

__all__ = ["Translation", "LLMTranslator", "needs_translation", "clean_translation"]


def needs_translation(lang: str) -> bool:
    """True for the languages that are translated: all but ``en`` and ``und``."""
    return lang not in ("en", "und")


@dataclass(frozen=True, slots=True)
class Translation:
    """``text`` the English query, or ``None`` with ``error`` saying why."""

    text: str | None
    error: str | None = None


def clean_translation(text: str) -> str:
    """A model's answer as a one-line query: white space collapsed, one pair
    of surrounding quotes (ASCII or CJK) removed."""
    t = " ".join(text.split())
    for a, b in (('"', '"'), ("'", "'"), ("“", "”"), ("「", "」"), ("`", "`")):
        if len(t) >= 2 and t.startswith(a) and t.endswith(b):
            t = t[1:-1].strip()
            break
    return t


class LLMTranslator:
    """Queries → English through ``client`` (prompt ``translate``)."""

    def __init__(self, client: LLMClient):
        self.client = client
        self.prompt = load_prompt("translate")

    def translate_many(self, texts: Sequence[str]) -> list[Translation]:
        """One :class:`Translation` per text, in order (``client.concurrency`` at a time)."""
        replies = self.client.map(self.prompt, [{"text": t} for t in texts])
        out = []
        for r in replies:
            if not r.ok:
                out.append(Translation(None, f"{r.failure.value}: {r.detail}"))
                continue
            t = clean_translation(r.text)
            out.append(Translation(t) if t else Translation(None, "bad_response: empty translation"))
        return out
