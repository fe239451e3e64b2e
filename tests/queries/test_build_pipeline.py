"""The build pipeline on the real call graphs of small Java fixture projects
(``fixtures/java/build-pipeline/``, and ``fan_java`` for the direct-API-count
cases), built by the real ``callgraph.build_project_graph`` with Debian's
commons-lang3 jar as the classpath: the builder's own logic —
candidates, IQR, documentation filter, leaks, ids, density, resume, failures,
selection, files — is checked on what the call graph really hands it. Every
line, LOC and depth below is worked out by hand from those Java files.

The builder's other dependencies come in as ``BuildDeps``: Maven resolution
returns that jar, no doc jar is fetched, and the
documentation is a ``FakeDocIndex`` of hand-written texts (so a test can say
which APIs are documented; javadoc extraction itself is tested on real sites in
tests/javadoc/ and end to end in test_build_fixture.py/test_build_example.py).
Faults that cannot be written in Java — a graph build that raises, a worker the
kernel kills — are injected around the real graph build (``FAULTS``)."""

import hashlib
import json
from dataclasses import dataclass
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import queries.build as qb
from queries._docs import build_graph as real_build_graph
from queries.build import BuildDeps, BuildOptions, build_dataset, find_leaks, sample_id
from queries.projects import ProjectSpec, Selection
from queries.schema import ApiRecord, SampleRecord

REPO = Path(__file__).resolve().parents[2]
PIPELINE = REPO / "fixtures/java/build-pipeline"
JAR = Path("/usr/share/java/commons-lang3.jar")
LANG3 = "org.apache.commons:commons-lang3:3.12.0"

pytestmark = pytest.mark.skipif(not JAR.is_file(), reason="Debian commons-lang3 jar (scripts/install-test-deps.sh)")

SU = "org.apache.commons.lang3.StringUtils"
CS = "com.acme.CommentService"

# static String -> String methods of commons-lang3's StringUtils: fan_java's distinct APIs
STRING_METHODS = ("trim", "strip", "upperCase", "lowerCase", "capitalize", "uncapitalize", "swapCase", "reverse",
                  "chomp", "chop")


def fan_java(counts):
    """Java source of class ``p.C``: one method ``m<i>(String)`` with a doc
    comment per entry of ``counts``, calling the first ``counts[i]`` of
    ``STRING_METHODS`` (``counts[i]`` distinct documented third-party APIs), and
    ``bare(String)``, which calls ``trim`` but has no comment (no candidate)."""
    out = ["package p;", "", "import org.apache.commons.lang3.StringUtils;", "", "public class C {"]
    for i, n in enumerate(counts):
        out += [f"    /** Method number {i}. */", f"    public String m{i}(String s) {{"]
        out += [f"        s = StringUtils.{STRING_METHODS[k]}(s);" for k in range(n)]
        out += ["        return s;", "    }", ""]
    out += ["    public String bare(String s) {", "        return StringUtils.trim(s);", "    }", "}", ""]
    return "\n".join(out)


def fan(i):
    return f"p.C.m{i}(java.lang.String)"


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
ALL_DOCS = DOCS + [doc(f"{SU}.{name}(java.lang.String)", f"Does {name}.") for name in STRING_METHODS[1:]]


# The builder's dependencies (queries.build.BuildDeps), as module-level functions so a
# process pool (fork) pickles them by name; FAULTS/CALLS are filled by each test.
FAULTS: dict = {}
CALLS: list = []
KILL = "os._exit"  # FAULTS[name] = KILL: the worker dies as under the kernel's OOM killer


def graph_with_faults(root, classpath, opts, progress, **kw):
    """The real graph build (queries._docs.build_graph), unless ``FAULTS`` names the project."""
    CALLS.append(Path(root).name)
    fault = FAULTS.get(Path(root).name)
    if fault == KILL:
        os._exit(9)  # no exception, no cleanup
    if isinstance(fault, Exception):
        raise fault
    return real_build_graph(root, classpath, opts, progress, **kw)


def lang3_classpath(root, *args):
    """Maven's resolution stands in: every project's one library is commons-lang3."""
    return [str(JAR)]


