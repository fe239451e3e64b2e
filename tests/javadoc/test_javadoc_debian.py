"""Real javadoc sites from Debian -doc packages (JDK 8, 11 and 17 layouts),
unpacked by scripts/install-test-deps.sh. Member counts were measured with
independent tools (see /work/shared/reference/javadoc-layouts.md) and agree
with the sites' member-search-index.js where one exists; records were checked
by reading the HTML."""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from urllib.parse import unquote

import pytest
from lxml import etree

from javadoc import DocIndex, SiteLayout, read_site

SITES = {
    # package: (layout, methods, constructors, fields, enum constants, class pages)
    "libcommons-digester-java-doc": ("jdk8", 457, 188, 216, 0, 96),
    "libcommons-codec-java-doc": ("jdk11", 547, 129, 59, 14, 76),
    "libcommons-io-java-doc": ("jdk11", 1306, 335, 119, 11, 178),
    "libjsoup-java-doc": ("jdk11", 995, 101, 32, 21, 117),
    "libcommons-lang3-java-doc": ("jdk17", 2800, 227, 320, 34, 223),
    # counted here with grep: <h4> headings of the class pages (187 = 137 + 29 + 21)
    "libanimal-sniffer-java-doc": ("jdk8", 137, 29, 21, 0, 28),
    # JDK 8 layout with generics; counted here with grep (<h4>: 7959)
    "libcommons-math3-java-doc": ("jdk8", 5829, 1415, 265, 450, 926),
    # annotation types; agrees with its member-search-index.js (below)
    "libjackson2-annotations-java-doc": ("jdk17", 236, 25, 37, 66, 69),
}


# (members, classes) the search index leaves out: classes extending a
# package-private supertype (RFC1522Codec, AbstractFileComparator, jsoup's
# LeafNode and TreeBuilder).
_IO = "org.apache.commons.io.comparator."
INHERITED_FROM_NON_PUBLIC = {
    "libcommons-codec-java-doc": (12, {"org.apache.commons.codec.net.BCodec",
                                       "org.apache.commons.codec.net.QCodec"}),
    "libcommons-io-java-doc": (19, {_IO + c for c in (
        "CompositeFileComparator", "DefaultFileComparator", "DirectoryFileComparator",
        "ExtensionFileComparator", "LastModifiedFileComparator", "NameFileComparator",
        "PathFileComparator", "SizeFileComparator")}),
    "libjsoup-java-doc": (115, {"org.jsoup.nodes." + c for c in (
        "CDataNode", "Comment", "DataNode", "DocumentType", "TextNode", "XmlDeclaration")}
        | {"org.jsoup.parser.HtmlTreeBuilder", "org.jsoup.parser.XmlTreeBuilder"}),
    "libcommons-lang3-java-doc": (0, set()),
    "libjackson2-annotations-java-doc": (7, {"com.fasterxml.jackson.annotation.ObjectIdGenerators." + c for c in (
        "IntSequenceGenerator", "PropertyGenerator", "UUIDGenerator")}),
}


@pytest.fixture(scope="module")
def read(debian):
    cache = {}

    def get(pkg):
        if pkg not in cache:
            cache[pkg] = read_site(str(debian(pkg)))
        return cache[pkg]

    return get


@pytest.mark.parametrize("pkg", sorted(SITES))
def test_counts_and_layout(read, pkg):
    layout, methods, ctors, fields, consts, pages = SITES[pkg]
    ds = read(pkg)
    assert ds.layout == SiteLayout(layout)
    kinds = Counter(m.kind for m in ds.members)
    assert (kinds["method"], kinds["constructor"], kinds["field"], kinds["enum_constant"]) == (
        methods, ctors, fields, consts)
    assert ds.pages == pages == len(ds.classes)
    if pkg == "libjackson2-annotations-java-doc":
        assert kinds["annotation_element"] == 72
        assert Counter(c.kind for c in ds.classes) == {"annotation": 38, "class": 18, "enum": 11, "interface": 2}
    assert not ds.warnings
    ids = [m.id for m in ds.members]
    assert len(ids) == len(set(ids))
    assert all("<" not in i.split("(")[1] or i.split("(")[0].endswith("<init>") for i in ids if "(" in i)


@pytest.mark.parametrize("pkg", [p for p, v in SITES.items() if v[0] != "jdk8"])
def test_search_index_agrees(read, debian, pkg):
    site = debian(pkg)
    text = (site / "member-search-index.js").read_text("utf-8")
    entries = json.loads(text[text.index("["): text.rindex("]") + 1])
    from_index = {(f"{e['p']}.{e['c']}", unquote(e.get("u") or e.get("url") or e["l"])) for e in entries}
    mine = {(m.class_, m.anchor) for m in read(pkg).members}
    # JDK 11 indexes name a generic member by its type-variable anchor (the
    # last of its run of anchors), which ApiDoc.anchor keeps. The index omits
    # members inherited from package-private supertypes; pages show them.
    assert from_index <= mine
    assert len(mine - from_index) == INHERITED_FROM_NON_PUBLIC[pkg][0]
    assert {c for c, _ in mine - from_index} == INHERITED_FROM_NON_PUBLIC[pkg][1]


