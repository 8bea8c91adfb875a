"""Recommender evaluation speed (issue 20): top-100 lists as a 2-D array, and ILD.

    python benchmarks/bench_recommenders.py [--users 1000000] [--items 100000]
        [--top 100] [--ild-users 100000] [--dim 64]

Synthetic, seeded data: USERS lists of TOP distinct items drawn by popularity
(Zipf-like) from ITEMS, given as a 2-D int32 array of item ids (the usual
output of a model's top-k); 5 held-out items per user; 20 training items per
user (excluded from the lists before the cut). Times
``rw.evaluate_recommendations(test, matrix, ["ndcg@10", "recall@50",
"coverage", "gini", "novelty"], exclude=train)`` end to end (coding the ids,
excluding, cutting, both engines), and ``ild`` with DIM-dimensional
embeddings for ILD_USERS users' top-10 lists. Issue 20's targets: under 10 s
and under 30 s on this machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def lists(rng: np.random.Generator, users: int, items: int, top: int) -> np.ndarray:
    """USERS x TOP distinct items per row: a popular first item (Zipf-like), then a stride.

    The stride 104729 is prime to ITEMS, so every row holds TOP distinct items.
    """
    weights = 1 / np.arange(1, items + 1) ** 0.8
    first = np.searchsorted(np.cumsum(weights) / weights.sum(), rng.random(users))
    stride = (np.arange(top, dtype=np.int64) * 104729)[None, :]
    return ((first[:, None] + stride) % items).astype(np.int32)


def _cpu() -> np.ndarray:
    """User and system CPU seconds of this process so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return np.array([usage.ru_utime, usage.ru_stime])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--top", type=int, default=100)
    parser.add_argument("--ild-users", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=64)
    args = parser.parse_args()

    import rankwise as rw

    rng = np.random.default_rng(0)
    matrix = lists(rng, args.users, args.items, args.top)
    test = {"user": np.repeat(np.arange(args.users), 5),
            "item": rng.integers(0, args.items, 5 * args.users)}
    train = {"user": np.repeat(np.arange(args.users), 20),
             "item": rng.integers(0, args.items, 20 * args.users)}
    measures = ["ndcg@10", "recall@50", "coverage", "gini", "novelty"]
    rw.evaluate_recommendations({"user": [0], "item": [0]},
                                {0: [0, 1]}, measures, exclude={"user": [0], "item": [1]},
                                catalogue=2)  # imports (pyarrow, the engine) outside the timing
    start, cpu = time.perf_counter(), _cpu()
    r = rw.evaluate_recommendations(test, matrix, measures, exclude=train, k=args.top,
                                    catalogue=args.items)
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    print(f"{args.users:,} users x top-{args.top} of {args.items:,} items, "
          f"{', '.join(measures)} with exclude: {elapsed:.2f} s wall, "
          f"{cpu[0]:.2f} s user + {cpu[1]:.2f} s system CPU")
    print("  " + ", ".join(f"{k}={v:.4f}" for k, v in r.mean.items()))

    n = args.ild_users
    embeddings = rng.normal(size=(args.items, args.dim)).astype(np.float64)
    features = (np.arange(args.items), embeddings)
    start = time.perf_counter()
    r = rw.evaluate_recommendations(None, matrix[:n, :10], ["ild"], features=features)
    elapsed = time.perf_counter() - start
    print(f"ILD, {n:,} users x top-10, {args.dim}-d embeddings: {elapsed:.2f} s "
          f"(ild={r.mean['ild']:.4f})")


if __name__ == "__main__":
    main()
