#!/usr/bin/env python3
"""Benchmark the Spark engine against the numpy engine on the 7M-row MS MARCO-like data.

The synthetic MS MARCO passage dev-like run (6,980 queries x 1,000 passages)
and its qrels (``gen_msmarco_like.py``) are converted once to Parquet under a
cache folder (``~/.cache/rankwise/bench-spark`` by default; not in the
repository). In ONE process the script then times, each ``--repeat`` times:

- ``numpy``: ``pyarrow.parquet.read_table`` of both files + ``rankwise.evaluate``;
- ``spark ranks``: ``rankwise.spark.evaluate(..., strategy="ranks")`` on
  ``spark.read.parquet`` (Spark SQL ranks of the judged documents, kernels on
  the driver), with a breakdown of its steps;
- ``spark jvm``: ``strategy="jvm"`` (one pass of rankwise's JVM code per
  partition of the run computes the ranks of judged documents, kernels on
  the driver; needs ``javac``);
- ``spark partitions``: ``strategy="partitions"`` (shuffle by query, sort
  within partitions, ``mapInArrow`` running the numpy engine per chunk);
- ``spark window``: the ranks computed by ``row_number()`` over a window
  partitioned by query (a full shuffle and sort of the run), the rest as
  ``ranks``: the plan the ``ranks`` strategy was measured against;
- ``spark applyInPandas`` (once, ``--pandas-udf``): one Python call per query;
- ``spark auto``: the default strategy, whose plan (chosen by cost) is printed;
- ``spark floor`` and ``spark floor-qds`` (no evaluation): one
  ``groupBy(query)`` of the run read as the engine reads it, counting rows
  (``floor``: only the query column is decoded) or also taking the top score
  and the documents' lengths (``floor-qds``: every column decoded): the
  least a Spark job over the run costs, for the breakdown of the others.

``--case`` picks the data (built deterministically from the 7M-row files, cached):
``msmarco`` (the run, 8,435 judgments), ``deep`` (every run row judged with
probability 0.1: ~698k judgments, the case that made the first ``ranks``
plan explode), ``x4`` (the run and judgments four times, query ids
suffixed: 27.9M rows) and ``ltr`` (one learning-to-rank table of 2M rows,
the run's first 2,000 queries with a label on every row, passed as both
arguments).

Every Spark variant's means are checked against the numpy engine's
(relative 1e-12). Spark runs in ``--master`` (default ``local[2]``); the
session start is timed separately and excluded. Ratios are Spark / numpy.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_spark.py --repeat 3 --pandas-udf
    PYTHONPATH=src python benchmarks/bench_spark.py --case deep --variants auto,ranks,partitions

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "src"))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import rankwise as rw  # noqa: E402

MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]
DEFAULT_DATA = "/tmp/bench-data"
DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_msmarco_like.py")
PREFIX = "msmarco_like"

warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")


def ensure_text(data_dir: str, generator: str) -> tuple[str, str]:
    qrels = os.path.join(data_dir, f"{PREFIX}.qrels")
    run = os.path.join(data_dir, f"{PREFIX}.run")
    if not (os.path.exists(qrels) and os.path.exists(run)):
        os.makedirs(data_dir, exist_ok=True)
        subprocess.run(
            [sys.executable, generator, "--outdir", data_dir, "--prefix", PREFIX], check=True
        )
    return qrels, run


def ensure_parquet(qrels_text: str, run_text: str, cache: str, files: int) -> tuple[str, str]:
    """Parquet copies of the TREC files: the run split into *files* files, grouped by query."""
    qrels_path = os.path.join(cache, "qrels.parquet")
    run_dir = os.path.join(cache, f"run-{files}.parquet")
    if os.path.exists(qrels_path) and os.path.exists(os.path.join(run_dir, "_DONE")):
        return qrels_path, run_dir
    os.makedirs(run_dir, exist_ok=True)
    qrels = rw.read_trec_qrels(qrels_text).to_arrow()
    pq.write_table(qrels, qrels_path)
    run = rw.read_trec_run(run_text).to_arrow()
    step = -(-run.num_rows // files)
    for i in range(files):
        part = run.slice(i * step, step)
        pq.write_table(part, os.path.join(run_dir, f"part-{i:05d}.parquet"), row_group_size=500_000)
    open(os.path.join(run_dir, "_DONE"), "w").close()
    return qrels_path, run_dir


def ensure_case(case: str, qrels_path: str, run_path: str, cache: str) -> tuple[str, str]:
    """The Parquet (judgments, run) of *case*; for ``ltr`` both are the one table."""
    if case == "msmarco":
        return qrels_path, run_path
    done = os.path.join(cache, f"case-{case}", "_DONE")
    folder = os.path.dirname(done)
    qrels_out, run_out = os.path.join(folder, "qrels.parquet"), os.path.join(folder, "run")
    if case == "ltr":
        qrels_out = run_out
    if case == "deep":  # the run as it is
        run_out = run_path
    if os.path.exists(done):
        return qrels_out, run_out
    os.makedirs(folder, exist_ok=True)
    os.makedirs(run_out, exist_ok=True)
    rng = np.random.default_rng(21)
    run = pq.read_table(run_path)
    qrels = pq.read_table(qrels_path)
    if case == "deep":
        judged = run.filter(pa.array(rng.random(run.num_rows) < 0.1))
        grades = rng.choice([0, 0, 1, 2], judged.num_rows)
        qrels = pa.table(
            {"query_id": judged["query_id"], "doc_id": judged["doc_id"], "relevance": grades}
        )
    elif case == "x4":
        runs, judgments = [], []
        for k in range(4):
            suffix = f"-{k}"
            runs.append(run.set_column(0, "query_id", pa.compute.binary_join_element_wise(
                run["query_id"], suffix, "")))
            judgments.append(qrels.set_column(0, "query_id", pa.compute.binary_join_element_wise(
                qrels["query_id"], suffix, "")))
        for k, part in enumerate(runs):
            pq.write_table(part, os.path.join(run_out, f"part-{k:05d}.parquet"),
                           row_group_size=500_000)
        qrels = pa.concat_tables(judgments)
    elif case == "ltr":
        table = run.slice(0, 2_000_000)
        grades = rng.choice([0, 0, 0, 1, 2], table.num_rows)
        table = table.append_column("relevance", pa.array(grades))
        pq.write_table(table, os.path.join(run_out, "part-00000.parquet"), row_group_size=500_000)
    else:
        raise SystemExit(f"unknown case {case!r}")
    if case != "ltr":
        pq.write_table(qrels, qrels_out)
    open(done, "w").close()
    return qrels_out, run_out


JVM_PID: int | None = None  # the driver JVM (local[N]: also the executors), once started


def bench_session(master: str, driver_memory: str, name: str) -> Any:
    """The benchmarks' local Spark session: no UI, no progress bars, 8 shuffle partitions."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(master).appName(name)
        .config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1").config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system, with reaped children) of *root* and its live descendants.

    Read from ``/proc/<pid>/stat``; in ``local[N]`` the JVM runs the driver and the
    executors, and its children are the Python workers of ``mapInArrow``.
    """
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(fields[1])
        cpu[pid] = sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [child for child, parent in parents.items() if parent == pid]
    return total


def cpu_now() -> float:
    """CPU seconds so far of this process (driver; numpy engine) plus the JVM's tree."""
    own = os.times()
    return own.user + own.system + (tree_cpu_seconds(JVM_PID) if JVM_PID else 0.0)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[list[float], Any, list[float]]:
    times, out, cpus = [], None, []
    for _ in range(repeat):
        cpu = cpu_now()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        cpus.append(cpu_now() - cpu)
    return times, out, cpus


