"""A gold file whose samples carry only id, query and targets is scored, and
every line a command skips is reported (first N as file:line: reason, then a count)."""

import json

import pytest
from click.testing import CliRunner

from qare.cli import main
from records import Problem, SampleRecord, SchemaError, TargetRecord, report_problems, required_keys

MINIMAL = [
    {"id": "q1", "query": "read a file into a string",
     "targets": [{"api": "org.apache.commons.io.FileUtils.readFileToString", "depth": 2, "density": 0.1}]},
    {"id": "q2", "query": "check a string is blank",
     "targets": [{"api": "org.apache.commons.lang3.StringUtils.isBlank"},
                 {"api": "org.apache.commons.lang3.StringUtils.trim", "depth": 3}]},
]
PREDS = [
    {"id": "q1", "predictions": ["org.apache.commons.io.FileUtils.readFileToString"]},
    {"id": "q2", "predictions": ["org.apache.commons.lang3.StringUtils.isBlank", "x.Y.z"]},
]


def _jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_required_keys_are_the_contract():
    assert required_keys(SampleRecord) == ("id", "query", "targets")
    assert required_keys(TargetRecord) == ("api",)


def test_minimal_target_fills_only_what_follows_from_the_name():
    t = TargetRecord.from_dict({"api": "a.b.C.m"})
    assert (t.class_, t.signature, t.depth, t.chain, t.density, t.node) == ("a.b.C", None, None, (), None, "a.b.C.m(*)")
    s = SampleRecord.from_dict(MINIMAL[1])
    assert (s.depth_max, s.depth_min, s.density) == (None, None, None)  # one target states no depth
    s = SampleRecord.from_dict(MINIMAL[0])
    assert (s.depth_max, s.depth_min, s.density) == (2, 2, None)  # a sample's density is never derived
    with pytest.raises(SchemaError, match="missing key"):
        SampleRecord.from_dict({"id": "x", "query": "q"})


