"""The bottom package: imports nothing of ours, and nothing imports upward."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("callgraph", "javadoc", "queries", "metrics", "qare", "records")

# DESIGN.md "Layout": which of our packages each package may import
MAY_IMPORT = {
    "records": set(),
    "callgraph": {"records"},
    "javadoc": {"records"},
    "queries": {"callgraph", "javadoc", "records"},
    "metrics": {"records"},
}


def _imports(py: Path) -> set[str]:
    tree = ast.parse(py.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out & set(OURS)


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_no_arrow_runs_back_up(package):
    bad = {}
    for py in sorted((ROOT / package).rglob("*.py")):
        wrong = _imports(py) - MAY_IMPORT[package] - {package}
        if wrong:
            bad[str(py.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"{package} may import only {sorted(MAY_IMPORT[package])}: {bad}"


def _loaded_after(stmt: str) -> set[str]:
    code = f"import sys; {stmt}; print('\\n'.join(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return {m for m in r.stdout.split() if m.split(".")[0] in OURS}


def test_import_metrics_loads_no_queries_module():
    loaded = _loaded_after("import metrics")
    assert not {m for m in loaded if m.split(".")[0] == "queries"}, sorted(loaded)
    assert "records.dataset" in loaded


def test_import_records_loads_nothing_else_of_ours():
    loaded = _loaded_after("import records")
    assert {m.split(".")[0] for m in loaded} == {"records"}, sorted(loaded)


def test_one_version():
    import qare
    import records

    assert qare.__version__ == records.__version__
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{records.__version__}"' in text


def test_graph_targets_and_api_docs_are_the_record_types():
    """callgraph.Target and javadoc.ApiDoc convert to the one definition of the on-disk shape."""
    from callgraph import Target
    from javadoc import ApiDoc, SiteLayout
    from records import ApiRecord, TargetRecord

    t = Target(api="a.B.c", signature="a.B.c(int)", class_="a.B", library=None, depth=2, chain=("p.Q.m()", "a.B.c(int)"),
               chain_loc=3, density=1 / 3, resolution="exact", call_sites=(("Q.java", 4),))
    assert isinstance(t.to_record(), TargetRecord)
    assert TargetRecord.from_dict(t.to_dict()) == t.to_record()
    assert list(t.to_dict()) == ["api", "signature", "class", "library", "depth", "chain", "chain_loc", "density",
                                 "resolution", "call_sites"]
    assert t.to_dict()["call_sites"] == [{"file": "Q.java", "line": 4}]
    d = ApiDoc(id="a.B.c(int)", api="a.B.c", class_="a.B", kind="method", signature_text="void c(int x)",
               description="Does c.", first_sentence="Does c.", params=(("x", "the x"),), returns=None,
               throws=(("java.io.IOException", "on error"),), deprecated=None, doc_source="javadoc",
               layout=SiteLayout.SOURCES, location="a/B.java")
    rec = d.to_record("g:a:1")
    assert isinstance(rec, ApiRecord) and ApiRecord.from_dict(d.to_dict("g:a:1")) == rec
    assert list(d.to_dict()) == list(ApiRecord(api="x.Y.z").to_dict())
    assert d.to_dict()["params"] == [{"name": "x", "text": "the x"}]


@pytest.mark.parametrize("module", ["records.ids", "records.sourcesets", "records.secrets"])
def test_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
