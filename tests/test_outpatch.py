"""`qare graph --out g.json` after method-body edits (qare/_outpatch): the
previous output with the edited files' method nodes and out-edges replaced.
Every step of a series of edits is compared byte for byte with a cold build
of the same sources (``--no-cache``, a fresh cache folder), and the steps
that must be patched (only bodies changed, no node added or removed, no
instantiated type changed) are checked to have been: the others — a new
``new Y()`` (RTA witnesses change on edges of other files), a call to an API
no file called, the last call to an API removed, a signature changed — are
written in full. A damaged previous body or meta is never patched from."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from qare import _outpatch
from qare.cli import main

SRC = {
    "I.java": "package p;\npublic interface I { void run(); }\n",
    "X.java": "package p;\npublic class X implements I {\n    public void run() { System.out.println(\"x\"); }\n}\n",
    "Y.java": "package p;\npublic class Y implements I {\n    public void run() { }\n}\n",
    "Main.java": """package p;
public class Main {
    void go(I i) {
        i.run();
        new X();
    }
    int size(java.util.List<String> l) {
        return l.size();
    }
}
""",
    "Other.java": """package p;
class Other {
    void call(I i) { i.run(); }
    int b() {
        int x = 1;
        return x;
    }
}
""",
}


def _write(project: Path, files: dict) -> None:
    for name, text in files.items():
        p = project / "src/main/java/p" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _edit(project: Path, name: str, old: str, new: str) -> None:
    p = project / "src/main/java/p" / name
    text = p.read_text()
    assert old in text, (name, old)
    p.write_text(text.replace(old, new, 1))


@pytest.fixture()
def env(tmp_path, monkeypatch):
    """``(project, run)``: ``run()`` builds warm, then cold, and returns
    ``(warm bytes, cold bytes, patched?)``."""
    project = tmp_path / "proj"
    _write(project, SRC)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    log = tmp_path / "patched.log"
    real = _outpatch.patch

    def spy(*a, **k):  # the writer is a forked child: it says so in a file
        got = real(*a, **k)
        with open(log, "a") as fh:
            fh.write("patched\n" if got is not None else "refused\n")
        return got

    monkeypatch.setattr(_outpatch, "patch", spy)
    step = [0]

    def run(*extra):
        step[0] += 1
        log.unlink(missing_ok=True)
        warm = tmp_path / f"warm{step[0]}.json"
        monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
        res = CliRunner().invoke(main, ["graph", str(project), "--out", str(warm), "--no-discover-classpath",
                                        "-q", "--jobs", "1", *extra], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        fresh = tmp_path / f"fresh{step[0]}"
        fresh.mkdir(mode=0o700)
        cold = tmp_path / f"cold{step[0]}.json"
        monkeypatch.setenv("QARE_CACHE_DIR", str(fresh))
        res = CliRunner().invoke(main, ["graph", str(project), "--out", str(cold), "--no-discover-classpath",
                                        "-q", "--jobs", "1", "--no-cache", *extra], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        said = log.read_text().split() if log.exists() else []
        return warm.read_bytes(), cold.read_bytes(), said

    return project, run, cache


def _same(warm: bytes, cold: bytes) -> None:
    assert warm == cold
    json.loads(warm)  # and it is the JSON it claims to be


def test_a_series_of_edits_is_patched_exactly_or_written_in_full(env):
    project, run, _cache = env
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []  # the first build: nothing to patch from
    # a body edit: a statement added (the later method's lines move)
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == ["patched"]
    assert json.loads(warm)["edges"] and b'"lines": [\n    4,\n    5\n   ]' in warm  # two call sites now
    # two files edited at once
    _edit(project, "Main.java", "        new X();\n", "        new X();\n        this.size(null);\n")
    _edit(project, "Other.java", "        int x = 1;\n", "        int x = 2;\n        x++;\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == ["patched"]
    # the edits reverted: patched back
    _write(project, {"Main.java": SRC["Main.java"], "Other.java": SRC["Other.java"]})
    warm, cold, said = run()
    _same(warm, cold)
    assert said == ["patched"]
    # a body edit adding `new Y()`: the witnesses of I.run()'s cha edges change in Main too: in full
    _edit(project, "Other.java", "        int x = 1;\n", "        int x = 1;\n        new Y();\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []
    # a call to an API no file calls yet: a new node: in full
    _edit(project, "Other.java", "        return x;\n", "        return Math.abs(x);\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []
    # the only call to List.size() removed: its node goes: in full
    _edit(project, "Main.java", "return l.size();", "return 0;")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []
    # a body edit again after those: patched (a full write keeps what the next patch needs)
    _edit(project, "Other.java", "    void call(I i) { i.run(); }\n", "    void call(I i) {\n        i.run();\n    }\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == ["patched"]
    # a signature changed: another project key: in full
    _edit(project, "Other.java", "int b() {", "int b(int y) {")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []


def test_other_formats_and_modes_are_written_in_full(env):
    project, run, _cache = env
    run("--dispatch", "rta")
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    warm, cold, said = run("--dispatch", "rta")
    _same(warm, cold)
    assert said == []


def _entries(cache: Path):
    return sorted((cache / "graphs.sqlite.out").glob("*.meta"), key=lambda p: p.stat().st_mtime)


@pytest.mark.parametrize("damage", ["body", "frame", "counts"])
def test_a_damaged_previous_entry_is_not_patched_from(env, damage):
    project, run, cache = env
    run()
    (meta_path,) = _entries(cache)
    body_path = meta_path.with_suffix(".body")
    if damage == "body":  # one byte changed, size kept: the SHA-256 no longer matches
        data = bytearray(body_path.read_bytes())
        at = data.index(b'"start_line": ') + len(b'"start_line": ')
        data[at] = ord("9") if data[at] != ord("9") else ord("8")
        body_path.write_bytes(bytes(data))
    else:
        meta = json.loads(meta_path.read_text())
        if damage == "frame":
            meta["frame"] = "not a digest"
        else:
            meta["counts"] = [meta["counts"][0] + 1, *meta["counts"][1:]]  # counts of another graph
        meta_path.write_text(json.dumps(meta))
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said in ([], ["refused"])
    assert said == (["refused"] if damage == "counts" else [])


def test_an_edited_file_declaring_a_type_of_another_module_is_written_in_full(tmp_path, monkeypatch):
    """Two modules declare p.Dup (their members merged, one node per method
    id, docs/callgraph.md): a body edit in the second file changes edges of
    a node whose file is the first, so it is not patched by file."""
    project = tmp_path / "proj"
    (project / "a").mkdir(parents=True)
    (project / "b").mkdir(parents=True)
    (project / "pom.xml").write_text("<project><modules><module>a</module><module>b</module></modules></project>\n")
    for m in ("a", "b"):
        (project / m / "pom.xml").write_text(f"<project><artifactId>{m}</artifactId></project>\n")
    a = project / "a/src/test/java/p/Dup.java"
    b = project / "b/src/test/java/p/Dup.java"
    for p in (a, b):
        p.parent.mkdir(parents=True)
    a.write_text("package p;\nclass Dup {\n    void go() { x(); }\n    void x() { }\n    void y() { }\n}\n")
    # z() only in b: b's file has a node of its own, go() is a's node with the edges of both files
    b.write_text("package p;\nclass Dup {\n    void go() { y(); }\n    void x() { }\n    void y() { }\n"
                 "    void z() { }\n}\n")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    log = tmp_path / "patched.log"
    real = _outpatch.patch

    def spy(*a, **k):
        got = real(*a, **k)
        if got is not None:
            log.write_text("patched\n")
        return got

    monkeypatch.setattr(_outpatch, "patch", spy)

    def build(name, *extra, env=cache):
        monkeypatch.setenv("QARE_CACHE_DIR", str(env))
        out = tmp_path / name
        res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--no-discover-classpath", "-q",
                                        "--jobs", "1", *extra], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        return out.read_bytes()

    build("w0.json")
    b.write_text(b.read_text().replace("void go() { y(); }", "void go() {\n        y();\n        x();\n    }"))
    warm = build("w1.json")
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o700)
    assert warm == build("c1.json", "--no-cache", env=fresh)
    assert not log.exists()


def test_a_patched_graph_without_an_entry_writes_one_that_the_next_edit_patches(env):
    """A graph patched from the store (callgraph._patch) whose previous
    output entry is gone is written in full, with its frame worked out from
    the stored tables (no networkx graph needed for it): the next body edit
    patches that entry."""
    project, run, cache = env
    run()
    for p in (cache / "graphs.sqlite.out").iterdir():
        p.unlink()
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == []  # nothing to patch from: written in full
    (meta,) = _entries(cache)
    assert json.loads(meta.read_text())["frame"] is not None
    _edit(project, "Other.java", "        int x = 1;\n", "        int x = 2;\n")
    warm, cold, said = run()
    _same(warm, cold)
    assert said == ["patched"]


def test_an_out_that_cannot_be_renamed_into_after_the_store_is_an_error_and_left_as_it_was(env, monkeypatch):
    """A graph patched from the store is stored while a thread renames the
    patched ``--out`` into place (qare._outcache ``publish_pieces``): a
    rename that fails then is ``cannot write`` (exit 4), ``--out`` as it
    was and no temporary file left, as when it failed before the store."""
    from qare import _outcache

    project, run, cache = env
    run()
    _edit(project, "Main.java", "        i.run();\n", "        i.run();\n        i.run();\n")
    out = project.parent / "kept.json"
    out.write_bytes(b"before")
    real = _outcache._replace
    calls = []

    def no_rename(tmp, target, held=None):
        calls.append(threading.current_thread() is not threading.main_thread())
        if target == out:
            tmp.unlink()
            raise PermissionError(13, "Permission denied", str(target))
        return real(tmp, target, held)

    monkeypatch.setattr(_outcache, "_replace", no_rename)
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    res = CliRunner().invoke(main, ["graph", str(project), "--out", str(out), "--no-discover-classpath", "-q",
                                    "--jobs", "1"], catch_exceptions=False)
    assert res.exit_code == 4, res.output
    assert f"cannot write {out}" in res.output
    assert out.read_bytes() == b"before"
    assert calls == [True]  # the patched out, renamed by the thread; nothing written in full after the store
    assert [p.name for p in project.parent.iterdir() if p.name.startswith(".kept.json")] == []
    assert [p.name for p in (cache / "graphs.sqlite.out").iterdir() if p.name.startswith(".")] == []


def test_a_compact_graphs_runs_are_those_a_walk_of_every_node_finds():
    """``OutView.runs`` (callgraph._compact) looks only around the edited
    methods; ``_outpatch._runs`` walks every node for other views: the same
    runs, with the same sources before and after, on random graphs."""
    import random

    from callgraph._compact import OutView

    class Walked:  # the view without its runs: _runs walks its nodes
        def __init__(self, view):
            self.nodes = view.nodes

    rnd = random.Random(17)
    for _ in range(300):
        n, n_api = rnd.randint(1, 12), rnd.randint(0, 4)
        names = sorted(f"m{i:02d}" for i in range(n)) + [f"api{i}" for i in range(n_api)]
        offsets, targets = [0], []
        for _i in range(n):
            targets += [rnd.randrange(len(names)) for _e in range(rnd.choice((0, 0, 1, 2)))]
            offsets.append(len(targets))
        view = OutView({"names": names, "n_methods": n, "offsets": offsets, "targets": targets}, [], set(), None)
        edited = set(rnd.sample(names[:n], rnd.randint(1, n)))
        skip = frozenset(rnd.sample(names[n:], rnd.randint(0, n_api)))
        assert _outpatch._runs(view, edited, skip) == _outpatch._runs(Walked(view), edited, skip)
