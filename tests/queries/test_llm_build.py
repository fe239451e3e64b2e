"""`qare build --translate llm` / `--describe-undocumented llm` against the
local fake endpoint: which samples are translated, the record fields, the
manifest, failures recorded while the build goes on. The project is
fixtures/java/build-pipeline/zh-llm on its real call graph (test_build_pipeline.env)."""

import json

import pytest

pytest.importorskip("openai", reason="extra 'llm' (openai) not installed: pip install -e '.[llm]'")

import queries.build as qb
from queries.build import BuildOptions, build_dataset
from queries.llm import load_prompt
from tests.llm_fake import FakeLLM, ok, status, user_text
from tests.queries.test_build_pipeline import env, read_jsonl  # noqa: F401 - env is a fixture

ZH = {"去掉首尾空白。": "Strips surrounding whitespace.", "连接所有元素。": "Joins all elements."}


def translator(body, i):
    text = user_text(body).rsplit("\n\n", 1)[-1].strip()
    return ok(f'"{ZH[text]}"') if text in ZH else status(500)


def opts(url, tmp_path, **kw):
    return BuildOptions(api_count_range=(0, 9), llm_url=url, llm_model="fake-mt", llm_retries=0,
                        llm_cache=str(tmp_path / "llm.sqlite"), **kw)


def test_translate_llm(env, tmp_path):
    _, _, project = env
    with FakeLLM(translator) as srv:
        res = build_dataset([project("zh", "zh-llm")], tmp_path / "out", opts(srv.url, tmp_path, translate="llm"), quiet=True)
        sent = len(srv.requests)
        # a re-run is served from the cache: only the request that failed (failures are not cached) is sent again
        build_dataset([project("zh2", "zh-llm")], tmp_path / "out2", opts(srv.url, tmp_path, translate="llm"), quiet=True)
        again = len(srv.requests) - sent
    got = {d["method"]: d for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    a = got["p.C.a(java.lang.String)"]
    assert (a["query"], a["query_original"], a["query_source"], a["lang"], a["comment"]) == (
        "Strips surrounding whitespace.", "去掉首尾空白。", "translated", "zh", "/** 去掉首尾空白。 */")
    assert got["p.C.b(java.lang.String)"]["query"] == "Joins all elements."
    # English is not sent; the failed one keeps its query, says why, and the build goes on
    c = got["p.C.c(java.lang.String)"]
    assert (c["query"], c["query_original"], c["query_source"]) == (
        "Trims it.", "Trims it.", "comment")
    assert (got["p.C.d(java.lang.String)"]["query"], got["p.C.d(java.lang.String)"]["query_source"]) == ("这个请求会失败。", "comment")
    assert sent == 3 and again == 1
    assert res.counts["translated"] == 2
    [err] = res.merge["translation_errors"]
    assert err.startswith("zh p.C.d(java.lang.String): server_error: HTTP 500")
    man = json.loads((tmp_path / "out/manifest.json").read_text())
    llm = man["llm"]
    assert llm["endpoint"] == srv.url and llm["model"] == "fake-mt"
    assert llm["prompts"] == {"translate": load_prompt("translate").sha256}
    assert llm["requests"] == 3 and llm["failures"] == {"server_error": 1}
    assert man["parameters"]["translate"] == "llm"
    assert json.loads((tmp_path / "out2/manifest.json").read_text())["llm"]["cache_hits"] == 2


def test_budget_leaves_the_rest_untranslated(env, tmp_path):
    _, _, project = env
    with FakeLLM(translator) as srv:
        res = build_dataset([project("zh", "zh-llm")], tmp_path / "out",
                            opts(srv.url, tmp_path, translate="llm", llm_budget=1, llm_concurrency=1), quiet=True)
    assert len(srv.requests) == 1 and res.counts["translated"] == 1
    errs = res.merge["translation_errors"]
    assert len(errs) == 2 and all("budget_exhausted" in e for e in errs)


def test_unreachable_endpoint_keeps_queries_and_finishes(env, tmp_path):
    _, _, project = env
    res = build_dataset([project("zh", "zh-llm")], tmp_path / "out",
                        opts("http://127.0.0.1:9/v1", tmp_path, translate="llm"), quiet=True)
    assert res.counts["samples"] == 4 and res.counts["translated"] == 0
    assert all("unreachable" in e for e in res.merge["translation_errors"])
    assert {d["query_source"] for d in read_jsonl(tmp_path / "out/samples.jsonl")} == {"comment"}


def test_llm_steps_need_url_and_model(env, tmp_path):
    _, _, project = env
    with pytest.raises(qb.BuildError, match="--llm-url"):
        build_dataset([project("x")], tmp_path / "out", BuildOptions(translate="llm"), quiet=True)


def test_cli_usage_error_without_url(tmp_path):
    from click.testing import CliRunner

    from qare.cli import main

    (tmp_path / "l.txt").write_text(str(tmp_path) + "\n")
    r = CliRunner().invoke(main, ["build", str(tmp_path / "l.txt"), "--out", str(tmp_path / "o"), "--translate", "llm", "-q"])
    assert r.exit_code == 2 and "--llm-url" in r.output
