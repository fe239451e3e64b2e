"""Gradle versions written through variables, substituted as data (callgraph/_gradle.py).

Every expected coordinate is read off the fixture text by hand."""

from __future__ import annotations

from pathlib import Path

from callgraph import _gradle, _maven
from callgraph._mvn_resolve import gradle_model


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _coords(root: Path) -> tuple[set[str], list, list]:
    _poms, gradles = _maven._project_files(root)
    warnings: list = []
    deps, boms = gradle_model(gradles, warnings, root)
    return {f"{d['groupId']}:{d['artifactId']}:{d['version']}:{d['scope']}" for d in deps}, boms, warnings


KTS_ROOT = """\
plugins {
    id("io.spring.dependency-management") version "1.1.5"
}
ext["cloudVersion"] = "2024.0.0"
extra["mapstructVersion"] = "1.5.5.Final"
rootProject.extra["jjwt"] = "0.12.6"
val lombokVersion by extra("1.18.32")
val openApi: String by extra("2.6.0")
extra.set("retryVersion", "2.0.11")

subprojects {
    dependencies {
        add("annotationProcessor", "org.projectlombok:lombok:${property("lombokVersion")}")
        add("compileOnly", "org.projectlombok:lombok:$lombokVersion")
    }
}

dependencyManagement {
    imports {
        mavenBom("org.springframework.cloud:spring-cloud-dependencies:${property("cloudVersion")}")
    }
}
"""
KTS_APP = """\
dependencies {
    implementation("org.mapstruct:mapstruct:${property("mapstructVersion")}")
    annotationProcessor("org.mapstruct:mapstruct-processor:${project.property("mapstructVersion") as String}")
    implementation("io.jsonwebtoken:jjwt-api:${rootProject.extra["jjwt"]}")
    runtimeOnly("io.jsonwebtoken:jjwt-impl:${project.properties["jjwt"]}")
    implementation("org.springdoc:springdoc-openapi-starter-webmvc-ui:${findProperty("openApi")}")
    implementation("org.springframework.retry:spring-retry:${extra["retryVersion"]}")
    testAnnotationProcessor("org.mapstruct:mapstruct-processor:${ext["mapstructVersion"]}")
    implementation("com.example:from-properties:${property("fromProps")}")
}
"""


def test_kotlin_dsl_extra_properties_reach_subprojects(tmp_path):
    root = _write(tmp_path, {"build.gradle.kts": KTS_ROOT, "app/build.gradle.kts": KTS_APP,
                             "settings.gradle.kts": 'include("app")', "gradle.properties": "fromProps=7.1\n"})
    coords, boms, warnings = _coords(root)
    assert coords == {
        "org.projectlombok:lombok:1.18.32:provided",
        "org.mapstruct:mapstruct:1.5.5.Final:compile",
        "org.mapstruct:mapstruct-processor:1.5.5.Final:provided",   # widest of provided / test
        "io.jsonwebtoken:jjwt-api:0.12.6:compile",
        "io.jsonwebtoken:jjwt-impl:0.12.6:runtime",
        "org.springdoc:springdoc-openapi-starter-webmvc-ui:2.6.0:compile",
        "org.springframework.retry:spring-retry:2.0.11:compile",
        "com.example:from-properties:7.1:compile",
    }
    assert boms == [("org.springframework.cloud", "spring-cloud-dependencies", "2024.0.0")]
    assert warnings == []


GROOVY_ROOT = """\
ext {
    springCloudVersion = '2023.0.3'
    guavaVersion = "33.2.1-jre"   // a comment
}
ext.commonsVersion = '3.14.0'
ext['jacksonVersion'] = '2.17.1'
def poiVersion = '5.2.5'
/* ext.ignored = '0' */
"""
GROOVY_APP = """\
dependencies {
    implementation "com.google.guava:guava:$guavaVersion"
    implementation "org.apache.commons:commons-lang3:${commonsVersion}"
    implementation "com.fasterxml.jackson.core:jackson-databind:${project.jacksonVersion}"
    implementation "org.apache.poi:poi:${rootProject.ext.poiVersion}"
    implementation group: 'org.apache.poi', name: 'poi-ooxml', version: "${poiVersion}"
    testImplementation "x.y:ignored:${ignored}"
}
dependencyManagement {
    imports { mavenBom "org.springframework.cloud:spring-cloud-dependencies:${springCloudVersion}" }
}
"""


