"""Reach semantics on fixtures/java/chains: shortest chain beats smaller LOC, cycles,
repeated calls of one API, several targets from one method (commons-lang3 on the classpath)."""

from __future__ import annotations

import pytest

from cg_fixture_support import FIXTURES, java_files, javac, out_edges, targets_by_api

CHAINS = FIXTURES / "chains"
P = "ch.Paths"
SU = "org.apache.commons.lang3.StringUtils"
TRIM, STRIP, CHOMP = (f"{SU}.{n}(java.lang.String)" for n in ("trim", "strip", "chomp"))
FILE = "src/main/java/ch/Paths.java"


def m(name: str) -> str:
    return f"{P}.{name}(java.lang.String)"


def test_chains_compiles(tmp_path, commons_lang3):
    javac(java_files(CHAINS), tmp_path, [commons_lang3])


@pytest.fixture(scope="module")
def pg(graph_of, commons_lang3):
    return graph_of(CHAINS, classpath=[commons_lang3])


def test_loc_of_the_methods(pg):
    assert {n: pg.method(m(n)).loc for n in ("shortestWins", "big", "a", "b", "cycle", "back", "repeated", "manyTargets")} == {
        "shortestWins": 3, "big": 7, "a": 1, "b": 1, "cycle": 3, "back": 4, "repeated": 5, "manyTargets": 3,
    }


def test_fewer_methods_beat_fewer_lines(pg):
    (t,) = pg.reach(m("shortestWins"))
    # depth 3 through big (7 lines) beats depth 4 through a and b (1 line each)
    assert t.chain == (m("shortestWins"), m("big"), TRIM)
    assert (t.depth, t.chain_loc) == (3, 10)
    assert t.density == pytest.approx(0.1)
    assert t.call_sites == ((FILE, 8), (FILE, 16))


def test_cycles(pg):
    (t,) = pg.reach(m("cycle"))
    assert (t.chain, t.depth, t.chain_loc) == ((m("cycle"), m("back"), STRIP), 3, 7)
    (t,) = pg.reach(m("back"))
    assert (t.chain, t.depth, t.chain_loc) == ((m("back"), STRIP), 2, 4)
    assert out_edges(pg, m("back")) == {
        (m("cycle"), "exact", (28,)),
        ("java.lang.String.substring(int)", "exact", (28,)),
        (STRIP, "exact", (29,)),
    }


def test_repeated_calls_of_one_api(pg):
    assert out_edges(pg, m("repeated")) == {(CHOMP, "exact", (33, 35))}
    (t,) = pg.reach(m("repeated"))
    assert (t.chain, t.depth, t.chain_loc) == ((m("repeated"), CHOMP), 2, 5)
    assert t.call_sites[0][0] == FILE and t.call_sites[0][1] in (33, 35)


def test_several_targets(pg):
    by = targets_by_api(pg.reach(m("manyTargets")))
    assert set(by) == {TRIM, STRIP, CHOMP}
    got = {k: (t.chain, t.depth, t.chain_loc) for k, t in by.items()}
    assert got == {
        TRIM: ((m("manyTargets"), m("big"), TRIM), 3, 10),
        STRIP: ((m("manyTargets"), m("cycle"), m("back"), STRIP), 4, 10),
        CHOMP: ((m("manyTargets"), m("repeated"), CHOMP), 3, 8),
    }
    assert {k: t.density for k, t in by.items()} == pytest.approx({TRIM: 0.1, STRIP: 0.1, CHOMP: 0.125})
    assert {t.library for t in by.values()} == {"org.apache.commons:commons-lang3:3.12.0"}
    assert {k for k, t in by.items() if t.depth <= 3} == {
        t.signature for t in pg.reach(m("manyTargets"), max_depth=3)
    }
