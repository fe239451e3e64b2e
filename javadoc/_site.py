"""Javadoc HTML sites (JDK 8, 11, 17+, 25 layouts) → ClassDoc/ApiDoc.

Layout facts: /work/shared/reference/javadoc-layouts.md (summarised in
docs/javadoc.md). Pages are parsed with lxml's HTML parser from bytes
(``no_network=True``; the HTML parser never loads external entities;
``huge_tree=True`` and a flattening re-parse for nesting beyond libxml2's
depth limit, with a warning; a lost-content check per page).
"""

from __future__ import annotations

import codecs
import os
import posixpath
import re
from concurrent.futures import ProcessPoolExecutor
from urllib.parse import unquote

from lxml import etree

from ._archive import Container, ZipLimits, common_root, open_container
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout
from ._text import element_text, elements_text, first_sentence_of, inline_text

_SKIP_DIRS = frozenset(
    ["class-use", "doc-files", "src-html", "index-files", "legal", "resources",
     "resource-files", "script-dir", "script-files", "jquery"]
)
_IDENT = r"[A-Za-z_$][\w$]*"
_PAGE_RE = re.compile(rf"^(?:{_IDENT}/)+{_IDENT}(?:\.{_IDENT})*\.html$")
_KINDS = {
    "class": "class", "interface": "interface", "enum": "enum", "record": "record",
    "annotation": "annotation", "@interface": "annotation",
}
_ROOT_MARKERS = ("element-list", "package-list")


def _class_attr(el) -> list[str]:
    c = el.get("class")
    return c.split() if c else []


def _has_class(el, name: str) -> bool:
    c = el.get("class")
    return bool(c) and name in c.split()


def _find_with_class(el, tag: str, name: str):
    """The first ``tag`` element of class ``name`` in ``el`` (``el`` itself
    included), or ``None``."""
    return next((d for d in el.iter(tag) if _has_class(d, name)), None)


# --- parsing bytes -------------------------------------------------------------

_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def parse_html(data: bytes, where: str, warnings: list):
    """An lxml HTML document from bytes. UTF-8 content wins over a wrong
    declared charset; undecodable pages are read with the declared (else
    cp1252) charset and a warning."""
    head = data[:2048]
    m = _CHARSET_RE.search(head)
    declared = m.group(1).decode("ascii", "replace").lower() if m else None
    try:
        data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        if declared not in (None, "utf-8", "utf8"):
            try:
                codecs.lookup(declared)
                etree.HTMLParser(encoding=declared)
            except (LookupError, ValueError):
                warnings.append((where, f"unknown declared charset {declared!r}"))
                declared = None
        if declared in (None, "utf-8", "utf8"):
            encoding = "cp1252"
            warnings.append((where, f"not valid UTF-8 (declared {declared or 'nothing'}); read as cp1252"))
        else:
            encoding = declared
    try:
        doc, log = _parse_bytes(data, encoding)
    except (etree.XMLSyntaxError, ValueError, LookupError) as exc:
        try:
            doc, log = _parse_bytes(data, "cp1252")
            warnings.append((where, f"unparsable as {encoding} ({exc}); read as cp1252"))
            encoding = "cp1252"
        except (etree.XMLSyntaxError, ValueError) as exc2:
            raise JavadocError(f"{where}: unreadable HTML ({exc2})") from exc2
    if _too_deep(log):
        # libxml2 stops at its nesting limit (256; 2048 with huge_tree) and
        # silently drops the rest of the page: flatten and parse again.
        flat, dropped = _flatten_deep_nesting(data)
        try:
            doc, log = _parse_bytes(flat, encoding)
        except (etree.XMLSyntaxError, ValueError, LookupError) as exc:
            raise JavadocError(f"{where}: unreadable HTML after flattening deep nesting ({exc})") from exc
        warnings.append((where, (f"HTML nested deeper than {_FLAT_DEPTH} elements: {dropped} tags below that "
                                 "depth dropped, their text kept")))
    for err in log:
        if err.level_name == "FATAL":
            warnings.append((where, (f"HTML parser stopped: {err.message.strip()} (line {err.line}); "
                                     "content after it lost")))
            break
    if doc is None:
        raise JavadocError(f"{where}: empty HTML page")
    return doc


