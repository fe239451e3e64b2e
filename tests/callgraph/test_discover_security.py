"""Discovery and reading of a project's files never leave the project root,
never block on a FIFO and never read without bound (docs/security.md,
"A project's files").

Every tree here is written by the test; each attack is one a cloned
repository (or an unpacked archive) can carry: committed symlinks (absolute,
relative, chains, to a parent folder, to ``/``), FIFOs and devices named
``*.java``. The FIFO and device cases run the reader in a thread or a
memory-capped subprocess, so the unprotected code fails the test instead of
hanging or exhausting the machine.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from callgraph import build_project_graph
from callgraph._discover import discover_sources

REPO = Path(__file__).resolve().parents[2]
A = "package p;\n\nclass A {\n    void m() {\n    }\n}\n"
SECRET = ("package s;\n\nclass Secret {\n    /** the production password is hunter2 */\n"
          "    void leak() {\n    }\n}\n")


def _w(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def proj(tmp_path):
    """``tmp/proj`` with one real class; ``tmp/outside`` holds a secret."""
    root = tmp_path / "proj"
    _w(root, "src/main/java/p/A.java", A)
    _w(tmp_path, "outside/Secret.java", SECRET)
    _w(tmp_path, "outside/deep/src/main/java/s/Secret2.java", SECRET.replace("Secret", "Secret2"))
    return root


def _links(proj: Path) -> dict[str, str]:
    out = proj.parent / "outside"
    return {
        "absolute file link": (proj / "src/main/java/p/Leak.java", out / "Secret.java"),
        "relative file link": (proj / "src/main/java/p/Leak.java", Path("../../../../../outside/Secret.java")),
        "chain of links": (proj / "src/main/java/p/Leak.java", proj / "src/main/java/p/Hop.link"),
        "folder link to a parent": (proj / "src/main/java/p/up", Path("../../../../..")),
        "folder link outside": (proj / "src/main/java/p/ext", out / "deep/src/main/java"),
    }


@pytest.mark.parametrize("kind", ["absolute file link", "relative file link", "chain of links",
                                  "folder link to a parent", "folder link outside"])
def test_a_link_out_of_the_project_is_skipped_and_reported(proj, kind):
    link, target = _links(proj)[kind]
    if kind == "chain of links":
        os.symlink("../../../../../outside/Secret.java", proj / "src/main/java/p/Hop.link")
    os.symlink(target, link)
    pg = build_project_graph(proj, jdk=None)
    assert pg.methods() == ["p.A.<init>()", "p.A.m()"]
    assert not any("hunter2" in (pg.method(m).comment or "") for m in pg.methods())
    rel = link.relative_to(proj).as_posix()
    assert [(f, why.split(" (to ")[0]) for f, why in pg.summary.skipped] == [
        (rel, "symlink leads outside the project")]


def test_a_link_to_the_filesystem_root_is_not_walked(proj):
    os.symlink("/", proj / "src/main/java/p/slash")
    files, skipped = discover_sources(proj)
    assert [f.rel for f in files] == ["src/main/java/p/A.java"]
    assert skipped == [("src/main/java/p/slash", "symlink leads outside the project (to /)")]


def test_an_internal_link_walked_first_does_not_hide_the_real_folder(tmp_path):
    # spring-framework's framework-docs/src: a link sorted before the real
    # folder used to be walked first, and the real folder then skipped as
    # "already visited" -- its files got paths outside any source root and
    # were dropped.
    root = tmp_path / "proj"
    _w(root, "docs/src/main/java/p/Real.java", A.replace("class A", "class Real"))
    _w(root, "core/src/main/java/q/B.java", A.replace("package p", "package q").replace("class A", "class B"))
    os.symlink("main/java", root / "docs/src/docs")  # "docs" < "main"
    files, skipped = discover_sources(root)
    assert [f.rel for f in files] == ["core/src/main/java/q/B.java", "docs/src/main/java/p/Real.java"]
    assert skipped == [("docs/src/docs", "symlink loop or repeated folder (already visited at docs/src/main/java)")]


def test_a_link_into_a_skipped_folder_is_walked_once(tmp_path):
    root = tmp_path / "proj"
    _w(root, "build/generated/p/Gen.java", A.replace("class A", "class Gen"))
    os.makedirs(root / "src/main")
    os.symlink("../../build/generated", root / "src/main/java")
    os.symlink("Gen.java", root / "build/generated/p/Again.java")  # same file twice
    files, skipped = discover_sources(root)
    assert [(f.rel, f.path) for f in files] == [
        ("src/main/java/p/Gen.java", os.path.realpath(root / "build/generated/p/Gen.java"))]
    assert skipped == [("src/main/java/p/Again.java", "symlink to src/main/java/p/Gen.java, read at its real path")]


def test_a_symlinked_project_root_is_taken_as_the_root(proj, tmp_path):
    os.symlink(proj, tmp_path / "alias")
    files, skipped = discover_sources(tmp_path / "alias")
    assert [f.rel for f in files] == ["src/main/java/p/A.java"] and skipped == []


def test_an_unreadable_folder_is_reported(proj, monkeypatch):
    _w(proj, "src/main/java/locked/L.java", A)
    import callgraph.safefs as safefs

    real_scandir = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(safefs.os, "scandir", scandir)
    files, skipped = discover_sources(proj)
    assert [f.rel for f in files] == ["src/main/java/p/A.java"]
    assert skipped == [("src/main/java/locked", "unreadable folder: Permission denied")]


def _in_thread(fn, seconds=20.0):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    return t.is_alive(), box


def test_a_fifo_named_java_is_skipped_not_opened(proj):
    fifo = proj / "src/main/java/p/Block.java"
    os.mkfifo(fifo)
    hung, box = _in_thread(lambda: build_project_graph(proj, jdk=None))
    if hung:  # release the blocked reader, then fail
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("reading a FIFO named *.java blocked")
    pg = box["value"]
    assert pg.methods() == ["p.A.<init>()", "p.A.m()"]
    assert list(pg.summary.skipped) == [("src/main/java/p/Block.java", "not a regular file (FIFO)")]


_CAPPED = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    sys.path.insert(0, {repo!r})
    from callgraph import build_project_graph
    pg = build_project_graph({root!r}, jdk=None)
    print(sorted(pg.methods()))
    print(list(pg.summary.skipped))
""")


