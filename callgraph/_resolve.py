"""Pass 2: resolve every call site of one file against the project index.

Call sites: method invocations, ``new`` (anonymous classes → the superclass
constructor), ``this(...)``/``super(...)`` (explicit and the implicit
``super()``), method references and enum constants. Each yields edges from the
*owner* — the named method, constructor or initializer that contains the code,
so calls inside lambdas and local/anonymous classes belong to the enclosing
method — or an unresolved reason. Nothing is guessed silently.

:class:`FileResolver` is assembled from one mixin per job, all over the same
per-file state (set up here):

* ``_scopes`` — method contexts, local declarations, simple names;
* ``_texpr`` — the static types of expressions;
* ``_inference`` — generic returns, type-argument inference, lambda targets;
* ``_calls`` — method invocations and overload selection (``_overloads``);
* ``_creations`` — constructors, enum constants, method references.

This module runs them over a file (``run``) and gathers the edges (``emit``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

import tree_sitter

from . import _rta
from ._facts import _F_NAME, JAVA
from ._callsite import STRENGTH as _RANK, CallEdge, CallResolution, FileResult
from ._callsite import Resolution as R
from ._index import ProjectIndex
from ._scopes import _NO_CONTEXT, _UNASKED, MethodContext, Scopes
from ._texpr import ExpressionTyping
from ._inference import GenericInference
from ._calls import CallSites
from ._creations import Creations

# the members as module globals: a class attribute look-up on an Enum costs
# more than a global one, on the path of every call site
_CHA = R.CHA
_GUESSED_BY_NAME = R.GUESSED_BY_NAME
_LOCAL_CLASS = R.LOCAL_CLASS
_NOT_A_CALL = R.NOT_A_CALL
_UNRESOLVED = R.UNRESOLVED
_new = tuple.__new__

_SITE_QUERY_PATTERNS = """
(local_variable_declaration) @local
(formal_parameter) @param
(spread_parameter) @param
(catch_formal_parameter) @catch
(enhanced_for_statement) @foreach
(resource) @res
(instanceof_expression) @inst
(type_pattern) @tpat
(record_pattern_component) @rpat
(lambda_expression) @lambda
(method_invocation) @call
(object_creation_expression) @new
(explicit_constructor_invocation) @ctor
(method_reference) @ref
(enum_constant) @enumc
"""
_DECL_CAPS = frozenset({"local", "param", "catch", "foreach", "res", "inst", "tpat", "rpat", "lambda"})

# The one query pass 2 runs over a file: the call-site patterns above and
# RTA's (``_rta.QUERY_PATTERNS``, captures renamed ``rta_*``). A query is one
# walk of the whole tree in C, and that walk, not the captures, is its cost
# (java.base: 1.76 CPU-s for the call sites, 1.82 for RTA, run apart)
_RTA_CAPS = {"rta_" + n: n for n in _rta.CAPTURE_NAMES}
_PASS2_QUERY = tree_sitter.Query(JAVA, _SITE_QUERY_PATTERNS + re.sub(r"@(\w+)", r"@rta_\1", _rta.QUERY_PATTERNS))


def pass2_captures(tree) -> tuple[list, dict]:
    """One query over ``tree`` for pass 2: ``(site captures, RTA captures)``.

    Site captures are ``(start byte, capture name, node)`` sorted by start
    byte, the outer of two nodes that start together first (``FileResolver.run``;
    the query gives such nodes — ``a.b().c()``'s two invocations — in an order
    that differs between parses of the same file, and the first call site of
    an unresolved reason is its example), RTA's ``{capture name: [node, ...]}`` in
    ``_rta.QUERY_PATTERNS``' names (``_rta.collect``); each list in document
    order, as each query gave them on its own."""
    site: list = []
    rta: dict = {}
    rta_caps = _RTA_CAPS
    for name, nodes in tree_sitter.QueryCursor(_PASS2_QUERY).captures(tree.root_node).items():
        r = rta_caps.get(name)
        if r is not None:
            rta[r] = nodes
        else:
            site.extend([(n.start_byte, name, n) for n in nodes])
    site.sort(key=_start)
    return site, rta


def _start(c):
    return c[0], -c[2].end_byte


def site_type(idx: ProjectIndex, r: CallResolution, placed: dict | None = None, tdecl=None) -> str:
    """Which kind of type a call site's receiver / target belongs to (``SITE_TYPES``).

    ``third-party-on-classpath``: the declaring type of a chosen target, or the
    call's receiver type, is a library type found on the classpath (not the
    JDK); ``third-party-off-classpath``: such a type is named (an import, a
    fully qualified name, an unknown supertype) but is not on the classpath;
    ``unknown-type``: no target was decided from a type (unresolved, or targets
    guessed by name alone) — the receiver's type is unknown, so it may be a
    library type; ``not-a-type``: a method called on a primitive, ``null`` or
    untyped lambda value; ``jdk`` / ``project``: every type involved is the
    JDK's / the project's. Off-classpath wins over on-classpath, which wins
    over jdk and project (docs/callgraph.md "Third-party call sites").
    ``placed``: a memo of each type's kind (its rank in ``_PLACES``), kept
    by the caller for one file, where the same few types come back at
    every call site; ``tdecl``: ``idx.types.get`` or the caller's memo of it."""
    kind = r.resolution
    if kind is _LOCAL_CLASS:
        return "project"
    if tdecl is None:
        tdecl = idx.types.get
    recv = r.recv
    if recv is not None:
        recv = recv[0]
        if not isinstance(recv, str) or ("." not in recv and tdecl(recv) is None):
            recv = None  # a type variable or a simple name: not a type we can place
    if kind is _UNRESOLVED:
        if (r.reason or "").startswith("method called on a"):
            return "not-a-type"
        if recv is None:
            return "unknown-type"
        owners = (recv,)  # no such method on a known receiver type: counted by that type
    elif r.guess:
        return "unknown-type"
    else:
        owners = [a[1] for a in r.apis]  # their declaring types
        if recv is not None:
            owners.append(recv)
    if placed is None:
        placed = {}
    best = _PROJECT
    for t in owners:  # each placed (no early end: the first ask of a type is recorded)
        k = placed.get(t)
        if k is None:
            if tdecl(t) is not None:
                k = _PROJECT
            else:
                sig = idx.lib(t)
                if sig is not None:
                    k = _JDK if sig.origin == "jdk" else _ON_CLASSPATH
                else:
                    k = _OFF_CLASSPATH if idx.third_party(t) else _JDK
            placed[t] = k
        if k < best:
            best = k
    return _PLACES[best]


