"""Pass 2: resolve every call site of one file against the project index.

Call sites: method invocations, ``new`` (anonymous classes → the superclass
constructor), ``this(...)``/``super(...)`` (explicit and the implicit
``super()``), method references and enum constants. Each yields edges from the
*owner* — the named method, constructor or initializer that contains the code,
so calls inside lambdas and local/anonymous classes belong to the enclosing
method — or an unresolved reason. Nothing is guessed silently.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from typing import NamedTuple

import tree_sitter

from ._facts import JAVA, type_ref
from ._facts import _text as _t
from ._callsite import NOT_A_CALL, STRENGTH as _RANK, ApiTarget, CallEdge, CallResolution, FileResult
from ._callsite import Resolution as R

from ._types import JArray, JClass, JTypeVar, JWildcard
from ._candidates import MethodCandidate
from ._index import BOX, OBJECT, PRIMITIVES, UNBOX, ProjectIndex
from ._overloads import arity_ok, choose

# the members as module globals: a class attribute look-up on an Enum costs
# more than a global one, on the path of every call site
_BY_ARITY = R.BY_ARITY
_CHA = R.CHA
_EXACT = R.EXACT
_GUESSED_BY_NAME = R.GUESSED_BY_NAME
_LOCAL_CLASS = R.LOCAL_CLASS
_NOT_A_CALL = R.NOT_A_CALL
_UNRESOLVED = R.UNRESOLVED
_new_tuple = tuple.__new__

_SITE_QUERY = tree_sitter.Query(JAVA, """
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
""")
_DECL_CAPS = frozenset({"local", "param", "catch", "foreach", "res", "inst", "tpat", "rpat", "lambda"})
_NAME_CAP = 30  # more same-name candidates than this: too vague to keep even as `name` edges
STRING = ("java.lang.String", ())
UNKNOWN_LIB = ("?", ())
_INT_LIT = ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
            "binary_integer_literal")
_NUM_ORDER = ["byte", "short", "char", "int", "long", "float", "double"]
_CMP_OPS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "instanceof"})


# Members every class/enum/record has from java.lang.Object, Enum, Record:
# (declaring type, name, erased parameter types). Used when the receiver's
# hierarchy is partly unknown (a library jar missing): they are JDK members,
# never the library's (unless a known type overrides them).
_OBJECT_MEMBERS = {("getClass", 0): (), ("hashCode", 0): (), ("toString", 0): (),
                   ("equals", 1): ("java.lang.Object",), ("notify", 0): (), ("notifyAll", 0): (),
                   ("wait", 0): (), ("wait", 1): ("long",), ("wait", 2): ("long", "int")}
_ENUM_MEMBERS = {("name", 0): (), ("ordinal", 0): (), ("compareTo", 1): ("java.lang.Enum",),
                 ("getDeclaringClass", 0): (), ("describeConstable", 0): ()}
_ENUM_OWN = frozenset({("equals", 1), ("hashCode", 0), ("toString", 0)})  # final or declared in Enum
_RECORD_OWN = frozenset({("equals", 1), ("hashCode", 0), ("toString", 0)})  # abstract in Record

_STATEMENT_EXPRS = frozenset({"method_invocation", "assignment_expression", "update_expression",
                              "object_creation_expression"})


def _lambda_shape(n):
    """(arity, "void"|"value"|"both") of a lambda: which function types it fits
    (JLS 15.27.2/15.27.3: void- and value-compatible bodies)."""
    ps = n.child_by_field_name("parameters")
    if ps is None:
        arity = 0
    elif ps.type == "identifier":
        arity = 1
    else:
        arity = sum(1 for c in ps.named_children
                    if c.type in ("formal_parameter", "spread_parameter", "identifier"))
    body = n.child_by_field_name("body")
    if body is None:
        return (arity, "both")
    if body.type != "block":
        return (arity, "both" if body.type in _STATEMENT_EXPRS else "value")
    stack = list(body.named_children)
    value = False
    while stack:
        c = stack.pop()
        if c.type in ("lambda_expression", "class_body"):
            continue
        if c.type == "return_statement":
            if c.named_children and c.named_children[0].type not in ("line_comment", "block_comment"):
                value = True
                break
            return (arity, "void")
        stack.extend(c.named_children)
    return (arity, "value" if value else "void")


def _mentions_tvar(ref, names) -> bool:
    """Does TypeRef ``ref`` name one of the type variables ``names``?"""
    if not names:
        return False
    stack = [ref]
    while stack:
        r = stack.pop()
        if r[0] in names:
            return True
        stack.extend(r[1])
    return False


class MethodContext(NamedTuple):
    """Where code is resolved: the innermost enclosing type (project key, None
    outside every type) and the enclosing method (a ``MethodCandidate``, None
    in initializers), whose type parameters are in scope."""

    type_key: str | None
    method: MethodCandidate | None

    @property
    def mtparams(self) -> dict | None:
        m = self.method
        return m.tparams if m is not None and m.tparams else None


_NO_CONTEXT = MethodContext(None, None)


def site_type(idx: ProjectIndex, r: CallResolution) -> str:
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
    over jdk and project (docs/callgraph.md "Third-party call sites")."""
    kind = r.resolution
    if kind is _LOCAL_CLASS:
        return "project"
    recv = r.recv[0] if r.recv is not None and isinstance(r.recv[0], str) else None
    if recv is not None and "." not in recv and recv not in idx.types:
        recv = None  # a type variable or a simple name: not a type we can place
    if kind is _UNRESOLVED:
        if (r.reason or "").startswith("method called on a"):
            return "not-a-type"
        if recv is None:
            return "unknown-type"
        owners = [recv]  # no such method on a known receiver type: counted by that type
    elif r.guess:
        return "unknown-type"
    else:
        owners = [a.declaring_type for a in r.apis] + ([recv] if recv is not None else [])
    seen = set()
    for t in owners:
        if t in idx.types:
            continue
        sig = idx.lib(t)
        if sig is not None:
            seen.add("jdk" if sig.origin == "jdk" else "third-party-on-classpath")
        else:
            seen.add("third-party-off-classpath" if idx.third_party(t) else "jdk")
    for k in ("third-party-off-classpath", "third-party-on-classpath", "jdk"):
        if k in seen:
            return k
    return "project"


class _Within:
    """The context manager of ``FileResolver.within`` (a class: cheaper than a
    generator-based one on the hot path of every call site)."""

    __slots__ = ("fr", "ctx", "outer")

    def __init__(self, fr, ctx):
        self.fr, self.ctx = fr, ctx

    def __enter__(self):
        self.outer, self.fr.ctx = self.fr.ctx, self.ctx

    def __exit__(self, *exc):
        self.fr.ctx = self.outer
        return False


class _FileAcc:
    """What pass 2 gathers in one file, before it is frozen into a ``FileResult``."""

    __slots__ = ("edges", "apis", "counts", "reasons", "examples", "sites")

    def __init__(self):
        self.edges: dict = {}  # (src, dst) -> [Resolution, set(lines)]
        self.apis: dict = {}  # id -> ApiTarget
        self.counts: Counter = Counter()
        self.sites: Counter = Counter()  # call sites per SiteType value (site_type)
        self.reasons: Counter = Counter()
        self.examples: dict = {}  # reason -> "file:line"

    def edge(self, src, dst, line, kind):
        e = self.edges.get((src, dst))
        if e is None:
            self.edges[(src, dst)] = [kind, {line}]
        else:
            if _RANK[kind] < _RANK[e[0]]:
                e[0] = kind
            e[1].add(line)

    def freeze(self) -> FileResult:
        return FileResult(
            # one row per edge, the hottest allocation of pass 2: CallEdge made by tuple.__new__
            # (a NamedTuple's own __new__ is a Python call), and most edges have one line,
            # so tuple() of a 1-set, not a sort (as before the refactor)
            tuple([_new_tuple(CallEdge, (s, d, k, tuple(sorted(lines)) if len(lines) > 1 else tuple(lines)))
                   for (s, d), (k, lines) in self.edges.items()]),
            tuple(self.apis.values()), tuple(self.counts.items()), tuple(self.reasons.items()),
            tuple(self.examples.items()), tuple(self.sites.items()))


