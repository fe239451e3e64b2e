"""One method-candidate type for project and library methods alike.

Overload selection, dispatch and the functional-interface look-ups work on
:class:`MethodCandidate` whatever declares the method: the common facts
(declaring type, name, erased parameter types, static/abstract/varargs, a
void return) are fields; what only one origin has — the source declaration
and its ``MethodInfo`` node, or the class file's ``MethodSig`` — sits beside
them, and :attr:`MethodCandidate.origin` says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._fastinit import fast_init
from ._methodinfo import pickled_by_fields
from ._solver import Origin


@fast_init
@pickled_by_fields
@dataclass(frozen=True, slots=True, eq=False)
class MethodCandidate:
    """A method or constructor a call may bind to (compared by identity: one
    object per declaration).

    Attributes
    ----------
    id : str
        Method id (DESIGN.md "Identifiers"): the graph node of a project
        method, the API node of a library one.
    owner : str
        Declaring type: project key or library source FQN.
    name : str
        Simple name, ``<init>`` for constructors.
    ptypes : tuple[str, ...]
        Erased parameter types, a varargs last parameter as ``"X[]"``.
    origin : Origin
        SOURCE (project) or LIBRARY (class file).
    static, varargs : bool
    abstract : bool
        An abstract instance method (what a functional interface counts).
    void : bool
        Declared ``void``.
    info, decl, returns, tparams
        Project methods only: the graph node (``MethodInfo``), the source
        declaration (None for implicit members), the declared return TypeRef
        and the method's type parameters (name → bound TypeRef).
    sig, tsig
        Library methods only: the ``MethodSig`` and its type's ``TypeSig``.
    """

    id: str
    owner: str
    name: str
    ptypes: tuple
    origin: Origin
    static: bool
    abstract: bool
    varargs: bool
    void: bool
    info: object | None = None
    decl: object | None = None
    returns: tuple | None = None
    tparams: dict = field(default_factory=dict)
    sig: object | None = None
    tsig: object | None = None
    # stored, not properties: read on every candidate the resolver weighs, and a
    # property costs a Python call on CPython 3.11 (no LOAD_ATTR specialisation)
    is_source: bool = field(init=False, repr=False)
    type_key: str = field(init=False, repr=False)  # the declaring project type (same as owner)

    def __post_init__(self):
        object.__setattr__(self, "is_source", self.origin is Origin.SOURCE)
        object.__setattr__(self, "type_key", self.owner)


def source_method(info, ptypes: tuple, decl, type_key: str, returns, tparams: dict) -> MethodCandidate:
    """The candidate of a project method (``info`` a ``MethodInfo``)."""
    return MethodCandidate(
        info.id, type_key, info.name, ptypes, Origin.SOURCE, info.static, info.abstract, info.varargs,
        returns is not None and returns[0] == "void" and not returns[2],
        info, decl, returns, tparams)


def library_method(owner: str, sig, tsig) -> MethodCandidate:
    """The candidate of a library method (``sig`` a ``classpath.MethodSig`` of type ``tsig``)."""
    ps = list(sig.params)
    if sig.varargs and ps and ps[-1].endswith("..."):
        ps[-1] = ps[-1][:-3] + "[]"
    return MethodCandidate(
        f"{owner}.{sig.name}({','.join(sig.params)})", owner, sig.name, tuple(ps), Origin.LIBRARY,
        sig.static, sig.abstract and not sig.static, sig.varargs, sig.returns == "void",
        sig=sig, tsig=tsig)
