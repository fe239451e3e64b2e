"""Call-site resolution (pass 2): which methods a method invocation calls.

The ``FileResolver`` mixin :class:`CallSites` resolves a method invocation
(JLS §15.12): the receiver (``super``, ``X.super``, ``this``, a variable,
a type name, any expression), the class or interface to search
(§15.12.1), the candidates of that name through project, classpath and JDK
(``ProjectIndex.methods_named``), the overload (``_overloads.choose``, JLS
§15.12.2 phases 1–3), and the result — a frozen ``CallResolution`` with its
``Resolution`` (exact, by arity, by name), CHA targets of a virtual call and
the return type for a chained call. ``Object``/``Enum``/``Record`` members
are found even when a receiver's hierarchy is partly unknown. Nothing is
guessed silently: every guess by name carries its reason.
"""

from __future__ import annotations

from ._callsite import NOT_A_CALL, ApiTarget, CallResolution
from ._callsite import Resolution as R
from ._types import UNKNOWN_LIB, LambdaT, NullT, UnknownT
from ._index import OBJECT, PRIMITIVES
from ._overloads import arity_ok, choose
from ._facts import _F_ARGUMENTS, _F_FIELD, _F_NAME, _F_OBJECT, NODE_TYPE
from ._scopes import _UNASKED, MethodContext
from ._texpr import BOOLEAN, CLASS, INT, STRING, VOID

# the members as module globals: a class attribute look-up on an Enum costs
# more than a global one, on the path of every call site
_BY_ARITY = R.BY_ARITY
_EXACT = R.EXACT
_GUESSED_BY_NAME = R.GUESSED_BY_NAME
_LOCAL_CLASS = R.LOCAL_CLASS
_UNRESOLVED = R.UNRESOLVED
# values that have no members to call (a prebuilt tuple: built per call otherwise)
_NO_MEMBERS_T = (NullT, LambdaT)
_COMMENTS = frozenset({"line_comment", "block_comment"})
# a call's answer while it is being resolved: a call whose typing needs its own
# type (through a lambda's inferred parameters) finds this one
_RECURSIVE = CallResolution(_UNRESOLVED, reason="recursive type inference")
_new = tuple.__new__

_NAME_CAP = 30  # more same-name candidates than this: too vague to keep even as `name` edges
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


