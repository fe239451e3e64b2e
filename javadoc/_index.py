"""DocIndex: lookup of member and type documentation over several inputs."""

from __future__ import annotations

import os
from collections import OrderedDict, defaultdict

from ._archive import ZipLimits, open_container
from ._model import ApiDoc, ClassDoc, DocSet, JavadocError, SiteLayout

# the readers (_site: lxml; _sources: javalang, tree-sitter) are imported when an archive is
# first read, not with the package: a build whose doc jars all come from the store never needs them


def _kind_of(container) -> str | None:
    from ._site import find_root

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
            from ._site import read_container

            return read_container(container, workers=workers)
        if kind == "sources":
            from ._sources import read_source_container

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


def first_positions(keys: list[str]) -> dict[str, int]:
    """``key -> position`` of each key's first occurrence (built in C: the
    later occurrences are written first and overwritten)."""
    n = len(keys)
    return dict(zip(reversed(keys), range(n - 1, -1, -1)))


def grouped(names: list[str]) -> dict[str, list[int]]:
    """``name -> positions`` (increasing) of every occurrence."""
    out: dict[str, list[int]] = defaultdict(list)
    for i, a in enumerate(names):
        out[a].append(i)
    return out


class _Maps:
    """The look-up maps of one input's records, made on first use: its
    sequence's own (``javadoc._store``'s stored records keep theirs for the
    process, so every index combining that jar shares them), else made here
    from the records."""

    __slots__ = ("seq", "_key_of", "_keys", "_pos", "_names", "_names_of")

    def __init__(self, seq, key_of, names_of=None):
        self.seq = seq
        self._key_of = key_of
        self._names_of = names_of
        self._keys = None
        self._pos = None
        self._names = None

    def keys(self) -> list[str]:
        own = getattr(self.seq, "keys", None)
        if own is not None:
            return own()
        if self._keys is None:
            self._keys = [self._key_of(r) for r in self.seq]
        return self._keys

    def pos(self) -> dict[str, int]:
        own = getattr(self.seq, "positions", None)
        if own is not None:
            return own()
        if self._pos is None:
            self._pos = first_positions(self.keys())
        return self._pos

    def names(self) -> dict[str, list[int]]:
        own = getattr(self.seq, "named", None)
        if own is not None:
            return own()
        if self._names is None:
            self._names = grouped([self._names_of(r) for r in self.seq])
        return self._names


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
        # per input, id / FQN -> position and API name -> positions, made on first use: an
        # index opened only to be combined with others (qare build's one per doc jar) never
        # needs them, and a stored input's maps and records are made once per process
        self._members = [_Maps(ds.members, lambda m: m.id, lambda m: m.api) for ds in self._ordered]
        self._classes = [_Maps(ds.classes, lambda c: c.fqn) for ds in self._ordered]

    @staticmethod
    def _first(maps: list[_Maps], key: str) -> tuple | None:
        """``(maps, position)`` of the record of ``key`` that wins: the first input's."""
        for m in maps:
            p = m.pos().get(key)
            if p is not None:
                return m, p
        return None

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
        w = self._first(self._members, method_id)
        if w is None:
            alt = _alt_varargs(method_id)
            w = None if alt is None else self._first(self._members, alt)
            if w is None:
                return None
        return w[0].seq[w[1]]

    def inherited(self, doc: ApiDoc, limit: int = 8) -> ApiDoc | None:
        """The documented member whose comment ``doc`` inherits, when ``doc``
        has none of its own: the first of ``doc.overrides`` (its page's
        "Overrides:"/"Specified by:" notes, in page order) found here with a
        description, else the first of theirs, breadth-first, at most
        ``limit`` members asked; None when ``doc`` is documented or nothing
        is found. Javadoc copies such a comment itself when the supertype's
        sources are part of its run; a supertype in another jar leaves only
        the notes (jackson-databind's ``JsonNode.isMissingNode()``, specified
        by jackson-core's ``TreeNode``)."""
        if doc.description or doc.first_sentence:
            return None
        seen = {doc.id}
        queue = list(doc.overrides)
        while queue and limit > 0:
            mid = queue.pop(0)
            if mid in seen:
                continue
            seen.add(mid)
            limit -= 1
            found = self.get(mid)
            if found is None:
                continue
            if found.description or found.first_sentence:
                return found
            queue += found.overrides
        return None

    def get_class(self, fqn: str) -> ClassDoc | None:
        """The type with this source FQN (``pkg.Outer.Inner``), or ``None``."""
        w = self._first(self._classes, fqn)
        return None if w is None else w[0].seq[w[1]]

    def by_name(self, api_name: str) -> list[ApiDoc]:
        """All members named ``pkg.Class.name`` (every overload), in input order."""
        out = []
        for m in self._members:
            positions = m.names().get(api_name)
            if positions:
                keys = m.keys()
                out += [m.seq[p] for p in positions if self._first(self._members, keys[p]) == (m, p)]
        return out

    def members(self) -> list[ApiDoc]:
        """Every member, first input first."""
        return self._winners_in_order(self._members)

    def classes(self) -> list[ClassDoc]:
        """Every type."""
        return self._winners_in_order(self._classes)

    def _winners_in_order(self, maps: list[_Maps]) -> list:
        out = []
        for m in maps:
            out += [m.seq[p] for p, k in enumerate(m.keys()) if self._first(maps, k) == (m, p)]
        return out

    def __len__(self) -> int:
        return len(set().union(*(m.pos() for m in self._members)))

    def __contains__(self, method_id: str) -> bool:
        return self.get(method_id) is not None
