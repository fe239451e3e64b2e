"""Output is deterministic (issue 17): the same sources give a byte-identical
``qare graph --out`` file whatever the number of worker processes and the
interpreter's string-hash seed (set iteration order), cold or warm."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "java" / "resolution"  # 67 files: enough for the worker pool (> 16)


def _graph(out: Path, jobs: int, seed: str, *extra: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "qare", "graph", str(FIXTURE), "--out", str(out), "-q",
                        "--no-discover-classpath", "--jobs", str(jobs), *extra],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return out.read_bytes()


@pytest.mark.parametrize("fmt", ["json", "graphml"])
def test_graph_bytes_equal_across_jobs_and_hash_seeds(tmp_path, fmt):
    a = _graph(tmp_path / f"a.{fmt}", 1, "1", "--no-cache")
    b = _graph(tmp_path / f"b.{fmt}", 2, "2", "--no-cache")
    assert len(a) > 10_000
    assert a == b


def test_graph_bytes_equal_cold_and_warm(tmp_path):
    cache = str(tmp_path / "cache.sqlite")
    cold = _graph(tmp_path / "cold.json", 2, "3", "--no-cache")
    first = _graph(tmp_path / "first.json", 2, "4", "--cache", cache)   # fills the cache
    warm = _graph(tmp_path / "warm.json", 1, "5", "--cache", cache)     # every file from it
    assert cold == first == warm