def test_groovy_ext_block_and_references(tmp_path):
    root = _write(tmp_path, {"build.gradle": GROOVY_ROOT, "app/build.gradle": GROOVY_APP})
    coords, boms, _ = _coords(root)
    assert coords == {
        "com.google.guava:guava:33.2.1-jre:compile",
        "org.apache.commons:commons-lang3:3.14.0:compile",
        "com.fasterxml.jackson.core:jackson-databind:2.17.1:compile",
        "org.apache.poi:poi:5.2.5:compile",
        "org.apache.poi:poi-ooxml:5.2.5:compile",
        "x.y:ignored:None:test",   # the definition is inside a comment: no version, reported later
    }
    assert boms == [("org.springframework.cloud", "spring-cloud-dependencies", "2023.0.3")]


def test_a_subproject_definition_shadows_the_root_one(tmp_path):
    root = _write(tmp_path, {"build.gradle.kts": 'ext["v"] = "1.0"\n',
                             "a/build.gradle.kts": 'ext["v"] = "2.0"\ndependencies { implementation("g:a:${property("v")}") }\n',
                             "b/build.gradle.kts": 'dependencies { implementation("g:b:${property("v")}") }\n'})
    coords, _, _ = _coords(root)
    assert coords == {"g:a:2.0:compile", "g:b:1.0:compile"}


def test_values_refer_to_values_boundedly(tmp_path):
    text = ('ext["base"] = "1.2"\next["full"] = "${base}.3"\n'
            'ext["a"] = "${b}"\next["b"] = "${a}"\n'
            'ext["x0"] = "xxxxxxxxxxxxxxxx"\n'
            + "".join(f'ext["x{i}"] = "${{x{i - 1}}}${{x{i - 1}}}"\n' for i in range(1, 30)))
    p = tmp_path / "build.gradle.kts"
    p.write_text(text)
    _, props = _gradle.build_text(p, tmp_path)
    assert props["full"] == "1.2.3"
    assert "$" in props["a"] and "$" in props["b"]           # a cycle stays unsubstituted
    # x29 would be 16·2^29 characters: growth stops at MAX_VALUE_CHARS (x6 = 16·2^6 = 1024 is the last)
    assert len(props["x6"]) == 1024 and "$" in props["x7"]
    assert max(len(v) for v in props.values()) <= _gradle.MAX_VALUE_CHARS
    assert len(_gradle.substitute("${x29}", props)) <= _gradle.MAX_VALUE_CHARS


def test_gradle_properties_outside_the_project_are_not_read(tmp_path):
    (tmp_path / "gradle.properties").write_text("secret=from-outside\n")
    root = _write(tmp_path / "proj", {"build.gradle.kts": 'dependencies { implementation("g:a:${property("secret")}") }\n'})
    coords, _, _ = _coords(root)
    assert coords == {"g:a:None:compile"}


def test_property_references_are_normalised():
    n = _gradle.normalise_refs
    assert n('"g:a:${property("v")}"') == '"g:a:${v}"'
    assert n("'g:a:${project.property('v')}'") == "'g:a:${v}'"
    assert n('"${(rootProject.extra["v"] as String)}"') == '"${v}"'
    assert n('"${project.properties["v"]!!}"') == '"${v}"'
    assert n('"${extra.get("v").toString()}"') == '"${v}"'
    assert n('"${rootProject.ext.v}"') == '"${v}"'
    assert n('"${someFunction("v")}"') == '"${someFunction("v")}"'   # code: left alone


CATALOG = '[versions]\nguava = "33.2.1-jre"\n[libraries]\nguava = { module = "com.google.guava:guava", version.ref = "guava" }\n'


def test_a_version_catalog_at_the_project_root_is_read_from_a_subproject(tmp_path):
    root = _write(tmp_path, {"settings.gradle.kts": 'include("app")\n', "gradle/libs.versions.toml": CATALOG,
                             "app/build.gradle.kts": "dependencies { implementation(libs.guava) }\n"})
    coords, _, _ = _coords(root)
    assert coords == {"com.google.guava:guava:33.2.1-jre:compile"}


def test_a_version_catalog_above_the_project_is_not_read(tmp_path):
    # a stranger's repository must not make qare read files of the machine around it
    (tmp_path / "gradle").mkdir()
    (tmp_path / "gradle/libs.versions.toml").write_text(CATALOG)
    root = _write(tmp_path / "proj", {"build.gradle.kts": "dependencies { implementation(libs.guava) }\n"})
    coords, _, _ = _coords(root)
    assert coords == set()


def test_a_version_catalog_symlinked_out_of_the_project_is_not_read(tmp_path):
    outside = tmp_path / "outside.toml"
    outside.write_text(CATALOG)
    root = _write(tmp_path / "proj", {"build.gradle.kts": "dependencies { implementation(libs.guava) }\n"})
    (root / "gradle").mkdir()
    (root / "gradle/libs.versions.toml").symlink_to(outside)
    coords, _, _ = _coords(root)
    assert coords == set()