def _parse_bytes(data: bytes, encoding: str):
    # huge_tree lifts libxml2's nesting limit from 256 to 2048 (and its
    # text-node size limit); our own page/zip size limits bound the input.
    # The HTML parser resolves no entities and loads no DTD.
    parser = etree.HTMLParser(encoding=encoding, no_network=True, remove_comments=True, huge_tree=True)
    doc = etree.fromstring(data, parser)
    return doc, parser.error_log


def _too_deep(log) -> bool:
    return any("Excessive depth" in (e.message or "") for e in log)


_FLAT_DEPTH = 200
"""Tags opened deeper than this are dropped by :func:`_flatten_deep_nesting`
(below libxml2's limit with or without huge_tree)."""
_VOID = frozenset(b"area base br col embed hr img input link meta param source track wbr basefont frame keygen".split())
# Elements an HTML parser closes implicitly when a sibling of the same kind opens.
_SELF_CLOSING_SIBLINGS = {b"p": {b"p"}, b"li": {b"li"}, b"dt": {b"dt", b"dd"}, b"dd": {b"dt", b"dd"},
                          b"tr": {b"tr"}, b"td": {b"td", b"th"}, b"th": {b"td", b"th"}, b"option": {b"option"}}
_TOKEN_RE = re.compile(
    rb"<!--.*?-->|<![^>]*>|<\?[^>]*>"
    rb"|<(script|style)\b(?:\"[^\"]*\"|'[^']*'|[^'\">])*>.*?</\1\s*>"
    rb"|</([A-Za-z][\w:.-]*)\s*>"
    rb"|<([A-Za-z][\w:.-]*)((?:\"[^\"]*\"|'[^']*'|[^'\">])*)>",
    re.DOTALL | re.IGNORECASE,
)


def _flatten_deep_nesting(data: bytes, limit: int = _FLAT_DEPTH) -> tuple[bytes, int]:
    """Drop start and end tags nested deeper than ``limit`` elements, keeping
    all text, so that libxml2 (which stops at its depth limit and loses the
    rest of the page) reads every member. Returns ``(bytes, tags dropped)``.
    Works on ASCII-compatible encodings (UTF-8, cp1252, ISO-8859-x)."""
    stack: list[tuple[bytes, bool]] = []
    dropped = 0

    def sub(m: re.Match) -> bytes:
        nonlocal dropped
        close, name = m.group(2), m.group(3)
        if close is not None:
            close = close.lower()
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == close:
                    kept = stack[i][1]
                    del stack[i:]
                    if kept:
                        return m.group(0)
                    dropped += 1
                    return b""
            return m.group(0)  # stray end tag: the parser's business
        if name is None:
            return m.group(0)  # comment, doctype, processing instruction, script, style
        name = name.lower()
        if name in _VOID or m.group(4).rstrip().endswith(b"/"):
            return m.group(0)
        if stack and stack[-1][0] in _SELF_CLOSING_SIBLINGS.get(name, ()):
            stack.pop()
        keep = len(stack) < limit
        stack.append((name, keep))
        if keep:
            return m.group(0)
        dropped += 1
        return b""

    return _TOKEN_RE.sub(sub, data), dropped


