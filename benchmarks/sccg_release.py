"""Figures of the SCCG tools on an SCCGBench release split (issue 16).

    python3 benchmarks/sccg_release.py RELEASE_SPLIT.json [--official PIPELINE.py] [--jobs 2] [--out DIR]

RELEASE_SPLIT.json is a split of the public release (e.g. the validation
split, 266 samples); nothing of it is kept in this repository. Prints JSON:

- ``extraction``: how many records' functions ``extract_source`` finds in
  the record's own code, and field agreement with the annotation on those
  (host, route — segment match, templates either side —, method, parameter
  key set), with the templates flagged among them;
- ``gold_self_execution``: :func:`metrics.sccg.check_gold` classes, hits,
  and the hits among the records that are neither annotation errors,
  framework-bound, dynamic nor broken; wall time for the whole split;
- ``official`` (with ``--official``, the benchmark's own
  ``04_experiments/main_experiment_pipeline.py``): its ``try_mock_execute``
  run on the same records — each in qare's bubblewrap sandbox, as it runs
  the code in its own process — and the disagreement table with the reason
  of each disagreement.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.sccg import Limits, check_gold, route_matches  # noqa: E402
from metrics.sccg import _sandbox  # noqa: E402
from metrics.sccg._scores import gold_tuple, host_matches  # noqa: E402
from queries.sccg import extract_source  # noqa: E402
from records.sccg import read_records, record_problem  # noqa: E402

# Runs inside the sandbox: loads the official pipeline from its text and
# calls its own mock execution on one record; the result goes after a marker
# on stdout, since the record's code prints too.
_OFFICIAL_RUNNER = r"""
import json, os, sys, types
job = json.loads(sys.stdin.read())
if os.getuid() == 0:
    os.setgroups([]); os.setgid(65534); os.setuid(65534)
mod = types.ModuleType("main_experiment_pipeline")
sys.modules[mod.__name__] = mod
exec(compile(job["pipeline"], "main_experiment_pipeline.py", "exec"), mod.__dict__)
gt = mod.make_ground_truth(job["item"])
out = os.fdopen(os.dup(1), "w")
try:
    res = mod.try_mock_execute(mod.get_code(job["item"]), gt)
except BaseException as exc:
    res = {"mock_pass": False, "error": "escaped: " + type(exc).__name__}
