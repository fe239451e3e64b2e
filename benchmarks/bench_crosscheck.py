"""qare vs Eclipse JDT on real projects: precision/recall per category, time, peak RSS (issue 13).

Usage: python3 benchmarks/bench_crosscheck.py PROJECT [PROJECT ...] [--out-dir DIR] [--categories all,chained,...]

Each project runs as a user would run it: ``python3 -m qare crosscheck PROJECT --quiet
--format json --out DIR/<name>.jsonl`` (the product's own classpath discovery from Maven
Central into qare's cache), under ``/usr/bin/time -v`` for the whole process's wall time and
peak RSS. The command's own JSON gives qare's and JDT's seconds and peak RSS apart (JDT runs
in a child process). Prints one Markdown table of the headline figures and one of every
category; the disagreeing call sites land in DIR/<name>.jsonl. Projects are paths (never
committed); the load average is printed beside the figures because wall times on a shared
machine are inflated. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}"


def run_one(project: Path, out_dir: Path) -> dict:
    name = project.name
    jsonl = out_dir / f"{name}.jsonl"
    cmd = [sys.executable, "-m", "qare", "crosscheck", str(project), "--quiet", "--format", "json",
           "--out", str(jsonl)]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    load0 = os.getloadavg()[0]
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env)
    (out_dir / f"{name}.stderr").write_text(p.stderr)
    m_wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    m_rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    wall = None
    if m_wall:
        h, mi, s = m_wall.groups()
        wall = int(h or 0) * 3600 + int(mi) * 60 + float(s)
    try:
        data = json.loads(p.stdout)
    except ValueError:
        return {"project": name, "exit": p.returncode, "error": p.stderr.strip().splitlines()[-1:]}
    data.update(project=name, exit=p.returncode, total_wall_s=wall, load=load0,
                total_peak_rss_mb=round(int(m_rss.group(1)) / 1024) if m_rss else None)
    (out_dir / f"{name}.json").write_text(json.dumps(data, indent=1))
    return data


def _score(d: dict, cat: str, lvl: str):
    for s in d.get("scores", ()):
        if s["category"] == cat and s["level"] == lvl:
            return s
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("projects", nargs="+", type=Path)
    ap.add_argument("--out-dir", type=Path, default=None, help="where the JSON/JSONL go (default: a temp folder)")
    a = ap.parse_args(argv)
    out_dir = a.out_dir or Path(tempfile.mkdtemp(prefix="qare-xcheck-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [run_one(p.resolve(), out_dir) for p in a.projects]
    print(f"# results in {out_dir}")
    print("| project | exit | name P / R | signature P / R | unjudgeable sites (qare targets) | "
          "qare s / MB | JDT s (+setup) / MB | whole run s / MB | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in rows:
        if "scores" not in d:
            print(f"| {d['project']} | {d['exit']} | failed: {d.get('error')} |")
            continue
        n, s = _score(d, "all", "name"), _score(d, "all", "signature")
        print(f"| {d['project']} | {d['exit']} | {_pct(n and n['precision'])} / {_pct(n and n['recall'])} | "
              f"{_pct(s and s['precision'])} / {_pct(s and s['recall'])} | "
              f"{d['unjudgeable_sites']} ({d['unjudgeable_qare_targets']}) | "
              f"{d['qare_seconds']:.1f} / {d['qare_peak_rss_mb']} | "
              f"{d['jdt_seconds']:.1f} (+{d['jdt_setup_seconds']:.1f}) / {d['jdt_peak_rss_mb']} | "
              f"{d['total_wall_s']:.1f} / {d['total_peak_rss_mb']} | {d['load']:.1f} |")
    print()
    print("per category: name P/R, signature P/R (tp/fp/fn at signature level)")
    for d in rows:
        if "scores" not in d:
            continue
        print(f"## {d['project']}")
        cats = sorted({s["category"] for s in d["scores"]}, key=lambda c: (c != "all", c))
        for cat in cats:
            n, s = _score(d, cat, "name"), _score(d, cat, "signature")
            print(f"  {cat:20s} {_pct(n and n['precision']):>6s} {_pct(n and n['recall']):>6s}  "
                  f"{_pct(s and s['precision']):>6s} {_pct(s and s['recall']):>6s}  "
                  f"({s['tp']}/{s['fp']}/{s['fn']})" if s else f"  {cat}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
