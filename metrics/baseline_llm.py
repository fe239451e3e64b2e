"""The LLM recommender baseline of Q-ARE §4.2 (Table 1): "method comments are
used as natural language queries, and the model selects relevant APIs from a
given API list".

For each sample the model gets the query and a **candidate list**: every API
of the dataset with its first sentence when the whole list fits the context
budget, otherwise the top-K of a BM25 pre-ranking of the APIs for that query
(:func:`metrics.baselines.bm25_rank`). Its answer — a JSON array of API ids,
most relevant first — is parsed into a ranked prediction list for ``qare
eval``. Answers naming APIs that are not in the candidate list are **kept**
(the model may know better) and counted per sample.

The model is reached through a hook, ``ask`` (``metrics`` imports nothing but
the record types): a function that takes a list of prompt-value dicts
(``query``, ``candidates``) and returns one ``(text, error)`` pair per dict
— the ``qare baseline llm`` command passes :class:`queries.llm.LLMClient`'s
``map`` with the packaged prompt ``metrics/prompts/baseline_llm.txt``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from records.dataset import ApiRecord

from .baselines import _unique_apis, api_id, bm25_rank
from .dataset import Dataset

__all__ = ["Ask", "LLMBaselineRun", "candidate_line", "estimate_tokens", "parse_ranking", "run_llm_baseline"]

Ask = Callable[[Sequence[dict[str, str]]], Sequence[tuple[str | None, str | None]]]
"""prompt values → one ``(answer text or None, error or None)`` per input."""

CHARS_PER_TOKEN = 4
"""The token estimate: characters / 4 (no tokenizer; English-heavy text and
code identifiers average close to it for GPT-style BPE vocabularies)."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (``ceil(len / CHARS_PER_TOKEN)``)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def candidate_line(a: ApiRecord) -> str:
    """``<api id> — <first sentence>`` (the id alone when undocumented)."""
    doc = " ".join((a.first_sentence or a.description or "").split())
    return f"{api_id(a)} — {doc}" if doc else api_id(a)


@dataclass(frozen=True, slots=True)
class LLMBaselineRun:
    """What :func:`run_llm_baseline` did.

    ``predictions``: sample id → ranked API ids; ``mode``: ``"all"`` (every
    API listed for every query) or ``"bm25-top-K"``; ``listed``: sample id →
    number of candidates shown; ``outside_list``: sample id → predicted ids
    that were not among its candidates (kept in ``predictions``);
    ``failures``: sample id → why the model gave no usable answer (then its
    predictions are empty); ``notes``: human-readable lines for the output.
    """

    predictions: dict[str, list[str]]
    mode: str
    listed: dict[str, int]
    outside_list: dict[str, list[str]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"mode": self.mode, "listed": self.listed, "outside_list": self.outside_list,
                "failures": self.failures, "notes": list(self.notes)}


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def parse_ranking(text: str) -> list[str]:
    """The ranked API ids of a model's answer.

    Accepted, in order: a JSON array of strings (the whole answer, a fenced
    code block, or the span from the first ``[`` to the last ``]``); a JSON
    object with a list under ``apis``/``predictions``/``ranking``; else one
    id per non-empty line, with bullets/numbers and an `` — reason`` tail
    removed. Ids are stripped of quotes and backticks; duplicates keep their
    first place. Raises ``ValueError`` when nothing in it looks like a list."""
    t = text.strip()
    spans = [t]
    spans += [b.split("\n", 1)[1] if "\n" in b else b for b in t.split("```")[1::2]]
    i, j = t.find("["), t.rfind("]")
    if 0 <= i < j:
        spans.append(t[i:j + 1])
    items = None
    for s in spans:
        try:
            v = json.loads(s.strip())
        except ValueError:
            continue
        if isinstance(v, dict):
            v = next((v[k] for k in ("apis", "predictions", "ranking") if isinstance(v.get(k), list)), None)
        if isinstance(v, list):
            items = [x if isinstance(x, str) else (x.get("api") or x.get("id") or "") if isinstance(x, dict) else str(x)
                     for x in v]
            break
    if items is None:
        lines = [ln for ln in t.splitlines() if ln.strip() and not ln.strip().startswith("```")]
        items = [re.split(r"\s+[—–-]\s+|\s+#\s", _BULLET.sub("", ln), maxsplit=1)[0] for ln in lines]
        items = [x for x in items if re.fullmatch(r"[\w$.<>]+(\([^)]*\))?", x.strip(" `'\""))]
        if not items:
            raise ValueError("the answer holds no list of API ids")
    out: list[str] = []
    for x in items:
        x = x.strip().strip("`'\"").strip()
        if x and x not in out:
            out.append(x)
    return out