def test_eval_scores_a_minimal_gold_file(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    _jsonl(gold / "samples.jsonl", MINIMAL)
    preds = _jsonl(tmp_path / "p.jsonl", PREDS)
    r = CliRunner().invoke(main, ["eval", str(preds), "--gold", str(gold), "--json", "--resamples", "20",
                                  "--by", "depth,target_depth,density,project"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    # q1: {readFileToString} vs {readFileToString} -> P = R = 1; q2: {isBlank, x.Y.z} vs {isBlank, trim} -> 1/2
    assert d["overall"]["scores"]["precision"] == pytest.approx(0.75)
    assert d["overall"]["scores"]["recall"] == pytest.approx(0.75)
    assert [g["label"] for g in d["strata"]["depth"]] == ["2", "unknown"]
    assert [g["label"] for g in d["strata"]["target_depth"]] == ["2", "3", "unknown"]
    assert [g["label"] for g in d["strata"]["density"]] == ["unknown"]


def test_no_usable_sample_reports_each_line(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    rows = ['{"id": "a", "query": "x", "targets": "nope"}', '{"query": "no id", "targets": []}', "not json"]
    _jsonl(gold / "samples.jsonl", rows)
    preds = _jsonl(tmp_path / "p.jsonl", PREDS)
    r = CliRunner().invoke(main, ["eval", str(preds), "--gold", str(gold)])
    assert r.exit_code == 3
    f = gold / "samples.jsonl"
    assert f"problem: {f}:1: bad record: SampleRecord: 'targets' must be a list, got str" in r.output
    assert f"problem: {f}:2: bad record: SampleRecord: missing key(s) id" in r.output
    assert f"problem: {f}:3: not JSON" in r.output
    assert "no samples to score (3 line(s) skipped, reasons above)" in r.output


def test_report_problems_first_n_then_a_count():
    lines = []
    n = report_problems((Problem("f.jsonl", i, "bad") for i in range(1, 26)), lines.append, limit=20,
                        more_hint=" (see x)")
    assert n == 25
    assert lines[0] == "problem: f.jsonl:1: bad" and lines[19] == "problem: f.jsonl:20: bad"
    assert lines[20:] == ["... 5 more problems (see x)"]
    lines.clear()
    assert report_problems([Problem("f", None, "r")], lines.append) == 1 and lines == ["problem: f: r"]


def test_slices_and_baseline_report_skipped_lines(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    _jsonl(gold / "samples.jsonl", MINIMAL + [f'{{"id": "bad{i}"}}' for i in range(25)])
    r = CliRunner().invoke(main, ["slices", str(gold), "--by", "depth", "--out", str(tmp_path / "sl")])
    assert r.exit_code == 1, r.output
    assert r.output.count("problem: ") == 20
    assert "... 5 more problems" in r.output


@pytest.mark.parametrize("line, field", [
    ('{"id": "t1", "query": "q", "targets": [{"api": "a.B.c"}], "depth_max": "2"}', "depth_max"),
    ('{"id": "t2", "query": "q", "targets": [{"api": "a.B.c"}], "density": "x"}', "density"),
    ('{"id": "t3", "query": "q", "targets": [{"api": "a.B.c", "depth": true}]}', "depth"),
    ('{"id": "t4", "query": "q", "targets": [{"api": "a.B.c"}], "project": ["p"]}', "project"),
    ('{"id": "t5", "query": "q", "targets": [{"api": "a.B.c", "call_sites": [{"file": "A.java", "line": 0}]}]}',
     "line"),
    ('{"id": "t6", "query": "q", "targets": [{"api": "a.B.c", "call_sites": [{"file": "", "line": 3}]}]}', "file"),
    ('{"id": "t7", "query": "q", "targets": [{"api": "a.B.c", "call_sites": "A.java:3"}]}', "call_sites"),
])
def test_a_field_of_the_wrong_type_is_a_bad_line_not_a_crash(tmp_path, line, field):
    # a gold file of strangers: "depth_max": "2" crashed slices' sorting with a TypeError
    with pytest.raises(SchemaError, match=repr(field)):
        SampleRecord.from_dict(json.loads(line))
    gold = tmp_path / "gold"
    gold.mkdir()
    _jsonl(gold / "samples.jsonl", MINIMAL + [line])
    for by in ("depth", "density"):
        r = CliRunner().invoke(main, ["slices", str(gold), "--by", by, "--out", str(tmp_path / f"sl-{by}")])
        assert r.exit_code == 1 and r.exception is None or isinstance(r.exception, SystemExit), r.output
        assert "problem: " in r.output and field in r.output


def test_eval_report_lists_skipped_lines_through_report_problems(tmp_path):
    # qare eval's report text uses records.io.report_problems: the first 20 as
    # file:line: reason, then the count (one more: singular)
    gold = tmp_path / "gold"
    gold.mkdir()
    _jsonl(gold / "samples.jsonl", MINIMAL + ["not json"] * 21)
    preds = _jsonl(tmp_path / "p.jsonl", PREDS)
    r = CliRunner().invoke(main, ["eval", str(preds), "--gold", str(gold)])
    assert r.exit_code == 1, r.output
    f = gold / "samples.jsonl"
    problems = [ln for ln in r.output.splitlines() if ln.startswith("problem: ")]
    assert problems[0] == f"problem: {f}:3: not JSON: Expecting value (column 1)"
    assert len(problems) == 20 and problems[-1].startswith(f"problem: {f}:22: ")
    assert r.output.rstrip().endswith("\n... 1 more problem (see --json)")


def test_call_sites_are_read_back_and_optional():
    from records import CallSiteRecord

    d = {"api": "a.B.c", "chain": ["p.Q.m()", "a.B.c()"], "call_sites": [{"file": "src/Q.java", "line": 7}]}
    t = TargetRecord.from_dict(d)
    assert t.call_sites == (CallSiteRecord(file="src/Q.java", line=7),)
    assert t.to_dict()["call_sites"] == [{"file": "src/Q.java", "line": 7}]
    # a gold file without them (APIBench, a hand-made one), or with null: none stated
    assert TargetRecord.from_dict({"api": "a.B.c"}).call_sites == ()
    assert TargetRecord.from_dict({"api": "a.B.c", "call_sites": None}).call_sites == ()
