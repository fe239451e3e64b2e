"""Javadoc sites (``*-javadoc.jar``, HTML folders) and ``*-sources.jar`` doc
comments → API description records.

Public API
----------
- :class:`DocIndex` — ``DocIndex.open(*paths)``; ``get(method_id)``,
  ``get_class(fqn)``, ``by_name(api_name)``, ``warnings``.
- :func:`read_site` — one javadoc site (JDK 8, 11, 17+, 25 layouts) → :class:`DocSet`.
- :func:`read_sources` — one sources jar/folder → :class:`DocSet`.
- :class:`DocSetStore` — on-disk cache of read archives keyed by content
  digest (``DocIndex.open(..., store=)``).
- :class:`ApiDoc`, :class:`ClassDoc`, :class:`DocSet`, :class:`SiteLayout`,
  :class:`ZipLimits`, :class:`JavadocError`.

Ids follow DESIGN.md "Identifiers" (erased, fully-qualified parameter types;
constructors ``<init>``); fields and enum constants are ``pkg.Class.NAME``.
Decisions are in docs/javadoc.md.
"""

from ._archive import ZipLimits
from ._index import DocIndex, read_any
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout
from ._store import DocSetStore, StoreRefused


def __getattr__(name: str):
    # the readers load with their first use (lxml, javalang, tree-sitter: ~10 ms a process that
    # finds every doc jar in the doc-index cache never spends)
    if name == "read_site":
        from ._site import read_site

        return read_site
    if name == "read_sources":
        from ._sources import read_sources

        return read_sources
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ApiDoc",
    "ClassDoc",
    "DocIndex",
    "DocSet",
    "DocSetStore",
    "JavadocError",
    "SiteLayout",
    "StoreRefused",
    "ZipLimits",
    "read_any",
    "read_site",
    "read_sources",
]
