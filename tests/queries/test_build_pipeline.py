"""The build pipeline on call graphs written by hand but held in the real
``callgraph.ProjectGraph`` (real ``reach``, ``Target``, ``MethodInfo``), so the
builder's own logic — candidates, IQR, documentation filter, leaks, ids,
density, resume, failures, selection, files — is checked without parsing Java
(tests/queries/test_build_fixture.py and test_build_example.py build from the
Java fixtures themselves). The builder's dependencies come in as ``BuildDeps``."""

import json
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

import queries.build as qb
from callgraph import BuildSummary, ProjectGraph
from callgraph._index import MethodInfo
from queries.build import BuildDeps, BuildOptions, build_dataset, find_leaks, sample_id
from queries.projects import ProjectSpec, Selection
from queries.schema import ApiRecord, SampleRecord

# ---------------------------------------------------------------- a stand-in ProjectGraph



def FakeGraph(g):
    """The real ``callgraph.ProjectGraph`` (its ``reach``, ``Target`` and
    ``MethodInfo``) over a call graph written by hand: the builder sees
    exactly what ``build_project_graph`` hands it, without parsing Java."""
    infos = {}
    for n, d in g.nodes(data=True):
        if d["kind"] != "method":
            continue
        head, _, params = n.partition("(")
        cls, _, name = head.rpartition(".")
        infos[n] = MethodInfo(id=n, file=d["file"], start_line=d["start_line"], end_line=d["end_line"], loc=d["loc"],
                              comment=d.get("comment"), source_set=d["source_set"], declaring_type=cls, name=name,
                              params=tuple(p for p in params.rstrip(")").split(",") if p))
    summary = BuildSummary(files=len({i.file for i in infos.values()}), lines=0, methods=len(infos),
                           call_sites=g.number_of_edges(), resolved={}, unresolved=0, top_reasons=(), cha_edges=0,
                           parse_errors=(), decoded_with_fallback=(), skipped=())
    return ProjectGraph(g, summary, infos, root="/fake")


def m(g, mid, file, start, end, comment=None, source_set="main"):
    g.add_node(mid, kind="method", file=file, start_line=start, end_line=end, loc=end - start + 1,
               comment=comment, source_set=source_set, third_party=False)


def api(g, node, library="org.apache.commons:commons-lang3:3.12.0", third_party=True):
    g.add_node(node, kind="api", third_party=third_party, library=library if third_party else None)


SU = "org.apache.commons.lang3.StringUtils"
CS = "com.acme.CommentService"


def comment_service_graph():
    """The Q-ARE example (fixtures/java/qare-example CommentService) by hand."""
    g = nx.DiGraph()
    f = "src/main/java/com/acme/CommentService.java"
    m(g, f"{CS}.processComment(java.lang.String)", f, 22, 28,
      "/**\n * Processes a user comment: empty comments are rejected,\n * the others are stored.\n *\n * @param comment the comment text\n */")
    m(g, f"{CS}.isCommentEmpty(java.lang.String)", f, 32, 35,
      "/**\n * Checks whether a comment is empty.\n * A comment of whitespace only counts as empty.\n */")
    m(g, f"{CS}.count()", f, 38, 38, "/** Returns how many comments were stored. */")
    m(g, f"{CS}.summary()", f, 41, 46, "/** Describes the stored comments. */")
    m(g, f"{CS}.uncommented()", f, 48, 50)
    m(g, f"{CS}Test.testIt()", "src/test/java/com/acme/CommentServiceTest.java", 5, 9,
      "/** Tests trimming of a comment. */", source_set="test")
    api(g, f"{SU}.isBlank(java.lang.CharSequence)")
    api(g, f"{SU}.join(*)")
    api(g, "java.util.List.add(java.lang.Object)", third_party=False)
    api(g, f"{SU}.trim(java.lang.String)")
    g.add_edge(f"{CS}.processComment(java.lang.String)", f"{CS}.isCommentEmpty(java.lang.String)", lines=[23], resolution="exact")
    g.add_edge(f"{CS}.processComment(java.lang.String)", "java.util.List.add(java.lang.Object)", lines=[26], resolution="exact")
    g.add_edge(f"{CS}.isCommentEmpty(java.lang.String)", f"{SU}.isBlank(java.lang.CharSequence)", lines=[34], resolution="exact")
    g.add_edge(f"{CS}.summary()", f"{CS}.count()", lines=[44], resolution="exact")
    g.add_edge(f"{CS}.summary()", f"{SU}.join(*)", lines=[45], resolution="arity")
    g.add_edge(f"{CS}.uncommented()", f"{SU}.trim(java.lang.String)", lines=[49], resolution="exact")
    g.add_edge(f"{CS}Test.testIt()", f"{SU}.trim(java.lang.String)", lines=[7], resolution="exact")
    return FakeGraph(g)


