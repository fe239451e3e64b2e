"""Record types of a dataset on disk (DESIGN.md "A dataset on disk").

Every record is a frozen, slotted, keyword-only dataclass with ``to_dict()``
(the JSON object written to the ``.jsonl`` file: every field, keys in the
order DESIGN.md lists them) and ``from_dict()`` (tolerant of extra keys,
strict about missing *required* ones: raises ``SchemaError`` naming them).

Which keys are required is part of the contract, so that a gold file made by
hand or by another tool can be scored:

- a sample needs ``id``, ``query`` and ``targets``; everything else
  (project, commit, file, lines, comment, language, depth/density) is
  optional;
- a target needs ``api``; ``class`` defaults to the API name's declaring
  type, ``signature``/``library``/``depth``/``chain_loc``/``density``/
  ``resolution`` to ``None``, ``chain`` and ``call_sites`` to ``[]``;
- an API needs ``api``; ``class`` as for targets.

A sample without ``depth_max``/``depth_min`` takes them from its targets when
every target states its depth (a sample's ``density`` needs the LOC of the
project methods on its chains, so it is never derived).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any

from .ids import api_class

__all__ = [
    "SchemaError",
    "CallSiteRecord",
    "TargetRecord",
    "SampleRecord",
    "ApiRecord",
    "ParamDoc",
    "ThrowsDoc",
    "ProjectRecord",
    "SAMPLES_FILE",
    "APIS_FILE",
    "PROJECTS_FILE",
    "MANIFEST_FILE",
    "required_keys",
]

SAMPLES_FILE = "samples.jsonl"
APIS_FILE = "apis.jsonl"
PROJECTS_FILE = "projects.jsonl"
MANIFEST_FILE = "manifest.json"


class SchemaError(ValueError):
    """A record misses a required key or has a value of the wrong shape."""


_DISK_KEYS = {"class_": "class"}
"""Field names that differ from their on-disk key (``class`` is a keyword)."""


def required_keys(cls) -> tuple[str, ...]:
    """The on-disk keys a record type cannot do without (in field order)."""
    return tuple(_DISK_KEYS.get(f.name, f.name) for f in fields(cls)
                 if f.default is MISSING and f.default_factory is MISSING)


def _take(cls, data: Any) -> dict[str, Any]:
    """The constructor keywords of ``cls`` found in ``data``; raises
    ``SchemaError`` for a non-object or missing required keys."""
    if not isinstance(data, dict):
        raise SchemaError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    kwargs: dict[str, Any] = {}
    missing = []
    for f in fields(cls):
        key = _DISK_KEYS.get(f.name, f.name)
        if key in data:
            kwargs[f.name] = data[key]
        elif f.default is MISSING and f.default_factory is MISSING:
            missing.append(key)
    if missing:
        raise SchemaError(f"{cls.__name__}: missing key(s) {', '.join(missing)}")
    return kwargs


def _to_dict(record: Any) -> dict[str, Any]:
    """The JSON object of a record: its fields in declaration order, tuples
    as lists, nested records as objects."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        if isinstance(value, tuple):
            value = [v.to_dict() if hasattr(v, "to_dict") else v for v in value]
        out[_DISK_KEYS.get(f.name, f.name)] = value
    return out


