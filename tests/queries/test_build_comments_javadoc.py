"""Issue 10 parts 4–5: which comments make queries (Javadoc by default; banners,
wordless text and commented-out code rejected), the leak check, undecided
overloads' docs, distinct API names, query languages, --api-count."""

from __future__ import annotations

import json

import pytest

from queries import build as qb
from queries._docs import doc_record
from queries._part import Candidate, ProjectPart
from queries.build import BuildOptions, build_dataset, language_warning, merge_parts
from records import TargetRecord
from queries.comments import Rejection, clean_comment, is_code_line, is_javadoc, reject_description
from queries.leaks import camel_parts, find_leaks, is_common_word
from queries.projects import ProjectSpec
from queries.schema import ApiRecord

# ---------------------------------------------------------------- comments


def test_is_javadoc():
    assert is_javadoc("/** Loads it. */") and is_javadoc("  /**\n * Loads.\n */")
    assert not is_javadoc("/* Loads it. */") and not is_javadoc("// Loads it.")
    assert not is_javadoc("/**/") and not is_javadoc(None) and not is_javadoc("")


@pytest.mark.parametrize("raw, why", [
    # banners and separators (the two junk queries)
    ("/** ===== 1. Parse the request ===== */", Rejection.BANNER),
    ("/** END OF WALK METHODS **** */", Rejection.BANNER),
    ("/**\n * -------------------------------\n * Helpers\n */", Rejection.BANNER),
    ("/** ┌──────┐ */", Rejection.BANNER),
    # no words at all
    ("/** 1. */", Rejection.NO_WORDS),
    ("/** 42 - 7 */", Rejection.NO_WORDS),
    ("/** {@inheritDoc} x */", Rejection.NO_WORDS),
    # commented-out code
    ("/* owner.setName(name); */", Rejection.CODE),
    ("/*\n * if (pet == null) {\n *     return;\n * }\n */", Rejection.CODE),
    ("/** return repository.findAll(); */", Rejection.CODE),
    ("/** @Override */", None),  # a block tag: the description is empty (handled before)
    # prose is kept
    ("/** Loads the owner with the given id. */", None),
    ("/**\n * Creates a note and stores it;\n * the slug is derived from the title.\n */", None),
    ("/**\n * Parses a date.\n * <pre>\n * Dates.parse(\"2024-01-01\");\n * Dates.parse(\"x\");\n * </pre>\n */", None),
    ("/** 根据ID查询用户 */", None),
    ("/** Saves the pet (if it is new). */", None),
    ("/** Fetches the value, e.g. map.get(key) */", None),
])
def test_reject_description(raw, why):
    d = clean_comment(raw)
    assert (reject_description(d) if d else None) == why


def test_code_lines():
    code = ["int x = 1;", "foo.bar(x);", "break;", "}", "if (a) {", "for (Pet p : pets) {", "return x;",
            "import java.util.List;", "@Transactional", "@GetMapping(\"/owners\")", "// old", "user.setName(name)"]
    prose = ["Creates a note and stores it;", "Returns the owner (never null).", "See the manual: section 2",
             "Loads owners, pets and visits", "Uses map.get(key) when cached.", "Returns: the owner"]
    assert [c for c in code if not is_code_line(c)] == []
    assert [p for p in prose if is_code_line(p)] == []


# ---------------------------------------------------------------- leaks


def T(api, cls=None):
    return {"api": api, "class": cls or api.rsplit(".", 1)[0]}


def test_camel_parts_and_common_words():
    assert camel_parts("StringUtils") == ["string", "utils"]
    assert camel_parts("decodeBase64") == ["decode", "base", "64"]
    assert camel_parts("HTTPClient") == ["http", "client"]
    assert is_common_word("value") and is_common_word("trim") and is_common_word("Arguments")
    assert not is_common_word("uuid") and not is_common_word("md5")


