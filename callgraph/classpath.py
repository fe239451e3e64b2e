"""The classpath signature index: library types from jars, class folders and the JDK.

This is the "classpath → JDK" end of the resolution chain (JavaParser's
``JarTypeSolver``/``ReflectionTypeSolver`` in spirit): each entry can say
"no" cheaply from a class-name index built up front (the zip central
directory, a folder walk, the JDK's ``lib/modules`` location table); a class
file is parsed only when a type is looked up, and hits and misses are cached.

Names handed out are in *source form*: nested types joined by ``.``
(``java.util.Map.Entry``), arrays as ``int[]``, a varargs last parameter as
``java.lang.Object...`` — the same spelling as method ids in DESIGN.md
"Identifiers". Which ``$`` marks nesting is decided by the class files'
``InnerClasses`` attributes (JVMS §4.7.6), not by the character.

Public API
----------
- :class:`ClasspathIndex` — ``open(entries, jdk=...)``, ``lookup``,
  ``lookup_result``, ``has_type``, ``types_in_package``, ``is_jdk_package``,
  ``jdk_packages``, ``warnings``
- :class:`TypeSig`, :class:`MethodSig`, :class:`FieldSig`, :class:`Solved`,
  :class:`Unsolved`, :class:`UnsolvedReason`
- :func:`resolve_classpath` (Maven's resolver on a sanitised model; the default
  discovery), :class:`ResolvedClasspath`, :class:`Artifact`, :class:`Failure`,
  :class:`Reason`, :class:`ResolutionMethod`, :func:`default_repo_local`,
  :func:`fetch_doc_jars` (``-javadoc.jar``/``-sources.jar``), :class:`DocFetch`
- :func:`discover_classpath` (the offline pom model, the fallback),
  :func:`maven_build_classpath`, :func:`is_third_party`, :func:`find_jdk`
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import sqlite3
import stat
import struct
import time
import zipfile
import zlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import AbstractSet, Iterable

from . import _classfile as cf
from . import _types
from ._types import JArray as _JArray
from .safefs import walk as safefs_walk
from ._jimage import JImage, JImageError
from ._jarindex import JarListing
from ._statsig import signature_of
from records.safefs import FileRefused, is_inside, read_regular

__all__ = [
    "ClasspathIndex",
    "TypeSig",
    "MethodSig",
    "FieldSig",
    "Solved",
    "Unsolved",
    "UnsolvedReason",
    "is_third_party",
    "find_jdk",
    "discover_classpath",
    "discover_classpath_report",
    "maven_build_classpath",
    "ClasspathReport",
    "resolve_classpath",
    "with_resolved",
    "cache_dir",
    "ResolvedClasspath",
    "ResolutionMethod",
    "Artifact",
    "Failure",
    "Reason",
    "default_repo_local",
    "fetch_doc_jars",
    "DocFetch",
    "DocJar",
]

#: Limits for reading archives (zip bombs, hostile jars).
MAX_ZIP_ENTRIES = 200_000
#: folders one class folder of the classpath may hold (one per package: thousands at most)
MAX_CLASS_FOLDER_DIRS = 100_000
MAX_CLASS_BYTES = 16 * 1024 * 1024
MAX_POM_PROPERTIES_BYTES = 64 * 1024
_OPEN_JARS = 64  # at most this many jars held open at once (LRU)

_IDENT = re.compile(r"[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*\Z")


# --------------------------------------------------------------------------- facts

@dataclass(frozen=True, slots=True)
class MethodSig:
    """One method or constructor of a library type.

    Attributes
    ----------
    name : str
        Simple name; ``"<init>"`` for constructors.
    params : tuple[str, ...]
        Erased parameter types in source form (``"java.lang.String"``, ``"int[]"``,
        ``"java.util.Map.Entry"``); a varargs last parameter as ``"java.lang.Object..."``.
        Constructors of inner (non-static) classes leave out the enclosing
        instance, enum constructors the implicit name/ordinal — as in source.
    returns : str
        Erased return type in source form (``"void"`` for constructors).
    static, varargs, abstract : bool
    access : str
        ``"public"`` | ``"protected"`` | ``"package"`` | ``"private"``.
    generic_returns : str or None
        The return part of the method's ``Signature`` attribute (JVMS §4.7.9.1),
        e.g. ``"TE;"``, or None when the method has no Signature attribute.
    signature : str or None
        The whole ``Signature`` attribute (type parameters, parameters, return;
        parsed by ``callgraph._types.parse_method_signature``), or None.
    """

    name: str
    params: tuple[str, ...]
    returns: str
    static: bool
    varargs: bool
    abstract: bool
    access: str
    generic_returns: str | None
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class FieldSig:
    """A field: name, erased type in source form, whether it is static, and its
    ``Signature`` attribute (e.g. ``"TACTUAL;"``) or None; fields compare by
    their erased form (the signature is left out of ``==``)."""

    name: str
    type: str
    static: bool
    signature: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TypeSig:
    """A library type as declared in its class file.

    Attributes
    ----------
    fqn : str
        Source FQN, nested types joined by ``.`` (``"java.util.Map.Entry"``).
    kind : str
        ``"class"`` | ``"interface"`` | ``"enum"`` | ``"record"`` | ``"annotation"``.
    superclass : str or None
        Source FQN (None for ``java.lang.Object`` and for interfaces, whose class
        file names ``java.lang.Object``; see docs/classpath.md).
    interfaces : tuple[str, ...]
    methods : tuple[MethodSig, ...]
        Declared in this type only; synthetic and bridge methods and ``<clinit>`` left out.
    fields : tuple[FieldSig, ...]
        Declared in this type only; synthetic fields left out.
    nested : tuple[str, ...]
        Source FQNs of the member types.
    type_params : tuple[str, ...]
        Names of the type's own type parameters, e.g. ``("K", "V")``.
    origin : str
        ``"jdk"`` | ``"jar"`` (a class folder counts as ``"jar"``).
    library : str or None
        Maven ``group:artifact:version`` of the jar, or None.
    location : str
        The jar or folder path, or ``"jrt:/<module>"`` for the JDK.
    signature : str or None
        The class's ``Signature`` attribute (type parameters with bounds, generic
        supertypes; parsed by ``callgraph._types.parse_class_signature``), or None.
    """

    fqn: str
    kind: str
    superclass: str | None
    interfaces: tuple[str, ...]
    methods: tuple[MethodSig, ...]
    fields: tuple[FieldSig, ...]
    nested: tuple[str, ...]
    type_params: tuple[str, ...]
    origin: str
    library: str | None
    location: str
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class Solved:
    """A successful lookup: ``solved(TypeSig)``."""

    type: TypeSig


class UnsolvedReason(Enum):
    """Why a classpath lookup failed (the value is the human-readable text)."""

    NOT_ON_CLASSPATH = "not on the classpath"  # no entry (jar, folder, JDK) lists the class
    UNREADABLE = "class file unreadable"  # the entry could not be read (I/O, zip, size limit)
    MALFORMED = "bad class file"  # read, but not a class file JVMS §4 accepts
    WRONG_NAME = "class file declares another class"  # its this_class is not the entry's name
    MODULE_INFO = "module-info, not a type"
    PACKAGE_INFO = "package-info, not a type"
    LOCAL_OR_ANONYMOUS = "anonymous or local class"  # not nameable from source (JLS §14.3, §15.9.5)
    SYNTHETIC = "synthetic class"
    INTERNAL_ERROR = "internal error"  # a bug of ours, caught so that lookups never raise


@dataclass(frozen=True, slots=True)
class Unsolved:
    """A failed lookup: ``unsolved(name, reason)``.

    Attributes
    ----------
    name : str
        The name looked up.
    reason : UnsolvedReason
        Why, as a kind to branch on.
    detail : str
        The entry's own words (the class file, the exception), empty when the
        reason says all; :attr:`text` is the one to show.
    """

    name: str
    reason: UnsolvedReason
    detail: str = ""

    @property
    def text(self) -> str:
        """Human-readable reason: ``detail`` if any, else the reason's text."""
        return self.detail or self.reason.value


