"""HTML of a javadoc block → readable plain text; inline tags of doc
comments → HTML; first sentences.

Rules (docs/javadoc.md "Text"): inline whitespace collapses to one space;
``<p>`` and blank-line breaks become one empty line; other block elements
(``div``, ``ul``, ``dl``, ``table``, ``blockquote``, headings) and ``<br>``
a line break; list items ``- item``; ``<pre>`` keeps its lines (common
indentation removed, trailing blanks dropped); entities are decoded by the
parser; U+200B and U+00A0 are dropped/turned into spaces.
"""

from __future__ import annotations

import html
import re
import textwrap

from lxml import etree

_BLOCK = frozenset(
    ["div", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr",
     "blockquote", "section", "hr", "center", "header", "footer", "main", "nav", "aside",
     "figure", "caption"]
)
# Line breaks before and after an element's content: 2 makes an empty line.
_BREAKS = {**dict.fromkeys(_BLOCK, 1), "li": 1, "p": 2}
_HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
_SKIP = frozenset(("script", "style", "noscript"))
_WS = re.compile(r"\s+")
_TRAIL = re.compile(r"[ \t]+\n")
_MANY_NL = re.compile(r"\n{3,}")
_ZW = dict.fromkeys(map(ord, "\u200b\ufeff"), None)


def _walk(node, segs: list) -> None:
    tag = node.tag
    if not isinstance(tag, str):  # comment / processing instruction
        if node.tail:
            segs.append(("t", node.tail))
        return
    tag = tag.lower()
    if tag in _SKIP:
        pass
    elif tag == "pre":
        segs.append(("pre", "".join(node.itertext())))
    elif tag == "br":
        segs.append(("nl", 1))
    elif tag in _BREAKS:
        n = _BREAKS[tag]
        segs.append(("nl", n))
        if tag == "li":
            segs.append(("li", "- "))
        _children(node, segs)
        segs.append(("nl", n))
    elif tag in _HEADINGS:
        segs.append(("h", 1))
        _children(node, segs)
        segs.append(("h", 1))
    elif tag in ("td", "th"):
        _children(node, segs)
        segs.append(("t", " "))
    else:
        _children(node, segs)
    if node.tail:
        segs.append(("t", node.tail))


def _children(node, segs: list) -> None:
    if node.text:
        segs.append(("t", node.text))
    for child in node:
        _walk(child, segs)


def _assemble(segs: list) -> str:
    out: list[str] = []
    pending = 0
    for kind, val in segs:
        if kind == "nl" or kind == "h":
            pending = max(pending, val)
            continue
        if kind == "pre":
            text = val.translate(_ZW).replace("\xa0", " ").replace("\r\n", "\n")
            lines = [ln.rstrip() for ln in textwrap.dedent(text.expandtabs(4)).split("\n")]
            while lines and not lines[0]:
                lines.pop(0)
            while lines and not lines[-1]:
                lines.pop()
            if not lines:
                continue
            if out:
                out.append("\n" * max(pending, 1))
            out.append("\n".join(lines))
            pending = 1
            continue
        if "\u200b" in val or "\ufeff" in val:
            val = val.translate(_ZW)
        text = _WS.sub(" ", val)
        if pending:
            text = text.lstrip()
            if not text:
                continue
            if out:
                out[-1] = out[-1].rstrip(" ")
                out.append("\n" * pending)
            pending = 0
        elif not out:
            text = text.lstrip()
        elif text[:1] == " " and out[-1][-1:] == " ":
            text = text[1:]
        if text:
            out.append(text)
    result = "".join(out)
    if "\n" in result:
        result = _TRAIL.sub("\n", result)
        result = _MANY_NL.sub("\n\n", result)
    return result.strip()


def _one_line(t: str) -> str:
    """``t`` without zero-width characters, white space collapsed, stripped."""
    if "\u200b" in t or "\ufeff" in t:
        t = t.translate(_ZW)
    return _WS.sub(" ", t).strip()


