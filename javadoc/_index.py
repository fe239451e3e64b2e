"""DocIndex: lookup of member and type documentation over several inputs."""

from __future__ import annotations

import os
from collections import OrderedDict, defaultdict

from ._archive import ZipLimits, open_container
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout
from ._site import find_root, read_container
from ._sources import read_source_container


def _kind_of(container) -> str | None:
    names = container.names()
    if find_root(names) is not None:
        return "site"
    if any(n.endswith(".java") for n in names):
        return "sources"
    return None


def read_any(path: str, *, limits: ZipLimits | None = None, workers: int | None = None) -> DocSet:
    """Read ``path`` as a javadoc site if it is one, else as Java sources.

    Raises ``JavadocError`` (naming the file) when it is neither."""
    container = open_container(path, limits)
    try:
        kind = _kind_of(container)
        if kind == "site":
            return read_container(container, workers=workers)
        if kind == "sources":
            return read_source_container(container)
        what = "folder" if os.path.isdir(path) else "archive"
        raise JavadocError(f"{path}: {what} is neither a javadoc site (no element-list, "
                           "package-list or allclasses page) nor Java sources (no .java files)")
    finally:
        container.close()


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 16
_CACHE_MEMBERS = 400_000  # members held at most beyond the newest archive: memory stays bounded


def _read_cached(path: str, limits: ZipLimits | None, workers: int | None, store=None) -> DocSet:
    """``read_any`` with a small in-process LRU cache of archives, keyed by
    path, size and modification time (``qare build`` opens the same
    library jars for many projects), and below it the on-disk ``store``
    (:class:`~javadoc._store.DocSetStore`, keyed by content digest) when
    given. Folders are not cached (a changed file inside does not change the
    folder's stamp)."""
    if not os.path.isfile(path):
        return read_any(path, limits=limits, workers=workers)
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, limits)
    ds = _CACHE.get(key)
    if ds is None:
        ds = _read_stored(path, limits or ZipLimits(), workers, store) if store is not None \
            else read_any(path, limits=limits, workers=workers)
        _CACHE[key] = ds
        held = sum(len(d.members) for d in _CACHE.values())
        while len(_CACHE) > 1 and (len(_CACHE) > _CACHE_SIZE or held > _CACHE_MEMBERS):
            held -= len(_CACHE.popitem(last=False)[1].members)
    else:
        _CACHE.move_to_end(key)
    return ds


def _read_stored(path: str, limits: ZipLimits, workers: int | None, store) -> DocSet:
    try:
        skey = store.key(path, limits)
    except OSError:  # unreadable: read_any names the problem
        return read_any(path, limits=limits, workers=workers)
    ds = store.load(path, limits, skey)
    if ds is None:
        ds = read_any(path, limits=limits, workers=workers)
        store.save(path, limits, ds, skey)
    return ds


def _alt_varargs(method_id: str) -> str | None:
    if method_id.endswith("...)"):
        return method_id[:-4] + "[])"
    if method_id.endswith("[])"):
        return method_id[:-3] + "...)"
    return None


class DocIndex:
    """Documentation of members and types from javadoc sites and sources.

    When several inputs document the same id, a javadoc site wins over
    sources; among inputs of the same kind the one given first wins.

    Examples
    --------
    >>> index = DocIndex.open("commons-lang3-javadoc.jar")            # doctest: +SKIP
    >>> index.get("org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)")  # doctest: +SKIP
    """

    def __init__(self, docsets: list[DocSet], warnings: list | None = None):
        self.docsets: tuple[DocSet, ...] = tuple(docsets)
        self._members: dict[str, ApiDoc | tuple] = {}  # id -> record, or where a stored one is made from
        self._classes: dict[str, ClassDoc] = {}
        self._by_name: dict[str, list[str]] = defaultdict(list)
        self.warnings: list[tuple[str, str]] = list(warnings or [])
        ordered = sorted(self.docsets, key=lambda d: d.layout is SiteLayout.SOURCES)
        for ds in ordered:
            self.warnings.extend(ds.warnings)
            for c in ds.classes:
                self._classes.setdefault(c.fqn, c)
            id_api = getattr(ds.members, "id_api", None)
            if id_api is not None:  # from the store: each record made when first looked up
                for i, (mid, api) in enumerate(id_api()):
                    if mid not in self._members:
                        self._members[mid] = (ds.members, i)
                        self._by_name[api].append(mid)
                continue
            for m in ds.members:
                if m.id not in self._members:
                    self._members[m.id] = m
                    self._by_name[m.api].append(m.id)

    def _made(self, method_id: str, m) -> ApiDoc:
        if type(m) is tuple:  # (StoredMembers, position): make the record once
            m = m[0][m[1]]
            self._members[method_id] = m
        return m

    @classmethod
    def open(cls, *paths: str, limits: ZipLimits | None = None,
             workers: int | None = None, cache: bool = True, store=None) -> DocIndex:
        """Read every path (javadoc jar, zip of a site, site folder,
        ``*-sources.jar``, source folder).

        A path that cannot be read is recorded in :attr:`warnings` as
        ``(path, reason)`` and in :attr:`failed`; the others are still read.
        With ``cache`` (default) archives already read in this process and
        unchanged since (same size and modification time) are not read
        again; the records are immutable, so sharing them is safe.
        ``store`` (a :class:`~javadoc._store.DocSetStore`, with ``cache``)
        keeps archives read on disk, keyed by their content digest, for
        other processes and later runs (docs/javadoc.md "Doc-index cache").
        """
        docsets, warnings, failed = [], [], []
        for p in paths:
            p = os.fspath(p)
            try:
                docsets.append(_read_cached(p, limits, workers, store) if cache
                               else read_any(p, limits=limits, workers=workers))
            except JavadocError as exc:
                reason = str(exc)
                warnings.append((p, reason[len(p) + 2:] if reason.startswith(p + ": ") else reason))
                failed.append(p)
            except MemoryError:  # one huge archive must not take the others (or the caller) with it
                warnings.append((p, "out of memory while reading it; skipped"))
                failed.append(p)
        index = cls(docsets, warnings)
        index.failed = tuple(failed)
        return index

    failed: tuple[str, ...] = ()
    """Paths that could not be read at all."""

    def get(self, method_id: str) -> ApiDoc | None:
        """The member with this id (DESIGN.md form), or ``None``. A varargs
        last parameter matches written as ``T...`` or ``T[]``."""
        m = self._members.get(method_id)
        if m is None:
            alt = _alt_varargs(method_id)
            if alt is not None:
                m = self._members.get(alt)
                return None if m is None else self._made(alt, m)
            return None
        return self._made(method_id, m)

    def get_class(self, fqn: str) -> ClassDoc | None:
        """The type with this source FQN (``pkg.Outer.Inner``), or ``None``."""
        return self._classes.get(fqn)

    def by_name(self, api_name: str) -> list[ApiDoc]:
        """All members named ``pkg.Class.name`` (every overload), in input order."""
        return [self._made(i, self._members[i]) for i in self._by_name.get(api_name, ())]

    def members(self) -> list[ApiDoc]:
        """Every member, first input first."""
        return [self._made(i, m) for i, m in list(self._members.items())]

    def classes(self) -> list[ClassDoc]:
        """Every type."""
        return list(self._classes.values())

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, method_id: str) -> bool:
        return self.get(method_id) is not None
