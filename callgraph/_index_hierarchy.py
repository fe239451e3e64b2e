"""``ProjectIndex``'s type hierarchy and generic substitution: a declared
TypeRef resolved to a type tuple ``(name, args)`` (type variables to their
bounds, arguments substituted), library ``Signature`` attributes parsed and
substituted, wildcards captured to their bounds (JLS §5.1.10), the direct and
transitive supertypes and subtyping on erased names (JLS §4.10).

A mixin over the tables ``ProjectIndex.__init__`` builds."""

from __future__ import annotations

from ._jls import OBJECT, PRIMITIVES
from ._types import (JArray, JClass, JPrim, JTypeVar, JWildcard, SignatureError, parse_class_signature,
                     parse_method_signature)


class TypeHierarchy:
    """Supertypes, subtyping and generics of :class:`callgraph._index.ProjectIndex` (mixin)."""

    def tparams_of(self, key: str | None) -> dict:
        """Type parameters visible in type ``key`` (own and enclosing), name → (bound, key)."""
        out: dict = {}
        t = key
        while t is not None and t in self.types:
            td = self.types[t]
            for n, b in td.type_params:
                out.setdefault(n, (b, t))
            if td.static and not td.local:
                break
            t = td.outer
        return out

    def resolve_ref(self, ref, fi: int, key: str | None, mtparams: dict | None = None):
        """Resolve a TypeRef to a type tuple ``(name, args)`` or None (unknown)."""
        mk = (ref, fi, key, id(mtparams) if mtparams else 0)
        try:
            return self._ref_memo[mk][0]
        except KeyError:
            pass
        self._ref_memo[mk] = (None, mtparams)
        r = self._resolve_ref(ref, fi, key, mtparams, 0)
        self._ref_memo[mk] = (r, mtparams)  # keep mtparams alive: its id is in the key
        return r

    def _resolve_ref(self, ref, fi, key, mtparams, depth):
        name, args, dims = ref
        if depth > 8:
            return None
        suffix = "[]" * dims
        if name in PRIMITIVES:
            return (name + suffix, ())
        if name in ("?", "?super"):
            if name == "?" and args:
                return self._resolve_ref(args[0], fi, key, mtparams, depth + 1)
            return (OBJECT, ())
        if "." not in name:
            bound = None
            found = False
            if mtparams and name in mtparams:
                bound, found = mtparams[name], True
                bkey = key
            else:
                tp = self.tparams_of(key)
                if name in tp:
                    bound, bkey = tp[name]
                    found = True
            if found:
                if bound is None:
                    return (OBJECT + suffix, ())
                b = self._resolve_ref(bound, self._file_of(bkey, fi), bkey, mtparams, depth + 1)
                if b is None:
                    return None
                return (b[0] + suffix, b[1] if not dims else ())
        fqn = self.resolve_name(name, fi, key)
        if fqn is None:
            return None
        rargs = tuple(self._resolve_ref(a, fi, key, mtparams, depth + 1) for a in args) if args and not dims else ()
        return (fqn + suffix, rargs)

    def erase_ref(self, ref, fi: int, key: str | None, mtparams: dict | None = None) -> str:
        """Erased source form of a declared type, for method ids (unknown types keep the
        name as written)."""
        r = self.resolve_ref(ref, fi, key, mtparams)
        if r is not None:
            return r[0]
        return ref[0].lstrip("=") + "[]" * ref[2]

    def subst_ref(self, ref, fi, key, mt, subst, depth=0):
        """Resolve a TypeRef, replacing type variables named in ``subst``."""
        name, args, dims = ref
        if dims == 0 and name in subst:
            return subst[name]
        base = self.resolve_ref((name, (), dims), fi, key, mt)
        if base is None or dims or not args or depth > 5:
            return base
        return (base[0], tuple(self.subst_ref(a, fi, key, mt, subst, depth + 1) for a in args))

    # ----------------------------------------------------------- library generics
    def lib_class_sig(self, fqn: str):
        """Parsed ``Signature`` (a ``_types.ClassSignature``) of library type ``fqn``;
        None when it has none, is malformed, or the type is unknown (memoised)."""
        r = self._csig.get(fqn, 0)
        if r != 0:
            return r
        sig = self.lib(fqn)
        r = None
        if sig is not None and getattr(sig, "signature", None):
            try:
                r = parse_class_signature(sig.signature)
            except SignatureError:
                r = None
        self._csig[fqn] = r
        return r

    def lib_method_sig(self, ms):
        """Parsed ``Signature`` (a ``_types.MethodSignature``) of library method
        ``ms`` (a MethodSig), or None (memoised by the signature string)."""
        s = ms.signature
        if not s:
            return None
        r = self._msig.get(s, 0)
        if r != 0:
            return r
        try:
            r = parse_method_signature(s)
        except SignatureError:
            r = None
        self._msig[s] = r
        return r

    def lib_type_params(self, fqn: str) -> tuple:
        """The ``_types.TypeParam`` tuple of library type ``fqn`` (empty if unknown)."""
        cs = self.lib_class_sig(fqn)
        return cs.type_params if cs is not None else ()

    def jtuple(self, t, subst: dict, depth: int = 0):
        """A ``_types`` JType as a resolver type tuple, type variables replaced from
        ``subst`` (name → tuple or None). Wildcard arguments are captured to
        their bounds (JLS §5.1.10): ``? extends B`` → B; ``?`` and ``? super B``
        → the formal parameter's bound when it is not ``Object`` (self
        references of an F-bound — ``SELF extends A<SELF>`` — become unknown),
        else unknown. None when unknown."""
        if depth > 12:
            return None
        if isinstance(t, JClass):
            if not t.args:
                return (t.name, ())
            out = [None] * len(t.args)
            captured = []
            for i, a in enumerate(t.args):
                if isinstance(a, JWildcard):
                    if a.upper and a.bound is not None:
                        out[i] = self.jtuple(a.bound, subst, depth + 1)
                    else:
                        captured.append(i)
                else:
                    out[i] = self.jtuple(a, subst, depth + 1)
            if captured:
                tps = self.lib_type_params(t.name)
                if len(tps) == len(t.args):
                    inner = {tp.name: out[j] for j, tp in enumerate(tps) if j not in captured}
                    for i in captured:
                        b = tps[i].bounds
                        if b and not (isinstance(b[0], JClass) and b[0].name == OBJECT):
                            out[i] = self.jtuple(b[0], inner, depth + 1)
            return (t.name, tuple(out))
        if isinstance(t, JTypeVar):
            return subst.get(t.name)
        if isinstance(t, JPrim):
            return (t.name, ())
        if isinstance(t, JArray):
            e = self.jtuple(t.elem, subst, depth + 1)
            return (e[0] + "[]", ()) if e is not None else None
        if isinstance(t, JWildcard) and t.upper and t.bound is not None:
            return self.jtuple(t.bound, subst, depth + 1)
        return None

    def capture_lib(self, t):
        """Receiver type ``t`` (a tuple) of a library class with its unknown
        type arguments replaced by their formal bounds (see :meth:`jtuple`)."""
        if t is None or not t[1] or None not in t[1]:
            return t
        tps = self.lib_type_params(t[0])
        if len(tps) != len(t[1]):
            return t
        known = {tp.name: a for tp, a in zip(tps, t[1]) if a is not None}
        out = list(t[1])
        for i, (tp, a) in enumerate(zip(tps, t[1])):
            if a is None and tp.bounds and not (isinstance(tp.bounds[0], JClass) and tp.bounds[0].name == OBJECT):
                out[i] = self.jtuple(tp.bounds[0], known)
        return (t[0], tuple(out))

    def super_type_args(self, t: str, args: tuple, target: str, depth: int = 0):
        """Type arguments of supertype ``target`` as seen from ``t<args>``
        (``class ItemBox extends Box<Item>`` → ``(Item,)``), or None. Library
        types are walked through their ``Signature`` attributes."""
        if t == target:
            return args
        if depth > 12:
            return None
        v = self.solver.view(t)
        if v is None or not v.is_source:
            cs = self.lib_class_sig(t) if v is not None else None
            if cs is None:
                return None
            tps = cs.type_params
            subst = {tp.name: a for tp, a in zip(tps, args)} if len(args) == len(tps) else {}
            for sup in ((cs.superclass,) if cs.superclass else ()) + cs.interfaces:
                if sup.name != target and target not in (self.all_supers(sup.name)
                                                          or self._partial.get(sup.name, ())):
                    continue
                r = self.jtuple(sup, subst)
                if r is None:
                    continue
                out = self.super_type_args(r[0], r[1], target, depth + 1)
                if out is not None:
                    return out
            return None
        td = v.decl
        tps = [n for n, _ in td.type_params]
        subst = {n: a for n, a in zip(tps, args) if a is not None} if len(args) == len(tps) else {}
        fi = self.type_file[t]
        for ref in ([td.superclass] if td.superclass else []) + list(td.interfaces):
            r = self.subst_ref(ref, fi, td.outer, None, subst)
            if r is None:
                continue
            sups = self.all_supers(r[0]) or self._partial.get(r[0], ())
            if r[0] == target or target in sups:
                out = self.super_type_args(r[0], r[1], target, depth + 1)
                if out is not None:
                    return out
        return None

    # ----------------------------------------------------------- hierarchy
    def supers(self, key: str) -> tuple:
        """Direct supertypes (source FQNs; project keys for project types)."""
        r = self._supers.get(key)
        if r is not None:
            return r
        self._supers[key] = ()
        v = self.solver.view(key)
        out: list[str] = []
        if v is not None and v.is_source:
            td = v.decl
            fi = self.type_file[key]
            ctx = td.outer
            sc = td.superclass
            refs = ([sc] if sc else []) + list(td.interfaces)
            for ref in refs:
                s = self.resolve_name(ref[0], fi, ctx)
                out.append(s if s is not None else "?" + ref[0])
            if td.anonymous and out and out[0] in self.types and self.types[out[0]].kind == "interface":
                out.insert(0, OBJECT)
            elif td.kind == "enum" and sc is None:
                out.insert(0, "java.lang.Enum")
            elif td.kind == "record":
                out.insert(0, "java.lang.Record")
            elif td.kind == "class" and sc is None and not td.anonymous:
                out.insert(0, OBJECT)
            elif td.kind == "annotation":
                out.append("java.lang.annotation.Annotation")
            if td.anonymous and out and out[0] != OBJECT:
                sv = self.solver.view(out[0])
                if sv is not None and not sv.is_source and sv.is_interface:
                    out.insert(0, OBJECT)
        elif v is not None:
            sig = v.sig
            if sig.superclass:
                out.append(sig.superclass)
            out.extend(sig.interfaces)
        r = tuple(out)
        self._supers[key] = r
        return r

    def all_supers(self, t: str) -> frozenset | None:
        """Every supertype of ``t`` (itself included); None when part of the
        hierarchy is unknown (then subtyping answers "maybe")."""
        r = self._allsupers.get(t, 0)
        if r != 0:
            return r
        self._allsupers[t] = None
        seen = {t}
        stack = [t]
        unknown = False
        while stack:
            x = stack.pop()
            if self.solver.view(x) is None:
                if x != OBJECT:
                    unknown = True
                continue
            for s in self.supers(x):
                if s.startswith("?"):
                    unknown = True
                elif s not in seen:
                    seen.add(s)
                    stack.append(s)
        seen.add(OBJECT)
        res = None if unknown else frozenset(seen)
        if unknown:
            self._allsupers[t] = None
            self._partial[t] = frozenset(seen)
        else:
            self._allsupers[t] = res
        return res

    def is_subtype(self, a: str, b: str) -> bool | None:
        """``a`` <: ``b`` on erased names; None = maybe (unknown hierarchy)."""
        if a == b or b == OBJECT and a not in PRIMITIVES:
            return True
        if a.endswith("[]"):
            if b.endswith("[]"):
                ea, eb = a[:-2], b[:-2]
                if ea in PRIMITIVES or eb in PRIMITIVES:
                    return ea == eb
                return self.is_subtype(ea, eb)
            return b in ("java.lang.Cloneable", "java.io.Serializable")
        if a in PRIMITIVES or b in PRIMITIVES or b.endswith("[]"):
            return False
        s = self.all_supers(a)
        if s is None:
            part = self._partial.get(a, ())
            return True if b in part else None
        return b in s
