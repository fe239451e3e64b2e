"""Doc comments of Java sources (``*-sources.jar`` or a source folder) →
ClassDoc/ApiDoc with ``doc_source="sources"``.

Declarations are found with tree-sitter (``tree-sitter-java-orchard``);
doc comments are split into description and block tags with
``javalang.javadoc``, guarded against its flaw of taking any line that starts
with ``@`` for a tag (``@Override`` inside ``<pre>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace


import javalang.javadoc as _jd
import tree_sitter_java_orchard as _tsj
from tree_sitter import Language, Parser

from records.javalang import JAVA_LANG_TYPES

from ._archive import Container, ZipLimits, open_container
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout
from ._text import (
    RefContext,
    comment_parts,
    comment_text,
    first_sentence,
    simple_type_name,
)

_LANG = Language(_tsj.language())
_TYPE_DECLS = {
    "class_declaration": "class", "interface_declaration": "interface",
    "enum_declaration": "enum", "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
_PRIMITIVES = {"integral_type", "floating_point_type", "boolean_type", "void_type"}
_AT = "\ue000"  # stands for '@' at a line start inside <pre> while javalang parses

def _java_lang() -> frozenset[str]:
    return JAVA_LANG_TYPES


def _txt(src: bytes, node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


# --- doc comments ----------------------------------------------------------------

_PRE_RE = re.compile(r"<pre\b.*?(?:</pre\s*>|$)", re.DOTALL | re.IGNORECASE)
_PRE_AT_RE = re.compile(r"(^[ \t]*\*?[ \t]*)@", re.MULTILINE)


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


_UNICODE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u+([0-9A-Fa-f]{4})")
_STARS = re.compile(r"(?m)^([ \t]*)\*+")


def _javac_text(raw: str) -> str:
    """The comment as javac sees it: ``\\uXXXX`` escapes translated (JLS 3.3)
    and a run of leading ``*`` on a line taken as one (javadoc strips them
    all; javalang only one)."""
    if "\\u" in raw:
        raw = _UNICODE_ESCAPE.sub(lambda m: m.group(1) + chr(int(m.group(2), 16)), raw)
        # surrogate pairs written as two escapes make one character; a lone
        # surrogate becomes U+FFFD
        raw = raw.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if raw.startswith("/**") and raw.endswith("*/") and len(raw) >= 5:
        raw = "/**" + _STARS.sub(r"\1*", raw[3:-2]) + "*/"
    return raw


def parse_comment(raw: str, ctx: RefContext | None = None) -> _Doc:
    """Split a ``/** … */`` comment into plain-text parts (see docs);
    ``ctx`` resolves ``{@link}``/``{@value}`` references."""
    block = _jd.parse(_guard_pre(_javac_text(raw)))

    def txt(s):
        return comment_text(s.replace(_AT, "@"), ctx) if s is not None else None

    doc = _Doc()
    desc, first = comment_parts(block.description.replace(_AT, "@"), ctx)
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


def _spread_type(p):
    """The type node of a ``spread_parameter`` (``T...``)."""
    return next((c for c in p.named_children if c.type not in ("modifiers", "variable_declarator")
                 and not c.type.endswith("annotation")), None)


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


_INHERIT = "\ue001"  # stands for {@inheritDoc} until inheritance is resolved


@dataclass(slots=True)
class _TypeInfo:
    kind: str
    interfaces: list
    superclass: str | None
    methods: dict = field(default_factory=dict)  # name -> [(params, id)]
    documented: bool = True
    inheritable: list = field(default_factory=list)  # public/protected fields and methods


@dataclass(slots=True)
class _MethodInfo:
    param_names: list
    void: bool
    declared_throws: list
    typevar: tuple = ()  # per parameter: its type is a type variable
    type_params: list = field(default_factory=list)


class _Refs(RefContext):
    """References of one doc comment, resolved in its file and scope."""

    def __init__(self, ex: _Extractor, f: _File, scopes: list, fqn: str, this_constant: str | None):
        self.ex, self.f, self.scopes, self.fqn, self.this_constant = ex, f, scopes, fqn, this_constant
        self.current = scopes[-1] if scopes else None

    def type_name(self, cls: str) -> str:
        fq = self.ex.resolver.resolve(cls, self.f, self.scopes)
        return "" if fq == self.current else fq

    def member_ref(self, cls: str, member: str) -> str:
        # javadoc shows a method linked without parameters with the declared
        # parameter types of its first overload (javac's TypeMirror text);
        # known here for methods of the source set
        if cls:
            owners = [self.ex.resolver.resolve(cls, self.f, self.scopes)]
        else:  # "#m": the documented type, then the types enclosing it
            owners = list(reversed(self.scopes))
        for k, owner in enumerate(owners):
            found = self.ex.decls.get((owner, member.split("(", 1)[0]), ())
            if not found:
                continue
            text = member
            if "(" not in member:  # javadoc takes the first declared overload
                node, f, scopes, tvars = found[0]
                text = f"{member}({', '.join(self.ex.param_texts(node, f, scopes, tvars))})"
            # a member of an enclosing type is shown with that type's name
            return f"{simple_type_name(owner)}.{text}" if not cls and k > 0 else text
        return member

    def value_of(self, ref: str) -> str | None:
        if not ref:
            return self.ex.constants.get(self.this_constant) if self.this_constant else None
        cls, _, name = ref.partition("#")
        owner = self.ex.resolver.resolve(cls, self.f, self.scopes) if cls else self.fqn
        return self.ex.constants.get(f"{owner}.{name}")


class _Extractor:
    def __init__(self, resolver: _Resolver, where):
        self.resolver = resolver
        self.where = where
        self.classes: list[ClassDoc] = []
        self.members: list[ApiDoc] = []  # documented (public/protected) members
        self.docs: dict[str, ApiDoc] = {}  # every non-private method, for inheritance
        self.methods: dict[str, _MethodInfo] = {}
        self.types: dict[str, _TypeInfo] = {}
        self.warnings: list = []
        self.constants: dict[str, str] = {}
        self.decls: dict[tuple[str, str], list] = {}

    def _doc(self, node, src, f, fqn: str = "", scopes: list | None = None,
             this_constant: str | None = None) -> _Doc:
        raw = _doc_comment(node, src)
        doc = _Doc()
        if raw is not None:
            ctx = _Refs(self, f, scopes or [], fqn, this_constant)
            try:
                doc = parse_comment(raw.replace("{@inheritDoc}", _INHERIT), ctx)
            except Exception as exc:  # noqa: BLE001 - javalang's failures are not typed
                self.warnings.append((f"{self.where(f.name)}:{node.start_point[0] + 1}",
                                      f"unparsable doc comment ({exc})"))
        if doc.deprecated is None and _annotated_deprecated(node, src):
            doc.deprecated = ""
        return doc

    def param_texts(self, node, f: _File, scopes: list, tvars: set) -> list[str]:
        """Parameter types of a method as javac prints them (``java.lang.Class<E>``,
        ``E...``)."""
        out = []
        params = node.child_by_field_name("parameters")
        for p in (params.named_children if params is not None else ()):
            if p.type == "formal_parameter":
                t = self._type_text(p.child_by_field_name("type"), f, scopes, tvars)
                out.append(t + "[]" * _dims(p.child_by_field_name("dimensions")))
            elif p.type == "spread_parameter":
                tnode = _spread_type(p)
                out.append(self._type_text(tnode, f, scopes, tvars) + "...")
        return out

    def _type_text(self, node, f: _File, scopes: list, tvars: set) -> str:
        if node is None:
            return ""
        t = node.type
        src = f.src
        if t in _PRIMITIVES:
            return _txt(src, node)
        if t == "type_identifier":
            n = _txt(src, node)
            return n if n in tvars else self.resolver.resolve(n, f, scopes)
        if t == "scoped_type_identifier":
            return self.resolver.resolve(".".join(_type_names(node, src)), f, scopes)
        if t == "generic_type":
            base = next((c for c in node.named_children if c.type != "type_arguments"), None)
            args = next((c for c in node.named_children if c.type == "type_arguments"), None)
            text = self._type_text(base, f, scopes, tvars)
            if args is not None:
                text += "<" + ",".join(self._type_text(a, f, scopes, tvars) for a in args.named_children
                                       if not a.type.endswith("annotation")) + ">"
            return text
        if t == "wildcard":
            bound = next((c for c in node.named_children if not c.type.endswith("annotation")), None)
            kw = next((c.type for c in node.children if c.type in ("extends", "super")), None)
            return "?" if bound is None or kw is None else f"? {kw} {self._type_text(bound, f, scopes, tvars)}"
        if t == "array_type":
            return (self._type_text(node.child_by_field_name("element"), f, scopes, tvars)
                    + "[]" * _dims(node.child_by_field_name("dimensions")))
        if t == "annotated_type":
            inner = next((c for c in node.named_children if not c.type.endswith("annotation")), None)
            return self._type_text(inner, f, scopes, tvars)
        return re.sub(r"\s+", "", _txt(src, node))

    def _supertypes(self, node, src, resolve, tvars) -> tuple[list, str | None]:
        interfaces, superclass = [], None
        for c in node.named_children:
            if c.type == "superclass":
                t = next((k for k in c.named_children if not k.type.endswith("annotation")), None)
                if t is not None:
                    superclass = _erase(t, src, tvars, resolve)
            elif c.type in ("super_interfaces", "extends_interfaces"):
                for tl in c.named_children:
                    if tl.type == "type_list":
                        interfaces.extend(_erase(t, src, tvars, resolve) for t in tl.named_children
                                          if not t.type.endswith("annotation"))
        return interfaces, superclass

    def type_decl(self, node, f: _File, scopes: list[str], tvars: dict, in_interface: bool,
                  documented: bool = True, outer_deprecated: bool = False) -> None:
        src = f.src
        kind = _TYPE_DECLS[node.type]
        name = _txt(src, node.child_by_field_name("name"))
        fqn = f"{scopes[-1]}.{name}" if scopes else (f"{f.package}.{name}" if f.package else name)
        vis = _visibility(node, src)
        documented = documented and (vis in ("public", "protected") or (in_interface and vis != "private"))
        scopes = scopes + [fqn]

        def resolve(n):
            return self.resolver.resolve(n, f, scopes)

        tvars = _type_vars(node.child_by_field_name("type_parameters"), src,
                           {} if _is_static(node, src) else tvars, resolve)
        doc = self._doc(node, src, f, fqn, scopes)
        deprecated = outer_deprecated or doc.deprecated is not None
        interfaces, superclass = self._supertypes(node, src, resolve, tvars)
        self.types[fqn] = _TypeInfo(kind, interfaces, superclass, documented=documented)
        ids: list[str] = []
        body = node.child_by_field_name("body")
        iface = kind in ("interface", "annotation")
        record_params = (self._params(node.child_by_field_name("parameters"), src, tvars, resolve)
                         if kind == "record" else [])
        if body is not None:
            self._body(body, f, fqn, scopes, tvars, resolve, iface, ids, documented, deprecated,
                       record_params)
        if documented:
            self.classes.append(ClassDoc(
                fqn=fqn, kind=kind, signature_text=_signature(node, src),
                description=doc.description, first_sentence=doc.first_sentence,
                deprecated=doc.deprecated, doc_source="sources", layout=SiteLayout.SOURCES,
                location=f.name, members=tuple(ids), package=f.package))

    def _params(self, params_node, src, tvars, resolve, names: list | None = None,
                typevar: list | None = None) -> list[str]:
        out = []
        if params_node is None:
            return out
        for p in params_node.named_children:
            if typevar is not None and p.type in ("formal_parameter", "spread_parameter"):
                tn = p.child_by_field_name("type") or _spread_type(p)
                while tn is not None and tn.type == "array_type":
                    tn = tn.child_by_field_name("element")
                typevar.append(tn is not None and tn.type == "type_identifier" and _txt(src, tn) in tvars)
            if p.type == "formal_parameter":
                t = _erase(p.child_by_field_name("type"), src, tvars, resolve)
                t += "[]" * _dims(p.child_by_field_name("dimensions"))
                out.append(t)
                if names is not None:
                    n = p.child_by_field_name("name")
                    names.append(_txt(src, n) if n is not None else "")
            elif p.type == "spread_parameter":
                tnode = _spread_type(p)
                out.append(_erase(tnode, src, tvars, resolve) + "...")
                if names is not None:
                    d = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                    n = d.child_by_field_name("name") if d is not None else None
                    names.append(_txt(src, n) if n is not None else "")
        return out

    def _emit(self, f, node, fqn, kind, name, params, doc: _Doc, resolve, ids, anchor,
              documented=True, deprecated=False, accessible=False) -> str:
        api = f"{fqn}.{name}"
        mid = api if params is None else f"{api}({','.join(params)})"
        throws = tuple((resolve(t), x) for t, x in doc.throws)
        dep = doc.deprecated if doc.deprecated is not None else ("" if deprecated else None)
        rec = ApiDoc(
            id=mid, api=api, class_=fqn, kind=kind, signature_text=anchor,
            description=doc.description, first_sentence=doc.first_sentence,
            params=tuple(doc.params), returns=doc.returns, throws=throws,
            deprecated=dep, doc_source="sources", layout=SiteLayout.SOURCES,
            location=f.name, anchor=anchor)
        if documented:
            self.members.append(rec)
            ids.append(mid)
        if kind == "method":
            self.docs[mid] = rec
            self.types[fqn].methods.setdefault(name, []).append((tuple(params or ()), mid))
        if accessible and kind in ("method", "field"):
            self.types[fqn].inheritable.append(rec)
        return mid

    def _body(self, body, f, fqn, scopes, tvars, resolve, iface, ids, documented, deprecated,
              record_params):
        src = f.src
        for m in body.named_children:
            t = m.type
            if t == "enum_body_declarations":
                self._body(m, f, fqn, scopes, tvars, resolve, iface, ids, documented, deprecated,
                           record_params)
                continue
            if t in _TYPE_DECLS:
                # javadoc marks the members of a deprecated type deprecated,
                # not those of its nested types
                self.type_decl(m, f, scopes, tvars, iface, documented, False)
                continue
            if t == "enum_constant":
                name = _txt(src, m.child_by_field_name("name"))
                self._emit(f, m, fqn, "enum_constant", name, None, self._doc(m, src, f, fqn, scopes),
                           resolve, ids, name, documented, deprecated)
                continue
            if t not in ("method_declaration", "constructor_declaration", "compact_constructor_declaration",
                         "field_declaration", "constant_declaration",
                         "annotation_type_element_declaration"):
                continue
            vis = _visibility(m, src)
            if vis == "private":
                continue
            accessible = vis in ("public", "protected") or iface
            visible = documented and accessible
            if not accessible and t != "method_declaration":
                continue
            first_var = next((d for d in m.named_children if d.type == "variable_declarator"), None)
            this_constant = (f"{fqn}.{_txt(src, first_var.child_by_field_name('name'))}"
                             if first_var is not None else None)
            doc = self._doc(m, src, f, fqn, scopes, this_constant)
            sig = _signature(m, src)
            if t in ("field_declaration", "constant_declaration"):
                for d in m.named_children:
                    if d.type == "variable_declarator":
                        self._emit(f, m, fqn, "field", _txt(src, d.child_by_field_name("name")), None,
                                   doc, resolve, ids, sig, visible, deprecated, accessible)
                continue
            if not visible and t != "method_declaration":
                continue
            if t == "annotation_type_element_declaration":
                self._emit(f, m, fqn, "annotation_element", _txt(src, m.child_by_field_name("name")), [],
                           doc, resolve, ids, sig, visible, deprecated)
                continue
            if t == "compact_constructor_declaration":
                self._emit(f, m, fqn, "constructor", "<init>", list(record_params), doc, resolve, ids, sig,
                           visible, deprecated)
                continue
            mt = _type_vars(m.child_by_field_name("type_parameters"), src,
                            {} if _is_static(m, src) else tvars, resolve)
            names: list[str] = []
            typevar: list[bool] = []
            params = self._params(m.child_by_field_name("parameters"), src, mt, resolve, names, typevar)
            if t == "constructor_declaration":
                self._emit(f, m, fqn, "constructor", "<init>", params, doc, resolve, ids, sig,
                           visible, deprecated)
                continue
            mid = self._emit(f, m, fqn, "method", _txt(src, m.child_by_field_name("name")), params,
                             doc, resolve, ids, sig, visible, deprecated, accessible)
            rtype = m.child_by_field_name("type")
            declared = []
            for c in m.named_children:
                if c.type == "throws":
                    declared = [_erase(k, src, mt, resolve) for k in c.named_children
                                if not k.type.endswith("annotation")]
            self.methods[mid] = _MethodInfo(names, rtype is not None and rtype.type == "void_type", declared,
                                            tuple(typevar), _type_param_names(m, src))

    # --- comment inheritance (javadoc's algorithm, within the source set) ----------

    def _overridden_in(self, t: str, name: str, params: tuple) -> str | None:
        info = self.types.get(t)
        if info is None:
            return None
        cands = info.methods.get(name, ())
        for p, mid in cands:
            if p == params:
                return mid
        # a generic supertype method erases differently (T → Object where the
        # override has String): match the positions that are not type
        # variables in the supertype, and take a unique such method
        close = []
        for p, mid in cands:
            if len(p) != len(params):
                continue
            info_p = self.methods.get(mid)
            tv = info_p.typevar if info_p is not None else ()
            if all(a == b or (k < len(tv) and tv[k]) for k, (a, b) in enumerate(zip(p, params))):
                close.append(mid)
        return close[0] if len(close) == 1 else None

    def _search(self, t: str, name: str, params: tuple, seen: set) -> str | None:
        """javadoc's order: direct interfaces, then (recursively) their
        supertypes, then the superclass and its supertypes."""
        if t in seen:
            return None
        seen.add(t)
        info = self.types.get(t)
        if info is None:
            return None
        for i in info.interfaces:
            mid = self._overridden_in(i, name, params)
            if mid is not None and self._has_comment(mid):
                return mid
        for i in info.interfaces:
            r = self._search(i, name, params, seen)
            if r is not None:
                return r
        if info.superclass and info.kind != "interface":
            mid = self._overridden_in(info.superclass, name, params)
            if mid is not None and self._has_comment(mid):
                return mid
            return self._search(info.superclass, name, params, seen)
        return None

    def _has_comment(self, mid: str) -> bool:
        d = self.docs[mid]
        return bool(d.description or d.params or d.returns or d.throws)

    def _effective(self, mid: str, memo: dict, depth: int = 0) -> ApiDoc:
        if mid in memo:
            return memo[mid]
        d = self.docs[mid]
        memo[mid] = d  # cycle guard
        info = self.methods.get(mid)
        needs = (d.description is None or _INHERIT in (d.description or "")
                 or any(_INHERIT in t for _, t in d.params) or _INHERIT in (d.returns or "")
                 or (info is not None and (
                     len([n for n, _ in d.params if not n.startswith("<")]) < len(info.param_names)
                     or (d.returns is None and not info.void)
                     or any(t not in {x for x, _ in d.throws} for t in info.declared_throws))))
        if not needs or depth > 50:
            return d
        name = d.api.rsplit(".", 1)[1]
        params = tuple(d.id[d.id.index("(") + 1:-1].split(",")) if not d.id.endswith("()") else ()
        parent_id = self._search(d.class_, name, params, set())
        if parent_id is None:
            memo[mid] = _strip_marker(d)
            return memo[mid]
        parent = self._effective(parent_id, memo, depth + 1)
        memo[mid] = _inherit_from(d, parent, info, self.methods.get(parent_id))
        return memo[mid]

    def resolve_inheritance(self) -> None:
        """Comment inheritance, then the members documented types inherit
        from undocumented (package-private) supertypes, which javadoc shows
        on the documented type's page as its own."""
        memo: dict = {}
        out = []
        for m in self.members:
            if m.kind == "method" and m.id in self.docs:
                eff = self._effective(m.id, memo)
                out.append(replace(eff, deprecated=m.deprecated))
            else:  # {@inheritDoc} where nothing is inherited: dropped
                texts = (m.description or "", m.returns or "", *(t for _, t in m.params))
                out.append(_strip_marker(m) if any(_INHERIT in t for t in texts) else m)
        self.classes = [replace(c, description=_fill(c.description, None),
                                first_sentence=_fill(c.first_sentence, None))
                        if _INHERIT in (c.description or "") else c for c in self.classes]
        copied: dict[str, list[ApiDoc]] = {}
        for c in self.classes:
            info = self.types.get(c.fqn)
            if info is None or info.kind == "annotation":
                continue
            own = {_member_key(m) for m in out if m.class_ == c.fqn}
            for sup in self._hidden_supertypes(c.fqn):
                for m in self.types[sup].inheritable:
                    key = _member_key(m)
                    if key in own:
                        continue
                    own.add(key)
                    eff = self._effective(m.id, memo) if m.id in self.docs else m
                    api = f"{c.fqn}.{m.api.rsplit('.', 1)[1]}"
                    copied.setdefault(c.fqn, []).append(replace(
                        eff, id=api + m.id[len(m.api):], api=api, class_=c.fqn))
        if copied:
            out = [*out, *(m for ms in copied.values() for m in ms)]
            self.classes = [replace(c, members=c.members + tuple(m.id for m in copied[c.fqn]))
                            if c.fqn in copied else c for c in self.classes]
        self.members = out

    def _hidden_supertypes(self, fqn: str) -> list[str]:
        """Undocumented supertypes of the source set reached from ``fqn``
        without passing a documented one, nearest first."""
        out: list[str] = []
        todo = list(self._direct_supers(fqn))
        while todo:
            t = todo.pop(0)
            info = self.types.get(t)
            if info is None or info.documented or t in out:
                continue
            out.append(t)
            todo.extend(self._direct_supers(t))
        return out

    def _direct_supers(self, fqn: str) -> list[str]:
        info = self.types.get(fqn)
        if info is None:
            return []
        return ([info.superclass] if info.superclass else []) + list(info.interfaces)