def _canonical(pred: str, ids: set[str], by_name: dict[str, list[str]]) -> str:
    """A predicted id as one of the candidates when it names one: exact, or
    an API name (no parameters) / ``#``-separated / spaced variant that
    matches a single candidate's name."""
    if pred in ids:
        return pred
    p = re.sub(r"\s+", "", pred).replace("#", ".")
    if p in ids:
        return p
    name = p.split("(", 1)[0]
    hits = by_name.get(name, [])
    return hits[0] if len(hits) == 1 else pred


def run_llm_baseline(dataset: Dataset, ask: Ask, *, context_tokens: int = 8000, top_k: int = 50,
                     prompt_tokens: int = 0) -> LLMBaselineRun:
    """Ask the model for every sample's ranked APIs.

    Parameters
    ----------
    dataset : Dataset
        Its ``samples`` (``id``, ``query``) and ``apis``.
    ask : Ask
        The model hook (see the module doc).
    context_tokens : int
        Tokens the candidate list and query may take in one request (the
        model's context less its answer); estimated with :func:`estimate_tokens`.
    top_k : int
        Candidates per query when the whole list does not fit: the top-K of
        BM25 (fewer when fewer APIs share a word with the query; a query
        sharing none gets no request and an empty prediction).
    prompt_tokens : int
        Tokens of the prompt template itself, counted against ``context_tokens``.

    Raises ``ValueError`` for ``context_tokens``/``top_k`` < 1.
    """
    if context_tokens < 1 or top_k < 1:
        raise ValueError("context_tokens and top_k must be >= 1")
    ids, uniq = _unique_apis(dataset.apis)
    lines = {api_id(a): candidate_line(a) for a in uniq}
    full = "\n".join(lines[i] for i in ids)
    longest_query = max((estimate_tokens(s.query) for s in dataset.samples), default=0)
    fits = estimate_tokens(full) + longest_query + prompt_tokens <= context_tokens
    mode = "all" if fits else f"bm25-top-{top_k}"
    queries = {s.id: s.query for s in dataset.samples}
    if fits:
        lists = {sid: ids for sid in queries}
    else:
        lists = bm25_rank(queries, uniq, top=top_k)
    by_name: dict[str, list[str]] = {}
    for a in uniq:
        by_name.setdefault(a.api, []).append(api_id(a))
    asked = [sid for sid in queries if lists.get(sid)]
    replies = ask([{"query": queries[sid], "candidates": full if fits else "\n".join(lines[i] for i in lists[sid])}
                   for sid in asked]) if asked else []
    preds: dict[str, list[str]] = {sid: [] for sid in queries}
    outside: dict[str, list[str]] = {}
    failures: dict[str, str] = {}
    for sid in queries:
        if not lists.get(sid):
            failures[sid] = "no candidate: the query shares no word with any API (BM25 pre-ranking)"
    for sid, (text, err) in zip(asked, replies):
        if text is None:
            failures[sid] = err or "no answer"
            continue
        try:
            ranked = parse_ranking(text)
        except ValueError as e:
            failures[sid] = f"unparseable answer: {e}"
            continue
        shown = set(lists[sid])
        names = by_name if fits else {a.api: [] for a in uniq}
        if not fits:
            for i in lists[sid]:
                names[i.split("(", 1)[0]].append(i)
        out: list[str] = []
        for p in ranked:
            c = _canonical(p, shown, names)
            if c not in out:
                out.append(c)
        preds[sid] = out
        extra = [p for p in out if p not in shown]
        if extra:
            outside[sid] = extra
    n_out = sum(len(v) for v in outside.values())
    notes = [
        (f"candidates: all {len(ids)} APIs with first sentences for every query (fit in {context_tokens} tokens)"
         if fits else
         f"candidates: the {len(ids)} APIs ({estimate_tokens(full)} tokens est.) do not fit in {context_tokens} tokens; "
         f"the top-{top_k} of a BM25 pre-ranking per query instead"),
        f"{len(asked)} queries asked, {len(failures) - (len(queries) - len(asked))} without a usable answer"
        + (f"; {len(queries) - len(asked)} not asked (no BM25 candidate)" if len(asked) < len(queries) else ""),
        f"{n_out} predicted id(s) in {len(outside)} answer(s) not in the candidate list (kept)",
    ]
    return LLMBaselineRun(predictions=preds, mode=mode, listed={sid: len(lists.get(sid) or ()) for sid in queries},
                          outside_list=outside, failures=failures, notes=tuple(notes))
