"""Data-only encoding of what one file contributes to a build: its declarations
(``FileFacts``) and its resolved call sites (``FileResult`` + RTA facts).

Used between worker processes and for the warm cache (callgraph._store): a
msgpack document, never pickle, so a cache file written by someone else can
at worst be wrong data, never code. Decoding builds only the dataclasses
listed here, with their exact field count and every field of its type
(``_FIELD_TYPES``: a str is a str, an int an int and not a bool, a tuple has
its arity, recursively); anything else raises
``CodecError`` and the caller treats the row as missing.

This is the one module that knows the shapes of the per-file results: when
the resolver's result type changes, only ``encode_resolution`` /
``decode_resolution`` change (and ``FORMAT`` is bumped).
"""

from __future__ import annotations

import hashlib
from dataclasses import fields

import msgpack

from ._facts import Annotation, FieldDecl, FileFacts, Import, InitDecl, MethodDecl, TypeDecl
from ._callsite import ApiTarget, CallEdge, FileResult, Resolution
from ._rta import Instantiation

FORMAT = 3  # bump when a shape below (or a dataclass of _facts) changes

_CLASSES = (Import, Annotation, FieldDecl, MethodDecl, InitDecl, TypeDecl, FileFacts)
_INDEX = {cls: i for i, cls in enumerate(_CLASSES)}
_FIELDS = [tuple(f.name for f in fields(cls)) for cls in _CLASSES]
# fields that say *where* a declaration is or what its body looks like, not
# what it declares: left out of the declaration digest, so an edited method
# body leaves the digest (and every other file's resolution) unchanged
_POSITIONAL = frozenset({"start_line", "end_line", "loc", "comment", "start_byte", "end_byte",
                         "lines", "parse_errors", "encoding"})
_DIGEST_FIELDS = [tuple((n, n in _POSITIONAL) for n in names) for names in _FIELDS]
_TAG = 0  # map key of a dataclass: {0: class index, 1: field values}


class CodecError(ValueError):
    """A blob that is not a document this version wrote."""


def _default(o):
    i = _INDEX.get(type(o))
    if i is None:
        raise TypeError(f"cannot encode {type(o).__name__}")
    return {_TAG: i, 1: [getattr(o, n) for n in _FIELDS[i]]}


def _digest_default(o):
    i = _INDEX.get(type(o))
    if i is None:
        raise TypeError(f"cannot encode {type(o).__name__}")
    return {_TAG: i, 1: [None if blank else getattr(o, n) for n, blank in _DIGEST_FIELDS[i]]}


def _hook(d):
    try:
        if set(d) != {_TAG, 1} or type(d[_TAG]) is not int or d[_TAG] < 0:
            raise CodecError("not a declaration record")
        cls = _CLASSES[d[_TAG]]
        values = d[1]
        specs = _FIELD_TYPES[cls]
        if type(values) is not tuple or len(values) != len(specs):
            raise CodecError(f"{cls.__name__}: {len(values) if type(values) is tuple else '?'} fields")
        for v, spec in zip(values, specs):
            _check(v, spec, cls.__name__)
        return cls(*values)
    except (KeyError, IndexError, TypeError) as e:
        raise CodecError(f"not a declaration record: {e}") from None


# ------------------------------------------------------------------ type checks
# A row from a cache file is a stranger's data: every field is checked for its
# type (not just the shape) so a crafted row is a miss here, never a crash or
# a wrong value later in the build. Specs: a type (``bool`` is not ``int``),
# ``_opt(spec)``, ``_seq(spec)`` (a tuple of any length), ``_tup(spec, ...)``
# (a tuple of that arity), ``_TYPEREF`` (the recursive type as written).

def _opt(spec):
    return ("opt", spec)


def _seq(spec):
    return ("seq", spec)


def _tup(*specs):
    return ("tup", specs)


_TYPEREF = ("typeref",)


def _ok(v, spec) -> bool:
    if isinstance(spec, type):
        if spec is int:
            return type(v) is int
        return type(v) is spec if spec in (bool, str, bytes) else isinstance(v, spec)
    kind = spec[0]
    if kind == "opt":
        return v is None or _ok(v, spec[1])
    if kind == "seq":
        return type(v) is tuple and all(_ok(x, spec[1]) for x in v)
    if kind == "tup":
        return type(v) is tuple and len(v) == len(spec[1]) and all(_ok(x, t) for x, t in zip(v, spec[1]))
    if kind == "typeref":  # (name, args, dims)
        return (type(v) is tuple and len(v) == 3 and type(v[0]) is str and type(v[2]) is int
                and type(v[1]) is tuple and all(_ok(a, _TYPEREF) for a in v[1]))
    raise AssertionError(spec)


