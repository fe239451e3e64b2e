"""The method-id and resolution vocabulary every package shares (DESIGN.md
"Identifiers", "The call graph").

A **method id** is ``com.acme.Outer.Inner.name(java.lang.String,int[])``:
the declaring type's source FQN, the method name (``<init>`` for
constructors) and the erased parameter types. An **API name** is the id
without its parameter list; the **API class** its declaring type. An
overload that could not be decided has ``(*)`` as its parameter list.
"""

from __future__ import annotations

from enum import Enum

__all__ = [
    "UNDECIDED",
    "Resolution",
    "RESOLUTION_STRENGTH",
    "split_id",
    "api_name",
    "api_class",
]

UNDECIDED = "(*)"
"""The parameter list of an undecided-overload node (``StringUtils.join(*)``)."""


class Resolution(str, Enum):
    """How a call edge was resolved, strongest first (DESIGN.md "The call graph").

    A chain's resolution is its weakest edge's (:data:`RESOLUTION_STRENGTH`)."""

    EXACT = "exact"
    """Receiver and overload decided."""
    ARITY = "arity"
    """Receiver decided, overload chosen by argument count."""
    CHA = "cha"
    """Added by class-hierarchy dispatch to an overriding project method."""
    NAME = "name"
    """Receiver type unknown; kept for inspection, excluded from targets by default."""


RESOLUTION_STRENGTH: dict[str, int] = {r.value: i for i, r in enumerate(Resolution)}
"""Edge kind → rank, 0 the strongest (``exact`` 0 … ``name`` 3)."""


def split_id(mid: str) -> tuple[str, str, str | None]:
    """``(class, api name, params or None)`` of a method id; ``None`` params
    for an undecided overload ``(*)``, ``""`` for no parameters.

    >>> split_id("a.B.c(int,java.lang.String)")
    ('a.B', 'a.B.c', 'int,java.lang.String')
    >>> split_id("a.B.join(*)")
    ('a.B', 'a.B.join', None)
    """
    head, _, params = mid.partition("(")
    cls, _, _name = head.rpartition(".")
    params = params[:-1] if params.endswith(")") else params
    return cls, head, (None if params == "*" else params)


def api_name(mid: str) -> str:
    """The API name of a method id (the id without its parameter list)."""
    return mid.partition("(")[0]


def api_class(mid: str) -> str:
    """The declaring type of a method id or API name (``a.B.c(int)`` → ``a.B``)."""
    return api_name(mid).rpartition(".")[0]
