"""Generic inference (pass 2): the types a generic call returns and a lambda's
parameters have, as JLS §18 would infer them where it decides the next call.

The ``FileResolver`` mixin :class:`GenericInference`:

* ``project_return`` / ``lib_return`` — a call's return type with the class's
  type variables substituted from the receiver's type arguments (through the
  supertypes, library ``Signature`` attributes included; wildcards captured,
  JLS §5.1.10) and the method's own inferred from the arguments;
* ``lib_subst``, ``infer_lib``, ``_unify``, ``_unify_lambda`` — that
  inference for library methods (JLS §18.5.1, only where an argument's type
  determines a variable exactly; conflicting evidence leaves it unknown);
* ``lambda_param_type``, ``function_target``, ``function_target_ref``,
  ``target_sam`` — the functional-interface target of a lambda or method
  reference (JLS §15.27.3, §9.9) and its parameter types.
"""

from __future__ import annotations

from ._facts import _F_BODY, _F_TYPE, NODE_TYPE, type_ref
from ._callsite import Resolution as R
from ._types import JArray, JClass, JTypeVar, JWildcard, LambdaT, NullT, UnknownT
from ._candidates import MethodCandidate
from ._index import BOX, OBJECT, PRIMITIVES
from ._scopes import _UNASKED  # project_return: a candidate whose plain return is not memoised yet
from ._texpr import VOID

# the members as module globals: a class attribute look-up on an Enum costs
# more than a global one, on the path of every call site
_EXACT = R.EXACT

# argument types that are not a class type: never bound to a type variable
_NOT_CLASS_T = (NullT, LambdaT, UnknownT)
# argument types a project method's type variable is not inferred from
_NOT_INFERRED_T = (NullT, LambdaT)


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


