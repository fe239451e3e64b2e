"""`qare slices` round trip and `qare import` of APIBench-Q JSON / CLEAR CSV."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics import evaluate, import_apibench, import_clear_csv, load_dataset, write_import, write_slices
from qare.cli import main

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "datasets"
TINY = FIX / "tiny"


def test_slices_round_trip_by_depth(tmp_path):
    src = load_dataset(TINY)
    summary = write_slices(src, "depth", tmp_path)
    assert [(s.label, s.folder, s.n_samples) for s in summary.slices] == [
        ("2", "depth-2", 2), ("3", "depth-3", 1), ("4", "depth-4", 1)]
    seen = []
    for info in summary.slices:
        sl = load_dataset(tmp_path / info.folder)
        assert sl.problems == ()
        assert all(s.depth_max == int(info.label) for s in sl.samples)
        # records unchanged
        orig = {s.id: s for s in src.samples}
        assert all(orig[s.id] == s for s in sl.samples)
        seen += [s.id for s in sl.samples]
        # apis restricted to the slice's targets, nothing missing
        needed = {t.api for s in sl.samples for t in s.targets}
        assert {a.api for a in sl.apis} == needed
        assert {p["project"] for p in sl.projects} == {s.project for s in sl.samples}
        assert sl.manifest["slice"]["by"] == "depth" and sl.manifest["slice"]["label"] == info.label
        assert sl.manifest["source_manifest"]["tool"] == "qare"
    assert sorted(seen) == sorted(s.id for s in src.samples)
    d = json.loads((tmp_path / "summary.json").read_text())
    assert [s["n_samples"] for s in d["slices"]] == [2, 1, 1]


def test_slice_depth_4_apis(tmp_path):
    write_slices(TINY, "depth", tmp_path)
    sl = load_dataset(tmp_path / "depth-4")
    assert [s.id for s in sl.samples] == ["beta-1"]
    assert sorted(a.api for a in sl.apis) == ["org.apache.commons.lang3.StringUtils.isBlank", "org.slf4j.Logger.info"]


def test_slices_by_density_and_project_cli(tmp_path):
    r = CliRunner().invoke(main, ["slices", str(TINY), "--by", "density", "--out", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    folders = sorted(p.name for p in (tmp_path / "d").iterdir() if p.is_dir())
    assert folders == ["density-0-0.05556", "density-0.05556-0.1111", "density-0.2778-0.3333"]
    ids = [s.id for s in load_dataset(tmp_path / "d" / "density-0.05556-0.1111").samples]
    assert ids == ["alpha-1", "beta-1"]  # 1/12 and 1/18 (on the edge)
    r = CliRunner().invoke(main, ["slices", str(TINY), "--by", "project", "--out", str(tmp_path / "p")])
    assert r.exit_code == 0
    assert len(load_dataset(tmp_path / "p" / "project-alpha").samples) == 2


def test_slices_bad_input(tmp_path):
    r = CliRunner().invoke(main, ["slices", str(tmp_path / "none"), "--by", "depth", "--out", str(tmp_path / "o")])
    assert r.exit_code == 3
    with pytest.raises(ValueError):
        write_slices(TINY, "library", tmp_path)


def test_import_apibench_normalises_and_reports():
    res = import_apibench(FIX / "import" / "apibench-q-small.json")
    by_id = {s.id: s for s in res.samples}
    assert sorted(by_id) == [f"apibench-{k}" for k in (1, 2, 3, 4, 5, 7)]
    assert res.dropped == 2  # 6 (placeholder only) and 8 (no Query)
    t = lambda sid: [(x.api, x.signature, x.class_) for x in by_id[sid].targets]
    # APIBench's "()" means "parameters unknown", not "no parameters"
    assert t("apibench-2") == [("javax.swing.JList.<init>", None, "javax.swing.JList")]
    assert t("apibench-3")[1:] == [
        ("java.util.Map.Entry.getKey", None, "java.util.Map.Entry"),
        ("java.util.Map.Entry.getValue", None, "java.util.Map.Entry"),
    ]
    assert t("apibench-4") == [("java.lang.String.format", None, "java.lang.String")]
    assert [x.api for x in by_id["apibench-5"].targets] == ["java.io.File.exists", "java.io.File.delete"]
    assert t("apibench-7") == [("java.lang.String.join",
                                "java.lang.String.join(java.lang.CharSequence,java.lang.CharSequence...)",
                                "java.lang.String")]
    assert by_id["apibench-1"].project == "Stack Overflow"
    reasons = [p.reason for p in res.problems]
    for needle in ("query 3: no parameter list", "query 4: unreadable parameter", "query 5: several APIs",
                   "query 6: no declaring type", "query 6: no readable GroundTruth", "query 7: APIClasses entry",
                   "query 8: no Query"):
        assert any(r.startswith(needle) for r in reasons), needle
    assert len({(a.api, a.signature) for a in res.apis}) == len(res.apis) == 9


def test_imported_dataset_scores_with_the_same_metrics(tmp_path):
    out = write_import(import_apibench(FIX / "import" / "apibench-q-small.json"), tmp_path / "ab")
    ds = load_dataset(out)
    assert ds.problems == () and len(ds.samples) == 6
    assert ds.manifest["counts"]["dropped"] == 2
    preds = {"apibench-1": ["java.io.File.mkdirs()"], "apibench-5": ["java.io.File.delete", "java.io.File.exists"]}
    r = evaluate(preds, ds, ks=(1,), by=("project",))
    assert r.overall.scores["sr@1"] == pytest.approx(2 / 6)
    assert r.overall.scores["aem"] == pytest.approx(2 / 6)
    r = evaluate({"apibench-3": ["java.util.Map.Entry.getValue"]}, ds, level="class", ks=(1,))
    # class-level gold of apibench-3 = {Map, Map.Entry}: recall 1/2
    assert r.overall.scores["recall"] == pytest.approx(0.5 / 6)


def test_import_clear_csv():
    res = import_clear_csv(FIX / "import" / "clear-small.csv")
    ids = [s.id for s in res.samples]
    assert ids == ["c1", "c2", "clear-3"]
    assert [t.api for t in res.samples[0].targets] == ["java.util.Collections.max", "java.util.Collections.sort"]
    assert [t.api for t in res.samples[1].targets] == ["java.lang.StringBuilder.append", "java.lang.StringBuilder.toString"]
    assert res.samples[2].targets[0].api == "java.lang.StringBuilder.<init>"
    assert res.samples[2].project == "tutorial"
    assert res.dropped == 2


def test_import_cli_and_errors(tmp_path):
    r = CliRunner().invoke(main, ["import", "apibench", str(FIX / "import" / "apibench-q-small.json"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1  # two records dropped
    assert len(load_dataset(tmp_path / "o").samples) == 6
    bad = tmp_path / "bad.json"
    bad.write_text("[not json")
    r = CliRunner().invoke(main, ["import", "apibench", str(bad), "--out", str(tmp_path / "x")])
    assert r.exit_code == 3 and "not JSON" in r.output
    r = CliRunner().invoke(main, ["import", "apibench", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x")])
    assert r.exit_code == 3
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"query,apis\ncaf\xe9,a.B.c\n")
    r = CliRunner().invoke(main, ["import", "clear", str(latin), "--out", str(tmp_path / "y")])
    assert r.exit_code == 3 and "not UTF-8" in r.output
    nohead = tmp_path / "nohead.csv"
    nohead.write_text("q,a\nx,a.B.c\n")
    with pytest.raises(ValueError, match="'query' and 'apis'"):
        import_clear_csv(nohead)
