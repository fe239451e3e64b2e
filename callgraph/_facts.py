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

from ._fastinit import fast_init

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


@fast_init
@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Import:
    """One import declaration: ``name`` dotted, ``static``, ``on_demand`` (``.*``)."""

    name: str
    static: bool
    on_demand: bool


@fast_init
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


@fast_init
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


@fast_init
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


@fast_init
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


@fast_init
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


@fast_init
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


# A node's type name by its ``kind_id``: ``NODE_TYPE[n.kind_id] == n.type``
# for every node (ERROR is 65535), at a fifth of the cost — ``Node.type``
# makes a new str from the grammar's name each time it is read, and pass 1
# reads the type of every declaration, member, modifier and type node
NODE_TYPE = {i: JAVA.node_kind_for_id(i) for i in range(JAVA.node_kind_count)}
NODE_TYPE[65535] = "ERROR"
# field ids: ``child_by_field_id`` skips ``child_by_field_name``'s look-up of the name
_F_NAME = JAVA.field_id_for_name("name")
_F_TYPE = JAVA.field_id_for_name("type")
_F_BODY = JAVA.field_id_for_name("body")
_F_PARAMETERS = JAVA.field_id_for_name("parameters")
_F_TYPE_PARAMETERS = JAVA.field_id_for_name("type_parameters")
_F_DIMENSIONS = JAVA.field_id_for_name("dimensions")
_F_VALUE = JAVA.field_id_for_name("value")
_F_ELEMENT = JAVA.field_id_for_name("element")
_F_KEY = JAVA.field_id_for_name("key")
_F_ARGUMENTS = JAVA.field_id_for_name("arguments")
_F_SUPERCLASS = JAVA.field_id_for_name("superclass")
_F_INTERFACES = JAVA.field_id_for_name("interfaces")
_F_CONSTRUCTOR = JAVA.field_id_for_name("constructor")
_F_OBJECT = JAVA.field_id_for_name("object")
_F_FIELD = JAVA.field_id_for_name("field")
_F_ALTERNATIVE = JAVA.field_id_for_name("alternative")
_F_ARRAY = JAVA.field_id_for_name("array")
_F_CONSEQUENCE = JAVA.field_id_for_name("consequence")
_F_LEFT = JAVA.field_id_for_name("left")
_F_OPERAND = JAVA.field_id_for_name("operand")
_F_OPERATOR = JAVA.field_id_for_name("operator")
_F_RIGHT = JAVA.field_id_for_name("right")


def _text(node, src: bytes | None = None) -> str:
    """The source text of ``node``; ``src``: the bytes its tree was parsed
    from (a slice of them costs less than ``node.text``)."""
    if src is None:
        return node.text.decode("utf-8", "replace")
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


_PLAIN_TYPES = frozenset({"type_identifier", "integral_type", "floating_point_type", "boolean_type", "void_type"})


def type_ref(node, src: bytes | None = None) -> TypeRef:
    """The TypeRef of a tree-sitter type node (annotations dropped); ``src``:
    the bytes the tree was parsed from, when the caller has them (faster)."""
    t = NODE_TYPE[node.kind_id]
    if t in _PLAIN_TYPES:
        return (_text(node, src), (), 0)
    if t == "generic_type":
        name, args = "", ()
        for c in node.named_children:
            ct = NODE_TYPE[c.kind_id]
            if ct == "type_arguments":
                args = tuple([type_ref(a, src) for a in c.named_children if NODE_TYPE[a.kind_id] not in _ANNOT])
            elif ct not in _ANNOT:
                name = type_ref(c, src)[0]
        return (name, args, 0)
    if t == "scoped_type_identifier":
        parts, args = [], ()
        for c in node.named_children:
            if NODE_TYPE[c.kind_id] in _ANNOT:
                continue
            r = type_ref(c, src)
            parts.append(r[0])
            args = r[1]
        return (".".join(parts), args, 0)
    if t == "array_type":
        el = type_ref(node.child_by_field_id(_F_ELEMENT), src)
        dims = node.child_by_field_id(_F_DIMENSIONS)
        return (el[0], el[1], el[2] + (_text(dims, src).count("[") if dims else 1))
    if t == "wildcard":
        kids = [c for c in node.named_children if NODE_TYPE[c.kind_id] not in _ANNOT]
        sup = any(NODE_TYPE[c.kind_id] == "super" for c in node.children)
        return ("?super" if sup else "?", tuple([type_ref(k, src) for k in kids if NODE_TYPE[k.kind_id] != "super"]), 0)
    if t == "annotated_type":
        for c in node.named_children:
            if NODE_TYPE[c.kind_id] not in _ANNOT:
                return type_ref(c, src)
    if t == "identifier":  # scoped names in some positions
        return (_text(node, src), (), 0)
    if t == "scoped_identifier":
        return (_text(node, src).replace(" ", ""), (), 0)
    return (_text(node, src), (), 0)