_COUNT_STRIP_RE = re.compile(rb"<!--.*?-->|<(script|style)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_COUNTED = (b"section", b"h3", b"h4", b"pre")
_COUNT_RE = re.compile(rb"<(" + b"|".join(_COUNTED) + rb")[\s>/]", re.IGNORECASE)


def _lost_elements(data: bytes, doc) -> list[str]:
    """Cheap check that the parse kept the page: for the elements that carry
    member sections (``section``, ``h3``, ``h4``, ``pre``), the start tags in
    the raw bytes versus the elements in the tree. Returns notes such as
    ``"read 1 of 18 <section>"``; empty when nothing was lost."""
    raw: dict[bytes, int] = dict.fromkeys(_COUNTED, 0)
    for m in _COUNT_RE.finditer(_COUNT_STRIP_RE.sub(b"", data)):
        raw[m.group(1).lower()] += 1
    notes = []
    for tag, n in raw.items():
        got = sum(1 for _ in doc.iter(tag.decode()))
        if got < n:
            notes.append(f"read {got} of {n} <{tag.decode()}>")
    return notes


# --- ids -----------------------------------------------------------------------

def _params_of_anchor(anchor: str) -> tuple[str, list[str]] | None:
    """(name, params) of an anchor: ``name(T1,T2)`` (JDK 10+) or
    ``name-T1-T2-`` with ``:A`` for ``[]`` (JDK ≤ 9). Fields: (name, None)."""
    anchor = unquote(anchor)
    if "(" in anchor and anchor.endswith(")"):
        name, rest = anchor.split("(", 1)
        inner = rest[:-1]
        return name, [p.strip() for p in inner.split(",")] if inner.strip() else []
    if anchor.endswith("-") and "-" in anchor[:-1]:
        name, rest = anchor.split("-", 1)
        inner = rest[:-1]
        params = [p.replace(":A", "[]") for p in inner.split("-")] if inner else []
        return name, params
    return anchor, None


def _member_id(fqn: str, kind: str, erased: str, declared: list[str]) -> tuple[str, str] | None:
    """(id, api) for a member from its erased anchor; ``declared`` lists all
    anchors of the member (to see varargs when the erased one shows ``[]``)."""
    parsed = _params_of_anchor(erased)
    if parsed is None:
        return None
    name, params = parsed
    if kind == "constructor":
        name = "<init>"
    if params is None:
        if kind in ("field", "enum_constant"):
            api = f"{fqn}.{name}"
            return api, api
        params = []
    if params and params[-1].endswith("[]") and not params[-1].endswith("..."):
        for a in declared:
            p = _params_of_anchor(a)
            if p and p[1] and p[1][-1].endswith("...") and len(p[1]) == len(params):
                params[-1] = params[-1][:-2] + "..."
                break
    api = f"{fqn}.{name}"
    return f"{api}({','.join(params)})", api


# --- tags (dl) -------------------------------------------------------------------

def _type_of_code(code, page: str) -> str:
    """FQN of the type a ``<code>`` in a Throws entry shows: from the link's
    ``title`` ("class in pkg") and ``href``, else the text as written."""
    text = inline_text(code)
    a = code if code.tag == "a" else code.find(".//a")
    if a is None:
        return text
    # an external link's page carries a query (`TreeNode.html?is-external=true`, javadoc 8): not part of its name
    href = (a.get("href") or "").split("#", 1)[0].split("?", 1)[0]
    title = a.get("title") or ""
    base = posixpath.basename(href)[:-5] if href.endswith(".html") else ""
    if title.startswith(("type parameter", "type variable")):
        return text
    if " in " in title and base:
        return title.rsplit(" in ", 1)[1].strip() + "." + base
    if base and "://" not in href:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), href))
        return path[:-5].replace("/", ".")
    return text


def _split_dd(dd, page: str, typed: bool) -> tuple[str, str]:
    """(name or type, text) of a ``<dd><code>x</code> - text</dd>``."""
    full = element_text(dd)
    first = None
    if dd.text is None or not dd.text.strip():
        for child in dd:
            first = child if child.tag == "code" or child.tag == "a" else None
            break
    if first is None:
        m = re.match(r"(\S+)\s+-\s+(.*)", full, re.DOTALL)
        if m:
            return m.group(1), m.group(2).strip()
        return full, ""
    shown = inline_text(first)
    name = _type_of_code(first, page) if typed else shown
    rest = full.removeprefix(shown)
    rest = rest.strip()
    if rest.startswith("-"):
        rest = rest[1:].strip()
    return name, rest


def _overridden(dd, page: str) -> str | None:
    """The member id an "Overrides:"/"Specified by:" entry names:
    ``<code><a href="T.html#m-int-">m</a></code> in class <code><a
    title="class in pkg">T</a></code>`` — the member's anchor from the first
    link, its type from the last ``<code>`` (a link's title and page, as
    for Throws; external links included); None when either is not a link."""
    codes = [c for c in dd if c.tag == "code"]
    if len(codes) < 2:
        return None
    a = codes[0] if codes[0].tag == "a" else codes[0].find(".//a")
    href = a.get("href") if a is not None else None
    if not href or "#" not in href:
        return None
    fqn = _type_of_code(codes[-1], page)
    if "." not in fqn:
        return None
    ids = _member_id(fqn, "method", href.split("#", 1)[1], [])
    return ids[0] if ids is not None else None


