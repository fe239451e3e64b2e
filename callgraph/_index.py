"""The project index: every project type and method, type-name resolution,
member lookup through project sources → classpath → JDK, subtyping.

Types in the resolver are expression types (``_types.ExprType``); the index
hands out class types as ``(name, args)`` tuples, a ``_types.ClassT`` by
layout: ``name`` the erased source FQN (``"java.util.List"``), a primitive
(``"int"``) or an array (``"java.lang.String[]"``); ``args`` the resolved type
arguments (``None`` for an unknown argument). ``None`` as a type means unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._facts import FileFacts, TypeDecl
from ._lombok import GenMethod, LombokConfig, plan_type
from ._callsite import ApiTarget
from ._candidates import MethodCandidate, library_method, source_method
from ._solver import ChainTypeSolver, ClasspathTypeSolver, SourceTypeSolver
from ._types import (JArray, JClass, JPrim, JTypeVar, JWildcard, SignatureError, parse_class_signature,
                     parse_field_signature, parse_method_signature)

PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "void"})
OBJECT = "java.lang.Object"
_WIDEN = {
    "byte": {"byte", "short", "int", "long", "float", "double"},
    "short": {"short", "int", "long", "float", "double"},
    "char": {"char", "int", "long", "float", "double"},
    "int": {"int", "long", "float", "double"},
    "long": {"long", "float", "double"},
    "float": {"float", "double"},
    "double": {"double"},
    "boolean": {"boolean"},
}
BOX = {"int": "java.lang.Integer", "long": "java.lang.Long", "short": "java.lang.Short",
       "byte": "java.lang.Byte", "char": "java.lang.Character", "boolean": "java.lang.Boolean",
       "float": "java.lang.Float", "double": "java.lang.Double"}
UNBOX = {v: k for k, v in BOX.items()}
# public methods of Object an interface may redeclare without losing its
# functional-interface status (JLS 9.8)
_OBJECT_PUBLIC = frozenset({("equals", ("java.lang.Object",)), ("hashCode", ()), ("toString", ())})


@dataclass(frozen=True, slots=True)
class MethodInfo:
    """A project method (graph node of kind ``method``).

    Attributes
    ----------
    id : str
        Method id (DESIGN.md "Identifiers").
    file : str
        POSIX path relative to the project root.
    start_line, end_line : int
        1-based lines of the declaration (annotations included).
    loc : int
        Lines of code (``loc_mode`` of the build).
    comment : str or None
        Raw doc comment, or the comment block directly above.
    source_set : str
        ``"main"`` or ``"test"``.
    declaring_type : str
        Source FQN of the declaring type.
    name : str
        Simple name, ``<init>`` for constructors, ``<clinit>`` for static
        initialization.
    params : tuple[str, ...]
        Erased parameter types (varargs last as ``"T..."``).
    static, abstract, private : bool
    implicit : bool
        Not written in the source (default constructor, record members,
        enum ``values``/``valueOf``, ``<clinit>``, Lombok's members).
    generated_by : str or None
        Who generated an implicit member: ``"javac"`` for the compiler's own,
        the Lombok annotation's FQN (``"lombok.Getter"``, ``"lombok.Data"``,
        ``"lombok.Builder"``, ...) for Lombok's; None for written members.
    """

    id: str
    file: str
    start_line: int
    end_line: int
    loc: int
    comment: str | None
    source_set: str
    declaring_type: str
    name: str
    params: tuple
    static: bool = False
    abstract: bool = False
    private: bool = False
    implicit: bool = False
    varargs: bool = False
    generated_by: str | None = None


def _erased_ref(t: str):
    """A TypeRef for an already erased type name (``"java.lang.String[]"``, ``"int"``)."""
    dims = 0
    if t.endswith("..."):
        t, dims = t[:-3], 1
    while t.endswith("[]"):
        t, dims = t[:-2], dims + 1
    return (t if t in PRIMITIVES else "=" + t, (), dims)


def _module_of(rel: str) -> str | None:
    """The module folder of a file in a Maven/Gradle layout (``core`` for
    ``core/src/test/java/p/A.java``, ``""`` for the root module), or None
    when the path has no ``src/<set>/java``."""
    parts = rel.split("/")
    for i in range(len(parts) - 2):
        if parts[i] == "src" and parts[i + 2] == "java":
            return "/".join(parts[:i])
    return None


class ProjectIndex:
    """All project declarations plus the classpath, with memoised lookups."""

    def __init__(self, files: list[FileFacts], cp, loc_mode: str = "physical", root=None):
        self.files = files
        self.cp = cp
        self.types: dict[str, TypeDecl] = {}
        self.type_file: dict[str, int] = {}
        self.pkg_types: dict[str, dict[str, str]] = {}
        self.members: dict[str, dict[str, str]] = {}
        self.local_types: dict[str, dict[str, str]] = {}
        self.duplicates: list[tuple[str, str]] = []  # (file, reason)
        self.module_duplicates: list[tuple[str, str]] = []  # (file, note): same FQN in another module
        self.merged: list[tuple[int, TypeDecl]] = []  # such declarations, their members merged in
        for fi, ff in enumerate(files):
            for td in ff.types:
                if td.key in self.types and not td.local:
                    first_fi = self.type_file[td.key]
                    mod, first_mod = _module_of(ff.rel), _module_of(files[first_fi].rel)
                    if mod is not None and first_mod is not None and mod != first_mod:
                        # separate Maven/Gradle modules are separate namespaces (spring-framework
                        # declares the same test class in several): one node per method id, the
                        # first file's where both declare it, the union of the members
                        self.merged.append((fi, td))
                        if td.outer is None:
                            self.module_duplicates.append((ff.rel, (
                                f"type {td.key} also declared in module {first_mod or '.'} "
                                f"({files[first_fi].rel}); its members are merged, the first file's "
                                f"where both declare one")))
                        continue
                    # the same FQN twice in one module: the first file wins
                    if td.outer is None:
                        first = files[self.type_file[td.key]].rel
                        self.duplicates.append((ff.rel, f"duplicate type {td.key} (first declared in "
                                                        f"{first}): its members are not in the graph"))
                    continue
                self.types[td.key] = td
                self.type_file[td.key] = fi
                if td.anonymous:
                    continue
                if td.local:
                    self.local_types.setdefault(td.outer or "", {}).setdefault(td.name, td.key)
                elif td.outer is None:
                    self.pkg_types.setdefault(ff.package, {})[td.name] = td.key
                else:
                    self.members.setdefault(td.outer, {})[td.name] = td.key
        self.packages = frozenset(self.pkg_types)
        # who declares a type name: project sources, then the classpath/JDK
        self.solver = ChainTypeSolver((SourceTypeSolver(self.types), ClasspathTypeSolver(cp)))
        self.has_jdk = bool(cp is not None and cp.jdk_packages)
        self._name_memo: dict = {}
        self._ref_memo: dict = {}
        self._supers: dict[str, tuple] = {}
        self._allsupers: dict[str, frozenset | None] = {}
        self._mnamed: dict = {}
        self._lib: dict = {}
        self._fields: dict = {}
        self._third: dict = {}
        self._over: dict = {}
        self._decl: dict = {}
        self._sam: dict = {}
        self._partial: dict = {}
        self._csig: dict = {}
        self._msig: dict = {}
        self._plan_lombok(root)
        self.methods: dict[str, list[MethodCandidate]] = {}
        self.by_id: dict[str, MethodCandidate] = {}
        self.by_name: dict[str, list[str]] = {}
        self.subtypes: dict[str, set[str]] = {}
        for key in self.types:
            for s in self.supers(key):
                if s in self.types:
                    self.subtypes.setdefault(s, set()).add(key)
        for key, td in self.types.items():
            self._build_methods(key, td)
        for fi, td in self.merged:
            if not td.local:
                self._build_methods(td.key, td, fi)
        self._expand_delegates()

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
                if shadow is None:
                    shadow = frozenset(self.pkg_types.get(ff.package, ()))
                plan = plan_type(td, ff.imports, shadow, cfg.settings(folder))
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

    # ----------------------------------------------------------- classpath
    def lib(self, fqn: str):
        """TypeSig of a library type, or None (memoised)."""
        try:
            return self._lib[fqn]
        except KeyError:
            pass
        sig = self._lib[fqn] = self.cp.lookup(fqn) if self.cp is not None else None  # lookup never raises
        return sig

    def lib_has(self, fqn: str) -> bool:
        return self.cp is not None and self.cp.has_type(fqn)

    def third_party(self, fqn: str) -> bool:
        """True unless the type is a JDK type (decided by the JDK's own package list;
        with no JDK at all, only the platform-reserved ``java.`` packages count as JDK)."""
        r = self._third.get(fqn)
        if r is None:
            if not self.has_jdk:
                r = not fqn.startswith("java.")
            else:  # a JDK is indexed, so there is a classpath index
                from .classpath import is_third_party

                sig = self.lib(fqn)
                r = sig.origin != "jdk" if sig is not None else is_third_party(fqn, self.cp)
            self._third[fqn] = r
        return r

    def library_of(self, fqn: str):
        sig = self.lib(fqn)
        return getattr(sig, "library", None) if sig is not None else None

    # ----------------------------------------------------------- type names
    def _file_of(self, key: str | None, fi: int) -> int:
        return self.type_file.get(key, fi) if key else fi

    def resolve_name(self, name: str, fi: int, key: str | None) -> str | None:
        """Source FQN (or project key) of a type name used in file ``fi`` inside type ``key``."""
        mk = (name, fi, key)
        try:
            return self._name_memo[mk]
        except KeyError:
            pass
        self._name_memo[mk] = None  # cycle guard
        r = self._resolve_name(name, fi, key)
        self._name_memo[mk] = r
        return r

    def _resolve_name(self, name: str, fi: int, key: str | None) -> str | None:
        if name.startswith("="):
            return name[1:]
        parts = name.split(".")
        head = self._resolve_simple(parts[0], fi, key)
        if head is not None:
            cur = self._member_path(head, parts[1:])
            if cur is not None:
                return cur
        # a qualified name: find the shortest prefix that is a type
        for i in range(1, len(parts) + 1):
            pre = ".".join(parts[:i])
            if i >= 2 or len(parts) == 1:
                if pre in self.types and not self.types[pre].local or (i >= 2 and self.lib_has(pre)):
                    cur = self._member_path(pre, parts[i:])
                    if cur is not None:
                        return cur
        # An unknown library type written fully qualified (no classpath for it):
        # Java naming conventions separate the package (lower case) from the
        # type names (upper case).
        if len(parts) >= 2 and parts[0][:1].islower():
            i = next((j for j, p in enumerate(parts) if p[:1].isupper()), None)
            if i is not None and i >= 1 and all(p[:1].isupper() for p in parts[i:]):
                return name
        return None

    def member_type(self, owner: str, name: str, _seen=None, _inherited=False):
        """Member type ``name`` of ``owner`` or inherited from its supertypes
        (JLS 8.5: private member types are not inherited, and a type's own
        member hides the ones it would inherit). Source FQN or None."""
        m = self.members.get(owner)
        if m and name in m:
            key = m[name]
            if _inherited and self.types[key].private:
                return None  # hidden here, and not inherited
            return key
        v = self.solver.view(owner)
        if v is None or not v.is_source:
            cand = f"{owner}.{name}"
            if v is not None and cand in v.sig.nested:
                return cand
            if self.lib_has(cand):
                return cand
        seen = _seen or set()
        seen.add(owner)
        for s in self.supers(owner):
            if s not in seen:
                r = self.member_type(s, name, seen, True)
                if r is not None:
                    return r
        return None

    def _resolve_simple(self, n: str, fi: int, key: str | None) -> str | None:
        ff = self.files[fi]
        t = key
        while t is not None:
            td = self.types.get(t)
            if td is None:
                break
            if td.name == n and not td.anonymous:
                return t
            if t in self._supers or not td.local:
                r = self.member_type(t, n)
                if r is not None:
                    return r
            lt = self.local_types.get(t)
            if lt and n in lt:
                return lt[n]
            t = td.outer
        for imp in ff.imports:
            if not imp.on_demand and imp.name.endswith(n) and (
                    len(imp.name) == len(n) or imp.name[-len(n) - 1] == "."):
                if imp.static:
                    owner = self._resolve_qualified(imp.name[: -len(n) - 1])
                    if owner:
                        r = self.member_type(owner, n)
                        if r:
                            return r
                    continue
                return self._resolve_qualified(imp.name) or imp.name
        pt = self.pkg_types.get(ff.package)
        if pt and n in pt:
            return pt[n]
        same = f"{ff.package}.{n}" if ff.package else n
        if self.lib_has(same):
            return same
        for imp in ff.imports:
            if imp.on_demand:
                pt = self.pkg_types.get(imp.name)
                if pt and n in pt:
                    return pt[n]
                owner = imp.name if imp.name in self.types else None
                if owner is None and self.lib_has(imp.name):
                    owner = imp.name
                if owner is not None:
                    r = self.member_type(owner, n)
                    if r:
                        return r
                elif not imp.static and self.lib_has(f"{imp.name}.{n}"):
                    return f"{imp.name}.{n}"
        pt = self.pkg_types.get("java.lang")
        if pt and n in pt:
            return pt[n]
        if self.lib_has("java.lang." + n):
            return "java.lang." + n
        if not self.has_jdk and n[:1].isupper() and not any(
                imp.on_demand and not imp.static and imp.name not in self.pkg_types for imp in ff.imports):
            # No JDK to ask: in a compilable file a type name found neither in
            # scope, nor imported, nor in the package can only be java.lang's.
            return "java.lang." + n
        return None

    def _resolve_qualified(self, name: str) -> str | None:
        if name in self.types:
            return name
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            pre = ".".join(parts[:i])
            if pre in self.types or self.lib_has(pre):
                cur = self._member_path(pre, parts[i:])
                if cur is not None:
                    return cur
        return None

    def _member_path(self, owner: str, names) -> str | None:
        """The member type reached from ``owner`` through the simple ``names`` in turn (None if one is missing)."""
        for n in names:
            owner = self.member_type(owner, n)
            if owner is None:
                return None
        return owner

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
            decls = [(self.type_file[t], td)] + [(mfi, m) for mfi, m in self.merged if m.key == t]
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
        mk = (t, name, ptypes)
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

        def impl(view):
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
                x = sups[0] if sups else None
            return None

        out = set()
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
            if td.kind == "interface":
                for p in self._declared(st)[0].get(name, ()):
                    if matches(p, st):
                        out.add(p.info.id)
            else:
                mid = impl(st)
                if mid is not None:
                    out.add(mid)
        if base is not None:
            out.discard(base.info.id)
        r = tuple(sorted(out))
        self._over[mk] = r
        return r
