#!/usr/bin/env python3
"""Driver memory on skew: one query of N rows across 64 partitions vs N/100k queries of 100k rows.

Issue 36's target: the driver's peak memory for a single query of 10M rows
spread over 64 partitions within 1.2x that of a run of 100k-row queries of
the same total size. Each case runs in a fresh process (``--case`` runs one;
without it the script runs itself once per case), so each peak is its own:

- the run is made in Spark (``spark.range(N, numPartitions=64)``: query
  ``q0`` for every row, or ``q<row // 100000>``; document id the row number;
  score ``rand(7)``), the judgments too (every ``rows per query / 100``-th
  document relevant: 100 a query): no row passes through the driver's Python
  to make them;
- measured around ``rankwise.spark.evaluate`` (``strategy="auto"``, four
  measures): the driver Python process's peak RSS (``getrusage``'s
  ``ru_maxrss``, and its growth over the RSS before the evaluation), the
  JVM's heap peak (the heap pools' ``getPeakUsage`` after ``resetPeakUsage``;
  on ``local[2]`` the driver's JVM also runs the executors' tasks) and the
  JVM process's peak RSS (``VmHWM``);
- with ``--check``, afterwards, the run is collected to Arrow and every
  per-query value compared with the numpy engine's (1e-12).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_spark_skew.py --rows 10000000 --check

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_spark import bench_session  # noqa: E402

MEASURES = ["ndcg@10", "map", "P@10", "recall@1000"]
PER_QUERY = 100_000


def frames(spark: Any, rows: int, per_query: int, partitions: int) -> tuple[Any, Any]:
    """(judgments, run) made in Spark: one query of *rows* rows, or queries of *per_query*."""
    from pyspark.sql import functions as sf

    query = (sf.lit("q0") if per_query >= rows
             else sf.concat(sf.lit("q"), (sf.col("id") / per_query).cast("long").cast("string")))
    ids = spark.range(0, rows, 1, partitions)
    run = ids.select(query.alias("query_id"), sf.col("id").cast("string").alias("doc_id"),
                     (sf.rand(7) * 100).alias("score"))
    step = max(1, min(per_query, rows) // 100)
    qrels = ids.filter(sf.col("id") % step == 0).select(
        query.alias("query_id"), sf.col("id").cast("string").alias("doc_id"),
        sf.lit(1).alias("relevance"))
    return qrels, run


def rss_kib() -> int:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))


def jvm_peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmHWM:"))


def one_case(args: argparse.Namespace) -> dict[str, Any]:
    import rankwise as rw
    from rankwise.spark import evaluate

    spark = bench_session(args.master, args.driver_memory, "rankwise-bench-skew")
    jvm = spark.sparkContext._jvm
    pid = int(jvm.java.lang.ProcessHandle.current().pid())
    per_query = args.rows if args.case == "single" else PER_QUERY
    qrels_df, run_df = frames(spark, args.rows, per_query, args.partitions)
    pools = [p for p in jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
             if str(p.getType().toString()) == "Heap memory"]
    jvm.java.lang.System.gc()
    for pool in pools:
        pool.resetPeakUsage()
    before = rss_kib()
    start = time.perf_counter()
    got = evaluate(qrels_df, run_df, MEASURES)
    wall = time.perf_counter() - start
    out = {
        "case": args.case, "rows": args.rows, "partitions": args.partitions,
        "queries": -(-args.rows // per_query), "wall_s": round(wall, 2),
        "python_rss_before_mib": round(before / 1024, 1),
        "python_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "jvm_heap_peak_mib": round(sum(p.getPeakUsage().getUsed() for p in pools) / 2**20, 1),
        "jvm_peak_rss_mib": round(jvm_peak_rss_kib(pid) / 1024, 1),
        "plan": got.plan, "load": round(os.getloadavg()[0], 1),
    }
    if args.check:
        from bench_spark_layouts import per_query_equal

        want = rw.evaluate(qrels_df.toArrow(), run_df.toArrow(), MEASURES)
        out["equal_to_numpy"] = per_query_equal(got, want)
    spark.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--partitions", type=int, default=64)
    ap.add_argument("--case", choices=["single", "many"], help="run one case in this process")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--check", action="store_true", help="compare with the numpy engine")
    args = ap.parse_args()
    if args.case:
        print(json.dumps(one_case(args)), flush=True)
        return
    results = []
    for case in ("many", "single"):
        command = [sys.executable, __file__, "--case", case, *sys.argv[1:]]
        done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    many, single = results
    print(f"\n{args.rows:,} rows over {args.partitions} partitions, {args.master}")
    for key in ("python_peak_rss_mib", "jvm_heap_peak_mib", "jvm_peak_rss_mib"):
        print(f"  {key:<22} single {single[key]:8.1f}  many {many[key]:8.1f}  "
              f"ratio {single[key] / many[key]:.2f}")
    growth = [r["python_peak_rss_mib"] - r["python_rss_before_mib"] for r in (single, many)]
    print(f"  python RSS growth      single {growth[0]:8.1f}  many {growth[1]:8.1f}")


if __name__ == "__main__":
    main()
