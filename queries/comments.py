"""Method comments → natural-language queries (Q-ARE §3.2, §3.4).

A *raw comment* is the text of a Java doc comment (``/** … */``), block
comment (``/* … */``) or run of line comments (``// …``) exactly as it stands
in the source. :func:`clean_comment` turns it into the plain-text
*description* (the part before the first block tag), :func:`extract_query`
takes its first lines, and :func:`detect_lang` names its language from the
Unicode scripts it uses.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["clean_comment", "extract_query", "detect_lang"]

_INLINE_TAG = re.compile(r"\{@(\w+)\s*([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_HTML_BREAK = re.compile(r"<\s*(?:p|br|div|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|blockquote)\b[^>]*>|<\s*/\s*(?:p|div|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|blockquote|pre)\s*>", re.I)
_HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z][\w:-]*(?:\s[^<>]*)?/?\s*>")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PRE_OPEN = re.compile(r"<\s*pre\b", re.I)
_PRE_CLOSE = re.compile(r"<\s*/\s*pre\s*>", re.I)
_BLOCK_TAG = re.compile(r"^@[A-Za-z]\w*")
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")


def _strip_delimiters(raw: str) -> list[str]:
    """Comment body lines without ``/**``, ``*/``, leading ``*`` or ``//``."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").strip()
    lines: list[str] = []
    if text.startswith("/*"):
        text = text[2:]
        while text.startswith("*"):
            text = text[1:]
        if text.endswith("*/"):
            text = text[:-2]
        for line in text.split("\n"):
            s = line.strip()
            if s.startswith("*"):
                s = s.lstrip("*")
                if s.startswith(" "):
                    s = s[1:]
            lines.append(s.rstrip())
    else:
        for line in text.split("\n"):
            s = line.strip()
            if s.startswith("//"):
                s = s[2:].lstrip("/")
                if s.startswith(" "):
                    s = s[1:]
            lines.append(s.rstrip())
    return lines


def _inline_tag(match: re.Match) -> str:
    tag, body = match.group(1), match.group(2).strip()
    if tag in ("inheritDoc", "docRoot"):
        return ""
    if tag in ("link", "linkplain", "see"):
        ref, _, label = body.partition(" ")
        label = label.strip()
        if label:
            return label
        ref = ref.split("(", 1)[0]
        return ref[1:] if ref.startswith("#") else ref.replace("#", ".")
    if tag == "index":
        return body.split(" ", 1)[0] if body else ""
    if tag in ("code", "literal"):
        # their text is literal: escape it so the HTML pass does not take List<String> for a tag
        return body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # {@value X}, {@systemProperty x}, {@summary x}, unknown tags
    return body


def clean_comment(raw: str | None) -> str:
    """The plain-text description of a raw comment.

    Parameters
    ----------
    raw : str or None
        The comment as written in the source, delimiters included
        (``/** … */``, ``/* … */`` or consecutive ``// …`` lines).

    Returns
    -------
    str
        The description — the text before the first block tag (``@param``,
        ``@return``, …; an ``@`` line inside ``<pre>`` is not a tag) — with
        inline tags replaced by their text (``{@code x}`` → ``x``,
        ``{@link Foo#bar label}`` → ``label``, ``{@link Foo#bar(int)}`` →
        ``Foo.bar``, ``{@link #bar}`` → ``bar``, ``{@inheritDoc}`` → nothing),
        HTML comments and tags removed (block tags such as ``<p>``/``<br>``
        start a new line), entities unescaped, runs of blanks collapsed and
        blank lines removed; lines joined by ``"\\n"``. ``""`` for ``None``.
    """
    if not raw:
        return ""
    body: list[str] = []
    in_pre = False
    for line in _strip_delimiters(raw):
        if not in_pre and _BLOCK_TAG.match(line):
            break
        # count <pre> opens/closes on the line so an "@Override" inside a code sample is not a tag
        opens, closes = len(_PRE_OPEN.findall(line)), len(_PRE_CLOSE.findall(line))
        if opens > closes:
            in_pre = True
        elif closes > opens:
            in_pre = False
        body.append(line)
    text = "\n".join(body)
    text = _HTML_COMMENT.sub("", text)
    # inline tags may nest ({@link Foo {@code x}}) — resolve innermost first
    for _ in range(5):
        new = _INLINE_TAG.sub(_inline_tag, text)
        if new == text:
            break
        text = new
    text = _HTML_BREAK.sub("\n", text)
    text = _HTML_TAG.sub("", text)
    text = html.unescape(text)
    out = []
    for line in text.split("\n"):
        s = _SPACES.sub(" ", line).strip()
        if s:
            out.append(s)
    return "\n".join(out)


def extract_query(raw: str | None, lines: int = 2) -> str:
    """The query of a comment: its first ``lines`` description lines.

    Parameters
    ----------
    raw : str or None
        The raw comment (see :func:`clean_comment`).
    lines : int
        How many non-blank description lines to keep (Q-ARE uses 2); must be
        at least 1.

    Returns
    -------
    str
        Those lines joined by a single space; ``""`` when the comment has no
        description.

    Raises
    ------
    ValueError
        If ``lines`` < 1.
    """
    if lines < 1:
        raise ValueError(f"lines must be >= 1, got {lines}")
    return " ".join(clean_comment(raw).split("\n")[:lines]).strip()


# Scripts decided by the Unicode character name's first word; kana or hangul
# outweigh Han (Japanese and Korean text mix in Han characters).
_SCRIPT_LANG = {
    "CYRILLIC": "ru",
    "GREEK": "el",
    "ARABIC": "ar",
    "HEBREW": "he",
    "THAI": "th",
    "DEVANAGARI": "hi",
}


def detect_lang(text: str) -> str:
    """The language of a text, decided from the Unicode scripts of its letters.

    Returns
    -------
    str
        ``"ja"`` if any hiragana/katakana occur, else ``"ko"`` for any hangul,
        else ``"zh"`` for any CJK ideograph; else the script holding the
        majority of the letters: Latin → ``"en"``, Cyrillic → ``"ru"``,
        Greek → ``"el"``, Arabic → ``"ar"``, Hebrew → ``"he"``, Thai →
        ``"th"``, Devanagari → ``"hi"``, other → ``"und"``; ``"und"`` when the
        text has no letters. Latin-script languages other than English are
        not told apart (all ``"en"``), a documented limit.
    """
    counts: dict[str, int] = {}
    has_kana = has_hangul = has_han = False
    for ch in text:
        if not ch.isalpha():
            continue
        o = ord(ch)
        if 0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9F:
            has_kana = True
            continue
        if 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
            has_hangul = True
            continue
        if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x2FA1F:
            has_han = True
            continue
        name = unicodedata.name(ch, "")
        script = name.split(" ", 1)[0] if name else ""
        counts[script] = counts.get(script, 0) + 1
    if has_kana:
        return "ja"
    if has_hangul:
        return "ko"
    if has_han:
        return "zh"
    if not counts:
        return "und"
    script = max(counts, key=lambda k: (counts[k], k))
    if script == "LATIN":
        return "en"
    return _SCRIPT_LANG.get(script, "und")
