"""Doc comments of Java sources (``*-sources.jar`` or a source folder) →
ClassDoc/ApiDoc with ``doc_source="sources"``.

Declarations are found with tree-sitter (``tree-sitter-java-orchard``);
doc comments are split into description and block tags with
``javalang.javadoc``, guarded against its flaw of taking any line that starts
with ``@`` for a tag (``@Override`` inside ``<pre>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources

import javalang.javadoc as _jd
import tree_sitter_java_orchard as _tsj
from tree_sitter import Language, Parser

from ._archive import Container, ZipLimits, location, open_container
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout
from ._text import comment_parts, comment_text

_LANG = Language(_tsj.language())
_TYPE_DECLS = {
    "class_declaration": "class", "interface_declaration": "interface",
    "enum_declaration": "enum", "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
_PRIMITIVES = {"integral_type", "floating_point_type", "boolean_type", "void_type"}
_AT = "\ue000"  # stands for '@' at a line start inside <pre> while javalang parses

_JAVA_LANG: frozenset[str] | None = None


def _java_lang() -> frozenset[str]:
    global _JAVA_LANG
    if _JAVA_LANG is None:
        text = resources.files(__package__).joinpath("java_lang.txt").read_text("utf-8")
        _JAVA_LANG = frozenset(ln.strip() for ln in text.splitlines()
                               if ln.strip() and not ln.startswith("#"))
    return _JAVA_LANG


def _txt(src: bytes, node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


# --- doc comments ----------------------------------------------------------------

_PRE_RE = re.compile(r"<pre\b.*?(?:</pre\s*>|$)", re.S | re.I)
_PRE_AT_RE = re.compile(r"(^[ \t]*\*?[ \t]*)@", re.M)


def _guard_pre(raw: str) -> str:
    """Hide ``@`` at a line start inside ``<pre>`` from javalang's tag split."""
    return _PRE_RE.sub(lambda m: _PRE_AT_RE.sub(lambda k: k.group(1) + _AT, m.group(0)), raw)


@dataclass(slots=True)
class _Doc:
    description: str | None = None
    first_sentence: str | None = None
    params: list = field(default_factory=list)
    returns: str | None = None
    throws: list = field(default_factory=list)
    deprecated: str | None = None


def parse_comment(raw: str, value_of=None) -> _Doc:
    """Split a ``/** … */`` comment into plain-text parts (see docs);
    ``value_of(ref)`` shows ``{@value ref}`` constants."""
    block = _jd.parse(_guard_pre(raw))

    def txt(s):
        return comment_text(s.replace(_AT, "@"), value_of) if s is not None else None

    doc = _Doc()
    desc, first = comment_parts(block.description.replace(_AT, "@"), value_of)
    doc.description = desc or None
    doc.first_sentence = first if desc else None
    tparams, params = [], []
    for name, text in block.params:
        (tparams if name.startswith("<") else params).append((name, txt(text) or ""))
    doc.params = tparams + params
    if block.return_doc is not None:
        doc.returns = txt(block.return_doc)
    for tag in ("throws", "exception"):
        for value in block.tags.get(tag, ()):
            parts = value.split(None, 1)
            if parts:
                doc.throws.append((parts[0], txt(parts[1]) if len(parts) > 1 else ""))
    if "deprecated" in block.tags:
        doc.deprecated = txt(block.tags["deprecated"][0]) or ""
    return doc


# --- names -----------------------------------------------------------------------

@dataclass(slots=True)
class _File:
    name: str
    src: bytes
    tree: object
    package: str = ""
    single: dict = field(default_factory=dict)  # simple name -> FQN
    on_demand: list = field(default_factory=list)  # package or type prefixes


