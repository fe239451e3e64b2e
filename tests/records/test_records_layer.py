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
