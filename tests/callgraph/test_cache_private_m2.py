"""The local Maven repository ``<cache>/m2/repository``, the resolution cache
``<cache>/m2/resolved/*.json`` and the JDK index ``<cache>/jimage-index-*.json``
are used only while every folder from the cache root down passes
``check_private`` (docs/security.md "Caches"; attack report F1)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from callgraph import _mvn_resolve, classpath
from callgraph._artifacts import fetch_doc_jars
from callgraph._mvn import Reason
from callgraph.classpath import find_jdk
from tests.callgraph import _evil_plugin

# each test's QARE_CACHE_DIR brings its own <cache>/m2/repository, the folder under test
pytestmark = pytest.mark.usefixtures("own_maven_repo")

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>t</groupId><artifactId>p</artifactId><version>1</version>
<dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>1</version></dependency></dependencies>
</project>"""


def _open_to_others(folder: Path) -> None:
    """Writable by a group that is not the user's own (as root: chgrp to nogroup), else by everyone."""
    folder.chmod(0o770)
    try:
        os.chown(folder, -1, 65534)
    except PermissionError:
        folder.chmod(0o777)


def _fake_mvn(tmp_path: Path) -> tuple[Path, Path]:
    """An ``mvn`` that records it was started: stands for a plugin Maven would run
    from the local repository (if Maven never starts, no planted plugin runs)."""
    marker = tmp_path / "MVN_RAN"
    exe = tmp_path / "bin" / "mvn"
    exe.parent.mkdir()
    exe.write_text(f"#!/bin/sh\necho \"$@\" >> {marker}\nexit 1\n")
    exe.chmod(0o755)
    return exe, marker


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    (p / "pom.xml").write_text(_POM)
    return p


@pytest.mark.parametrize("where", ["root", "m2", "repository"])
def test_maven_never_runs_on_a_repository_others_may_write(tmp_path, monkeypatch, where):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    exe, marker = _fake_mvn(tmp_path)
    proj = _project(tmp_path)
    r = _mvn_resolve.resolve_classpath(proj, mvn=str(exe), fallback=False, use_cache=False)
    assert marker.exists()  # private (and made by qare): Maven runs
    repo = cache / "m2" / "repository"
    for d in (cache, cache / "m2", repo):  # made 0700
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
    marker.unlink()
    bad = {"root": cache, "m2": cache / "m2", "repository": repo}[where]
    _open_to_others(bad)
    r = _mvn_resolve.resolve_classpath(proj, mvn=str(exe), use_cache=False)
    assert not marker.exists()
    assert r.jars == () and [f.reason for f in r.unresolved] == [Reason.CACHE_NOT_PRIVATE]
    assert r.unresolved[0].file == str(bad) and "writable by group or others" in r.unresolved[0].detail
    assert "chmod 700" in r.unresolved[0].detail


def test_a_planted_resolution_is_not_used_from_a_folder_others_may_write(tmp_path, monkeypatch):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(_mvn_resolve, "_cache_key", lambda *a: "k")
    exe, marker = _fake_mvn(tmp_path)
    proj = _project(tmp_path)
    jar = cache / "m2" / "repository" / "evil" / "evil.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    resolved = cache / "m2" / "resolved"
    resolved.mkdir()
    (resolved / "k.json").write_text(json.dumps({
        "method": "maven", "jars": [str(jar)], "artifacts": [], "unresolved": [], "repo_local": "x"}))
    r = _mvn_resolve.resolve_classpath(proj, mvn=str(exe))
    assert r.from_cache and r.jars == (jar,)  # private: the entry is trusted
    _open_to_others(resolved)
    r = _mvn_resolve.resolve_classpath(proj, mvn=str(exe))
    assert not r.from_cache and r.jars == () and not marker.exists()
    assert r.unresolved[0].reason is Reason.CACHE_NOT_PRIVATE and r.unresolved[0].file == str(resolved)


def test_the_resolution_cache_is_written_private(tmp_path, monkeypatch):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    r = _mvn_resolve.ResolvedClasspath(_mvn_resolve.Method.MAVEN, (), (), (), repo_local="x")
    path = cache / "m2" / "resolved" / "k.json"
    (cache / "m2").mkdir(parents=True)
    old_tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    path.parent.mkdir(mode=0o700)
    old_tmp.symlink_to(victim)  # the old writer's guessable name
    _mvn_resolve._store_cached(path, r)
    assert victim.read_text() == "mine"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and json.loads(path.read_text())["method"] == "maven"


