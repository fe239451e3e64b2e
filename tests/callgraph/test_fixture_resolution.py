"""One resolution case per class of ``fixtures/java/resolution`` (DESIGN.md "What must
resolve from source alone" and issue 2 "Fixtures and tests").

Each case lists, for one caller, the exact set of edges leaving it:
``(callee id, resolution, call-site snippets)``. The call-site lines are found by
looking the (unique) snippet up in the caller's own source file, so the expectation
is the hand-written Java itself; the callee ids and resolutions are worked out by
hand with the JLS rules (phases of overload resolution, erasure, declaring type).

The project is built with the acme-lib jar on the classpath (``pg``) and without it
(``pg_nocp``); the JDK is found the default way (``jdk="auto"``).
"""

from __future__ import annotations

import pytest

from cg_fixture_support import ACME_GAV, RESOLUTION, only_line, out_edges, targets_by_api

SRC = RESOLUTION / "src" / "main" / "java"
T, H, I, G = "res.util.Tools", "res.util.Helper", "res.Item", "res.Gadget"
TX, TB = "org.acme.text.Texts", "org.acme.text.TextBuilder"
HC = "org.acme.http.HttpClient"


@pytest.fixture(scope="module")
def pg(graph_of, acme_jar):
    return graph_of(RESOLUTION, classpath=[acme_jar])


@pytest.fixture(scope="module")
def pg_nocp(graph_of):
    return graph_of(RESOLUTION)


def _file_of(caller: str) -> str:
    """Source file of a caller id: the top-level type of ``res....Type[.Nested].m(...)``."""
    parts = caller.split("(")[0].split(".")[:-1]
    # the first capitalised segment is the top-level type
    i = next(k for k, p in enumerate(parts) if p[:1].isupper())
    return "/".join(parts[: i + 1]) + ".java"


def expect(caller: str, *edges: tuple[str, str, tuple[str, ...]]) -> set[tuple[str, str, tuple[int, ...]]]:
    path = SRC / _file_of(caller)
    return {
        (callee, res, tuple(sorted(only_line(path, s) for s in snippets))) for callee, res, snippets in edges
    }


