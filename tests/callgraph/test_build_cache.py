"""The warm build cache (callgraph._cache, docs/callgraph.md "Warm cache"):
exact invalidation (a method body edit re-resolves only its file, a signature
edit its dependents), warm output identical to a cold build, corrupt and
foreign files rebuilt, never unpickled, safe with concurrent processes."""

from __future__ import annotations

import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from callgraph import _build as _build_mod, build_project_graph
from callgraph._cache import BuildCache
from tests.callgraph._warm_project import reseal as _reseal, edit as _edit, graph_bytes as _bytes, project

ROOT = Path(__file__).resolve().parents[2]

FILES = (  # under fixtures/java/warm-cache/ (tests/callgraph/_warm_project.py)
    "p/A.java", "p/B.java", "p/C.java", "q/D.java",
)


def _project(tmp_path: Path) -> Path:
    return project(tmp_path, FILES)



def _build(root, cache):
    return build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)


def test_cold_then_warm_reads_every_file_from_the_cache(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    assert cold.summary.cache["facts_misses"] == 4 and cold.summary.cache["resolved_misses"] == 4
    warm = _build(root, cache)
    assert warm.summary.cache == {"facts_hits": 4, "facts_misses": 0, "resolved_hits": 4,
                                  "resolved_misses": 0, "resolved_verified": 0, "rebuilt": 0,
                                  "snapshot_loaded": 1, "snapshot_patched": 0, "snapshot_written": 0}
    assert _bytes(warm) == _bytes(cold) == _bytes(_build(root, None))
    assert cold.graph.has_edge("p.B.use(p.A)", "p.A.f(int)")


def test_body_edit_re_resolves_only_its_own_file(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    # a new call and two more lines in f's body: g moves down, f grows
    _edit(root, "p/A.java", "        return x + 1;\n",
          "        int y = x * 2;\n\n        return Math.abs(y) + g();\n")
    warm = _build(root, cache)
    assert warm.summary.cache["facts_misses"] == 1
    assert warm.summary.cache["resolved_misses"] == 1  # A only: B, C, D from the cache
    cold = _build(root, None)
    assert _bytes(warm) == _bytes(cold)
    assert warm.graph.has_edge("p.A.f(int)", "p.A.g()")
    assert warm.graph.nodes["p.A.g()"]["start_line"] == 8


def test_signature_edit_re_resolves_the_files_that_see_it(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    _edit(root, "p/A.java", "public int f(int x)", "public int f(long x)")
    warm = _build(root, cache)
    # A itself, B (calls A.f) and C (constructs A and B): D sees nothing of A
    assert warm.summary.cache["resolved_misses"] == 3
    assert warm.graph.has_edge("p.B.use(p.A)", "p.A.f(long)")
    assert not warm.graph.has_edge("p.B.use(p.A)", "p.A.f(int)")
    assert _bytes(warm) == _bytes(_build(root, None))


def test_a_changed_classpath_re_resolves(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    jar = tmp_path / "lib.jar"
    import zipfile

    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    build_project_graph(root, classpath=[jar], auto_classpath=False, jdk=None, cache=cache)
    with zipfile.ZipFile(jar, "a") as z:
        z.writestr("x.txt", "changed")
    again = build_project_graph(root, classpath=[jar], auto_classpath=False, jdk=None, cache=cache)
    assert again.summary.cache["facts_hits"] == 4 and again.summary.cache["resolved_misses"] == 4


@pytest.mark.parametrize("content", [b"this is not a database" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_corrupt_file_is_rebuilt(tmp_path, monkeypatch, content):
    # at the default path in qare's own folder: replaced
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    root, cache = _project(tmp_path), tmp_path / "qc" / "callgraph.sqlite"
    cache.parent.mkdir()
    cache.write_bytes(content)
    pg = _build(root, "auto")
    assert pg.summary.cache["rebuilt"] == 1
    assert _bytes(pg) == _bytes(_build(root, None))
    assert _build(root, "auto").summary.cache["resolved_hits"] == 4


@pytest.mark.parametrize("content", [b"this is not a database" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_named_file_that_is_no_qare_cache_is_never_replaced(tmp_path, content):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cache.write_bytes(content)
    pg = _build(root, cache)
    assert "is not a qare cache" in pg.summary.cache["refused"]
    assert cache.read_bytes() == content
    assert _bytes(pg) == _bytes(_build(root, None))


def test_a_named_foreign_database_is_never_replaced(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE facts (key TEXT PRIMARY KEY, blob BLOB)")  # another program's table
    db.execute("INSERT INTO facts VALUES ('k', x'00')")
    db.commit()
    db.close()
    before = cache.read_bytes()
    pg = _build(root, cache)
    assert "another program" in pg.summary.cache["refused"]
    assert cache.read_bytes() == before


def test_an_older_qare_cache_is_rebuilt(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('format', 'qare-callgraph-cache 0.1')")
    db.commit()
    db.close()
    pg = _build(root, cache)
    assert pg.summary.cache["rebuilt"] == 1
    assert _build(root, cache).summary.cache == {"facts_hits": 4, "facts_misses": 0, "resolved_hits": 4,
                                                 "resolved_misses": 0, "resolved_verified": 0,
                                                 "rebuilt": 0, "snapshot_loaded": 1, "snapshot_patched": 0,
                                                 "snapshot_written": 0}


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_a_symlinked_cache_file_is_refused(tmp_path, suffix):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "victim"
    os.symlink(target, f"{cache}{suffix}")
    pg = _build(root, cache)
    assert "symlink" in pg.summary.cache["refused"]
    assert not target.exists() and os.listdir(outside) == []
    assert _bytes(pg) == _bytes(_build(root, None))


def test_a_cache_in_a_world_writable_folder_is_refused(tmp_path, monkeypatch):
    root = _project(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    pg = _build(root, shared / "c.sqlite")
    assert "writable by group or others" in pg.summary.cache["refused"]
    assert not (shared / "c.sqlite").exists()
    monkeypatch.setenv("QARE_CACHE_DIR", str(shared))  # the default cache folder too
    assert "writable by group or others" in _build(root, "auto").summary.cache["refused"]
    assert not (shared / "callgraph.sqlite").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to make a folder owned by another user")
def test_a_cache_in_a_foreign_owned_folder_is_refused(tmp_path):
    root = _project(tmp_path)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    assert "owned by another user" in _build(root, theirs / "c.sqlite").summary.cache["refused"]


class _Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_rows_are_data_never_unpickled(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    marker = tmp_path / "PWNED"
    payload = pickle.dumps(_Boom(marker))
    db = sqlite3.connect(cache)
    db.execute("UPDATE facts SET blob = ?", (payload,))
    db.execute("UPDATE resolved SET blob = ?", (payload,))
    _reseal(db)  # past the checksum: the decoder itself must refuse a pickle
    db.commit()
    db.close()
    shutil.rmtree(f"{cache}.index")  # the index snapshot would hand over the facts unread (test_snapshot.py)
    warm = _build(root, cache)
    assert not marker.exists()
    assert warm.summary.cache["facts_misses"] == 4  # undecodable rows are misses, re-parsed
    assert _bytes(warm) == _bytes(cold)
    assert _build(root, cache).summary.cache["resolved_hits"] == 4  # and overwritten


def test_concurrent_processes_share_one_cache(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    code = ("import sys; from callgraph import build_project_graph as b; "
            "pg = b(sys.argv[1], auto_classpath=False, jdk=None, cache=sys.argv[2]); "
            "print(pg.graph.number_of_edges())")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(root), str(cache)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    warm = _build(root, cache)
    assert warm.summary.cache["resolved_hits"] == 4 and warm.summary.cache["rebuilt"] == 0


def test_default_cache_lives_in_the_qare_cache_folder(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from qare.cli import main

    root = _project(tmp_path)
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    r = CliRunner().invoke(main, ["graph", str(root), "-q", "--no-discover-classpath", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "qc" / "callgraph.sqlite").exists()
    r = CliRunner().invoke(main, ["graph", str(root), "-q", "--no-discover-classpath"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "qc" / "callgraph.sqlite").is_file()
    assert BuildCache(tmp_path / "qc" / "callgraph.sqlite").get_facts("nope") is None


def test_other_code_never_reads_these_rows(tmp_path, monkeypatch):
    import callgraph._build as b

    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    _build(root, cache)
    monkeypatch.setattr(b, "_code_version", lambda: "an-upgraded-resolver")
    again = _build(root, cache)
    assert again.summary.cache["facts_misses"] == 4 and again.summary.cache["resolved_misses"] == 4


def test_the_library_default_is_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_CACHE_DIR", str(tmp_path / "qc"))
    pg = build_project_graph(_project(tmp_path), auto_classpath=False, jdk=None)
    assert pg.summary.cache == {}
    assert not (tmp_path / "qc" / "callgraph.sqlite").exists()
    assert build_project_graph(_project(tmp_path), auto_classpath=False, jdk=None,
                               cache="auto").summary.cache["facts_misses"] == 4
    assert (tmp_path / "qc" / "callgraph.sqlite").is_file()


def test_the_cli_warns_when_the_named_cache_is_refused(tmp_path):
    from click.testing import CliRunner

    from qare.cli import main

    root, cache = _project(tmp_path), tmp_path / "notes.txt"
    cache.write_text("my notes, not a cache\n" * 10)
    r = CliRunner().invoke(main, ["graph", str(root), "-q", "--no-discover-classpath", "--cache", str(cache)])
    assert r.exit_code == 0, r.output
    assert "warning: warm cache not used" in r.output and "is not a qare cache" in r.output
    assert cache.read_text() == "my notes, not a cache\n" * 10


def _rewrite(cache: Path, table: str, change) -> int:
    """Apply ``change`` to every row's document; the number of rows it changed."""
    import msgpack

    db = sqlite3.connect(cache)
    changed = 0
    for key, blob in list(db.execute(f"SELECT key, blob FROM {table}")):
        doc = msgpack.unpackb(blob, strict_map_key=False, raw=False)
        change(doc)
        new = msgpack.packb(doc, use_bin_type=True)
        changed += new != blob
        db.execute(f"UPDATE {table} SET blob = ? WHERE key = ?", (new, key))
    db.commit()
    db.close()
    return changed


def _res(i, value):
    def change(doc):
        if doc[1] is not None:
            doc[1][i] = value
    return change


def _facts(i, value):
    def change(doc):
        doc[1][1][i] = value
    return change


def _edge_lines(value):
    def change(doc):
        if doc[1] is not None and doc[1][0]:
            doc[1][0][0][3] = value
    return change


def _edge(i, value):
    """Field ``i`` of a row's first edge (caller index, callee index, kind, lines)."""
    def change(doc):
        if doc[1] is not None and doc[1][0]:
            doc[1][0][0][i] = value
    return change


def _strings(doc):
    if doc[4]:
        doc[4][0] = 7  # the method-id table: a number among the ids


@pytest.mark.parametrize("table, change", [
    ("resolved", _res(1, [["x", [1]]])),  # apis: an ApiTarget of 2 fields
    ("resolved", _res(1, [["x", "T", "m", "yes", None]])),  # third_party not a bool
    ("resolved", _res(1, [[0, "T", "m", True, 5]])),  # library not a string
    ("resolved", _res(1, [[-1, "T", "m", True, None]])),  # an id index before the table
    ("resolved", _res(2, [["exact", "lots"]])),  # counts: a string count
    ("resolved", _res(2, [["no such kind", 1]])),  # counts: not a resolution kind
    ("resolved", _res(0, [["p.A.f(int)", "p.A.g()", "exact", [1]]])),  # edges: ids where indices belong
    ("resolved", _res(0, [[1, 2, 3, 4]])),  # edges: a number for the kind, a number for the lines
    ("resolved", _edge(1, 1 << 20)),  # a callee index past the table
    ("resolved", _edge(0, -1)),  # a caller index before it (Python would read the last id)
    ("resolved", _edge(0, True)),  # a bool for an index
    ("resolved", _edge(2, "unresolved")),  # a resolution kind no edge has
    ("resolved", _edge(2, ["exact"])),  # an unhashable kind
    ("resolved", _edge_lines(["x"])),  # an edge line that is no int
    ("resolved", _edge_lines([True])),  # a bool for a line
    ("resolved", _edge_lines(7)),  # lines that are no sequence
    ("resolved", _edge_lines([])),  # an edge without a line (the graph store refused it: rebuilt on every call)
    ("resolved", lambda doc: doc.__setitem__(1, None)),  # no result at all (a traceback on every later run)
    ("resolved", lambda doc: doc[1][0].append([0, 0])),  # an edge of 2 fields
    ("resolved", _strings),
    ("resolved", lambda doc: doc.pop()),  # the format before the id table
    ("resolved", lambda doc: doc.__setitem__(3, [1])),  # warnings: no (path, reason)
    ("resolved", lambda doc: doc.__setitem__(2, [[["T", 7]], []])),  # RTA facts: no reason string
    ("resolved", lambda doc: doc.__setitem__(2, [[["T", "no such reason"]], []])),  # RTA: not an Instantiation
    ("facts", _facts(4, [1, 2])),  # types: ints instead of TypeDecls
    ("facts", _facts(7, "many")),  # lines: a string
    ("facts", _facts(7, True)),  # lines: a bool
    ("facts", _facts(2, 3)),  # package: an int
    ("facts", _facts(5, [[1, "a"]])),  # parse_errors: a string column
    ("facts", _facts(5, [[1, 2, 3]])),  # parse_errors: a triple
    ("facts", _facts(6, 8)),  # encoding: neither a string nor None
    ("facts", _facts(3, [[False, ["java.util.List", False, False]]])),  # an Import's class index as a bool
    ("facts", _facts(3, [[5, ["java.util.List", False, False]]])),  # an Import tagged as a TypeDecl
    ("facts", _facts(3, [[0, ["java.util.List", False]]])),  # an Import of 2 fields
    ("facts", lambda doc: doc[1][1].append(1)),  # FileFacts with a field too many
    ("facts", lambda doc: doc[1].__setitem__(0, "not a class index")),
    ("facts", lambda doc: doc.__setitem__(0, 3)),  # the previous format
])
def test_a_crafted_row_of_the_wrong_types_is_a_miss(tmp_path, table, change, monkeypatch):
    # the index snapshot would hand over the facts unread (its own attacks: test_snapshot.py)
    monkeypatch.setattr(_build_mod, "_open_snapshots", lambda store: None)
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    changed = _rewrite(cache, table, change)
    assert changed
    warm = _build(root, cache)  # no traceback, the same graph as without the cache
    assert _bytes(warm) == _bytes(cold)
    if table == "facts":
        assert warm.summary.cache["facts_misses"] == 4
    else:
        assert warm.summary.cache["resolved_misses"] == changed


def test_decode_checks_every_field_type():
    from callgraph import _codec
    from callgraph._facts import Annotation, FileFacts, Import

    good = FileFacts("A.java", "main", "p", (Import("java.util.List", False, False),), (), ((1, 2),), None, 3)
    assert _codec.decode_facts(_codec.encode_facts(good)) == good
    for bad in (FileFacts("A.java", "main", "p", (Import("x", 1, False),), (), (), None, 3),  # int for a bool
                FileFacts("A.java", "main", "p", (), (), (), None, True),  # a bool for an int
                FileFacts("A.java", "main", "p", (Annotation("x", (("a",),)),), (), (), None, 3)):
        with pytest.raises(_codec.CodecError):
            _codec.decode_facts(_codec.encode_facts(bad))


def _method(**changes):
    from callgraph._facts import MethodDecl

    fields = dict(name="m", params=(("a", ("List", (("String", (), 0),), 0)),), varargs=False,
                  returns=("int", (), 0), type_params=(("T", None),), static=False, abstract=False, private=False,
                  start_line=1, end_line=2, loc=2, comment=None, start_byte=0, end_byte=9)
    return MethodDecl(**{**fields, **changes})


def _file_with(method):
    from callgraph._facts import FileFacts, TypeDecl

    t = TypeDecl("p.A", "A", "class", None, False, False, False, False, None, (), (), (), (method,), (), (), (),
                 0, 9, 1, 2, None)
    return FileFacts("A.java", "main", "p", (), (t,), (), None, 3)


@pytest.mark.parametrize("bad", [
    dict(params=(("a", ("List", (("String", (), "0"),), 0)),)),  # a type argument's dims a string
    dict(params=(("a", ("List", (("String", ()),), 0)),)),  # a type argument of 2 fields
    dict(params=(("a", ("List", ["String"], 0)),)),  # type arguments not a tuple of type references
    dict(params=(("a",),)),  # a parameter without its type
    dict(returns="int"),  # a return type not a type reference
    dict(type_params=(("T", 5),)),  # a bound neither a type reference nor None
    dict(comment=3),  # an optional string that is an int
    dict(loc=2.0),  # a float for an int
    dict(annotations=(("Deprecated", ()),)),  # an annotation that is no record
])
def test_decode_checks_nested_fields(bad):
    from callgraph import _codec

    good = _file_with(_method())
    assert _codec.decode_facts(_codec.encode_facts(good)) == good
    assert _codec.decode_facts(_codec.encode_facts(_file_with(_method(comment="/** doc */")))).types[0] \
        .methods[0].comment == "/** doc */"
    with pytest.raises(_codec.CodecError):
        _codec.decode_facts(_codec.encode_facts(_file_with(_method(**bad))))


def test_decoded_edges_are_the_encoded_ones():
    from callgraph import _codec
    from callgraph._callsite import ApiTarget, CallEdge, FileResult, Resolution
    from callgraph._rta import Instantiation

    fr = FileResult(
        (CallEdge("p.A.f(int)", "p.A.g()", Resolution.EXACT, (3, 7)),
         CallEdge("p.A.f(int)", "java.lang.String.trim()", Resolution.BY_ARITY, (4,)),
         CallEdge("p.A.g()", "p.A.f(int)", Resolution.CHA, (5,))),
        (ApiTarget("java.lang.String.trim()", "java.lang.String", "trim", False, None),),
        ((Resolution.EXACT, 2), (Resolution.UNRESOLVED, 1)), (("no method of that name", 1),),
        (("no method of that name", "A.java:3"),), (("project", 2),))
    made = ((("p.A", Instantiation.NEW),), (("p.A", "Component"),))
    got_fr, got_made, got_w = _codec.decode_resolution(_codec.encode_resolution(fr, made, [("x.jar", "bad CRC")]))
    assert got_fr == fr and got_made == made and got_w == [("x.jar", "bad CRC")]
    assert all(type(e) is CallEdge and type(e.resolution) is Resolution for e in got_fr.edges)
    assert type(got_fr.apis[0]) is ApiTarget and got_made[0][0][1] is Instantiation.NEW
    assert got_fr.edges[0].src is got_fr.edges[1].src  # one string per distinct id
    import msgpack
    with pytest.raises(_codec.CodecError):  # a row without a result is never stored: a bad row, not "no edges"
        _codec.decode_resolution(msgpack.packb([_codec.FORMAT, None, None, [], []]))


def test_lombok_settings_key_the_cache_not_the_config_bytes(tmp_path):
    # the project key holds each source folder's effective lombok.config settings
    # (callgraph._lombok.LombokConfig, as the index reads them), not the files' bytes
    root, cache = _project(tmp_path), tmp_path / "c.sqlite"
    (root / "lombok.config").write_text("lombok.accessors.fluent = false\n")
    _build(root, cache)
    (root / "lombok.config").write_text("# reviewed\nlombok.accessors.fluent = false   # as before\n")
    again = _build(root, cache)
    assert again.summary.cache["resolved_misses"] == 0  # a comment is no change
    (root / "p" / "lombok.config").write_text("lombok.accessors.fluent = true\n")
    changed = _build(root, cache)
    assert changed.summary.cache["resolved_misses"] == 4  # a setting is: every file re-resolves
    (root / "p" / "lombok.config").write_text("config.stopBubbling = true\nlombok.accessors.fluent = true\n")
    assert _build(root, cache).summary.cache["resolved_misses"] == 4
    assert _bytes(_build(root, cache)) == _bytes(_build(root, None))


def test_classpath_jar_rewritten_with_its_old_size_and_mtime_changes_the_key(tmp_path):
    """`cp -p`, `rsync -t`, `touch -r` give new bytes the old size and mtime:
    the environment key must still change (it used to key jars on path, size
    and mtime only, so a warm build served the old jar's resolutions)."""
    from callgraph._build import _stat_sig

    jar = tmp_path / "lib.jar"
    jar.write_bytes(b"PK-one-version-")
    st = jar.stat()
    before = _stat_sig(jar)
    time.sleep(0.01)
    jar.write_bytes(b"PK-two-version-")
    os.utime(jar, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert jar.stat().st_size == st.st_size and jar.stat().st_mtime_ns == st.st_mtime_ns
    assert _stat_sig(jar) != before
    # replaced by another file of the same stamp (a new inode): also a change
    other = tmp_path / "other.jar"
    other.write_bytes(b"PK-two-version-")
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    mid = _stat_sig(jar)
    os.replace(other, jar)
    assert _stat_sig(jar) != mid