@pytest.mark.parametrize("query, targets, want", [
    # ordinary words are no leak (the "value", "arguments")
    ("Returns the value of the given arguments.", [T("a.Cfg.value"), T("a.Cli.arguments")], []),
    ("Trims the name and saves it.", [T("org.apache.commons.lang3.StringUtils.trim")], []),
    ("Checks whether the title is blank.", [T("org.apache.commons.lang3.StringUtils.isBlank")], []),
    # a distinctive method name as a token (any case)
    ("Decodes the token with decodeBase64.", [T("org.apache.commons.codec.binary.Base64.decodeBase64")],
     ["decodeBase64"]),
    ("Checks isBlank first.", [T("a.S.isBlank")], ["isBlank"]),
    ("Uses isBlanked", [T("a.S.isBlank")], []),
    # the class: simple name, or its camel-case words in order
    ("Trims with StringUtils.", [T("org.apache.commons.lang3.StringUtils.trim")], ["StringUtils"]),
    ("Parses the text with the object mapper.", [T("com.fasterxml.jackson.databind.ObjectMapper.readValue")],
     ["ObjectMapper"]),
    ("Maps the object to JSON.", [T("com.fasterxml.jackson.databind.ObjectMapper.writeValueAsString")], []),
    ("Generates a new uuid for the order.", [T("java.util.UUID.randomUUID")], ["UUID"]),
    ("Computes the md5 of the file.", [T("org.apache.commons.codec.digest.DigestUtils.md5Hex")], []),
    # a one-part common-word class leaks only capitalised after the first token
    ("Returns an Optional of the owner.", [T("java.util.Optional.of")], ["Optional"]),
    ("Optional fields are skipped.", [T("java.util.Optional.of")], []),
    ("Reads an optional field.", [T("java.util.Optional.of")], []),
    # constructors: by class only
    ("Builds a Parser for it", [T("org.x.Parser.<init>")], ["Parser"]),
    ("Builds a JsonParser", [T("org.x.Parser.<init>")], []),
    # nested class by its own name
    ("Creates a Builder entry", [T("a.Outer.Builder.build", "a.Outer.Builder")], ["Builder"]),
])
def test_find_leaks(query, targets, want):
    assert find_leaks(query, targets) == want


# ---------------------------------------------------------------- build: comment selection

