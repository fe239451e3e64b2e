"""Integration with the real Maven Central (``@pytest.mark.network``): skipped, with the
reason printed, when the registry cannot be reached (probed once per session).

Artifacts go to qare's shared cache (``<cache>/m2/repository``), so a second run on the
same machine downloads nothing; a cold run fetches about 15 MB."""

from __future__ import annotations

import shutil
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from callgraph.classpath import fetch_doc_jars, resolve_classpath

pytestmark = [pytest.mark.network,
              pytest.mark.skipif(shutil.which("mvn") is None, reason="mvn is not installed")]

CENTRAL = "https://repo.maven.apache.org/maven2/"
_PROBE: list = []


@pytest.fixture(scope="session")
def central():
    if not _PROBE:
        try:
            with urllib.request.urlopen(CENTRAL + "org/apache/commons/commons-lang3/maven-metadata.xml",
                                        timeout=15) as r:
                _PROBE.append(None if r.status == 200 else f"HTTP {r.status}")
        except (urllib.error.URLError, OSError) as e:
            _PROBE.append(f"{type(e).__name__}: {e}")
    if _PROBE[0]:
        print(f"\nSKIP: Maven Central ({CENTRAL}) is unreachable: {_PROBE[0]}")
        pytest.skip(f"Maven Central ({CENTRAL}) is unreachable: {_PROBE[0]}")


def _project(tmp_path: Path, g: str, a: str, v: str) -> Path:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "pom.xml").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId>"
        f"<version>1</version><dependencies><dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency></dependencies></project>")
    return tmp_path / "p"


def test_commons_lang3_with_javadoc_and_sources(central, tmp_path):
    from javadoc import DocIndex

    r = resolve_classpath(_project(tmp_path, "org.apache.commons", "commons-lang3", "3.14.0"))
    assert r.unresolved == () and [a.coords for a in r.artifacts] == ["org.apache.commons:commons-lang3:3.14.0"]
    assert r.jars[0].name == "commons-lang3-3.14.0.jar"
    assert "org/apache/commons/lang3/StringUtils.class" in zipfile.ZipFile(r.jars[0]).namelist()
    mid = "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)"
    for kind in ("javadoc", "sources"):
        got = fetch_doc_jars(["org.apache.commons:commons-lang3:3.14.0"], kind)
        assert got.failures == () and [Path(p).name for p in got.paths()] == [f"commons-lang3-3.14.0-{kind}.jar"]
        doc = DocIndex.open(*got.paths()).get(mid).to_dict()
        # the first sentence of the method's doc comment in commons-lang3 3.14.0
        assert doc["first_sentence"] == 'Checks if a CharSequence is empty (""), null or whitespace only.'
        assert doc["doc_source"] == kind
    again = fetch_doc_jars(["org.apache.commons:commons-lang3:3.14.0"])
    assert again.downloads == 0


def test_spring_boot_starter_tree(central, tmp_path):
    r = resolve_classpath(_project(tmp_path, "org.springframework.boot", "spring-boot-starter", "3.3.0"))
    # the compile closure of spring-boot-starter 3.3.0 as its published poms declare it
    # (read by hand: starter → boot, autoconfigure, starter-logging, jakarta.annotation, spring-core,
    # snakeyaml; boot → spring-context → aop, beans, expression, micrometer-observation → -commons;
    # starter-logging → logback-classic → -core, slf4j-api; log4j-to-slf4j → log4j-api; jul-to-slf4j)
    assert sorted(a.coords for a in r.artifacts) == sorted([
        "org.springframework.boot:spring-boot-starter:3.3.0", "org.springframework.boot:spring-boot:3.3.0",
        "org.springframework.boot:spring-boot-autoconfigure:3.3.0",
        "org.springframework.boot:spring-boot-starter-logging:3.3.0",
        "ch.qos.logback:logback-classic:1.5.6", "ch.qos.logback:logback-core:1.5.6",
        "org.slf4j:slf4j-api:2.0.13", "org.slf4j:jul-to-slf4j:2.0.13",
        "org.apache.logging.log4j:log4j-to-slf4j:2.23.1", "org.apache.logging.log4j:log4j-api:2.23.1",
        "jakarta.annotation:jakarta.annotation-api:2.1.1", "org.springframework:spring-core:6.1.8",
        "org.springframework:spring-jcl:6.1.8", "org.springframework:spring-context:6.1.8",
        "org.springframework:spring-aop:6.1.8", "org.springframework:spring-beans:6.1.8",
        "org.springframework:spring-expression:6.1.8", "io.micrometer:micrometer-observation:1.12.6",
        "io.micrometer:micrometer-commons:1.12.6", "org.yaml:snakeyaml:2.2"])
    assert r.unresolved == () and len(r.jars) == 20
    assert resolve_classpath(r.build_files[0].parent).from_cache