_FIELD_TYPES = {
    Import: (str, bool, bool),
    Annotation: (str, _seq(_tup(str, str))),
    FieldDecl: (str, _TYPEREF, bool, _seq(Annotation), bool, bool),
    MethodDecl: (str, _seq(_tup(str, _TYPEREF)), bool, _opt(_TYPEREF), _seq(_tup(str, _opt(_TYPEREF))),
                 bool, bool, bool, int, int, int, _opt(str), int, int, bool, bool, _seq(Annotation)),
    InitDecl: (bool, int, int, int, int, int),
    TypeDecl: (str, str, str, _opt(str), bool, bool, bool, bool, _opt(_TYPEREF), _seq(_TYPEREF),
               _seq(_tup(str, _opt(_TYPEREF))), _seq(FieldDecl), _seq(MethodDecl), _seq(InitDecl), _seq(str),
               _seq(_tup(str, _TYPEREF)), int, int, int, int, _opt(str), bool, _seq(Annotation), bool),
    FileFacts: (str, str, str, _seq(Import), _seq(TypeDecl), _seq(_tup(int, int)), _opt(str), int),
}
assert all(len(_FIELD_TYPES[c]) == len(_FIELDS[_INDEX[c]]) for c in _CLASSES), "a dataclass of _facts changed"


def _check(v, spec, what: str) -> None:
    try:
        ok = _ok(v, spec)
    except RecursionError:
        ok = False
    if not ok:
        raise CodecError(f"{what}: wrong type")


def _unpack(blob: bytes):
    try:
        return msgpack.unpackb(blob, use_list=False, object_hook=_hook, strict_map_key=False, raw=False)
    except CodecError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as e:
        raise CodecError(f"undecodable: {type(e).__name__}") from None


def encode_facts(ff: FileFacts) -> bytes:
    """``FileFacts`` → bytes."""
    return msgpack.packb([FORMAT, ff], default=_default, use_bin_type=True)


def decode_facts(blob: bytes) -> FileFacts:
    """bytes → ``FileFacts`` (tuples where the facts hold tuples). Raises ``CodecError``."""
    doc = _unpack(blob)
    if not (isinstance(doc, tuple) and len(doc) == 2 and doc[0] == FORMAT and isinstance(doc[1], FileFacts)):
        raise CodecError("not a facts document of this format")
    return doc[1]


def declaration_digest(ff: FileFacts) -> bytes:
    """16-byte digest of what ``ff`` declares to other files: every field but
    positions, comments, LOC and body-derived line counts (``_POSITIONAL``).
    A body edit that adds no type (local, anonymous) keeps it."""
    return hashlib.blake2b(msgpack.packb(ff, default=_digest_default, use_bin_type=True), digest_size=16).digest()


def encode_resolution(fr: FileResult | None, made, warnings=()) -> bytes:
    """What pass 2 found in one file → bytes: the ``FileResult`` (edges, API
    nodes, counts, reasons, examples, site types), the RTA facts ``(made, annotated)``
    (or None) and the classpath warnings raised while resolving it."""
    res = None
    if fr is not None:
        res = [[(e.src, e.dst, e.resolution.value, list(e.lines)) for e in fr.edges],
               [tuple(a) for a in fr.apis], [(k.value, n) for k, n in fr.counts],
               [tuple(r) for r in fr.reasons], [tuple(x) for x in fr.examples],
               [tuple(x) for x in fr.sites]]
    mk = None
    if made is not None:
        mk = [[(k, v.value) for k, v in made[0]], made[1]]
    return msgpack.packb([FORMAT, res, mk, [list(w) for w in warnings]], use_bin_type=True)


# the shapes decode_resolution checks (built once: a warm run decodes one row per file)
_RESOLUTION_SPEC = _opt(_tup(_seq(_tup(str, str, str, _seq(int))), _seq(_tup(str, str, str, bool, _opt(str))),
                             _seq(_tup(str, int)), _seq(_tup(str, int)), _seq(_tup(str, str)),
                             _seq(_tup(str, int))))
_RTA_SPEC = _opt(_tup(_seq(_tup(str, str)), _seq(_tup(str, str))))
_WARNINGS_SPEC = _seq(_tup(str, str))


def decode_resolution(blob: bytes):
    """bytes → ``(FileResult or None, made or None, warnings)``. Raises ``CodecError``."""
    doc = _unpack(blob)
    try:
        fmt, res, mk, warnings = doc
        if fmt != FORMAT:
            raise CodecError("another format")
        _check(res, _RESOLUTION_SPEC, "resolution")
        _check(mk, _RTA_SPEC, "RTA facts")
        _check(warnings, _WARNINGS_SPEC, "warnings")
        fr = None
        if res is not None:
            edges, apis, counts, reasons, examples, sites = res
            fr = FileResult(
                tuple(CallEdge(s, d, Resolution(k), tuple(lines)) for s, d, k, lines in edges),
                tuple(ApiTarget(*a) for a in apis), tuple((Resolution(k), n) for k, n in counts),
                tuple((r, n) for r, n in reasons), tuple((k, v) for k, v in examples),
                tuple((k, n) for k, n in sites))
        made = None
        if mk is not None:
            made = (tuple((k, Instantiation(v)) for k, v in mk[0]), tuple(tuple(a) for a in mk[1]))
        return fr, made, [tuple(w) for w in warnings]
    except CodecError:
        raise
    except (ValueError, TypeError) as e:
        raise CodecError(f"not a resolution document: {type(e).__name__}") from None
