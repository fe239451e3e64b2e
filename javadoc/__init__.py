"""Javadoc sites (``*-javadoc.jar``, HTML folders) and ``*-sources.jar`` doc
comments → API description records.

Public API: ``DocIndex.open(*paths)``, ``DocIndex.get(method_id)``,
``DocIndex.get_class(fqn)``.
"""

__all__: list[str] = []
