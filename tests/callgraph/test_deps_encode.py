"""The dependency recorder's encoding (callgraph._deps.encode): each distinct
look-up is packed and fingerprinted once per build and process, and what a
file's row stores is exactly what it would be without that memo; the
look-ups a generic library call makes are the same bytes in every process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgpack

from callgraph import _deps

ROOT = Path(__file__).resolve().parents[2]


class _Index:
    """A stand-in ProjectIndex: ``resolve_name`` answers from a dict."""

    def __init__(self, answers: dict):
        self.answers = answers

    def resolve_name(self, name, fi, *rest):
        return self.answers[(type(name), name)]


def _rec(idx, fi, rels, asks, fps=None):
    rec = _deps.RecordingIndex(idx, fi, rels, fps)
    for a in asks:
        rec.resolve_name(*a)
    return rec


def _rows(blob):
    return [tuple(r) for r in msgpack.unpackb(blob, raw=False)]


def test_a_file_row_is_the_same_with_the_memo_of_earlier_files():
    """File 1's row, encoded after file 0's (the memo holds file 0's
    look-ups, some shared), is byte-identical to file 1's row encoded alone."""
    rels = ["p/A.java", "p/B.java"]
    idx = _Index({(str, "List"): "java.util.List", (str, "Map"): "java.util.Map", (str, "X"): None})
    shared = _deps.Fingerprints(rels)
    _deps.encode(_rec(idx, 0, rels, [("List", 0), ("Map", 0), ("X", 0)], shared))
    asks1 = [("List", 1), ("Map", 0), ("X", 1), ("Map", 0)]
    after = _deps.encode(_rec(idx, 1, rels, asks1, shared))
    alone = _deps.encode(_rec(idx, 1, rels, asks1, _deps.Fingerprints(rels)))
    assert after == alone
    # three distinct look-ups (the repeated one once); the file index stored as its path
    rows = _rows(after)
    assert len(rows) == 3
    assert {_deps._unpack(r[2])[1].rel for r in rows} == {"p/A.java", "p/B.java"}


def test_equal_arguments_of_other_types_are_other_look_ups():
    """1 and True are one dict key but are stored (and may be answered)
    differently: the memo's key has the arguments' types, so file 1's row
    stores True and True's answer, not file 0's 1 and its answer."""
    rels = ["p/A.java"]
    idx = _Index({(int, 1): "one", (bool, True): "true"})
    fps = _deps.Fingerprints(rels)
    _deps.encode(_rec(idx, 0, rels, [(1, 0)], fps))
    (row,) = _rows(_deps.encode(_rec(idx, 0, rels, [(True, 0)], fps)))
    assert _deps._unpack(row[2])[0] is True
    assert row[4] == _deps.Fingerprints(rels).fingerprint("true") != _deps.Fingerprints(rels).fingerprint("one")


def test_a_str_subclass_and_a_named_tuple_are_other_look_ups_than_their_equals():
    """A value equal to a plain one but of another type (a str Enum and its
    value, a NamedTuple and its tuple) is another look-up: its key has the
    arguments' types, so it never takes the plain one's row."""
    from typing import NamedTuple
    from enum import Enum

    class Kind(str, Enum):
        A = "a"

    class Pair(NamedTuple):
        x: str
        y: str

    class Idx:
        def supers(self, key):
            return type(key).__name__

    rels = ["p/A.java"]
    idx, fps = Idx(), _deps.Fingerprints(rels)
    plain = _deps.encode(_one_door(idx, rels, fps, "supers", ("a",)))
    (kind,) = _rows(_deps.encode(_one_door(idx, rels, fps, "supers", (Kind.A,))))
    assert _rows(plain)[0][4] == fps.fingerprint("str") and kind[4] == fps.fingerprint("Kind")
    assert _rows(_deps.encode(_one_door(idx, rels, fps, "supers", ("a",)))) == _rows(plain)
    (pair,) = _rows(_deps.encode(_one_door(idx, rels, fps, "supers", (Pair("a", "b"),))))
    (tup,) = _rows(_deps.encode(_one_door(idx, rels, fps, "supers", (("a", "b"),))))
    assert pair[4] == fps.fingerprint("Pair") and tup[4] == fps.fingerprint("tuple")


def _one_door(idx, rels, fps, door, args):
    rec = _deps.RecordingIndex(idx, 0, rels, fps)
    getattr(rec, door)(*args)
    return rec


