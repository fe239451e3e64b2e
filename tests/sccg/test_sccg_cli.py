"""`qare sccg extract | redact | execute | score` end to end."""

import json
from pathlib import Path

from click.testing import CliRunner

from qare.cli import main

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
    res = runner.invoke(main, ["sccg", "execute", str(gens), "--gold", str(recs), "-o", str(out), "--jobs", "2"])
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
    assert runner.invoke(main, ["sccg", "execute", str(tmp_path / "g.jsonl"), "--gold", str(tmp_path / "x")]).exit_code == 3
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert runner.invoke(main, ["sccg", "score", str(empty)]).exit_code == 3
    assert runner.invoke(main, ["sccg", "score", str(empty), "--k", "0"]).exit_code == 2