def _str(cls, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise SchemaError(f"{cls.__name__}: {key!r} must be a non-empty string, got {value!r}")
    return value


def _list(cls, key: str, value: Any) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise SchemaError(f"{cls.__name__}: {key!r} must be a list, got {type(value).__name__}")
    return tuple(value)


_INT = (int,)
_NUMBER = (int, float)
_STR = (str,)


def _typed(cls, kw: dict, fields: dict[str, tuple[type, ...]]) -> None:
    """Each present, non-null field of ``fields`` has one of its types (a bool is
    no number): a gold file of strangers with ``"depth_max": "2"`` is a bad line,
    not a crash later in sorting or arithmetic."""
    for key, types in fields.items():
        v = kw.get(key)
        if v is not None and (not isinstance(v, types) or isinstance(v, bool)):
            raise SchemaError(f"{cls.__name__}: {key!r} must be {' or '.join(t.__name__ for t in types)}, "
                              f"got {type(v).__name__}")


_TARGET_TYPES = {"signature": _STR, "class_": _STR, "library": _STR, "depth": _INT, "chain_loc": _INT,
                 "density": _NUMBER, "resolution": _STR}
_SAMPLE_TYPES = {"project": _STR, "commit": _STR, "file": _STR, "method": _STR, "start_line": _INT,
                 "end_line": _INT, "loc": _INT, "comment": _STR, "lang": _STR, "n_direct_apis": _INT,
                 "depth_max": _INT, "depth_min": _INT, "density": _NUMBER, "query_original": _STR,
                 "query_source": _STR}


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSiteRecord:
    """Where one hop of a chain is called: ``file`` (the calling method's
    source file, relative to the project root, ``/``-separated) and ``line``
    (1-based line of the method invocation, creation or method reference)."""

    file: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CallSiteRecord":
        kw = _take(cls, data)
        kw["file"] = _str(cls, "file", kw["file"])
        line = kw["line"]
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise SchemaError(f"CallSiteRecord: 'line' must be a positive int, got {line!r}")
        return cls(**kw)


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetRecord:
    """One third-party API a sample's method reaches (DESIGN.md "Depth, chain
    and density").

    ``api`` is the API name (method id without parameters; required);
    ``signature`` the full method id, or ``None`` when the overload could not
    be decided; ``class_`` the declaring type (key ``class`` on disk);
    ``library`` Maven ``group:artifact:version`` or ``None``; ``depth`` counts
    both ends (a direct call is 2); ``chain`` the method ids
    ``[m1, …, mk, api-node-id]``; ``chain_loc`` Σ LOC (lines) of the project
    methods on the chain; ``density`` = 1 / chain_loc; ``resolution`` the
    weakest edge kind on the chain (:class:`records.ids.Resolution`);
    ``call_sites`` where each hop is called (:class:`CallSiteRecord`; hop
    ``i`` is ``chain[i]`` calling ``chain[i + 1]``, so a chain of ``k``
    elements has ``k - 1``; the first line of the edge when a method calls
    the next at several lines), empty when not stated.
    ``None`` in the optional fields means "not stated" (a hand-made gold file).
    """

    api: str
    signature: str | None = None
    class_: str = ""
    library: str | None = None
    depth: int | None = None
    chain: tuple[str, ...] = ()
    chain_loc: int | None = None
    density: float | None = None
    resolution: str | None = None
    call_sites: tuple[CallSiteRecord, ...] = ()

    def __post_init__(self) -> None:
        if not self.class_:
            object.__setattr__(self, "class_", api_class(self.api))

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @property
    def node(self) -> str:
        """The call-graph node id of the API: the chain's last element, else
        the signature, else the API name with ``(*)``."""
        if self.chain:
            return self.chain[-1]
        return self.signature or f"{self.api}(*)"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TargetRecord":
        kw = _take(cls, data)
        kw["api"] = _str(cls, "api", kw["api"])
        if "chain" in kw:
            kw["chain"] = _list(cls, "chain", kw["chain"])
        if kw.get("call_sites") is not None:
            kw["call_sites"] = tuple(CallSiteRecord.from_dict(c)
                                     for c in _list(cls, "call_sites", kw["call_sites"]))
        else:
            kw.pop("call_sites", None)
        _typed(cls, kw, _TARGET_TYPES)
        if kw.get("class_") is None:
            kw.pop("class_", None)
        return cls(**kw)


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleRecord:
    """One Q-ARE sample: a commented project method, its query and targets.

    Required: ``id``, ``query``, ``targets``. ``start_line``/``end_line`` are
    1-based lines of the declaration; ``loc`` its LOC in lines; ``density`` =
    1 / Σ LOC over the union of the project methods on all the sample's
    chains; ``leaks`` the target class or method names the query text itself
    mentions. ``query_original`` is the query as cut from the comment (in the
    comment's language ``lang``); ``query_source`` says where ``query`` comes
    from: ``"comment"`` (it is ``query_original``) or ``"translated"``.
    """

    id: str
    project: str | None = None
    commit: str | None = None
    file: str | None = None
    method: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    loc: int | None = None
    query: str
    comment: str | None = None
    lang: str | None = None
    n_direct_apis: int | None = None
    targets: tuple[TargetRecord, ...]
    depth_max: int | None = None
    depth_min: int | None = None
    density: float | None = None
    leaks: tuple[str, ...] = ()
    query_original: str | None = None
    query_source: str = "comment"

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SampleRecord":
        kw = _take(cls, data)
        if not isinstance(kw["id"], (str, int)) or isinstance(kw["id"], bool) or kw["id"] == "":
            raise SchemaError(f"SampleRecord: 'id' must be a non-empty string, got {kw['id']!r}")
        kw["id"] = str(kw["id"])
        if not isinstance(kw["query"], str):
            raise SchemaError(f"SampleRecord: 'query' must be a string, got {type(kw['query']).__name__}")
        _typed(cls, kw, _SAMPLE_TYPES)
        targets = tuple(TargetRecord.from_dict(t) for t in _list(cls, "targets", kw["targets"]))
        kw["targets"] = targets
        kw["leaks"] = tuple(kw.get("leaks") or ())
        depths = [t.depth for t in targets]
        if targets and all(isinstance(d, int) for d in depths):
            kw.setdefault("depth_max", max(depths))
            kw.setdefault("depth_min", min(depths))
        return cls(**kw)


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamDoc:
    """``@param`` text: ``name`` as written, ``text`` plain text."""

    name: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class ThrowsDoc:
    """``@throws``/``@exception`` text: ``type`` FQN when known, else as written."""

    type: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class ApiRecord:
    """One target API (a line of ``apis.jsonl``); only ``api`` is required.

    ``deprecated`` is ``None`` when the API is not deprecated, otherwise the
    deprecation text (``""`` when the doc gives none). ``doc_source`` is
    ``"javadoc"``, ``"sources"``, ``"llm"`` (``description`` and
    ``first_sentence`` written by the language model ``doc_model`` from the
    member's source code: generated text, not documentation — filter on
    ``doc_source`` to leave it out) or ``None`` (no documentation found).
    ``doc_from`` is the id of the member the documentation was copied from
    when the API has no comment of its own and its page names the member it
    overrides or implements ("Overrides:"/"Specified by:", as javadoc copies
    comments), else ``None``.
    """

    api: str
    signature: str | None = None
    class_: str = ""
    library: str | None = None
    description: str | None = None
    first_sentence: str | None = None
    params: tuple[ParamDoc, ...] = ()
    returns: str | None = None
    throws: tuple[ThrowsDoc, ...] = ()
    deprecated: str | None = None
    doc_source: str | None = None
    doc_model: str | None = None
    doc_from: str | None = None

    def __post_init__(self) -> None:
        if not self.class_:
            object.__setattr__(self, "class_", api_class(self.api))

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @property
    def documented(self) -> bool:
        """Whether anything describes the API (a description or first sentence)."""
        return bool(self.description or self.first_sentence)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ApiRecord":
        kw = _take(cls, data)
        kw["api"] = _str(cls, "api", kw["api"])
        if kw.get("class_") is None:
            kw.pop("class_", None)
        kw["params"] = tuple(ParamDoc(**p) for p in kw.get("params") or ())
        kw["throws"] = tuple(ThrowsDoc(**t) for t in kw.get("throws") or ())
        return cls(**kw)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectRecord:
    """One line of ``projects.jsonl``: where a project came from and what the
    build made of it.

    ``verdict`` is ``kept`` | ``dropped`` | ``failed``; ``counts`` and
    ``timings`` (seconds) are open dicts whose keys grow with the builder
    (docs/dataset.md lists them); ``classpath``/``docs`` the library
    resolution and documentation-fetching records, ``None`` when not run;
    ``listed`` the list line's own inputs, ``{"classpath": [paths],
    "javadoc": [paths], "unreadable": [{"path", "reason"}]}`` (its
    ``classpath=``/``javadoc=`` columns, as read: the documentation the
    build read first, whatever was resolved or fetched besides; and those
    of them that could not be read — ``qare build`` then exits 1).
    """

    project: str
    source: str | None = None
    requested_commit: str | None = None
    commit: str | None = None
    line: int | None = None
    verdict: str = "kept"
    reason: str = ""
    counts: dict = None  # type: ignore[assignment]
    timings: dict = None  # type: ignore[assignment]
    error: str | None = None
    traceback: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = ()
    classpath: dict | None = None
    docs: dict | None = None
    no_samples_reason: str | None = None
    listed: dict | None = None

    def __post_init__(self) -> None:
        for name in ("counts", "timings"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, {})

    def to_dict(self) -> dict[str, Any]:
        d = _to_dict(self)
        if self.traceback is None:
            d["traceback"] = None
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ProjectRecord":
        kw = _take(cls, data)
        if kw.get("traceback") is not None:
            kw["traceback"] = tuple(kw["traceback"])
        kw["warnings"] = tuple(kw.get("warnings") or ())
        return cls(**kw)