def _notes(dl, page: str) -> tuple[list, str | None, list, list]:
    params: list = []
    type_params: list = []
    returns = None
    throws: list = []
    overrides: list = []
    label = ""
    for child in dl:
        if child.tag == "dt":
            label = inline_text(child).rstrip(":").strip().lower()
        elif child.tag == "dd":
            if label in ("overrides", "specified by"):
                mid = _overridden(child, page)
                if mid is not None and mid not in overrides:
                    overrides.append(mid)
            elif label == "parameters":
                params.append(_split_dd(child, page, False))
            elif label == "type parameters":
                n, t = _split_dd(child, page, False)
                type_params.append((n if n.startswith("<") else f"<{n}>", t))
            elif label == "returns":
                returns = element_text(child)
            elif label == "throws":
                throws.append(_split_dd(child, page, True))
    return type_params + params, returns, throws, overrides


# --- page parsers ----------------------------------------------------------------

def _title_kind(doc) -> str | None:
    for h in doc.iter("h1", "h2"):
        if _has_class(h, "title"):
            words = inline_text(h).lower().split()
            for w in words[:3]:
                if w in _KINDS:
                    return _KINDS[w]
            return "class"
    return None


def _blocks(container) -> list:
    """Direct ``div.block`` children (and those in ``div.horizontal-scroll``,
    JDK 25) that hold a description, not a "Description copied from" label
    or a JDK 8 deprecation."""
    out = []
    for child in _children_flat(container):
        if child.tag == "div" and "block" in _class_attr(child):
            first = child[0] if len(child) else None
            if first is not None and first.tag == "span" and (child.text or "").strip() == "":
                fc = _class_attr(first)
                if "descfrm-type-label" in fc or "descfrmTypeLabel" in fc:
                    continue
                if "deprecatedLabel" in fc or "deprecated-label" in fc:
                    continue
            out.append(child)
    return out


def _children_flat(container) -> list:
    out = []
    for child in container:
        if child.tag == "div" and "horizontal-scroll" in _class_attr(child):
            out.extend(_children_flat(child))
        else:
            out.append(child)
    return out


def _deprecation(container) -> str | None:
    for child in _children_flat(container):
        if child.tag != "div":
            continue
        cls = _class_attr(child)
        if "deprecation-block" in cls or "deprecationBlock" in cls:
            for d in child.iter("div"):
                dc = _class_attr(d)
                if "deprecation-comment" in dc or "deprecationComment" in dc:
                    return element_text(d)
            return ""
        if "block" in cls and len(child):
            first = child[0]
            if first.tag == "span" and "deprecatedLabel" in _class_attr(first):
                for s in child.iter("span", "div"):
                    if "deprecationComment" in _class_attr(s):
                        return element_text(s)
                return ""
    return None


def _member(fqn, kind, erased, anchors, box, sig_el, page, layout) -> ApiDoc | None:
    ids = _member_id(fqn, kind, erased, anchors)
    if ids is None:
        return None
    mid, api = ids
    blocks = _blocks(box)
    desc = elements_text(blocks) or None
    params, returns, throws, overrides = [], None, [], []
    for child in _children_flat(box):
        if child.tag == "dl":
            params, returns, throws, overrides = _notes(child, page)
            break
    return ApiDoc(
        id=mid, api=api, class_=fqn, kind=kind,
        signature_text=inline_text(sig_el) if sig_el is not None else "",
        description=desc, first_sentence=first_sentence_of(blocks) if desc else None,
        params=tuple(params), returns=returns, throws=tuple(throws),
        deprecated=_deprecation(box), doc_source="javadoc", layout=layout,
        location=page, anchor=anchors[-1] if anchors else erased, overrides=tuple(overrides),
    )


_SECTION_KIND = {
    "field-details": "field", "constructor-details": "constructor",
    "method-details": "method", "constant-details": "enum_constant",
    "member-details": "annotation_element",
}


