"""A pure-Python reader for Java class files (JVMS §4), enough for signatures.

Reads the constant pool, access flags, this/super/interfaces, fields, methods
and the class-level ``InnerClasses``, ``Signature`` and ``Record`` attributes.
Names stay in the JVM's internal binary form (``java/util/Map$Entry``); the
conversion to source form lives in :mod:`callgraph.classpath`, which knows the
classpath and can decide what a ``$`` means.

Every malformed input raises :class:`ClassFormatError` (never ``struct.error``
or ``IndexError``), so callers can turn it into an "unsolved" answer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

__all__ = [
    "ClassFormatError",
    "RawMember",
    "InnerClass",
    "RawClass",
    "parse_class",
    "ACC_PUBLIC",
    "ACC_PRIVATE",
    "ACC_PROTECTED",
    "ACC_STATIC",
    "ACC_BRIDGE",
    "ACC_VARARGS",
    "ACC_INTERFACE",
    "ACC_ABSTRACT",
    "ACC_SYNTHETIC",
    "ACC_ANNOTATION",
    "ACC_ENUM",
    "ACC_MODULE",
]

ACC_PUBLIC = 0x0001
ACC_PRIVATE = 0x0002
ACC_PROTECTED = 0x0004
ACC_STATIC = 0x0008
ACC_BRIDGE = 0x0040
ACC_VARARGS = 0x0080
ACC_INTERFACE = 0x0200
ACC_ABSTRACT = 0x0400
ACC_SYNTHETIC = 0x1000
ACC_ANNOTATION = 0x2000
ACC_ENUM = 0x4000
ACC_MODULE = 0x8000

_MAGIC = 0xCAFEBABE

# Constant-pool tag → size of the entry body in bytes (Utf8 is variable).
_CP_FIXED = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4,
             15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}
_CP_SIZES = [_CP_FIXED.get(t, 0) for t in range(21)]
_U2 = struct.Struct(">H")
_U4 = struct.Struct(">I")
_U2U2U2U2 = struct.Struct(">HHHH")
_U2U4 = struct.Struct(">HI")


class ClassFormatError(ValueError):
    """The bytes are not a well-formed class file (truncated, bad magic, bad index)."""


@dataclass(frozen=True, slots=True)
class RawMember:
    """A field or method as stored: internal names, raw descriptor and flags."""

    name: str
    descriptor: str
    access: int
    signature: str | None
    synthetic_attr: bool


@dataclass(frozen=True, slots=True)
class InnerClass:
    """One ``InnerClasses`` entry (JVMS §4.7.6); ``outer``/``simple_name`` None when absent."""

    inner: str
    outer: str | None
    simple_name: str | None
    access: int


@dataclass(frozen=True, slots=True)
class RawClass:
    """A parsed class file with names in internal form (``java/lang/String``)."""

    name: str
    access: int
    superclass: str | None
    interfaces: tuple[str, ...]
    fields: tuple[RawMember, ...]
    methods: tuple[RawMember, ...]
    inner_classes: tuple[InnerClass, ...]
    signature: str | None
    is_record: bool
    major_version: int


def _decode_mutf8(raw: bytes) -> str:
    """Decode JVM "modified UTF-8" (JVMS §4.4.7): NUL as C0 80, supplementary chars as surrogate pairs."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeError as exc:
        raise ClassFormatError(f"invalid modified UTF-8 in constant pool: {exc}") from None


def parse_class(data: bytes) -> RawClass:
    """Parse a class file.

    Parameters
    ----------
    data : bytes
        The complete class file.

    Returns
    -------
    RawClass

    Raises
    ------
    ClassFormatError
        On bad magic, truncation, out-of-range constant-pool indexes or wrong
        constant-pool entry kinds.
    """
    try:
        return _parse(bytes(data))
    except ClassFormatError:
        raise
    except (struct.error, IndexError) as exc:
        raise ClassFormatError(f"truncated or malformed class file ({exc})") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ClassFormatError(f"malformed class file: {type(exc).__name__}: {exc}") from None


