"""Progress when stderr is not a terminal (plain lines, `--quiet` silences
them) and the javadoc phase: one load per site per build."""

import io
import re
import shutil
import time
from pathlib import Path

from click.testing import CliRunner

import queries._docs as qdocs
import queries.build as qb
from qare.cli import main
from queries._progress import BuildProgress, Heartbeat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _examples(tmp_path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    return tmp_path / "examples" / "projects.txt"


def test_plain_lines_per_project_when_stderr_is_not_a_terminal(tmp_path):
    r = CliRunner().invoke(main, ["build", str(_examples(tmp_path)), "--out", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("qare build: ")]
    done = [ln for ln in lines if re.fullmatch(r"qare build: \d/2 projects, \S+ kept \(\d+\.\d s\), \d:\d\d:\d\d elapsed", ln)]
    assert [d.split()[2] for d in done] == ["1/2", "2/2"]
    assert "\r" not in r.stderr and "\x1b[" not in r.stderr


def test_quiet_silences_progress(tmp_path):
    r = CliRunner().invoke(main, ["build", str(_examples(tmp_path)), "--out", str(tmp_path / "d"), "-q"])
    assert r.exit_code == 0, r.output
    assert "qare build:" not in r.stderr


def test_a_site_shared_by_two_projects_is_loaded_once_per_build(tmp_path, monkeypatch):
    import javadoc

    opened = []
    real = javadoc.DocIndex.open.__func__

    def counting(cls, *paths, **kw):
        opened.append(paths)
        return real(cls, *paths, **kw)

    monkeypatch.setattr(javadoc.DocIndex, "open", classmethod(counting))
    lst = _examples(tmp_path)
    r = CliRunner().invoke(main, ["build", str(lst), "--out", str(tmp_path / "d"), "-q"])
    assert r.exit_code == 0, r.output
    site = str(lst.parent / "libs" / "textkit" / "src")
    assert opened == [(site,)]  # both example projects name this folder: one load
    assert '"samples": 6' in (tmp_path / "d" / "manifest.json").read_text()
    assert not qdocs._DOCS_MEMO  # emptied when the build ends
    # a second build loads it again (a site may change between builds)
    CliRunner().invoke(main, ["build", str(lst), "--out", str(tmp_path / "d2"), "-q"])
    assert opened == [(site,), (site,)]


def test_memo_keeps_failures_and_warnings_per_path(tmp_path):
    qdocs._DOCS_MEMO.clear()
    missing = str(tmp_path / "nope")
    site = str(EXAMPLES / "libs" / "textkit" / "src")
    a = qdocs.open_docs([site, missing])
    b = qdocs.open_docs([missing, site])
    qdocs._DOCS_MEMO.clear()
    assert a.failed == b.failed == (missing,)
    assert [w[0] for w in a.warnings] == [missing] == [w[0] for w in b.warnings]
    assert len(a.members()) == len(b.members()) == 10


def test_heartbeat_prints_every_interval_with_status():
    out = io.StringIO()
    state = {"n": 0}
    with Heartbeat("qare x: ", lambda: f"step {state['n']}", interval=0.02, file=out):
        for i in range(5):
            state["n"] = i
            time.sleep(0.03)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2
    assert all(re.fullmatch(r"qare x: step \d, 0:00:00 elapsed", ln) for ln in lines)


def test_build_progress_status_names_project_and_phase():
    out = io.StringIO()
    with BuildProgress(3, 1, lines=True, interval=60, file=out) as p:
        qb._progress.set_phase("acme", "call graph")
        assert p._status() == "1/3 projects, now acme: call graph"
        p.finished("acme", "kept", 1.25)
    qb._progress.set_phase("other", "fetch")  # no build running: ignored
    assert out.getvalue().startswith("qare build: 2/3 projects, acme kept (1.2 s), 0:00:00 elapsed")
    silent = io.StringIO()
    with BuildProgress(1, lines=False, file=silent) as p:
        p.finished("a", "kept", 1.0)
    assert silent.getvalue() == ""