# site_type's kinds of a type, the strongest first
_PLACES = ("third-party-off-classpath", "third-party-on-classpath", "jdk", "project")
_OFF_CLASSPATH, _ON_CLASSPATH, _JDK, _PROJECT = range(4)


class _FileAcc:
    """What pass 2 gathers in one file, before it is frozen into a ``FileResult``."""

    __slots__ = ("edges", "apis", "counts", "reasons", "examples", "sites")

    def __init__(self):
        # (src, dst) -> [Resolution, lines]: lines the call site's 1-tuple
        # ``(line,)`` while the edge has one line (most edges: no set made per
        # edge, and the tuple, made once per call site, is shared by all its
        # edges and frozen as it is), a set from the second line
        self.edges: dict = {}
        self.apis: dict = {}  # id -> ApiTarget
        # counts in plain dicts: ``d[k] = d.get(k, 0) + 1`` costs half of a
        # Counter's ``c[k] += 1`` (a dict subclass gets no specialised
        # subscript), once or twice per call site
        self.counts: dict = {}  # Resolution -> call sites
        self.sites: dict = {}  # call sites per SiteType value (site_type)
        self.reasons: dict = {}
        self.examples: dict = {}  # reason -> "file:line"

    def edge(self, src, dst, lt: tuple, kind):
        """Add edge ``src`` → ``dst`` of ``kind`` at the line in 1-tuple ``lt``."""
        e = self.edges.get((src, dst))
        if e is None:
            self.edges[(src, dst)] = [kind, lt]
        else:
            if _RANK[kind] < _RANK[e[0]]:
                e[0] = kind
            _add_line(e, lt)

    def freeze(self) -> FileResult:
        # one CallEdge per edge (hundreds of thousands on the JDK): tuple.__new__
        # in a list comprehension makes the same NamedTuple at half the cost of
        # calling CallEdge(...) (its __new__ is a Python function); most edges
        # have one line (already its lines tuple), so no sort
        return FileResult(
            tuple([_new(CallEdge, (s, d, k, lines if lines.__class__ is tuple else tuple(sorted(lines))))
                   for (s, d), (k, lines) in self.edges.items()]),
            tuple(self.apis.values()), tuple(self.counts.items()), tuple(self.reasons.items()),
            tuple(self.examples.items()), tuple(self.sites.items()))


