"""Speed of `metrics.evaluate` and the BM25 baseline on a synthetic dataset
of Q-ARE's size (5,698 samples, 1,822 APIs). Prints figures; asserts nothing.

    python3 benchmarks/bench_metrics.py [--samples 5698] [--apis 1822]
"""

from __future__ import annotations

import argparse
import random
import time

from metrics import Dataset, evaluate, run_baseline
from records.dataset import ApiRecord, SampleRecord, TargetRecord

WORDS = ("read write file string json parse send client request cache user token date format list map "
         "check empty blank log info error close open stream buffer encode decode query result").split()


def synthetic(n_samples: int, n_apis: int, seed: int = 0) -> Dataset:
    rng = random.Random(seed)
    apis = []
    for i in range(n_apis):
        cls = f"org.lib{i % 40}.Type{i % 300}"
        name = f"{cls}.m{i}"
        apis.append(ApiRecord(api=name, signature=f"{name}(java.lang.String)", class_=cls, library=f"g:a{i % 40}:1",
                              description=" ".join(rng.choice(WORDS) for _ in range(12))))
    samples = []
    for i in range(n_samples):
        ts = []
        for a in rng.sample(apis, rng.randint(2, 5)):
            depth = rng.choice((2, 2, 2, 3, 3, 4, 5, 6, 7))
            loc = rng.randint(3, 300)
            ts.append(TargetRecord(api=a.api, signature=a.signature, class_=a.class_, library=a.library, depth=depth,
                                  chain=(), chain_loc=loc, density=1 / loc, resolution="exact"))
        loc = sum(t.chain_loc for t in ts)
        samples.append(SampleRecord(
            id=f"s{i}", project=f"p{i % 115}", commit=None, file="F.java", method=f"p.C.m{i}()", start_line=1,
            end_line=5, loc=5, query=" ".join(rng.choice(WORDS) for _ in range(10)), comment="", lang="en",
            n_direct_apis=1, targets=tuple(ts), depth_max=max(t.depth for t in ts), depth_min=min(t.depth for t in ts),
            density=1 / loc))
    return Dataset("synthetic", tuple(samples), tuple(apis))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5698)
    ap.add_argument("--apis", type=int, default=1822)
    args = ap.parse_args()
    ds = synthetic(args.samples, args.apis)
    t = time.perf_counter()
    preds = run_baseline(ds, "bm25", top=100)
    print(f"bm25 baseline: {len(ds.samples)} queries x {len(ds.apis)} APIs: {time.perf_counter() - t:.2f} s")
    for by in ((), ("depth", "density"), ("depth", "density", "target_depth", "library")):
        t = time.perf_counter()
        evaluate(preds, ds, by=by)
        print(f"evaluate by {','.join(by) or '-'} (1000 bootstrap resamples each): {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
