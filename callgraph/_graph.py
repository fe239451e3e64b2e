"""The project call graph: ``ProjectGraph``, ``Target``, ``BuildSummary`` and ``reach``."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from records.dataset import CallSiteRecord, TargetRecord
from records.ids import split_id

from ._errors import UnknownMethodError
from ._gcpause import gc_paused
from ._callsite import STRENGTH, Resolution

if TYPE_CHECKING:  # annotations only: answering from the graph store needs neither (callgraph._graphstore)
    import networkx as nx

    from ._index import MethodInfo

_STRENGTH = STRENGTH  # edge resolutions, strongest first
_DECLARED = frozenset({Resolution.EXACT, Resolution.BY_ARITY})
_FOLLOW = {"rta": _DECLARED | {Resolution.CHA}, "cha": _DECLARED | {Resolution.CHA}, "declared": _DECLARED}
DISPATCH_MODES = ("rta", "cha", "declared")
#: the mode whose samples held up best when checked by hand (docs/dataset.md "Dispatch")
DEFAULT_DISPATCH = "cha"
#: what a call site's receiver / target types are (BuildSummary.site_types; _resolve.site_type)
SITE_TYPES = ("project", "jdk", "third-party-on-classpath", "third-party-off-classpath", "unknown-type",
              "not-a-type")


def follows_edge(dispatch: str, data: dict, allowed=None) -> bool:
    """Does ``dispatch`` follow an edge with attributes ``data``?

    ``declared`` follows ``exact``/``arity`` edges; ``cha`` also every ``cha``
    edge; ``rta`` only the ``cha`` edges whose ``rta`` witnesses (source sets
    of the instantiations that run the target) meet ``allowed`` (None: any).
    ``name`` edges are not decided here (``include_unresolved``).
    """
    kind = data["resolution"]
    if kind not in _FOLLOW[dispatch]:
        return False
    if kind == Resolution.CHA and dispatch == "rta":
        w = data.get("rta", ())
        return bool(w) if allowed is None else any(x in allowed for x in w)
    return True


def _drop_generics(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _param_list(text: str) -> list[str]:
    # `T[]` and `T...` are one signature in Java (JLS 8.4.1), so compare them alike
    return [p.replace("...", "[]") for p in text.split(",")] if text else []


def _params_match(want: list[str], have: list[str]) -> bool:
    """Do written parameter types (simple or qualified) name the erased FQN types ``have``?"""
    if len(want) != len(have):
        return False
    for w, h in zip(want, have):
        if "." in w:
            if not (h == w or h.endswith("." + w)):
                return False
        elif h.rpartition(".")[2] != w:
            return False
    return True


@dataclass(frozen=True, slots=True)
class Target:
    """A third-party API reached from a project method (DESIGN.md "Depth, chain and density").

    Attributes
    ----------
    api : str
        API name: the method id without parameters (``org.apache.commons.lang3.StringUtils.isBlank``).
    signature : str or None
        Method id of the API, None when the overload is undecided (``(*)`` node).
    class_ : str
        Declaring type's source FQN.
    library : str or None
        Maven ``group:artifact:version`` when known.
    depth : int
        Methods on the chain counting both ends (a direct call is 2).
    chain : tuple[str, ...]
        Node ids from the query method to the API.
    chain_loc : int
        Σ LOC of the project methods on the chain.
    density : float
        ``1 / chain_loc``.
    resolution : str
        Weakest edge kind on the chain (exact > arity > cha > name).
    call_sites : tuple[tuple[str, int], ...]
        ``(file, line)`` of the call site of each hop.
    """

    api: str
    signature: str | None
    class_: str
    library: str | None
    depth: int
    chain: tuple
    chain_loc: int
    density: float
    resolution: str
    call_sites: tuple = ()

    def to_record(self) -> TargetRecord:
        """The on-disk target of a sample (:class:`records.TargetRecord`, the
        one definition of its keys)."""
        return TargetRecord(api=self.api, signature=self.signature, class_=self.class_, library=self.library,
                            depth=self.depth, chain=tuple(self.chain), chain_loc=self.chain_loc,
                            density=self.density, resolution=self.resolution,
                            call_sites=tuple(CallSiteRecord(file=f, line=ln) for f, ln in self.call_sites))

    def to_dict(self) -> dict:
        """The JSON object of :meth:`to_record`."""
        return self.to_record().to_dict()


@dataclass(frozen=True, slots=True)
class BuildSummary:
    """What a build did.

    Attributes
    ----------
    files : int
        Java files analysed.
    lines : int
        Physical lines in them.
    methods : int
        Project method nodes.
    call_sites : int
        Call sites seen (invocations, creations, explicit and implicit
        constructor calls, method references, enum constants).
    resolved : dict[str, int]
        Call sites per resolution kind (``exact``, ``arity``, ``name``,
        ``local`` = a method of a local/anonymous class, whose code is
        attributed to the enclosing method).
    unresolved : int
        Call sites without any target.
    top_reasons : tuple[tuple[str, int], ...]
        Most frequent unresolved (and ``name``) reasons with counts.
    cha_edges : int
        Edges added by class-hierarchy dispatch.
    rta_edges : int
        Of those, the ones some instantiated type witnesses (followed by ``rta``).
    instantiated_types : int
        Types the program instantiates (``new``, anonymous, Spring beans, …; docs/callgraph.md).
    parse_errors : tuple[tuple[str, tuple[tuple[int, int], ...]], ...]
        Files with ERROR/MISSING nodes and their 1-based (line, column).
    decoded_with_fallback : tuple[tuple[str, str], ...]
        Files not in UTF-8 and the encoding used.
    skipped : tuple[tuple[str, str], ...]
        Files (or folders) not analysed, with the reason.
    classpath_warnings : tuple[tuple[str, str], ...]
    seconds : float
        Wall time of the build.
    examples : dict[str, str]
        One ``file:line`` per unresolved reason.
    phases : dict[str, float]
        Wall seconds per phase (``discover`` the source files, ``classpath``
        resolution, ``jdk_index`` = opening the JDK and the jars, ``parse``,
        ``index``, ``resolve``, ``graph``) and ``<phase>_cpu``/``total_cpu``:
        CPU seconds of this process and its workers. They add up to
        ``seconds``; the CLI adds ``startup`` and ``output`` (and ``chain``).
    notes : tuple[tuple[str, str], ...]
        ``(file, note)`` about the input that is no failure: a type also
        declared in another Maven/Gradle module (members merged).
    cache : dict[str, int]
        Warm-cache counts (callgraph._cache): ``facts_hits``/``facts_misses``
        (files parsed for declarations), ``resolved_hits``/``resolved_misses``
        (files whose call sites were resolved), ``rebuilt``; ``snapshot_loaded``
        (1: the index came from its snapshot, callgraph._snapshot),
        ``snapshot_patched`` (edited files patched into it), ``snapshot_written``;
        empty when off.
    site_types : dict[str, int]
        Call sites per ``SITE_TYPES`` value: whose types the receiver and the
        chosen target's declaring type are (``callgraph._resolve.site_type``;
        docs/callgraph.md "Third-party call sites").
    """

    files: int
    lines: int
    methods: int
    call_sites: int
    resolved: dict
    unresolved: int
    top_reasons: tuple
    cha_edges: int
    parse_errors: tuple
    decoded_with_fallback: tuple
    skipped: tuple
    classpath_warnings: tuple = ()
    seconds: float = 0.0
    examples: dict = field(default_factory=dict)
    phases: dict = field(default_factory=dict)
    rta_edges: int = 0
    instantiated_types: int = 0
    notes: tuple = ()
    cache: dict = field(default_factory=dict)
    site_types: dict = field(default_factory=dict)

    def on_classpath_share(self) -> float | None:
        """Share of third-party call sites whose type is on the classpath.

        ``third-party-on-classpath / (third-party-on-classpath +
        third-party-off-classpath + unknown-type)``: a site whose receiver type
        is unknown counts as one whose type is *not* on the classpath (it may be
        a library type; so the share is a lower bound). Project, JDK and
        primitive-receiver sites are not counted. None when there is no such site."""
        st = self.site_types
        on = st.get("third-party-on-classpath", 0)
        den = on + st.get("third-party-off-classpath", 0) + st.get("unknown-type", 0)
        return on / den if den else None

    def resolved_share(self) -> float:
        """Share of call sites with an exact, arity or local resolution."""
        if not self.call_sites:
            return 0.0
        r = self.resolved
        return (r.get("exact", 0) + r.get("arity", 0) + r.get("local", 0)) / self.call_sites

    def to_dict(self) -> dict:
        return {"files": self.files, "lines": self.lines, "methods": self.methods,
                "call_sites": self.call_sites, "resolved": dict(self.resolved),
                "unresolved": self.unresolved, "resolved_share": round(self.resolved_share(), 4),
                "top_reasons": [list(x) for x in self.top_reasons], "cha_edges": self.cha_edges,
                "rta_edges": self.rta_edges, "instantiated_types": self.instantiated_types,
                "parse_errors": [[f, [list(p) for p in ps]] for f, ps in self.parse_errors],
                "decoded_with_fallback": [list(x) for x in self.decoded_with_fallback],
                "skipped": [list(x) for x in self.skipped],
                "classpath_warnings": [list(x) for x in self.classpath_warnings],
                "notes": [list(x) for x in self.notes],
                "site_types": dict(self.site_types),
                "on_classpath_share": (None if (ocs := self.on_classpath_share()) is None else round(ocs, 4)),
                "seconds": round(self.seconds, 3)}


class ProjectGraph:
    """A project's call graph plus its method table.

    Attributes
    ----------
    graph : networkx.DiGraph
        Nodes are method ids (DESIGN.md "The call graph"); edges carry
        ``lines`` and ``resolution``.
    summary : BuildSummary
    root : str
        The project folder.
    dispatch : str
        Default dispatch mode of ``reach`` (``DISPATCH_MODES``).
    instantiated : dict[str, InstantiatedType]
        The types the program instantiates, by type key (RTA; docs/callgraph.md "Dispatch").
    resolution : ResolvedClasspath or None
        How the project's libraries were resolved (``callgraph.classpath.resolve_classpath``),
        ``None`` when that was not asked for.
    """

    def __init__(self, graph: nx.DiGraph, summary: BuildSummary, infos: dict, root: str,
                 dispatch: str = DEFAULT_DISPATCH, instantiated: dict | None = None, resolution=None):
        self.graph = graph
        self.resolution = resolution
        self.summary = summary
        self.root = root
        self.dispatch = dispatch
        self.instantiated = dict(instantiated or {})
        self._infos: dict[str, MethodInfo] = infos

    def methods(self) -> list[str]:
        """Ids of all project methods, sorted."""
        return sorted(self._infos)

    def method(self, mid: str) -> MethodInfo:
        """The ``MethodInfo`` of a project method id; raises ``UnknownMethodError``."""
        try:
            return self._infos[mid]
        except KeyError:
            raise UnknownMethodError(f"not a project method: {mid}", self.find_methods(mid)) from None

    def find_methods(self, text: str) -> list[str]:
        """Project method ids matching ``text``.

        Accepted forms (whitespace is ignored):

        - a full method id, ``pkg.Class.method``, ``Class.method``,
          ``Outer.Inner.method`` or a bare ``method`` name; without a
          parameter list every overload matches;
        - constructors as ``Class.<init>``, ``Class.Class`` (the APIBench form)
          or the class name alone (``Class``, ``pkg.Class``, ``Outer.Inner``)
          when it names a project type;
        - any of these with a parameter list whose types are simple or
          qualified names (``CaseUtils.toCamelCase(String, boolean, char...)``):
          each is compared with the erased parameter type of the id by its
          simple name (or, when qualified, as a ``.``-suffix); generic
          arguments are dropped and ``T[]`` matches ``T...``.

        Returns
        -------
        list[str]
            Sorted method ids (empty if none; see ``suggest_methods``).
        """
        text = "".join(text.split())
        if text in self._infos:
            return [text]
        head, paren, params = text.partition("(")
        want = None
        if paren:
            if not params.endswith(")"):
                return []
            want = _param_list(_drop_generics(params[:-1]))
        heads = {head}
        cls, _, name = head.rpartition(".")
        init = None
        if cls and name == cls.rpartition(".")[2]:
            init = cls + ".<init>"
            heads.add(init)  # Class.Class: the constructor
        # a match holds one of the heads (or, a constructor, ``head``) as a substring: one C-level
        # `in` per id first (a stored graph's 100,000 ids are scanned for every `qare chain`)
        near = [m for m in self._infos if head in m] if init is None else \
            [m for m in self._infos if head in m or init in m]
        out = []
        for mid in near:
            h, _, ps = mid.partition("(")
            c, _, n = h.rpartition(".")
            if not (any(h == x or h.endswith("." + x) for x in heads)
                    or (n == "<init>" and (c == head or c.endswith("." + head)))):
                continue
            if want is not None and not _params_match(want, _param_list(ps[:-1])):
                continue
            out.append(mid)
        return sorted(out)

    def suggest_methods(self, text: str, n: int = 10) -> list[str]:
        """Project method ids whose name is close to ``text`` (for a misspelt name).

        ``text``'s parameter list is ignored. Its name part is compared
        (``difflib``'s ratio, case-insensitive, cutoff 0.75) with the forms of
        every method having as many ``.``-separated parts: the bare name,
        ``Class.method``, ``pkg.Class.method``; a constructor also as
        ``Class``, ``Class.Class`` and ``Class.<init>``. The last part and the
        qualifier before it are compared apart, and each must be close: a
        qualifier shared with ``text`` does not make every member of that
        class a match (``CommentService.procesComment`` suggested
        ``CommentService.<init>()`` and ``count()`` when the whole
        ``Class.method`` string was compared).

        Returns
        -------
        list[str]
            At most ``n`` method ids, closest first (name and qualifier ratios
            summed; ids of one score sorted).
        """
        head = "".join(text.split()).partition("(")[0].lower()
        if not head:
            return []
        want = head.split(".")
        k = len(want)
        forms: dict[tuple, set[str]] = {}  # (qualifier, name) → method ids
        for mid in self._infos:
            parts = mid.partition("(")[0].split(".")
            variants = [parts]
            if parts[-1] == "<init>" and len(parts) > 1:
                variants += [parts[:-1], parts[:-1] + [parts[-2]]]
            for v in variants:
                if len(v) >= k:
                    forms.setdefault((".".join(v[-k:-1]).lower(), v[-1].lower()), set()).add(mid)
        cutoff = 0.75
        # the names first (far fewer distinct ones than forms), with difflib's
        # cheap upper bounds before its ratio, as get_close_matches does
        names = {name for _q, name in forms}
        close_names = {}
        m = difflib.SequenceMatcher()
        m.set_seq2(want[-1])
        for name in names:
            m.set_seq1(name)
            if m.real_quick_ratio() >= cutoff and m.quick_ratio() >= cutoff:
                r = m.ratio()
                if r >= cutoff:
                    close_names[name] = r
        qual = ".".join(want[:-1])
        scored = []
        for (q, name), mids in forms.items():
            r = close_names.get(name)
            if r is None:
                continue
            rq = difflib.SequenceMatcher(None, q, qual).ratio() if k > 1 else 1.0
            if rq >= cutoff:
                scored.append((-(r + rq), sorted(mids)))
        scored.sort()
        out: list[str] = []
        for _score, mids in scored:
            out += [mid for mid in mids if mid not in out]
        return out[:n]

    def resolve_method(self, text: str) -> str:
        """The single method id ``text`` names (any form of ``find_methods``);
        raises ``UnknownMethodError`` (with the candidates) when it names none
        or several. For none, ``suggest_methods`` gives close names."""
        c = self.find_methods(text)
        if len(c) == 1:
            return c[0]
        if not c:
            raise UnknownMethodError(f"no project method matches {text!r}", [])
        raise UnknownMethodError(f"{text!r} is ambiguous ({len(c)} methods)", c)

    # the collector paused: the chains' tuples of a large answer (30,000 lines on spring-framework)
    # set off collections that walk the whole graph each time
    @gc_paused()
    def reach(self, mid: str, *, max_depth: int | None = None, dispatch: str | None = None,
              include_unresolved: bool = False, source_sets="auto") -> list[Target]:
        """Third-party APIs reachable from a project method.

        Parameters
        ----------
        mid : str
            A project method id (or any unambiguous form accepted by
            ``find_methods``).
        max_depth : int, optional
            Largest depth kept (methods on the chain counting both ends).
        dispatch : {"rta", "cha", "declared"}, optional
            ``declared`` follows exact and arity edges; ``cha`` also every cha
            edge; ``rta`` only the cha edges to a method that an instantiated
            type runs (an instantiation in an allowed source set; see
            ``source_sets``). Default: the graph's ``dispatch``.
        include_unresolved : bool
            Also follow ``name`` edges.
        source_sets : "auto", None or iterable of str
            Source sets (``"main"``, ``"test"``) whose project methods a chain
            may pass through. ``"auto"`` (default): a ``main`` query method
            stays within ``main`` methods (test code is not part of the
            production program, so a ``cha`` edge to a test double's override
            is not followed), a ``test`` query method may enter both.
            ``None``: all. API nodes have no source set and are always
            reachable. The query method itself is always the chain's start.

        Returns
        -------
        list[Target]
            One per reached third-party API node, sorted by (depth, api, signature).
            Chains are shortest paths; ties go to the smallest chain LOC, then
            the lexicographically smallest list of ids (DESIGN.md).

        Raises
        ------
        UnknownMethodError
            ``mid`` names no project method or several.
        ValueError
            Bad ``dispatch``, ``max_depth`` or ``source_sets``.
        """
        if dispatch is None:
            dispatch = self.dispatch
        if dispatch not in _FOLLOW:
            raise ValueError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, not {dispatch!r}")
        if max_depth is not None and max_depth < 2:
            raise ValueError("max_depth counts both ends of a chain: it must be ≥ 2")
        if mid not in self._infos:
            mid = self.resolve_method(mid)
        allowed = self._allowed_source_sets(mid, source_sets)
        follow = _FOLLOW[dispatch] | ({Resolution.GUESSED_BY_NAME} if include_unresolved else frozenset())
        rta = dispatch == "rta"
        g = self.graph
        nodes = g.nodes
        # best[v] = (chain_loc, chain list) for project methods, by BFS level
        best = {mid: (self._infos[mid].loc, (mid,))}
        frontier = [mid]
        targets: dict[str, tuple] = {}
        depth = 1
        while frontier and (max_depth is None or depth < max_depth):
            depth += 1
            nxt: dict[str, tuple] = {}
            for u in frontier:
                uloc, uchain = best[u]
                for v, ed in g.adj[u].items():
                    if ed["resolution"] not in follow:
                        continue
                    if rta and ed["resolution"] == Resolution.CHA and not (
                            ed.get("rta") and (allowed is None or any(x in allowed for x in ed["rta"]))):
                        continue
                    nd = nodes[v]
                    if nd["kind"] == "api":
                        if not nd.get("third_party"):
                            continue
                        if v in targets and targets[v][0] < depth:
                            continue
                        cand = (uloc, uchain + (v,))
                        old = targets.get(v)
                        if old is None or (old[0] == depth and cand < old[1]):
                            targets[v] = (depth, cand)
                        continue
                    if v in best:
                        continue
                    # the node's attributes, not self._infos: a stored graph's view has them without its rows
                    if allowed is not None and nd["source_set"] not in allowed:
                        continue
                    cand = (uloc + (nd.get("loc") or 0), uchain + (v,))
                    old = nxt.get(v)
                    if old is None or cand < old:
                        nxt[v] = cand
            best.update(nxt)
            frontier = sorted(nxt)
        out = []
        for v, (d, (loc, chain)) in targets.items():
            cls, api, params = split_id(v)
            weakest = Resolution.EXACT.value
            sites = []
            for a, b in zip(chain, chain[1:]):
                ed = g.edges[a, b]
                if _STRENGTH[ed["resolution"]] > _STRENGTH[weakest]:
                    weakest = ed["resolution"]
                sites.append((nodes[a]["file"], ed["lines"][0]))
            nd = nodes[v]
            out.append(Target(api, None if params is None else v, cls, nd.get("library"), d,
                              chain, loc, (1.0 / loc) if loc else 0.0, weakest, tuple(sites)))
        out.sort(key=lambda t: (t.depth, t.api, t.signature or ""))
        return out

    def _allowed_source_sets(self, mid: str, source_sets) -> frozenset | None:
        if source_sets is None:
            return None
        if isinstance(source_sets, str):
            if source_sets != "auto":
                raise ValueError(f"source_sets must be 'auto', None or an iterable of source sets, not {source_sets!r}")
            # main code must not reach through test doubles; tests call main code
            return frozenset({"main"}) if self._infos[mid].source_set == "main" else None
        allowed = frozenset(source_sets)
        bad = allowed - {"main", "test"}
        if bad:
            raise ValueError(f"unknown source sets {sorted(bad)}: use 'main' and/or 'test'")
        return allowed

    def max_depth(self, mid: str, **kw) -> int | None:
        """Largest depth among the targets of ``reach(mid, **kw)`` (None if none)."""
        ts = self.reach(mid, **kw)
        return max((t.depth for t in ts), default=None)