def _member_key(m: ApiDoc) -> tuple[str, str]:
    """A member's name and parameter list (what overriding/hiding matches)."""
    return m.kind, m.id[len(m.class_) + 1:]


def _fill(text: str | None, parent: str | None) -> str | None:
    """``text`` with ``{@inheritDoc}`` replaced by ``parent``; ``parent``
    when ``text`` is missing or holds nothing else."""
    if text is None:
        return parent
    if _INHERIT not in text:
        return text
    rep = f" {parent} " if parent else " "
    out = re.sub(r"[ \t]*" + _INHERIT + r"[ \t]*", lambda _m: rep, text)
    out = re.sub(r"[ \t]+\n", "\n", re.sub(r"\n[ \t]+(?=\S)", "\n", out)).strip()
    return out or parent


def _strip_marker(d: ApiDoc) -> ApiDoc:
    return _inherit_from(d, None, None, None)


def _inherit_from(d: ApiDoc, parent: ApiDoc | None, info, parent_info) -> ApiDoc:
    """Missing parts of ``d`` (and ``{@inheritDoc}`` in it) from ``parent``."""
    p = parent
    desc = _fill(d.description, p.description if p else None)
    if d.description is None:
        first = p.first_sentence if p else None
    elif _INHERIT in d.description:
        first = first_sentence(desc)
    else:
        first = d.first_sentence
    params = list(d.params)
    if info is not None and p is not None:
        have = {n for n, _ in params}
        ptexts = [t for n, t in p.params if not n.startswith("<")]
        pnames = parent_info.param_names if parent_info else []
        for k, n in enumerate(info.param_names):
            if n not in have:
                # javadoc matches an inherited @param by position
                if k < len(pnames):
                    pn = pnames[k]
                    t = next((t for x, t in p.params if x == pn), None)
                elif k < len(ptexts):
                    t = ptexts[k]
                else:
                    t = None
                if t is not None:
                    params.append((n, t))
        if info.type_params and not any(n.startswith("<") for n, _ in params):
            ptypes = [t for n, t in p.params if n.startswith("<")]
            ptnames = parent_info.type_params if parent_info else []
            for k, n in enumerate(info.type_params):
                pn = f"<{ptnames[k]}>" if k < len(ptnames) else None
                t = next((t for x, t in p.params if x == pn), None) if pn else (
                    ptypes[k] if k < len(ptypes) else None)
                if t is not None:
                    params.append((f"<{n}>", t))
        order = {n: i for i, n in enumerate(info.param_names)}
        params.sort(key=lambda nt: (0, 0) if nt[0].startswith("<") else (1, order.get(nt[0], 99)))
    ptext = {n: t for n, t in (p.params if p else ())}
    params = [(n, _fill(t, ptext.get(n)) if _INHERIT in t else t) for n, t in params]
    returns = d.returns
    if returns is None and p is not None and info is not None and not info.void:
        returns = p.returns
    elif returns is not None and _INHERIT in returns:
        returns = _fill(returns, p.returns if p else None)
    throws = list(d.throws)
    if p is not None and info is not None:
        have_t = {x for x, _ in throws}
        for x in info.declared_throws:
            if x not in have_t:
                throws.extend((y, t) for y, t in p.throws if y == x)
    throws = [(x, _fill(t, dict(p.throws).get(x) if p else None) if _INHERIT in t else t) for x, t in throws]
    return replace(d, description=desc, first_sentence=first, params=tuple(params), returns=returns,
                   throws=tuple(throws))


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


