"""DocIndex: lookup of member and type documentation over several inputs."""

from __future__ import annotations

import os
from collections import OrderedDict, defaultdict
from itertools import repeat

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


def _member_ids(seq) -> list[str]:
    """The ids of a DocSet's members, without making stored records."""
    ids = getattr(seq, "ids", None)
    return ids() if ids is not None else [m.id for m in seq]


def _member_id_api(seq):
    id_api = getattr(seq, "id_api", None)
    return id_api() if id_api is not None else ((m.id, m.api) for m in seq)


def _class_fqns(seq) -> list[str]:
    fqns = getattr(seq, "fqns", None)
    return fqns() if fqns is not None else [c.fqn for c in seq]


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
        self.warnings: list[tuple[str, str]] = list(warnings or [])
        # a javadoc site wins over sources; among inputs of one kind the first given wins
        self._ordered = tuple(sorted(self.docsets, key=lambda d: d.layout is SiteLayout.SOURCES))
        for ds in self._ordered:
            self.warnings.extend(ds.warnings)
        # id / FQN -> (sequence, position) of the record that wins; API name -> winning ids.
        # Made on first use: an index opened only to be combined with others (qare build's
        # one per doc jar) never needs them, and a stored DocSet's records are made (and
        # cached by its sequence) only when looked up
        self._by_id: dict[str, tuple] | None = None
        self._by_fqn: dict[str, tuple] | None = None
        self._by_name: dict[str, list[str]] | None = None

    @staticmethod
    def _winners(seqs_keys) -> dict[str, tuple]:
        """``key -> (sequence, position)`` of each key's first occurrence over
        ``(sequence, keys)`` pairs in order (later ones are written first and
        overwritten: the loops stay in C)."""
        out: dict[str, tuple] = {}
        for seq, keys in reversed(seqs_keys):
            n = len(keys)
            out.update(zip(reversed(keys), zip(repeat(seq, n), range(n - 1, -1, -1))))
        return out

    def _ids(self) -> dict[str, tuple]:
        if self._by_id is None:
            self._by_id = self._winners([(ds.members, _member_ids(ds.members)) for ds in self._ordered])
        return self._by_id

    def _fqns(self) -> dict[str, tuple]:
        if self._by_fqn is None:
            self._by_fqn = self._winners([(ds.classes, _class_fqns(ds.classes)) for ds in self._ordered])
        return self._by_fqn

    def _names(self) -> dict[str, list[str]]:
        if self._by_name is None:
            by_id = self._ids()
            names: dict[str, list[str]] = defaultdict(list)
            for ds in self._ordered:
                seq = ds.members
                for i, (mid, api) in enumerate(_member_id_api(seq)):
                    w = by_id[mid]
                    if w[1] == i and w[0] is seq:  # this occurrence is the one that wins
                        names[api].append(mid)
            self._by_name = names
        return self._by_name

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
        by_id = self._ids()
        w = by_id.get(method_id)
        if w is None:
            alt = _alt_varargs(method_id)
            w = None if alt is None else by_id.get(alt)
            if w is None:
                return None
        return w[0][w[1]]

    def get_class(self, fqn: str) -> ClassDoc | None:
        """The type with this source FQN (``pkg.Outer.Inner``), or ``None``."""
        w = self._fqns().get(fqn)
        return None if w is None else w[0][w[1]]

    def by_name(self, api_name: str) -> list[ApiDoc]:
        """All members named ``pkg.Class.name`` (every overload), in input order."""
        by_id = self._ids()
        return [by_id[i][0][by_id[i][1]] for i in self._names().get(api_name, ())]

    def members(self) -> list[ApiDoc]:
        """Every member, first input first."""
        return self._in_order(self._ids(), lambda ds: ds.members, _member_ids)

    def classes(self) -> list[ClassDoc]:
        """Every type."""
        return self._in_order(self._fqns(), lambda ds: ds.classes, _class_fqns)

    def _in_order(self, winners: dict, seq_of, keys_of) -> list:
        out = []
        for ds in self._ordered:
            seq = seq_of(ds)
            for i, k in enumerate(keys_of(seq)):
                w = winners[k]
                if w[1] == i and w[0] is seq:
                    out.append(seq[i])
        return out

    def __len__(self) -> int:
        return len(self._ids())

    def __contains__(self, method_id: str) -> bool:
        return self.get(method_id) is not None
