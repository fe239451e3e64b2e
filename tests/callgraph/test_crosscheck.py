"""`qare crosscheck` and `--resolver jdt`: Eclipse JDT (Maven Central, via JPype) as an oracle.

JDT's bindings are an independent answer (the compiler's); the expected values
below are worked out by hand from the fixture sources. The JVM starts once per
test session (``xc`` fixture), in a child process; the tests skip, with the reason, when jpype1 is
not installed or JDT cannot be fetched from Maven Central.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cg_fixture_support import (  # noqa: F401  (fixtures)
    COMMONS_LANG3,
    FIXTURES,
    GRADLE_APP,
    MULTIMODULE,
    PLAIN,
    QARE_EXAMPLE,
    RESOLUTION,
    acme_jar,
    commons_lang3,
    graph_of,
    line_of,
)

MODERN = FIXTURES / "modern"
CHAINS = FIXTURES / "chains"
BAD_INPUT = FIXTURES / "bad-input"
CS = QARE_EXAMPLE / "src" / "main" / "java" / "com" / "acme" / "CommentService.java"
TF = QARE_EXAMPLE / "src" / "main" / "java" / "com" / "acme" / "TitleFormatter.java"
SU = "org.apache.commons.lang3.StringUtils"


@pytest.fixture(scope="session")
def xc():
    """The crosscheck module with a running JDT (one JVM, in its host process, for the whole session)."""
    from callgraph import crosscheck

    reason = crosscheck.jdt_available()  # no jpype1, no mvn/Maven Central, no javac, no Java 17+
    if reason is not None:
        pytest.skip(f"Eclipse JDT unavailable, JDT crosscheck tests skipped: {reason}")
    return crosscheck


_JDT: dict = {}


@pytest.fixture(scope="session")
def jdt_of(xc):
    def run(root, classpath=()):
        key = (str(root), tuple(map(str, classpath)))
        if key not in _JDT:
            _JDT[key] = xc.run_jdt(root, classpath)
        return _JDT[key]

    return run


def _index(classpath=()):
    from callgraph.classpath import ClasspathIndex

    return ClasspathIndex.open([str(p) for p in classpath])


def _edges(g, kinds=None):
    return {(u, v, tuple(d["lines"])) for u, v, d in g.edges(data=True)
            if kinds is None or d["resolution"] in kinds}


# Edges JDT binds that qare's resolver does not decide yet. Empty since the
# generics work (issue 13 part 2) typed untyped lambda parameters from the
# target functional interface (res.more.Functional.streams -> Item.label()).
KNOWN_ONLY_JDT: set = set()


def _projects():
    return [
        ("qare-example", QARE_EXAMPLE, "lang3"),
        ("resolution", RESOLUTION, "acme"),
        ("chains", CHAINS, "lang3"),
        ("multimodule", MULTIMODULE, "lang3"),
        ("gradle-app", GRADLE_APP, "lang3"),
        ("plain", PLAIN, ""),
        ("modern", MODERN, ""),
        ("bad-input", BAD_INPUT, ""),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name,root,cp", _projects(), ids=[p[0] for p in _projects()])
def test_both_resolvers_agree_on_fixture_edges(name, root, cp, xc, jdt_of, graph_of, request):
    """Every `exact` edge of qare (the edges the fixture tests assert, and more) is an
    edge of the JDT graph with the same call-site lines, every JDT edge is a qare
    edge, and the method nodes agree in id, lines and LOC."""
    classpath = {"lang3": [COMMONS_LANG3], "acme": [request.getfixturevalue("acme_jar")], "": []}[cp]
    pg = graph_of(root, classpath=classpath)
    jg = xc.build_jdt_graph(jdt_of(root, classpath), _index(classpath))
    qare_exact = _edges(pg.graph, ("exact",))
    jdt_edges = _edges(jg.graph)
    assert qare_exact - jdt_edges == set()
    qare_pairs = {(u, v) for u, v, _ in _edges(pg.graph, ("exact", "arity"))}
    only_jdt = {e for e in jdt_edges - qare_exact if (e[0], e[1]) not in qare_pairs}
    assert only_jdt == KNOWN_ONLY_JDT
    assert sorted(jg.methods()) == sorted(pg.methods())
    for mid in pg.methods():
        a, b = pg.method(mid), jg.method(mid)
        assert (a.file, a.start_line, a.end_line, a.loc) == (b.file, b.start_line, b.end_line, b.loc), mid
    assert all(d["resolution"] == "exact" for _, _, d in jg.graph.edges(data=True))


def test_jdt_graph_figure1(xc, jdt_of):
    """Q-ARE Figure 1 from JDT's bindings (docs/fixtures.md: lines 22–28, LOC 7, Javadoc;
    isBlank(CharSequence) at line 34, commons-lang3 3.12.0; depth 3, chain_loc 11)."""
    jg = xc.build_jdt_graph(jdt_of(QARE_EXAMPLE, [COMMONS_LANG3]), _index([COMMONS_LANG3]))
    pc = jg.method("com.acme.CommentService.processComment(java.lang.String)")
    assert (pc.start_line, pc.end_line, pc.loc) == (22, 28, 7)
    assert pc.comment.startswith("/**") and pc.comment.endswith("*/")
    g = jg.graph
    api = f"{SU}.isBlank(java.lang.CharSequence)"
    d = g.edges["com.acme.CommentService.isCommentEmpty(java.lang.String)", api]
    assert d == {"lines": [line_of(CS, "StringUtils.isBlank")], "resolution": "exact"}
    assert g.nodes[api]["third_party"] is True
    assert g.nodes[api]["library"] == "org.apache.commons:commons-lang3:3.12.0"
    assert g.nodes["java.util.List.add(java.lang.Object)"]["third_party"] is False
    (t,) = [t for t in jg.reach("com.acme.CommentService.processComment(java.lang.String)") if t.api.endswith("isBlank")]
    assert (t.depth, t.chain_loc, t.resolution) == (3, 11, "exact")


def _qare_example_sites():
    """The nine commons-lang3 call sites of qare-example's main sources, read off the source."""
    return {
        ("CommentService.java", line_of(CS, "StringUtils.isBlank"), f"{SU}.isBlank(java.lang.CharSequence)"),
        ("CommentService.java", line_of(CS, "StringUtils.join"), f"{SU}.join(java.lang.Iterable,java.lang.String)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.capitalize", 1), f"{SU}.capitalize(java.lang.String)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.capitalize", 2), f"{SU}.capitalize(java.lang.String)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.reverse", 1), f"{SU}.reverse(java.lang.String)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.reverse", 2), f"{SU}.reverse(java.lang.String)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.abbreviate", 1), f"{SU}.abbreviate(java.lang.String,int)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.abbreviate", 2), f"{SU}.abbreviate(java.lang.String,int)"),
        ("TitleFormatter.java", line_of(TF, "StringUtils.join"), f"{SU}.join(java.lang.Object[],char)"),
    }