class _Resolver:
    """Simple/qualified type names → FQN, as far as the file's nested types,
    single-type imports, package, on-demand imports (types of this source
    set only) and ``java.lang`` allow; otherwise the name as written."""

    def __init__(self, known: set[str]):
        self.known = known

    def resolve(self, name: str, f: _File, scopes: list[str]) -> str:
        head, _, rest = name.partition(".")
        fq = self._simple(head, f, scopes)
        if fq is None:
            return name
        return fq + ("." + rest if rest else "")

    def _simple(self, n: str, f: _File, scopes: list[str]) -> str | None:
        for s in reversed(scopes):
            if s.rsplit(".", 1)[-1] == n:
                return s
            if f"{s}.{n}" in self.known:
                return f"{s}.{n}"
        if n in f.single:
            return f.single[n]
        cand = f"{f.package}.{n}" if f.package else n
        if cand in self.known:
            return cand
        for p in f.on_demand:
            if f"{p}.{n}" in self.known:
                return f"{p}.{n}"
        if n in _java_lang():
            return "java.lang." + n
        return None


def _type_names(node, src) -> list[str]:
    """Segments of a (possibly scoped, annotated, generic) class type."""
    out = []
    for c in node.children:
        if c.type == "type_identifier" or c.type == "identifier":
            out.append(_txt(src, c))
        elif c.type in ("scoped_type_identifier", "generic_type"):
            out.extend(_type_names(c, src))
    return out


def _dims(node) -> int:
    return sum(1 for c in node.children if c.type == "[") if node is not None else 0


def _erase(node, src, tvars: dict, resolve) -> str:
    t = node.type
    if t in _PRIMITIVES:
        return _txt(src, node)
    if t == "array_type":
        el = node.child_by_field_name("element")
        return _erase(el, src, tvars, resolve) + "[]" * _dims(node.child_by_field_name("dimensions"))
    if t == "annotated_type":
        for c in node.named_children:
            if not c.type.endswith("annotation"):
                return _erase(c, src, tvars, resolve)
    if t == "generic_type":
        for c in node.named_children:
            if c.type != "type_arguments":
                return _erase(c, src, tvars, resolve)
    if t == "type_identifier":
        n = _txt(src, node)
        return tvars[n] if n in tvars else resolve(n)
    if t == "scoped_type_identifier":
        return resolve(".".join(_type_names(node, src)))
    return re.sub(r"\s+", "", _txt(src, node))


def _type_vars(tp_node, src, outer: dict, resolve) -> dict:
    """Type variable → erasure (its first bound, else java.lang.Object)."""
    tvars = dict(outer)
    if tp_node is None:
        return tvars
    params = [c for c in tp_node.named_children if c.type == "type_parameter"]
    names = []
    for p in params:
        ident = next((c for c in p.named_children if c.type in ("type_identifier", "identifier")), None)
        if ident is not None:
            names.append(_txt(src, ident))
            tvars[names[-1]] = "java.lang.Object"
    for p, n in zip(params, names):
        bound = next((c for c in p.named_children if c.type == "type_bound"), None)
        if bound is not None:
            first = next((c for c in bound.named_children if not c.type.endswith("annotation")), None)
            if first is not None:
                # A bound naming a later variable (<A extends B, B>) erases via that one.
                tvars[n] = _erase(first, src, tvars, resolve)
    return tvars


# --- declarations ------------------------------------------------------------------

def _modifiers(node):
    for c in node.children:
        if c.type == "modifiers":
            return c
    return None


def _visibility(node, src) -> str | None:
    mods = _modifiers(node)
    if mods is None:
        return None
    for c in mods.children:
        if c.type == "visibility" or c.type in ("public", "protected", "private"):
            v = _txt(src, c)
            if v in ("public", "protected", "private"):
                return v
    return None


def _annotated_deprecated(node, src) -> bool:
    mods = _modifiers(node)
    if mods is None:
        return False
    for c in mods.children:
        if c.type in ("marker_annotation", "annotation"):
            name = c.child_by_field_name("name")
            if name is not None and _txt(src, name) in ("Deprecated", "java.lang.Deprecated"):
                return True
    return False


def _doc_comment(node, src) -> str | None:
    prev = node.prev_sibling
    while prev is not None and (prev.type == "line_comment" or (
            prev.type == "block_comment" and not _txt(src, prev).startswith("/**"))):
        prev = prev.prev_sibling
    if prev is not None and prev.type == "block_comment":
        text = _txt(src, prev)
        if text.startswith("/**") and text != "/**/":
            return text
    return None


def _signature(node, src) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    start = node.start_byte
    return re.sub(r"\s+", " ", src[start:end].decode("utf-8", "replace")).strip().rstrip(";").strip()


