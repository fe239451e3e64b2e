"""Cache folders that hold code qare runs (JDT's jars, the compiled JDT
visitor) are trusted only when private to the user (docs/security.md "Caches")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from callgraph import _jdt
from callgraph.safefs import FolderNotPrivate, _own_group, check_private

# each test's QARE_CACHE_DIR brings its own <cache>/m2/repository, the folder under test
pytestmark = pytest.mark.usefixtures("own_maven_repo")


def _plant(cache: Path) -> tuple[Path, Path]:
    """A classpath.txt listing an attacker's jar and a planted visitor class."""
    work = cache / "jdt" / _jdt.JDT_VERSION
    work.mkdir(parents=True)
    evil = cache / "evil.jar"
    evil.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    (work / "classpath.txt").write_text(str(evil))
    return work, evil


def test_cache_off_uses_a_fresh_private_folder_never_a_shared_name(monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", "off")
    monkeypatch.setattr(_jdt, "_PRIVATE_TMP", None)
    root = _jdt._cache_root()
    assert root != Path("/tmp/qare-nocache") and root.name.startswith("qare-nocache-")
    assert root.is_dir() and (root.stat().st_mode & 0o077) == 0 and root.stat().st_uid == os.getuid()
    assert _jdt._cache_root() == root  # one per process


def test_a_listing_of_jars_outside_the_maven_repository_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", "/nonexistent")  # no mvn: a refused listing ends in JdtUnavailableError
    _plant(tmp_path)
    with pytest.raises(_jdt.JdtUnavailableError, match="mvn not found"):
        _jdt.fetch_jdt()


@pytest.mark.parametrize("where", ["root", "jdt"])
def test_a_group_or_world_writable_cache_folder_is_refused(tmp_path, monkeypatch, where):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    work, _ = _plant(cache)
    # a listing naming a jar inside the repository would otherwise be used
    jar = cache / "m2" / "repository" / "x" / "x.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    (work / "classpath.txt").write_text(str(jar))
    assert _jdt.fetch_jdt() == (jar,)  # private: trusted
    (cache if where == "root" else work).chmod(0o777)
    with pytest.raises(_jdt.JdtUnavailableError, match="writable by group or others"):
        _jdt.fetch_jdt()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to make a folder owned by another user")
def test_a_foreign_owned_visitor_class_is_not_run(tmp_path, monkeypatch):
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    jars = (Path("/nonexistent.jar"),)
    import hashlib

    tag = hashlib.sha256(_jdt._visitor_source() + "\0".join(map(str, jars)).encode()).hexdigest()[:16]
    cls = cache / "jdt" / _jdt.JDT_VERSION / f"visitor-{tag}" / "qare" / "jdt" / "QareJdt.class"
    cls.parent.mkdir(parents=True)
    cls.write_bytes(b"\xca\xfe\xba\xbe planted")
    assert _jdt.compile_visitor(jars, Path("/nonexistent")) == cls.parents[2]  # own folder: reused
    os.chown(cls.parent, 65534, 65534)
    with pytest.raises(_jdt.JdtUnavailableError, match="owned by another user"):
        _jdt.compile_visitor(jars, Path("/nonexistent"))


def test_check_private_walks_every_folder_from_the_root_down(tmp_path):
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    check_private(tmp_path, deep)
    check_private(tmp_path, deep / "not-made-yet")
    b = tmp_path / "a" / "b"
    b.chmod(0o770)
    if _own_group(b.stat().st_gid, os.getuid()):
        check_private(tmp_path, deep)  # group-writable by the user's private group: nobody else
    try:
        os.chown(b, -1, 65534)  # a group that is not the user's own
    except PermissionError:
        b.chmod(0o777)
    with pytest.raises(FolderNotPrivate) as e:
        check_private(tmp_path, deep)
    assert e.value.filename.endswith("/a/b")
    check_private(tmp_path, tmp_path / "a")  # above the bad folder: fine


def test_a_vineflower_jar_in_a_world_writable_cache_folder_is_not_run(tmp_path, monkeypatch):
    from queries import describe

    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    g, a, v = describe.VINEFLOWER.split(":")
    jar = tmp_path.joinpath("qc", "m2", "repository", *g.split("."), a, v, f"{a}-{v}.jar")
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"planted")
    assert describe.vineflower_jar() == jar
    jar.parent.chmod(0o777)
    with pytest.raises(describe.DecompileError, match="writable by group or others"):
        describe.vineflower_jar()


def test_a_group_writable_folder_of_another_group_is_refused(tmp_path):
    d = tmp_path / "g"
    d.mkdir()
    d.chmod(0o770)
    try:
        os.chown(d, -1, 65534)
    except PermissionError:
        pytest.skip("cannot give a folder to another group here")
    with pytest.raises(FolderNotPrivate, match="writable by group or others"):
        check_private(d)


def test_a_shared_cache_folder_is_named_as_itself_not_as_a_classpath_entry(tmp_path):
    # its own process: the JDK index is memoised per process, and only its first
    # opening warns (new user, session 7: "classpath entry <the cache folder>: ...")
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    qc = tmp_path / "shared"
    qc.mkdir()
    qc.chmod(0o777)
    env = {**os.environ, "QARE_CACHE_DIR": str(qc)}
    r = subprocess.run([sys.executable, "-m", "qare", "graph", str(repo / "fixtures" / "java" / "qare-example"),
                        "-q", "--no-discover-classpath"], env=env, cwd=repo, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert f"warning: {qc}: JDK class index not cached: the cache folder is writable by group or others " \
           "(mode 777); make it private to you (chmod 700) to cache it" in lines, lines
    assert not any("classpath entry" in ln for ln in lines), lines
