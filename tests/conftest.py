"""The whole suite runs on a private qare cache folder of its own.

Without this, every test that builds a graph with the default cache wrote into
the developer's real ``~/.cache/qare``: ``graphs.sqlite`` (a 64-graph LRU)
evicted their stored graphs, ``callgraph.sqlite`` (no size bound) grew, and
``qare cache`` listed dozens of pytest projects.

The session's cache is a fresh ``tmp_path_factory`` folder, mode 700 (the
privacy check of docs/security.md "Caches" must pass, as for a real user). The
Maven local repository stays the user's own — the one qare would use without
this fixture — through ``QARE_MAVEN_REPO_LOCAL`` (docs/classpath.md "Another
repository for every command"), so the integration tests' jars (about 1.8 GB
with Spring's trees) are not downloaded again and the network tests still
reach the real Maven Central. A symlink ``<cache>/m2`` would not do: the
privacy check refuses a cache folder leading outside the cache, by design.

A test that sets ``QARE_CACHE_DIR`` itself (``monkeypatch.setenv``) gets its
own folder for that test and this one back afterwards; one that needs the
repository under its own cache folder deletes ``QARE_MAVEN_REPO_LOCAL``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# the values before this file changed anything (the developer's own choice, if any)
USER_ENV = {k: os.environ.get(k) for k in ("QARE_CACHE_DIR", "QARE_MAVEN_REPO_LOCAL", "XDG_CACHE_HOME")}


def user_repo_local() -> Path:
    """The local Maven repository qare uses for this user outside the tests."""
    from callgraph._mvn_resolve import default_repo_local

    with pytest.MonkeyPatch.context() as mp:
        for k, v in USER_ENV.items():
            mp.setenv(k, v) if v is not None else mp.delenv(k, raising=False)
        return default_repo_local()


def user_cache_dir() -> Path | None:
    """qare's cache folder for this user outside the tests (None: turned off)."""
    from callgraph.classpath import cache_dir

    with pytest.MonkeyPatch.context() as mp:
        for k, v in USER_ENV.items():
            mp.setenv(k, v) if v is not None else mp.delenv(k, raising=False)
        return cache_dir()


@pytest.fixture(scope="session")
def user_qare_env() -> dict:
    """``{"cache": the user's qare cache folder or None, "repo": their local Maven repository}``
    as qare sees them outside the tests."""
    return {"cache": user_cache_dir(), "repo": user_repo_local()}


@pytest.fixture(scope="session", autouse=True)
def private_qare_cache(tmp_path_factory) -> Path:
    """This session's qare cache folder (``QARE_CACHE_DIR``), private, empty at the start."""
    repo = user_repo_local()
    cache = tmp_path_factory.mktemp("qare-cache")
    cache.chmod(0o700)
    mp = pytest.MonkeyPatch()
    mp.setenv("QARE_CACHE_DIR", str(cache))
    mp.setenv("QARE_MAVEN_REPO_LOCAL", str(repo))
    # the index snapshots' secret key lives outside the cache (callgraph._snapshot.default_key_path):
    # a private one for the session, never the user's
    config = tmp_path_factory.mktemp("qare-config")
    config.chmod(0o700)
    mp.setenv("QARE_CONFIG_DIR", str(config))
    yield cache
    mp.undo()


@pytest.fixture
def own_maven_repo(monkeypatch) -> None:
    """For tests of the repository under the cache folder (``<cache>/m2/repository``,
    its privacy check): no ``QARE_MAVEN_REPO_LOCAL``, so a ``QARE_CACHE_DIR`` the test
    sets brings its own repository (``pytestmark = pytest.mark.usefixtures("own_maven_repo")``)."""
    monkeypatch.delenv("QARE_MAVEN_REPO_LOCAL", raising=False)


@pytest.fixture
def deep_tree_dir(tmp_path):
    """A folder for a tree deeper than the recursion limit, deleted after the
    test from the bottom up without recursion: pytest removes old temporary
    folders with ``shutil.rmtree``, which recursed once per level before
    Python 3.12 — a deep tree left behind failed a later session's end
    with ``RecursionError`` (exit 1)."""
    root = tmp_path / "deep"
    root.mkdir()
    yield root
    from callgraph.safefs import walk

    for d, _dirs, files in reversed(list(walk(root))):  # top-down listing, removed deepest first
        for name in files:
            os.unlink(os.path.join(d, name))
        for name in _dirs:
            p = os.path.join(d, name)
            if os.path.islink(p):
                os.unlink(p)
        os.rmdir(d)
