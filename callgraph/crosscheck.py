"""qare's third-party call targets checked against Eclipse JDT's bindings.

Public API:

- ``run_jdt(root, classpath=(), *, jdk="auto") -> JdtResult`` — JDT's answer for
  every call site of a project (``callgraph._jdt``)
- ``crosscheck(pg, jdt, index) -> CrosscheckReport`` — precision and recall of
  qare's third-party targets per call-site category, at API-name and signature
  level, and the disagreeing call sites
- ``build_jdt_graph(jdt, index) -> ProjectGraph`` — the call graph from JDT's
  bindings (all edges ``exact``)
- ``jdt_available() -> str | None``, ``JdtUnavailableError``, ``Judgement``

How a call site is matched, what counts as truth and what is unjudgeable:
docs/crosscheck.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ._graph import split_id
from ._jdt import (
    JDT_VERSION,
    JdtCall,
    JdtMethod,
    JdtResult,
    JdtUnavailableError,
    Judgement,
    fetch_jdt,
    jdt_available,
    run_jdt,
)
from ._jdt_graph import build_jdt_graph

__all__ = [
    "run_jdt",
    "crosscheck",
    "build_jdt_graph",
    "jdt_available",
    "fetch_jdt",
    "JdtResult",
    "JdtCall",
    "JdtMethod",
    "Judgement",
    "JdtUnavailableError",
    "CrosscheckReport",
    "Score",
    "Disagreement",
    "CATEGORIES",
    "JDT_VERSION",
]

#: Call-site categories, from JDT's AST (a site may be in several; "all" holds every site).
CATEGORIES = (
    "all", "static", "type_receiver", "field_receiver", "local_receiver", "parameter_receiver",
    "this_receiver", "unqualified", "expression_receiver", "chained", "generic_return", "overload",
    "inherited", "lambda_body", "anonymous_body", "method_ref", "constructor", "anonymous_class", "super",
    "unmatched",
)
LEVELS = ("name", "signature")
_TARGET_KINDS = ("exact", "arity")  # qare's resolution kinds that make reach targets


@dataclass(frozen=True, slots=True)
class Score:
    """True/false positives and false negatives of one category at one level.

    ``precision`` = tp / (tp + fp), ``recall`` = tp / (tp + fn); None when the
    denominator is 0.
    """

    category: str
    level: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def to_dict(self) -> dict:
        return {"category": self.category, "level": self.level, "tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": self.precision, "recall": self.recall}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A call site (file, line, method name) where qare and JDT differ.

    ``jdt``: JDT's third-party targets there (signatures); ``jdt_other``: JDT's
    non-third-party targets there (project or JDK methods); ``qare``: qare's
    third-party targets (``{"api", "signature", "resolution"}``); ``level``:
    ``"name"`` when the API names differ, else ``"signature"``.
    """

    file: str
    line: int
    name: str
    categories: tuple
    level: str
    jdt: tuple
    jdt_other: tuple
    qare: tuple

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "name": self.name, "categories": list(self.categories),
                "level": self.level, "jdt": list(self.jdt), "jdt_other": list(self.jdt_other),
                "qare": [dict(q) for q in self.qare]}


@dataclass(frozen=True, slots=True)
class CrosscheckReport:
    """Result of :func:`crosscheck`.

    Attributes
    ----------
    scores : tuple[Score, ...]
        Per category and level (categories with no site left out).
    by_resolution : dict[str, tuple[int, int]]
        qare resolution kind → (targets JDT confirms at name level, judged targets).
    disagreements : tuple[Disagreement, ...]
    unjudgeable_sites : int
        Call sites (file, line, name) where JDT's answer rests on missing types
        or a compile error; qare's targets there are not counted.
    unjudgeable_qare_targets : int
        qare's third-party targets at those sites.
    jdt_calls, qare_targets : int
        Call sites JDT reported; qare's third-party targets (exact/arity).
    """

    scores: tuple
    by_resolution: dict
    disagreements: tuple
    unjudgeable_sites: int
    unjudgeable_qare_targets: int
    jdt_calls: int
    qare_targets: int
    judgements: dict = field(default_factory=dict)

    def score(self, category: str = "all", level: str = "signature") -> Score:
        for s in self.scores:
            if s.category == category and s.level == level:
                return s
        return Score(category, level, 0, 0, 0)

    def to_dict(self) -> dict:
        return {"scores": [s.to_dict() for s in self.scores],
                "by_resolution": {k: list(v) for k, v in self.by_resolution.items()},
                "unjudgeable_sites": self.unjudgeable_sites,
                "unjudgeable_qare_targets": self.unjudgeable_qare_targets,
                "jdt_calls": self.jdt_calls, "qare_targets": self.qare_targets,
                "judgements": dict(self.judgements), "disagreements": len(self.disagreements)}


