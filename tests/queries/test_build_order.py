"""The order a parallel build takes projects in (queries/_order.py): unknown
sizes first, then the most ``.java`` bytes first, list order among equals;
a serial build keeps the list order; the output does not depend on it."""

import os
from pathlib import Path

import pytest

from queries import build as qbuild
from queries._order import java_bytes, largest_first
from queries._runners import Runner, SerialRunner
from queries.projects import ProjectSpec


def _project(root: Path, sizes: dict[str, int]) -> Path:
    for rel, n in sizes.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x" * n)
    return root


def test_java_bytes_counts_java_files_only_skips_hidden_folders_and_links(tmp_path):
    root = _project(tmp_path / "p", {"src/A.java": 100, "src/b/B.java": 50, "src/readme.txt": 1000,
                                     ".git/objects/X.java": 7000, "build/Gen.java": 5})
    outside = _project(tmp_path / "outside", {"Big.java": 10_000})
    os.symlink(outside, root / "linked")
    os.symlink(outside / "Big.java", root / "src" / "Link.java")
    assert java_bytes(root) == 155
    assert java_bytes(tmp_path / "missing") is None
    assert java_bytes(root / "src" / "A.java") is None
    assert java_bytes(root, max_entries=2) < 155  # a huge tree: the estimate stops early


def test_largest_first_unknown_first_then_by_size_then_list_order(tmp_path):
    small = _project(tmp_path / "small", {"A.java": 10})
    big = _project(tmp_path / "big", {"A.java": 1000})
    mid1 = _project(tmp_path / "mid1", {"A.java": 100})
    mid2 = _project(tmp_path / "mid2", {"B.java": 100})
    specs = [ProjectSpec(source=str(small), name="small"), ProjectSpec(source=str(mid1), name="mid1"),
             ProjectSpec(source="https://example.org/a/b.git", name="url", is_url=True),
             ProjectSpec(source=str(big), name="big"), ProjectSpec(source=str(mid2), name="mid2"),
             ProjectSpec(source=str(tmp_path / "gone"), name="gone")]
    got = [s.name for s in largest_first(specs, cache_dir=str(tmp_path / "cache"))]
    assert got == ["url", "gone", "big", "mid1", "mid2", "small"]
    # a URL cloned by an earlier build is measured in its checkout
    _project(tmp_path / "cache" / specs[2].key, {"X.java": 500})
    got = [s.name for s in largest_first(specs, cache_dir=str(tmp_path / "cache"))]
    assert got == ["gone", "big", "url", "mid1", "mid2", "small"]


class _Recording:
    """A runner that records the order it is handed the projects in (and analyses none)."""

    def run(self, specs, work, done):
        self.seen = [s.name for s in specs]
        for s in specs:
            done(s, ValueError("not analysed in this test"))


class _Pool(_Recording, Runner):
    pass


class _Serial(_Recording, SerialRunner):
    pass


@pytest.mark.parametrize("runner, order", [(_Pool, ["p1", "p3", "p2", "p0"]), (_Serial, ["p0", "p1", "p2", "p3"])])
def test_a_parallel_build_runs_the_largest_first_a_serial_one_in_list_order(tmp_path, monkeypatch, runner, order):
    roots = [_project(tmp_path / f"p{i}", {"A.java": n}) for i, n in enumerate((10, 300, 20, 200))]
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{r}\n" for r in roots))
    made = runner()
    monkeypatch.setattr(qbuild, "make_runner", lambda *a, **k: made)
    res = qbuild.build_dataset(lst, tmp_path / "out", jobs=2, quiet=True)
    assert made.seen == order
    assert [p["project"] for p in res.projects] == ["p0", "p1", "p2", "p3"]  # the output keeps the list order