def test_lang3_isblank(read):
    idx = DocIndex([read("libcommons-lang3-java-doc")])
    r = idx.get("org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)")
    assert r.to_dict() == {
        "api": "org.apache.commons.lang3.StringUtils.isBlank",
        "signature": "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)",
        "class": "org.apache.commons.lang3.StringUtils",
        "library": None,
        "description": (
            'Checks if a CharSequence is empty (""), null or whitespace only.\n\n'
            "Whitespace is defined by Character.isWhitespace(char).\n\n"
            "StringUtils.isBlank(null)      = true\n"
            'StringUtils.isBlank("")        = true\n'
            'StringUtils.isBlank(" ")       = true\n'
            'StringUtils.isBlank("bob")     = false\n'
            'StringUtils.isBlank("  bob  ") = false'),
        "first_sentence": 'Checks if a CharSequence is empty (""), null or whitespace only.',
        "params": [{"name": "cs", "text": "the CharSequence to check, may be null"}],
        "returns": "true if the CharSequence is null, empty or whitespace only",
        "throws": [],
        "deprecated": None,
        "doc_source": "javadoc",
        "doc_model": None,  # the apis.jsonl record (records.ApiRecord) has it too
        "doc_from": None,  # documented itself, nothing copied from an overridden member
    }
    assert r.signature_text == "public static boolean isBlank(CharSequence cs)"
    assert r.layout is SiteLayout.JDK17
    assert len(idx.by_name("org.apache.commons.lang3.StringUtils.join")) > 20


def test_jackson_annotation_element(read):
    idx = DocIndex([read("libjackson2-annotations-java-doc")])
    v = idx.get("com.fasterxml.jackson.annotation.JsonProperty.value()")
    assert v.kind == "annotation_element"
    assert v.first_sentence == "Defines name of the logical property, i.e."  # as javadoc's summary says
    assert v.description.startswith("Defines name of the logical property, i.e. JSON object field name")
    assert v.signature_text == "String value"
    c = idx.get_class("com.fasterxml.jackson.annotation.JsonProperty")
    assert c.kind == "annotation"
    assert c.signature_text.endswith("public @interface JsonProperty")


def test_animal_sniffer_jdk8_arrays(read):
    idx = DocIndex([read("libanimal-sniffer-java-doc")])
    # anchor "Clazz-java.lang.String-java.util.Set-java.lang.String-java.lang.String:A-"
    c = idx.get("org.codehaus.mojo.animal_sniffer.Clazz.<init>(java.lang.String,java.util.Set,"
                "java.lang.String,java.lang.String[])")
    assert c is not None and c.kind == "constructor"
    assert idx.get("org.codehaus.mojo.animal_sniffer.Main.main(java.lang.String[])") is not None


def test_jdk8_generic_anchors(read):
    # <a name="addSamplePoint-org.apache.commons.math3.FieldElement-org.apache.commons.math3.FieldElement:A:A-">
    # <a name="addSamplePoint-T-T:A...-">   for  addSamplePoint(T x, T[]... value)
    idx = DocIndex([read("libcommons-math3-java-doc")])
    a = idx.get("org.apache.commons.math3.analysis.interpolation.FieldHermiteInterpolator.addSamplePoint("
                "org.apache.commons.math3.FieldElement,org.apache.commons.math3.FieldElement[]...)")
    assert a is not None and a.anchor == "addSamplePoint-T-T:A...-"
    e = idx.get("org.apache.commons.math3.geometry.enclosing.EnclosingBall.<init>("
                "org.apache.commons.math3.geometry.Point,double,org.apache.commons.math3.geometry.Point...)")
    assert e is not None and e.kind == "constructor"
    m = idx.get("org.apache.commons.math3.util.MathArrays.isMonotonic(java.lang.Comparable[],"
                "org.apache.commons.math3.util.MathArrays.OrderDirection,boolean)")
    assert m is not None and m.params[0][0] == "<T>"


def test_classic_class_records(read):
    d = DocIndex([read("libcommons-digester-java-doc")]).get_class("org.apache.commons.digester.Digester")
    assert d.signature_text == "public class Digester extends org.xml.sax.helpers.DefaultHandler"
    assert d.first_sentence == ("A Digester processes an XML input stream by matching a series of element "
                                "nesting patterns to execute Rules that have been added prior to the start "
                                "of parsing.")
    codec = DocIndex([read("libcommons-codec-java-doc")])
    b = codec.get_class("org.apache.commons.codec.binary.Base64")
    assert (b.kind, b.signature_text, b.deprecated) == ("class", "public class Base64 extends BaseNCodec", None)
    assert b.first_sentence == "Provides Base64 encoding and decoding as defined by RFC 2045."
    assert codec.get_class("org.apache.commons.codec.language.Caverphone").deprecated == (
        "1.5 Replaced by Caverphone2, will be removed in 2.0.")


