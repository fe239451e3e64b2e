"""Generic types as frozen values, and the JVM ``Signature`` attribute grammar.

The resolver still carries expression types as ``(name, args)`` tuples (see
``_index``); this module is where the generic type machinery lives as values the
planned solver-chain refactor (issue 13, part 1) can build on:

* :class:`JPrim`, :class:`JClass` (class or interface type with type arguments),
  :class:`JArray`, :class:`JTypeVar`, :class:`JWildcard` — the type forms of a
  class file's ``Signature`` attribute (JVMS §4.7.9.1);
* :class:`TypeParam`, :class:`ClassSignature`, :class:`MethodSignature` — the
  parsed class and method signatures;
* :func:`parse_class_signature`, :func:`parse_method_signature`,
  :func:`parse_field_signature` — the parsers
  (raise :class:`SignatureError` on malformed input: signatures come from
  untrusted jars);
* :func:`substitute` — replace type variables by types (JLS §4.5.2).

Names are source FQNs with nested types joined by ``.`` (``java.util.Map.Entry``),
as everywhere in the resolver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

_PRIM = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
         "S": "short", "Z": "boolean", "V": "void"}
MAX_SIGNATURE = 64 * 1024  # longer signatures are refused (no real API comes near)
_MAX_DEPTH = 64  # nesting of type arguments


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
    __slots__ = ("s", "i")

    def __init__(self, s: str):
        if len(s) > MAX_SIGNATURE:
            raise SignatureError("signature too long")
        self.s, self.i = s, 0

    def peek(self) -> str:
        if self.i >= len(self.s):
            raise SignatureError(f"truncated signature {self.s[:80]!r}")
        return self.s[self.i]

    def ident(self, stops: str) -> str:
        j = self.i
        s = self.s
        while j < len(s) and s[j] not in stops:
            j += 1
        if j == self.i or j >= len(s):
            raise SignatureError(f"bad identifier in {s[:80]!r}")
        out, self.i = s[self.i:j], j
        return out

    def ref(self, depth: int = 0) -> JType:
        """ReferenceTypeSignature (class, type variable or array)."""
        if depth > _MAX_DEPTH:
            raise SignatureError("type arguments nested too deeply")
        c = self.peek()
        if c == "L":
            return self.cls(depth)
        if c == "T":
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
        c = self.peek()
        if c in _PRIM and c != "V":
            self.i += 1
            return JPrim(_PRIM[c])
        return self.ref(depth)

    def cls(self, depth: int) -> JClass:
        self.i += 1  # "L"
        parts = []
        args: tuple = ()
        while True:
            parts.append(self.ident("<;."))
            args = ()
            if self.peek() == "<":
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
            c = self.peek()
            self.i += 1
            if c == ";":
                break
            # "." : a member class of a parameterized outer; only the innermost
            # type's own arguments matter for member lookup
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
    p = _P(sig)
    try:
        tps = p.type_params()
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
    try:
        t = p.ref()
    except IndexError as e:
        raise SignatureError(f"malformed field signature {sig[:80]!r}") from e
    if p.i != len(sig):
        raise SignatureError(f"trailing characters in field signature {sig[:80]!r}")
    return t


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
