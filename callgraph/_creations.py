"""Constructors, enum constants and method references (pass 2).

The ``FileResolver`` mixin :class:`Creations` resolves class instance
creation (``new``, ``outer.new Inner()``, anonymous classes → the
superclass constructor; JLS §15.9), explicit and implicit constructor
invocations (``this(..)``/``super(..)`` and the implicit ``super()`` of
JLS §8.8.7), enum constants (their constructor), the calls generated
members make (Lombok ``@Delegate``), and method references (JLS §15.13:
``Type::m``, ``expr::m``, ``super::m``, ``Type::new``), whose arity the
target functional interface decides.
"""

from __future__ import annotations

from ._facts import _F_CONSTRUCTOR, _F_TYPE, NODE_TYPE, type_ref
from ._callsite import NOT_A_CALL, CallResolution
from ._callsite import Resolution as R
from ._index import OBJECT
from ._scopes import MethodContext

# the members as module globals: a class attribute look-up on an Enum costs
# more than a global one, on the path of every call site
_BY_ARITY = R.BY_ARITY
_EXACT = R.EXACT
_GUESSED_BY_NAME = R.GUESSED_BY_NAME
_LOCAL_CLASS = R.LOCAL_CLASS
_UNRESOLVED = R.UNRESOLVED


class Creations:
    """Creations, constructor invocations and method references (see module docstring)."""

    def new(self, n) -> CallResolution:
        ty = n.child_by_field_id(_F_TYPE)
        if ty is None:
            return CallResolution(_UNRESOLVED, reason="malformed creation")
        tr = type_ref(ty, self.src)
        # `outer.new Inner()`: the qualifying expression comes before `new`
        outer = None
        for c in n.children:
            if NODE_TYPE[c.kind_id] == "new":
                break
            if c.is_named and NODE_TYPE[c.kind_id] not in ("line_comment", "block_comment"):
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
        anon = any(NODE_TYPE[c.kind_id] == "class_body" for c in n.named_children)
        args = self.args_of(n)
        idx = self.idx
        if anon:
            v = idx.solver.view(t)
            if v is not None and v.kind in ("interface", "annotation"):
                return NOT_A_CALL
        td = self.tdecl(t)
        if td is not None and td.local:
            return CallResolution(_LOCAL_CLASS, ret=(t, ()))
        r = self.select(t, "<init>", args, virtual=False)
        if r.ret is None and r.resolution is not _UNRESOLVED:
            r = r.returning((t, ()))
        return r

    def explicit_ctor(self, n) -> CallResolution:
        k = n.child_by_field_id(_F_CONSTRUCTOR)
        args = self.args_of(n)
        if self.ctx.type_key is None:
            return NOT_A_CALL
        if k is not None and NODE_TYPE[k.kind_id] == "this":
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
        td = self.tdecl(self.ctx.type_key)
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
            self.res.edge(src, dst, (idx.by_id[src].info.start_line,), _EXACT)
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
                        self.res.edge(p.info.id, mid, (p.info.start_line,), _EXACT)
                    continue
                r = self.select(sup, "<init>", [], virtual=False)
                self.emit((0, 0, (p.info.id,)), r, p.info.start_line)

    def method_ref(self, n) -> CallResolution:
        kids = n.named_children
        if not kids:
            return NOT_A_CALL
        recv = kids[0]
        last = n.children[-1]
        name = "<init>" if NODE_TYPE[last.kind_id] == "new" else self._tx(last)
        idx = self.idx
        if NODE_TYPE[recv.kind_id] == "array_type":
            return NOT_A_CALL
        type_recv = False
        if NODE_TYPE[recv.kind_id] == "super":
            t = self.superclass(self.ctx.type_key)
        elif NODE_TYPE[recv.kind_id] == "this":
            t = self.ctx.type_key
        else:
            t = None
            if NODE_TYPE[recv.kind_id] == "identifier":
                ot, found = self.ident(self._tx(recv), recv.start_byte)
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
        td = self.tdecl(t)
        if td is not None and td.local:
            return CallResolution(_LOCAL_CLASS)
        cands, unknown = self.named(t, name)
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
