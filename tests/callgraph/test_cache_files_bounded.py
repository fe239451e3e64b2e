"""Cache files are read with the bounded regular-file reader: a FIFO or a
link to /dev/zero planted at a cache file's name is a miss, never a hang or
an endless read (docs/security.md "Caches"). Each case runs in a child
process with a timeout, so a regression fails instead of hanging the suite."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from callgraph.classpath import find_jdk

ROOT = Path(__file__).resolve().parents[2]


def _plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)


def _run(code: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QARE_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_planted_jimage_index_is_a_miss(tmp_path, kind):
    jdk = find_jdk("auto")
    if jdk is None or not (jdk / "lib" / "modules").is_file():
        pytest.skip("no JDK with lib/modules here")
    modules = jdk / "lib" / "modules"
    st = modules.stat()
    key = [str(modules.resolve()), st.st_size, st.st_mtime_ns]
    cache = tmp_path / "qc"
    name = f"jimage-index-{hashlib.sha1(repr(key).encode()).hexdigest()[:16]}.json"
    _plant(cache / name, kind)
    r = _run(f"from callgraph.classpath import _open_jimage; from pathlib import Path; "
             f"print(len(_open_jimage(Path({str(modules)!r})).index_data()) > 0)", cache)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_planted_maven_resolution_is_a_miss(tmp_path, kind):
    cached = tmp_path / "qc" / "m2" / "resolved" / "k.json"
    _plant(cached, kind)
    r = _run(f"from callgraph._mvn_resolve import _load_cached; from pathlib import Path; "
             f"print(_load_cached(Path({str(cached)!r}), 0.0, (), []))", tmp_path / "qc")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "None"


def test_a_cached_resolution_listing_a_jar_outside_the_repository_is_a_miss(tmp_path):
    # a planted m2/resolved/<key>.json must not put a jar of the machine on the classpath
    import json

    from callgraph._mvn_resolve import _load_cached

    repo, project, outside = tmp_path / "m2", tmp_path / "proj", tmp_path / "elsewhere"
    for d in (repo / "g/a/1", project, outside):
        d.mkdir(parents=True)
    (repo / "g/a/1/a-1.jar").write_bytes(b"PK")
    (outside / "evil.jar").write_bytes(b"PK")

    def entry(jars):
        p = tmp_path / "resolved.json"
        p.write_text(json.dumps({"method": "maven", "jars": [str(j) for j in jars], "artifacts": [],
                                 "unresolved": [], "repo_local": str(repo)}))
        return p

    good = _load_cached(entry([repo / "g/a/1/a-1.jar"]), 0.0, (), [], (repo, project))
    assert good is not None and [str(j) for j in good.jars] == [str(repo / "g/a/1/a-1.jar")]
    assert _load_cached(entry([repo / "g/a/1/a-1.jar", outside / "evil.jar"]), 0.0, (), [], (repo, project)) is None
    # through a symlink inside the repository that leads out of it: still outside
    (repo / "g/a/1/link.jar").symlink_to(outside / "evil.jar")
    assert _load_cached(entry([repo / "g/a/1/link.jar"]), 0.0, (), [], (repo, project)) is None
