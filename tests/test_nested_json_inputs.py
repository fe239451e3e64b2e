"""A JSON file nested deeper than the parser recurses is a bad file, never a
traceback (tester, session 6: 5,000 '[' in a JDK index lost every JDK type
from the graph with exit 0; 2,550 in an output-cache meta file, or in a
stored Maven resolution, crashed every later run until the file was
deleted). Each reader treats it as it treats any other unreadable file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from callgraph import classpath
from callgraph.classpath import find_jdk

DEEP = b"[" * 5000  # past the json module's recursion limit (RecursionError, not ValueError)


def test_the_fixture_is_deep_enough():
    with pytest.raises(RecursionError):
        json.loads(DEEP)


def test_a_deep_jdk_index_file_is_rebuilt(tmp_path, monkeypatch):
    jdk = find_jdk("auto")
    if jdk is None or not (jdk / "lib" / "modules").is_file():
        pytest.skip("no JDK with lib/modules here")
    modules = jdk / "lib" / "modules"
    cache = tmp_path / "qc"
    monkeypatch.setenv("QARE_CACHE_DIR", str(cache))
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    truth = set(classpath._open_jimage(modules).classes)
    (f,) = cache.glob("jimage-index-*.json")
    f.write_bytes(DEEP)
    monkeypatch.setattr(classpath, "_JDK_CACHE", {})
    warnings: list = []
    assert set(classpath._open_jimage(modules, warnings).classes) == truth and "java/util/ArrayList" in truth
    assert warnings == []
    assert json.loads(f.read_bytes())["format"] == 2  # rewritten, not left to fail again


def test_a_deep_stored_resolution_is_a_miss(tmp_path):
    from callgraph._mvn_resolve import _load_cached

    p = tmp_path / "r.json"
    p.write_bytes(DEEP)
    assert _load_cached(p, 0.0, [], []) is None


def test_a_deep_output_cache_meta_is_a_miss(tmp_path):
    from qare._outcache import OutputCache

    (tmp_path / "qc").mkdir(mode=0o700)
    oc = OutputCache(tmp_path / "qc" / "g.out")
    key = "a" * 40
    meta, body = oc._paths(key)
    meta.write_bytes(b"[" * 2550)
    body.write_bytes(b"{}")
    assert oc._meta(key) is None
    out = tmp_path / "g.json"
    assert oc.copy_to(key, out) is None and not out.exists()  # a miss: the caller builds


def test_a_deep_part_file_is_redone(tmp_path):
    from queries.build import _load_part

    p = tmp_path / "part.json"
    p.write_bytes(DEEP)
    assert _load_part(p, "f") is None


def test_a_deep_dataset_manifest_is_a_problem(tmp_path):
    from metrics.dataset import load_dataset

    (tmp_path / "samples.jsonl").write_text("")
    (tmp_path / "manifest.json").write_bytes(DEEP)
    ds = load_dataset(tmp_path)
    assert ds.manifest == {}
    (reason,) = [p.reason for p in ds.problems if p.file.endswith("manifest.json")]
    assert reason.startswith("unreadable manifest: RecursionError")
