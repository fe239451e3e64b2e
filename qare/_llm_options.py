"""The language-model options shared by `qare build` and `qare baseline llm`
(one decorator, so both commands name and document them the same way)."""

from __future__ import annotations

import click

LLM_EPILOG = (
    "Language model: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp's server); "
    "the API key is read from the environment only: QARE_LLM_API_KEY, else OPENAI_API_KEY (none needed "
    "for local servers). Replies are cached in <qare cache>/llm/responses.sqlite. Needs the 'llm' extra "
    "(pip install -e '.[llm]'). "
)


def llm_options(fn):
    """--llm-url, --llm-model, --llm-budget, --llm-concurrency, --llm-rpm,
    --llm-timeout, --llm-retries, --no-llm-cache (keyword names = the
    LLMConfig / BuildOptions fields)."""
    opts = [
        click.option("--llm-url", envvar="QARE_LLM_URL", default=None, metavar="URL",
                     help="Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (env QARE_LLM_URL)."),
        click.option("--llm-model", envvar="QARE_LLM_MODEL", default=None, metavar="NAME",
                     help="Model name as the endpoint knows it (env QARE_LLM_MODEL)."),
        click.option("--llm-budget", type=click.IntRange(min=0), default=None, metavar="N",
                     help="Send at most N requests (cache hits are free); the rest stay undone, with the reason recorded."),
        click.option("--llm-concurrency", type=click.IntRange(min=1), default=4, show_default=True,
                     help="Requests in flight at once."),
        click.option("--llm-rpm", type=click.FloatRange(min=0, min_open=True), default=None,
                     help="Requests started per minute at most (default: no limit)."),
        click.option("--llm-timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
                     help="Seconds for one HTTP attempt."),
        click.option("--llm-retries", type=click.IntRange(min=0), default=3, show_default=True,
                     help="Retries on 429/5xx, timeouts and connection errors (exponential backoff, Retry-After honoured)."),
        click.option("--no-llm-cache", "no_llm_cache", is_flag=True, help="Neither read nor write the response cache."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn
