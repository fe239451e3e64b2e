"""The stamp of what a project reads in place (queries.fetching.local_tree_stamp):
it changes with any edit, addition, removal or link below the project folder
and its classpath=/javadoc= paths, not with .git, and stays data on a
stranger's tree (no link followed, no recursion, a FIFO only lstat'ed)."""

from __future__ import annotations

import os

from queries.fetching import local_tree_stamp
from queries.projects import ProjectSpec


def _tree(root):
    (root / "src/p").mkdir(parents=True)
    (root / "src/p/A.java").write_text("class A {}\n")
    (root / ".git").mkdir()
    (root / ".git/HEAD").write_text("ref: refs/heads/main\n")
    return root


def test_each_change_changes_the_stamp_and_git_does_not(tmp_path):
    root = _tree(tmp_path / "p")
    spec = ProjectSpec(source=str(root))
    last = local_tree_stamp(spec)
    assert local_tree_stamp(spec) == last  # stable
    (root / ".git/HEAD").write_text("ref: refs/heads/other\n")  # git's own files: not what is read
    assert local_tree_stamp(spec) == last
    for change in (lambda: (root / "src/p/A.java").write_text("class A { }\n"),  # one more byte
                   lambda: os.utime(root / "src/p/A.java", ns=(1, 1)),  # the same bytes, another mtime
                   lambda: (root / "src/p/B.java").write_text(""),  # an added file
                   lambda: (root / "src/p/B.java").unlink(),  # removed again
                   lambda: (root / "src/q").mkdir(),  # an empty folder
                   lambda: os.symlink("/etc", root / "src/link")):  # a link (its target text, not followed)
        change()
        stamp = local_tree_stamp(spec)
        assert stamp != last
        last = stamp


def test_classpath_and_javadoc_paths_count_and_a_clone_alone_has_none(tmp_path):
    root = _tree(tmp_path / "p")
    docs = tmp_path / "docs"
    (docs / "x").mkdir(parents=True)
    (docs / "x/T.java").write_text("/** Says. */ class T {}\n")
    jar = tmp_path / "lib.jar"
    jar.write_bytes(b"PK")
    spec = ProjectSpec(source=str(root), javadoc=(str(docs),), classpath=(str(jar),))
    a = local_tree_stamp(spec)
    (docs / "x/T.java").write_text("/** Says more. */ class T {}\n")
    b = local_tree_stamp(spec)
    jar.write_bytes(b"PK!")
    c = local_tree_stamp(spec)
    assert len({a, b, c}) == 3
    assert local_tree_stamp(ProjectSpec(source="https://example.org/r.git", is_url=True)) is None
    assert local_tree_stamp(ProjectSpec(source="https://example.org/r.git", is_url=True,
                                        javadoc=(str(docs),))) is not None


def test_a_strangers_tree_stays_data(deep_tree_dir):
    root = deep_tree_dir
    deep = str(root)
    for _ in range(1100):  # deeper than Python's recursion limit: os.walk (3.11) recursed per folder
        deep = os.path.join(deep, "a")
        os.mkdir(deep)
    deep = root.joinpath(*["a"] * 1100)
    (deep / "X.java").write_text("class X {}\n")
    os.mkfifo(root / "fifo")  # lstat'ed, never opened (it would block)
    os.symlink(root, root / "loop")  # never followed
    spec = ProjectSpec(source=str(root))
    a = local_tree_stamp(spec)
    (deep / "X.java").write_text("class X { }\n")
    assert local_tree_stamp(spec) != a
