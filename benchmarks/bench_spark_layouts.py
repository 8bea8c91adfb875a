#!/usr/bin/env python3
"""The Spark engine on the data layouts real clusters have, against the numpy engine (issue 36).

The 7M-row MS MARCO-like run (``bench_spark.py`` makes it, and its ``x4`` case,
27.9M rows) is laid out as a cluster holds runs, each written once under the
cache folder:

- ``files-8``, ``files-64``: the run in query order cut into 8 or 64 Parquet
  files of equal rows (queries cut at file ends), read with Spark's default
  file packing (several files per partition, largest first: a query cut at a
  file end lands in two places);
- ``shuffled``: the run as a join or a model writes it: ``repartition(64)``
  then written as 64 Parquet files (every query in every file, in no order);
- ``repartition-64``: the run in query order, ``repartition(64)`` in the
  session (the shuffle is part of every evaluation);
- ``grouped``: 4 files in query order, one per partition (the layout the
  ``jvm`` strategy took before).

In ONE process, paired rounds: each round times, for each layout and size, the
numpy engine (``pyarrow.parquet.read_table`` of the same files +
``rankwise.evaluate``) and ``rankwise.spark.evaluate`` (``strategy="auto"``,
its plan recorded) right after each other, so that the load of a shared
machine falls on both. Wall and CPU seconds (this process and the JVM's tree);
the cost per added row is (28M time - 7M time) / added rows, Spark's over
numpy's. Every per-query value of every measure is compared with the numpy
engine's at 1e-12. The Spark session's start is timed apart (excluded).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_spark_layouts.py --repeat 3
    PYTHONPATH=src python benchmarks/bench_spark_layouts.py --layouts files-8 --sizes 7m

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from bench_spark import (  # noqa: E402
    DEFAULT_DATA,
    DEFAULT_GENERATOR,
    bench_session,
    ensure_case,
    ensure_parquet,
    ensure_text,
    tree_cpu_seconds,
)

import rankwise as rw  # noqa: E402

MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000", "bpref"]
LAYOUTS = ("files-8", "files-64", "shuffled", "repartition-64", "grouped")
SIZES = {"7m": "msmarco", "28m": "x4"}


def cut_into_files(table: pa.Table, folder: str, files: int) -> str:
    """*table* in *files* Parquet files of equal rows, in its order."""
    done = os.path.join(folder, "_DONE")
    if os.path.exists(done):
        return folder
    os.makedirs(folder, exist_ok=True)
    step = -(-table.num_rows // files)
    for i in range(files):
        pq.write_table(table.slice(i * step, step), os.path.join(folder, f"part-{i:05d}.parquet"),
                       row_group_size=500_000)
    open(done, "w").close()
    return folder


def layouts(spark: Any, cache: str, size: str, run_path: str, names: list[str]) -> dict[str, str]:
    """The folder of each layout of the run at *run_path* (written once)."""
    out: dict[str, str] = {}
    table = None
    for name in names:
        folder = os.path.join(cache, f"layout-{size}-{name}")
        if name in ("grouped", "repartition-64"):
            out[name] = run_path
        elif name.startswith("files-"):
            if not os.path.exists(os.path.join(folder, "_DONE")):
                table = table if table is not None else pq.read_table(run_path)
            out[name] = cut_into_files(table, folder, int(name.split("-")[1]))
        elif name == "shuffled":
            if not os.path.exists(os.path.join(folder, "_SUCCESS")):
                spark.read.parquet(run_path).repartition(64).write.mode("overwrite").parquet(folder)
            out[name] = folder
    return out


def per_query_equal(got: Any, want: rw.Results) -> bool:
    table = got.per_query.toArrow()
    order = np.argsort(np.array([q.encode() for q in table["query_id"].to_pylist()],
                                dtype=object), kind="stable")
    table = table.take(pa.array(order))
    if table["query_id"].to_pylist() != want.query_ids:
        return False
    return all(
        np.allclose(table[m].to_numpy(zero_copy_only=False), want[m], rtol=0, atol=1e-12,
                    equal_nan=True)
        for m in want
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=DEFAULT_DATA)
    ap.add_argument("--generator", default=DEFAULT_GENERATOR)
    ap.add_argument("--cache-dir", default=os.path.join(os.path.expanduser("~"), ".cache",
                                                        "rankwise", "bench-spark"))
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--sizes", default="7m,28m")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    names = [n.strip() for n in args.layouts.split(",") if n.strip()]
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]

    qrels_text, run_text = ensure_text(args.data_dir, args.generator)
    base_qrels, base_run = ensure_parquet(qrels_text, run_text, args.cache_dir, 4)

    from rankwise.spark import evaluate

    start = time.perf_counter()
    spark = bench_session(args.master, args.driver_memory, "rankwise-bench-layouts")
    startup = time.perf_counter() - start
    jvm = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    print(f"spark session start: {startup:.1f} s, JVM CPU {tree_cpu_seconds(jvm):.1f} s "
          "(excluded)", flush=True)

    def cpu() -> float:
        own = os.times()
        return own.user + own.system + tree_cpu_seconds(jvm)

    cases: dict[tuple[str, str], dict[str, Any]] = {}
    for size in sizes:
        qrels_path, run_path = ensure_case(SIZES[size], base_qrels, base_run, args.cache_dir)
        for name, folder in layouts(spark, args.cache_dir, size, run_path, names).items():
            rows = sum(pq.ParquetFile(os.path.join(folder, f)).metadata.num_rows
                       for f in os.listdir(folder) if f.endswith(".parquet"))
            cases[(name, size)] = {"qrels": qrels_path, "run": folder, "rows": rows,
                                   "numpy": [], "numpy_cpu": [], "spark": [], "spark_cpu": []}

    def numpy_engine(case: dict[str, Any]) -> rw.Results:
        return rw.evaluate(pq.read_table(case["qrels"]), pq.read_table(case["run"]), MEASURES)

    def spark_engine(name: str, case: dict[str, Any]) -> Any:
        run_df = spark.read.parquet(case["run"])
        if name == "repartition-64":
            run_df = run_df.repartition(64)
        return evaluate(spark.read.parquet(case["qrels"]), run_df, MEASURES,
                        strategy=args.strategy)

    references = {key: numpy_engine(case) for key, case in cases.items()}  # also warms up
    for (name, _), case in cases.items():  # warm-up: JIT, jar, file listing
        spark_engine(name, case)
    for round_ in range(args.repeat):
        for (name, size), case in cases.items():
            for engine in ("numpy", "spark"):
                before, start = cpu(), time.perf_counter()
                got = numpy_engine(case) if engine == "numpy" else spark_engine(name, case)
                case[engine].append(time.perf_counter() - start)
                case[f"{engine}_cpu"].append(cpu() - before)
                if engine == "spark":
                    case["plan"] = got.plan
                    case["equal"] = case.get("equal", True) and per_query_equal(
                        got, references[(name, size)])
                print(f"round {round_ + 1}: {name:<15} {size:<4} {engine:<6} "
                      f"{case[engine][-1]:6.2f} s wall {case[f'{engine}_cpu'][-1]:6.2f} s CPU"
                      f"  (load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"\n{args.master}, {os.cpu_count()} cores, pyspark {spark.version}; measures "
          f"{', '.join(MEASURES)}; load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{'layout':<15} {'size':<5} {'numpy s':>8} {'spark s':>8} {'CPU np':>7} "
          f"{'CPU sp':>7}  equal  plan")
    for (name, size), case in cases.items():
        print(f"{name:<15} {size:<5} {min(case['numpy']):>8.2f} {min(case['spark']):>8.2f} "
              f"{min(case['numpy_cpu']):>7.2f} {min(case['spark_cpu']):>7.2f}  "
              f"{'yes' if case['equal'] else 'NO':<5}  {case['plan']}")
    if len(sizes) == 2:
        print("\ncost per added row, Spark / numpy (best of the rounds; median in brackets)")
        small, large = sizes
        for name in names:
            a, b = cases[(name, small)], cases[(name, large)]
            added = b["rows"] - a["rows"]
            for unit, key in (("wall", ""), ("CPU", "_cpu")):
                best = ((min(b["spark" + key]) - min(a["spark" + key]))
                        / (min(b["numpy" + key]) - min(a["numpy" + key])))
                middle = statistics.median
                median = ((middle(b["spark" + key]) - middle(a["spark" + key]))
                          / (middle(b["numpy" + key]) - middle(a["numpy" + key])))
                print(f"  {name:<15} {unit:<4} {best:5.2f}x ({median:.2f}x) over "
                      f"{added:,} added rows")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({f"{n}/{s}": c for (n, s), c in cases.items()}, out, indent=1)
    spark.stop()


if __name__ == "__main__":
    main()
