"""The JDK side of the classpath index, checked against the JDK's own classes and javap."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from callgraph.classpath import ClasspathIndex, Solved, Unsolved, UnsolvedReason, find_jdk, is_third_party
from callgraph._jimage import JImage

JDKS = [Path("/usr/lib/jvm/java-17-openjdk-amd64"), Path("/usr/lib/jvm/temurin-25-jdk-amd64")]
JDKS = [j for j in JDKS if (j / "lib" / "modules").is_file()]


@pytest.fixture(scope="module", params=JDKS, ids=lambda p: p.name)
def jdk(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("QARE_CACHE_DIR", str(tmp_path_factory.mktemp("qcache")))
    ix = ClasspathIndex.open((), jdk=request.param)
    yield ix
    mp.undo()


def test_opens_without_warnings(jdk):
    assert jdk.warnings == []
    assert jdk.jdk_home in JDKS


def test_jdk_packages_match_java_list_packages(jdk):
    # Independent source: the JDK itself lists its packages per module.
    out = subprocess.run([str(jdk.jdk_home / "bin" / "java"), "--list-modules"], capture_output=True,
                         text=True, check=True).stdout
    modules = [line.split("@")[0] for line in out.split()]
    assert "java.base" in modules
    desc = subprocess.run([str(jdk.jdk_home / "bin" / "java"), "--describe-module", "java.xml"],
                          capture_output=True, text=True, check=True).stdout
    exported = set(re.findall(r"^exports (\S+)", desc, re.M))
    assert {"javax.xml.parsers", "org.w3c.dom"} <= exported
    assert exported <= jdk.jdk_packages
    contains = set(re.findall(r"^contains (\S+)", desc, re.M))
    assert contains <= jdk.jdk_packages  # non-exported packages are JDK too


def test_jdk_packages_equal_module_finder(jdk, tmp_path):
    # Independent source: the JDK's own ModuleFinder lists every package of every system module.
    src = tmp_path / "Pkgs.java"
    src.write_text(
        "import java.lang.module.*;\n"
        "public class Pkgs { public static void main(String[] a) {\n"
        "  for (ModuleReference r : ModuleFinder.ofSystem().findAll())\n"
        "    for (String p : r.descriptor().packages()) System.out.println(p);\n"
        "} }\n")
    out = subprocess.run([str(jdk.jdk_home / "bin" / "java"), str(src)], capture_output=True,
                         text=True, check=True).stdout
    assert set(out.split()) == set(jdk.jdk_packages)


@pytest.mark.parametrize("pkg,expected", [
    ("java.lang", True), ("java.util.concurrent", True), ("javax.xml.parsers", True), ("javax.xml", True),
    ("javax.servlet", False), ("javax.servlet.http", False), ("jakarta.persistence", False),
    ("org.apache.commons.lang3", False), ("java", False), ("javax", False),
])
def test_is_jdk_package(jdk, pkg, expected):
    assert jdk.is_jdk_package(pkg) is expected


@pytest.mark.parametrize("name,third", [
    ("java.util.Map.Entry", False), ("javax.xml.parsers.DocumentBuilder", False),
    ("javax.servlet.http.HttpServlet", True), ("jakarta.persistence.Entity", True),
    ("javax.annotation.Nullable", True), ("org.springframework.web.bind.annotation.GetMapping", True),
])
def test_is_third_party(jdk, name, third):
    assert is_third_party(name, jdk) is third


def test_string(jdk):
    s = jdk.lookup("java.lang.String")
    assert s.fqn == "java.lang.String" and s.kind == "class" and s.origin == "jdk"
    assert s.location == "jrt:/java.base" and s.library is None
    assert s.superclass == "java.lang.Object"
    assert {"java.io.Serializable", "java.lang.Comparable", "java.lang.CharSequence"} <= set(s.interfaces)
    value_of = {m.params: m for m in s.methods if m.name == "valueOf"}
    assert ("char[]",) in value_of and ("int",) in value_of and ("char[]", "int", "int") in value_of
    assert value_of[("char[]",)].static and value_of[("char[]",)].returns == "java.lang.String"
    fmt = [m for m in s.methods if m.name == "format" and m.params[0] == "java.lang.String"]
    assert fmt[0].params == ("java.lang.String", "java.lang.Object...") and fmt[0].varargs
    assert "java.lang.String.CaseInsensitiveComparator" in s.nested
    ctors = {m.params for m in s.methods if m.name == "<init>" and m.access == "public"}
    assert () in ctors and ("java.lang.String",) in ctors and ("byte[]", "java.nio.charset.Charset") in ctors
    assert not any(m.name == "<clinit>" for m in s.methods)
    fields = {f.name: f for f in s.fields}
    assert fields["CASE_INSENSITIVE_ORDER"].type == "java.util.Comparator" and fields["CASE_INSENSITIVE_ORDER"].static


def test_map_entry_nested_and_generic(jdk):
    assert jdk.has_type("java.util.Map.Entry")
    e = jdk.lookup("java.util.Map.Entry")
    assert e.fqn == "java.util.Map.Entry" and e.kind == "interface" and e.superclass is None
    assert e.type_params == ("K", "V")
    m = jdk.lookup("java.util.Map")
    assert "java.util.Map.Entry" in m.nested and m.type_params == ("K", "V")
    get = [x for x in m.methods if x.name == "get"][0]
    assert get.params == ("java.lang.Object",) and get.returns == "java.lang.Object" and get.abstract
    assert get.generic_returns == "TV;"
    entry_set = [x for x in m.methods if x.name == "entrySet"][0]
    assert entry_set.returns == "java.util.Set"
    # Map.entry(K, V) returns Map.Entry: the descriptor's Map$Entry is nested (InnerClasses).
    entry = [x for x in m.methods if x.name == "entry"][0]
    assert entry.returns == "java.util.Map.Entry" and entry.static
    assert [x.params for x in m.methods if x.name == "ofEntries"] == [("java.util.Map.Entry...",)]


def test_array_list_and_kinds(jdk):
    a = jdk.lookup("java.util.ArrayList")
    assert a.superclass == "java.util.AbstractList" and "java.util.List" in a.interfaces
    assert a.type_params == ("E",)
    assert jdk.lookup("java.lang.Thread.State").kind == "enum"
    assert jdk.lookup("java.lang.annotation.Retention").kind == "annotation"
    assert jdk.lookup("java.lang.Runnable").kind == "interface"
    assert jdk.lookup("java.lang.Record").kind == "class"
    # No synthetic or bridge methods: String.compareTo(Object) is a bridge.
    s = jdk.lookup("java.lang.String")
    assert [m.params for m in s.methods if m.name == "compareTo"] == [("java.lang.String",)]


def test_misses_and_non_types(jdk):
    r = jdk.lookup_result("java.util.NoSuchThing")
    assert isinstance(r, Unsolved) and r.reason is UnsolvedReason.NOT_ON_CLASSPATH and r.text == "not on the classpath"
    assert jdk.lookup("java.util.NoSuchThing") is None
    assert jdk.lookup_result("java.util.NoSuchThing") is r  # cached miss
    assert isinstance(jdk.lookup_result("java.lang.String"), Solved)
    assert jdk.lookup("java.lang.String") is jdk.lookup("java.lang.String")  # cached hit
    assert not jdk.has_type("java.util.Map.Nope")
    pi = jdk.lookup_result("java.lang.package-info")
    assert isinstance(pi, Unsolved) and pi.reason is UnsolvedReason.NOT_ON_CLASSPATH  # lib/modules lists none


def test_jdk_types_are_shared_between_indexes(jdk, tmp_path):
    # The JDK image is opened once per process and its parsed types are reused;
    # a jar on the classpath cannot change how a JDK type reads.
    other = ClasspathIndex.open([tmp_path / "missing.jar"], jdk=jdk.jdk_home)
    assert other.lookup("java.util.Map.Entry") is jdk.lookup("java.util.Map.Entry")
    assert other.lookup("java.lang.String") == jdk.lookup("java.lang.String")


def test_types_in_package(jdk):
    util = jdk.types_in_package("java.util")
    assert "java.util.ArrayList" in util and "java.util.Map" in util
    assert "java.util.Map.Entry" not in util and not any("$" in t for t in util)
    assert jdk.types_in_package("no.such.pkg") == []


def test_jimage_matches_jimage_tool_listing(jdk):
    # Independent source: the JDK's `jimage list` tool (present in full JDKs).
    tool = jdk.jdk_home / "bin" / "jimage"
    if not tool.exists():
        pytest.skip("no jimage tool in this JDK")
    out = subprocess.run([str(tool), "list", str(jdk.jdk_home / "lib" / "modules")],
                         capture_output=True, text=True, check=True).stdout
    names = set()
    module = None
    for line in out.splitlines():
        if line.startswith("Module: "):
            module = line.split()[1]
        elif line.strip().endswith(".class") and module:
            n = line.strip()[:-6]
            if n != "module-info":
                names.add(n)
    image = JImage(jdk.jdk_home / "lib" / "modules")
    assert set(image.classes) == names


def test_auto_finds_java_on_path():
    home = find_jdk("auto")
    assert home is not None and (home / "lib" / "modules").is_file()
    assert find_jdk(None) is None


def test_auto_uses_java_home(monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(JDKS[-1]))
    assert find_jdk("auto") == JDKS[-1]


def test_no_jdk():
    ix = ClasspathIndex.open((), jdk=None)
    assert ix.jdk_packages == frozenset() and ix.lookup("java.lang.String") is None
    assert is_third_party("java.lang.String", ix)


def test_missing_jdk_home_is_a_warning(tmp_path):
    ix = ClasspathIndex.open((), jdk=tmp_path / "nojdk")
    assert ix.jdk_packages == frozenset()
    assert ix.warnings and "no readable JDK" in ix.warnings[-1][1]


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    from callgraph import classpath as cp
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cp, "_JDK_CACHE", {})
    a = ClasspathIndex.open((), jdk=JDKS[0])
    files = list(tmp_path.glob("jimage-index-*.json"))
    assert len(files) == 1
    monkeypatch.setattr(cp, "_JDK_CACHE", {})
    b = ClasspathIndex.open((), jdk=JDKS[0])
    assert b.jdk_packages == a.jdk_packages
    assert b.lookup("java.util.Map.Entry") == a.lookup("java.util.Map.Entry")
    # A damaged cache file is ignored, not trusted.
    files[0].write_text("{not json")
    monkeypatch.setattr(cp, "_JDK_CACHE", {})
    c = ClasspathIndex.open((), jdk=JDKS[0])
    assert c.jdk_packages == a.jdk_packages and c.warnings == []
