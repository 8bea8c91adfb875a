#!/usr/bin/env python3
"""Probe: is a duplicate check of JVM code cheaper than ``collect_list`` in Spark?

Issue 21's cost target (the Spark engine within 2x of numpy per added row) is
not met with the duplicate check on. Every exact check that Spark SQL offers
was measured (benchmarks/README.md, "Where the time goes, and the floor");
the cheapest is the shipped ``collect_list(xxhash64(d))`` per query. This
probe measures the remaining candidate, JVM code of rankwise's own: a typed
``Aggregator`` (``rwprobe/TwiceAggregator.java``) that keeps each group's
hashes as primitive longs, against ``collect_list`` and two fixed-size
aggregates, per query of a synthetic run of 7M and 28M rows (1,000 rows a
query, Parquet), on ``local[2]``. The cost is the JVM's CPU (``/proc``),
best of ``--rounds``; "per added row" is 28M minus 7M rows.

Needs pyspark and a JDK (``javac``, ``jar``). From the repository root::

    python benchmarks/spark_aggregate_probe/probe.py --rounds 3

The jar is built under ``--work`` (never committed); nothing here is imported
by rankwise or its tests.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default="/tmp/rankwise-spark-probe")
    args = parser.parse_args()
    jar = build_jar(args.work)

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as sf

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.extraClassPath", jar)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark._jvm
    aggregate = jvm.org.apache.spark.sql.functions.udaf(
        jvm.rwprobe.TwiceAggregator(), jvm.org.apache.spark.sql.Encoders.LONG()
    )
    spark._jsparkSession.udf().register("rw_twice", aggregate)

    for queries in SIZES:
        path = os.path.join(args.work, f"run_{queries}.parquet")
        if not os.path.exists(path):
            query = (sf.col("id") / 1000).cast("long").cast("string")
            spark.range(queries * 1000).select(
                sf.concat(sf.lit("q"), query).alias("q"),
                ((sf.col("id") * 7919) % 8841823).cast("string").alias("d"),
                sf.rand(1).alias("s"),
            ).write.parquet(path)

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
    best: dict[tuple[str, int], tuple[float, float]] = {}
    for _ in range(args.rounds):
        for queries in SIZES:
            run = spark.read.parquet(os.path.join(args.work, f"run_{queries}.parquet"))
            for name, make in variants.items():
                frame = make(run)
                cpu, wall = jvm_cpu_seconds(), time.perf_counter()
                rows = frame.collect()
                wall, cpu = time.perf_counter() - wall, jvm_cpu_seconds() - cpu
                if "twice" in frame.columns and any(row["twice"] for row in rows):
                    raise SystemExit(f"{name}: a duplicate where there is none")
                old = best.get((name, queries), (float("inf"), float("inf")))
                best[(name, queries)] = (min(old[0], wall), min(old[1], cpu))
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.rounds}, wall / JVM CPU s")
    print("| aggregate per query | 7M rows | 28M rows | per added 21M rows (CPU) |")
    print("|---|---|---|---|")
    for name in variants:
        small, large = best[(name, SIZES[0])], best[(name, SIZES[1])]
        print(f"| {name} | {small[0]:.2f} / {small[1]:.2f} | {large[0]:.2f} / {large[1]:.2f} "
              f"| {large[1] - small[1]:.2f} |")
    spark.stop()


if __name__ == "__main__":
    main()