# (caller, [(callee, resolution, call-site snippets)])
CASES = {
    "single-type import": (
        "res.imports.SingleImport.call()",
        [(f"{T}.twice(int)", "exact", ("Tools.twice(2)",)),
         (f"{H}.<init>()", "exact", ("new Helper().name()",)),
         (f"{H}.name()", "exact", ("new Helper().name()",))],
    ),
    "on-demand import": (
        "res.imports.OnDemandImport.call()",
        [(f"{T}.ping()", "exact", ("Tools.ping()",)),
         (f"{H}.<init>()", "exact", ("new Helper()",)),
         (f"{H}.name()", "exact", ("h.name()",))],
    ),
    "static single import": (
        "res.imports.StaticSingle.call()",
        [(f"{T}.ping()", "exact", ("ping();",))],
    ),
    "static on-demand import": (
        "res.imports.StaticOnDemand.call()",
        [(f"{T}.ping()", "exact", ("ping();",)),
         (f"{T}.pong()", "exact", ("pong();",)),
         (f"{T}.echo(java.lang.String)", "exact", ('echo("x");',))],
    ),
    "same package and java.lang": (
        "res.SamePackage.call()",
        [(f"{I}.<init>()", "exact", ("new Item().run()",)),
         (f"{I}.run()", "exact", ("new Item().run()",)),
         ("java.lang.Math.max(int,int)", "exact", ("Math.max(1, 2)",)),
         ("java.lang.Integer.parseInt(java.lang.String)", "exact", ('Integer.parseInt("7")',))],
    ),
    "nested types": (
        "res.NestedUse.nested()",
        [("res.Outer.Inner.hi()", "exact", ("Outer.Inner.hi()",)),
         ("res.Outer.Inner.Deeper.<init>()", "exact", ("new Outer.Inner.Deeper()",)),
         ("res.Outer.Inner.Deeper.deep(java.lang.String)", "exact", ("new Outer.Inner.Deeper()",))],
    ),
    "inherited member type": (
        "res.NestedUse.inheritedMemberType()",
        [("res.Base.Node.<init>()", "exact", ("Node n = new Node()",)),
         ("res.Base.Node.visit()", "exact", ("n.visit()",))],
    ),
    "field": (
        "res.Fields.useField()",
        [(f"{I}.run()", "exact", ("item.run(); // the field",)), (f"{I}.label()", "exact", ("this.item.label()",))],
    ),
    "inherited field": (
        "res.Fields.useInherited()",
        [(f"{I}.run()", "exact", ("baseItem.run()",)), (f"{I}.next()", "exact", ("this.baseItem.next()",))],
    ),
    "field shadowed by a local": (
        "res.Fields.shadow()",
        [(f"{G}.<init>()", "exact", ("Gadget item = new Gadget()",)), (f"{G}.run()", "exact", ("item.run(); // the local",))],
    ),
    "parameter": ("res.Locals.params(res.Item)", [(f"{I}.run()", "exact", ("p.run()",))]),
    "local": (
        "res.Locals.locals(res.Item)",
        [(f"{I}.next()", "exact", ("p.next()",)), (f"{I}.label()", "exact", ("l.label()",))],
    ),
    "var": (
        "res.Locals.useVar()",
        [(f"{G}.<init>()", "exact", ("var v = new Gadget()",)), (f"{G}.run()", "exact", ("v.run()",))],
    ),
    "for-each (declared and var)": (
        "res.Locals.forEach(res.Item[])",
        [(f"{I}.label()", "exact", ("it.label()",)), (f"{I}.next()", "exact", ("each.next()",))],
    ),
    "pattern variable": ("res.Locals.pattern(java.lang.Object)", [(f"{I}.run()", "exact", ("i.run()",))]),
    "cast": ("res.Locals.cast(java.lang.Object)", [(f"{I}.label()", "exact", ("((Item) o).label()",))]),
    "string literal": ("res.Locals.literal()", [("java.lang.String.trim()", "exact", ('"x".trim()',))]),
    "try-with-resources and catch (no implicit close())": (
        "res.TryCatch.attempt()",
        [("res.Resource.<init>()", "exact", ("new Resource()",)),
         ("res.Resource.use()", "exact", ("r.use()",)),
         ("res.Failure.detail()", "exact", ("e.detail()",))],
    ),
    "lambda parameter with declared type": (
        "res.Lambdas.declaredParam(res.Item)",
        [(f"{I}.label()", "exact", ("x.label()",)),
         ("java.util.function.Consumer.accept(java.lang.Object)", "exact", ("c.accept(item)",))],
    ),
    "method references": (
        "res.MethodRefs.refs()",
        [(f"{I}.run()", "exact", ("Item::run",)),
         (f"{G}.<init>()", "exact", ("Gadget::new",)),
         ("res.MethodRefs.work()", "exact", ("this::work",))],
    ),
    "this(...)": ("res.Child.<init>()", [("res.Child.<init>(int)", "exact", ("this(1)",))]),
    "super(...)": ("res.Child.<init>(int)", [("res.Parent.<init>(int)", "exact", ("super(n)",))]),
    "this. and super. calls (super is not dispatched)": (
        "res.Child.both()",
        [("res.Child.greet()", "exact", ("this.greet()",)), ("res.Parent.greet()", "exact", ("super.greet()",))],
    ),
    "inner class: outer method unqualified, Outer.this, own method": (
        "res.Host.In.callOuter()",
        [("res.Host.outerOnly()", "exact", ("outerOnly();",)),
         ("res.Host.shared()", "exact", ("Host.this.shared()",)),
         ("res.Host.In.shared()", "exact", ("            shared();",))],
    ),
    "chained calls on project return types": (
        "res.Chains.projectChain()",
        [(f"{I}.<init>()", "exact", ("new Item().next()",)),
         (f"{I}.next()", "exact", ("new Item().next()", "a.next().label()")),
         (f"{I}.label()", "exact", ("a.next().label()",))],
    ),
    "chained call on own method's return type": (
        "res.Chains.fromOwnMethod()",
        [("res.Chains.make()", "exact", ("make().next().run()",)),
         (f"{I}.next()", "exact", ("make().next().run()",)),
         (f"{I}.run()", "exact", ("make().next().run()",))],
    ),
    "record canonical constructor and accessor": (
        "res.RecordUse.use()",
        [("res.Point.<init>(int,int)", "exact", ("new Point(1, 2)",)),
         ("res.Point.x()", "exact", ("p.x() + p.sum()",)),
         ("res.Point.sum()", "exact", ("p.x() + p.sum()",))],
    ),
    "enum values(), valueOf(), method": (
        "res.EnumUse.use()",
        [("res.Op.values()", "exact", ("Op.values()",)),
         ("res.Op.valueOf(java.lang.String)", "exact", ('Op.valueOf("PLUS")',)),
         ("res.Op.apply(int,int)", "exact", ("plus.apply(1, 2)",))],
    ),
    "enum constant body (anonymous class in a static field) → <clinit>()": (
        "res.Op.<clinit>()",
        [("res.Op.add(int,int)", "exact", ("return Op.add(a, b);",))],
    ),
    "interface default method calling an abstract one (cha to the implementation)": (
        "res.Greeter.greet()",
        [("res.Greeter.name()", "exact", ('"hi " + name()',)),
         ("res.EnglishGreeter.name()", "cha", ('"hi " + name()',)),
         ("res.more.Polite.name()", "cha", ('"hi " + name()',))],
    ),
    "inherited default method": (
        "res.EnglishGreeter.hello()",
        [("res.EnglishGreeter.<init>()", "exact", ("new EnglishGreeter().greet()",)),
         ("res.Greeter.greet()", "exact", ("new EnglishGreeter().greet()",))],
    ),
    "generic type, declared type argument": (
        "res.Generics.declared(res.Box)",
        [("res.Box.get()", "exact", ("box.get().run()",)), (f"{I}.run()", "exact", ("box.get().run()",))],
    ),
    "generic method, inferred type argument": (
        "res.Generics.inferred()",
        [("res.Box.of(java.lang.Object)", "exact", ("Box.of(new Gadget())",)),
         (f"{G}.<init>()", "exact", ("Box.of(new Gadget())",)),
         ("res.Box.get()", "exact", ("Box.of(new Gadget())",)),
         (f"{G}.run()", "exact", ("Box.of(new Gadget())",))],
    ),
    "bounded generic method (erasure to the bound)": (
        "res.Generics.bounded()", [("res.Box.twice(java.lang.Number)", "exact", ("Box.twice(3)",))],
    ),
    "overloads by argument types": (
        "res.Overloads.callAll(res.Item)",
        [("res.Overloads.f(int)", "exact", ("f(1);", "f(small);")),  # byte widens to int first
         ("res.Overloads.f(long)", "exact", ("f(1L);",)),
         ("res.Overloads.f(java.lang.Object)", "exact", ('f("s");', "f(boxed);")),  # no unboxing in phase 1
         ("res.Overloads.g(java.lang.String)", "exact", ('g("s");', "g(null);")),  # null: most specific
         ("res.Overloads.g(java.lang.Object)", "exact", ("g(item);",)),
         ("res.Overloads.h(int,int)", "exact", ("h(1, 2);",)),  # fixed arity before varargs
         ("res.Overloads.h(int...)", "exact", ("h(1);", "h(1, 2, 3);", "h();")),
         ("res.Overloads.k(long)", "exact", ("k(5);",)),  # widening beats boxing
         ("res.Overloads.k(java.lang.Integer)", "exact", ("k(boxed);",))],
    ),
    "static field initializer and static block → <clinit>()": (
        "res.init.Init.<clinit>()",
        [(f"{T}.twice(int)", "exact", ("Tools.twice(21)",)), (f"{T}.ping()", "exact", ("Tools.ping()",))],
    ),
    "instance initializers → every constructor (no-arg)": (
        "res.init.Init.<init>()",
        [(f"{I}.<init>()", "exact", ("new Item()",)), (f"{T}.pong()", "exact", ("Tools.pong()",))],
    ),
    "instance initializers → every constructor (with body)": (
        "res.init.Init.<init>(java.lang.String)",
        [(f"{I}.<init>()", "exact", ("new Item()",)),
         (f"{T}.pong()", "exact", ("Tools.pong()",)),
         (f"{T}.echo(java.lang.String)", "exact", ("Tools.echo(s)",))],
    ),
    "instance initializers → implicit <init>()": (
        "res.init.NoCtor.<init>()",
        [(f"{I}.<init>()", "exact", ("new Item()",)), (f"{T}.pong()", "exact", ("Tools.pong()",))],
    ),
    "call on a project interface (cha to both implementations)": (
        "res.cha.Display.show(res.cha.Renderer)",
        [("res.cha.Renderer.render(java.lang.String)", "exact", ('r.render("x")',)),
         ("res.cha.Upper.render(java.lang.String)", "cha", ('r.render("x")',)),
         ("res.cha.Padded.render(java.lang.String)", "cha", ('r.render("x")',))],
    ),
    # --- library calls, acme-lib jar on the classpath ----------------------------
    "chained calls on library return types (nested builder)": (
        "res.lib.LibCalls.fetch(java.lang.String)",
        [(f"{HC}.newBuilder()", "exact", ("HttpClient.newBuilder()",)),
         (f"{HC}.Builder.timeout(int)", "exact", ("HttpClient.newBuilder()",)),
         (f"{HC}.Builder.build()", "exact", ("HttpClient.newBuilder()",)),
         (f"{HC}.send(org.acme.http.Request)", "exact", ("HttpClient.newBuilder()",)),
         ("org.acme.http.Request.get(java.lang.String)", "exact", ("HttpClient.newBuilder()",)),
         ("org.acme.http.Response.body()", "exact", ("HttpClient.newBuilder()",))],
    ),
    "fluent builder with overloads": (
        "res.lib.LibCalls.build()",
        [(f"{TX}.builder()", "exact", ("Texts.builder()",)),
         (f"{TB}.append(java.lang.String)", "exact", ("b.append(",)),
         (f"{TB}.append(int)", "exact", ("b.append(",)),
         (f"{TB}.newline()", "exact", ("b.append(",)),
         (f"{TB}.build()", "exact", ("b.append(",))],
    ),
    "library overloads": (
        "res.lib.LibCalls.overloads(java.lang.String,java.lang.Object)",
        [(f"{TX}.pad(java.lang.String,int)", "exact", ("Texts.pad(s, 3) +",)),
         (f"{TX}.pad(java.lang.String,int,char)", "exact", ("Texts.pad(s, 3) +",)),
         (f"{TX}.describe(java.lang.String)", "exact", ("Texts.pad(s, 3) +",)),
         (f"{TX}.describe(java.lang.Object)", "exact", ("Texts.pad(s, 3) +",)),
         (f"{TX}.repeat(java.lang.String,int)", "exact", ("Texts.repeat(s, 2)",)),
         (f"{TX}.repeat(char,long)", "exact", ("Texts.repeat(s, 2)",))],  # int widens to long
    ),
    "library varargs and generic varargs": (
        "res.lib.LibCalls.varargs()",
        [(f"{TX}.join(java.lang.String,java.lang.String...)", "exact", ('Texts.join(",", "a", "b")', 'Texts.join(",");')),
         (f"{TX}.firstNonNull(java.lang.Object...)", "exact", ("Texts.firstNonNull(",))],
    ),
    "library class hierarchy and nested types": (
        "res.lib.LibCalls.hierarchy(java.lang.String)",
        [("org.acme.text.Word.<init>(java.lang.String)", "exact", ("new Word(s)",)),
         ("org.acme.text.Tokenizer.<init>()", "exact", ("new Tokenizer()",)),
         ("org.acme.text.Tokenizer.first(java.lang.String)", "exact", ("new Tokenizer()",)),
         ("org.acme.text.Token.span(int)", "exact", ("w.span(0)",)),  # declared in the superclass
         ("org.acme.text.Token.text()", "exact", ("w.text()",)),
         ("java.lang.String.length()", "exact", ("w.text().length()", "w.capitalized().length()")),
         ("org.acme.text.Token.kind()", "exact", ("t.kind().ordinal()",)),
         ("java.lang.Enum.ordinal()", "exact", ("t.kind().ordinal()",)),
         ("org.acme.text.Word.capitalized()", "exact", ("w.capitalized()",)),
         ("org.acme.text.Token.Span.length()", "exact", ("span.length()",))],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exact_edges(pg, case):
    caller, edges = CASES[case]
    assert out_edges(pg, caller) == expect(caller, *edges)


def test_calls_in_lambdas_anonymous_and_local_classes_go_to_the_enclosing_method(pg):
    caller = "res.Lambdas.enclosing()"
    assert out_edges(pg, caller, kinds=("method",)) == expect(
        caller,
        ("res.Lambdas.helperA()", "exact", ("() -> helperA()",)),
        ("res.Lambdas.helperB()", "exact", ("helperB();",)),
        ("res.Lambdas.helperC()", "exact", ("helperC();",)),
    )
    lambdas = {m for m in pg.methods() if m.startswith("res.Lambdas.")}
    assert lambdas - {"res.Lambdas.<init>()"} == {
        "res.Lambdas.declaredParam(res.Item)", "res.Lambdas.enclosing()",
        "res.Lambdas.helperA()", "res.Lambdas.helperB()", "res.Lambdas.helperC()",
    }
    # the enum constant body's apply() is code of Op.<clinit>(), not a method of its own
    ops = {m for m in pg.methods() if m.startswith("res.Op.")}
    assert "res.Op.apply(int,int)" in ops and "res.Op.add(int,int)" in ops
    assert all("$" not in m for m in pg.methods())


def test_method_ids_of_nested_and_generic_declarations(pg):
    ids = set(pg.methods())
    assert {
        "res.Outer.Inner.hi()",
        "res.Outer.Inner.Deeper.deep(java.lang.String)",
        "res.Base.Node.visit()",
        "res.Host.In.callOuter()",
        "res.Box.of(java.lang.Object)",
        "res.Box.twice(java.lang.Number)",
        "res.Box.get()",
        "res.Overloads.h(int...)",
        "res.Point.sum()",
        "res.Child.<init>()",
        "res.Child.<init>(int)",
        "res.init.Init.<clinit>()",
        "res.init.Init.<init>(java.lang.String)",
        "res.init.NoCtor.<init>()",
        "res.cha.Renderer.render(java.lang.String)",
    } <= ids


def test_node_kinds_and_third_party(pg):
    g = pg.graph
    assert g.nodes[f"{I}.run()"]["kind"] == "method"
    acme = g.nodes[f"{HC}.newBuilder()"]
    assert (acme["kind"], acme["third_party"], acme["library"]) == ("api", True, ACME_GAV)
    jdk = g.nodes["java.lang.String.trim()"]
    assert (jdk["kind"], jdk["third_party"], jdk["library"]) == ("api", False, None)
    init = g.nodes["res.init.Init.<init>(java.lang.String)"]
    assert init["kind"] == "method" and init["file"] == "src/main/java/res/init/Init.java"
    assert init["start_line"] == only_line(SRC / "res/init/Init.java", "public Init(String s)")


# --- reach with class-hierarchy dispatch ---------------------------------------------


def test_reach_cha_and_declared(pg):
    show = "res.cha.Display.show(res.cha.Renderer)"
    by = targets_by_api(pg.reach(show))
    assert set(by) == {f"{TX}.upper(java.lang.String)", f"{TX}.pad(java.lang.String,int)"}
    up = by[f"{TX}.upper(java.lang.String)"]
    # show: 3 lines; Upper.render: 4 lines (with @Override); Padded.render: 5 lines
    assert up.chain == (show, "res.cha.Upper.render(java.lang.String)", f"{TX}.upper(java.lang.String)")
    assert (up.depth, up.chain_loc, up.resolution, up.library) == (3, 7, "cha", ACME_GAV)
    assert up.density == pytest.approx(1 / 7)
    pad = by[f"{TX}.pad(java.lang.String,int)"]
    assert pad.chain == (show, "res.cha.Padded.render(java.lang.String)", f"{TX}.pad(java.lang.String,int)")
    assert (pad.depth, pad.chain_loc, pad.resolution) == (3, 8, "cha")
    assert pad.density == pytest.approx(1 / 8)
    assert pg.reach(show, dispatch="declared") == []


def test_reach_direct_library_calls(pg):
    fetch = "res.lib.LibCalls.fetch(java.lang.String)"
    by = targets_by_api(pg.reach(fetch))
    assert set(by) == {
        f"{HC}.newBuilder()", f"{HC}.Builder.timeout(int)", f"{HC}.Builder.build()",
        f"{HC}.send(org.acme.http.Request)", "org.acme.http.Request.get(java.lang.String)",
        "org.acme.http.Response.body()",
    }
    t = by[f"{HC}.Builder.timeout(int)"]
    assert (t.api, t.class_, t.depth, t.chain_loc, t.resolution) == (
        f"{HC}.Builder.timeout", f"{HC}.Builder", 2, 3, "exact",
    )


# --- without the acme jar -------------------------------------------------------------


def test_without_classpath_receiver_decided_overload_not(pg_nocp):
    fetch = "res.lib.LibCalls.fetch(java.lang.String)"
    edges = out_edges(pg_nocp, fetch)
    line = only_line(SRC / "res/lib/LibCalls.java", "HttpClient.newBuilder()")
    decided = {e for e in edges if e[1] != "name"}
    assert decided == {
        (f"{HC}.newBuilder(*)", "arity", (line,)),
        ("org.acme.http.Request.get(*)", "arity", (line,)),
    }
    # timeout/build/send/body: the receiver's type is unknown → reported as `name`, not guessed
    assert {e[1] for e in edges - decided} == {"name"}
    assert len(edges - decided) >= 1
    for callee, _, _ in edges - decided:
        assert not callee.startswith("org.acme.http.Response.")
        assert not callee.startswith(f"{HC}.Builder.")
    by = targets_by_api(pg_nocp.reach(fetch))
    assert set(by) == {f"{HC}.newBuilder", "org.acme.http.Request.get"}
    assert all(t.signature is None and t.resolution == "arity" for t in by.values())
    # project-only cases do not depend on the classpath
    caller, cases = CASES["overloads by argument types"]
    assert out_edges(pg_nocp, caller) == expect(caller, *cases)


def test_without_classpath_cha_still_reaches_arity_targets(pg_nocp):
    show = "res.cha.Display.show(res.cha.Renderer)"
    by = targets_by_api(pg_nocp.reach(show))
    assert set(by) == {f"{TX}.upper", f"{TX}.pad"}
    assert by[f"{TX}.upper"].chain == (show, "res.cha.Upper.render(java.lang.String)", f"{TX}.upper(*)")
    # weakest edge on the chain: cha (show→Upper.render) vs arity (→ upper(*)); cha is weaker
    assert by[f"{TX}.upper"].resolution == "cha"


# --- third-party classification and unresolved calls -----------------------------


def test_javax_servlet_and_jakarta_are_third_party_javax_xml_is_not(pg):
    g = pg.graph
    servlet = "res.classify.Classify.servlet(javax.servlet.http.HttpServletRequest)"
    file = SRC / "res/classify/Classify.java"
    assert out_edges(pg, servlet) == {
        ("javax.servlet.http.HttpServletRequest.getParameter(*)", "arity", (only_line(file, "getParameter"),))
    }
    assert g.nodes["javax.servlet.http.HttpServletRequest.getParameter(*)"]["third_party"] is True
    jak = {e for e in out_edges(pg, "res.classify.Classify.jakarta()") if e[1] != "name"}
    assert jak == {("jakarta.ws.rs.core.Response.ok(*)", "arity", (only_line(file, "Response.ok()"),))}
    assert g.nodes["jakarta.ws.rs.core.Response.ok(*)"]["third_party"] is True
    xml = "res.classify.Classify.xml()"
    assert out_edges(pg, xml) == {
        ("javax.xml.parsers.DocumentBuilderFactory.newInstance()", "exact", (only_line(file, "newInstance()"),))
    }
    assert g.nodes["javax.xml.parsers.DocumentBuilderFactory.newInstance()"]["third_party"] is False
    assert pg.reach(xml) == []
    (t,) = pg.reach(servlet)
    assert (t.api, t.signature, t.class_, t.depth) == (
        "javax.servlet.http.HttpServletRequest.getParameter", None, "javax.servlet.http.HttpServletRequest", 2,
    )


def test_unresolved_calls_are_reported_not_guessed(pg):
    caller = "res.classify.Unresolved.widgets()"
    file = SRC / "res/classify/Unresolved.java"
    # w.spin(): `var` of an unknown type — no decided edge (and no project method named spin)
    assert out_edges(pg, caller) == {("org.unknown.Widgets.create(*)", "arity", (only_line(file, "Widgets.create()"),))}
    assert not [n for n in pg.graph if n.startswith("org.unknown.Widget.")]
    assert [t.api for t in pg.reach(caller)] == ["org.unknown.Widgets.create"]
    assert [t.api for t in pg.reach(caller, include_unresolved=True)] == ["org.unknown.Widgets.create"]


def test_unresolved_call_counted_in_summary(graph_of, tmp_path):
    src = tmp_path / "src/main/java/u/U.java"
    src.parent.mkdir(parents=True)
    src.write_text(
        "package u;\n\nimport org.unknown.Widgets;\n\nclass U {\n    void m() {\n"
        "        var w = Widgets.create();\n        w.spin();\n    }\n}\n"
    )
    s = graph_of(tmp_path).summary
    assert (s.files, s.call_sites) == (1, 2)
    assert {k: v for k, v in s.resolved.items() if v} == {"arity": 1}
    assert s.unresolved == 1
    assert len(s.top_reasons) == 1 and s.top_reasons[0][1] == 1
    assert list(s.examples.values()) == ["src/main/java/u/U.java:8"]


# --- harder cases (res.more, res.shadow) ----------------------------------------------

M = "res.more"
MORE = {
    "cha on a class: overriding subclass method": (
        f"{M}.Dispatch.onClass({M}.Animal)",
        [(f"{M}.Animal.sound()", "exact", ("a.sound()",)), (f"{M}.Dog.sound()", "cha", ("a.sound()",))],
    ),
    "no cha when no subtype of the receiver overrides": (
        f"{M}.Dispatch.onLeaf({M}.Dog)", [(f"{M}.Dog.sound()", "exact", ("d.sound()",))],
    ),
    "inherited override is the declared target; cha only below the receiver type": (
        f"{M}.Dispatch.inheritedToString({M}.Dog)",
        [(f"{M}.Animal.toString()", "exact", ("d.toString()",)), (f"{M}.Puppy.toString()", "cha", ("d.toString()",))],
    ),
    "cha through an abstract class": (
        f"{M}.Dispatch.throughAbstract({M}.Shape)",
        [(f"{M}.Shape.area()", "exact", ("s.area()",)), (f"{M}.Square.area()", "cha", ("s.area()",))],
    ),
    "interface static method, then a call on its result": (
        f"{M}.Dispatch.interfaceStatic()",
        [(f"{M}.Shape.unit()", "exact", ("Shape.unit()",)),
         (f"{M}.Shape.area()", "exact", ("Shape.unit()",)),
         (f"{M}.Square.area()", "cha", ("Shape.unit()",))],
    ),
    "int argument widened to a double constructor parameter": (
        f"{M}.Shape.unit()", [(f"{M}.Square.<init>(double)", "exact", ("new Square(1)",))],
    ),
    "java.lang.Object method on a project type": (
        f"{M}.Dispatch.objectMethod({M}.Square)", [("java.lang.Object.getClass()", "exact", ("q.getClass()",))],
    ),
    "unqualified call of an interface method from an abstract class": (
        f"{M}.AbstractShape.describe()",
        [(f"{M}.Shape.area()", "exact", ('"area " + area()',)), (f"{M}.Square.area()", "cha", ('"area " + area()',))],
    ),
    "type argument of the generic superclass": (
        f"{M}.ItemBox.go()", [("res.Box.get()", "exact", ("get().run()",)), (f"{I}.run()", "exact", ("get().run()",))],
    ),
    "type variable erased to its bound": (f"{M}.Holder.go()", [(f"{I}.label()", "exact", ("held.label()",))]),
    "overloads: boxing phase, array to varargs, char widening, float, subclass argument": (
        f"{M}.MoreOverloads.callAll({M}.MoreOverloads.SubItem)",
        [(f"{M}.MoreOverloads.p(java.lang.Integer)", "exact", ("p(5);",)),
         (f"{M}.MoreOverloads.q(int...)", "exact", ("q(new int[] {1, 2});",)),
         (f"{M}.MoreOverloads.r(int)", "exact", ("r('c');",)),
         (f"{M}.MoreOverloads.r(double)", "exact", ("r(2.5f);",)),
         (f"{M}.MoreOverloads.s(res.Item)", "exact", ("s(sub);",))],
    ),
    "own method beats a static import of the same name": (
        f"{M}.Misc.ownMethodBeatsStaticImport()", [(f"{M}.Misc.ping()", "exact", ("        ping();",))],
    ),
    "lambda in a field initializer → the implicit constructor": (
        f"{M}.Misc.<init>()", [(f"{M}.Misc.ping()", "exact", ("() -> ping()",))],
    ),
    "array element and conditional receivers": (
        f"{M}.Misc.arrayAndTernary(res.Item[],boolean,res.Item)",
        [(f"{I}.run()", "exact", ("items[0].run()",)), (f"{I}.label()", "exact", ("(flag ? items[1] : other)",))],
    ),
    "parameter shadows a field": (
        f"{M}.Misc.parameterShadowsField(res.Item)", [(f"{I}.run()", "exact", ("item.run(); // the parameter",))],
    ),
    "multi-catch variable: method of the common supertype (declared in Throwable)": (
        f"{M}.Misc.multiCatch(res.Item)",
        [(f"{I}.run()", "exact", ("            item.run();",)),
         ("res.Failure.<init>()", "exact", ("new Failure()",)),
         ("java.lang.Throwable.getMessage()", "exact", ("e.getMessage()",))],
    ),
    "recursion": (
        f"{M}.Recursion.a(int)",
        [(f"{TX}.upper(java.lang.String)", "exact", ("Texts.upper(",)), (f"{M}.Recursion.b(int)", "exact", ("b(n - 1)",))],
    ),
    "same-package type shadows java.lang": (
        "res.shadow.Shadowing.samePackageBeatsJavaLang()",
        [("res.shadow.Math.max(int,int)", "exact", ("Math.max(1, 2)",))],
    ),
    "single-type import shadows a same-package type": (
        "res.shadow.Shadowing.singleImportBeatsSamePackage()",
        [(f"{H}.<init>()", "exact", ("new Helper().name()",)), (f"{H}.name()", "exact", ("new Helper().name()",))],
    ),
    "static nested class: outer private static method and sibling nested type, unqualified": (
        f"{M}.Nesting.Caller.call()",
        [(f"{M}.Nesting.secret()", "exact", ("secret(); // from the nested class",)),
         (f"{M}.Nesting.Sibling.<init>()", "exact", ("new Sibling().hello()",)),
         (f"{M}.Nesting.Sibling.hello()", "exact", ("new Sibling().hello()",))],
    ),
    "inner (non-static) class constructor, plain and qualified by this": (
        f"{M}.Nesting.innerCtor()", [(f"{M}.Nesting.Inner.<init>()", "exact", ("        new Inner();", "this.new Inner();"))],
    ),
    "field of a field": (f"{M}.Nesting.fieldChain()", [(f"{I}.run()", "exact", ("this.wrapper.item.run()",))]),
    "explicit type argument on a generic method": (
        f"{M}.Nesting.explicitTypeArgument(res.Item)",
        [("res.Box.of(java.lang.Object)", "exact", ("Box.<Item>of(item)",)),
         ("res.Box.get()", "exact", ("Box.<Item>of(item)",)),
         (f"{I}.label()", "exact", ("Box.<Item>of(item)",))],
    ),
    "inherited static method called through the subclass name": (
        f"{M}.Nesting.inheritedStaticThroughSubclass()", [("res.Parent.describe()", "exact", ("Child.describe()",))],
    ),
    "Interface.super.method() is not dispatched": (
        f"{M}.Polite.greet()", [("res.Greeter.greet()", "exact", ("Greeter.super.greet()",))],
    ),
    "anonymous subclass: unqualified call resolves to the inherited method, not the outer one": (
        f"{M}.Traps.anonymousSubclassInheritsTheName()",
        [("res.Parent.<init>()", "exact", ("new Parent() {",)),
         ("res.Parent.greet()", "exact", ("greet(); // Parent.greet()",))],
    ),
    "block scopes: same local name, different types": (
        f"{M}.Traps.blockScopes()",
        [(f"{I}.<init>()", "exact", ("Item x = new Item()",)), (f"{I}.run()", "exact", ("x.run(); // the Item",)),
         (f"{G}.<init>()", "exact", ("Gadget x = new Gadget()",)), (f"{G}.run()", "exact", ("x.run(); // the Gadget",))],
    ),
    "a variable obscures a type of the same name (JLS 6.4.2)": (
        f"{M}.Traps.variableObscuresType()",
        [(f"{G}.<init>()", "exact", ("Gadget Item = new Gadget()",)), (f"{G}.run()", "exact", ("Item.run(); // the variable",))],
    ),
    "this inside a lambda is the enclosing instance": (
        f"{M}.Traps.lambdaThis()", [(f"{M}.Traps.greet()", "exact", ("this.greet()",))],
    ),
    "JDK generic return types substituted from the receiver's type arguments": (
        f"{M}.Traps.jdkGenerics(java.util.List,java.util.Map)",
        [("java.util.List.get(int)", "exact", ("items.get(0)",)), (f"{I}.label()", "exact", ("items.get(0)",)),
         ("java.util.Map.get(java.lang.Object)", "exact", ('byName.get("g")',)),
         (f"{G}.run()", "exact", ('byName.get("g")',)),
         (f"{I}.next()", "exact", ("each.next()",))],  # var over List<Item>
    ),
    "overloads decided with the JDK hierarchy (List over Collection, CharSequence over Object)": (
        f"{M}.JdkTypes.overloadsOnJdkTypes()",
        [("java.util.ArrayList.<init>()", "exact", ("new ArrayList<String>()",)),
         (f"{M}.JdkTypes.g(java.util.List)", "exact", ("new ArrayList<String>()",)),
         (f"{M}.JdkTypes.h(java.lang.CharSequence)", "exact", ('h("text");', "h(new StringBuilder());")),
         ("java.lang.StringBuilder.<init>()", "exact", ("h(new StringBuilder());",))],
    ),
    "calls in every statement form (assert, loops, array initializer, synchronized, switch, throw, ?:)": (
        f"{M}.Statements.everyStatement(int[])",
        [(f"{M}.Statements.c1()", "exact", ("assert c1()",)), (f"{M}.Statements.c7()", "exact", ("assert c1()",)),
         (f"{M}.Statements.c2()", "exact", ("while (c2())",)), (f"{M}.Statements.c3()", "exact", ("while (c3())",)),
         (f"{M}.Statements.c4()", "exact", ("i = c4()",)), (f"{M}.Statements.c5()", "exact", ("i = c4()",)),
         (f"{M}.Statements.c6()", "exact", ("i = c4()",)), (f"{M}.Statements.c8()", "exact", ("{c8(), 0}",)),
         (f"{M}.Statements.c11()", "exact", ("synchronized (c11())",)),
         (f"{M}.Statements.c9()", "exact", ("switch (c9())",)), (f"{M}.Statements.c10()", "exact", ("c10();",)),
         (f"{M}.Statements.c12()", "exact", ("c12()))",)),
         ("java.lang.String.valueOf(int)", "exact", ("c12()))",)),
         ("java.lang.IllegalStateException.<init>(java.lang.String)", "exact", ("c12()))",)),
         (f"{M}.Statements.c13()", "exact", ("? c13() : c14()",)), (f"{M}.Statements.c14()", "exact", ("? c13() : c14()",)),
         (f"{M}.Statements.c15()", "exact", ("k + c15()",))],
    ),
    "cha to an override with a different erasure (generic interface, bridge method)": (
        f"{M}.GenericDispatch.store({M}.GenericDispatch.Repo,res.Item)",
        [(f"{M}.GenericDispatch.Repo.save(java.lang.Object)", "exact", ("repo.save(item)",)),
         (f"{M}.GenericDispatch.ItemRepo.save(res.Item)", "cha", ("repo.save(item)",))],
    ),
    "cha to a method inherited from a superclass that does not implement the interface": (
        f"{M}.GenericDispatch.named({M}.GenericDispatch.Named)",
        [(f"{M}.GenericDispatch.Named.name()", "exact", ("n.name()",)),
         (f"{M}.GenericDispatch.BaseNamed.name()", "cha", ("n.name()",))],
    ),
    "overloads decided by the shape of a lambda argument (Runnable vs Callable)": (
        f"{M}.Functional.lambdaOverloads()",
        [(f"{M}.Functional.exec(java.lang.Runnable)", "exact", ("exec(() -> { });",)),
         (f"{M}.Functional.exec(java.util.concurrent.Callable)", "exact", ("exec(() -> 42);",))],
    ),
    "JDK generic chain with a method reference (Optional)": (
        f"{M}.Functional.optional(res.Item)",
        [("java.util.Optional.of(java.lang.Object)", "exact", ("Optional.of(item)",)),
         ("java.util.Optional.map(java.util.function.Function)", "exact", ("Optional.of(item)",)),
         (f"{I}.label()", "exact", ("Optional.of(item)",)),
         ("java.util.Optional.orElse(java.lang.Object)", "exact", ("Optional.of(item)",))],
    ),
    "argument types of expressions (promotion, conditional, casts, boxing)": (
        f"{M}.ArgTypes.calls(char,byte,boolean,int[],java.lang.String,java.lang.Integer)",
        [(f"{M}.ArgTypes.f(int)", "exact", ("f(c + 1);", "f(~b);", "f((short) 1);", "f(arr.length);",
                                            "f(s.length());", "f(s.charAt(0));")),
         (f"{M}.ArgTypes.f(long)", "exact", ("f(1 + 2L);", "f(flag ? 1 : 2L);")),
         (f"{M}.ArgTypes.f(double)", "exact", ("f(1.0f * 2);",)),
         (f"{M}.ArgTypes.f(java.lang.String)", "exact", ('f("a" + 1);',)),
         (f"{M}.ArgTypes.f(java.lang.Object)", "exact", ("f(flag);", "f(new int[0]);")),
         ("java.lang.String.length()", "exact", ("f(s.length());",)),
         ("java.lang.String.charAt(int)", "exact", ("f(s.charAt(0));",)),
         (f"{M}.ArgTypes.m(long)", "exact", ("m(boxed);",))],
    ),
    "calls in multi-line expressions: the line of the method name (as javac)": (
        f"{M}.MultiLine.chain(res.Item)",
        [(f"{I}.next()", "exact", (".next() // first", ".next() // second")),
         (f"{I}.label()", "exact", (".label();",))],
    ),
}


def test_streams_with_an_inferred_lambda_parameter(pg):
    # DESIGN.md asks for lambda parameters *with declared types*; `i -> i.label()` may stay
    # a `name` edge, but it must not go anywhere else, and the rest of the chain is exact
    caller = f"{M}.Functional.streams(java.util.List)"
    line = only_line(SRC / "res/more/Functional.java", "items.stream()")
    edges = out_edges(pg, caller)
    exact = {
        ("java.util.Collection.stream()", "exact", (line,)),
        ("java.util.stream.Stream.filter(java.util.function.Predicate)", "exact", (line,)),
        ("java.util.stream.Stream.map(java.util.function.Function)", "exact", (line,)),
        ("java.util.stream.Stream.forEach(java.util.function.Consumer)", "exact", (line,)),
        (f"{I}.next()", "exact", (line,)),
        (f"{I}.run()", "exact", (line,)),
    }
    assert exact <= edges
    assert edges - exact in ({(f"{I}.label()", "exact", (line,))}, {(f"{I}.label()", "name", (line,))})


def test_calls_on_library_supertypes(pg):
    # DESIGN.md/issue 2 ask for cha edges from calls on *project* supertypes only; whether a
    # call on a JDK or library interface also dispatches to project implementations is not
    # asserted here (docs/fixtures.md): only the declared targets are.
    caller = f"{M}.JdkTypes.jdkInterface()"
    assert expect(
        caller,
        (f"{M}.JdkTypes.Job.<init>()", "exact", ("new Job()",)),
        ("java.lang.Runnable.run()", "exact", ("r.run()",)),
    ) <= out_edges(pg, caller)
    caller = f"{M}.JdkTypes.libraryInterface(org.acme.http.Handler)"
    assert expect(
        caller,
        ("org.acme.http.Handler.handle(org.acme.http.Request)", "exact", ("h.handle(",)),
        ("org.acme.http.Request.<init>(java.lang.String)", "exact", ("h.handle(",)),
    ) <= out_edges(pg, caller)
    by = targets_by_api(pg.reach(caller, dispatch="declared"))
    assert set(by) == {"org.acme.http.Handler.handle(org.acme.http.Request)", "org.acme.http.Request.<init>(java.lang.String)"}
    t = by["org.acme.http.Request.<init>(java.lang.String)"]
    assert (t.api, t.class_, t.depth, t.chain_loc, t.library) == (
        "org.acme.http.Request.<init>", "org.acme.http.Request", 2, 3, ACME_GAV,
    )


def test_method_ids_erase_parameter_types(pg):
    ids = set(pg.methods())
    # nested array type, nested generic type, C-style array, annotated final parameter
    assert f"{M}.Traps.ids(res.Outer.Inner[][],java.util.Map.Entry,java.lang.String[],int)" in ids
    # a type variable erases to its first bound; a wildcard type to its raw type
    assert f"{M}.Traps.bounded(java.lang.Comparable[],java.util.List)" in ids


def test_anonymous_class_in_a_static_initializer_goes_to_clinit(pg):
    caller = f"{M}.Nesting.<clinit>()"
    assert out_edges(pg, caller, kinds=("method",)) == expect(
        caller, (f"{M}.Nesting.secret()", "exact", ("                secret();",))
    )


# Known gaps of the core, kept as strict xfails so a fix shows up as XPASS (then drop the mark).
KNOWN_GAPS: dict = {}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[c])) if c in KNOWN_GAPS else c
     for c in sorted(MORE)],
)
def test_exact_edges_harder(pg, case):
    caller, edges = MORE[case]
    assert out_edges(pg, caller) == expect(caller, *edges)


