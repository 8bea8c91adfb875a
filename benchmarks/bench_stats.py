#!/usr/bin/env python3
"""Benchmark the many-system statistics: randomised Tukey HSD, Tukey HSD, ANOVA, design.

The target of issue 18: randomised Tukey HSD with 10,000 trials over 50
systems x 250 topics in under 10 s on the development machine. The matrix is
synthetic (beta-distributed topic difficulty plus small system effects and
noise, clipped to [0, 1], like per-topic AP). Also timed, on the same matrix:
Tukey's HSD (1,225 p-values from the studentized range), the two-way ANOVA,
and, for reference, scipy's ``studentized_range.sf`` on the same 1,225 q
values (the slow way rankwise avoids). A second run with another chunk size
checks that the p-values are the same bits.

Each timing is the best of ``--repeat`` runs. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_stats.py

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from rankwise.stats import randomized_tukey_hsd, tukey_hsd, two_way_anova  # noqa: E402


def best_of(repeat: int, function: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def matrix(systems: int, topics: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 5, size=topics)
    effects = np.linspace(0, 0.1, systems)
    noise = rng.normal(0, 0.08, size=(systems, topics))
    return np.clip(difficulty[None, :] + effects[:, None] + noise, 0, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scipy", action="store_true",
                        help="also time scipy.stats.studentized_range.sf "
                             "(about 20 s at 50 systems)")
    args = parser.parse_args()
    x = matrix(args.systems, args.topics, args.seed)
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} cpus, {platform.machine()}")
    print(f"{args.systems} systems x {args.topics} topics, {args.trials:,} trials, "
          f"best of {args.repeat}")
    rows = []
    seconds, randomized = best_of(args.repeat, lambda: randomized_tukey_hsd(
        x, n_resamples=args.trials, seed=args.seed))
    rows.append(("randomised Tukey HSD", seconds, "target < 10 s"))
    again = randomized_tukey_hsd(x, n_resamples=args.trials, seed=args.seed,
                                 chunk_size=1_000_000)
    same = np.array_equal(again.p_values, randomized.p_values)
    seconds, tukey = best_of(args.repeat, lambda: tukey_hsd(x))
    rows.append(("Tukey HSD (ANOVA residual)", seconds, ""))
    seconds, _ = best_of(args.repeat, lambda: two_way_anova(x))
    rows.append(("two-way ANOVA", seconds, ""))
    if args.scipy:
        from scipy import stats

        upper = np.triu_indices(args.systems, 1)
        q = tukey.statistic[upper]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, reference = best_of(1, lambda: stats.studentized_range.sf(
                q, args.systems, tukey.anova.df_residual))
        rows.append(("scipy studentized_range.sf, same q", seconds,
                     f"max |diff| {np.abs(reference - tukey.p_values[upper]).max():.1e}"))
    width = max(len(name) for name, _, _ in rows)
    for name, seconds, note in rows:
        print(f"{name:<{width}}  {seconds:8.3f} s  {note}")
    print(f"same p-values with another chunk size: {same}")
    significant = int((randomized.p_values[np.triu_indices(args.systems, 1)] <= 0.05).sum())
    print(f"pairs significant at 0.05: randomised {significant} / "
          f"{args.systems * (args.systems - 1) // 2}, Tukey "
          f"{int((tukey.p_values[np.triu_indices(args.systems, 1)] <= 0.05).sum())}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
