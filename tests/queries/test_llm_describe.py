"""Descriptions for undocumented APIs: the member's source from a sources jar
or from the class decompiled by Vineflower (a jar compiled here with javac
from the fixture sources below), and `qare build --describe-undocumented llm`
against the local fake endpoint."""

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import queries.describe as qd
from queries.build import BuildOptions, build_dataset
from queries.describe import MemberSource, SourceMiss, find_member_source, member_declaration

UTIL = """package org.lib;

import java.util.List;

public class Util {
    private final String prefix;

    public Util(String prefix) {
        this.prefix = prefix;
    }

    public static String shout(String s) {
        return s.toUpperCase() + "!";
    }

    public int add(int a, int b) {
        return a + b;
    }

    public double add(double a, double b) {
        return a * 1.0 + b;
    }

    public <T> T first(List<T> items, String... names) {
        return items.isEmpty() ? null : items.get(0);
    }

    public static class Inner {
        public int twice(int x) {
            return 2 * x;
        }
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """``lib-1.0.jar`` compiled by javac from UTIL (with its pom.properties), and ``lib-1.0-sources.jar``."""
    if shutil.which("javac") is None:
        pytest.skip("javac not installed")
    d = tmp_path_factory.mktemp("lib")
    src = d / "src/org/lib/Util.java"
    src.parent.mkdir(parents=True)
    src.write_text(UTIL)
    subprocess.run(["javac", "-d", str(d / "classes"), str(src)], check=True)
    jar = d / "lib-1.0.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        for f in sorted((d / "classes").rglob("*.class")):
            zf.write(f, f.relative_to(d / "classes").as_posix())
        # the coordinates a Maven-built jar carries (→ the graph's library org.lib:lib:1.0)
        zf.writestr("META-INF/maven/org.lib/lib/pom.properties", "groupId=org.lib\nartifactId=lib\nversion=1.0\n")
    sources = d / "sources" / "lib-1.0-sources.jar"
    sources.parent.mkdir()
    with zipfile.ZipFile(sources, "w") as zf:
        zf.writestr("org/lib/Util.java", UTIL)
    return jar, sources


def vineflower_or_skip():
    try:
        return qd.vineflower_jar()
    except qd.DecompileError as e:
        pytest.skip(f"Vineflower could not be fetched from Maven Central (unreachable?): {e}")


# ---------------------------------------------------------------- finding the member in source text


def test_member_declaration_overloads_nested_varargs_constructor():
    src = UTIL.encode()
    assert member_declaration(src, ["Util"], "add", "org.lib.Util.add(double,double)") == (
        "public double add(double a, double b) {\n        return a * 1.0 + b;\n    }")
    assert member_declaration(src, ["Util"], "add", "org.lib.Util.add(int,int)").startswith("public int add(int a")
    assert member_declaration(src, ["Util", "Inner"], "twice", "org.lib.Util.Inner.twice(int)") == (
        "public int twice(int x) {\n            return 2 * x;\n        }")
    # a type variable is erased to its bound in the method id; varargs are arrays
    assert member_declaration(src, ["Util"], "first", "org.lib.Util.first(java.util.List,java.lang.String[])") \
        .startswith("public <T> T first(")
    assert member_declaration(src, ["Util"], "<init>", "org.lib.Util.<init>(java.lang.String)").startswith(
        "public Util(String prefix)")
    assert member_declaration(src, ["Util"], "add", "org.lib.Util.add(int)") is None  # no 1-argument add
    assert member_declaration(src, ["Util"], "nope", None) is None
    assert member_declaration(src, ["Other"], "add", None) is None


def test_sources_jar_wins(lib):
    jar, sources = lib
    got = find_member_source("org.lib.Util.shout", "org.lib.Util.shout(java.lang.String)", "org.lib.Util",
                             sources=[str(sources)], jars=[str(jar)])
    assert got == MemberSource("sources", str(sources),
                               'public static String shout(String s) {\n        return s.toUpperCase() + "!";\n    }')


def test_no_source_anywhere_is_a_miss(lib, tmp_path):
    got = find_member_source("org.other.X.y", None, "org.other.X", sources=[str(lib[1])], jars=[str(lib[0])])
    assert isinstance(got, SourceMiss) and "no classpath jar holds org.other.X" in got.reason
    got = find_member_source("org.lib.Util.shout", None, "org.lib.Util", jars=[str(lib[0])], decompile=False)
    assert isinstance(got, SourceMiss) and "decompiling off" in got.reason


# ---------------------------------------------------------------- the real decompiler


@pytest.mark.slow
def test_decompiled_member_from_javac_jar(lib):
    vineflower_or_skip()
    jar, _ = lib
    got = find_member_source("org.lib.Util.Inner.twice", "org.lib.Util.Inner.twice(int)", "org.lib.Util.Inner",
                             jars=[str(jar)])
    assert isinstance(got, MemberSource), got
    assert got.origin == "decompiled" and got.container == str(jar)
    # Vineflower names parameters var1.. (no debug names in a plain javac build); the body is the same
    assert got.code.split("\n")[0].strip() == "public int twice(int var1) {"
    assert "return 2 * var1;" in got.code
    # the implicit default constructor javac adds is shown too
    ctor = find_member_source("org.lib.Util.Inner.<init>", "org.lib.Util.Inner.<init>()", "org.lib.Util.Inner",
                              jars=[str(jar)])
    assert isinstance(ctor, MemberSource) and ctor.code.startswith("public Inner()"), ctor
    # several classes of one jar in one run; a class it does not hold is simply absent
    both = qd.decompile_classes(str(jar), ["org/lib/Util", "org/lib/Nope"])
    assert list(both) == ["org/lib/Util"] and "class Inner" in both["org/lib/Util"]
    add = find_member_source("org.lib.Util.add", "org.lib.Util.add(double,double)", "org.lib.Util", jars=[str(jar)])
    assert "double add(double" in add.code and "* 1.0" in add.code


def test_decompile_refuses_odd_names_and_missing_class(lib):
    jar, _ = lib
    with pytest.raises(qd.DecompileError, match="not a binary class name"):
        qd.decompile_class(str(jar), "../etc/passwd", decompiler=jar)
    with pytest.raises(qd.DecompileError, match="no readable org/lib/Nope.class"):
        qd.decompile_class(str(jar), "org/lib/Nope", decompiler=jar)


def test_decompiler_timeout_is_enforced(lib, tmp_path):
    jar, _ = lib
    # a "decompiler" that never finishes: the limit must stop it
    slow = tmp_path / "Slow.java"
    slow.write_text("public class Slow { public static void main(String[] a) throws Exception { Thread.sleep(60000); } }")
    subprocess.run(["javac", "-d", str(tmp_path), str(slow)], check=True)
    (tmp_path / "m.txt").write_text("Main-Class: Slow\n")
    subprocess.run(["jar", "cfm", str(tmp_path / "slow.jar"), str(tmp_path / "m.txt"), "-C", str(tmp_path), "Slow.class"],
                   check=True)
    with pytest.raises(qd.DecompileError, match="timed out"):
        qd.decompile_class(str(jar), "org/lib/Util", decompiler=tmp_path / "slow.jar", timeout=2)


# ---------------------------------------------------------------- qare build --describe-undocumented llm


@pytest.fixture
def needs_openai():
    pytest.importorskip("openai", reason="extra 'llm' (openai) not installed: pip install -e '.[llm]'")

from tests.llm_fake import FakeLLM, ok, status, user_text  # noqa: E402
from tests.queries.test_build_pipeline import env, read_jsonl, use_deps  # noqa: E402,F401

SHOUT = "org.lib.Util.shout(java.lang.String)"
TWICE = "org.lib.Util.Inner.twice(int)"


# the project calling the library: its real call graph (lib-1.0.jar on the classpath)
# has p.C.a(java.lang.String) → SHOUT (line 6) and p.C.b(org.lib.Util.Inner,int) → TWICE (line 11)
USER = """package p;

