"""Type solvers: who declares a type name, asked as a chain.

The shape follows JavaParser's symbol solver (``TypeSolver``,
``CombinedTypeSolver``): each solver answers a source FQN (or a project type
key) with ``Solved(view)`` or ``Unsolved(name, reason)`` and never raises;
the chain asks its solvers in order — project sources first, then the
classpath (jars, class folders and the JDK, ``callgraph/classpath.py``) — and
the first answer wins. Answers, misses included, are cached by the chain.
Nested lookups (a library type's supertypes, a member type) are made by the
caller through the *whole* chain (``ProjectIndex.solver``), never through the leaf
that answered, so a jar type may extend a project type and vice versa.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, runtime_checkable

from ._facts import TypeDecl


class Origin(Enum):
    """Where a solved type is declared."""

    SOURCE = "source"  # a project source file
    LIBRARY = "library"  # a class file: a jar, a class folder or the JDK


class Reason(Enum):
    """Why a type name is not solved."""

    NOT_IN_PROJECT = "not declared in the project sources"
    NO_CLASSPATH = "no classpath (nor JDK) is indexed"
    NOT_ON_CLASSPATH = "not on the classpath"
    UNREADABLE = "class file unreadable or malformed"
    NOT_A_TYPE = "class file is not a usable type (module-info, package-info, local, anonymous, synthetic)"
    INTERNAL_ERROR = "internal error while reading the class file"
    UNRESOLVED_NAME = "a type name the project does not resolve"  # "?Name" placeholders


@dataclass(frozen=True, slots=True)
class TypeView:
    """A solved type, from sources or a class file.

    Attributes
    ----------
    name : str
        The name it was solved under: project key or library source FQN.
    origin : Origin
    kind : str
        ``"class"`` | ``"interface"`` | ``"enum"`` | ``"record"`` | ``"annotation"``.
    decl : TypeDecl or None
        The source declaration (``origin`` SOURCE).
    sig : classpath.TypeSig or None
        The class-file signature (``origin`` LIBRARY).
    """

    name: str
    origin: Origin
    kind: str
    decl: TypeDecl | None = field(default=None, compare=False)
    sig: object | None = field(default=None, compare=False)
    # stored, not properties: the index reads them on every member and
    # supertype lookup (tens of thousands of times per hundred files)
    is_source: bool = field(init=False, compare=False)
    is_interface: bool = field(init=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "is_source", self.origin is Origin.SOURCE)
        object.__setattr__(self, "is_interface", self.kind == "interface")


@dataclass(frozen=True, slots=True)
class Solved:
    """``solved(view)``."""

    view: TypeView


@dataclass(frozen=True, slots=True)
class Unsolved:
    """``unsolved(name, reason)``; ``detail`` is the leaf's own words (the
    class-file error, the jar), empty when the reason says all."""

    name: str
    reason: Reason
    detail: str = ""


@runtime_checkable
class TypeSolver(Protocol):
    """Answers a type name with :class:`Solved` or :class:`Unsolved`; never raises."""

    def solve(self, name: str) -> Solved | Unsolved: ...


class SourceTypeSolver:
    """The project's own declarations (``ProjectIndex.types``: key → TypeDecl).

    It reads the live table, so types added later (Lombok's builders) are
    seen; it keeps no cache of its own (a dict look-up is the whole cost)."""

    __slots__ = ("types",)

    def __init__(self, types: dict[str, TypeDecl]):
        self.types = types

    def solve(self, name: str) -> Solved | Unsolved:
        td = self.types.get(name)
        if td is None:
            return Unsolved(name, Reason.NOT_IN_PROJECT)
        return Solved(TypeView(name, Origin.SOURCE, td.kind, decl=td))


def _classpath_reason(reason) -> Reason:
    """The chain's :class:`Reason` for a ``classpath.UnsolvedReason``."""
    from .classpath import UnsolvedReason as R

    if reason is R.NOT_ON_CLASSPATH:
        return Reason.NOT_ON_CLASSPATH
    if reason is R.INTERNAL_ERROR:
        return Reason.INTERNAL_ERROR
    if reason in (R.UNREADABLE, R.MALFORMED, R.WRONG_NAME):
        return Reason.UNREADABLE
    return Reason.NOT_A_TYPE  # module-info, package-info, local/anonymous, synthetic


class ClasspathTypeSolver:
    """Jars, class folders and the JDK through a ``classpath.ClasspathIndex``
    (which indexes each leaf's class list up front, so a "no" is cheap, and
    caches its own answers); ``cp`` None answers every name ``NO_CLASSPATH``."""

    __slots__ = ("cp",)

    def __init__(self, cp):
        self.cp = cp

    def solve(self, name: str) -> Solved | Unsolved:
        if self.cp is None:
            return Unsolved(name, Reason.NO_CLASSPATH)
        if name.startswith("?"):
            return Unsolved(name, Reason.UNRESOLVED_NAME)
        from .classpath import Solved as _CpSolved

        r = self.cp.lookup_result(name)  # never raises
        if isinstance(r, _CpSolved):
            sig = r.type
            return Solved(TypeView(name, Origin.LIBRARY, sig.kind, sig=sig))
        return Unsolved(name, _classpath_reason(r.reason), r.text)


class ChainTypeSolver:
    """Asks ``solvers`` in order; the first :class:`Solved` wins, else the last
    leaf's :class:`Unsolved` (the most specific "no": sources say only "not
    ours"). Every answer is cached, misses too; :meth:`forget` drops the
    cache when a leaf's contents change (Lombok adding generated types)."""

    __slots__ = ("solvers", "_cache", "_views")

    def __init__(self, solvers):
        self.solvers = tuple(solvers)
        self._cache: dict[str, Solved | Unsolved] = {}
        # name -> TypeView or None: view() is the index's hottest lookup, one dict
        # get on a hit instead of solve() + isinstance + .view
        self._views: dict[str, TypeView | None] = {}

    def solve(self, name: str) -> Solved | Unsolved:
        r = self._cache.get(name)
        if r is not None:
            return r
        for s in self.solvers:
            r = s.solve(name)
            if isinstance(r, Solved):
                break
        if r is None:
            r = Unsolved(name, Reason.NO_CLASSPATH)
        self._cache[name] = r
        return r

    def view(self, name: str) -> TypeView | None:
        """The solved view of ``name``, or None (the reason via :meth:`solve`)."""
        try:
            return self._views[name]
        except KeyError:
            pass
        r = self.solve(name)
        v = self._views[name] = r.view if isinstance(r, Solved) else None
        return v

    def forget(self, name: str | None = None) -> None:
        """Drop the cached answer for ``name`` (every answer when None)."""
        if name is None:
            self._cache.clear()
            self._views.clear()
        else:
            self._cache.pop(name, None)
            self._views.pop(name, None)
