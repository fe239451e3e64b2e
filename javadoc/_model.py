"""Facts handed out by the javadoc reader: frozen, slotted dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from records.dataset import ApiRecord, ParamDoc, ThrowsDoc

__all__ = ["ApiDoc", "ClassDoc", "DocSet", "JavadocError", "SiteLayout"]


class JavadocError(Exception):
    """An input that cannot be read at all (missing path, not a javadoc site
    nor sources, corrupt archive). The message names the file."""


class SiteLayout(str, Enum):
    """Where a record's text came from: the HTML generation of a javadoc site
    (``jdk8``: HTML 4, ``name-T-`` anchors — and the javadoc 7 tool's
    sites, ``name(T, U)`` anchors and ``method_detail`` sections; ``jdk11``: HTML5 ``name(T)``
    anchors in ``ul.blockList``; ``jdk17``: ``section.detail``; ``jdk25``:
    ``section.detail`` wrapped in ``div.horizontal-scroll``) or doc comments
    in Java ``sources``."""

    JDK8 = "jdk8"
    JDK11 = "jdk11"
    JDK17 = "jdk17"
    JDK25 = "jdk25"
    SOURCES = "sources"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


@dataclass(frozen=True, slots=True)
class ApiDoc:
    """The documentation of one member (method, constructor, field, enum
    constant, annotation element).

    Attributes
    ----------
    id : str
        Method id (DESIGN.md "Identifiers"):
        ``com.acme.Outer.Inner.name(java.lang.String,int[],java.lang.Object...)``,
        constructors ``<init>(...)``; erased, fully-qualified parameter types.
        Fields, enum constants: ``pkg.Class.NAME`` (no parentheses).
        Annotation elements: ``pkg.Ann.value()``.
    api : str
        ``id`` without the parameter list.
    class_ : str
        Declaring type, source FQN (nested types joined by ``.``).
    kind : str
        ``method`` | ``constructor`` | ``field`` | ``enum_constant`` |
        ``annotation_element``.
    signature_text : str
        The declaration as shown (modifiers, annotations, return type, name,
        parameters, throws), whitespace collapsed.
    description : str | None
        Main description as plain text (see docs/javadoc.md), ``None`` when
        the member has none.
    first_sentence : str | None
        First sentence of ``description``.
    params : tuple of (name, text)
        ``@param`` texts in order; type parameters are named ``<T>``.
    returns : str | None
        ``@return`` text.
    throws : tuple of (type, text)
        ``@throws``/``@exception``; type FQN when the site/sources let it be
        resolved, else as written.
    deprecated : str | None
        ``None`` when not deprecated, else the deprecation text (``""`` when
        none is given).
    doc_source : str
        ``"javadoc"`` (an HTML site) or ``"sources"`` (doc comments).
    layout : SiteLayout
        Site generation the record was read from (``SOURCES`` for sources).
    location : str
        File inside the site or source archive/folder (``com/acme/Widget.html``).
    anchor : str
        The page anchor (site) or declaration as written (sources).
    overrides : tuple of str
        Ids of the members this one overrides or implements, as the page's
        "Overrides:" and "Specified by:" notes name them, in page order
        (HTML sites; ``()`` for sources, which inherit comments themselves).
        A member without a comment of its own whose supertype is documented
        in another site (another jar) has only these notes: javadoc could
        not copy the comment (:meth:`DocIndex.inherited` does).
    """

    id: str
    api: str
    class_: str
    kind: str
    signature_text: str
    description: str | None
    first_sentence: str | None
    params: tuple[tuple[str, str], ...]
    returns: str | None
    throws: tuple[tuple[str, str], ...]
    deprecated: str | None
    doc_source: str
    layout: SiteLayout
    location: str
    anchor: str = ""
    overrides: tuple[str, ...] = ()

    def to_record(self, library: str | None = None) -> ApiRecord:
        """The ``apis.jsonl`` record (:class:`records.ApiRecord`, the one
        definition of its keys). ``signature`` is the id for
        methods/constructors/elements and ``None`` for fields and constants."""
        return ApiRecord(api=self.api, signature=self.id if "(" in self.id else None, class_=self.class_,
                         library=library, description=self.description, first_sentence=self.first_sentence,
                         params=tuple(ParamDoc(name=n, text=t) for n, t in self.params), returns=self.returns,
                         throws=tuple(ThrowsDoc(type=n, text=t) for n, t in self.throws),
                         deprecated=self.deprecated, doc_source=self.doc_source)

    def to_dict(self, library: str | None = None) -> dict[str, Any]:
        """The JSON object of :meth:`to_record` (an ``apis.jsonl`` line)."""
        return self.to_record(library).to_dict()


@dataclass(frozen=True, slots=True)
class ClassDoc:
    """The documentation of one type.

    ``kind`` is ``class`` | ``interface`` | ``enum`` | ``record`` |
    ``annotation``; ``fqn`` the source FQN (``pkg.Outer.Inner``); text
    fields as in :class:`ApiDoc`; ``members`` the ids of its documented
    members in page (or source) order; ``package`` its package (``""`` for
    the unnamed package). ``location`` may start with a module folder.
    """

    fqn: str
    kind: str
    signature_text: str
    description: str | None
    first_sentence: str | None
    deprecated: str | None
    doc_source: str
    layout: SiteLayout
    location: str
    members: tuple[str, ...] = ()
    package: str = ""


@dataclass(frozen=True, slots=True)
class DocSet:
    """Everything read from one input (a site or a sources archive/folder).

    ``pages`` counts the class pages (or ``.java`` files) read; ``warnings``
    are ``(file, reason)`` pairs for what was skipped or degraded.
    """

    source: str
    layout: SiteLayout | None
    classes: tuple[ClassDoc, ...]
    members: tuple[ApiDoc, ...]
    warnings: tuple[tuple[str, str], ...] = field(default=())
    pages: int = 0
