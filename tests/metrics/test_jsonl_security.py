"""A JSONL line nested 100,000 deep is a line error (file:line: reason) in
the dataset readers and ``qare eval``; the other lines are still read
(docs/security.md, "Bad lines")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from metrics import load_dataset
from qare.cli import main

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "tiny"
DEEP = "[" * 100_000


def _ids() -> list[str]:
    return [json.loads(line)["id"] for line in (TINY / "samples.jsonl").read_text().splitlines()]


def test_a_deep_line_in_samples_is_a_problem_and_the_rest_is_read(tmp_path):
    ds_dir = tmp_path / "ds"
    shutil.copytree(TINY, ds_dir)
    lines = (ds_dir / "samples.jsonl").read_text().splitlines()
    (ds_dir / "samples.jsonl").write_text("\n".join([lines[0], DEEP, *lines[1:]]) + "\n")
    ds = load_dataset(ds_dir)
    assert [s.id for s in ds.samples] == _ids()
    assert [(p.file, p.line, p.reason) for p in ds.problems] == [
        (str(ds_dir / "samples.jsonl"), 2, "not JSON: nested too deeply")]


def test_eval_reports_a_deep_prediction_line_and_scores_the_rest(tmp_path):
    ids = _ids()
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(json.dumps({"id": i, "predictions": ["x.Y.z"]}) for i in ids[:1])
                    + "\n" + DEEP + "\n")
    r = CliRunner().invoke(main, ["eval", str(pred), "--gold", str(TINY)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert f"problem: {pred}:2: not JSON: nested too deeply" in r.output
    assert r.exit_code == 1


def test_an_integer_of_5000_digits_is_a_line_error(tmp_path):
    ds_dir = tmp_path / "ds"
    shutil.copytree(TINY, ds_dir)
    lines = (ds_dir / "samples.jsonl").read_text().splitlines()
    (ds_dir / "samples.jsonl").write_text("\n".join([lines[0], '{"id": ' + "7" * 5000 + "}", *lines[1:]]) + "\n")
    ds = load_dataset(ds_dir)
    assert [s.id for s in ds.samples] == _ids()
    assert [(p.line, p.reason.split(":")[0]) for p in ds.problems] == [(2, "not JSON")]
    assert "4300" in ds.problems[0].reason


def test_eval_reports_a_huge_integer_in_a_prediction_line(tmp_path):
    ids = _ids()
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": ids[0], "predictions": ["x.Y.z"]}) + "\n"
                    + '{"id": "a", "n": ' + "9" * 5000 + "}\n")
    r = CliRunner().invoke(main, ["eval", str(pred), "--gold", str(TINY)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert f"problem: {pred}:2: not JSON" in r.output
    assert r.exit_code == 1


def test_an_over_long_line_is_skipped_without_holding_it(tmp_path, monkeypatch):
    import tracemalloc

    from records import io as rio

    monkeypatch.setattr(rio, "MAX_LINE", 1000)
    path = tmp_path / "x.jsonl"
    with open(path, "w") as fh:
        fh.write('{"a": 1}\n')
        fh.write('"' + "x" * (40 << 20) + '"\n')  # one 40 MiB line
        fh.write('{"a": 3}\n')
    tracemalloc.start()
    try:
        good, problems = rio.read_jsonl(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert good == [{"a": 1}, {"a": 3}]
    assert [(p.line, p.reason) for p in problems] == [(2, "line longer than 1000 bytes, skipped")]
    assert peak < 8 << 20  # the line was read in bounded chunks, never whole


def test_a_fifo_named_samples_jsonl_is_named_as_such(tmp_path):
    import os

    import pytest

    from metrics.dataset import DatasetError

    (tmp_path / "ds").mkdir()
    os.mkfifo(tmp_path / "ds" / "samples.jsonl")
    with pytest.raises(DatasetError, match="samples.jsonl is a FIFO, not a regular file"):
        load_dataset(tmp_path / "ds")
