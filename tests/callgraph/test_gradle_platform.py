"""Gradle platforms and constraints as data (callgraph/_gradle_platform.py, _mvn_resolve.gradle_build).

Every expected coordinate is read off the fixture text by hand: a java-platform
subproject's ``constraints { }`` and ``platform(...)`` BOMs become managed versions
and BOM imports of the build only when a project uses it through
``platform(project(':path'))``; constraints never become dependencies."""

from __future__ import annotations

from pathlib import Path

from callgraph import _gradle_platform, _maven
from callgraph._mvn_resolve import _generated_pom, gradle_build

CATALOG = """\
[versions]
lucene = '10.5.0'
[libraries]
lucene-core = { module = 'org.apache.lucene:lucene-core', version.ref = 'lucene' }
lucene-queryparser = { module = 'org.apache.lucene:lucene-queryparser', version.ref = 'lucene' }
pf4j = 'org.pf4j:pf4j:3.15.0'
[bundles]
lucene = ['lucene-core', 'lucene-queryparser']
[plugins]
spring-boot = 'org.springframework.boot:9.1.0'
"""

PLATFORM = """\
import org.springframework.boot.gradle.plugin.SpringBootPlugin

plugins {
    id 'java-platform'
    alias(libs.plugins.spring.boot) apply false
}
javaPlatform { allowDependencies() }
dependencies {
    api platform(SpringBootPlugin.BOM_COORDINATES)
    api platform('com.acme:acme-bom:2.0')
    constraints {
        api libs.bundles.lucene
        api libs.pf4j
        api "org.jsoup:jsoup:1.23.1"
        api project(':api')
    }
}
"""

APP = """\
plugins { id 'java-library' }
dependencies {
    api platform(project(':platform:application'))
    api 'org.pf4j:pf4j'
    api "org.apache.lucene:lucene-core"
    implementation 'org.jsoup:jsoup'
}
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _model(root: Path):
    _poms, gradles = _maven._project_files(root)
    warnings: list = []
    m = gradle_build(gradles, warnings, root)
    deps = {f"{d['groupId']}:{d['artifactId']}:{d['version']}:{d['scope']}" for d in m.deps}
    managed = [f"{d['groupId']}:{d['artifactId']}:{d['version']}" for d in m.managed]
    return deps, m.boms, managed, warnings


def test_a_used_java_platform_gives_its_constraints_and_boms(tmp_path):
    root = _write(tmp_path, {
        "settings.gradle": "rootProject.name = 'x'\ninclude 'api', 'platform:application'\n",
        "gradle/libs.versions.toml": CATALOG,
        "platform/application/build.gradle": PLATFORM,
        "api/build.gradle": APP,
    })
    deps, boms, managed, warnings = _model(root)
    # the constraints are versions, not dependencies: only the app's three, versionless
    assert deps == {"org.pf4j:pf4j:None:compile", "org.apache.lucene:lucene-core:None:compile",
                    "org.jsoup:jsoup:None:compile"}
    assert managed == ["org.apache.lucene:lucene-core:10.5.0", "org.apache.lucene:lucene-queryparser:10.5.0",
                       "org.pf4j:pf4j:3.15.0", "org.jsoup:jsoup:1.23.1"]
    assert ("org.springframework.boot", "spring-boot-dependencies", "9.1.0") in boms
    assert ("com.acme", "acme-bom", "2.0") in boms
    assert warnings == []


def test_an_unused_java_platform_manages_nothing(tmp_path):
    root = _write(tmp_path, {
        "settings.gradle": "include 'platform:application'\n",
        "gradle/libs.versions.toml": CATALOG,
        "platform/application/build.gradle": PLATFORM,
        "build.gradle": "dependencies { implementation 'org.pf4j:pf4j' }\n",
    })
    deps, boms, managed, _w = _model(root)
    assert managed == []
    assert ("com.acme", "acme-bom", "2.0") not in boms
    assert deps == {"org.pf4j:pf4j:None:compile"}


def test_kotlin_dsl_platform_project_with_a_moved_project_dir(tmp_path):
    root = _write(tmp_path, {
        "settings.gradle.kts": 'include(":app", ":bom")\nproject(":bom").projectDir = file("libs/the-bom")\n',
        "libs/the-bom/build.gradle.kts": """\
plugins { `java-platform` }
dependencies {
    constraints {
        api("com.google.guava:guava:33.6.0-jre")
        api("org.jsoup:jsoup") { version { strictly("1.17.2") } }
    }
}
""",
        "app/build.gradle.kts": """\
dependencies {
    implementation(enforcedPlatform(project(":bom")))
    implementation("com.google.guava:guava")
}
""",
    })
    deps, _boms, managed, warnings = _model(root)
    assert deps == {"com.google.guava:guava:None:compile"}
    # `api("g:a") { version { strictly(…) } }` is not read: only the literal coordinate
    assert managed == ["com.google.guava:guava:33.6.0-jre"]
    assert warnings == []


def test_groovy_project_path_map_and_transitive_platforms(tmp_path):
    root = _write(tmp_path, {
        "settings.gradle": "include 'app'\ninclude 'platform:base', 'platform:plugin'\n",
        "platform/base/build.gradle": "plugins { id 'java-platform' }\n"
                                      "dependencies { constraints { api 'org.pf4j:pf4j:3.15.0' } }\n",
        "platform/plugin/build.gradle": "plugins { id 'java-platform' }\n"
                                        "dependencies { api platform(project(path: ':platform:base')) }\n",
        "app/build.gradle": "dependencies {\n  implementation platform(project(':platform:plugin'))\n"
                            "  implementation 'org.pf4j:pf4j'\n}\n",
    })
    deps, _boms, managed, _w = _model(root)
    assert managed == ["org.pf4j:pf4j:3.15.0"]
    assert deps == {"org.pf4j:pf4j:None:compile"}


def test_a_project_dir_outside_the_root_is_not_read(tmp_path):
    outside = _write(tmp_path / "outside", {
        "build.gradle": "plugins { id 'java-platform' }\ndependencies { constraints { api 'evil:evil:6.6.6' } }\n"})
    root = _write(tmp_path / "proj", {
        "settings.gradle": "include 'bom'\nproject(':bom').projectDir = file('../outside')\n",
        "build.gradle": "dependencies { implementation platform(project(':bom'))\n implementation 'evil:evil' }\n",
    })
    assert outside.is_dir()
    deps, _boms, managed, warnings = _model(root)
    assert managed == []
    assert deps == {"evil:evil:None:compile"}
    reasons = [w[1] for w in warnings]
    assert any("outside the project" in r for r in reasons)
    assert any("platform(project(':bom')): no such project" in r for r in reasons)


def test_constraints_of_an_ordinary_build_file_manage_its_versions(tmp_path):
    root = _write(tmp_path, {"build.gradle": """\
