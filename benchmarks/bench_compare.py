#!/usr/bin/env python3
"""Benchmark ``rankwise.compare``: paired tests at MS MARCO scale.

Workload of issue 4: 10,000 resamples x 7,000 queries x 3 measures x 5
systems (a baseline and four candidates, so 4 pairs x 3 measures = 12
randomization tests of 10,000 sign flips each; with ``--all-pairs`` also the
10 pairs of the no-baseline mode).

1. **stats only**: synthetic per-query values (IR-like: NDCG-like values with
   a mass at 0, P@10 in steps of 0.1, AP-like values) wrapped in ``Results``
   and compared with ``compare_results``: the cost of the tests themselves,
   for every test.
2. **end to end**: synthetic judgments and five runs of 7,000 queries x 100
   documents held in memory, ``compare(qrels, runs, ["ndcg@10", "map", "P@10"])``:
   evaluation of each run plus the tests.
3. **peers** (when installed): ranx's numba ``fisher_randomization_test`` and
   ``scipy.stats.permutation_test`` on the same per-query values, 10,000
   resamples per pair and measure; the ratio is what to quote.

Each timing is the best of ``--repeat`` runs (after one warm-up for the
peers that compile). Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_compare.py

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import rankwise as rw  # noqa: E402
from rankwise.comparison import compare, compare_results  # noqa: E402
from rankwise.data import Qrels, Run  # noqa: E402
from rankwise.measures import parse  # noqa: E402
from rankwise.results import Results  # noqa: E402
from rankwise.stats import randomization_test  # noqa: E402

MEASURES = ["ndcg@10", "map", "P@10"]
SYSTEMS = ["baseline", "sys_a", "sys_b", "sys_c", "sys_d"]


def best_of(repeat: int, function: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def synthetic_results(n_queries: int, seed: int = 0) -> dict[str, Results]:
    """Per-query values of five systems, correlated through a per-query difficulty."""
    rng = np.random.default_rng(seed)
    query_ids = sorted(f"q{i:06d}" for i in range(n_queries))
    difficulty = rng.beta(2, 3, size=n_queries)
    out = {}
    for k, name in enumerate(SYSTEMS):
        skill = np.clip(difficulty + 0.01 * k + rng.normal(0, 0.15, n_queries), 0, 1)
        ndcg = np.where(rng.random(n_queries) < 0.25, 0.0, skill)
        ap = np.clip(skill**1.5 + rng.normal(0, 0.05, n_queries), 0, 1)
        p10 = rng.binomial(10, np.clip(skill * 0.6, 0, 1)) / 10
        values = {parse("ndcg@10"): ndcg, parse("map"): ap, parse("P@10"): p10}
        out[name] = Results(query_ids, values, run_name=name)
    return out


def synthetic_collection(n_queries: int, depth: int, seed: int = 0) -> tuple[Qrels, dict[str, Run]]:
    """Judgments (about 10 judged, 1-3 relevant per query) and five runs of *depth* documents."""
    rng = np.random.default_rng(seed)
    judged = 10
    queries = np.repeat(np.arange(n_queries), judged).astype(str)
    docs = np.tile(np.arange(judged), n_queries).astype(str)
    grades = rng.integers(1, 4, size=len(queries)) * (rng.random(len(queries)) < 0.2)
    qrels = Qrels.from_arrow(queries, docs, grades)
    run_queries = np.repeat(np.arange(n_queries), depth).astype(str)
    position = np.tile(np.arange(depth), n_queries)
    run_docs = position.astype(str)
    runs = {}
    for k, name in enumerate(SYSTEMS):
        boost = (0.3 + 0.05 * k) * (position < judged) * rng.random(len(position))
        runs[name] = Run.from_arrow(run_queries, run_docs, rng.random(len(position)) + boost,
                                    name=name)
    return qrels, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=7_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100, help="documents per query (end to end)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--all-pairs", action="store_true", help="also time the no-baseline mode")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()

    print(f"rankwise compare benchmark: {args.resamples:,} resamples x {args.queries:,} queries "
          f"x {len(MEASURES)} measures x {len(SYSTEMS)} systems")
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs, {platform.machine()}")
    results = synthetic_results(args.queries)
    pairs = len(SYSTEMS) - 1

    print("\n1. stats only (compare_results on per-query values; baseline + 4 candidates)")
    timings = {}
    for test in ("randomization", "t-test", "wilcoxon", "sign", "bootstrap"):
        seconds, comparison = best_of(args.repeat, lambda test=test: compare_results(
            results, baseline="baseline", test=test, n_resamples=args.resamples, seed=1))
        timings[test] = seconds
        per_test = seconds / (pairs * len(MEASURES))
        print(f"   {test:<14} {seconds:8.3f} s   ({per_test * 1e3:7.1f} ms per pair x measure)")
    if args.all_pairs:
        seconds, _ = best_of(args.repeat, lambda: compare_results(
            results, n_resamples=args.resamples, seed=1))
        print(f"   randomization, all 10 pairs  {seconds:8.3f} s")
    print("   ci='bootstrap' (randomization test + percentile intervals): ", end="")
    seconds, _ = best_of(1, lambda: compare_results(
        results, baseline="baseline", n_resamples=args.resamples, seed=1, ci="bootstrap"))
    print(f"{seconds:.3f} s")

    print(f"\n2. end to end (compare on {len(SYSTEMS)} in-memory runs of {args.queries:,} queries "
          f"x {args.depth} documents)")
    qrels, runs = synthetic_collection(args.queries, args.depth)
    seconds_eval, _ = best_of(args.repeat, lambda: [rw.evaluate(qrels, run, MEASURES)
                                                    for run in runs.values()])
    seconds_all, comparison = best_of(args.repeat, lambda: compare(
        qrels, runs, MEASURES, baseline="baseline", n_resamples=args.resamples, seed=1))
    print(f"   compare(...) total           {seconds_all:8.3f} s")
    print(f"   of which evaluating 5 runs   {seconds_eval:8.3f} s")
    print(comparison)

    if not args.no_peers:
        print("\n3. peers on the same per-query values (one pair x one measure, "
              f"{args.resamples:,} resamples)")
        x = results["sys_a"]["ndcg@10"]
        y = results["baseline"]["ndcg@10"]
        ours, _ = best_of(args.repeat, lambda: randomization_test(
            x, y, n_resamples=args.resamples, seed=1))
        print(f"   rankwise randomization_test  {ours * 1e3:8.1f} ms")
        try:
            from ranx.statistical_tests import fisher_randomization_test
        except ImportError:
            print("   ranx: not installed")
        else:
            fisher_randomization_test(x, y, 100, 0.05, 42)  # numba compile / cache load
            theirs, _ = best_of(args.repeat, lambda: fisher_randomization_test(
                x, y, args.resamples, 0.05, 42))
            print(f"   ranx fisher_randomization_test {theirs * 1e3:6.1f} ms "
                  f"({theirs / ours:.1f}x rankwise)")
        try:
            import scipy.stats
        except ImportError:
            print("   scipy: not installed")
        else:
            def scipy_permutation() -> Any:
                return scipy.stats.permutation_test(
                    (x - y,), np.mean, permutation_type="samples", vectorized=True,
                    n_resamples=args.resamples, random_state=1, axis=-1)

            theirs, _ = best_of(1, scipy_permutation)
            print(f"   scipy.stats.permutation_test {theirs * 1e3:8.1f} ms "
                  f"({theirs / ours:.1f}x rankwise)")

    print(f"\nfigure: randomization test, {args.resamples:,} resamples x {args.queries:,} queries "
          f"x {len(MEASURES)} measures x {len(SYSTEMS)} systems: "
          f"{timings['randomization']:.2f} s (stats only), {seconds_all:.2f} s end to end")


if __name__ == "__main__":
    main()