def element_text(el) -> str:
    """Plain text of an lxml element's content (the element's own tail is
    not included)."""
    if not len(el):  # no child elements: the common short case
        return _one_line(el.text) if el.text else ""
    segs: list = []
    _children(el, segs)
    return _assemble(segs)


def elements_text(els) -> str:
    """Plain text of several block elements, separated by a blank line."""
    parts = [t for t in (element_text(e) for e in els) if t]
    return "\n\n".join(parts)


def inline_text(el) -> str:
    """Text of an element on one line (whitespace collapsed)."""
    return _one_line("".join(el.itertext()))


_SENTENCE_END = re.compile(r"\.(?=\s|$)")


_PERIOD_SPACE = re.compile(r"\.(?=\s)")


def _first_from_segs(segs: list) -> str | None:
    # javadoc's default rule works on each text node: a "." followed by
    # white space in the same node ends the sentence ("x.<br>" does not)
    parts: list[str] = []
    seen_text = False
    for kind, val in segs:
        if kind == "t":
            m = _PERIOD_SPACE.search(val)
            if m:
                parts.append(val[: m.end()])
                break
            parts.append(val)
            seen_text = seen_text or bool(val.strip())
        elif kind == "nl" and val == 1:
            parts.append(" ")
        elif kind == "li":
            continue
        elif seen_text:  # <p>, <pre>, heading: javadoc's sentence breaks
            break
    return _one_line("".join(parts)) or None


def first_sentence_of(els) -> str | None:
    """First sentence of the description held by block elements, by
    javadoc's rule (its default, without -breakiterator): up to the first ``.`` followed by white
    space, and never past a ``<p>``, ``<pre>`` or heading (lists and other
    blocks do not end it). One line; ``None`` when there is no text."""
    segs: list = []
    for el in els:
        _children(el, segs)
        segs.append(("nl", 2))
    return _first_from_segs(segs)


def first_sentence(text: str | None) -> str | None:
    """First sentence of plain text (as rendered here): up to the first
    ``.`` followed by white space, never past a blank line.
    Prefer :func:`first_sentence_of` when the HTML is at hand."""
    if not text:
        return None
    para = _WS.sub(" ", text.split("\n\n", 1)[0]).strip()
    m = _SENTENCE_END.search(para)
    return para[: m.end()] if m else para


# --- doc comments (sources) -------------------------------------------------

def _inline_tags(text: str):
    """Yield (start, end, tag, body) of ``{@tag body}`` with balanced braces."""
    i = 0
    n = len(text)
    while True:
        start = text.find("{@", i)
        if start < 0:
            return
        depth = 0
        j = start
        while j < n:
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= n:
            return
        inner = text[start + 2 : j]
        m = re.match(r"([A-Za-z]+)\s?", inner)
        if m:
            yield start, j + 1, m.group(1), inner[m.end():]
        i = j + 1


def simple_type_name(cls: str) -> str:
    """``java.util.Map.Entry`` → ``Map.Entry``: javadoc shows type names
    without their package."""
    parts = cls.split(".")
    k = 0
    while k < len(parts) - 1 and parts[k][:1].islower():
        k += 1
    return ".".join(parts[k:])


class RefContext:
    """How the references of one doc comment resolve (sources). The base
    class resolves nothing: names are shown as written."""

    def type_name(self, cls: str) -> str:
        """FQN of a type named in a reference; ``""`` for the documented
        type itself (javadoc then shows the member alone)."""
        return cls

    def member_ref(self, cls: str, member: str) -> str:
        """The member part as javadoc shows it (it adds a parameter list)."""
        return member

    def value_of(self, ref: str) -> str | None:
        """Shown value of the constant ``{@value ref}`` names (``""``: the
        documented constant), or ``None``."""
        return None


_NO_CONTEXT = RefContext()


