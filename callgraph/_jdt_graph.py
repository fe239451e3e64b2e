"""The call graph of DESIGN.md built from Eclipse JDT's bindings instead of qare's resolver.

Nodes are JDT's method declarations (plus the members the compiler adds and
``<clinit>()``), in qare's method-id format; LOC is the physical span (the doc
comment excluded; implicit members: the initializers they run, as in qare); the
comment is the doc comment. Every edge is ``exact``: the compiler's binding. Calls whose binding rests on missing
types or a compile error make no edge (counted as unresolved, with the
reason). No class-hierarchy dispatch edges are added (declared targets only).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict

import networkx as nx

from ._graph import BuildSummary, ProjectGraph, split_id
from ._index import MethodInfo
from ._jdt import JdtResult, Judgement

_REASONS = {
    Judgement.NO_BINDING: "JDT: no binding (missing type or compile error)",
    Judgement.RECOVERED: "JDT: recovered binding (a type is missing)",
    Judgement.PROBLEM: "JDT: compile error at the call",
}


def _info(m, source_set: str) -> MethodInfo:
    cls, head, params = split_id(m.id)
    name = head.rpartition(".")[2]
    ps = tuple(p for p in (params or "").split(",") if p)
    implicit = "implicit" in m.flags
    return MethodInfo(id=m.id, file=m.file, start_line=m.start_line, end_line=m.end_line,
                      loc=m.loc, comment=m.doc,
                      source_set=source_set, declaring_type=cls, name=name, params=ps,
                      static="static" in m.flags, abstract="abstract" in m.flags,
                      private="private" in m.flags, implicit=implicit,
                      varargs=bool(ps) and ps[-1].endswith("..."))


def build_jdt_graph(jdt: JdtResult, index) -> ProjectGraph:
    """A :class:`ProjectGraph` from JDT's bindings.

    Parameters
    ----------
    jdt : JdtResult
        From :func:`callgraph.crosscheck.run_jdt`.
    index : ClasspathIndex
        Decides ``third_party`` and ``library`` of API nodes (as in qare's graph).

    Returns
    -------
    ProjectGraph
        Same node and edge attributes as :func:`callgraph.build_project_graph`;
        ``summary.resolved["exact"]`` counts call sites with an edge,
        ``["local"]`` calls to methods of local/anonymous classes.
    """
    from .classpath import is_third_party

    t0 = time.perf_counter()
    g = nx.DiGraph()
    infos: dict = {}
    sets = dict(jdt.source_sets)
    for m in jdt.methods:
        if m.id in infos:
            continue  # a type declared twice: the first file wins, as in qare
        mi = _info(m, sets.get(m.file, "main"))
        infos[m.id] = mi
        g.add_node(mi.id, kind="method", file=mi.file, start_line=mi.start_line, end_line=mi.end_line,
                   loc=mi.loc, comment=mi.comment, third_party=False, library=None, source_set=mi.source_set)
    lines: dict = defaultdict(set)
    counts: Counter = Counter()
    reasons: Counter = Counter()
    examples: dict = {}
    apis: dict = {}
    for c in jdt.calls:
        if c.judgement is Judgement.LOCAL:
            counts["local"] += 1
            continue
        if not c.judgement.judgeable:
            counts["unresolved"] += 1
            reason = _REASONS[c.judgement]
            reasons[reason] += 1
            examples.setdefault(reason, f"{c.file}:{c.line}")
            continue
        callee = c.signature
        if callee not in infos:
            if c.from_source:  # a project method JDT knows but qare has no node for (none expected)
                counts["unresolved"] += 1
                reasons["JDT: callee is not a method node"] += 1
                examples.setdefault("JDT: callee is not a method node", f"{c.file}:{c.line}")
                continue
            if callee not in apis:
                sig = index.lookup(c.callee_type) if index is not None else None
                third = is_third_party(c.callee_type, index) if index is not None else \
                    not c.callee_type.startswith(("java.", "javax.", "jdk.", "sun.", "com.sun."))
                apis[callee] = (bool(third), sig.library if sig is not None else None)
        counts["exact"] += 1
        for caller in c.enclosing:
            if caller in infos:
                lines[(caller, callee)].add(c.line)
    for aid, (third, lib) in apis.items():
        g.add_node(aid, kind="api", file=None, start_line=None, end_line=None, loc=None, comment=None,
                   third_party=third, library=lib, source_set=None)
    g.add_edges_from((u, v, {"lines": sorted(ls), "resolution": "exact"}) for (u, v), ls in lines.items())
    skipped = tuple(jdt.skipped) + tuple(jdt.failed)
    summary = BuildSummary(
        files=len(jdt.files), lines=jdt.lines, methods=len(infos), call_sites=len(jdt.calls),
        resolved={k: counts.get(k, 0) for k in ("exact", "arity", "name", "local")},
        unresolved=counts.get("unresolved", 0), top_reasons=tuple(reasons.most_common(10)), cha_edges=0,
        parse_errors=(), decoded_with_fallback=(), skipped=skipped,
        seconds=jdt.setup_seconds + jdt.seconds + time.perf_counter() - t0, examples=examples,
        phases={"jdt_setup": round(jdt.setup_seconds, 3), "jdt": round(jdt.seconds, 3)})
    return ProjectGraph(g, summary, infos, jdt.root)