def _add_line(e: list, lt: tuple) -> None:
    """Add the call-site line in 1-tuple ``lt`` to an edge's ``[kind, lines]``
    (lines: a 1-tuple or a set)."""
    ls = e[1]
    if ls.__class__ is tuple:
        if ls[0] != lt[0]:
            e[1] = {ls[0], lt[0]}
    else:
        ls.add(lt[0])


class FileResolver(Scopes, ExpressionTyping, GenericInference, CallSites, Creations):
    """Resolves the call sites of one file (see module docstring)."""

    def __init__(self, idx: ProjectIndex, fi: int, src: bytes, tree):
        self.idx = idx
        self.fi = fi
        self.src = src  # the bytes ``tree`` was parsed from (Scopes._tx)
        self.stext = src.decode("ascii") if src.isascii() else None  # its text, when ASCII (Scopes._tx)
        self.ff = idx.files[fi]
        self.tree = tree
        self.res = _FileAcc()
        ff = self.ff
        spans = []
        owners = []
        self.merged = merged = {id(t) for f, t in idx.merged if f == fi}  # same FQN in another module
        for td in ff.types:
            if idx.types.get(td.key) is not td and id(td) not in merged:
                continue
            spans.append((td.start_byte, td.end_byte, td.key))
            if td.local:
                continue
            # a merged type's table holds members of several files: only this file's own here
            pms = [p for p in idx.methods.get(td.key, ()) if p.info.file == ff.rel]
            ctors = tuple(p.info.id for p in pms if p.info.name == "<init>")
            clinit = next((p.info.id for p in pms if p.info.name == "<clinit>"), None)
            for p in pms:
                if p.decl is not None:
                    owners.append((p.decl.start_byte, p.decl.end_byte, (p.info.id,), td.key, p))
            for init in td.inits:
                ids = (clinit,) if init.static else ctors
                if ids and ids[0]:
                    owners.append((init.start_byte, init.end_byte, ids, td.key, None))
        spans.sort()
        owners.sort(key=lambda o: o[0])
        self.spans = spans
        self.span_starts = [s[0] for s in spans]
        self.owners = owners
        self.owner_starts = ostarts = [o[0] for o in owners]
        # owners holding no type declaration (no local or anonymous class):
        # the type at each of their positions is their own (run needs no type_at)
        sstarts = self.span_starts
        self.owner_plain = [bisect_left(sstarts, o[0]) == bisect_left(sstarts, o[1]) for o in owners] \
            if ostarts else []
        self.locals: dict[str, list] = {}
        self.cache: dict[int, CallResolution] = {}
        self._refs: dict = {}  # (TypeRef, type key, method id or None) -> resolve_ref (Scopes.ref)
        self._field_names: dict = {}  # (type key, simple name) -> (type, found) (Scopes.ident)
        self._type_names: dict = {}  # (type name text, type key) -> resolve_name (Scopes._type_name)
        self._plain_returns: dict = {}  # id of a candidate -> its return type, when constant (project_return)
        self._named: dict = {}  # (type, name) -> methods_named (CallSites.named)
        self._lib_api: dict = {}  # library method id -> (ApiTarget,) (CallSites.target)
        self._placed: dict = {}  # type -> its kind for site_type (rank in _PLACES)
        self._cha: dict = {}  # (static type, id of the candidate) -> CHA target ids (CallSites.target)
        self._tds: dict = {}  # type key -> idx.types.get(key) (tdecl)
        self._by_name: dict = {}  # (name, arity) -> CallSites.by_name's ids
        self._subtypes: dict = {}  # (type, type) -> idx.is_subtype (is_subtype)
        self._sams: dict = {}  # type -> idx.sam (sam)
        self._qualified: dict = {}  # dotted name -> idx._resolve_qualified (qualified)
        self._tfiles: dict = {}  # type key -> idx.type_file[key] (type_file)
        self._stars: dict = {}  # (owner, name, kind, reason) -> CallSites.star's answer
        self._returns: dict = {}  # (id of a candidate, substitution items) -> project_return's type
        self._jtuples: dict = {}  # (id of a parsed Signature, substitution items) -> lib_return's type
        self._captured: dict = {}  # type -> idx.capture_lib (capture_lib)
        self._super_args: dict = {}  # (type, arguments, supertype) -> idx.super_type_args (super_type_args)
        self._field_types: dict = {}  # (type, field name) -> idx.field_type_of (field_type_of)
        self.local_types_cache: dict = {}
        self.ctx = _NO_CONTEXT
        self._lam_target: dict = {}  # lambda node id -> target type during inference

    # Per-file memos of the index's answers that call sites ask again and
    # again (a file asks about the same few types, names and type pairs):
    # each is keyed by all its answer depends on, and its first ask goes to
    # the index, so with the warm cache on the recorder stores the same
    # distinct look-ups (repeats were dropped when a row was stored) and its
    # log, which every look-up adds to, is shorter (docs/callgraph.md
    # "Resolver costs per call site (issue 17, session 8)")
    def tdecl(self, k):
        """``idx.types.get(k)``: the project's declaration of type ``k``, or None."""
        td = self._tds.get(k, _UNASKED)
        if td is _UNASKED:
            td = self._tds[k] = self.idx.types.get(k)
        return td

    def type_file(self, k) -> int:
        """``idx.type_file[k]`` (``k`` a project type: KeyError otherwise)."""
        fi = self._tfiles.get(k)
        if fi is None:
            fi = self._tfiles[k] = self.idx.type_file[k]
        return fi

    def is_subtype(self, a: str, b: str):
        """``idx.is_subtype(a, b)`` (``_overloads`` asks it through the resolver)."""
        k = (a, b)
        r = self._subtypes.get(k, _UNASKED)
        if r is _UNASKED:
            r = self._subtypes[k] = self.idx.is_subtype(a, b)
        return r

    def sam(self, t: str):
        """``idx.sam(t)`` (``_overloads`` asks it through the resolver)."""
        r = self._sams.get(t, _UNASKED)
        if r is _UNASKED:
            r = self._sams[t] = self.idx.sam(t)
        return r

    def capture_lib(self, t):
        """``idx.capture_lib(t)`` (a type: its unknown library arguments captured)."""
        try:
            r = self._captured.get(t, _UNASKED)
        except TypeError:  # an unhashable argument: asked as it is
            return self.idx.capture_lib(t)
        if r is _UNASKED:
            r = self._captured[t] = self.idx.capture_lib(t)
        return r

    def super_type_args(self, t: str, args, sup: str):
        """``idx.super_type_args(t, args, sup)``: ``sup``'s type arguments seen from ``t<args>``."""
        k = (t, args, sup)
        try:
            r = self._super_args.get(k, _UNASKED)
        except TypeError:  # an unhashable argument: asked as it is
            return self.idx.super_type_args(t, args, sup)
        if r is _UNASKED:
            r = self._super_args[k] = self.idx.super_type_args(t, args, sup)
        return r

    def field_type_of(self, t, name: str):
        """``idx.field_type_of(t, name)``: (type, found) of field ``name`` on a receiver of type ``t``."""
        k = (t, name)
        try:
            r = self._field_types.get(k)
        except TypeError:  # an unhashable argument: asked as it is
            return self.idx.field_type_of(t, name)
        if r is None:
            r = self._field_types[k] = self.idx.field_type_of(t, name)
        return r

    def qualified(self, name: str):
        """``idx._resolve_qualified(name)``: the type a dotted name (a static import's) names."""
        r = self._qualified.get(name, _UNASKED)
        if r is _UNASKED:
            r = self._qualified[name] = self.idx._resolve_qualified(name)
        return r

    def run(self, captures: list | None = None) -> FileResult:
        """Resolve the file. ``captures``: the site captures of
        ``pass2_captures`` when pass 2 already ran its query; else it runs here."""
        caps = captures if captures is not None else pass2_captures(self.tree)[0]
        sites = []
        declare = self.declare
        for c in caps:
            name = c[1]
            if name in _DECL_CAPS:
                try:
                    declare(name, c[2])
                except Exception:  # a malformed (recovered) node: skip the declaration
                    pass
            else:
                sites.append(c)
        owners, ostarts, plain = self.owners, self.owner_starts, self.owner_plain
        call_site, emit = self.call_site, self.emit
        ctx = _NO_CONTEXT
        for sb, name, n in sites:  # sb: the node's start byte
            # owner_at and context_at, inlined (once per call site)
            i = bisect_right(ostarts, sb) - 1
            if i < 0:
                continue
            owner = owners[i]
            if sb >= owner[1]:
                continue
            tk = owner[3] if plain[i] else self.type_at(sb)
            if tk is not ctx[0] or owner[4] is not ctx[1]:
                ctx = _new(MethodContext, (tk, owner[4]))
            self.ctx = ctx
            if name == "call":
                nm = n.child_by_field_id(_F_NAME)
                try:
                    r = call_site(n, nm)  # self.ctx is the site's context
                except RecursionError:
                    r = CallResolution(_UNRESOLVED, reason="expression too deeply nested")
                except Exception as e:  # a resolver bug must cost one call site, not the file
                    r = CallResolution(_UNRESOLVED, reason=f"internal error ({type(e).__name__})")
                # the line of the method name, as javac's line table has it
                # for chained calls split over lines
                line = (nm or n).start_point[0] + 1
            else:
                try:
                    r = self.site(name, n)
                except RecursionError:
                    r = CallResolution(_UNRESOLVED, reason="expression too deeply nested")
                except Exception as e:  # a resolver bug must cost one call site, not the file
                    r = CallResolution(_UNRESOLVED, reason=f"internal error ({type(e).__name__})")
                line = n.start_point[0] + 1
            emit(owner, r, line)
        self.implicit_super_calls()
        self.generated_calls()
        return self.res.freeze()

    def emit(self, owner, r: CallResolution, line: int):
        kind = r.resolution
        if kind is _NOT_A_CALL:
            return
        res = self.res
        counts = res.counts
        counts[kind] = counts.get(kind, 0) + 1
        sites = res.sites
        st = site_type(self.idx, r, self._placed, self.tdecl)
        sites[st] = sites.get(st, 0) + 1
        # the example is formatted only for a reason's first call site
        if kind is _UNRESOLVED:
            key = r.reason
            res.reasons[key] = res.reasons.get(key, 0) + 1
            if key not in res.examples:
                res.examples[key] = f"{self.ff.rel}:{line}"
            return
        if kind is _LOCAL_CLASS:
            return
        if kind is _GUESSED_BY_NAME and r.reason:
            key = "name: " + r.reason
            res.reasons[key] = res.reasons.get(key, 0) + 1
            if key not in res.examples:
                res.examples[key] = f"{self.ff.rel}:{line}"
        edges = res.edges
        lt = (line,)
        targets = r.targets
        for src in owner[2]:
            for t in targets:  # _FileAcc.edge, inlined
                e = edges.get((src, t))
                if e is None:
                    edges[(src, t)] = [kind, lt]
                else:
                    if _RANK[kind] < _RANK[e[0]]:
                        e[0] = kind
                    ls = e[1]
                    if ls.__class__ is tuple:
                        if ls[0] != line:
                            e[1] = {ls[0], line}
                    else:
                        ls.add(line)
            for t in r.cha:  # often hundreds (calls on Object in the JDK): inlined
                e = edges.get((src, t))
                if e is None:
                    edges[(src, t)] = [_CHA, lt]
                else:
                    if e[0] is _GUESSED_BY_NAME:
                        e[0] = _CHA
                    ls = e[1]
                    if ls.__class__ is tuple:
                        if ls[0] != line:
                            e[1] = {ls[0], line}
                    else:
                        ls.add(line)
        for a in r.apis:
            res.apis.setdefault(a.id, a)