def _members_modern(doc, fqn, page, layout) -> list[ApiDoc]:
    out = []
    for sec in doc.iter("section"):
        cls = _class_attr(sec)
        if "detail" not in cls:
            continue
        kind = None
        anc = sec.getparent()
        while anc is not None:
            if anc.tag == "section":
                for c in _class_attr(anc):
                    if c in _SECTION_KIND:
                        kind = _SECTION_KIND[c]
                        break
                if kind:
                    break
            anc = anc.getparent()
        if kind is None:
            continue
        sid = sec.get("id") or ""
        erased = sid
        for h3 in sec.iter("h3"):
            erased = h3.get("id") or sid
            break
        if kind == "annotation_element" and "(" not in erased:
            kind = "field"
        sig = _find_with_class(sec, "div", "member-signature")
        m = _member(fqn, kind, erased, [erased, sid], sec, sig, page, layout)
        if m is not None:
            out.append(m)
    return out


def _detail_kind(name: str) -> str | None:
    """The member kind a detail section's anchor names: ``method.detail``
    (javadoc 8), ``method_detail`` (javadoc 7: the same HTML 4 layout with
    underscores; jjwt-api 0.12.6's javadoc jar, 2024, was made by 1.7.0)."""
    if name.endswith("_detail"):
        name = name[: -len("_detail")].replace("_", ".") + ".detail"
    if not name.endswith(".detail"):
        return None
    base = name[: -len(".detail")]
    if base == "field" or base == "annotation.type.field":
        return "field"
    if base == "constructor":
        return "constructor"
    if base == "method":
        return "method"
    if base == "enum.constant":
        return "enum_constant"
    if base.startswith("annotation.type"):
        return "annotation_element"
    return None


def _members_classic(doc, fqn, page, layout) -> list[ApiDoc]:
    out = []
    for a in doc.iter("a"):
        kind = _detail_kind(a.get("id") or a.get("name") or "")
        if kind is None:
            continue
        li = a.getparent()
        if li is None:
            continue
        anchors: list[str] = []
        for child in li:
            if child.tag == "a":
                nm = child.get("id") or child.get("name")
                if nm and not nm.endswith((".detail", "_detail")):  # not the section's own anchor
                    anchors.append(nm)
            elif child.tag == "ul" and anchors:
                box = child.find("li")
                if box is not None:
                    sig = box.find("pre")
                    k = kind
                    if k == "annotation_element" and "(" not in anchors[0] and not anchors[0].endswith("-"):
                        k = "field"
                    m = _member(fqn, k, anchors[0], anchors, box, sig, page, layout)
                    if m is not None:
                        out.append(m)
                anchors = []
    return out


def _class_modern(doc):
    sec = _find_with_class(doc, "section", "class-description")
    if sec is None:
        return None, None
    return sec, _find_with_class(sec, "div", "type-signature")


def _class_classic(doc):
    for div in doc.iter("div"):
        if _has_class(div, "description"):
            li = div.find("ul/li")
            if li is None:
                li = div
            return li, li.find("pre")
    return None, None


def _package_of(fqn: str, page: str) -> str:
    base = posixpath.basename(page)[:-5]  # Outer.Inner
    return fqn[: -len(base) - 1] if fqn.endswith("." + base) else ""


def parse_page(data: bytes, fqn: str, page: str, layout: SiteLayout, where: str):
    """Parse one class page. Returns ``(ClassDoc | None, [ApiDoc], warnings)``;
    never raises for bad HTML (the problem becomes a warning)."""
    warnings: list = []
    try:
        doc = parse_html(data, where, warnings)
    except JavadocError as exc:
        return None, [], [(where, str(exc))]
    kind = _title_kind(doc)
    if kind is None:
        warnings.append((where, "no class title (h1.title/h2.title): not a class page; skipped"))
        return None, [], warnings
    modern = layout in (SiteLayout.JDK17, SiteLayout.JDK25)
    members = (_members_modern if modern else _members_classic)(doc, fqn, page, layout)
    if not members:
        # A page of another generation inside the site: try the other reader.
        members = (_members_classic if modern else _members_modern)(doc, fqn, page, layout)
    lost = _lost_elements(data, doc)
    if lost:
        warnings.append((where, "HTML parse lost content (" + ", ".join(lost) + "): members may be missing"))
    box, sig = (_class_modern if modern else _class_classic)(doc)
    if box is None:
        box, sig = (_class_classic if modern else _class_modern)(doc)
    blocks = _blocks(box) if box is not None else []
    desc = elements_text(blocks) or None
    cls = ClassDoc(
        fqn=fqn, kind=kind, signature_text=inline_text(sig) if sig is not None else "",
        description=desc, first_sentence=first_sentence_of(blocks) if desc else None,
        deprecated=_deprecation(box) if box is not None else None,
        doc_source="javadoc", layout=layout, location=page,
        members=tuple(m.id for m in members), package=_package_of(fqn, page),
    )
    return cls, members, warnings