def check_means(name: str, got: dict[str, float], want: dict[str, float]) -> bool:
    ok = all(abs(got[m] - want[m]) <= 1e-12 * max(1.0, abs(want[m])) for m in want)
    if not ok:
        print(f"  MISMATCH {name}: {got} != {want}", flush=True)
    return ok


# ---------------------------------------------------------------------------
# the alternative plans, measured against the strategies rankwise ships
# ---------------------------------------------------------------------------


def window_evaluate(run_df: Any, qrels_df: Any, measures: list[str]) -> dict[str, float]:
    """Ranks by row_number() over (partition by query order by score desc, doc desc)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._assemble import tied_ranking
    from rankwise.engines.spark._frames import project_qrels, project_run, to_arrow
    from rankwise.engines.spark.ranks import collect_judgments
    from rankwise.evaluation import parse_measures
    from rankwise.kernels import KERNELS, Context

    run = project_run(run_df, query="query_id", doc="doc_id", score="score")
    qrels_frame = project_qrels(qrels_df, query="query_id", doc="doc_id", label="relevance")
    qrels = collect_judgments(qrels_frame)
    judged = sf.broadcast(qrels_frame.select("q").distinct())
    by_query = Window.partitionBy("q")
    ordered = by_query.orderBy(sf.col("s").desc(), sf.col("d").desc())
    by_score = by_query.orderBy(sf.col("s").desc())
    ranked = (
        run.join(judged, "q", "left_semi")
        .withColumn("rank", sf.row_number().over(ordered))
        .withColumn("above", sf.rank().over(by_score) - 1)
        .withColumn("size", sf.count(sf.lit(1)).over(Window.partitionBy("q", "s")))
        .withColumn("n", sf.count(sf.lit(1)).over(by_query))
    )
    hits = to_arrow(
        ranked.join(sf.broadcast(qrels_frame), ["q", "d"]).select(
            "q", "rank", "above", "size", "n", "g"
        )
    )
    counts = to_arrow(run.join(judged, "q", "left_semi").groupBy("q").count())
    ranking = tied_ranking(
        qrels,
        counts["q"].combine_chunks(),
        counts["count"].to_numpy(),
        {
            "query": hits["q"].combine_chunks(),
            "rank": hits["rank"].to_numpy(),
            "grade": hits["g"].to_numpy(),
            "above": hits["above"].to_numpy(),
            "size": hits["size"].to_numpy(),
        },
        depth=None,
        missing="skip",
    )
    context = Context(ranking.view("trec"))
    parsed = parse_measures(measures, None)
    return {str(m): float(np.mean(KERNELS[m.name](context, m))) for m in parsed}


def pandas_udf_evaluate(run_df: Any, qrels_df: Any, measures: list[str]) -> dict[str, float]:
    """One Python call per query: groupBy(query).applyInPandas(numpy engine on the group)."""
    from pyspark.sql import functions as sf

    names = [str(m) for m in rw.evaluation.parse_measures(measures, None)]
    schema = "q string, " + ", ".join(f"`{n}` double" for n in names)

    def one_query(frame: Any) -> Any:
        import pandas as pd

        run_rows = frame[frame["side"] == 0]
        qrels_rows = frame[frame["side"] == 1]
        if len(qrels_rows) == 0 or len(run_rows) == 0:
            return pd.DataFrame({"q": [], **{n: [] for n in names}})
        qrels = rw.Qrels.from_arrow(
            pa.array(qrels_rows["q"]), pa.array(qrels_rows["d"]), qrels_rows["g"].to_numpy()
        )
        run = rw.Run.from_arrow(
            pa.array(run_rows["q"]), pa.array(run_rows["d"]), run_rows["s"].to_numpy()
        )
        result = rw.evaluate(qrels, run, names)
        return pd.DataFrame({"q": result.query_ids, **{n: result[n] for n in names}})

    both = run_df.select(
        sf.col("query_id").alias("q"),
        sf.col("doc_id").alias("d"),
        sf.col("score").alias("s"),
        sf.lit(None).cast("double").alias("g"),
        sf.lit(0).alias("side"),
    ).unionByName(
        qrels_df.select(
            sf.col("query_id").alias("q"),
            sf.col("doc_id").alias("d"),
            sf.lit(None).cast("double").alias("s"),
            sf.col("relevance").cast("double").alias("g"),
            sf.lit(1).alias("side"),
        )
    )
    per_query = both.groupBy("q").applyInPandas(one_query, schema)
    row = per_query.agg(*[sf.avg(sf.col(f"`{n}`")).alias(n) for n in names]).first()
    return {n: float(row[n]) for n in names}


def ranks_breakdown(spark: Any, qrels_path: str, run_path: str) -> dict[str, float]:
    """Seconds spent in each step of the ``ranks`` strategy."""
    from rankwise.engines.spark._frames import project_qrels, project_run
    from rankwise.engines.spark.ranks import RanksScan, collect_judgments

    steps: dict[str, float] = {}
    start = time.perf_counter()
    run = project_run(spark.read.parquet(run_path), query="query_id", doc="doc_id", score="score")
    qrels_frame = project_qrels(
        spark.read.parquet(qrels_path), query="query_id", doc="doc_id", label="relevance"
    )
    qrels_frame.count()
    steps["count judgments (auto)"] = time.perf_counter() - start
    start = time.perf_counter()
    qrels = collect_judgments(qrels_frame)
    steps["collect judgments"] = time.perf_counter() - start
    start = time.perf_counter()
    RanksScan(run, qrels_frame, qrels, check_duplicates=False)
    steps["first scan, no duplicate check"] = time.perf_counter() - start
    start = time.perf_counter()
    scan = RanksScan(run, qrels_frame, qrels)
    steps["first scan: counts+dups, hits"] = time.perf_counter() - start
    start = time.perf_counter()
    offered = scan.offered_per_row()
    steps[f"plan: grid (~{offered:.2f} offered/row)"] = time.perf_counter() - start
    start = time.perf_counter()
    scan._rank_hits()
    steps["second scan: rows per interval"] = time.perf_counter() - start
    return steps


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data-dir", default=DEFAULT_DATA, help="TREC files (generated when missing)")
    ap.add_argument("--generator", default=DEFAULT_GENERATOR)
    ap.add_argument(
        "--cache-dir",
        default=os.path.join(os.path.expanduser("~"), ".cache", "rankwise", "bench-spark"),
        help="where the Parquet copies are written (not committed)",
    )
    ap.add_argument("--files", type=int, default=4, help="Parquet files of the run")
    ap.add_argument("--case", default="msmarco", choices=("msmarco", "deep", "x4", "ltr"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--variants",
        default="ranks,partitions,window",
        help="comma-separated: auto, auto-nodup (check_duplicates=False), jvm, ranks, partitions, "
        "window, floor (groupBy(query).count() of the run: the least a Spark job reading it "
        "costs), floor-qds (the same decoding the document and score columns too)",
    )
    ap.add_argument("--pandas-udf", action="store_true", help="also time applyInPandas, once")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--no-breakdown", action="store_true",
                    help="skip the step-by-step timing of the ranks strategy")
    args = ap.parse_args()

    qrels_text, run_text = ensure_text(args.data_dir, args.generator)
    qrels_path, run_path = ensure_parquet(qrels_text, run_text, args.cache_dir, args.files)
    qrels_path, run_path = ensure_case(args.case, qrels_path, run_path, args.cache_dir)
    one_table = qrels_path == run_path
    rows_in_run = sum(
        pq.ParquetFile(os.path.join(run_path, f)).metadata.num_rows
        for f in os.listdir(run_path)
        if f.endswith(".parquet")
    )
    print(f"data: {run_path} ({rows_in_run:,} rows), {qrels_path}", flush=True)

    def numpy_engine() -> dict[str, float]:
        run = pq.read_table(run_path)
        if one_table:
            qrels = run.select(["query_id", "doc_id", "relevance"])
            run = run.select(["query_id", "doc_id", "score"])
        else:
            qrels = pq.read_table(qrels_path)
        return dict(rw.evaluate(qrels, run, MEASURES).mean)

    reference = numpy_engine()  # also warms the page cache and the imports
    print(f"numpy engine means: {reference}", flush=True)

    from pyspark.sql import SparkSession

    from rankwise.spark import evaluate

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    start = time.perf_counter()
    spark = (
        SparkSession.builder.master(args.master)
        .appName("rankwise-bench")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - start
    global JVM_PID
    JVM_PID = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    startup_cpu = tree_cpu_seconds(JVM_PID)
    print(
        f"spark session start: {startup:.1f} s, JVM CPU {startup_cpu:.1f} s (excluded)",
        flush=True,
    )

    def frames() -> tuple[Any, Any]:
        if one_table:
            table = spark.read.parquet(run_path)
            return table, table
        return spark.read.parquet(run_path), spark.read.parquet(qrels_path)

    plans: dict[str, str] = {}

    def floor_job(run_df: Any, *, all_columns: bool) -> dict[str, float]:
        """The floor: one groupBy(query) of the run read as the engine reads it (no evaluation)."""
        from pyspark.sql import functions as sf

        from rankwise.engines.spark._frames import project_run

        run = project_run(run_df, query="query_id", doc="doc_id", score="score")
        aggregates = [sf.count(sf.lit(1))]
        if all_columns:  # every column decoded, as the engine's scans do
            aggregates += [sf.max("s"), sf.sum(sf.length("d"))]
        run.groupBy("q").agg(*aggregates).collect()
        return reference  # a floor computes no measure: nothing to compare

    def spark_strategy(strategy: str, check_duplicates: bool = True) -> dict[str, float]:
        run_df, qrels_df = frames()
        results = evaluate(qrels_df, run_df, MEASURES, strategy=strategy,
                           check_duplicates=check_duplicates)
        plans[strategy] = results.plan
        means = dict(results.mean)
        results.unpersist()
        return means

    variants: dict[str, Callable[[], dict[str, float]]] = {
        "numpy": numpy_engine,
        "spark auto": lambda: spark_strategy("auto"),
        "spark auto-nodup": lambda: spark_strategy("auto", check_duplicates=False),
        "spark jvm": lambda: spark_strategy("jvm"),
        "spark ranks": lambda: spark_strategy("ranks"),
        "spark partitions": lambda: spark_strategy("partitions"),
        "spark window": lambda: window_evaluate(*frames(), MEASURES),
        "spark floor": lambda: floor_job(frames()[0], all_columns=False),
        "spark floor-qds": lambda: floor_job(frames()[0], all_columns=True),
    }
    chosen = ["numpy"] + [f"spark {v.strip()}" for v in args.variants.split(",") if v.strip()]
    for name in chosen[1:]:
        variants[name]()  # warm-up: JIT, Python workers, file listing
    # round-robin, so that the load of a shared machine hits every variant alike
    times: dict[str, list[float]] = {name: [] for name in chosen}
    cpus: dict[str, list[float]] = {name: [] for name in chosen}
    ok = {name: True for name in chosen}
    for round_ in range(args.repeat):
        for name in chosen:
            seconds, means, cpu = timed(variants[name], 1)
            times[name] += seconds
            cpus[name] += cpu
            ok[name] &= check_means(name, means, reference)
            print(
                f"round {round_ + 1}: {name:<18} {seconds[0]:6.2f} s wall {cpu[0]:6.2f} s CPU"
                f"  (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    rows: list[dict[str, Any]] = [
        {"variant": name, "times": times[name], "cpu": cpus[name], "ok": ok[name]}
        for name in chosen
    ]
    numpy_times = times["numpy"]
    if args.pandas_udf:
        seconds, means, cpu = timed(lambda: pandas_udf_evaluate(*frames(), MEASURES), 1)
        numpy_seconds, _, _ = timed(numpy_engine, 1)
        ok_udf = check_means("applyInPandas", means, reference)
        rows.append(
            {
                "variant": "spark applyInPandas",
                "times": seconds,
                "cpu": cpu,
                "ok": ok_udf,
                "numpy_alongside": numpy_seconds[0],
            }
        )
        print(
            f"spark applyInPandas: {seconds[0]:.2f} s (numpy right after: "
            f"{numpy_seconds[0]:.2f} s)",
            flush=True,
        )
    skip = one_table or args.no_breakdown
    breakdown = {} if skip else ranks_breakdown(spark, qrels_path, run_path)

    base = min(numpy_times)
    base_cpu = min(cpus["numpy"])
    print()
    print(
        f"{args.master}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"pyspark {spark.version}, rankwise {rw.__version__}; measures {', '.join(MEASURES)}; "
        f"load average at the end {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'variant':<22} {'best s':>8} {'median s':>9} {'x numpy':>8} "
        f"{'best CPU s':>11} {'x numpy':>8}  means"
    )
    for row in rows:
        best, median = min(row["times"]), statistics.median(row["times"])
        cpu = min(row["cpu"])
        print(
            f"{row['variant']:<22} {best:>8.2f} {median:>9.2f} {best / base:>8.1f} "
            f"{cpu:>11.2f} {cpu / base_cpu:>8.1f}  {'equal' if row['ok'] else 'DIFFER'}"
        )
    for strategy, plan in plans.items():
        print(f"plan of {strategy}: {plan}")
    print("ranks strategy, step by step (one run, after warm-up):")
    for step, seconds in breakdown.items():
        print(f"  {step:<32} {seconds:6.2f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(
                {
                    "rows": rows,
                    "case": args.case,
                    "plans": plans,
                    "startup": startup,
                    "startup_cpu": startup_cpu,
                    "rows_in_run": rows_in_run,
                    "breakdown": breakdown,
                    "master": args.master,
                    "pyspark": spark.version,
                },
                out,
                indent=1,
            )
    spark.stop()


if __name__ == "__main__":
    main()
