"""Data-only encoding of what one file contributes to a build: its declarations
(``FileFacts``) and its resolved call sites (``FileResult`` + RTA facts).

Used for the warm cache (callgraph._cache): a msgpack document, never
pickle, so a cache file written by someone else can at worst be wrong data,
never code. A document is decoded by msgpack in one call into plain tuples;
then only the dataclasses listed here are built, with their exact field
count and every field of its type (``_FIELD_TYPES``: a str is a str, an int
an int and not a bool, a tuple has its arity, recursively); anything else
raises ``CodecError`` and the caller treats the row as missing. The checks
run in bulk (a record's field types compared at once, a table's columns by
the set of their types) and the records are made from checked values only.

This is the one module that knows the shapes of the per-file results: when
the resolver's result type changes, only ``encode_resolution`` /
``decode_resolution`` change (and ``FORMAT`` is bumped).
"""

from __future__ import annotations

import hashlib
from dataclasses import fields
from itertools import chain, repeat

import msgpack

from ._facts import Annotation, FieldDecl, FileFacts, Import, InitDecl, MethodDecl, TypeDecl
from ._callsite import ApiTarget, CallEdge, FileResult, Resolution
from ._rta import Instantiation

FORMAT = 4  # bump when a shape below (or a dataclass of _facts) changes

_CLASSES = (Import, Annotation, FieldDecl, MethodDecl, InitDecl, TypeDecl, FileFacts)
_INDEX = {cls: i for i, cls in enumerate(_CLASSES)}
_FIELDS = [tuple(f.name for f in fields(cls)) for cls in _CLASSES]
# fields that say *where* a declaration is or what its body looks like, not
# what it declares: left out of the declaration digest, so an edited method
# body leaves the digest (and every other file's resolution) unchanged
_POSITIONAL = frozenset({"start_line", "end_line", "loc", "comment", "start_byte", "end_byte",
                         "lines", "parse_errors", "encoding"})
_DIGEST_FIELDS = [tuple((n, n in _POSITIONAL) for n in names) for names in _FIELDS]
_TAG = 0  # map key of a dataclass in the digest encoding: {0: class index, 1: field values}


class CodecError(ValueError):
    """A blob that is not a document this version wrote."""


def _default(o):
    i = _INDEX.get(type(o))
    if i is None:
        raise TypeError(f"cannot encode {type(o).__name__}")
    return (i, [getattr(o, n) for n in _FIELDS[i]])


def _digest_default(o):
    i = _INDEX.get(type(o))
    if i is None:
        raise TypeError(f"cannot encode {type(o).__name__}")
    return {_TAG: i, 1: [None if blank else getattr(o, n) for n, blank in _DIGEST_FIELDS[i]]}


# ------------------------------------------------------------------ type checks
# A row from a cache file is a stranger's data: every field is checked for its
# type (not just the shape) so a crafted row is a miss here, never a crash or
# a wrong value later in the build. Specs: a type (``bool`` is not ``int``),
# a dataclass of ``_CLASSES`` (a ``(class index, fields)`` record),
# ``_opt(spec)``, ``_seq(spec)`` (a tuple of any length), ``_tup(spec, ...)``
# (a tuple of that arity), ``_TYPEREF`` (the recursive type as written).
#
# The checks are compiled once from the specs into one function per spec
# (``_full``) and done in bulk where the data allow it: a record's fields by
# one comparison of their types with the expected ones (``map(type, ...)``
# runs in C), a column of a table by the set of its types; only what nests
# (type references, records in records) is walked in Python. The blob itself
# is decoded by msgpack in one C call into plain tuples (no object hook).

def _opt(spec):
    return ("opt", spec)


def _seq(spec):
    return ("seq", spec)


def _tup(*specs):
    return ("tup", specs)


_TYPEREF = ("typeref",)

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

_SCALARS = (str, int, bool)
_NONE = type(None)


def _bad(what: str):
    raise CodecError(f"{what}: wrong type")