@dataclass
class FakeDoc:
    d: dict

    def to_dict(self):
        return dict(self.d)


class FakeDocIndex:
    def __init__(self, docs):
        self.docs = {d["signature"]: FakeDoc(d) for d in docs}
        self.warnings = [("bad.jar", "not a zip file")]

    def get(self, sig):
        return self.docs.get(sig)

    def by_name(self, name):
        return [d for s, d in self.docs.items() if s.split("(", 1)[0] == name]


def doc(sig, text):
    return ApiRecord(api=sig.split("(")[0], signature=sig, class_=sig.split("(")[0].rsplit(".", 1)[0], library=None,
                     description=text, first_sentence=text, doc_source="sources").to_dict()


DOCS = [
    doc(f"{SU}.isBlank(java.lang.CharSequence)", "Checks if a CharSequence is empty, null or whitespace only."),
    doc(f"{SU}.join(java.lang.Iterable,java.lang.String)", "Joins the elements of an Iterable."),
    doc(f"{SU}.trim(java.lang.String)", "Removes control characters from both ends."),
]


# The builder's dependencies (queries.build.BuildDeps), as module-level functions so a
# process pool (fork) pickles them by name; GRAPHS/CALLS are filled by each test.
GRAPHS: dict = {}
CALLS: list = []
KILL = "os._exit"  # GRAPHS[name] = KILL: the worker dies as under the kernel's OOM killer


def fake_build_graph(root, classpath, opts, progress, **kw):
    CALLS.append(Path(root).name)
    g = GRAPHS[Path(root).name]
    if g == KILL:
        __import__("os")._exit(9)  # no exception, no cleanup
    if isinstance(g, Exception):
        raise g
    return g


def fake_discover_classpath(root, *args):
    return []


def fake_fetch_doc_jars(*args, **kw):
    from callgraph.classpath import DocFetch

    return DocFetch()


def fake_open_docs(paths):
    return FakeDocIndex(DOCS)


FAKE_DEPS = BuildDeps(build_graph=fake_build_graph, discover_classpath=fake_discover_classpath,
                      fetch_doc_jars=fake_fetch_doc_jars, open_docs=fake_open_docs)


def use_deps(monkeypatch, **changes):
    """Make the build (and ``qare build``) use FAKE_DEPS with ``changes``: the
    default dependencies are the one seam the CLI goes through."""
    from dataclasses import replace

    monkeypatch.setattr(qb, "DEFAULT_DEPS", replace(FAKE_DEPS, **changes))


@pytest.fixture
def fake_env(tmp_path, monkeypatch):
    """Project folders on disk (for selection) whose graphs come from ``graphs[name]``."""
    GRAPHS.clear()
    CALLS.clear()
    graphs, calls = GRAPHS, CALLS
    use_deps(monkeypatch)

    def project(name, *, tests=True, imports="org.apache.commons.lang3.StringUtils"):
        root = tmp_path / "projects" / name
        (root / "src/main/java/com/acme").mkdir(parents=True, exist_ok=True)
        (root / "src/main/java/com/acme/A.java").write_text(f"package com.acme;\nimport {imports};\nclass A {{}}\n")
        if tests:
            (root / "src/test/java/com/acme").mkdir(parents=True, exist_ok=True)
            (root / "src/test/java/com/acme/ATest.java").write_text("class ATest {}\n")
        return ProjectSpec(source=str(root), name=name, javadoc=(str(tmp_path / "docs"),))

    return graphs, calls, project


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- tests