def _simple_name(api: str) -> str:
    return api.rpartition(".")[2]


def _qare_targets(pg) -> dict:
    """(file, line, method name) → {(api, signature or None, resolution)} of qare's
    third-party targets (edges to third-party API nodes, ``exact``/``arity``).

    An instance initializer's call is an edge from every constructor; keyed by
    site, it counts once.
    """
    g = pg.graph
    out: dict = defaultdict(set)
    for u, v, d in g.edges(data=True):
        nv = g.nodes[v]
        if nv.get("kind") != "api" or not nv.get("third_party") or d.get("resolution") not in _TARGET_KINDS:
            continue
        file = g.nodes[u].get("file")
        _, api, params = split_id(v)
        sig = v if params is not None else None
        for line in d.get("lines", ()):
            out[(file, line, _simple_name(api))].add((api, sig, d["resolution"]))
    return out


def crosscheck(pg, jdt: JdtResult, index) -> CrosscheckReport:
    """Compare qare's graph ``pg`` with JDT's bindings ``jdt`` of the same project.

    Parameters
    ----------
    pg : ProjectGraph
        qare's graph (``build_project_graph`` with the classpath JDT was given).
    jdt : JdtResult
        From :func:`run_jdt`.
    index : ClasspathIndex
        Decides which of JDT's binary callee types are third-party (the same
        rule as qare: ``callgraph.classpath.is_third_party``).

    Returns
    -------
    CrosscheckReport
        Sites are matched by (file, line, method name); at each site the sets
        of API names (name level) and method ids (signature level) are
        compared. qare's ``(*)`` targets count as hits at name level and as
        misses (not false positives) at signature level.
    """
    from .classpath import is_third_party

    truth: dict = defaultdict(set)
    other: dict = defaultdict(set)
    cats: dict = defaultdict(set)
    unjudgeable: set = set()
    judgements: dict = defaultdict(int)
    third_cache: dict = {}
    for c in jdt.calls:
        key = (c.file, c.line, c.callee_name)  # the name as written when there is no binding
        judgements[c.judgement.value] += 1
        if not c.judgement.judgeable:
            unjudgeable.add(key)
            continue
        cats[key].update(c.categories)
        third = False
        if not c.from_source and c.judgement is Judgement.OK and not c.callee_type.startswith("?"):
            third = third_cache.get(c.callee_type)
            if third is None:
                third = third_cache[c.callee_type] = is_third_party(c.callee_type, index)
        (truth if third else other)[key].add(c.signature)
    qare = _qare_targets(pg)
    counts = {(cat, lvl): [0, 0, 0] for cat in CATEGORIES for lvl in LEVELS}
    by_res: dict = defaultdict(lambda: [0, 0])
    disagreements = []
    unj_targets = 0
    for key in sorted(set(truth) | set(qare), key=lambda k: (k[0] or "", k[1], k[2])):
        p = qare.get(key, set())
        t = truth.get(key, set())
        if key in unjudgeable:
            unj_targets += len(p)
            continue
        kcats = ["all", *sorted(cats.get(key, ()))] if key in cats else ["all", "unmatched"]
        t_names = {split_id(s)[1] for s in t}
        p_names = {api for api, _, _ in p}
        p_sigs = {sig for _, sig, _ in p if sig is not None}
        for api, _, res in p:
            by_res[res][1] += 1
            by_res[res][0] += api in t_names
        level = None
        for lvl, tt, pp in (("name", t_names, p_names), ("signature", t, p_sigs)):
            tp, fp, fn = len(tt & pp), len(pp - tt), len(tt - pp)
            if (fp or fn) and level is None:
                level = lvl
            for cat in kcats:
                row = counts[(cat, lvl)]
                row[0] += tp
                row[1] += fp
                row[2] += fn
        if level is not None:
            disagreements.append(Disagreement(
                file=key[0], line=key[1], name=key[2], categories=tuple(kcats[1:]), level=level,
                jdt=tuple(sorted(t)), jdt_other=tuple(sorted(other.get(key, ()))),
                qare=tuple(sorted(({"api": a, "signature": s, "resolution": r} for a, s, r in p),
                                  key=lambda d: (d["api"], d["signature"] or "")))))
    scores = tuple(Score(cat, lvl, *counts[(cat, lvl)]) for cat in CATEGORIES for lvl in LEVELS
                   if any(counts[(cat, lvl)]))
    return CrosscheckReport(
        scores=scores, by_resolution={k: tuple(v) for k, v in sorted(by_res.items())},
        disagreements=tuple(disagreements), unjudgeable_sites=len(unjudgeable),
        unjudgeable_qare_targets=unj_targets, jdt_calls=len(jdt.calls),
        qare_targets=sum(len(v) for v in qare.values()), judgements=dict(judgements))