# --- the site as a whole ------------------------------------------------------------

def _modules(container: Container, root: str) -> set[str]:
    try:  # a missing element-list raises too
        text = container.read(root + "element-list").decode("utf-8", "replace")
    except (OSError, JavadocError):
        return set()
    return {ln[len("module:"):].strip() for ln in text.splitlines() if ln.startswith("module:")}


def class_pages(names: list[str], root: str, modules: set[str]) -> list[tuple[str, str]]:
    """``(entry name, FQN)`` of the class pages of a site rooted at ``root``."""
    out = []
    for n in names:
        if not n.startswith(root) or not n.endswith(".html"):
            continue
        rel = n[len(root):]
        parts = rel.split("/")
        if modules and parts[0] in modules:
            parts = parts[1:]
            rel = "/".join(parts)
        if len(parts) < 2 or any(p in _SKIP_DIRS for p in parts[:-1]):
            continue
        base = parts[-1]
        if base.startswith(("package-", "module-")) or not _PAGE_RE.match(rel):
            continue
        out.append((n, rel[:-5].replace("/", ".")))
    return out


_CLASS_INDEXES = ("allclasses-index.html", "allclasses-noframe.html", "allclasses-frame.html", "allclasses.html")
_HREF = re.compile(rb'href="([^"#?:]+\.html)')


def missing_class_pages(container: Container, root: str, modules: set[str],
                        present: set[str]) -> tuple[str, list[str], int] | None:
    """Class pages the site's class index links to but the site lacks.

    The index is the first of ``allclasses-index.html`` (JDK 11+),
    ``allclasses-noframe.html``/``allclasses-frame.html`` (JDK 8) and
    ``allclasses.html`` found at the root. Returns ``(index name, missing
    entry names relative to the root, number of class pages listed)``, or
    ``None`` when the site has no readable class index.
    """
    names = set(container.names())
    for index in _CLASS_INDEXES:
        if root + index not in names:
            continue
        try:
            data = container.read(root + index)
        except (OSError, JavadocError):
            continue
        linked = {root + posixpath.normpath(h.decode("utf-8", "replace")) for h in _HREF.findall(data)}
        listed = {n for n, _ in class_pages(sorted(linked), root, modules)}
        gone = sorted(n[len(root):] for n in listed - present)
        return index, gone, len(listed)
    return None


def detect_layout(container: Container, root: str, pages: list[tuple[str, str]]) -> SiteLayout:
    """The site's generation, from its root files and a few class pages."""
    names = set(container.names())

    def has_dir(d):
        p = root + d + "/"
        return any(n.startswith(p) for n in names)

    votes = {"modern": 0, "html5": 0, "html4": 0, "scroll": 0}
    for name, _ in pages[:5]:
        try:
            head = container.read(name)[:200_000]
        except (OSError, JavadocError):
            continue
        if b"class-declaration-page" in head or b'content="javadoc/' in head or b'class="class-description"' in head:
            votes["modern"] += 1
            if b'class="horizontal-scroll"' in head:
                votes["scroll"] += 1
        elif b"<!DOCTYPE HTML PUBLIC" in head[:400] or b'<a name="method.detail"' in head or b'<a name="' in head:
            votes["html4"] += 1
        else:
            votes["html5"] += 1
    if votes["modern"] and votes["modern"] >= max(votes["html4"], votes["html5"]):
        if votes["scroll"] or has_dir("resource-files") or has_dir("script-files"):
            return SiteLayout.JDK25
        return SiteLayout.JDK17
    if votes["html5"] > votes["html4"]:
        return SiteLayout.JDK11
    if votes["html4"]:
        return SiteLayout.JDK8
    if root + "element-list" in names or has_dir("jquery"):
        return SiteLayout.JDK11
    return SiteLayout.JDK8