def _typeref(v):
    """A ``TypeRef`` ``(name, args, dims)``, recursively; returned as is."""
    if type(v) is not tuple or len(v) != 3:
        _bad("type reference")
    name, args, dims = v
    if type(name) is not str or type(dims) is not int or type(args) is not tuple:
        _bad("type reference")
    for a in args:
        _typeref(a)
    return v


def _top(spec):
    """The exact Python type of a value of ``spec`` (a record is a tuple)."""
    if spec in _SCALARS:
        return spec
    if isinstance(spec, type) or spec[0] != "opt":
        return tuple
    return _top(spec[1])


def _only(col, types: frozenset, what: str) -> None:
    """Every value of ``col`` is exactly of one of ``types`` (one pass in C)."""
    if col and not set(map(type, col)) <= types:
        _bad(what)


def _full(spec):
    """A function: value of ``spec`` → the value (records built as their
    dataclass); raises ``CodecError`` (or TypeError/ValueError, which the
    decoders turn into it) on anything else."""
    if spec in _SCALARS:
        def scalar(v, t=spec):
            if type(v) is not t:
                _bad(t.__name__)
            return v
        return scalar
    if isinstance(spec, type):
        return _BUILDERS[spec]  # made before any nested builder is (_builders)
    kind = spec[0]
    if kind == "typeref":
        return _typeref
    if kind == "opt":
        inner = _full(spec[1])
        return lambda v: None if v is None else inner(v)
    if kind == "tup":
        specs = spec[1]
        n = len(specs)
        if all(s in _SCALARS for s in specs):
            types = tuple(specs)

            def flat(v):
                if type(v) is not tuple or tuple(map(type, v)) != types:
                    _bad("tuple")
                return v
            return flat
        fs = tuple(_full(s) for s in specs)

        def nested(v):
            if type(v) is not tuple or len(v) != n:
                _bad("tuple")
            return tuple([f(x) for f, x in zip(fs, v)])
        return nested
    assert kind == "seq", spec
    item = spec[1]
    if item in _SCALARS:
        only = frozenset({item})

        def seq_of_scalars(v):
            if type(v) is not tuple:
                _bad("sequence")
            _only(v, only, "sequence")
            return v
        return seq_of_scalars
    if type(item) is tuple and item[0] == "tup" and all(s in _SCALARS for s in item[1]):
        # a table of scalar columns ((line, col) pairs, (name, value) pairs): column by column
        columns = tuple(frozenset({s}) for s in item[1])
        width = {len(columns)}

        def table(v):
            if type(v) is not tuple:
                _bad("sequence")
            if v:
                if set(map(type, v)) != _TUPLE or set(map(len, v)) != width:
                    _bad("sequence of tuples")
                for col, types in zip(zip(*v), columns):
                    _only(col, types, "column")
            return v
        return table
    f = _full(item)

    def seq(v):
        if type(v) is not tuple:
            _bad("sequence")
        return tuple(map(f, v))
    return seq


_TUPLE = frozenset({tuple})


def _record(cls):
    """The builder of ``cls`` from its ``(class index, fields)`` record: the
    top-level type of every field checked in one comparison, the nested ones
    by their own builders, then ``cls(*fields)``."""
    index = _INDEX[cls]
    specs = _FIELD_TYPES[cls]
    n = len(specs)
    expected = [_top(s) for s in specs]
    optional = tuple(k for k, s in enumerate(specs) if type(s) is tuple and s[0] == "opt")
    inner: list = []
    for k, s in enumerate(specs):
        s = s[1] if type(s) is tuple and s[0] == "opt" else s
        if s not in _SCALARS:
            inner.append((k, None))  # filled below: records may nest (a TypeDecl holds MethodDecls)
            _PENDING.append((inner, len(inner) - 1, s))
    name = cls.__name__

    def build(v):
        if type(v) is not tuple or len(v) != 2 or type(v[0]) is not int or v[0] != index:
            raise CodecError(f"not a {name} record")
        values = v[1]
        if type(values) is not tuple or len(values) != n:
            raise CodecError(f"{name}: not {n} fields")
        types = list(map(type, values))
        for k in optional:
            if types[k] is _NONE:
                types[k] = expected[k]
        if types != expected:
            _bad(name)
        if not inner:
            return cls(*values)
        values = list(values)
        for k, f in inner:
            x = values[k]
            if x is not None:
                values[k] = f(x)
        return cls(*values)

    return build


