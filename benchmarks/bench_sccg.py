"""Executions per second of `metrics.sccg` virtual execution, with the
bubblewrap sandbox and without it (plain rlimited subprocess), and
extraction speed over the fixture repositories.

    python3 benchmarks/bench_sccg.py [N]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.sccg import Limits, execute_many, sandbox_status  # noqa: E402
from queries.sccg import extract_repos  # noqa: E402

GENERATION = '''
import requests

def get_forecast(city, days: int = 3):
    url = f"https://weatherapi-com.p.rapidapi.com/forecast/{city}"
    headers = {"X-RapidAPI-Key": "YOUR_KEY", "X-RapidAPI-Host": "weatherapi-com.p.rapidapi.com"}
    try:
        r = requests.get(url, headers=headers, params={"days": days}, timeout=10)
        r.raise_for_status()
        return r.json()
    except requests.exceptions.RequestException:
        return None
'''


def bench(n: int, jobs: int, sandbox: str) -> float:
    t0 = time.perf_counter()
    results = list(execute_many([(GENERATION, "get_forecast")] * n, n_jobs=jobs, limits=Limits(), sandbox=sandbox))
    dt = time.perf_counter() - t0
    assert all(r.status == "ok" and r.n_requests == 1 for r in results), {r.status for r in results}
    return n / dt


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    ok, why = sandbox_status()
    print(f"bubblewrap usable: {ok} {why}".rstrip())
    modes = (["auto"] if ok else []) + ["none"]
    for mode in modes:
        label = "bwrap" if mode == "auto" else "no sandbox (subprocess)"
        for jobs in (1, 2):
            print(f"{label:24s} jobs={jobs}: {bench(n, jobs, mode):6.2f} executions/s  (n={n})")
    repos = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "sccg" / "repos").iterdir())
    t0 = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        res = extract_repos(repos)
    dt = time.perf_counter() - t0
    print(f"extraction: {rounds * res.stats['files'] / dt:6.1f} files/s over {res.stats['files']} fixture files")


if __name__ == "__main__":
    main()
