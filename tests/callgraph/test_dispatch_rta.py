"""Rapid Type Analysis dispatch (issue 10 part 3; docs/callgraph.md "Dispatch").

Each project below is small enough to work the target sets out by hand: for
each query method, ``declared`` reaches what the compiler binds, ``cha``
every overriding project method, ``rta`` only the overrides that a type the
program instantiates runs. Third-party calls are ``org.apache.commons.lang3
.StringUtils`` static calls (no jar: ``(*)`` API nodes, named by ``api``).
"""

from __future__ import annotations

import pytest

from callgraph import build_project_graph
from callgraph._rta import Instantiation

SU = "org.apache.commons.lang3.StringUtils."
IMP = "import org.apache.commons.lang3.StringUtils;\n"


def _project(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return tmp_path


def _apis(pg, mid, dispatch):
    return {t.api.removeprefix(SU) for t in pg.reach(mid, dispatch=dispatch)}


M = "src/main/java/d/"
T = "src/test/java/d/"

# --- Sync/Async siblings: Async is created only by test code ------------------
SIBLINGS = {
    M + "Callback.java": "package d;\npublic interface Callback { void onDone(String s); }\n",
    M + "SyncCallback.java": "package d;\n" + IMP + (
        "public class SyncCallback implements Callback {\n"
        "    public void onDone(String s) { StringUtils.trim(s); }\n}\n"),
    M + "AsyncCallback.java": "package d;\n" + IMP + (
        "public class AsyncCallback implements Callback {\n"
        "    public void onDone(String s) { StringUtils.strip(s); }\n}\n"),
    M + "Runner.java": "package d;\n" + (
        "public class Runner {\n"
        "    private final Callback cb = new SyncCallback();\n"
        "    public void fire(Callback c) { c.onDone(\"x\"); }\n}\n"),
    T + "RunnerTest.java": "package d;\n" + (
        "public class RunnerTest {\n"
        "    void async() { new Runner().fire(new AsyncCallback()); }\n"
        "    void direct(Callback c) { c.onDone(\"y\"); }\n}\n"),
}


def test_sibling_subclasses_cha_rta_declared(tmp_path):
    pg = build_project_graph(_project(tmp_path, SIBLINGS), jdk=None)
    fire = "d.Runner.fire(d.Callback)"
    assert _apis(pg, fire, "declared") == set()  # Callback.onDone is abstract
    assert _apis(pg, fire, "cha") == {"trim", "strip"}
    # main code creates only SyncCallback; AsyncCallback only in a test
    assert _apis(pg, fire, "rta") == {"trim"}
    # a test method may run test instantiations too
    assert _apis(pg, "d.RunnerTest.direct(d.Callback)", "rta") == {"trim", "strip"}
    assert pg.instantiated["d.SyncCallback"].source_sets == {"main"}
    assert pg.instantiated["d.AsyncCallback"].source_sets == {"test"}
    ed = pg.graph.edges[fire, "d.AsyncCallback.onDone(java.lang.String)"]
    assert (ed["resolution"], ed["rta"]) == ("cha", ("test",))
    assert pg.graph.edges[fire, "d.SyncCallback.onDone(java.lang.String)"]["rta"] == ("main",)
    assert (pg.summary.cha_edges, pg.summary.rta_edges) == (4, 4)  # 2 calls × 2 overrides, all witnessed
    # the graph's default mode is what build_project_graph was given
    pg2 = build_project_graph(tmp_path, jdk=None, dispatch="rta")
    assert pg2.dispatch == "rta" and {t.api for t in pg2.reach(fire)} == {SU + "trim"}
    with pytest.raises(ValueError):
        build_project_graph(tmp_path, jdk=None, dispatch="virtual")


# --- Spring: a @Service behind an interface, a meta-annotated stereotype, @Bean, repositories
SPRING = {
    M + "GreetingService.java": "package d;\npublic interface GreetingService { String greet(String n); }\n",
    M + "GreetingServiceImpl.java": "package d;\nimport org.springframework.stereotype.Service;\n" + IMP + (
        "@Service\npublic class GreetingServiceImpl implements GreetingService {\n"
        "    public String greet(String n) { return StringUtils.capitalize(n); }\n}\n"),
    M + "LegacyGreeting.java": "package d;\n" + IMP + (
        "public class LegacyGreeting implements GreetingService {\n"
        "    public String greet(String n) { return StringUtils.upperCase(n); }\n}\n"),
    M + "DomainService.java": "package d;\nimport org.springframework.stereotype.*;\n"
        "@Service\npublic @interface DomainService { }\n",
    M + "AuditGreeting.java": "package d;\n" + IMP + (
        "@DomainService\npublic class AuditGreeting implements GreetingService {\n"
        "    public String greet(String n) { return StringUtils.swapCase(n); }\n}\n"),
    M + "BeanGreeting.java": "package d;\n" + IMP + (
        "public class BeanGreeting implements GreetingService {\n"
        "    public String greet(String n) { return StringUtils.lowerCase(n); }\n}\n"),
    M + "AppConfig.java": "package d;\nimport org.springframework.context.annotation.*;\n" + (
        "@Configuration\npublic class AppConfig {\n"
        "    @Bean BeanGreeting beanGreeting() { return make(); }\n"
        "    static BeanGreeting make() { return null; }\n}\n"),
    M + "GreetingController.java": "package d;\nimport org.springframework.web.bind.annotation.RestController;\n" + (
        "@RestController\npublic class GreetingController {\n"
        "    private final GreetingService service;\n"
        "    GreetingController(GreetingService s) { service = s; }\n"
        "    public String hello(String n) { return service.greet(n); }\n"
        "    public String label(Named x) { return x.label(); }\n}\n"),
    M + "Named.java": "package d;\npublic interface Named { String label(); }\n",
    M + "OwnerRepository.java": "package d;\n" + IMP + (
        "import org.springframework.data.jpa.repository.JpaRepository;\n"
        "public interface OwnerRepository extends JpaRepository<Owner, Integer>, Named {\n"
        "    default String label() { return StringUtils.chomp(\"owners\"); }\n}\n"),
    M + "PlainNamed.java": "package d;\n" + IMP + (
        "public class PlainNamed implements Named {\n"
        "    public String label() { return StringUtils.chop(\"p\"); }\n}\n"),
    M + "Owner.java": "package d;\npublic class Owner { }\n",
}


def test_spring_beans_are_instantiated(tmp_path):
    pg = build_project_graph(_project(tmp_path, SPRING), jdk=None)
    hello = "d.GreetingController.hello(java.lang.String)"
    assert _apis(pg, hello, "declared") == set()
    assert _apis(pg, hello, "cha") == {"capitalize", "upperCase", "swapCase", "lowerCase"}
    # @Service, @DomainService (meta-annotated @Service), @Bean return type; LegacyGreeting is no bean
    assert _apis(pg, hello, "rta") == {"capitalize", "swapCase", "lowerCase"}
    inst = pg.instantiated
    assert inst["d.GreetingServiceImpl"].how == {Instantiation.STEREOTYPE}
    assert inst["d.AuditGreeting"].how == {Instantiation.STEREOTYPE}
    assert inst["d.BeanGreeting"].how == {Instantiation.BEAN_METHOD}
    assert inst["d.OwnerRepository"].how == {Instantiation.REPOSITORY}
    assert "d.LegacyGreeting" not in inst and "d.PlainNamed" not in inst
    assert "d.DomainService" not in inst  # an annotation type is no bean
    # the repository proxy runs the interface's default method; PlainNamed is never created
    label = "d.GreetingController.label(d.Named)"
    assert _apis(pg, label, "cha") == {"chomp", "chop"}
    assert _apis(pg, label, "rta") == {"chomp"}


# --- an anonymous subclass inheriting the implementation ----------------------
ANON = {
    M + "Job.java": "package d;\npublic interface Job { void run(); }\n",
    M + "BaseJob.java": "package d;\n" + IMP + (
        "public abstract class BaseJob implements Job {\n"
        "    public void run() { StringUtils.chop(\"j\"); }\n"
        "    public abstract void body();\n}\n"),
    M + "LoudJob.java": "package d;\n" + IMP + (
        "public class LoudJob extends BaseJob {\n"
        "    public void run() { StringUtils.repeat(\"l\", 2); }\n"
        "    public void body() { StringUtils.center(\"c\", 3); }\n}\n"),
    M + "Shell.java": "package d;\n" + IMP + (
        "public class Shell {\n"
        "    public void exec(Job j) { j.run(); }\n"
        "    public void both(BaseJob b) { b.body(); }\n"
        "    public void go() { exec(new BaseJob() { public void body() { StringUtils.reverse(\"b\"); } }); }\n}\n"),
}


def test_anonymous_class(tmp_path):
    pg = build_project_graph(_project(tmp_path, ANON), jdk=None)
    exec_ = "d.Shell.exec(d.Job)"
    assert _apis(pg, exec_, "declared") == set()
    assert _apis(pg, exec_, "cha") == {"chop", "repeat"}
    # only the anonymous BaseJob is created: it runs BaseJob.run
    assert _apis(pg, exec_, "rta") == {"chop"}
    # the anonymous class's own body() is code of go(), not a dispatch target
    assert _apis(pg, "d.Shell.both(d.BaseJob)", "cha") == {"center"}
    assert _apis(pg, "d.Shell.both(d.BaseJob)", "rta") == set()
    assert _apis(pg, "d.Shell.go()", "declared") == {"reverse"}
    (anon,) = [k for k, v in pg.instantiated.items() if Instantiation.ANONYMOUS in v.how]
    assert anon.startswith("d.Shell$")


# --- lambdas and method references --------------------------------------------
LAMBDA = {
    M + "Step.java": "package d;\npublic interface Step { void apply(String s); }\n",
    M + "AuditedStep.java": "package d;\n" + IMP + (
        "public interface AuditedStep extends Step {\n"
        "    default void apply(String s) { StringUtils.deleteWhitespace(s); handle(s); }\n"
        "    void handle(String s);\n}\n"),
    M + "NoisyStep.java": "package d;\n" + IMP + (
        "public class NoisyStep implements Step {\n"
        "    public void apply(String s) { StringUtils.abbreviate(s, 5); }\n}\n"),
    M + "Pipeline.java": "package d;\n" + IMP + (
        "public class Pipeline {\n"
        "    public void run(Step st) { st.apply(\"x\"); }\n"
        "    public void main() { run((AuditedStep) s -> StringUtils.isEmpty(s)); }\n}\n"),
}


def test_lambda_instantiates_its_functional_interface(tmp_path):
    pg = build_project_graph(_project(tmp_path, LAMBDA), jdk=None)
    run = "d.Pipeline.run(d.Step)"
    assert _apis(pg, run, "declared") == set()
    assert _apis(pg, run, "cha") == {"deleteWhitespace", "abbreviate"}
    # the lambda is an AuditedStep: it runs the default apply; NoisyStep is never created
    assert _apis(pg, run, "rta") == {"deleteWhitespace"}
    assert pg.instantiated["d.AuditedStep"].how == {Instantiation.LAMBDA}


TARGETS = {
    M + "F.java": "package d;\npublic interface F { int f(int x); }\n",
    M + "G.java": "package d;\npublic interface G { int g(int x); }\n",
    M + "H.java": "package d;\npublic interface H { int h(int x); }\n",
    M + "K.java": "package d;\npublic interface K { int k(int x); }\n",
    M + "R.java": "package d;\npublic interface R { int r(int x); }\n",
    M + "V.java": "package d;\npublic interface V { int v(int x); }\n",
    M + "A.java": "package d;\npublic interface A { int a(int x); }\n",
    M + "P.java": "package d;\npublic interface P { int p(int x); }\n",
    M + "Use.java": "package d;\n" + (
        "public class Use {\n"
        "    static int twice(int x) { return 2 * x; }\n"
        "    private final F f = x -> x;\n"           # field type
        "    void reg(int n, G g) { }\n"
        "    void par(P p) { }\n"
        "    Use(H h) { }\n"
        "    R make() { return Use::twice; }\n"       # return type
        "    void m() {\n"
        "        K k = Use::twice;\n"                 # local variable type
        "        reg(1, x -> x);\n"                   # argument of a project method (arity 2, position 1)
        "        new Use(x -> x);\n"                  # constructor argument
        "        var w = (Object) null;\n"
        "        V v; v = x -> x;\n"                  # assignment: target type not read
        "        Object o = (A) (x -> x);\n"          # cast, through parentheses
        "        par((x -> x));\n"                   # a parenthesized argument
        "    }\n}\n"),
}


def test_lambda_target_types_read_from_the_source(tmp_path):
    pg = build_project_graph(_project(tmp_path, TARGETS), jdk=None)
    lam = {k for k, v in pg.instantiated.items() if Instantiation.LAMBDA in v.how}
    assert lam == {"d.F", "d.G", "d.H", "d.K", "d.R", "d.A", "d.P"}
    assert pg.summary.skipped == ()  # RTA facts never cost a file its call graph


def test_cli_dispatch_rta(tmp_path):
    import json

    from click.testing import CliRunner

    from qare.cli import main

    root = _project(tmp_path / "p", SIBLINGS)
    base = ["--no-auto-classpath", "--quiet", "--jobs", "1"]
    fire = "d.Runner.fire(d.Callback)"
    res = CliRunner().invoke(main, ["chain", str(root), fire, "--format", "json", "--dispatch", "rta"] + base)
    assert res.exit_code == 0, res.output
    assert [t["api"] for t in json.loads(res.stdout)] == [SU + "trim"]
    res = CliRunner().invoke(main, ["chain", str(root), fire, "--format", "json", "--dispatch", "cha"] + base)
    assert sorted(t["api"] for t in json.loads(res.stdout)) == [SU + "strip", SU + "trim"]
    spring = _project(tmp_path / "s", SPRING)
    hello = "d.GreetingController.hello(java.lang.String)"
    for mode, legacy in (("rta", False), ("cha", True)):
        out = tmp_path / f"g-{mode}.json"
        res = CliRunner().invoke(main, ["graph", str(spring), "--out", str(out), "--dispatch", mode] + base)
        assert res.exit_code == 0, res.output
        edges = {(e["source"], e["target"]): e for e in json.loads(out.read_text())["edges"]}
        assert edges[(hello, "d.GreetingServiceImpl.greet(java.lang.String)")]["rta"] == ["main"]
        # LegacyGreeting is never instantiated: its cha edge is not in the rta view
        assert ((hello, "d.LegacyGreeting.greet(java.lang.String)") in edges) is legacy
        assert (hello, "d.GreetingService.greet(java.lang.String)") in edges  # declared target
    assert "cha edges: 6 (of which witnessed by instantiated types, followed by rta: 4" in res.output


# --- instances the container or Lombok's generated code creates ----------------
GENERATED = {
    M + "Fetcher.java": "package d;\npublic interface Fetcher { String fetch(); }\n",
    M + "RegisteredFetcher.java": "package d;\n" + IMP + (
        "class RegisteredFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.chop(\"r\"); }\n}\n"),
    M + "ImportedFetcher.java": "package d;\n" + IMP + (
        "class ImportedFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.chomp(\"i\"); }\n}\n"),
    M + "BuiltFetcher.java": "package d;\nimport lombok.Builder;\n" + IMP + (
        "@Builder\nclass BuiltFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.trim(\"b\"); }\n}\n"),
    M + "OfFetcher.java": "package d;\nimport lombok.RequiredArgsConstructor;\n" + IMP + (
        "@RequiredArgsConstructor(staticName = \"of\")\nclass OfFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.strip(\"o\"); }\n}\n"),
    M + "RefFetcher.java": "package d;\n" + IMP + (
        "class RefFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.center(\"c\", 3); }\n}\n"),
    M + "PlainArgsFetcher.java": "package d;\nimport lombok.AllArgsConstructor;\n" + IMP + (
        "@AllArgsConstructor\nclass PlainArgsFetcher implements Fetcher {\n"
        "    public String fetch() { return StringUtils.swapCase(\"p\"); }\n}\n"),
    M + "Wiring.java": "package d;\nimport org.springframework.context.annotation.Import;\n" + (
        "@Import({ImportedFetcher.class})\npublic class Wiring {\n"
        "    void wire(Object ctx) { ((org.springframework.context.support.GenericApplicationContext) ctx)"
        ".registerBean(\"f\", RegisteredFetcher.class); }\n"
        "    Class<?> notABean() { return PlainArgsFetcher.class; }\n"
        "    java.util.function.Supplier<Fetcher> ref() { return RefFetcher::new; }\n"
        "    String use(Fetcher f) { return f.fetch(); }\n}\n"),
}


def test_registered_imported_and_lombok_built_types(tmp_path):
    pg = build_project_graph(_project(tmp_path, GENERATED), jdk=None)
    use = "d.Wiring.use(d.Fetcher)"
    assert _apis(pg, use, "cha") == {"chop", "chomp", "trim", "strip", "center", "swapCase"}
    # a class literal that is not handed to the container, and a plain @AllArgsConstructor, create nothing;
    # a constructor reference RefFetcher::new creates a RefFetcher
    assert _apis(pg, use, "rta") == {"chop", "chomp", "trim", "strip", "center"}
    assert pg.instantiated["d.RefFetcher"].how == {Instantiation.NEW}
    inst = pg.instantiated
    assert inst["d.RegisteredFetcher"].how == inst["d.ImportedFetcher"].how == {Instantiation.REGISTERED}
    assert inst["d.BuiltFetcher"].how == inst["d.OfFetcher"].how == {Instantiation.BUILDER}