def test_another_index_gets_another_memo():
    """The memo is valid for one index only (a warm build's new index gives
    new answers to the same look-ups)."""
    rels = ["p/A.java"]
    fps = _deps.Fingerprints(rels)
    old, new = _Index({(str, "T"): "p.Old"}), _Index({(str, "T"): "p.New"})
    (r_old,) = _rows(_deps.encode(_rec(old, 0, rels, [("T", 0)], fps)))
    (r_new,) = _rows(_deps.encode(_rec(new, 0, rels, [("T", 0)], fps)))
    assert r_old[4] == fps.fingerprint("p.Old")
    assert r_new[4] == fps.fingerprint("p.New")


def test_an_unreplayable_look_up_stays_unreplayable_from_the_memo():
    """A method of the index that is not a known read-only door cannot be
    replayed: the row is None, in the second file too, where the memo
    answers the (hashable) look-up."""
    rels = ["p/A.java", "p/B.java"]

    class Idx:
        def supers(self, name):
            return ()

        def rebuild(self, name):
            return ()

    idx, fps = Idx(), _deps.Fingerprints(rels)
    for fi in (0, 1):
        rec = _deps.RecordingIndex(idx, fi, rels, fps)
        rec.supers("a")
        rec.rebuild("a")
        assert _deps.encode(rec, fps) is None
    rec = _deps.RecordingIndex(idx, 0, rels, fps)
    rec.supers("a")
    assert _deps.encode(rec, fps) is not None


_INFER = """
from callgraph._inference import GenericInference
from callgraph._types import TypeParam
from types import SimpleNamespace
ms = SimpleNamespace(type_params=[TypeParam(n) for n in ("T", "U", "V", "W", "K", "E", "R", "S")], params=())
print(",".join(GenericInference.infer_lib(None, ms, False, [])))
"""


def test_inferred_type_variables_come_in_declaration_order_in_every_process():
    """infer_lib's answer (a dict that reaches ``jtuple``'s packed arguments)
    lists the method's type variables as declared, whatever the string hash
    seed: a set's order changed the stored look-up bytes between runs."""
    outs = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        r = subprocess.run([sys.executable, "-c", _INFER], env=env, capture_output=True, text=True, check=True)
        outs.add(r.stdout.strip())
    assert outs == {"T,U,V,W,K,E,R,S"}


def test_fingerprints_are_freed_without_the_collector():
    """A Fingerprints that packed an answer (so made its msgpack Packer)
    is freed as soon as it is no longer named, and with it the index its
    memo holds: no reference cycle waits for the collector, which a build
    pauses (spring-framework kept its index and memos, ~250 MB, through the
    graph step and the store write)."""
    import gc
    import weakref

    rels = ["p/A.java"]
    idx = _Index({(str, "List"): "java.util.List"})
    gc.disable()
    try:
        fps = _deps.Fingerprints(rels)
        assert _deps.encode(_rec(idx, 0, rels, [("List", 0)], fps)) is not None
        assert fps._packers and fps.rows_for(idx).rows  # it did pack, and the memo holds the look-up
        alive, held = weakref.ref(fps), weakref.ref(idx)
        del fps, idx
        assert alive() is None
        assert held() is None
    finally:
        gc.enable()


def test_release_drops_the_memos_and_rows_stay_the_same():
    """After ``release`` the index is no longer held, and the same look-ups
    encode to the same bytes as before (and as a fresh Fingerprints)."""
    import weakref

    rels = ["p/A.java", "p/B.java"]
    idx = _Index({(str, "List"): "java.util.List", (str, "X"): None})
    asks = [("List", 0), ("X", 1)]
    fps = _deps.Fingerprints(rels)
    before = _deps.encode(_rec(idx, 0, rels, asks, fps))
    fps.release()
    held = weakref.ref(idx)
    assert not fps._memo and not fps._alive and fps._rows is None
    after = _deps.encode(_rec(idx, 0, rels, asks, fps))
    assert after == before == _deps.encode(_rec(idx, 0, rels, asks))
    fps.release()
    del idx
    assert held() is None


