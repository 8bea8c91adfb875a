#!/usr/bin/env python3
"""rankwise on Spark against Spark MLlib's own ``RankingEvaluator``, same session, same data.

Issue 36's target: rankwise computing six measures (``dialect=spark``: the
numbers of MLlib's ``RankingEvaluator``) against MLlib computing one, on the
7M-row MS MARCO-like run of ``bench_spark.py`` (4 Parquet files in query
order) in one ``local[2]`` session:

- **rankwise**: ``rankwise.spark.evaluate(qrels_df, run_df, six measures,
  missing="zero")`` (MLlib's mean is over the judged queries);
- **MLlib, end to end**: what a user of MLlib has to run from the same two
  DataFrames: the (prediction, label) arrays built in Spark
  (``tests/spark_checks.mllib_frame``: a ``groupBy`` of the run, each query's
  documents sorted by score, ties in input order, and of the judgments), then
  ``RankingEvaluator(metricName="ndcgAtK", k=10).evaluate``;
- **MLlib, arrays cached**: the same frame built once and cached (its build
  timed apart), then each of the six metrics evaluated on it (the part of
  MLlib's cost that is its evaluation alone).

**Both sides warm.** Before the timed rounds each side runs once untimed
end to end (rankwise's six measures, MLlib's ``ndcgAtK`` from the two
DataFrames): the jar is loaded and the JIT has compiled both sides' code
(without MLlib's warm-up its first round paid for compiling its own code,
and MLlib was about 1.5x faster from its second round on). Then
``--repeat`` rounds (3 by default), the order of rankwise and MLlib swapped
from one round to the next; the summary gives each side's **median** wall
and CPU seconds and the ratio of the medians.

Every mean is compared with rankwise's (1e-12); rankwise's per-query values
are compared with the numpy engine's (``pyarrow.parquet.read_table`` +
``rankwise.evaluate``, timed too). Wall and CPU seconds (this process and the
JVM's tree). The session's start is timed apart (excluded).

Run from the repository root (on a shared machine, ``nice -n 5``)::

    PYTHONPATH=src python benchmarks/bench_spark_mllib.py --repeat 3

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import pyarrow.parquet as pq  # noqa: E402
from bench_spark import (  # noqa: E402
    DEFAULT_DATA,
    DEFAULT_GENERATOR,
    bench_session,
    ensure_parquet,
    ensure_text,
    tree_cpu_seconds,
)
from bench_spark_layouts import per_query_equal  # noqa: E402
from spark_checks import MLLIB_METRICS, mllib_frame, mllib_value  # noqa: E402

import rankwise as rw  # noqa: E402

MEASURES = list(MLLIB_METRICS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=DEFAULT_DATA)
    ap.add_argument("--generator", default=DEFAULT_GENERATOR)
    ap.add_argument("--cache-dir", default=os.path.join(os.path.expanduser("~"), ".cache",
                                                        "rankwise", "bench-spark"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds (medians reported)")
    args = ap.parse_args()

    qrels_text, run_text = ensure_text(args.data_dir, args.generator)
    qrels_path, run_path = ensure_parquet(qrels_text, run_text, args.cache_dir, 4)

    from rankwise.spark import evaluate

    start = time.perf_counter()
    spark = bench_session(args.master, args.driver_memory, "rankwise-bench-mllib")
    print(f"spark session start: {time.perf_counter() - start:.1f} s (excluded)", flush=True)
    jvm = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())

    def timed(label: str, work: Any) -> tuple[Any, float, float]:
        own = os.times()
        before, began = own.user + own.system + tree_cpu_seconds(jvm), time.perf_counter()
        out = work()
        wall = time.perf_counter() - began
        own = os.times()
        cpu = own.user + own.system + tree_cpu_seconds(jvm) - before
        print(f"  {label:<44} {wall:7.2f} s wall {cpu:7.2f} s CPU "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
        return out, wall, cpu

    qrels_df, run_df = spark.read.parquet(qrels_path), spark.read.parquet(run_path)
    print(f"run {run_df.count():,} rows, judgments {qrels_df.count():,}; warm-up (jar, JIT):")

    def rankwise_six() -> Any:
        return evaluate(qrels_df, run_df, MEASURES, missing="zero")

    def mllib_one() -> float:
        return mllib_value(mllib_frame(qrels_df, run_df), MEASURES[0])

    timed("rankwise, six measures (warm-up)", rankwise_six)
    timed("MLlib end to end, ndcgAtK (warm-up)", mllib_one)
    numpy_results = None
    times: dict[str, list[tuple[float, float]]] = {"rankwise": [], "MLlib": []}
    for round_ in range(args.repeat):
        print(f"round {round_ + 1}")
        numpy_results, _, _ = timed("numpy engine, six measures (read included)", lambda: (
            rw.evaluate(pq.read_table(qrels_path), pq.read_table(run_path), MEASURES,
                        missing="zero")))
        sides = ["rankwise", "MLlib"] if round_ % 2 == 0 else ["MLlib", "rankwise"]
        for side in sides:
            if side == "rankwise":
                got, wall, cpu = timed("rankwise on Spark, six measures", rankwise_six)
            else:
                end_to_end, wall, cpu = timed("MLlib end to end, ndcgAtK k=10 (one)", mllib_one)
            times[side].append((wall, cpu))
    medians = {side: (statistics.median(w for w, _ in rounds),
                      statistics.median(c for _, c in rounds)) for side, rounds in times.items()}
    for side, (wall, cpu) in medians.items():
        print(f"median of {args.repeat}: {side:<9} {wall:7.2f} s wall {cpu:7.2f} s CPU")
    print(f"MLlib / rankwise (medians): {medians['MLlib'][0] / medians['rankwise'][0]:.2f}x wall, "
          f"{medians['MLlib'][1] / medians['rankwise'][1]:.2f}x CPU")
    frame = mllib_frame(qrels_df, run_df).cache()
    timed("MLlib arrays built and cached (count)", frame.count)
    mllib = {}
    for name in MEASURES:
        mllib[name], _, _ = timed(f"MLlib on cached arrays, {name}",
                                  lambda name=name: mllib_value(frame, name))
    print(f"\nplan: {got.plan}")
    print(f"rankwise per query equal to numpy's (1e-12): "
          f"{'yes' if per_query_equal(got, numpy_results) else 'NO'}")
    print(f"{'measure':<28} {'rankwise':>20} {'MLlib':>20} {'difference':>10}")
    for name in MEASURES:
        print(f"{name:<28} {got.mean[name]:20.17f} {mllib[name]:20.17f} "
              f"{abs(got.mean[name] - mllib[name]):10.1e}")
    print(f"MLlib end to end ndcgAtK: {end_to_end:.17f}")
    print(f"\n{args.master}, {os.cpu_count()} cores, pyspark {spark.version}; "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
