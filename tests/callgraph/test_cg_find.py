"""Finding a method for `qare chain` (constructors, simple-name parameter lists, close
matches) and the classpath options of `qare graph` / `qare chain` (discovery on by
default, its one-line report, unreadable entries).

Expected ids are read off the fixture sources by hand: ``res/init/Init.java`` declares
``Init()`` and ``Init(String)``, ``res/Point.java`` is ``record Point(int x, int y)``,
``res/Overloads.java`` has ``h(int, int)`` and ``h(int...)``, ``res/more/ArgTypes.java``
``calls(char, byte, boolean, int[], String, Integer)``.
"""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from cg_fixture_support import QARE_EXAMPLE, RESOLUTION
from click.testing import CliRunner

from qare.cli import main
from qare.exitcodes import NO_INPUT

INIT0 = "res.init.Init.<init>()"
INIT1 = "res.init.Init.<init>(java.lang.String)"
CALLS = "res.more.ArgTypes.calls(char,byte,boolean,int[],java.lang.String,java.lang.Integer)"


@pytest.fixture(scope="module")
def res_pg(graph_of):
    return graph_of(RESOLUTION)


@pytest.mark.parametrize("text, expected", [
    ("Init", [INIT0, INIT1]),                      # class name alone: all its constructors
    ("res.init.Init", [INIT0, INIT1]),
    ("Init.Init", [INIT0, INIT1]),                 # APIBench form
    ("Init.<init>", [INIT0, INIT1]),
    ("Init.Init(String)", [INIT1]),
    ("Init.<init>(java.lang.String)", [INIT1]),
    ("res.init.Init.Init()", [INIT0]),
    ("Point", ["res.Point.<init>(int,int)"]),      # a record's canonical constructor
    ("Point.Point(int, int)", ["res.Point.<init>(int,int)"]),
    ("Outer.Inner", ["res.Outer.Inner.<init>()"]),
    ("Inner", ["res.Outer.Inner.<init>()", "res.more.Nesting.Inner.<init>()"]),
    ("Init.Init(int)", []),
])
def test_constructor_forms(res_pg, text, expected):
    assert res_pg.find_methods(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("ArgTypes.calls(char, byte, boolean, int[], String, Integer)", [CALLS]),
    ("ArgTypes.calls(char,byte,boolean,int[],java.lang.String,java.lang.Integer)", [CALLS]),
    ("calls( char , byte, boolean, int[], lang.String, Integer )", [CALLS]),
    ("ArgTypes.calls(char, byte, boolean, int[], Object, Integer)", []),
    ("ArgTypes.calls(char, byte, boolean, int[], String)", []),
    ("Overloads.h(int, int)", ["res.Overloads.h(int,int)"]),
    ("Overloads.h(int...)", ["res.Overloads.h(int...)"]),
    ("Overloads.h(int[])", ["res.Overloads.h(int...)"]),  # one signature in Java
    ("Overloads.h(long)", []),
    ("Overloads.h", ["res.Overloads.h(int,int)", "res.Overloads.h(int...)"]),
    # generic arguments are dropped; T extends Comparable<T> erases to Comparable
    ("Traps.bounded(Comparable<T>[], List<? extends T>)",
     ["res.more.Traps.bounded(java.lang.Comparable[],java.util.List)"]),
])
def test_parameter_lists_with_simple_names(res_pg, text, expected):
    assert res_pg.find_methods(text) == expected


def test_suggestions_for_misspelt_names(graph_of):
    pg = graph_of(QARE_EXAMPLE)
    assert pg.suggest_methods("procesComment") == ["com.acme.CommentService.processComment(java.lang.String)"]
    assert pg.suggest_methods("isCommentEmty") == ["com.acme.CommentService.isCommentEmpty(java.lang.String)"]
    assert pg.suggest_methods("CommentService.procesComment")[0] == \
        "com.acme.CommentService.processComment(java.lang.String)"
    # a misspelt class name suggests its constructor
    assert pg.suggest_methods("CommentServce")[0] == "com.acme.CommentService.<init>()"
    assert pg.suggest_methods("zzzzzz") == []
    # the qualifier and the name are compared apart: a shared class name does not
    # bring every member of the class, nor its constructor, along (new user, session 7)
    assert pg.suggest_methods("CommentService.procesComment") == [
        "com.acme.CommentService.processComment(java.lang.String)"]
    assert pg.suggest_methods("CommentService.<int>")[0] == "com.acme.CommentService.<init>()"
    assert pg.suggest_methods("Comment.isEmpt") == []


