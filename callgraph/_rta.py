"""Rapid Type Analysis (Bacon & Sweeney, OOPSLA 1996): which types the program
instantiates, and which class-hierarchy dispatch (``cha``) edges they witness.

RTA refines CHA: a virtual call on a supertype can only run the override of a
type the program creates. Here the instantiated set is computed over the whole
program (every file of a source set), *not* refined by reachability from the
query method — the simpler, documented reading (docs/callgraph.md
"Dispatch"). A type counts as instantiated when

- ``new T(...)`` or a constructor reference ``T::new`` occurs anywhere (field
  initializers included);
- it is an anonymous class (``new I() {...}``) or an enum constant's body;
- it is an enum with constants;
- the Spring container creates it: a class carrying a stereotype
  (``_STEREOTYPES``, or a project annotation that carries one, transitively),
  the declared return type of a ``@Bean`` method, or a Spring Data repository
  interface (one extending ``org.springframework.data…*Repository``): the
  container's proxy implements it, so only its default methods are project code;
- it is handed to the container as a class literal: ``registerBean(X.class)``,
  ``register(X.class)``, ``genericBeanDefinition(X.class)``,
  ``new RootBeanDefinition(X.class)``, ``@Import(X.class)``;
- Lombok's generated code creates it: ``@Builder``/``@SuperBuilder`` (the
  builder's ``build()``), a constructor annotation with ``staticName``;
- it is a project functional interface that a lambda or method reference
  targets, where the target type can be read from the source: a cast, a
  declared variable or field type, a ``return`` in a method, or an argument
  of a call whose same-named project methods (by arity) take that interface.

An edge to method ``m`` is witnessed when some instantiated type ``C`` would
run ``m`` for ``m``'s name and parameters (``m`` is ``C``'s own or inherited
implementation, or a default method it inherits). That is a per-method test:
it does not re-check that ``C`` is a subtype of the call's static type (the
``cha`` edge already did for the subtype it came from).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import tree_sitter

from ._facts import _F_NAME, _F_TYPE, JAVA, NODE_TYPE, type_ref
from ._facts import _text as _t


class Instantiation(str, Enum):
    """Why a type counts as instantiated."""

    NEW = "new"
    ANONYMOUS = "anonymous"
    ENUM_CONSTANT = "enum_constant"
    STEREOTYPE = "stereotype"
    BEAN_METHOD = "bean_method"
    REPOSITORY = "repository"
    LAMBDA = "lambda"
    REGISTERED = "registered"
    BUILDER = "builder"


@dataclass(frozen=True, slots=True)
class InstantiatedType:
    """A type the program instantiates: its key, why, and in which source sets."""

    type: str
    how: frozenset  # of Instantiation
    source_sets: frozenset  # of "main" / "test"


_STEREOTYPES = frozenset({
    "org.springframework.stereotype.Component",
    "org.springframework.stereotype.Service",
    "org.springframework.stereotype.Repository",
    "org.springframework.stereotype.Controller",
    "org.springframework.web.bind.annotation.RestController",
    "org.springframework.web.bind.annotation.ControllerAdvice",
    "org.springframework.web.bind.annotation.RestControllerAdvice",
    "org.springframework.context.annotation.Configuration",
    "org.springframework.boot.SpringBootConfiguration",
    "org.springframework.boot.autoconfigure.SpringBootApplication",
    "org.springframework.boot.autoconfigure.AutoConfiguration",
    "org.springframework.boot.test.context.TestConfiguration",
})
_STEREOTYPE_NAMES = frozenset(s.rpartition(".")[2] for s in _STEREOTYPES)
_BEAN = "org.springframework.context.annotation.Bean"
# calls that hand a class literal to the Spring container to instantiate
_REGISTER_CALLS = frozenset({"registerBean", "register", "genericBeanDefinition", "rootBeanDefinition",
                             "registerSingleton", "registerPrototype"})
_REGISTER_NEW = frozenset({"RootBeanDefinition", "GenericBeanDefinition", "AnnotatedGenericBeanDefinition"})
_IMPORT = "org.springframework.context.annotation.Import"
# Lombok annotations whose generated code calls the constructor (a builder's build(), a static factory)
_LOMBOK_FACTORIES = frozenset({"lombok.Builder", "lombok.experimental.SuperBuilder"})
_LOMBOK_CTORS = frozenset({"lombok.AllArgsConstructor", "lombok.RequiredArgsConstructor", "lombok.NoArgsConstructor"})
# Spring Data's repository base interfaces, for when they are not on the classpath
_REPO_NAMES = frozenset({
    "Repository", "CrudRepository", "ListCrudRepository", "PagingAndSortingRepository",
    "ListPagingAndSortingRepository", "JpaRepository", "MongoRepository", "ReactiveCrudRepository",
    "ReactiveSortingRepository", "R2dbcRepository", "ElasticsearchRepository", "CassandraRepository",
    "Neo4jRepository", "CoroutineCrudRepository", "KeyValueRepository", "RevisionRepository",
})
# the last names of the annotations that matter on a constructor / a method
_CTOR_LAST = frozenset({"Builder", "SuperBuilder"})
_METHOD_LAST = frozenset({"Bean"})

# What RTA looks at in a file. Pass 2 runs these patterns in one query with
# the resolver's (``_resolve._PASS2_QUERY``, capture names prefixed ``rta_``):
# each query is one walk of the whole tree, which costs about the same
# whatever it captures (java.base: ~1.8 CPU-s a query)
# Annotations count only on a type, constructor or method declaration: the
# query finds just those (not the @Nullable of every parameter), each kind
# under its own name, so no parent is asked (``Node.parent`` walks down from
# the root, microseconds in a large file)
_ANNOTATED = "[(marker_annotation name: (_) @{0}) (annotation name: (_) @{0})]"
QUERY_PATTERNS = """
(object_creation_expression type: (_) @new)
""" + "".join(f"({d} (modifiers {_ANNOTATED.format('ann_type')}))\n" for d in (
    "class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
    "annotation_type_declaration")) + f"""
