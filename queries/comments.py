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
from enum import Enum

__all__ = ["clean_comment", "extract_query", "query_from_description", "detect_lang",
           "is_javadoc", "Rejection", "reject_description", "is_code_line"]

_TAG_NAME = re.compile(r"[A-Za-z][\w.-]*")
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
    if text.startswith("/*"):
        text = text[2:].lstrip("*")
        if text.endswith("*/"):
            text = text[:-2]
        marker, strip = "*", "*"  # leading "*" of each line
    else:
        marker, strip = "//", "/"  # "//" (or "///"…) of each line comment
    lines: list[str] = []
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith(marker):
            s = s.lstrip(strip)
            if s.startswith(" "):
                s = s[1:]
        lines.append(s.rstrip())
    return lines


def _brace_pairs(text: str) -> dict[int, int]:
    """Index of each ``{`` → index of the ``}`` that closes it (braces
    counted as javadoc does, so ``{@code Map<K, {x}>}`` is one tag); an
    unclosed ``{`` is absent. One pass, so hostile input stays linear."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for j, c in enumerate(text):
        if c == "{":
            stack.append(j)
        elif c == "}" and stack:
            pairs[stack.pop()] = j
    return pairs


def _split_reference(body: str) -> tuple[str, str]:
    """``package.Class#member(params) label`` → (reference, label).

    The reference ends at the first white space outside ``(…)`` and ``<…>``:
    a parameter list such as ``(Map<K, V>, int...)`` holds spaces.
    """
    body = body.strip()
    parens = angles = 0
    for k, c in enumerate(body):
        if c == "(":
            parens += 1
        elif c == ")":
            parens = max(parens - 1, 0)
        elif c == "<":
            angles += 1
        elif c == ">":
            angles = max(angles - 1, 0)
        elif c.isspace() and parens == 0 and angles == 0:
            return body[:k], body[k:].strip()
    return body, ""


def _reference_text(ref: str) -> str:
    """``pkg.A#b(int)`` → ``pkg.A.b``; ``#b(int)`` → ``b``; ``A`` → ``A``."""
    ref = ref.split("(", 1)[0]
    return ref[1:] if ref.startswith("#") else ref.replace("#", ".")


def _escape(text: str) -> str:
    # literal text: escaped so the HTML pass does not take List<String> for a tag
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _render_tag(tag: str, body: str) -> str:
    if tag in ("inheritDoc", "docRoot"):
        return ""
    if tag in ("code", "literal"):
        return _escape(body)
    if tag in ("link", "linkplain", "see", "value"):
        ref, label = _split_reference(body)
        if label:
            return _render_inline(label)
        return _reference_text(ref)
    if tag == "index":
        term = body.strip()
        if term.startswith('"'):
            quoted, sep, _ = term[1:].partition('"')
            if sep:
                return quoted
        return term.split(None, 1)[0] if term else ""
    if tag == "return":
        # javadoc shows {@return x} as "Returns x."
        text = _render_inline(body).strip()
        return f"Returns {text}." if text else ""
    # {@summary x}, {@systemProperty x}, unknown tags: their (rendered) text
    return _render_inline(body)


def _render_inline(text: str) -> str:
    """Text with every ``{@tag body}`` replaced by what it shows.

    Tags are delimited by balanced braces; a body is parsed by its tag
    (:func:`_render_tag`). An unterminated ``{@tag …`` loses only its
    ``{@tag`` marker: the rest stays readable and is rendered on (after an
    unterminated ``{@code``/``{@literal``, literally to the end of the line).
    """
    out: list[str] = []
    pairs = _brace_pairs(text) if "{@" in text else {}
    i = 0
    while True:
        start = text.find("{@", i)
        if start < 0:
            break
        m = _TAG_NAME.match(text, start + 2)
        if not m:
            out.append(text[i : start + 2])
            i = start + 2
            continue
        out.append(text[i:start])
        end = pairs.get(start, -1)
        name_end = m.end()
        if end < 0:
            # no closing brace anywhere: drop the marker, keep what follows
            i = name_end + 1 if text[name_end : name_end + 1] in (" ", "\t") else name_end
            if m.group(0) in ("code", "literal"):
                # literal to the end of its line, so List<String> survives the HTML pass
                eol = text.find("\n", i)
                eol = len(text) if eol < 0 else eol
                out.append(_escape(text[i:eol]))
                i = eol
            continue
        body = text[name_end:end]
        if body[:1] in (" ", "\t", "\n"):
            body = body[1:]
        out.append(_render_tag(m.group(0), body))
        i = end + 1
    out.append(text[i:])
    return "".join(out)


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
        ``Foo.bar`` — the reference ends at white space outside ``(…)``/``<…>``,
        so ``{@link A#b(Object[], char)}`` → ``A.b`` —, ``{@link #bar}`` →
        ``bar``, ``{@inheritDoc}`` → nothing; tags end at their balanced
        ``}``; an unterminated tag keeps its text; docs/dataset.md),
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
    text = _render_inline(text)
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
    return query_from_description(clean_comment(raw), lines)