def test_cli_misspelt_method_lists_close_matches():
    res = CliRunner().invoke(main, ["chain", str(QARE_EXAMPLE), "CommentService.procesComment", "--quiet"])
    assert res.exit_code == NO_INPUT
    lines = res.stderr.splitlines()
    assert "error: no project method matches 'CommentService.procesComment'" in lines
    i = lines.index("close matches:")
    assert lines[i + 1] == "  com.acme.CommentService.processComment(java.lang.String)"


def test_cli_constructor_and_parameter_forms():
    res = CliRunner().invoke(main, ["chain", str(RESOLUTION), "Init", "--quiet", "--no-auto-classpath"])
    assert res.exit_code == NO_INPUT
    assert "'Init' is ambiguous (2 methods)" in res.stderr
    assert f"  {INIT0}" in res.stderr.splitlines() and f"  {INIT1}" in res.stderr.splitlines()
    res = CliRunner().invoke(main, ["chain", str(RESOLUTION), "Init.Init(String)", "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"{INIT1}  [src/main/java/res/init/Init.java:23-")
    res = CliRunner().invoke(main, ["chain", str(RESOLUTION),
                                    "ArgTypes.calls(char, byte, boolean, int[], String, Integer)", "--quiet"])
    assert res.exit_code == 0 and res.stdout.startswith(f"{CALLS}  [src/main/java/res/more/ArgTypes.java:26-")


def test_chain_help_documents_exit_3():
    res = CliRunner().invoke(main, ["chain", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "3 PROJECT missing or holding no .java file, or METHOD unknown or ambiguous (candidates listed)" in text
    assert "--discover-classpath / --no-discover-classpath" in text


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>tiny</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.commons</groupId>
      <artifactId>commons-lang3</artifactId>
      <version>3.12.0</version>
    </dependency>
    <dependency>
      <groupId>org.example.nowhere</groupId>
      <artifactId>no-such-lib</artifactId>
      <version>9.9.9</version>
    </dependency>
  </dependencies>
</project>
"""

APP = """package t;
import org.apache.commons.lang3.StringUtils;
public class App {
    boolean check(String s) {
        return StringUtils.isBlank(s);
    }
}
"""


@pytest.fixture()
def tiny(tmp_path):
    root = tmp_path / "tiny"
    (root / "src/main/java/t").mkdir(parents=True)
    (root / "pom.xml").write_text(POM)
    (root / "src/main/java/t/App.java").write_text(APP)
    return root


# Maven resolves commons-lang3 (from qare's cache, or Maven Central the first time);
# the made-up dependency is reported with its reason. The tail (downloads, seconds) varies.
DISCOVERY = re.compile(r"classpath \(maven\): 1 jar, 1 unresolved: org\.example\.nowhere:no-such-lib:9\.9\.9 "
                       r"\(not-found\); (cached result|\d+ files? downloaded \([\d.]+ [KM]?i?B\)) in [\d.]+ s$")


def test_auto_classpath_is_on_by_default_and_reported(tiny):
    for args in ([], ["--auto-classpath"]):  # the old flag still works
        res = CliRunner().invoke(main, ["chain", str(tiny), "App.check", "--format", "json", "--quiet", *args])
        assert res.exit_code == 0, res.output
        (line,) = res.stderr.splitlines()
        assert DISCOVERY.match(line), line
        (rec,) = json.loads(res.stdout)
        # commons-lang3 3.12.0 declares isBlank(CharSequence) only
        assert rec["signature"] == "org.apache.commons.lang3.StringUtils.isBlank(java.lang.CharSequence)"
        assert rec["library"] == "org.apache.commons:commons-lang3:3.12.0"
        assert rec["resolution"] == "exact"
    res = CliRunner().invoke(main, ["chain", str(tiny), "App.check", "--format", "json", "--quiet",
                                    "--no-auto-classpath"])
    assert res.exit_code == 0 and res.stderr == ""
    (rec,) = json.loads(res.stdout)
    assert (rec["signature"], rec["resolution"]) == (None, "arity")
    res = CliRunner().invoke(main, ["graph", str(tiny), "--quiet"])
    # an unresolvable dependency is a failed input: graph exits 1 and says so
    assert res.exit_code == 1 and DISCOVERY.match(res.stderr.splitlines()[0])
    assert res.stderr.splitlines()[-1] == \
        "exit 1: 1 library not resolved (see the classpath line); the graph holds everything else"
    assert "exact: 1" in res.stdout


def test_auto_classpath_without_build_files(tmp_path):
    (tmp_path / "A.java").write_text("class A { void m() { } }\n")
    res = CliRunner().invoke(main, ["graph", str(tmp_path)])
    assert res.exit_code == 0
    assert res.stderr.splitlines() == [
        "classpath: no pom.xml or build.gradle(.kts) in the project; no libraries added",
        "graph: built and stored (no stored graph)"]
    # -q: nothing failed, so no classpath line (an unresolved dependency keeps it: the test above)
    res = CliRunner().invoke(main, ["graph", str(tmp_path), "--quiet"])
    assert res.exit_code == 0 and res.stderr == ""


def test_bad_classpath_entries(tiny, tmp_path):
    notes = tmp_path / "passwd"
    notes.write_text("root:x:0:0:root:/root:/bin/bash\n")
    res = CliRunner().invoke(main, ["graph", str(tiny), "--quiet", "--no-auto-classpath",
                                    "--classpath", str(notes)])
    assert res.exit_code == 1  # an unreadable classpath entry is an input that failed (issue 15, item 9)
    assert res.stderr.splitlines() == [
        f"warning: classpath entry {notes}: unreadable classpath entry: BadZipFile: File is not a zip file; ignored",
        # why the exit code is 1, on its own line (session 9)
        "exit 1: a classpath entry not read in full (see its warning); the graph holds everything else"]
    (tmp_path / "classes").mkdir()
    empty = tmp_path / "empty.jar"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
    res = CliRunner().invoke(main, ["graph", str(tiny), "--quiet", "--no-auto-classpath",
                                    "--classpath", str(tmp_path / "classes"), "--classpath", str(empty)])
    assert res.exit_code == 0
    assert res.stderr.splitlines() == [
        f"warning: classpath entry {tmp_path / 'classes'}: no .class files in it; it adds no library types",
        f"warning: classpath entry {empty}: no .class files in it; it adds no library types"]
    res = CliRunner().invoke(main, ["chain", str(tiny), "App.check", "--quiet",
                                    "--classpath", str(tmp_path / "missing.jar")])
    assert res.exit_code == 2 and "missing.jar" in res.stderr and "does not exist" in res.stderr


def test_only_the_users_own_entries_are_warned_about_when_classless(tiny, tmp_path, capsys):
    # qare crosscheck passes Maven's jars as the classpath too: an empty
    # Spring Boot starter (a pom's jar, empty by design) is no mistake of the
    # user's (a new user, session 10: 14 such warnings)
    from qare.cmd_callgraph import _build

    starter = tmp_path / "starter.jar"
    with zipfile.ZipFile(starter, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
    _build(str(tiny), (starter,), False, 1, True, "physical", no_cache=True, given=())
    assert capsys.readouterr().err == ""
    _build(str(tiny), (starter,), False, 1, True, "physical", no_cache=True)  # named by the user
    assert capsys.readouterr().err == \
        f"warning: classpath entry {starter}: no .class files in it; it adds no library types\n"