def test_digester_jdk8_records(read):
    idx = DocIndex([read("libcommons-digester-java-doc")])
    d = idx.get("org.apache.commons.digester.Digester.getDebug()")
    assert d.deprecated == (
        "This method now always returns 0. Digester uses the apache jakarta commons-logging "
        "library; see the documentation for that library for more information.")
    assert d.description == "Return the debugging detail level of our currently enabled logger."
    assert d.signature_text == "public int getDebug()"
    c = idx.get("org.apache.commons.digester.Digester.<init>(javax.xml.parsers.SAXParser)")
    assert c.kind == "constructor"
    assert c.first_sentence == "Construct a new Digester, allowing a SAXParser to be passed in."
    g = idx.get("org.apache.commons.digester.Digester.getClassLoader()")
    assert g.description.endswith(
        "rules:\n- The class loader set by setClassLoader(), if any\n"
        "- The thread context class loader, if it exists and the useContextClassLoader property "
        "is set to true\n- The class loader used to load the Digester class itself.")
    s = idx.get("org.apache.commons.digester.Digester.setDebug(int)")
    assert s.params == (("debug", "New debugging detail level (0=off, increasing integers for more detail)"),)


def test_jdk11_records(read):
    codec = DocIndex([read("libcommons-codec-java-doc")])
    r = codec.get("org.apache.commons.codec.binary.Base64.decodeBase64(java.lang.String)")
    assert r.description == ("Decodes a Base64 String into octets.\n\n"
                             "Note: this method seamlessly handles data encoded in URL-safe or normal mode.")
    assert r.params == (("base64String", "String containing Base64 data"),)
    assert r.returns == "Array containing decoded data."
    assert codec.get("org.apache.commons.codec.binary.Base64.<init>(boolean)").kind == "constructor"

    io = DocIndex([read("libcommons-io-java-doc")])
    a = io.get("org.apache.commons.io.function.IOFunction.apply(java.lang.Object)")  # apply(T)
    assert a.throws == (("java.io.IOException", "if the function throws an IOException"),)
    assert a.params == (("t", "the function argument"),)
    # "Description copied from class" label dropped, the copied text kept
    u = io.get("org.apache.commons.io.file.AccumulatorPathVisitor.updateDirCounter"
               "(java.nio.file.Path,java.io.IOException)")
    assert u.description == "Updates the counter for visiting the given directory."

    jsoup = DocIndex([read("libjsoup-java-doc")])
    p = jsoup.get("org.jsoup.Jsoup.parse(java.lang.String)")
    assert p.description == ("Parse HTML into a Document. As no base URI is specified, absolute URL "
                             "resolution, if required, relies on the HTML including a <base href> tag.")
    assert p.returns == "sane HTML"


def test_process_pool_gives_the_same_result(read, debian):
    serial = read("libcommons-io-java-doc")
    pooled = read_site(str(debian("libcommons-io-java-doc")), workers=2)
    assert pooled.members == serial.members and pooled.classes == serial.classes
    assert pooled.warnings == serial.warnings == ()


def _index_all_members(root) -> set[tuple[str, str]]:
    """(page, anchor) of the member entries of a JDK 8 site's index-all.html:
    the site's own index, independent of the class pages."""
    out = set()
    for a in etree.parse(str(root / "index-all.html"), etree.HTMLParser(no_network=True)).iter("a"):
        span = a.getparent()
        if span is None or "memberNameLink" not in (span.get("class") or "").split():
            continue
        if span.getparent() is None or span.getparent().tag != "dt":
            continue
        path, _, anchor = (a.get("href") or "").partition("#")
        if anchor:
            out.add((posixpath.normpath(path), unquote(anchor)))
    return out


@pytest.mark.parametrize("pkg", ["libcommons-digester-java-doc", "libanimal-sniffer-java-doc",
                                 "libcommons-math3-java-doc"])
def test_jdk8_index_all_agrees(read, debian, pkg):
    ds = read(pkg)
    kinds = {(m.location, m.anchor): m.kind for m in ds.members}
    index = _index_all_members(debian(pkg))
    assert index <= set(kinds)
    extra = {k for k in set(kinds) - index if kinds[k] != "enum_constant"}
    # javadoc 8's index leaves out enum constants, and the members that
    # SecondMoment and MonotoneChain show as inherited from superclasses their
    # pages do not name (package-private ones)
    if pkg == "libcommons-math3-java-doc":
        assert {p for p, _ in extra} == {
            "org/apache/commons/math3/stat/descriptive/moment/SecondMoment.html",
            "org/apache/commons/math3/geometry/euclidean/twod/hull/MonotoneChain.html"}
        assert len(extra) == 9
        assert sum(1 for k in kinds.values() if k == "enum_constant") == 450
    else:
        assert extra == set()