_ANNOT = frozenset({"marker_annotation", "annotation", "line_comment", "block_comment"})
_ANNOTATION = frozenset({"marker_annotation", "annotation"})
_COMMENT_SET = frozenset(_COMMENTS)
_NO_MODIFIERS = (frozenset(), ())


def _modifiers(node, src: bytes | None = None) -> set[str]:
    """The modifier keywords of a declaration node (``{"public", "static"}``)."""
    return _mods(node, src)[0]


def _annotations(node, src: bytes | None = None) -> tuple:
    """The ``Annotation``s among the modifiers of a declaration node."""
    return _mods(node, src)[1]


def _mods(node, src: bytes | None = None):
    """``(modifier keywords, Annotations)`` of a declaration node, from one
    pass over its children: the keywords of its first ``modifiers`` child, the
    annotations of all of them (as ``_modifiers`` and ``_annotations`` had it)."""
    kws = None
    out = []
    for c in node.children:
        if NODE_TYPE[c.kind_id] != "modifiers":
            continue
        first = kws is None
        if first:
            kws = set()
        for a in c.children:
            at = NODE_TYPE[a.kind_id]
            if at in _ANNOTATION:
                nm = a.child_by_field_id(_F_NAME)
                if nm is None:
                    continue
                args = []
                al = a.child_by_field_id(_F_ARGUMENTS)
                if al is not None:
                    for x in al.named_children:
                        xt = NODE_TYPE[x.kind_id]
                        if xt in _COMMENT_SET:
                            continue
                        if xt == "element_value_pair":
                            k, v = x.child_by_field_id(_F_KEY), x.child_by_field_id(_F_VALUE)
                            if k is not None and v is not None:
                                args.append((_text(k, src), " ".join(_text(v, src).split())))
                        else:
                            args.append(("value", " ".join(_text(x, src).split())))
                out.append(Annotation(_text(nm, src).replace(" ", ""), tuple(args)))
            elif first and at not in _COMMENT_SET:
                kws.add(_text(a, src))
    if kws is None and not out:
        return _NO_MODIFIERS
    return (kws if kws is not None else frozenset()), tuple(out)


def _type_params(node, src: bytes | None = None) -> tuple:
    tp = node.child_by_field_id(_F_TYPE_PARAMETERS)
    if tp is None:
        return ()
    out = []
    for p in tp.named_children:
        if NODE_TYPE[p.kind_id] != "type_parameter":
            continue
        name, bound = None, None
        for c in p.named_children:
            ct = NODE_TYPE[c.kind_id]
            if ct in ("type_identifier", "identifier") and name is None:
                name = _text(c, src)
            elif ct == "type_bound" and c.named_children:
                b = [x for x in c.named_children if NODE_TYPE[x.kind_id] not in _ANNOT]
                bound = type_ref(b[0], src) if b else None
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
    if s is None or NODE_TYPE[s.kind_id] not in _COMMENT_SET:
        return None
    row = node.start_point[0]
    parts = []
    while s is not None and NODE_TYPE[s.kind_id] in _COMMENT_SET and s.end_point[0] >= row - 1:
        before = s.prev_sibling
        if before is not None and before.end_point[0] == s.start_point[0] \
                and NODE_TYPE[before.kind_id] not in _COMMENT_SET:
            break
        text = _text(s, src)
        if text.startswith("/**") and len(text) > 4:
            return text
        parts.append(text.rstrip("\n"))
        row = s.start_point[0]
        s = s.prev_named_sibling
    if not parts:
        return None
    return "\n".join(reversed(parts))


def _add_dims(tref: TypeRef, dims, src: bytes | None = None) -> TypeRef:
    """``tref`` with the array dimensions of a ``dimensions`` node written after a name (``int a[]``)."""
    if dims is None:
        return tref
    return (tref[0], tref[1], tref[2] + _text(dims, src).count("["))


