"""Coordinates and scopes from a stranger's build checked before they become a path or
reach Maven (callgraph/_coords.py, callgraph/_mvn_resolve.py). No Maven is run: the
sanitised model and the generated pom are inspected."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from callgraph import _maven, _mvn_resolve
from callgraph._coords import coordinate_problem
from callgraph._mvn import MavenClient, Reason
from callgraph._mvn_resolve import _generated_pom, _repo_path, _Work, gradle_model


@pytest.mark.parametrize("gav, ok", [
    (("org.slf4j", "slf4j-api", "2.0.9"), True),
    (("g", "a", "1.0-SNAPSHOT", "jdk15", "test-jar", "test"), True),
    (("g", "/tmp/attack/outside/p", "1"), False),
    (("org", "../../../../tmp/evil", "1"), False),
    (("g", "..", "1"), False),
    (("..", "a", "1"), False),
    (("g..x", "a", "1"), False),
    (("g", "a", "../../x"), False),
    (("g", "a", ".."), False),
    (("g", "a", "1\\x"), False),
    (("g", "a", "1", "${env.HOME}"), False),
    (("g", "a", "1", None, "${t}"), False),
    (("g", "a", "1", None, None, "${s}"), False),
])
def test_coordinate_rules(gav, ok):
    assert (coordinate_problem(*gav) is None) is ok


def test_repo_path_never_leaves_the_repository(tmp_path):
    assert _repo_path(tmp_path, "org.x", "a", "1") == tmp_path / "org" / "x" / "a" / "1" / "a-1.pom"
    for gav in (("g", "/etc/passwd", "1"), ("org", "../../../x", "1"), ("g", "a", "../..")):
        with pytest.raises(ValueError):
            _repo_path(tmp_path, *gav)


def test_offline_model_never_looks_outside_the_repository(tmp_path):
    # repo/g/../../evil/1/../../evil-1.jar is tmp_path/evil-1.jar, outside the repository
    repo = tmp_path / "repo"
    (repo / "g").mkdir(parents=True)
    (tmp_path / "evil" / "1").mkdir(parents=True)
    (tmp_path / "evil-1.jar").write_bytes(b"PK")
    assert (repo / "g/../../evil/1/../../evil-1.jar").is_file()
    repos = _maven._Repos([repo])
    assert repos.find("g", "../../evil", "1") is None
    assert repos.versions("g", "../../evil") == []


def test_gradle_classifier_with_a_property_never_reaches_the_generated_pom(tmp_path):
    (tmp_path / "build.gradle").write_text(
        "plugins { id 'java' }\n"
        "dependencies {\n"
        '    implementation "org.slf4j:slf4j-api:2.0.9:${env.HOME}"\n'
        '    implementation "org.slf4j:slf4j-simple:2.0.9:${user.name}"\n'
        "    implementation 'org.slf4j:jul-to-slf4j:2.0.9:${settings.localRepository}'\n"
        '    implementation "org.slf4j:slf4j-nop:2.0.9:tests"\n'
        "}\n")
    warnings: list = []
    deps, boms = gradle_model([tmp_path / "build.gradle"], warnings, tmp_path)
    pom = etree.tostring(_generated_pom("qare.gradle", deps, boms, [], warnings=warnings)).decode()
    assert "$" not in pom
    assert "<artifactId>slf4j-nop</artifactId>" in pom and "<classifier>tests</classifier>" in pom
    refused = sorted(c for c, why in warnings if why.startswith("refused: classifier"))
    assert refused == ["org.slf4j:jul-to-slf4j:2.0.9:${settings.localRepository}",
                       "org.slf4j:slf4j-api:2.0.9:${env.HOME}", "org.slf4j:slf4j-simple:2.0.9:${user.name}"]


def test_generated_pom_refuses_bad_bom_coordinates():
    warnings: list = []
    pom = etree.tostring(_generated_pom("x", [], [("g", "../b", "1"), ("g", "b", "1")], [],
                                        warnings=warnings)).decode()
    assert "../b" not in pom and "<artifactId>b</artifactId>" in pom
    assert [c for c, _ in warnings] == ["g:../b:1"]


def _work(tmp_path: Path, pom: str) -> _Work:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pom.xml").write_text(pom)
    work = _Work(proj, MavenClient(repo_local=tmp_path / "repo", offline=True), None)
    work.add_project_poms([proj / "pom.xml"])
    return work


def test_system_scope_through_properties_is_judged_after_expansion(tmp_path):
    secret = tmp_path / "outside" / "secret.jar"
    secret.parent.mkdir()
    secret.write_bytes(b"PK")
    work = _work(tmp_path, f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId><artifactId>sys1</artifactId><version>1</version>
  <properties><s>system</s><p>{secret}</p></properties>
  <dependencies>
    <dependency><groupId>x</groupId><artifactId>secret</artifactId><version>1</version>
      <scope>${{s}}</scope><systemPath>${{p}}</systemPath></dependency>
    <dependency><groupId>x</groupId><artifactId>undef</artifactId><version>1</version>
      <scope>${{nowhere}}</scope></dependency>
    <dependency><groupId>x</groupId><artifactId>kept</artifactId><version>1</version>
      <scope>test</scope><systemPath>{secret}</systemPath></dependency>
  </dependencies>
  <dependencyManagement><dependencies>
    <dependency><groupId>x</groupId><artifactId>managed</artifactId><version>1</version>
      <scope>system</scope><systemPath>{secret}</systemPath></dependency>
  </dependencies></dependencyManagement>
</project>""")
    assert work.system_jars == []
    tree = etree.tostring(work.poms[0].tree).decode()
    for gone in ("<artifactId>secret<", "<artifactId>undef<", "<artifactId>managed<", "systemPath"):
        assert gone not in tree
    assert "<artifactId>kept</artifactId>" in tree
    got = {f.coords: f.reason for f in work.failures}
    assert got == {"x:secret:1": Reason.REFUSED, "x:undef:1": Reason.REFUSED, "x:managed:1": Reason.REFUSED}


