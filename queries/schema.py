"""Record schemas of a dataset on disk (DESIGN.md "A dataset on disk").

These are the only definitions ``metrics`` may import from ``queries``: they
describe the files, not how they are made. Every record is a frozen dataclass
with ``to_dict()`` (the JSON object written to the ``.jsonl`` file, keys in
the order DESIGN.md lists them) and ``from_dict()`` (tolerant of extra keys,
strict about missing required ones: raises ``SchemaError`` naming the key).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any

__all__ = [
    "SchemaError",
    "TargetRecord",
    "SampleRecord",
    "ApiRecord",
    "ParamDoc",
    "ThrowsDoc",
    "SAMPLES_FILE",
    "APIS_FILE",
    "PROJECTS_FILE",
    "MANIFEST_FILE",
]

SAMPLES_FILE = "samples.jsonl"
APIS_FILE = "apis.jsonl"
PROJECTS_FILE = "projects.jsonl"
MANIFEST_FILE = "manifest.json"


class SchemaError(ValueError):
    """A record misses a required key or has a value of the wrong shape."""


def _take(cls, data: dict[str, Any], renames: dict[str, str] | None = None) -> dict[str, Any]:
    """The constructor keywords of ``cls`` found in ``data`` (on-disk keys
    renamed by ``renames``); raises ``SchemaError`` for missing required keys."""
    if not isinstance(data, dict):
        raise SchemaError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    renames = renames or {}
    kwargs: dict[str, Any] = {}
    missing = []
    for f in fields(cls):
        key = renames.get(f.name, f.name)
        if key in data:
            kwargs[f.name] = data[key]
        elif f.default is MISSING and f.default_factory is MISSING:
            missing.append(key)
    if missing:
        raise SchemaError(f"{cls.__name__}: missing key(s) {', '.join(missing)}")
    return kwargs


_DISK_KEYS = {"class_": "class"}
"""Field names that differ from their on-disk key (``class`` is a keyword)."""


def _to_dict(record: Any) -> dict[str, Any]:
    """The JSON object of a record: its fields in declaration order (the
    order DESIGN.md lists the keys), tuples as lists, nested records as
    objects."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        if isinstance(value, tuple):
            value = [v.to_dict() if hasattr(v, "to_dict") else v for v in value]
        out[_DISK_KEYS.get(f.name, f.name)] = value
    return out


@dataclass(frozen=True, slots=True)
class TargetRecord:
    """One third-party API a sample's method reaches (DESIGN.md "Depth, chain
    and density").

    ``api`` is the API name (method id without parameters); ``signature`` the
    full method id, or ``None`` when the overload could not be decided;
    ``class_`` the declaring type (key ``class`` on disk); ``library`` Maven
    ``group:artifact:version`` or ``None``; ``depth`` counts both ends (a
    direct call is 2); ``chain`` the method ids ``[m1, …, mk, api-node-id]``;
    ``chain_loc`` Σ LOC (lines) of the project methods on the chain;
    ``density`` = 1 / chain_loc; ``resolution`` the weakest edge kind on the
    chain (``exact`` < ``arity`` < ``cha`` < ``name`` in strength order).
    """

    api: str
    signature: str | None
    class_: str
    library: str | None
    depth: int
    chain: tuple[str, ...]
    chain_loc: int
    density: float
    resolution: str

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TargetRecord":
        kw = _take(cls, data, _DISK_KEYS)
        kw["chain"] = tuple(kw["chain"])
        return cls(**kw)


@dataclass(frozen=True, slots=True)
class SampleRecord:
    """One Q-ARE sample: a commented project method, its query and targets.

    ``start_line``/``end_line`` are 1-based lines of the declaration;
    ``loc`` its LOC in lines; ``density`` = 1 / Σ LOC over the union of the
    project methods on all the sample's chains; ``leaks`` the target class or
    method names the query text itself mentions. ``query_original`` is the
    query as cut from the comment (in the comment's language ``lang``);
    ``query_source`` says where ``query`` comes from: ``"comment"`` (it is
    ``query_original``) or ``"translated"`` (an English translation of it).
    """

    id: str
    project: str
    commit: str | None
    file: str
    method: str
    start_line: int
    end_line: int
    loc: int
    query: str
    comment: str
    lang: str
    n_direct_apis: int
    targets: tuple[TargetRecord, ...]
    depth_max: int
    depth_min: int
    density: float
    leaks: tuple[str, ...] = ()
    query_original: str | None = None
    query_source: str = "comment"

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SampleRecord":
        kw = _take(cls, data)
        kw["targets"] = tuple(TargetRecord.from_dict(t) for t in kw["targets"])
        kw["leaks"] = tuple(kw.get("leaks", ()))
        return cls(**kw)


@dataclass(frozen=True, slots=True)
class ParamDoc:
    """``@param`` text: ``name`` as written, ``text`` plain text."""

    name: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True, slots=True)
class ThrowsDoc:
    """``@throws``/``@exception`` text: ``type`` FQN when known, else as written."""

    type: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(frozen=True, slots=True)
class ApiRecord:
    """One documented target API (a line of ``apis.jsonl``).

    ``deprecated`` is ``None`` when the API is not deprecated, otherwise the
    deprecation text (``""`` when the doc gives none). ``doc_source`` is
    ``"javadoc"``, ``"sources"``, ``"llm"`` (``description`` and
    ``first_sentence`` written by the language model ``doc_model`` from the
    member's source code: generated text, not documentation — filter on
    ``doc_source`` to leave it out) or ``None`` (no documentation found).
    """

    api: str
    signature: str | None
    class_: str
    library: str | None
    description: str | None = None
    first_sentence: str | None = None
    params: tuple[ParamDoc, ...] = ()
    returns: str | None = None
    throws: tuple[ThrowsDoc, ...] = ()
    deprecated: str | None = None
    doc_source: str | None = None
    doc_model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ApiRecord":
        kw = _take(cls, data, _DISK_KEYS)
        kw["params"] = tuple(ParamDoc(**p) for p in kw.get("params", ()))
        kw["throws"] = tuple(ThrowsDoc(**t) for t in kw.get("throws", ()))
        return cls(**kw)