def link_label(body: str, ctx: RefContext | None = None) -> str:
    """What javadoc shows for ``{@link ref label}``: the label, else the
    reference with ``#`` turned into ``.`` (``#m()`` → ``m()``) and the type
    shown without its package (``ctx`` may resolve a simple name first, e.g.
    to show a nested type as ``Outer.Inner``)."""
    ctx = ctx or _NO_CONTEXT
    body = body.strip()
    # reference = up to the first white space outside parentheses
    depth = 0
    for k, c in enumerate(body):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c.isspace() and depth == 0:
            ref, label = body[:k], body[k:].strip()
            if label:
                return label
            body = ref
            break
    ref = body
    cls, sep, member = ref.partition("#")
    if cls:
        shown = ctx.type_name(cls)
        cls = simple_type_name(shown or cls) if shown or not sep else ""
    if not sep:
        return cls
    member = ctx.member_ref(ref.partition("#")[0], member)
    return f"{cls}.{member}" if cls else member


def comment_html(text: str, ctx: RefContext | None = None) -> str:
    """Doc-comment text with inline tags replaced by HTML javadoc would
    produce: ``{@code x}``/``{@literal x}`` → escaped ``x``; ``{@link r l}``
    → ``l`` or ``r`` with ``#`` → ``.``; ``{@value r}`` → ``r`` (the constant
    is not evaluated); ``{@inheritDoc}``/``{@docRoot}`` → nothing; other
    tags → their body. ``ctx`` resolves references (see :class:`RefContext`)."""
    ctx = ctx or _NO_CONTEXT
    out: list[str] = []
    last = 0
    for start, end, tag, body in _inline_tags(text):
        out.append(text[last:start])
        if tag == "code":
            out.append("<code>" + html.escape(body, quote=False) + "</code>")
        elif tag == "literal":
            out.append(html.escape(body, quote=False))
        elif tag in ("link", "linkplain"):
            out.append("<code>" + html.escape(link_label(body, ctx), quote=False) + "</code>")
        elif tag == "value":
            shown = ctx.value_of(body.strip())
            if shown is None:
                shown = link_label(body, ctx) if body.strip() else ""
            out.append(html.escape(shown, quote=False))
        elif tag in ("inheritDoc", "docRoot"):
            pass
        elif tag == "index":
            out.append(html.escape(body.strip().split(" ", 1)[0].strip('"'), quote=False))
        else:
            out.append(body)
        last = end
    out.append(text[last:])
    return "".join(out)


_FRAGMENT_PARSER = etree.HTMLParser(no_network=True, remove_comments=True, encoding="utf-8")


def _fragment(src: str):
    """A ``div`` holding the parsed HTML fragment, or ``None``."""
    doc = etree.fromstring(("<html><body><div>" + src + "</div></body></html>").encode("utf-8"),
                           _FRAGMENT_PARSER)
    return None if doc is None else doc.find("body/div")


def comment_parts(text: str | None, ctx: RefContext | None = None) -> tuple[str | None, str | None]:
    """(plain text, first sentence) of doc-comment HTML, like
    :func:`comment_text` and :func:`first_sentence_of`."""
    if text is None:
        return None, None
    src = comment_html(text, ctx)
    if not src.strip():
        return "", None
    if "<" not in src and "&" not in src:  # plain text: no parse needed
        flat = _one_line(src)
        return flat, first_sentence(flat)
    frag = _fragment(src)
    if frag is None:
        flat = _WS.sub(" ", html.unescape(src)).strip()
        return flat, first_sentence(flat)
    return element_text(frag), first_sentence_of([frag])


def comment_text(text: str | None, ctx: RefContext | None = None) -> str | None:
    """Plain text of doc-comment HTML (after :func:`comment_html`), by the
    same rules as the HTML sites (like a browser, blank lines are only white
    space; HTML makes paragraphs)."""
    return comment_parts(text, ctx)[0]