def no_doc_jars(*args, **kw):
    from callgraph.classpath import DocFetch

    return DocFetch()


def open_docs(paths):
    return FakeDocIndex(DOCS)


DEPS = BuildDeps(build_graph=graph_with_faults, discover_classpath=lang3_classpath,
                 fetch_doc_jars=no_doc_jars, open_docs=open_docs)


def use_deps(monkeypatch, **changes):
    """Make the build (and ``qare build``) use DEPS with ``changes``: the
    default dependencies are the one seam the CLI goes through."""
    from dataclasses import replace

    monkeypatch.setattr(qb, "DEFAULT_DEPS", replace(DEPS, **changes))


@pytest.fixture
def env(tmp_path, monkeypatch):
    """``project(name, fixture)`` copies ``fixtures/java/build-pipeline/<fixture>``
    (or writes ``fan_java(fan)``) to a project folder and returns its spec."""
    FAULTS.clear()
    CALLS.clear()
    use_deps(monkeypatch)

    def project(name, fixture=None, *, fan=None, tests=True, imports=SU):
        root = tmp_path / "projects" / name
        if fixture:
            shutil.copytree(PIPELINE / fixture, root)
        if fan is not None:
            (root / "src/main/java/p").mkdir(parents=True, exist_ok=True)
            (root / "src/main/java/p/C.java").write_text(fan_java(fan))
        # one more source file, whose import decides --require-libs (selection)
        (root / "src/main/java/com/acme").mkdir(parents=True, exist_ok=True)
        (root / "src/main/java/com/acme/A.java").write_text(f"package com.acme;\nimport {imports};\nclass A {{}}\n")
        if not tests:
            shutil.rmtree(root / "src/test", ignore_errors=True)
        elif not (root / "src/test").exists():
            (root / "src/test/java/com/acme").mkdir(parents=True)
            (root / "src/test/java/com/acme/ATest.java").write_text("package com.acme;\nclass ATest {}\n")
        return ProjectSpec(source=str(root), name=name, javadoc=(str(tmp_path / "docs"),))

    return FAULTS, CALLS, project


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- tests


def test_samples_targets_depth_density(env, tmp_path):
    faults, calls, project = env
    spec = project("svc", "svc")
    res = build_dataset([spec], tmp_path / "out", BuildOptions(api_count_range=(0, 10)), quiet=True)
    samples = [SampleRecord.from_dict(d) for d in read_jsonl(tmp_path / "out/samples.jsonl")]
    by_method = {s.method[len(CS) + 1:]: s for s in samples}
    # CommentService.java by hand: count() reaches only JDK List.size; the test method and
    # uncommented() (no comment) are not candidates
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
        "chain_loc": 11, "density": 1 / 11, "resolution": "exact",
        # svc's CommentService.java by hand: processComment calls isCommentEmpty at line 24, which calls isBlank at 37
        "call_sites": [{"file": "src/main/java/com/acme/CommentService.java", "line": 24},
                       {"file": "src/main/java/com/acme/CommentService.java", "line": 37}]}]
    assert (pc.depth_max, pc.depth_min, pc.density) == (3, 3, 1 / 11)
    assert (pc.file, pc.start_line, pc.end_line, pc.loc) == ("src/main/java/com/acme/CommentService.java", 23, 29, 7)
    # the id as documented (docs/dataset.md): SHA-1 of "project NUL commit NUL method", 16 hex digits
    assert pc.id == hashlib.sha1(f"svc\0\0{CS}.processComment(java.lang.String)".encode()).hexdigest()[:16]
    assert pc.id == sample_id("svc", None, pc.method) != sample_id("svc", "c0ffee", pc.method)
    ice = by_method["isCommentEmpty(java.lang.String)"]
    assert ice.query == "Checks whether a comment is empty. A comment of whitespace only counts as empty."
    assert (ice.n_direct_apis, ice.depth_max, ice.density) == (1, 2, 1 / 4)
    # summary(): the feed's type is not on the classpath, so join's overload is open (arity);
    # count() is on no chain, so the union is summary() alone (lines 44-48)
    su = by_method["summary()"]
    assert [(t.api, t.signature, t.depth, t.resolution) for t in su.targets] == [(f"{SU}.join", None, 2, "arity")]
    assert su.density == 1 / 5
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


