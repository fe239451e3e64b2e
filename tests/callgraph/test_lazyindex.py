"""An index snapshot in shards (callgraph._lazyindex, docs/callgraph.md
"Loaded in shards"): the tables a split snapshot loads are the eager index's
— the same entries, the same objects where the eager index shares them, the
same order once iterated — a look-up unpickles only its own shard, files
that share a merged type are one shard, and an index that does not split
exactly (Lombok's generated members) is kept whole."""

from __future__ import annotations

import pickle
import shutil
import struct
from pathlib import Path

from callgraph import build_project_graph
from callgraph import _lazyindex
from callgraph._index import ProjectIndex
from callgraph._lazyindex import LazyFiles, LazyMap
from callgraph._snapshot import MAGIC, IndexSnapshots
from tests.callgraph._warm_project import edit, graph_bytes, project

FILES = ("p/A.java", "p/B.java", "p/C.java", "p/Circle.java", "p/Shape.java", "p/Use.java", "q/D.java")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "java"


def _build(root, cache):
    return build_project_graph(root, auto_classpath=False, jdk=None, cache=cache)


def _loaded(cache):
    """``(snapshots, slot, header, state)`` of the one snapshot a cold build wrote."""
    folder = Path(f"{cache}.index")
    (snap,) = sorted(folder.glob("*.snap"))
    snaps = IndexSnapshots(folder)
    header, state = snaps.load(snap.stem)
    return snaps, snap.stem, header, state


def _cold(tmp_path, root):
    cache = tmp_path / "c.sqlite"
    assert _build(root, cache).summary.cache["snapshot_written"] == 1
    return cache


def test_the_loaded_tables_are_the_eager_index(tmp_path):
    root = project(tmp_path, FILES)
    _s, _slot, _h, state = _loaded(_cold(tmp_path, root))
    assert isinstance(state["files"], LazyFiles) and isinstance(state["types"], LazyMap)
    # the eager index built from the very same facts
    eager = ProjectIndex(list(state["files"]), None)
    lazy = ProjectIndex.from_snapshot(state, None)
    assert list(lazy.types) == list(eager.types) and list(lazy.methods) == list(eager.methods)
    assert list(lazy.by_id) == list(eager.by_id)
    assert {k: [p.id for p in v] for k, v in lazy.methods.items()} == \
        {k: [p.id for p in v] for k, v in eager.methods.items()}
    for key, td in lazy.types.items():  # each type is its file's own declaration object
        assert any(t is td for t in lazy.files[lazy.type_file[key]].types)
    for mid, p in lazy.by_id.items():  # each by_id entry is the object of its method table
        assert any(q is p for q in lazy.methods[p.owner])


def test_a_look_up_loads_its_shard_only(tmp_path):
    root = project(tmp_path, FILES)
    _s, _slot, _h, state = _loaded(_cold(tmp_path, root))
    types, methods, by_id = state["types"], state["methods"], state["by_id"]
    loaded = types._s.loaded
    assert len(loaded) == len(FILES) and sum(loaded) == 0  # one shard per file: no merged type here
    assert "p.Nope" not in types and types.get("p.Nope") is None and sum(loaded) == 0
    assert "p.A" in types and sum(loaded) == 0  # membership: from the core
    assert types["p.A"].key == "p.A" and sum(loaded) == 1
    assert by_id.get("p.A.f(int)").id == "p.A.f(int)" and sum(loaded) == 1  # the same shard
    # declared methods first, then the implicit constructor (as the eager table has them)
    assert [p.id for p in methods["q.D"]] == ["q.D.s()", "q.D.<init>()"] and sum(loaded) == 2
    assert len(types) == len(state["type_file"]) and sum(loaded) == len(FILES)  # len: every shard


def test_an_assignment_survives_the_load_of_its_shard(tmp_path):
    root = project(tmp_path, FILES)
    _s, _slot, _h, state = _loaded(_cold(tmp_path, root))
    files, types = state["files"], state["types"]
    methods, by_id = state["methods"], state["by_id"]
    marker = object()
    types["p.B"] = marker  # loads p/B.java's shard first, then sets
    files[0] = marker
    methods["q.D"] = [marker]
    by_id["q.D.s()"] = marker
    assert types["p.B"] is marker and files[0] is marker
    list(files)  # every shard loaded: what was set stays
    assert types.whole()["p.B"] is marker and files[0] is marker
    assert methods.whole()["q.D"] == [marker] and by_id.whole()["q.D.s()"] is marker
    assert list(types) == list(state["type_file"])  # the eager order, not the load order