_PENDING: list = []  # (list, position, spec): a nested builder to fill in once every record builder exists
_BUILDERS: dict = {}


def _builders():
    for cls in _CLASSES:
        _BUILDERS[cls] = _record(cls)
    while _PENDING:
        lst, pos, spec = _PENDING.pop()
        k = lst[pos][0]
        lst[pos] = (k, _BUILDERS[spec] if isinstance(spec, type) else _full(spec))


_builders()
_FILE_FACTS = _BUILDERS[FileFacts]


def _unpack(blob: bytes):
    try:
        return msgpack.unpackb(blob, use_list=False, strict_map_key=False, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as e:
        raise CodecError(f"undecodable: {type(e).__name__}") from None


def encode_facts(ff: FileFacts) -> bytes:
    """``FileFacts`` → bytes: ``[FORMAT, record]``, a dataclass being the
    record ``[class index, [field values]]``."""
    return msgpack.packb([FORMAT, ff], default=_default, use_bin_type=True)


def decode_facts(blob: bytes) -> FileFacts:
    """bytes → ``FileFacts`` (tuples where the facts hold tuples). Raises ``CodecError``."""
    doc = _unpack(blob)
    if type(doc) is not tuple or len(doc) != 2 or type(doc[0]) is not int or doc[0] != FORMAT:
        raise CodecError("not a facts document of this format")
    try:
        return _FILE_FACTS(doc[1])
    except CodecError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, RecursionError) as e:
        raise CodecError(f"not a facts document: {type(e).__name__}") from None


def declaration_digest(ff: FileFacts) -> bytes:
    """16-byte digest of what ``ff`` declares to other files: every field but
    positions, comments, LOC and body-derived line counts (``_POSITIONAL``).
    A body edit that adds no type (local, anonymous) keeps it."""
    return hashlib.blake2b(msgpack.packb(ff, default=_digest_default, use_bin_type=True), digest_size=16).digest()


# ------------------------------------------------------------------ resolutions
_EDGE_KINDS = {r.value: r for r in (Resolution.EXACT, Resolution.BY_ARITY, Resolution.CHA,
                                    Resolution.GUESSED_BY_NAME)}  # the kinds an edge can have
_KINDS = {r.value: r for r in Resolution}
_INSTANTIATIONS = {r.value: r for r in Instantiation}
_EDGE_VALUES, _KIND_VALUES, _INSTANTIATION_VALUES = frozenset(_EDGE_KINDS), frozenset(_KINDS), frozenset(_INSTANTIATIONS)
_INT, _STR, _BOOL = frozenset({int}), frozenset({str}), frozenset({bool})
_OPT_STR = frozenset({str, _NONE})


def encode_resolution(fr: FileResult, made, warnings=()) -> bytes:
    """What pass 2 found in one file → bytes: the ``FileResult`` (edges, API
    nodes, counts, reasons, examples, site types), the RTA facts ``(made, annotated)``
    (or None) and the classpath warnings raised while resolving it.

    ``[FORMAT, result, rta, warnings, strings]``: method ids (an edge's
    caller and callee, an API node's id) are indices into ``strings`` — a
    file's edges name few distinct methods, so the row is smaller and the
    decoded edges share their id strings."""
    strings: dict = {}
    sid = strings.setdefault
    res = [[(sid(e.src, len(strings)), sid(e.dst, len(strings)), e.resolution.value, e.lines)
            for e in fr.edges],
           [(sid(a.id, len(strings)), *a[1:]) for a in fr.apis], [(k.value, n) for k, n in fr.counts],
           [tuple(r) for r in fr.reasons], [tuple(x) for x in fr.examples],
           [tuple(x) for x in fr.sites]]
    mk = None
    if made is not None:
        mk = [[(k, v.value) for k, v in made[0]], made[1]]
    return msgpack.packb([FORMAT, res, mk, [list(w) for w in warnings], list(strings)], use_bin_type=True)


