"""Maven is started with neutral machine values (callgraph/_mvn.py): an imported BOM or a
dependency pom from a repository, which qare cannot sanitise, can only have Maven fill in
``${user.name}``/``${user.home}`` with qare's values, never the machine's. A stand-in
``mvn`` script records its command line and environment (no Maven is run)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from callgraph._mvn import NEUTRAL_USER, MavenClient


def test_mvn_runs_with_a_private_home_and_a_neutral_user_name(tmp_path, monkeypatch):
    record = tmp_path / "record.json"
    fake = tmp_path / "mvn"
    fake.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    f"json.dump({{'argv': sys.argv[1:], 'env': dict(os.environ)}}, open({str(record)!r}, 'w'))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("HOME", str(tmp_path / "real-home"))
    work = tmp_path / "work"
    work.mkdir()
    run = MavenClient(repo_local=tmp_path / "repo", offline=True, mvn=str(fake)).run(["validate"], work)
    assert run.returncode == 0
    got = json.loads(record.read_text())
    home = work / ".home"
    assert f"-Duser.name={NEUTRAL_USER}" in got["argv"] and f"-Duser.home={home}" in got["argv"]
    assert got["env"]["HOME"] == str(home)
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert str(tmp_path / "real-home") not in json.dumps(got)
    assert got["argv"][-1] == "validate"
