"""Java source → call graph, with API Call Depth, chain and density.

Public API (see DESIGN.md "The call graph"):

- ``build_project_graph(root, *, classpath=(), jobs=1, ...) -> ProjectGraph``
- ``ProjectGraph.graph`` — the ``networkx.DiGraph`` (nodes are method ids)
- ``ProjectGraph.reach(method_id, ...) -> list[Target]``
"""

__all__: list[str] = []