(constructor_declaration (modifiers {_ANNOTATED.format('ann_ctor')}))
(method_declaration (modifiers {_ANNOTATED.format('ann_method')}))
(lambda_expression) @fn
(method_reference) @fn
(class_literal) @lit
"""
CAPTURE_NAMES = ("new", "ann_type", "ann_ctor", "ann_method", "fn", "lit")
_QUERY = tree_sitter.Query(JAVA, QUERY_PATTERNS)


class _Spans:
    """The innermost type declaration of one file at a byte offset."""

    def __init__(self, ff, idx):
        self.spans = sorted((td.start_byte, -td.end_byte, td.key) for td in ff.types
                            if idx.types.get(td.key) is td)

    def key_at(self, pos: int):
        best = None
        for s, ne, k in self.spans:
            if s > pos:
                break
            if pos < -ne:
                best = k
        return best


def collect(idx, fi: int, tree, captures: dict | None = None) -> tuple:
    """Instantiation facts of one file: ``((type key, Instantiation), ...)`` and
    ``(annotated type key, annotation FQN or "?Simple")`` pairs, as a 2-tuple.

    Types are project keys or library FQNs as ``ProjectIndex.resolve_ref`` gives them.
    ``captures``: ``{capture name: [node, ...]}`` of ``QUERY_PATTERNS`` over the
    tree, when a combined query already found them (pass 2); else the query runs here.
    """
    ff = idx.files[fi]
    spans = _Spans(ff, idx)
    made: list = []
    annotated: list = []
    for td in ff.types:
        if idx.types.get(td.key) is not td:
            continue
        if td.anonymous:
            made.append((td.key, Instantiation.ANONYMOUS))
        elif td.kind == "enum" and td.enum_constants:
            made.append((td.key, Instantiation.ENUM_CONSTANT))
    if captures is None:
        captures = tree_sitter.QueryCursor(_QUERY).captures(tree.root_node)
    # per-file memos of the index's answers a file asks again and again (the
    # same created types, the same called names): the first ask goes to the
    # index, so the warm cache's recorder sees each distinct look-up
    refs: dict = {}  # (TypeRef, type key) -> resolve_ref
    params: dict = {}  # (called name, arguments, position) -> parameter types (_functional)
    for cap, nodes in captures.items():
        for n in nodes:
            try:
                if cap == "new":
                    if any(NODE_TYPE[c.kind_id] == "class_body" for c in n.parent.children):
                        continue  # anonymous: its own TypeDecl, counted above
                    k = (type_ref(n), spans.key_at(n.start_byte))
                    r = refs.get(k, _UNASKED)
                    if r is _UNASKED:
                        r = refs[k] = idx.resolve_ref(k[0], fi, k[1])
                    if r is not None:
                        made.append((r[0], Instantiation.NEW))
                elif cap in _ANN_CAPS:
                    _annotation(idx, fi, spans, n, made, annotated, cap)
                elif cap == "lit":
                    _registered(idx, fi, spans, n, made)
                else:
                    if NODE_TYPE[n.kind_id] == "method_reference" and n.children \
                            and NODE_TYPE[n.children[-1].kind_id] == "new":
                        _constructor_ref(idx, fi, spans, n, made)
                    _functional(idx, fi, spans, n, made, params)
            except Exception:  # a malformed (recovered) node: no fact, never the file's call graph
                continue
    return tuple(made), tuple(annotated)


_UNASKED = object()


def _constructor_ref(idx, fi, spans, n, made) -> None:
    """``T::new`` creates a ``T`` (an array constructor ``T[]::new`` creates none)."""
    recv = n.named_children[0] if n.named_children else None
    if recv is None or NODE_TYPE[recv.kind_id] == "array_type":
        return
    r = idx.resolve_ref(type_ref(recv), fi, spans.key_at(n.start_byte))
    if r is not None:
        made.append((r[0], Instantiation.NEW))


def _registered(idx, fi, spans, n, made) -> None:
    """``X.class`` handed to the container: an argument of ``registerBean``/``register``/
    ``genericBeanDefinition``/… or of ``new RootBeanDefinition(...)``, or in ``@Import``."""
    p = n.parent
    while p is not None and NODE_TYPE[p.kind_id] in ("element_value_array_initializer", "element_value_pair",
                                       "annotation_argument_list", "array_initializer",
                                       "array_creation_expression"):
        p = p.parent
    if p is None:
        return
    key = spans.key_at(n.start_byte)
    ok = False
    if NODE_TYPE[p.kind_id] == "annotation":
        nm = p.child_by_field_id(_F_NAME)
        ok = nm is not None and _annotation_name(idx, fi, key, nm) in (_IMPORT, "?Import")
    elif NODE_TYPE[p.kind_id] == "argument_list" and p.parent is not None:
        call = p.parent
        if NODE_TYPE[call.kind_id] == "method_invocation":
            nm = call.child_by_field_id(_F_NAME)
            ok = nm is not None and _t(nm) in _REGISTER_CALLS
        elif NODE_TYPE[call.kind_id] == "object_creation_expression":
            ty = call.child_by_field_id(_F_TYPE)
            ok = ty is not None and _t(ty).rpartition(".")[2] in _REGISTER_NEW
    if not ok:
        return
    ty = next((c for c in n.named_children if NODE_TYPE[c.kind_id] != "line_comment"), None)
    r = idx.resolve_ref(type_ref(ty), fi, key) if ty is not None else None
    if r is not None:
        made.append((r[0], Instantiation.REGISTERED))


def _annotation_name(idx, fi, key, node) -> str:
    name = _t(node).replace(" ", "")
    r = idx.resolve_name(name, fi, key)
    return r if r is not None else "?" + name.rpartition(".")[2]


_ANN_CAPS = frozenset({"ann_type", "ann_ctor", "ann_method"})


def _annotation(idx, fi, spans, n, made, annotated, cap: str) -> None:
    """Annotation name ``n`` on the modifiers of a type (``cap`` "ann_type"),
    constructor ("ann_ctor") or method ("ann_method") declaration."""
    if cap != "ann_type":
        # only @Builder/@SuperBuilder and @Bean matter on these; a name resolves to
        # a type of its own last name (or stays "?" + it), so others need no
        # resolution (the @Override of nearly every method)
        last = _t(n).rpartition(".")[2].strip()
        if last not in (_CTOR_LAST if cap == "ann_ctor" else _METHOD_LAST):
            return
    decl = n.parent.parent.parent if cap != "ann_type" else None  # name → annotation → modifiers → declaration
    if cap == "ann_type":
        # the type whose modifiers hold the annotation: no other type starts before its name
        key = spans.key_at(n.start_byte)
        if key is None:
            return
        td = idx.types.get(key)
        ctx = td.outer if td is not None else None
        ann = _annotation_name(idx, fi, ctx, n)
        annotated.append((key, ann))
        simple = ann.lstrip("?").rpartition(".")[2]
        if td is not None and not td.abstract and (
                ann in _LOMBOK_FACTORIES or ann in ("?Builder", "?SuperBuilder") or (
                    (ann in _LOMBOK_CTORS or "?" + simple == ann and "lombok." + simple in _LOMBOK_CTORS)
                    and "staticName" in _t(n.parent))):
            made.append((key, Instantiation.BUILDER))
    elif cap == "ann_ctor":
        key = spans.key_at(decl.start_byte)
        if key is not None and _annotation_name(idx, fi, key, n) in _LOMBOK_FACTORIES | {"?Builder"}:
            made.append((key, Instantiation.BUILDER))
    else:
        key = spans.key_at(decl.start_byte)
        ann = _annotation_name(idx, fi, key, n)
        if ann == _BEAN or ann == "?Bean":
            rt = decl.child_by_field_id(_F_TYPE)
            r = idx.resolve_ref(type_ref(rt), fi, key) if rt is not None else None
            if r is not None:
                made.append((r[0], Instantiation.BEAN_METHOD))


def _functional(idx, fi, spans, n, made, params: dict | None = None) -> None:
    """The target type of a lambda / method reference, where the source states it.
    ``params``: the file's memo of the parameter types an argument position of
    a called name takes."""
    arg, p = n, n.parent
    while p is not None and NODE_TYPE[p.kind_id] == "parenthesized_expression":
        arg, p = p, p.parent
    if p is None:
        return
    key = spans.key_at(n.start_byte)
    refs: list = []
    if NODE_TYPE[p.kind_id] == "cast_expression":
        refs.append(p.child_by_field_id(_F_TYPE))
    elif NODE_TYPE[p.kind_id] == "variable_declarator":
        decl = p.parent
        if decl is not None and NODE_TYPE[decl.kind_id] in ("local_variable_declaration", "field_declaration",
                                              "constant_declaration"):
            refs.append(decl.child_by_field_id(_F_TYPE))
    elif NODE_TYPE[p.kind_id] == "return_statement":
        m = p.parent
        while m is not None and NODE_TYPE[m.kind_id] not in ("method_declaration", "lambda_expression",
                                               "class_body", "constructor_declaration"):
            m = m.parent
        if m is not None and NODE_TYPE[m.kind_id] == "method_declaration":
            refs.append(m.child_by_field_id(_F_TYPE))
    elif NODE_TYPE[p.kind_id] == "argument_list" and p.parent is not None:
        args = [c for c in p.named_children if NODE_TYPE[c.kind_id] not in ("line_comment", "block_comment")]
        pos = next((i for i, c in enumerate(args) if c.start_byte == arg.start_byte), None)
        if pos is None:
            return
        call = p.parent
        if NODE_TYPE[call.kind_id] == "method_invocation":
            # the same names are called at many sites of a file (and take a
            # lambda at the same place): their parameter types once per file
            nm = call.child_by_field_id(_F_NAME)
            mk = (_t(nm), len(args), pos) if nm is not None and params is not None else None
            pts = params.get(mk) if mk is not None else None
            if pts is None:
                names = idx.by_name.get(_t(nm), ()) if nm is not None else ()
                pts = _param_types(idx, names, len(args), pos)
                if mk is not None:
                    params[mk] = pts
        elif NODE_TYPE[call.kind_id] == "object_creation_expression":
            r = idx.resolve_ref(type_ref(call.child_by_field_id(_F_TYPE)), fi, key)
            names = [pm.info.id for pm in idx.methods.get(r[0], ()) if pm.info.name == "<init>"] \
                if r is not None else []
            pts = _param_types(idx, names, len(args), pos)
        else:
            pts = ()
        for pt in pts:
            _add_functional(idx, pt, made)
        return
    for ref in refs:
        if ref is None or NODE_TYPE[ref.kind_id] == "type_identifier" and _t(ref) == "var":
            continue
        r = idx.resolve_ref(type_ref(ref), fi, key)
        if r is not None:
            _add_functional(idx, r[0], made)


def _param_types(idx, names, n: int, pos: int) -> tuple:
    """The parameter type at argument ``pos`` of each project method ``names``
    (ids) that ``n`` arguments fit (varargs: the element type)."""
    out = []
    for mid in names:
        info = idx.by_id[mid].info
        ps = info.params
        if len(ps) == n or (info.varargs and n >= len(ps) - 1):
            pt = ps[min(pos, len(ps) - 1)] if ps else None
            if pt is not None:
                out.append(pt.removesuffix("..."))
    return tuple(out)


def _add_functional(idx, t: str, made) -> None:
    td = idx.types.get(t)
    if td is not None and td.kind == "interface":
        made.append((t, Instantiation.LAMBDA))


class InstantiatedSet:
    """The program's instantiated types (whole program, per source set) and
    the dispatch targets they witness.

    Parameters
    ----------
    idx : ProjectIndex
    per_file : dict[int, tuple]
        ``collect`` result per file index.
    """

    def __init__(self, idx, per_file: dict):
        self.idx = idx
        how: dict = {}
        sets: dict = {}

        def add(t, why, ss):
            how.setdefault(t, set()).add(why)
            sets.setdefault(t, set()).add(ss)

        annotated: dict = {}
        for fi, (made, anns) in per_file.items():
            ss = idx.files[fi].source_set
            for t, why in made:
                add(t, why, ss)
            for t, a in anns:
                annotated.setdefault(t, set()).add(a)
        stereo = self._stereotypes(annotated)
        for t, anns in annotated.items():
            td = idx.types.get(t)
            if td is not None and td.kind in ("class", "record") and not td.abstract and anns & stereo:
                add(t, Instantiation.STEREOTYPE, idx.files[idx.type_file[t]].source_set)
        for t, td in idx.types.items():
            if td.kind == "interface" and not td.local and self._is_repository(t):
                add(t, Instantiation.REPOSITORY, idx.files[idx.type_file[t]].source_set)
        self.types = {t: InstantiatedType(t, frozenset(how[t]), frozenset(sets[t])) for t in how}
        self._memo: dict = {}

    def _stereotypes(self, annotated: dict) -> frozenset:
        """Stereotype annotations: Spring's, plus project annotation types carrying one (fixpoint)."""
        known = set(_STEREOTYPES) | {"?" + n for n in _STEREOTYPE_NAMES}
        changed = True
        while changed:
            changed = False
            for t, anns in annotated.items():
                td = self.idx.types.get(t)
                if td is not None and td.kind == "annotation" and t not in known and anns & known:
                    known.add(t)
                    changed = True
        return frozenset(known)

    def _is_repository(self, t: str) -> bool:
        idx = self.idx
        seen, stack = {t}, [t]
        while stack:
            x = stack.pop()
            for s in idx.supers(x):
                simple = s.lstrip("?").rpartition(".")[2]
                if s.startswith("?") and simple in _REPO_NAMES:
                    return True
                if s.startswith("org.springframework.data.") and simple.endswith("Repository"):
                    return True
                if s in idx.types and s not in seen:
                    seen.add(s)
                    stack.append(s)
        return False

    # ------------------------------------------------------------ dispatch
    def _decls(self, x: str, name: str):
        """``[(ptypes, abstract, id or None)]`` of methods ``name`` declared in project type ``x``
        (local and anonymous types too, whose methods are no graph nodes: id None)."""
        idx = self.idx
        td = idx.types.get(x)
        if td is None:
            return []
        if not td.local:
            return [(p.ptypes, p.info.abstract or p.info.static, p.info.id)
                    for p in idx.methods.get(x, ()) if p.info.name == name]
        fi = idx.type_file[x]
        out = []
        for md in td.methods:
            if md.name == name:
                mt = {n: b for n, b in md.type_params} if md.type_params else None
                ps = tuple(idx.erase_ref(p[1], fi, x, mt) for p in md.params)
                out.append((ps, md.abstract or md.static, None))
        return out

    def runs(self, c: str, name: str, ptypes: tuple):
        """The method id an instance of ``c`` runs for ``name(ptypes)``: the first
        class up ``c``'s superclass chain declaring it, else a default method of
        its interfaces (breadth first); None when that is not a project method
        (library code, an anonymous class's own method, abstract)."""
        idx = self.idx
        x, hops = c, 0
        while x is not None and x in idx.types and hops < 50:
            hops += 1
            td = idx.types[x]
            if td.kind == "interface":
                break
            for ps, abstract, mid in self._decls(x, name):
                if ps == ptypes:
                    return None if abstract else mid
            sups = idx.supers(x)
            x = sups[0] if sups else None
        seen, queue = {c}, [c]
        i = 0
        while i < len(queue):
            y = queue[i]
            i += 1
            td = idx.types.get(y)
            if td is None:
                continue
            if td.kind == "interface":
                for ps, abstract, mid in self._decls(y, name):
                    if ps == ptypes and not abstract:
                        return mid
            for s in idx.supers(y):
                if s not in seen and s in idx.types:
                    seen.add(s)
                    queue.append(s)
        return None

    def witness(self, mid: str) -> frozenset:
        """Source sets whose instantiated types run project method ``mid`` (empty: none)."""
        r = self._memo.get(mid)
        if r is not None:
            return r
        idx = self.idx
        pm = idx.by_id.get(mid)
        out: set = set()
        if pm is not None and not pm.info.static:
            d = pm.type_key
            seen, stack = {d}, [d]
            while stack:
                c = stack.pop()
                inst = self.types.get(c)
                if inst is not None and not inst.source_sets <= out:
                    if self.runs(c, pm.info.name, pm.ptypes) == mid:
                        out |= inst.source_sets
                for s in idx.subtypes.get(c, ()):
                    if s not in seen:
                        seen.add(s)
                        stack.append(s)
        r = frozenset(out)
        self._memo[mid] = r
        return r
