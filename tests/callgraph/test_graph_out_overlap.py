"""`qare graph --out` writes the file in another process while this one
stores the graph (qare.cmd_callgraph._write_beside_store): node-link JSON of
the ``cha`` graph by a spawned writer from the encoded graph
(``qare._jsonout``), other formats and options by a forked child; same bytes
as the serial writer, errors and a dying writer reported with exit 4 and no
file left, a spawned writer that fails replaced by this process's."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from qare import cmd_callgraph
from qare.cli import main
from qare.exitcodes import FATAL

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the overlap needs os.fork (POSIX)")

SRC = {
    "src/main/java/s/Svc.java": """package s;
import org.lib.Text;
public class Svc implements Runnable {
    /** Process. */
    public void process(String c) {
        if (empty(c)) { return; }
        Runnable r = new Svc();
        r.run();
    }
    boolean empty(String c) {
        return Text.isBlank(c);
    }
    public void run() { other(); other(1); }
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


@pytest.fixture()
def cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    return d / "cg.sqlite"


@pytest.fixture()
def forks(monkeypatch):
    """The writers this process started, in order: 1 per fork (the forked
    writer's), "spawn" per spawned ``qare._jsonout``; the memory bound
    lifted, so a test process grown large still forks (see the bound's test)."""
    import subprocess

    calls = []
    real = os.fork
    monkeypatch.setattr(cmd_callgraph, "FORK_WRITER_MAX_BYTES", 1 << 62)

    def fork():
        calls.append(1)
        return real()

    real_popen = subprocess.Popen

    class Popen(real_popen):
        def __init__(self, args, *a, **k):
            if any("'qare._jsonout'" in str(a) for a in args):  # callgraph._subpython.module_argv's program
                calls.append("spawn")
            super().__init__(args, *a, **k)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(subprocess, "Popen", Popen)
    return calls


def _graph(project, out, *extra):
    return CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--quiet",
                                     "--no-discover-classpath", *extra])


@pytest.mark.parametrize("name,extra,writer", [("g.json", (), "spawn"), ("g.json", ("--dispatch", "rta"), 1),
                                               ("g.json", ("--include-unresolved",), 1), ("g.graphml", (), 1)])
def test_forked_writer_writes_the_serial_bytes(project, tmp_path, cache, forks, name, extra, writer):
    serial = tmp_path / "serial" / name
    serial.parent.mkdir()
    res = _graph(project, serial, "--no-cache", *extra)  # no store: written here, serially
    assert res.exit_code == 0, res.output
    assert forks == []
    out = tmp_path / name
    forked = _graph(project, out, "--cache", str(cache), *extra)  # a new store entry: written by the child
    assert forked.exit_code == 0, forked.output
    assert forks == [writer]
    assert out.read_bytes() == serial.read_bytes()

    def counts(r):  # "graph: N nodes, M edges → OUT": the counts the child sent back
        return [x.split("→")[0] for x in r.output.splitlines() if x.startswith("graph: ")]

    assert counts(forked) == counts(res) and counts(res)[0].startswith("graph: ")
    # the store now holds these inputs: nothing to store, so no child
    res = _graph(project, out, "--cache", str(cache), *extra)
    assert res.exit_code == 0, res.output
    assert forks == [writer]
    assert out.read_bytes() == serial.read_bytes()


def test_the_stored_graph_is_written_while_the_child_writes(project, tmp_path, cache, forks):
    res = _graph(project, tmp_path / "g.json", "--cache", str(cache))
    assert res.exit_code == 0, res.output
    assert forks == ["spawn"]
    # qare chain answers from the graph the parent stored: the build is never called
    import callgraph

    def no_build(*a, **k):
        raise AssertionError("rebuilt: the graph was not stored")

    orig = callgraph.build_project_graph
    callgraph.build_project_graph = no_build
    try:
        res = CliRunner().invoke(main, ["chain", str(project), "Svc.process", "--quiet",
                                        "--no-discover-classpath", "--cache", str(cache)])
    finally:
        callgraph.build_project_graph = orig
    assert res.exit_code == 0, res.output
    assert "org.lib.Text.isBlank" in res.output


@pytest.mark.parametrize("extra,writer", [((), "spawn"), (("--dispatch", "rta"), 1)])
def test_an_unwritable_out_is_exit_4_from_the_child(project, tmp_path, cache, forks, extra, writer):
    # a folder where --out would go (a missing folder is refused before the build: test_cg_cli)
    out = tmp_path / "g.json"
    out.mkdir()
    (out / "keep").write_text("x")
    res = _graph(project, out, "--cache", str(cache), *extra)
    assert forks == [writer]
    assert res.exit_code == FATAL
    assert f"error: cannot write {out}" in res.output
    assert sorted(p.name for p in out.iterdir()) == ["keep"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "g.json", "proj"]
    assert not [p for p in (tmp_path / "cache").rglob("*") if ".new" in p.name]  # no writer's file left