def test_crosscheck_qare_example_agrees(xc, jdt_of, graph_of):
    jdt = jdt_of(QARE_EXAMPLE, [COMMONS_LANG3])
    third = {(c.file.rsplit("/", 1)[1], c.line, c.signature) for c in jdt.calls
             if c.callee_type.startswith("org.apache")}
    assert third == _qare_example_sites()
    rep = xc.crosscheck(graph_of(QARE_EXAMPLE, classpath=[COMMONS_LANG3]), jdt, _index([COMMONS_LANG3]))
    for level in ("name", "signature"):
        s = rep.score("all", level)
        assert (s.tp, s.fp, s.fn) == (9 if level == "signature" else 9, 0, 0)
    assert (rep.score("static", "signature").tp, rep.score("overload", "signature").tp) == (9, 4)
    assert rep.disagreements == ()
    assert rep.by_resolution == {"exact": (9, 9)}


def _plant(pg, caller, old, new):
    g = pg.graph.copy()
    d = g.edges[caller, old]
    g.remove_edge(caller, old)
    if new not in g:
        g.add_node(new, kind="api", third_party=True, file=None)
    g.add_edge(caller, new, **d)
    from callgraph import ProjectGraph

    return ProjectGraph(g, pg.summary, {m: pg.method(m) for m in pg.methods()}, pg.root)


