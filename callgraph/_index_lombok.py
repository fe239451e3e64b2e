"""``ProjectIndex``'s Lombok planning: the members and nested builder types
Lombok generates (planned by ``_lombok.py``) entered into the index, and
``@Delegate`` fields expanded into the delegate type's methods.

A mixin over the tables ``ProjectIndex.__init__`` builds."""

from __future__ import annotations

from ._callsite import ApiTarget
from ._candidates import source_method
from ._facts import TypeDecl
from ._jls import PRIMITIVES
from ._lombok import _KNOWN as _LOMBOK_KNOWN, GenMethod, LombokConfig, plan_type
from ._methodinfo import MethodInfo


# The last name of each annotation Lombok knows: ``lombok_name`` resolves a
# written name only to a known FQN with the same last name (the written name
# itself, an import's name plus the written rest, or a package plus it), so a
# type none of whose annotations ends in one of these gets no plan. Most
# projects' types carry only others (@Override, @Nullable, @Test), and
# plan_type asked lombok_name, a loop over the file's imports, for each
# (spring-framework: an eighth of the index's construction)
_LOMBOK_LAST = frozenset(n.rpartition(".")[2] for n in _LOMBOK_KNOWN)


def _may_be_lombok(td: TypeDecl) -> bool:
    """Whether an annotation of ``td``, its fields or its methods may be Lombok's."""
    last = _LOMBOK_LAST
    return any(a.name.rpartition(".")[2] in last for a in td.annotations) \
        or any(a.name.rpartition(".")[2] in last for f in td.fields for a in f.annotations) \
        or any(a.name.rpartition(".")[2] in last for m in td.methods for a in m.annotations)


def _erased_ref(t: str):
    """A TypeRef for an already erased type name (``"java.lang.String[]"``, ``"int"``)."""
    dims = 0
    if t.endswith("..."):
        t, dims = t[:-3], 1
    while t.endswith("[]"):
        t, dims = t[:-2], dims + 1
    return (t if t in PRIMITIVES else "=" + t, (), dims)


class LombokPlanning:
    """Lombok's generated members in :class:`callgraph._index.ProjectIndex` (mixin)."""

    # ----------------------------------------------------------- Lombok
    def _plan_lombok(self, root) -> None:
        """Lombok's generated members (``_lombok.py``): fields go to
        ``gen_fields``, methods to ``_gen_methods`` (built with the type's own
        members), nested builder types into the type tables."""
        self.gen_fields: dict[str, list] = {}
        self._gen_methods: dict[str, list[GenMethod]] = {}
        self._delegates: list = []  # (type key, field TypeRef, generated_by)
        self.gen_edges: dict[int, list] = {}  # file index -> [(src id, dst id, ApiTarget or None)]
        cfg = LombokConfig(root)
        plans = []
        for fi, ff in enumerate(self.files):
            shadow = None
            folder = ff.rel.rsplit("/", 1)[0] if "/" in ff.rel else ""
            for td in ff.types:
                if td.local or td.anonymous or self.types.get(td.key) is not td:
                    continue
                if not (td.annotations or any(f.annotations for f in td.fields)
                        or any(m.annotations for m in td.methods)):
                    continue
                settings = cfg.settings(folder)  # read for every such folder: its problems are reported
                if not _may_be_lombok(td):
                    continue  # plan_type would find no Lombok annotation: no plan
                if shadow is None:
                    shadow = frozenset(self.pkg_types.get(ff.package, ()))
                plan = plan_type(td, ff.imports, shadow, settings)
                if plan is not None:
                    plans.append((fi, td, plan))
        self.duplicates.extend(cfg.problems)
        builders = {td.key: [gt.key for gt in plan.types if gt.generated_by.endswith("SuperBuilder")]
                    for _, td, plan in plans}
        for fi, td, plan in plans:
            if plan.fields:
                self.gen_fields[td.key] = plan.fields
            for gt in plan.types:
                if gt.key in self.types:
                    continue  # a builder class written by hand: Lombok fills it in
                sup = gt.superclass
                if sup is not None and sup[0] == "@superbuilder":
                    parent = self.resolve_name(plan.super_builder_parent, fi, td.outer)
                    pb = builders.get(parent) or []
                    sup = ("=" + pb[0], (), 0) if pb else None
                self.types[gt.key] = TypeDecl(
                    gt.key, gt.name, "class", gt.outer, False, False, True, gt.abstract, sup, (),
                    gt.type_params, (), (), (), (), (), 0, 0, td.start_line, td.start_line, None)
                self.type_file[gt.key] = fi
                self.solver.forget(gt.key)  # a generated type: no longer a miss
                self.members.setdefault(gt.outer, {})[gt.name] = gt.key
            for gm in plan.methods:
                self._gen_methods.setdefault(gm.owner, []).append(gm)
            for ref, by in plan.delegates:
                self._delegates.append((td.key, ref, by))

    def _expand_delegates(self) -> None:
        """``@Delegate``: the delegate type's public instance methods (from
        project sources or the classpath, inherited ones included, ``Object``'s
        excluded) become members of the class, each calling the delegate's."""
        for key, ref, by in self._delegates:
            fi = self.type_file[key]
            r = self.resolve_ref(ref, fi, key)
            if r is None or r[0] in PRIMITIVES:
                continue
            have = {(p.info.name, len(p.ptypes)) for p in self.methods.get(key, ())}
            ff = self.files[fi]
            td = self.types[key]
            for x, decl in self.declared_supertypes(r[0]):
                if decl is None:
                    continue
                for name, ms in sorted(decl[0].items()):
                    for m in ms:
                        if m.is_source:
                            i_ = m.info
                            if i_.static or i_.private or name in ("<init>", "<clinit>"):
                                continue
                            ptypes, shown = m.ptypes, i_.params
                            rt = self.erase_ref(m.returns, self.type_file[m.type_key], m.type_key,
                                                m.tparams or None) if m.returns else "void"
                            api = None
                            dst = i_.id
                        else:
                            sg = m.sig
                            if sg.static or sg.access != "public" or name in ("<init>", "<clinit>"):
                                continue
                            ptypes, shown = m.ptypes, tuple(sg.params)
                            rt = sg.returns or "void"
                            dst = m.id
                            api = ApiTarget(m.id, m.owner, name, self.third_party(m.owner), self.library_of(m.owner))
                        if (name, len(ptypes)) in have:
                            continue
                        have.add((name, len(ptypes)))
                        mid = f"{key}.{name}({','.join(shown)})"
                        info = MethodInfo(mid, ff.rel, td.start_line, td.start_line, 0, None, ff.source_set,
                                          key, name, tuple(shown), False, False, False, True,
                                          bool(shown) and shown[-1].endswith("..."), by)
                        pm = source_method(info, ptypes, None, key, _erased_ref(rt), {})
                        self.methods.setdefault(key, []).append(pm)
                        self.by_id[mid] = pm
                        self.by_name.setdefault(name, []).append(mid)
                        self.gen_edges.setdefault(fi, []).append((mid, dst, api))
            self._decl.pop(key, None)
            self._mnamed.clear()
