"""Recommender comparison speed (issue 37): MODELS models x USERS users x top-TOP, paired tests.

    python benchmarks/bench_recommender_comparison.py [--users 1000000] [--models 5]
        [--items 100000] [--top 100] [--test t-test] [--n-resamples 10000]
        [--report out.html [--report-only]] [--figures 3]

The data of benchmarks/bench_recommenders.py (lists as 2-D int32 arrays of
item ids, 5 held-out and 20 excluded training items per user), one matrix
per model (each a different draw). Times ``rw.compare_recommendations(test,
models, ["ndcg@10", "recall@50", "coverage", "gini", "novelty"],
baseline="m0", exclude=train, k=TOP, catalogue=ITEMS, test=TEST)`` end to
end. Issue 37's targets at 1M users and 5 models: 30 s with the default
test, 120 s with a 10,000-permutation randomization test, 4 GB.

``--report PATH`` then times ``rw.report_recommendations`` with the same
arguments (the comparison again, the long tail and measure@k curves, the
page written to PATH) and prints what the report costs beyond the
comparison: its time minus the comparison's (target at 1M users: the
report under 10 s). ``--report-only`` skips the comparison alone. Max RSS
is the process's peak. ``--figures N`` runs the comparison inside
``page_data.keeping()`` and times the page's figures (long tail and curves)
N times each way, alternately: from what the comparison kept, and from the
lists read again (the path before they were kept). To time another checkout:
``PYTHONPATH=/path/to/src python benchmarks/bench_recommender_comparison.py ...``.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
from bench_recommenders import _cpu, lists


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--top", type=int, default=100)
    parser.add_argument("--test", default="t-test")
    parser.add_argument("--n-resamples", type=int, default=10_000)
    parser.add_argument("--report", metavar="PATH", help="time report_recommendations too")
    parser.add_argument("--report-only", action="store_true",
                        help="with --report: do not time the comparison alone")
    parser.add_argument("--figures", type=int, metavar="N", default=0,
                        help="time the page's figures kept and read again, N rounds")
    args = parser.parse_args()

    import rankwise as rw

    rng = np.random.default_rng(0)
    models = {f"m{m}": lists(rng, args.users, args.items, args.top) for m in range(args.models)}
    test = {"user": np.repeat(np.arange(args.users), 5),
            "item": rng.integers(0, args.items, 5 * args.users)}
    train = {"user": np.repeat(np.arange(args.users), 20),
             "item": rng.integers(0, args.items, 20 * args.users)}
    measures = ["ndcg@10", "recall@50", "coverage", "gini", "novelty"]
    arguments = {"baseline": "m0", "exclude": train, "k": args.top, "catalogue": args.items,
                 "test": args.test, "n_resamples": args.n_resamples, "seed": 0}
    said = (f"{args.models} models x {args.users:,} users x top-{args.top}, "
            f"{', '.join(measures)}, test={args.test}")
    # imports and first calls out of the timings: the same steps on 100 users
    small = {name: m[:100] for name, m in models.items()}
    rw.report_recommendations({"user": test["user"][:500], "item": test["item"][:500]}, small,
                              measures, **{**arguments, "exclude": {
                                  "user": train["user"][:2000], "item": train["item"][:2000]}})
    compared = None
    if not (args.report and args.report_only):
        start, cpu = time.perf_counter(), _cpu()
        result = rw.compare_recommendations(test, models, measures, **arguments)
        elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
        compared = (elapsed, cpu)
        print(f"{said}: {elapsed:.2f} s wall, "
              f"{cpu[0]:.2f} s user + {cpu[1]:.2f} s system CPU")
        row = result.row("ndcg@10", "m1")
        print(f"  ndcg@10 m1 vs m0: delta {row.delta:+.5f}, p {row.p_value:.4g}")
        del result
    if args.report:
        start, cpu = time.perf_counter(), _cpu()
        page = rw.report_recommendations(test, models, measures, args.report, **arguments)
        elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
        print(f"report_recommendations ({len(page):,} characters): {elapsed:.2f} s wall, "
              f"{cpu[0]:.2f} s user + {cpu[1]:.2f} s system CPU")
        if compared is not None:
            print(f"  beyond the comparison: {elapsed - compared[0]:.2f} s wall, "
                  f"{cpu.sum() - compared[1].sum():.2f} s CPU")
    if args.figures:
        _figures(rw, test, train, models, measures, arguments, args.figures)
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # ru_maxrss is in KiB
    print(f"max RSS {peak / 2**30:.2f} GiB ({peak / 1e9:.2f} GB)")

def _figures(rw: Any, test: Any, train: Any, models: dict[str, Any], measures: list[str],
             arguments: dict[str, Any], rounds: int) -> None:
    """The page's figures from the kept counts and from the lists read again, alternately."""
    from rankwise.recommenders.page_data import keeping, page_figures

    with keeping() as kept:
        result = rw.compare_recommendations(test, models, measures, **arguments)
    print(f"  kept: {sum(k.nbytes for k in kept.kept) / len(kept.kept):,.0f} bytes per model")
    for n in range(rounds):
        for way, given in (("kept", kept), ("read again", None)):
            start, cpu = time.perf_counter(), _cpu()
            page_figures(result, test, models, exclude=train, kept=given)
            elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
            print(f"  figures, {way} (round {n + 1}): {elapsed:.2f} s wall, "
                  f"{cpu[0]:.2f} s user + {cpu[1]:.2f} s system CPU, "
                  f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
