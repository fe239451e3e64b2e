"""Session fixtures of the javadoc tests: sites generated with the local JDK
17 and JDK 25 ``javadoc`` tools from fixtures/javadoc/src, and the Debian
``-doc`` sites unpacked by scripts/install-test-deps.sh."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE_SRC = REPO / "fixtures" / "javadoc" / "src"
JAVADOC_TOOLS = {
    "jdk17": "/usr/lib/jvm/java-17-openjdk-amd64/bin/javadoc",
    "jdk25": "/usr/lib/jvm/temurin-25-jdk-amd64/bin/javadoc",
}
DEBIAN = REPO / ".cache" / "test-inputs" / "javadoc"


def debian_site(package: str) -> Path:
    """HTML root of an unpacked Debian -doc package; skips when absent."""
    lib = package[: -len("-doc")]
    p = DEBIAN / package / "usr" / "share" / "doc" / lib / "api"
    if not p.is_dir():
        pytest.skip(f"{p} missing: run scripts/install-test-deps.sh")
    return p


@pytest.fixture(scope="session")
def generated_sites(tmp_path_factory) -> dict[str, Path]:
    out = {}
    base = tmp_path_factory.mktemp("javadoc-sites")
    for layout, tool in JAVADOC_TOOLS.items():
        if not os.path.exists(tool):
            pytest.skip(f"{tool} missing")
        dest = base / layout
        subprocess.run(
            [tool, "-quiet", "-Xdoclint:none", "-d", str(dest), "-sourcepath", str(FIXTURE_SRC),
             "-subpackages", "com.acme"],
            check=True, capture_output=True, timeout=300,
        )
        out[layout] = dest
    return out


@pytest.fixture(scope="session")
def modular_site(tmp_path_factory) -> Path:
    """The fixture sources as module ``acme.docs``, documented by JDK 25's
    javadoc: pages live under ``acme.docs/`` and element-list has a
    ``module:`` line."""
    tool = JAVADOC_TOOLS["jdk25"]
    if not os.path.exists(tool):
        pytest.skip(f"{tool} missing")
    base = tmp_path_factory.mktemp("javadoc-modular")
    src = base / "src" / "acme.docs"
    shutil.copytree(FIXTURE_SRC, src)
    (src / "module-info.java").write_text(
        "module acme.docs {\n    exports com.acme.docs;\n    exports com.acme.docs.util;\n}\n")
    dest = base / "site"
    subprocess.run([tool, "-quiet", "-Xdoclint:none", "-d", str(dest), "--module-source-path",
                    str(base / "src"), "--module", "acme.docs"], check=True, capture_output=True, timeout=300)
    return dest


@pytest.fixture(scope="session")
def debian():
    """``debian(package)`` → HTML root of an unpacked Debian -doc package."""
    return debian_site
