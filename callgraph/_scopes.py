"""Scopes and names (pass 2): where code is resolved and what its simple names mean.

* :class:`MethodContext` — the innermost enclosing type and method of a
  position, passed as a value (``with fr.within(ctx):``), never saved and
  restored by hand;
* :class:`Binding` — how a local variable's type is found;
* :class:`Scopes` — the ``FileResolver`` mixin that records every local
  declaration of a file (``declare``: locals, parameters, catch, for-each,
  resources, patterns, lambda parameters, each with its scope's byte span)
  and answers ``local_type`` (JLS §6.3 scope, innermost declaration wins;
  the type computed lazily, once), ``ident`` (locals, then fields of the
  enclosing types outward, then static imports — JLS §6.5.6.1) and
  ``as_type_name`` (a receiver that names a type).

The state it reads and writes lives on the ``FileResolver`` (``locals``,
``spans``, ``owners``, ``ctx``, ``local_types_cache``).
"""

from __future__ import annotations

from bisect import bisect_right
from enum import Enum
from typing import NamedTuple

from ._facts import _F_DIMENSIONS, _F_NAME, _F_PARAMETERS, _F_RIGHT, _F_TYPE, _F_VALUE, NODE_TYPE, type_ref
from ._candidates import MethodCandidate


class Binding(Enum):
    """How a local variable's type is found (the first element of a local's
    binding tuple; the rest depends on the kind)."""

    UNTYPED = "untyped"  # (UNTYPED,): no type to find (`var` without initializer, malformed)
    DECLARED = "declared"  # (DECLARED, TypeRef, byte offset of the declaration): the written type
    VAR_INIT = "var"  # (VAR_INIT, initializer node): `var x = e` — the type of e
    LAMBDA_PARAM = "lambda-param"  # (LAMBDA_PARAM, lambda node, index): from the target type
    FOREACH_ELEM = "foreach-elem"  # (FOREACH_ELEM, iterated node): `for (var x : e)` — e's element


# as module globals: bindings are built and read on every local of every file
_UNTYPED, _DECLARED, _VAR_INIT = Binding.UNTYPED, Binding.DECLARED, Binding.VAR_INIT
_LAMBDA_PARAM, _FOREACH_ELEM = Binding.LAMBDA_PARAM, Binding.FOREACH_ELEM
_NO_BINDING = (_UNTYPED,)


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

_NO_CONTEXT = MethodContext(None, None)
_new = tuple.__new__
_UNASKED = object()  # FileResolver's per-file memos of the index (tdecl, ...): not asked yet


