"""javac + Lombok as the truth for the Lombok fixture (fixtures/java/lombok).

The fixture is compiled with ``javac -cp lombok.jar -processorpath lombok.jar``
(Lombok 1.18.48 from Maven Central, fetched with ``mvn`` into the qare cache's
Maven repository) and disassembled with ``javap -p -s``. Then:

* every method javap lists (bridge/synthetic ``$`` methods and lambdas aside) is a
  node of the graph, and every project method node is one javap lists — so the
  members qare generates are exactly Lombok's, no more, no fewer;
* each ``log`` field's type (javap) is the class of the API its ``log.xxx(...)``
  call resolves to;
* every ``exact`` edge matches the invocation javac emitted on that line (name and
  erased descriptor), which also checks the generated members' return types
  (chained setters, builders).

Skipped, with the reason, when javac/javap, ``mvn`` or Maven Central are missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, java_files, javac, javac_calls, method_name, params_descriptor

LOMBOK = FIXTURES / "lombok"
LOMBOK_GAV = ("org.projectlombok", "lombok", "1.18.48")
SLF4J = Path("/usr/share/java/slf4j-api.jar")
COMMONS_LOGGING = Path("/usr/share/java/commons-logging.jar")


def fetch_lombok_jar() -> Path:
    """Lombok's jar in qare's local Maven repository (``default_repo_local``: the
    user's, which tests/conftest.py shares through ``QARE_MAVEN_REPO_LOCAL``), fetched
    from Maven Central with ``mvn dependency:get`` when absent (the integrator's
    convention until the general Maven module serves tool artifacts). Skips the test
    with the reason on failure."""
    from callgraph._mvn_resolve import default_repo_local

    repo = default_repo_local()
    g, a, v = LOMBOK_GAV
    jar = repo / g.replace(".", "/") / a / v / f"{a}-{v}.jar"
    if jar.is_file():
        return jar
    mvn = shutil.which("mvn")
    if mvn is None:
        pytest.skip("mvn not installed: cannot fetch Lombok from Maven Central")
    try:
        proc = subprocess.run([mvn, "-B", "-q", "--no-transfer-progress", f"-Dmaven.repo.local={repo}",
                               "dependency:get", f"-Dartifact={g}:{a}:{v}", "-Dtransitive=false"],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("Maven Central unreachable (mvn timed out fetching Lombok)")
    if proc.returncode != 0 or not jar.is_file():
        tail = " ".join((proc.stdout + proc.stderr).split()[-30:])
        pytest.skip(f"Maven Central unreachable or Lombok {v} not served: {tail}")
    return jar


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    if shutil.which("javac") is None or shutil.which("javap") is None:
        pytest.skip("javac/javap not installed")
    if not (SLF4J.is_file() and COMMONS_LOGGING.is_file()):
        pytest.skip("needs /usr/share/java/slf4j-api.jar and commons-logging.jar "
                    "(apt: libslf4j-java libcommons-logging-java)")
    jar = fetch_lombok_jar()
    work = tmp_path_factory.mktemp("lombok")
    stubs = work / "stubs"
    javac(java_files(LOMBOK / "stubs"), stubs)
    cp = [jar, stubs, SLF4J, COMMONS_LOGGING]
    sources = java_files(LOMBOK / "src" / "main" / "java")
    calls, indy = javac_calls(sources, work / "classes", cp, extra_args=("-processorpath", str(jar)))
    return work / "classes", calls, indy


_PRIM = {"I": "int", "J": "long", "Z": "boolean", "B": "byte", "C": "char", "S": "short", "F": "float",
         "D": "double", "V": "void"}


def _desc_types(d: str) -> list[str]:
    """Source type names of a JVM descriptor's types (nested classes joined by ``.``)."""
    out, i = [], 0
    while i < len(d):
        dims = 0
        while d[i] == "[":
            dims, i = dims + 1, i + 1
        if d[i] == "L":
            j = d.index(";", i)
            t, i = d[i + 1:j].replace("/", ".").replace("$", "."), j + 1
        else:
            t, i = _PRIM[d[i]], i + 1
        out.append(t + "[]" * dims)
    return out


def javap_members(classes: Path) -> tuple[set, dict]:
    """(method ids, {(class, field): type}) of every class file under ``classes``."""
    files = sorted(str(p) for p in classes.rglob("*.class"))
    text = subprocess.run(["javap", "-p", "-s", *files], capture_output=True, text=True, check=True).stdout
    methods, fields, cls, enum = set(), {}, None, False
    lines = text.splitlines()
    for k, line in enumerate(lines):
        m = re.match(r".*\b(?:class|interface|enum) ([\w.$]+)", line)
        if m and line.rstrip().endswith("{"):
            cls = m.group(1).replace("$", ".")
            enum = "extends java.lang.Enum<" in line
            continue
        s = line.strip()
        if not s.startswith("descriptor:"):
            continue
        d, decl = s.split(None, 1)[1], lines[k - 1].strip()
        if "{}" in decl:  # static {}
            continue
        if d.startswith("("):
            ps = _desc_types(d[1:d.index(")")])
            name = decl.split("(")[0].split()[-1]
            if name.replace("$", ".") == cls:
                name = "<init>"
                if enum:  # the descriptor has javac's synthetic name and ordinal first
                    ps = ps[2:]
            elif "$" in name or name.startswith("lambda"):
                continue  # synthetic (Lombok's $default$x, javac's lambda bodies)
            if "..." in decl and ps:
                ps[-1] = ps[-1][:-2] + "..."
            methods.add(f"{cls}.{name}({','.join(ps)})")
        else:
            fields[(cls, decl.rstrip(";").split()[-1])] = _desc_types(d)[0]
    return methods, fields


@pytest.fixture(scope="module")
def pg(graph_of):
    return graph_of(LOMBOK, classpath=(SLF4J, COMMONS_LOGGING))


def test_generated_members_are_what_lombok_generated(compiled, pg):
    methods, _ = javap_members(compiled[0])
    g = pg.graph
    ours = {n for n, d in g.nodes(data=True) if d["kind"] == "method" and not n.endswith(".<clinit>()")}
    assert sorted(methods - ours) == [], "Lombok generated these, qare did not"
    assert sorted(ours - methods) == [], "qare generated these, Lombok did not"
    generated = {n for n in ours if g.nodes[n].get("generated_by", "javac") not in (None, "javac")}
    assert len(generated) == 96  # every member test_lombok.EXPECTED lists


def test_logger_fields_have_the_logging_librarys_type(compiled, pg):
    _, fields = javap_members(compiled[0])
    g = pg.graph
    checked = 0
    for (cls, name), ftype in fields.items():
        if not cls.startswith("com.acme.lombok.Loggers."):
            continue
        assert name == "log"
        (dst,) = g.successors(cls + ".run()")
        assert dst.split("(")[0].rsplit(".", 1)[0] == ftype
        checked += 1
    assert checked == 8
    assert fields[("com.acme.lombok.cfg.Settings", "LOGGER")] == "org.slf4j.Logger"
    assert fields[("com.acme.lombok.cfg.stop.Local", "logger")] == "org.slf4j.Logger"


def test_every_exact_edge_is_what_javac_bound(compiled, pg):
    _, calls, indy = compiled
    g = pg.graph
    wrong, checked = [], 0
    for u, v, d in g.edges(data=True):
        if d["resolution"] != "exact" or g.nodes[u].get("generated_by"):
            continue  # generated members' own calls have no line of their own in javac's table
        file = g.nodes[u]["file"].split("src/main/java/", 1)[1]
        for line in d["lines"]:
            if (file, line) in indy:
                continue
            checked += 1
            if (method_name(v), params_descriptor(v)) not in {(n, de) for n, de, _ in calls[file][line]}:
                wrong.append((u, v, line, sorted(calls[file][line])))
    assert checked >= 50
    assert wrong == [], "\n".join(map(str, wrong))
