"""The project method as a graph node (``MethodInfo``)."""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields

from ._fastinit import fast_init


def pickled_by_fields(cls):
    """Pickle ``cls`` (a frozen slotted dataclass) as ``cls(*init fields)``. The
    state functions ``dataclasses`` gives such a class call ``fields()``
    again for every object: unpickling spring-framework's index snapshot
    (212 k ``MethodInfo`` and ``MethodCandidate``) spent three quarters of its
    time there (callgraph._snapshot; ``_facts`` does the same for facts)."""
    get = operator.attrgetter(*(f.name for f in fields(cls) if f.init))  # the others: __post_init__

    def __reduce__(self):
        return cls, get(self)

    cls.__reduce__ = __reduce__
    return cls


@fast_init
@pickled_by_fields
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
