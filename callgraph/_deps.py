"""What a file's resolution read from the project index, and whether a new
index still gives the same answers (docs/callgraph.md "Warm cache").

A file's resolved call sites are a function of its own bytes, the
environment (classpath, JDK, ``lombok.config``, the code) and the answers
the project index gave the resolver. While a file is resolved, the resolver
and the RTA collector see a :class:`RecordingIndex` in place of the
``ProjectIndex``: every look-up they make of it — a method of the index
(``resolve_name``, ``methods_named``, ``overriders`` — the CHA override
search —, ``supers``, ...), a read of one of its tables (``types``,
``methods``, ``by_name``, ``subtypes``, ...; misses included, so a new
class named like a name that was unknown changes the answer) or a type
asked of its solver chain — is recorded as a *dependency*: the door, its
arguments, and a fingerprint of the answer. Only the look-ups the resolver
makes itself are recorded, never those the index makes inside them: the
answer of the outer one already says everything the resolver learnt from
the inner ones, so the index's own memos (shared between files) cannot hide
a dependency.

On a warm run a cached row is reused iff every recorded look-up, asked again
of the new index, gives an answer with the same fingerprint
(:func:`verify`): the resolver is deterministic, so the same questions with
the same answers give the same result.

Fingerprints (:func:`fingerprint`) hash a canonical form of the answer:
scalars, tuples, sets (sorted), dicts, Enums, dataclasses field by field
(memoised per object: index objects are shared by every look-up), leaving
out the fields that say where a declaration is (lines, bytes, LOC,
comments — ``_codec._POSITIONAL``); the resolver's result never contains
another file's positions, so an edited body elsewhere does not invalidate.
A file index (an ``int`` naming a file, e.g. ``type_file``'s answer) is
fingerprinted and stored as the file's path, so adding a file (which shifts
the indices) changes nothing by itself. Conservative where it cannot be
exact: an answer of a kind it does not know gets a fingerprint that never
matches, and arguments it cannot store (an object) make the row reusable
only when no declaration anywhere changed (the project key, checked first).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import fields, is_dataclass
from enum import Enum

import msgpack

from ._candidates import MethodCandidate
from . import _codec
from ._codec import _POSITIONAL
from .classpath import TypeSig
from ._types import JArray, JClass, JPrim, JTypeVar, JWildcard, TypeParam

# look-ups whose answers depend on the classpath and the JDK only (the
# environment, part of every row's key): not recorded
_ENVIRONMENT = frozenset({"cp", "has_jdk", "lib", "lib_has", "third_party", "library_of",
                          "lib_type_params", "lib_method_sig", "lib_class_sig"})
# tables of the index read with [], get, in (each key recorded) or iterated (the whole table)
_TABLES = frozenset({"types", "methods", "by_id", "by_name", "type_file", "subtypes", "gen_edges",
                     "files", "merged", "pkg_types", "members", "local_types", "gen_fields", "packages"})
# the methods of the index the resolver asks (read-only): only these are
# stored and replayed — a row cannot make the index run anything else
_DOORS = frozenset({"resolve_name", "resolve_ref", "erase_ref", "subst_ref", "tparams_of", "member_type",
                    "_resolve_qualified", "methods_named", "overriders", "field_type", "field_type_of",
                    "supers", "all_supers", "is_subtype", "declared_supertypes", "sam", "sam_method",
                    "super_type_args", "jtuple", "capture_lib"})
# methods of the index whose argument 1 is a file index
_FILE_ARG = frozenset({"resolve_name", "_resolve_name", "_resolve_simple", "resolve_ref", "_resolve_ref",
                       "erase_ref", "subst_ref", "_file_of"})
# tables keyed by a file index; tables whose values are file indices
_FILE_KEYED = frozenset({"files", "gen_edges"})
_FILE_VALUED = frozenset({"type_file"})

_MISSING = ("<missing>",)
_NEVER = None  # set per process: a fingerprint that matches nothing another process wrote


class FileRef:
    """A file index stored as the file's path (indices shift when files are added)."""

    __slots__ = ("rel",)

    def __init__(self, rel: str):
        self.rel = rel

    def __eq__(self, other):
        return isinstance(other, FileRef) and other.rel == self.rel

    def __hash__(self):
        return hash(("FileRef", self.rel))