IMP = "import org.apache.commons.lang3.StringUtils;\n"
SRC = "package p;\n" + IMP + """public class C {
    /** Trims a title before it is stored. */
    public String a(String s) { return StringUtils.trim(s); }

    // Strips a title before it is stored.
    public String b(String s) { return StringUtils.strip(s); }

    /** ===== 2. Helpers ===== */
    public String c(String s) { return StringUtils.chop(s); }

    /** return StringUtils.chomp(s); */
    public String d(String s) { return StringUtils.chomp(s); }

    /** Reverses a title, then upper-cases it. */
    public String e(String s) { return up(StringUtils.reverse(s)); }

    private String up(String s) { return StringUtils.upperCase(StringUtils.deleteWhitespace(s)); }
}
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "src/main/java/p").mkdir(parents=True)
    (root / "src/main/java/p/C.java").write_text(SRC, encoding="utf-8")
    return ProjectSpec(source=str(root), name="proj")


def _methods(out):
    return sorted(json.loads(x)["method"].split("(")[0].rsplit(".", 1)[1]
                  for x in (out / "samples.jsonl").read_text().splitlines())


def test_javadoc_is_the_default_comment_source(project, tmp_path):
    common = dict(discover_classpath=False, jdk=None, require_docs=False, api_count_range=(0, 9), facts_cache_dir=None)
    res = build_dataset([project], tmp_path / "o1", BuildOptions(**common), quiet=True)
    assert _methods(tmp_path / "o1") == ["a", "e"]
    counts = res.projects[0]["counts"]
    assert (counts["commented"], counts["not_javadoc"], counts["rejected_banner"], counts["rejected_code"],
            counts["candidates"]) == (5, 1, 1, 1, 2)
    build_dataset([project], tmp_path / "o2", BuildOptions(comments="any", **common), quiet=True)
    assert _methods(tmp_path / "o2") == ["a", "b", "e"]


def test_api_count_direct_and_reached(project, tmp_path):
    # e() calls reverse directly (1) and reaches upperCase, deleteWhitespace through up(): 3 in all; a() 1 and 1
    common = dict(discover_classpath=False, jdk=None, require_docs=False, api_count_range=(2, 5), facts_cache_dir=None)
    build_dataset([project], tmp_path / "o1", BuildOptions(**common), quiet=True)
    assert _methods(tmp_path / "o1") == []
    res = build_dataset([project], tmp_path / "o2", BuildOptions(api_count="reached", **common), quiet=True)
    assert _methods(tmp_path / "o2") == ["e"]
    assert json.loads((tmp_path / "o2/manifest.json").read_text())["parameters"]["api_count"] == "reached"
    assert res.counts["dropped_api_count"] == 1
    with pytest.raises(qb.BuildError):
        Candidate(method="a.B.c()", file="B.java", start_line=1, end_line=1, loc=1, comment="/** C. */",
                  description="C.", query="C.", lang="en", n_direct_apis=1, n_reached_apis=1,
                  targets=()).api_count("both")


# ---------------------------------------------------------------- undecided overloads


class _Doc:
    def __init__(self, sig, text):
        self.d = ApiRecord(api=sig.split("(")[0], signature=sig, class_="b.B64", library=None,
                           description=text, first_sentence=text, doc_source="javadoc").to_dict()

    def to_dict(self):
        return dict(self.d)


class _Index:
    def __init__(self, docs):
        self.docs = {d.d["signature"]: d for d in docs}

    def get(self, sig):
        return self.docs.get(sig)

    def by_name(self, name):
        return [d for s, d in self.docs.items() if s.split("(")[0] == name]


def test_undecided_overload_gets_no_single_overloads_doc():
    star = TargetRecord(api="b.B64.decode", signature=None, class_="b.B64", library=None)
    exact = TargetRecord(api="b.B64.decode", signature="b.B64.decode(java.lang.String)", class_="b.B64", library=None)
    differ = _Index([_Doc("b.B64.decode(byte[])", "Decodes bytes."), _Doc("b.B64.decode(java.lang.String)", "Decodes a string.")])
    assert doc_record(differ, star) is None  # which overload runs is unknown
    assert doc_record(differ, exact).description == "Decodes a string."
    same = _Index([_Doc("b.B64.decode(byte[])", "Decodes."), _Doc("b.B64.decode(java.lang.String)", "Decodes.")])
    rec = doc_record(same, star)
    assert rec.description == "Decodes." and rec.signature is None
    single = _Index([_Doc("b.B64.decode(byte[])", "Decodes bytes.")])
    assert doc_record(single, star).description == "Decodes bytes."


# ---------------------------------------------------------------- names, languages


def _cand(method, query, lang, targets):
    return Candidate(method=method, file="C.java", start_line=1, end_line=2, loc=2, comment="/** x */",
                     description=query, query=query, lang=lang, n_direct_apis=len(targets),
                     n_reached_apis=len(targets), targets=tuple(targets), depth_max=2, depth_min=2, density=0.5)


def _t(node):
    api = node.split("(")[0]
    return TargetRecord(api=api, signature=None if node.endswith("(*)") else node, class_=api.rsplit(".", 1)[0],
                        library=None, depth=2, chain=("p.C.m()", node), chain_loc=2, density=0.5,
                        resolution="exact")


def test_distinct_api_names_and_languages(tmp_path):
    a1, a2, b = "x.A.f(int)", "x.A.f(java.lang.String)", "x.B.g(*)"
    part = ProjectPart(fingerprint="f", key="k", spec={}, project="p", apis={a1: None, a2: None, b: None},
                       candidates=[_cand("p.C.m()", "Adds two numbers.", "en", [_t(a1), _t(a2)]),
                                   _cand("p.C.n()", "计算两个数的和", "zh", [_t(b)]),
                                   _cand("p.C.o()", "合并两个列表", "zh", [_t(a1)]),
                                   _cand("p.C.q()", "Sorts the list.", "en", [_t(b)])])
    opts = BuildOptions(require_docs=False, api_count_range=(0, 9))
    m = merge_parts([part], opts, tmp_path).to_dict()
    # two overloads of x.A.f stay two signatures in apis.jsonl but one API name
    assert (m["counts"]["apis"], m["counts"]["api_names"]) == (3, 2)
    assert len((tmp_path / "apis.jsonl").read_text().splitlines()) == 3
    assert m["languages"] == {"en": 2, "zh": 2}
    assert m["counts"]["untranslated_non_english"] == 2
    warn = language_warning(m["counts"], m["languages"])
    assert warn.startswith("warning: 50% of the queries are not English and untranslated (zh 50%)")
    assert "--translate-cmd" in warn
    assert language_warning({"untranslated_non_english": 1}, {"en": 9, "zh": 1}) is None  # 10 % < 20 %


def test_ellipsis_is_prose_not_a_banner():
    # petclinic's VisitController and halo's LanguageUtils (both were rejected as banners once)
    for d in ("Spring MVC calls method loadPetWithVisit(...) before initNewVisitForm is called",
              "Compute all the possible languages: *_gl_ES-gheada, *_gl_ES, _gl... from a given locale."):
        assert reject_description(d) is None
    assert reject_description("Helpers ............") is Rejection.BANNER