def test_reach_cha_on_a_class_and_declared_dispatch(pg):
    on_class = f"{M}.Dispatch.onClass({M}.Animal)"
    by = targets_by_api(pg.reach(on_class))
    assert set(by) == {f"{TX}.upper(java.lang.String)", f"{TX}.repeat(java.lang.String,int)"}
    up, rep = by[f"{TX}.upper(java.lang.String)"], by[f"{TX}.repeat(java.lang.String,int)"]
    # onClass 3 lines; Animal.sound 3 lines; Dog.sound 4 lines (with @Override)
    assert (up.chain, up.depth, up.chain_loc, up.resolution) == (
        (on_class, f"{M}.Animal.sound()", f"{TX}.upper(java.lang.String)"), 3, 6, "exact",
    )
    assert (rep.chain, rep.depth, rep.chain_loc, rep.resolution) == (
        (on_class, f"{M}.Dog.sound()", f"{TX}.repeat(java.lang.String,int)"), 3, 7, "cha",
    )
    declared = pg.reach(on_class, dispatch="declared")
    assert [t.signature for t in declared] == [f"{TX}.upper(java.lang.String)"]
    assert declared[0].resolution == "exact"


def test_reach_through_recursion_terminates(pg):
    b = f"{M}.Recursion.b(int)"
    (t,) = pg.reach(b)
    assert t.chain == (b, f"{M}.Recursion.a(int)", f"{TX}.upper(java.lang.String)")
    assert (t.depth, t.chain_loc) == (3, 6)
    assert t.density == pytest.approx(1 / 6)