def test_a_spawned_writer_that_fails_is_replaced_by_this_process(project, tmp_path, cache, forks, monkeypatch):
    """The writer's interpreter writes half a file and dies: this process
    writes ``--out`` itself after storing the graph, the same bytes; nothing
    of the dead writer is left."""
    serial = tmp_path / "serial.json"
    assert _graph(project, serial, "--no-cache").exit_code == 0
    fake = tmp_path / "python-that-dies"
    fake.write_text("#!/bin/sh\nfor last; do :; done\nfor f; do case $f in */*) printf '{\"half' > \"$f\";; esac; done\n"
                    "cat > /dev/null\nexit 9\n")
    fake.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(fake))
    out = tmp_path / "g.json"
    res = _graph(project, out, "--cache", str(cache))
    assert res.exit_code == 0, res.output
    assert forks == ["spawn"]
    assert out.read_bytes() == serial.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cache", "proj", "serial.json", fake.name, "g.json"])
    assert not [p for p in (tmp_path / "cache").rglob("*") if ".new" in p.name]


def test_a_writer_that_dies_leaves_no_file(project, tmp_path, cache, forks, monkeypatch):
    real = cmd_callgraph.write_node_link_json

    def dies_half_way(g, fh, skip=frozenset()):
        real(g, fh, skip)
        fh.flush()
        os._exit(9)  # killed after writing: the temporary file is complete but never renamed

    monkeypatch.setattr(cmd_callgraph, "write_node_link_json", dies_half_way)
    out = tmp_path / "g.json"
    res = _graph(project, out, "--cache", str(cache), "--dispatch", "rta")
    assert forks == [1]
    assert res.exit_code == FATAL
    assert "the writer process ended without finishing (exit status 9)" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "proj"]


def test_a_writer_bug_is_reported_not_hidden(project, tmp_path, cache, forks, monkeypatch):
    def broken(g, fh, skip=frozenset()):
        raise KeyError("lines")

    monkeypatch.setattr(cmd_callgraph, "write_node_link_json", broken)
    out = tmp_path / "g.json"
    res = _graph(project, out, "--cache", str(cache), "--dispatch", "rta")
    assert res.exit_code == FATAL
    assert "the writer failed: KeyError" in res.output
    assert not out.exists()


def test_a_process_too_large_to_copy_writes_after_storing(project, tmp_path, cache, forks, monkeypatch):
    """Twice the resident memory past FORK_WRITER_MAX_BYTES: no child (the
    two processes would copy about every page of the graph between them);
    the store is written, then the file, with the bytes the forked writer
    writes and the counts it tells."""
    forked = tmp_path / "forked.json"
    res = _graph(project, forked, "--cache", str(cache), "--dispatch", "rta")
    assert res.exit_code == 0, res.output
    assert forks == [1]
    monkeypatch.setattr(cmd_callgraph, "_resident_bytes", lambda: 1 << 30)
    monkeypatch.setattr(cmd_callgraph, "FORK_WRITER_MAX_BYTES", (2 << 30) - 1)
    serial = tmp_path / "serial.json"
    res2 = _graph(project, serial, "--cache", str(tmp_path / "cache" / "other.sqlite"), "--dispatch", "rta")
    assert res2.exit_code == 0, res2.output
    assert forks == [1]  # no second fork
    assert serial.read_bytes() == forked.read_bytes()
    assert [x.split("→")[0] for x in res2.output.splitlines() if x.startswith("graph: ")] == \
        [x.split("→")[0] for x in res.output.splitlines() if x.startswith("graph: ")]
    # and stored: the next run answers from the store without building
    import callgraph

    monkeypatch.setattr(callgraph, "build_project_graph",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("rebuilt: not stored")))
    res3 = _graph(project, tmp_path / "again.json", "--cache", str(tmp_path / "cache" / "other.sqlite"),
                  "--dispatch", "rta")
    assert res3.exit_code == 0, res3.output
    assert (tmp_path / "again.json").read_bytes() == forked.read_bytes()


def test_resident_bytes_is_this_process_now():
    """Within a factor of the kernel's own figure (VmRSS), and it grows by
    what is allocated: 64 MiB touched shows."""
    before = cmd_callgraph._resident_bytes()
    block = bytearray(64 << 20)  # zero-filled: every page written
    after = cmd_callgraph._resident_bytes()
    del block
    assert after - before >= 60 << 20
    with open("/proc/self/status") as fh:
        kb = next(int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS:"))
    assert abs(cmd_callgraph._resident_bytes() - kb * 1024) < 32 << 20