def _parse_batch(path: str, limits: ZipLimits, items: list, layout: SiteLayout):
    container = open_container(path, limits)
    try:
        return _parse_items(container, items, layout)
    finally:
        container.close()


def _parse_items(container: Container, items: list, layout: SiteLayout):
    out = []
    for name, fqn, page in items:
        where = container.location(name)
        try:
            data = container.read(name)
        except (OSError, JavadocError) as exc:
            out.append((None, [], [(where, f"unreadable: {exc}")]))
            continue
        out.append(parse_page(data, fqn, page, layout, where))
    return out


def find_root(names: list[str]) -> str | None:
    """The site root inside a container: the folder of ``element-list`` /
    ``package-list`` (shallowest), else of the shallowest ``index.html``."""
    root = common_root(names, _ROOT_MARKERS)
    if root is None:
        root = common_root(names, ("allclasses-index.html", "allclasses-frame.html", "overview-tree.html"))
    return root


def read_container(container: Container, *, workers: int | None = None) -> DocSet:
    """Read a javadoc site held by ``container`` (see :func:`read_site`)."""
    names = container.names()
    root = find_root(names)
    warnings = list(container.warnings)
    if root is None:
        raise JavadocError(f"{container.path}: not a javadoc site (no element-list, package-list "
                           "or allclasses page)")
    modules = _modules(container, root)
    pages = class_pages(names, root, modules)
    if not pages:
        warnings.append((container.path, "javadoc site without class pages: no members"))
        return DocSet(source=container.path, layout=None, classes=(), members=(),
                      warnings=tuple(warnings), pages=0)
    missing = missing_class_pages(container, root, modules, {n for n, _ in pages})
    if missing is not None and missing[1]:
        index, gone, listed = missing
        warnings.append((container.location(root + index),
                         f"{len(gone)} of {listed} class pages it lists are missing from the site "
                         f"(first: {', '.join(gone[:3])}); their members are not documented"))
    layout = detect_layout(container, root, pages)
    items = [(n, fqn, n[len(root):]) for n, fqn in pages]
    if workers is None or workers < 1:
        workers = 1
    workers = min(workers, os.cpu_count() or 1, max(1, len(items) // 20))
    results = []
    if workers > 1:
        n = workers * 4  # contiguous slices keep page order
        size = -(-len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        try:
            with ProcessPoolExecutor(max_workers=workers) as ex:
                for r in ex.map(_parse_batch, [container.path] * len(chunks),
                                [container.limits] * len(chunks),
                                chunks, [layout] * len(chunks)):
                    results.extend(r)
        except Exception as exc:  # noqa: BLE001 - no usable process pool here: read serially
            warnings.append((container.path, f"process pool unavailable ({exc}); read serially"))
            results = _parse_items(container, items, layout)
    else:
        results = _parse_items(container, items, layout)
    classes, members = [], []
    for cls, mems, warns in results:
        warnings.extend(warns)
        if cls is not None:
            classes.append(cls)
            members.extend(mems)
    if not members:
        warnings.append((container.path, "javadoc site without member documentation"))
    return DocSet(source=container.path, layout=layout, classes=tuple(classes),
                  members=tuple(members), warnings=tuple(warnings), pages=len(items))


def read_site(path: str, *, limits: ZipLimits | None = None, workers: int | None = None) -> DocSet:
    """Read a javadoc site: a folder, a ``*-javadoc.jar`` or any zip of one.

    Parameters
    ----------
    path : str
        Folder or archive. The site root is the folder holding
        ``element-list``/``package-list`` (it may be nested in the archive).
    limits : ZipLimits, optional
        Archive limits (entry count, sizes, compression ratio).
    workers : int, optional
        Processes parsing pages (default 1: safe inside other process
        pools; at most the CPU count, and one per 20 pages).

    Returns
    -------
    DocSet
        Layout, classes and members in page order, warnings ``(file, reason)``.

    Raises
    ------
    JavadocError
        Missing path, unreadable archive, too many entries, or not a javadoc
        site (the message names the file).
    """
    container = open_container(path, limits)
    try:
        return read_container(container, workers=workers)
    finally:
        container.close()