class Unstorable(Exception):
    """Arguments of a look-up that cannot be written as data."""


# ------------------------------------------------------------------ fingerprints
class Fingerprints:
    """Fingerprints of index answers: a Merkle hash — a dataclass, list, set
    or dict is hashed once per process from its fields' (or items') own
    hashes, memoised by object (index objects are immutable while files are
    resolved, and are kept alive here so an id is never reused); scalars and
    tuples stand for themselves.

    ``rels``: file index → path (the current run's)."""

    def __init__(self, rels):
        self.rels = rels
        self._memo: dict = {}  # (id, file_valued) → (object kept alive, digest)

    def canon(self, v, file_valued: bool = False):
        t = type(v)
        if v is None or t is str or t is bool or t is float or t is bytes:
            return v
        if t is int:
            return ("@f", self.rels[v]) if file_valued else v
        if t is tuple:
            return tuple([self.canon(x, file_valued) for x in v])
        if t is FileRef:
            return ("@f", v.rel)
        key = (id(v), file_valued)
        memo = self._memo.get(key)
        if memo is not None:
            return memo[1]
        if t in _DECLARATIONS:  # a declaration of _facts: its digest encoding (positions blanked), in C
            d = hashlib.blake2b(msgpack.packb(v, default=_codec._digest_default, use_bin_type=True),
                                digest_size=12).digest()
            self._memo[key] = (v, d)
            return d
        if t is TypeSig:  # a class file's type: the environment (in every row's key) fixes it by name and place
            c = ("TypeSig", v.fqn, v.location, v.origin, v.library)
        elif t is list:
            c = ("@list", *[self.canon(x, file_valued) for x in v])
        elif t is frozenset or t is set:
            c = ("@set", *sorted([self.canon(x, file_valued) for x in v], key=repr))
        elif t is dict:
            c = ("@map", *sorted([(self.canon(k), self.canon(x, file_valued)) for k, x in v.items()], key=repr))
        elif isinstance(v, Enum):
            c = ("@enum", t.__name__, v.name)
        elif is_dataclass(v):
            names = _FIELDS_OF.get(t)
            if names is None:
                names = _FIELDS_OF[t] = tuple(None if f.name in _POSITIONAL else f.name for f in fields(v))
            c = (t.__name__, *[None if n is None else self.canon(getattr(v, n), file_valued) for n in names])
        elif isinstance(v, tuple):  # a NamedTuple
            c = (t.__name__, *[self.canon(x, file_valued) for x in v])
        else:  # an object of a kind not known here: never equal to anything stored
            c = ("@unknown", t.__name__, _never())
        d = hashlib.blake2b(repr(c).encode(), digest_size=12).digest()
        self._memo[key] = (v, d)
        return d

    def fingerprint(self, v, file_valued: bool = False) -> bytes:
        if not file_valued:
            return self._packed(v)
        c = self.canon(v, file_valued)
        if type(c) is bytes and len(c) == 12 and type(v) is not bytes:
            return c
        return hashlib.blake2b(repr(("@v", c)).encode(), digest_size=12).digest()


    def _packed(self, v) -> bytes:
        """The same fingerprint as :meth:`canon` would give in spirit, made by
        msgpack (in C) over the answer with each object written as its kind
        and fields (positional ones blanked); dicts in their (deterministic,
        declaration-order) insertion order — a dict whose order differed
        would only cost a re-resolution."""
        t = type(v)
        key = None
        if t is not tuple and t is not str and v is not None:
            key = (id(v), False)
            memo = self._memo.get(key)
            if memo is not None:
                return memo[1]
        d = hashlib.blake2b(msgpack.packb(v, default=_fp_default, use_bin_type=True), digest_size=12).digest()
        if key is not None:
            self._memo[key] = (v, d)
        return d


