"""Speed of the training-loop hooks: one call on 100,000 rows in 10,000 query groups.

The target (issue 17): under 20 ms per call, so that a rankwise measure can
be evaluated at every boosting round. Run:

    python benchmarks/bench_integrations.py [--rows 100000] [--groups 10000] [--repeat 30]

It times ``rankwise.integrations.evaluate_groups`` (what every hook calls, with
the hook's ``GroupCache``)
for a few measure lists, and the LightGBM ``feval`` and XGBoost
``custom_metric`` objects when those libraries are installed, and prints the
median and the best of the repeats (wall and CPU time). The query structure
of the data (groups, labels) is prepared by the first call and reused by the
others, as in a training loop's rounds; the preparation's own time is printed
first. Nothing is asserted: speed targets are not unit tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np


def _data(rows: int, groups: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(rows - groups, np.full(groups, 1.0 / groups)) + 1
    labels = rng.choice([0, 0, 0, 1, 1, 2, 3, 4], size=rows).astype(np.float64)
    predictions = rng.normal(size=rows) + 0.3 * labels
    return labels, predictions, sizes


def _time(call: Callable[[], object], repeat: int) -> tuple[float, float, float, float]:
    """Median and best wall time, and median and best CPU time of this process, in ms.

    The first call (not timed) parses the measures and prepares the query
    structure of the data, as a hook's first round does; the others are the
    later rounds.
    """
    call()
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return (statistics.median(times) * 1e3, min(times) * 1e3, statistics.median(cpu) * 1e3,
            min(cpu) * 1e3)


def _line(name: str, timing: tuple[float, float, float, float]) -> str:
    median, best, cpu, best_cpu = timing
    return (f"  {name:50s} {median:6.1f} ms  (best {best:.1f}; cpu median {cpu:.1f}, "
            f"best {best_cpu:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    from rankwise.integrations import evaluate_groups
    from rankwise.integrations._arrays import GroupCache

    labels, predictions, sizes = _data(args.rows, args.groups)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.rows} rows in {args.groups} query groups; median and best wall time of "
          f"{args.repeat} calls, median and best CPU time (load average {load:.1f}, "
          f"{os.cpu_count()} cores)")
    from rankwise.ranking.arrays import GroupedRows

    start = time.process_time()
    GroupedRows(labels, sizes)
    print(f"  preparing the query structure (once per data set): "
          f"{(time.process_time() - start) * 1e3:.1f} ms cpu")
    cases = {
        "ndcg@10": ["ndcg@10"],
        "ndcg@10, map": ["ndcg@10", "map"],
        "ndcg@10(dialect=lightgbm)": ["ndcg@10(dialect=lightgbm)"],
        "ndcg@10, map (dialect=lightgbm)": ["ndcg@10(dialect=lightgbm)",
                                             "map@10(dialect=lightgbm)"],
        "ndcg@10(dialect=xgboost)": ["ndcg@10(dialect=xgboost)"],
        "mrr@10, P@10, recall@10": ["mrr@10", "P@10", "recall@10"],
    }
    for name, measures in cases.items():
        cache = GroupCache()  # as every hook holds one
        timing = _time(
            lambda m=measures, c=cache: evaluate_groups(labels, predictions, sizes, m, cache=c),
            args.repeat,
        )
        print(_line(f"evaluate_groups {name}", timing))
    try:
        import lightgbm as lgb

        from rankwise.integrations.lightgbm import feval
    except ImportError:
        print("  (LightGBM not installed)")
    else:
        data = lgb.Dataset(np.zeros((args.rows, 1)), label=labels, group=sizes,
                           params={"verbose": -1}).construct()
        metric = feval(["ndcg@10(dialect=lightgbm)", "map@10(dialect=lightgbm)"])
        print(_line("lightgbm feval ndcg@10, map@10 (dialect=lightgbm)",
                    _time(lambda: metric(predictions, data), args.repeat)))
    try:
        import xgboost as xgb

        from rankwise.integrations.xgboost import custom_metric
    except ImportError:
        print("  (XGBoost not installed)")
    else:
        qid = np.repeat(np.arange(args.groups), sizes)
        dmatrix = xgb.DMatrix(np.zeros((args.rows, 1)), label=labels, qid=qid)
        metric_x = custom_metric(["ndcg@10(dialect=xgboost)"])
        print(_line("xgboost custom_metric ndcg@10(dialect=xgboost)",
                    _time(lambda: metric_x(predictions.astype(np.float32), dmatrix),
                          args.repeat)))


if __name__ == "__main__":
    main()
