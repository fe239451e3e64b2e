"""Every command has help text, a one-line summary that `qare --help` shows
whole, help on every option, and its own exit-code footer; shared options
keep one name and one rule across commands."""

import re

import click
import pytest
from click.testing import CliRunner

from qare import exitcodes
from qare.cli import main


def _walk(group, prefix=()):
    for name, cmd in group.commands.items():
        yield prefix + (name,), cmd
        if hasattr(cmd, "commands"):
            yield from _walk(cmd, prefix + (name,))


COMMANDS = list(_walk(main))


def _help(path) -> str:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, (path, result.output)
    return " ".join(result.output.split())


def test_top_level_help_lists_exit_codes_and_whole_summaries():
    text = CliRunner().invoke(main, ["--help"], terminal_width=80).output
    assert "Exit codes" in text
    listing = text[text.index("Commands:"):]
    assert "..." not in listing and "…" not in listing  # no summary cut
    for path, cmd in COMMANDS:
        if len(path) == 1:
            assert cmd.short_help and cmd.short_help in " ".join(text.split()), path


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help_and_its_own_exit_codes(path, cmd):
    assert cmd.help, f"qare {' '.join(path)} has no help text"
    assert cmd.short_help, f"qare {' '.join(path)} has no short_help (click would cut its summary)"
    text = _help(path)
    footer = text[text.rindex("Exit codes:"):]
    assert footer != exitcodes.EPILOG and "0 ok" in footer and "2 usage error" in footer
    if path[-1] != "chain":
        assert "METHOD" not in footer, path
    if path[-1] not in ("graph", "chain", "crosscheck"):
        assert ".java" not in footer and "Java files" not in footer, path
    for p in cmd.params:
        if isinstance(p, click.Option) and not p.hidden and p.name != "help":
            assert p.help, f"qare {' '.join(path)} {p.opts[0]} has no help text"


def test_subcommand_footers_differ_from_each_other():
    footers = {}
    for path, cmd in COMMANDS:
        if not hasattr(cmd, "commands"):
            footers[" ".join(path)] = cmd.epilog
    # import apibench/clear share one footer (same codes); every other command has its own
    assert len(set(footers.values())) >= len(footers) - 1


def _options(cmd):
    return {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts + p.secondary_opts}


@pytest.mark.parametrize("name", ["graph", "chain", "build", "javadoc"])
def test_jobs_is_one_rule(name):
    p = _options(main.commands[name])["--jobs"]
    assert "-j" in p.opts and p.default == 1 and p.type.min == 0
    text = _help([name])
    assert "0 = every CPU available" in text and "[default: 1; x>=0]" in text


@pytest.mark.parametrize("name", ["graph", "chain", "build"])
def test_shared_option_names(name):
    opts = _options(main.commands[name])
    assert "-q" in opts and "--quiet" in opts
    assert "--discover-classpath" in opts and "--no-discover-classpath" in opts
    assert "--loc-mode" in opts
    # the old names are hidden aliases
    for old in ("--auto-classpath", "--loc"):
        assert opts[old].hidden and old + " " not in _help([name]).replace("--auto-classpath/", "")
    if name != "graph":
        assert "--include-unresolved" in opts and opts["--keep-unresolved"].hidden


def test_jobs_zero_means_every_cpu():
    from callgraph import default_jobs
    from qare._options import resolve_jobs

    assert resolve_jobs(0) == default_jobs() >= 1 and resolve_jobs(3) == 3


def test_no_help_shows_a_deprecated_alias():
    for path, _ in COMMANDS:
        text = _help(path)
        assert not re.search(r"--auto-classpath|--keep-unresolved|--loc\b(?!-)", text), path


