"""What one file's resolution adds to a graph besides its edges: its counts,
reasons, examples, site types, classpath warnings, API nodes and RTA facts
(docs/callgraph.md "One edited method body").

The build sums them in file order into the summary (:func:`aggregate`,
the one place that does, for a whole build and for a graph patched after a
body edit alike); the graph store keeps them per file, so a patched graph's
summary is the sum of the stored ones with the edited files' replaced,
equal to a whole build's to the last tie of ``top_reasons``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from hashlib import blake2b

import msgpack

__all__ = ["FileContribution", "contribution", "share", "failed", "made_digest", "aggregate", "top_reasons"]


@dataclass(frozen=True, slots=True)
class FileContribution:
    """One file's share of a build (a ``FileResult`` without its edges).

    Attributes
    ----------
    counts : tuple[tuple[Resolution, int], ...]
        Call sites per resolution (sorted by value, as the other tables by
        their first item: :func:`contribution`).
    reasons : tuple[tuple[str, int], ...]
    examples : tuple[tuple[str, str], ...]
        ``(reason, "file:line")``, the file's first site of each reason.
    sites : tuple[tuple[str, int], ...]
        Call sites per site type.
    warnings : tuple[tuple[str, str], ...]
        Classpath warnings raised while the file was resolved.
    apis : tuple[str, ...]
        Ids of the library targets it reached (``FileResult.apis``, in order).
    made : bytes
        :func:`made_digest` of its RTA facts (None included).
    failed : str or None
        Why it could not be resolved (then everything else is empty).
    """

    counts: tuple = ()
    reasons: tuple = ()
    examples: tuple = ()
    sites: tuple = ()
    warnings: tuple = ()
    apis: tuple = ()
    made: bytes = b""
    failed: str | None = None


def made_digest(made) -> bytes:
    """16-byte digest of a file's RTA facts (``_rta.collect``'s
    ``(made, annotated)``, or None when they could not be collected) taken
    as sets — ``_rta.InstantiatedSet`` reads them so, and their order is
    not the same in every process: equal digests, equal facts, so the
    program's instantiated types did not move."""
    if made is None:
        doc = None
    else:
        doc = [sorted({(t, getattr(why, "value", why)) for t, why in made[0]}), sorted({tuple(x) for x in made[1]})]
    return blake2b(msgpack.packb(doc, use_bin_type=True), digest_size=16).digest()


def share(fr, warnings) -> FileContribution:
    """What a resolved file adds to the summary only (no RTA digest: a build without the cache keeps no
    contributions), sorted as :func:`contribution` sorts it."""
    return FileContribution(tuple(sorted(fr.counts, key=_value_of)), tuple(sorted(fr.reasons)),
                            tuple(sorted(fr.examples)), tuple(sorted(fr.sites)), tuple(tuple(w) for w in warnings))


def contribution(fr, made, warnings) -> FileContribution:
    """The contribution of a resolved file (``FileResult``, RTA facts,
    warnings), its counts, reasons, examples, site types and API nodes
    sorted: the resolver's order of them depends on what its memos held when
    it ran (a file resolved after others in a process, or alone after a body
    edit), and nothing summed from them may (:func:`aggregate`, :func:`top_reasons`)."""
    return FileContribution(tuple(sorted(fr.counts, key=_value_of)), tuple(sorted(fr.reasons)),
                            tuple(sorted(fr.examples)), tuple(sorted(fr.sites)),
                            tuple(tuple(w) for w in warnings), tuple(sorted({a.id for a in fr.apis})),
                            made_digest(made))


def _value_of(count) -> str:
    return getattr(count[0], "value", count[0])


def top_reasons(reasons, n: int = 10) -> tuple:
    """The ``n`` most frequent reasons, ``(reason, count)`` by count then
    reason (not by first seen: that order is the resolver's, see
    :func:`contribution`)."""
    return tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:n])


def failed(err: str) -> FileContribution:
    """The contribution of a file that could not be resolved."""
    return FileContribution(made=made_digest(None), failed=err)


def aggregate(contribs, warnings: list, seen: set):
    """``(counts, reasons, site types, examples)`` of a build from its
    files' contributions in file order, as the graph step sums them: each
    reason's example from the first file that has one. Each file's
    classpath warnings not in ``seen`` are appended to ``warnings`` (and
    added to ``seen``)."""
    counts: Counter = Counter()
    reasons: Counter = Counter()
    site_types: Counter = Counter()
    examples: dict = {}
    for c in contribs:
        if c.failed is not None:
            continue
        counts.update(dict(c.counts))
        reasons.update(dict(c.reasons))
        site_types.update(dict(c.sites))
        for k, v in c.examples:
            examples.setdefault(k, v)
        for w in c.warnings:
            if w not in seen:
                seen.add(w)
                warnings.append(w)
    return counts, reasons, site_types, examples
