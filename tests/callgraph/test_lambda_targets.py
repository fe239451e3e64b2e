"""Lambda parameters typed from a ``return`` statement or a field's declared type
(JLS 14.17, 15.27.3: both are assignment contexts), with javac as the oracle.

Found by issue 10's check on halo: ``return subject -> ... subject.getName()`` in a
method returning ``Predicate<Subject>`` left ``getName`` to a guess by name (or
unresolved beyond 30 same-name candidates). Fixture: ``fixtures/java/lambda-targets``.
Expected: the ``invoke*`` instructions javap shows per source line (name and erased
descriptor) must each be an ``exact`` edge on that line, and every ``exact`` edge
must be one of them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cg_fixture_support import FIXTURES, JAVAC, java_files, javac_calls, method_name, params_descriptor

ROOT = FIXTURES / "lambda-targets"
REL = "lt/Targets.java"

pytestmark = pytest.mark.skipif(shutil.which(JAVAC) is None and not Path(JAVAC).is_file(),
                                reason="javac not installed (it is the oracle)")


@pytest.fixture(scope="module")
def both(graph_of, tmp_path_factory):
    calls, _ = javac_calls(java_files(ROOT / "src/main/java"), tmp_path_factory.mktemp("ltc"), [])
    return graph_of(ROOT, auto_classpath=False), calls[REL]


def _exact_by_line(pg) -> dict:
    g = pg.graph
    out: dict = {}
    for u, v, d in g.edges(data=True):
        if g.nodes[u].get("file") == f"src/main/java/{REL}" and d["resolution"] == "exact" \
                and not v.endswith("(*)"):
            for ln in d["lines"]:
                out.setdefault(ln, set()).add((method_name(v), params_descriptor(v)))
    return out


_BOXES = frozenset(f"java/lang/{b}" for b in ("Integer", "Long", "Short", "Byte", "Character", "Boolean",
                                               "Float", "Double"))


def _javac_by_line(truth) -> dict:
    """javac's calls per line without what javac adds on its own: ``Object.<init>``,
    synthetic ``lambda$`` methods, boxing (``Integer.valueOf`` of ``nameLength``'s
    lambda)."""
    return {ln: {(n, d) for n, d, owner in recs if "$" not in n
                 and not (n == "<init>" and owner == "java/lang/Object")
                 and not (owner in _BOXES and (n == "valueOf" or n.endswith("Value")))}
            for ln, recs in truth.items()}


def test_every_call_javac_binds_is_an_exact_edge(both):
    pg, truth = both
    got = _exact_by_line(pg)
    missed = sorted((ln, c) for ln, cs in _javac_by_line(truth).items() for c in cs - got.get(ln, set()))
    assert missed == []


def test_no_exact_edge_javac_does_not_bind(both):
    pg, truth = both
    want = _javac_by_line(truth)
    wrong = sorted((ln, c) for ln, cs in _exact_by_line(pg).items() for c in cs - want.get(ln, set()))
    assert wrong == []


def test_return_and_field_lambdas_by_hand(both):
    """The lines javac binds to ``Subject`` getters, worked out by hand too."""
    pg, _ = both
    got = _exact_by_line(pg)
    get_name = ("getName", "()")
    get_kind = ("getKind", "()")
    assert get_name in got[9]  # static field Function<Subject, String>
    assert get_name in got[11] and ("isEmpty", "()") in got[11]  # instance field Predicate<Subject>
    assert get_kind in got[14] and get_name in got[15]  # return in a method returning Predicate<Subject>
    assert ("length", "()") in got[19]  # Function<Subject, Integer>: getName() then String.length()
    assert get_kind in got[24]  # a local inside a block lambda, as before