dependencies {
    implementation 'org.jsoup:jsoup'
    constraints {
        implementation('org.jsoup:jsoup:1.23.1') { because 'a CVE' }
        implementation 'org.yaml:snakeyaml:2.2'
    }
}
"""})
    deps, _boms, managed, _w = _model(root)
    assert deps == {"org.jsoup:jsoup:None:compile"}
    assert managed == ["org.jsoup:jsoup:1.23.1", "org.yaml:snakeyaml:2.2"]
    pom = _generated_pom("g", [], [("b", "bom", "1")], [], managed=[{"groupId": "org.jsoup", "artifactId": "jsoup",
                                                                     "version": "1.23.1"}])
    dm = pom.find("dependencyManagement/dependencies")
    # the managed entry first, the BOM import after it
    assert [d.findtext("artifactId") for d in dm] == ["jsoup", "bom"]
    assert dm[0].findtext("scope") is None and dm[1].findtext("scope") == "import"


def test_catalog_bundles_in_dependencies(tmp_path):
    root = _write(tmp_path, {
        "gradle/libs.versions.toml": CATALOG,
        "build.gradle": "dependencies {\n  implementation libs.bundles.lucene\n  testImplementation(libs.pf4j)\n}\n",
    })
    deps, _boms, _managed, _w = _model(root)
    assert deps == {"org.apache.lucene:lucene-core:10.5.0:compile",
                    "org.apache.lucene:lucene-queryparser:10.5.0:compile", "org.pf4j:pf4j:3.15.0:test"}


def test_boot_bom_coordinates_take_the_version_from_the_settings_plugin_management(tmp_path):
    root = _write(tmp_path, {
        "settings.gradle.kts": 'pluginManagement {\n  plugins {\n'
                               '    id("org.springframework.boot") version "9.2.0"\n  }\n}\ninclude(":app")\n',
        "app/build.gradle.kts": "dependencies {\n"
                                "  implementation(platform(org.springframework.boot.gradle.plugin.SpringBootPlugin"
                                ".BOM_COORDINATES))\n}\n",
    })
    _deps, boms, _managed, warnings = _model(root)
    assert boms == [("org.springframework.boot", "spring-boot-dependencies", "9.2.0")]
    assert warnings == []


def test_boot_bom_coordinates_without_a_boot_version_is_reported(tmp_path):
    root = _write(tmp_path, {"build.gradle": "dependencies { api platform(SpringBootPlugin.BOM_COORDINATES) }\n"})
    _deps, boms, _managed, warnings = _model(root)
    assert boms == []
    assert [w[1] for w in warnings] == ["SpringBootPlugin.BOM_COORDINATES without a Spring Boot plugin version"]


def test_split_constraints_is_bounded_and_skips_braces_in_strings():
    rest, blocks = _gradle_platform.split_constraints(
        "a\nconstraints { api 'x:y:1' ; api \"}{\" }\nb\nconstraints { unclosed 'p:q:2'")
    assert rest == "a\n\nb\n"
    assert blocks == [" api 'x:y:1' ; api \"}{\" ", " unclosed 'p:q:2'"]
    rest, blocks = _gradle_platform.split_constraints("constraints {" + "{" * (_gradle_platform.MAX_BLOCK_CHARS + 10))
    assert len(blocks[0]) == _gradle_platform.MAX_BLOCK_CHARS


def test_settings_includes_map_to_folders(tmp_path):
    root = _write(tmp_path, {"settings.gradle": "include 'a', ':b:c',\n        'd'\n"
                                                "include(\":e\")\n"
                                                "project(':d').projectDir = new File(rootDir, 'elsewhere/d')\n"})
    real = root.resolve()
    assert _gradle_platform.settings_projects(root) == {":a": real / "a", ":b:c": real / "b" / "c",
                                                        ":d": real / "elsewhere" / "d", ":e": real / "e"}


def test_the_offline_model_takes_constraint_versions_and_never_their_jars(tmp_path):
    repo = tmp_path / "m2"
    for a in ("pf4j", "only-constrained"):
        d = repo / "org" / "pf4j" / a / "3.15.0"
        d.mkdir(parents=True)
        (d / f"{a}-3.15.0.jar").write_bytes(b"PK")
    root = _write(tmp_path / "p", {"build.gradle": """\
dependencies {
    implementation 'org.pf4j:pf4j'
    constraints {
        implementation 'org.pf4j:pf4j:3.15.0'
        implementation 'org.pf4j:only-constrained:3.15.0'
    }
}
"""})
    rep = _maven.discover_classpath_report(root, repositories=[repo])
    assert [p.name for p in rep.jars] == ["pf4j-3.15.0.jar"]
    assert rep.missing == []