class _Extractor:
    def __init__(self, resolver: _Resolver, where):
        self.resolver = resolver
        self.where = where
        self.classes: list[ClassDoc] = []
        self.members: list[ApiDoc] = []
        self.warnings: list = []
        self.constants: dict[str, str] = {}

    def _doc(self, node, src, f, fqn: str = "", scopes: list | None = None) -> _Doc:
        raw = _doc_comment(node, src)
        doc = _Doc()
        if raw is not None:
            def value_of(ref: str) -> str | None:
                cls, _, name = ref.partition("#")
                owner = self.resolver.resolve(cls, f, scopes or []) if cls else fqn
                return self.constants.get(f"{owner}.{name}")

            try:
                doc = parse_comment(raw, value_of)
            except (ValueError, IndexError, AttributeError) as exc:
                self.warnings.append((f"{self.where(f.name)}:{node.start_point[0] + 1}",
                                      f"unparsable doc comment ({exc})"))
        if doc.deprecated is None and _annotated_deprecated(node, src):
            doc.deprecated = ""
        return doc

    def type_decl(self, node, f: _File, scopes: list[str], tvars: dict, in_interface: bool) -> None:
        src = f.src
        kind = _TYPE_DECLS[node.type]
        name = _txt(src, node.child_by_field_name("name"))
        fqn = f"{scopes[-1]}.{name}" if scopes else (f"{f.package}.{name}" if f.package else name)
        vis = _visibility(node, src)
        if not (vis in ("public", "protected") or (in_interface and vis != "private")):
            return
        scopes = scopes + [fqn]

        def resolve(n):
            return self.resolver.resolve(n, f, scopes)

        tvars = _type_vars(node.child_by_field_name("type_parameters"), src,
                           {} if _is_static(node, src) else tvars, resolve)
        doc = self._doc(node, src, f, fqn, scopes)
        ids: list[str] = []
        body = node.child_by_field_name("body")
        iface = kind in ("interface", "annotation")
        if kind == "record":
            self._record_canonical(node, f, fqn, tvars, resolve, ids)
        if body is not None:
            self._body(body, f, fqn, scopes, tvars, resolve, iface, ids)
        self.classes.append(ClassDoc(
            fqn=fqn, kind=kind, signature_text=_signature(node, src),
            description=doc.description, first_sentence=doc.first_sentence,
            deprecated=doc.deprecated, doc_source="sources", layout=SiteLayout.SOURCES,
            location=f.name, members=tuple(ids)))

    def _record_canonical(self, node, f, fqn, tvars, resolve, ids):
        # The record header's components give the canonical constructor's
        # parameters; its doc is the compact/explicit constructor's, if any.
        self._record_params = self._params(node.child_by_field_name("parameters"), f.src, tvars, resolve)

    def _params(self, params_node, src, tvars, resolve) -> list[str]:
        out = []
        if params_node is None:
            return out
        for p in params_node.named_children:
            if p.type == "formal_parameter":
                t = _erase(p.child_by_field_name("type"), src, tvars, resolve)
                t += "[]" * _dims(p.child_by_field_name("dimensions"))
                out.append(t)
            elif p.type == "spread_parameter":
                tnode = next((c for c in p.named_children
                              if c.type not in ("modifiers", "variable_declarator")
                              and not c.type.endswith("annotation")), None)
                out.append(_erase(tnode, src, tvars, resolve) + "...")
            elif p.type == "receiver_parameter":
                continue
        return out

    def _emit(self, f, node, fqn, kind, name, params, doc: _Doc, resolve, ids, anchor):
        api = f"{fqn}.{name}"
        mid = api if params is None else f"{api}({','.join(params)})"
        throws = tuple((resolve(t), x) for t, x in doc.throws)
        self.members.append(ApiDoc(
            id=mid, api=api, class_=fqn, kind=kind, signature_text=anchor,
            description=doc.description, first_sentence=doc.first_sentence,
            params=tuple(doc.params), returns=doc.returns, throws=throws,
            deprecated=doc.deprecated, doc_source="sources", layout=SiteLayout.SOURCES,
            location=f.name, anchor=anchor))
        ids.append(mid)

    def _body(self, body, f, fqn, scopes, tvars, resolve, iface, ids):
        src = f.src
        for m in body.named_children:
            t = m.type
            if t == "enum_body_declarations":
                self._body(m, f, fqn, scopes, tvars, resolve, iface, ids)
                continue
            if t in _TYPE_DECLS:
                self.type_decl(m, f, scopes, tvars, iface)
                continue
            if t == "enum_constant":
                name = _txt(src, m.child_by_field_name("name"))
                self._emit(f, m, fqn, "enum_constant", name, None, self._doc(m, src, f, fqn, scopes), resolve, ids,
                           name)
                continue
            if t not in ("method_declaration", "constructor_declaration", "compact_constructor_declaration",
                         "field_declaration", "constant_declaration",
                         "annotation_type_element_declaration"):
                continue
            vis = _visibility(m, src)
            if not (vis in ("public", "protected") or (iface and vis != "private")):
                continue
            doc = self._doc(m, src, f, fqn, scopes)
            sig = _signature(m, src)
            if t in ("field_declaration", "constant_declaration"):
                for d in m.named_children:
                    if d.type == "variable_declarator":
                        self._emit(f, m, fqn, "field", _txt(src, d.child_by_field_name("name")), None,
                                   doc, resolve, ids, sig)
                continue
            if t == "annotation_type_element_declaration":
                self._emit(f, m, fqn, "annotation_element", _txt(src, m.child_by_field_name("name")), [],
                           doc, resolve, ids, sig)
                continue
            if t == "compact_constructor_declaration":
                params = list(getattr(self, "_record_params", []))
                self._emit(f, m, fqn, "constructor", "<init>", params, doc, resolve, ids, sig)
                continue
            mt = _type_vars(m.child_by_field_name("type_parameters"), src,
                            {} if _is_static(m, src) else tvars, resolve)
            params = self._params(m.child_by_field_name("parameters"), src, mt, resolve)
            if t == "constructor_declaration":
                self._emit(f, m, fqn, "constructor", "<init>", params, doc, resolve, ids, sig)
            else:
                self._emit(f, m, fqn, "method", _txt(src, m.child_by_field_name("name")), params,
                           doc, resolve, ids, sig)


