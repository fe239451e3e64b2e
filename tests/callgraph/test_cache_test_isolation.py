"""The suite runs on a private cache of its own and shares only the user's
Maven repository (tests/conftest.py), through ``QARE_MAVEN_REPO_LOCAL``: the
environment's ``--maven-repo-local`` (docs/classpath.md "Another repository
for every command")."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from callgraph import _jdt, build_project_graph
from callgraph._mvn_resolve import cache_refusal, default_repo_local, resolve_classpath
from callgraph.classpath import cache_dir
from callgraph.safefs import check_private

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "fixtures" / "java" / "qare-example"


def _open_to_others(folder: Path) -> None:
    folder.chmod(0o777)


# --------------------------------------------------------------------------- the suite's own cache

def test_the_suite_runs_on_a_private_cache_folder_of_its_own(user_qare_env, private_qare_cache):
    here = cache_dir()
    assert here == private_qare_cache and here != user_qare_env["cache"]
    assert stat.S_IMODE(here.stat().st_mode) == 0o700 and here.stat().st_uid == os.getuid()
    check_private(here)  # the privacy check passes, as for a real user


def test_the_suite_shares_only_the_users_maven_repository(user_qare_env, private_qare_cache):
    repo = default_repo_local()
    assert repo == user_qare_env["repo"]
    assert not str(repo).startswith(str(private_qare_cache))  # jars are not downloaded again
    assert cache_refusal(repo) is None  # the user's own choice: not refused as outside the cache


def test_a_default_cached_build_writes_the_session_cache(private_qare_cache):
    pg = build_project_graph(SMALL, auto_classpath=False, cache="auto")
    assert pg.summary.cache  # the warm cache was used, and it is the session's
    assert (private_qare_cache / "callgraph.sqlite").is_file()


# --------------------------------------------------------------------------- QARE_MAVEN_REPO_LOCAL

def test_the_variable_names_the_default_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(tmp_path / "r"))
    assert default_repo_local() == tmp_path / "r"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", "rel/repo")  # from the current folder
    assert default_repo_local() == tmp_path / "rel" / "repo"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", "~/m2")
    assert default_repo_local() == tmp_path / "home" / "m2"
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", "")  # empty: not set
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    assert default_repo_local() == tmp_path / "qc" / "m2" / "repository"


def test_resolution_uses_the_named_repository_and_the_flags_win(tmp_path, monkeypatch):
    from qare.cmd_callgraph import repo_local_of

    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pom.xml").write_text('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0'
                                  '</modelVersion><groupId>t</groupId><artifactId>p</artifactId><version>1</version>'
                                  '</project>')
    named = tmp_path / "named" / "repository"
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(named))
    r = resolve_classpath(proj, mvn=str(tmp_path / "no-mvn-here"), use_cache=False)
    assert r.repo_local == str(named)
    flag = tmp_path / "flag"
    assert repo_local_of(flag, False) == flag and repo_local_of(None, True) == Path.home() / ".m2" / "repository"
    assert repo_local_of(None, False) is None  # then default_repo_local(): the variable
    r = resolve_classpath(proj, mvn=str(tmp_path / "no-mvn-here"), use_cache=False, repo_local=flag)
    assert r.repo_local == str(flag)


def test_a_named_repository_inside_the_cache_is_still_checked(tmp_path, monkeypatch):
    cache = tmp_path / "qc"
    repo = cache / "m2" / "repository"
    repo.mkdir(parents=True)
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(repo))
    assert cache_refusal(default_repo_local()) is None
    _open_to_others(cache / "m2")
    refusal = cache_refusal(default_repo_local())
    assert refusal is not None and refusal.reason.value == "cache-not-private"
    # outside the cache it is the user's choice, like --maven-repo-local
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(tmp_path / "elsewhere"))
    assert cache_refusal(default_repo_local()) is None


def test_jdt_jars_come_from_the_named_repository_only_while_it_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    named = tmp_path / "named"
    named.mkdir(mode=0o700)
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(named))
    assert _jdt.maven_repository() == named
    jar = named / "g" / "a.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert _jdt._in_repository(jar)  # a listing entry there is trusted ...
    _jdt._private_repository()
    named.chmod(0o777)  # ... and refused once others may write the repository
    with pytest.raises(_jdt.JdtUnavailableError, match="writable by group or others"):
        _jdt._private_repository()


def test_vineflower_is_run_from_the_named_repository_only_while_it_is_private(tmp_path, monkeypatch):
    from queries import describe

    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    named = tmp_path / "named"
    monkeypatch.setenv("QARE_MAVEN_REPO_LOCAL", str(named))
    g, a, v = describe.VINEFLOWER.split(":")
    jar = named.joinpath(*g.split("."), a, v, f"{a}-{v}.jar")
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"planted")
    assert describe.vineflower_jar() == jar
    (named / "org").chmod(0o777)
    with pytest.raises(describe.DecompileError, match="writable by group or others"):
        describe.vineflower_jar()
