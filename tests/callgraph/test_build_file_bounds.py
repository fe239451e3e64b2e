"""Gradle build files, ``gradle.properties`` and version catalogs are read with a byte
bound (docs/security.md, "Maven resolution never runs a project's code"): a file past
4 MiB is refused with a warning naming it, never read into memory. The files here are
sparse (64 MiB of holes), so the test costs nothing; before the bound, the whole file
was read (a 6 GB one raised MemoryError) and no warning said so."""

from __future__ import annotations

import os
from pathlib import Path

from callgraph import _maven
from callgraph._mvn_resolve import gradle_model

BIG = 64 * 1024 * 1024


def _sparse(path: Path, head: bytes) -> Path:
    path.write_bytes(head)
    os.truncate(path, BIG)
    return path


def test_a_huge_build_gradle_is_refused_with_its_path(tmp_path):
    bf = _sparse(tmp_path / "build.gradle", b"dependencies { implementation 'g.x:a:1.0' }\n")
    warnings: list = []
    deps, boms = gradle_model([bf], warnings)
    assert deps == [] and boms == []
    assert warnings == [(str(bf), f"unreadable: larger than the limit of {4 * 1024 * 1024} bytes")]


def test_a_huge_gradle_properties_is_refused_and_the_build_file_still_read(tmp_path):
    bf = tmp_path / "build.gradle"
    bf.write_text("dependencies { implementation \"g.x:a:${av}\" }\n")
    gp = _sparse(tmp_path / "gradle.properties", b"av=1.0\n")
    report = _maven.ClasspathReport()
    deps = _maven._gradle_deps(bf, report)
    assert [(d["groupId"], d["artifactId"], d["version"]) for d in deps] == [("g.x", "a", "${av}")]
    assert report.warnings == [(str(gp), f"unreadable: larger than the limit of {4 * 1024 * 1024} bytes")]


def test_a_huge_version_catalog_is_refused(tmp_path):
    bf = tmp_path / "build.gradle"
    bf.write_text("dependencies { implementation libs.foo }\n")
    (tmp_path / "gradle").mkdir()
    cat = _sparse(tmp_path / "gradle" / "libs.versions.toml", b'[libraries]\nfoo = "g.x:foo:1.0"\n')
    report = _maven.ClasspathReport()
    assert _maven._gradle_deps(bf, report) == []
    assert report.warnings == [(str(cat), "unreadable version catalog: "
                                             f"larger than the limit of {4 * 1024 * 1024} bytes")]


def test_a_fifo_build_gradle_is_refused_not_waited_on(tmp_path):
    bf = tmp_path / "build.gradle"
    os.mkfifo(bf)
    warnings: list = []
    assert gradle_model([bf], warnings) == ([], [])
    assert [w[0] for w in warnings] == [str(bf)] and "FIFO" in warnings[0][1]


def test_parent_versions_linked_as_written():
    """Which <parent> versions a local sanitised copy may stand for (Maven matches them as
    written): literals and CI-friendly ${revision}/${sha1}/${changelist}; not ranges or
    other properties."""
    from callgraph._mvn_resolve import _linkable_version, _plain_version

    assert [_linkable_version(v) for v in ("1.0", "2.0.0-SNAPSHOT", "${revision}", "${revision}${changelist}",
                                           "1.0-${sha1}", "${project.version}", "[1,2)", "", "${env.X}")] == [
        True, True, True, True, True, False, False, False, False]
    assert [_plain_version(v) for v in ("1.0", "1.0-rc+1", "${revision}", "[1,2)", "")] == [
        True, True, False, False, False]
