"""callgraph.safefs.walk: os.walk's answer without recursion, so a stranger's
tree deeper than Python's recursion limit is walked, not a RecursionError
(session 8: Maven discovery of such a project ended in a traceback)."""

from __future__ import annotations

import os
import sys

import pytest

from callgraph import _maven
from callgraph.safefs import walk


def _deep(root, depth: int):
    d = str(root)
    for _ in range(depth):
        d = os.path.join(d, "d")
        os.mkdir(d)
    return d


def test_the_same_walk_as_os_walk(tmp_path):
    for rel in ("a/b/c", "a/x", "e", "e/f/g"):
        (tmp_path / rel).mkdir(parents=True)
    for rel in ("a/1.txt", "a/b/2.txt", "e/f/g/3.txt", "top.txt"):
        (tmp_path / rel).write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "link")  # a folder link: listed, not entered
    os.mkfifo(tmp_path / "fifo")

    def norm(w):
        return [(d, sorted(ds), sorted(fs)) for d, ds, fs in w]

    def sorted_walk(w):  # sort each level in place, as callers do, so both walk in the same order
        for d, ds, fs in w:
            ds.sort()
            yield d, list(ds), sorted(fs)

    assert norm(sorted_walk(walk(tmp_path))) == norm(sorted_walk(os.walk(tmp_path)))
    assert norm(sorted_walk(walk(tmp_path, followlinks=True))) == \
        norm(sorted_walk(os.walk(tmp_path, followlinks=True)))
    # pruning dirnames in place prunes the walk, as with os.walk
    seen = []
    for d, ds, _fs in walk(tmp_path):
        seen.append(os.path.relpath(d, tmp_path))
        ds[:] = [x for x in ds if x != "a"]
    assert "a" not in seen and "a/b" not in seen and "e/f/g" in seen


def test_a_tree_deeper_than_the_recursion_limit(deep_tree_dir):
    depth = sys.getrecursionlimit() + 100
    leaf = _deep(deep_tree_dir, depth)
    open(os.path.join(leaf, "pom.xml"), "w").write("<project/>")
    assert sum(1 for _ in walk(deep_tree_dir)) == depth + 1
    if sys.version_info < (3, 12):  # what it replaces
        with pytest.raises(RecursionError):
            sum(1 for _ in os.walk(deep_tree_dir))


def test_maven_discovery_of_a_deep_project_is_no_traceback(deep_tree_dir):
    (deep_tree_dir / "pom.xml").write_text("<project/>")
    _deep(deep_tree_dir, sys.getrecursionlimit() + 100)
    poms, gradles = _maven._project_files(deep_tree_dir)
    assert poms == [deep_tree_dir / "pom.xml"] and gradles == []
