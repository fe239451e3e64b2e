"""Every Java fixture is real Java: javac (JDK 17) compiles it.

The bad-input fixture is the exception on purpose: ``Broken.java`` must *not*
compile (it is the parse-error case), the rest of that folder must.
"""

from __future__ import annotations

import zipfile

import pytest

from cg_fixture_support import (
    ACME_GAV,
    BAD_INPUT,
    FIXTURES,
    GRADLE_APP,
    MULTIMODULE,
    PLAIN,
    QARE_EXAMPLE,
    RESOLUTION,
    java_files,
    javac,
)


def test_acme_jar_has_classes_and_maven_coordinates(acme_jar, acme_sources_jar):
    with zipfile.ZipFile(acme_jar) as z:
        names = set(z.namelist())
        props = z.read("META-INF/maven/org.acme/acme-lib/pom.properties").decode()
    assert {
        "org/acme/text/Texts.class",
        "org/acme/text/TextBuilder.class",
        "org/acme/text/Token.class",
        "org/acme/text/Token$Kind.class",
        "org/acme/text/Token$Span.class",
        "org/acme/http/HttpClient.class",
        "org/acme/http/HttpClient$Builder.class",
        "org/acme/http/Handler.class",
    } <= names
    group, artifact, version = (
        dict(line.split("=", 1) for line in props.splitlines() if "=" in line)[k]
        for k in ("groupId", "artifactId", "version")
    )
    assert f"{group}:{artifact}:{version}" == ACME_GAV
    with zipfile.ZipFile(acme_sources_jar) as z:
        assert "org/acme/text/Texts.java" in z.namelist()


def test_qare_example_compiles(tmp_path, commons_lang3):
    main = tmp_path / "main"
    javac(java_files(QARE_EXAMPLE / "src" / "main" / "java"), main, [commons_lang3])
    javac(java_files(QARE_EXAMPLE / "src" / "test" / "java"), tmp_path / "test", [main, commons_lang3])
    assert (main / "com" / "acme" / "CommentService.class").is_file()


def test_resolution_compiles(tmp_path, acme_jar, stubs_classes):
    javac(java_files(RESOLUTION / "src" / "main" / "java"), tmp_path, [acme_jar, stubs_classes])
    # one class file per top-level class, plus the anonymous and local classes
    assert (tmp_path / "res" / "Lambdas$1.class").is_file()
    assert (tmp_path / "res" / "Lambdas$1Local.class").is_file()
    assert (tmp_path / "res" / "Op$1.class").is_file()


def test_multimodule_compiles(tmp_path, commons_lang3):
    core = tmp_path / "core"
    javac(java_files(MULTIMODULE / "core" / "src" / "main" / "java"), core, [commons_lang3])
    javac(java_files(MULTIMODULE / "core" / "src" / "test" / "java"), tmp_path / "core-test", [core, commons_lang3])
    javac(java_files(MULTIMODULE / "app" / "src" / "main" / "java"), tmp_path / "app", [core, commons_lang3])


def test_gradle_app_compiles(tmp_path, commons_lang3):
    main = tmp_path / "main"
    javac(java_files(GRADLE_APP / "src" / "main" / "java"), main, [commons_lang3])
    javac(java_files(GRADLE_APP / "src" / "test" / "java"), tmp_path / "test", [main])


def test_plain_compiles(tmp_path):
    javac(java_files(PLAIN), tmp_path)


def test_warm_cache_compiles(tmp_path):
    javac(java_files(FIXTURES / "warm-cache"), tmp_path)


def test_bad_input_good_parts_compile_and_broken_does_not(tmp_path):
    src = BAD_INPUT / "src" / "main" / "java" / "bad"
    assert (src / "Empty.java").stat().st_size == 0
    # Good.java calls Broken.after(): compile it against a Broken without the broken method
    fixed = tmp_path / "fixed" / "Broken.java"
    fixed.parent.mkdir()
    text = (src / "Broken.java").read_text()
    start, end = text.index("    void broken()"), text.index("    void after()")
    fixed.write_text(text[:start] + text[end:])
    javac([src / "Good.java", src / "Empty.java", fixed], tmp_path / "ok")
    import subprocess

    from cg_fixture_support import JAVAC

    proc = subprocess.run(
        [JAVAC, "-d", str(tmp_path / "bad"), str(src / "Broken.java")], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "Broken.java:10" in proc.stderr  # `int x = ;`


@pytest.mark.parametrize("fixture", ["resolution", "qare-example"])
def test_fixture_sources_are_ascii(fixture):
    # the encoding cases are written by the tests into tmp_path, never committed
    from cg_fixture_support import FIXTURES

    for f in java_files(FIXTURES / fixture):
        f.read_bytes().decode("ascii")
