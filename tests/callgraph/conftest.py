"""Shared fixtures of the call-graph tests: fixture paths, the compiled acme-lib jar,
the commons-lang3 jar, cached project graphs and small helpers.

Every expected value in ``test_fixture_*.py`` is worked out by hand from the Java
sources under ``fixtures/java/`` (see ``docs/fixtures.md``); the helpers here only
locate lines in those sources, they never compute an expected call graph.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, so test modules cannot import this file
# as ``conftest``; it registers itself under a repo-unique name instead.
sys.modules.setdefault("cg_fixture_support", sys.modules[__name__])

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "java"
ACME_LIB = FIXTURES / "acme-lib"
QARE_EXAMPLE = FIXTURES / "qare-example"
RESOLUTION = FIXTURES / "resolution"
MULTIMODULE = FIXTURES / "multimodule"
GRADLE_APP = FIXTURES / "gradle-app"
PLAIN = FIXTURES / "plain"
BAD_INPUT = FIXTURES / "bad-input"
STUBS = FIXTURES / "stubs"

COMMONS_LANG3 = Path("/usr/share/java/commons-lang3.jar")
COMMONS_LANG3_GAV = "org.apache.commons:commons-lang3:3.12.0"
ACME_GAV = "org.acme:acme-lib:1.0.0"
JAVAC = shutil.which("javac") or "/usr/bin/javac"
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def java_files(root: Path) -> list[Path]:
    """All ``.java`` files under ``root``, sorted."""
    return sorted(root.rglob("*.java"))


def javac(sources: list[Path], out: Path, classpath: list[Path] = (), release: str | None = "17",
          javac_bin: str | None = None, extra_args: tuple[str, ...] = ()) -> None:
    """Compile ``sources`` into ``out`` with javac; fail the test with javac's output on error."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [javac_bin or JAVAC, *(["--release", release] if release else []), "-nowarn", "-encoding", "UTF-8",
           "-d", str(out), *extra_args]
    if classpath:
        cmd += ["-cp", ":".join(str(p) for p in classpath)]
    cmd += [str(s) for s in sources]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"javac failed ({' '.join(cmd[:8])} ...):\n{proc.stdout}\n{proc.stderr}")


def _zip_tree(root: Path, jar: Path, extra: dict[str, bytes] | None = None) -> None:
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for f in sorted(root.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(root).as_posix())
        for name, data in (extra or {}).items():
            z.writestr(name, data)


@pytest.fixture(scope="session")
def acme_jar(tmp_path_factory) -> Path:
    """``acme-lib-1.0.0.jar`` compiled from ``fixtures/java/acme-lib`` (with its
    ``META-INF/maven/org.acme/acme-lib/pom.properties``), next to ``acme-lib-1.0.0-sources.jar``."""
    work = tmp_path_factory.mktemp("acme")
    classes = work / "classes"
    javac(java_files(ACME_LIB / "src" / "main" / "java"), classes)
    resources = ACME_LIB / "src" / "main" / "resources"
    extra = {
        f.relative_to(resources).as_posix(): f.read_bytes() for f in resources.rglob("*") if f.is_file()
    }
    jar = work / "acme-lib-1.0.0.jar"
    _zip_tree(classes, jar, extra)
    _zip_tree(ACME_LIB / "src" / "main" / "java", work / "acme-lib-1.0.0-sources.jar")
    return jar


@pytest.fixture(scope="session")
def acme_sources_jar(acme_jar) -> Path:
    """The ``-sources.jar`` of acme-lib (Java sources of ``org.acme.*``)."""
    return acme_jar.with_name("acme-lib-1.0.0-sources.jar")


@pytest.fixture(scope="session")
def stubs_classes(tmp_path_factory) -> Path:
    """Class folder of the compile-only stubs (javax.servlet, jakarta.ws.rs, org.unknown)."""
    out = tmp_path_factory.mktemp("stubs")
    javac(java_files(STUBS), out)
    return out


@pytest.fixture(scope="session")
def commons_lang3() -> Path:
    if not COMMONS_LANG3.is_file():
        pytest.fail(f"{COMMONS_LANG3} missing: run scripts/install-test-deps.sh (libcommons-lang3-java)")
    return COMMONS_LANG3


def line_of(path: Path, snippet: str, nth: int = 1) -> int:
    """1-based number of the ``nth`` line of ``path`` containing ``snippet``.

    Fails when the snippet occurs on fewer than ``nth`` lines, so a fixture edit
    that moves or removes a call site cannot go unnoticed.
    """
    hits = [i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if snippet in text]
    assert len(hits) >= nth, f"{snippet!r} found {len(hits)} times in {path}"
    return hits[nth - 1]


def only_line(path: Path, snippet: str) -> int:
    """1-based number of the single line of ``path`` containing ``snippet`` (fails if not unique)."""
    hits = [i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if snippet in text]
    assert len(hits) == 1, f"{snippet!r} found on lines {hits} of {path}"
    return hits[0]


def out_edges(pg, mid: str, *, kinds: tuple[str, ...] | None = None) -> set[tuple[str, str, str]]:
    """``{(callee, resolution, lines-tuple)}`` of the edges leaving ``mid``.

    ``kinds`` restricts the callee nodes to those node kinds (``"method"``, ``"api"``).
    """
    g = pg.graph
    assert mid in g, f"{mid} is not a node; similar: {[n for n in g if mid.split('(')[0] in n][:10]}"
    got = set()
    for _, v, d in g.out_edges(mid, data=True):
        if kinds is not None and g.nodes[v].get("kind") not in kinds:
            continue
        got.add((v, d["resolution"], tuple(d["lines"])))
    return got


