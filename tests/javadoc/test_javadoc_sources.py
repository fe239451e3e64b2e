"""Doc comments read from sources (a folder and a -sources.jar zipped here)
compared with the javadoc site the JDK 17 tool generates from the same
sources."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import javalang.javadoc
import pytest

from javadoc import DocIndex, SiteLayout, read_site, read_sources

P = "com.acme.docs"
FIXTURE_SRC = Path(__file__).resolve().parents[2] / "fixtures" / "javadoc" / "src"


def _norm(x):
    return re.sub(r"\s+", " ", x).strip() if isinstance(x, str) else x


@pytest.fixture(scope="module")
def sources_jar(tmp_path_factory):
    jar = tmp_path_factory.mktemp("srcjar") / "acme-1.0-sources.jar"
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(FIXTURE_SRC.rglob("*.java")):
            zf.write(f, f.relative_to(FIXTURE_SRC).as_posix())
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    return jar


@pytest.fixture(scope="module")
def site17(generated_sites):
    return read_site(str(generated_sites["jdk17"]), workers=1)


@pytest.mark.parametrize("form", ["folder", "jar"])
def test_sources_agree_with_site(site17, sources_jar, form):
    src = read_sources(str(FIXTURE_SRC if form == "folder" else sources_jar))
    assert src.layout is SiteLayout.SOURCES
    assert not src.warnings
    site = {m.id: m for m in site17.members}
    mine = {m.id: m for m in src.members}
    implicit = {f"{P}.Color.values()", f"{P}.Color.valueOf(java.lang.String)",
                f"{P}.Point.<init>(int,int)", f"{P}.Point.x()", f"{P}.Point.y()",
                f"{P}.Point.toString()", f"{P}.Point.hashCode()", f"{P}.Point.equals(java.lang.Object)",
                f"{P}.Widget.Part.Detail.<init>()"}
    assert set(mine) == set(site) - implicit
    for mid, r in mine.items():
        s = site[mid]
        assert r.doc_source == "sources" and s.doc_source == "javadoc"
        assert (r.kind, r.api, r.class_) == (s.kind, s.api, s.class_), mid
        assert r.throws == s.throws, mid
        assert tuple((n, _norm(t)) for n, t in r.params) == tuple((n, _norm(t)) for n, t in s.params), mid
        assert _norm(r.deprecated) == _norm(s.deprecated), mid
        assert _norm(r.first_sentence) == _norm(s.first_sentence), mid
        assert _norm(r.description) == _norm(s.description), mid
        assert _norm(r.returns) == _norm(s.returns), mid
    # {@value #UNIT}: the constant's value, as javadoc shows it
    assert mine[f"{P}.Shape.area(double)"].returns == 'the area in "cm2"'
    sc = {c.fqn: c for c in site17.classes}
    for c in src.classes:
        assert c.kind == sc[c.fqn].kind
        assert _norm(c.description) == _norm(sc[c.fqn].description), c.fqn
    assert {c.fqn for c in src.classes} == set(sc)


def test_pre_guard_keeps_override_in_description():
    raw = (FIXTURE_SRC / "com/acme/docs/Widget.java").read_text()
    start = raw.index("/**\n     * Runs a task")
    comment = raw[start: raw.index("*/", start) + 2]
    # javalang alone takes "@Override" inside <pre> for a block tag
    assert "Override" in javalang.javadoc.parse(comment).tags
    r = read_sources(str(FIXTURE_SRC))
    run = {m.id: m for m in r.members}[f"{P}.Widget.run(java.lang.Runnable)"]
    assert run.description == (
        "Runs a task; a subclass looks like this:\n"
        "@Override\n"
        "public void run(Map<String, Integer> counts) {\n"
        '    counts.merge("runs", 1, Integer::sum);\n'
        "}\n"
        "Nothing else happens.")
    assert run.params == (("task", "the task, not null"),)


def test_name_resolution_rules(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "Other.java").write_text("package p;\npublic class Other { public static class In {} }\n")
    (tmp_path / "p" / "A.java").write_text(
        "package p;\n"
        "import java.util.*;\n"
        "import java.io.File;\n"
        "import p.Other.In;\n"
        "/** A. */\n"
        "public class A<T extends Comparable<? super T>> {\n"
        "  /** Nested. */\n"
        "  public interface Node { }\n"
        "  /**\n   * M.\n   * @param a x\n   * @throws IllegalStateException never\n"
        "   * @throws FileNotFoundException sometimes\n   */\n"
        "  public <E extends Node> void m(List<String> a, File f, Other o, In i, Node n, E e, T t,\n"
        "      java.util.Map.Entry<String, T>[] es, int legacy[], String... rest) {}\n"
        "  void hidden() {}\n"
        "  /** Static: outer type variables are not in scope. */\n"
        "  public static <T> T id(T t) { return t; }\n"
        "}\n")
    ds = read_sources(str(tmp_path))
    ids = {m.id for m in ds.members}
    # List comes from an on-demand import of a package outside the source
    # set: kept as written (documented limit).
    assert ids == {
        ("p.A.m(List,java.io.File,p.Other,p.Other.In,p.A.Node,p.A.Node,java.lang.Comparable,"
         "java.util.Map.Entry[],int[],java.lang.String...)"),
        "p.A.id(java.lang.Object)",
    }
    m = next(x for x in ds.members if x.api == "p.A.m")
    assert m.throws == (("java.lang.IllegalStateException", "never"), ("FileNotFoundException", "sometimes"))


def test_value_tags(tmp_path):
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "K.java").write_text(
        "package q;\n"
        "public class K {\n"
        "  public static final int HEX = 0x1F;\n"
        "  public static final long BIG = 1_000L;\n"
        "  public static final char C = 'x';\n"
        "  public final int notConstant = 3;\n"
        "  /** Uses {@value #HEX}, {@value K#BIG}, {@value q.K#C}, {@value #notConstant}, {@value L#Z}. */\n"
        "  public void m() {}\n"
        "}\n"
        "interface L { String Z = \"z\"; }\n")
    m, = [x for x in read_sources(str(tmp_path)).members if x.api == "q.K.m"]
    assert m.description == 'Uses 31, 1000, \'x\', notConstant, "z".'


def test_index_prefers_site_over_sources(generated_sites):
    idx = DocIndex.open(str(FIXTURE_SRC), str(generated_sites["jdk17"]))
    assert idx.get(f"{P}.Widget.render(int)").doc_source == "javadoc"
    assert idx.get(f"{P}.Color.values()").doc_source == "javadoc"
    only_src = DocIndex.open(str(FIXTURE_SRC))
    assert only_src.get(f"{P}.Widget.render(int)").to_dict()["doc_source"] == "sources"
    assert only_src.get_class(f"{P}.Point").kind == "record"


def test_members_of_package_private_supertypes(tmp_path):
    """javadoc shows the public/protected members a public class inherits
    from a package-private supertype as its own; the sources reader does
    the same (checked against the JDK 17 tool on the same sources)."""
    src = tmp_path / "src" / "p"
    src.mkdir(parents=True)
    (src / "Base.java").write_text(
        "package p;\n"
        "abstract class Base<T> implements Runnable {\n"
        "    /** A constant of the base. */\n    public static final int LIMIT = 3;\n"
        "    /** A field of the base. */\n    protected int count;\n"
        "    /**\n     * Encodes a value.\n     * @param value the value\n     * @return the text\n     */\n"
        "    public String encode(T value) { return \"\"; }\n"
        "    /** Runs. */\n    public void run() {}\n"
        "    /** Hidden helper. */\n    void helper() {}\n"
        "    /** Overridden below. */\n    public void over() {}\n"
        "}\n")
    (src / "Sub.java").write_text(
        "package p;\n/** The public subclass. */\npublic class Sub extends Base<String> {\n"
        "    /** Sub's own. */\n    public void own() {}\n"
        "    @Override\n    public void over() {}\n}\n")
    tool = "/usr/lib/jvm/java-17-openjdk-amd64/bin/javadoc"
    if not Path(tool).exists():
        pytest.skip(f"{tool} missing")
    subprocess.run([tool, "-quiet", "-Xdoclint:none", "-d", str(tmp_path / "site"), "-sourcepath",
                    str(tmp_path / "src"), "p"], check=True, capture_output=True, timeout=300)
    site = {m.id: m for m in read_site(str(tmp_path / "site")).members}
    mine = {m.id: m for m in read_sources(str(tmp_path / "src")).members}
    assert set(site) - set(mine) == {"p.Sub.<init>()"}  # the default constructor
    assert set(mine) == {"p.Sub.own()", "p.Sub.over()", "p.Sub.LIMIT", "p.Sub.count",
                         "p.Sub.encode(java.lang.Object)", "p.Sub.run()"}
    for mid, r in mine.items():
        s = site[mid]
        assert (r.kind, r.class_, r.description, r.params, r.returns) == (
            s.kind, s.class_, s.description, s.params, s.returns), mid
    assert mine["p.Sub.over()"].description == "Overridden below."  # inherited comment


def test_inherit_doc_against_javadoc(tmp_path):
    src = tmp_path / "src" / "q"
    src.mkdir(parents=True)
    (src / "Shape.java").write_text(
        "package q;\n/** Shapes. */\npublic interface Shape {\n"
        "    /**\n     * Computes the area.\n     * @param scale the scale\n     * @return the area\n"
        "     * @throws IllegalStateException when closed\n     */\n"
        "    double area(double scale) throws IllegalStateException;\n"
        "    /**\n     * Names it.\n     * @param <T> a type\n     * @param kind the kind\n     * @return a name\n     */\n"
        "    <T> String name(T kind);\n}\n")
    (src / "Square.java").write_text(
        "package q;\n/** A square. {@inheritDoc} */\npublic class Square implements Shape {\n"
        "    /** Squares it. {@inheritDoc} Exactly. */\n"
        "    public double area(double s) throws IllegalStateException { return s; }\n"
        "    public <U> String name(U k) { return \"\"; }\n"
        "    /** A width. {@inheritDoc} */\n    public int width;\n}\n")
    tool = "/usr/lib/jvm/java-17-openjdk-amd64/bin/javadoc"
    if not Path(tool).exists():
        pytest.skip(f"{tool} missing")
    subprocess.run([tool, "-quiet", "-Xdoclint:none", "-d", str(tmp_path / "site"), "-sourcepath",
                    str(tmp_path / "src"), "q"], check=True, capture_output=True, timeout=300)
    site = {m.id: m for m in read_site(str(tmp_path / "site")).members}
    mine = {m.id: m for m in read_sources(str(tmp_path / "src")).members}
    for mid in ("q.Square.area(double)", "q.Square.name(java.lang.Object)"):
        s, r = site[mid], mine[mid]
        assert (r.description, r.first_sentence, r.params, r.returns, r.throws) == (
            s.description, s.first_sentence, s.params, s.returns, s.throws), mid
    assert mine["q.Square.area(double)"].description == "Squares it. Computes the area. Exactly."
    assert mine["q.Square.name(java.lang.Object)"].params == (("<U>", "a type"), ("k", "the kind"))
    # nothing to inherit for a field or a class: the tag is dropped
    assert mine["q.Square.width"].description == "A width." == site["q.Square.width"].description
