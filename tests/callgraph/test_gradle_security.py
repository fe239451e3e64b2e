"""Gradle build files read as bounded data inside the project (callgraph/_gradle.py):
no symlink out of the project is followed, substitution stops at its bound."""

from __future__ import annotations

import time
from pathlib import Path

from callgraph import _gradle


def test_gradle_properties_symlink_out_of_project_not_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "gradle.properties").write_text("signingPassword=hunter2\n")
    (outside / "root.gradle").write_text("def leaked = 'secret-from-outside'\n")
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / "gradle.properties").symlink_to(outside / "gradle.properties")
    (proj / "build.gradle").symlink_to(outside / "root.gradle")
    (proj / "sub" / "build.gradle").write_text(
        "dependencies { implementation \"g:a:${signingPassword}\"\n implementation \"g:b:$leaked\" }\n")
    warnings: list = []
    text, props = _gradle.build_text(proj / "sub" / "build.gradle", proj, warnings)
    assert "signingPassword" not in props and "leaked" not in props
    assert {Path(f).name for f, _ in warnings} == {"gradle.properties", "build.gradle"}
    assert all("outside the project" in why for _, why in warnings)


def test_build_file_itself_symlink_out_of_project_refused(tmp_path):
    outside = tmp_path / "outside.gradle"
    outside.write_text("def x = '1'\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "build.gradle").symlink_to(outside)
    try:
        _gradle.build_text(proj / "build.gradle", proj)
    except OSError as exc:
        assert "outside the project" in str(exc)
    else:
        raise AssertionError("a build file outside the project was read")


def test_substitute_bomb_stops_at_bound():
    # 3 MiB value referenced 100000 times: the round is abandoned as soon as it passes the bound.
    props = {"big": "A" * (3 * 1024 * 1024)}
    value = "$big" * 100_000
    t0 = time.process_time()
    assert _gradle.substitute(value, props) == value
    assert _gradle.substitute("v-${big}", props) == "v-${big}"
    assert _gradle.substitute("v-$small", {"small": "1.0"}) == "v-1.0"
    assert time.process_time() - t0 < 30  # generous: the unbounded version ran out of memory


def test_many_dollar_definitions_share_one_table(tmp_path, monkeypatch):
    # 10000 chained definitions: each is substituted against the one shared table, not
    # a copy per variable (the copying version was quadratic: ~186 s on a loaded machine).
    n = 10_000
    lines = [f"def v{i} = '$v{i + 1}'" for i in range(n - 1)] + [f"def v{n - 1} = '9'"]
    (tmp_path / "build.gradle").write_text("\n".join(lines) + "\n")
    tables: set[int] = set()
    real = _gradle.substitute

    def spy(s, props, *args, **kw):
        tables.add(id(props))
        return real(s, props, *args, **kw)

    monkeypatch.setattr(_gradle, "substitute", spy)
    _text, props = _gradle.build_text(tmp_path / "build.gradle", tmp_path)
    assert tables == {id(props)}
    assert props[f"v{n - 1}"] == "9" and props[f"v{n - 2}"] == "9"
    assert props["v0"] == "$v9"  # 8 bounded rounds: v1 -> v2 -> ... -> v9, then left as written
    assert props["v1"] == "$v10"