class GenericInference:
    """Return types of generic calls and lambda parameter types (see module docstring)."""

    def project_return(self, c: MethodCandidate, t, args, recv):
        if c.returns is None:
            return (c.type_key, ()) if c.info.name == "<init>" else None
        r = c.returns
        if r[0] == "void":
            return VOID
        # a method of a class with no type parameters that infers none of its
        # own returns the same type at every call: once per file
        plain = self._plain_returns.get(id(c), _UNASKED)
        if plain is not _UNASKED:
            return plain
        idx = self.idx
        fi = self.type_file(c.type_key)
        subst: dict = {}
        # class type variables from the receiver's type arguments
        td = self.tdecl(c.type_key)
        tps = [n for n, _ in td.type_params] if td else []
        if not tps and not (c.tparams and c.decl is not None):
            plain = self._plain_returns[id(c)] = idx.resolve_ref(r, fi, c.type_key, c.tparams or None)
            return plain
        if tps:
            if recv is None and self.ctx.type_key is not None:
                recv = (self.ctx.type_key, ())  # an unqualified call: the receiver is `this`
            targs = None
            if recv is not None:
                targs = recv[1] if recv[0] == c.type_key else self.super_type_args(recv[0], recv[1], c.type_key)
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
                    if a is not None and type(a) not in _NOT_INFERRED_T:
                        subst[pref[0]] = a
                elif pref[0] == "Class" and len(pref[1]) == 1 and pref[1][0][0] in c.tparams:
                    a = self.texpr(args[i])
                    if a is not None and a[0] == "java.lang.Class" and a[1] and a[1][0]:
                        subst[pref[1][0][0]] = a[1][0]
        # the same candidate with the same substitution at many sites of a file:
        # its type once (both look-ups depend on nothing else)
        try:
            mk = (id(c), tuple(subst.items()))
            got = self._returns.get(mk, _UNASKED)
        except TypeError:  # an unhashable type in the substitution: asked as it is
            mk, got = None, _UNASKED
        if got is _UNASKED:
            got = idx.subst_ref(r, fi, c.type_key, c.tparams or None, subst) if subst \
                else idx.resolve_ref(r, fi, c.type_key, c.tparams or None)
            if mk is not None:
                self._returns[mk] = got
        return got

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
            # the same signature with the same substitution at many sites of a
            # file: once (ms is the index's parsed Signature, kept by it)
            try:
                mk = (id(ms), tuple(subst.items()))
                t = self._jtuples.get(mk, _UNASKED)
            except TypeError:  # an unhashable type in the substitution: asked as it is
                mk, t = None, _UNASKED
            if t is _UNASKED:
                try:
                    t = idx.jtuple(ms.returns, subst)
                    if mk is not None:
                        self._jtuples[mk] = t
                except RecursionError:  # depends on the depth it is asked at: not kept
                    t = None
            if t is not None:  # jtuple's values are class types (or None)
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
        raw = recv is not None and not recv[1] and self.tdecl(recv[0]) is None and bool(
            idx.lib_type_params(recv[0]))
        if recv is not None and not raw and not sig.static:
            if recv[0] == c.owner:
                r = recv if recv[1] else None
            else:
                ta = self.super_type_args(recv[0], self.capture_lib(recv)[1], c.owner)
                r = (c.owner, ta) if ta else None
            r = self.capture_lib(r)
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
        # declaration order, not a set's: the returned dict's key order reaches
        # the index's arguments (jtuple's substitution), and so the warm cache's
        # stored look-ups, which must be the same bytes in every process
        mvars = dict.fromkeys(tp.name for tp in ms.type_params)
        got: dict = {}
        bad: set = set()
        ps = ms.params
        n = len(args)
        if not n or not ps:
            return {v: None for v in mvars}
        ats = [self.texpr(a) for a in args]
        pairs = []
        if varargs and isinstance(ps[-1], JArray):
            last_arr = n == len(ps) and ats[-1] is not None and (ats[-1][0].endswith("[]") or type(ats[-1]) is NullT)
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
            if type(a) is LambdaT and NODE_TYPE[args[k].kind_id] == "lambda_expression":
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
        body = lam.child_by_field_id(_F_BODY)
        if not isinstance(p, JClass) or not p.args or body is None or NODE_TYPE[body.kind_id] == "block":
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
        if a is None or depth > 8 or type(a) in _NOT_CLASS_T:
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
        elif NODE_TYPE[p.kind_id] == "argument_list" and p.parent is not None \
                and NODE_TYPE[p.parent.kind_id] == "method_invocation":
            call = p.parent
            args = [a for a in p.named_children if NODE_TYPE[a.kind_id] not in ("line_comment", "block_comment")]
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
        elif NODE_TYPE[p.kind_id] == "variable_declarator" and p.parent is not None \
                and NODE_TYPE[p.parent.kind_id] in ("local_variable_declaration", "field_declaration"):
            ty = p.parent.child_by_field_id(_F_TYPE)
            if ty is not None and self._tx(ty) != "var":
                ft = self.function_target_ref(type_ref(ty, self.src), self.fi, self.ctx.type_key, self.mtp())
        elif NODE_TYPE[p.kind_id] == "return_statement":
            # `return x -> ...`: the target is the enclosing method's declared return
            # type (JLS 14.17, 15.27.3); inside a lambda body it is that lambda's, unknown here
            m = p.parent
            while m is not None and NODE_TYPE[m.kind_id] not in (
                    "method_declaration", "lambda_expression", "class_body", "constructor_declaration",
                    "compact_constructor_declaration"):
                m = m.parent
            ty = m.child_by_field_id(_F_TYPE) \
                if m is not None and NODE_TYPE[m.kind_id] == "method_declaration" else None
            if ty is not None:
                ft = self.function_target_ref(type_ref(ty, self.src), self.fi, self.ctx.type_key, self.mtp())
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
        if NODE_TYPE[p.kind_id] == "argument_list":
            call = p.parent
            args = [c for c in p.named_children if NODE_TYPE[c.kind_id] not in ("line_comment", "block_comment")]
            pos = next((i for i, a in enumerate(args) if a.id == n.id), None)
            if pos is None or call is None or NODE_TYPE[call.kind_id] != "method_invocation":
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
        elif NODE_TYPE[p.kind_id] == "variable_declarator" and p.parent is not None:
            ty = p.parent.child_by_field_id(_F_TYPE)
            if ty is not None and self._tx(ty) != "var":
                r = self.ref(type_ref(ty, self.src))
                ptype = r[0] if r else None
        if ptype is None or ptype in PRIMITIVES or ptype.endswith("[]"):
            return None
        return self.idx.sam(ptype)