# --------------------------------------------------------------------------- sources

class _Source(ABC):
    """One classpath entry: a set of internal class names and a way to read them."""

    origin = "jar"
    library: str | None = None
    path: str = ""
    shared_types: dict | None = None   # process-wide TypeSig memo (the JDK image only)
    shared_names: dict | None = None

    names: AbstractSet[str]  # internal class names (a dict keys view or a set)

    @abstractmethod
    def read(self, name: str) -> bytes:
        """The bytes of class ``name`` (internal form); raises on unreadable data."""

    def location(self, name: str) -> str:
        return self.path

    @property
    def packages(self) -> frozenset[str]:
        """Packages (dotted) of this entry's classes."""
        return frozenset(n.rpartition("/")[0].replace("/", ".") for n in self.names if "/" in n)


class _JarSource(_Source):
    def __init__(self, path: Path, warnings: list, lru=None, disk=None):
        self.path = str(path)
        listing, pom_library, messages, self._key = _jar_index(path, disk)
        warnings.extend((self.path, m) for m in messages)
        self.library = pom_library or _library_from_path(path)
        self._infos = listing
        self.names = listing.names.keys()

    def read(self, name: str) -> bytes:
        return _read_member(self._key, self._infos.entry(name))


class _OpenJars:
    """Jars held open for class reads, per process, least recently used
    first, at most ``max_open`` (closed on eviction). Keyed by the jar's real
    path and stat signature as indexed: a descriptor is opened once per
    process, not once per index, and a jar that changed since it was indexed
    is refused rather than read at the old offsets. Reads use ``pread``, so a
    descriptor inherited across a fork is safe to share (no file offset).
    One thread per process reads classes, as for the index's other memos (an
    eviction closes a descriptor another thread could be reading)."""

    def __init__(self, max_open: int) -> None:
        self.max_open = max_open
        self._fds: collections.OrderedDict = collections.OrderedDict()

    def fd(self, key) -> int:
        fds = self._fds
        fd = fds.get(key)
        if fd is not None:
            fds.move_to_end(key)
            return fd
        fd = os.open(key[0], os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or signature_of(st) != key[1]:
                raise _EntryError("the jar changed since it was indexed")
        except BaseException:
            os.close(fd)
            raise
        fds[key] = fd
        while len(fds) > self.max_open:
            os.close(fds.popitem(last=False)[1])
        return fd

    def close(self) -> None:
        while self._fds:
            os.close(self._fds.popitem()[1])

    def __len__(self) -> int:
        return len(self._fds)


_OPEN = _OpenJars(_OPEN_JARS)


def close_jars() -> None:
    """Close the jars this process holds open for class reads (reopened on demand)."""
    _OPEN.close()


class _Span:
    """A file-like view of ``size`` bytes of a descriptor from ``pos``
    (``pread``: no shared file offset), what ``zipfile.ZipExtFile`` reads from."""

    __slots__ = ("fd", "pos", "end")

    def __init__(self, fd: int, pos: int, size: int):
        self.fd, self.pos, self.end = fd, pos, pos + size

    def read(self, n: int = -1) -> bytes:
        left = self.end - self.pos
        if n < 0 or n > left:
            n = left
        data = os.pread(self.fd, n, self.pos) if n > 0 else b""
        self.pos += len(data)
        return data


_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zipfile.structFileHeader (APPNOTE 4.3.7)


def _read_member(key, entry) -> bytes:
    """The uncompressed bytes of one zip member, from its listing ``entry``
    (:meth:`_jarindex.JarListing.entry`), checked as ``zipfile.ZipFile.open``
    checks them (local header magic, same name, no encryption or patch data)
    and inflated by zipfile's own ``ZipExtFile`` (its CRC check included),
    at most :data:`MAX_CLASS_BYTES`."""
    stored, offset, csize, size, method, flags, crc = entry
    if size > MAX_CLASS_BYTES:
        raise _EntryError(f"declared size {size} bytes exceeds limit {MAX_CLASS_BYTES}")
    fd = _OPEN.fd(key)
    head = os.pread(fd, _LOCAL_HEADER.size, offset)
    if len(head) != _LOCAL_HEADER.size:
        raise zipfile.BadZipFile("Truncated file header")
    h = _LOCAL_HEADER.unpack(head)
    if h[0] != b"PK\x03\x04":
        raise zipfile.BadZipFile("Bad magic number for file header")
    name_len, extra_len = h[10], h[11]
    fname = os.pread(fd, name_len, offset + _LOCAL_HEADER.size)
    # refused as zipfile refuses them: a member this reader cannot read is a class not read, never a guess
    if flags & 0x20:
        raise _EntryError("compressed patched data (flag bit 5) is not supported")
    if flags & 0x40:
        raise _EntryError("strong encryption (flag bit 6) is not supported")
    fname_str = fname.decode("utf-8") if h[3] & 0x800 else fname.decode("cp437")
    if fname_str != stored:
        raise zipfile.BadZipFile(f"File name in directory {stored!r} and header {fname!r} differ.")
    if flags & 0x1:
        raise _EntryError(f"{stored!r} is encrypted")
    info = zipfile.ZipInfo(stored)
    info.compress_type, info.compress_size, info.file_size, info.CRC, info.flag_bits = method, csize, size, crc, flags
    with zipfile.ZipExtFile(_Span(fd, offset + _LOCAL_HEADER.size + name_len + extra_len, csize), "r", info) as fh:
        data = fh.read(MAX_CLASS_BYTES + 1)
    if len(data) > MAX_CLASS_BYTES:
        raise _EntryError(f"inflates beyond {MAX_CLASS_BYTES} bytes")
    return data


class _JarIndexMemo:
    """Per-process memo of jars' class-name indexes, least recently used first.

    Every ``qare build`` project (and every graph build in one process)
    opens its classpath again; reading a jar's central directory
    (``zipfile``'s ``_RealGetContents``) was about half of spring-petclinic's
    graph stage (164 jars). An entry is keyed by the jar's identity as the
    open file descriptor sees it — the path as given (its name picks a shaded
    jar's coordinates), size, mtime, ctime, inode, device — so a jar rewritten in place (a write always sets ctime), replaced
    (another inode) or copied over with ``cp -p`` is read afresh. Bounded by
    the class names held (``max_names``; a listing holds a name, its dict
    slot and 48 bytes of entry fields, ~0.15 KB) and by the number of jars;
    the values are shared read-only between indexes. Below it, shared by
    processes and runs, is the on-disk jar index (callgraph._jarindex).
    """

    def __init__(self, max_names: int, max_jars: int) -> None:
        self.max_names = max_names
        self.max_jars = max_jars
        self._entries: collections.OrderedDict = collections.OrderedDict()
        self._names = 0
        self.hits = 0
        self.misses = 0

    def get(self, key):
        e = self._entries.get(key)
        if e is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return e

    def put(self, key, entry) -> None:
        n = len(entry[0])
        if n > self.max_names or self.max_jars < 1:
            return  # larger than the whole memo: not kept
        old = self._entries.pop(key, None)
        if old is not None:
            self._names -= len(old[0])
        self._entries[key] = entry
        self._names += n
        while self._names > self.max_names or len(self._entries) > self.max_jars:
            _, ev = self._entries.popitem(last=False)
            self._names -= len(ev[0])

    def clear(self) -> None:
        self._entries.clear()
        self._names = 0

    def __len__(self) -> int:
        return len(self._entries)


#: Class names (summed over jars) and jars the per-process jar index memo holds.
JAR_MEMO_MAX_NAMES = 300_000
JAR_MEMO_MAX_JARS = 1024
_JAR_MEMO = _JarIndexMemo(JAR_MEMO_MAX_NAMES, JAR_MEMO_MAX_JARS)


def _jar_index(path: Path, disk=None) -> tuple:
    """``(listing, coordinates from pom.properties or None, warning messages,
    read key)`` of a jar: from the per-process memo when the same file (by
    its descriptor's identity) was indexed before in this process, else from
    the on-disk jar index ``disk`` (a :class:`_DiskIndex`, None for none),
    else from the zip's central directory (then stored in ``disk``). The read
    key, ``(real path, stat signature)``, names the file the listing
    describes for :data:`_OPEN`.

    The jar is opened once, non-blocking and only if it is a regular file (a
    FIFO or device on the classpath cannot block or flood), and read through
    that descriptor, so the key describes exactly the bytes indexed.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        started = time.time_ns()  # before the stat: the racy rule's reference (callgraph._statsig)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _EntryError("not a regular file")
        sig = signature_of(st)
        # the path as given: it picks a shaded jar's coordinates by its name
        # (_library_from_found) and the coordinates of a repository layout
        # (_library_from_path); the file itself is named by the signature's
        # inode and device (no realpath per jar and project: ~10 lstat each)
        key = (os.fspath(path),) + sig
        hit = _JAR_MEMO.get(key)
        if hit is not None:
            return hit
        real = os.path.realpath(path)
        listing = disk.get(real, sig) if disk is not None else None
        if listing is None:
            listing = _list_jar(fd, path)
            if disk is not None:
                disk.put(real, sig, started, listing)
    finally:
        os.close(fd)
    entry = (listing, _library_from_found(listing.found, path), listing.messages, (real, sig))
    _JAR_MEMO.put(key, entry)
    return entry


def _list_jar(fd: int, path: Path) -> JarListing:
    """A jar's listing read from its zip central directory through ``fd``."""
    with os.fdopen(os.dup(fd), "rb") as fh, zipfile.ZipFile(fh) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            raise _EntryError(f"zip has {len(infos)} entries (limit {MAX_ZIP_ENTRIES}); not indexed")
        classes: list = []
        unsafe = 0
        poms: list[tuple[str, zipfile.ZipInfo]] = []
        for info in infos:
            fn = info.filename
            if fn.startswith("/") or "\\" in fn or ".." in fn.split("/"):
                unsafe += 1
                continue
            if fn.endswith(".class"):
                # Multi-release jars: base entries only (META-INF/versions/N/ ignored).
                if fn.startswith("META-INF/"):
                    continue
                classes.append((fn[:-6], info))
            elif fn.startswith("META-INF/maven/") and fn.endswith("/pom.properties"):
                poms.append((fn, info))
        messages: list = []
        if unsafe:
            messages.append(f"{unsafe} zip entries with unsafe paths ('..', absolute) ignored")
        pom_warnings: list = []
        found = _poms_found(zf, poms, path, pom_warnings)
        messages.extend(m for _p, m in pom_warnings)
    return JarListing.from_infos(classes, found, messages)


class _DirSource(_Source):
    def __init__(self, path: Path, warnings: list):
        self.path = str(path)
        root = path.resolve()
        names = set()
        root_s = str(root)
        seen_dirs = {root_s}
        # each folder's real path and path below the root, from its parent's: realpath and relpath of every
        # folder cost one step per level each, and a chain 2,000 folders deep took 79 s (the attacker's
        # review, session 10); only a link is resolved again
        known = {root_s: (root_s, "")}
        visited = 0
        for dirpath, dirnames, filenames in safefs_walk(root, followlinks=True):
            real, rel = known.pop(dirpath)  # found through its parent below (the root: from the start)
            visited += 1
            if visited > MAX_CLASS_FOLDER_DIRS:
                # a project's class folder has a folder per package; classpath=/ walked the whole machine
                # (76 s, no word said: the attacker's review, session 10)
                warnings.append((self.path, f"more than {MAX_CLASS_FOLDER_DIRS} folders; rest not indexed"))
                break
            # a folder is claimed when it is found, not when it is listed: N links to one folder listed it
            # N times (N links to "." cost N² entries: the attacker's second review, session 10)
            kept = []
            for d in dirnames:
                sub = os.path.join(dirpath, d)
                r = os.path.realpath(sub) if os.path.islink(sub) else os.path.join(real, d)
                if r in seen_dirs or not is_inside(r, root_s):  # symlink loop, a second way in, or outside
                    continue
                seen_dirs.add(r)
                kept.append(d)
                known[sub] = (r, os.path.join(rel, d) if rel else d)
            dirnames[:] = kept
            if rel.startswith("META-INF"):
                dirnames[:] = []
                continue
            for fn in filenames:
                if fn.endswith(".class"):
                    names.add((rel.replace(os.sep, "/") + "/" if rel else "") + fn[:-6])
            if len(names) > MAX_ZIP_ENTRIES:
                warnings.append((self.path, f"more than {MAX_ZIP_ENTRIES} class files; rest not indexed"))
                break
        self._root = root
        self.names = names

    def read(self, name: str) -> bytes:
        p = self._root / (name + ".class")
        # a class folder comes from the project: a FIFO or device named *.class
        # must not block or fill memory, a link must not lead out of the folder
        try:
            return read_regular(p, MAX_CLASS_BYTES, root=self._root)
        except FileRefused as exc:
            raise _EntryError(exc.strerror) from None


class _JdkSource(_Source):
    origin = "jdk"

    def __init__(self, image: JImage):
        self._image = image
        # The image object is cached per process, so these memos outlive one index.
        self.shared_types = image.__dict__.setdefault("shared_types", {})
        self.shared_names = image.__dict__.setdefault("shared_names", {})
        self.path = str(image.path)
        self.names = image.classes.keys()

    def read(self, name: str) -> bytes:
        return self._image.read(name)

    def location(self, name: str) -> str:
        return "jrt:/" + self._image.module_of(name)

    @property
    def packages(self) -> frozenset[str]:
        """Every package of the image's modules, resource-only ones included."""
        return self._image.packages or super().packages


class _CtSymSource(_JarSource):
    """Fallback JDK source: ``lib/ct.sym`` (``<releases>/<module>/<pkg>/<Cls>.sig`` entries)."""

    origin = "jdk"

    def __init__(self, path: Path, lru=None):
        self.path = str(path)
        best: dict[str, tuple[str, zipfile.ZipInfo, str]] = {}
        with open(path, "rb") as fh, zipfile.ZipFile(fh) as zf:
            self._key = (os.path.realpath(path), signature_of(os.fstat(fh.fileno())))
            infos = zf.infolist()
            if len(infos) > MAX_ZIP_ENTRIES * 2:
                raise _EntryError(f"ct.sym has {len(infos)} entries; not indexed")
            # Release folders are named by the release letters they cover
            # ("9ABCDEFGHIJ", "N", ...); the newest release is the largest letter.
            for info in infos:
                parts = info.filename.split("/")
                if len(parts) < 3 or not info.filename.endswith(".sig") or ".." in parts:
                    continue
                rel, module = parts[0], parts[1]
                name = "/".join(parts[2:])[:-4]
                if name.endswith("module-info"):
                    continue
                key = max(rel)
                cur = best.get(name)
                if cur is None or key > cur[0]:
                    best[name] = (key, info, module)
        self._infos = JarListing.from_infos((n, v[1]) for n, v in best.items())
        self._modules = {n: v[2] for n, v in best.items()}
        self.names = self._infos.names.keys()

    def location(self, name: str) -> str:
        return "jrt:/" + self._modules.get(name, "?")


class _EntryError(Exception):
    pass


class _DiskIndex:
    """The on-disk jar index (callgraph._jarindex) for one
    :meth:`ClasspathIndex.open`: opened at the first jar the per-process memo
    does not hold, written and closed when the index is open (a connection
    never outlives it, so none is carried across a fork). A cache folder
    that is not private, or a file qare will not use, is a warning and no
    disk index; any other failure is silent (the cache is an optimisation only)."""

    FILE = "jar-index.sqlite"

    def __init__(self, warnings: list) -> None:
        self.warnings = warnings
        self.cache = None
        self._tried = False

    def _open(self):
        if not self._tried:
            self._tried = True
            folder = _cache_dir()
            if folder is not None:
                from ._jarindex import CacheRefused, JarIndexCache
                try:
                    self.cache = JarIndexCache(folder / self.FILE, replace_foreign=True)
                except CacheRefused as e:
                    self.warnings.append((e.filename, f"jar class indexes not cached: {e.strerror}"))
                except (OSError, sqlite3.Error):
                    pass
        return self.cache

    def get(self, real: str, sig) -> JarListing | None:
        cache = self._open()
        return None if cache is None else cache.get(real, sig)

    def put(self, real: str, sig, written_ns: int, listing: JarListing) -> None:
        cache = self._open()
        if cache is not None:
            cache.put(real, sig, written_ns, listing)

    def close(self) -> None:
        if self.cache is not None:
            try:
                self.cache.close()
            except (OSError, sqlite3.Error):
                pass
            self.cache = None


class _Owners:
    """Internal class name → the source that has it: the JDK first, then jars in order.

    The JDK's name index is shared between indexes (it is cached per process),
    so it is consulted in place rather than copied.
    """

    def __init__(self) -> None:
        self.jdk: _Source | None = None
        self.jars: dict[str, _Source] = {}

    def add(self, src: _Source) -> None:
        if src.origin == "jdk" and self.jdk is None and not self.jars:
            self.jdk = src
            return
        jars = self.jars
        jdk = self.jdk.names if self.jdk is not None else ()
        for n in src.names:  # in classpath order: the first entry that has a name keeps it
            if n not in jars and n not in jdk:
                jars[n] = src

    def __contains__(self, name: str) -> bool:
        return name in self.jars or (self.jdk is not None and name in self.jdk.names)

    def __getitem__(self, name: str) -> _Source:
        if self.jdk is not None and name in self.jdk.names:
            return self.jdk
        return self.jars[name]

    def __iter__(self):
        if self.jdk is not None:
            yield from self.jdk.names
            yield from (n for n in self.jars if n not in self.jdk.names)
        else:
            yield from self.jars

    def items(self):
        return ((n, self[n]) for n in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _poms_found(zf: zipfile.ZipFile, poms, path: Path, warnings: list) -> list:
    """``(groupId, artifactId, version)`` of each readable META-INF/maven/**/pom.properties."""
    found = []
    for fn, info in poms:
        if info.file_size > MAX_POM_PROPERTIES_BYTES:
            continue
        try:
            with zf.open(info) as fh:
                raw = fh.read(MAX_POM_PROPERTIES_BYTES)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
            warnings.append((str(path), f"{fn}: unreadable ({exc})"))
            continue
        props = _parse_properties(raw.decode("latin-1"))
        g, a, v = props.get("groupId"), props.get("artifactId"), props.get("version")
        if g and a and v:
            found.append((g, a, v))
    return found


def _library_from_found(found, path: Path) -> str | None:
    """``group:artifact:version`` from the jar's pom.properties coordinates.

    One file: use it. Several (shaded jars): the one whose artifactId the jar
    file name starts with; otherwise none (the path layout may still decide).
    """
    if len(found) == 1:
        return ":".join(found[0])
    stem = os.path.basename(path)
    matches = [f for f in found if stem.startswith(f[1] + "-") or stem == f[1] + ".jar"]
    if len(matches) == 1:
        return ":".join(matches[0])
    return None


def _parse_properties(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        m = re.match(r"([^=:\s]+)\s*[=:\s]\s*(.*)", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


_REPO_MARKERS = (("repository",), ("maven-repo",), ("files-2.1",))


def _library_from_path(path: Path) -> str | None:
    """Coordinates from a repository layout.

    Maven: ``<repo>/g/r/o/u/p/artifact/version/artifact-version[-classifier].jar``
    where ``<repo>`` is a folder named ``repository`` (``~/.m2/repository``) or
    ``maven-repo`` (Debian). Gradle: ``files-2.1/group/artifact/version/<sha1>/artifact-version.jar``.
    """
    parts = Path(os.path.abspath(path)).parts
    name = parts[-1]
    if "files-2.1" in parts:
        i = len(parts) - 1 - parts[::-1].index("files-2.1")
        rest = parts[i + 1:]
        if len(rest) == 5 and name.startswith(f"{rest[1]}-{rest[2]}"):
            return f"{rest[0]}:{rest[1]}:{rest[2]}"
        return None
    for marker in ("repository", "maven-repo"):
        if marker in parts:
            i = len(parts) - 1 - parts[::-1].index(marker)
            rest = parts[i + 1:]
            if len(rest) >= 4:
                artifact, version = rest[-3], rest[-2]
                if name.startswith(f"{artifact}-{version}"):
                    return f"{'.'.join(rest[:-3])}:{artifact}:{version}"
    return None


# --------------------------------------------------------------------------- JDK

_JDK_CACHE: dict[tuple, JImage] = {}


def find_jdk(jdk: str | os.PathLike | None = "auto") -> Path | None:
    """The JDK home to read.

    Parameters
    ----------
    jdk : str, path or None
        ``"auto"``: ``$JAVA_HOME`` if set and it has ``lib/modules`` (or
        ``jre/lib/rt.jar``), else the ``java`` on ``PATH`` resolved through
        symlinks to its home; a path: that home; None: no JDK.

    Returns
    -------
    Path or None
    """
    if jdk is None:
        return None
    if jdk != "auto":
        return Path(jdk)
    env = os.environ.get("JAVA_HOME")
    if env and _looks_like_jdk(Path(env)):
        return Path(env)
    exe = shutil.which("java")
    if exe:
        home = Path(os.path.realpath(exe)).parent.parent
        if home.name == "jre" and _looks_like_jdk(home.parent):
            home = home.parent
        if _looks_like_jdk(home):
            return home
    return None


def _looks_like_jdk(home: Path) -> bool:
    return (home / "lib" / "modules").is_file() or (home / "jre" / "lib" / "rt.jar").is_file() \
        or (home / "lib" / "rt.jar").is_file() or (home / "lib" / "ct.sym").is_file()


def cache_dir() -> Path | None:
    """qare's cache folder: ``$QARE_CACHE_DIR``, else ``$XDG_CACHE_HOME/qare``,
    else ``~/.cache/qare``; ``None`` when ``QARE_CACHE_DIR`` is ``""``, ``0`` or ``off``."""
    return _cache_dir()


def _cache_dir() -> Path | None:
    env = os.environ.get("QARE_CACHE_DIR")
    if env is not None:
        return Path(env) if env not in ("", "0", "off") else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qare"


_MAX_JIMAGE_INDEX = 64 << 20  # bytes; a JDK 25 index is ~2 MB
KEEP_JIMAGE_INDEXES = 8  # files; one per JDK image (path, size, mtime) — a few JDKs, not every temporary one


def _prune_jimage_indexes(cache: Path, keep: int = KEEP_JIMAGE_INDEXES) -> int:
    """Delete all but the ``keep`` most recently used ``jimage-index-*.json``
    regular files of ``cache`` (links and other kinds are left alone); returns
    how many were deleted. Each JDK image ever opened (a test's temporary JDK,
    an upgraded JDK) has its own file, so without a bound they pile up."""
    files = []
    try:
        with os.scandir(cache) as it:
            for e in it:
                if e.name.startswith("jimage-index-") and e.name.endswith(".json") \
                        and e.is_file(follow_symlinks=False):
                    try:
                        files.append((e.stat(follow_symlinks=False).st_mtime_ns, e.name))
                    except OSError:
                        pass
    except OSError:
        return 0
    gone = 0
    for _, name in sorted(files, reverse=True)[keep:]:
        try:
            os.unlink(cache / name)
            gone += 1
        except OSError:
            pass
    return gone


def _open_jimage(modules: Path, warnings: list | None = None) -> JImage:
    """Open a JDK image once per process; the class index is cached on disk keyed by size and mtime
    (at most :data:`KEEP_JIMAGE_INDEXES` such files, least recently used deleted first).

    The index file ``<cache>/jimage-index-<tag>.json`` is read and written only
    while the cache folder passes :func:`safefs.check_private` (anyone who may
    write there could plant a wrong index or a link at the name); otherwise the
    index is built in memory, not written, and ``warnings`` gets ``(folder, why)``.
    The write is atomic and exclusive, mode 0600 (:func:`safefs.write_private`)."""
    from .safefs import FolderNotPrivate, check_private, make_private_dirs, read_regular, write_private

    st = modules.stat()
    key = [str(modules.resolve()), st.st_size, st.st_mtime_ns]
    hit = _JDK_CACHE.get(tuple(key))
    if hit is not None:
        return hit
    index = None
    cache = _cache_dir()
    cache_file = None
    if cache is not None:
        try:
            check_private(cache)
        except FolderNotPrivate as e:
            if warnings is not None:
                warnings.append((e.filename, f"JDK class index not cached: the cache folder is {e.strerror}; "
                                 "make it private to you (chmod 700) to cache it"))
            cache = None
    if cache is not None:
        import hashlib
        tag = hashlib.sha1(repr(key).encode()).hexdigest()[:16]
        cache_file = cache / f"jimage-index-{tag}.json"
        try:  # regular files only, bounded: a planted FIFO or /dev/zero link is a miss, not a hang
            raw = json.loads(read_regular(cache_file, _MAX_JIMAGE_INDEX).decode("utf-8"))
            if isinstance(raw, dict) and raw.get("key") == key and raw.get("format") == 2:
                index = raw.get("index")
                try:  # last use, for the bound on these files
                    os.utime(cache_file, follow_symlinks=False)
                except OSError:
                    pass
        except (OSError, ValueError, RecursionError):  # json recurses per nesting level: a deep file is a miss
            index = None
    image = JImage(modules, index=index)
    if index is None and cache_file is not None:
        try:
            payload = {"key": key, "format": 2, "index": image.index_data()}
            make_private_dirs(cache, cache)
            write_private(cache_file, json.dumps(payload, separators=(",", ":")).encode("utf-8"))
            _prune_jimage_indexes(cache)
        except OSError:
            pass  # the cache is an optimisation only
    _JDK_CACHE[tuple(key)] = image
    return image


def _open_jdk(home: Path, warnings: list, lru=None) -> _Source | None:
    modules = home / "lib" / "modules"
    if modules.is_file():
        try:
            image = _open_jimage(modules, warnings)
            if image.compressed_count:
                warnings.append((str(modules), f"{image.compressed_count} class resources are compressed; "
                                 "'zip' ones are inflated, others reported on lookup"))
            return _JdkSource(image)
        except (JImageError, OSError) as exc:
            warnings.append((str(modules), f"cannot read jimage ({exc}); trying lib/ct.sym"))
    for rt in (home / "jre" / "lib" / "rt.jar", home / "lib" / "rt.jar"):
        if rt.is_file():
            try:
                src = _JarSource(rt, warnings, lru)
                src.origin = "jdk"
                src.library = None
                return src
            except (zipfile.BadZipFile, OSError, _EntryError) as exc:
                warnings.append((str(rt), f"cannot read JDK 8 rt.jar ({exc})"))
    ctsym = home / "lib" / "ct.sym"
    if ctsym.is_file():
        try:
            src = _CtSymSource(ctsym, lru)
            warnings.append((str(ctsym), "JDK types read from ct.sym (javac's API signatures, newest release it holds) "
                             "instead of lib/modules; JDK packages = exported API packages only"))
            return src
        except (zipfile.BadZipFile, OSError, _EntryError) as exc:
            warnings.append((str(ctsym), f"cannot read ct.sym ({exc})"))
    warnings.append((str(home), "no readable JDK class data (lib/modules, rt.jar, ct.sym); JDK types unknown"))
    return None


# --------------------------------------------------------------------------- the index

class ClasspathIndex:
    """Library types of a classpath (jars, class folders) and the JDK.

    Build with :meth:`open`. Entries are searched JDK first, then in classpath
    order; the first entry that has a class wins (as on the JVM's class path).

    Attributes
    ----------
    jdk_packages : frozenset[str]
        Packages (dotted) of every module in the JDK image, exported or not.
    jdk_home : Path or None
        The JDK whose classes are indexed.
    warnings : list[tuple[str, str]]
        ``(path, reason)`` for every problem met: corrupt jar, bad class file,
        unsafe zip entry, unreadable JDK image.
    """

    def __init__(self) -> None:
        self.warnings: list[tuple[str, str]] = []
        self.jdk_packages: frozenset[str] = frozenset()
        self.jdk_home: Path | None = None
        self._sources: list[_Source] = []
        self._owner = _Owners()
        self._cache: dict[str, Solved | Unsolved] = {}
        self._src_name_cache: dict[str, str] = {}
        self._pkg_types: dict[str, list[str]] | None = None

    @classmethod
    def open(cls, entries: Iterable[str | os.PathLike] = (), *, jdk: str | os.PathLike | None = "auto") -> "ClasspathIndex":
        """Index jars, class folders and the JDK.

        Parameters
        ----------
        entries : iterable of str or Path
            Jar files and class folders, in classpath order. Missing or corrupt
            entries are recorded in ``warnings`` and skipped.
        jdk : str, path or None
            A JDK home, ``"auto"`` (see :func:`find_jdk`) or None for no JDK.

        Returns
        -------
        ClasspathIndex
            Never raises for bad entries.
        """
        self = cls()
        home = find_jdk(jdk)
        if home is None and jdk is not None:
            self.warnings.append((str(jdk), "no JDK found (JAVA_HOME, java on PATH); JDK types and packages unknown"))
        if home is not None:
            self.jdk_home = home
            src = _open_jdk(home, self.warnings)
            if src is not None:
                self._add(src)
                self.jdk_packages = src.packages
        disk = _DiskIndex(self.warnings)
        try:
            for entry in entries:
                p = Path(entry)
                try:
                    if p.is_dir():
                        self._add(_DirSource(p, self.warnings))
                    elif p.is_file():
                        self._add(_JarSource(p, self.warnings, disk=disk))
                    else:
                        self.warnings.append((str(p), _not_an_entry(p)))
                # NotImplementedError: zipfile's unsupported zip version or compression.
                except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                        NotImplementedError, _EntryError) as exc:
                    self.warnings.append((str(p), f"unreadable classpath entry: {type(exc).__name__}: {exc}"))
        finally:
            disk.close()
        return self

    def _add(self, src: _Source) -> None:
        self._sources.append(src)
        self._owner.add(src)

    def close(self) -> None:
        """Nothing to release: the jars read from are held open per process
        (bounded, shared by every index; :func:`close_jars` closes them)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---------------------------------------------------------------- name mapping

    def _candidates(self, fqn: str) -> Iterable[str]:
        """Internal names a source FQN may denote: top-level first, then ever deeper nesting."""
        parts = fqn.split(".")
        for k in range(len(parts) - 1, 0, -1):
            yield "/".join(parts[:k]) + "/" + "$".join(parts[k:])
        if len(parts) == 1:
            yield fqn

    def _internal(self, fqn: str) -> str | None:
        owner = self._owner
        if "/" in fqn:
            return fqn if fqn in owner else None
        for c in self._candidates(fqn):
            if c in owner:
                return c
        return None

    def has_type(self, fqn: str) -> bool:
        """Whether some entry has a class file for this source FQN (no parsing)."""
        return self._internal(fqn) is not None

    def types_in_package(self, pkg: str) -> list[str]:
        """Sorted source FQNs of the top-level types of a package (for on-demand imports).

        Names with ``$`` are taken as nested when the part before the last
        ``$`` is itself a class on the classpath (the class files are not parsed here).
        """
        if self._pkg_types is None:
            by_pkg: dict[str, list[str]] = collections.defaultdict(list)
            owner = self._owner
            for n in owner:
                if n.endswith("package-info") or n.endswith("module-info"):
                    continue
                p, _, simple = n.rpartition("/")
                if "$" in simple:
                    head = n[: n.rindex("$")]
                    if head in owner or not simple.rpartition("$")[2] or simple.startswith("$"):
                        continue
                by_pkg[p.replace("/", ".")].append(n.replace("/", "."))
            self._pkg_types = {k: sorted(v) for k, v in by_pkg.items()}
        return list(self._pkg_types.get(pkg, ()))

    def is_jdk_package(self, pkg: str) -> bool:
        """Whether ``pkg`` (dotted) is a package of the JDK image's modules."""
        return pkg in self.jdk_packages

    def _source_name(self, internal: str, inner: dict[str, cf.InnerClass], known=None, cache=None) -> str:
        """Source form of an internal class name referenced from a class with these InnerClasses.

        ``known``/``cache``: the class names consulted for names InnerClasses does
        not list, and the memo for them (default: the whole index's).
        """
        ic = inner.get(internal)
        if ic is not None and ic.outer is not None and ic.simple_name:
            return self._source_name(ic.outer, inner, known, cache) + "." + ic.simple_name
        if "$" not in internal:
            return internal.replace("/", ".")
        if known is None:
            known, cache = self._owner, self._src_name_cache
        hit = cache.get(internal)
        if hit is not None:
            return hit
        # Not listed in InnerClasses: decide from the classpath — nested when
        # the part before the last '$' is a class we know and the rest is an identifier.
        head, _, tail = internal.rpartition("$")
        if head and tail and not tail[0].isdigit() and _IDENT.match(tail) and head in known:
            out = self._source_name(head, inner, known, cache) + "." + tail
        else:
            out = internal.replace("/", ".")
        cache[internal] = out
        return out

    # ---------------------------------------------------------------- lookup

    def lookup(self, fqn: str) -> TypeSig | None:
        """The type's signature, or None (reason via :meth:`lookup_result`)."""
        r = self.lookup_result(fqn)
        return r.type if isinstance(r, Solved) else None

    def lookup_result(self, fqn: str) -> Solved | Unsolved:
        """``Solved(TypeSig)`` or ``Unsolved(fqn, reason)``; never raises.

        Parameters
        ----------
        fqn : str
            Source FQN (``java.util.Map.Entry``); a binary name with ``$`` or an
            internal name with ``/`` is accepted too.
        """
        hit = self._cache.get(fqn)
        if hit is not None:
            return hit
        try:
            res = self._lookup(fqn)
        except Exception as exc:  # the contract: never an exception out of lookup
            res = Unsolved(fqn, UnsolvedReason.INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")
        self._cache[fqn] = res
        return res

    def _lookup(self, fqn: str) -> Solved | Unsolved:
        internal = self._internal(fqn)
        if internal is None:
            return Unsolved(fqn, UnsolvedReason.NOT_ON_CLASSPATH)
        src = self._owner[internal]
        shared = src.shared_types
        if shared is not None:
            hit = shared.get(internal)
            if hit is not None:
                return hit if isinstance(hit, Solved) or hit.name == fqn else Unsolved(fqn, hit.reason, hit.detail)
        raw = self._raw(internal, fqn)
        if isinstance(raw, Unsolved):
            return raw  # read/parse errors are not shared: each index records its warning
        res = self._to_typesig(raw, src, fqn)
        if shared is not None:
            shared[internal] = res
        return res

    def _raw(self, internal: str, fqn: str) -> cf.RawClass | Unsolved:
        src = self._owner[internal]
        try:
            data = src.read(internal)
        # NotImplementedError: zipfile's unsupported compression method.
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, KeyError, JImageError,
                _EntryError, RuntimeError, NotImplementedError) as exc:
            reason = f"cannot read {internal}.class: {type(exc).__name__}: {exc}"
            self.warnings.append((src.path, reason))
            return Unsolved(fqn, UnsolvedReason.UNREADABLE, reason)
        try:
            raw = cf.parse_class(data)
        except cf.ClassFormatError as exc:
            reason = f"bad class file {internal}.class: {exc}"
            self.warnings.append((src.path, reason))
            return Unsolved(fqn, UnsolvedReason.MALFORMED, reason)
        if raw.name != internal:
            reason = f"{internal}.class declares {raw.name}"
            self.warnings.append((src.path, reason))
            return Unsolved(fqn, UnsolvedReason.WRONG_NAME, reason)
        return raw

    def _to_typesig(self, raw: cf.RawClass, src: _Source, fqn: str) -> Solved | Unsolved:
        if raw.access & cf.ACC_MODULE or raw.name.endswith("/module-info"):
            return Unsolved(fqn, UnsolvedReason.MODULE_INFO)
        if raw.name.endswith("/package-info") or raw.name == "package-info":
            return Unsolved(fqn, UnsolvedReason.PACKAGE_INFO)
        inner = {ic.inner: ic for ic in raw.inner_classes}
        own = inner.get(raw.name)
        if own is not None and (own.outer is None or not own.simple_name):
            return Unsolved(fqn, UnsolvedReason.LOCAL_OR_ANONYMOUS)
        if raw.access & cf.ACC_SYNTHETIC:
            return Unsolved(fqn, UnsolvedReason.SYNTHETIC)
        if src.shared_types is not None:
            # A JDK type is converted against the JDK's names only, so the
            # result does not depend on the jars and can be shared across indexes.
            known, memo = src.names, src.shared_names

            def name_of(n, inner, _k=known, _m=memo):
                return self._source_name(n, inner, _k, _m)
        else:
            name_of = self._source_name
        this_fqn = name_of(raw.name, inner)

        if raw.access & cf.ACC_ANNOTATION:
            kind = "annotation"
        elif raw.access & cf.ACC_INTERFACE:
            kind = "interface"
        elif raw.access & cf.ACC_ENUM:
            kind = "enum"
        elif raw.is_record or raw.superclass == "java/lang/Record":
            kind = "record"
        else:
            kind = "class"
        inner_instance = (own is not None and kind == "class" and not own.access & cf.ACC_STATIC)

        methods = []
        # one class file repeats its descriptors (overloads, getters/setters,
        # fields of one type) and names resolve against this file's own inner
        # classes: each distinct descriptor is parsed once per class file
        member_name_of = lambda n: name_of(n, inner)  # noqa: E731
        descs: dict = {}
        for m in raw.methods:
            if m.access & (cf.ACC_SYNTHETIC | cf.ACC_BRIDGE) or m.synthetic_attr or m.name == "<clinit>":
                continue
            parsed = descs.get(m.descriptor)
            if parsed is None:
                parsed = descs[m.descriptor] = _parse_method_descriptor(m.descriptor, member_name_of)
            params, ret = list(parsed[0]), parsed[1]
            varargs = bool(m.access & cf.ACC_VARARGS) and bool(params) and params[-1].endswith("[]")
            if varargs:
                params[-1] = params[-1][:-2] + "..."
            if m.name == "<init>":
                if inner_instance and params and own is not None and own.outer is not None \
                        and params[0] == name_of(own.outer, inner):
                    del params[0]
                elif kind == "enum" and params[:2] == ["java.lang.String", "int"]:
                    del params[:2]
            methods.append(MethodSig(
                name=m.name, params=tuple(params), returns=ret,
                static=bool(m.access & cf.ACC_STATIC), varargs=varargs,
                abstract=bool(m.access & cf.ACC_ABSTRACT), access=_access(m.access),
                generic_returns=_generic_return(m.signature), signature=m.signature))
        fields = []
        for f in raw.fields:
            if f.access & cf.ACC_SYNTHETIC or f.synthetic_attr:
                continue
            t = descs.get(f.descriptor)
            if t is None:
                t = descs[f.descriptor] = _parse_field_type(f.descriptor, member_name_of)
            fields.append(FieldSig(f.name, t, bool(f.access & cf.ACC_STATIC), f.signature))
        nested = tuple(name_of(ic.inner, inner) for ic in raw.inner_classes
                       if ic.outer == raw.name and ic.simple_name and not ic.access & cf.ACC_SYNTHETIC)
        superclass = None if raw.superclass is None else name_of(raw.superclass, inner)
        if kind in ("interface", "annotation") and superclass == "java.lang.Object":
            superclass = None
        return Solved(TypeSig(
            fqn=this_fqn, kind=kind, superclass=superclass,
            interfaces=tuple(name_of(i, inner) for i in raw.interfaces),
            methods=tuple(methods), fields=tuple(fields), nested=nested,
            type_params=_type_params(raw.signature),
            origin=src.origin, library=src.library, location=src.location(raw.name),
            signature=raw.signature))


# --------------------------------------------------------------------------- descriptors

def _access(flags: int) -> str:
    if flags & cf.ACC_PUBLIC:
        return "public"
    if flags & cf.ACC_PROTECTED:
        return "protected"
    if flags & cf.ACC_PRIVATE:
        return "private"
    return "package"


def _type_text(t) -> str:
    """A descriptor's parsed type as the index writes it: ``int``, ``java.lang.String[]``."""
    dims = 0
    while isinstance(t, _JArray):
        dims, t = dims + 1, t.elem
    return t.name + "[]" * dims


def _parse_field_type(d: str, name_of) -> str:
    """A field descriptor (``_types``' one JVM type grammar) as source text."""
    try:
        return _type_text(_types.parse_field_descriptor(d, name_of))
    except _types.SignatureError:
        raise cf.ClassFormatError(f"bad field descriptor {d!r}") from None


def _parse_method_descriptor(d: str, name_of) -> tuple[list[str], str]:
    """A method descriptor's parameter and return types as source text."""
    try:
        ms = _types.parse_method_descriptor(d, name_of)
    except _types.SignatureError:
        raise cf.ClassFormatError(f"bad method descriptor {d!r}") from None
    return [_type_text(x) for x in ms.params], _type_text(ms.returns)


def _generic_return(sig: str | None) -> str | None:
    """The return type's text of a method Signature (its throws part cut);
    ``)`` occurs once in a method signature, after the parameters."""
    if not sig:
        return None
    close = sig.find(")")
    if close < 0:
        return None
    ret = sig[close + 1:]
    return ret.split("^", 1)[0] or None


def _type_params(sig: str | None) -> tuple[str, ...]:
    """Names of the formal type parameters of a class Signature (JVMS §4.7.9.1);
    () when there are none or the signature is malformed."""
    if not sig or not sig.startswith("<"):
        return ()
    try:
        return tuple(tp.name for tp in _types.parse_class_signature(sig).type_params)
    except _types.SignatureError:
        return ()


# --------------------------------------------------------------------------- classification

def is_third_party(fqn_or_package: str, index: ClasspathIndex) -> bool:
    """Whether a type or package is outside the JDK.

    A dotted name is JDK when it, or a prefix of it ending at a ``.``, is one of
    ``index.jdk_packages`` (so ``java.util.Map.Entry`` → JDK via ``java.util``;
    ``javax.servlet.http.HttpServlet`` and ``jakarta.persistence.Entity`` →
    third-party, ``javax.xml.parsers.DocumentBuilder`` → JDK). The caller
    excludes the project's own types first. With no JDK indexed everything is
    third-party (see ``index.warnings``).
    """
    name = fqn_or_package
    pk = index.jdk_packages
    while name:
        if name in pk:
            return False
        name = name.rpartition(".")[0]
    return True


from ._maven import (  # noqa: E402  (re-exported: the contract names them in this module)
    ClasspathReport,
    discover_classpath,
    discover_classpath_report,
    maven_build_classpath,
)
from ._mvn import Failure, Reason  # noqa: E402
from ._mvn_resolve import Artifact, ResolvedClasspath, default_repo_local, resolve_classpath  # noqa: E402
from ._mvn_resolve import Method as ResolutionMethod  # noqa: E402
from ._artifacts import DocFetch, DocJar, fetch_doc_jars  # noqa: E402


def with_resolved(root, classpath, *, offline: bool = False, repo_local=None, progress: bool = False):
    """``(jars, resolution)``: ``classpath`` followed by the libraries
    :func:`resolve_classpath` finds for the project at ``root`` that are not
    already in it (compared by real path; explicit entries come first, so they win)."""
    resolution = resolve_classpath(root, offline=offline, repo_local=repo_local, progress=progress)
    out = list(classpath)
    seen = {os.path.realpath(p) for p in out}
    for jar in resolution.jars:
        real = os.path.realpath(jar)
        if real not in seen:
            seen.add(real)
            out.append(jar)
    return out, resolution


def _not_an_entry(p: Path) -> str:
    """Why a classpath path that is neither a folder nor a file is skipped: a
    FIFO or a device was "does not exist" before session 10 (the attacker's
    review), a link loop too."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return "classpath entry does not exist"
    except OSError as e:
        return f"unreadable classpath entry: {e.strerror or e}"
    from .safefs import file_kind

    return f"not a jar, zip or class folder ({file_kind(st.st_mode)})"
