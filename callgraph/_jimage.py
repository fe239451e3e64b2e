"""Reader for the JDK's ``lib/modules`` file (the jimage container format).

Layout, from OpenJDK's ``jdk.internal.jimage`` (``ImageHeader``,
``ImageLocation``, ``BasicImageReader``, ``ImageStringsReader``,
``CompressedResourceHeader``):

- header, 7 native-endian u4: magic 0xCAFEDADA, version (major << 16 | minor),
  flags, resource count, table length, locations size, strings size;
- redirect table (table length × s4) and offsets table (table length × u4),
  both used by the perfect hash; we read the offsets table only, because we
  index every location up front;
- the location attribute stream: bytes ``kind << 3 | (len - 1)`` followed by a
  big-endian value of ``len`` bytes, ended by kind 0; kinds 1–4 are string
  offsets (module, parent, base, extension), 5 the resource offset (relative to
  the end of the index), 6 the compressed size (0 = stored), 7 the size;
- the strings table (NUL-terminated modified UTF-8);
- resources. A compressed resource starts with a 29-byte header (magic
  0xCAFEFAFA, u8 compressed size, u8 uncompressed size, u4 decompressor name
  offset, u4 decompressor-config offset, u1 terminal flag) and may be
  compressed several times over. ``zip`` (zlib) is decoded here; ``compact-cp``
  (jlink's string sharing) is not, and is reported by name.
"""

from __future__ import annotations

import array
import mmap
import os
import re
import struct
import sys
import zlib
from typing import NamedTuple
from pathlib import Path

__all__ = ["JImage", "JImageError", "JImageEntry"]

_MAGIC = 0xCAFEDADA
_COMPRESSED_MAGIC = 0xCAFEFAFA
_HEADER = 28
_COMP_HEADER = 29
_PACKAGE = re.compile(r"(?:[^\W\d][\w$]*)(?:\.[^\W\d][\w$]*)*\Z")
_MAX_RESOURCE = 256 * 1024 * 1024  # refuse absurd sizes from a damaged image


class JImageError(Exception):
    """The file is not a readable jimage, or a resource cannot be decoded."""


class JImageEntry(NamedTuple):
    """Where a class's bytes are: module, offset (from the end of the index), sizes."""

    module: str
    offset: int
    compressed: int
    size: int