def test_graph_prints_plain_progress_lines_off_a_terminal_and_quiet_silences_them(monkeypatch):
    import functools
    import time
    from pathlib import Path

    import callgraph
    import records.progress as progress

    plain = Path(__file__).resolve().parents[1] / "fixtures" / "java" / "plain"
    real = callgraph.build_project_graph

    def slow(*a, **kw):
        time.sleep(0.5)
        return real(*a, **kw)

    monkeypatch.setattr(callgraph, "build_project_graph", slow)
    monkeypatch.setattr(progress, "Heartbeat", functools.partial(progress.Heartbeat, interval=0.1))
    r = CliRunner().invoke(main, ["graph", str(plain), "--no-discover-classpath"])
    assert r.exit_code in (0, 1), r.output
    beats = [ln for ln in r.stderr.splitlines() if ln.startswith(f"qare: call graph of {plain}, ")]
    assert beats and all(re.fullmatch(r".*, \d:\d\d:\d\d elapsed", ln) for ln in beats)
    r = CliRunner().invoke(main, ["graph", str(plain), "--no-discover-classpath", "-q"])
    assert "qare: call graph of" not in r.stderr


def test_export_leaves_out_or_marks_nodes_of_unknown_declaring_type():
    import networkx as nx

    from qare.cmd_callgraph import export_graph

    g = nx.DiGraph()
    g.add_node("a.A.m()", kind="method")
    for n in ("java.util.List.add(java.lang.Object)", "org.x.Foo.bar(*)", "?.add(*)", "a.?Gen.run(*)"):
        g.add_node(n, kind="api")
        g.add_edge("a.A.m()", n, resolution="exact", lines=[3])
    h, dropped = export_graph(g)
    assert dropped == 2 and sorted(h.nodes) == ["a.A.m()", "java.util.List.add(java.lang.Object)", "org.x.Foo.bar(*)"]
    assert h.number_of_edges() == 2 and g.number_of_nodes() == 5  # the input graph is not changed
    k, dropped = export_graph(g, include_unresolved=True)
    assert dropped == 0 and k.nodes["?.add(*)"]["kind"] == k.nodes["a.?Gen.run(*)"]["kind"] == "unresolved"
    assert k.nodes["org.x.Foo.bar(*)"]["kind"] == "api" and g.nodes["?.add(*)"]["kind"] == "api"


def test_graph_out_kinds_are_documented(tmp_path):
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "g.json"
    r = CliRunner().invoke(main, ["graph", str(root / "fixtures" / "java" / "resolution"), "-q",
                                  "--no-discover-classpath", "--out", str(out)])
    assert r.exit_code in (0, 1), r.output
    kinds = {n["kind"] for n in json.loads(out.read_text())["nodes"]}
    doc = (root / "docs" / "callgraph.md").read_text()
    assert kinds == {"method", "api"}
    for kind in ("method", "api", "unresolved"):
        assert f"`{kind}`" in doc[doc.index("### Node kinds"):]


def test_every_command_takes_quiet():
    # issue 17: one option name on every command (-q/--quiet: no progress on stderr)
    import click

    from qare.cli import main as group

    seen = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, path + [name])
            return
        opts = {o for p in cmd.params for o in getattr(p, "opts", ())}
        assert {"-q", "--quiet"} <= opts, " ".join(path)
        seen.append(" ".join(path))

    walk(group, [])
    assert "sccg score" in seen and "graph" in seen and len(seen) >= 15


def test_a_closed_output_pipe_ends_the_process_with_141_quietly(tmp_path):
    # `qare build … | head`: the reader goes away; click's own answer was exit
    # 1 ("some input failed") — a tool that SIGPIPE ends reports 128 + 13
    import os
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "fixtures" / "java" / "qare-example"
    (tmp_path / "l.txt").write_text(f"{example}\n")
    r, w = os.pipe()
    os.close(r)  # no reader before the first line is written
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    p = subprocess.run([sys.executable, "-m", "qare", "build", str(tmp_path / "l.txt"), "--out", str(tmp_path / "o"),
                        "--no-require-docs", "--jdk", "none", "--no-discover-classpath"],
                       stdout=w, stderr=w, env=env, timeout=300)
    os.close(w)
    assert p.returncode == exitcodes.PIPE_CLOSED == 141
    # what the build wrote before it ended is whole: a re-run resumes it
    assert (tmp_path / "o" / "projects.jsonl").is_file() or list((tmp_path / "o" / ".parts").glob("*.json"))
