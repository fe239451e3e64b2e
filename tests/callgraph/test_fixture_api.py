"""ProjectGraph API and CLI details on the fixtures: name lookup, `name` edges and
include_unresolved, determinism across jobs and the facts cache, the CLI's
ambiguity handling, --max-depth, --dispatch and the GraphML/DOT outputs."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from click.testing import CliRunner

from cg_fixture_support import QARE_EXAMPLE, RESOLUTION, only_line

LIB = RESOLUTION / "src/main/java/res/lib/LibCalls.java"
FETCH = "res.lib.LibCalls.fetch(java.lang.String)"


def _snapshot(g):
    return dict(g.nodes(data=True)), {(u, v): d for u, v, d in g.edges(data=True)}


def test_find_methods_forms_and_ambiguity(graph_of, acme_jar):
    pg = graph_of(RESOLUTION, classpath=[acme_jar])
    # (the anonymous Runnable in Lambdas.enclosing() is not a method of its own)
    assert sorted(pg.find_methods("run")) == ["res.Gadget.run()", "res.Item.run()", "res.more.JdkTypes.Job.run()"]
    assert pg.find_methods("Item.run") == ["res.Item.run()"]
    assert pg.find_methods("res.Item.run") == ["res.Item.run()"]
    assert sorted(pg.find_methods("Overloads.f")) == [
        "res.Overloads.f(int)", "res.Overloads.f(java.lang.Object)", "res.Overloads.f(long)",
    ]
    assert pg.find_methods("res.Overloads.h(int...)") == ["res.Overloads.h(int...)"]
    assert pg.find_methods("Inner.Deeper.deep") == ["res.Outer.Inner.Deeper.deep(java.lang.String)"]


def test_include_unresolved_follows_name_edges(graph_of):
    # without the acme jar, `.build()` on an unknown receiver is matched by name only
    # to the project's LibCalls.build(); that chain appears only with include_unresolved
    pg = graph_of(RESOLUTION)
    build = "res.lib.LibCalls.build()"
    d = pg.graph.get_edge_data(FETCH, build)
    assert d == {"lines": [only_line(LIB, "HttpClient.newBuilder()")], "resolution": "name"}
    default = {t.api for t in pg.reach(FETCH)}
    assert default == {"org.acme.http.HttpClient.newBuilder", "org.acme.http.Request.get"}
    full = {t.api: t for t in pg.reach(FETCH, include_unresolved=True)}
    assert set(full) == default | {"org.acme.text.Texts.builder", "org.acme.text.TextBuilder.append"}
    t = full["org.acme.text.Texts.builder"]
    assert t.chain == (FETCH, build, "org.acme.text.Texts.builder(*)")
    assert (t.depth, t.chain_loc, t.resolution) == (3, 3 + 4, "name")
    assert t.call_sites == (("src/main/java/res/lib/LibCalls.java", 14), ("src/main/java/res/lib/LibCalls.java", 18))
    assert full["org.acme.http.Request.get"].resolution == "arity"


def test_jobs_and_cache_give_the_same_graph(graph_of, acme_jar, tmp_path):
    one = graph_of(RESOLUTION, classpath=[acme_jar])
    two = graph_of(RESOLUTION, classpath=[acme_jar], jobs=2)
    assert _snapshot(two.graph) == _snapshot(one.graph)
    cache = tmp_path / "facts.sqlite"
    import callgraph

    first = callgraph.build_project_graph(RESOLUTION, classpath=[acme_jar], cache=cache)
    assert cache.is_file()
    again = callgraph.build_project_graph(RESOLUTION, classpath=[acme_jar], cache=cache)
    assert _snapshot(first.graph) == _snapshot(one.graph)
    assert _snapshot(again.graph) == _snapshot(one.graph)


def _main():
    from qare.cli import main

    return main


def test_cli_chain_ambiguous_lists_candidates():
    res = CliRunner().invoke(_main(), ["chain", str(RESOLUTION), "run", "--quiet"])
    assert res.exit_code not in (0, 1)
    assert "res.Item.run()" in res.output and "res.Gadget.run()" in res.output
    assert "Traceback" not in res.output


def test_cli_chain_max_depth_and_dispatch(acme_jar):
    base = ["chain", str(RESOLUTION), "Dispatch.onClass", "--format", "json", "--quiet", "--classpath", str(acme_jar)]
    res = CliRunner().invoke(_main(), base)
    assert res.exit_code == 0, res.output
    assert sorted(r["signature"] for r in json.loads(res.stdout)) == [
        "org.acme.text.Texts.repeat(java.lang.String,int)", "org.acme.text.Texts.upper(java.lang.String)",
    ]
    res = CliRunner().invoke(_main(), base + ["--dispatch", "declared"])
    assert [r["signature"] for r in json.loads(res.stdout)] == ["org.acme.text.Texts.upper(java.lang.String)"]
    res = CliRunner().invoke(_main(), base + ["--max-depth", "2"])
    assert res.exit_code == 0 and json.loads(res.stdout) == []


def test_cli_chain_loc_code(commons_lang3):
    res = CliRunner().invoke(
        _main(),
        ["chain", str(QARE_EXAMPLE), "CommentService.summary", "--format", "json", "--loc", "code",
         "--quiet", "--classpath", str(commons_lang3)],
    )
    assert res.exit_code == 0, res.output
    (rec,) = json.loads(res.stdout)
    assert rec["signature"] == "org.apache.commons.lang3.StringUtils.join(java.lang.Iterable,java.lang.String)"
    assert (rec["depth"], rec["chain_loc"]) == (2, 4)  # 6 physical lines, 4 code lines
    assert rec["density"] == pytest.approx(0.25)


@pytest.mark.parametrize("suffix", [
    ".graphml",
    ".dot",  # pydot is a dependency (pyproject.toml)
])
def test_cli_graph_other_formats(tmp_path, commons_lang3, graph_of, suffix):
    out = tmp_path / f"g{suffix}"
    res = CliRunner().invoke(
        _main(), ["graph", str(QARE_EXAMPLE), "--out", str(out), "--quiet", "--classpath", str(commons_lang3)]
    )
    assert res.exit_code == 0, res.output
    text = out.read_text()
    pg = graph_of(QARE_EXAMPLE, classpath=[commons_lang3])
    if suffix == ".graphml":
        g = nx.read_graphml(out)
        assert set(g.nodes) == set(pg.graph.nodes)
        assert set(g.edges) == set(pg.graph.edges)
        proc = "com.acme.CommentService.processComment(java.lang.String)"
        assert g.nodes[proc]["file"] == "src/main/java/com/acme/CommentService.java"
        assert int(g.nodes[proc]["loc"]) == 7
    else:
        assert text.lstrip().startswith(("digraph", "strict digraph"))
        assert "isCommentEmpty" in text


def test_cli_chain_auto_classpath_finds_commons_lang3():
    # qare-example's pom declares commons-lang3 3.12.0; Debian's /usr/share/maven-repo has it
    res = CliRunner().invoke(
        _main(),
        ["chain", str(QARE_EXAMPLE), "processComment", "--format", "json", "--quiet", "--auto-classpath"],
    )
    assert res.exit_code == 0, res.output
    (rec,) = json.loads(res.stdout)
    assert rec["signature"] == "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)"
    assert rec["library"] == "org.apache.commons:commons-lang3:3.12.0"
    assert (rec["depth"], rec["chain_loc"], rec["resolution"]) == (3, 11, "exact")


def test_cli_chain_without_classpath_prints_the_arity_target():
    res = CliRunner().invoke(
        _main(), ["chain", str(QARE_EXAMPLE), "isCommentEmpty", "--format", "json", "--quiet",
         "--no-auto-classpath"]
    )
    assert res.exit_code == 0, res.output
    (rec,) = json.loads(res.stdout)
    assert rec == {
        "api": "org.apache.commons.lang3.StringUtils.isBlank",
        "signature": None,
        "class": "org.apache.commons.lang3.StringUtils",
        "library": None,
        "depth": 2,
        "chain": ["com.acme.CommentService.isCommentEmpty(java.lang.String)", "org.apache.commons.lang3.StringUtils.isBlank(*)"],
        "chain_loc": 4,
        "density": 0.25,
        "resolution": "arity",
        "call_sites": [{"file": "src/main/java/com/acme/CommentService.java", "line": 34}],
    }


CODE_LOC_SRC = """package c;

