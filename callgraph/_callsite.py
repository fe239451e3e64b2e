"""Call-site results: how a call was resolved, as frozen values.

:class:`Resolution` names the resolution kinds of docs/callgraph.md
("Resolution kinds"); its values are the strings the graph's edges carry in
``resolution`` (so serialised graphs are unchanged). :class:`CallResolution`
is one call site's answer inside pass 2; :class:`FileResult` is what pass 2
hands to the build for one file — a frozen dataclass of named tuples of
strings, ints and enums, so it pickles (worker processes) and serialises
(caches) as it is. The per-call-site and per-edge records are ``NamedTuple``s,
not frozen dataclasses: as immutable, and about three times cheaper to make
(one per call site and per edge; measured on java.base, see
benchmarks/bench_callgraph.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from records.ids import RESOLUTION_STRENGTH
from records.ids import Resolution as _Edge


class Resolution(str, Enum):
    """How a call site (or an edge) was resolved; equal to its string value.

    The first four are the edge kinds, and their values are those of
    ``records.ids.Resolution`` (the one vocabulary the dataset, metrics and
    the graph share); the last three never become an edge."""

    EXACT = _Edge.EXACT.value  # receiver decided, one method chosen (only candidate, or by argument types)
    BY_ARITY = _Edge.ARITY.value  # overload undecided by types, chosen by arity; or declared by an unknown type (m(*))
    CHA = _Edge.CHA.value  # an override reached by class-hierarchy analysis (edges only)
    GUESSED_BY_NAME = _Edge.NAME.value  # receiver type unknown: every same-name project method of fitting arity
    LOCAL_CLASS = "local"  # a method of a local or anonymous class (no node, no edge)
    UNRESOLVED = "unresolved"  # no target; the reason is counted
    NOT_A_CALL = "none"  # the site calls nothing (an anonymous interface implementation, ...)

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


# edge strength, strongest first (records.ids.RESOLUTION_STRENGTH): a call site seen
# twice keeps the strongest kind
STRENGTH = {Resolution(kind): rank for kind, rank in RESOLUTION_STRENGTH.items()}
# the plain string of each member (``.value`` is a slow descriptor on a hot path)
VALUE = {r: r.value for r in Resolution}


class ApiTarget(NamedTuple):
    """A library method a call site reaches (graph node of kind ``api``).

    ``id`` the method id (``Type.name(params)`` or ``Type.name(*)``),
    ``declaring_type`` its source FQN, ``third_party`` False for JDK types,
    ``library`` the jar's Maven ``group:artifact:version`` or None."""

    id: str
    declaring_type: str
    name: str
    third_party: bool
    library: str | None


class CallResolution(NamedTuple):
    """One call site's answer (internal to pass 2).

    ``targets`` method ids; ``ret`` the resolver type of the call expression
    (None unknown); ``reason`` why it is unresolved or a guess; ``cha`` ids of
    the project overrides a virtual call may dispatch to; ``apis`` the library
    targets; ``cand`` the chosen ``MethodCandidate`` and ``recv`` the
    receiver's type of a decided call (None: static or unqualified) or of a
    call unresolved on a known receiver type; ``guess`` True when the targets
    were guessed by name alone (the receiver's type is unknown: ``site_type``)."""

    resolution: Resolution
    targets: tuple = ()
    ret: object = None
    reason: str | None = None
    cha: tuple = ()
    apis: tuple = ()
    cand: object = None
    recv: object = None
    guess: bool = False

    def returning(self, ret) -> "CallResolution":
        """The same answer with the call expression's type ``ret``."""
        return CallResolution(self[0], self[1], ret, self[3], self[4], self[5], self[6], self[7], self[8])


NOT_A_CALL = CallResolution(Resolution.NOT_A_CALL)


class CallEdge(NamedTuple):
    """An edge of the call graph from one file: caller id, callee id, the
    strongest resolution of its call sites, their lines (sorted)."""

    src: str
    dst: str
    resolution: Resolution
    lines: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FileResult:
    """What pass 2 found in one file.

    Attributes
    ----------
    edges : tuple[CallEdge, ...]
    apis : tuple[ApiTarget, ...]
        Library targets, first reached first.
    counts : tuple[tuple[Resolution, int], ...]
        Call sites per resolution.
    reasons : tuple[tuple[str, int], ...]
        Unresolved reasons and ``"name: "``-prefixed guess reasons, with counts.
    examples : tuple[tuple[str, str], ...]
        One ``"file:line"`` per reason.
    sites : tuple[tuple[str, int], ...]
        Call sites per ``SITE_TYPES`` value (``_resolve.site_type``).
    """

    edges: tuple = ()
    apis: tuple = ()
    counts: tuple = ()
    reasons: tuple = ()
    examples: tuple = ()
    sites: tuple = ()
