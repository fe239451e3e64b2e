"""A real third-party jar (Debian's commons-lang3) and a sweep over whole libraries."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from callgraph.classpath import ClasspathIndex, Solved, Unsolved, UnsolvedReason, is_third_party

LANG3 = Path("/usr/share/java/commons-lang3.jar")
JAVAP = shutil.which("javap") or "/usr/bin/javap"
JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")

pytestmark = pytest.mark.skipif(not LANG3.is_file(), reason="libcommons-lang3-java not installed")


@pytest.fixture(scope="module")
def ix():
    return ClasspathIndex.open([LANG3], jdk=JDK17)


def test_coordinates_match_pom_properties(ix):
    with zipfile.ZipFile(LANG3) as z:
        props = dict(line.split("=", 1) for line in
                     z.read("META-INF/maven/org.apache.commons/commons-lang3/pom.properties").decode().splitlines()
                     if "=" in line and not line.startswith("#"))
    gav = f"{props['groupId']}:{props['artifactId']}:{props['version']}"
    assert gav == "org.apache.commons:commons-lang3:3.12.0"
    s = ix.lookup("org.apache.commons.lang3.StringUtils")
    assert s.library == gav and s.origin == "jar" and s.location == str(LANG3)


def test_string_utils(ix):
    s = ix.lookup("org.apache.commons.lang3.StringUtils")
    assert s.kind == "class" and s.superclass == "java.lang.Object"
    blank = [m for m in s.methods if m.name == "isBlank"]
    assert len(blank) == 1 and blank[0].params == ("java.lang.CharSequence",)
    assert blank[0].static and blank[0].returns == "boolean" and blank[0].access == "public"
    joins = {m.params for m in s.methods if m.name == "join"}
    assert ("java.lang.Object...",) in joins and ("java.lang.Iterable", "java.lang.String") in joins
    assert ("java.util.List", "char", "int", "int") in joins
    assert is_third_party("org.apache.commons.lang3.StringUtils", ix)
    assert ix.types_in_package("org.apache.commons.lang3")[:2] == [
        "org.apache.commons.lang3.AnnotationUtils", "org.apache.commons.lang3.ArchUtils"]


def test_string_utils_agrees_with_javap(ix):
    out = subprocess.run([JAVAP, "-cp", str(LANG3), "-p", "org.apache.commons.lang3.StringUtils"],
                         capture_output=True, text=True, check=True).stdout
    expected = set()
    for line in out.splitlines():
        m = re.match(r"^  (.*?)([\w$.]+)\((.*)\)(?: throws .*)?;$", line)
        if not m:
            continue
        name = m[2].rpartition(".")[2]
        if name == "StringUtils":
            name = "<init>"
        params = tuple(re.sub(r"<.*?>", "", p).strip() for p in re.split(r",\s*(?![^<]*>)", m[3]) if p.strip())
        expected.add((name, params, "static" in m[1].split()))
    mine = {(m.name, m.params, m.static) for m in ix.lookup("org.apache.commons.lang3.StringUtils").methods}
    # javap prints generic parameter types; StringUtils' generic methods take T... / T[] (erased: Object).
    generic = {e for e in expected if any(p in ("T...", "T[]", "T") for p in e[1])}
    assert expected - generic <= mine
    assert len(mine) == len(expected)
    for name, params, static in generic:  # same name, arity and staticness; types erased to the bound
        assert any(m[0] == name and len(m[1]) == len(params) and m[2] == static for m in mine - expected)


def test_every_class_of_commons_lang3(ix):
    with zipfile.ZipFile(LANG3) as z:
        names = [n[:-6] for n in z.namelist() if n.endswith(".class") and not n.startswith("META-INF/")]
    solved = unsolved = 0
    for n in names:
        r = ix.lookup_result(n)
        if isinstance(r, Solved):
            solved += 1
            assert "$" not in r.type.fqn, r.type.fqn  # commons-lang3 has no real '$' names
        else:
            unsolved += 1
            assert r.reason in (UnsolvedReason.LOCAL_OR_ANONYMOUS, UnsolvedReason.PACKAGE_INFO,
                                UnsolvedReason.MODULE_INFO), r
    assert ix.warnings == []
    assert solved > 300 and unsolved > 0


def test_every_class_of_java_base_parses(ix):
    from callgraph._jimage import JImage
    image = JImage(JDK17 / "lib" / "modules")
    # Every third class keeps the run short; benchmarks/bench_classpath.py looks up all of them.
    names = sorted(n for n in image.classes if image.module_of(n) == "java.base")[::3]
    fails = [(n, ix.lookup_result(n)) for n in names]
    bad = [(n, r) for n, r in fails if isinstance(r, Unsolved)
           and r.reason not in (UnsolvedReason.LOCAL_OR_ANONYMOUS, UnsolvedReason.PACKAGE_INFO)]
    assert bad == [] and ix.warnings == []
    assert len(names) > 2000


_FORKED: ClasspathIndex | None = None


def _forked_lookup(names):
    out = []
    for n in names:
        r = _FORKED.lookup_result(n)
        out.append((n, r.type.fqn if isinstance(r, Solved) else r.reason))
    return out, list(_FORKED.warnings)


def test_lookups_in_forked_workers():
    # Pass-2 workers of build_project_graph inherit the index by fork; reads of the
    # same jar from several processes must not share a file offset.
    import multiprocessing as mp
    global _FORKED
    _FORKED = ClasspathIndex.open([LANG3], jdk=None)
    _FORKED.lookup("org.apache.commons.lang3.StringUtils")  # the jar is open before the fork
    with zipfile.ZipFile(LANG3) as z:
        names = sorted(n[:-6] for n in z.namelist() if n.endswith(".class") and "$" not in n)
    chunks = [names[i::4] for i in range(4)] * 3
    with mp.get_context("fork").Pool(2) as pool:
        results = pool.map(_forked_lookup, chunks)
    fresh = ClasspathIndex.open([LANG3], jdk=None)
    for out, warnings in results:
        assert warnings == []
        for n, got in out:
            r = fresh.lookup_result(n)
            assert got == (r.type.fqn if isinstance(r, Solved) else r.reason)


def test_a_deep_class_folder_is_read_with_one_realpath_per_link(deep_tree_dir, monkeypatch):
    # every folder's realpath (and relpath) cost one step per level: a chain of
    # 2,000 empty folders as classpath= took 79 s (the attacker's review,
    # session 10). Now a folder's real path comes from its parent's; only the
    # root and links are resolved
    import os

    import callgraph.classpath as cpm

    d = deep_tree_dir
    for _ in range(1200):  # deeper than the recursion limit; made one level at a time
        d = d / "p"
        d.mkdir()
    (d / "Deep.class").write_bytes(b"\xca\xfe\xba\xbe")
    (deep_tree_dir / "p" / "p" / "out").symlink_to("/etc")  # a link out: resolved, never read
    calls = []
    real = os.path.realpath
    monkeypatch.setattr(cpm.os.path, "realpath", lambda p, *a, **k: calls.append(p) or real(p, *a, **k))
    src = cpm._DirSource(deep_tree_dir, [])
    assert set(src.names) == {"/".join(["p"] * 1200) + "/Deep"}
    # the root (Path.resolve) and the link, nothing per level
    assert list(map(str, calls)) == [str(deep_tree_dir), str(deep_tree_dir / "p" / "p" / "out")]


def test_a_class_folder_of_too_many_folders_is_read_in_part_and_said(tmp_path, monkeypatch):
    import callgraph.classpath as cpm

    monkeypatch.setattr(cpm, "MAX_CLASS_FOLDER_DIRS", 5)
    for i in range(8):
        (tmp_path / f"pkg{i}").mkdir()
        (tmp_path / f"pkg{i}" / "A.class").write_bytes(b"\xca\xfe\xba\xbe")
    warnings: list = []
    src = cpm._DirSource(tmp_path, warnings)
    assert warnings == [(str(tmp_path), "more than 5 folders; rest not indexed")]
    assert len(src.names) == 4  # the root and four packages, then the sixth folder stopped it


def test_links_to_one_folder_list_it_once(tmp_path, monkeypatch):
    # 3,000 links to "." listed the folder 3,000 times (3,000² entries, 29 s:
    # the attacker's second review, session 10); a folder is now claimed when found
    import callgraph.classpath as cpm

    cf = tmp_path / "cf"
    (cf / "pkg").mkdir(parents=True)
    (cf / "pkg" / "A.class").write_bytes(b"\xca\xfe\xba\xbe")
    for i in range(50):
        (cf / f"l{i}").symlink_to(".")
        (cf / f"p{i}").symlink_to("pkg")
    listed = []
    real_walk = cpm.safefs_walk

    def walk(*a, **k):
        for entry in real_walk(*a, **k):
            listed.append(entry[0])
            yield entry

    monkeypatch.setattr(cpm, "safefs_walk", walk)
    src = cpm._DirSource(cf, [])
    assert len(listed) == 2  # the root and pkg (or one link to it), each once
    assert len(src.names) == 1 and next(iter(src.names)).endswith("/A")
