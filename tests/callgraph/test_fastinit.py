"""``_fastinit.fast_init``: the replaced ``__init__`` of a frozen slotted
dataclass builds the very object dataclass's own would (every field,
defaults, default factories, fields not in ``__init__``, ``__post_init__``),
and the object stays frozen and pickles the same."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from callgraph import _facts
from callgraph._candidates import MethodCandidate
from callgraph._fastinit import fast_init
from callgraph._methodinfo import MethodInfo
from callgraph._solver import Origin


def _make(fast: bool):
    @dataclass(frozen=True, slots=True)
    class K:
        a: int
        b: str = "b"
        c: list = field(default_factory=list)
        d: int = field(init=False, default=7)
        e: tuple = field(init=False, repr=False)

        def __post_init__(self):
            object.__setattr__(self, "e", (self.a, self.b))

    return fast_init(K) if fast else K


def _values(o) -> tuple:
    return tuple(getattr(o, f.name) for f in dataclasses.fields(o))


@pytest.mark.parametrize("args,kw", [((1,), {}), ((1, "x"), {}), ((1,), {"c": [3]}), ((), {"a": 2, "b": "y"})])
def test_the_fast_init_builds_what_dataclass_builds(args, kw):
    slow, fast = _make(False), _make(True)
    s, f = slow(*args, **kw), fast(*args, **kw)
    assert _values(s) == _values(f)
    assert repr(s).replace("K(", "") == repr(f).replace("K(", "")
    # a fresh list per object from the factory, not one shared default
    assert fast(1).c is not fast(1).c
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.a = 3
    with pytest.raises(TypeError):
        fast()  # a is required
    with pytest.raises(TypeError):
        fast(1, "x", [], 4)  # d is not a parameter


def test_the_callgraph_records_keep_their_fields_and_pickle():
    src = (b"package p; import q.R; /** doc */ class A<T> extends B {"
           b" @Deprecated int x = 1; <U> U m(int a, String... b) { return null; } static { } }")
    ff = _facts.extract(src, _facts.parse(src), "p/A.java", "main", None)
    assert type(ff).__init__.__qualname__ == "FileFacts.__init__"
    td = ff.types[0]
    assert (td.key, td.superclass, td.type_params, [f.name for f in td.fields]) == \
        ("p.A", ("B", (), 0), (("T", None),), ["x"])
    m = td.methods[0]
    assert (m.name, m.params, m.varargs, m.annotations, m.explicit_ctor_call) == \
        ("m", (("a", ("int", (), 0)), ("b", ("String", (), 1))), True, (), False)
    assert pickle.loads(pickle.dumps(ff)) == ff
    info = MethodInfo("p.A.m(int)", "p/A.java", 1, 2, 2, None, "main", "p.A", "m", ("int",))
    assert (info.static, info.implicit, info.generated_by) == (False, False, None)
    c = MethodCandidate("p.A.m(int)", "p.A", "m", ("int",), Origin.SOURCE, False, False, False, True, info=info)
    assert c.is_source and c.type_key == "p.A" and c.tparams == {} and c.sig is None
    c2 = pickle.loads(pickle.dumps(c))
    assert _values(c2) == _values(c)