def _fp_default(o):
    t = type(o)
    if t in _DECLARATIONS:
        return _codec._digest_default(o)
    if t is TypeSig:
        return ["TypeSig", o.fqn, o.location, o.origin, o.library]
    if t is frozenset or t is set:
        return ["@set", *sorted(o, key=repr)]
    if t is FileRef:
        return ["@f", o.rel]
    if isinstance(o, Enum):
        return ["@enum", t.__name__, o.name]
    if is_dataclass(o):
        names = _FIELDS_OF.get(t)
        if names is None:
            names = _FIELDS_OF[t] = tuple(None if f.name in _POSITIONAL else f.name for f in fields(o))
        return [t.__name__, *[None if n is None else getattr(o, n) for n in names]]
    if isinstance(o, tuple):  # a NamedTuple
        return [t.__name__, *o]
    return ["@unknown", t.__name__, _never()]  # never equal to anything stored


_DECLARATIONS = frozenset(_codec._CLASSES)
_FIELDS_OF: dict = {}  # dataclass → its field names, None for a positional one


def _never() -> str:
    global _NEVER
    if _NEVER is None:
        _NEVER = os.urandom(16).hex()
    return _NEVER


# ------------------------------------------------------------------ recording
class RecordingIndex:
    """The ``ProjectIndex`` as the resolver of file ``fi`` sees it: every
    look-up goes to ``idx`` and is recorded in :attr:`deps`
    (``(door, args) → (answer, file_valued)``; doors: ``("m", name)`` a
    method, ``("t", table)`` a table key, ``("t*", table)`` a whole table,
    ``("a", name)`` an attribute, ``("s", name)`` the solver chain)."""

    def __init__(self, idx, fi: int, rels):
        self._idx = idx
        self._fi = fi
        self._rels = rels
        self.deps: dict = {}

    def _key_arg(self, v, file_arg: bool):
        if file_arg and type(v) is int:
            return FileRef(self._rels[v])
        return v

    def __getattr__(self, name):
        idx = self._idx
        value = getattr(idx, name)
        if name in _ENVIRONMENT:
            object.__setattr__(self, name, value)
            return value
        if name == "solver":
            s = _RecordingSolver(self, value)
            object.__setattr__(self, name, s)
            return s
        if name in _TABLES:
            t = _RecordingTable(self, name, value)
            object.__setattr__(self, name, t)
            return t
        if callable(value):
            deps = self.deps
            rels = self._rels
            file_arg = name in _FILE_ARG

            def door(*args, **kw):
                r = value(*args, **kw)
                a = args
                if file_arg and len(args) > 1 and type(args[1]) is int:
                    a = (args[0], FileRef(rels[args[1]]), *args[2:])
                k = ("m", name, a, tuple(sorted(kw.items())) if kw else ())
                try:
                    deps[k] = (r, False)
                except TypeError:  # an unhashable argument (a dict): keyed by its canonical form
                    deps[("m", name, _Frozen(a, kw), ())] = (r, False)
                return r

            object.__setattr__(self, name, door)
            return door
        self.deps[("a", name, (), ())] = (value, False)
        return value


class _Frozen:
    """Arguments with a dict among them, made hashable by their repr."""

    __slots__ = ("args", "kw", "_h")

    def __init__(self, args, kw):
        self.args, self.kw = args, kw
        self._h = repr((args, sorted(kw.items())))

    def __eq__(self, other):
        return isinstance(other, _Frozen) and other._h == self._h

    def __hash__(self):
        return hash(self._h)