def _params(node, src: bytes | None = None) -> tuple[tuple, bool]:
    ps = node.child_by_field_id(_F_PARAMETERS)
    if ps is None:
        return (), False
    out, varargs = [], False
    for p in ps.named_children:
        pt = NODE_TYPE[p.kind_id]
        if pt == "formal_parameter":
            tref = _add_dims(type_ref(p.child_by_field_id(_F_TYPE), src), p.child_by_field_id(_F_DIMENSIONS), src)
            nm = p.child_by_field_id(_F_NAME)
            out.append((_text(nm, src) if nm else "", tref))
        elif pt == "spread_parameter":
            ty = p.child_by_field_id(_F_TYPE)
            if ty is None:
                ty = next(c for c in p.named_children if NODE_TYPE[c.kind_id] not in _ANNOT
                          and NODE_TYPE[c.kind_id] != "modifiers")
            tref = type_ref(ty, src)
            name = ""
            for c in p.named_children:
                if NODE_TYPE[c.kind_id] == "variable_declarator":
                    nm = c.child_by_field_id(_F_NAME)
                    name = _text(nm, src) if nm else ""
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
        ct = NODE_TYPE[c.kind_id]
        if ct == "package_declaration":
            for x in c.named_children:
                if NODE_TYPE[x.kind_id] in ("scoped_identifier", "identifier"):
                    package = _text(x, src).replace(" ", "")
        elif ct == "import_declaration":
            static = on_demand = False
            name = ""
            for x in c.children:
                xt = NODE_TYPE[x.kind_id]
                if xt == "static":
                    static = True
                elif xt == "asterisk":
                    on_demand = True
                elif xt in ("scoped_identifier", "identifier") and x.is_named:
                    name = _text(x, src).replace(" ", "")
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
            if NODE_TYPE[parent.kind_id] == "object_creation_expression":
                ty = parent.child_by_field_id(_F_TYPE)
                sup = type_ref(ty, src) if ty is not None else None
                kind_hint = "anon"
            else:  # enum constant body: its superclass is the enum
                sup = ("=" + outer, (), 0) if outer else None  # "=": already a key
                kind_hint = "enumconst"
            key = f"{outer or package}${counter}"
            td = _type_decl(node, key, "", "class", outer, True, True, lines, src,
                            superclass=sup, anon_kind=kind_hint)
        else:
            name_node = node.child_by_field_id(_F_NAME)
            name = _text(name_node, src) if name_node else "?"
            parent = node.parent
            local = outer_local or parent is None or NODE_TYPE[parent.kind_id] not in _MEMBER_PARENTS
            if local:
                counter += 1
                key = f"{outer or package}${counter}{name}"
            elif outer:
                key = f"{outer}.{name}"
            else:
                key = f"{package}.{name}" if package else name
            td = _type_decl(node, key, name, _KIND[NODE_TYPE[node.kind_id]], outer, local, False, lines, src)
        types.append(td)
        stack.append((td.end_byte, td.key, td.local))
    return FileFacts(rel, source_set, package, tuple(imports), tuple(types),
                     parse_errors(tree), encoding, physical_lines(src))


_METHOD_DECLS = frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration",
                           "annotation_type_element_declaration"})
_CTOR_DECLS = frozenset({"constructor_declaration", "compact_constructor_declaration"})
_FIELD_DECLS = frozenset({"field_declaration", "constant_declaration"})


def physical_lines(src: bytes) -> int:
    """Lines of a file as ``wc -l`` counts them, plus a last line without a
    newline: ``b"a\nb\n"`` and ``b"a\nb"`` have 2, ``b""`` 0 (before
    session 10 every file had one more: the empty string after its last
    newline was counted, as tree-sitter's row of the end point does)."""
    n = src.count(b"\n")
    return n + 1 if src and not src.endswith(b"\n") else n


