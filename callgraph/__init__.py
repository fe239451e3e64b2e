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

# Names are imported on first use (PEP 562): `qare chain` answering from the
# stored graph (callgraph._graphstore) must not pay for the parser, the
# resolver and the classpath reader (≈ 0.5 s of imports) it does not run.
_LAZY = {
    "build_project_graph": "._build", "default_jobs": "._build",
    "CallGraphError": "._errors", "NoInputError": "._errors", "UnknownMethodError": "._errors",
    "DEFAULT_DISPATCH": "._graph", "DISPATCH_MODES": "._graph", "BuildSummary": "._graph",
    "ProjectGraph": "._graph", "Target": "._graph",
    "Instantiation": "._rta", "InstantiatedType": "._rta",
    "MethodInfo": "._index",
    "ClasspathIndex": ".classpath", "FieldSig": ".classpath", "MethodSig": ".classpath",
    "Solved": ".classpath", "TypeSig": ".classpath", "Unsolved": ".classpath", "UnsolvedReason": ".classpath",
    "discover_classpath": ".classpath", "is_third_party": ".classpath",
}


def __getattr__(name: str):
    import importlib

    module = _LAZY.get(name)
    if module is None:
        try:  # `import callgraph; callgraph.classpath.X`: the submodule
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
