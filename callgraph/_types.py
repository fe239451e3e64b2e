"""Java types as frozen values: the declared types of the classpath (JVM
``Signature`` attributes) and the static types the resolver gives expressions.

Two layers of one family, with one conversion between them
(``ProjectIndex.jtuple``, at the classpath boundary):

* **Declared types** — what a class file's ``Signature`` says, type variables
  and wildcards included: :class:`JPrim`, :class:`JClass`, :class:`JArray`,
  :class:`JTypeVar`, :class:`JWildcard` (frozen dataclasses; parsed once per
  signature and memoised, so their cost is off the hot path).
* **Expression types** (:data:`ExprType`) — the static type the resolver
  computes for an expression (JLS §15): :class:`ClassT` (class, interface,
  primitive or array type by erased name, with resolved type arguments),
  :class:`NullT` (the null type, JLS §4.1), :class:`LambdaT` (a lambda or
  method reference before its target type is known, by shape),
  :class:`UnknownT` (a value of a type outside project and classpath, with the
  reason), or ``None`` (not known). These are NamedTuples, not dataclasses:
  the resolver makes millions of them and a NamedTuple costs about a third
  of a frozen dataclass to build and read (measured in issue 13). Every
  expression type starts with ``name`` (a string) and then its type
  arguments (a :class:`LambdaT` its shape), so code that only needs the
  erased name reads ``t[0]``; which *kind* of type a value is, is told by
  its class (``type(t) is NullT``), never by a sentinel name.
  Type variables and wildcards never reach an expression type: they are
  substituted or captured (JLS §5.1.10) when a declared type is converted.
  A plain ``(name, args)`` 2-tuple (what ``ProjectIndex`` memoises for a
  resolved TypeRef) is a :class:`ClassT` by layout and by equality.

The declared-type forms and parsers:

* :class:`JPrim`, :class:`JClass` (class or interface type with type arguments),
  :class:`JArray`, :class:`JTypeVar`, :class:`JWildcard` — the type forms of a
  class file's ``Signature`` attribute (JVMS §4.7.9.1);
* :class:`TypeParam`, :class:`ClassSignature`, :class:`MethodSignature` — the
  parsed class and method signatures;
* :func:`parse_class_signature`, :func:`parse_method_signature`,
  :func:`parse_field_signature` — the parsers
  (raise :class:`SignatureError` on malformed input: signatures come from
  untrusted jars); :func:`parse_field_descriptor` and
  :func:`parse_method_descriptor` — the same grammar restricted to
  descriptors (JVMS §4.3: no type variables, no type arguments), which
  ``classpath`` reads class files with (one parser for both);
* :func:`substitute` — replace type variables by types (JLS §4.5.2).

Names are source FQNs with nested types joined by ``.`` (``java.util.Map.Entry``),
as everywhere in the resolver.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union

_PRIM = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
         "S": "short", "Z": "boolean", "V": "void"}
MAX_SIGNATURE = 64 * 1024  # longer signatures are refused (no real API comes near)
_MAX_DEPTH = 64  # nesting of type arguments
_RUN = {stops: re.compile(f"[^{re.escape(stops)}]+") for stops in ("<;.", ";", ":")}  # _P.ident's stop sets


class SignatureError(ValueError):
    """A malformed ``Signature`` attribute string."""


@dataclass(frozen=True, slots=True)
class JPrim:
    """A primitive type or ``void`` (``name`` as in source: ``"int"``)."""

    name: str


@dataclass(frozen=True, slots=True)
class JClass:
    """A class or interface type ``name<args>``; ``args`` empty for a raw or
    non-generic use. ``name``: source FQN."""

    name: str
    args: tuple = ()


@dataclass(frozen=True, slots=True)
class JArray:
    """An array type ``elem[]``."""

    elem: "JType"


@dataclass(frozen=True, slots=True)
class JTypeVar:
    """A use of type variable ``name`` (its bounds are on the declaring
    :class:`TypeParam`)."""

    name: str


@dataclass(frozen=True, slots=True)
class JWildcard:
    """A wildcard type argument: ``?`` (``bound`` None), ``? extends bound``
    (``upper`` True) or ``? super bound`` (``upper`` False)."""

    bound: "JType | None" = None
    upper: bool = True


JType = Union[JPrim, JClass, JArray, JTypeVar, JWildcard]
_PRIM_TYPE = {c: JPrim(n) for c, n in _PRIM.items() if c != "V"}  # immutable: one value per base type


# ----------------------------------------------------------------- expression types
class ClassT(NamedTuple):
    """The static type of an expression that is a class, interface, primitive
    or array type.

    ``name``: the erased source FQN (``"java.util.List"``, nested types joined
    by ``.``), a primitive or ``void`` (``"int"``), or an array as its element's
    name with one ``[]`` per dimension (``"java.lang.String[]"``; type
    arguments of an array's element are dropped). ``args``: the resolved type
    arguments, each an expression type or ``None`` (unknown, e.g. an unbounded
    wildcard); empty for a raw or non-generic type."""

    name: str
    args: tuple = ()


class NullT(NamedTuple):
    """The null type (JLS §4.1): the type of the ``null`` literal, assignable to
    every reference type. ``name`` is ``"null"`` (for messages only); use the
    singleton :data:`NULL`."""

    name: str = "null"
    args: tuple = ()


class LambdaT(NamedTuple):
    """A lambda expression or method reference before its target functional
    interface is known (JLS §15.27, §15.13). ``shape``: ``(arity, body)`` of a
    lambda, body ``"void"``, ``"value"`` or ``"both"`` (void- and/or
    value-compatible, JLS §15.27.2), which decides the function types it fits;
    ``()`` for a method reference (its shape depends on the overload). ``name``
    is ``"λ"`` (for messages only)."""

    name: str
    shape: tuple


class UnknownT(NamedTuple):
    """A value whose type lies outside the project and the classpath: known to
    exist, not known what it is (e.g. the return of a method of a missing
    library type). Calls on it are resolved by name, never by type. ``name`` is
    ``"?"`` (for messages only); ``reason`` says where the value came from."""

    name: str
    args: tuple
    reason: str


ExprType = Optional[Union[ClassT, NullT, LambdaT, UnknownT]]
NULL = NullT()
METHOD_REF = LambdaT("λ", ())
UNKNOWN_LIB = UnknownT("?", (), "returned by a method of a type outside project and classpath")


def lambda_type(shape: tuple) -> LambdaT:
    """The :class:`LambdaT` of a lambda of ``shape`` ``(arity, body)``."""
    return LambdaT("λ", shape)


@dataclass(frozen=True, slots=True)
class TypeParam:
    """A formal type parameter: name and bounds (class bound first, then
    interface bounds; empty means ``Object``)."""

    name: str
    bounds: tuple = ()


@dataclass(frozen=True, slots=True)
class ClassSignature:
    """A class's ``Signature``: ``<type_params> superclass interfaces``."""

    type_params: tuple
    superclass: JClass | None
    interfaces: tuple


@dataclass(frozen=True, slots=True)
class MethodSignature:
    """A method's ``Signature``: ``<type_params>(params)returns`` (throws dropped)."""

    type_params: tuple
    params: tuple
    returns: JType


class _P:
    __slots__ = ("s", "i", "name_of")

    def __init__(self, s: str, name_of=None):
        """``name_of`` given: a descriptor — no type variables or arguments, and
        each internal class name (``java/util/Map$Entry``) named by ``name_of``."""
        if len(s) > MAX_SIGNATURE:
            raise SignatureError("signature too long")
        self.s, self.i, self.name_of = s, 0, name_of

    def peek(self) -> str:
        if self.i >= len(self.s):
            raise SignatureError(f"truncated signature {self.s[:80]!r}")
        return self.s[self.i]

    def ident(self, stops: str) -> str:
        s = self.s
        m = _RUN[stops].match(s, self.i)  # a regex, not a loop per character: class files hold ~10^5
        j = m.end() if m else self.i
        if j == self.i or j >= len(s):
            raise SignatureError(f"bad identifier in {s[:80]!r}")
        out, self.i = s[self.i:j], j
        return out

    def ref(self, depth: int = 0) -> JType:
        """ReferenceTypeSignature (class, type variable or array)."""
        if depth > _MAX_DEPTH:
            raise SignatureError("type arguments nested too deeply")
        c = self.s[self.i]  # past the end: IndexError, which every parse_* reports as malformed
        if c == "L":
            return self.cls(depth)
        if c == "T" and self.name_of is None:
            self.i += 1
            name = self.ident(";")
            self.i += 1
            return JTypeVar(name)
        if c == "[":
            self.i += 1
            return JArray(self.any(depth + 1))
        raise SignatureError(f"unexpected {c!r} in {self.s[:80]!r}")

    def any(self, depth: int = 0) -> JType:
        """JavaTypeSignature (a reference type or a base type)."""
        c = self.s[self.i]
        if c in _PRIM_TYPE:
            self.i += 1
            return _PRIM_TYPE[c]
        return self.ref(depth)

    def cls(self, depth: int) -> JClass:
        self.i += 1  # "L"
        parts = []
        args: tuple = ()
        while True:
            parts.append(self.ident("<;."))
            args = ()
            if self.s[self.i] == "<" and self.name_of is None:
                self.i += 1
                out = []
                while self.peek() != ">":
                    c = self.peek()
                    if c == "*":
                        self.i += 1
                        out.append(JWildcard())
                    elif c in "+-":
                        self.i += 1
                        out.append(JWildcard(self.ref(depth + 1), c == "+"))
                    else:
                        out.append(self.ref(depth + 1))
                self.i += 1
                args = tuple(out)
            c = self.s[self.i]  # ident stopped before the end
            self.i += 1
            if c == ";":
                break
            # "." : a member class of a parameterized outer; only the innermost
            # type's own arguments matter for member lookup
        if self.name_of is not None:
            if len(parts) != 1:
                raise SignatureError(f"bad class name in descriptor {self.s[:80]!r}")
            return JClass(self.name_of(parts[0]))
        name = ".".join(parts).replace("/", ".").replace("$", ".")
        return JClass(name, args)

    def type_params(self) -> tuple:
        if self.i >= len(self.s) or self.s[self.i] != "<":
            return ()
        self.i += 1
        out = []
        while self.peek() != ">":
            name = self.ident(":")
            bounds = []
            while self.i < len(self.s) and self.s[self.i] == ":":
                self.i += 1
                if self.peek() in "LT[":
                    bounds.append(self.ref())
            out.append(TypeParam(name, tuple(bounds)))
        self.i += 1
        return tuple(out)


def parse_class_signature(sig: str) -> ClassSignature:
    """Parse a ClassSignature (JVMS §4.7.9.1), e.g.
    ``"<SELF:LA<TSELF;>;>Ljava/lang/Object;"``. Raises SignatureError."""
    p = _P(sig)
    try:
        tps = p.type_params()
        sup = p.ref()
        ifaces = []
        while p.i < len(sig):
            ifaces.append(p.ref())
    except IndexError as e:
        raise SignatureError(f"malformed class signature {sig[:80]!r}") from e
    if not isinstance(sup, JClass) or not all(isinstance(x, JClass) for x in ifaces):
        raise SignatureError(f"supertype is not a class type in {sig[:80]!r}")
    return ClassSignature(tps, sup, tuple(ifaces))


def parse_method_signature(sig: str) -> MethodSignature:
    """Parse a MethodSignature (JVMS §4.7.9.1), e.g. ``"<T:Ljava/lang/Object;>(TT;)TT;"``;
    the throws part is ignored. Raises SignatureError."""
    return _method_signature(_P(sig))


def _method_signature(p: _P) -> MethodSignature:
    sig = p.s
    try:
        tps = p.type_params() if p.name_of is None else ()
        if p.peek() != "(":
            raise SignatureError(f"no parameter list in {sig[:80]!r}")
        p.i += 1
        params = []
        while p.peek() != ")":
            params.append(p.any())
        p.i += 1
        if p.peek() == "V":
            p.i += 1
            ret: JType = JPrim("void")
        else:
            ret = p.any()
    except IndexError as e:
        raise SignatureError(f"malformed method signature {sig[:80]!r}") from e
    return MethodSignature(tps, tuple(params), ret)


def parse_field_signature(sig: str) -> JType:
    """Parse a field's Signature (a ReferenceTypeSignature, e.g. ``"TACTUAL;"``).
    Raises SignatureError."""
    p = _P(sig)
    return _whole(p, p.ref, "field signature")


def parse_field_descriptor(d: str, name_of) -> JType:
    """Parse a FieldDescriptor (JVMS §4.3.2), e.g. ``"[Ljava/lang/String;"``;
    ``name_of(internal_name)`` gives each class's source FQN (class files know
    which ``$`` are nesting). Raises SignatureError."""
    p = _P(d, name_of)
    return _whole(p, p.any, "field descriptor")


def _whole(p: _P, rule, what: str) -> JType:
    """``rule()`` over the whole of ``p``'s text, or SignatureError."""
    try:
        t = rule()
    except IndexError as e:
        raise SignatureError(f"malformed {what} {p.s[:80]!r}") from e
    if p.i != len(p.s):
        raise SignatureError(f"trailing characters in {what} {p.s[:80]!r}")
    return t


def parse_method_descriptor(d: str, name_of) -> MethodSignature:
    """Parse a MethodDescriptor (JVMS §4.3.3), e.g. ``"(ILjava/lang/String;)V"``,
    into a :class:`MethodSignature` without type parameters; ``name_of`` as in
    :func:`parse_field_descriptor`. Raises SignatureError."""
    p = _P(d, name_of)
    if not d.startswith("("):
        raise SignatureError(f"no parameter list in {d[:80]!r}")
    sig = _method_signature(p)
    if p.i != len(d):
        raise SignatureError(f"trailing characters in method descriptor {d[:80]!r}")
    return sig


def substitute(t: JType, subst: dict) -> JType:
    """``t`` with every type variable named in ``subst`` replaced (JLS §4.5.2);
    other variables are kept."""
    if isinstance(t, JTypeVar):
        return subst.get(t.name, t)
    if isinstance(t, JClass):
        if not t.args:
            return t
        return JClass(t.name, tuple(substitute(a, subst) for a in t.args))
    if isinstance(t, JArray):
        return JArray(substitute(t.elem, subst))
    if isinstance(t, JWildcard) and t.bound is not None:
        return JWildcard(substitute(t.bound, subst), t.upper)
    return t


def erasure(t: JType, params: dict) -> str | None:
    """Erased source name of ``t`` (JLS §4.6); type variables erase to their
    first bound (``params``: name → TypeParam), unknown ones to None."""
    seen = 0
    while isinstance(t, JTypeVar):
        tp = params.get(t.name)
        seen += 1
        if tp is None or seen > 16:
            return None
        if not tp.bounds:
            return "java.lang.Object"
        t = tp.bounds[0]
    if isinstance(t, JPrim):
        return t.name
    if isinstance(t, JClass):
        return t.name
    if isinstance(t, JArray):
        e = erasure(t.elem, params)
        return e + "[]" if e is not None else None
    return None