class C {

    /** Doc, not counted. */
    @Deprecated
    int f() {
        /* a block comment
           over two lines */
        int a = 1; // trailing comment: still a code line

        /** a doc-like comment inside */
        String url = "http://not-a-comment";
        /* leading */ int b = 2;
        int c = 3; /* opens
        closes */ int d = 4;
        return a + b + c + d + url.length(); /* end */
    }
}
"""


@pytest.mark.parametrize("mode, loc", [("physical", 13), ("code", 9)])
def test_loc_modes_by_hand(graph_of, tmp_path, mode, loc):
    p = tmp_path / "src/main/java/c/C.java"
    p.parent.mkdir(parents=True)
    p.write_text(CODE_LOC_SRC)
    pg = graph_of(tmp_path, loc_mode=mode)
    info = pg.method("c.C.f()")
    assert (info.start_line, info.end_line) == (6, 18)
    # code lines (9): 6 @Deprecated, 7 int f() {, 10 int a, 13 String url, 14 int b,
    # 15 int c /* opens, 16 closes */ int d, 17 return, 18 }; comments 8, 9, 12; blank 11
    assert info.loc == loc


COMMENTS_SRC = """/*
 * License header.
 */
package k;

public class K {

    // Detached: a blank line follows.

    void detached() {
    }

