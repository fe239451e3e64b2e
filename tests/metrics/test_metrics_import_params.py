"""Imported benchmark gold: an empty "()" is an unknown parameter list
(APIBench-Q writes "()" for every API), and gold without a package is kept
but reported."""

import json

import pytest

from metrics import (
    evaluate,
    import_apibench,
    import_clear_csv,
    load_dataset,
    write_import,
)

NO_PKG = "no package in 'FileUtils.copyFile(File src, File dest)': cannot match fully-qualified predictions"


def _apibench(tmp_path, records):
    f = tmp_path / "q.json"
    f.write_text(json.dumps(records), encoding="utf-8")
    return f


def test_empty_parens_is_unknown_parameter_list(tmp_path):
    f = _apibench(tmp_path, {
        "1": {"Query": "read a file's lines", "GroundTruth": ["java.nio.file.Files.readAllLines()"], "Source": "so"},
        "2": {"Query": "make a file object", "GroundTruth": ["java.io.File.File()"], "Source": "so"},
        "3": {"Query": "join", "GroundTruth": ["java.lang.String.join(CharSequence d, CharSequence... e)"], "Source": "so"},
    })
    res = import_apibench(f)
    t = {s.id: [(x.api, x.signature) for x in s.targets] for s in res.samples}
    assert t == {
        "apibench-1": [("java.nio.file.Files.readAllLines", None)],
        "apibench-2": [("java.io.File.<init>", None)],
        # a written-out parameter list is kept
        "apibench-3": [("java.lang.String.join", "java.lang.String.join(java.lang.CharSequence,java.lang.CharSequence...)")],
    }
    assert res.problems == ()  # "()" is APIBench's convention, not noise
    ds = load_dataset(write_import(res, tmp_path / "ds"))
    preds = {
        "apibench-1": ["java.nio.file.Files.readAllLines(java.nio.file.Path)"],
        "apibench-2": ["new java.io.File(String)"],
        "apibench-3": ["java.lang.String.join(java.lang.CharSequence,java.lang.Iterable)"],
    }
    r = evaluate(preds, ds, level="signature", ks=(1,))
    # 1 and 2 are correct (any overload matches an unknown list); 3 names
    # the other overload of join, so it is wrong at signature level
    assert r.overall.scores["sr@1"] == pytest.approx(2 / 3)
    assert r.overall.scores["aem"] == pytest.approx(2 / 3)
    # the score of the one correct prediction alone: 1 of 3 samples hit
    r1 = evaluate({"apibench-1": preds["apibench-1"]}, ds, level="signature", ks=(1,))
    assert r1.overall.scores["sr@1"] == pytest.approx(1 / 3)
    assert r1.overall.scores["mrr"] == pytest.approx(1 / 3)


def test_gold_without_package_is_kept_and_reported(tmp_path):
    f = _apibench(tmp_path, {
        "1": {"Query": "copy a file", "GroundTruth": ["FileUtils.copyFile(File src, File dest)"], "Source": "so"},
    })
    res = import_apibench(f)
    assert [(t.api, t.signature, t.class_) for t in res.samples[0].targets] == [
        ("FileUtils.copyFile", "FileUtils.copyFile(File,File)", "FileUtils")]
    assert [p.reason for p in res.problems] == [
        f"query 1: {NO_PKG} at class/name/signature level unless --simple-names"]
    ds = load_dataset(write_import(res, tmp_path / "ds"))
    assert any(NO_PKG in p["reason"] for p in ds.manifest["problems"])
    pred = {"apibench-1": ["org.apache.commons.io.FileUtils.copyFile(java.io.File,java.io.File)"]}
    assert evaluate(pred, ds, level="name", ks=(1,)).overall.scores["sr@1"] == 0.0
    assert evaluate(pred, ds, level="signature", ks=(1,), simple=True).overall.scores["sr@1"] == 1.0


def test_clear_empty_parens_and_no_package(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("id,query,apis\n"
                 "a,read lines,java.nio.file.Files.readAllLines()\n"
                 "b,max,\"['Collections.max']\"\n", encoding="utf-8")
    res = import_clear_csv(f)
    assert [(t.api, t.signature) for s in res.samples for t in s.targets] == [
        ("java.nio.file.Files.readAllLines", None), ("Collections.max", None)]
    assert [p.reason for p in res.problems] == [
        ("row 2: no package in 'Collections.max': cannot match fully-qualified predictions "
         "at class/name/signature level unless --simple-names")]