out.write("\n@@RESULT@@" + json.dumps(res, default=repr) + "\n")
out.flush()
"""


def _official(pipeline: str, item: dict) -> dict:
    fd = _sandbox._seccomp_fd()
    try:
        cmd = _sandbox._bwrap_command(Limits(), fd) + [sys.executable, "-I", "-c", _OFFICIAL_RUNNER]
        proc = subprocess.run(cmd, input=json.dumps({"pipeline": pipeline, "item": item}).encode(),
                              capture_output=True, timeout=30, pass_fds=(fd,), cwd="/",
                              env=_sandbox._child_env("/tmp/work"))
    except subprocess.TimeoutExpired:
        return {"mock_pass": False, "error": "timeout"}
    finally:
        os.close(fd)
    text = proc.stdout.decode("utf-8", "replace")
    if "@@RESULT@@" not in text:
        return {"mock_pass": False, "error": f"ended without a result (exit {proc.returncode}; sys.exit in the code?)"}
    try:
        return json.loads(text.rsplit("@@RESULT@@", 1)[1].split("\n", 1)[0])
    except ValueError:
        return {"mock_pass": False, "error": "unreadable result"}


def _official_reason(off: dict, row: dict, rec: dict) -> str:
    """Why the official evaluator passed a record qare does not, or the reverse."""
    host, route, method, _ = gold_tuple(rec)
    if off.get("mock_pass"):
        url = str(off.get("captured_url") or "")
        req = (row.get("scores") or {}).get("request") or {}
        if req and not host_matches(host, req.get("host")):
            return "official: host found in the headers, URL goes elsewhere" if host.lower() not in url.lower() \
                else "official: host is a substring of the URL's host"
        if req and not route_matches(route, req.get("route")):
            return "official: gold route is a substring of a longer URL path"
        return f"official passes; qare: {row['class']} ({row['reason'][:80]})"
    err = off.get("error") or ""
    if off.get("mock_request_captured") is False and off.get("mock_execution_ran"):
        return "official: nothing captured (Session/urllib/aiohttp not faked, or the call is guarded)"
    if err:
        return f"official: {err[:80]}"
    return "official: first captured request is not the judged one"


def _reason_group(reason: str) -> str:
    """The class of a disagreement reason (for the note's table)."""
    if "ModuleNotFoundError" in reason or "ImportError" in reason:
        return "an import the official evaluator lacks (qare: a recorded stand-in)"
    if "NameError" in reason:
        return "an undefined global (qare: a recorded stand-in)"
    if "nothing captured" in reason:
        return "nothing captured officially (Session/aiohttp/urllib not faked, or the call is guarded)"
    if reason.startswith("official: ") and ("Error" in reason or "Exception" in reason):
        return "an exception in the official run (mostly reading the fake response after the request)"
    return reason


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("release")
    ap.add_argument("--official", default=None, help="main_experiment_pipeline.py of the benchmark")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--wall", type=float, default=30.0, help="wall seconds per gold run (check-gold's default)")
    ap.add_argument("--out", default=None, help="folder for per-record JSONL details")
    a = ap.parse_args(argv)
    recs, errors = read_records(Path(a.release).read_bytes(), a.release)
    recs = [r for r in recs if record_problem(r) is None]
    out: dict = {"n": len(recs), "read_errors": len(errors)}

    # extraction agreement
    found, agree, templates = 0, Counter(), 0
    for r in recs:
        code = (r.get("code") or {}).get("complete_function") or ""
        try:
            got = extract_source(code, repo="release", file_path=(r.get("github_info") or {}).get("file_path") or "x.py")
        except (SyntaxError, ValueError):
            continue
        short = (r.get("function_name") or "").split(".")[-1]
        mine = next((g for g in got if g["function_name"].split(".")[-1] == short), None)
        if mine is None:
            continue
        found += 1
        templates += any(f in mine["extraction"]["template_flags"] for f in ("placeholder_key_param", "template_comment"))
        h, ro, m, keys = gold_tuple(r)
        mh, mro, mm, mkeys = gold_tuple({**mine, "api_metadata": {**mine["api_metadata"], "params": []}})
        agree["host"] += host_matches(h, mh)
        agree["route"] += route_matches(ro, mro, templates_both_sides=True)
        agree["method"] += (m or "GET") == (mm or "GET")
        agree["param_keys"] += {k.lower() for k in keys} == {k.lower() for k in mkeys}
    out["extraction"] = {"found": found, "templates_flagged": templates,
                         **{k: round(v / found, 3) if found else None for k, v in agree.items()}}

    t0 = time.monotonic()
    # the gold's own files import real stacks (openai, fastapi, matplotlib):
    # 6.9-9.4 s of imports at load 20, over a generation's 10 s wall
    rows = list(check_gold(recs, n_jobs=a.jobs, limits=Limits(wall_s=a.wall)))
    wall = time.monotonic() - t0
    classes = Counter(r["class"] for r in rows)
    out["gold_self_execution"] = {
        "wall_s": round(wall, 1), "classes": dict(classes.most_common()), "hits": classes.get("hit", 0),
        # trustworthy: neither an annotation error nor a record whose code cannot
        # show its request (framework, dynamic, broken, helper, input, file, arguments)
        "trustworthy": classes.get("hit", 0) + classes.get("no_request", 0),
        "hits_among_trustworthy": classes.get("hit", 0),
        "stand_in_runs": sum(1 for r in rows if r["stand_ins"]),
    }
    by_id = {r["sample_id"]: r for r in rows}

    if a.official:
        pipeline = Path(a.official).read_text(encoding="utf-8")
        table, reasons = Counter(), Counter()
        details = []
        for r in recs:
            off = _official(pipeline, r)
            row = by_id[r["sample_id"]]
            q, o = row["class"] == "hit", bool(off.get("mock_pass"))
            cell = {(True, True): "both_1", (False, False): "both_0", (True, False): "qare_only",
                    (False, True): "official_only"}[(q, o)]
            table[cell] += 1
            if q != o:
                why = _official_reason(off, row, r)
                reasons[(cell, why)] += 1
                details.append({"sample_id": r["sample_id"], "cell": cell, "reason": why,
                                "qare": row["captured"], "official": off.get("captured_url")})
        groups = Counter()
        for (c, w), n in reasons.items():
            groups[(c, _reason_group(w))] += n
        out["official"] = {"table": dict(table), "reason_groups": [
            {"cell": c, "reason": w, "count": n} for (c, w), n in groups.most_common()], "reasons": [
            {"cell": c, "reason": w, "count": n} for (c, w), n in reasons.most_common()]}
        if a.out:
            Path(a.out).mkdir(parents=True, exist_ok=True)
            with open(Path(a.out) / "official_disagreements.jsonl", "w") as fh:
                fh.writelines(json.dumps(d) + "\n" for d in details)
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        with open(Path(a.out) / "check_gold.jsonl", "w") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
