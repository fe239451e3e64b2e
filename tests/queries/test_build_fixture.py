"""End to end on fixtures/java/qare-example (Q-ARE's processComment → isCommentEmpty
→ StringUtils.isBlank) with a real classpath (Debian's commons-lang3 jar) and a
real javadoc site (Debian's commons-lang3 API docs, unpacked by
scripts/install-test-deps.sh): exact signatures, Maven coordinates, chain
tie-breaks, leaks and javadoc text, worked out by hand from the Java.

LOC by hand: CommentService.processComment 22–28 = 7, isCommentEmpty 32–35 = 4
(@SuppressWarnings included), summary 41–46 = 6; TitleFormatter.title 9–11 = 3,
viaShort 14 = 1, viaLong 17–20 = 4, mirror 23–25 = 3, beta = alpha = 1,
shorten 32–35 = 4, joined 42–44 = 3.
"""

import json
import shutil
from pathlib import Path

import pytest

from queries.build import BuildOptions, build_dataset
from queries.schema import ApiRecord, SampleRecord

REPO = Path(__file__).resolve().parents[2]
JAR = Path("/usr/share/java/commons-lang3.jar")
SITE = REPO / ".cache/test-inputs/javadoc/libcommons-lang3-java-doc/usr/share/doc/libcommons-lang3-java/api"
SU = "org.apache.commons.lang3.StringUtils."
LANG3 = "org.apache.commons:commons-lang3:3.12.0"
CS = "com.acme.CommentService."
TF = "com.acme.TitleFormatter."

pytestmark = pytest.mark.skipif(not (JAR.is_file() and SITE.is_dir()),
                                reason="Debian commons-lang3 jar/javadoc (scripts/install-test-deps.sh)")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qe")
    shutil.copytree(REPO / "fixtures/java/qare-example", tmp / "qare-example")
    (tmp / "list.csv").write_text(f"path,classpath,javadoc,stars\nqare-example,{JAR},{SITE},42\n")
    res = build_dataset(tmp / "list.csv", tmp / "out",
                        BuildOptions(api_count_range=(0, 9), discover_classpath=False, comments="any"),
                        quiet=True)  # isCommentEmpty has a // comment (Q-ARE's figure)
    samples = {d["method"]: SampleRecord.from_dict(d)
               for d in map(json.loads, (tmp / "out/samples.jsonl").read_text().splitlines())}
    apis = {d["signature"]: ApiRecord.from_dict(d)
            for d in map(json.loads, (tmp / "out/apis.jsonl").read_text().splitlines())}
    return res, samples, apis


def test_qare_figure_chain_with_exact_signatures(built):
    res, samples, _ = built
    s = samples[CS + "processComment(java.lang.String)"]
    (t,) = s.targets
    assert t.to_dict() == {
        "api": SU + "isBlank", "signature": SU + "isBlank(java.lang.CharSequence)", "class": SU[:-1],
        "library": LANG3, "depth": 3,
        "chain": [CS + "processComment(java.lang.String)", CS + "isCommentEmpty(java.lang.String)",
                  SU + "isBlank(java.lang.CharSequence)"],
        "chain_loc": 11, "density": 1 / 11, "resolution": "exact",
        # fixtures/java/qare-example CommentService.java by hand: the calls at lines 23 and 34
        "call_sites": [{"file": "src/main/java/com/acme/CommentService.java", "line": 23},
                       {"file": "src/main/java/com/acme/CommentService.java", "line": 34}]}
    assert (s.n_direct_apis, s.depth_max, s.depth_min, s.density, s.loc) == (0, 3, 3, 1 / 11, 7)
    e = samples[CS + "isCommentEmpty(java.lang.String)"]
    assert e.query == "Checks whether a comment is empty. A comment of whitespace only counts as empty."
    assert (e.n_direct_apis, e.depth_max, e.density) == (1, 2, 1 / 4)
    assert [t.signature for t in samples[CS + "summary()"].targets] == [SU + "join(java.lang.Iterable,java.lang.String)"]
    # count() reaches nothing; the test source set's main() is not a candidate
    assert CS + "count()" not in samples and "com.acme.CommentServiceTest.main(java.lang.String[])" not in samples
    assert res.counts["candidates"] == 10 and res.counts["dropped_no_targets"] == 1 and res.counts["samples"] == 9


def test_chain_tie_breaks_and_union_density(built):
    _, samples, _ = built

    def chain(m, i=0):
        return [c.split("(")[0].rsplit(".", 1)[-1] for c in samples[TF + m].targets[i].chain]

    # title: viaShort (1 line) beats viaLong (4 lines) at equal depth
    assert chain("title(java.lang.String)") == ["title", "viaShort", "capitalize"]
    assert samples[TF + "title(java.lang.String)"].targets[0].chain_loc == 4
    # mirror: alpha and beta equally long → lexicographic
    assert chain("mirror(java.lang.String)") == ["mirror", "alpha", "reverse"]
    sh = samples[TF + "shorten(java.lang.String)"]
    assert [(t.signature, t.depth, t.chain_loc) for t in sh.targets] == [
        (SU + "abbreviate(java.lang.String,int)", 2, 4), (SU + "reverse(java.lang.String)", 3, 5)]
    assert sh.density == 1 / 5  # union {shorten 4, alpha 1}; helperAbbrev is on no chain
    assert [t.signature for t in samples[TF + "joined(java.lang.String[])"].targets] == [SU + "join(java.lang.Object[],char)"]


def test_leaks_from_query_text(built):
    _, samples, _ = built
    # "capitalize" and "join" are common English words, not names that give a target away (queries/leaks.py)
    assert samples[TF + "title(java.lang.String)"].leaks == ()
    assert samples[TF + "joined(java.lang.String[])"].query == "Joins parts; join is overloaded in commons-lang3."
    assert samples[TF + "joined(java.lang.String[])"].leaks == ()
    assert samples[CS + "processComment(java.lang.String)"].leaks == ()


def test_apis_from_the_javadoc_site(built):
    _, _, apis = built
    assert sorted(apis) == sorted(SU + m for m in (
        "abbreviate(java.lang.String,int)", "capitalize(java.lang.String)", "isBlank(java.lang.CharSequence)",
        "join(java.lang.Iterable,java.lang.String)", "join(java.lang.Object[],char)", "reverse(java.lang.String)"))
    blank = apis[SU + "isBlank(java.lang.CharSequence)"]
    assert (blank.doc_source, blank.library) == ("javadoc", LANG3)
    assert blank.first_sentence == 'Checks if a CharSequence is empty (""), null or whitespace only.'
    assert [p.name for p in blank.params] == ["cs"]
