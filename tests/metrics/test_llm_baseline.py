"""The LLM baseline (Q-ARE §4.2): candidate lists (all APIs vs BM25 top-K
under a context budget), answer parsing, ids outside the list, and
`qare baseline llm` end to end against the local fake endpoint, scored by
`qare eval`."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics import load_dataset, load_predictions
from metrics.baseline_llm import candidate_line, estimate_tokens, parse_ranking, run_llm_baseline
from qare.cli import main

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "tiny"
BLANK = "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)"
TOJSON = "com.google.gson.Gson.toJson"
READ = "org.apache.commons.io.FileUtils.readFileToString(java.io.File,java.nio.charset.Charset)"


def test_parse_ranking_forms():
    assert parse_ranking('["a.B.c(int)", "d.E.f"]') == ["a.B.c(int)", "d.E.f"]
    assert parse_ranking('Sure!\n```json\n["x.Y.z", "x.Y.z", "p.Q.r"]\n```') == ["x.Y.z", "p.Q.r"]
    assert parse_ranking('{"apis": ["x.Y.z"]}') == ["x.Y.z"]
    assert parse_ranking("1. `x.Y.z(int)` — parses it\n2. p.Q.r") == ["x.Y.z(int)", "p.Q.r"]
    with pytest.raises(ValueError):
        parse_ranking("I cannot help with that.")


def test_candidate_line_and_token_estimate():
    ds = load_dataset(TINY)
    blank = next(a for a in ds.apis if a.signature == BLANK)
    assert candidate_line(blank) == f"{BLANK} — Checks if a CharSequence is empty, null or whitespace only."
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2


def test_all_apis_listed_when_they_fit():
    ds = load_dataset(TINY)
    seen = []

    def ask(values):
        seen.extend(values)
        return [(json.dumps([BLANK, "com.google.gson.Gson.toJson(java.lang.Object)", "made.Up.api"]), None)] * len(values)

    run = run_llm_baseline(ds, ask, context_tokens=100_000)
    assert run.mode == "all"
    assert len(seen) == 4 and all(v["candidates"].count("\n") == 4 for v in seen)  # 5 APIs, one a line
    first = ds.samples[0].id
    # Gson.toJson has no signature in apis.jsonl: the model's toJson(Object) maps to its listed id
    assert run.predictions[first] == [BLANK, TOJSON, "made.Up.api"]
    assert run.outside_list[first] == ["made.Up.api"]
    assert run.listed[first] == 5 and not run.failures
    assert "all 5 APIs" in run.notes[0]


def test_bm25_top_k_when_the_list_does_not_fit():
    ds = load_dataset(TINY)
    seen = []

    def ask(values):
        seen.extend(values)
        return [("[]", None) for _ in values]

    run = run_llm_baseline(ds, ask, context_tokens=20, top_k=2)
    assert run.mode == "bm25-top-2"
    assert "do not fit in 20 tokens" in run.notes[0] and "top-2 of a BM25" in run.notes[0]
    # the file-reading query: BM25's top 2 are shown, readFileToString first
    s = next(s for s in ds.samples if "file" in s.query.lower())
    v = next(v for v in seen if v["query"] == s.query)
    assert 1 <= v["candidates"].count("\n") + 1 <= 2 and v["candidates"].startswith(READ)


def test_failures_are_recorded_and_leave_empty_predictions():
    ds = load_dataset(TINY)
    answers = iter([(None, "timeout: Request timed out."), ("no list here", None), (f'["{BLANK}"]', None),
                    (f'["{BLANK}"]', None)])
    run = run_llm_baseline(ds, lambda values: [next(answers) for _ in values], context_tokens=100_000)
    ids = [s.id for s in ds.samples]
    assert run.failures[ids[0]].startswith("timeout") and run.predictions[ids[0]] == []
    assert run.failures[ids[1]].startswith("unparseable answer")
    assert run.predictions[ids[2]] == [BLANK]
    assert run.notes[1] == "4 queries asked, 2 without a usable answer"


@pytest.fixture
def needs_openai():
    pytest.importorskip("openai", reason="extra 'llm' (openai) not installed: pip install -e '.[llm]'")


def test_cli_baseline_llm_end_to_end(needs_openai, tmp_path, monkeypatch):
    from tests.llm_fake import FakeLLM, ok, user_text

    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "cache"))
    ds = load_dataset(TINY)
    gold = {s.query: [t.signature or t.api for t in s.targets] for s in ds.samples}

    def answer(body, i):
        text = user_text(body)
        query = text.split("Method description:\n", 1)[1].split("\n", 1)[0]
        return ok(json.dumps(gold[query][:1] + ["not.In.The.list"]))  # the first gold target, then an unknown id

    out = tmp_path / "p.jsonl"
    with FakeLLM(answer) as srv:
        r = CliRunner().invoke(main, ["baseline", "llm", str(TINY), "--out", str(out), "--llm-url", srv.url,
                                      "--llm-model", "fake-rec"])
        assert r.exit_code == 0, r.output
        n = len(srv.requests)
        # a second run is answered from the cache
        r2 = CliRunner().invoke(main, ["baseline", "llm", str(TINY), "--out", str(tmp_path / "p2.jsonl"),
                                       "--llm-url", srv.url, "--llm-model", "fake-rec"])
        assert r2.exit_code == 0 and len(srv.requests) == n == 4
    assert "note: candidates: all 5 APIs" in r.output and "4 predicted id(s) in 4 answer(s) not in the candidate list" in r.output
    preds, problems = load_predictions(out)
    assert all(p[-1] == "not.In.The.list" for p in preds.values())
    meta = json.loads(out.with_suffix(".llm.json").read_text())
    assert meta["llm"]["model"] == "fake-rec" and meta["mode"] == "all" and len(meta["llm"]["prompts"]) == 1
    assert meta["llm"]["cache_hits"] == 0
    # qare eval scores it: each answer has one gold target of its sample, so precision is 1/2 everywhere
    ev = CliRunner().invoke(main, ["eval", str(out), "--gold", str(TINY), "--level", "signature", "--json",
                                   "--resamples", "10"])
    rep = json.loads(ev.output)
    assert rep["overall"]["scores"]["precision"] == pytest.approx(0.5)


def test_cli_baseline_llm_needs_url(tmp_path):
    r = CliRunner().invoke(main, ["baseline", "llm", str(TINY), "--out", str(tmp_path / "p.jsonl")])
    assert r.exit_code == 2 and "--llm-url" in r.output
