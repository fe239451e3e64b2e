"""Pass 1: parse one ``.java`` file with tree-sitter and extract its declarations.

A ``TypeRef`` is a type *as written*, not yet resolved: a plain tuple
``(name, args, dims)`` — ``name`` dotted as in the source (``"Map.Entry"``,
``"int"``, ``"?"``/``"?super"`` for wildcards), ``args`` a tuple of TypeRefs
(type arguments of the last segment), ``dims`` the array dimensions. Tuples,
not objects, because millions are made on large projects and they are pickled
between processes.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields

import tree_sitter
import tree_sitter_java_orchard

JAVA = tree_sitter.Language(tree_sitter_java_orchard.language())

TypeRef = tuple  # (name: str, args: tuple[TypeRef, ...], dims: int)

_TYPE_DECLS = ("class_declaration", "interface_declaration", "enum_declaration",
               "record_declaration", "annotation_type_declaration")
_KIND = {"class_declaration": "class", "interface_declaration": "interface",
         "enum_declaration": "enum", "record_declaration": "record",
         "annotation_type_declaration": "annotation"}
_MEMBER_PARENTS = frozenset({"class_body", "interface_body", "enum_body_declarations",
                             "program", "annotation_type_body", "enum_body"})
_COMMENTS = ("line_comment", "block_comment")

_DECL_QUERY = tree_sitter.Query(JAVA, """
(class_declaration) @t
(interface_declaration) @t
(enum_declaration) @t
(record_declaration) @t
(annotation_type_declaration) @t
(object_creation_expression (class_body) @anon)
(enum_constant body: (class_body) @anon)
""")
_COMMENT_QUERY = tree_sitter.Query(JAVA, "(line_comment) @c (block_comment) @c")
_ERROR_QUERY = tree_sitter.Query(JAVA, "(ERROR) @e")


def _pickled_by_fields(cls):
    """Pickle ``cls`` as ``cls(*fields)``. Facts cross between processes of a
    build by pickle (workers → this process, and the others' facts to each
    worker); the state functions ``dataclasses`` gives a frozen slotted class
    look its fields up again for every object: unpickling java/util's facts
    took 0.36 CPU-s with them, 0.19 through the generated ``__init__``."""
    get = operator.attrgetter(*(f.name for f in fields(cls)))

    def __reduce__(self):
        return cls, get(self)

    cls.__reduce__ = __reduce__
    return cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Import:
    """One import declaration: ``name`` dotted, ``static``, ``on_demand`` (``.*``)."""

    name: str
    static: bool
    on_demand: bool


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Annotation:
    """An annotation as written: ``name`` dotted as in the source (``"Getter"``,
    ``"lombok.Builder.Default"``), ``args`` ``((element, value source text), ...)``
    — a single-element annotation's element is ``"value"``; the text has its
    whitespace collapsed (``"AccessLevel.NONE"``, ``'{"m", "f"}'``, ``"true"``)."""

    name: str
    args: tuple = ()

    def arg(self, element: str, default: str | None = None) -> str | None:
        """The source text of ``element``, else ``default``."""
        for k, v in self.args:
            if k == element:
                return v
        return default


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class FieldDecl:
    """A field (or enum constant, or record component) of a type.

    ``annotations`` are the field's (``Annotation``), ``final`` and
    ``initialized`` (has an initializer) what Lombok's constructors need.
    """

    name: str
    type: TypeRef
    static: bool
    annotations: tuple = ()
    final: bool = False
    initialized: bool = False


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class MethodDecl:
    """A method or constructor as declared (types not yet resolved).

    ``name`` is ``"<init>"`` for constructors; ``params`` are ``(name, TypeRef)``
    with a varargs parameter's TypeRef carrying one extra dimension and
    ``varargs`` True; lines are 1-based; ``loc`` follows the build's loc mode;
    ``explicit_ctor_call`` tells whether a constructor starts with
    ``this(...)``/``super(...)``; ``this_call`` whether that call is ``this(...)``.
    """

    name: str
    params: tuple
    varargs: bool
    returns: TypeRef | None
    type_params: tuple
    static: bool
    abstract: bool
    private: bool
    start_line: int
    end_line: int
    loc: int
    comment: str | None
    start_byte: int
    end_byte: int
    explicit_ctor_call: bool = False
    this_call: bool = False
    annotations: tuple = ()


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class InitDecl:
    """An initializer block or a field declaration with an initializer."""

    static: bool
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    loc: int


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class TypeDecl:
    """A type declaration (class, interface, enum, record, annotation; member,
    local or anonymous).

    ``key`` is the source FQN for top-level and member types and a synthetic,
    file-unique id for local and anonymous types (``pkg.Outer$1``,
    ``pkg.Outer$2Local``). ``start_byte``/``end_byte`` delimit the whole
    declaration (the class body for anonymous classes).
    """

    key: str
    name: str
    kind: str
    outer: str | None
    local: bool
    anonymous: bool
    static: bool
    abstract: bool
    superclass: TypeRef | None
    interfaces: tuple
    type_params: tuple
    fields: tuple
    methods: tuple
    inits: tuple
    enum_constants: tuple
    components: tuple
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    comment: str | None
    private: bool = False
    annotations: tuple = ()  # Annotation, as written on the declaration
    final: bool = False


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class FileFacts:
    """Declarations of one source file (pass 1 result)."""

    rel: str
    source_set: str
    package: str
    imports: tuple
    types: tuple
    parse_errors: tuple  # ((line, col), ...) 1-based, of ERROR and MISSING nodes
    encoding: str | None  # fallback encoding, None for UTF-8
    lines: int


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def type_ref(node) -> TypeRef:
    """The TypeRef of a tree-sitter type node (annotations dropped)."""
    t = node.type
    if t == "type_identifier" or t in ("integral_type", "floating_point_type",
                                       "boolean_type", "void_type"):
        return (_text(node), (), 0)
    if t == "generic_type":
        name, args = "", ()
        for c in node.named_children:
            if c.type == "type_arguments":
                args = tuple(type_ref(a) for a in c.named_children if a.type not in _ANNOT)
            elif c.type not in _ANNOT:
                name = type_ref(c)[0]
        return (name, args, 0)
    if t == "scoped_type_identifier":
        parts, args = [], ()
        for c in node.named_children:
            if c.type in _ANNOT:
                continue
            r = type_ref(c)
            parts.append(r[0])
            args = r[1]
        return (".".join(parts), args, 0)
    if t == "array_type":
        el = type_ref(node.child_by_field_name("element"))
        dims = node.child_by_field_name("dimensions")
        return (el[0], el[1], el[2] + (_text(dims).count("[") if dims else 1))
    if t == "wildcard":
        kids = [c for c in node.named_children if c.type not in _ANNOT]
        sup = any(c.type == "super" for c in node.children)
        return ("?super" if sup else "?", tuple(type_ref(k) for k in kids if k.type != "super"), 0)
    if t == "annotated_type":
        for c in node.named_children:
            if c.type not in _ANNOT:
                return type_ref(c)
    if t == "identifier":  # scoped names in some positions
        return (_text(node), (), 0)
    if t == "scoped_identifier":
        return (_text(node).replace(" ", ""), (), 0)
    return (_text(node), (), 0)


_ANNOT = frozenset({"marker_annotation", "annotation", "line_comment", "block_comment"})


def _modifiers(node) -> set[str]:
    for c in node.children:
        if c.type == "modifiers":
            return {_text(m) for m in c.children if m.type not in _ANNOT}
    return set()


def _annotations(node) -> tuple:
    """The ``Annotation``s among the modifiers of a declaration node."""
    out = []
    for c in node.children:
        if c.type != "modifiers":
            continue
        for a in c.named_children:
            if a.type not in ("marker_annotation", "annotation"):
                continue
            nm = a.child_by_field_name("name")
            if nm is None:
                continue
            args = []
            al = a.child_by_field_name("arguments")
            if al is not None:
                for x in al.named_children:
                    if x.type in _COMMENTS:
                        continue
                    if x.type == "element_value_pair":
                        k, v = x.child_by_field_name("key"), x.child_by_field_name("value")
                        if k is not None and v is not None:
                            args.append((_text(k), " ".join(_text(v).split())))
                    else:
                        args.append(("value", " ".join(_text(x).split())))
            out.append(Annotation(_text(nm).replace(" ", ""), tuple(args)))
    return tuple(out)


def _type_params(node) -> tuple:
    tp = node.child_by_field_name("type_parameters")
    if tp is None:
        return ()
    out = []
    for p in tp.named_children:
        if p.type != "type_parameter":
            continue
        name, bound = None, None
        for c in p.named_children:
            if c.type in ("type_identifier", "identifier") and name is None:
                name = _text(c)
            elif c.type == "type_bound" and c.named_children:
                b = [x for x in c.named_children if x.type not in _ANNOT]
                bound = type_ref(b[0]) if b else None
        if name:
            out.append((name, bound))
    return tuple(out)


def _comment_above(node, src: bytes) -> str | None:
    """The doc comment (``/** */``) of a declaration, else the block of
    ``//``/``/* */`` comments directly above it (each on its own lines).

    Comments are taken while they are adjacent (no blank line between) and
    none shares its first line with earlier code (a trailing comment of the
    line above belongs to that line). A ``/** */`` in that block wins, as it
    does for the javadoc tool.
    """
    s = node.prev_named_sibling
    row = node.start_point[0]
    parts = []
    while s is not None and s.type in _COMMENTS and s.end_point[0] >= row - 1:
        before = s.prev_sibling
        if before is not None and before.end_point[0] == s.start_point[0] and before.type not in _COMMENTS:
            break
        text = _text(s)
        if text.startswith("/**") and len(text) > 4:
            return text
        parts.append(text.rstrip("\n"))
        row = s.start_point[0]
        s = s.prev_named_sibling
    if not parts:
        return None
    return "\n".join(reversed(parts))


def _add_dims(tref: TypeRef, dims) -> TypeRef:
    """``tref`` with the array dimensions of a ``dimensions`` node written after a name (``int a[]``)."""
    if dims is None:
        return tref
    return (tref[0], tref[1], tref[2] + _text(dims).count("["))


def _params(node) -> tuple[tuple, bool]:
    ps = node.child_by_field_name("parameters")
    if ps is None:
        return (), False
    out, varargs = [], False
    for p in ps.named_children:
        if p.type == "formal_parameter":
            tref = _add_dims(type_ref(p.child_by_field_name("type")), p.child_by_field_name("dimensions"))
            nm = p.child_by_field_name("name")
            out.append((_text(nm) if nm else "", tref))
        elif p.type == "spread_parameter":
            ty = p.child_by_field_name("type")
            if ty is None:
                ty = next(c for c in p.named_children if c.type not in _ANNOT and c.type != "modifiers")
            tref = type_ref(ty)
            name = ""
            for c in p.named_children:
                if c.type == "variable_declarator":
                    nm = c.child_by_field_name("name")
                    name = _text(nm) if nm else ""
            out.append((name, (tref[0], tref[1], tref[2] + 1)))
            varargs = True
    return tuple(out), varargs


class _Lines:
    """LOC of a line span: physical, or non-blank non-comment lines."""

    def __init__(self, src: bytes, tree, mode: str):
        self.code = None
        if mode == "code":
            buf = bytearray(src)
            for node, _ in _captures(_COMMENT_QUERY, tree.root_node):
                for i in range(node.start_byte, node.end_byte):
                    if buf[i] not in (10, 13):
                        buf[i] = 32
            acc, pref = 0, [0]
            for line in bytes(buf).split(b"\n"):
                acc += 1 if line.strip() else 0
                pref.append(acc)
            self.code = pref

    def loc(self, start_line: int, end_line: int) -> int:
        if self.code is None:
            return end_line - start_line + 1
        return self.code[end_line] - self.code[start_line - 1]


def _captures(query, node):
    """(node, capture name) pairs in document order."""
    cur = tree_sitter.QueryCursor(query)
    out = []
    for name, nodes in cur.captures(node).items():
        out.extend((n, name) for n in nodes)
    out.sort(key=lambda x: (x[0].start_byte, -x[0].end_byte))
    return out


def parse(src: bytes):
    """Parse Java source bytes; returns the tree-sitter tree."""
    return tree_sitter.Parser(JAVA).parse(src)


def parse_errors(tree) -> tuple:
    """1-based (line, column) of ERROR and MISSING nodes (first 50)."""
    root = tree.root_node
    if not root.has_error:
        return ()
    out = [(n.start_point[0] + 1, n.start_point[1] + 1) for n, _ in _captures(_ERROR_QUERY, root)]
    # MISSING nodes are not matched by queries: find them under nodes with errors.
    stack = [root]
    while stack and len(out) < 200:
        n = stack.pop()
        if n.is_missing:
            out.append((n.start_point[0] + 1, n.start_point[1] + 1))
        elif n.has_error:
            stack.extend(n.children)
    return tuple(sorted(set(out))[:50])


def extract(src: bytes, tree, rel: str, source_set: str, encoding: str | None,
            loc_mode: str = "physical") -> FileFacts:
    """Declarations of one parsed file.

    Parameters
    ----------
    src : bytes
        The UTF-8 source that was parsed.
    tree : tree_sitter.Tree
    rel : str
        POSIX path relative to the project root.
    source_set : str
        ``"main"`` or ``"test"``.
    encoding : str or None
        Fallback encoding used to decode the file (None for UTF-8).
    loc_mode : str
        ``"physical"`` or ``"code"``.
    """
    root = tree.root_node
    package, imports = "", []
    for c in root.named_children:
        if c.type == "package_declaration":
            for x in c.named_children:
                if x.type in ("scoped_identifier", "identifier"):
                    package = _text(x).replace(" ", "")
        elif c.type == "import_declaration":
            static = any(x.type == "static" for x in c.children)
            on_demand = any(x.type == "asterisk" for x in c.children)
            name = ""
            for x in c.named_children:
                if x.type in ("scoped_identifier", "identifier"):
                    name = _text(x).replace(" ", "")
            if name:
                imports.append(Import(name, static, on_demand))
    lines = _Lines(src, tree, loc_mode)
    decls = _captures(_DECL_QUERY, root)
    types: list[TypeDecl] = []
    stack: list[tuple[int, str, bool]] = []  # (end_byte, key, local)
    counter = 0
    for node, cap in decls:
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        outer = stack[-1][1] if stack else None
        outer_local = stack[-1][2] if stack else False
        if cap == "anon":
            counter += 1
            parent = node.parent
            sup = None
            if parent.type == "object_creation_expression":
                ty = parent.child_by_field_name("type")
                sup = type_ref(ty) if ty is not None else None
                kind_hint = "anon"
            else:  # enum constant body: its superclass is the enum
                sup = ("=" + outer, (), 0) if outer else None  # "=": already a key
                kind_hint = "enumconst"
            key = f"{outer or package}${counter}"
            td = _type_decl(node, key, "", "class", outer, True, True, lines, src,
                            superclass=sup, anon_kind=kind_hint)
        else:
            name_node = node.child_by_field_name("name")
            name = _text(name_node) if name_node else "?"
            local = outer_local or node.parent is None or node.parent.type not in _MEMBER_PARENTS
            if local:
                counter += 1
                key = f"{outer or package}${counter}{name}"
            elif outer:
                key = f"{outer}.{name}"
            else:
                key = f"{package}.{name}" if package else name
            td = _type_decl(node, key, name, _KIND[node.type], outer, local, False, lines, src)
        types.append(td)
        stack.append((td.end_byte, td.key, td.local))
    return FileFacts(rel, source_set, package, tuple(imports), tuple(types),
                     parse_errors(tree), encoding, src.count(b"\n") + 1)


def _type_decl(node, key, name, kind, outer, local, anonymous, lines, src,
               superclass=None, anon_kind=None) -> TypeDecl:
    mods = _modifiers(node) if not anonymous else set()
    interfaces: tuple = ()
    type_params: tuple = ()
    components: tuple = ()
    if not anonymous:
        sc = node.child_by_field_name("superclass")
        if sc is not None:
            kids = [c for c in sc.named_children if c.type not in _ANNOT]
            superclass = type_ref(kids[0]) if kids else None
        itf = node.child_by_field_name("interfaces")
        if itf is None:  # interfaces: `extends A, B` is an extends_interfaces child
            for c in node.named_children:
                if c.type == "extends_interfaces":
                    itf = c
        if itf is not None:
            tl = [c for c in itf.named_children if c.type == "type_list"]
            items = tl[0].named_children if tl else itf.named_children
            interfaces = tuple(type_ref(c) for c in items if c.type not in _ANNOT)
        type_params = _type_params(node)
        if kind == "record":
            components, _ = _params(node)
    body = node if anonymous else node.child_by_field_name("body")
    fields, methods, inits, consts = [], [], [], []
    is_itf = kind in ("interface", "annotation")
    if body is not None:
        members = list(body.named_children)
        if kind == "enum":
            flat = []
            for m in members:
                if m.type == "enum_body_declarations":
                    flat.extend(m.named_children)
                else:
                    flat.append(m)
            members = flat
        for m in members:
            t = m.type
            if t in ("method_declaration", "constructor_declaration",
                     "compact_constructor_declaration", "annotation_type_element_declaration"):
                methods.append(_method(m, t, lines, src, components))
            elif t in ("field_declaration", "constant_declaration"):
                fmods = _modifiers(m)
                static = "static" in fmods or is_itf
                tref = type_ref(m.child_by_field_name("type"))
                has_init = False
                fann = _annotations(m)
                final = "final" in fmods or is_itf
                for d in m.named_children:
                    if d.type == "variable_declarator":
                        nm = d.child_by_field_name("name")
                        init = d.child_by_field_name("value") is not None
                        fields.append(FieldDecl(_text(nm), _add_dims(tref, d.child_by_field_name("dimensions")),
                                                static, fann, final, init))
                        if init:
                            has_init = True
                if has_init:
                    inits.append(_init_decl(m, static, lines))
            elif t == "static_initializer" or t == "block":
                inits.append(_init_decl(m, t == "static_initializer", lines))
            elif t == "enum_constant":
                nm = m.child_by_field_name("name")
                consts.append(_text(nm))
                fields.append(FieldDecl(_text(nm), ("=" + key, (), 0), True, (), True, True))
                # enum constants are created in the enum's static initialization
                inits.append(_init_decl(m, True, lines))
    for cname, ctype in components:
        fields.append(FieldDecl(cname, ctype, False, (), True, False))
    if kind in ("interface", "enum", "record", "annotation"):
        static = True
    elif not anonymous and "static" in mods:
        static = True
    elif outer is None and not local:
        static = True
    else:
        static = False
    sl, el = node.start_point[0] + 1, node.end_point[0] + 1
    return TypeDecl(key, name, kind, outer, local, anonymous, static,
                    "abstract" in mods or is_itf, superclass, interfaces, type_params,
                    tuple(fields), tuple(methods), tuple(inits), tuple(consts), components,
                    node.start_byte, node.end_byte, sl, el,
                    None if anonymous else _comment_above(node, src), "private" in mods,
                    () if anonymous else _annotations(node), "final" in mods)


def _init_decl(node, static: bool, lines: _Lines) -> InitDecl:
    sl, el = node.start_point[0] + 1, node.end_point[0] + 1
    return InitDecl(static, node.start_byte, node.end_byte, sl, el, lines.loc(sl, el))


def _method(m, t, lines, src, components) -> MethodDecl:
    mods = _modifiers(m)
    if t == "compact_constructor_declaration":
        params, varargs = tuple(components), False
    else:
        params, varargs = _params(m)
    ctor = t in ("constructor_declaration", "compact_constructor_declaration")
    name = "<init>" if ctor else _text(m.child_by_field_name("name"))
    returns = None if ctor else _add_dims(type_ref(m.child_by_field_name("type")),
                                          m.child_by_field_name("dimensions"))
    body = m.child_by_field_name("body")
    explicit, this_call = False, False
    if ctor and body is not None:
        for c in body.named_children:
            if c.type in _COMMENTS:
                continue
            if c.type == "explicit_constructor_invocation":
                explicit = True
                k = c.child_by_field_name("constructor")
                this_call = k is not None and k.type == "this"
            break
    static = "static" in mods
    abstract = body is None and not ctor
    sl, el = m.start_point[0] + 1, m.end_point[0] + 1
    return MethodDecl(name, params, varargs, returns, _type_params(m), static, abstract,
                      "private" in mods, sl, el, lines.loc(sl, el), _comment_above(m, src),
                      m.start_byte, m.end_byte, explicit, this_call, _annotations(m))