def test_doc_jars_are_not_read_from_a_repository_others_may_write(tmp_path, monkeypatch):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    jar = cache.joinpath("m2", "repository", "g", "a", "1", "a-1-javadoc.jar")
    jar.parent.mkdir(parents=True)
    import zipfile

    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("index.html", "<html></html>")
    assert [str(j.path) for j in fetch_doc_jars(["g:a:1"], "javadoc", offline=True).jars] == [str(jar)]
    _open_to_others(cache / "m2")
    d = fetch_doc_jars(["g:a:1"], "javadoc", offline=True)
    assert d.jars == () and [f.reason for f in d.failures] == [Reason.CACHE_NOT_PRIVATE]


# --------------------------------------------------------------------------- the JDK index

@pytest.fixture
def modules():
    jdk = find_jdk("auto")
    if jdk is None or not (jdk / "lib" / "modules").is_file():
        pytest.skip("no JDK with lib/modules here")
    return jdk / "lib" / "modules"


def _index_file(cache: Path) -> Path:
    (f,) = cache.glob("jimage-index-*.json")
    return f


def test_a_planted_jdk_index_is_not_used_from_a_folder_others_may_write(tmp_path, monkeypatch, modules):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    assert "java/util/ArrayList" in classpath._open_jimage(modules).classes
    f = _index_file(cache)
    assert stat.S_IMODE(f.stat().st_mode) == 0o600 and stat.S_IMODE(cache.stat().st_mode) == 0o700
    f.write_text(f.read_text().replace('"java/util/ArrayList"', '"java/util/ArrayLisX"'))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    assert "java/util/ArrayList" not in classpath._open_jimage(modules).classes  # private: the file is trusted
    _open_to_others(cache)
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    planted = f.read_bytes()
    warnings: list = []
    image = classpath._open_jimage(modules, warnings)
    assert "java/util/ArrayList" in image.classes and "java/util/ArrayLisX" not in image.classes
    assert f.read_bytes() == planted  # built in memory, not written there
    assert warnings and warnings[0][0] == str(cache) and "writable by group or others" in warnings[0][1]


def test_the_jdk_index_write_never_follows_a_planted_link(tmp_path, monkeypatch, modules):
    cache = tmp_path / "qc"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    import hashlib

    st = modules.stat()
    key = [str(modules.resolve()), st.st_size, st.st_mtime_ns]
    tag = hashlib.sha1(repr(key).encode()).hexdigest()[:16]
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    (cache / f"jimage-index-{tag}.{os.getpid()}.tmp").symlink_to(victim)  # the old writer's temp name
    classpath._open_jimage(modules)
    assert victim.read_text() == "mine"
    f = cache / f"jimage-index-{tag}.json"
    assert not f.is_symlink() and stat.S_IMODE(f.stat().st_mode) == 0o600
    assert json.loads(f.read_text())["key"] == key


# --------------------------------------------------------------------------- a real planted plugin, end to end


@pytest.mark.skipif(_evil_plugin.plugin_api() is None, reason="needs mvn and javac (to build the planted plugin)")
@pytest.mark.parametrize("private", [True, False])
def test_qare_graph_never_runs_a_plugin_planted_in_a_cache_others_may_write(tmp_path, private):
    """The attack of F1: a plugin planted as maven-dependency-plugin in
    ``<cache>/m2/repository`` writes a marker when Maven loads it. In a private
    cache it runs (so the fixture is a real attack); in a group-writable one
    Maven is never started, the run goes on and exits 1 naming the folder."""
    import subprocess
    import sys

    cache = tmp_path / "qc"
    repo = cache / "m2" / "repository"
    repo.mkdir(parents=True)
    cache.chmod(0o700)
    marker = tmp_path / "PWNED"
    _evil_plugin.plant(repo, marker, tmp_path / "work")
    proj = _project(tmp_path)
    (proj / "src" / "main" / "java").mkdir(parents=True)
    (proj / "src" / "main" / "java" / "A.java").write_text("class A { void m() { new java.util.ArrayList<>(); } }\n")
    if not private:
        _open_to_others(cache)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QARE_CACHE_DIR": str(cache), "PYTHONPATH": str(root)}
    p = subprocess.run([sys.executable, "-m", "qare", "graph", str(proj), "--offline", "-q", "--no-cache"],
                       env=env, capture_output=True, text=True, timeout=600)
    if private:
        assert marker.read_text() == "ran in mvn"
        return
    assert not marker.exists(), p.stderr
    assert p.returncode == 1, p.stderr
    assert "cache-not-private" in p.stderr and f"the cache folder {cache} is writable by group or others" in p.stderr
    assert "chmod 700" in p.stderr



