"""A ``classpath=`` or ``javadoc=`` path the project list names that cannot
be read is an input that failed: the project is still built (without it),
``projects.jsonl`` says which path and why (``listed.unreadable``), stderr
says so even with ``-q``, and ``qare build`` exits 1 — a new user's missing
javadoc jar was only a warning inside projects.jsonl, and a missing
classpath jar was recorded nowhere (session 10)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from qare.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "java" / "qare-example"
FAST = ["-q", "--no-require-docs", "--jdk", "none", "--no-discover-classpath"]


def _build(tmp_path, line: str):
    (tmp_path / "l.txt").write_text(line + "\n")
    r = CliRunner().invoke(main, ["build", str(tmp_path / "l.txt"), "--out", str(tmp_path / "o"), *FAST])
    rows = [json.loads(x) for x in (tmp_path / "o" / "projects.jsonl").read_text().splitlines()]
    return r, rows


def test_unreadable_listed_paths_are_reported_and_exit_1(tmp_path):
    bad = tmp_path / "bad.jar"
    bad.write_bytes(b"not a zip")  # a jar that is no zip archive
    missing_jar, missing_doc = tmp_path / "gone.jar", tmp_path / "gone-javadoc.jar"
    r, rows = _build(tmp_path, f"{EXAMPLE} classpath={bad};{missing_jar} javadoc={missing_doc}")
    assert r.exit_code == 1, r.output
    expected = [
        {"path": str(bad), "reason": "unreadable classpath entry: BadZipFile: File is not a zip file"},
        {"path": str(missing_jar), "reason": "classpath entry does not exist"},
        {"path": str(missing_doc), "reason": "no such file or folder"},
    ]
    assert rows[0]["listed"]["unreadable"] == expected
    assert rows[0]["verdict"] == "kept"
    assert f"classpath: {missing_jar}: classpath entry does not exist" in rows[0]["warnings"]
    assert f"docs: {missing_doc}: no such file or folder" in rows[0]["warnings"]
    # said on stderr under -q, each with the project, the path and the reason
    assert "warning: 3 paths the list names could not be read in full (exit code 1" in r.stderr
    for u in expected:
        assert f"  qare-example: {u['path']}: {u['reason']}\n" in r.stderr
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["counts"]["unreadable_inputs"] == 3
    # nothing else lost: the same samples as a build without the bad paths
    got = (tmp_path / "o" / "samples.jsonl").read_text().splitlines()
    clean = tmp_path / "clean"
    clean.mkdir()
    r2, rows2 = _build(clean, f"{EXAMPLE}")
    assert r2.exit_code == 0 and rows2[0]["listed"]["unreadable"] == []
    assert len(got) == len((clean / "o" / "samples.jsonl").read_text().splitlines()) > 0


def test_a_resumed_build_still_exits_1_for_them(tmp_path):
    missing = tmp_path / "gone-javadoc.jar"
    r, _ = _build(tmp_path, f"{EXAMPLE} javadoc={missing}")
    assert r.exit_code == 1
    again, rows = _build(tmp_path, f"{EXAMPLE} javadoc={missing}")  # resumed from its part
    assert again.exit_code == 1
    assert rows[0]["listed"]["unreadable"] == [{"path": str(missing), "reason": "no such file or folder"}]
    assert f"qare-example: {missing}: no such file or folder" in again.stderr


def test_files_skipped_or_not_parsed_in_full_are_named_and_exit_1(tmp_path):
    # the attacker's review, session 10: a FIFO named Foo.java and a link to
    # /etc/passwd were refused (right) but only counted, exit 0; qare graph
    # names them and exits 1
    import os
    import shutil

    proj = tmp_path / "p"
    shutil.copytree(EXAMPLE, proj)
    src = next(proj.rglob("*.java")).parent
    rel = src.relative_to(proj).as_posix()
    os.mkfifo(src / "Fifo.java")
    (src / "Passwd.java").symlink_to("/etc/passwd")
    (src / "Bad.java").write_text("package x;\nclass Bad {\n  void m() { int x = ; }\n}\n")
    r, rows = _build(tmp_path, str(proj))
    assert r.exit_code == 1, r.output
    w = rows[0]["warnings"]
    assert f"skipped {rel}/Fifo.java: not a regular file (FIFO)" in w
    assert f"skipped {rel}/Passwd.java: symlink leads outside the project (to /etc/passwd)" in w
    assert any(x.startswith(f"parse errors in {rel}/Bad.java (line:col): 3:") for x in w)
    assert (rows[0]["counts"]["skipped"], rows[0]["counts"]["parse_errors"]) == (2, 1)
    assert "  p: 2 skipped, 1 with parse errors\n" in r.stderr
    # nothing else lost: the example's samples, as without the three files
    clean = tmp_path / "clean"
    clean.mkdir()
    r2, _ = _build(clean, str(EXAMPLE))
    assert r2.exit_code == 0
    assert (tmp_path / "o" / "samples.jsonl").read_text().count("\n") == \
        (clean / "o" / "samples.jsonl").read_text().count("\n") > 0


def test_a_listed_javadoc_folder_read_in_part_is_reported(tmp_path):
    # the attacker's second review, session 10: a javadoc= folder with a file
    # that does not parse and a FIFO lost their members without a word, exit 0
    import os
    import shutil

    docs = tmp_path / "docs"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "libs" / "textkit" / "src", docs)
    pkg = next(docs.rglob("*.java")).parent
    rel = pkg.relative_to(docs).as_posix()
    (pkg / "Broken.java").write_text("package org.example.textkit;\n/** B. */\npublic class Broken { void m( }\n")
    os.mkfifo(pkg / "Fifo.java")
    example = Path(__file__).resolve().parents[2] / "examples" / "projects" / "notes-service"
    r, rows = _build(tmp_path, f"{example} javadoc={docs}")
    assert r.exit_code == 1, r.output
    assert rows[0]["listed"]["unreadable"] == [{
        "path": str(docs),
        "reason": f"2 files in it not read in full, first {rel}/Broken.java: syntax errors; "
                  "declarations read as far as possible"}]