def _is_static(node, src) -> bool:
    mods = _modifiers(node)
    return mods is not None and any(_txt(src, c) == "static" for c in mods.children
                                    if c.type in ("modifier", "static"))


def _scan_file(name: str, src: bytes, parser: Parser) -> _File:
    tree = parser.parse(src)
    f = _File(name=name, src=src, tree=tree)
    for c in tree.root_node.named_children:
        if c.type == "package_declaration":
            for k in c.named_children:
                if k.type in ("scoped_identifier", "identifier"):
                    f.package = re.sub(r"\s+", "", _txt(src, k))
        elif c.type == "import_declaration":
            static = any(k.type == "static" for k in c.children)
            path_node = next((k for k in c.named_children if k.type in ("scoped_identifier", "identifier")), None)
            if path_node is None:
                continue
            path = re.sub(r"\s+", "", _txt(src, path_node))
            star = any(k.type == "asterisk" for k in c.children)
            if star:
                f.on_demand.append(path)
            elif not static:
                f.single[path.rsplit(".", 1)[-1]] = path
            # A static single import names a member (or a member type).
            elif path.rsplit(".", 1)[-1][:1].isupper():
                f.single.setdefault(path.rsplit(".", 1)[-1], path)
    return f


def _declared_types(f: _File) -> list[str]:
    out = []

    def walk(node, prefix):
        for c in node.named_children:
            if c.type in _TYPE_DECLS:
                nm = c.child_by_field_name("name")
                if nm is None:
                    continue
                fq = f"{prefix}.{_txt(f.src, nm)}" if prefix else _txt(f.src, nm)
                out.append(fq)
                body = c.child_by_field_name("body")
                if body is not None:
                    walk(body, fq)
                    for b in body.named_children:
                        if b.type == "enum_body_declarations":
                            walk(b, fq)

    walk(f.tree.root_node, f.package)
    return out


