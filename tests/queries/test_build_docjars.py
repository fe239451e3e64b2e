"""qare build's documentation-jar hook (queries._docs.add_fetched_docs): javadoc jars
first, sources jars only for libraries still undocumented, explicit paths first, and
the per-project ``docs`` record. Fetching and the doc index are stand-ins here (the
real ones are tested in tests/callgraph/test_classpath_maven_resolve.py and
tests/javadoc)."""

from __future__ import annotations

from dataclasses import dataclass

from callgraph.classpath import DocFetch, DocJar, Failure, Reason
from queries._docs import BuildDeps, add_fetched_docs, open_doc_index
from queries._part import ProjectPart
from queries.build import BuildOptions
from records import TargetRecord


@dataclass
class Doc:
    sig: str

    def to_dict(self):
        return {"api": self.sig.split("(")[0], "signature": self.sig, "class": self.sig.rsplit(".", 2)[0],
                "description": f"Docs of {self.sig}.", "first_sentence": f"Docs of {self.sig}."}


class Index:
    """Documents the members named by each path ('<lib>:<kind>' → members)."""

    MEMBERS = {"/explicit/javadoc": ["a.A.f()"], "/m2/a-javadoc.jar": ["a.A.f()"],
               "/m2/b-javadoc.jar": ["b.B.g()"], "/m2/b-sources.jar": ["b.B.g()", "b.B.h()"],
               "/m2/c-sources.jar": ["c.C.k()"]}

    def __init__(self, paths):
        self.paths = list(paths)
        self.docs = {m: Doc(m) for p in paths for m in self.MEMBERS.get(p, ())}

    def get(self, sig):
        return self.docs.get(sig)

    def by_name(self, name):
        return [d for s, d in self.docs.items() if s.split("(")[0] == name]


def _target(sig, lib):
    return TargetRecord(api=sig.split("(")[0], signature=sig, class_=sig.rsplit(".", 1)[0].rsplit("(", 1)[0],
                        library=lib, depth=2, chain=("x.X.q()", sig))


def _part():
    return ProjectPart(fingerprint="f", key="k", spec={}, project="p")


def test_javadoc_then_sources_for_what_is_still_undocumented(monkeypatch):
    asked = []
    jars = {("a:a:1", "javadoc"): "/m2/a-javadoc.jar", ("b:b:1", "javadoc"): "/m2/b-javadoc.jar",
            ("b:b:1", "sources"): "/m2/b-sources.jar", ("c:c:1", "sources"): "/m2/c-sources.jar"}

    def fetch(libs, kind, opts, repos=(), progress=False):
        asked.append((kind, list(libs)))
        got = [DocJar(c, kind, jars[(c, kind)]) for c in libs if (c, kind) in jars]
        miss = [Failure(c, Reason.NOT_FOUND, f"no {kind} jar") for c in libs if (c, kind) not in jars]
        return DocFetch(tuple(got), tuple(miss), downloads=len(got), bytes_downloaded=100 * len(got))

    deps = BuildDeps(fetch_doc_jars=fetch, open_docs=lambda paths: Index(paths))
    targets = {t.signature: t for t in (_target("a.A.f()", "a:a:1"), _target("b.B.g()", "b:b:1"),
                                            _target("b.B.h()", "b:b:1"), _target("c.C.k()", "c:c:1"),
                                            _target("d.D.m()", "d:d:1"))}
    part = _part()
    explicit = ["/explicit/javadoc"]
    index, paths = add_fetched_docs(targets, open_doc_index(explicit, part.warnings, deps), explicit, None,
                                    BuildOptions(), part, False, deps)
    # a:a:1 is documented by the explicit path: never asked for
    assert asked == [("javadoc", ["b:b:1", "c:c:1", "d:d:1"]),
                     ("sources", ["b:b:1", "c:c:1", "d:d:1"])]  # b.B.h is missing from b's javadoc
    assert paths == ["/explicit/javadoc", "/m2/b-javadoc.jar", "/m2/b-sources.jar", "/m2/c-sources.jar"]
    assert all(index.get(t) for t in ("a.A.f()", "b.B.g()", "b.B.h()", "c.C.k()")) and not index.get("d.D.m()")
    docs = part.docs
    assert docs["javadoc"] == ["b:b:1"] and docs["sources"] == ["b:b:1", "c:c:1"]
    # only the library left undocumented is a failure (c's missing javadoc was made up for by its sources)
    assert [(f["coords"], f["kind"], f["reason"]) for f in docs["failures"]] == [
        ("d:d:1", "javadoc", "not-found"), ("d:d:1", "sources", "not-found")]
    assert (docs["downloads"], docs["bytes_downloaded"]) == (3, 300)


def test_nothing_fetched_when_everything_is_documented(monkeypatch):
    deps = BuildDeps(fetch_doc_jars=lambda *a, **k: (_ for _ in ()).throw(AssertionError("fetched")),
                     open_docs=lambda paths: Index(paths))
    targets = {"a.A.f()": _target("a.A.f()", "a:a:1")}
    part = _part()
    index, paths = add_fetched_docs(targets, Index(["/explicit/javadoc"]), ["/explicit/javadoc"], None,
                                    BuildOptions(), part, False, deps)
    assert paths == ["/explicit/javadoc"]
    # the record is there even when nothing was fetched (a warm build records what a cold one does);
    # no resolution here, so no library jar to find doc jars beside
    assert part.docs["javadoc"] == [] and part.docs["downloads"] == 0 and part.docs["failures"] == []


def test_doc_jars_already_beside_the_library_jars_are_recorded_like_fetched_ones():
    # a warm build finds the javadoc jar an earlier build fetched beside the library's jar
    # (doc_paths_next_to) and fetches nothing: its docs record must name the same jars
    from callgraph._mvn_resolve import Artifact

    class Resolution:
        artifacts = (Artifact("a", "a", "1", "compile", "/m2/a.jar"), Artifact("b", "b", "1", "compile", "/m2/b.jar"),
                     Artifact("z", "z", "1", "compile", "/m2/z.jar"))
        repositories = ()

    def fetch(libs, kind, opts, repos=(), progress=False):
        raise AssertionError(f"nothing to fetch, asked for {kind} of {libs}")

    deps = BuildDeps(fetch_doc_jars=fetch, open_docs=lambda paths: Index(paths))
    targets = {t.signature: t for t in (_target("a.A.f()", "a:a:1"), _target("b.B.g()", "b:b:1"))}
    part = _part()
    beside = ["/m2/a-javadoc.jar", "/m2/b-javadoc.jar", "/m2/b-sources.jar"]
    add_fetched_docs(targets, open_doc_index(beside, part.warnings, deps), beside, Resolution(), BuildOptions(),
                     part, False, deps)
    # z:z:1 is on the classpath but reached by no target: not a provenance of this dataset
    assert part.docs["javadoc"] == ["a:a:1", "b:b:1"] and part.docs["sources"] == ["b:b:1"]
    assert part.docs["downloads"] == 0 and part.docs["failures"] == []
