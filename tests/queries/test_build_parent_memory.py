"""queries.build: the parent of a build holds, per finished project, only what
is small and fixed in size (verdict, counts, timings); the library records,
warnings and candidates stay in the part files and are read back one at a
time, so the parent's memory does not grow with the list (issue 17: peak RSS
bounded by the largest project). projects.jsonl still carries them all."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from queries.build import BuildDeps, BuildOptions, build_dataset

_BIG = 400  # artifacts in each project's library record (~100 KB of Python objects)


class _Resolution:
    """What discover_classpath returns: no jars, a large record."""

    jars: tuple = ()
    repositories: tuple = ()
    artifacts: tuple = ()

    def __init__(self, name: str):
        self.name = name

    def to_dict(self) -> dict:
        return {"method": "maven", "artifacts": [{"coords": f"g{i}:a{i}:{self.name}", "path": f"/r/{self.name}/{i}.jar",
                                                  "scope": "compile"} for i in range(_BIG)], "unresolved": []}


def big_classpath(root, *args):
    return _Resolution(Path(root).name)


DEPS = BuildDeps(discover_classpath=big_classpath)

JAVA = """package p;
public class A {
    /** Says hello to the world. */
    public String hello() { return String.valueOf(1).trim(); }
}
"""


def _projects(tmp_path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        root = tmp_path / "projects" / f"q{i:02d}"
        (root / "src" / "main" / "java" / "p").mkdir(parents=True, exist_ok=True)
        (root / "src" / "main" / "java" / "p" / "A.java").write_text(JAVA)
        lines.append(f"{root}\n")
    lst = tmp_path / f"list-{n}.txt"
    lst.write_text("".join(lines))
    return lst


def _peak(lst: Path, out: Path) -> tuple[int, object]:
    """The memory the build holds when the merge starts (every project finished), and the result."""
    import queries.build as qb

    opts = BuildOptions(jdk=None, facts_cache_dir=None, require_docs=False)
    seen = []
    real = qb.merge_parts

    def merge(*a, **k):
        seen.append(tracemalloc.get_traced_memory()[0])
        return real(*a, **k)

    qb.merge_parts = merge
    tracemalloc.start()
    try:
        res = build_dataset(lst, out, opts, quiet=True, resume=False, deps=DEPS)
    finally:
        tracemalloc.stop()
        qb.merge_parts = real
    return seen[0], res


def test_memory_held_after_the_projects_does_not_grow_with_the_list(tmp_path):
    _peak(_projects(tmp_path / "w", 1), tmp_path / "out-w")  # imports and first-use caches
    small, _ = _peak(_projects(tmp_path / "a", 2), tmp_path / "out-a")
    large, res = _peak(_projects(tmp_path / "b", 12), tmp_path / "out-b")
    assert res.counts["projects"] == 12
    # before: every finished project's library record stayed in the parent (~100 KB each)
    assert large - small < 200_000, (small, large)  # measured: ~3 KB a project after, ~130 KB before
    rows = [json.loads(x) for x in (tmp_path / "out-b" / "projects.jsonl").read_text().splitlines()]
    assert [len(r["classpath"]["artifacts"]) for r in rows] == [_BIG] * 12
    assert rows[3]["classpath"]["artifacts"][5]["coords"] == "g5:a5:q03"


def test_rows_come_from_the_part_files_unchanged(tmp_path):
    lst = _projects(tmp_path, 3)
    out = tmp_path / "out"
    _, res = _peak(lst, out)
    parts = {json.loads(p.read_text())["key"]: json.loads(p.read_text()) for p in (out / ".parts").glob("*.json")}
    for r in res.projects:
        (part,) = [p for p in parts.values() if p["project"] == r["project"]]
        assert r["classpath"] == part["classpath"]
        assert r["warnings"] == part["warnings"][:50]
        assert r["timings"] == part["timings"]
