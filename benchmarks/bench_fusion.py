"""Fusion speed: 5 runs of the 7M-line benchmark data (perturbed scores), rrf and combmnz+min-max.

    python benchmarks/bench_fusion.py [--run /tmp/bench-data/msmarco_like.run] [--runs 5]
        [--ranx-queries 1000]

Makes RUNS runs from the benchmark run (../shared/bench/gen_msmarco_like.py): seeded
normal noise on the scores, 10% of each run's rows dropped (documents partly disjoint),
written once as TREC files next to it (fusion_<i>.run) and read back as any run is.
Then times rankwise.fuse after reading, for rrf and for combmnz with min-max
normalisation (best of --repeat, with that call's CPU time over all threads and the
load average, since the machine may be shared). With --ranx-queries N, ranx's fuse (its second, warm
call) and rankwise's are timed in the same process on the first N queries of the same
runs, given as dicts, for the ratio.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def perturbed(run, seed: int):
    import rankwise as rw

    rng = np.random.default_rng(seed)
    keep = rng.random(len(run)) >= 0.1
    table = run.to_arrow().filter(keep)
    scores = table["score"].to_numpy() + rng.normal(0, 0.5, table.num_rows)
    return rw.Run.from_arrow(table["query_id"], table["doc_id"], scores, name=f"sys{seed}")


def best_of(repeat: int, action) -> float:
    return timed(repeat, action)[0]


def timed(repeat: int, action) -> tuple[float, float]:
    """The best wall time of *repeat* calls, and the CPU time of that call (all threads)."""
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", default="/tmp/bench-data/msmarco_like.run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranx-queries", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import os

    import rankwise as rw

    paths = [os.path.join(os.path.dirname(args.run), f"fusion_{seed}.run")
             for seed in range(args.runs)]
    if not all(os.path.exists(path) for path in paths):
        base = rw.read_run(args.run)
        for seed, path in enumerate(paths):
            perturbed(base, seed).to_trec(path)
    start = time.perf_counter()
    runs = [rw.read_run(path) for path in paths]
    print(f"read {args.runs} runs of {len(runs[0]):,} rows: {time.perf_counter() - start:.1f} s")
    base = runs[0]
    figures = {"rows_per_run": len(runs[0]), "runs": args.runs}
    for label, method, norm in (("rrf", "rrf", None), ("combmnz + min-max", "combmnz", "min-max")):
        load = os.getloadavg()[0]
        seconds, cpu = timed(args.repeat, lambda m=method, n=norm: rw.fuse(runs, m, norm=n))
        figures[label] = seconds
        figures[f"{label} cpu"] = cpu
        print(f"rankwise {label}: {seconds:.2f} s (best of {args.repeat}; CPU {cpu:.2f} s; "
              f"load average {load:.1f} before)")
    if args.ranx_queries:
        import ranx

        keep = set(base.query_ids[: args.ranx_queries])
        small = []
        for run in runs:
            d = {q: docs for q, docs in run.to_dict().items() if q in keep}
            small.append(d)
        ranx_runs = [ranx.Run(d, name=f"r{i}") for i, d in enumerate(small)]
        rows = sum(len(docs) for docs in small[0].values())
        for label, method, norm, rnorm in (("rrf", "rrf", None, None),
                                           ("combmnz + min-max", "combmnz", "min-max", "min-max")):
            ranx_method = "mnz" if method == "combmnz" else method
            ranx.fuse(ranx_runs, norm=rnorm, method=ranx_method)  # numba's first call compiles
            theirs = best_of(args.repeat, lambda n=rnorm, m=ranx_method: ranx.fuse(
                ranx_runs, norm=n, method=m))
            ours = best_of(args.repeat, lambda m=method, n=norm: rw.fuse(small, m, norm=n))
            figures[f"subset {label}"] = {"rows_per_run": rows, "ranx": theirs, "rankwise": ours}
            print(f"{args.ranx_queries} queries ({rows:,} rows per run), {label}: "
                  f"ranx {theirs:.2f} s, rankwise from dicts {ours:.2f} s, "
                  f"ratio {theirs / ours:.1f}x")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
