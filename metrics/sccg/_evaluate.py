"""Execute generations against gold records and score them."""

from __future__ import annotations

import re

from records.sccg import code_params

from ._sandbox import Limits, execute_many
from ._scores import score_generation

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.S | re.I)


def strip_fences(text: str) -> str:
    """The first fenced code block of *text* (Markdown), else *text*."""
    m = _FENCE.search(text)
    return m.group(1) if m else text


def gold_hints(gold: dict) -> dict:
    """Parameter key → literal value of the gold's original code (query and
    body parameters with a literal value)."""
    meta = gold.get("api_metadata") if isinstance(gold.get("api_metadata"), dict) else {}
    return {p.key: p.value for p in code_params(meta)
            if p.location in ("query", "body", "path") and isinstance(p.value, (str, int, float, bool))}


def _jobs(generations):
    for g in generations:
        codes = g.get("generations")
        if codes is None:
            codes = [g.get("code")]
        elif not isinstance(codes, list):
            codes = [None]  # reported as a row without code, never iterated as characters
        for i, code in enumerate(codes):
            yield g, i, code


def evaluate(generations, golds: dict, *, n_jobs: int = 2, limits: Limits = Limits(), sandbox: str = "auto",
             extra_modules=frozenset(), protected=(), stand_ins: bool = True, compat: str = "qare"):
    """Run and score every generation, each in its own sandboxed process.

    Parameters
    ----------
    generations : iterable of dict
        ``{"sample_id": ..., "code": "..."}`` or ``{"sample_id": ...,
        "generations": ["...", ...]}`` (several samples of one prompt, for
        pass@k). Markdown code fences are stripped.
    golds : dict
        sample_id → SCCGBench gold record.
    n_jobs : int
        Sandboxes running at the same time.
    limits : Limits
    sandbox : {"auto", "bwrap", "none-unsafe"}
        See :func:`metrics.sccg.execute`.
    extra_modules : frozenset of str
        Extra module names Dep. counts as resolvable.
    protected : iterable of str
        Paths generated code must not reach (the gold file).
    compat : {"qare", "official"}
        Judging rules (:func:`metrics.sccg.score_generation`).
    stand_ins : bool
        Inert stand-ins for what the snippet's file had (see
        :func:`metrics.sccg.execute`); function arguments named like a gold
        parameter get the gold's literal value.

    Yields
    ------
    dict
        ``sample_id``, ``generation`` (index within the sample), ``function_name``,
        ``doc_match_type``, ``comments_source``, ``execution``
        (:meth:`Execution.to_dict`), ``scores`` (:meth:`GenerationScore.to_dict`),
        ``error`` (``None``, or why the row could not be scored). Input order.
    """
    items = []
    for g, i, code in _jobs(generations):
        sid = g.get("sample_id")
        gold = golds.get(sid)
        items.append((sid, i, gold, strip_fences(code) if isinstance(code, str) else None))
    runnable = [(code, gold.get("function_name"), gold_hints(gold)) for sid, i, gold, code in items
                if gold is not None and code is not None]
    results = execute_many(runnable, n_jobs=n_jobs, limits=limits, sandbox=sandbox, protected=protected,
                           stand_ins=stand_ins)
    for sid, i, gold, code in items:
        row = {"sample_id": sid, "generation": i, "function_name": None, "doc_match_type": None,
               "comments_source": None, "execution": None, "scores": None, "error": None}
        if gold is None:
            row["error"] = "sample_id not in the gold file"
            yield row
            continue
        meta = gold.get("api_metadata") or {}
        row.update(function_name=gold.get("function_name"), doc_match_type=meta.get("doc_match_type"),
                   comments_source=gold.get("comments_source"))
        if code is None:
            row["error"] = "generation has no code string"
            yield row
            continue
        ex = next(results)
        row["execution"] = ex.to_dict()
        row["scores"] = score_generation(code, ex.requests, gold, extra_modules=frozenset(extra_modules),
                                         compat=compat).to_dict()
        yield row
