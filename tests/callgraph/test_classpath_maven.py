"""Classpath discovery from pom.xml / build.gradle in hand-made local repositories,
Debian's /usr/share/maven-repo, and (when installed) real Maven."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from callgraph.classpath import (ClasspathIndex, UnsolvedReason, discover_classpath, discover_classpath_report,
                                 maven_build_classpath)

DEBIAN_REPO = Path("/usr/share/maven-repo")
LANG3_DIR = DEBIAN_REPO / "org/apache/commons/commons-lang3"


def pom(g, a, v, body="", parent=None, packaging="jar"):
    par = ""
    if parent:
        pg, pa, pv, *rel = parent
        par = f"<parent><groupId>{pg}</groupId><artifactId>{pa}</artifactId><version>{pv}</version>" + \
              (f"<relativePath>{rel[0]}</relativePath>" if rel else "") + "</parent>"
    gid = f"<groupId>{g}</groupId>" if g else ""
    ver = f"<version>{v}</version>" if v else ""
    return (f'<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">'
            f"<modelVersion>4.0.0</modelVersion>{par}{gid}<artifactId>{a}</artifactId>{ver}"
            f"<packaging>{packaging}</packaging>{body}</project>")


def dep(g, a, v=None, scope=None, optional=False, extra=""):
    return (f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
            + (f"<version>{v}</version>" if v else "") + (f"<scope>{scope}</scope>" if scope else "")
            + ("<optional>true</optional>" if optional else "") + extra + "</dependency>")


def deps(*ds, managed=False):
    inner = "<dependencies>" + "".join(ds) + "</dependencies>"
    return f"<dependencyManagement>{inner}</dependencyManagement>" if managed else inner


def put(repo: Path, g, a, v, pom_text=None, jar=True, props=True):
    d = repo.joinpath(*g.split("."), a, v)
    d.mkdir(parents=True, exist_ok=True)
    if jar:
        with zipfile.ZipFile(d / f"{a}-{v}.jar", "w") as z:
            z.writestr(f"{g.replace('.', '/')}/{a.replace('-', '_')}/Marker.class", b"")
            if props:
                z.writestr(f"META-INF/maven/{g}/{a}/pom.properties", f"groupId={g}\nartifactId={a}\nversion={v}\n")
    (d / f"{a}-{v}.pom").write_text(pom_text or pom(g, a, v))
    return d / f"{a}-{v}.jar"


@pytest.fixture
def m2(tmp_path) -> Path:
    repo = tmp_path / "m2" / "repository"
    put(repo, "org.lib", "alpha", "1.0", pom("org.lib", "alpha", "1.0", deps(
        dep("org.lib", "beta", "2.0"),                        # compile → transitive
        dep("org.lib", "gamma", "3.0", scope="test"),         # test → not transitive
        dep("org.lib", "delta", "4.0", optional=True),        # optional → not transitive
        dep("org.lib", "excluded", "1.0"))))
    put(repo, "org.lib", "beta", "2.0", pom("org.lib", "beta", "2.0", deps(dep("org.lib", "epsilon", None)),
                                            parent=("org.lib", "lib-parent", "7")))
    put(repo, "org.lib", "lib-parent", "7", pom("org.lib", "lib-parent", "7",
                                                "<properties><eps.version>5.5</eps.version></properties>"
                                                + deps(dep("org.lib", "epsilon", "${eps.version}"), managed=True),
                                                packaging="pom"), jar=False)
    put(repo, "org.lib", "epsilon", "5.5")
    put(repo, "org.lib", "epsilon", "5.6")
    put(repo, "org.lib", "gamma", "3.0")
    put(repo, "org.lib", "delta", "4.0")
    put(repo, "org.lib", "excluded", "1.0")
    put(repo, "org.lib", "managed", "6.1")
    put(repo, "org.bom", "the-bom", "1", pom("org.bom", "the-bom", "1", deps(
        dep("org.lib", "from-bom", "8.8"), managed=True), packaging="pom"), jar=False)
    put(repo, "org.lib", "from-bom", "8.8")
    return repo


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "pom.xml").write_text(pom("com.me", "parent", "1.0", (
        "<properties><alpha.version>1.0</alpha.version></properties>"
        "<modules><module>app</module><module>core</module></modules>"
        + deps(dep("org.lib", "managed", "6.1"),
               dep("org.bom", "the-bom", "1", scope="import", extra="<type>pom</type>"), managed=True)),
        packaging="pom"))
    (root / "app" / "pom.xml").write_text(pom(None, "app", None, deps(
        dep("org.lib", "alpha", "${alpha.version}",
            extra="<exclusions><exclusion><groupId>org.lib</groupId><artifactId>excluded</artifactId>"
                  "</exclusion></exclusions>"),
        dep("org.lib", "managed"),              # version from the parent's dependencyManagement
        dep("org.lib", "from-bom"),             # version from the imported BOM
        dep("com.me", "core", "${project.version}"),  # a module of this project
        dep("org.nowhere", "ghost", "9.9")), parent=("com.me", "parent", "1.0")))
    (root / "core").mkdir()
    (root / "core" / "pom.xml").write_text(pom(None, "core", None, "", parent=("com.me", "parent", "1.0")))
    return root


def test_maven_project(tmp_path, m2):
    root = project(tmp_path)
    it = root / "app" / "src" / "it" / "sample"
    it.mkdir(parents=True)
    (it / "pom.xml").write_text(pom("x", "y", "1", deps(dep("org.lib", "gamma", "3.0"))))  # not a module
    r = discover_classpath_report(root, repositories=[m2])
    names = [p.name for p in r.jars]
    # Maven's order: each dependency followed by its own (alpha → beta → epsilon), depth first;
    # epsilon's version 5.5 comes from beta's parent's dependencyManagement.
    assert names == ["alpha-1.0.jar", "beta-2.0.jar", "epsilon-5.5.jar", "managed-6.1.jar", "from-bom-8.8.jar"]
    assert r.missing == ["org.nowhere:ghost:9.9"]
    assert r.substitutions == [] and r.warnings == []
    assert discover_classpath(root, repositories=[m2]) == r.jars
    assert sorted(p.name for p in r.build_files) == ["pom.xml", "pom.xml", "pom.xml"]
    ix = ClasspathIndex.open(r.jars, jdk=None)
    bad = ix.lookup_result("org.lib.alpha.Marker")  # an empty class file
    assert bad.reason is UnsolvedReason.MALFORMED and bad.detail.startswith("bad class file")
    assert [s.library for s in ix._sources] == [
        "org.lib:alpha:1.0", "org.lib:beta:2.0", "org.lib:epsilon:5.5", "org.lib:managed:6.1", "org.lib:from-bom:8.8"]


def test_project_dependency_management_pins_transitive_versions(tmp_path, m2):
    root = project(tmp_path)
    text = (root / "pom.xml").read_text()
    (root / "pom.xml").write_text(text.replace("<dependencyManagement><dependencies>",
                                               "<dependencyManagement><dependencies>" + dep("org.lib", "epsilon", "5.6")))
    names = [p.name for p in discover_classpath(root, repositories=[m2])]
    assert names == ["alpha-1.0.jar", "beta-2.0.jar", "epsilon-5.6.jar", "managed-6.1.jar", "from-bom-8.8.jar"]


def test_not_transitive(tmp_path, m2):
    r = discover_classpath_report(project(tmp_path), repositories=[m2], transitive=False)
    assert [p.name for p in r.jars] == ["alpha-1.0.jar", "managed-6.1.jar", "from-bom-8.8.jar"]


def test_library_from_repository_layout(tmp_path):
    m2 = tmp_path / "home" / ".m2" / "repository"
    jar = put(m2, "io.x.y", "zed", "1.2.3", props=False)
    gradle = tmp_path / "g" / "caches" / "modules-2" / "files-2.1" / "io.q" / "qq" / "0.9" / "abc123"
    gradle.mkdir(parents=True)
    gjar = gradle / "qq-0.9.jar"
    shutil.copy(jar, gjar)
    loose = tmp_path / "loose.jar"
    shutil.copy(jar, loose)
    ix = ClasspathIndex.open([jar, gjar, loose], jdk=None)
    assert [s.library for s in ix._sources] == ["io.x.y:zed:1.2.3", "io.q:qq:0.9", None]


def test_gradle_builds(tmp_path, m2):
    gcache = tmp_path / "gradle" / "caches" / "modules-2" / "files-2.1"
    d = gcache / "org.gr" / "gee" / "2.2" / "0123abcd"
    d.mkdir(parents=True)
    with zipfile.ZipFile(d / "gee-2.2.jar", "w") as z:
        z.writestr("org/gr/Gee.class", b"")
    root = tmp_path / "gproj"
    root.mkdir()
    (root / "gradle.properties").write_text("betaVersion=2.0\n")
    (root / "build.gradle").write_text("""
        ext { alphaVersion = '1.0' }
        def geeVersion = "2.2"
        dependencies {
            implementation 'org.lib:alpha:' + alphaVersion   // not a literal: not read
            implementation "org.lib:alpha:${alphaVersion}"
            api group: 'org.lib', name: 'managed', version: '6.1'
            testImplementation("org.gr:gee:$geeVersion")
            // implementation 'org.lib:gamma:3.0'
            runtimeOnly "org.lib:beta:${betaVersion}"
            implementation libs.epsilon
        }
    """)
    (root / "gradle").mkdir()
    (root / "gradle" / "libs.versions.toml").write_text(
        '[versions]\neps = "5.5"\n[libraries]\nepsilon = { module = "org.lib:epsilon", version.ref = "eps" }\n')
    (root / "sub").mkdir()
    (root / "sub" / "build.gradle.kts").write_text('dependencies { implementation("org.lib:delta:4.0") }\n')
    r = discover_classpath_report(root, repositories=[m2, gcache], transitive=False)
    # the file's order of declaration (the map form and catalog aliases in their place)
    assert [p.name for p in r.jars] == ["alpha-1.0.jar", "managed-6.1.jar", "gee-2.2.jar", "beta-2.0.jar",
                                        "epsilon-5.5.jar", "delta-4.0.jar"]
    assert r.missing == [] and r.warnings == []


def test_debian_version_substitution(tmp_path):
    if not (LANG3_DIR / "3.12.0" / "commons-lang3-3.12.0.jar").is_file():
        pytest.skip("libcommons-lang3-java not installed")
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_text(pom("a", "b", "1", deps(
        dep("org.apache.commons", "commons-lang3", "3.12.0"), dep("org.apache.commons", "commons-lang3", "3.99"))))
    r = discover_classpath_report(root, repositories=[DEBIAN_REPO])
    assert r.jars == [LANG3_DIR / "3.12.0" / "commons-lang3-3.12.0.jar"] and r.missing == []
    (root / "pom.xml").write_text(pom("a", "b", "1", deps(dep("org.apache.commons", "commons-lang3", "3.99"))))
    r = discover_classpath_report(root, repositories=[DEBIAN_REPO])
    assert r.jars == [LANG3_DIR / "debian" / "commons-lang3-debian.jar"]
    assert r.substitutions == [("org.apache.commons:commons-lang3:3.99", "debian", r.jars[0])]
    # The Debian jar still names its real version in pom.properties.
    ix = ClasspathIndex.open(r.jars, jdk=None)
    assert ix.lookup("org.apache.commons.lang3.StringUtils").library == "org.apache.commons:commons-lang3:3.12.0"


def test_single_available_version_substitution(tmp_path, m2):
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_text(pom("a", "b", "1", deps(dep("org.lib", "gamma", "3.1"), dep("org.lib", "delta"))))
    r = discover_classpath_report(root, repositories=[m2])
    assert [p.name for p in r.jars] == ["gamma-3.0.jar", "delta-4.0.jar"]
    assert [(w, v) for w, v, _ in r.substitutions] == [("org.lib:gamma:3.1", "3.0"), ("org.lib:delta:?", "4.0")]


def test_hostile_and_broken_poms(tmp_path, m2):
    secret = tmp_path / "secret.txt"
    secret.write_text("9.9")
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE project [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><groupId>a</groupId><artifactId>b</artifactId>'
        "<version>1</version><dependencies>" + dep("org.lib", "alpha", "&xxe;") + "</dependencies></project>")
    (root / "broken").mkdir()
    (root / "broken" / "pom.xml").write_text("<project><unclosed></project>")
    (root / "latin").mkdir()
    (root / "latin" / "build.gradle").write_bytes(b"// caf\xe9\ndependencies { implementation 'org.lib:delta:4.0' }\n")
    r = discover_classpath_report(root, repositories=[m2], transitive=False)
    # The external entity is not expanded: alpha's version stays unknown (never "9.9" from the
    # file), so the only version in the repository is taken and the substitution recorded.
    assert [p.name for p in r.jars] == ["alpha-1.0.jar", "delta-4.0.jar"]
    assert [(w, v) for w, v, _ in r.substitutions] == [("org.lib:alpha:?", "1.0")]
    assert "9.9" not in repr(r)
    assert [w[0] for w in r.warnings] == [str(root / "broken" / "pom.xml")]
    assert discover_classpath_report(tmp_path / "nope").warnings[0][1] == "project root is not a folder"


def _mvn_ready() -> str | None:
    if shutil.which("mvn") is None:
        return "mvn not installed"
    if not (DEBIAN_REPO / "org/apache/maven/plugins/maven-dependency-plugin/3.5.0").is_dir():
        return "libmaven-dependency-plugin-java not installed"
    if not (DEBIAN_REPO / "junit/junit").is_dir():
        return "junit4 (a dependency of the plugin) not installed"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_mvn_ready() is not None, reason=str(_mvn_ready()))
def test_real_maven_build_classpath(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_text(pom("a", "b", "1", deps(dep("org.apache.commons", "commons-lang3", "3.12.0"))))
    jars = maven_build_classpath(root, repo_local=DEBIAN_REPO, timeout=300)
    assert jars == [LANG3_DIR / "3.12.0" / "commons-lang3-3.12.0.jar"]
    # The same answer as the pom reader.
    assert discover_classpath(root, repositories=[DEBIAN_REPO]) == jars
    # Transitive resolution and order agree with Maven's (guava brings its annotations).
    if (DEBIAN_REPO / "com/google/guava/guava/31.1-jre").is_dir():
        (root / "pom.xml").write_text(pom("a", "b", "1", deps(
            dep("com.google.guava", "guava", "31.1-jre"), dep("org.apache.commons", "commons-lang3", "3.12.0"))))
        jars = maven_build_classpath(root, repo_local=DEBIAN_REPO, timeout=300)
        assert len(jars) > 2 and jars[0].name == "guava-31.1-jre.jar"
        assert discover_classpath(root, repositories=[DEBIAN_REPO]) == jars
    (root / "pom.xml").write_text(pom("a", "b", "1", deps(dep("org.nowhere", "ghost", "1"))))
    with pytest.raises(RuntimeError, match="ghost"):
        maven_build_classpath(root, repo_local=DEBIAN_REPO, timeout=300)