def test_the_memo_keeps_one_packed_row_per_look_up():
    """What the process keeps per distinct look-up once its file is encoded
    is its key and its packed row (one bytes object; the answer is let go) —
    spring-framework has ~400,000 of them per process — and the blob is
    those rows under one array header, decoding to the rows a fresh
    Fingerprints gives."""
    idx = _Index({(str, "List"): "java.util.List", (str, "Map"): "java.util.Map"})
    rels = ["a/A.java", "b/B.java"]
    fps = _deps.Fingerprints(rels)
    blob = _deps.encode(_rec(idx, 0, rels, [("List", 0), ("Map", 0), ("List", 0)], fps))
    lookups = fps.rows_for(idx)
    assert len(lookups.rows) == 2 and all(type(v) is bytes for v in lookups.rows)
    assert lookups.asked == [None, None]
    # the key: the arguments (of plain types: no types beside them)
    assert set(lookups.keys[("m", "resolve_name")]) == {("List", 0), ("Map", 0)}
    rows = _rows(blob)
    assert rows == sorted(rows, key=lambda r: msgpack.packb(list(r), use_bin_type=True))
    assert rows == _rows(_deps.encode(_rec(idx, 0, rels, [("Map", 0), ("List", 0)])))
    # the repeated look-up is one row; each names its door and its argument
    assert len(rows) == 2 and {r[:2] for r in rows} == {("m", "resolve_name")}
    assert sorted(b"List" in r[2] for r in rows) == [False, True]


def test_a_file_recorder_is_freed_without_the_collector():
    """A file's RecordingIndex, once its doors, tables and solver have been
    used, is freed as soon as it is no longer named: its wrappers write to
    the file's own record, not back to it (a cycle would wait for the
    collector, one per file, with the file's answers)."""
    import gc
    import weakref

    class Idx(_Index):
        types = {"p.A": "A"}
        files = ["f0"]
        solver = type("S", (), {"solve": lambda self, n: None, "view": lambda self, n: None})()

    rels = ["p/A.java"]
    fps = _deps.Fingerprints(rels)
    gc.disable()
    try:
        rec = _rec(Idx({(str, "List"): "java.util.List"}), 0, rels, [("List", 0)], fps)
        assert rec.types["p.A"] == "A" and "p.B" not in rec.types and rec.files[0] == "f0" and len(rec.files) == 1
        rec.solver.root.solve("x")
        assert len(rec._asked.lids) == 5
        gone = weakref.ref(rec)
        del rec
        assert gone() is None
    finally:
        gc.enable()


def test_a_dict_argument_is_one_look_up_per_order_of_its_items():
    """A look-up with a dict argument (``jtuple``'s substitution) is memoised
    by the dict's items in their order — the order it is stored in — and
    their types: equal dicts in another order, or with a value of another
    type, are other rows; the same items again are the same row."""
    class Idx:
        def jtuple(self, t, subst):
            return (t, tuple(subst.items()))

    rels = ["p/A.java"]
    fps = _deps.Fingerprints(rels)
    asks = [("T", {"a": 1, "b": 2}), ("T", {"b": 2, "a": 1}), ("T", {"a": True, "b": 2}), ("T", {"a": 1, "b": 2})]
    rec = _deps.RecordingIndex(Idx(), 0, rels, fps)
    for a in asks:
        rec.jtuple(*a)
    rows = _rows(_deps.encode(rec))
    assert len(rows) == 3
    # each the row a fresh recorder stores for that one ask
    assert sorted(rows) == sorted(_rows(_deps.encode(_one_with(Idx(), rels, None, a)))[0] for a in asks[:3])


def test_an_unhashable_argument_is_stored_from_each_ask():
    """A look-up whose argument cannot be a dict key (a list inside the
    substitution) is not memoised: each file stores it from its own ask."""
    class Idx:
        def jtuple(self, t, subst):
            return len(subst["a"])

    rels = ["p/A.java"]
    idx, fps = Idx(), _deps.Fingerprints(rels)
    one = _deps.encode(_one_with(idx, rels, fps, ("T", {"a": [1]})))
    two = _deps.encode(_one_with(idx, rels, fps, ("T", {"a": [1, 2]})))
    assert one != two
    assert _rows(one)[0][4] == fps.fingerprint(1) and _rows(two)[0][4] == fps.fingerprint(2)


def _one_with(idx, rels, fps, args):
    rec = _deps.RecordingIndex(idx, 0, rels, fps)
    rec.jtuple(*args)
    return rec


def test_the_file_s_own_facts_are_no_stored_look_up():
    """``files[fi]`` of the file being resolved is not stored: the row is
    keyed by the file's own bytes and path, which make those facts. Another
    file's facts read from the same table are stored, by that file's path."""
    class Idx:
        files = ["facts of A", "facts of B"]

    rels = ["p/A.java", "p/B.java"]
    rec = _deps.RecordingIndex(Idx(), 0, rels)
    assert rec.files[0] == "facts of A" and rec.files[-2] == "facts of A"
    assert _rows(_deps.encode(rec)) == []
    rec = _deps.RecordingIndex(Idx(), 0, rels)
    assert rec.files[0] == "facts of A" and rec.files[1] == "facts of B"
    (row,) = _rows(_deps.encode(rec))
    assert row[:2] == ("t", "files") and _deps._unpack(row[2]) == (_deps.FileRef("p/B.java"),)