def test_jdk_packages_outside_java_and_javax_are_not_third_party(pg):
    # decided from the running JDK's module packages, not from name prefixes
    file = SRC / "res/classify/MorePackages.java"
    cases = {
        "res.classify.MorePackages.w3c(org.w3c.dom.Document)":
            ("org.w3c.dom.Document.getDocumentElement()", "exact", "getDocumentElement", False),
        "res.classify.MorePackages.processing(javax.annotation.processing.Messager)":
            ("javax.annotation.processing.Messager.printMessage(javax.tools.Diagnostic.Kind,java.lang.CharSequence)",
             "exact", "printMessage", False),
        "res.classify.MorePackages.inject(javax.inject.Provider)":
            ("javax.inject.Provider.get(*)", "arity", "provider.get()", True),
    }
    for caller, (callee, res, snippet, third) in cases.items():
        assert out_edges(pg, caller) == {(callee, res, (only_line(file, snippet),))}
        assert pg.graph.nodes[callee]["third_party"] is third
    assert [t.api for t in pg.reach("res.classify.MorePackages.inject(javax.inject.Provider)")] == [
        "javax.inject.Provider.get"
    ]


def test_static_imports_from_a_library(pg, pg_nocp):
    file = SRC / "res/lib/StaticLib.java"
    single, on_demand = "res.lib.StaticLib.single()", "res.lib.StaticLib.onDemand(java.util.List)"
    up, pad, join = only_line(file, 'upper("x")'), only_line(file, 'pad("x", 2)'), only_line(file, "join(")
    assert out_edges(pg, single) == {(f"{TX}.upper(java.lang.String)", "exact", (up,))}
    # List<String>: join(String, Iterable<?>) in phase 1, before join(String, String...)
    assert out_edges(pg, on_demand) == {
        (f"{TX}.pad(java.lang.String,int)", "exact", (pad,)),
        (f"{TX}.join(java.lang.String,java.lang.Iterable)", "exact", (join,)),
    }
    # without the jar: a single static import still decides the declaring type ...
    assert out_edges(pg_nocp, single) == {(f"{TX}.upper(*)", "arity", (up,))}
    # ... an on-demand one does not (any other on-demand import could declare pad/join)
    assert out_edges(pg_nocp, on_demand) == {(f"{TX}.pad(*)", "name", (pad,)), (f"{TX}.join(*)", "name", (join,))}
    assert pg_nocp.reach(on_demand) == []
