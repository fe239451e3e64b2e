"""``qare javadoc``: records written, counts printed, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from qare import exitcodes
from qare.cli import main

SRC = Path(__file__).resolve().parents[2] / "fixtures" / "javadoc" / "src"
APIRECORD_KEYS = ["api", "signature", "class", "library", "description", "first_sentence",
                  "params", "returns", "throws", "deprecated", "doc_source", "doc_model", "doc_from"]


def test_writes_apirecords_and_counts(generated_sites, tmp_path):
    out = tmp_path / "apis.jsonl"
    site = str(generated_sites["jdk25"])
    r = CliRunner().invoke(main, ["javadoc", site, str(SRC), "--out", str(out), "--library", "com.acme:docs:1.0"])
    assert r.exit_code == exitcodes.OK, r.output
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(rows) == 53  # site members; sources add nothing new
    assert all(list(row) == APIRECORD_KEYS for row in rows)
    from queries.schema import ApiRecord

    recs = {ApiRecord.from_dict(row).signature or row["api"]: row for row in rows}
    row = recs["com.acme.docs.Widget.format(int)"]
    assert row["deprecated"] == "Use render(int) instead." and row["library"] == "com.acme:docs:1.0"
    assert row["doc_source"] == "javadoc"
    assert f"{site}: jdk25, 12 pages, 12 types, 53 members" in r.output
    assert "members by layout: jdk25 53" in r.output
    assert ("members by kind: annotation_element 2, constructor 9, enum_constant 3, "
            "field 3, method 36") in r.output


def test_partial_and_no_input(tmp_path):
    missing = str(tmp_path / "missing-javadoc.jar")
    r = CliRunner().invoke(main, ["javadoc", str(SRC), missing, "--out", str(tmp_path / "a.jsonl")])
    assert r.exit_code == exitcodes.PARTIAL
    assert f"warning: {missing}: no such file or folder" in r.output
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 44
    r = CliRunner().invoke(main, ["javadoc", missing])
    assert r.exit_code == exitcodes.NO_INPUT
    assert "no documented members" in r.output
    r = CliRunner().invoke(main, ["javadoc"])
    assert r.exit_code == exitcodes.USAGE


def test_unwritable_output_is_fatal(tmp_path):
    r = CliRunner().invoke(main, ["javadoc", str(SRC), "--out", str(tmp_path / "no" / "such" / "dir" / "a.jsonl")])
    assert r.exit_code == exitcodes.FATAL
    assert "cannot write" in r.output


def test_stdout_output():
    r = CliRunner().invoke(main, ["javadoc", str(SRC)])
    assert r.exit_code == exitcodes.OK
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 44 and all(row["doc_source"] == "sources" for row in rows)
    assert "members by layout: sources 44" in r.stderr