def _capped_build(root: Path):
    return subprocess.run([sys.executable, "-c", _CAPPED.format(repo=str(REPO), root=str(root))],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["link to /dev/zero", "character device in the tree"])
def test_endless_files_are_never_read(proj, kind):
    # stat says 0 bytes for /dev/zero; an unbounded read() never ends
    # (the subprocess has 1 GiB of address space, so a regression fails fast)
    z = proj / "src/main/java/p/Zero.java"
    if kind == "link to /dev/zero":
        os.symlink("/dev/zero", z)
        why = "symlink leads outside the project (to /dev/zero)"
    else:
        if os.geteuid() != 0:
            pytest.skip("creating a device node needs root")
        os.mknod(z, stat.S_IFCHR | 0o644, os.makedev(1, 5))  # the /dev/zero device
        why = "not a regular file (character device)"
    r = _capped_build(proj)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == ["['p.A.<init>()', 'p.A.m()']", str([("src/main/java/p/Zero.java", why)])]


def test_read_regular_bounds_the_bytes_read_not_the_stat_size(tmp_path):
    from callgraph.safefs import FileRefused, read_regular

    # /proc files are regular with st_size 0 but have content
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(FileRefused, match="larger than the limit of 10 bytes"):
        read_regular("/proc/self/status", 10)
    assert read_regular("/proc/self/status", 1 << 20).startswith(b"Name:")
    f = _w(tmp_path, "x/F.java", "x" * 100)
    assert read_regular(f, 100) == b"x" * 100
    with pytest.raises(FileRefused, match="larger than the limit of 99 bytes"):
        read_regular(f, 99)
    with pytest.raises(FileRefused, match="outside the project"):
        read_regular(f, 100, root=tmp_path / "y")
    os.mkfifo(tmp_path / "x/P.java")
    with pytest.raises(FileRefused, match=r"not a regular file \(FIFO\)"):
        read_regular(tmp_path / "x/P.java", 100)


