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
