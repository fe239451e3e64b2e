"""The build-wide stage: the filters over the candidates of every project
(interquartile range of API counts → candidates without targets →
documentation → translation → leakage), stable ids, and the
``samples.jsonl``/``apis.jsonl`` files (one :mod:`records.io` writer).
"""

from __future__ import annotations

import hashlib
import json
import math
import shlex
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from records.dataset import APIS_FILE, SAMPLES_FILE, ApiRecord, SampleRecord
from records.safefs import read_regular
from records.io import write_jsonl, write_text_atomic

from ._options import BuildError, BuildOptions
from ._part import Candidate, ProjectPart, Verdict
from .leaks import find_leaks

__all__ = ["merge_parts", "MergeResult", "sample_id", "DENSITY_BINS"]

_TRANSLATIONS = ".translations.json"


def sample_id(project: str, commit: str | None, method: str) -> str:
    """Stable sample id: the first 16 hex digits of SHA-1 over
    ``project NUL commit NUL method`` (commit ``""`` when unknown)."""
    return hashlib.sha1(f"{project}\0{commit or ''}\0{method}".encode()).hexdigest()[:16]


def _translate(cmd: str, text: str, cache: dict[str, str]) -> tuple[str, str | None]:
    if text in cache:
        return cache[text], None
    try:
        r = subprocess.run(shlex.split(cmd), input=text, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return text, f"{type(e).__name__}: {e}"
    out = r.stdout.strip()
    if r.returncode != 0 or not out:
        err = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        return text, f"translator failed: {err}" if r.returncode else "translator printed nothing"
    cache[text] = " ".join(out.split())
    return cache[text], None


def llm_steps(opts: BuildOptions):
    """The language-model steps of a build (:class:`queries.llm_steps.LLMSteps`), or ``None`` when off."""
    if opts.translate != "llm" and opts.describe_undocumented != "llm":
        return None
    from .llm_steps import LLMSteps

    try:
        return LLMSteps.from_options(opts)
    except (ValueError, RuntimeError) as e:  # no --llm-url/--llm-model, openai not installed
        raise BuildError(str(e)) from None


def percentile_linear(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values`` (not empty) by linear
    interpolation between the two nearest ranks — numpy's ``percentile(...,
    method="linear")`` to the bit: virtual index ``(n - 1) * q / 100``, and
    numpy's two-sided ``lerp`` (``b - (b - a) * (1 - t)`` once ``t >= 0.5``).
    In pure Python so the merge need not import numpy (a tenth of a second of
    every build's serial part, docs/dataset.md "Scaling").

    Raises ``ValueError`` for an empty ``values`` or ``q`` outside 0..100."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q!r} outside 0..100")
    xs = sorted(float(v) for v in values)
    n = len(xs)
    virtual = (n - 1) * (q / 100)
    lo = math.floor(virtual)
    if virtual >= n - 1:  # numpy takes the last value at and past the top
        return xs[-1]
    a, b = xs[lo], xs[lo + 1]
    t = virtual - lo
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def _api_count_range(counts: list[int], fixed: tuple[float, float] | None, over: str) -> dict[str, Any]:
    if fixed is not None:
        return {"mode": "fixed", "low": fixed[0], "high": fixed[1], "n": len(counts)}
    if over == "calling":
        counts = [n for n in counts if n > 0]
    elif over != "all":
        raise BuildError(f"iqr_over must be 'calling' or 'all', got {over!r}")
    if not counts:
        return {"mode": "iqr", "over": over, "low": None, "high": None, "n": 0, "method": "linear"}
    q1, q3 = percentile_linear(counts, 25), percentile_linear(counts, 75)
    return {"mode": "iqr", "over": over, "low": q1, "high": q3, "n": len(counts), "method": "linear"}


def _no_samples_reason(pc: Counter, rng: dict, opts: BuildOptions, *, docs_given: bool) -> str:
    """Why a kept project contributed no sample: the filter stage that removed
    its last candidates (stages run IQR → targets → docs → leaks), with the
    option that would change it. ``pc`` holds the project's per-stage counts."""
    n = pc["candidates"]
    if not n:
        return "0 samples: 0 candidate methods with comments"
    left = n - pc["dropped_api_count"]
    if not left:
        if rng.get("mode") == "fixed":
            where = f"the --api-count-range [{rng['low']:g}, {rng['high']:g}]"
        else:
            where = f"the IQR [{rng['low']:g}, {rng['high']:g}] of direct-API counts"
        return f"0 samples: no method within {where} (all {n} candidates outside)"
    left -= pc["dropped_no_targets"]
    if not left:
        hint = "" if opts.keep_unresolved else "; give the classpath or use --keep-unresolved"
        return f"0 samples: none of the {n - pc['dropped_api_count']} candidates in range reaches a third-party API{hint}"
    left -= pc["dropped_undocumented"]
    if not left:
        reached, undoc = pc["reached_apis"], pc["undocumented_apis"]
        what = f"all {reached} reached APIs undocumented" if undoc == reached else (
            f"{undoc} of {reached} reached APIs undocumented and every candidate reaches one")
        given = "" if docs_given else " (no javadoc given)"
        return f"0 samples: {what}{given} — give javadoc/sources jars or use --no-require-docs"
    return f"0 samples: all {left} remaining candidates name a target in their query (--drop-leaky)"


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeResult:
    """What :func:`merge_parts` did.

    ``counts`` per stage (build-wide), ``api_count_range`` the range used,
    ``depth_histogram`` (target depth → targets), ``sample_depth_histogram``
    (depth_max → samples), ``density_histogram`` (bin label → samples),
    ``translation_errors``, ``llm`` (the language-model steps' summary or
    ``None``), ``samples_per_project`` and ``project_counts`` (part key →
    per-stage counts: ``candidates``, ``dropped_api_count``,
    ``dropped_no_targets``, ``dropped_undocumented``, ``dropped_leaky``,
    ``reached_apis``, ``undocumented_apis``, ``samples``),
    ``no_samples_reasons`` (part key → why a kept project gave no sample),
    ``undocumented_apis`` the API node ids without documentation (sorted),
    ``samples``/``apis`` the records written.
    """

    counts: dict[str, int]
    languages: dict[str, int]
    api_count_range: dict[str, Any]
    depth_histogram: dict[str, int]
    sample_depth_histogram: dict[str, int]
    density_histogram: dict[str, int]
    translation_errors: list[str]
    llm: dict | None
    samples_per_project: dict[str, int]
    project_counts: dict[str, dict[str, int]]
    no_samples_reasons: dict[str, str]
    undocumented_apis: tuple[str, ...] = ()
    samples: tuple[SampleRecord, ...] = field(default=(), repr=False)
    apis: tuple[ApiRecord, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The summary figures (everything but the records)."""
        return {f: getattr(self, f) for f in self.__slots__ if f not in ("samples", "apis")}


def _in_range(rng: dict, n: int) -> bool:
    return rng["low"] is None or rng["low"] <= n <= rng["high"]


def _filter_part(p: ProjectPart, rng: dict, opts: BuildOptions, pc: Counter, undocumented: set[str]) -> list[Candidate]:
    """The IQR, targets and documentation filters over one kept part's
    candidates (counted in ``pc``); returns the survivors."""
    reached: set[str] = set()
    undoc_here: set[str] = set()
    survivors = []
    for c in p.candidates:
        pc["candidates"] += 1
        if not _in_range(rng, c.api_count(opts.api_count)):
            pc["dropped_api_count"] += 1
            continue
        if not c.targets:
            pc["dropped_no_targets"] += 1
            continue
        nodes = c.api_nodes
        reached.update(nodes)
        missing = [n for n in nodes if not p.apis.get(n)]
        if missing:
            undocumented.update(missing)
            undoc_here.update(missing)
            if opts.require_docs:
                pc["dropped_undocumented"] += 1
                continue
        survivors.append(c)
    pc["reached_apis"] = len(reached)
    pc["undocumented_apis"] = len(undoc_here)
    return survivors


class _Translator:
    """Translation of the surviving non-English queries: the language model
    (``--translate llm``) or a command (``--translate-cmd``, with its cache
    in ``OUT/.translations.json``)."""

    def __init__(self, opts: BuildOptions, steps, out: Path):
        self.opts, self.steps = opts, steps
        self.cache: dict[str, str] = {}
        self.path = out / _TRANSLATIONS
        if opts.translate_cmd and self.path.is_file():
            try:
                got = json.loads(read_regular(self.path, 256 << 20).decode("utf-8"))
            except (OSError, ValueError, RecursionError):
                got = None
            # a cache in the output folder is data of whoever wrote there: only text → text
            if isinstance(got, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in got.items()):
                self.cache = got

    @property
    def on(self) -> bool:
        return (self.steps is not None and self.steps.translator is not None) or bool(self.opts.translate_cmd)

    def translate(self, survivors: list[Candidate]) -> dict[int, tuple[str | None, str | None]]:
        """``id(candidate)`` → (translation or None, error or None) for the foreign ones."""
        foreign = [c for c in survivors if self.on and c.lang not in ("en", "und")]
        if self.steps is not None and self.steps.translator is not None:
            english = self.steps.translator.translate_many([c.query for c in foreign])
            return {id(c): (t.text, t.error) for c, t in zip(foreign, english)}
        done = {}
        for c in foreign:
            text, err = _translate(self.opts.translate_cmd, c.query, self.cache)
            done[id(c)] = (None if err else text, err)
        return done

    def save(self) -> None:
        if self.opts.translate_cmd and self.cache:
            write_text_atomic(self.path, json.dumps(self.cache, ensure_ascii=False))


def merge_parts(
    parts: Iterable[ProjectPart], opts: BuildOptions, out: Path, *, api_counts: list[int] | None = None
) -> MergeResult:
    """Filter the candidates of all parts and write ``samples.jsonl`` and ``apis.jsonl``.

    Order: IQR on the API count → candidates without targets dropped →
    documentation (``require_docs``) → translation → leaks (``drop_leaky``).

    Parameters
    ----------
    parts : iterable of ProjectPart
        In list order. May be a generator (read once) when ``api_counts`` is
        given, so a large build never holds every project's candidates at once.
    opts : BuildOptions
    out : Path
    api_counts : list of int, optional
        The API count (``opts.api_count``) of every candidate of the kept
        parts (the IQR population before ``iqr_over``); computed from
        ``parts`` if omitted.
    """
    if api_counts is None:
        parts = list(parts)
        api_counts = [c.api_count(opts.api_count) for p in parts if p.verdict is Verdict.KEPT for c in p.candidates]
    rng = _api_count_range(api_counts, opts.api_count_range, opts.iqr_over)
    translated = leaky = 0  # the other build-wide counts are sums of the per-project ones
    samples: list[SampleRecord] = []
    apis: dict[str, ApiRecord] = {}
    undocumented: set[str] = set()
    per_project: dict[str, Counter] = {}
    per_reason: dict[str, str] = {}
    tr_errors: list[str] = []
    steps = llm_steps(opts)  # the language-model steps (--translate llm, --describe-undocumented llm) or None
    translator = _Translator(opts, steps, out)
    langs: Counter = Counter()  # the samples' query languages (before translation)
    untranslated = 0
    for p in parts:
        pc = per_project.setdefault(p.key, Counter())
        if p.verdict is not Verdict.KEPT:
            continue
        if steps is not None and steps.describer is not None:
            in_range = [c for c in p.candidates if _in_range(rng, c.api_count(opts.api_count))]
            steps.describe_part(p, in_range)  # fills p.apis for undocumented APIs it can describe
        survivors = _filter_part(p, rng, opts, pc, undocumented)
        # translation after the filters, so only samples that are kept cost a translation
        done = translator.translate(survivors)
        for c in survivors:
            query, source = c.query, "comment"
            if id(c) in done:
                text, err = done[id(c)]
                if err:
                    tr_errors.append(f"{p.project} {c.method}: {err}")
                else:
                    query, source = text, "translated"
                    translated += 1
            leaks = find_leaks(query, c.targets)
            if leaks:
                leaky += 1
                if opts.drop_leaky:
                    pc["dropped_leaky"] += 1
                    continue
            samples.append(SampleRecord(
                id=sample_id(p.project, p.commit, c.method), project=p.project, commit=p.commit, file=c.file,
                method=c.method, start_line=c.start_line, end_line=c.end_line, loc=c.loc, query=query,
                comment=c.comment, lang=c.lang, n_direct_apis=c.n_direct_apis, targets=c.targets,
                depth_max=c.depth_max, depth_min=c.depth_min, density=c.density, leaks=tuple(leaks),
                query_original=c.query, query_source=source))
            pc["samples"] += 1
            langs[c.lang] += 1
            if c.lang not in ("en", "und") and source != "translated":
                untranslated += 1
            for t in c.targets:
                doc = p.apis.get(t.node)
                if t.node not in apis or (apis[t.node].doc_source is None and doc):
                    apis[t.node] = doc or ApiRecord(api=t.api, signature=t.signature, class_=t.class_,
                                                    library=t.library)
        if not pc["samples"]:
            per_reason[p.key] = _no_samples_reason(pc, rng, opts, docs_given=bool(p.doc_paths))
    translator.save()

    def total(key: str) -> int:
        return sum(pc[key] for pc in per_project.values())

    stats = {
        "candidates": total("candidates"),
        "dropped_api_count": total("dropped_api_count"),
        "dropped_no_targets": total("dropped_no_targets"),
        "dropped_undocumented": total("dropped_undocumented"),
        "translated": translated,
        "leaky": leaky,
        "dropped_leaky": total("dropped_leaky"),
        "samples": len(samples),
        "apis": len(apis),
        "api_names": len({r.api for r in apis.values()}),
        "undocumented_apis": len(undocumented),
        "untranslated_non_english": untranslated,
    }
    samples.sort(key=lambda s: (s.project, s.file, s.start_line, s.method))
    write_jsonl(out / SAMPLES_FILE, samples)
    api_rows = [apis[k] for k in sorted(apis)]
    write_jsonl(out / APIS_FILE, api_rows)
    depth_hist = Counter(t.depth for s in samples for t in s.targets)
    sample_depth = Counter(s.depth_max for s in samples)
    return MergeResult(
        counts=dict(stats),
        languages=dict(sorted(langs.items(), key=lambda kv: (-kv[1], kv[0]))),
        api_count_range=rng,
        depth_histogram={str(k): depth_hist[k] for k in sorted(depth_hist)},
        sample_depth_histogram={str(k): sample_depth[k] for k in sorted(sample_depth)},
        density_histogram=_density_histogram([s.density for s in samples]),
        translation_errors=tr_errors,
        llm=steps.summary() if steps is not None else None,
        samples_per_project={k: v["samples"] for k, v in per_project.items()},
        project_counts={k: dict(v) for k, v in per_project.items()},
        no_samples_reasons=per_reason,
        undocumented_apis=tuple(sorted(undocumented)),
        samples=tuple(samples),
        apis=tuple(api_rows),
    )


DENSITY_BINS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def _density_histogram(values: list[float]) -> dict[str, int]:
    """Samples per density bin (lower bound exclusive, upper inclusive)."""
    out = {}
    for lo, hi in zip(DENSITY_BINS, DENSITY_BINS[1:]):
        out[f"({lo:g}, {hi:g}]"] = sum(1 for v in values if v is not None and lo < v <= hi)
    return out