def _columns(rows, n: int, what: str):
    """``rows`` (a tuple of ``n``-tuples) as ``n`` columns."""
    if type(rows) is not tuple:
        _bad(what)
    if not rows:
        return ((),) * n
    if set(map(type, rows)) != _TUPLE or set(map(len, rows)) != {n}:
        _bad(what)
    return tuple(zip(*rows))


def _pairs(rows, first: frozenset, second: frozenset, what: str):
    a, b = _columns(rows, 2, what)
    _only(a, first, what)
    _only(b, second, what)
    return rows


def _edges(rows, strings):
    src, dst, kind, lines = _columns(rows, 4, "edges")
    _only(src, _INT, "edge caller")
    _only(dst, _INT, "edge callee")
    _only(lines, _TUPLE, "edge lines")
    if not rows:
        return ()
    if min(src) < 0 or min(dst) < 0 or not set(kind) <= _EDGE_VALUES:
        _bad("edges")  # an index past the table raises IndexError below
    if not all(lines):
        _bad("edge lines")  # every call edge is seen at one call site at least
    _only(tuple(chain.from_iterable(lines)), _INT, "edge lines")
    name = strings.__getitem__
    return tuple(map(tuple.__new__, repeat(CallEdge),
                     zip(map(name, src), map(name, dst), map(_EDGE_KINDS.__getitem__, kind), lines)))


def _apis(rows, strings):
    ids, types, names, third, lib = _columns(rows, 5, "APIs")
    _only(ids, _INT, "API id")
    _only(types, _STR, "API type")
    _only(names, _STR, "API name")
    _only(third, _BOOL, "API third_party")
    _only(lib, _OPT_STR, "API library")
    if ids and min(ids) < 0:
        _bad("API id")
    return tuple(map(tuple.__new__, repeat(ApiTarget), zip(map(strings.__getitem__, ids), types, names, third, lib)))


def decode_resolution(blob: bytes):
    """bytes → ``(FileResult, made or None, warnings)``. Raises ``CodecError``
    (also for a row without a result, or an edge without a call-site line)."""
    doc = _unpack(blob)
    try:
        fmt, res, mk, warnings, strings = doc
        if type(fmt) is not int or fmt != FORMAT:
            raise CodecError("another format")
        if type(strings) is not tuple:
            _bad("strings")
        _only(strings, _STR, "strings")
        # a row always holds a result: a file that failed to resolve is not stored
        if type(res) is not tuple or len(res) != 6:
            _bad("resolution")
        edges, apis, counts, reasons, examples, sites = res
        kinds, ns = _columns(counts, 2, "counts")
        if not set(kinds) <= _KIND_VALUES:
            _bad("counts")
        _only(ns, _INT, "counts")
        fr = FileResult(_edges(edges, strings), _apis(apis, strings),
                        tuple(zip(map(_KINDS.__getitem__, kinds), ns)),
                        _pairs(reasons, _STR, _INT, "reasons"), _pairs(examples, _STR, _STR, "examples"),
                        _pairs(sites, _STR, _INT, "site types"))
        made = None
        if mk is not None:
            if type(mk) is not tuple or len(mk) != 2:
                _bad("RTA facts")
            types, why = _columns(mk[0], 2, "RTA facts")
            _only(types, _STR, "RTA facts")
            if not set(why) <= _INSTANTIATION_VALUES:
                _bad("RTA facts")
            made = (tuple(zip(types, map(_INSTANTIATIONS.__getitem__, why))),
                    _pairs(mk[1], _STR, _STR, "RTA annotations"))
        return fr, made, list(_pairs(warnings, _STR, _STR, "warnings"))
    except CodecError:
        raise
    except (ValueError, TypeError, IndexError, KeyError, RecursionError) as e:
        raise CodecError(f"not a resolution document: {type(e).__name__}") from None
