"""A bodyless project method that re-declares a library method
(``ProjectIndex.library_overridden``): a call of it reaches the library API.

The case a new user met on spring-petclinic: ``OwnerRepository extends
JpaRepository<Owner, Integer>`` re-declares ``Optional<Owner> findById(Integer)``
to narrow its type; Spring Data's proxy runs ``CrudRepository.findById(ID)``, yet
the call ended on the project's abstract method and no API was reported.

The library here is compiled by javac from sources written for this test. Which
project methods override which library methods is decided independently by javac:
a class implementing only the project's declarations compiles exactly when
they override the library's (otherwise the library's abstract method stays
unimplemented), and fails to compile for the non-overriding overload.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import JAVAC, _zip_tree, javac  # noqa: E402

LIB = {
    "lib/Repo.java": """package lib;
import java.util.Optional;
public interface Repo<T, ID> {
    Optional<T> findById(ID id);
    <S extends T> S save(S entity);
    long count();
}
""",
    "lib/ListRepo.java": """package lib;
import java.util.List;
public interface ListRepo<T, ID> extends Repo<T, ID> {
    List<T> findAll();
}
""",
}

APP = {
    "app/Owner.java": "package app;\npublic class Owner { }\n",
    "app/OwnerRepo.java": """package app;
import java.util.List;
import java.util.Optional;
import lib.ListRepo;
public interface OwnerRepo extends ListRepo<Owner, Integer> {
    Optional<Owner> findById(Integer id);
    List<Owner> findAll();
    <S extends Owner> S save(S entity);
    List<Owner> findByName(String name);
    Optional<Owner> findById(String code);
}
""",
    "app/OwnerService.java": """package app;
public class OwnerService {
    private final OwnerRepo owners;
    OwnerService(OwnerRepo owners) { this.owners = owners; }
    Owner find(int id) { return owners.findById(id).orElseThrow(); }
    int all() { return owners.findAll().size(); }
    Owner keep(Owner o) { return owners.save(o); }
    Object named(String n) { return owners.findByName(n); }
    Object coded(String c) { return owners.findById(c); }
    long size() { return owners.count(); }
}
""",
    "app/PetRepo.java": """package app;
import java.util.Optional;
import lib.Repo;
public interface PetRepo extends Repo<Owner, Long> {
    Optional<Owner> findById(Long id);
}
""",
    "app/MemPetRepo.java": """package app;
import java.util.Optional;
public class MemPetRepo implements PetRepo {
    public Optional<Owner> findById(Long id) { return Optional.ofNullable(null); }
    public <S extends Owner> S save(S entity) { return entity; }
    public long count() { return 0; }
}
""",
    "app/PetService.java": """package app;
public class PetService {
    Object pet(PetRepo pets) { return pets.findById(1L); }
}
""",
}


def _write(root: Path, files: dict) -> list[Path]:
    out = []
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        out.append(p)
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    work = tmp_path_factory.mktemp("overridden")
    javac(_write(work / "lib-src", LIB), work / "lib-classes")
    jar = work / "lib.jar"
    _zip_tree(work / "lib-classes", jar)
    root = work / "app"
    _write(root / "src" / "main" / "java", APP)
    return root, jar


@pytest.fixture(scope="module")
def pg(project):
    import callgraph

    root, jar = project
    return callgraph.build_project_graph(root, classpath=[jar], auto_classpath=False)


def _apis(pg, method: str) -> dict:
    return {t.signature: t for t in pg.reach(method)}


def test_javac_agrees_which_declarations_override(project, tmp_path):
    """The oracle: implementing the project's re-declarations alone satisfies
    the library's abstract methods (so they override them); the ``String``
    overload does not override ``findById(ID)``."""
    root, jar = project
    impl = tmp_path / "app" / "Impl.java"
    body = """package app;
