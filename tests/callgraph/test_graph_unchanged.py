"""`qare graph --out` when no input changed (qare/cmd_callgraph._from_store,
qare/_outcache): the graph store answers, --out is copied from the output
cache, nothing is built — and anything changed, damaged or foreign is
built as before, byte for byte."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import callgraph
from qare import _outcache
from qare.cli import main

SRC = {
    "src/main/java/s/Svc.java": """package s;
public class Svc {
    public void process(String c) {
        if (empty(c)) { return; }
    }
    boolean empty(String c) {
        return c.isEmpty();
    }
}
""",
    "src/main/java/s/Use.java": """package s;
class Use {
    void go(Svc s) { s.process("x"); }
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
    return d / "c.sqlite"


def _graph(project, out, cache, *extra):
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--cache", str(cache),
                                    "--no-discover-classpath", *extra], catch_exceptions=False)
    return res


def _fresh(project, tmp_path, *extra):
    out = tmp_path / f"fresh{len(list(tmp_path.iterdir()))}.json"
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--no-cache", "-q",
                                    "--no-discover-classpath", *extra])
    assert res.exit_code == 0, res.output
    return out.read_bytes()


def _old(project):
    """Files written more than the racy window ago (their stat alone then stands for their bytes)."""
    t = 1_600_000_000
    for p in project.rglob("*.java"):
        os.utime(p, (t, t))


