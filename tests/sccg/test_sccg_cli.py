"""`qare sccg extract | redact | execute | score` end to end."""

import json
from pathlib import Path

from click.testing import CliRunner

from metrics.sccg import sandbox_status
from qare.cli import main

# without a working bwrap execute refuses (exit 4); these cases then opt in to unsafe running
SANDBOX = [] if sandbox_status()[0] else ["--sandbox", "none-unsafe"]

REPOS = Path(__file__).resolve().parents[2] / "fixtures" / "sccg" / "repos"


def _jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_cli_pipeline(tmp_path):
    runner = CliRunner()
    recs = tmp_path / "records.jsonl"
    res = runner.invoke(main, ["sccg", "extract", str(REPOS / "weather_app"), str(REPOS / "aio_bot"), "-o", str(recs)])
    assert res.exit_code == 0, res.output
    records = _jsonl(recs)
    assert [r["function_name"] for r in records] == ["get_forecast", "current_by_location", "translate", "detect"]

    red = tmp_path / "redacted.jsonl"
    res = runner.invoke(main, ["sccg", "redact", str(recs), "-o", str(red)])
    assert res.exit_code == 0, res.output
    redacted = {r["function_name"]: r for r in _jsonl(red)}
    assert "weatherapi-com" not in redacted["get_forecast"]["code"]["redacted_function"]
    assert redacted["get_forecast"]["leaks"]["comments"] == [[], []]

    gold = next(r for r in records if r["function_name"] == "get_forecast")
    gens = tmp_path / "gens.jsonl"
    hit = (
        "import requests\n"
        "def get_forecast(city):\n"
        "    return requests.get('https://weatherapi-com.p.rapidapi.com/forecast.json',"
        " params={'q': city, 'days': 3}).json()\n"
    )
    miss = "import requests\ndef get_forecast(city):\n    return requests.get('https://api.weather.gov/x').json()\n"
    gens.write_text(
        json.dumps({"sample_id": gold["sample_id"], "generations": ["```python\n" + hit + "```", miss]}) + "\n"
        + json.dumps({"sample_id": "unknown", "code": hit}) + "\n"
        + "{broken json\n"
    )
    out = tmp_path / "results.jsonl"
    res = runner.invoke(main, ["sccg", "execute", *SANDBOX, str(gens), "--gold", str(recs), "-o", str(out), "--jobs", "2"])
    assert res.exit_code == 1, res.output  # the unknown sample and the broken line are reported
    rows = _jsonl(out)
    assert [(r["sample_id"] == gold["sample_id"], r["generation"]) for r in rows] == [(True, 0), (True, 1), (False, 0)]
    assert rows[0]["scores"]["mock"] is True and rows[1]["scores"]["stage"] == "host"
    # gold keys from the code: q, days, lang → {q, days} sent: F1 = 0.8
    assert abs(rows[0]["scores"]["param_f1"] - 0.8) < 1e-9
    assert rows[2]["error"] == "sample_id not in the gold file"

    res = runner.invoke(main, ["sccg", "score", str(out), "--k", "1,2"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["overall"]["n"] == 2 and summary["overall"]["mock"] == 0.5
    assert summary["pass_at_k"]["2"] == {"value": 1.0, "samples": 1}
    assert summary["failure_attribution"]["host"]["count"] == 1


def test_cli_extract_with_docs(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        json.dumps({"api_host": "weatherapi-com.p.rapidapi.com", "route": "/forecast.json", "method": "GET",
                    "endpoint_id": "fc", "params": [{"name": "q", "in": "query"}, {"name": "days", "in": "query"}]})
        + "\nnot json\n"
    )
    out = tmp_path / "r.jsonl"
    res = CliRunner().invoke(main, ["sccg", "extract", str(REPOS / "weather_app"), "--docs", str(docs), "-o", str(out)])
    assert res.exit_code == 1 and "docs.jsonl:2" in res.output  # the broken docs line is reported
    meta = {r["function_name"]: r["api_metadata"] for r in _jsonl(out)}
    assert (meta["get_forecast"]["doc_match_type"], meta["get_forecast"]["endpoint_id"]) == ("url", "fc")
    assert meta["current_by_location"]["doc_match_type"] == "host_only"


def test_cli_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["sccg", "extract", str(tmp_path / "missing")])
    assert res.exit_code == 3
    res = runner.invoke(main, ["sccg", "extract", str(REPOS / "wrappers"), "-o", str(tmp_path / "w.jsonl")])
    assert res.exit_code == 1 and "tools/broken.py" in res.output
    assert runner.invoke(main, ["sccg", "redact", str(tmp_path / "nope.jsonl")]).exit_code == 3
    assert runner.invoke(main, ["sccg", "execute", *SANDBOX, str(tmp_path / "g.jsonl"), "--gold", str(tmp_path / "x")]).exit_code == 3
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert runner.invoke(main, ["sccg", "score", str(empty)]).exit_code == 3
    assert runner.invoke(main, ["sccg", "score", str(empty), "--k", "0"]).exit_code == 2


def test_cli_nothing_to_work_on_exits_3(tmp_path):
    # issue 6: a folder without Python files is "no input" (qare.exitcodes.NO_INPUT), not an empty success
    runner = CliRunner()
    empty_repo = tmp_path / "repo"
    (empty_repo / "docs").mkdir(parents=True)
    (empty_repo / "README.md").write_text("requests.get('https://a.example.com/')\n")
    (empty_repo / "docs" / "notes.txt").write_text("x\n")
    out = tmp_path / "r.jsonl"
    res = runner.invoke(main, ["sccg", "extract", str(empty_repo), "-o", str(out)])
    assert res.exit_code == 3 and "no Python files" in res.output
    assert not out.exists()
    # a missing folder next to an empty one: reported, still nothing to work on
    res = runner.invoke(main, ["sccg", "extract", str(empty_repo), str(tmp_path / "missing"), "-o", str(out)])
    assert res.exit_code == 3 and "missing" in res.output and "not a directory" in res.output

    recs = tmp_path / "records.jsonl"
    assert runner.invoke(main, ["sccg", "extract", str(REPOS / "weather_app"), "-o", str(recs)]).exit_code == 0

    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n[1, 2]\n")
    res = runner.invoke(main, ["sccg", "redact", str(broken)])
    assert res.exit_code == 3 and "broken.jsonl:1" in res.output and "broken.jsonl:2: not a JSON object" in res.output

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    res = runner.invoke(main, ["sccg", "execute", *SANDBOX, str(empty), "--gold", str(recs)])
    assert res.exit_code == 3 and "no generations" in res.output
    no_gens = tmp_path / "nogens.jsonl"
    no_gens.write_text(json.dumps({"sample_id": "x", "generations": []}) + "\n")
    res = runner.invoke(main, ["sccg", "execute", *SANDBOX, str(no_gens), "--gold", str(recs)])
    assert res.exit_code == 3 and "no generations" in res.output
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"sample_id": "x", "code": "def f():\n    pass\n"}) + "\n")
    res = runner.invoke(main, ["sccg", "execute", *SANDBOX, str(one), "--gold", str(empty)])
    assert res.exit_code == 3 and "no gold records" in res.output

    # rows that could not be scored only (unknown sample, non-list generations): nothing to score
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"sample_id": "x", "code": "def f():\n    pass\n"}) + "\n"
                   + json.dumps({"sample_id": _jsonl(recs)[0]["sample_id"], "generations": "def f(): pass"}) + "\n")
    results = tmp_path / "results.jsonl"
    res = runner.invoke(main, ["sccg", "execute", *SANDBOX, str(bad), "--gold", str(recs), "-o", str(results)])
    assert res.exit_code == 1
    assert [r["error"] for r in _jsonl(results)] == ["sample_id not in the gold file", "generation has no code string"]
    res = runner.invoke(main, ["sccg", "score", str(results)])
    assert res.exit_code == 3 and "no scored rows" in res.output
