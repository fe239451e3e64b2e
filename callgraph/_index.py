"""The project index: every project type and method, type-name resolution,
member lookup through project sources → classpath → JDK, subtyping.

Types in the resolver are expression types (``_types.ExprType``); the index
hands out class types as ``(name, args)`` tuples, a ``_types.ClassT`` by
layout: ``name`` the erased source FQN (``"java.util.List"``), a primitive
(``"int"``) or an array (``"java.lang.String[]"``); ``args`` the resolved type
arguments (``None`` for an unknown argument). ``None`` as a type means unknown.

``ProjectIndex`` builds the tables here; its lookups live in mixins, one job
each: ``_index_names`` (the classpath behind the project, type names in a
file's scope), ``_index_hierarchy`` (supertypes, subtyping, generic
substitution, library ``Signature`` attributes), ``_index_members`` (method
tables, visible methods and fields, functional interfaces, CHA overriders),
``_index_lombok`` (Lombok's generated members, ``@Delegate``).
"""

from __future__ import annotations

from ._facts import FileFacts, TypeDecl
from ._index_hierarchy import TypeHierarchy
from ._index_lombok import LombokPlanning
from ._index_members import MemberLookup
from ._index_names import NameResolution
from ._jls import _WIDEN, BOX, OBJECT, PRIMITIVES, UNBOX  # noqa: F401 (re-exported)
from ._methodinfo import MethodInfo  # noqa: F401 (re-exported)
from ._candidates import MethodCandidate
from ._solver import ChainTypeSolver, ClasspathTypeSolver, SourceTypeSolver


def _module_of(rel: str) -> str | None:
    """The module folder of a file in a Maven/Gradle layout (``core`` for
    ``core/src/test/java/p/A.java``, ``""`` for the root module), or None
    when the path has no ``src/<set>/java``."""
    parts = rel.split("/")
    for i in range(len(parts) - 2):
        if parts[i] == "src" and parts[i + 2] == "java":
            return "/".join(parts[:i])
    return None


