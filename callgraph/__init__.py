"""Java source → call graph, with API Call Depth, chain and density.

Public API (DESIGN.md "The call graph", "Depth, chain and density"):

- ``build_project_graph(root, *, classpath=(), auto_classpath=True, jdk="auto", jobs=1, ...) -> ProjectGraph``
  (``auto_classpath``: the project's libraries resolved by Maven, as ``qare graph`` does;
  ``ProjectGraph.resolution`` says how)
- ``ProjectGraph.graph`` — the ``networkx.DiGraph`` (nodes are method ids)
- ``ProjectGraph.reach(method_id, ...) -> list[Target]``
- ``ProjectGraph.methods()``, ``.method(id) -> MethodInfo``, ``.find_methods(text)``, ``.suggest_methods(text)``
- ``BuildSummary`` — counts, resolved share, parse errors, skipped files
- dispatch: ``DISPATCH_MODES`` (``rta``, ``cha``, ``declared``), ``DEFAULT_DISPATCH``;
  ``ProjectGraph.instantiated`` → ``InstantiatedType`` (why: ``Instantiation``)
- errors: ``CallGraphError``, ``NoInputError``, ``UnknownMethodError``
- the classpath side (``callgraph.classpath``): ``ClasspathIndex`` (jars, class folders
  and the running JDK's ``lib/modules``), ``TypeSig``/``MethodSig``/``FieldSig``,
  ``Solved``/``Unsolved``(``UnsolvedReason``), ``resolve_classpath``, ``fetch_doc_jars``, ``discover_classpath``,
  ``is_third_party``

Examples
--------
>>> pg = build_project_graph("fixtures/java/qare-example")      # doctest: +SKIP
>>> [t.to_dict() for t in pg.reach("CommentService.processComment")]  # doctest: +SKIP
"""

from ._build import build_project_graph, default_jobs
from ._errors import CallGraphError, NoInputError, UnknownMethodError
from ._graph import DEFAULT_DISPATCH, DISPATCH_MODES, BuildSummary, ProjectGraph, Target
from ._rta import Instantiation, InstantiatedType
from ._index import MethodInfo
from .classpath import (
    ClasspathIndex,
    FieldSig,
    MethodSig,
    Solved,
    TypeSig,
    Unsolved,
    UnsolvedReason,
    discover_classpath,
    is_third_party,
)

__all__ = [
    "build_project_graph",
    "default_jobs",
    "ProjectGraph",
    "Target",
    "MethodInfo",
    "BuildSummary",
    "DISPATCH_MODES",
    "DEFAULT_DISPATCH",
    "Instantiation",
    "InstantiatedType",
    "CallGraphError",
    "NoInputError",
    "UnknownMethodError",
    "ClasspathIndex",
    "TypeSig",
    "MethodSig",
    "FieldSig",
    "Solved",
    "Unsolved",
    "UnsolvedReason",
    "discover_classpath",
    "is_third_party",
]