def test_planted_disagreement_is_found(xc, jdt_of, graph_of):
    """qare's edge for one call site changed by hand: crosscheck reports that site."""
    jdt = jdt_of(QARE_EXAMPLE, [COMMONS_LANG3])
    pg = graph_of(QARE_EXAMPLE, classpath=[COMMONS_LANG3])
    caller = "com.acme.CommentService.isCommentEmpty(java.lang.String)"
    line = line_of(CS, "StringUtils.isBlank")
    right = f"{SU}.isBlank(java.lang.CharSequence)"
    idx = _index([COMMONS_LANG3])

    # wrong overload: same API name, another signature
    rep = xc.crosscheck(_plant(pg, caller, right, f"{SU}.isBlank(java.lang.String)"), jdt, idx)
    (d,) = rep.disagreements
    assert (d.file, d.line, d.name, d.level, d.jdt) == ("src/main/java/com/acme/CommentService.java", line,
                                                         "isBlank", "signature", (right,))
    assert d.qare == ({"api": f"{SU}.isBlank", "signature": f"{SU}.isBlank(java.lang.String)",
                       "resolution": "exact"},)
    assert (rep.score("all", "name").fp, rep.score("all", "signature").fp, rep.score("all", "signature").fn) == (0, 1, 1)

    # wrong method: name level (JDT's isBlank missed; qare's isEmpty has no JDT call of that name there)
    rep = xc.crosscheck(_plant(pg, caller, right, f"{SU}.isEmpty(java.lang.CharSequence)"), jdt, idx)
    got = {(d.line, d.name, d.level, d.categories) for d in rep.disagreements}
    assert got == {(line, "isBlank", "name", ("static", "type_receiver")),
                   (line, "isEmpty", "name", ("unmatched",))}
    s = rep.score("all", "name")
    assert (s.tp, s.fp, s.fn) == (8, 1, 1)

    # undecided overload (*): a hit at name level, a miss (not a false positive) at signature level
    rep = xc.crosscheck(_plant(pg, caller, right, f"{SU}.isBlank(*)"), jdt, idx)
    n, sg = rep.score("all", "name"), rep.score("all", "signature")
    assert (n.tp, n.fp, n.fn, sg.tp, sg.fp, sg.fn) == (9, 0, 0, 8, 0, 1)


def test_missing_jar_is_unjudgeable_not_truth(xc, jdt_of, graph_of):
    """Without commons-lang3 JDT has no binding for StringUtils calls: qare's nine
    `(*)` targets there are set apart, not counted as false positives."""
    rep = xc.crosscheck(graph_of(QARE_EXAMPLE), jdt_of(QARE_EXAMPLE), _index())
    assert rep.unjudgeable_qare_targets == 9
    assert rep.score("all", "name") == xc.Score("all", "name", 0, 0, 0)
    assert rep.judgements.get("nobinding", 0) >= 9