class JImage:
    """An opened ``lib/modules`` with an index of its ``.class`` resources.

    Parameters
    ----------
    path : str or Path
        The ``lib/modules`` file.

    Attributes
    ----------
    classes : dict[str, int]
        Internal class name (``java/lang/String``) → row; module-info is left
        out. :meth:`entry` gives the location, :meth:`module_of` the module.
    packages : frozenset[str]
        Every package (dotted) of every module in the image, from its
        ``/packages`` entries (so resource-only packages count too).
    compressed_count : int
        How many class resources are stored compressed.

    Raises
    ------
    JImageError
        Bad magic, unsupported major version or a truncated index.
    """

    def __init__(self, path: str | os.PathLike, *, index: dict | None = None):
        self.path = Path(path)
        try:
            self._file = open(self.path, "rb")
            self._mm = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise JImageError(f"cannot open {self.path}: {exc}") from None
        mm = self._mm
        if len(mm) < _HEADER:
            raise JImageError(f"{self.path}: truncated header")
        endian = "<"
        magic = struct.unpack_from("<I", mm, 0)[0]
        if magic != _MAGIC:
            if struct.unpack_from(">I", mm, 0)[0] == _MAGIC:
                endian = ">"  # an image written on a big-endian machine
            else:
                raise JImageError(f"{self.path}: bad magic 0x{magic:08X} (expected 0xCAFEDADA)")
        (_, version, _flags, self.resource_count, table_len, loc_size,
         str_size) = struct.unpack_from(endian + "7I", mm, 0)
        if version >> 16 != 1:
            raise JImageError(f"{self.path}: unsupported jimage version {version >> 16}.{version & 0xFFFF}")
        self._endian = endian
        offsets_at = _HEADER + 4 * table_len
        self._locs_at = offsets_at + 4 * table_len
        self._strs_at = self._locs_at + loc_size
        self._index_size = self._strs_at + str_size
        if self._index_size > len(mm):
            raise JImageError(f"{self.path}: truncated index")
        self._table_len = table_len
        self._offsets_at = offsets_at
        self._str_size = str_size
        self._rows: tuple = ()
        if index is not None:
            try:
                self._load_index(index)
            except (KeyError, TypeError, ValueError, IndexError, OverflowError):
                index = None  # a stale or damaged cache: rebuild
        if index is None:
            self._build_index()
        self.compressed_count = sum(1 for c in self._rows[1] if c)

    def _load_index(self, data: dict) -> None:
        names = data["names"]
        modules = list(data["modules"])
        cols = (array.array("H", data["module"]), array.array("q", data["offset"]),
                array.array("q", data["compressed"]), array.array("q", data["size"]))
        if not all(len(c) == len(names) for c in cols) or max(cols[0], default=0) >= len(modules) \
                or not all(isinstance(n, str) for n in names):
            raise ValueError("inconsistent index")
        self.modules = modules
        self._rows = cols[1:] + (cols[0],)
        self.names = names
        self.classes: dict[str, int] = dict(zip(names, range(len(names))))
        self.packages = frozenset(data["packages"])

    def index_data(self) -> dict:
        """The class index as JSON-ready lists (for an on-disk cache; reload with ``JImage(path, index=...)``)."""
        off, comp, size, mod = self._rows
        return {"names": self.names, "modules": self.modules, "module": list(mod), "offset": list(off),
                "compressed": list(comp), "size": list(size), "packages": sorted(self.packages)}

    def entry(self, name: str) -> JImageEntry:
        """Location of an internal class name (``java/lang/String``); KeyError when absent."""
        i = self.classes[name]
        off, comp, size, mod = self._rows
        return JImageEntry(self.modules[mod[i]], off[i], comp[i], size[i])

    def module_of(self, name: str) -> str:
        """The module holding an internal class name; KeyError when absent."""
        return self.modules[self._rows[3][self.classes[name]]]

    def _string(self, off: int, cache: dict) -> str:
        s = cache.get(off)
        if s is None:
            start = self._strs_at + off
            end = self._mm.find(b"\0", start, self._strs_at + self._str_size)
            if end < 0:
                raise JImageError(f"{self.path}: unterminated string at {off}")
            s = self._mm[start:end].decode("utf-8", "surrogateescape")
            cache[off] = s
        return s

    def _build_index(self) -> None:
        mm = self._mm
        offsets = array.array("I")
        offsets.frombytes(mm[self._offsets_at:self._offsets_at + 4 * self._table_len])
        if (self._endian == "<") != (sys.byteorder == "little"):
            offsets.byteswap()
        locs = mm[self._locs_at:self._strs_at]
        cache: dict[int, str] = {}
        names: list[str] = []
        mods: list[int] = []
        offs: list[int] = []
        comps: list[int] = []
        sizes: list[int] = []
        mod_index: dict[str, int] = {}
        ext_class = None
        packages: set[str] = set()
        packages_off = self._mm.find(b"\0packages\0", self._strs_at, self._strs_at + self._str_size)
        packages_off = packages_off + 1 - self._strs_at if packages_off >= 0 else 0
        for o in offsets:
            attrs = [0, 0, 0, 0, 0, 0, 0, 0]
            i = o
            try:
                while True:
                    b = locs[i]
                    kind = b >> 3
                    if kind == 0:
                        break
                    ln = (b & 7) + 1
                    if kind < 8:
                        attrs[kind] = int.from_bytes(locs[i + 1:i + 1 + ln], "big")
                    i += 1 + ln
            except IndexError:
                raise JImageError(f"{self.path}: truncated location at {o}") from None
            # Only class resources matter; compare the extension string offset
            # once it is known to be "class" to skip string decoding.
            ext = attrs[4]
            if ext == 0 and attrs[1] == packages_off and packages_off:
                pkg = self._string(attrs[3], cache)
                # Resource folders such as "java/awt/doc-files" are listed too;
                # a package name is a sequence of Java identifiers.
                if _PACKAGE.match(pkg) and self._package_has_content(attrs[5], attrs[7]):
                    packages.add(pkg)
                continue
            if ext_class is None:
                if self._string(ext, cache) != "class":
                    continue
                ext_class = ext
            elif ext != ext_class:
                if ext == 0 or self._string(ext, cache) != "class":
                    continue
                ext_class = ext
            module = self._string(attrs[1], cache)
            if module in ("modules", "packages") or not module:
                continue
            parent = self._string(attrs[2], cache)
            base = self._string(attrs[3], cache)
            if base == "module-info" and not parent:
                continue
            names.append(f"{parent}/{base}" if parent else base)
            mi = mod_index.get(module)
            if mi is None:
                mi = mod_index[module] = len(mod_index)
            mods.append(mi)
            offs.append(attrs[5])
            comps.append(attrs[6])
            sizes.append(attrs[7])
        self.names = names
        self.modules = list(mod_index)
        self._rows = (array.array("q", offs), array.array("q", comps), array.array("q", sizes),
                      array.array("H", mods))
        self.classes = dict(zip(names, range(len(names))))
        # The /packages/<name> directory entries list every package of every
        # module, including packages holding resources only.
        self.packages = frozenset(packages) or frozenset(
            n.rpartition("/")[0].replace("/", ".") for n in names if "/" in n)

    def _package_has_content(self, offset: int, size: int) -> bool:
        """A ``/packages/<p>`` resource is (u4 is_empty, u4 module-name offset) per module."""
        start = self._index_size + offset
        if size % 8 or start + size > len(self._mm):
            raise JImageError(f"{self.path}: bad /packages entry at {offset}")
        for k in range(0, size, 8):
            if struct.unpack_from(self._endian + "I", self._mm, start + k)[0] == 0:
                return True
        return False

    def read(self, entry: JImageEntry | str) -> bytes:
        """Return a resource's bytes (by entry or internal class name), decompressing ``zip`` layers.

        Raises
        ------
        JImageError
            Out-of-range offsets, or a decompressor other than ``zip``.
        """
        if isinstance(entry, str):
            entry = self.entry(entry)
        start = self._index_size + entry.offset
        stored = entry.compressed or entry.size
        if stored > _MAX_RESOURCE or start + stored > len(self._mm):
            raise JImageError(f"{self.path}: resource out of range (offset {entry.offset}, {stored} bytes)")
        data = self._mm[start:start + stored]
        if not entry.compressed:
            return data
        cache: dict[int, str] = {}
        for _ in range(8):  # a resource may be compressed by several plugins in turn
            if len(data) < _COMP_HEADER or struct.unpack_from(self._endian + "I", data, 0)[0] != _COMPRESSED_MAGIC:
                return data
            _, csize, usize, name_off, _cfg, _terminal = struct.unpack_from(self._endian + "IQQIIB", data, 0)
            plugin = self._string(name_off, cache)
            body = data[_COMP_HEADER:_COMP_HEADER + csize]
            if usize > _MAX_RESOURCE:
                raise JImageError(f"{self.path}: declared uncompressed size {usize} too large")
            if plugin != "zip":
                raise JImageError(f"resource compressed with jlink's {plugin!r} plugin (unsupported; only 'zip')")
            try:
                d = zlib.decompressobj()
                data = d.decompress(body, usize + 1)
            except zlib.error as exc:
                raise JImageError(f"{self.path}: zip resource does not inflate: {exc}") from None
            if len(data) != usize:
                raise JImageError(f"{self.path}: inflated {len(data)} bytes, header says {usize}")
        raise JImageError(f"{self.path}: too many compression layers")

    def close(self) -> None:
        """Release the memory map and file handle."""
        try:
            self._mm.close()
        finally:
            self._file.close()