def test_samples_targets_depth_density(fake_env, tmp_path):
    graphs, calls, project = fake_env
    graphs["svc"] = comment_service_graph()
    spec = project("svc")
    res = build_dataset([spec], tmp_path / "out", BuildOptions(api_count_range=(0, 10)), quiet=True)
    samples = [SampleRecord.from_dict(d) for d in read_jsonl(tmp_path / "out/samples.jsonl")]
    by_method = {s.method[len(CS) + 1:]: s for s in samples}
    # count() reaches nothing; the test method and uncommented() are not candidates
    assert sorted(by_method) == ["isCommentEmpty(java.lang.String)", "processComment(java.lang.String)", "summary()"]
    pc = by_method["processComment(java.lang.String)"]
    assert pc.query == "Processes a user comment: empty comments are rejected, the others are stored."
    assert pc.lang == "en"
    assert pc.n_direct_apis == 0  # List.add is JDK, isBlank is one level down
    assert [t.to_dict() for t in pc.targets] == [{
        "api": f"{SU}.isBlank", "signature": f"{SU}.isBlank(java.lang.CharSequence)", "class": SU,
        "library": "org.apache.commons:commons-lang3:3.12.0", "depth": 3,
        "chain": [f"{CS}.processComment(java.lang.String)", f"{CS}.isCommentEmpty(java.lang.String)",
                  f"{SU}.isBlank(java.lang.CharSequence)"],
        "chain_loc": 11, "density": 1 / 11, "resolution": "exact"}]
    assert (pc.depth_max, pc.depth_min, pc.density) == (3, 3, 1 / 11)
    assert (pc.file, pc.start_line, pc.end_line, pc.loc) == ("src/main/java/com/acme/CommentService.java", 22, 28, 7)
    assert pc.id == sample_id("svc", None, pc.method) == sample_id("svc", None, pc.method)
    assert len(pc.id) == 16
    ice = by_method["isCommentEmpty(java.lang.String)"]
    assert ice.query == "Checks whether a comment is empty. A comment of whitespace only counts as empty."
    assert (ice.n_direct_apis, ice.depth_max, ice.density) == (1, 2, 1 / 4)
    # summary(): count() is on no chain, so the union is summary() alone (6 lines)
    su = by_method["summary()"]
    assert [(t.api, t.signature, t.depth, t.resolution) for t in su.targets] == [(f"{SU}.join", None, 2, "arity")]
    assert su.density == 1 / 6
    # apis.jsonl: the (*) target joins its docs by name (its name's only documented overload;
    # several that differ attach none: test_build_comments_javadoc.py)
    apis = {a["api"]: ApiRecord.from_dict(a) for a in read_jsonl(tmp_path / "out/apis.jsonl")}
    assert sorted(apis) == [f"{SU}.isBlank", f"{SU}.join"]
    assert apis[f"{SU}.join"].signature is None
    assert apis[f"{SU}.join"].description == "Joins the elements of an Iterable."
    assert apis[f"{SU}.isBlank"].library == "org.apache.commons:commons-lang3:3.12.0"
    assert res.counts["samples"] == 3 and res.counts["apis"] == 2 and res.failed == 0
    proj = read_jsonl(tmp_path / "out/projects.jsonl")
    assert proj[0]["verdict"] == "kept" and proj[0]["counts"]["candidates"] == 4
    assert proj[0]["counts"]["samples"] == 3
    assert any("bad.jar" in w for w in proj[0]["warnings"])
    man = json.loads((tmp_path / "out/manifest.json").read_text())
    assert man["parameters"]["api_count_range"] == [0, 10]
    assert man["api_count_range"]["mode"] == "fixed"
    assert man["counts"]["samples"] == 3 and man["started"] <= man["ended"]