CATS_SRC = """\
package p;

import java.util.function.Supplier;
import org.apache.commons.lang3.mutable.MutableInt;
import org.apache.commons.lang3.tuple.ImmutablePair;
import org.apache.commons.lang3.tuple.Pair;
import org.apache.commons.lang3.StringUtils;

public class Cats extends MutableInt {
    MutableInt f = new MutableInt(1);

    Cats() {
        super(2);
    }

    void m(MutableInt p, ImmutablePair<String, MutableInt> ip) {
        MutableInt l = new MutableInt();
        l.increment();
        p.decrement();
        f.getValue();
        StringUtils.isBlank("x");
        Pair.of(l, "b").getLeft().add(3);
        ip.getKey();
        Supplier<MutableInt> s = MutableInt::new;
        Runnable r = () -> l.subtract(1);
        super.setValue(4);
        this.toInteger();
        missing.Type.call();
    }
}
"""


def test_call_site_categories_from_jdt(xc, jdt_of, tmp_path):
    """Each line of Cats.java exercises one category; the expected sets are by hand
    (commons-lang3 3.12: MutableInt has 3 constructors and overloaded add/subtract/setValue;
    ImmutablePair.getKey() is declared in Pair; Pair.getLeft() returns L)."""
    src = tmp_path / "cats" / "src" / "main" / "java" / "p" / "Cats.java"
    src.parent.mkdir(parents=True)
    src.write_text(CATS_SRC)
    jdt = jdt_of(tmp_path / "cats", [COMMONS_LANG3])
    by_line = {}
    for c in jdt.calls:
        by_line.setdefault((c.line, c.callee_name), (c.categories, c.judgement.value, c.enclosing))
    m = "p.Cats.m(org.apache.commons.lang3.mutable.MutableInt,org.apache.commons.lang3.tuple.ImmutablePair)"
    ctor = "p.Cats.<init>()"
    ln = lambda s: line_of(src, s)  # noqa: E731
    expected = {
        (ln("MutableInt f ="), "<init>"): ({"constructor", "overload"}, "ok", (ctor,)),
        (ln("super(2)"), "<init>"): ({"super", "overload"}, "ok", (ctor,)),
        (ln("MutableInt l ="), "<init>"): ({"constructor", "overload"}, "ok", (m,)),
        (ln("l.increment()"), "increment"): ({"local_receiver"}, "ok", (m,)),
        (ln("p.decrement()"), "decrement"): ({"parameter_receiver"}, "ok", (m,)),
        (ln("f.getValue()"), "getValue"): ({"field_receiver"}, "ok", (m,)),
        (ln("StringUtils.isBlank"), "isBlank"): ({"static", "type_receiver"}, "ok", (m,)),
        (ln("Pair.of(l"), "of"): ({"static", "type_receiver", "overload"}, "ok", (m,)),
        (ln("Pair.of(l"), "getLeft"): ({"chained"}, "ok", (m,)),
        (ln("Pair.of(l"), "add"): ({"chained", "generic_return", "overload"}, "ok", (m,)),
        (ln("ip.getKey()"), "getKey"): ({"parameter_receiver", "inherited"}, "ok", (m,)),
        (ln("MutableInt::new"), "<init>"): ({"method_ref", "overload"}, "ok", (m,)),
        (ln("l.subtract(1)"), "subtract"): ({"local_receiver", "lambda_body", "overload"}, "ok", (m,)),
        (ln("super.setValue"), "setValue"): ({"super", "overload"}, "ok", (m,)),
        (ln("this.toInteger()"), "toInteger"): ({"this_receiver", "inherited"}, "ok", (m,)),
        (ln("missing.Type.call()"), "call"): (set(), "nobinding", (m,)),
    }
    got = {k: (set(v[0]), v[1], v[2]) for k, v in by_line.items() if k in expected}
    assert got == expected
    (unbound,) = [c for c in jdt.calls if c.line == ln("missing.Type.call()")]
    assert (unbound.callee_type, unbound.params, unbound.judgement.judgeable) == ("", (), False)


# --- command line -------------------------------------------------------------------------

def _cli():
    from qare.cli import main

    return main