def test_a_body_edit_loads_a_few_shards_and_gives_the_cold_graph(tmp_path, monkeypatch):
    # the path of `qare graph` after a body edit: the stored graph patched (callgraph._patch)
    from callgraph import _graphstore as gs
    from callgraph._discover import discover_sources
    from callgraph._patch import PatchedGraph

    root = project(tmp_path, FILES)
    (tmp_path / "c").mkdir(mode=0o700)
    store = gs.GraphStore(tmp_path / "c" / "g.sqlite")

    def build():
        files, skipped = discover_sources(root, max_file_bytes=2_000_000)
        prev = store.previous(root, "physical", 2_000_000)
        fp = gs.fingerprint(root, files, skipped, [], None, "physical", 2_000_000,
                            previous=prev.inputs if prev else None)
        pg = build_project_graph(root, auto_classpath=False, jdk=None, cache=tmp_path / "c" / "c.sqlite",
                                 previous=prev, sources=(files, skipped))
        got = graph_bytes(pg)
        if isinstance(pg, PatchedGraph):
            pg.release()
        elif prev is not None:
            prev.close()
        assert store.save(fp, pg), store.last_error
        return pg, got

    asked = []
    real = _lazyindex._Shards.load

    def load(self, g):
        if not self.loaded[g]:
            asked.append(sorted(ff.rel for ff in pickle.loads(self.buf[self.offsets[g]:self.offsets[g + 1]])[1]))
        return real(self, g)

    try:
        build()
        monkeypatch.setattr(_lazyindex._Shards, "load", load)
        edit(root, "p/A.java", "        return x + 1;\n", "        int y = x;\n        y++;\n        return y;\n")
        warm, got = build()
        assert isinstance(warm, PatchedGraph) and warm.summary.cache["snapshot_patched"] == 1
        # A's own shard (its declarations are patched), nothing else: A.f and A.g call only each other
        assert asked == [["p/A.java"]]
        assert got == graph_bytes(_build(root, None))
    finally:
        store.close()


def test_files_of_a_merged_type_are_one_shard(tmp_path):
    root = tmp_path / "dup"
    shutil.copytree(FIXTURES / "dup-modules", root)
    cache = _cold(tmp_path, root)
    _s, _slot, header, state = _loaded(cache)
    rels = [h[0] for h in header["files"]]
    alpha = rels.index("alpha/src/test/java/org/dup/SharedTestSupport.java")
    beta = rels.index("beta/src/test/java/org/dup/SharedTestSupport.java")
    service = rels.index("beta/src/main/java/org/dup/beta/Service.java")
    group = state["files"]._s.group
    assert group[alpha] == group[beta] != group[service]
    idx = ProjectIndex.from_snapshot(state, None)
    (fi, td), = idx.merged
    assert fi == beta and any(t is td for t in idx.files[beta].types)
    # a body edit elsewhere: the whole build from the loaded index gives the cold graph
    svc = root / "beta/src/main/java/org/dup/beta/Service.java"
    text = svc.read_text()
    at = text.rindex("}", 0, text.rindex("}"))
    svc.write_text(text[:at] + "    // edited\n    " + text[at:])
    warm = _build(root, cache)
    assert warm.summary.cache["snapshot_loaded"] == 1
    assert graph_bytes(warm) == graph_bytes(_build(root, None))


def test_an_index_with_lombok_members_is_kept_whole(tmp_path):
    root = tmp_path / "lombok"
    shutil.copytree(FIXTURES / "lombok", root)
    _s, _slot, _h, state = _loaded(_cold(tmp_path, root))
    assert type(state["files"]) is list and type(state["types"]) is dict


def test_shard_offsets_past_the_payload_are_a_miss(tmp_path):
    snaps = IndexSnapshots(tmp_path / "c.sqlite.index")
    head = pickle.dumps(({"files": []}, {"type_file": {}}, [0, 10_000]), protocol=5)
    payload = head + struct.pack("<Q", len(head))
    (tmp_path / "c.sqlite.index" / "ab.snap").write_bytes(MAGIC + snaps._mac("ab", payload) + payload)
    assert snaps.load("ab") is None


def test_shard_offsets_that_do_not_fit_the_shards_are_a_miss(tmp_path):
    # sealed under the user's own key (so the MAC holds): offsets out of order, or fewer than the shards
    root = project(tmp_path, FILES)
    snaps, slot, header, state = _loaded(_cold(tmp_path, root))
    data = (Path(f"{tmp_path / 'c.sqlite'}.index") / f"{slot}.snap").read_bytes()
    payload = data[48:]
    n = struct.unpack_from("<Q", payload, len(payload) - 8)[0]
    head = payload[len(payload) - 8 - n:len(payload) - 8]
    hdr, core, offsets = pickle.loads(head)
    body = payload[:len(payload) - 8 - n]
    assert snaps.load(slot) is not None
    for bad in (offsets[:-1], [offsets[0], offsets[2], offsets[1], *offsets[3:]], [1, *offsets[1:]]):
        h = pickle.dumps((hdr, core, bad), protocol=5)
        p = body + h + struct.pack("<Q", len(h))
        (Path(f"{tmp_path / 'c.sqlite'}.index") / f"{slot}.snap").write_bytes(MAGIC + snaps._mac(slot, p) + p)
        assert snaps.load(slot) is None, bad