class CallSites:
    """Method invocations (see module docstring)."""

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
        al = n.child_by_field_id(_F_ARGUMENTS)
        if al is None or not al.named_child_count:
            return []
        return [c for c in al.named_children if NODE_TYPE[c.kind_id] not in _COMMENTS]

    def call(self, n) -> CallResolution:
        nid = n.id
        cache = self.cache
        r = cache.get(nid)
        if r is not None:
            return r
        cache[nid] = _RECURSIVE
        with self.within(self.context_at(n.start_byte)):
            r = cache[nid] = self._call(n, n.child_by_field_id(_F_NAME))
        return r

    def call_site(self, n, name_node) -> CallResolution:
        """:meth:`call` for a call site ``FileResolver.run`` visits: the context
        is already the site's own (``run`` set it), and ``name_node`` is the
        invocation's ``name`` child, which ``run`` also needs for the line."""
        nid = n.id
        cache = self.cache
        r = cache.get(nid)
        if r is not None:
            return r
        cache[nid] = _RECURSIVE
        r = cache[nid] = self._call(n, name_node)
        return r

    def _call(self, n, name_node) -> CallResolution:
        if name_node is None:
            return CallResolution(_UNRESOLVED, reason="malformed invocation")
        name = self._tx(name_node)
        args = self.args_of(n)
        obj = n.child_by_field_id(_F_OBJECT)
        idx = self.idx
        if obj is None:
            return self.unqualified(name, args)
        okind = NODE_TYPE[obj.kind_id]
        if okind == "super":
            sup = self.superclass(self.ctx.type_key)
            if sup is None:
                return CallResolution(_UNRESOLVED, reason="super of a type whose superclass is unknown")
            return self.select(sup, name, args, virtual=False)
        # `X.super.m()` has at least X . super . m (args): five children; most
        # calls have four (`o.m(args)`), so their children are not listed
        if n.child_count >= 5 and any(NODE_TYPE[c.kind_id] == "super" for c in n.children if c != obj):
            # Interface.super.m() or Outer.super.m()
            k = self.as_type_name(obj)
            if k is None:
                return CallResolution(_UNRESOLVED, reason="unknown type in X.super.m()")
            td = idx.types.get(k)
            if td is not None and td.kind != "interface":
                k = self.superclass(k)
            if k is None:
                return CallResolution(_UNRESOLVED, reason="unknown type in X.super.m()")
            return self.select(k, name, args, virtual=False)
        if okind == "this":
            return self.select(self.ctx.type_key, name, args, virtual=True)
        if okind in ("identifier", "field_access", "scoped_identifier"):
            if okind == "identifier":
                ot, found = self.ident(self._tx(obj), obj.start_byte)
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
            return self.by_name(name, args, f"receiver {okind} of unknown type")
        return self.on_type(ot, name, args)

    def on_type(self, ot, name, args) -> CallResolution:
        tn = ot[0]
        if type(ot) is UnknownT:
            jdk = self.jdk_member(None, name, args, None, None)
            if jdk is not None:
                return jdk
            return self.by_name(name, args, "receiver of an unknown library type")
        if tn in PRIMITIVES or type(ot) in _NO_MEMBERS_T:
            return CallResolution(_UNRESOLVED, reason=f"method called on a {tn} value")
        if tn.endswith("[]"):
            tn = OBJECT
        return self.select(tn, name, args, virtual=True, recv=ot)

    def unqualified(self, name, args) -> CallResolution:
        idx = self.idx
        k = self.ctx.type_key
        first_unknown = None
        while k is not None:
            td = self.tdecl(k)
            if td is None:
                break
            lr = self.local_method(k, name, args)
            if lr is not None:
                return lr
            cands, unknown = self.named(k, name)
            if cands:
                return self.select(k, name, args, virtual=True)
            if unknown is not None and first_unknown is None:
                first_unknown = unknown.name
            k = td.outer
        for imp in self.ff.imports:
            if imp.static and not imp.on_demand and imp.name.endswith("." + name):
                owner = self.qualified(imp.name[: -len(name) - 1])
                owner = owner or imp.name[: -len(name) - 1]
                return self.select(owner, name, args, virtual=False)
        unknown_owners = []
        for imp in self.ff.imports:
            if imp.static and imp.on_demand:
                owner = self.qualified(imp.name)
                if owner:
                    cands, _ = self.named(owner, name)
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
        # asked at every select: whether ``k`` is a local class
        td = self._tds.get(k, _UNASKED)
        if td is _UNASKED:
            td = self.tdecl(k)
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
        # one answer per file for the same arguments (a file calls the same
        # methods of an unknown type at many sites); the index's answers it
        # uses are the environment's (not recorded)
        k = (owner, name, kind, reason)
        r = self._stars.get(k)
        if r is None:
            mid = f"{owner}.{name}(*)"
            idx = self.idx
            # the call returns a value of an unknown library type
            r = self._stars[k] = CallResolution(
                kind, (mid,), UNKNOWN_LIB, reason,
                apis=(ApiTarget(mid, owner, name, idx.third_party(owner), idx.library_of(owner)),))
        return r

    def by_name(self, name, args, reason) -> CallResolution:
        n = len(args)
        if name == "getClass" and n == 0:  # final in Object: whatever the receiver is
            return self.jdk_member(None, name, args, None, None)
        # the same names at many sites of a file: once per file and arity
        ids = self._by_name.get((name, n))
        if ids is None:
            by_id = self.idx.by_id
            ids = self._by_name[(name, n)] = [i for i in self.idx.by_name.get(name, ()) if arity_ok(by_id[i], n)]
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
        # the resolver's memos of is_subtype and sam answer for the index
        return choose(self, cands, len(args), lambda: [self.texpr(a) for a in args])

    def select(self, t, name, args, *, virtual, recv=None) -> CallResolution:
        if t is None:
            return CallResolution(_UNRESOLVED, reason="receiver type unknown")
        idx = self.idx
        lr = self.local_method(t, name, args)
        if lr is not None:
            return lr
        cands, unknown = self.named(t, name)
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
        if NODE_TYPE[obj.kind_id] != "field_access":
            return False
        o, f = obj.child_by_field_id(_F_OBJECT), obj.child_by_field_id(_F_FIELD)
        if o is None or f is None or NODE_TYPE[f.kind_id] != "identifier":
            return False
        fname = self._tx(f)
        if not (fname[:1].isupper() and fname.upper() == fname):
            return False
        if NODE_TYPE[o.kind_id] == "identifier" and self.ident(self._tx(o), o.start_byte)[1]:
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
                        r = r.returning(CLASS)
                    return r
        mid = f"{owner}.{name}({','.join(params)})"
        ret = {"hashCode": INT, "toString": STRING, "equals": BOOLEAN, "name": STRING,
               "ordinal": INT, "compareTo": INT, "getClass": CLASS}.get(
            name, VOID if name in ("wait", "notify", "notifyAll") else None)
        return CallResolution(_BY_ARITY, (mid,), ret, None,
                    apis=(ApiTarget(mid, owner, name, idx.third_party(owner), idx.library_of(owner)),))

    def named(self, t: str, name: str):
        """``ProjectIndex.methods_named(t, name)``, memoised per file: a file asks
        the same (type, name) at many call sites, and with a warm cache each
        ask of the index is also recorded (``_deps.RecordingIndex``), where a
        repeat only adds a duplicate that is dropped when the row is stored."""
        k = (t, name)
        r = self._named.get(k)
        if r is None:
            r = self._named[k] = self.idx.methods_named(t, name)
        return r

    def target(self, c, kind, t, args, recv, virtual) -> CallResolution:
        idx = self.idx
        if c.is_source:
            tid = c.info.id
            lib = ()
            ret = self.project_return(c, t, args, recv)
            static = c.info.static or c.info.private or c.info.name == "<init>"
        else:
            tid = c.id
            lib = self._lib_api.get(tid)
            if lib is None:  # the same ApiTarget for each call of it in the file
                lib = self._lib_api[tid] = (ApiTarget(tid, c.owner, c.sig.name, idx.third_party(c.owner),
                                                      idx.library_of(c.owner)),)
            ret = self.lib_return(c, recv, args)
            static = c.sig.static or c.sig.access == "private" or c.sig.name == "<init>"
        cha = ()
        if virtual and not static:
            td = self._tds.get(t, _UNASKED)
            if td is _UNASKED:
                td = self.tdecl(t)
        else:
            td = None
        if td is not None and not td.local:
            # CHA targets depend on the static type and the method alone:
            # once per file (the same ``list.add`` at many call sites)
            ck = (t, id(c))
            cha = self._cha.get(ck)
            if cha is None:
                if c.is_source:
                    cha = tuple(i for i in idx.overriders(t, c.info.name, c.ptypes, c) if i != tid)
                else:
                    cha = tuple(i for i in idx.overriders(t, c.sig.name, c.ptypes) if i != tid)
                self._cha[ck] = cha
            if not cha and c.is_source and c.abstract:
                # a bodyless project method no project type implements, which
                # re-declares a library method (a Spring Data repository's
                # ``findById(Integer)``): what runs is the library's, so the call
                # reaches that API too, as it does when the project does not
                # re-declare it
                over = idx.library_overridden(c)
                if over is not None:
                    oid, owner = over
                    lib = self._lib_api.get(oid)
                    if lib is None:
                        lib = self._lib_api[oid] = (ApiTarget(oid, owner, c.info.name, idx.third_party(owner),
                                                              idx.library_of(owner)),)
                    return _new(CallResolution, (kind, (tid, oid), ret, None, cha, lib, c, recv, False))
        # tuple.__new__: the NamedTuple without its Python-level constructor (one per call site)
        return _new(CallResolution, (kind, (tid,), ret, None, cha, lib, c, recv, False))
