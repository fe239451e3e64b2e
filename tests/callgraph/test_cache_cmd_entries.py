"""`qare cache` lists every entry of the cache folder with its size (new-user
pass, session 6: it showed 2.4 MB, the two SQLite files, while the folder held
236 MB, nearly all of it the local Maven repository)."""

from __future__ import annotations

import os

from click.testing import CliRunner

from qare.cli import main


def test_other_entries_are_listed_with_their_sizes(tmp_path, monkeypatch):
    qc = tmp_path / "qc"
    (qc / "m2" / "repository" / "g" / "a").mkdir(parents=True)
    (qc / "m2" / "repository" / "g" / "a" / "a.jar").write_bytes(b"x" * (3 * 2 ** 20))
    (qc / "m2" / "resolved").mkdir()
    (qc / "m2" / "resolved" / "r.json").write_bytes(b"y" * (2 ** 20 // 2))
    for n in ("a", "b"):
        (qc / f"jimage-index-{n}.json").write_bytes(b"z" * (2 ** 20))
    (qc / "mystery").write_bytes(b"w" * (2 ** 20 // 10))
    (qc / "callgraph.sqlite.index").mkdir()
    (qc / "callgraph.sqlite.index" / "s.snap").write_bytes(b"s" * (2 ** 20 // 5))
    (qc / "leaks").mkdir()
    (qc / "leaks" / "common-words-x.json").write_bytes(b"{}" * (2 ** 20 // 10))
    big = tmp_path / "big"
    big.write_bytes(b"b" * (8 * 2 ** 20))
    os.symlink(big, qc / "m2" / "repository" / "link.jar")  # a link is not followed, not counted
    os.mkfifo(qc / "m2" / "fifo")  # never opened: a read would block
    qc.chmod(0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    r = CliRunner().invoke(main, ["cache"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    start = lines.index(f"other entries of {qc}:")
    assert lines[start + 1:] == [
        "      0.2 MB  callgraph.sqlite.index  (project index snapshots of the warm cache, 3 at most)",
        "      2.0 MB  jimage-index-*.json  (JDK module image indexes, 8 at most)",
        "      0.2 MB  leaks  (the leak check's common-word answers)",
        "      3.5 MB  m2  (the local Maven repository: libraries' jars, their javadoc and sources jars, resolutions)",
        "      0.1 MB  mystery",
    ]


def test_entries_beside_a_store(tmp_path, monkeypatch):
    from callgraph._graphstore import open_store

    qc = tmp_path / "qc"
    qc.mkdir(mode=0o700)
    (qc / "repos").mkdir()
    (qc / "repos" / "p.txt").write_bytes(b"r" * (2 ** 20 // 5))
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    store, refused = open_store(None)
    assert store is not None, refused
    store.close()
    r = CliRunner().invoke(main, ["cache"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith(f"graph store {qc / 'graphs.sqlite'}: 0 graphs")
    assert lines[-2:] == [f"other entries of {qc}:", "      0.2 MB  repos  (projects cloned by qare build)"]


def test_a_repository_named_by_the_environment_is_listed_with_its_size(tmp_path, monkeypatch):
    qc = tmp_path / "qc"
    qc.mkdir(mode=0o700)
    repo = tmp_path / "elsewhere" / "repository"
    (repo / "g" / "a").mkdir(parents=True)
    (repo / "g" / "a" / "a.jar").write_bytes(b"j" * (3 * 2 ** 20 // 2))
    monkeypatch.setenv("QARE_CACHE_DIR", str(qc))
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(repo))
    r = CliRunner().invoke(main, ["cache"])
    assert r.exit_code == 0, r.output
    assert f"local Maven repository ($QARE_MAVEN_REPO_LOCAL): {repo}, 1.5 MB" in r.output.splitlines()
    # inside the cache folder it is one of the folder's entries (m2), not a line of its own
    inner = qc / "m2" / "repository"
    inner.mkdir(parents=True)
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(inner))
    r = CliRunner().invoke(main, ["cache"])
    assert r.exit_code == 0, r.output
    assert "$QARE_MAVEN_REPO_LOCAL" not in r.output
    monkeypatch.delenv("QARE_MAVEN_REPO_LOCAL")
    r = CliRunner().invoke(main, ["cache"])
    assert "$QARE_MAVEN_REPO_LOCAL" not in r.output