@pytest.mark.parametrize("how", ["linked from the cache", "named by QARE_MAVEN_REPO_LOCAL"])
def test_a_repository_others_may_write_elsewhere_is_refused_too(tmp_path, how, own_maven_repo):
    """Tester, session 6: ``<cache>/m2/repository`` as a symlink to a mode-777
    folder skipped the privacy check (only a real path inside the cache was
    checked) and the planted plugin ran; ``QARE_MAVEN_REPO_LOCAL`` naming such
    a folder ran it too, while JDT refused the same folder. Both are refused."""
    import subprocess
    import sys

    cache = tmp_path / "qc"
    (cache / "m2").mkdir(parents=True)
    cache.chmod(0o700)
    (cache / "m2").chmod(0o700)
    shared = tmp_path / "shared" / "repository"
    shared.mkdir(parents=True)
    marker = tmp_path / "PWNED"
    _evil_plugin.plant(shared, marker, tmp_path / "work")
    for d in (shared.parent, shared):
        d.chmod(0o777)
    env = {**os.environ, "QARE_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop("QARE_MAVEN_REPO_LOCAL", None)
    if how == "linked from the cache":
        (cache / "m2" / "repository").symlink_to(shared)
    else:
        env["QARE_MAVEN_REPO_LOCAL"] = str(shared)
    proj = _project(tmp_path)
    (proj / "src" / "main" / "java").mkdir(parents=True)
    (proj / "src" / "main" / "java" / "A.java").write_text("class A { void m() { new java.util.ArrayList<>(); } }\n")
    p = subprocess.run([sys.executable, "-m", "qare", "graph", str(proj), "--offline", "-q", "--no-cache"],
                       env=env, capture_output=True, text=True, timeout=600)
    assert not marker.exists(), p.stderr
    assert p.returncode == 1, p.stderr
    assert "cache-not-private" in p.stderr and "refusing the local Maven repository" in p.stderr
    if how == "linked from the cache":
        assert "leads outside the cache folder" in p.stderr
    else:
        assert "writable by group or others (mode 777)" in p.stderr


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_a_repository_that_is_no_folder_is_a_failure_not_a_traceback(tmp_path, kind, own_maven_repo):
    """Tester, session 6: ``QARE_MAVEN_REPO_LOCAL`` naming a FIFO gave a
    ``FileExistsError`` traceback from ``mkdir``."""
    import subprocess
    import sys

    cache = tmp_path / "qc"
    cache.mkdir(mode=0o700)
    odd = tmp_path / "repo"
    os.mkfifo(odd) if kind == "fifo" else odd.write_text("x")
    env = {**os.environ, "QARE_CACHE_DIR": str(cache), "QARE_MAVEN_REPO_LOCAL": str(odd),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proj = _project(tmp_path)
    (proj / "src" / "main" / "java").mkdir(parents=True)
    (proj / "src" / "main" / "java" / "A.java").write_text("class A { void m() { new java.util.ArrayList<>(); } }\n")
    p = subprocess.run([sys.executable, "-m", "qare", "graph", str(proj), "-q", "--no-cache"],
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert f"(refused); the local Maven repository {odd} is not a folder" in p.stderr

def test_the_jdk_index_files_are_bounded_least_recently_used_first(tmp_path, monkeypatch, modules):
    cache = tmp_path / "qc"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    old = []
    for i in range(10):  # indexes of ten other (e.g. temporary) JDKs, oldest first
        f = cache / f"jimage-index-old{i:02d}.json"
        f.write_text("{}")
        os.utime(f, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
        old.append(f.name)
    (cache / "jimage-index-link.json").symlink_to(tmp_path / "elsewhere")  # not ours to delete: left alone
    classpath._open_jimage(modules)
    mine = _index_file_except(cache, old)
    left = sorted(p.name for p in cache.glob("jimage-index-*.json") if not p.is_symlink())
    assert len(left) == classpath.KEEP_JIMAGE_INDEXES
    assert left == sorted([mine.name, *old[-(classpath.KEEP_JIMAGE_INDEXES - 1):]])  # the newest survive
    assert (cache / "jimage-index-link.json").is_symlink()
    # a hit counts as a use: the index of the JDK in use outlives newer files of other JDKs
    os.utime(mine, ns=(10**17, 10**17))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    classpath._open_jimage(modules)
    assert mine.stat().st_mtime_ns > 10**18
    new = []
    for i in range(10, 20):  # ten more JDKs seen since, each before this one's last use
        f = cache / f"jimage-index-new{i}.json"
        f.write_text("{}")
        os.utime(f, ns=(10**18 + i * 10**11, 10**18 + i * 10**11))
        new.append(f.name)
    assert classpath._prune_jimage_indexes(cache) == 10  # the 7 old and the 3 oldest new ones
    left = sorted(p.name for p in cache.glob("jimage-index-*.json") if not p.is_symlink())
    assert left == sorted([mine.name, *new[3:]])


def _index_file_except(cache: Path, names: list) -> Path:
    (f,) = [p for p in cache.glob("jimage-index-*.json") if p.name not in names and not p.is_symlink()]
    return f
