"""Every second of a build is in a phase (issue 17): the library's phases add
up to ``summary.seconds``; ``qare graph`` adds start-up and output and prints
them all with the process age."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from callgraph import build_project_graph

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "java" / "resolution"
LIB_PHASES = ("discover", "classpath", "jdk_index", "parse", "index", "resolve", "graph")


def test_library_phases_add_up_to_the_build_time():
    s = build_project_graph(FIXTURE, auto_classpath=False, cache=None).summary
    assert all(k in s.phases for k in LIB_PHASES)
    assert abs(sum(s.phases[k] for k in LIB_PHASES) - s.seconds) < 0.02
    assert s.phases["total_cpu"] > 0


def test_graph_prints_every_phase_of_the_process(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "qare", "graph", str(FIXTURE), "-q", "--no-discover-classpath",
                        "--no-cache", "--out", str(tmp_path / "g.json")], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("phases: "))
    names = re.findall(r"([a-z ]+?) [\d.]+ s", line.removeprefix("phases: ").split(";")[0])
    assert [n.strip() for n in names] == ["startup", "discover", "classpath", "jdk index", "parse", "index",
                                          "resolve", "graph", "output"]
    process, unaccounted = map(float, re.search(r"process ([\d.]+) s \(unaccounted ([\d.]+) s\)", line).groups())
    # what the phases leave out is the summary's own printing: well under the process's time
    assert process > 0 and unaccounted < 0.1 * process + 0.2