    private int n; // trailing comment of the field
    void afterTrailing() {
    }

    void inner() {
        // inside the body
    }
    void afterBody() {
    }

    /** The doc. */
    @Override
    @SuppressWarnings("all")
    public String toString() {
        return "k";
    }

    /* block */
    void block() {
    }

    /** Javadoc first. */
    // then a line comment
    void both() {
    }
}
"""


@pytest.fixture(scope="module")
def comments_pg(graph_of, tmp_path_factory):
    root = tmp_path_factory.mktemp("comments")
    p = root / "src/main/java/k/K.java"
    p.parent.mkdir(parents=True)
    p.write_text(COMMENTS_SRC)
    return graph_of(root)


def test_comments_directly_above(comments_pg):
    c = {m.split("(")[0].rsplit(".", 1)[1]: comments_pg.method(m).comment for m in comments_pg.methods()}
    assert c["detached"] is None  # a blank line separates it
    assert c["inner"] is None  # the license header belongs to the file
    assert c["afterBody"] is None  # `// inside the body` is in inner()'s body
    assert c["toString"] == "/** The doc. */"  # above the annotations
    assert c["block"] == "/* block */"
    assert comments_pg.method("k.K.toString()").start_line == 24  # starts at @Override


def test_trailing_comment_of_the_previous_line_is_not_a_doc_comment(comments_pg):
    assert comments_pg.method("k.K.afterTrailing()").comment is None


def test_javadoc_before_a_line_comment_is_kept(comments_pg):
    assert "Javadoc first." in comments_pg.method("k.K.both()").comment


def test_reach_unknown_and_ambiguous_names(graph_of, acme_jar):
    from callgraph import UnknownMethodError

    pg = graph_of(RESOLUTION, classpath=[acme_jar])
    with pytest.raises(UnknownMethodError) as info:
        pg.reach("noSuchMethodAnywhere")
    assert info.value.candidates == []
    with pytest.raises(UnknownMethodError) as info:
        pg.reach("run")
    assert sorted(info.value.candidates) == ["res.Gadget.run()", "res.Item.run()", "res.more.JdkTypes.Job.run()"]
    # an unambiguous short form is accepted
    assert [t.signature for t in pg.reach("Display.show")] == [
        t.signature for t in pg.reach("res.cha.Display.show(res.cha.Renderer)")
    ]