def test_an_unchanged_project_is_answered_from_the_store(project, tmp_path, cache, monkeypatch):
    out1, out2 = tmp_path / "a.json", tmp_path / "b.json"
    res = _graph(project, out1, cache, "-q")
    assert res.exit_code == 0, res.output
    with monkeypatch.context() as m:
        m.setattr(callgraph, "build_project_graph", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built")))
        res2 = _graph(project, out2, cache)
    assert res2.exit_code == 0, res2.output
    assert "graph: from the store (built " in res2.output
    assert out2.read_bytes() == out1.read_bytes() == _fresh(project, tmp_path)
    # the same summary counts and graph line as the build printed
    assert res2.output.splitlines()[-1].replace(str(out2), "X") == res.output.splitlines()[-1].replace(str(out1), "X")
    assert "files: 2" in res2.output and "phases: startup" in res2.output
    # no build ran: the time line names none of a build's phases
    assert "time: build" in res.output and "time: build" not in res2.output
    assert re.search(r"^time: no build \(nothing it reads changed\); the stored graph read in [\d.]+ s wall", res2.output,
                     re.M)


def test_a_build_says_why_the_store_did_not_answer(project, tmp_path, cache):
    """As ``qare chain`` does: ``graph: built and stored (WHY)`` (a new user,
    session 8: a first ``--out`` after a plain ``qare graph`` was built
    again, and nothing said so)."""
    res = CliRunner().invoke(main, ["graph", str(project), "--cache", str(cache), "--no-discover-classpath"])
    assert res.exit_code == 0 and res.stderr.splitlines()[-1] == "graph: built and stored (no stored graph)"
    res = _graph(project, tmp_path / "a.json", cache)
    assert res.exit_code == 0
    # the first --out after a plain `qare graph`: written from the stored graph, not built (session 9)
    assert re.fullmatch(r"graph: from the store \(built [\d: -]+, 2 files unchanged\); --out written from it",
                        res.stderr.splitlines()[-1]), res.stderr
    res = _graph(project, tmp_path / "b.json", cache)
    assert res.exit_code == 0 and res.stderr.splitlines()[-1].startswith("graph: from the store (built ")
    p = project / "src/main/java/s/Use.java"
    p.write_text(p.read_text().replace('s.process("x");', 's.process("x"); s.empty("y");'))
    res = _graph(project, tmp_path / "c.json", cache)
    assert res.exit_code == 0
    # a body edit: the stored graph patched, and said so (a new user, session 9, could not tell)
    assert res.stderr.splitlines()[-1] == "graph: patched and stored (src/main/java/s/Use.java changed)"
    q = project / "src/main/java/s/Svc.java"
    q.write_text(q.read_text().replace("boolean empty(String c)", "boolean empty(CharSequence c)"))
    res = _graph(project, tmp_path / "c2.json", cache)
    assert res.exit_code == 0  # a signature: built whole
    assert res.stderr.splitlines()[-1] == "graph: built and stored (src/main/java/s/Svc.java changed)"
    assert _graph(project, tmp_path / "d.json", cache, "-q").stderr == ""  # -q: nothing said


def test_a_changed_body_is_built_again(project, tmp_path, cache):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    p = project / "src/main/java/s/Use.java"
    p.write_text(p.read_text().replace('s.process("x");', 's.process("x"); s.empty("y");'))
    res = _graph(project, out, cache)
    assert res.exit_code == 0 and "graph: from the store" not in res.output
    edges = json.loads(out.read_text())["edges"]
    assert any(e["source"] == "s.Use.go(s.Svc)" and e["target"] == "s.Svc.empty(java.lang.String)" for e in edges)
    assert out.read_bytes() == _fresh(project, tmp_path)


def test_touched_but_unchanged_files_still_answer(project, tmp_path, cache, monkeypatch):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    good = out.read_bytes()
    _old(project)  # new mtimes (and ctimes): the stat differs, the bytes are hashed and found equal
    monkeypatch.setattr(callgraph, "build_project_graph", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built")))
    res = _graph(project, tmp_path / "b.json", cache)
    assert res.exit_code == 0 and "graph: from the store" in res.output
    assert (tmp_path / "b.json").read_bytes() == good


def test_each_output_option_is_its_own_entry(project, tmp_path, cache):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    # another dispatch: the rta entry is not copied for it
    res = _graph(project, tmp_path / "b.json", cache, "-q", "--dispatch", "declared")
    assert res.exit_code == 0
    assert (tmp_path / "b.json").read_bytes() == _fresh(project, tmp_path, "--dispatch", "declared")


def _entry(cache: Path) -> tuple[Path, Path]:
    folder = Path(str(cache) + ".graphs.out")
    metas = [p for p in folder.iterdir() if p.suffix == ".meta"]
    assert len(metas) == 1
    return metas[0], metas[0].with_suffix(".body")


def test_an_output_entry_is_private(project, tmp_path, cache):
    """The second new user (session 7): the entry's body was 0644 (the writer's
    umask) where everything else in the cache is 0600."""
    assert _graph(project, tmp_path / "a.json", cache, "-q").exit_code == 0
    meta, body = _entry(cache)
    assert stat.S_IMODE(body.stat().st_mode) == 0o600 and stat.S_IMODE(meta.stat().st_mode) == 0o600


def test_a_damaged_output_entry_is_never_copied(project, tmp_path, cache):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    good = out.read_bytes()
    meta, body = _entry(cache)
    data = bytearray(body.read_bytes())
    i = data.index(b"s.Use.go")
    data[i + 2] = ord("X")  # same size, still JSON: only the checksum can tell
    body.write_bytes(bytes(data))
    out2 = tmp_path / "b.json"
    res = _graph(project, out2, cache)
    assert res.exit_code == 0
    assert out2.read_bytes() == good
    assert not list(out2.parent.glob(".b.json.*.tmp"))  # the refused copy left nothing behind


def test_a_linked_body_is_not_followed(project, tmp_path, cache):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    good = out.read_bytes()
    meta, body = _entry(cache)
    other = tmp_path / "other.json"
    other.write_bytes(body.read_bytes())
    body.unlink()
    body.symlink_to(other)
    res = _graph(project, tmp_path / "b.json", cache)
    assert res.exit_code == 0 and (tmp_path / "b.json").read_bytes() == good
    # not copied from the entry (the link was not read): written from the stored graph (session 9; built before)
    assert "; --out written from it" in res.output
    assert other.read_bytes() == good  # never written through
    assert not body.is_symlink() and body.read_bytes() == good  # the link itself replaced


@pytest.mark.parametrize("meta_text", ["{", "[]", '{"format": "qare-graph-out 1"}', "x" * 5000])
def test_a_bad_meta_file_is_a_miss(project, tmp_path, cache, meta_text):
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    good = out.read_bytes()
    meta, _body = _entry(cache)
    meta.write_text(meta_text)
    res = _graph(project, tmp_path / "b.json", cache, "-q")
    assert res.exit_code == 0 and (tmp_path / "b.json").read_bytes() == good


def test_a_shared_output_folder_is_not_used(project, tmp_path, cache):
    folder = Path(str(cache) + ".graphs.out")
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o777)
    with pytest.raises(OSError):
        _outcache.OutputCache(folder)
    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    assert not list(folder.iterdir())  # nothing was written into it
    assert out.read_bytes() == _fresh(project, tmp_path)


def test_entries_are_bounded(tmp_path, monkeypatch):
    folder = tmp_path / "o"
    oc = _outcache.OutputCache(folder)
    monkeypatch.setattr(_outcache, "MAX_ENTRIES", 2)
    for i in range(4):
        body = oc.temp_path(f"k{i}", ".json")
        body.write_text(f"body {i}")
        oc.publish(f"k{i}", body, tmp_path / f"out{i}.json", (1, 2, 0))
        os.utime(folder / f"k{i}.meta", (1000 + i, 1000 + i))
    assert sorted(p.name for p in folder.iterdir()) == ["k2.body", "k2.meta", "k3.body", "k3.meta"]
    assert oc.copy_to("k3", tmp_path / "again.json") == (1, 2, 0)
    assert (tmp_path / "again.json").read_text() == "body 3"
    assert oc.copy_to("k0", tmp_path / "gone.json") is None and not (tmp_path / "gone.json").exists()


@pytest.mark.parametrize("suffix,extra", [(".json", ()), (".json", ("--dispatch", "rta")),
                                          (".json", ("--include-unresolved",)), (".graphml", ()), (".dot", ())])
def test_a_first_out_of_a_stored_graph_is_written_from_the_store(project, tmp_path, cache, monkeypatch, suffix,
                                                                 extra):
    """``qare graph --out`` after ``qare chain`` or a plain ``qare graph``:
    the store holds the graph, the output cache not this output of it; the
    file is written from the stored graph (``callgraph._patch.stored_graph``)
    — nothing built — byte for byte what a build without cache writes, and
    kept: the next run copies it."""
    res = CliRunner().invoke(main, ["graph", str(project), "--cache", str(cache), "--no-discover-classpath", "-q"])
    assert res.exit_code == 0, res.output
    out, again = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    with monkeypatch.context() as m:
        m.setattr(callgraph, "build_project_graph", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built")))
        res = _graph(project, out, cache, *extra)
        assert res.exit_code == 0, res.output
        assert res.stderr.splitlines()[-1].endswith("unchanged); --out written from it"), res.stderr
        res = _graph(project, again, cache, *extra)
        assert res.exit_code == 0 and res.stderr.splitlines()[-1].endswith("unchanged)"), res.stderr
    fresh = tmp_path / f"fresh{suffix}"
    ref = CliRunner().invoke(main, ["graph", str(project), "--out", str(fresh), "--no-cache", "-q",
                                    "--no-discover-classpath", *extra])
    assert ref.exit_code == 0, ref.output
    assert out.read_bytes() == again.read_bytes() == fresh.read_bytes()


def test_a_bad_stored_row_met_while_writing_out_builds_whole(project, tmp_path, cache):
    res = CliRunner().invoke(main, ["graph", str(project), "--cache", str(cache), "--no-discover-classpath", "-q"])
    assert res.exit_code == 0, res.output
    import sqlite3

    from callgraph._graphstore import default_path

    db = sqlite3.connect(default_path(cache))
    with db:
        db.execute("DELETE FROM rows")  # every method row gone: the writer cannot read a MethodInfo
    db.close()
    out = tmp_path / "a.json"
    res = _graph(project, out, cache)
    assert res.exit_code == 0, res.output
    assert "from the store" not in res.stderr.splitlines()[-1], res.stderr
    assert out.read_bytes() == _fresh(project, tmp_path)


def test_an_answer_from_the_store_imports_no_parser_nor_build(project, tmp_path, cache):
    """docs/callgraph.md "Imports": an unchanged project is answered without
    the parser, the resolver or the build (``_Inputs`` imported
    ``callgraph._build`` for its CPU clock until session 9: ~50 ms of every
    warm run)."""
    import subprocess
    import sys

    out = tmp_path / "a.json"
    assert _graph(project, out, cache, "-q").exit_code == 0
    prog = ("import runpy, sys\n"
            f"sys.argv = ['qare', 'graph', {str(project)!r}, '--out', {str(out)!r}, '--cache', {str(cache)!r},"
            " '--no-discover-classpath', '-q']\n"
            "try:\n    runpy.run_module('qare', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, sorted(m for m in ('callgraph._build', 'callgraph._facts', 'callgraph._resolve',"
            " 'tree_sitter', 'networkx') if m in sys.modules))\n")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=120, cwd=root,
                       env={**os.environ, "PYTHONPATH": str(root)})
    assert r.stdout.strip().splitlines()[-1] == "0 []", (r.stdout, r.stderr)
