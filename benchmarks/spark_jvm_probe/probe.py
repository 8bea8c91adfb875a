#!/usr/bin/env python3
"""Probe: what would JVM code of rankwise's own cost in the Spark engine?

Issue 21's cost target (the Spark engine within 2x of numpy per added row) is
not met with the duplicate check on. Every exact check that Spark SQL offers
was measured (benchmarks/README.md, "Where the time goes, and the floor");
the cheapest is the shipped ``collect_list(xxhash64(d))`` per query. This
probe measures JVM code in two forms, on a synthetic run of 7M and 28M rows
(1,000 rows a query, grouped by query, Parquet), on ``local[2]``:

- aggregates per query: a typed ``Aggregator`` (``rwprobe/TwiceAggregator.java``)
  that keeps each group's hashes as primitive longs, against ``collect_list``
  and two fixed-size aggregates;
- one pass per partition over Spark's internal rows (``rwprobe/OnePass.java``):
  the rows only read (the floor of any pass), and read, hashed, checked for a
  document listed twice, their judged documents found (0.8% of the rows) and
  the rows above each counted: the core of a ``ranks`` written as JVM code.

The cost is the JVM's CPU (``/proc``), best of ``--rounds``; "per added row"
is 28M minus 7M rows, set against numpy's own per added row on the same data
(``pyarrow.parquet.read_table`` of both and ``rw.evaluate``, five measures, this
process's CPU, as ``bench_spark.py`` times it).

Needs pyspark and a JDK (``javac``, ``jar``). From the repository root::

    python benchmarks/spark_jvm_probe/probe.py --rounds 3

The jar and the data are made under ``--work`` (never committed); nothing here
is imported by rankwise or its tests.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (7_000, 28_000)  # queries of 1,000 rows
MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]


def build_jar(work: str) -> str:
    """Compile the aggregator against pyspark's jars; the jar's path."""
    import pyspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    classes = os.path.join(work, "classes")
    os.makedirs(classes, exist_ok=True)
    sources = glob.glob(os.path.join(HERE, "rwprobe", "*.java"))
    subprocess.run(["javac", "-nowarn", "-cp", jars, "-d", classes, *sources], check=True)
    jar = os.path.join(work, "rwprobe.jar")
    subprocess.run(["jar", "cf", jar, "-C", classes, "."], check=True)
    return jar


def jvm_cpu_seconds() -> float:
    """User + system CPU of every java process (the local[2] JVM is this probe's)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if not f.read().split(b"\0")[0].endswith(b"java"):
                    continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def numpy_cpu_seconds(
    work: str, rounds: int, run: str = "run_{}.parquet", qrels: str = "qrels_{}.parquet"
) -> dict[int, float]:
    """rankwise's numpy engine on each run (file names *run* and *qrels*, formatted with
    the size), read as Arrow tables (best CPU of *rounds*)."""
    import warnings

    import pyarrow.parquet as pq

    import rankwise as rw

    warnings.filterwarnings("ignore", category=rw.RankwiseWarning)  # ndcg's gain: the same work

    columns = {"query_id": "q", "doc_id": "d", "score": "s", "relevance": "g"}
    best = {}
    for queries in SIZES:
        times = []
        for _ in range(rounds):
            cpu = time.process_time()  # reading included, as the JVM decodes the Parquet
            run_table = pq.read_table(os.path.join(work, run.format(queries)))
            qrels_table = pq.read_table(os.path.join(work, qrels.format(queries)))
            means = rw.evaluate(qrels_table, run_table, MEASURES, columns=columns).mean
            times.append(time.process_time() - cpu)
        if not 0 < means["map"] <= 1:
            raise SystemExit(f"numpy: {means}")
        best[queries] = min(times)
    return best


def arguments(description: str) -> argparse.Namespace:
    """The probes' options: ``--rounds`` and ``--work``."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default="/tmp/rankwise-spark-probe")
    return parser.parse_args()


def session(work: str) -> Any:
    """A ``local[2]`` session with the probes' jar (built under *work*) loaded into it."""
    jar = build_jar(work)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # into the running session, as rankwise would load it: the driver's py4j finds its
    # classes by name, and the executors fetch the jar (also on a standalone cluster)
    spark.sql(f"ADD JAR {jar}")
    return spark


def main() -> None:
    args = arguments(__doc__ or "")
    from pyspark.sql import functions as sf

    spark = session(args.work)
    jvm = spark._jvm
    aggregate = jvm.org.apache.spark.sql.functions.udaf(
        jvm.rwprobe.TwiceAggregator(), jvm.org.apache.spark.sql.Encoders.LONG()
    )
    spark._jsparkSession.udf().register("rw_twice", aggregate)

    judged: dict[int, Any] = {}
    for queries in SIZES:
        path = os.path.join(args.work, f"run_{queries}.parquet")
        if not os.path.exists(path):
            query = (sf.col("id") / 1000).cast("long").cast("string")
            spark.range(queries * 1000).select(
                sf.concat(sf.lit("q"), query).alias("q"),
                ((sf.col("id") * 7919) % 8841823).cast("string").alias("d"),
                sf.rand(1).alias("s"),
            ).write.parquet(path)
        qrels_path = os.path.join(args.work, f"qrels_{queries}.parquet")
        if not os.path.exists(qrels_path):  # 0.8% of the rows judged, grades 0-2
            spark.read.parquet(path).sample(0.008, seed=1).select(
                "q", "d", (sf.abs(sf.xxhash64("d")) % 3).cast("int").alias("g")
            ).coalesce(1).write.parquet(qrels_path)
        pairs = spark.read.parquet(qrels_path).select(sf.xxhash64("q"), sf.xxhash64("d")).collect()
        judged[queries] = tuple(_long_array(spark, [row[i] for row in pairs]) for i in (0, 1))

    variants: dict[str, Any] = {
        "count(*) (the floor)": lambda df: df.groupBy("q").agg(sf.count(sf.lit(1))),
        "count, bit_xor(xxhash64(d)) (fixed-size)": lambda df: df.groupBy("q").agg(
            sf.count(sf.lit(1)), sf.expr("bit_xor(xxhash64(d))")
        ),
        "collect_list(xxhash64(d)) (shipped)": lambda df: df.groupBy("q")
        .agg(sf.collect_list(sf.xxhash64("d")).alias("h"))
        .select((sf.size("h") > sf.size(sf.array_distinct("h"))).alias("twice")),
        "TwiceAggregator(xxhash64(d)) (JVM)": lambda df: df.groupBy("q").agg(
            sf.expr("rw_twice(xxhash64(d))").alias("twice")
        ),
    }
    for read_only, name in ((True, "one pass: rows only read (JVM)"),
                            (False, "one pass: read, hashed, checked, hits ranked (JVM)")):
        variants[name] = lambda df, read_only=read_only: (
            lambda queries: jvm.rwprobe.OnePass.run(df.select("q", "d", "s")._jdf,
                                                    *judged[queries], read_only)
        )
    best: dict[tuple[str, int], tuple[float, float]] = {}
    for _ in range(args.rounds):
        for queries in SIZES:
            run = spark.read.parquet(os.path.join(args.work, f"run_{queries}.parquet"))
            for name, make in variants.items():
                frame = make(run)
                cpu, wall = jvm_cpu_seconds(), time.perf_counter()
                if callable(frame):  # a JVM pass: its sums
                    sums = list(frame(queries))
                    if sums[1] != queries * 1000 or (len(sums) > 2 and sums[2]):
                        raise SystemExit(f"{name}: {sums}")
                else:
                    rows = frame.collect()
                    if "twice" in frame.columns and any(row["twice"] for row in rows):
                        raise SystemExit(f"{name}: a duplicate where there is none")
                wall, cpu = time.perf_counter() - wall, jvm_cpu_seconds() - cpu
                old = best.get((name, queries), (float("inf"), float("inf")))
                best[(name, queries)] = (min(old[0], wall), min(old[1], cpu))
    spark.stop()
    numpy = numpy_cpu_seconds(args.work, args.rounds)
    per_row = numpy[SIZES[1]] - numpy[SIZES[0]]
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.rounds}, wall / JVM CPU s")
    print(f"numpy engine (read_table + rw.evaluate, CPU): {numpy[SIZES[0]]:.2f} / "
          f"{numpy[SIZES[1]]:.2f} s, {per_row:.2f} s per added 21M rows")
    print("| per query | 7M rows | 28M rows | per added 21M rows (CPU) | x numpy |")
    print("|---|---|---|---|---|")
    for name in variants:
        small, large = best[(name, SIZES[0])], best[(name, SIZES[1])]
        added = large[1] - small[1]
        print(f"| {name} | {small[0]:.2f} / {small[1]:.2f} | {large[0]:.2f} / {large[1]:.2f} "
              f"| {added:.2f} | {added / per_row:.1f}x |")


def _long_array(spark: Any, values: list[int]) -> Any:
    """A Java long[] of *values* (py4j)."""
    array = spark.sparkContext._gateway.new_array(spark._jvm.long, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array


if __name__ == "__main__":
    main()