class _RecordingTable:
    """One table of the index (a dict, list or set), each read recorded."""

    __slots__ = ("_rec", "_name", "_t", "_fkey", "_fval")

    def __init__(self, rec, name, table):
        self._rec, self._name, self._t = rec, name, table
        self._fkey, self._fval = name in _FILE_KEYED, name in _FILE_VALUED

    def _note(self, key, value):
        if type(self._t) in (set, frozenset):
            value = value is not _MISSING
        self._rec.deps[("t", self._name, (self._rec._key_arg(key, self._fkey),), ())] = (value, self._fval)

    def _all(self):
        self._rec.deps[("t*", self._name, (), ())] = (self._t, self._fval)
        return self._t

    def get(self, key, default=None):
        v = _lookup(self._t, key)
        self._note(key, v)
        return default if v is _MISSING else v

    def __getitem__(self, key):
        if type(self._t) is list and type(key) is int and key < 0:
            key += len(self._t)
        v = _lookup(self._t, key)
        self._note(key, v)
        if v is _MISSING:
            raise KeyError(key) if type(self._t) is not list else IndexError(key)
        return v

    def __contains__(self, key):
        if type(self._t) is list:
            return key in self._all()
        v = _lookup(self._t, key)
        self._note(key, v)
        return v is not _MISSING

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __bool__(self):
        return bool(self._all())

    def items(self):
        return self._all().items()

    def keys(self):
        return self._all().keys()

    def values(self):
        return self._all().values()


def _lookup(t, key):
    """``t[key]`` or ``_MISSING``, for a dict, a list (by index) or a set (``key`` itself)."""
    tt = type(t)
    if tt is dict:
        return t.get(key, _MISSING)
    if tt is list:
        return t[key] if type(key) is int and 0 <= key < len(t) else _MISSING
    if tt is set or tt is frozenset:
        return key if key in t else _MISSING
    raise TypeError(f"table of type {tt.__name__}")


class _RecordingSolver:
    """The index's solver chain, each type asked recorded."""

    __slots__ = ("_rec", "_s")

    def __init__(self, rec, solver):
        self._rec, self._s = rec, solver

    @property
    def root(self):
        return self

    def solve(self, name):
        r = self._s.solve(name)
        self._rec.deps[("s", "solve", (name,), ())] = (r, False)
        return r

    def view(self, name):
        r = self._s.view(name)
        self._rec.deps[("s", "view", (name,), ())] = (r, False)
        return r


# ------------------------------------------------------------------ storage
_EXT_TUPLE, _EXT_SET, _EXT_FILE, _EXT_METHOD, _EXT_VALUE = 1, 2, 3, 4, 5
# plain frozen value classes a look-up may be asked with (type values):
# stored as class index + fields, rebuilt only as one of these
_VALUES = (JPrim, JClass, JArray, JTypeVar, JWildcard, TypeParam)
_VALUE_INDEX = {c: i for i, c in enumerate(_VALUES)}
_VALUE_FIELDS = [tuple(f.name for f in fields(c)) for c in _VALUES]


class MethodRef:
    """A project method passed to a look-up (``overriders``' ``base``), stored
    by its id and replayed as the new index's candidate of that id."""

    __slots__ = ("id",)

    def __init__(self, mid: str):
        self.id = mid


def _pack_default(o):
    if type(o) is tuple:
        return msgpack.ExtType(_EXT_TUPLE, _pack(list(o)))
    if type(o) is frozenset or type(o) is set:
        return msgpack.ExtType(_EXT_SET, _pack(sorted(o, key=repr)))
    if type(o) is FileRef:
        return msgpack.ExtType(_EXT_FILE, o.rel.encode("utf-8", "surrogatepass"))
    i = _VALUE_INDEX.get(type(o))
    if i is not None:
        return msgpack.ExtType(_EXT_VALUE, _pack((i, *(getattr(o, n) for n in _VALUE_FIELDS[i]))))
    if type(o) is MethodCandidate and o.is_source:
        return msgpack.ExtType(_EXT_METHOD, o.id.encode("utf-8", "surrogatepass"))
    raise Unstorable(type(o).__name__)


def _pack(v) -> bytes:
    # tuples as an extension (msgpack would write them as lists): a replayed
    # look-up gets the very argument types it was asked with
    return msgpack.packb(v, default=_pack_default, strict_types=True, use_bin_type=True)


def _ext_hook(code, data):
    if code == _EXT_TUPLE:
        return tuple(_unpack(data))
    if code == _EXT_SET:
        return frozenset(_unpack(data))
    if code == _EXT_FILE:
        return FileRef(data.decode("utf-8", "surrogatepass"))
    if code == _EXT_VALUE:
        i, *values = _unpack(data)
        if type(i) is not int or not 0 <= i < len(_VALUES) or len(values) != len(_VALUE_FIELDS[i]):
            raise ValueError("not a type value")
        return _VALUES[i](*values)
    if code == _EXT_METHOD:
        return MethodRef(data.decode("utf-8", "surrogatepass"))
    raise ValueError(f"unknown extension {code}")


