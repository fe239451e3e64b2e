"""Issue 15 item 5: ``${...}`` properties that expand exponentially ("billion laughs"),
refer to themselves, or nest without end are refused with a warning naming the pom;
the other dependencies of the pom keep their jars.

The exponential case runs in a child process with a 1 GiB address-space limit and a
timeout, so the old unbounded expansion (10⁹ copies of a property) fails the test
instead of exhausting the machine."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from callgraph.classpath import discover_classpath_report

REPO = Path(__file__).resolve().parents[2]


def _pom(props: str, deps: str) -> str:
    return ('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            "<groupId>com.me</groupId><artifactId>app</artifactId><version>1</version>"
            f"<properties>{props}</properties><dependencies>{deps}</dependencies></project>")


def _dep(a: str, v: str) -> str:
    return f"<dependency><groupId>org.lib</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "m2"
    d = repo / "org" / "lib" / "good" / "1.0"
    d.mkdir(parents=True)
    (d / "good-1.0.jar").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    (d / "good-1.0.pom").write_text(_pom("", "").replace("com.me</groupId><artifactId>app", "org.lib</groupId>"
                                                          "<artifactId>good").replace("<version>1<", "<version>1.0<"))
    return repo


def test_billion_laughs_is_bounded(tmp_path):
    # a0 = 8 chars; a_i = ten copies of a_{i-1}: a9 would be 8·10⁹ characters
    props = "<a0>laughing</a0>" + "".join(f"<a{i}>" + f"${{a{i - 1}}}" * 10 + f"</a{i}>" for i in range(1, 10))
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pom.xml").write_text(_pom(props, _dep("bomb", "${a9}") + _dep("good", "1.0")))
    repo = _repo(tmp_path)
    code = textwrap.dedent(f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        sys.path.insert(0, {str(REPO)!r})
        from callgraph.classpath import discover_classpath_report
        r = discover_classpath_report({str(root)!r}, repositories=[__import__('pathlib').Path({str(repo)!r})])
        print(json.dumps({{"jars": [p.name for p in r.jars], "warnings": r.warnings, "missing": r.missing}}))
    """)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("property expansion did not finish within 60 s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["jars"] == ["good-1.0.jar"]
    (where, why), unresolved = out["warnings"]
    assert unresolved[1] == "unresolved property in org.lib:bomb:${a9}"
    assert where == str((root / "pom.xml").resolve())
    assert "org.lib:bomb" in why and "longer than 16384 characters" in why
    assert out["missing"] == ["org.lib:bomb:${a9}"]


@pytest.mark.parametrize("props, reason", [
    ("<p>${p}${p}</p>", "property cycle: p -> p"),                     # self-doubling
    ("<p>${q}.1</p><q>${p}</q>", "property cycle: p -> q -> p"),       # a cycle through two
])
def test_property_cycle_is_reported_and_the_rest_kept(tmp_path, props, reason):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pom.xml").write_text(_pom(props, _dep("loop", "${p}") + _dep("good", "1.0")))
    r = discover_classpath_report(root, repositories=[_repo(tmp_path)])
    assert [p.name for p in r.jars] == ["good-1.0.jar"]
    assert r.warnings[0][1].endswith(reason)
    assert "org.lib:loop version '${p}'" in r.warnings[0][1]
    assert r.missing == ["org.lib:loop:${p}"]


def test_deep_nesting_is_bounded(tmp_path):
    props = "<p0>1.0</p0>" + "".join(f"<p{i}>${{p{i - 1}}}</p{i}>" for i in range(1, 40))
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pom.xml").write_text(_pom(props, _dep("deep", "${p39}") + _dep("shallow", "${p5}")))
    r = discover_classpath_report(root, repositories=[_repo(tmp_path)])
    assert "nested deeper than 32 levels" in r.warnings[0][1]
    assert "org.lib:shallow:1.0" in r.missing  # p5 expanded fine (and is not in the repository)


def test_doubling_references_to_nothing_are_bounded(tmp_path):
    # a0 empty; a_i = ${a_{i-1}}${a_{i-1}}: ${a30} is 2^30 references that
    # expand to nothing, so no character budget stopped them (a 969-byte pom
    # hung the build: the attacker's review, session 10). Each name is now
    # expanded once per value: a30 is "", the version empty
    props = "<a0></a0>" + "".join(f"<a{i}>${{a{i - 1}}}${{a{i - 1}}}</a{i}>" for i in range(1, 31))
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pom.xml").write_text(_pom(props, _dep("none", "${a30}") + _dep("good", "1.0")))
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(REPO)!r})
        from callgraph._maven import _interpolate
        from callgraph.classpath import discover_classpath_report
        r = discover_classpath_report({str(root)!r}, repositories=[__import__('pathlib').Path({str(_repo(tmp_path))!r})])
        props = {{"a0": ""}} | {{f"a{{i}}": f"${{{{a{{i - 1}}}}}}" * 2 for i in range(1, 31)}}
        print(json.dumps({{"jars": [p.name for p in r.jars], "a30": _interpolate("v${{a30}}", props)}}))
    """)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("property expansion did not finish within 60 s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == {"jars": ["good-1.0.jar"], "a30": "v"}


def test_a_reference_costs_the_budget_even_when_it_expands_to_nothing():
    from callgraph._maven import PropertyExpansionError, _interpolate

    # 20,000 distinct empty properties referenced once each: more references than the 16,384 budget
    props = {f"e{i}": "" for i in range(20_000)}
    with pytest.raises(PropertyExpansionError, match="longer than 16384 characters"):
        _interpolate("".join(f"${{e{i}}}" for i in range(20_000)), props)
    assert _interpolate("".join(f"${{e{i}}}" for i in range(1_000)), props) == ""


def test_unclosed_references_are_scanned_once():
    # 80,000 unclosed "${" made every one of them scan to the value's end: 40 s
    # for a 160 KB pom (the attacker's second review, session 10). A name holds
    # no "$" or "{" (Maven's do not), so each scan stops at the next one: the
    # value is refused by its length, at once
    from callgraph._maven import _PROP, PropertyExpansionError, _interpolate

    assert _PROP.findall("${a}${b.c}${${x}}${") == ["a", "b.c", "x"]
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from callgraph._maven import _PROP
        print(sum(1 for _ in _PROP.finditer("${{" * 200_000)))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "0"
    with pytest.raises(PropertyExpansionError, match="longer than 16384"):
        _interpolate("${" * 80_000, {"a": "b"})


def test_a_pom_declares_at_most_so_many_properties(tmp_path, monkeypatch):
    from callgraph import _maven

    monkeypatch.setattr(_maven, "MAX_POM_PROPERTIES", 3)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pom.xml").write_text(_pom("<a>1.0</a><b>1.0</b><c>1.0</c><d>1.0</d>", _dep("good", "${c}") + _dep("late", "${d}")))
    r = discover_classpath_report(root, repositories=[_repo(tmp_path)])
    assert [p.name for p in r.jars] == ["good-1.0.jar"]
    assert (str((root / "pom.xml").resolve()), "more than 3 properties; the rest not read") in r.warnings
    assert "org.lib:late:${d}" in r.missing