_INT_LITERALS = {"decimal_integer_literal": 10, "hex_integer_literal": 16,
                 "octal_integer_literal": 8, "binary_integer_literal": 2}


def _shown_constant(node, src) -> str | None:
    """How javadoc shows a constant initialised by this literal (strings
    and chars as written, integers in decimal, booleans), else ``None``."""
    t = node.type
    text = _txt(src, node)
    if t in ("string_literal", "character_literal") and "\n" not in text:
        return text
    if t in ("true", "false"):
        return t
    if t in _INT_LITERALS:
        digits = text.rstrip("lL").replace("_", "")
        base = _INT_LITERALS[t]
        if base != 10:
            digits = digits[2:] if base != 8 else digits
        try:
            value = int(digits, base)
        except ValueError:
            return None
        return str(value)
    return None


def _constants(f: _File) -> dict[str, str]:
    """``pkg.Type.NAME`` → shown value of the file's literal constants."""
    out: dict[str, str] = {}

    def walk(node, prefix, iface):
        for c in node.named_children:
            if c.type in _TYPE_DECLS:
                nm = c.child_by_field_name("name")
                body = c.child_by_field_name("body")
                if nm is None or body is None:
                    continue
                fq = f"{prefix}.{_txt(f.src, nm)}" if prefix else _txt(f.src, nm)
                walk(body, fq, c.type in ("interface_declaration", "annotation_type_declaration"))
            elif c.type == "enum_body_declarations":
                walk(c, prefix, False)
            elif c.type in ("field_declaration", "constant_declaration"):
                mods = _modifiers(c)
                words = {_txt(f.src, k) for k in mods.children} if mods is not None else set()
                if not (iface or c.type == "constant_declaration" or {"static", "final"} <= words):
                    continue
                for d in c.named_children:
                    if d.type == "variable_declarator":
                        value = d.child_by_field_name("value")
                        shown = _shown_constant(value, f.src) if value is not None else None
                        if shown is not None:
                            out[f"{prefix}.{_txt(f.src, d.child_by_field_name('name'))}"] = shown

    walk(f.tree.root_node, f.package, False)
    return out


def read_source_container(container: Container) -> DocSet:
    """Read the ``.java`` files of ``container`` (see :func:`read_sources`)."""
    names = [n for n in container.names() if n.endswith(".java")
             and not n.endswith(("module-info.java", "package-info.java"))]
    warnings = list(container.warnings)
    if not names:
        raise JavadocError(f"{container.path}: no .java files (not a sources archive or folder)")
    parser = Parser(_LANG)
    files: list[_File] = []
    for n in names:
        try:
            src = container.read(n)
        except (OSError, JavadocError) as exc:
            warnings.append((location(container, n), f"unreadable: {exc}"))
            continue
        f = _scan_file(n, src, parser)
        if f.tree.root_node.has_error:
            warnings.append((location(container, n), "syntax errors; declarations read as far as possible"))
        files.append(f)
    known = {t for f in files for t in _declared_types(f)}
    ex = _Extractor(_Resolver(known), lambda n: location(container, n))
    for f in files:
        ex.constants.update(_constants(f))
    for f in files:
        for c in f.tree.root_node.named_children:
            if c.type in _TYPE_DECLS:
                ex.type_decl(c, f, [], {}, False)
    warnings.extend(ex.warnings)
    return DocSet(source=container.path, layout=SiteLayout.SOURCES, classes=tuple(ex.classes),
                  members=tuple(ex.members), warnings=tuple(warnings), pages=len(files))


def read_sources(path: str, *, limits: ZipLimits | None = None) -> DocSet:
    """Read doc comments from a ``*-sources.jar`` (any zip) or source folder.

    Every public/protected type and member (interface and annotation members
    implicitly public) becomes a record with ``doc_source="sources"``;
    parameter types are erased and resolved to FQNs as far as nested types,
    imports, the package, types of the same source set and ``java.lang``
    allow, else kept as written (docs/javadoc.md "Sources").

    Raises
    ------
    JavadocError
        Missing path, unreadable archive, or no ``.java`` files.
    """
    container = open_container(path, limits)
    try:
        return read_source_container(container)
    finally:
        container.close()
