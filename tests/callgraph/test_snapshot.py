"""The index snapshot (callgraph._snapshot, ``ProjectIndex.from_snapshot`` /
``patch_file``, docs/callgraph.md "Index snapshot"): a warm build whose
declarations are unchanged loads the index instead of building it, and its
graph is byte for byte the one a build without any cache gives; a changed
signature, an added or removed file or another environment never gets the
snapshot; a snapshot that is not authenticated under this user's key is
never unpickled; the key file is refused when anyone else could know or
replace it."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest

from callgraph import build_project_graph
from callgraph import _snapshot
from callgraph._snapshot import MAGIC, IndexSnapshots, KeyRefused, load_or_create_key
from tests.callgraph._warm_project import edit, graph_bytes, project

FILES = ("p/A.java", "p/B.java", "p/C.java", "p/Circle.java", "p/Shape.java", "p/Use.java", "q/D.java")


def _build(root, cache):
    return build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)


def _warm(tmp_path):
    """A project, its cache and the bytes of its cold build (which wrote the snapshot)."""
    root, cache = project(tmp_path, FILES), tmp_path / "c.sqlite"
    cold = _build(root, cache)
    assert cold.summary.cache["snapshot_written"] == 1 and cold.summary.cache["snapshot_loaded"] == 0
    return root, cache


def _snap_files(cache) -> list[Path]:
    return sorted(Path(f"{cache}.index").glob("*.snap"))


def test_unchanged_project_loads_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 1 and warm.summary.cache["snapshot_patched"] == 0
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_body_edit_patches_the_snapshot_and_gives_the_cold_graph(tmp_path):
    root, cache = _warm(tmp_path)
    # two lines more in f: every later method of A (g) moves down, f's LOC grows
    edit(root, "p/A.java", "        return x + 1;\n", "        int y = x;\n        y++;\n        return y;\n")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 1 and warm.summary.cache["snapshot_patched"] == 1
    cold = _build(root, None)
    assert graph_bytes(warm) == graph_bytes(cold)
    g = warm.graph.nodes["p.A.g()"]
    assert (g["start_line"], g["end_line"]) == (8, 10)  # by hand: f is lines 3-7 now
    assert warm.graph.nodes["p.A.f(int)"]["loc"] == 5
    # a second edit of the same file is patched again (the snapshot is not rewritten)
    edit(root, "p/A.java", "        y++;\n", "        y++;\n        y--;\n        y++;\n")
    again = _build(root, cache)
    assert again.summary.cache["snapshot_patched"] == 1
    assert graph_bytes(again) == graph_bytes(_build(root, None))


def test_body_edit_that_adds_a_call_resolves_against_the_patched_index(tmp_path):
    root, cache = _warm(tmp_path)
    edit(root, "p/C.java", "        return new B().use(new A());\n",
         "        new A().g();\n        return new B().use(new A());\n")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_patched"] == 1
    assert warm.graph.has_edge("p.C.top()", "p.A.g()")
    assert warm.graph.edges["p.C.top()", "p.A.g()"]["lines"] == [4]
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_a_changed_supertype_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    edit(root, "p/Circle.java", "public class Circle extends Shape {", "public class Circle {")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0
    cold = _build(root, None)
    assert not cold.graph.has_edge("p.Use.total(p.Shape)", "p.Circle.area()")
    assert graph_bytes(warm) == graph_bytes(cold)


def test_a_changed_signature_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    edit(root, "p/A.java", "public int f(int x)", "public int f(long x)")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_an_added_file_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    (root / "p" / "Square.java").write_text(
        "package p;\npublic class Square extends Shape {\n    public double area() {\n        return 4.0;\n    }\n}\n")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0
    cold = _build(root, None)
    assert cold.graph.has_edge("p.Use.total(p.Shape)", "p.Square.area()")
    assert graph_bytes(warm) == graph_bytes(cold)


def test_a_removed_file_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    (root / "p" / "Circle.java").unlink()
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0
    cold = _build(root, None)
    assert "p.Circle.area()" not in cold.graph
    assert graph_bytes(warm) == graph_bytes(cold)


def test_a_changed_lombok_config_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    (root / "lombok.config").write_text("lombok.accessors.fluent = true\n")
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0


def test_another_loc_mode_never_gets_the_snapshot(tmp_path):
    root, cache = _warm(tmp_path)
    pg = build_project_graph(root, auto_classpath=False, jdk=None, cache=cache, loc_mode="code")
    assert pg.summary.cache["snapshot_loaded"] == 0


# ------------------------------------------------------------------ attacks
class _Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic", "empty"])
def test_a_damaged_snapshot_is_refused_and_rebuilt(tmp_path, damage):
    root, cache = _warm(tmp_path)
    (snap,) = _snap_files(cache)
    data = bytearray(snap.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x40
    elif damage == "truncate":
        data = data[: len(data) - 7]
    elif damage == "magic":
        data[:16] = b"qare-index-snap0"
    else:
        data = bytearray()
    snap.write_bytes(bytes(data))
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0 and warm.summary.cache["snapshot_written"] == 1
    assert graph_bytes(warm) == graph_bytes(_build(root, None))
    assert _build(root, cache).summary.cache["snapshot_loaded"] == 1  # the rebuilt one is good


def test_a_snapshot_under_another_key_is_never_unpickled(tmp_path):
    root, cache = _warm(tmp_path)
    (snap,) = _snap_files(cache)
    marker = tmp_path / "PWNED"
    # a well-formed snapshot of a planted pickle, sealed under another user's key for this very slot
    (tmp_path / "other").mkdir(mode=0o700)
    other = IndexSnapshots(tmp_path / "other" / "x.index", key_path=tmp_path / "other" / "key")
    slot = snap.name[: -len(".snap")]
    assert other.save(slot, {"files": []}, _Boom(marker))
    snap.write_bytes((tmp_path / "other" / "x.index" / snap.name).read_bytes())
    warm = _build(root, cache)
    assert not marker.exists()
    assert warm.summary.cache["snapshot_loaded"] == 0
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_a_snapshot_of_another_slot_is_refused(tmp_path):
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    assert snaps.save("aa", {"files": []}, {"x": 1})
    (tmp_path / "c.sqlite.index" / "bb.snap").write_bytes((tmp_path / "c.sqlite.index" / "aa.snap").read_bytes())
    assert snaps.load("aa") == ({"files": []}, {"x": 1})
    assert snaps.load("bb") is None  # the MAC covers the slot: a copy under another name is no snapshot


def test_a_linked_or_special_snapshot_is_refused(tmp_path):
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    assert snaps.save("aa", {"files": []}, {"x": 1})
    folder = tmp_path / "c.sqlite.index"
    os.symlink(folder / "aa.snap", folder / "bb.snap")
    assert snaps.load("bb") is None
    os.mkfifo(folder / "cc.snap")
    assert snaps.load("cc") is None  # O_NONBLOCK: neither blocks nor reads


def test_the_size_bound(tmp_path, monkeypatch):
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    assert snaps.save("aa", {"files": []}, {"x": "y" * 1000})
    monkeypatch.setattr(_snapshot, "MAX_BYTES", 500)
    assert snaps.load("aa") is None
    assert not snaps.save("bb", {"files": []}, {"x": "y" * 1000})
    assert not (tmp_path / "c.sqlite.index" / "bb.snap").exists()


def test_the_callers_size_bound(tmp_path):
    # the build bounds a project's snapshot by its sources (_build._snapshot_limit): a larger file planted
    # in the slot is neither read nor hashed, and a larger state is not written
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    assert snaps.save("aa", {"files": []}, {"x": "y" * 1000})
    size = (tmp_path / "c.sqlite.index" / "aa.snap").stat().st_size
    assert snaps.load("aa", limit=size - 1) is None
    assert snaps.load("aa", limit=size) == ({"files": []}, {"x": "y" * 1000})
    assert not snaps.save("bb", {"files": []}, {"x": "y" * 1000}, limit=500)
    assert not (tmp_path / "c.sqlite.index" / "bb.snap").exists()
    assert os.listdir(tmp_path / "c.sqlite.index") == ["aa.snap"]  # nor its temporary file left


def test_the_build_bounds_the_snapshot_by_the_sources(tmp_path):
    from callgraph._build import _snapshot_limit
    from callgraph._discover import discover_sources

    root, cache = _warm(tmp_path)
    files, _ = discover_sources(root)
    total = sum(os.path.getsize(root / f.rel) for f in files)
    assert _snapshot_limit(files) == 16 * 2**20 + 8 * total
    (snap,) = _snap_files(cache)
    assert snap.stat().st_size < _snapshot_limit(files)


def test_orphaned_temporary_files_are_deleted(tmp_path):
    # a save killed while writing leaves ".<slot>.<pid>.tmp" (up to MAX_BYTES): the next save deletes
    # those whose writer is gone, never one a live process may be writing, nor a link
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    folder = tmp_path / "c.sqlite.index"
    dead = folder / ".aa.4194305.tmp"  # above Linux's largest pid (pid_max <= 2^22): no such process
    live = folder / f".bb.{os.getppid()}.tmp"  # a live process's (pytest's parent)
    odd = folder / ".cc.tmp"
    # this process's own id: a dead writer's that had it (PID 1 in a container, run after run: session 9)
    own = folder / f".ff.{os.getpid()}.tmp"
    for f in (dead, live, odd, own):
        f.write_bytes(b"x" * 100)
    (folder / ".dd.4194305.tmp").symlink_to(tmp_path / "outside")
    (tmp_path / "outside").write_bytes(b"keep")
    assert snaps.save("ee", {}, 1)
    assert sorted(os.listdir(folder)) == [f".bb.{os.getppid()}.tmp", ".dd.4194305.tmp", "ee.snap"]
    assert (tmp_path / "outside").read_bytes() == b"keep"


def test_least_recently_used_snapshots_are_deleted(tmp_path):
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    folder = tmp_path / "c.sqlite.index"
    for i, slot in enumerate(["a1", "a2", "a3"]):
        assert snaps.save(slot, {}, i)
        os.utime(folder / f"{slot}.snap", ns=(10**18 + i, 10**18 + i))
    assert snaps.load("a1") == ({}, 0)  # a use: now the most recent
    assert snaps.save("a4", {}, 3)
    assert sorted(p.name for p in folder.glob("*.snap")) == ["a1.snap", "a3.snap", "a4.snap"]


# ------------------------------------------------------------------ the key
def test_the_key_is_created_private(tmp_path):
    k = tmp_path / "key"
    key = load_or_create_key(k)
    assert len(key) == 32 and load_or_create_key(k) == key
    assert stat.S_IMODE(os.lstat(k).st_mode) == 0o600


def test_a_linked_key_is_refused(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(os.urandom(32))
    real.chmod(0o600)
    os.symlink(real, tmp_path / "key")
    with pytest.raises(KeyRefused, match="symlink"):
        load_or_create_key(tmp_path / "key")


def test_a_dangling_linked_key_is_not_created_through(tmp_path):
    os.symlink(tmp_path / "elsewhere", tmp_path / "key")
    with pytest.raises(KeyRefused):
        load_or_create_key(tmp_path / "key")
    assert not (tmp_path / "elsewhere").exists()


def test_a_readable_key_is_refused(tmp_path):
    k = tmp_path / "key"
    load_or_create_key(k)
    k.chmod(0o644)
    with pytest.raises(KeyRefused, match="group or others"):
        load_or_create_key(k)


def test_a_key_of_the_wrong_size_or_kind_is_refused(tmp_path):
    k = tmp_path / "key"
    k.write_bytes(b"short")
    k.chmod(0o600)
    with pytest.raises(KeyRefused, match="32 bytes"):
        load_or_create_key(k)
    d = tmp_path / "dkey"
    d.mkdir()
    with pytest.raises(KeyRefused):
        load_or_create_key(d)
    f = tmp_path / "fkey"
    os.mkfifo(f, 0o600)
    with pytest.raises(KeyRefused, match="regular"):
        load_or_create_key(f)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_a_key_of_another_user_is_refused(tmp_path):
    k = tmp_path / "key"
    load_or_create_key(k)
    os.chown(k, 65534, 65534)
    with pytest.raises(KeyRefused, match="owned"):
        load_or_create_key(k)


def test_a_refused_key_means_no_snapshot_and_the_same_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("QARE_CONFIG_DIR", str(tmp_path / "config"))
    root, cache = _warm(tmp_path)
    key = tmp_path / "config" / "snapshot-key"
    key.chmod(0o644)
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 0 and warm.summary.cache["snapshot_written"] == 0
    # said, with the file and why (it was silent: the tester, session 7)
    assert warm.summary.cache["snapshots_refused"] == f"{key}: is readable or writable by group or others"
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_qare_graph_warns_when_the_key_is_refused(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from qare.cli import main

    monkeypatch.setenv("QARE_CONFIG_DIR", str(tmp_path / "config"))
    root, cache = _warm(tmp_path)
    key = tmp_path / "config" / "snapshot-key"
    key.chmod(0o644)
    res = CliRunner().invoke(main, ["graph", str(root), "--cache", str(cache), "--no-auto-classpath", "--quiet"])
    assert res.exit_code == 0, res.output
    assert f"warning: index snapshots not used: {key}: is readable or writable by group or others" in res.stderr


def test_the_pickle_is_after_the_mac(tmp_path):
    # the file layout the module docstring promises: magic, MAC, payload (no shards for a state that is
    # no index: the head pickle, then its length in 8 bytes, little-endian)
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    assert snaps.save("aa", {"h": 1}, [1, 2])
    data = (tmp_path / "c.sqlite.index" / "aa.snap").read_bytes()
    n = int.from_bytes(data[-8:], "little")
    assert data[:16] == MAGIC and len(data) == 48 + n + 8
    assert pickle.loads(data[48:-8]) == ({"h": 1}, [1, 2], None)


def test_a_linked_snapshot_folder_is_refused(tmp_path):
    root, cache = project(tmp_path, FILES), tmp_path / "c.sqlite"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, f"{cache}.index")
    pg = _build(root, cache)
    assert pg.summary.cache["snapshot_written"] == 0 and pg.summary.cache["resolved_misses"] == 7
    assert os.listdir(elsewhere) == []  # neither a key nor a snapshot written through the link
    assert graph_bytes(pg) == graph_bytes(_build(root, None))


@pytest.mark.parametrize("fixture", ["resolution", "qare-example", "modern"])
def test_the_state_written_after_pass_2_is_the_state_after_construction(tmp_path, monkeypatch, fixture):
    """The build takes the snapshot's state right after the index is built and
    pickles it after pass 2 (the crew's workers gone: memory). Resolution must
    not have changed it: the pickle of the state taken at construction and the
    one written are the same bytes (pickle walks the same objects in the same
    order). Sharing the growing memos instead of copying them fails this."""
    import shutil

    from callgraph import _build
    from callgraph._index import ProjectIndex

    src = Path(__file__).resolve().parents[2] / "fixtures" / "java" / fixture
    root = tmp_path / "p"
    shutil.copytree(src, root)
    at_construction = []
    real_init = ProjectIndex.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        at_construction.append(pickle.dumps(self.snapshot_state(), protocol=5))

    written = []
    real_save = IndexSnapshots.save

    def save(self, slot, header, state, **kw):
        written.append(pickle.dumps(state, protocol=5))
        return real_save(self, slot, header, state, **kw)

    monkeypatch.setattr(ProjectIndex, "__init__", init)
    monkeypatch.setattr(IndexSnapshots, "save", save)
    pg = build_project_graph(root, auto_classpath=False, cache=tmp_path / "c.sqlite", jobs=1)
    assert pg.summary.cache["snapshot_written"] == 1
    assert pg.summary.call_sites > 0
    assert len(at_construction) == 1 and written == at_construction
    assert _build  # the module under test


def test_a_copied_cache_never_runs_its_snapshot(tmp_path, monkeypatch):
    """The tester's attack (session 7): a whole cache folder sealed by someone
    else and copied in — a CI artifact, a tarball, a restored backup — held
    its own key beside its snapshot, and the planted pickle ran. The key is
    now outside the cache (``QARE_CONFIG_DIR``), so the copy brings none that
    counts; and a snapshot is bound to the folder it was written in, so even
    the user's own key does not make a copied one good."""
    import shutil

    monkeypatch.setenv("QARE_CONFIG_DIR", str(tmp_path / "config"))
    root, cache = _warm(tmp_path)
    (snap,) = _snap_files(cache)
    slot = snap.name[: -len(".snap")]
    marker = tmp_path / "PWNED"
    # the attacker's cache, with their own key (in their config folder), holding the planted pickle
    (tmp_path / "theirs").mkdir(mode=0o700)
    theirs = IndexSnapshots(tmp_path / "theirs" / "c.sqlite.index", key_path=tmp_path / "theirs-config" / "snapshot-key")
    assert theirs.save(slot, {"files": []}, _Boom(marker))
    shutil.copy(tmp_path / "theirs-config" / "snapshot-key", tmp_path / "theirs" / "c.sqlite.index" / "key")
    shutil.rmtree(f"{cache}.index")
    shutil.copytree(tmp_path / "theirs" / "c.sqlite.index", f"{cache}.index")
    warm = _build(root, cache)
    assert not marker.exists() and warm.summary.cache["snapshot_loaded"] == 0
    assert graph_bytes(warm) == graph_bytes(_build(root, None))
    # sealed under the user's own key, but in another folder: still refused once copied
    mine = IndexSnapshots(tmp_path / "theirs" / "other.index")
    assert mine.save(slot, {"files": []}, _Boom(marker))
    shutil.copy(tmp_path / "theirs" / "other.index" / snap.name, Path(f"{cache}.index") / snap.name)
    warm = _build(root, cache)
    assert not marker.exists() and warm.summary.cache["snapshot_loaded"] == 0


def test_a_hard_linked_key_is_refused(tmp_path):
    k = tmp_path / "key"
    load_or_create_key(k)
    os.link(k, tmp_path / "elsewhere")
    with pytest.raises(KeyRefused, match="hard links"):
        load_or_create_key(k)


def test_the_key_folder_must_be_private(tmp_path):
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    folder.chmod(0o770)
    with pytest.raises(KeyRefused, match="writable by group or others"):
        IndexSnapshots(tmp_path / "c.sqlite.index", key_path=folder / "snapshot-key")
    assert not (folder / "snapshot-key").exists()