def test_include_tests_adds_test_methods(env, tmp_path):
    faults, _, project = env
    build_dataset([project("svc", "svc")], tmp_path / "out", BuildOptions(include_tests=True, api_count_range=(0, 9)), quiet=True)
    methods = {d["method"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert f"{CS}Test.testIt()" in methods


def test_iqr_over_all_candidates_of_the_build(env, tmp_path, monkeypatch):
    faults, _, project = env
    # counts over the build (both projects): [0, 1, 2, 3, 4] ∪ [5, 6, 8]
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(ALL_DOCS))
    specs = [project("a", fan=[0, 1, 2, 3, 4]), project("b", fan=[5, 6, 8])]
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


def test_require_docs_drops_samples_reaching_undocumented_apis(env, tmp_path, monkeypatch):
    faults, _, project = env
    no_blank = [d for d in DOCS if "isBlank" not in d["api"]]
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(no_blank))
    res = build_dataset([project("svc", "svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    methods = [d["method"] for d in read_jsonl(tmp_path / "out/samples.jsonl")]
    assert methods == [f"{CS}.summary()"]
    assert res.counts["undocumented_apis"] == 1 and res.counts["dropped_undocumented"] == 2
    assert [a["api"] for a in read_jsonl(tmp_path / "out/apis.jsonl")] == [f"{SU}.join"]
    # --no-require-docs keeps them; the API is listed without documentation
    res = build_dataset([project("svc-again", "svc")], tmp_path / "out2",
                        BuildOptions(api_count_range=(0, 9), require_docs=False), quiet=True)
    assert res.counts["samples"] == 3
    blank = [a for a in read_jsonl(tmp_path / "out2/apis.jsonl") if a["api"] == f"{SU}.isBlank"]
    assert blank[0]["doc_source"] is None and blank[0]["description"] is None


def test_leaks_flagged_and_dropped(env, tmp_path):
    faults, _, project = env
    spec = project("leaky", "leaky")
    build_dataset([spec], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    leaks = {d["method"]: d["leaks"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    # "trim" is a common English word: only the class name gives the target away (queries/leaks.py)
    assert leaks == {"p.C.a(java.lang.String)": ["StringUtils"], "p.C.b(java.lang.String)": []}
    res = build_dataset([spec], tmp_path / "out2", BuildOptions(api_count_range=(0, 9), drop_leaky=True), quiet=True)
    assert [d["method"] for d in read_jsonl(tmp_path / "out2/samples.jsonl")] == ["p.C.b(java.lang.String)"]
    assert res.counts["leaky"] == 1 and res.counts["dropped_leaky"] == 1


def test_find_leaks_whole_words_and_constructors():
    t = {"api": "org.x.Parser.<init>", "class": "org.x.Parser"}
    assert find_leaks("Builds a Parser for it", [t]) == ["Parser"]
    assert find_leaks("Builds a JsonParser", [t]) == []
    assert find_leaks("uses isBlanked", [{"api": "a.B.isBlank", "class": "a.B"}]) == []


def test_unresolved_edges_need_keep_unresolved(env, tmp_path, monkeypatch):
    faults, _, project = env
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex([doc("org.unknown.Texts.pad(java.lang.String,int)", "Pads.")]))
    # unresolved/C.java: pad comes from an on-demand static import not on the classpath
    spec = project("u", "unresolved")
    res = build_dataset([spec], tmp_path / "o1", BuildOptions(api_count_range=(0, 9)), quiet=True)
    assert res.counts["samples"] == 0 and res.counts["dropped_no_targets"] == 1
    res = build_dataset([spec], tmp_path / "o2", BuildOptions(api_count_range=(0, 9), keep_unresolved=True), quiet=True)
    (s,) = read_jsonl(tmp_path / "o2/samples.jsonl")
    assert [(t["api"], t["signature"], t["resolution"]) for t in s["targets"]] == [("org.unknown.Texts.pad", None, "name")]


def test_resume_skips_finished_projects(env, tmp_path):
    faults, calls, project = env
    specs = [project("svc", "svc"), project("other", fan=[1, 2])]
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


def test_a_resumed_build_records_the_graph_jobs_it_was_built_with(env, tmp_path):
    # two projects, two jobs: a pool of one job per project (graph_jobs 1); the same list resumed has
    # nothing to analyse, and recorded graph_jobs 2 (a new user, session 9: `len(todo) <= 1` took 0 for 1)
    _faults, _calls, project = env
    specs = [project("svc", "svc"), project("other", fan=[1, 2])]
    opts = BuildOptions(api_count_range=(0, 9), require_docs=False)
    build_dataset(specs, tmp_path / "out", opts, jobs=2, quiet=True)
    first = json.loads((tmp_path / "out/manifest.json").read_text())["parameters"]
    again = build_dataset(specs, tmp_path / "out", opts, jobs=2, quiet=True)
    assert again.analysed == () and len(again.resumed) == 2
    second = json.loads((tmp_path / "out/manifest.json").read_text())["parameters"]
    assert first["graph_jobs"] == second["graph_jobs"] == 1 and first["jobs"] == second["jobs"] == 2
    # one project left: its call-graph build gets the jobs
    build_dataset(specs[:1], tmp_path / "one", opts, jobs=2, quiet=True)
    assert json.loads((tmp_path / "one/manifest.json").read_text())["parameters"]["graph_jobs"] == 2


def test_resume_redoes_a_local_folder_edited_since_it_was_read(env, tmp_path):
    """A local folder is analysed in place: an edit after its part was
    written (uncommitted: its commit, if any, stays) makes the resumed build
    analyse it again, with the edit in the samples; the untouched project is
    reused (a new user, session 8: the edited Javadoc's old text stayed)."""
    faults, calls, project = env
    specs = [project("svc", "svc"), project("other", fan=[1, 2])]
    opts = BuildOptions(api_count_range=(0, 9), require_docs=False)
    build_dataset(specs, tmp_path / "out", opts, quiet=True)
    assert calls == ["svc", "other"]
    again = build_dataset(specs, tmp_path / "out", opts, quiet=True)  # nothing changed: both reused
    assert calls == ["svc", "other"] and set(again.resumed) == {specs[0].key, specs[1].key}
    src = Path(specs[0].source) / "src/main/java/com/acme/CommentService.java"
    before = [d["query"] for d in read_jsonl(tmp_path / "out/samples.jsonl") if d["project"] == "svc"]
    assert "Checks whether a comment is empty. A comment of whitespace only counts as empty." in before
    src.write_text(src.read_text().replace("Checks whether a comment is empty.", "Checks whether a comment is EDITED."))
    third = build_dataset(specs, tmp_path / "out", opts, quiet=True)
    assert calls == ["svc", "other", "svc"]
    assert third.resumed == (specs[1].key,) and third.analysed == (specs[0].key,)
    after = [d["query"] for d in read_jsonl(tmp_path / "out/samples.jsonl") if d["project"] == "svc"]
    assert after == [q.replace("is empty.", "is EDITED.") for q in before]


def test_crashing_project_is_recorded_and_others_finish(env, tmp_path):
    faults, calls, project = env
    faults["boom"] = RecursionError("maximum recursion depth exceeded")
    boom, svc = project("boom", fan=[1]), project("svc", "svc")
    (tmp_path / "list.txt").write_text(f"{boom.source}\n{svc.source}\n# a comment\n\n")
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
    del faults["boom"]
    calls.clear()
    result = CliRunner().invoke(
        __import__("qare.cli", fromlist=["main"]).main,
        ["build", str(tmp_path / "list.txt"), "--out", str(tmp_path / "out"), "-q", "--api-count-range", "0:9", "--no-require-docs"],
    )
    assert result.exit_code == 0, result.output
    assert calls == ["boom"]


def test_missing_folder_fails_that_project_only(env, tmp_path):
    faults, _, project = env
    specs = [ProjectSpec(source=str(tmp_path / "nowhere"), name="nowhere"), project("svc", "svc")]
    res = build_dataset(specs, tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    rows = {r["project"]: r for r in res.projects}
    assert rows["nowhere"]["verdict"] == "failed" and "no such folder" in rows["nowhere"]["error"]
    assert res.failed == 1 and res.counts["samples"] == 3


def test_selection_verdicts(env, tmp_path):
    faults, calls, project = env
    import datetime as dt

    specs = [
        project("spring", "svc", imports="org.springframework.web.bind.annotation.GetMapping"),
        project("notests", "svc", tests=False, imports="org.springframework.stereotype.Service"),
        project("nolib", "svc", imports="java.util.List"),
    ]
    specs.append(ProjectSpec(source=specs[0].source, commit=None, name="few-stars", stars=3))
    specs.append(ProjectSpec(source=specs[0].source, name="old", stars=50, created_at=dt.date(2020, 1, 1)))
    specs.append(ProjectSpec(source=specs[0].source + "/", name="nometa"))
    sel = Selection(min_stars=20, created_after=dt.date(2025, 2, 6), created_before=dt.date(2025, 12, 31),
                    require_metadata=False, require_tests=True, require_libs=("org.springframework",))
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


def test_translate_cmd_translates_non_english_queries(env, tmp_path):
    faults, _, project = env
    tr = tmp_path / "tr.py"
    tr.write_text("import sys\nt = sys.stdin.read()\n"
                  "if '失败' in t: sys.exit('no model')\nprint('Strips surrounding whitespace.')\n")
    res = build_dataset([project("zh", "zh")], tmp_path / "out",
                        BuildOptions(api_count_range=(0, 9), translate_cmd=f"python3 {tr}"), quiet=True)
    got = {d["method"]: (d["query"], d["lang"], d["comment"]) for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert got["p.C.a(java.lang.String)"] == ("Strips surrounding whitespace.", "zh", "/** 去掉首尾空白。 */")
    assert got["p.C.b(java.lang.String)"][0] == "这个命令会失败。"
    assert res.counts["translated"] == 1
    assert res.merge["translation_errors"] == ["zh p.C.b(java.lang.String): translator failed: no model"]


def test_parquet_copies(env, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    faults, _, project = env
    build_dataset([project("svc", "svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)),
                  formats=("jsonl", "parquet"), quiet=True)
    t = pq.read_table(tmp_path / "out/samples.parquet")
    assert t.num_rows == 3
    rows = t.to_pylist()
    assert {r["id"] for r in rows} == {d["id"] for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    # the targets' call sites are a list of structs, as in samples.jsonl
    by_id = {d["id"]: d for d in read_jsonl(tmp_path / "out/samples.jsonl")}
    assert all([t["call_sites"] for t in r["targets"]] == [t["call_sites"] for t in by_id[r["id"]]["targets"]]
               for r in rows)
    assert any(t["call_sites"] for r in rows for t in r["targets"])
    assert pq.read_table(tmp_path / "out/apis.parquet").num_rows == 2
    assert pq.read_table(tmp_path / "out/projects.parquet").num_rows == 1


def test_dying_worker_fails_only_its_project(env, tmp_path, monkeypatch):
    """--jobs 2: a worker killed mid-analysis breaks the pool; the others are re-run and finish."""
    faults, _, project = env
    faults["killed"] = KILL
    specs = [project(n, "svc") for n in ("p1", "killed", "p2", "p3")]
    res = build_dataset(specs, tmp_path / "out", BuildOptions(api_count_range=(0, 9), require_docs=False),
                        jobs=2, quiet=True)
    rows = {r["project"]: r for r in res.projects}
    assert rows["killed"]["verdict"] == "failed" and "worker process died" in rows["killed"]["error"]
    assert [rows[n]["verdict"] for n in ("p1", "p2", "p3")] == ["kept"] * 3
    assert res.counts["samples"] == 9 and res.failed == 1


def test_unopenable_docs_are_a_warning_not_a_failure(env, tmp_path, monkeypatch):
    faults, _, project = env

    def boom(paths):
        raise OSError("corrupt archive")

    use_deps(monkeypatch, open_docs=boom)
    res = build_dataset([project("svc", "svc")], tmp_path / "out", BuildOptions(api_count_range=(0, 9)), quiet=True)
    (row,) = res.projects
    assert row["verdict"] == "kept" and any("corrupt archive" in w for w in row["warnings"])
    assert res.counts["samples"] == 0 and res.counts["dropped_undocumented"] == 3


# ---------------------------------------------------------------- projects with 0 samples, progress bars


def _cli(*args):
    from qare.cli import main

    return CliRunner().invoke(main, ["build", *map(str, args)])


def test_zero_samples_all_undocumented_warns_and_exits_1(env, tmp_path):
    faults, calls, project = env
    project("svc", "svc")
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


def test_zero_samples_reason_per_stage(env, tmp_path, monkeypatch):
    faults, _, project = env
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex(ALL_DOCS))
    specs = [project("nocomment", "nocomment"), project("leaky", "leaky-only"), project("small", fan=[1, 1, 1]),
             project("big", fan=[5])]
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
    res = build_dataset([project("jdkonly", "jdkonly")], tmp_path / "out1", BuildOptions(), quiet=True)
    assert res.projects[0]["no_samples_reason"] == (
        "0 samples: none of the 1 candidates in range reaches a third-party API; "
        "give the classpath or use --keep-unresolved")
    res = build_dataset(specs[2:], tmp_path / "out2", BuildOptions(api_count_range=(6, 9)), quiet=True)
    assert res.projects[1]["no_samples_reason"] == (
        "0 samples: no method within the --api-count-range [6, 9] (all 1 candidates outside)")
    # some documented, some not: the count of undocumented ones
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex([d for d in ALL_DOCS if "upperCase" not in d["api"]]))
    res = build_dataset([project("half", fan=[3])], tmp_path / "out3", BuildOptions(), quiet=True)
    assert res.projects[0]["no_samples_reason"] == (
        "0 samples: 1 of 3 reached APIs undocumented and every candidate reaches one — "
        "give javadoc/sources jars or use --no-require-docs")


def test_no_progress_codes_when_stderr_is_not_a_terminal(env, tmp_path, monkeypatch):
    faults, calls, project = env
    seen = []
    def spy(root, classpath, opts, progress, **kw):
        seen.append(progress)
        return graph_with_faults(root, classpath, opts, progress, **kw)

    use_deps(monkeypatch, build_graph=spy)
    project("svc", "svc")
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


def test_parquet_without_pyarrow_names_the_package(env, tmp_path, monkeypatch):
    faults, _, project = env
    project("svc", "svc")
    (tmp_path / "projects/list.txt").write_text("svc\n")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)  # import pyarrow → ImportError
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "-q", "--format", "parquet")
    assert r.exit_code == 4
    assert "--format parquet needs the package pyarrow, which is not installed: pip install -e '.[parquet]'" in r.stderr


def test_summary_names_undocumented_apis_and_counts_candidates_without_targets(env, tmp_path, monkeypatch):
    from queries.build import summary_table

    faults, _, project = env
    use_deps(monkeypatch, open_docs=lambda paths: FakeDocIndex([d for d in DOCS if "isBlank" not in d["api"]]))
    # candidates: processComment (isBlank at depth 3, 0 direct), isCommentEmpty (isBlank, 1 direct),
    # count() (no target), summary() (join(*), 1 direct); the IQR over calling methods is [1, 1]
    res = build_dataset([project("svc", "svc")], tmp_path / "out", BuildOptions(), quiet=True)
    text = summary_table(res)
    assert "  without targets 1 (1 already outside the API-count range): dropped 0\n" in text
    assert "  undocumented APIs 1: samples dropped 1\n    org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)\n" in text
    # a range that keeps count(): the targets stage drops it
    res = build_dataset([project("svc2", "svc")], tmp_path / "out2", BuildOptions(api_count_range=(0, 9)), quiet=True)
    assert "  without targets 1: dropped 1\n" in summary_table(res)
    assert res.merge["undocumented_apis"] == ("org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)",)


# ---------------------------------------------------------------- the fixtures are Java


@pytest.mark.skipif(not shutil.which("javac"), reason="javac (a JDK) is not installed")
@pytest.mark.parametrize("fixture", ["svc", "leaky", "leaky-only", "zh", "zh-llm", "unresolved", "nocomment", "jdkonly", "fan"])
def test_fixture_compiles_with_javac(fixture, tmp_path):
    """Every fixture (and fan_java's output) is Java javac 17 accepts, with commons-lang3
    and the compile-only ``stubs/`` (org.unknown, never on a graph's classpath)."""
    import subprocess

    if fixture == "fan":
        (tmp_path / "p").mkdir()
        (tmp_path / "p/C.java").write_text(fan_java([0, 3, len(STRING_METHODS)]))
        sources = [tmp_path / "p/C.java"]
    else:
        sources = sorted((PIPELINE / fixture).rglob("*.java"))
    stubs = sorted((PIPELINE / "stubs").rglob("*.java"))
    proc = subprocess.run(["javac", "--release", "17", "-nowarn", "-encoding", "UTF-8", "-d", str(tmp_path / "classes"),
                           "-cp", str(JAR), *map(str, sources + stubs)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- jobs, the per-project hook, the classpath line


def test_jobs_2_writes_the_same_bytes_as_jobs_1_and_hands_each_part_over_once(env, tmp_path):
    """The pool (its parent warmed before the fork, the merge modules loaded while
    the last projects run) changes nothing in the files; ``on_project`` gets
    each analysed project's whole part once, resumed ones not at all."""
    faults, _, project = env
    specs = [project(f"p{i}", "svc") for i in range(4)]
    opts = BuildOptions(api_count_range=(0, 9), require_docs=False)
    seen = {1: [], 2: []}
    for jobs in (1, 2):
        build_dataset(specs, tmp_path / f"out{jobs}", opts, jobs=jobs, quiet=True, on_project=seen[jobs].append)
    for name in ("samples.jsonl", "apis.jsonl"):
        assert (tmp_path / "out1" / name).read_bytes() == (tmp_path / "out2" / name).read_bytes()
    assert len(read_jsonl(tmp_path / "out2/samples.jsonl")) == 12
    for jobs in (1, 2):
        assert sorted(p.project for p in seen[jobs]) == ["p0", "p1", "p2", "p3"]
        assert all(p.verdict.value == "kept" and len(p.candidates) == 4 for p in seen[jobs])
    again = []
    build_dataset(specs, tmp_path / "out2", opts, jobs=2, quiet=True, on_project=again.append)
    assert again == []


def _resolution(root, unresolved=()):
    from callgraph._mvn import Failure, Reason
    from callgraph._mvn_resolve import Method, ResolvedClasspath

    return ResolvedClasspath(Method.MAVEN, jars=(JAR,), unresolved=tuple(Failure(c, Reason.NOT_FOUND, "")
                                                                         for c in unresolved),
                             seconds=0.25, build_files=(Path(root) / "pom.xml",), from_cache=True)


def resolved_clean(root, *args):
    """Maven's resolution as a record: commons-lang3, nothing missing (module level: the pool pickles it)."""
    return _resolution(root)


def resolved_missing(root, *args):
    return _resolution(root, ["com.acme:gone:1.0"])


def test_qare_build_prints_each_projects_classpath_line(env, tmp_path, monkeypatch):
    faults, _, project = env
    use_deps(monkeypatch, discover_classpath=resolved_clean)
    project("svc", "svc")
    project("web", "svc")
    (tmp_path / "projects/list.txt").write_text("svc\nweb\n")
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out", "--no-require-docs", "--jobs", "2")
    assert r.exit_code == 0, r.output
    lines = sorted(ln for ln in r.stderr.splitlines() if "classpath" in ln)
    assert lines == ["svc: classpath (maven): 1 jar, 0 unresolved; cached result in 0.2 s",
                     "web: classpath (maven): 1 jar, 0 unresolved; cached result in 0.2 s"]
    # -q hides a clean line, never one naming what was not resolved
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out-q", "--no-require-docs", "-q")
    assert "classpath" not in r.stderr
    use_deps(monkeypatch, discover_classpath=resolved_missing)
    r = _cli(tmp_path / "projects/list.txt", "--out", tmp_path / "out-miss", "--no-require-docs", "-q")
    assert sorted(ln for ln in r.stderr.splitlines() if "classpath" in ln) == [
        f"{n}: classpath (maven): 1 jar, 1 unresolved: com.acme:gone:1.0 (not-found); cached result in 0.2 s"
        for n in ("svc", "web")]