def test_a_file_over_the_limit_at_read_time_is_skipped(proj, monkeypatch):
    # the file grows between discovery (stat) and reading: the bytes read count
    big = proj / "src/main/java/p/Grow.java"
    big.write_text(A.replace("class A", "class Grow"))
    import callgraph._discover as d

    real = d.walk_tree

    def walk(*a, **kw):
        listing = real(*a, **kw)
        big.write_text(A.replace("class A", "class Grow") + "//" + "x" * 5000 + "\n")
        return listing

    monkeypatch.setattr(d, "walk_tree", walk)
    pg = build_project_graph(proj, jdk=None, max_file_bytes=1000)
    assert pg.methods() == ["p.A.<init>()", "p.A.m()"]
    assert list(pg.summary.skipped) == [("src/main/java/p/Grow.java", "unreadable: larger than the limit of 1000 bytes")]


def test_build_files_that_are_fifos_or_links_out_are_not_parsed(proj, tmp_path):
    from callgraph.classpath import discover_classpath_report

    os.mkfifo(proj / "pom.xml")  # lxml would block on it
    (tmp_path / "outside/build.gradle").write_text('dependencies { implementation "org.x:secret:1.0" }\n')
    sub = proj / "sub"
    sub.mkdir()
    os.symlink(tmp_path / "outside/build.gradle", sub / "build.gradle")
    hung, box = _in_thread(lambda: discover_classpath_report(proj))
    if hung:
        os.close(os.open(proj / "pom.xml", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("classpath discovery blocked on a FIFO pom.xml")
    report = box["value"]
    assert report.build_files == [] and report.missing == []


def test_a_gradle_warning_names_its_file(tmp_path):
    from callgraph.classpath import discover_classpath_report

    g = _w(tmp_path / "proj", "app/build.gradle",
           'dependencies {\n    implementation "org.acme:lib:${acmeVersion}"\n}\n')
    report = discover_classpath_report(tmp_path / "proj")
    assert (str(g), "unresolved property in org.acme:lib:${acmeVersion}") in report.warnings


def test_a_memory_error_names_the_file(proj, monkeypatch):
    import callgraph._facts as facts

    _w(proj, "src/main/java/p/Huge.java", A.replace("class A", "class Huge"))
    real = facts.parse

    def parse(src):
        if b"class Huge" in src:
            raise MemoryError
        return real(src)

    monkeypatch.setattr(facts, "parse", parse)
    pg = build_project_graph(proj, jdk=None)
    size = (proj / "src/main/java/p/Huge.java").stat().st_size
    assert list(pg.summary.skipped) == [("src/main/java/p/Huge.java", f"out of memory while parsing it ({size} bytes)")]


def test_a_parent_relative_path_outside_the_project_is_not_read(tmp_path):
    # the offline pom model followed <relativePath> anywhere: a stranger's pom
    # made qare read a file elsewhere on the machine and print its properties
    # in the missing coordinates (the attacker's review, session 10: critical)
    from callgraph.classpath import discover_classpath_report

    ns = '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "pom.xml").write_text(
        ns + "<groupId>com.secret</groupId><artifactId>parent</artifactId><version>1</version>"
        "<packaging>pom</packaging><properties><token>s3cr3t</token></properties></project>")
    root = tmp_path / "proj"
    (root / "mod").mkdir(parents=True)
    dep = ("<dependencies><dependency><groupId>leak.example</groupId><artifactId>probe</artifactId>"
           "<version>${token}</version></dependency></dependencies>")
    (root / "pom.xml").write_text(
        ns + "<parent><groupId>com.secret</groupId><artifactId>parent</artifactId><version>1</version>"
        "<relativePath>../private/pom.xml</relativePath></parent><artifactId>app</artifactId>"
        "<packaging>pom</packaging><properties><own>2.0</own></properties>" + dep + "</project>")
    # a module's parent inside the project is still read: its property resolves
    (root / "mod" / "pom.xml").write_text(
        ns + "<parent><groupId>com.secret</groupId><artifactId>app</artifactId><version>1</version></parent>"
        "<artifactId>mod</artifactId><dependencies><dependency><groupId>org.lib</groupId>"
        "<artifactId>inner</artifactId><version>${own}</version></dependency></dependencies></project>")
    (tmp_path / "m2").mkdir()
    r = discover_classpath_report(root, repositories=[tmp_path / "m2"])
    assert not any("s3cr3t" in m for m in r.missing) and not any("s3cr3t" in w for _f, w in r.warnings)
    assert "leak.example:probe:${token}" in r.missing
    assert "org.lib:inner:2.0" in r.missing
    assert (str((root / "pom.xml").resolve()),
            "parent relativePath '../private/pom.xml' leads outside the project; not read") in r.warnings
