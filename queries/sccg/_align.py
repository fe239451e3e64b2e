"""Documentation alignment: ``doc_match_type`` (SCCGBench §III-B)."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from ._static import TEMPLATE_SEG as _TEMPLATE_SEG


def _segs(path):
    return [unquote(s) for s in (path or "").split("?", 1)[0].split("/") if s]


def _route_compatible(a: str | None, b: str | None) -> bool:
    """Segment-wise equality where a templated segment on either side
    matches any one segment."""
    if a is None or b is None:
        return False
    x, y = _segs(a), _segs(b)
    return len(x) == len(y) and all(
        p == q or _TEMPLATE_SEG.match(p) or _TEMPLATE_SEG.match(q) for p, q in zip(x, y)
    )


def _endpoint_fields(ep: dict) -> tuple:
    url = ep.get("url") or ""
    host = (ep.get("api_host") or ep.get("host") or (urlsplit(url).hostname if "://" in url else "") or "").lower()
    route = ep.get("route") or (urlsplit(url).path if "://" in url else None)
    return host or None, route, (ep.get("method") or "").upper() or None


def align_docs(records, endpoints) -> list[dict]:
    """Attach documented endpoints to extracted records and set
    ``api_metadata.doc_match_type``.

    Levels, strongest first, for the record's primary request:
    ``url`` — same host and the same route string (the documented endpoint
    URL appears as such in the code); ``route`` — same host and routes equal
    segment by segment, templated segments (``{x}``, ``:x``, ``<x>``) on
    either side matching any segment; ``host_only`` — same host. Within a
    level an endpoint with the record's method wins, then the first listed.
    On ``url``/``route`` the record takes the endpoint's ``endpoint_id``,
    ``endpoint_name``, documented ``params`` and (templated) ``route`` (the
    code's route is kept as ``code_route``); on ``host_only`` only the level
    is set. Records without a host match keep ``doc_match_type: null``.

    Parameters
    ----------
    records : iterable of dict
        SCCGBench records (modified in place and returned).
    endpoints : iterable of dict
        Documented endpoints: ``api_host``/``host`` or ``url``, ``route``,
        ``method``, ``params`` (list of ``{name, in, …}``), optional
        ``endpoint_id``, ``endpoint_name``.

    Returns
    -------
    list of dict
        The records.
    """
    by_host: dict = {}
    for ep in endpoints:
        host, route, method = _endpoint_fields(ep)
        if host:
            by_host.setdefault(host, []).append((ep, route, method))
    out = []
    for rec in records:
        meta = rec.setdefault("api_metadata", {})
        host = (rec.get("api_host") or "").lower()
        route, method = meta.get("route"), (meta.get("method") or "").upper() or None
        cands = by_host.get(host, [])
        level, best = None, None
        for name, test in (
            ("url", lambda r: r is not None and route is not None and r.rstrip("/") == route.rstrip("/")),
            ("route", lambda r: _route_compatible(r, route)),
        ):
            hits = [c for c in cands if test(c[1])]
            if hits:
                same = [c for c in hits if c[2] is None or c[2] == method]
                level, best = name, (same or hits)[0]
                break
        if best is not None:
            ep, ep_route, ep_method = best
            meta.update(
                doc_match_type=level,
                endpoint_id=ep.get("endpoint_id"),
                endpoint_name=ep.get("endpoint_name"),
                params=list(ep.get("params") or []),
                code_route=route,
                route=ep_route,
            )
            if meta.get("method") is None and ep_method:
                meta["method"] = ep_method
        elif cands:
            meta["doc_match_type"] = "host_only"
        out.append(rec)
    return out