def test_include_tests_adds_test_methods(fake_env, tmp_path):
    graphs, _, project = fake_env
    graphs["svc"] = comment_service_graph()
    build_dataset([project("svc")], tmp_path / "out", BuildOptions(include_tests=True, api_count_range=(0, 9)), quiet=True)
    methods = {d["method"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert f"{CS}Test.testIt()" in methods


def fan_graph(counts):
    """One commented method per entry of ``counts`` calling that many distinct documented APIs."""
    g = nx.DiGraph()
    for i, n in enumerate(counts):
        mid = f"p.C.m{i}()"
        m(g, mid, "C.java", 10 * i + 1, 10 * i + 3, f"/** Method number {i}. */")
        for k in range(n):
            node = f"{SU}.trim(java.lang.String)" if k == 0 else f"lib.L{k}.f()"
            api(g, node)
            g.add_edge(mid, node, lines=[10 * i + 2], resolution="exact")
    # one extra method with no comment: not a candidate, not in the IQR
    m(g, "p.C.bare()", "C.java", 500, 501)
    return FakeGraph(g)


def test_iqr_over_all_candidates_of_the_build(fake_env, tmp_path, monkeypatch):
    graphs, _, project = fake_env
    # counts over the build (both projects): [0, 1, 2, 3, 4] ∪ [5, 6, 8]
    graphs["a"] = fan_graph([0, 1, 2, 3, 4])
    graphs["b"] = fan_graph([5, 6, 8])
    all_docs = DOCS + [doc(f"lib.L{k}.f()", f"F{k}.") for k in range(1, 8)]
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(all_docs))
    specs = [project("a"), project("b")]
    # default population: methods calling >= 1 API, [1,2,3,4,5,6,8] (n=7);
    # numpy linear: Q1 at position 1.5 → 2.5, Q3 at 4.5 → 5.5
    res = build_dataset(specs, tmp_path / "out", BuildOptions(), quiet=True)
    assert res.merge["api_count_range"] == {"mode": "iqr", "over": "calling", "low": 2.5, "high": 5.5, "n": 7,
                                            "method": "linear"}
    assert sorted(d["n_direct_apis"] for d in read_jsonl(tmp_path / "out/samples.jsonl")) == [3, 4, 5]
    assert res.counts["dropped_api_count"] == 5
    # all candidates, zeros included: [0,1,2,3,4,5,6,8] (n=8): Q1 at 1.75 → 1.75, Q3 at 5.25 → 5.25
    res = build_dataset(specs, tmp_path / "out", BuildOptions(iqr_over="all"), quiet=True)
    rng = res.merge["api_count_range"]
    assert rng == {"mode": "iqr", "over": "all", "low": 1.75, "high": 5.25, "n": 8, "method": "linear"}
    assert res.resumed == (specs[0].key, specs[1].key)  # a merge-stage option: no re-analysis
    kept = sorted(d["n_direct_apis"] for d in read_jsonl(tmp_path / "out/samples.jsonl"))
    assert kept == [2, 3, 4, 5]
    assert res.counts["dropped_api_count"] == 4
    man = json.loads((tmp_path / "out/manifest.json").read_text())
    assert man["api_count_range"]["low"] == 1.75 and man["parameters"]["iqr_over"] == "all"


def test_require_docs_drops_samples_reaching_undocumented_apis(fake_env, tmp_path, monkeypatch):
    graphs, _, project = fake_env
    graphs["svc"] = graphs["svc-again"] = comment_service_graph()
    no_blank = [d for d in DOCS if "isBlank" not in d["api"]]
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(no_blank))
    res = build_dataset([project("svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    methods = [d["method"] for d in read_jsonl(tmp_path / "out/samples.jsonl")]
    assert methods == [f"{CS}.summary()"]
    assert res.counts["undocumented_apis"] == 1 and res.counts["dropped_undocumented"] == 2
    assert [a["api"] for a in read_jsonl(tmp_path / "out/apis.jsonl")] == [f"{SU}.join"]
    # --no-require-docs keeps them; the API is listed without documentation
    res = build_dataset([project("svc-again")], tmp_path / "out2",
                        BuildOptions(api_count_range=(0, 9), require_docs=False), quiet=True)
    assert res.counts["samples"] == 3
    blank = [a for a in read_jsonl(tmp_path / "out2/apis.jsonl") if a["api"] == f"{SU}.isBlank"]
    assert blank[0]["doc_source"] is None and blank[0]["description"] is None


def test_leaks_flagged_and_dropped(fake_env, tmp_path):
    graphs, _, project = fake_env
    g = nx.DiGraph()
    m(g, "p.C.a()", "C.java", 1, 3, "/** Trims the input with StringUtils.trim first. */")
    m(g, "p.C.b()", "C.java", 5, 7, "/** Removes surrounding blanks (trimmed text). */")
    api(g, f"{SU}.trim(java.lang.String)")
    g.add_edge("p.C.a()", f"{SU}.trim(java.lang.String)", lines=[2], resolution="exact")
    g.add_edge("p.C.b()", f"{SU}.trim(java.lang.String)", lines=[6], resolution="exact")
    graphs["leaky"] = FakeGraph(g)
    spec = project("leaky")
    build_dataset([spec], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    leaks = {d["method"]: d["leaks"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    # "trim" is a common English word: only the class name gives the target away (queries/leaks.py)
    assert leaks == {"p.C.a()": ["StringUtils"], "p.C.b()": []}
    res = build_dataset([spec], tmp_path / "out2", BuildOptions(api_count_range=(0, 9), drop_leaky=True), quiet=True)
    assert [d["method"] for d in read_jsonl(tmp_path / "out2/samples.jsonl")] == ["p.C.b()"]
    assert res.counts["leaky"] == 1 and res.counts["dropped_leaky"] == 1


def test_find_leaks_whole_words_and_constructors():
    t = {"api": "org.x.Parser.<init>", "class": "org.x.Parser"}
    assert find_leaks("Builds a Parser for it", [t]) == ["Parser"]
    assert find_leaks("Builds a JsonParser", [t]) == []
    assert find_leaks("uses isBlanked", [{"api": "a.B.isBlank", "class": "a.B"}]) == []


def test_unresolved_edges_need_keep_unresolved(fake_env, tmp_path):
    graphs, _, project = fake_env
    g = nx.DiGraph()
    m(g, "p.C.a()", "C.java", 1, 3, "/** Does a thing. */")
    api(g, f"{SU}.trim(java.lang.String)")
    g.add_edge("p.C.a()", f"{SU}.trim(java.lang.String)", lines=[2], resolution="name")
    graphs["u"] = FakeGraph(g)
    res = build_dataset([project("u")], tmp_path / "o1", BuildOptions(api_count_range=(0, 9)), quiet=True)
    assert res.counts["samples"] == 0 and res.counts["dropped_no_targets"] == 1
    res = build_dataset([project("u")], tmp_path / "o2", BuildOptions(api_count_range=(0, 9), keep_unresolved=True), quiet=True)
    (s,) = read_jsonl(tmp_path / "o2/samples.jsonl")
    assert s["targets"][0]["resolution"] == "name"


def test_resume_skips_finished_projects(fake_env, tmp_path):
    graphs, calls, project = fake_env
    graphs["svc"] = comment_service_graph()
    graphs["other"] = fan_graph([1, 2])
    specs = [project("svc"), project("other")]
    opts = BuildOptions(api_count_range=(0, 9), require_docs=False)
    # an interrupted build: only "svc" finished (its part file exists)
    first = build_dataset(specs[:1], tmp_path / "out", opts, quiet=True)
    assert calls == ["svc"] and first.analysed == (specs[0].key,)
    before = (tmp_path / "out/samples.jsonl").read_text()
    again = build_dataset(specs, tmp_path / "out", opts, quiet=True)
    assert calls == ["svc", "other"]  # svc was not analysed again
    assert again.resumed == (specs[0].key,) and again.analysed == (specs[1].key,)
    after = read_jsonl(tmp_path / "out/samples.jsonl")
    assert {d["project"] for d in after} == {"svc", "other"}
    assert all(json.dumps(d) in before or d["project"] == "other" for d in after if d["project"] == "svc")
    # other analysis parameters invalidate the parts; merge-only parameters do not
    build_dataset(specs, tmp_path / "out", BuildOptions(api_count_range=(1, 1), require_docs=False), quiet=True)
    assert calls == ["svc", "other"]
    build_dataset(specs, tmp_path / "out", BuildOptions(include_tests=True, require_docs=False), quiet=True)
    assert calls == ["svc", "other", "svc", "other"]


def test_crashing_project_is_recorded_and_others_finish(fake_env, tmp_path):
    graphs, calls, project = fake_env
    graphs["boom"] = RecursionError("maximum recursion depth exceeded")
    graphs["svc"] = comment_service_graph()
    (tmp_path / "list.txt").write_text(f"{project('boom').source}\n{project('svc').source}\n# a comment\n\n")
    result = CliRunner().invoke(
        __import__("qare.cli", fromlist=["main"]).main,
        ["build", str(tmp_path / "list.txt"), "--out", str(tmp_path / "out"), "-q", "--api-count-range", "0:9", "--no-require-docs"],
    )
    assert result.exit_code == 1, result.output
    rows = {r["project"]: r for r in read_jsonl(tmp_path / "out/projects.jsonl")}
    assert rows["boom"]["verdict"] == "failed"
    assert rows["boom"]["error"] == "RecursionError: maximum recursion depth exceeded"
    assert any("build_graph" in f for f in rows["boom"]["traceback"])
    assert rows["svc"]["verdict"] == "kept" and rows["svc"]["counts"]["samples"] == 3
    assert "failed  boom" in result.output.replace("failed  ", "failed  ")
    # a failed project is retried on resume; the finished one is not
    graphs["boom"] = fan_graph([1])
    calls.clear()
    result = CliRunner().invoke(
        __import__("qare.cli", fromlist=["main"]).main,
        ["build", str(tmp_path / "list.txt"), "--out", str(tmp_path / "out"), "-q", "--api-count-range", "0:9", "--no-require-docs"],
    )
    assert result.exit_code == 0, result.output
    assert calls == ["boom"]


def test_missing_folder_fails_that_project_only(fake_env, tmp_path):
    graphs, _, project = fake_env
    graphs["svc"] = comment_service_graph()
    specs = [ProjectSpec(source=str(tmp_path / "nowhere"), name="nowhere"), project("svc")]
    res = build_dataset(specs, tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    rows = {r["project"]: r for r in res.projects}
    assert rows["nowhere"]["verdict"] == "failed" and "no such folder" in rows["nowhere"]["error"]
    assert res.failed == 1 and res.counts["samples"] == 3


def test_selection_verdicts(fake_env, tmp_path):
    graphs, calls, project = fake_env
    graphs["spring"] = comment_service_graph()
    graphs["notests"] = comment_service_graph()
    graphs["nolib"] = comment_service_graph()
    import datetime as dt

    specs = [
        project("spring", imports="org.springframework.web.bind.annotation.GetMapping"),
        project("notests", tests=False, imports="org.springframework.stereotype.Service"),
        project("nolib", imports="java.util.List"),
    ]
    specs.append(ProjectSpec(source=specs[0].source, commit=None, name="few-stars", stars=3))
    specs.append(ProjectSpec(source=specs[0].source, name="old", stars=50, created_at=dt.date(2020, 1, 1)))
    specs.append(ProjectSpec(source=specs[0].source + "/", name="nometa"))
    sel = Selection(min_stars=20, created_after=dt.date(2025, 2, 6), created_before=dt.date(2025, 12, 31),
                    require_metadata=False, require_tests=True, require_libs=("org.springframework",))
    graphs["nometa"] = comment_service_graph()
    res = build_dataset(specs, tmp_path / "out", BuildOptions(selection=sel, api_count_range=(0, 9)), quiet=True)
    rows = {r["project"]: (r["verdict"], r["reason"]) for r in res.projects}
    assert rows["spring"] == ("kept", "stars unknown; created_at unknown")
    assert rows["notests"] == ("dropped", "no test sources (--require-tests)")
    assert rows["nolib"] == ("dropped", "imports none of org.springframework (--require-libs)")
    assert rows["few-stars"] == ("dropped", "stars 3 < 20")
    assert rows["old"] == ("dropped", "created 2020-01-01 before 2025-02-06")
    assert rows["nometa"] == ("kept", "stars unknown; created_at unknown")
    assert calls == ["spring", "spring"]  # "nometa" is the same folder; dropped projects are never analysed
    res = build_dataset(specs[:1], tmp_path / "out2",
                        BuildOptions(selection=Selection(min_stars=20, require_metadata=True)), quiet=True)
    assert res.projects[0]["verdict"] == "dropped"
    assert res.projects[0]["reason"] == "no stars metadata (--require-metadata)"


def test_translate_cmd_translates_non_english_queries(fake_env, tmp_path):
    graphs, _, project = fake_env
    g = nx.DiGraph()
    m(g, "p.C.a()", "C.java", 1, 3, "/** 去掉首尾空白。 */")
    m(g, "p.C.b()", "C.java", 5, 7, "/** 这个命令会失败。 */")
    api(g, f"{SU}.trim(java.lang.String)")
    g.add_edge("p.C.a()", f"{SU}.trim(java.lang.String)", lines=[2], resolution="exact")
    g.add_edge("p.C.b()", f"{SU}.trim(java.lang.String)", lines=[6], resolution="exact")
    graphs["zh"] = FakeGraph(g)
    tr = tmp_path / "tr.py"
    tr.write_text("import sys\nt = sys.stdin.read()\n"
                  "if '失败' in t: sys.exit('no model')\nprint('Strips surrounding whitespace.')\n")
    res = build_dataset([project("zh")], tmp_path / "out",
                        BuildOptions(api_count_range=(0, 9), translate_cmd=f"python3 {tr}"), quiet=True)
    got = {d["method"]: (d["query"], d["lang"], d["comment"]) for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert got["p.C.a()"] == ("Strips surrounding whitespace.", "zh", "/** 去掉首尾空白。 */")
    assert got["p.C.b()"][0] == "这个命令会失败。"
    assert res.counts["translated"] == 1
    assert res.merge["translation_errors"] == ["zh p.C.b(): translator failed: no model"]


def test_parquet_copies(fake_env, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    graphs, _, project = fake_env
    graphs["svc"] = comment_service_graph()
    build_dataset([project("svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)),
                  formats=("jsonl", "parquet"), quiet=True)
    t = pq.read_table(tmp_path / "out/samples.parquet")
    assert t.num_rows == 3
    rows = t.to_pylist()
    assert {r["id"] for r in rows} == {d["id"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert pq.read_table(tmp_path / "out/apis.parquet").num_rows == 2
    assert pq.read_table(tmp_path / "out/projects.parquet").num_rows == 1


def test_dying_worker_fails_only_its_project(fake_env, tmp_path, monkeypatch):
    """--jobs 2: a worker killed mid-analysis breaks the pool; the others are re-run and finish."""
    graphs, _, project = fake_env
    for name in ("p1", "p2", "p3"):
        graphs[name] = comment_service_graph()
    graphs["killed"] = KILL
    specs = [project(n) for n in ("p1", "killed", "p2", "p3")]
    res = build_dataset(specs, tmp_path / "out", BuildOptions(api_count_range=(0, 9), require_docs=False),
                        jobs=2, quiet=True)
    rows = {r["project"]: r for r in res.projects}
    assert rows["killed"]["verdict"] == "failed" and "worker process died" in rows["killed"]["error"]
    assert [rows[n]["verdict"] for n in ("p1", "p2", "p3")] == ["kept"] * 3
    assert res.counts["samples"] == 9 and res.failed == 1


def test_unopenable_docs_are_a_warning_not_a_failure(fake_env, tmp_path, monkeypatch):
    graphs, _, project = fake_env
    graphs["svc"] = comment_service_graph()

    def boom(paths):
        raise OSError("corrupt archive")

    use_deps(monkeypatch, open_docs=boom)
    res = build_dataset([project("svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    (row,) = res.projects
    assert row["verdict"] == "kept" and any("corrupt archive" in w for w in row["warnings"])
    assert res.counts["samples"] == 0 and res.counts["dropped_undocumented"] == 3


# ---------------------------------------------------------------- projects with 0 samples, progress bars


def _cli(*args):
    from qare.cli import main

    return CliRunner().invoke(main, ["build", *map(str, args)])


def test_zero_samples_all_undocumented_warns_and_exits_1(fake_env, tmp_path):
    graphs, calls, project = fake_env
    graphs["svc"] = comment_service_graph()
    project("svc")
    # no javadoc given: every reached API is undocumented under the default --require-docs
    (tmp_path / "projects/list.txt").write_text("svc\n")
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "-q")
    assert r.exit_code == 1, r.output
    # direct-API counts: processComment 0, isCommentEmpty 1, count 0, summary 1 → IQR over [1, 1] = [1, 1];
    # isCommentEmpty reaches isBlank, summary reaches join(*): 2 APIs, neither documented
    why = "0 samples: all 2 reached APIs undocumented (no javadoc given) — give javadoc/sources jars or use --no-require-docs"
    assert f"kept    svc: {why}" in r.stdout
    assert r.stderr.startswith("warning: the dataset has 0 samples (exit code 1); per project:\n")
    assert f"  svc: {why}" in r.stderr
    (row,) = read_jsonl(tmp_path / "out/projects.jsonl")
    assert row["verdict"] == "kept" and row["no_samples_reason"] == why
    c = row["counts"]
    assert (c["candidates"], c["dropped_api_count"], c["dropped_undocumented"], c["reached_apis"],
            c["undocumented_apis"], c["samples"]) == (4, 2, 2, 2, 2, 0)
    # the same project with --no-require-docs has samples: no reason, no warning, exit 0
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "-q", "--no-require-docs")
    assert r.exit_code == 0 and r.stderr == "" and "0 samples" not in r.stdout
    (row,) = read_jsonl(tmp_path / "out/projects.jsonl")
    assert row["no_samples_reason"] is None and row["counts"]["samples"] == 2


def test_zero_samples_reason_per_stage(fake_env, tmp_path, monkeypatch):
    graphs, _, project = fake_env
    all_docs = DOCS + [doc(f"lib.L{k}.f()", f"F{k}.") for k in range(1, 8)]
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(all_docs))
    g = nx.DiGraph()
    m(g, "p.C.bare()", "C.java", 1, 2)
    graphs["nocomment"] = FakeGraph(g)
    g = nx.DiGraph()
    m(g, "p.C.a()", "C.java", 1, 3, "/** Adds to a list. */")
    api(g, "java.util.List.add(java.lang.Object)", third_party=False)
    g.add_edge("p.C.a()", "java.util.List.add(java.lang.Object)", lines=[2], resolution="exact")
    graphs["jdkonly"] = FakeGraph(g)
    g = nx.DiGraph()
    m(g, "p.C.a()", "C.java", 1, 3, "/** Calls StringUtils.trim on the text. */")
    api(g, f"{SU}.trim(java.lang.String)")
    g.add_edge("p.C.a()", f"{SU}.trim(java.lang.String)", lines=[2], resolution="exact")
    graphs["leaky"] = FakeGraph(g)
    graphs["small"] = fan_graph([1, 1, 1])
    graphs["big"] = fan_graph([5])
    specs = [project(n) for n in ("nocomment", "leaky", "small", "big")]
    res = build_dataset(specs, tmp_path / "out", BuildOptions(drop_leaky=True), quiet=True)
    why = {r["project"]: r["no_samples_reason"] for r in res.projects}
    # calling counts [1 (leaky), 1, 1, 1 (small), 5 (big)]: linear Q1 = 1, Q3 = 1 → [1, 1]
    assert why == {
        "nocomment": "0 samples: 0 candidate methods with comments",
        "leaky": "0 samples: all 1 remaining candidates name a target in their query (--drop-leaky)",
        "small": None,
        "big": "0 samples: no method within the IQR [1, 1] of direct-API counts (all 1 candidates outside)",
    }
    assert res.counts["samples"] == 3
    # alone (no candidate calls a third-party API, so no IQR): the target stage removes it
    res = build_dataset([project("jdkonly")], tmp_path / "out1", BuildOptions(), quiet=True)
    assert res.projects[0]["no_samples_reason"] == (
        "0 samples: none of the 1 candidates in range reaches a third-party API; "
        "give the classpath or use --keep-unresolved")
    res = build_dataset(specs[2:], tmp_path / "out2", BuildOptions(api_count_range=(6, 9)), quiet=True)
    assert res.projects[1]["no_samples_reason"] == (
        "0 samples: no method within the --api-count-range [6, 9] (all 1 candidates outside)")
    # some documented, some not: the count of undocumented ones
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex([d for d in all_docs if "L2" not in d["api"]]))
    graphs["half"] = fan_graph([3])
    res = build_dataset([project("half")], tmp_path / "out3", BuildOptions(), quiet=True)
    assert res.projects[0]["no_samples_reason"] == (
        "0 samples: 1 of 3 reached APIs undocumented and every candidate reaches one — "
        "give javadoc/sources jars or use --no-require-docs")


def test_no_progress_codes_when_stderr_is_not_a_terminal(fake_env, tmp_path, monkeypatch):
    graphs, calls, project = fake_env
    seen = []
    def spy(root, classpath, opts, progress, **kw):
        seen.append(progress)
        return fake_build_graph(root, classpath, opts, progress, **kw)

    use_deps(monkeypatch, build_graph=spy)
    graphs["svc"] = comment_service_graph()
    project("svc")
    (tmp_path / "projects/list.txt").write_text("svc\n")
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "--no-require-docs")  # no --quiet
    assert r.exit_code == 0, r.output
    assert "\r" not in r.stderr and "\x1b[" not in r.stderr
    # plain progress lines instead of bars (queries._progress; tests/queries/test_build_progress.py)
    assert all(ln.startswith("qare build: ") for ln in r.stderr.splitlines()) and "1/1 projects" in r.stderr
    assert seen == [False]  # callgraph's own bars are not asked for either
    monkeypatch.setattr(qb, "_stderr_is_tty", lambda: True)
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "--no-require-docs", "--no-resume")
    assert seen == [False, True]
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "--no-require-docs", "--no-resume", "-q")
    assert seen == [False, True, False]


def test_parquet_without_pyarrow_names_the_package(fake_env, tmp_path, monkeypatch):
    graphs, _, project = fake_env
    graphs["svc"] = comment_service_graph()
    project("svc")
    (tmp_path / "projects/list.txt").write_text("svc\n")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)  # import pyarrow → ImportError
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "-q", "--format", "parquet")
    assert r.exit_code == 4
    assert "--format parquet needs the package pyarrow, which is not installed: pip install -e '.[parquet]'" in r.stderr


def test_summary_names_undocumented_apis_and_counts_candidates_without_targets(fake_env, tmp_path, monkeypatch):
    from queries.build import summary_table

    graphs, _, project = fake_env
    graphs["svc"] = graphs["svc2"] = comment_service_graph()
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex([d for d in DOCS if "isBlank" not in d["api"]]))
    # candidates: processComment (isBlank at depth 3, 0 direct), isCommentEmpty (isBlank, 1 direct),
    # count() (no target), summary() (join(*), 1 direct); the IQR over calling methods is [1, 1]
    res = build_dataset([project("svc")], tmp_path / "out", BuildOptions(), quiet=True)
    text = summary_table(res)
    assert "  without targets 1 (1 already outside the API-count range): dropped 0\n" in text
    assert "  undocumented APIs 1: samples dropped 1\n    org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)\n" in text
    # a range that keeps count(): the targets stage drops it
    res = build_dataset([project("svc2")], tmp_path / "out2", BuildOptions(api_count_range=(0, 9)), quiet=True)
    assert "  without targets 1: dropped 1\n" in summary_table(res)
    assert res.merge["undocumented_apis"] == ("org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)",)