def targets_by_api(targets) -> dict[str, object]:
    """``{target.signature or target.api: target}``; fails on duplicates."""
    out = {}
    for t in targets:
        key = t.signature or t.api
        assert key not in out, f"duplicate target {key}"
        out[key] = t
    return out


def callgraph_module():
    """The ``callgraph`` package."""
    import callgraph

    return callgraph


_GRAPHS: dict = {}


@pytest.fixture(scope="session")
def graph_of():
    """``graph_of(root, classpath=(...), **kw)`` → a ``ProjectGraph``, built once per argument set."""

    def build(root: Path, classpath=(), **kw):
        cg = callgraph_module()
        key = (str(root), tuple(str(c) for c in classpath), tuple(sorted(kw.items())))
        if key not in _GRAPHS:
            _GRAPHS[key] = cg.build_project_graph(root, classpath=tuple(classpath), **kw)
        return _GRAPHS[key]

    return build


# --- javac/javap oracle (test_fixture_javac_oracle.py, test_fixture_jdk.py) ---------------

JAVAP = "javap"
_PRIM = {"int": "I", "long": "J", "double": "D", "float": "F", "boolean": "Z", "char": "C", "byte": "B",
         "short": "S", "void": "V"}
_INVOKE = re.compile(
    r"^\s*(\d+): invoke(virtual|special|static|interface)\s+#\d+(?:,\s*\d+)?\s+"
    r"// (?:Interface)?Method (?:([\w/$]+)\.)?\"?([<>\w$]+)\"?:(\([^)]*\))"
)
_INDY = re.compile(r"^\s*(\d+): invokedynamic")
_LINE = re.compile(r"^\s*line (\d+): (\d+)")


def type_descriptor(source_type: str) -> str:
    t = source_type
    dims = 0
    if t.endswith("..."):
        t, dims = t[:-3], 1
    while t.endswith("[]"):
        t, dims = t[:-2], dims + 1
    if t in _PRIM:
        d = _PRIM[t]
    else:
        parts = t.split(".")
        first_type = next(i for i, p in enumerate(parts) if p[:1].isupper())
        d = "L" + "/".join(parts[:first_type]) + "/" + "$".join(parts[first_type:]) + ";"
        d = d.replace("L/", "L")
    return "[" * dims + d


def params_descriptor(method_id: str) -> str:
    inside = method_id[method_id.index("(") + 1 : -1]
    return "(" + "".join(type_descriptor(p) for p in inside.split(",") if p) + ")"


def method_name(method_id: str) -> str:
    return method_id.split("(")[0].rsplit(".", 1)[1]


def javac_calls(sources: list[Path], out: Path, classpath: list[Path], release: str | None = "17",
                javac_bin: str | None = None, extra_args: tuple[str, ...] = ()):
    """{source path relative to its source root: {line: {(name, descriptor, owner)}}}, and the
    set of (file, line) holding an invokedynamic."""
    javac(sources, out, classpath, release=release, javac_bin=javac_bin, extra_args=extra_args)
    classes = sorted(str(p) for p in out.rglob("*.class"))
    text = subprocess.run([JAVAP, "-c", "-l", "-p", *classes], capture_output=True, text=True, check=True).stdout
    calls: dict = defaultdict(lambda: defaultdict(set))
    indy: set = set()
    source = package = None
    pending: list = []
    lines: list = []

    def flush():
        table = sorted((pc, ln) for ln, pc in lines)
        for pc, kind, rec in pending:
            before = [entry for entry in table if entry[0] <= pc]
            if not before:
                continue
            ln = before[-1][1]  # the entry with the greatest start pc at or before the call
            if kind == "indy":
                indy.add((source, ln))
            else:
                calls[source][ln].add(rec)
        pending.clear()
        lines.clear()

    for raw in text.splitlines():
        if raw.startswith("Compiled from "):
            flush()
            source = raw.split('"')[1]
            continue
        m = re.match(r"^(?:[\w ]+ )?(?:class|interface|enum|record) ([\w.$]+)", raw)
        if m and not raw.startswith(" "):
            package = m.group(1).rsplit(".", 1)[0]
            source = f"{package.replace('.', '/')}/{source.rsplit('/', 1)[-1]}"
            continue
        if raw.rstrip() == "    Code:":
            flush()  # a new method's code: what is pending belongs to the previous one
            continue
        if (m := _INVOKE.match(raw)):
            pc, _, owner, name, desc = m.groups()
            if name == "<init>" and owner and "$" in owner:
                # an inner (non-static) class's constructor takes the outer instance first
                # (no static nested class of the fixture takes its outer type as first parameter)
                outer = owner.rsplit("$", 1)[0]
                if desc.startswith(f"(L{outer};"):
                    desc = "(" + desc[len(outer) + 3:]
            pending.append((int(pc), "call", (name, desc, owner or "")))
        elif (m := _INDY.match(raw)):
            pending.append((int(m.group(1)), "indy", None))
        elif (m := _LINE.match(raw)):
            lines.append((int(m.group(1)), int(m.group(2))))
    flush()
    return calls, indy