class FileResolver:
    """Resolves the call sites of one file (see module docstring)."""

    def __init__(self, idx: ProjectIndex, fi: int, src: bytes, tree):
        self.idx = idx
        self.fi = fi
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
        self.owner_starts = [o[0] for o in owners]
        self.locals: dict[str, list] = {}
        self.cache: dict[int, CallResolution] = {}
        self.local_types_cache: dict = {}
        self.ctx = _NO_CONTEXT
        self._lam_target: dict = {}  # lambda node id -> target type during inference

    # ----------------------------------------------------------- context
    def type_at(self, pos: int):
        i = bisect_right(self.span_starts, pos) - 1
        while i >= 0:
            s, e, k = self.spans[i]
            if s <= pos < e:
                return k
            i -= 1
        return None

    def owner_at(self, pos: int):
        i = bisect_right(self.owner_starts, pos) - 1
        if i >= 0:
            o = self.owners[i]
            if o[0] <= pos < o[1]:
                return o
        return None

    def context_at(self, pos: int) -> "MethodContext":
        """The context of the code at byte ``pos``."""
        o = self.owner_at(pos)
        return MethodContext(self.type_at(pos), o[4] if o else None)

    def within(self, ctx: "MethodContext") -> "_Within":
        """``with self.within(ctx):`` resolves in ``ctx`` (a declaration elsewhere
        in the file, a call typed out of order), then goes back to the context
        the caller was in."""
        return _Within(self, ctx)

    def mtp(self):
        return self.ctx.mtparams

    def ref(self, tref, ctx: "MethodContext | None" = None):
        ctx = ctx or self.ctx
        return self.idx.resolve_ref(tref, self.fi, ctx.type_key, ctx.mtparams)

    # ----------------------------------------------------------- run
    def run(self) -> FileResult:
        caps = []
        cur = tree_sitter.QueryCursor(_SITE_QUERY)
        for name, nodes in cur.captures(self.tree.root_node).items():
            for n in nodes:
                caps.append((n.start_byte, name, n))
        caps.sort(key=lambda c: c[0])
        for _, name, n in caps:
            if name in _DECL_CAPS:
                try:
                    self.declare(name, n)
                except Exception:  # a malformed (recovered) node: skip the declaration
                    pass
        for _, name, n in caps:
            if name in _DECL_CAPS:
                continue
            owner = self.owner_at(n.start_byte)
            if owner is None:
                continue
            self.ctx = MethodContext(self.type_at(n.start_byte), owner[4])
            try:
                r = self.site(name, n)
            except RecursionError:
                r = CallResolution(_UNRESOLVED, reason="expression too deeply nested")
            except Exception as e:  # a resolver bug must cost one call site, not the file
                r = CallResolution(_UNRESOLVED, reason=f"internal error ({type(e).__name__})")
            if name == "call":
                # the line of the method name, as javac's line table has it
                # for chained calls split over lines
                nm = n.child_by_field_name("name")
                line = (nm or n).start_point[0] + 1
            else:
                line = n.start_point[0] + 1
            self.emit(owner, r, line)
        self.implicit_super_calls()
        self.generated_calls()
        return self.res.freeze()

    def emit(self, owner, r: CallResolution, line: int):
        kind = r.resolution
        if kind is _NOT_A_CALL:
            return
        res = self.res
        res.counts[kind] += 1
        res.sites[site_type(self.idx, r)] += 1
        if kind is _UNRESOLVED:
            res.reasons[r.reason] += 1
            res.examples.setdefault(r.reason, f"{self.ff.rel}:{line}")
            return
        if kind is _LOCAL_CLASS:
            return
        if kind is _GUESSED_BY_NAME and r.reason:
            key = "name: " + r.reason
            res.reasons[key] += 1
            res.examples.setdefault(key, f"{self.ff.rel}:{line}")
        edges = res.edges
        for src in owner[2]:
            for t in r.targets:
                res.edge(src, t, line, kind)
            for t in r.cha:  # often hundreds (calls on Object in the JDK): inlined
                e = edges.get((src, t))
                if e is None:
                    edges[(src, t)] = [_CHA, {line}]
                else:
                    if e[0] is _GUESSED_BY_NAME:
                        e[0] = _CHA
                    e[1].add(line)
        for a in r.apis:
            res.apis.setdefault(a.id, a)

    # ----------------------------------------------------------- declarations
    def add_local(self, name: str, scope_start, scope_end, avail, payload):
        self.locals.setdefault(name, []).append((scope_start, scope_end, avail, payload))

    def declare(self, cap: str, n) -> None:
        if cap == "local":
            ty = n.child_by_field_name("type")
            parent = n.parent
            end = parent.end_byte if parent is not None else n.end_byte
            for d in n.named_children:
                if d.type == "variable_declarator":
                    nm = d.child_by_field_name("name")
                    dims = d.child_by_field_name("dimensions")
                    self.add_local(_t(nm), n.start_byte, end, d.start_byte,
                                   self._payload(ty, d.child_by_field_name("value"), dims))
        elif cap == "param":
            p = n.parent
            gp = p.parent if p is not None else None
            if gp is None or gp.type == "record_declaration":
                return
            ty = n.child_by_field_name("type")
            if n.type == "spread_parameter":
                ty = ty or next((c for c in n.named_children if c.type not in ("modifiers", "variable_declarator")), None)
                nm = None
                for c in n.named_children:
                    if c.type == "variable_declarator":
                        nm = c.child_by_field_name("name")
                if nm is None or ty is None:
                    return
                tr = type_ref(ty)
                self.add_local(_t(nm), gp.start_byte, gp.end_byte, gp.start_byte,
                               ("ref", (tr[0], tr[1], tr[2] + 1), n.start_byte))
            else:
                nm = n.child_by_field_name("name")
                if nm is None or ty is None:
                    return
                tr = type_ref(ty)
                dims = n.child_by_field_name("dimensions")
                if dims is not None:
                    tr = (tr[0], tr[1], tr[2] + _t(dims).count("["))
                self.add_local(_t(nm), gp.start_byte, gp.end_byte, gp.start_byte,
                               ("ref", tr, n.start_byte) if tr[0] != "var" else ("none",))
        elif cap == "catch":
            clause = n.parent
            nm = n.child_by_field_name("name")
            types = [c for c in n.named_children if c.type == "catch_type"]
            tys = [c for c in types[0].named_children] if types else []
            payload = ("ref", type_ref(tys[0]), n.start_byte) if len(tys) == 1 else (
                ("ref", ("java.lang.Exception", (), 0), n.start_byte) if tys else ("none",))
            if len(tys) > 1:
                payload = ("ref", type_ref(tys[0]), n.start_byte)
            self.add_local(_t(nm), clause.start_byte, clause.end_byte, n.start_byte, payload)
        elif cap == "foreach":
            ty = n.child_by_field_name("type")
            nm = n.child_by_field_name("name")
            val = n.child_by_field_name("value")
            if nm is None:
                return
            if ty is None or _t(ty) == "var":
                payload = ("elem", val)
            else:
                payload = ("ref", type_ref(ty), n.start_byte)
            self.add_local(_t(nm), n.start_byte, n.end_byte, n.start_byte, payload)
        elif cap == "res":
            nm = n.child_by_field_name("name")
            if nm is None:
                return
            ty = n.child_by_field_name("type")
            scope = n.parent.parent if n.parent is not None and n.parent.parent is not None else n
            self.add_local(_t(nm), scope.start_byte, scope.end_byte, n.start_byte,
                           self._payload(ty, n.child_by_field_name("value"), None))
        elif cap == "inst":
            nm = n.child_by_field_name("name")
            ty = n.child_by_field_name("right")
            if nm is None or ty is None:
                return
            blk = n.parent
            while blk is not None and blk.type not in ("block", "constructor_body", "class_body",
                                                       "lambda_expression", "switch_block_statement_group"):
                blk = blk.parent
            end = blk.end_byte if blk is not None else n.end_byte
            self.add_local(_t(nm), n.start_byte, end, n.start_byte, ("ref", type_ref(ty), n.start_byte))
        elif cap in ("tpat", "rpat"):
            kids = [c for c in n.named_children if c.type not in ("modifiers",)]
            if len(kids) < 2 or kids[-1].type != "identifier":
                return
            ty, nm = kids[-2], kids[-1]
            scope = n.parent
            while scope is not None and scope.type not in ("switch_rule", "switch_block_statement_group",
                                                           "block", "lambda_expression"):
                scope = scope.parent
            scope = scope or n
            payload = ("none",) if _t(ty) == "var" else ("ref", type_ref(ty), n.start_byte)
            self.add_local(_t(nm), n.start_byte, scope.end_byte, n.start_byte, payload)
        elif cap == "lambda":
            ps = n.child_by_field_name("parameters")
            if ps is None:
                return
            if ps.type == "identifier":
                self.add_local(_t(ps), n.start_byte, n.end_byte, n.start_byte, ("lparam", n, 0))
            elif ps.type == "inferred_parameters":
                ids = [c for c in ps.named_children if c.type == "identifier"]
                for i, c in enumerate(ids):
                    self.add_local(_t(c), n.start_byte, n.end_byte, n.start_byte, ("lparam", n, i))

    def _payload(self, ty, value, dims):
        if ty is None:
            return ("none",)
        if _t(ty) == "var":
            return ("var", value) if value is not None else ("none",)
        tr = type_ref(ty)
        if dims is not None:
            tr = (tr[0], tr[1], tr[2] + _t(dims).count("["))
        return ("ref", tr, ty.start_byte)

    def local_type(self, name: str, pos: int):
        """(type, found) of the innermost local ``name`` visible at ``pos``."""
        ents = self.locals.get(name)
        if not ents:
            return None, False
        best = None
        for e in ents:
            if e[0] <= pos < e[1] and e[2] <= pos and (best is None or e[0] >= best[0]):
                best = e
        if best is None:
            return None, False
        payload = best[3]
        k = payload[0]
        if k == "none":
            return None, True
        ck = (name, best[0], best[2])
        if ck in self.local_types_cache:
            return self.local_types_cache[ck], True
        self.local_types_cache[ck] = None
        with self.within(self.context_at(payload[2] if k == "ref" else payload[1].start_byte)):
            if k == "ref":
                t = self.ref(payload[1])
            elif k == "var":
                t = self.texpr(payload[1])
            elif k == "lparam":
                t = self.lambda_param_type(payload[1], payload[2])
            else:  # "elem": element of an iterated expression
                it = self.texpr(payload[1])
                t = None
                if it is not None:
                    if it[0].endswith("[]"):
                        t = (it[0][:-2], ())
                    elif len(it[1]) == 1:
                        t = it[1][0]
        self.local_types_cache[ck] = t
        return t, True

    # ----------------------------------------------------------- names
    def ident(self, name: str, pos: int):
        """Type of a simple name used as an expression: (type, found-as-variable)."""
        t, found = self.local_type(name, pos)
        if found:
            return t, True
        idx = self.idx
        k = self.ctx.type_key
        while k is not None:
            t, found = idx.field_type_of((k, ()), name)
            if found:
                return t, True
            td = idx.types.get(k)
            k = td.outer if td is not None else None
        for imp in self.ff.imports:
            if imp.static:
                if imp.on_demand:
                    owner = idx._resolve_qualified(imp.name)
                elif imp.name.endswith("." + name):
                    owner = idx._resolve_qualified(imp.name[: -len(name) - 1])
                else:
                    continue
                if owner:
                    t, found = idx.field_type(owner, name)
                    if found:
                        return t, True
        return None, False

    def as_type_name(self, node):
        """The type a receiver node names (``Foo``, ``a.b.Foo``, ``Outer.Inner``), or None."""
        t = node.type
        if t in ("identifier", "type_identifier"):
            return self.idx.resolve_name(_t(node), self.fi, self.ctx.type_key)
        if t in ("field_access", "scoped_identifier", "scoped_type_identifier"):
            text = _t(node)
            if not all(c.isalnum() or c in "._$" for c in text):
                return None
            return self.idx.resolve_name(text, self.fi, self.ctx.type_key)
        if t == "generic_type":
            r = self.ref(type_ref(node))
            return r[0] if r else None
        return None

    # ----------------------------------------------------------- expressions
    def texpr(self, n):
        """Static type of an expression node (see _index module docstring), or None."""
        t = n.type
        if t == "identifier":
            ty, found = self.ident(_t(n), n.start_byte)
            return ty
        if t == "method_invocation":
            return self.call(n).ret
        if t in ("string_literal", "text_block"):
            return STRING
        if t == "object_creation_expression":
            ty = n.child_by_field_name("type")
            if ty is None:
                return None
            tr = type_ref(ty)
            return self.ref(tr)
        if t == "this":
            return (self.ctx.type_key, ()) if self.ctx.type_key else None
        if t == "field_access":
            obj = n.child_by_field_name("object")
            fld = n.child_by_field_name("field")
            if obj is None or fld is None:
                return None
            if fld.type == "this":
                k = self.as_type_name(obj)
                return (k, ()) if k else None
            if obj.type == "super":
                sup = self.superclass(self.ctx.type_key)
                return self.idx.field_type(sup, _t(fld))[0] if sup else None
            name = _t(fld)
            if obj.type in ("identifier", "field_access"):
                if obj.type == "identifier":
                    ot, found = self.ident(_t(obj), obj.start_byte)
                    if not found:
                        k = self.as_type_name(obj)
                        return self.idx.field_type(k, name)[0] if k else None
                else:
                    ot = self.texpr(obj)
                    if ot is None:
                        k = self.as_type_name(obj)
                        if k:
                            return self.idx.field_type(k, name)[0]
                        return None
            else:
                ot = self.texpr(obj)
            if ot is None:
                return None
            if ot[0].endswith("[]") and name == "length":
                return ("int", ())
            return self.idx.field_type_of(ot, name)[0]
        if t in _INT_LIT:
            return ("long", ()) if _t(n)[-1:] in "lL" else ("int", ())
        if t in ("decimal_floating_point_literal", "hex_floating_point_literal"):
            return ("float", ()) if _t(n)[-1:] in "fF" else ("double", ())
        if t in ("true", "false"):
            return ("boolean", ())
        if t == "character_literal":
            return ("char", ())
        if t == "null_literal":
            return ("null", ())
        if t == "cast_expression":
            ty = n.child_by_field_name("type")
            return self.ref(type_ref(ty)) if ty is not None else None
        if t == "parenthesized_expression":
            kids = n.named_children
            return self.texpr(kids[0]) if kids else None
        if t == "array_access":
            a = n.child_by_field_name("array")
            at = self.texpr(a) if a is not None else None
            if at and at[0].endswith("[]"):
                return (at[0][:-2], at[1])
            return None
        if t == "array_creation_expression":
            ty = n.child_by_field_name("type")
            if ty is None:
                return None
            base = self.ref(type_ref(ty))
            if base is None:
                return None
            dims = sum(_t(c).count("[") for c in n.named_children if c.type in ("dimensions", "dimensions_expr"))
            return (base[0] + "[]" * max(dims, 1), ())
        if t == "ternary_expression":
            a = self.texpr(n.child_by_field_name("consequence"))
            b = self.texpr(n.child_by_field_name("alternative"))
            if a is None or b is None:
                return None
            if a[0] == "null":
                return (BOX.get(b[0], b[0]), ()) if b[0] in PRIMITIVES else b
            if b[0] == "null":
                return (BOX.get(a[0], a[0]), ()) if a[0] in PRIMITIVES else a
            pa, pb = UNBOX.get(a[0], a[0]), UNBOX.get(b[0], b[0])
            if pa in _NUM_ORDER and pb in _NUM_ORDER and (a[0] in PRIMITIVES or b[0] in PRIMITIVES
                                                          or pa != pb):
                # numeric conditional (JLS 15.25): binary numeric promotion
                if pa == pb:
                    return (pa, ())
                return (_NUM_ORDER[max(_NUM_ORDER.index(pa), _NUM_ORDER.index(pb), 3)], ())
            if pa == pb == "boolean":
                return ("boolean", ())
            return a if a == b or self.idx.is_subtype(b[0], a[0]) is True else (
                b if self.idx.is_subtype(a[0], b[0]) is True else None)
        if t == "binary_expression":
            op = n.child_by_field_name("operator")
            ops = _t(op) if op is not None else ""
            if ops in _CMP_OPS:
                return ("boolean", ())
            a = self.texpr(n.child_by_field_name("left"))
            b = self.texpr(n.child_by_field_name("right"))
            if ops == "+" and (a == STRING or b == STRING):
                return STRING
            if a is None or b is None:
                return None
            pa, pb = UNBOX.get(a[0], a[0]), UNBOX.get(b[0], b[0])
            if pa in _NUM_ORDER and pb in _NUM_ORDER:
                if ops in ("<<", ">>", ">>>"):
                    return ("long", ()) if pa == "long" else ("int", ())
                w = max(_NUM_ORDER.index(pa), _NUM_ORDER.index(pb), 3)
                return (_NUM_ORDER[w], ())
            if pa == pb == "boolean":
                return ("boolean", ())
            return None
        if t == "unary_expression":
            op = n.child_by_field_name("operator")
            if op is not None and _t(op) == "!":
                return ("boolean", ())
            a = self.texpr(n.child_by_field_name("operand"))
            if a and a[0] in ("byte", "short", "char"):
                return ("int", ())
            return a
        if t == "update_expression":
            kids = n.named_children
            return self.texpr(kids[0]) if kids else None
        if t == "assignment_expression":
            return self.texpr(n.child_by_field_name("left"))
        if t == "instanceof_expression":
            return ("boolean", ())
        if t == "lambda_expression":
            shape = _lambda_shape(n)
            if shape == (0, "both"):
                # `() -> call()`: value-compatible only if the call returns a value
                # (JLS 15.27.2); a parameterless body's type needs no target
                body = n.child_by_field_name("body")
                if body is not None and body.type == "method_invocation":
                    bt = self.call(body).ret
                    if bt is not None and bt[0] == "void":
                        shape = (0, "void")
            return ("λ", shape)
        if t == "method_reference":
            return ("λ", ())
        if t == "class_literal":
            kids = n.named_children
            inner = self.ref(type_ref(kids[0])) if kids else None
            return ("java.lang.Class", (inner,))
        return None

    def superclass(self, key):
        if key is None:
            return None
        sups = self.idx.supers(key)
        td = self.idx.types.get(key)
        if not sups:
            return OBJECT
        if td is not None and td.kind == "interface":
            return None
        s = sups[0]
        return None if s.startswith("?") else s

    # ----------------------------------------------------------- call sites
    def site(self, cap: str, n) -> CallResolution:
        if cap == "call":
            return self.call(n)
        if cap == "new":
            return self.new(n)
        if cap == "ctor":
            return self.explicit_ctor(n)
        if cap == "ref":
            return self.method_ref(n)
        if cap == "enumc":
            return self.enum_constant(n)
        return NOT_A_CALL

    def args_of(self, n):
        al = n.child_by_field_name("arguments")
        if al is None:
            return []
        return [c for c in al.named_children if c.type not in ("line_comment", "block_comment")]

    def call(self, n) -> CallResolution:
        r = self.cache.get(n.id)
        if r is not None:
            return r
        self.cache[n.id] = CallResolution(_UNRESOLVED, reason="recursive type inference")
        with self.within(self.context_at(n.start_byte)):
            r = self._call(n)
        self.cache[n.id] = r
        return r

    def _call(self, n) -> CallResolution:
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return CallResolution(_UNRESOLVED, reason="malformed invocation")
        name = _t(name_node)
        args = self.args_of(n)
        obj = n.child_by_field_name("object")
        has_super = any(c.type == "super" for c in n.children if c != obj)
        idx = self.idx
        if obj is None:
            return self.unqualified(name, args)
        if obj.type == "super":
            sup = self.superclass(self.ctx.type_key)
            if sup is None:
                return CallResolution(_UNRESOLVED, reason="super of a type whose superclass is unknown")
            return self.select(sup, name, args, virtual=False)
        if has_super:  # Interface.super.m() or Outer.super.m()
            k = self.as_type_name(obj)
            if k is None:
                return CallResolution(_UNRESOLVED, reason="unknown type in X.super.m()")
            td = idx.types.get(k)
            if td is not None and td.kind != "interface":
                k = self.superclass(k)
            if k is None:
                return CallResolution(_UNRESOLVED, reason="unknown type in X.super.m()")
            return self.select(k, name, args, virtual=False)
        if obj.type == "this":
            return self.select(self.ctx.type_key, name, args, virtual=True)
        if obj.type in ("identifier", "field_access", "scoped_identifier"):
            if obj.type == "identifier":
                ot, found = self.ident(_t(obj), obj.start_byte)
                if found:
                    if ot is None:
                        return self.by_name(name, args, "receiver variable of unknown type")
                    return self.on_type(ot, name, args)
                k = self.as_type_name(obj)
                if k is not None:
                    return self.select(k, name, args, virtual=False)
                return self.by_name(name, args, "receiver name is neither a variable nor a known type")
            ot = self.texpr(obj)
            if ot is not None:
                return self.on_type(ot, name, args)
            k = self.as_type_name(obj)
            if k is not None:
                return self.select(k, name, args, virtual=False)
            if self.unknown_enum_constant(obj):
                jdk = self.jdk_member(None, name, args, None, None, enum=True)
                if jdk is not None:
                    return jdk
            return self.by_name(name, args, "receiver expression of unknown type")
        ot = self.texpr(obj)
        if ot is None:
            return self.by_name(name, args, f"receiver {obj.type} of unknown type")
        return self.on_type(ot, name, args)

    def on_type(self, ot, name, args) -> CallResolution:
        tn = ot[0]
        if tn == "?":
            jdk = self.jdk_member(None, name, args, "?", None)
            if jdk is not None:
                return jdk
            return self.by_name(name, args, "receiver of an unknown library type")
        if tn in PRIMITIVES or tn in ("null", "λ"):
            return CallResolution(_UNRESOLVED, reason=f"method called on a {tn} value")
        if tn.endswith("[]"):
            tn = OBJECT
        return self.select(tn, name, args, virtual=True, recv=ot)

    def unqualified(self, name, args) -> CallResolution:
        idx = self.idx
        k = self.ctx.type_key
        first_unknown = None
        while k is not None:
            td = idx.types.get(k)
            if td is None:
                break
            lr = self.local_method(k, name, args)
            if lr is not None:
                return lr
            cands, unknown = idx.methods_named(k, name)
            if cands:
                return self.select(k, name, args, virtual=True)
            if unknown is not None and first_unknown is None:
                first_unknown = unknown.name
            k = td.outer
        for imp in self.ff.imports:
            if imp.static and not imp.on_demand and imp.name.endswith("." + name):
                owner = idx._resolve_qualified(imp.name[: -len(name) - 1])
                owner = owner or imp.name[: -len(name) - 1]
                return self.select(owner, name, args, virtual=False)
        unknown_owners = []
        for imp in self.ff.imports:
            if imp.static and imp.on_demand:
                owner = idx._resolve_qualified(imp.name)
                if owner:
                    cands, _ = idx.methods_named(owner, name)
                    if cands:
                        return self.select(owner, name, args, virtual=False)
                    if idx.solver.view(owner) is None:
                        unknown_owners.append(owner)
                else:
                    unknown_owners.append(imp.name)
        if first_unknown is not None:
            return self.star(first_unknown, name, _BY_ARITY)
        if len(unknown_owners) == 1:
            return self.star(unknown_owners[0], name, _GUESSED_BY_NAME,
                             reason="only candidate: a static on-demand import of an unknown type")
        return self.by_name(name, args, "no method of that name in scope")

    def local_method(self, k, name, args):
        td = self.idx.types.get(k)
        if td is None or not td.local:
            return None
        for m in td.methods:
            if m.name == name and (len(m.params) == len(args) or m.varargs):
                ret = None
                if m.returns is not None:
                    ret = self.ref(m.returns, MethodContext(k, self.ctx.method))
                return CallResolution(_LOCAL_CLASS, ret=ret)
        return None

    def star(self, owner, name, kind, reason=None) -> CallResolution:
        mid = f"{owner}.{name}(*)"
        idx = self.idx
        # ("?", ()): a value of an unknown library type
        return CallResolution(kind, (mid,), UNKNOWN_LIB, reason,
                    apis=(ApiTarget(mid, owner, name, idx.third_party(owner), idx.library_of(owner)),))

    def by_name(self, name, args, reason) -> CallResolution:
        n = len(args)
        if name == "getClass" and n == 0:  # final in Object: whatever the receiver is
            return self.jdk_member(None, name, args, None, None)
        ids = [i for i in self.idx.by_name.get(name, ()) if self._arity_ok(self.idx.by_id[i], n)]
        if not ids:
            return CallResolution(_UNRESOLVED, reason=reason)
        if len(ids) > _NAME_CAP:
            return CallResolution(_UNRESOLVED, reason=reason + f" (>{_NAME_CAP} same-name candidates)")
        return CallResolution(_GUESSED_BY_NAME, tuple(sorted(ids)), None, reason, guess=True)

    @staticmethod
    def _arity_ok(c, n):
        return arity_ok(c, n)

    def choose(self, cands, args):
        """(chosen list, decided_by_types) among candidates applicable by arity
        (``_overloads.choose``; argument types are typed only when needed)."""
        return choose(self.idx, cands, len(args), lambda: [self.texpr(a) for a in args])

    def select(self, t, name, args, *, virtual, recv=None) -> CallResolution:
        if t is None:
            return CallResolution(_UNRESOLVED, reason="receiver type unknown")
        idx = self.idx
        lr = self.local_method(t, name, args)
        if lr is not None:
            return lr
        cands, unknown = idx.methods_named(t, name)
        if not cands:
            if unknown is not None or idx.solver.view(t) is None:
                jdk = self.jdk_member(t, name, args, unknown.name if unknown is not None else None, recv)
                if jdk is not None:
                    return jdk
            if unknown is not None:
                return self.star(unknown.name, name, _BY_ARITY)
            if idx.solver.view(t) is None:
                return self.star(t, name, _BY_ARITY)
            # the receiver's type is known (site_type counts the site by it)
            return CallResolution(_UNRESOLVED, reason="no method of that name on the receiver type", recv=(t, ()))
        if len(cands) == 1 and unknown is None and self._arity_ok(cands[0], len(args)):
            return self.target(cands[0], _EXACT, t, args, recv, virtual)
        chosen, by_types = self.choose(cands, args)
        if not chosen:
            if unknown is not None:
                return self.star(unknown.name, name, _BY_ARITY)
            return CallResolution(_UNRESOLVED, reason="no overload with that number of arguments", recv=(t, ()))
        if len(chosen) == 1:
            c = chosen[0]
            if len(cands) == 1 and unknown is None:
                kind = _EXACT
            elif by_types:
                kind = _EXACT
            else:
                kind = _BY_ARITY
            return self.target(c, kind, t, args, recv, virtual)
        # undecided overload: a chained call goes on when every remaining
        # candidate returns the same type
        rets = {self.project_return(c, t, args, recv) if c.is_source else self.lib_return(c, recv, args)
                for c in chosen}
        common = rets.pop() if len(rets) == 1 else None
        libs = [c for c in chosen if not c.is_source]
        if libs:
            r = self.star(libs[0].owner, name, _BY_ARITY)
            if common is not None:
                r = r.returning(common)
            return r
        ids = tuple(sorted(c.info.id for c in chosen))
        return CallResolution(_GUESSED_BY_NAME, ids, common, "overload undecided among project methods")

    def unknown_enum_constant(self, obj) -> bool:
        """``T.CONSTANT`` where ``T`` is a type outside the project and the classpath
        and ``CONSTANT`` is an upper-case name: by Java's naming convention an
        enum constant (the only evidence there is without the library's jar)."""
        if obj.type != "field_access":
            return False
        o, f = obj.child_by_field_name("object"), obj.child_by_field_name("field")
        if o is None or f is None or f.type != "identifier":
            return False
        fname = _t(f)
        if not (fname[:1].isupper() and fname.upper() == fname):
            return False
        if o.type == "identifier" and self.ident(_t(o), o.start_byte)[1]:
            return False
        k = self.as_type_name(o)
        return k is not None and self.idx.solver.view(k) is None

    def jdk_member(self, t, name, args, unknown, recv, enum=False):
        """The ``java.lang.Object``/``Enum``/``Record`` member a call names when the
        receiver's hierarchy is not fully known (``unknown``: its first unknown
        supertype, or the receiver type itself), or None. ``enum``: the receiver
        is known to be an enum constant. Edge kind ``arity``: the declaration is
        the JDK's unless an unknown supertype overrides it."""
        n = len(args)
        k = (name, n)
        owner = None
        if enum or unknown == "java.lang.Enum":
            if k in _ENUM_MEMBERS or k in _ENUM_OWN:
                owner = "java.lang.Enum"
        elif unknown == "java.lang.Record" and k in _RECORD_OWN:
            owner = "java.lang.Record"
        if owner is None and k in _OBJECT_MEMBERS:
            owner = OBJECT
        if owner is None:
            return None
        idx = self.idx
        params = (_ENUM_MEMBERS.get(k) if owner == "java.lang.Enum" and k in _ENUM_MEMBERS
                  else _OBJECT_MEMBERS.get(k, ()))
        if idx.lib(owner) is not None:  # the JDK is indexed: its own declaration
            for c in idx.methods_named(owner, name)[0]:
                if not c.is_source and c.ptypes == params:
                    r = self.target(c, _BY_ARITY, owner, args, None, False)
                    if name == "getClass":
                        r = r.returning(("java.lang.Class", ()))
                    return r
        mid = f"{owner}.{name}({','.join(params)})"
        ret = {"hashCode": ("int", ()), "toString": STRING, "equals": ("boolean", ()), "name": STRING,
               "ordinal": ("int", ()), "compareTo": ("int", ()), "getClass": ("java.lang.Class", ())}.get(
            name, ("void", ()) if name in ("wait", "notify", "notifyAll") else None)
        return CallResolution(_BY_ARITY, (mid,), ret, None,
                    apis=(ApiTarget(mid, owner, name, idx.third_party(owner), idx.library_of(owner)),))

    def target(self, c, kind, t, args, recv, virtual) -> CallResolution:
        idx = self.idx
        if c.is_source:
            tid = c.info.id
            lib = ()
            ret = self.project_return(c, t, args, recv)
            ptypes = c.ptypes
            static = c.info.static or c.info.private or c.info.name == "<init>"
        else:
            tid = c.id
            lib = (ApiTarget(tid, c.owner, c.sig.name, idx.third_party(c.owner), idx.library_of(c.owner)),)
            ret = self.lib_return(c, recv, args)
            ptypes = c.ptypes
            static = c.sig.static or c.sig.access == "private" or c.sig.name == "<init>"
        cha = ()
        if virtual and not static and t in idx.types and not idx.types[t].local:
            if c.is_source:
                cha = tuple(i for i in idx.overriders(t, c.info.name, ptypes, c) if i != tid)
            else:
                cha = tuple(i for i in idx.overriders(t, c.sig.name, ptypes) if i != tid)
        return CallResolution(kind, (tid,), ret, None, cha, lib, c, recv)

    def project_return(self, c: MethodCandidate, t, args, recv):
        if c.returns is None:
            return (c.type_key, ()) if c.info.name == "<init>" else None
        r = c.returns
        if r[0] == "void":
            return ("void", ())
        idx = self.idx
        fi = idx.type_file[c.type_key]
        subst: dict = {}
        # class type variables from the receiver's type arguments
        td = idx.types.get(c.type_key)
        tps = [n for n, _ in td.type_params] if td else []
        if tps:
            if recv is None and self.ctx.type_key is not None:
                recv = (self.ctx.type_key, ())  # an unqualified call: the receiver is `this`
            targs = None
            if recv is not None:
                targs = recv[1] if recv[0] == c.type_key else idx.super_type_args(recv[0], recv[1], c.type_key)
            if targs and len(targs) == len(tps):
                for n, a in zip(tps, targs):
                    if a is not None:
                        subst[n] = a
        # method type variables inferred from arguments declared with them
        if c.tparams and c.decl is not None:
            for i, (_, pref) in enumerate(c.decl.params):
                if i >= len(args):
                    break
                if pref[2] == 0 and pref[0] in c.tparams and not pref[1] and pref[0] not in subst:
                    a = self.texpr(args[i])
                    if a is not None and a[0] not in ("null", "λ"):
                        subst[pref[0]] = a
                elif pref[0] == "Class" and len(pref[1]) == 1 and pref[1][0][0] in c.tparams:
                    a = self.texpr(args[i])
                    if a is not None and a[0] == "java.lang.Class" and a[1] and a[1][0]:
                        subst[pref[1][0][0]] = a[1][0]
        if subst:
            return idx.subst_ref(r, fi, c.type_key, c.tparams or None, subst)
        return idx.resolve_ref(r, fi, c.type_key, c.tparams or None)

    def lib_return(self, c: MethodCandidate, recv, args=()):
        """Return type of library method ``c`` called on ``recv`` (None: static or
        unqualified) with argument nodes ``args``: the method's ``Signature``
        with the class type variables substituted from the receiver's type
        arguments (through the supertypes' Signatures, wildcards captured) and
        the method's own type variables inferred from the arguments (JLS
        §18.5.1, only where an argument's type determines the variable
        exactly); else the erased return type."""
        sig = c.sig
        if sig.name == "<init>":
            return (c.owner, ())
        rt = sig.returns
        idx = self.idx
        ms = idx.lib_method_sig(sig) if sig.generic_returns else None
        if ms is not None:
            subst = self.lib_subst(c, ms, recv, args)
            try:
                t = idx.jtuple(ms.returns, subst)
            except RecursionError:
                t = None
            if t is not None and t[0] != "?":
                return t
        if not rt:
            return None
        return (rt, ())

    def lib_subst(self, c: MethodCandidate, ms, recv, args) -> dict:
        """{type variable: type or None} for a call of library method ``c`` (its
        parsed Signature ``ms``): the class's variables from the receiver, the
        method's own inferred from the arguments."""
        sig = c.sig
        idx = self.idx
        subst: dict = {}
        if recv is None and not sig.static and self.ctx.type_key is not None:
            recv = (self.ctx.type_key, ())  # an unqualified call: the receiver is `this`
        # a raw library receiver (javac erases its members): no substitution
        raw = recv is not None and not recv[1] and recv[0] not in idx.types and bool(
            idx.lib_type_params(recv[0]))
        if recv is not None and not raw and not sig.static:
            if recv[0] == c.owner:
                r = recv if recv[1] else None
            else:
                ta = idx.super_type_args(recv[0], idx.capture_lib(recv)[1], c.owner)
                r = (c.owner, ta) if ta else None
            r = idx.capture_lib(r)
            if r is not None:
                tps = idx.lib_type_params(c.owner)
                if len(tps) == len(r[1]):
                    subst = {tp.name: a for tp, a in zip(tps, r[1])}
        if ms.type_params:
            subst.update(self.infer_lib(ms, sig.varargs, args, subst))
        return subst

    def infer_lib(self, ms, varargs: bool, args, csubst=None) -> dict:
        """{method type variable: inferred type or None} from the argument nodes:
        a variable gets an argument's type where a parameter is the variable,
        ``Class<V>``, an array of it or a generic type of it, or the type of an
        expression-bodied lambda where the parameter is a functional interface
        whose function type returns it (``Function<? super T, ? extends U>``);
        conflicting evidence leaves it unknown (javac would take a least upper
        bound). ``csubst``: the class's type variables, for the lambdas'
        parameter types."""
        mvars = {tp.name for tp in ms.type_params}
        got: dict = {}
        bad: set = set()
        ps = ms.params
        n = len(args)
        if not n or not ps:
            return {v: None for v in mvars}
        ats = [self.texpr(a) for a in args]
        pairs = []
        if varargs and isinstance(ps[-1], JArray):
            last_arr = n == len(ps) and ats[-1] is not None and (ats[-1][0].endswith("[]") or ats[-1][0] == "null")
            for i, a in enumerate(ats):
                if i < len(ps) - 1:
                    pairs.append((ps[i], a))
                elif last_arr:
                    pairs.append((ps[-1], a))
                else:
                    pairs.append((ps[-1].elem, a))
        elif n == len(ps):
            pairs = list(zip(ps, ats))
        lams = []
        for k, (p, a) in enumerate(pairs):
            if a is not None and a[0] == "λ" and args[k].type == "lambda_expression":
                lams.append((p, args[k]))
            else:
                self._unify(p, a, mvars, got, bad, 0)
        for p, lam in lams:
            self._unify_lambda(p, lam, mvars, got, bad, csubst or {})
        return {v: (None if v in bad else got.get(v)) for v in mvars}

    def _unify_lambda(self, p, lam, mvars, got, bad, csubst):
        """Bind the method type variable a functional-interface parameter ``p``
        returns (``? extends U`` of ``Function<T, R>``'s ``R``) to the type of
        lambda ``lam``'s expression body, its parameters typed from ``p``."""
        body = lam.child_by_field_name("body")
        if not isinstance(p, JClass) or not p.args or body is None or body.type == "block":
            return
        idx = self.idx
        sm = idx.sam_method(p.name)
        if sm is None or sm[0] != p.name or sm[1].is_source:
            return
        sms = idx.lib_method_sig(sm[1].sig)
        tps = idx.lib_type_params(p.name)
        if sms is None or sms.type_params or not isinstance(sms.returns, JTypeVar) or len(tps) != len(p.args):
            return
        k = next((j for j, tp in enumerate(tps) if tp.name == sms.returns.name), None)
        if k is None:
            return
        ra = p.args[k]
        if isinstance(ra, JWildcard):
            if not ra.upper or ra.bound is None:
                return
            ra = ra.bound
        if not isinstance(ra, JTypeVar) or ra.name not in mvars or ra.name in got:
            return
        known = dict(csubst)
        known.update({v: got.get(v) for v in mvars if v not in bad})
        self._lam_target[lam.id] = self.function_target(p, known)
        try:
            bt = self.texpr(body)
        finally:
            self._lam_target.pop(lam.id, None)
        if bt is not None and bt[0] != "void":
            self._unify(ra, bt, mvars, got, bad, 0)

    def _unify(self, p, a, mvars, got, bad, depth):
        if a is None or depth > 8 or a[0] in ("null", "λ", "?"):
            return
        if isinstance(p, JTypeVar):
            if p.name not in mvars:
                return
            if a[0] in PRIMITIVES:
                if a[0] == "void":
                    return
                a = (BOX[a[0]], ())
            prev = got.get(p.name)
            if prev is None:
                got[p.name] = a
            elif prev != a:
                bad.add(p.name)
            return
        if isinstance(p, JArray):
            if a[0].endswith("[]"):
                el = a[0][:-2]
                if el not in PRIMITIVES:
                    self._unify(p.elem, (el, a[1]), mvars, got, bad, depth + 1)
            return
        if isinstance(p, JClass) and p.args:
            if a[0] in PRIMITIVES:
                return
            ta = a[1] if a[0] == p.name else self.idx.super_type_args(a[0], a[1], p.name)
            if not ta or len(ta) != len(p.args):
                return
            for pa, aa in zip(p.args, ta):
                if isinstance(pa, JWildcard):
                    if pa.upper and pa.bound is not None:
                        self._unify(pa.bound, aa, mvars, got, bad, depth + 1)
                else:
                    self._unify(pa, aa, mvars, got, bad, depth + 1)

    # ----------------------------------------------------------- constructors
    def new(self, n) -> CallResolution:
        ty = n.child_by_field_name("type")
        if ty is None:
            return CallResolution(_UNRESOLVED, reason="malformed creation")
        tr = type_ref(ty)
        # `outer.new Inner()`: the qualifying expression comes before `new`
        outer = None
        for c in n.children:
            if c.type == "new":
                break
            if c.is_named and c.type not in ("line_comment", "block_comment"):
                outer = c
        t = None
        if outer is not None:
            ot = self.texpr(outer)
            if ot is not None:
                t = self.idx.member_type(ot[0], tr[0])
        if t is None:
            rt = self.ref(tr)
            t = rt[0] if rt is not None else None
        if t is None:
            return CallResolution(_UNRESOLVED, reason="created type not found")
        anon = any(c.type == "class_body" for c in n.named_children)
        args = self.args_of(n)
        idx = self.idx
        if anon:
            v = idx.solver.view(t)
            if v is not None and v.kind in ("interface", "annotation"):
                return NOT_A_CALL
        td = idx.types.get(t)
        if td is not None and td.local:
            return CallResolution(_LOCAL_CLASS, ret=(t, ()))
        r = self.select(t, "<init>", args, virtual=False)
        if r.ret is None and r.resolution is not _UNRESOLVED:
            r = r.returning((t, ()))
        return r

    def explicit_ctor(self, n) -> CallResolution:
        k = n.child_by_field_name("constructor")
        args = self.args_of(n)
        if self.ctx.type_key is None:
            return NOT_A_CALL
        if k is not None and k.type == "this":
            return self.select(self.ctx.type_key, "<init>", args, virtual=False)
        sup = self.superclass(self.ctx.type_key)
        if sup is None:
            return CallResolution(_UNRESOLVED, reason="superclass unknown")
        if sup in (OBJECT, "java.lang.Enum", "java.lang.Record"):
            return NOT_A_CALL
        return self.select(sup, "<init>", args, virtual=False)

    def enum_constant(self, n) -> CallResolution:
        if self.ctx.type_key is None:
            return NOT_A_CALL
        td = self.idx.types.get(self.ctx.type_key)
        if td is None or td.kind != "enum":
            return NOT_A_CALL
        r = self.select(self.ctx.type_key, "<init>", self.args_of(n), virtual=False)
        if r.resolution is _EXACT and r.targets:
            p = self.idx.by_id.get(r.targets[0])
            if p is not None and p.decl is None and p.info.generated_by == "javac":
                return NOT_A_CALL  # the implicit constructor of an enum runs no code of its own
        return r

    def generated_calls(self):
        """Calls made by generated members (a Lombok ``@Delegate`` method calls
        the delegate's method), on the generated member's line."""
        idx = self.idx
        for src, dst, api in idx.gen_edges.get(self.fi, ()):
            self.res.edge(src, dst, idx.by_id[src].info.start_line, _EXACT)
            if api is not None:
                self.res.apis.setdefault(dst, api)

    def implicit_super_calls(self):
        """Constructors without ``this(...)``/``super(...)`` call the superclass's
        no-argument constructor (JLS 8.8.7)."""
        idx = self.idx
        for td in self.ff.types:
            if td.local or td.kind != "class" or (idx.types.get(td.key) is not td
                                                  and id(td) not in self.merged):
                continue
            sup = self.superclass(td.key)
            if sup is None or sup == OBJECT:
                continue
            self.ctx = MethodContext(td.key, None)
            for p in idx.methods.get(td.key, ()):
                if p.info.file != self.ff.rel:
                    continue
                if p.info.name != "<init>" or (p.decl is not None and p.decl.explicit_ctor_call):
                    continue
                if p.info.generated_by == "lombok.experimental.SuperBuilder":
                    # @SuperBuilder's constructor calls super(builder): the parent's own
                    sup_ctor = [q.info.id for q in idx.methods.get(sup, ())
                                if q.info.name == "<init>" and q.info.generated_by == p.info.generated_by]
                    for mid in sup_ctor:
                        self.res.edge(p.info.id, mid, p.info.start_line, _EXACT)
                    continue
                r = self.select(sup, "<init>", [], virtual=False)
                self.emit((0, 0, (p.info.id,)), r, p.info.start_line)

    def method_ref(self, n) -> CallResolution:
        kids = n.named_children
        if not kids:
            return NOT_A_CALL
        recv = kids[0]
        last = n.children[-1]
        name = "<init>" if last.type == "new" else _t(last)
        idx = self.idx
        if recv.type == "array_type":
            return NOT_A_CALL
        type_recv = False
        if recv.type == "super":
            t = self.superclass(self.ctx.type_key)
        elif recv.type == "this":
            t = self.ctx.type_key
        else:
            t = None
            if recv.type == "identifier":
                ot, found = self.ident(_t(recv), recv.start_byte)
                if found:
                    t = ot[0] if ot else None
                    if t is None:
                        return CallResolution(_UNRESOLVED, reason="method reference on a variable of unknown type")
                else:
                    t = self.as_type_name(recv)
                    type_recv = True
            else:
                t = self.as_type_name(recv)
                type_recv = t is not None
                if t is None:
                    ot = self.texpr(recv)
                    t = ot[0] if ot else None
        if t is None:
            return CallResolution(_UNRESOLVED, reason="method reference receiver unknown")
        if t.endswith("[]"):
            t = OBJECT
        td = idx.types.get(t)
        if td is not None and td.local:
            return CallResolution(_LOCAL_CLASS)
        cands, unknown = idx.methods_named(t, name)
        if name == "<init>" and not cands and td is not None:
            return NOT_A_CALL
        if not cands:
            if unknown is not None or idx.solver.view(t) is None:
                return self.star(unknown.name if unknown is not None else t, name, _BY_ARITY)
            return CallResolution(_UNRESOLVED, reason="no method of that name on the reference's type")
        if len(cands) == 1 and unknown is None:
            return self.target(cands[0], _EXACT, t, [], None, name != "<init>")
        sam = self.target_sam(n)
        if isinstance(sam, tuple) and unknown is None:
            # the functional interface the reference is converted to decides
            # the arity (JLS 15.13.1); Type::instanceMethod takes the receiver
            # as the first argument
            fit = []
            for c in cands:
                static = c.static
                k = sam[0] - 1 if (type_recv and not static and name != "<init>") else sam[0]
                if k >= 0 and self._arity_ok(c, k):
                    fit.append(c)
            if len(fit) == 1:
                return self.target(fit[0], _BY_ARITY, t, [], None, name != "<init>")
        libs = [c for c in cands if not c.is_source]
        if libs:
            return self.star(libs[0].owner, name, _BY_ARITY)
        return CallResolution(_GUESSED_BY_NAME, tuple(sorted(c.info.id for c in cands)), None,
                    "method reference to an overloaded project method")

    def lambda_param_type(self, lam, i: int):
        """Type of untyped parameter ``i`` of lambda ``lam`` (JLS §15.27.3): the
        parameter type of the function type of its target — an argument of a
        call decided exactly (the parameter's type after substitution) or the
        initializer of a declared local — or None."""
        p = lam.parent
        if p is None:
            return None
        idx = self.idx
        ft = self._lam_target.get(lam.id)  # the target functional interface type (tuple)
        if ft is not None:
            pass  # provisional, while the enclosing call's type arguments are inferred
        elif p.type == "argument_list" and p.parent is not None and p.parent.type == "method_invocation":
            call = p.parent
            args = [a for a in p.named_children if a.type not in ("line_comment", "block_comment")]
            pos = next((k for k, a in enumerate(args) if a.id == lam.id), None)
            r = self.call(call)
            c = r.cand
            if pos is None or c is None or r.resolution is not _EXACT:
                return None
            if not c.is_source:
                ms = idx.lib_method_sig(c.sig)
                if ms is None:
                    ft = (c.ptypes[pos], ()) if pos < len(c.ptypes) and not c.sig.varargs else None
                else:
                    if pos >= len(ms.params) or (c.sig.varargs and pos >= len(ms.params) - 1):
                        return None
                    pt = ms.params[pos]
                    if not isinstance(pt, JClass):
                        return None
                    subst = self.lib_subst(c, ms, r.recv, args)
                    ft = self.function_target(pt, subst)
            else:
                if c.decl is None or pos >= len(c.decl.params) or c.info.varargs or c.tparams:
                    return None
                ref = c.decl.params[pos][1]
                if _mentions_tvar(ref, self.idx.tparams_of(c.type_key)):
                    return None
                ft = self.function_target_ref(ref, idx.type_file[c.type_key], c.type_key, None)
        elif p.type == "variable_declarator" and p.parent is not None \
                and p.parent.type in ("local_variable_declaration", "field_declaration"):
            ty = p.parent.child_by_field_name("type")
            if ty is not None and _t(ty) != "var":
                ft = self.function_target_ref(type_ref(ty), self.fi, self.ctx.type_key, self.mtp())
        elif p.type == "return_statement":
            # `return x -> ...`: the target is the enclosing method's declared return
            # type (JLS 14.17, 15.27.3); inside a lambda body it is that lambda's, unknown here
            m = p.parent
            while m is not None and m.type not in ("method_declaration", "lambda_expression", "class_body",
                                                   "constructor_declaration", "compact_constructor_declaration"):
                m = m.parent
            ty = m.child_by_field_name("type") if m is not None and m.type == "method_declaration" else None
            if ty is not None:
                ft = self.function_target_ref(type_ref(ty), self.fi, self.ctx.type_key, self.mtp())
        if ft is None or ft[0] in PRIMITIVES or ft[0].endswith("[]"):
            return None
        sm = idx.sam_method(ft[0])
        if sm is None:
            return None
        owner, m = sm
        if not m.is_source:
            ms = idx.lib_method_sig(m.sig)
            if ms is None:
                return (m.ptypes[i], ()) if i < len(m.ptypes) else None
            if ms.type_params or i >= len(ms.params):
                return None  # a generic function type: no lambda fits it (JLS 15.27.3)
            ta = ft[1] if owner == ft[0] else idx.super_type_args(ft[0], ft[1], owner)
            tps = idx.lib_type_params(owner)
            subst = {tp.name: a for tp, a in zip(tps, ta)} if ta and len(ta) == len(tps) else {}
            return idx.jtuple(ms.params[i], subst)
        if m.decl is None or i >= len(m.decl.params) or m.tparams:
            return None
        ref = m.decl.params[i][1]
        tps = [n for n, _ in idx.types[owner].type_params] if owner in idx.types else []
        ta = ft[1] if owner == ft[0] else idx.super_type_args(ft[0], ft[1], owner)
        subst = {n: a for n, a in zip(tps, ta or ()) if a is not None} if ta and len(ta) == len(tps) else {}
        if _mentions_tvar(ref, {n: None for n in tps if n not in subst}) or \
                _mentions_tvar(ref, self.idx.tparams_of(idx.types[owner].outer) if owner in idx.types else {}):
            return None
        return idx.subst_ref(ref, idx.type_file[owner], owner, None, subst)

    def function_target_ref(self, ref, fi, key, mt):
        """A declared functional-interface type (TypeRef) as the tuple its function
        type is derived from (JLS §9.9): ``? extends B``/``? super B`` → B, ``?``
        → unknown."""
        idx = self.idx
        base = idx.resolve_ref((ref[0], (), ref[2]), fi, key, mt)
        if base is None or ref[2] or not ref[1]:
            return base
        out = []
        for a in ref[1]:
            if a[0] in ("?", "?super"):
                out.append(idx.resolve_ref(a[1][0], fi, key, mt) if a[1] else None)
            else:
                out.append(idx.resolve_ref(a, fi, key, mt))
        return (base[0], tuple(out))

    def function_target(self, pt, subst):
        """A functional-interface parameter type (JType) as the tuple its function
        type is derived from (JLS §9.9): ``? extends B`` and ``? super B`` → B,
        ``?`` → the formal's bound when it is not Object, else unknown."""
        idx = self.idx
        if not pt.args:
            return (pt.name, ())
        out = []
        tps = idx.lib_type_params(pt.name)
        for k, a in enumerate(pt.args):
            if isinstance(a, JWildcard):
                if a.bound is not None:
                    out.append(idx.jtuple(a.bound, subst))
                else:
                    b = tps[k].bounds if k < len(tps) else ()
                    out.append(idx.jtuple(b[0], {}) if b and not (isinstance(b[0], JClass)
                                                                 and b[0].name == OBJECT) else None)
            else:
                out.append(idx.jtuple(a, subst))
        return (pt.name, tuple(out))

    def target_sam(self, n):
        """SAM (arity, returns_void) of the functional interface a method reference
        or lambda is converted to, when its context says: an argument of a
        decided call, or the initializer of a declared local. Else None."""
        p = n.parent
        if p is None:
            return None
        ptype = None
        if p.type == "argument_list":
            call = p.parent
            args = [c for c in p.named_children if c.type not in ("line_comment", "block_comment")]
            pos = next((i for i, a in enumerate(args) if a.id == n.id), None)
            if pos is None or call is None or call.type != "method_invocation":
                return None
            c = self.call(call).cand
            if c is None:
                return None
            pt = c.ptypes
            varargs = c.varargs
            if pos < len(pt) - 1 or (pos == len(pt) - 1 and not varargs):
                ptype = pt[pos]
            elif varargs and pt:
                ptype = pt[-1][:-2]
        elif p.type == "variable_declarator" and p.parent is not None:
            ty = p.parent.child_by_field_name("type")
            if ty is not None and _t(ty) != "var":
                r = self.ref(type_ref(ty))
                ptype = r[0] if r else None
        if ptype is None or ptype in PRIMITIVES or ptype.endswith("[]"):
            return None
        return self.idx.sam(ptype)
