"""Java 21 syntax (fixtures/java/modern): sealed interfaces, records, switch and
record patterns, text blocks, ``yield`` — compiled with JDK 25's javac, then graphed."""

from __future__ import annotations

import pytest

from cg_fixture_support import FIXTURES, JDK25, java_files, javac, only_line, out_edges

MODERN = FIXTURES / "modern"
SRC = MODERN / "src/main/java/mod"
EVALS = ("mod.Num.eval()", "mod.Add.eval()", "mod.Neg.eval()")


def test_modern_compiles_with_jdk25(tmp_path):
    javac_25 = JDK25 / "bin" / "javac"
    if not javac_25.is_file():
        pytest.skip("JDK 25 not installed")
    javac(java_files(MODERN), tmp_path, release="21", javac_bin=str(javac_25))
    assert (tmp_path / "mod" / "Printer.class").is_file()


@pytest.fixture(scope="module")
def pg(graph_of):
    return graph_of(MODERN)


def _l(file: str, *snippets: str) -> tuple[int, ...]:
    return tuple(sorted(only_line(SRC / file, s) for s in snippets))


def test_no_parse_errors(pg):
    assert list(pg.summary.parse_errors) == []


def test_switch_patterns_and_record_patterns(pg):
    show = "mod.Printer.show(mod.Expr)"
    assert out_edges(pg, show) == {
        ("java.lang.Integer.toString(int)", "exact", _l("Printer.java", "case Num n -> Integer")),
        ("mod.Num.value()", "exact", _l("Printer.java", "case Num n -> Integer")),
        (show, "exact", _l("Printer.java", "show(l) +", "+ show(r)", "show(neg.inner())")),
        ("mod.Neg.inner()", "exact", _l("Printer.java", "show(neg.inner())")),
    }
    assert out_edges(pg, "mod.Printer.sum(java.lang.Object)") == {
        ("mod.Num.value()", "exact", _l("Printer.java", "a.value()", "b.value()")),
    }


def test_text_block_and_yield(pg):
    assert out_edges(pg, "mod.Printer.block()") == {
        ("java.lang.String.strip()", "exact", _l("Printer.java", "text.strip()")),
    }
    default = _l("Printer.java", "default -> e.eval()")
    assert out_edges(pg, "mod.Printer.yielding(mod.Expr)") == {
        ("mod.Num.value()", "exact", _l("Printer.java", "int x = n.value()")),
        ("mod.Expr.eval()", "exact", default),
    } | {(m, "cha", default) for m in EVALS}


def test_sealed_interface_cha_to_records(pg):
    lines = _l("Add.java", "left.eval()", "right.eval()")
    assert out_edges(pg, "mod.Add.eval()") == {("mod.Expr.eval()", "exact", lines)} | {
        (m, "cha", lines) for m in EVALS
    }
    info = pg.method("mod.Add.eval()")
    assert (info.file, info.start_line, info.end_line, info.loc) == ("src/main/java/mod/Add.java", 5, 9, 5)