class ProjectIndex(NameResolution, TypeHierarchy, MemberLookup, LombokPlanning):
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
        # merged declarations by FQN: field lookups ask per type, not per scan of the list
        self.merged_by_key: dict[str, list[tuple[int, TypeDecl]]] = {}
        for fi, td in self.merged:
            self.merged_by_key.setdefault(td.key, []).append((fi, td))
        # who declares a type name: project sources, then the classpath/JDK
        self.solver = ChainTypeSolver((SourceTypeSolver(self.types), ClasspathTypeSolver(cp)))
        self.has_jdk = bool(cp is not None and cp.jdk_packages)
        self._name_memo: dict = {}
        self._ref_memo: dict = {}
        self._supers: dict[str, tuple] = {}
        self._allsupers: dict[str, frozenset | None] = {}
        self._mnamed: dict = {}
        self._lib: dict = {}
        self._has: dict = {}  # source FQN -> whether the classpath has its class file (lib_has)
        self._fields: dict = {}
        self._third: dict = {}
        self._over: dict = {}
        self._libover: dict = {}  # project method id -> (library method id, owner) it overrides, or None
        self._inherited: dict = {}  # (name, ptypes) -> {class: inherited implementation id or None}
        self._subwalk: dict = {}  # type -> its CHA subtypes (overriders)
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

    # ----------------------------------------------------------- snapshot
    # (callgraph._snapshot, docs/callgraph.md "Index snapshot")
    #: memos whose answers are names and types only, the same after a body
    #: edit: kept in a snapshot as construction left them — copied by
    #: :meth:`snapshot_state`, since resolution keeps filling them and the
    #: build pickles the state after pass 2 (``_ref_memo`` is re-keyed on
    #: load: its keys hold the id of a type-parameter dict)
    _KEPT_MEMOS = ("_name_memo", "_ref_memo", "_supers", "_allsupers")
    #: memos that hold declarations, candidates or classpath answers: empty
    #: after a load (a memo is a cache; an empty one gives the same answers)
    _DROPPED_MEMOS = ("_mnamed", "_lib", "_has", "_fields", "_third", "_over", "_inherited", "_subwalk",
                      "_decl", "_sam", "_partial", "_csig", "_msig", "_libover")

    def snapshot_state(self) -> dict:
        """The index's tables (everything but the classpath, the solver and
        :data:`_DROPPED_MEMOS`), taken right after construction; the memos
        resolution adds to (:data:`_KEPT_MEMOS`) as copies, the tables (not
        changed after construction) shared."""
        skip = {"cp", "solver", *self._DROPPED_MEMOS}
        grow = set(self._KEPT_MEMOS)
        return {k: (dict(v) if k in grow else v) for k, v in self.__dict__.items() if k not in skip}

    @classmethod
    def from_snapshot(cls, state: dict, cp) -> "ProjectIndex":
        """The index :meth:`snapshot_state` saved, on the classpath ``cp``
        (the same classpath and JDK: the snapshot's key holds the environment)."""
        self = cls.__new__(cls)
        self.__dict__.update(state)
        self.cp = cp
        self.has_jdk = bool(cp is not None and cp.jdk_packages)
        for m in self._DROPPED_MEMOS:
            setattr(self, m, {})
        # the key holds id(type parameters) of a live dict: the unpickled dict
        # (shared with its candidate, as pickle keeps identity) has another id
        self._ref_memo = {(k[0], k[1], k[2], id(v[1]) if v[1] else 0): v for k, v in self._ref_memo.items()}
        self.solver = ChainTypeSolver((SourceTypeSolver(self.types), ClasspathTypeSolver(cp)))
        return self

    def patch_file(self, fi: int, ff: FileFacts) -> bool:
        """Put ``ff``, file ``fi``'s facts after an edit that kept its
        declaration digest (its positions, comments, LOC and line counts
        changed), in place of the old ones: the file's type declarations, and
        the method tables of its types built again from them (candidates with
        fresh ``MethodInfo`` lines and ``decl`` byte ranges, the same ids in
        the same order). False (the index is then unusable: build it anew)
        where the edit is not of that kind or the file has Lombok-generated
        members, which are not patched."""
        old = self.files[fi]
        if old.rel != ff.rel or len(old.types) != len(ff.types) \
                or any(a.key != b.key for a, b in zip(old.types, ff.types)):
            return False
        keys = {td.key for td in ff.types if not td.local}
        own = {id(td) for td in old.types}
        if fi in self.gen_edges or any(k in self._gen_methods or k in self.gen_fields for k in keys) \
                or any(k in keys for k, _r, _b in self._delegates) \
                or any(f == fi and id(self.types[k]) not in own for k, f in self.type_file.items()):
            return False  # Lombok's members and types (lines of their own type) are not patched
        self.files[fi] = ff
        for a, b in zip(old.types, ff.types):
            if self.types.get(a.key) is a:
                self.types[a.key] = b
        swap = {id(a): b for a, b in zip(old.types, ff.types)}
        self.merged = [(f, swap[id(td)] if f == fi else td) for f, td in self.merged]
        self.merged_by_key = {}
        for f, td in self.merged:
            self.merged_by_key.setdefault(td.key, []).append((f, td))
        # the touched types' tables, built again beside the live ones
        live = self.methods, self.by_id, self.by_name
        self.methods, self.by_id, self.by_name = {}, {}, {}
        try:
            for key in sorted(keys):
                if key in self.types and not self.types[key].local:
                    self._build_methods(key, self.types[key])
            for f, td in self.merged:
                if td.key in keys and not td.local:
                    self._build_methods(td.key, td, f)
            fresh = self.methods
        finally:
            self.methods, self.by_id, self.by_name = live
        for key, pms in fresh.items():
            if [p.id for p in pms] != [p.id for p in self.methods.get(key, ())]:
                return False
        for key, pms in fresh.items():
            self.methods[key] = pms
            for p in pms:
                self.by_id[p.id] = p
        for m in self._DROPPED_MEMOS:  # they may hold the old candidates or declarations
            getattr(self, m).clear()
        return True