class Scopes:
    """Context, local declarations and simple names of one file (see module docstring)."""

    def _tx(self, node) -> str:
        """The source text of ``node``: a slice of the file's bytes, which the
        tree was parsed from (``node.text`` gives the same bytes at about twice
        the cost, and pass 2 takes the text of ~800,000 nodes on java.base) —
        or of its text, when every byte is ASCII (``stext``: byte offsets are
        then character offsets, and a str slice needs no decoding)."""
        t = self.stext
        if t is not None:
            return t[node.start_byte:node.end_byte]
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

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
        # tuple.__new__: the same MethodContext without the Python-level
        # NamedTuple constructor (one per call site and per local typed)
        return _new(MethodContext, (self.type_at(pos), o[4] if o else None))

    def within(self, ctx: "MethodContext") -> "_Within":
        """``with self.within(ctx):`` resolves in ``ctx`` (a declaration elsewhere
        in the file, a call typed out of order), then goes back to the context
        the caller was in."""
        return _Within(self, ctx)

    def mtp(self):
        return self.ctx.mtparams

    def ref(self, tref, ctx: "MethodContext | None" = None):
        ctx = ctx or self.ctx
        m = ctx.method
        mtp = m.tparams if m is not None and m.tparams else None
        # memoised per file (the same written types come back in a file; with
        # a warm cache each ask of the index is also recorded): the answer
        # depends on the type, the file, the enclosing type and the method's
        # type parameters, named here by the method's identity
        mk = (tref, ctx.type_key, id(m) if mtp is not None else None)
        try:
            return self._refs[mk]
        except KeyError:
            pass
        except TypeError:  # an unhashable TypeRef (none expected): asked as it is
            return self.idx.resolve_ref(tref, self.fi, ctx.type_key, mtp)
        r = self._refs[mk] = self.idx.resolve_ref(tref, self.fi, ctx.type_key, mtp)
        return r

    def add_local(self, name: str, scope_start, scope_end, avail, payload):
        self.locals.setdefault(name, []).append((scope_start, scope_end, avail, payload))

    def declare(self, cap: str, n) -> None:
        if cap == "local":
            ty = n.child_by_field_id(_F_TYPE)
            parent = n.parent
            end = parent.end_byte if parent is not None else n.end_byte
            for d in n.named_children:
                if NODE_TYPE[d.kind_id] == "variable_declarator":
                    nm = d.child_by_field_id(_F_NAME)
                    dims = d.child_by_field_id(_F_DIMENSIONS)
                    self.add_local(self._tx(nm), n.start_byte, end, d.start_byte,
                                   self._payload(ty, d.child_by_field_id(_F_VALUE), dims))
        elif cap == "param":
            p = n.parent
            gp = p.parent if p is not None else None
            if gp is None or NODE_TYPE[gp.kind_id] == "record_declaration":
                return
            ty = n.child_by_field_id(_F_TYPE)
            if NODE_TYPE[n.kind_id] == "spread_parameter":
                ty = ty or next((c for c in n.named_children
                                 if NODE_TYPE[c.kind_id] not in ("modifiers", "variable_declarator")), None)
                nm = None
                for c in n.named_children:
                    if NODE_TYPE[c.kind_id] == "variable_declarator":
                        nm = c.child_by_field_id(_F_NAME)
                if nm is None or ty is None:
                    return
                tr = type_ref(ty, self.src)
                self.add_local(self._tx(nm), gp.start_byte, gp.end_byte, gp.start_byte,
                               (_DECLARED, (tr[0], tr[1], tr[2] + 1), n.start_byte))
            else:
                nm = n.child_by_field_id(_F_NAME)
                if nm is None or ty is None:
                    return
                tr = type_ref(ty, self.src)
                dims = n.child_by_field_id(_F_DIMENSIONS)
                if dims is not None:
                    tr = (tr[0], tr[1], tr[2] + self._tx(dims).count("["))
                self.add_local(self._tx(nm), gp.start_byte, gp.end_byte, gp.start_byte,
                               (_DECLARED, tr, n.start_byte) if tr[0] != "var" else _NO_BINDING)
        elif cap == "catch":
            clause = n.parent
            nm = n.child_by_field_id(_F_NAME)
            types = [c for c in n.named_children if NODE_TYPE[c.kind_id] == "catch_type"]
            tys = [c for c in types[0].named_children] if types else []
            payload = (_DECLARED, type_ref(tys[0], self.src), n.start_byte) if len(tys) == 1 else (
                (_DECLARED, ("java.lang.Exception", (), 0), n.start_byte) if tys else _NO_BINDING)
            if len(tys) > 1:
                payload = (_DECLARED, type_ref(tys[0], self.src), n.start_byte)
            self.add_local(self._tx(nm), clause.start_byte, clause.end_byte, n.start_byte, payload)
        elif cap == "foreach":
            ty = n.child_by_field_id(_F_TYPE)
            nm = n.child_by_field_id(_F_NAME)
            val = n.child_by_field_id(_F_VALUE)
            if nm is None:
                return
            if ty is None or self._tx(ty) == "var":
                payload = (_FOREACH_ELEM, val)
            else:
                payload = (_DECLARED, type_ref(ty, self.src), n.start_byte)
            self.add_local(self._tx(nm), n.start_byte, n.end_byte, n.start_byte, payload)
        elif cap == "res":
            nm = n.child_by_field_id(_F_NAME)
            if nm is None:
                return
            ty = n.child_by_field_id(_F_TYPE)
            scope = n.parent.parent if n.parent is not None and n.parent.parent is not None else n
            self.add_local(self._tx(nm), scope.start_byte, scope.end_byte, n.start_byte,
                           self._payload(ty, n.child_by_field_id(_F_VALUE), None))
        elif cap == "inst":
            nm = n.child_by_field_id(_F_NAME)
            ty = n.child_by_field_id(_F_RIGHT)
            if nm is None or ty is None:
                return
            blk = n.parent
            while blk is not None and NODE_TYPE[blk.kind_id] not in ("block", "constructor_body", "class_body",
                                                       "lambda_expression", "switch_block_statement_group"):
                blk = blk.parent
            end = blk.end_byte if blk is not None else n.end_byte
            self.add_local(self._tx(nm), n.start_byte, end, n.start_byte,
                           (_DECLARED, type_ref(ty, self.src), n.start_byte))
        elif cap in ("tpat", "rpat"):
            kids = [c for c in n.named_children if NODE_TYPE[c.kind_id] not in ("modifiers",)]
            if len(kids) < 2 or NODE_TYPE[kids[-1].kind_id] != "identifier":
                return
            ty, nm = kids[-2], kids[-1]
            scope = n.parent
            while scope is not None and NODE_TYPE[scope.kind_id] not in ("switch_rule", "switch_block_statement_group",
                                                           "block", "lambda_expression"):
                scope = scope.parent
            scope = scope or n
            payload = _NO_BINDING if self._tx(ty) == "var" else (_DECLARED, type_ref(ty, self.src), n.start_byte)
            self.add_local(self._tx(nm), n.start_byte, scope.end_byte, n.start_byte, payload)
        elif cap == "lambda":
            ps = n.child_by_field_id(_F_PARAMETERS)
            if ps is None:
                return
            if NODE_TYPE[ps.kind_id] == "identifier":
                self.add_local(self._tx(ps), n.start_byte, n.end_byte, n.start_byte, (_LAMBDA_PARAM, n, 0))
            elif NODE_TYPE[ps.kind_id] == "inferred_parameters":
                ids = [c for c in ps.named_children if NODE_TYPE[c.kind_id] == "identifier"]
                for i, c in enumerate(ids):
                    self.add_local(self._tx(c), n.start_byte, n.end_byte, n.start_byte, (_LAMBDA_PARAM, n, i))

    def _payload(self, ty, value, dims):
        if ty is None:
            return _NO_BINDING
        if self._tx(ty) == "var":
            return (_VAR_INIT, value) if value is not None else _NO_BINDING
        tr = type_ref(ty, self.src)
        if dims is not None:
            tr = (tr[0], tr[1], tr[2] + self._tx(dims).count("["))
        return (_DECLARED, tr, ty.start_byte)

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
        if k is _UNTYPED:
            return None, True
        ck = (name, best[0], best[2])
        t = self.local_types_cache.get(ck, _UNASKED)
        if t is not _UNASKED:
            return t, True
        self.local_types_cache[ck] = None
        with self.within(self.context_at(payload[2] if k is _DECLARED else payload[1].start_byte)):
            if k is _DECLARED:
                t = self.ref(payload[1])
            elif k is _VAR_INIT:
                t = self.texpr(payload[1])
            elif k is _LAMBDA_PARAM:
                t = self.lambda_param_type(payload[1], payload[2])
            else:  # _FOREACH_ELEM: element of an iterated expression
                it = self.texpr(payload[1])
                t = None
                if it is not None:
                    if it[0].endswith("[]"):
                        t = (it[0][:-2], ())
                    elif len(it[1]) == 1:
                        t = it[1][0]
        self.local_types_cache[ck] = t
        return t, True

    def ident(self, name: str, pos: int):
        """Type of a simple name used as an expression: (type, found-as-variable)."""
        t, found = self.local_type(name, pos)
        if found:
            return t, True
        # not a local: a field of an enclosing type or a static import, the
        # same answer for every use of the name in the type (memoised per file)
        mk = (self.ctx.type_key, name)
        r = self._field_names.get(mk)
        if r is None:
            r = self._field_names[mk] = self._field_or_import(name)
        return r

    def _field_or_import(self, name: str):
        """(type, found) of simple name ``name`` as a field of the enclosing types
        (outward) or a statically imported field, in the current context."""
        idx = self.idx
        k = self.ctx.type_key
        while k is not None:
            t, found = self.field_type_of((k, ()), name)
            if found:
                return t, True
            td = self.tdecl(k)
            k = td.outer if td is not None else None
        for imp in self.ff.imports:
            if imp.static:
                if imp.on_demand:
                    owner = self.qualified(imp.name)
                elif imp.name.endswith("." + name):
                    owner = self.qualified(imp.name[: -len(name) - 1])
                else:
                    continue
                if owner:
                    t, found = idx.field_type(owner, name)
                    if found:
                        return t, True
        return None, False

    def _type_name(self, text: str):
        """``ProjectIndex.resolve_name`` of ``text`` in this file and the current
        type, memoised per file (receivers name the same few types)."""
        mk = (text, self.ctx.type_key)
        try:
            return self._type_names[mk]
        except KeyError:
            pass
        r = self._type_names[mk] = self.idx.resolve_name(text, self.fi, self.ctx.type_key)
        return r

    def as_type_name(self, node):
        """The type a receiver node names (``Foo``, ``a.b.Foo``, ``Outer.Inner``), or None."""
        t = NODE_TYPE[node.kind_id]
        if t in ("identifier", "type_identifier"):
            return self._type_name(self._tx(node))
        if t in ("field_access", "scoped_identifier", "scoped_type_identifier"):
            text = self._tx(node)
            if not all(c.isalnum() or c in "._$" for c in text):
                return None
            return self._type_name(text)
        if t == "generic_type":
            r = self.ref(type_ref(node, self.src))
            return r[0] if r else None
        return None