def test_a_look_up_first_asked_by_a_file_never_encoded_is_stored_by_the_next():
    """A file whose resolution failed is never encoded, so the look-ups it
    was first to ask have no row yet when another file asks them again:
    that file's row is made then, the same as from a fresh memo."""
    rels = ["p/A.java", "p/B.java"]
    idx = _Index({(str, "List"): "java.util.List", (str, "Map"): "java.util.Map"})
    fps = _deps.Fingerprints(rels)
    _rec(idx, 0, rels, [("List", 0), ("Map", 0)], fps)  # resolution failed: no encode
    after = _deps.encode(_rec(idx, 1, rels, [("Map", 0), ("List", 0)], fps))
    assert after == _deps.encode(_rec(idx, 1, rels, [("Map", 0), ("List", 0)]))
    assert len(_rows(after)) == 2


def test_the_process_recorder_is_emptied_for_each_file():
    """``Fingerprints.recorder`` hands out one recorder per index, emptied
    for each file: each file's row is what a recorder of its own gives,
    also after a file that was never encoded; the Fingerprints holding it
    is freed without the collector (the recorder reaches it weakly)."""
    import gc
    import weakref

    class Idx(_Index):
        files = ["facts of A", "facts of B"]

        def rebuild(self):
            return None

    rels = ["p/A.java", "p/B.java"]
    idx = Idx({(str, "List"): "java.util.List", (str, "Map"): "java.util.Map"})
    fps = _deps.Fingerprints(rels)
    rec = fps.recorder(idx, 0)
    rec.resolve_name("List", 0)
    rec.resolve_name("Map", 0)
    rec.rebuild()  # not replayable: this file's row is None
    assert rec.files[0] == "facts of A"
    assert _deps.encode(rec, fps) is None
    again = fps.recorder(idx, 1)
    assert again is rec and again._fi == 1
    again.resolve_name("Map", 1)  # never encoded
    third = fps.recorder(idx, 1)
    for a in [("Map", 1), ("List", 0)]:
        third.resolve_name(*a)
    assert third.files[0] == "facts of A" and third.files[1] == "facts of B"
    alone = _rec(idx, 1, rels, [("Map", 1), ("List", 0)])
    assert alone.files[0] == "facts of A" and alone.files[1] == "facts of B"
    assert _deps.encode(third, fps) == _deps.encode(alone)
    assert len(_rows(_deps.encode(alone))) == 3
    gc.disable()
    try:
        gone = weakref.ref(fps)
        del fps, rec, again, third
        assert gone() is None
    finally:
        gc.enable()


def test_a_table_read_again_in_a_file_is_answered_from_it_and_recorded_in_each_file():
    """A dict table answers a key it already gave this file from itself (in
    C), and a key it could not find keeps raising KeyError; each file of
    the process recorder starts empty, so a key read again in the next
    file is recorded in that file's row too. Reads of the whole table
    (length, iteration, items) see the index's whole table; writes fail."""
    import pytest

    class Idx:
        types = {"p.A": "A", "p.C": "C"}

    rels = ["p/A.java", "p/B.java"]
    idx, fps = Idx(), _deps.Fingerprints(rels)
    rec = fps.recorder(idx, 0)
    t = rec.types
    for _ in range(2):
        assert t["p.A"] == "A" and t.get("p.A") == "A" and "p.A" in t
        assert t.get("p.B") is None and t.get("p.B", 7) == 7 and "p.B" not in t
        with pytest.raises(KeyError):
            t["p.B"]
    first = _rows(_deps.encode(rec, fps))
    assert sorted(_deps._unpack(r[2])[0] for r in first) == ["p.A", "p.B"]
    rec = fps.recorder(idx, 1)
    assert rec.types is t and rec.types["p.A"] == "A"
    assert _rows(_deps.encode(rec, fps)) == [r for r in first if b"p.A" in r[2]]
    rec = fps.recorder(idx, 1)
    assert len(t) == 2 and sorted(t) == ["p.A", "p.C"] and dict(t.items()) == Idx.types and t == Idx.types
    assert [r[:2] for r in _rows(_deps.encode(rec, fps))] == [("t*", "types")]
    with pytest.raises(TypeError):
        t["p.D"] = "D"
    with pytest.raises(TypeError):
        t.update({"p.D": "D"})
