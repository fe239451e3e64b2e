"""The command line of qare's own child Python processes (callgraph._subpython):
run from inside a cloned repository, a child never imports a module the
repository holds at its root (the tester, session 8: the spawned ``--out``
writer, started with ``python -m``, ran the repository's ``msgpack.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from callgraph._subpython import module_argv, search_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures" / "java" / "qare-example"
PLANT = """import os
open(os.environ["QARE_TEST_MARKER"], "a").write(f"ran in {os.getpid()}\\n")
raise ImportError("planted")
"""


def _stranger_repo(tmp_path) -> Path:
    """A Java project whose root also holds Python modules named like qare's imports."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    for name in ("msgpack.py", "json.py", "runpy.py"):
        (repo / name).write_text(PLANT)
    (repo / "qare").mkdir()
    (repo / "qare" / "__init__.py").write_text(PLANT)
    return repo


def test_a_child_never_imports_from_its_current_folder(tmp_path):
    repo = _stranger_repo(tmp_path)
    marker = tmp_path / "marker"
    env = {**os.environ, "QARE_TEST_MARKER": str(marker)}
    r = subprocess.run(module_argv("qare.exitcodes"), cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    # the same module by `python -m`, as the writer was started: the planted package runs
    r = subprocess.run([sys.executable, "-m", "qare.exitcodes"], cwd=repo, env=env, capture_output=True, text=True)
    assert marker.exists()


def test_the_search_path_is_this_processes_without_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", "rel", "/a", "/a", str(ROOT)])
    assert search_path() == [str(ROOT), str(tmp_path / "rel"), "/a"]


def test_qare_graph_out_run_inside_a_cloned_repository_runs_none_of_its_code(tmp_path):
    """The tester's reproduction: qare started as its console script (its
    folder, not the current one, first on the path) from inside the
    repository, a cold build whose ``--out`` the spawned writer writes."""
    repo = _stranger_repo(tmp_path)
    marker = tmp_path / "marker"
    entry = tmp_path / "bin" / "qare_entry.py"
    entry.parent.mkdir()
    entry.write_text(f"import sys\nsys.path.insert(1, {str(ROOT)!r})\nfrom qare.cli import run\nrun()\n")
    env = {**os.environ, "QARE_TEST_MARKER": str(marker), "QARE_CACHE_DIR": str(tmp_path / "cache"),
           "QARE_CONFIG_DIR": str(tmp_path / "config")}
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, str(entry), "graph", ".", "--no-discover-classpath", "-q", "--out", "g.json"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not marker.exists(), marker.read_text()
    assert b'"edges"' in (repo / "g.json").read_bytes()
