"""`qare eval` (and the plots it writes) through the command line."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics.plots import plot_series
from qare.cli import main

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "tiny"


def _preds(tmp_path, rows):
    p = tmp_path / "preds.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


ROWS = [
    {"id": "alpha-1", "predictions": ["org.apache.commons.lang3.StringUtils.isBlank()", "x.Y.z", "com.google.gson.Gson.toJson"]},
    {"id": "alpha-2", "predictions": []},
    {"id": "beta-1", "predictions": ["org.slf4j.Logger.info", "org.apache.commons.lang3.StringUtils.isBlank"]},
    {"id": "beta-2", "predictions": ["org.springframework.web.client.RestTemplate.RestTemplate()"]},
]


def test_eval_json_and_exit_ok(tmp_path):
    p = _preds(tmp_path, ROWS)
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY), "--json", "--k", "1,3", "--by", "depth"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["overall"]["scores"]["precision"] == pytest.approx((2 / 3 + 0 + 1 + 1) / 4)
    assert d["overall"]["scores"]["aem"] == pytest.approx(0.5)
    assert [g["label"] for g in d["strata"]["depth"]] == ["2", "3", "4"]


def test_eval_table_and_partial_exit(tmp_path):
    p = _preds(tmp_path, ROWS[:2] + [{"id": "ghost", "predictions": ["a.B.c"]}])
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY)])
    assert r.exit_code == 1
    assert "precision" in r.output and "ghost" in r.output and "without predictions" in r.output


def test_eval_missing_inputs(tmp_path):
    p = _preds(tmp_path, ROWS)
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(tmp_path / "nope")])
    assert r.exit_code == 3 and "not a dataset folder" in r.output
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "none.jsonl"), "--gold", str(TINY)])
    assert r.exit_code == 3
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY), "--by", "colour"])
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY), "--k", "0"])
    assert r.exit_code == 2


def test_eval_plot_writes_png_and_series(tmp_path):
    p = _preds(tmp_path, ROWS)
    out = tmp_path / "plots"
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY), "--by", "depth,density", "--plot", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "depth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "density.png").stat().st_size > 1000
    d = json.loads((out / "depth.json").read_text())
    assert d["kind"] == "line" and d["labels"] == ["2", "3", "4"] and d["counts"] == [2, 1, 1]
    assert d["series"]["precision"] == pytest.approx([0.5, 2 / 3, 1.0])
    assert d["series"]["recall"] == pytest.approx([0.5, 1.0, 1.0])
    dd = json.loads((out / "density.json").read_text())
    assert dd["kind"] == "bar" and dd["counts"] == [1, 2, 1]


def test_plot_series_rejects_ragged(tmp_path):
    with pytest.raises(ValueError):
        plot_series(tmp_path / "x.png", ["a", "b"], {"p": [1.0]})


def _hide_dense(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tokenizers" else real(name, *a))


@pytest.mark.parametrize("args", [["similarity", str(TINY)], ["baseline", "dense", str(TINY), "--out", "p.jsonl"]])
def test_dense_commands_without_the_extra_say_how_to_install(tmp_path, monkeypatch, args):
    _hide_dense(monkeypatch)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 4, r.output
    assert "the dense model needs tokenizers, not installed." in r.stderr
    assert "pip install -e '.[dense]'" in r.stderr and "no PyTorch" in r.stderr
    assert not (tmp_path / "p.jsonl").exists()


def test_dense_commands_help_names_the_extra():
    for args in (["similarity", "--help"], ["baseline", "--help"]):
        r = CliRunner().invoke(main, args)
        text = " ".join(r.output.split())
        assert r.exit_code == 0 and "pip install -e '.[dense]'" in text and "no PyTorch" in text


def test_bm25_baseline_does_not_need_the_dense_extra(tmp_path, monkeypatch):
    _hide_dense(monkeypatch)
    r = CliRunner().invoke(main, ["baseline", "bm25", str(TINY), "--out", str(tmp_path / "p.jsonl")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "p.jsonl").is_file()


def test_eval_without_any_prediction_line_is_no_input(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "empty.jsonl"), "--gold", str(TINY)])
    assert r.exit_code == 3 and "no readable prediction line" in r.stderr
    (tmp_path / "bad.jsonl").write_bytes(b"\xff\xfe{bad\n")
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "bad.jsonl"), "--gold", str(TINY)])
    assert r.exit_code == 3
    assert "problem: " in r.stderr and "bad.jsonl:1: not UTF-8" in r.stderr


def test_eval_unwritable_plot_folder_is_fatal(tmp_path):
    p = _preds(tmp_path, ROWS)
    (tmp_path / "afile").write_text("")
    r = CliRunner().invoke(main, ["eval", str(p), "--gold", str(TINY), "--by", "depth", "--plot", str(tmp_path / "afile/sub")])
    assert r.exit_code == 4 and "cannot write plots" in r.stderr
