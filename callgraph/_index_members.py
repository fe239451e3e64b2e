"""``ProjectIndex``'s members: the method table of each project type
(written, implicit and Lombok-generated methods), methods and fields visible
on a type (declared or inherited, JLS §8.4.8), functional interfaces' single
abstract method (JLS §9.8) and the overriders a virtual call may dispatch
to (class hierarchy analysis).

A mixin over the tables ``ProjectIndex.__init__`` builds."""

from __future__ import annotations

from ._candidates import MethodCandidate, library_method, source_method
from ._facts import TypeDecl
from ._jls import OBJECT
from ._methodinfo import MethodInfo
from ._types import JClass, JTypeVar, SignatureError, parse_field_signature

# public methods of Object an interface may redeclare without losing its
# functional-interface status (JLS 9.8)
_OBJECT_PUBLIC = frozenset({("equals", ("java.lang.Object",)), ("hashCode", ()), ("toString", ())})


class MemberLookup:
    """Methods and fields of :class:`callgraph._index.ProjectIndex` (mixin)."""

    # ----------------------------------------------------------- members
    def _build_methods(self, key: str, td: TypeDecl, fi: int | None = None) -> None:
        """The method table of ``key`` from ``td``; with ``fi`` (a declaration of the
        same FQN in another module, :attr:`merged`), add its members not yet there."""
        if td.local:
            return
        merging = fi is not None
        fi = self.type_file[key] if fi is None else fi
        ff = self.files[fi]
        out: list[MethodCandidate] = []
        for md in td.methods:
            mt = {n: b for n, b in md.type_params} if md.type_params else None
            ptypes = tuple(self.erase_ref(p[1], fi, key, mt) for p in md.params)
            shown = list(ptypes)
            if md.varargs and shown and shown[-1].endswith("[]"):
                shown[-1] = shown[-1][:-2] + "..."
            mid = f"{key}.{md.name}({','.join(shown)})"
            info = MethodInfo(mid, ff.rel, md.start_line, md.end_line, md.loc, md.comment,
                              ff.source_set, key, md.name, tuple(shown), md.static,
                              md.abstract, md.private, False, md.varargs)
            out.append(source_method(info, ptypes, md, key, md.returns, mt or {}))
        declared = {(p.info.name, p.ptypes) for p in out}

        def implicit(name, params, ptypes, static, returns, sl, el, loc, varargs=False, by="javac",
                     abstract=False):
            shown = list(params)
            mid = f"{key}.{name}({','.join(shown)})"
            info = MethodInfo(mid, ff.rel, sl, el, loc, None, ff.source_set, key, name,
                              tuple(shown), static, abstract, False, True, varargs, by)
            out.append(source_method(info, ptypes, None, key, returns, {}))

        line = td.start_line
        gen_ctor = False
        for gm in self._gen_methods.get(key, ()):
            ptypes = tuple(self.erase_ref(p[1], fi, key) for p in gm.params)
            if (gm.name, ptypes) in declared:
                continue  # written by hand (or generated twice): the first wins
            declared.add((gm.name, ptypes))
            gen_ctor = gen_ctor or gm.name == "<init>"
            implicit(gm.name, ptypes, ptypes, gm.static, gm.returns, line, line, 0, gm.varargs,
                     gm.generated_by, gm.abstract)
        inst = [i for i in td.inits if not i.static]
        stat = [i for i in td.inits if i.static]
        if td.kind in ("class", "enum") and not gen_ctor and not any(p.info.name == "<init>" for p in out):
            implicit("<init>", (), (), False, None, line if not inst else inst[0].start_line,
                     line if not inst else inst[-1].end_line, sum(i.loc for i in inst))
        if td.kind == "record":
            comps = [self.erase_ref(c[1], fi, key) for c in td.components]
            if ("<init>", tuple(comps)) not in declared:
                implicit("<init>", comps, tuple(comps), False, None, line, line, 0)
            for (cn, cref), ct in zip(td.components, comps):
                if (cn, ()) not in declared:
                    implicit(cn, (), (), False, cref, line, line, 0)
        if td.kind == "enum":
            if ("values", ()) not in declared:
                implicit("values", (), (), True, ("=" + key, (), 1), line, line, 0)
            if ("valueOf", ("java.lang.String",)) not in declared:
                implicit("valueOf", ("java.lang.String",), ("java.lang.String",), True,
                         ("=" + key, (), 0), line, line, 0)
        if stat:
            implicit("<clinit>", (), (), True, None, stat[0].start_line, stat[-1].end_line,
                     sum(i.loc for i in stat))
        if merging:
            have = {p.info.id for p in self.methods.get(key, ())}
            out = [p for p in out if p.info.id not in have]
            self.methods[key] = self.methods.get(key, []) + out
        else:
            self.methods[key] = out
        for p in out:
            self.by_id[p.info.id] = p
            self.by_name.setdefault(p.info.name, []).append(p.info.id)

    def _declared(self, x: str):
        """({name: [candidates]}, is_interface) of the methods declared in ``x``;
        None when ``x`` is unknown."""
        r = self._decl.get(x, 0)
        if r != 0:
            return r
        by: dict = {}
        v = self.solver.view(x)
        if v is None:
            r = None
        elif v.is_source:
            for p in self.methods.get(x, ()):
                by.setdefault(p.info.name, []).append(p)
            r = (by, v.is_interface)
        else:
            sig = v.sig
            for ms in sig.methods:
                # private and package-private library members are not
                # accessible from project code
                if ms.access in ("public", "protected"):
                    by.setdefault(ms.name, []).append(library_method(x, ms, sig))
            r = (by, v.is_interface)
        self._decl[x] = r
        return r

    def declared_supertypes(self, t: str):
        """``t`` and its supertypes breadth-first (direct supertypes in declaration
        order, each once; ``Object`` only when ``t`` is ``Object``): yields
        ``(type, declared)`` with :meth:`_declared`'s answer, None for a type
        no solver knows (whose supertypes are then unknown too)."""
        queue, seen, i = [t], {t, OBJECT}, 0
        while i < len(queue):
            x = queue[i]
            i += 1
            decl = self._declared(x)
            yield x, decl
            if decl is None:
                continue
            for s in self.supers(x):
                if s not in seen:
                    seen.add(s)
                    queue.append(s)

    def library_overridden(self, m) -> tuple | None:
        """The library method that project method ``m`` (a source
        ``MethodCandidate``) overrides, as ``(method id, declaring type)``, or None.

        ``m`` overrides library method ``L`` of supertype ``S`` when they have the
        same name and arity and each parameter of ``m`` is ``L``'s erased
        parameter, or ``L`` declares it as a type variable that ``S``'s type
        arguments as seen from ``m``'s type make it (JLS 8.4.2 subsignature:
        ``findById(Integer)`` in ``OwnerRepo extends CrudRepository<Owner,
        Integer>`` overrides ``findById(ID)``); a method type variable stands for
        its first bound. Supertypes are searched breadth-first, the nearest
        declaration wins. Used for a bodyless project method that no project
        type implements: what runs is the library's (docs/callgraph.md
        "Resolution kinds", re-declared library methods)."""
        key = m.info.id
        r = self._libover.get(key, 0)
        if r != 0:
            return r
        r = None
        n = len(m.ptypes)
        t = m.owner
        for x, decl in self.declared_supertypes(t):
            if r is not None:
                break
            if x == t or decl is None or self.solver.view(x).is_source:
                continue
            for lc in decl[0].get(m.name, ()):
                if lc.static or len(lc.ptypes) != n or lc.is_source:
                    continue
                if lc.ptypes == m.ptypes or self._overrides_generic(m, lc, t, x):
                    r = (lc.id, x)
                    break
        self._libover[key] = r
        return r

    def _overrides_generic(self, m, lc, t: str, x: str) -> bool:
        """Whether each parameter of ``m`` (declared in project type ``t``) that
        differs from library method ``lc``'s erasure is a type variable of
        ``lc`` substituted to it from ``t`` (:meth:`library_overridden`)."""
        msig = self.lib_method_sig(lc.sig)
        if msig is None or len(msig.params) != len(m.ptypes):
            return False
        own = {tp.name: tp for tp in msig.type_params}
        subst = None
        for k, (a, b) in enumerate(zip(m.ptypes, lc.ptypes)):
            if a == b:
                continue
            p = msig.params[k]
            if isinstance(p, JTypeVar) and p.name in own:  # <S extends T>: S stands for its bound
                bounds = own[p.name].bounds
                p = bounds[0] if bounds else None
                if isinstance(p, JClass):
                    if p.name != a:
                        return False
                    continue
            if not isinstance(p, JTypeVar):
                return False
            if subst is None:
                tps = self.lib_type_params(x)
                args = self.super_type_args(t, (), x)
                if not args or len(args) != len(tps):
                    return False
                subst = {tp.name: arg for tp, arg in zip(tps, args)}
            got = subst.get(p.name)
            if got is None or got[0] != a:
                return False
        return True

    def sam(self, t: str):
        """(arity, returns_void) of the single abstract method of functional
        interface ``t``; ``"none"`` when ``t`` is known and not functional;
        None when unknown."""
        r = self._sam.get(t, 0)
        if r != 0:
            return r
        self._sam[t] = None
        absm: dict = {}
        known = True
        for _x, decl in self.declared_supertypes(t):
            if decl is None:
                known = False
                continue
            if not decl[1]:  # not an interface
                r = "none"
                self._sam[t] = r
                return r
            for ms in decl[0].values():
                for m in ms:
                    if m.abstract and (m.name, m.ptypes) not in _OBJECT_PUBLIC:
                        absm.setdefault((m.name, m.ptypes), (len(m.ptypes), m.void))
        if len(absm) == 1:
            r = next(iter(absm.values()))
        elif known:
            r = "none"
        else:
            r = None
        self._sam[t] = r
        return r

    def sam_method(self, t: str):
        """(declaring type, candidate) of the single abstract method of functional
        interface ``t`` (a ``MethodCandidate``), or None when ``t`` is not a
        known functional interface (memoised)."""
        r = self._sam.get(("m", t), 0)
        if r != 0:
            return r
        found: dict = {}
        if isinstance(self.sam(t), tuple):
            for x, decl in self.declared_supertypes(t):
                if decl is None:
                    break
                for ms in decl[0].values():
                    for m in ms:
                        if m.abstract and (m.name, m.ptypes) not in _OBJECT_PUBLIC:
                            found.setdefault((m.name, m.ptypes), (x, m))
        r = next(iter(found.values())) if len(found) == 1 else None
        self._sam[("m", t)] = r
        return r

    def methods_named(self, t: str, name: str):
        """Methods named ``name`` visible on type ``t`` (declared or inherited), nearest
        declaration first, overridden ones dropped.

        Returns
        -------
        (list, str or None)
            Candidates (``MethodCandidate`` for project methods, ``MethodCandidate`` for library
            ones) and the ``Unsolved`` answer for the first supertype whose
            declaration is unknown (None when the whole hierarchy is known).
        """
        mk = (t, name)
        r = self._mnamed.get(mk)
        if r is not None:
            return r
        out: list = []
        seen_sigs: set = set()
        unknown = None
        # The superclass chain before any superinterface: a concrete method a class
        # inherits from its superclass overrides a superinterface's method of the same
        # signature even when the class names that interface itself (JLS 8.4.8).
        queue = [t]
        iqueue: list = []
        seen = {t}
        i = j = 0
        ctor = name == "<init>"
        while i < len(queue) or j < len(iqueue):
            if i < len(queue):
                x = queue[i]
                i += 1
            else:
                x = iqueue[j]
                j += 1
            decl = self._declared(x)
            if decl is None:
                if unknown is None:
                    unknown = self.solver.solve(x)  # the Unsolved, reason kept
                continue
            for m in decl[0].get(name, ()):
                if x != t and decl[1] and m.static:
                    continue  # static interface methods are not inherited (JLS 8.4.8, 9.4.1)
                if m.ptypes not in seen_sigs:
                    seen_sigs.add(m.ptypes)
                    out.append(m)
            if decl[1] and not ctor and OBJECT not in seen:
                seen.add(OBJECT)
                iqueue.append(OBJECT)
            if ctor:
                break
            for k, s in enumerate(self.supers(x)):
                if s not in seen:
                    seen.add(s)
                    (queue if k == 0 and not decl[1] else iqueue).append(s)  # supers(class)[0]: its superclass
        r = (out, unknown)
        self._mnamed[mk] = r
        return r

    def field_type(self, t: str, name: str, _depth=0):
        """(type, found) of field ``name`` in ``t`` or its supertypes."""
        mk = (t, name)
        if mk in self._fields:
            return self._fields[mk]
        self._fields[mk] = (None, False)
        res = (None, False)
        v = self.solver.view(t)
        if v is not None and v.is_source:
            td = v.decl
            # the declaration of the FQN, then those of other modules (merged)
            decls = [(self.type_file[t], td)] + self.merged_by_key.get(t, [])
            for fi, d in decls:
                f = next((f for f in d.fields if f.name == name), None)
                if f is not None:
                    res = (self.resolve_ref(f.type, fi, t), True)
                    break
            else:
                for f in self.gen_fields.get(t, ()):
                    if f.name == name:
                        res = (self.resolve_ref(f.type, self.type_file[t], t), True)
                        break
        elif v is not None:
            for f in v.sig.fields:
                if f.name == name:
                    res = ((f.type, ()), True)
                    break
        if not res[1] and _depth < 30:
            for s in self.supers(t):
                if not s.startswith("?"):
                    r = self.field_type(s, name, _depth + 1)
                    if r[1]:
                        res = r
                        break
        self._fields[mk] = res
        return res

    def _lib_field(self, t: str, name: str, depth: int = 0):
        """(declaring library type, FieldSig) of the field ``name`` that
        :meth:`field_type` finds from ``t``, when a library type declares it; else None."""
        if depth > 30:
            return None
        v = self.solver.view(t)
        if v is not None and v.is_source:
            td = v.decl
            if any(f.name == name for f in td.fields) or any(f.name == name for f in self.gen_fields.get(t, ())):
                return None
        elif v is not None:
            for f in v.sig.fields:
                if f.name == name:
                    return (t, f)
        for s in self.supers(t):
            if not s.startswith("?") and self.field_type(s, name)[1]:
                return self._lib_field(s, name, depth + 1)
        return None

    def field_type_of(self, t, name: str):
        """(type, found) of field ``name`` on a receiver of type ``t`` (a tuple):
        :meth:`field_type`, with a library field's ``Signature`` substituted from
        the receiver's type arguments (``protected final ACTUAL actual`` seen
        from ``ItemAssert extends AbstractAssert<ItemAssert, Item>`` is ``Item``)."""
        r = self.field_type(t[0], name)
        if not r[1]:
            return r
        lf = self._lib_field(t[0], name)
        if lf is None or not lf[1].signature or lf[1].static:
            return r
        owner, f = lf
        try:
            jt = parse_field_signature(f.signature)
        except SignatureError:
            return r
        raw = not t[1] and t[0] not in self.types and bool(self.lib_type_params(t[0]))
        if raw:
            return r
        ta = t[1] if t[0] == owner else self.super_type_args(t[0], self.capture_lib(t)[1], owner)
        rc = self.capture_lib((owner, ta)) if ta else None
        tps = self.lib_type_params(owner)
        if rc is None or len(tps) != len(rc[1]):
            return r
        got = self.jtuple(jt, {tp.name: a for tp, a in zip(tps, rc[1])})
        return (got, True) if got is not None else r

    def overriders(self, t: str, name: str, ptypes: tuple, base=None) -> tuple:
        """Class hierarchy analysis: ids of the project methods a virtual call of
        ``name(ptypes)`` on static type ``t`` may dispatch to in project subtypes
        of ``t`` — each subtype's own override, or the implementation it
        inherits from a superclass that is not itself a subtype of ``t``.

        ``base`` (the resolved project method, optional) lets an override with
        a different erasure match a generic declaration (``save(T)`` ← ``save(Item)``
        in ``ItemRepo implements Repo<Item>``). Sorted ids, memoised.
        """
        # the answer depends on ``base`` too (its id is left out, its type
        # variables widen the match): keyed by it, the first caller's base
        # never decides a later caller's answer
        mk = (t, name, ptypes, base.info.id if base is not None else None)
        r = self._over.get(mk)
        if r is not None:
            return r
        var_pos: dict = {}
        if base is not None and base.decl is not None:
            btd = self.types.get(base.type_key)
            tps = {n for n, _ in btd.type_params} if btd is not None else set()
            for i, (_, ref) in enumerate(base.decl.params):
                if ref[2] == 0 and not ref[1] and ref[0] in tps:
                    var_pos[i] = ref[0]
        n = len(ptypes)

        def matches(p, view):
            i = p.info
            if i.static or i.abstract or i.private:
                return False
            if p.ptypes == ptypes:
                return True
            if not var_pos or len(p.ptypes) != n:
                return False
            subst = None
            btd = self.types.get(base.type_key)
            args = self.super_type_args(view, (), base.type_key)
            if args and btd is not None and len(args) == len(btd.type_params):
                subst = {tp[0]: a for tp, a in zip(btd.type_params, args)}
            for k, (a, b) in enumerate(zip(p.ptypes, ptypes)):
                if a == b:
                    continue
                v = var_pos.get(k)
                if v is None:
                    return False
                if subst is not None and subst.get(v) is not None and subst[v][0] != a:
                    return False
            return True

        # the implementation a class inherits (no type variables in play) does
        # not depend on ``t`` or ``base``: memoised per (name, ptypes) across
        # queries, so each superclass chain is walked once per method
        # signature, not once per query (Object.equals is asked from thousands
        # of receiver types in the JDK)
        inherited = self._inherited.get((name, ptypes))
        if inherited is None:
            inherited = self._inherited[(name, ptypes)] = {}

        def impl(view):
            if var_pos:  # a match depends on the subtype's own type arguments
                x = view
                hops = 0
                while x is not None and x in self.types and hops < 50:
                    hops += 1
                    for p in self._declared(x)[0].get(name, ()):
                        if matches(p, view):
                            return p.info.id
                    td = self.types[x]
                    if td.kind == "interface":
                        return None
                    sups = self.supers(x)
                    if sups and sups[0] == x:
                        return None  # Object's own superclass (see below): nothing more to find
                    x = sups[0] if sups else None
                return None
            chain = []
            x = view
            res = None
            while x is not None and x in self.types:
                if x in inherited:
                    res = inherited[x]
                    break
                if len(chain) >= 50:
                    return None  # too deep to be a real hierarchy: nothing memoised
                chain.append(x)
                found = None
                for p in self._declared(x)[0].get(name, ()):
                    if matches(p, x):
                        found = p.info.id
                        break
                if found is not None:
                    res = found
                    break
                if self.types[x].kind == "interface":
                    break
                sups = self.supers(x)
                if sups and sups[0] == x:
                    # java.lang.Object as a project type (the JDK's own sources)
                    # is its own superclass in ``supers``: no match in it means
                    # none above — the answer the 50-step cap gave, after 50 steps
                    break
                x = sups[0] if sups else None
            for c in chain:
                inherited[c] = res
            return res

        out = set()
        for st, iface in self._cha_subtypes(t):
            if iface:
                for p in self._declared(st)[0].get(name, ()):
                    if matches(p, st):
                        out.add(p.info.id)
            elif not var_pos and st in inherited:
                mid = inherited[st]
                if mid is not None:
                    out.add(mid)
            else:
                mid = impl(st)
                if mid is not None:
                    out.add(mid)
        if base is not None:
            out.discard(base.info.id)
        r = tuple(sorted(out))
        self._over[mk] = r
        return r

    def _cha_subtypes(self, t: str) -> tuple:
        """``((subtype, is_interface), ...)``: the project subtypes of ``t`` a CHA
        search visits (transitively; a local class and the types below it only
        through another path), memoised per ``t`` — the walk is the same for
        every method asked on ``t``."""
        r = self._subwalk.get(t)
        if r is not None:
            return r
        out = []
        seen = {t}
        stack = list(self.subtypes.get(t, ()))
        while stack:
            st = stack.pop()
            if st in seen:
                continue
            seen.add(st)
            td = self.types[st]
            if td.local:
                continue
            stack.extend(self.subtypes.get(st, ()))
            out.append((st, td.kind == "interface"))
        r = self._subwalk[t] = tuple(out)
        return r