import java.util.*;
public class Impl implements OwnerRepo {
    public Optional<Owner> findById(Integer id) { return Optional.empty(); }
    public List<Owner> findAll() { return List.of(); }
    public <S extends Owner> S save(S e) { return e; }
    public List<Owner> findByName(String n) { return List.of(); }
    public Optional<Owner> findById(String c) { return Optional.empty(); }
    public long count() { return 0; }
}
"""
    impl.parent.mkdir(parents=True)
    impl.write_text(body)
    srcs = [impl, *(root / "src" / "main" / "java" / "app").glob("Owner*.java")]
    javac(srcs, tmp_path / "out", classpath=[jar])
    # without the Integer override, Repo.findById(ID) is left abstract: javac refuses
    impl.write_text(body.replace("    public Optional<Owner> findById(Integer id) { return Optional.empty(); }\n", ""))
    cmd = [JAVAC, "-nowarn", "-d", str(tmp_path / "out2"), "-cp", str(jar), *map(str, srcs)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode != 0 and "findById(Integer)" in proc.stdout + proc.stderr


def test_redeclared_method_reaches_the_library_api(pg):
    t = _apis(pg, "app.OwnerService.find(int)")
    assert set(t) == {"lib.Repo.findById(java.lang.Object)"}
    assert t["lib.Repo.findById(java.lang.Object)"].depth == 2
    # the call still names the project's declaration, as written
    e = pg.graph.edges["app.OwnerService.find(int)", "app.OwnerRepo.findById(java.lang.Integer)"]
    assert e["resolution"] == "exact" and e["lines"] == [5]
    e = pg.graph.edges["app.OwnerService.find(int)", "lib.Repo.findById(java.lang.Object)"]
    assert e["resolution"] == "exact" and e["lines"] == [5]


def test_same_erasure_and_method_type_variable(pg):
    # findAll(): the same erasure, declared by the nearer ListRepo
    assert set(_apis(pg, "app.OwnerService.all()")) == {"lib.ListRepo.findAll()"}
    # <S extends Owner> save(S) overrides <S extends T> save(S) with T = Owner
    assert set(_apis(pg, "app.OwnerService.keep(app.Owner)")) == {"lib.Repo.save(java.lang.Object)"}
    # not re-declared: the library method, as before
    assert set(_apis(pg, "app.OwnerService.size()")) == {"lib.Repo.count()"}


def test_no_library_method_no_api(pg):
    # a derived query method overrides nothing: no API is made up for it
    assert _apis(pg, "app.OwnerService.named(java.lang.String)") == {}
    # an overload with another parameter type is not an override (javac above)
    assert _apis(pg, "app.OwnerService.coded(java.lang.String)") == {}


def test_a_project_implementation_is_the_code_that_runs(pg):
    # MemPetRepo implements PetRepo: the call dispatches (cha) to project code,
    # and the library method is not added
    out = dict(pg.graph.adj["app.PetService.pet(app.PetRepo)"])
    assert "lib.Repo.findById(java.lang.Object)" not in out
    assert out["app.MemPetRepo.findById(java.lang.Long)"]["resolution"] == "cha"


def test_warm_cache_sees_a_new_implementation(project, tmp_path):
    """The answer is a recorded look-up: a project class implementing the
    repository, added later, turns the call into project dispatch on a warm
    rebuild exactly as on a cold one."""
    import shutil

    import callgraph

    root, jar = project
    mine = tmp_path / "app"
    shutil.copytree(root, mine)
    cache = tmp_path / "c" / "cg.sqlite"
    cache.parent.mkdir(mode=0o700)

    def edges(**kw):
        g = callgraph.build_project_graph(mine, classpath=[jar], auto_classpath=False, **kw).graph
        return sorted((u, v, d["resolution"]) for u, v, d in g.edges(data=True))

    before = edges(cache=cache)
    assert ("app.OwnerService.find(int)", "lib.Repo.findById(java.lang.Object)", "exact") in before
    (mine / "src/main/java/app/MemOwnerRepo.java").write_text("""package app;
import java.util.*;
public class MemOwnerRepo implements OwnerRepo {
    public Optional<Owner> findById(Integer id) { return Optional.empty(); }
    public List<Owner> findAll() { return new ArrayList<>(); }
    public <S extends Owner> S save(S e) { return e; }
    public List<Owner> findByName(String n) { return List.of(); }
    public Optional<Owner> findById(String c) { return Optional.empty(); }
    public long count() { return 0; }
}
""")
    warm = edges(cache=cache)
    assert warm == edges()
    assert ("app.OwnerService.find(int)", "lib.Repo.findById(java.lang.Object)", "exact") not in warm
    assert ("app.OwnerService.find(int)", "app.MemOwnerRepo.findById(java.lang.Integer)", "cha") in warm
