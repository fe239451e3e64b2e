"""`qare graph` / `qare chain` on a small project written inline."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from click.testing import CliRunner

from callgraph import build_project_graph
from qare.cli import main
from qare.exitcodes import NO_INPUT, PARTIAL

SRC = {
    "src/main/java/s/Svc.java": """package s;
import org.lib.Text;
public class Svc {
    /** Process. */
    public void process(String c) {
        if (empty(c)) { return; }
    }
    boolean empty(String c) {
        return Text.isBlank(c);
    }
    void other() { }
    void other(int x) { }
}
""",
}


@pytest.fixture()
def project(tmp_path):
    for rel, text in SRC.items():
        p = tmp_path / "proj" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path / "proj"


def test_graph_json_round_trips_and_summary(project, tmp_path):
    out = tmp_path / "g.json"
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "call sites: 2" in res.output and "exact: 1" in res.output and "arity: 1" in res.output
    g = nx.node_link_graph(json.loads(out.read_text()), edges="edges")
    pg = build_project_graph(project)
    assert dict(g.nodes(data=True)) == dict(pg.graph.nodes(data=True))
    assert {(u, v): d for u, v, d in g.edges(data=True)} == {(u, v): d for u, v, d in pg.graph.edges(data=True)}
    assert g.nodes["s.Svc.process(java.lang.String)"]["file"] == "src/main/java/s/Svc.java"
    assert g.edges["s.Svc.empty(java.lang.String)", "org.lib.Text.isBlank(*)"] == {"lines": [9],
                                                                                  "resolution": "arity"}


def test_graph_graphml(project, tmp_path):
    out = tmp_path / "g.graphml"
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    g = nx.read_graphml(out)
    assert g.edges["s.Svc.process(java.lang.String)", "s.Svc.empty(java.lang.String)"]["lines"] == "6"
    assert g.nodes["org.lib.Text.isBlank(*)"]["third_party"] is True


def test_chain_json_and_tree(project):
    res = CliRunner().invoke(main, ["chain", str(project), "Svc.process", "--format", "json", "--quiet"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{
        "api": "org.lib.Text.isBlank", "signature": None, "class": "org.lib.Text", "library": None,
        "depth": 3, "chain": ["s.Svc.process(java.lang.String)", "s.Svc.empty(java.lang.String)",
                              "org.lib.Text.isBlank(*)"],
        "chain_loc": 6, "density": 1 / 6, "resolution": "arity",
        "call_sites": [{"file": "src/main/java/s/Svc.java", "line": 6},
                       {"file": "src/main/java/s/Svc.java", "line": 9}]}]
    res = CliRunner().invoke(main, ["chain", str(project), "process", "--quiet"])
    assert res.exit_code == 0, res.output
    for text in ("depth 3", "chain LOC 6", "src/main/java/s/Svc.java:6", "src/main/java/s/Svc.java:9"):
        assert text in res.output
    res = CliRunner().invoke(main, ["chain", str(project), "process", "--max-depth", "2", "--quiet"])
    assert "no third-party API" in res.output


def test_chain_unknown_and_ambiguous_methods_exit_3_with_candidates(project):
    res = CliRunner().invoke(main, ["chain", str(project), "other", "--quiet"])
    assert res.exit_code == NO_INPUT
    assert "s.Svc.other()" in res.output and "s.Svc.other(int)" in res.output
    res = CliRunner().invoke(main, ["chain", str(project), "nothing", "--quiet"])
    assert res.exit_code == NO_INPUT and "no project method" in res.output


def test_graph_errors_and_exit_codes(tmp_path, project):
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(main, ["graph", str(tmp_path / "empty")])
    assert res.exit_code == NO_INPUT and ".java" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(tmp_path / "g.txt")])
    assert res.exit_code == 2
    (project / "src/main/java/s/Bad.java").write_text("package s; class Bad { void m( { }\n")
    res = CliRunner().invoke(main, ["graph", str(project), "--quiet"])
    assert res.exit_code == PARTIAL and "src/main/java/s/Bad.java" in res.output


def test_out_in_a_missing_folder_is_exit_4_naming_the_folder(tmp_path, project):
    out = tmp_path / "nodir" / "g.json"
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--quiet"])
    assert res.exit_code == 4
    assert res.stderr == f"error: cannot write {out}: {tmp_path / 'nodir'} does not exist\n"
    assert not (tmp_path / "nodir").exists()
    (tmp_path / "afile").write_text("x")  # a file where the folder would be (a second new user)
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(tmp_path / "afile" / "g.json"), "--quiet"])
    assert res.exit_code == 4
    assert res.stderr == f"error: cannot write {tmp_path / 'afile' / 'g.json'}: {tmp_path / 'afile'} is not a folder\n"


def test_help_documents_exit_codes():
    for cmd in ("graph", "chain"):
        res = CliRunner().invoke(main, [cmd, "--help"])
        assert res.exit_code == 0 and "Exit codes" in res.output


def test_graphml_with_control_characters_in_a_comment(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p/C.java").write_text("package p;\nclass C {\n  /** a\x0cb */\n  void m() {}\n}\n")
    out = tmp_path / "g.graphml"
    res = CliRunner().invoke(main, ["graph", str(tmp_path), "--out", str(out), "--quiet",
                                    "--cache", str(tmp_path / "c.sqlite")])
    assert res.exit_code == 0, res.output
    assert nx.read_graphml(out).nodes["p.C.m()"]["comment"] == "/** a\ufffdb */"
    # the JSON form keeps the comment exactly
    res = CliRunner().invoke(main, ["graph", str(tmp_path), "--out", str(tmp_path / "g.json"), "--quiet"])
    data = json.loads((tmp_path / "g.json").read_text())
    assert {n["id"]: n["comment"] for n in data["nodes"]}["p.C.m()"] == "/** a\x0cb */"


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    """A log file (stderr redirected) gets no tqdm carriage returns or escapes."""
    import subprocess
    import sys

    src = tmp_path / "proj" / "A.java"
    src.parent.mkdir()
    src.write_text("class A { void f() { g(); } void g() { } }\n")
    log = tmp_path / "err.log"
    with open(log, "w") as err:
        proc = subprocess.run(
            [sys.executable, "-c", "from qare.cli import main; main()", "graph", str(src.parent),
             "--no-auto-classpath", "--jobs", "1"],
            stdout=subprocess.PIPE, stderr=err, text=True, timeout=120,
        )
    assert proc.returncode == 0, proc.stdout
    text = log.read_text()
    assert "\r" not in text and "\x1b[" not in text and "file/s" not in text
    assert "methods: 3" in proc.stdout  # f, g and the implicit A.<init>()


def test_a_slow_library_resolution_says_it_is_alive_when_stderr_is_no_terminal(project, tmp_path, monkeypatch):
    # a new user (session 8): a first Maven resolution of 23 s printed nothing to a log
    import time

    import callgraph.classpath
    import records.progress

    class Quick(records.progress.Heartbeat):
        def __init__(self, *a, **k):
            super().__init__(*a, **{**k, "interval": 0.05})

    def slow(root, classpath, **kw):
        time.sleep(0.4)
        return list(classpath), None

    monkeypatch.setattr(records.progress, "Heartbeat", Quick)
    monkeypatch.setattr(callgraph.classpath, "with_resolved", slow)
    res = CliRunner().invoke(main, ["graph", str(project), "--cache", str(tmp_path / "c.sqlite")])
    assert res.exit_code == 0, res.output
    assert f"qare: resolving the libraries of {project}, 0:00:00 elapsed" in res.stderr
    res = CliRunner().invoke(main, ["graph", str(project), "--no-cache", "-q"])
    assert "resolving the libraries" not in res.stderr


def test_chain_says_which_files_have_parse_errors_and_exits_1(tmp_path):
    # a new user, session 10: one missing ')' cost chains through that file, and
    # `qare chain` exited 0 saying nothing (only `qare graph` listed the error)
    src = tmp_path / "p" / "src" / "main" / "java" / "p"
    src.mkdir(parents=True)
    (src / "A.java").write_text("package p;\nclass A {\n    int ok() { return 1; }\n"
                                "    void broken() { System.out.println(\"x\"; }\n}\n")
    (src / "B.java").write_text("package p;\nclass B {\n    int use(A a) { return a.ok(); }\n}\n")
    args = ["chain", str(tmp_path / "p"), "B.use", "--no-cache", "--no-discover-classpath", "--quiet"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == PARTIAL, res.output
    # the missing ')' is before ';' at line 4, column 43 (tree-sitter's MISSING node, 1-based)
    assert res.stderr == ("warning: 1 file with parse errors (line:col); methods in them may be missing, "
                          "and the chains through them (exit code 1):\n  src/main/java/p/A.java: 4:43\n")
    (src / "A.java").write_text("package p;\nclass A {\n    int ok() { return 1; }\n}\n")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0 and res.stderr == "", res.output