public class C {
    /** Shouts. */
    public String a(String s) {
        return org.lib.Util.shout(s);
    }

    /** Doubles. */
    public int b(org.lib.Util.Inner inner, int x) {
        return inner.twice(x);
    }
}
"""


def lib_project(project):
    spec = project("lib")
    (Path(spec.source) / "src/main/java/p").mkdir(parents=True)
    (Path(spec.source) / "src/main/java/p/C.java").write_text(USER)
    return spec


def describer(body, i):
    text = user_text(body)
    if "shout" in text:
        return ok("Returns the string in upper case followed by an exclamation mark. Never null.")
    return status(503)


def test_build_describes_undocumented_apis(needs_openai, env, tmp_path, monkeypatch, lib):
    _, _, project = env
    jar, sources = lib
    # the sources jar beside the library jar, as a Maven repository lays it out
    shutil.copy(jar, tmp_path / "lib-1.0.jar")
    shutil.copy(sources, tmp_path / "lib-1.0-sources.jar")
    use_deps(monkeypatch, discover_classpath=lambda root, *a: [str(tmp_path / "lib-1.0.jar")])
    with FakeLLM(describer) as srv:
        o = BuildOptions(api_count_range=(0, 9), describe_undocumented="llm", llm_url=srv.url, llm_model="fake-coder",
                         llm_retries=0, llm_cache=str(tmp_path / "llm.sqlite"))
        res = build_dataset([lib_project(project)], tmp_path / "out", o, quiet=True)
    # the shout request carried the member's source from the sources jar
    shout_req = next(user_text(b) for b in srv.requests if "shout" in user_text(b))
    assert 'return s.toUpperCase() + "!";' in shout_req and "Source (sources):" in shout_req
    apis = {a["signature"]: a for a in read_jsonl(tmp_path / "out/apis.jsonl")}
    assert apis[SHOUT]["doc_source"] == "llm" and apis[SHOUT]["doc_model"] == "fake-coder"
    assert apis[SHOUT]["first_sentence"] == "Returns the string in upper case followed by an exclamation mark."
    assert apis[SHOUT]["library"] == "org.lib:lib:1.0"
    # the sample reaching it is kept; the one whose API could not be described is dropped as undocumented
    assert [s["method"] for s in read_jsonl(tmp_path / "out/samples.jsonl")] == ["p.C.a(java.lang.String)"]
    assert res.counts["dropped_undocumented"] == 1
    llm = json.loads((tmp_path / "out/manifest.json").read_text())["llm"]
    assert llm["described_apis"] == 1 and llm["described_from"] == {"sources": 1}
    assert llm["undescribed_apis"] == 1 and llm["description_errors"][0].startswith(f"{TWICE}: server_error")
    assert len(llm["prompts"]) == 1 and "describe" in llm["prompts"]


@pytest.mark.slow
def test_build_describes_from_decompiled_class(needs_openai, env, tmp_path, monkeypatch, lib):
    vineflower_or_skip()
    _, _, project = env
    jar, _ = lib  # no sources jar beside it
    use_deps(monkeypatch, discover_classpath=lambda root, *a: [str(jar)])

    def answer(body, i):
        return ok("Returns twice the given number.") if "twice" in user_text(body) else ok("Shouts the text.")

    with FakeLLM(answer) as srv:
        build_dataset([lib_project(project)], tmp_path / "out",
                      BuildOptions(api_count_range=(0, 9), describe_undocumented="llm", llm_url=srv.url,
                                   llm_model="fake-coder", llm_cache=None), quiet=True)
    twice_req = next(user_text(b) for b in srv.requests if "twice" in user_text(b))
    assert "Source (decompiled):" in twice_req and "return 2 * var1;" in twice_req
    assert len(read_jsonl(tmp_path / "out/samples.jsonl")) == 2
    llm = json.loads((tmp_path / "out/manifest.json").read_text())["llm"]
    assert llm["described_from"] == {"decompiled": 2} and llm["cache"] is None
