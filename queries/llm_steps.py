"""The language-model steps of one ``qare build`` (``--translate llm``,
``--describe-undocumented llm``): one :class:`queries.llm.LLMClient` shared by
the translator and the describer, so the budget, cache and limits are the
build's, and one summary for ``manifest.json``."""

from __future__ import annotations

from typing import Any

from .describe import Describer
from .llm import LLMClient, LLMConfig
from .translate import LLMTranslator

__all__ = ["LLMSteps"]


class LLMSteps:
    """``translator`` and ``describer`` (each ``None`` when its step is off)."""

    def __init__(self, client: LLMClient, *, translate: bool, describe: bool):
        self.client = client
        self.translator = LLMTranslator(client) if translate else None
        self.describer = Describer(client) if describe else None

    @classmethod
    def from_options(cls, opts) -> "LLMSteps":
        """From a :class:`queries.build.BuildOptions`. Raises ``ValueError``
        without ``llm_url``/``llm_model``, :class:`queries.llm.LLMUnavailable`
        (a ``RuntimeError``) without the ``openai`` package."""
        missing = [f"--{k.replace('_', '-')}" for k in ("llm_url", "llm_model") if not getattr(opts, k)]
        if missing:
            raise ValueError(f"--translate llm / --describe-undocumented llm need {' and '.join(missing)}")
        cfg = LLMConfig(url=opts.llm_url, model=opts.llm_model, budget=opts.llm_budget,
                        concurrency=opts.llm_concurrency, rpm=opts.llm_rpm, timeout=opts.llm_timeout,
                        retries=opts.llm_retries, cache=opts.llm_cache)
        return cls(LLMClient(cfg), translate=opts.translate == "llm", describe=opts.describe_undocumented == "llm")

    def describe_part(self, part, candidates) -> None:
        """Describe the undocumented APIs that ``candidates`` (a kept
        :class:`~queries._part.ProjectPart`'s candidates within the API-count
        range) reach, from the part's doc paths (sources jars) and classpath
        jars; the records go into ``part.apis``."""
        from records.dataset import ApiRecord

        want = {}
        for c in candidates:
            for t in c.targets:
                if not part.apis.get(t.node):
                    want.setdefault(t.node, t.to_dict())
        if not want:
            return
        got = self.describer.describe(want, sources=list(part.doc_paths or ()), jars=list(part.classpath_jars or ()))
        part.apis.update({node: ApiRecord.from_dict(d) for node, d in got.items()})

    def summary(self) -> dict[str, Any]:
        out = self.client.summary()
        out["steps"] = [s for s, on in (("translate", self.translator), ("describe", self.describer)) if on]
        if self.describer is not None:
            out["described_apis"] = self.describer.described
            out["described_from"] = dict(sorted(self.describer.origins.items()))
            errs = sorted(self.describer.errors.items())
            out["description_errors"] = [f"{k}: {v}" for k, v in errs[:100]]
            out["undescribed_apis"] = len(errs)
        return out
