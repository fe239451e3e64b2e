"""Generics where they decide a call (issue 13, part 2), with javac as the oracle.

Fixtures: ``fixtures/java/generics-lib`` (a self-written library that mimics
AssertJ's self-typed hierarchy, ``AbstractAssert<SELF extends AbstractAssert<SELF,
ACTUAL>, ACTUAL>``), compiled into a jar here; ``fixtures/java/generics`` (a project
chaining over it and over generic JDK methods); ``fixtures/java/generics-assertj``
(chains over the real ``org.assertj:assertj-core``, fetched from Maven Central).

The expected values come from javac: each fixture is compiled and every class
disassembled with ``javap -c -l -p``; the ``invoke*`` operands on a source line are
the methods javac bound that line's calls to (name and erased descriptor; the
owner javac records is the receiver's static type, not the declaring type, so
only name and descriptor are compared). Two checks per file:

* precision — every ``exact`` edge leaving a project method matches a call javac
  emitted on that line;
* recall — every call javac emitted on a line (except what javac adds on its
  own: ``Object.<init>``, boxing, synthetic ``lambda$``/``access$`` methods) is an
  ``exact`` edge on that line.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, JAVAC, java_files, javac, javac_calls, method_name, params_descriptor

GEN = FIXTURES / "generics"
GEN_LIB = FIXTURES / "generics-lib"
GEN_AJ = FIXTURES / "generics-assertj"
ASSERTJ_GAV = "org.assertj:assertj-core:3.26.3"

pytestmark = pytest.mark.skipif(shutil.which(JAVAC) is None and not Path(JAVAC).is_file(),
                                reason="javac not installed (it is the oracle)")


def _jar(classes: Path, jar: Path) -> Path:
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for f in sorted(classes.rglob("*.class")):
            z.write(f, f.relative_to(classes).as_posix())
    return jar


@pytest.fixture(scope="module")
def gl_jar(tmp_path_factory) -> Path:
    """``generics-lib`` compiled with javac into a jar."""
    out = tmp_path_factory.mktemp("gl")
    javac(java_files(GEN_LIB / "src/main/java"), out / "classes")
    return _jar(out / "classes", out / "generics-lib.jar")


def _edges_by_line(pg, rel_file: str):
    """{line: {(callee id, resolution)}} of the edges leaving the project methods of one file."""
    g = pg.graph
    out: dict = {}
    for u, v, d in g.edges(data=True):
        if g.nodes[u].get("kind") != "method" or g.nodes[u].get("file") != rel_file:
            continue
        for ln in d["lines"]:
            out.setdefault(ln, set()).add((v, d["resolution"]))
    return out


_BOXES = frozenset(f"java/lang/{b}" for b in ("Integer", "Long", "Short", "Byte", "Character", "Boolean",
                                               "Float", "Double"))


def _javac_own(name: str, owner: str) -> bool:
    """Calls javac adds on its own: implicit ``super()`` of Object/Record, boxing and
    unboxing conversions, synthetic methods."""
    return ((name == "<init>" and owner in ("java/lang/Object", "java/lang/Record")) or "$" in name
            or (owner in _BOXES and (name == "valueOf" or name.endswith("Value"))))


def compare(pg, calls, src_root: str, rel: str):
    """(wrong exact edges, javac calls without an exact edge) for source file ``rel``
    (relative to the source root ``src_root``)."""
    by_line = _edges_by_line(pg, f"{src_root}/{rel}")
    truth = calls.get(rel, {})
    wrong, missed = [], []
    for ln, edges in sorted(by_line.items()):
        want = {(n, d) for n, d, _ in truth.get(ln, ())}
        for callee, res in sorted(edges):
            if res == "exact" and "(" in callee and not callee.endswith("(*)") \
                    and (method_name(callee), params_descriptor(callee)) not in want:
                wrong.append((ln, callee))
    for ln, recs in sorted(truth.items()):
        got = {(method_name(c), params_descriptor(c)) for c, res in by_line.get(ln, ())
               if res == "exact" and "(" in c and not c.endswith("(*)")}
        for n, d, owner in sorted(recs):
            if not _javac_own(n, owner) and (n, d) not in got:
                missed.append((ln, f"{owner}.{n}{d}"))
    return wrong, missed


@pytest.fixture(scope="module")
def gen(graph_of, gl_jar, tmp_path_factory):
    calls, _ = javac_calls(java_files(GEN / "src/main/java"), tmp_path_factory.mktemp("genc"), [gl_jar])
    return graph_of(GEN, classpath=[gl_jar]), calls


@pytest.mark.parametrize("rel", ["gen/Fluent.java", "gen/JdkGenerics.java", "gen/Lambdas.java", "gen/Overloads.java",
                                 "gen/ItemAssert.java"])
def test_fixture_calls_match_javac(gen, rel):
    pg, calls = gen
    wrong, missed = compare(pg, calls, "src/main/java", rel)
    assert wrong == []
    assert missed == []


def test_self_type_chain_by_hand(gen):
    """The chain of Fluent.strings() line 1, worked out by hand: SELF of
    AbstractStringAssert<?> is captured to AbstractStringAssert, so isEqualTo("abc")
    is its String overload and startsWith/isEmpty come from AbstractCharSequenceAssert."""
    pg, _ = gen
    by_line = _edges_by_line(pg, "src/main/java/gen/Fluent.java")
    assert by_line[11] == {
        ("gl.Assertions.assertThat(java.lang.String)", "exact"),
        ("gl.AbstractStringAssert.isEqualTo(java.lang.String)", "exact"),
        ("gl.AbstractAssert.isNotNull()", "exact"),
        ("gl.AbstractCharSequenceAssert.startsWith(java.lang.CharSequence)", "exact"),
        ("gl.AbstractCharSequenceAssert.isEmpty()", "exact"),
    }


# ------------------------------------------------------------------ real AssertJ

def _cache_dir() -> Path:
    from callgraph.classpath import _cache_dir as cd

    return Path(cd())


def fetch_assertj() -> Path | None:
    """assertj-core's jar through ``mvn dependency:get`` into the qare cache's Maven
    repository (``<cache>/m2/repository``); None when mvn is missing or Maven
    Central is unreachable."""
    repo = _cache_dir() / "m2" / "repository"
    g, a, v = ASSERTJ_GAV.split(":")
    jar = repo / g.replace(".", "/") / a / v / f"{a}-{v}.jar"
    if jar.is_file():
        return jar
    mvn = shutil.which("mvn")
    if mvn is None:
        return None
    proc = subprocess.run([mvn, "-B", "--no-transfer-progress", f"-Dmaven.repo.local={repo}",
                           "dependency:get", f"-Dartifact={ASSERTJ_GAV}", "-Dtransitive=false"],
                          capture_output=True, text=True, timeout=600)
    return jar if proc.returncode == 0 and jar.is_file() else None


@pytest.fixture(scope="module")
def assertj(graph_of, tmp_path_factory):
    jar = fetch_assertj()
    if jar is None:
        pytest.skip(f"{ASSERTJ_GAV} not in the local repository and Maven Central unreachable (or no mvn)")
    calls, _ = javac_calls(java_files(GEN_AJ / "src/test/java"), tmp_path_factory.mktemp("ajc"), [jar])
    return graph_of(GEN_AJ, classpath=[jar]), calls


def test_real_assertj_chains_match_javac(assertj):
    pg, calls = assertj
    wrong, missed = compare(pg, calls, "src/test/java", "gaj/RealAssertjTest.java")
    assert wrong == []
    assert missed == []


def test_chain_after_undecided_overload(gen):
    """``Texts.text(switch ...)``: a switch expression's type is not computed, so
    text(String)/text(StringBuilder) stays undecided (``(*)``), but both return
    StringAssert: the chained isEmpty() is decided, and javac binds the same method."""
    pg, calls = gen
    by_line = _edges_by_line(pg, "src/main/java/gen/Undecided.java")
    assert by_line[8] == {("gl.Texts.text(*)", "arity"),
                          ("gl.AbstractCharSequenceAssert.isEmpty()", "exact")}
    assert ("isEmpty", "()") in {(n, d) for n, d, _ in calls["gen/Undecided.java"][8]}