def _parse(buf: bytes) -> RawClass:
    n = len(buf)
    if n < 10:
        raise ClassFormatError(f"truncated class file ({n} bytes)")
    if _U4.unpack_from(buf, 0)[0] != _MAGIC:
        raise ClassFormatError("bad magic (not 0xCAFEBABE)")
    major = _U2.unpack_from(buf, 6)[0]
    cp_count = _U2.unpack_from(buf, 8)[0]
    # Constant pool: remember where each entry is; decode lazily. This loop is
    # the hot spot of a lookup, hence plain byte arithmetic.
    tags = bytearray(cp_count)
    offs = [0] * cp_count
    sizes = _CP_SIZES
    pos = 10
    i = 1
    while i < cp_count:
        if pos >= n:
            raise ClassFormatError(f"truncated constant pool (entry {i} of {cp_count})")
        tag = buf[pos]
        tags[i] = tag
        offs[i] = pos + 1
        if tag == 1:
            pos += 3 + ((buf[pos + 1] << 8) | buf[pos + 2])
        else:
            size = sizes[tag] if tag < 21 else 0
            if not size:
                raise ClassFormatError(f"unknown constant-pool tag {tag} at entry {i}")
            pos += 1 + size
            if tag == 5 or tag == 6:
                i += 1  # long/double take two slots
        i += 1
    if pos > n:
        raise ClassFormatError("truncated constant pool")
    utf_cache: dict[int, str] = {}

    def utf8(idx: int) -> str:
        s = utf_cache.get(idx)
        if s is not None:
            return s
        if not 0 < idx < cp_count or tags[idx] != 1:
            raise ClassFormatError(f"constant-pool index {idx} is not a Utf8 entry")
        o = offs[idx]
        length = _U2.unpack_from(buf, o)[0]
        if o + 2 + length > n:
            raise ClassFormatError("truncated Utf8 entry")
        s = _decode_mutf8(buf[o + 2:o + 2 + length])
        utf_cache[idx] = s
        return s

    def class_name(idx: int) -> str:
        if not 0 < idx < cp_count or tags[idx] != 7:
            raise ClassFormatError(f"constant-pool index {idx} is not a Class entry")
        return utf8(_U2.unpack_from(buf, offs[idx])[0])

    access, this_idx, super_idx, n_ifaces = _U2U2U2U2.unpack_from(buf, pos)
    pos += 8
    name = class_name(this_idx)
    superclass = class_name(super_idx) if super_idx else None
    interfaces = tuple(class_name(_U2.unpack_from(buf, pos + 2 * k)[0]) for k in range(n_ifaces))
    pos += 2 * n_ifaces

    def members(pos: int) -> tuple[tuple[RawMember, ...], int]:
        count = _U2.unpack_from(buf, pos)[0]
        pos += 2
        out = []
        for _ in range(count):
            m_access, m_name, m_desc, n_attrs = _U2U2U2U2.unpack_from(buf, pos)
            pos += 8
            signature = None
            synthetic = False
            for _ in range(n_attrs):
                a_name, a_len = _U2U4.unpack_from(buf, pos)
                an = utf8(a_name)
                if an == "Signature":
                    signature = utf8(_U2.unpack_from(buf, pos + 6)[0])
                elif an == "Synthetic":
                    synthetic = True
                pos += 6 + a_len
            out.append(RawMember(utf8(m_name), utf8(m_desc), m_access, signature, synthetic))
        return tuple(out), pos

    fields, pos = members(pos)
    methods, pos = members(pos)
    n_attrs = _U2.unpack_from(buf, pos)[0]
    pos += 2
    inner: list[InnerClass] = []
    signature = None
    is_record = False
    for _ in range(n_attrs):
        a_name, a_len = _U2U4.unpack_from(buf, pos)
        body = pos + 6
        if body + a_len > n:
            raise ClassFormatError("truncated class attribute")
        an = utf8(a_name)
        if an == "InnerClasses":
            count = _U2.unpack_from(buf, body)[0]
            for k in range(count):
                ic, oc, nm, fl = _U2U2U2U2.unpack_from(buf, body + 2 + 8 * k)
                inner.append(InnerClass(class_name(ic), class_name(oc) if oc else None,
                                        utf8(nm) if nm else None, fl))
        elif an == "Signature":
            signature = utf8(_U2.unpack_from(buf, body)[0])
        elif an == "Record":
            is_record = True
        pos = body + a_len
    if pos > n:
        raise ClassFormatError("truncated class file")
    return RawClass(name, access, superclass, interfaces, fields, methods, tuple(inner),
                    signature, is_record, major)
