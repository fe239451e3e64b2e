"""Lombok's generated members (fixtures/java/lombok), expected values written by hand
from Lombok's documentation (https://projectlombok.org/features/) and checked once
against ``javap -p`` of the fixture compiled with Lombok 1.18.48 (the comparison
itself runs in ``test_lombok_javac.py`` when javac and Maven Central are there).
These assertions need neither."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, line_of

LOMBOK = FIXTURES / "lombok"
SRC = LOMBOK / "src" / "main" / "java" / "com" / "acme" / "lombok"
SLF4J = Path("/usr/share/java/slf4j-api.jar")
COMMONS_LOGGING = Path("/usr/share/java/commons-logging.jar")
P = "com.acme.lombok."

# every member Lombok generates in the fixture: id → generated_by
EXPECTED = {
    # Person: class-level @Getter/@Setter, @RequiredArgsConstructor; getAge() is written by hand
    P + "Person.<init>(java.lang.String)": "lombok.RequiredArgsConstructor",
    P + "Person.getId()": "lombok.Getter", P + "Person.getName()": "lombok.Getter",
    P + "Person.isActive()": "lombok.Getter", P + "Person.getVerified()": "lombok.Getter",
    P + "Person.isDeleted()": "lombok.Getter", P + "Person.getCreated()": "lombok.Getter",
    P + "Person.setName(java.lang.String)": "lombok.Setter", P + "Person.setAge(int)": "lombok.Setter",
    P + "Person.setActive(boolean)": "lombok.Setter", P + "Person.setVerified(java.lang.Boolean)": "lombok.Setter",
    P + "Person.setDeleted(boolean)": "lombok.Setter", P + "Person.setSecret(java.lang.String)": "lombok.Setter",
    # Point: @Value @With
    P + "Point.<init>(int,int,java.lang.String)": "lombok.Value",
    P + "Point.getX()": "lombok.Value", P + "Point.getY()": "lombok.Value", P + "Point.getLabel()": "lombok.Value",
    P + "Point.withX(int)": "lombok.With", P + "Point.withY(int)": "lombok.With",
    P + "Point.withLabel(java.lang.String)": "lombok.With",
    P + "Point.toString()": "lombok.Value", P + "Point.equals(java.lang.Object)": "lombok.Value",
    P + "Point.hashCode()": "lombok.Value",
    # Order: @Data (origin is final and initialized: getter only, not in the constructor)
    P + "Order.<init>(long)": "lombok.Data",
    **{P + f"Order.get{n}()": "lombok.Data" for n in ("Number", "Code", "Tags", "Lines", "Counts", "Origin")},
    P + "Order.setCode(java.lang.String)": "lombok.Data", P + "Order.setTags(java.util.List)": "lombok.Data",
    P + "Order.setLines(java.util.Map)": "lombok.Data", P + "Order.setCounts(int[])": "lombok.Data",
    P + "Order.toString()": "lombok.Data", P + "Order.equals(java.lang.Object)": "lombok.Data",
    P + "Order.hashCode()": "lombok.Data", P + "Order.canEqual(java.lang.Object)": "lombok.Data",
    # Item: @Builder(toBuilder = true), @Singular labels, @Builder.Default qty, @Getter
    P + "Item.<init>(java.lang.String,int,java.util.List)": "lombok.Builder",
    P + "Item.builder()": "lombok.Builder", P + "Item.toBuilder()": "lombok.Builder",
    P + "Item.getSku()": "lombok.Getter", P + "Item.getQty()": "lombok.Getter", P + "Item.getLabels()": "lombok.Getter",
    P + "Item.ItemBuilder.<init>()": "lombok.Builder", P + "Item.ItemBuilder.sku(java.lang.String)": "lombok.Builder",
    P + "Item.ItemBuilder.qty(int)": "lombok.Builder", P + "Item.ItemBuilder.build()": "lombok.Builder",
    P + "Item.ItemBuilder.toString()": "lombok.Builder",
    P + "Item.ItemBuilder.label(java.lang.String)": "lombok.Singular",
    P + "Item.ItemBuilder.labels(java.util.Collection)": "lombok.Singular",
    P + "Item.ItemBuilder.clearLabels()": "lombok.Singular",
    # Fluent: @Accessors(fluent = true)
    P + "Fluent.title()": "lombok.Getter", P + "Fluent.open()": "lombok.Getter",
    P + "Fluent.title(java.lang.String)": "lombok.Setter", P + "Fluent.open(boolean)": "lombok.Setter",
    # Prefixed: prefix "m"; "other" matches no prefix → nothing
    P + "Prefixed.getName()": "lombok.Getter", P + "Prefixed.setName(java.lang.String)": "lombok.Setter",
    # Pair<T extends Comparable<T>>: erased constructor parameters, a static factory
    P + "Pair.<init>()": "lombok.NoArgsConstructor",
    P + "Pair.<init>(java.lang.Comparable,java.util.Map,int[],java.lang.String[][])": "lombok.AllArgsConstructor",
    P + "Pair.of(java.lang.Comparable,java.util.Map,int[],java.lang.String[][])": "lombok.AllArgsConstructor",
    P + "Pair.toString()": "lombok.ToString", P + "Pair.equals(java.lang.Object)": "lombok.EqualsAndHashCode",
    P + "Pair.hashCode()": "lombok.EqualsAndHashCode",
    # Wrapper: @Delegate Counter (add(int) is written, add(int,String) is not) and Runnable
    P + "Wrapper.increment()": "lombok.experimental.Delegate",
    P + "Wrapper.add(int,java.lang.String)": "lombok.experimental.Delegate",
    P + "Wrapper.run()": "lombok.experimental.Delegate",
    # @SuperBuilder
    **{P + f"{c}.{m}": "lombok.experimental.SuperBuilder" for c, b, f in (
        ("Animal", "AnimalBuilder", "name(java.lang.String)"), ("Dog", "DogBuilder", "legs(int)"))
       for m in (f"<init>({P}{c}.{b})", "builder()", f"{b}.<init>()", f"{b}.{f}", f"{b}.self()",
                 f"{b}.build()", f"{b}.toString()", f"{b}Impl.<init>()", f"{b}Impl.self()", f"{b}Impl.build()")},
    # Level: an enum with @Getter @AllArgsConstructor (enum constructors are private)
    P + "Level.<init>(java.lang.String,int)": "lombok.AllArgsConstructor",
    P + "Level.getCode()": "lombok.Getter", P + "Level.getWeight()": "lombok.Getter",
    # lombok.config of cfg/: prefix f → getCount; cfg/stop/ stops bubbling → getFCount
    P + "cfg.Settings.getCount()": "lombok.Getter", P + "cfg.Settings.getMode()": "lombok.Getter",
    P + "cfg.Settings.setCount(int)": "lombok.Setter", P + "cfg.Settings.setMode(java.lang.String)": "lombok.Setter",
    P + "cfg.stop.Local.getFCount()": "lombok.Getter", P + "cfg.stop.Local.setFCount(int)": "lombok.Setter",
}


@pytest.fixture(scope="module")
def pg(graph_of):
    return graph_of(LOMBOK)


def _generated(pg) -> dict:
    return {n: d["generated_by"] for n, d in pg.graph.nodes(data=True)
            if d["kind"] == "method" and d.get("generated_by") not in (None, "javac")}


def test_generated_members_are_exactly_lomboks(pg):
    assert _generated(pg) == EXPECTED


def test_generated_members_have_loc_0_and_no_comment(pg):
    for mid in EXPECTED:
        d = pg.graph.nodes[mid]
        assert (d["loc"], d["comment"]) == (0, None), mid
        assert pg.method(mid).implicit and pg.method(mid).generated_by == EXPECTED[mid]


def test_hand_written_members_win(pg):
    age = pg.method(P + "Person.getAge()")
    assert age.generated_by is None and age.loc == 3
    assert age.start_line == line_of(SRC / "Person.java", "public int getAge()")
    assert pg.method(P + "Wrapper.add(int)").generated_by is None
    # Lombok's constructors replace the default constructor
    assert P + "Person.<init>()" not in pg.graph and P + "Point.<init>()" not in pg.graph
    # the compiler's own implicit members say so
    assert pg.method(P + "Counter.<init>()").generated_by == "javac"


def _edge(pg, src_prefix: str, dst: str):
    src = next(n for n in pg.graph if n.startswith(src_prefix))
    return pg.graph.edges[src, dst]


def test_calls_to_generated_members_resolve_exactly(pg):
    uses = SRC / "Uses.java"
    cases = [
        ("Uses.person", "Person.setName(java.lang.String)", 'p.setName("n")'),
        ("Uses.person", "Person.isDeleted()", "p.setDeleted(p.isDeleted())"),
        ("Uses.point", "Point.withX(int)", "withX(3)"),
        ("Uses.order", "Order.<init>(long)", "new Order(7L)"),
        ("Uses.item", "Item.ItemBuilder.label(java.lang.String)", '.label("a")'),
        ("Uses.item", "Item.ItemBuilder.clearLabels()", "clearLabels()"),
        ("Uses.fluent", "Fluent.open(boolean)", 'f.title("t").open(true)'),  # chained setter
        ("Uses.pair", "Pair.of(java.lang.Comparable,java.util.Map,int[],java.lang.String[][])", "Pair.of("),
        ("Uses.wrapper", "Wrapper.run()", "w.run()"),
        ("Uses.dog", "Dog.DogBuilder.legs(int)", "legs(4)"),
    ]
    for src, dst, snippet in cases:
        e = _edge(pg, P + src, P + dst)
        assert e["resolution"] == "exact" and line_of(uses, snippet) in e["lines"], (src, dst)


def test_enum_constants_call_lomboks_constructor(pg):
    e = pg.graph.edges[P + "Level.<clinit>()", P + "Level.<init>(java.lang.String,int)"]
    assert e["resolution"] == "exact"
    assert e["lines"] == [line_of(SRC / "Level.java", 'LOW("low", 1)'), line_of(SRC / "Level.java", 'HIGH("high", 9)')]


def test_delegate_calls_the_delegate(pg):
    g = pg.graph
    assert g.edges[P + "Wrapper.increment()", P + "Counter.increment()"]["resolution"] == "exact"
    assert g.has_edge(P + "Wrapper.run()", "java.lang.Runnable.run()")


def _logger_targets(pg) -> dict:
    out = {}
    for n in pg.graph:
        if n.startswith(P + "Loggers.") and n.endswith(".run()"):
            (dst,) = pg.graph.successors(n)
            out[n[len(P + "Loggers."):-len(".run()")]] = (dst, pg.graph.edges[n, dst]["resolution"])
    return out


def test_logger_fields_without_the_logging_jars(pg):
    # no jar: the receiver's type is decided (Lombok's field), the overload is not
    assert _logger_targets(pg) == {
        "WithSlf4j": ("org.slf4j.Logger.info(*)", "arity"),
        "WithLog4j2": ("org.apache.logging.log4j.Logger.info(*)", "arity"),
        "WithJul": ("java.util.logging.Logger.info(java.lang.String)", "exact"),
        "WithCommons": ("org.apache.commons.logging.Log.info(*)", "arity"),
        "WithJBoss": ("org.jboss.logging.Logger.info(*)", "arity"),
        "WithFlogger": ("com.google.common.flogger.FluentLogger.atInfo(*)", "arity"),
        "WithXSlf4j": ("org.slf4j.ext.XLogger.entry(*)", "arity"),
        "WithCustom": ("com.acme.logging.AppLogger.info(*)", "arity"),
    }
    assert pg.graph.nodes["org.slf4j.Logger.info(*)"]["third_party"] is True
    # lombok.config renames the field: LOGGER in cfg/, logger in cfg/stop/
    assert pg.graph.has_edge(P + "cfg.Settings.report()", "org.slf4j.Logger.info(*)")
    assert pg.graph.has_edge(P + "cfg.stop.Local.report()", "org.slf4j.Logger.info(*)")


@pytest.mark.skipif(not (SLF4J.is_file() and COMMONS_LOGGING.is_file()),
                    reason="needs /usr/share/java/slf4j-api.jar and commons-logging.jar "
                           "(apt: libslf4j-java libcommons-logging-java)")
def test_logger_overloads_with_the_logging_jars(graph_of):
    pg = graph_of(LOMBOK, classpath=(SLF4J, COMMONS_LOGGING))
    t = _logger_targets(pg)
    assert t["WithSlf4j"] == ("org.slf4j.Logger.info(java.lang.String)", "exact")
    assert t["WithCommons"] == ("org.apache.commons.logging.Log.info(java.lang.Object)", "exact")
    assert pg.graph.has_edge(P + "cfg.Settings.report()", "org.slf4j.Logger.info(java.lang.String,java.lang.Object)")


def _project(tmp_path: Path, files: dict) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return tmp_path


_BEAN = """package a;
import lombok.Getter;
import lombok.experimental.Delegate;
@Getter
public class Bean {
    private int mSize;
    @Delegate private final org.slf4j.Logger logger = null;
}
"""
_CALLER = """package a;
public class Caller {
    int size(Bean b) {
        b.info("x");
        return b.getSize();
    }
}
"""


def test_chain_through_a_generated_member_adds_0_loc(tmp_path):
    if not SLF4J.is_file():
        pytest.skip("needs /usr/share/java/slf4j-api.jar (apt: libslf4j-java)")
    from callgraph import build_project_graph

    root = _project(tmp_path, {"a/Bean.java": _BEAN, "a/Caller.java": _CALLER,
                               "lombok.config": "lombok.accessors.prefix += m\n"})
    pg = build_project_graph(root, classpath=[SLF4J])
    assert pg.method("a.Bean.getSize()").generated_by == "lombok.Getter"
    (t,) = [t for t in pg.reach("a.Caller.size(a.Bean)") if t.api == "org.slf4j.Logger.info"]
    assert t.chain == ("a.Caller.size(a.Bean)", "a.Bean.info(java.lang.String)",
                       "org.slf4j.Logger.info(java.lang.String)")
    assert (t.depth, t.chain_loc) == (3, 4)  # Caller.size spans 4 lines, the delegate method 0


def test_lombok_config_is_untrusted_data(tmp_path):
    from callgraph import build_project_graph

    root = _project(tmp_path / "p", {"a/Bean.java": _BEAN.replace("org.slf4j.Logger", "Runnable")})
    outside = tmp_path / "outside.config"
    outside.write_text("lombok.accessors.prefix += m\n")
    os.symlink(outside, root / "lombok.config")
    big = root / "a" / "lombok.config"
    big.write_text("lombok.accessors.prefix += m\n" + "#" * 70_000)
    pg = build_project_graph(root, jdk=None)
    # neither file was read: no prefix, so the getter keeps the m
    assert "a.Bean.getMSize()" in pg.graph and "a.Bean.getSize()" not in pg.graph
    reasons = dict(pg.summary.skipped)
    assert "symlink" in reasons["lombok.config"] and "exceeds" in reasons["a/lombok.config"]
    if hasattr(os, "mkfifo"):
        big.unlink()
        os.mkfifo(big)  # must not block
        pg = build_project_graph(root, jdk=None)
        assert "not a regular file" in dict(pg.summary.skipped)["a/lombok.config"]


def test_config_inheritance_clear_and_minus(tmp_path):
    from callgraph import build_project_graph

    bean = "package a.b;\n@lombok.Getter public class B { private int mX; private int fY; private int zW; }\n"
    root = _project(tmp_path, {"lombok.config": "lombok.accessors.prefix += m\nlombok.accessors.prefix += f\n",
                               "a/lombok.config": "lombok.accessors.prefix -= f\nlombok.accessors.prefix += z\n",
                               "a/b/B.java": bean})
    pg = build_project_graph(root, jdk=None)
    gen = sorted(n for n, d in pg.graph.nodes(data=True) if d.get("generated_by") == "lombok.Getter")
    assert gen == ["a.b.B.getW()", "a.b.B.getX()"]  # fY: "f" removed below the root
    (root / "a" / "lombok.config").write_text("clear lombok.accessors.prefix\n")
    pg = build_project_graph(root, jdk=None)
    gen = sorted(n for n, d in pg.graph.nodes(data=True) if d.get("generated_by") == "lombok.Getter")
    assert gen == ["a.b.B.getFY()", "a.b.B.getMX()", "a.b.B.getZW()"]


def test_annotation_names_and_boolean_config(tmp_path):
    from callgraph import build_project_graph

    root = _project(tmp_path, {
        # an on-demand import of lombok, but a project annotation Setter in the package shadows it
        "a/Setter.java": "package a;\npublic @interface Setter { }\n",
        "a/C.java": "package a;\nimport lombok.*;\n@Getter @Setter public class C { private boolean on; }\n",
        # a qualified name needs no import; noIsPrefix turns isOn into getOn
        "b/D.java": "package b;\n@lombok.Getter public class D { private boolean on; }\n",
        "b/lombok.config": "lombok.getter.noIsPrefix = true\n",
        # not Lombok's: an import of another Getter
        "c/E.java": "package c;\nimport org.other.Getter;\n@Getter public class E { private int x; }\n",
    })
    pg = build_project_graph(root, jdk=None)
    gen = sorted(n for n, d in pg.graph.nodes(data=True) if d.get("generated_by") not in (None, "javac"))
    assert gen == ["a.C.isOn()", "b.D.getOn()"]