def test_cli_crosscheck_table_and_jsonl(xc, tmp_path):
    out = tmp_path / "dis.jsonl"
    r = CliRunner().invoke(_cli(), ["crosscheck", str(QARE_EXAMPLE), "--classpath", str(COMMONS_LANG3),
                                    "--no-auto-classpath", "--quiet", "--out", str(out)])
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if line.startswith("all "))
    assert row.split()[1:5] == ["100.0"] * 4
    assert out.read_text() == ""
    r = CliRunner().invoke(_cli(), ["crosscheck", str(QARE_EXAMPLE), "--no-auto-classpath", "--quiet",
                                    "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output[r.output.index("{"):])
    assert data["unjudgeable_qare_targets"] == 9 and data["jdt_version"] == xc.JDT_VERSION


def test_cli_graph_resolver_jdt(xc, tmp_path):
    out = tmp_path / "g.json"
    r = CliRunner().invoke(_cli(), ["graph", str(QARE_EXAMPLE), "--resolver", "jdt", "--classpath",
                                    str(COMMONS_LANG3), "--no-auto-classpath", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    edges = {(e["source"], e["target"]): e for e in data["edges"]}
    e = edges[("com.acme.CommentService.isCommentEmpty(java.lang.String)", f"{SU}.isBlank(java.lang.CharSequence)")]
    assert (e["lines"], e["resolution"]) == ([line_of(CS, "StringUtils.isBlank")], "exact")
    r = CliRunner().invoke(_cli(), ["graph", str(QARE_EXAMPLE), "--resolver", "jdt", "--loc", "code"])
    assert r.exit_code == 2


def test_cli_crosscheck_without_jdt_is_fatal(monkeypatch):
    """JDT unavailable (no jpype, Maven Central unreachable): exit 4 with the reason; runs without JDT."""
    from callgraph import _jdt

    def unavailable(_home):
        raise _jdt.JdtUnavailableError("jpype1 is not installed (pip install 'qare[jdt]')")

    monkeypatch.setattr(_jdt, "_worker", unavailable)
    r = CliRunner().invoke(_cli(), ["crosscheck", str(QARE_EXAMPLE), "--no-auto-classpath", "--quiet"])
    assert r.exit_code == 4
    assert "jpype1 is not installed" in r.output


def test_cli_crosscheck_no_input(tmp_path):
    r = CliRunner().invoke(_cli(), ["crosscheck", str(tmp_path / "nothing"), "--quiet"])
    assert r.exit_code == 3


def test_jvm_is_not_in_this_process_and_fork_stays_safe(xc, jdt_of, tmp_path):
    """A JVM in the test process would hang the first forked pool worker that
    collects a Java proxy: after JDT ran, qare's 2-process build still finishes."""
    import sys

    import callgraph

    jdt_of(QARE_EXAMPLE, [COMMONS_LANG3])
    assert "jpype" not in sys.modules or not sys.modules["jpype"].isJVMStarted()
    for i in range(20):  # > 16 files: the fork pool is used
        (tmp_path / f"F{i}.java").write_text(f"class F{i} {{ void m() {{ String.valueOf({i}); }} }}\n")
    pg = callgraph.build_project_graph(tmp_path, jobs=2)
    assert pg.summary.files == 20


def test_relative_project_and_classpath_paths(xc, monkeypatch):
    """JDT runs in another process and folder: relative paths must still reach it."""
    monkeypatch.chdir(QARE_EXAMPLE.parent)
    jdt = xc.run_jdt(QARE_EXAMPLE.name, [COMMONS_LANG3])
    assert jdt.failed == ()
    assert {c.signature for c in jdt.calls if c.callee_name == "isBlank"} == {f"{SU}.isBlank(java.lang.CharSequence)"}


def test_fetch_jdt_lists_jdt_core(xc):
    jars = xc.fetch_jdt()
    names = {j.name for j in jars}
    assert f"org.eclipse.jdt.core-{xc.JDT_VERSION}.jar" in names
    from callgraph._jdt import maven_repository

    assert all(str(j).startswith(str(maven_repository())) for j in jars)