def _unpack(b: bytes):
    return msgpack.unpackb(b, ext_hook=_ext_hook, raw=False, strict_map_key=False, use_list=True,
                           max_bin_len=1 << 24, max_str_len=1 << 24, max_array_len=1 << 22,
                           max_map_len=1 << 22, max_ext_len=1 << 24)


def encode(rec: RecordingIndex, fps: Fingerprints) -> bytes | None:
    """The recorded look-ups as data: a msgpack list of
    ``[kind, door, packed args, packed keywords, fingerprint]``; None when
    some arguments cannot be stored (the row is then reused only under the
    same project key)."""
    out = []
    try:
        for (kind, door, args, kw), (answer, file_valued) in rec.deps.items():
            if kind == "a" or (kind == "m" and door not in _DOORS):
                return None  # a look-up not known to be read-only: not replayable
            if type(args) is _Frozen:
                args, kw = args.args, tuple(sorted(args.kw.items()))
            out.append([kind, door, _pack(args), _pack(kw), fps.fingerprint(answer, file_valued)])
    except (Unstorable, TypeError, ValueError, OverflowError):
        return None
    out.sort()
    return msgpack.packb(out, use_bin_type=True)


def verify(blob: bytes, idx, fps: Fingerprints, fi_of: dict, memo: dict) -> bool:
    """True iff every look-up in ``blob`` (from :func:`encode`) gives ``idx``
    the same answer fingerprint. ``fi_of``: path → file index of this run;
    ``memo``: look-up → fingerprint, shared by the files of one run. Anything
    malformed is False (re-resolve)."""
    try:
        rows = msgpack.unpackb(blob, raw=False, use_list=True, max_bin_len=1 << 24, max_str_len=1 << 24,
                               max_array_len=1 << 22, max_map_len=1 << 16)
        if type(rows) is not list:
            return False
        for row in rows:
            kind, door, pa, pk, fp = row
            key = (kind, door, pa, pk)
            got = memo.get(key)
            if got is None:
                got = memo[key] = _answer(kind, door, _unpack(pa), _unpack(pk), idx, fps, fi_of)
            if got != fp:
                return False
        return True
    except Exception:  # a stranger's row, or a look-up that no longer applies: re-resolve
        return False


def _fi(v, fi_of, idx):
    if type(v) is MethodRef:
        m = idx.by_id.get(v.id)
        if m is None:
            raise LookupError(v.id)  # the method is gone
        return m
    if type(v) is FileRef:
        fi = fi_of.get(v.rel)
        if fi is None:
            raise LookupError(v.rel)  # the file is gone: whatever it answered has changed
        return fi
    return v


def _answer(kind, door, args, kw, idx, fps: Fingerprints, fi_of) -> bytes:
    if type(door) is not str or type(args) is not tuple or type(kw) is not tuple:
        raise ValueError("malformed look-up")
    if kind == "m":
        if door not in _DOORS:
            raise ValueError(door)
        fn = getattr(idx, door)
        args = tuple(_fi(a, fi_of, idx) for a in args)
        return fps.fingerprint(fn(*args, **dict(kw)))
    if kind == "t":
        if door not in _TABLES:
            raise ValueError(door)
        t = getattr(idx, door)
        (key,) = args
        v = _lookup(t, _fi(key, fi_of, idx))
        if type(t) in (set, frozenset):
            v = v is not _MISSING
        return fps.fingerprint(v, door in _FILE_VALUED)
    if kind == "t*":
        if door not in _TABLES:
            raise ValueError(door)
        return fps.fingerprint(getattr(idx, door), door in _FILE_VALUED)
    if kind == "s":
        if door not in ("solve", "view"):
            raise ValueError(door)
        return fps.fingerprint(getattr(idx.solver, door)(*args))
    raise ValueError(kind)
