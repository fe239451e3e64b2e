"""A damaged jar on ``--classpath`` is a failed input: a warning naming the
jar and the reason, exit code 1 (docs/security.md, "Exit codes"). The jar is
compiled here with javac and then damaged byte by byte."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from qare.cli import main

JAVAC = shutil.which("javac") or "/usr/lib/jvm/java-17-openjdk-amd64/bin/javac"
N_FILES = 20  # > 16: pass 2 runs in worker processes with --jobs 2


@pytest.fixture(scope="module")
def lib(tmp_path_factory) -> dict[str, bytes]:
    if not Path(JAVAC).exists():
        pytest.skip("javac missing")
    d = tmp_path_factory.mktemp("lib")
    (d / "q").mkdir()
    (d / "q/Lib.java").write_text("package q;\npublic class Lib { public static String hi() { return \"x\"; } }\n")
    (d / "q/Other.java").write_text("package q;\npublic class Other { public int n() { return 1; } }\n")
    subprocess.run([JAVAC, "-d", str(d / "out"), str(d / "q/Lib.java"), str(d / "q/Other.java")],
                   check=True, capture_output=True)
    return {n: (d / "out" / n).read_bytes() for n in ("q/Lib.class", "q/Other.class")}


@pytest.fixture
def proj(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / "p").mkdir(parents=True)
    for i in range(N_FILES):
        (root / f"p/A{i}.java").write_text(
            f"package p;\nimport q.Lib;\nimport q.Other;\nclass A{i} {{ void m() {{ Lib.hi(); new Other().n(); }} }}\n")
    return root


def _jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for n, b in entries.items():
            zf.writestr(n, b)
    return path


def _graph(proj: Path, jar: Path, jobs: int):
    return CliRunner().invoke(main, ["graph", str(proj), "--classpath", str(jar), "--no-auto-classpath",
                                     "--jobs", str(jobs), "--quiet"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_good_jar_exits_0(proj, lib, tmp_path, jobs):
    r = _graph(proj, _jar(tmp_path / "good.jar", lib), jobs)
    assert r.exit_code == 0, r.output
    assert "warning" not in r.stderr


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_corrupt_class_file_is_a_warning_and_exit_1(proj, lib, tmp_path, jobs):
    jar = _jar(tmp_path / "bad.jar", {"q/Lib.class": b"\xca\xfe\xba\xbe" + b"garbage" * 10,
                                       "q/Other.class": lib["q/Other.class"]})
    r = _graph(proj, jar, jobs)
    assert r.exit_code == 1, r.output
    assert (f"warning: classpath entry {jar}: bad class file q/Lib.class: unknown constant-pool tag 101 at entry 1"
            in r.stderr.splitlines())


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bad_crc_entry_is_a_warning_and_exit_1(proj, lib, tmp_path, jobs):
    jar = _jar(tmp_path / "crc.jar", lib)
    data = bytearray(jar.read_bytes())
    at = data.index(lib["q/Other.class"])  # stored: the class bytes are in the jar as they are
    data[at + 20] ^= 0xFF
    jar.write_bytes(bytes(data))
    r = _graph(proj, jar, jobs)
    assert r.exit_code == 1, r.output
    assert (f"warning: classpath entry {jar}: cannot read q/Other.class: BadZipFile: "
            "Bad CRC-32 for file 'q/Other.class'") in r.stderr.splitlines()


def test_a_truncated_jar_is_a_warning_and_exit_1(proj, lib, tmp_path):
    jar = _jar(tmp_path / "trunc.jar", lib)
    jar.write_bytes(jar.read_bytes()[: jar.stat().st_size // 2])
    r = _graph(proj, jar, 1)
    assert r.exit_code == 1, r.output
    assert (f"warning: classpath entry {jar}: unreadable classpath entry: BadZipFile: File is not a zip file; "
            "ignored") in r.stderr.splitlines()