def _type_decl(node, key, name, kind, outer, local, anonymous, lines, src,
               superclass=None, anon_kind=None) -> TypeDecl:
    mods, annotations = _mods(node, src) if not anonymous else _NO_MODIFIERS
    interfaces: tuple = ()
    type_params: tuple = ()
    components: tuple = ()
    if not anonymous:
        sc = node.child_by_field_id(_F_SUPERCLASS)
        if sc is not None:
            kids = [c for c in sc.named_children if NODE_TYPE[c.kind_id] not in _ANNOT]
            superclass = type_ref(kids[0], src) if kids else None
        itf = node.child_by_field_id(_F_INTERFACES)
        if itf is None:  # interfaces: `extends A, B` is an extends_interfaces child
            for c in node.named_children:
                if NODE_TYPE[c.kind_id] == "extends_interfaces":
                    itf = c
        if itf is not None:
            tl = [c for c in itf.named_children if NODE_TYPE[c.kind_id] == "type_list"]
            items = tl[0].named_children if tl else itf.named_children
            interfaces = tuple([type_ref(c, src) for c in items if NODE_TYPE[c.kind_id] not in _ANNOT])
        type_params = _type_params(node, src)
        if kind == "record":
            components, _ = _params(node, src)
    body = node if anonymous else node.child_by_field_id(_F_BODY)
    fields, methods, inits, consts = [], [], [], []
    is_itf = kind in ("interface", "annotation")
    if body is not None:
        members = body.named_children
        if kind == "enum":
            flat = []
            for m in members:
                if NODE_TYPE[m.kind_id] == "enum_body_declarations":
                    flat.extend(m.named_children)
                else:
                    flat.append(m)
            members = flat
        for m in members:
            t = NODE_TYPE[m.kind_id]
            if t in _METHOD_DECLS:
                methods.append(_method(m, t, lines, src, components))
            elif t in _FIELD_DECLS:
                fmods, fann = _mods(m, src)
                static = "static" in fmods or is_itf
                tref = type_ref(m.child_by_field_id(_F_TYPE), src)
                has_init = False
                final = "final" in fmods or is_itf
                for d in m.named_children:
                    if NODE_TYPE[d.kind_id] == "variable_declarator":
                        nm = d.child_by_field_id(_F_NAME)
                        init = d.child_by_field_id(_F_VALUE) is not None
                        fields.append(FieldDecl(_text(nm, src),
                                                _add_dims(tref, d.child_by_field_id(_F_DIMENSIONS), src),
                                                static, fann, final, init))
                        if init:
                            has_init = True
                if has_init:
                    inits.append(_init_decl(m, static, lines))
            elif t == "static_initializer" or t == "block":
                inits.append(_init_decl(m, t == "static_initializer", lines))
            elif t == "enum_constant":
                nm = m.child_by_field_id(_F_NAME)
                consts.append(_text(nm, src))
                fields.append(FieldDecl(_text(nm, src), ("=" + key, (), 0), True, (), True, True))
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
                    annotations, "final" in mods)


def _init_decl(node, static: bool, lines: _Lines) -> InitDecl:
    sl, el = node.start_point[0] + 1, node.end_point[0] + 1
    return InitDecl(static, node.start_byte, node.end_byte, sl, el, lines.loc(sl, el))


def _method(m, t, lines, src, components) -> MethodDecl:
    mods, annotations = _mods(m, src)
    if t == "compact_constructor_declaration":
        params, varargs = tuple(components), False
    else:
        params, varargs = _params(m, src)
    ctor = t in _CTOR_DECLS
    name = "<init>" if ctor else _text(m.child_by_field_id(_F_NAME), src)
    returns = None if ctor else _add_dims(type_ref(m.child_by_field_id(_F_TYPE), src),
                                          m.child_by_field_id(_F_DIMENSIONS), src)
    body = m.child_by_field_id(_F_BODY)
    explicit, this_call = False, False
    if ctor and body is not None:
        for c in body.named_children:
            ct = NODE_TYPE[c.kind_id]
            if ct in _COMMENT_SET:
                continue
            if ct == "explicit_constructor_invocation":
                explicit = True
                k = c.child_by_field_id(_F_CONSTRUCTOR)
                this_call = k is not None and NODE_TYPE[k.kind_id] == "this"
            break
    static = "static" in mods
    abstract = body is None and not ctor
    sl, el = m.start_point[0] + 1, m.end_point[0] + 1
    return MethodDecl(name, params, varargs, returns, _type_params(m, src), static, abstract,
                      "private" in mods, sl, el, lines.loc(sl, el), _comment_above(m, src),
                      m.start_byte, m.end_byte, explicit, this_call, annotations)