def _type_param_names(node, src) -> list[str]:
    """Names of the type parameters a declaration declares, in order."""
    tp = node.child_by_field_name("type_parameters")
    if tp is None:
        return []
    out = []
    for c in tp.named_children:
        if c.type == "type_parameter":
            ident = next((k for k in c.named_children if k.type in ("type_identifier", "identifier")), None)
            if ident is not None:
                out.append(_txt(src, ident))
    return out


def _constants(f: _File, decls: dict, types: set) -> dict[str, str]:
    """``pkg.Type.NAME`` → shown value of the file's literal constants;
    fills ``decls`` (``(pkg.Type, method name)`` → [(node, file, scopes,
    type variables in scope)]) and ``types`` (FQNs of the types declared)."""
    out: dict[str, str] = {}

    def walk(node, prefix, iface, scopes=(), tvars=frozenset()):
        for c in node.named_children:
            if c.type in _TYPE_DECLS:
                nm = c.child_by_field_name("name")
                if nm is None:
                    continue
                fq = f"{prefix}.{_txt(f.src, nm)}" if prefix else _txt(f.src, nm)
                types.add(fq)
                body = c.child_by_field_name("body")
                if body is None:
                    continue
                walk(body, fq, c.type in ("interface_declaration", "annotation_type_declaration"),
                     (*scopes, fq), tvars.union(_type_param_names(c, f.src)))
            elif c.type == "enum_body_declarations":
                walk(c, prefix, False, scopes, tvars)
            elif c.type == "method_declaration":
                decls.setdefault((prefix, _txt(f.src, c.child_by_field_name("name"))), []).append(
                    (c, f, list(scopes), tvars.union(_type_param_names(c, f.src))))
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
            warnings.append((container.location(n), f"unreadable: {exc}"))
            continue
        try:
            src.decode("utf-8")
        except UnicodeDecodeError:
            # javac would need -encoding: read such a file as cp1252
            src = src.decode("cp1252", "replace").encode("utf-8")
            warnings.append((container.location(n), "not valid UTF-8; read as cp1252"))
        f = _scan_file(n, src, parser)
        if f.tree.root_node.has_error:
            warnings.append((container.location(n), "syntax errors; declarations read as far as possible"))
        files.append(f)
    ex = _Extractor(_Resolver(set()), container.location)
    for f in files:  # all files first: the resolver needs every declared type
        ex.constants.update(_constants(f, ex.decls, ex.resolver.known))
    for f in files:
        for c in f.tree.root_node.named_children:
            if c.type in _TYPE_DECLS:
                ex.type_decl(c, f, [], {}, False)
    ex.resolve_inheritance()
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