def query_from_description(description: str, lines: int = 2) -> str:
    """:func:`extract_query` for a comment already cleaned by
    :func:`clean_comment` (so a caller that needs both cleans once)."""
    if lines < 1:
        raise ValueError(f"lines must be >= 1, got {lines}")
    return " ".join(description.split("\n")[:lines]).strip()


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


# ---------------------------------------------------------------- which comments make queries


def is_javadoc(raw: str | None) -> bool:
    """Is a raw comment a doc comment (``/** … */``, not the empty ``/**/``)?"""
    return bool(raw) and raw.lstrip().startswith("/**") and not raw.lstrip().startswith("/**/")


class Rejection(str, Enum):
    """Why a description makes no query (docs/dataset.md "Queries")."""

    NO_WORDS = "no_words"  # separator lines, ASCII art, numbers only
    BANNER = "banner"  # a section banner: `===== 1. Parse =====`, `END OF WALK METHODS ****`
    CODE = "code"  # commented-out code


# three or more of one symbol in a row: rules and frames of banners and ASCII art
# (four dots: an ellipsis "..." is prose, `loadPetWithVisit(...)` too)
_DECORATION = re.compile(r"([=*\-_#~+/\\|<>^:])\1{2,}|\.{4,}|[\u2500-\u257f\u2580-\u259f]+")
# a word: two letters in a row, or one letter of a script written without spaces
_WORD = re.compile(r"[^\W\d_]{2,}|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CODE_START = re.compile(
    r"^(?:(?:public|private|protected|static|final)\s|(?:if|for|while|switch|catch|synchronized)\s*\(|"
    r"(?:return|throw|import|package)\s+\S|(?:try|else|do|finally)\s*\{|@[A-Z]\w*\s*(?:\(|$)|//|/\*)")
_CALL_OR_ASSIGN = re.compile(r"^[\w$.<>\[\], ]+\s*(?:=[^=]|\()")


def is_code_line(line: str) -> bool:
    """Does one description line look like Java code rather than prose?

    Code: a line that ends with ``{`` or ``}``, or with ``;`` after a
    statement shape (a ``(``, an ``=``, or a single token: ``break;``) —
    prose ends sentences with ``.``, ``:``, ``?``, ``!``, or a ``;`` between
    clauses —, or that starts with a
    modifier, a control keyword and ``(``, ``return``/``throw``/``import``/
    ``package``, ``try {``, an annotation alone or with ``(``, or a comment
    marker; a line of an assignment or call (``x = y``, ``a.b(c)``) that
    also ends in ``)`` counts too.
    """
    s = line.strip()
    if not s:
        return False
    if s[-1] in "{}":
        return True
    if s[-1] == ";" and ("(" in s or re.search(r"[^=!<>]=[^=]", s) or " " not in s):
        return True
    if _CODE_START.match(s):
        return True
    return s.endswith(")") and bool(_CALL_OR_ASSIGN.match(s)) and " " not in s.split("(", 1)[0].strip()


def reject_description(description: str) -> Rejection | None:
    """Why a cleaned description (:func:`clean_comment`) makes no query, or None.

    In order:

    - ``BANNER``: its first line holds a decoration run — three or more of
      one symbol (``=``, ``*``, ``-``, ``_``, ``#``, ``~``, ``+``, ``/``,
      ``\\``, ``|``, ``<``, ``>``, ``^``, ``:``), four or more dots, or box-drawing
      characters — as section banners do (``===== 1. Parse``,
      ``END OF WALK METHODS ****``);
    - ``NO_WORDS``: no word once decoration runs are removed (a word is two
      letters in a row, or one Han/kana/hangul character);
    - ``CODE``: its first line and at least half of all its lines look like
      code (:func:`is_code_line`) — a doc comment that opens with prose and
      shows an example is kept.

    Returns
    -------
    Rejection or None
    """
    lines = [ln for ln in description.split("\n") if ln.strip()]
    if not lines:
        return Rejection.NO_WORDS
    if _DECORATION.search(lines[0]):
        return Rejection.BANNER
    if not any(_WORD.search(_DECORATION.sub(" ", ln)) for ln in lines):
        return Rejection.NO_WORDS
    code = sum(1 for ln in lines if is_code_line(ln))
    if is_code_line(lines[0]) and 2 * code >= len(lines):
        return Rejection.CODE
    return None
