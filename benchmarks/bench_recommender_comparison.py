"""Recommender comparison speed (issue 37): MODELS models x USERS users x top-TOP, paired tests.

    python benchmarks/bench_recommender_comparison.py [--users 1000000] [--models 5]
        [--items 100000] [--top 100] [--test t-test] [--n-resamples 10000]

The data of benchmarks/bench_recommenders.py (lists as 2-D int32 arrays of
item ids, 5 held-out and 20 excluded training items per user), one matrix
per model (each a different draw). Times ``rw.compare_recommendations(test,
models, ["ndcg@10", "recall@50", "coverage", "gini", "novelty"],
baseline="m0", exclude=train, k=TOP, catalogue=ITEMS, test=TEST)`` end to
end. Issue 37's targets at 1M users and 5 models: 30 s with the default
test, 120 s with a 10,000-permutation randomization test, 4 GB.
"""

from __future__ import annotations

import argparse
import time

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
    args = parser.parse_args()

    import rankwise as rw

    rng = np.random.default_rng(0)
    models = {f"m{m}": lists(rng, args.users, args.items, args.top) for m in range(args.models)}
    test = {"user": np.repeat(np.arange(args.users), 5),
            "item": rng.integers(0, args.items, 5 * args.users)}
    train = {"user": np.repeat(np.arange(args.users), 20),
             "item": rng.integers(0, args.items, 20 * args.users)}
    measures = ["ndcg@10", "recall@50", "coverage", "gini", "novelty"]
    start, cpu = time.perf_counter(), _cpu()
    result = rw.compare_recommendations(test, models, measures, baseline="m0", exclude=train,
                                        k=args.top, catalogue=args.items, test=args.test,
                                        n_resamples=args.n_resamples, seed=0)
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    print(f"{args.models} models x {args.users:,} users x top-{args.top}, "
          f"{', '.join(measures)}, test={args.test}: {elapsed:.2f} s wall, "
          f"{cpu[0]:.2f} s user + {cpu[1]:.2f} s system CPU")
    row = result.row("ndcg@10", "m1")
    print(f"  ndcg@10 m1 vs m0: delta {row.delta:+.5f}, p {row.p_value:.4g}")


if __name__ == "__main__":
    main()
