"""Issue 16: SCCGBench's released schema, read and run as released.

``fixtures/sccg/release/split_like.json`` is written for these tests in the
release's shape (a JSON array; ``code_params`` a dict of code fragments or
of key lists; comments as ``{type, line, text}`` dicts); its data is made up.
Issue 15 item 10: a line of 100,000 nested ``[`` is a line error.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics.sccg import check_gold, execute, sandbox_status, score_generation, summarise
from qare.cli import main
from records.sccg import code_params, comment_texts, documented_keys, read_records, record_problem

RELEASE = Path(__file__).resolve().parents[2] / "fixtures" / "sccg" / "release" / "split_like.json"
BWRAP_OK, BWRAP_WHY = sandbox_status()
MODE = "auto" if BWRAP_OK else "none-unsafe"
SANDBOX_ARGS = [] if BWRAP_OK else ["--sandbox", "none-unsafe"]


def _records():
    recs, errors = read_records(RELEASE.read_bytes(), str(RELEASE))
    assert errors == []
    return {r["sample_id"]: r for r in recs}


def _jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


# ----------------------------------------------------------------- reading


def test_release_array_is_read_and_bad_records_named():
    recs = _records()
    assert list(recs) == [f"REL-{i}" for i in range(1, 9)]
    problems = {sid: record_problem(r) for sid, r in recs.items()}
    assert problems == {**{f"REL-{i}": None for i in range(1, 8)}, "REL-8": "api_metadata.code_params is a str"}


def test_code_params_fragments_and_key_lists():
    recs = _records()
    got = [(p.key, p.location, p.value) for p in code_params(recs["REL-1"]["api_metadata"])]
    assert got == [("X-RapidAPI-Host", "header", "skyfacts.p.rapidapi.com"), ("X-RapidAPI-Key", "header", None),
                   ("station", "query", None), ("start", "query", None), ("end", "query", None)]
    assert [(p.key, p.location) for p in code_params(recs["REL-3"]["api_metadata"])] == [("q", "query")]
    assert [(p.key, p.value) for p in code_params(recs["REL-7"]["api_metadata"])] == [("base", "EUR")]
    # the benchmark's header exclusions: content-type is not a parameter outside headers
    assert code_params({"code_params": {"payload_code": 'p = {"content-type": 1, "text": t}'}})[0].key == "text"
    # a cut fragment still gives its quoted keys
    assert [p.key for p in code_params({"code_params": {"querystring_code": 'q = {"a": 1, "b": f(x'}})] == ["a", "b"]
    # qare's own list shape is unchanged
    p = code_params({"code_params": [{"key": "k", "in": "body", "value": 2}]})[0]
    assert (p.key, p.location, p.value) == ("k", "body", 2)
    assert documented_keys(recs["REL-3"]["api_metadata"]) == ["q", "limit"]
    assert documented_keys({"params": [{"name": "id", "in": "path"}, {"name": "q"}], "payload": {"text": ""}}) == ["q", "text"]


def test_comment_dicts():
    recs = _records()
    assert comment_texts(recs["REL-1"]) == ["Fetch daily records from SkyFacts."]
    assert comment_texts({"comments": ["a", {"text": "b"}, {"line": 3}, 7]}) == ["a", "b"]


def test_deep_nesting_is_a_line_error():
    deep = b"[" * 100_000
    recs, errors = read_records(b'{"sample_id": "a"}\n' + deep + b"\n", "g.jsonl")
    assert [r["sample_id"] for r in recs] == ["a"]
    assert errors == ["g.jsonl:2: RecursionError: JSON nested too deeply"]
    recs, errors = read_records(deep, "g.json")
    assert recs == [] and errors == ["g.json: RecursionError: JSON nested too deeply"]


def test_cli_deep_nesting_in_execute_and_score(tmp_path):
    runner = CliRunner()
    gens = tmp_path / "gens.jsonl"
    gens.write_text("[" * 100_000 + "\n" + json.dumps({"sample_id": "REL-3", "code": "def search(q):\n    pass\n"}) + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(main, ["sccg", "execute", str(gens), "--gold", str(RELEASE), "-o", str(out), *SANDBOX_ARGS])
    assert res.exit_code == 1, res.output
    assert f"{gens}:1: RecursionError: JSON nested too deeply" in res.output
    assert "REL-8" in res.output and "code_params is a str" in res.output
    assert [r["sample_id"] for r in _jsonl(out)] == ["REL-3"]
    res = runner.invoke(main, ["sccg", "score", str(gens)])
    assert res.exit_code == 3 and "RecursionError" in res.output  # nothing scored; the line named


def test_cli_redact_reads_release_comments(tmp_path):
    out = tmp_path / "red.jsonl"
    res = CliRunner().invoke(main, ["sccg", "redact", str(RELEASE), "-o", str(out)])
    assert res.exit_code == 1, res.output  # REL-8, and REL-6 whose released code does not parse
    assert "REL-8" in res.output and "REL-6: SyntaxError" in res.output
    rows = {r["sample_id"]: r for r in _jsonl(out)}
    assert len(rows) == 6
    # "SkyFacts" in the docstring names the API: the comment leak check sees dict comments now
    assert rows["REL-1"]["leaks"]["comments"] == [["host"]]
    assert "skyfacts.p.rapidapi.com" not in rows["REL-1"]["code"]["redacted_function"]


# ----------------------------------------------------------------- running the gold code


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rel")
    recs = _records()
    gens = tmp / "gens.jsonl"
    gens.write_text("".join(json.dumps({"sample_id": sid, "code": r["code"]["complete_function"]}) + "\n"
                            for sid, r in recs.items() if sid != "REL-8"))
    out, plain = tmp / "out.jsonl", tmp / "plain.jsonl"
    runner = CliRunner()
    res = runner.invoke(main, ["sccg", "execute", str(gens), "--gold", str(RELEASE), "-o", str(out), *SANDBOX_ARGS])
    res2 = runner.invoke(main, ["sccg", "execute", str(gens), "--gold", str(RELEASE), "-o", str(plain),
                                "--no-stand-ins", *SANDBOX_ARGS])
    return res, {r["sample_id"]: r for r in _jsonl(out)}, {r["sample_id"]: r for r in _jsonl(plain)}


def test_gold_code_hits_its_annotation_with_stand_ins(executed):
    res, rows, plain = executed
    assert res.exit_code == 1  # REL-8 is reported, the rest runs
    mock = {sid: r["scores"]["mock"] for sid, r in rows.items()}
    assert mock == {"REL-1": True, "REL-2": True, "REL-3": True, "REL-4": False, "REL-5": False, "REL-6": False,
                    "REL-7": True}
    # without stand-ins the imports of REL-1 and the missing `import requests` of REL-2 fail
    assert {sid: r["scores"]["mock"] for sid, r in plain.items() if sid in ("REL-1", "REL-2")} == {
        "REL-1": False, "REL-2": False}
    assert plain["REL-1"]["execution"]["error"].startswith("ModuleNotFoundError")
    assert plain["REL-1"]["execution"]["stand_ins"] == []


def test_stand_ins_are_recorded(executed):
    _, rows, _ = executed
    assert rows["REL-1"]["execution"]["stand_ins"] == ["module:skyfacts_env", "module:skyfacts_project", "global:RAPIDAPI_KEY",
                                                   "global:logger"]
    assert rows["REL-1"]["scores"]["request"]["headers"]["X-RapidAPI-Key"] == "test-api-key"
    # a forgotten `import os` gets the real os; the unset key-like variable a stand-in value
    assert rows["REL-2"]["execution"]["stand_ins"] == ["global:os", "env:TEXTBOX_API_KEY", "global:requests"]
    assert rows["REL-2"]["scores"]["request"]["headers"]["X-RapidAPI-Key"] == "test-api-key"


def test_param_f1_undefined_without_gold_keys(executed):
    _, rows, _ = executed
    f1 = {sid: r["scores"]["param_f1"] for sid, r in rows.items()}
    # REL-2 (a POST) has no documented keys and none in its code: undefined, not 0 and not 1
    assert f1["REL-2"] is None
    assert f1["REL-1"] == 1.0 and f1["REL-3"] == pytest.approx(2 / 3) and f1["REL-7"] == 1.0
    s = summarise(rows.values(), ks=(1,))["overall"]
    assert s["param_f1_undefined"] == 1
    defined = [v for v in f1.values() if v is not None]
    assert s["param_f1"] == pytest.approx(sum(defined) / len(defined))


def test_fakes_positional_params_request_send_and_case(executed):
    _, rows, _ = executed
    r3 = rows["REL-3"]["scores"]["request"]
    assert (r3["params"], r3["route"]) == ({"q": "test"}, "/search")  # positional params; gold says /Search
    assert rows["REL-3"]["scores"]["endpoint"] is True
    r7 = rows["REL-7"]
    assert r7["execution"]["status"] == "ok", r7["execution"]["error"]  # apparent_encoding exists
    # Request + Session.send, session headers merged; the argument took the gold's literal value
    assert (r7["scores"]["request"]["params"], r7["scores"]["request"]["headers"]) == (
        {"base": "EUR"}, {"X-RapidAPI-Host": "fx.p.rapidapi.com"})


def test_authority_header_is_not_a_secret(executed):
    _, rows, _ = executed
    assert rows["REL-3"]["scores"]["secret"] is True
    code = 'def f():\n    h = {"auth": "findit.p.rapidapi.com"}\n'
    assert score_generation(code, [], {}).secret is False  # a real auth value of 21 characters still is


def test_check_gold_classes():
    recs = [r for sid, r in _records().items() if sid != "REL-8"]
    rows = {r["sample_id"]: r for r in check_gold(recs, sandbox=MODE)}
    assert {sid: r["class"] for sid, r in rows.items()} == {
        "REL-1": "hit", "REL-2": "hit", "REL-3": "hit", "REL-4": "annotation_mismatch",
        "REL-5": "framework_context", "REL-6": "broken_code", "REL-7": "hit"}
    assert rows["REL-4"]["reason"] == "endpoint: code sends GET https://quotes.p.rapidapi.com/v1/quote/AAPL"
    assert rows["REL-4"]["gold"] == {"host": "quotes.p.rapidapi.com", "route": "/v2/quote", "method": "GET"}


def test_cli_check_gold(tmp_path):
    out = tmp_path / "check.jsonl"
    res = CliRunner().invoke(main, ["sccg", "check-gold", str(RELEASE), "-o", str(out), *SANDBOX_ARGS])
    assert res.exit_code == 1, res.output  # REL-8
    summary = json.loads(res.output.strip().splitlines()[-1])
    assert summary == {"n": 7, "classes": {"hit": 4, "annotation_mismatch": 1, "framework_context": 1,
                                           "broken_code": 1}}
    assert len(_jsonl(out)) == 7


def test_stand_in_value_rules():
    code = ("from .settings import CFG\nfrom ...top import X\n"
            "def f(pages_anz, cities, session):\n"
            "    session.get('https://a.example.com/x', params={'p': pages_anz, 'c': cities, 'k': get_api_key(),"
            " 'u': BASE_URL, 'f': __file__, 'cfg': str(CFG.x)})\n")
    ex = execute(code, "f", sandbox=MODE)
    assert ex.status == "ok", ex.error
    assert ex.requests[0]["params"] == {"p": 1, "c": "London", "k": "test-api-key", "u": "https://example.com",
                                        "f": "/tmp/work/generation.py", "cfg": ""}
    assert ex.stand_ins == ("module:.settings", "module:.top", "global:get_api_key", "global:BASE_URL")