@pytest.mark.parametrize("artifact", ["/tmp/attack/outside/p",
                                      "../../../../../../../../../../../../tmp/attack/evil"])
def test_parent_coordinates_out_of_the_repository_are_refused(tmp_path, artifact, monkeypatch):
    work = _work(tmp_path, f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>g</groupId><artifactId>{artifact}</artifactId><version>1</version><relativePath/></parent>
  <artifactId>par</artifactId>
</project>""")
    ran = []
    monkeypatch.setattr(work, "run", lambda args: ran.append(args))
    work.link_parents()
    work.write_all()
    assert ran == []
    assert _mvn_resolve._child(work.poms[0].tree, "parent") is None
    assert [(f.reason, "refused" in f.detail) for f in work.failures] == [(Reason.PARENT, True)]
    written = sorted(p.relative_to(work.dir).as_posix() for p in work.dir.rglob("pom.xml"))
    assert written == ["pom.xml", "tree/pom.xml"]
    work.close()


def test_system_scope_in_a_remote_parent_is_refused(tmp_path):
    work = _work(tmp_path, """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>child</artifactId><version>1</version>
</project>""")
    gav = ("evil", "parent", "1")
    pom = _repo_path(work.client.repo_local, *gav)
    pom.parent.mkdir(parents=True)
    pom.write_text("""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion><groupId>evil</groupId><artifactId>parent</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies><dependency><groupId>x</groupId><artifactId>host</artifactId><version>1</version>
    <scope>system</scope><systemPath>/etc/passwd</systemPath></dependency>
    <dependency><groupId>x</groupId><artifactId>fine</artifactId><version>1</version></dependency></dependencies>
</project>""")
    pm = work._remote_parent(gav, 0)
    tree = etree.tostring(pm.tree).decode()
    assert "<artifactId>host<" not in tree and "/etc/passwd" not in tree and "<artifactId>fine<" in tree
    assert [(f.coords, f.reason) for f in work.failures] == [("x:host:1", Reason.REFUSED)]
    assert work.system_jars == []
    work.close()


def test_offline_model_takes_a_system_jar_only_from_inside_the_project(tmp_path):
    secret = tmp_path / "outside" / "secret.jar"
    secret.parent.mkdir()
    secret.write_bytes(b"PK\x05\x06" + bytes(18))
    proj = tmp_path / "proj"
    (proj / "lib").mkdir(parents=True)
    own = proj / "lib" / "own.jar"
    own.write_bytes(b"PK\x05\x06" + bytes(18))
    (proj / "pom.xml").write_text(f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>sys</artifactId><version>1</version>
  <properties><s>system</s><p>{secret}</p></properties>
  <dependencies>
    <dependency><groupId>x</groupId><artifactId>secret</artifactId><version>1</version>
      <scope>${{s}}</scope><systemPath>${{p}}</systemPath></dependency>
    <dependency><groupId>x</groupId><artifactId>own</artifactId><version>1</version>
      <scope>system</scope><systemPath>{own}</systemPath></dependency>
  </dependencies>
</project>""")
    report = _maven.discover_classpath_report(proj, repositories=[])
    jars = {Path(j).resolve() for j in report.jars}
    assert secret.resolve() not in jars
    assert own.resolve() in jars, report.missing
    assert any("x:secret:1" in m and "not a file inside the project" in m for m in report.missing)


def test_module_and_parent_paths_that_loop_are_no_traceback(tmp_path):
    # <module>loop</module> and <relativePath>loop/pom.xml</relativePath> with
    # loop -> loop: Path.resolve raised RuntimeError and the resolution ended in
    # a traceback (the attacker's second review, session 10)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "loop").symlink_to("loop")
    (proj / "pom.xml").write_text("""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>t</groupId><artifactId>p</artifactId><version>1</version>
    <relativePath>loop/pom.xml</relativePath></parent>
  <groupId>t</groupId><artifactId>app</artifactId><version>1</version><packaging>pom</packaging>
  <modules><module>loop</module></modules>
</project>""")
    work = _Work(proj, MavenClient(repo_local=tmp_path / "repo", offline=True), None)
    work.add_project_poms([proj / "pom.xml", proj / "loop"])
    work.link_parents()
    (pm,) = work.poms
    mods = _maven._child(pm.tree, "modules")
    assert mods is None or len(mods) == 0  # "loop" names no pom of the project
