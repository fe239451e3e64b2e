"""Q-ARE Figure 1 (``processComment → isCommentEmpty → StringUtils.isBlank``) and
chain tie-breaks, on ``fixtures/java/qare-example``.

All numbers are worked out by hand from the fixture's physical lines
(see docs/fixtures.md): LOC counts the declaration's lines including
annotations and modifiers, excluding the doc comment before it.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction

import networkx as nx
import pytest
from click.testing import CliRunner

from cg_fixture_support import COMMONS_LANG3_GAV, QARE_EXAMPLE, out_edges, targets_by_api

CS = "com.acme.CommentService"
PROCESS = f"{CS}.processComment(java.lang.String)"
EMPTY = f"{CS}.isCommentEmpty(java.lang.String)"
COUNT = f"{CS}.count()"
SUMMARY = f"{CS}.summary()"
TF = "com.acme.TitleFormatter"
TEST_MAIN = "com.acme.CommentServiceTest.main(java.lang.String[])"
SU = "org.apache.commons.lang3.StringUtils"
IS_BLANK = f"{SU}.isBlank(java.lang.CharSequence)"
CS_FILE = "src/main/java/com/acme/CommentService.java"
TF_FILE = "src/main/java/com/acme/TitleFormatter.java"
TEST_FILE = "src/test/java/com/acme/CommentServiceTest.java"

DECLARED = {
    PROCESS, EMPTY, COUNT, SUMMARY,
    f"{TF}.title(java.lang.String)", f"{TF}.viaShort(java.lang.String)", f"{TF}.viaLong(java.lang.String)",
    f"{TF}.mirror(java.lang.String)", f"{TF}.beta(java.lang.String)", f"{TF}.alpha(java.lang.String)",
    f"{TF}.shorten(java.lang.String)", f"{TF}.helperAbbrev(java.lang.String)", f"{TF}.joined(java.lang.String[])",
    TEST_MAIN,
}
IMPLICIT_CTORS = {f"{CS}.<init>()", f"{TF}.<init>()", "com.acme.CommentServiceTest.<init>()"}


@pytest.fixture(scope="module")
def pg(graph_of, commons_lang3):
    return graph_of(QARE_EXAMPLE, classpath=[commons_lang3])


@pytest.fixture(scope="module")
def no_dep_project(tmp_path_factory):
    """qare-example with the commons-lang3 dependency removed from its pom, so no
    classpath can be discovered for it (Debian's /usr/share/maven-repo has the jar)."""
    root = tmp_path_factory.mktemp("qare-nodep") / "qare-example"
    shutil.copytree(QARE_EXAMPLE, root)
    pom = (root / "pom.xml").read_text()
    start, end = pom.index("  <dependencies>"), pom.index("</dependencies>") + len("</dependencies>\n")
    (root / "pom.xml").write_text(pom[:start] + pom[end:])
    return root


@pytest.fixture(scope="module")
def pg_nocp(graph_of, no_dep_project):
    return graph_of(no_dep_project)


# --- methods and node attributes -------------------------------------------------


def test_methods_are_the_declared_ones(pg):
    ids = set(pg.methods())
    assert DECLARED <= ids
    assert ids - DECLARED <= IMPLICIT_CTORS


@pytest.mark.parametrize(
    "mid, file, start, end, loc, source_set",
    [
        (PROCESS, CS_FILE, 22, 28, 7, "main"),
        (EMPTY, CS_FILE, 32, 35, 4, "main"),  # starts at @SuppressWarnings, after the // comment
        (COUNT, CS_FILE, 38, 38, 1, "main"),
        (SUMMARY, CS_FILE, 41, 46, 6, "main"),
        (f"{TF}.viaShort(java.lang.String)", TF_FILE, 14, 14, 1, "main"),
        (f"{TF}.viaLong(java.lang.String)", TF_FILE, 17, 20, 4, "main"),
        (TEST_MAIN, TEST_FILE, 7, 13, 7, "test"),
    ],
)
def test_method_info_and_node_attributes(pg, mid, file, start, end, loc, source_set):
    info = pg.method(mid)
    assert (info.id, info.file, info.start_line, info.end_line, info.loc, info.source_set) == (
        mid, file, start, end, loc, source_set,
    )
    node = pg.graph.nodes[mid]
    assert node["kind"] == "method"
    assert (node["file"], node["start_line"], node["end_line"], node["loc"]) == (file, start, end, loc)
    assert node["source_set"] == source_set
    assert not node["third_party"]
    assert node["library"] is None


def test_comments_javadoc_and_line_comments(pg):
    javadoc = pg.method(PROCESS).comment
    assert javadoc.startswith("/**") and javadoc.rstrip().endswith("*/")
    assert "Processes a user comment: empty comments are rejected," in javadoc
    assert "@return whether the comment was stored" in javadoc
    assert pg.graph.nodes[PROCESS]["comment"] == javadoc
    line = pg.method(EMPTY).comment
    assert line.lstrip().startswith("//")
    first = line.index("Checks whether a comment is empty.")
    assert line.index("A comment of whitespace only counts as empty.") > first
    assert "/*" not in line
    assert pg.method(f"{TF}.viaShort(java.lang.String)").comment.strip() == "/* Capitalizes in one line. */"
    assert pg.method(COUNT).comment.strip() == "/** Returns how many comments were stored. */"
    assert pg.method(f"{TF}.beta(java.lang.String)").comment is None


def test_api_node_attributes(pg):
    g = pg.graph
    api = g.nodes[IS_BLANK]
    assert api["kind"] == "api"
    assert api["third_party"] is True
    assert api["library"] == COMMONS_LANG3_GAV
    jdk = g.nodes["java.util.List.add(java.lang.Object)"]
    assert jdk["kind"] == "api"
    assert jdk["third_party"] is False
    assert jdk["library"] is None


def test_loc_mode_code(graph_of, commons_lang3):
    pgc = graph_of(QARE_EXAMPLE, classpath=[commons_lang3], loc_mode="code")
    # summary(): 6 physical lines, of which one is a // comment and one is blank
    assert pgc.method(SUMMARY).loc == 4
    assert pgc.method(PROCESS).loc == 7
    assert pgc.method(EMPTY).loc == 4  # the annotation line is code


# --- edges ---------------------------------------------------------------------------


def test_edges_with_classpath(pg):
    assert out_edges(pg, PROCESS) == {
        (EMPTY, "exact", (23,)),
        ("java.util.List.add(java.lang.Object)", "exact", (26,)),
    }
    assert out_edges(pg, EMPTY) == {(IS_BLANK, "exact", (34,))}
    assert out_edges(pg, COUNT) == {("java.util.List.size()", "exact", (38,))}
    assert out_edges(pg, SUMMARY) == {
        (COUNT, "exact", (44,)),
        # List<String> → join(Iterable<?>, String) in phase 1; join(T...) needs varargs
        (f"{SU}.join(java.lang.Iterable,java.lang.String)", "exact", (45,)),
    }
    # String[] and char: join(Object[], char)
    assert out_edges(pg, f"{TF}.joined(java.lang.String[])") == {(f"{SU}.join(java.lang.Object[],char)", "exact", (43,))}
    assert out_edges(pg, f"{CS}.<init>()") == {("java.util.ArrayList.<init>()", "exact", (13,))}


def test_edges_of_test_main(pg):
    assert out_edges(pg, TEST_MAIN) == {
        (f"{CS}.<init>()", "exact", (8,)),
        (PROCESS, "exact", (9,)),
        (COUNT, "exact", (10,)),
        # AssertionError(String) is private: the accessible AssertionError(Object) is chosen
        ("java.lang.AssertionError.<init>(java.lang.Object)", "exact", (11,)),
    }


def test_edges_without_classpath(pg_nocp):
    assert out_edges(pg_nocp, EMPTY) == {(f"{SU}.isBlank(*)", "arity", (34,))}
    assert out_edges(pg_nocp, PROCESS) == {
        (EMPTY, "exact", (23,)),
        ("java.util.List.add(java.lang.Object)", "exact", (26,)),
    }
    assert out_edges(pg_nocp, f"{TF}.joined(java.lang.String[])") == {(f"{SU}.join(*)", "arity", (43,))}
    assert out_edges(pg_nocp, SUMMARY) == {(COUNT, "exact", (44,)), (f"{SU}.join(*)", "arity", (45,))}
    node = pg_nocp.graph.nodes[f"{SU}.isBlank(*)"]
    assert node["kind"] == "api" and node["third_party"] is True and node["library"] is None
    assert IS_BLANK not in pg_nocp.graph


# --- reach: depth, chain, chain_loc, density --------------------------------------


def _one(targets):
    assert len(targets) == 1, targets
    return targets[0]


def test_figure1_from_process_comment(pg):
    t = _one(pg.reach(PROCESS))
    assert t.api == f"{SU}.isBlank"
    assert t.signature == IS_BLANK
    assert t.class_ == SU
    assert t.library == COMMONS_LANG3_GAV
    assert t.depth == 3
    assert t.chain == (PROCESS, EMPTY, IS_BLANK)
    assert t.chain_loc == 7 + 4
    assert t.density == pytest.approx(float(Fraction(1, 11)))
    assert t.resolution == "exact"
    assert t.call_sites == ((CS_FILE, 23), (CS_FILE, 34))
    from queries.schema import TargetRecord

    assert TargetRecord.from_dict(t.to_dict()).to_dict() == t.to_dict()
    assert t.to_dict() == {
        "api": f"{SU}.isBlank",
        "signature": IS_BLANK,
        "class": SU,
        "library": COMMONS_LANG3_GAV,
        "depth": 3,
        "chain": [PROCESS, EMPTY, IS_BLANK],
        "chain_loc": 11,
        "density": pytest.approx(1 / 11),
        "resolution": "exact",
        "call_sites": [{"file": CS_FILE, "line": 23}, {"file": CS_FILE, "line": 34}],
    }


def test_figure1_from_is_comment_empty(pg):
    t = _one(pg.reach(EMPTY))
    assert (t.depth, t.chain, t.chain_loc, t.resolution) == (2, (EMPTY, IS_BLANK), 4, "exact")
    assert t.density == pytest.approx(0.25)
    assert t.call_sites == ((CS_FILE, 34),)


def test_figure1_without_classpath(pg_nocp):
    t = _one(pg_nocp.reach(PROCESS))
    assert t.api == f"{SU}.isBlank"
    assert t.signature is None
    assert t.class_ == SU
    assert t.library is None
    assert (t.depth, t.chain, t.chain_loc) == (3, (PROCESS, EMPTY, f"{SU}.isBlank(*)"), 11)
    assert t.density == pytest.approx(1 / 11)
    assert t.resolution == "arity"


def test_depth_four_from_test_source_set(pg):
    t = _one(pg.reach(TEST_MAIN))
    assert t.chain == (TEST_MAIN, PROCESS, EMPTY, IS_BLANK)
    assert (t.depth, t.chain_loc) == (4, 7 + 7 + 4)
    assert t.density == pytest.approx(1 / 18)
    assert t.call_sites == ((TEST_FILE, 9), (CS_FILE, 23), (CS_FILE, 34))


def test_max_depth(pg):
    assert pg.reach(TEST_MAIN, max_depth=3) == []
    assert len(pg.reach(TEST_MAIN, max_depth=4)) == 1
    assert pg.reach(PROCESS, max_depth=2) == []
    assert _one(pg.reach(PROCESS, max_depth=3)).depth == 3


def test_no_targets_for_jdk_only_methods(pg):
    assert pg.reach(COUNT) == []  # List.size() is a JDK API, not a target


def test_tie_smallest_chain_loc(pg):
    title = f"{TF}.title(java.lang.String)"
    t = _one(pg.reach(title))
    # both helpers give depth 3; viaShort (1 line) beats viaLong (4 lines)
    assert t.chain == (title, f"{TF}.viaShort(java.lang.String)", f"{SU}.capitalize(java.lang.String)")
    assert (t.depth, t.chain_loc) == (3, 3 + 1)
    assert t.density == pytest.approx(0.25)
    assert t.call_sites == ((TF_FILE, 10), (TF_FILE, 14))


def test_tie_lexicographic(pg):
    mirror = f"{TF}.mirror(java.lang.String)"
    t = _one(pg.reach(mirror))
    # beta and alpha are both one line: the lexicographically smaller id list wins
    assert t.chain == (mirror, f"{TF}.alpha(java.lang.String)", f"{SU}.reverse(java.lang.String)")
    assert (t.depth, t.chain_loc) == (3, 4)


def test_direct_call_beats_longer_chain(pg):
    shorten = f"{TF}.shorten(java.lang.String)"
    by = targets_by_api(pg.reach(shorten))
    assert set(by) == {f"{SU}.abbreviate(java.lang.String,int)", f"{SU}.reverse(java.lang.String)"}
    ab = by[f"{SU}.abbreviate(java.lang.String,int)"]
    assert (ab.depth, ab.chain, ab.chain_loc) == (2, (shorten, f"{SU}.abbreviate(java.lang.String,int)"), 4)
    rev = by[f"{SU}.reverse(java.lang.String)"]
    assert (rev.depth, rev.chain_loc) == (3, 4 + 1)
    assert rev.chain == (shorten, f"{TF}.alpha(java.lang.String)", f"{SU}.reverse(java.lang.String)")


def test_find_methods(pg):
    assert pg.find_methods(PROCESS) == [PROCESS]
    assert pg.find_methods("CommentService.processComment") == [PROCESS]
    assert pg.find_methods("com.acme.CommentService.processComment") == [PROCESS]
    assert pg.find_methods("isCommentEmpty") == [EMPTY]
    assert pg.find_methods("noSuchMethod") == []


# --- command line ----------------------------------------------------------------


def _cli(command: str = "chain"):
    from qare.cli import main

    assert command in main.commands, f"`qare {command}` missing"
    return main


def test_cli_chain_json_equals_reach(pg, commons_lang3):
    res = CliRunner().invoke(
        _cli(),
        ["chain", str(QARE_EXAMPLE), "CommentService.processComment", "--format", "json",
         "--classpath", str(commons_lang3)],
    )
    assert res.exit_code == 0, res.output
    records = json.loads(res.stdout)
    assert records == [t.to_dict() for t in pg.reach(PROCESS)]
    assert records[0]["depth"] == 3 and records[0]["chain_loc"] == 11


def test_cli_chain_tree_mentions_chain_and_call_sites(commons_lang3):
    res = CliRunner().invoke(
        _cli(), ["chain", str(QARE_EXAMPLE), PROCESS, "--classpath", str(commons_lang3)]
    )
    assert res.exit_code == 0, res.output
    for text in (IS_BLANK, "isCommentEmpty", f"{CS_FILE}:23", f"{CS_FILE}:34"):
        assert text in res.output


def test_cli_chain_unknown_method(pg):
    res = CliRunner().invoke(_cli(), ["chain", str(QARE_EXAMPLE), "noSuchMethod"])
    assert res.exit_code != 0


def test_cli_graph_json_round_trips(pg, commons_lang3, tmp_path):
    out = tmp_path / "g.json"
    res = CliRunner().invoke(
        _cli("graph"), ["graph", str(QARE_EXAMPLE), "--out", str(out), "--classpath", str(commons_lang3)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    key = "edges" if "edges" in data else "links"
    g = nx.node_link_graph(data, edges=key)
    assert isinstance(g, nx.DiGraph)
    assert dict(g.nodes(data=True)) == dict(pg.graph.nodes(data=True))
    assert {(u, v): d for u, v, d in g.edges(data=True)} == {(u, v): d for u, v, d in pg.graph.edges(data=True)}
    assert g.nodes[PROCESS]["file"] == CS_FILE
    assert g.edges[PROCESS, EMPTY]["lines"] == [23]
    # the summary is printed
    assert "exact" in res.output


def test_without_a_jdk_ids_are_unchanged_and_jdk_calls_are_not_exact(graph_of, commons_lang3, pg):
    nojdk = graph_of(QARE_EXAMPLE, classpath=[commons_lang3], jdk=None)
    assert set(nojdk.methods()) == set(pg.methods())
    edges = out_edges(nojdk, PROCESS)
    assert (EMPTY, "exact", (23,)) in edges
    # List.add: the receiver type is decided by the import, its declaration is unknown
    assert not [e for e in edges if e[0].startswith("java.") and e[1] == "exact"]
    assert {e[0] for e in edges} - {EMPTY} <= {"java.util.List.add(*)"}


def test_summary_counts_by_hand(pg, pg_nocp):
    # methods: 4 + 9 + 1 declared, plus the 3 implicit constructors
    # call sites: CommentService 7 (incl. the field initializer), TitleFormatter 13, the test 4
    s = pg.summary
    assert (s.files, s.methods, s.call_sites, s.unresolved) == (3, 17, 24, 0)
    assert {k: v for k, v in s.resolved.items() if v} == {"exact": 24}
    # without commons-lang3: its 9 call sites become arity edges to (*) nodes
    s = pg_nocp.summary
    assert (s.files, s.methods, s.call_sites, s.unresolved) == (3, 17, 24, 0)
    assert {k: v for k, v in s.resolved.items() if v} == {"exact": 15, "arity": 9}


def test_cli_graph_prints_the_summary(commons_lang3):
    res = CliRunner().invoke(_cli("graph"), ["graph", str(QARE_EXAMPLE), "--quiet", "--classpath", str(commons_lang3)])
    assert res.exit_code == 0, res.output
    for text in ("files: 3", "methods: 17", "call sites: 24", "exact: 24", "unresolved: 0"):
        assert text in res.output
