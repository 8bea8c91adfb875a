#!/usr/bin/env python3
"""Random differential of the Spark engine against the numpy engine (issue 21's parity target).

For each seed, ``tests/strategies.random_tables`` draws a dataset of one of
its kinds (mixed, unjudged queries only, deep judgments, one learning-to-rank
table, sparse, judged queries mostly unretrieved) and the script draws the
options (ties trec/average/worst/best, depth, judged_only, missing, rel);
then every strategy (``ranks``, ``partitions`` with a few partitions and
tiny chunks, and ``auto``) must give the numpy engine's per-query values
to 1e-12 (or the same error). Crashes and differences are listed; the exit
status is 1 if there is any.

Run from the repository root (``local[2]``; ~1-3 s per evaluation on a busy
2-core machine)::

    PYTHONPATH=src python benchmarks/bench_spark_parity.py --datasets 200

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "src"))
sys.path.insert(0, os.path.join(REPO, "tests"))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
from strategies import random_tables  # noqa: E402

import rankwise as rw  # noqa: E402

MEASURES = ["ndcg@10", "map", "mrr@10", "P@5", "recall@20", "bpref", "num_ret", "Rprec"]

warnings.filterwarnings("ignore")


def draw_options(rng: np.random.Generator) -> dict:
    return {
        "ties": str(rng.choice(["trec", "average", "worst", "best"])),
        "depth": None if rng.random() < 0.6 else int(rng.integers(1, 12)),
        "judged_only": bool(rng.random() < 0.2),
        "missing": "zero" if rng.random() < 0.3 else "skip",
        "rel": None if rng.random() < 0.7 else 2,
    }


def outcome(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except rw.RankwiseError as error:
        return None, type(error).__name__
    except Exception as error:  # a crash: recorded, never hidden
        return None, f"CRASH {type(error).__name__}: {str(error).splitlines()[0][:200]}"


def same(got, want: rw.Results) -> str | None:
    table = got.per_query.toArrow()
    order = np.argsort([q.encode() for q in table["query_id"].to_pylist()], kind="stable")
    table = table.take(pa.array(order))
    if table["query_id"].to_pylist() != list(want.query_ids):
        return "queries differ"
    for name in want:
        a = table[name].to_numpy(zero_copy_only=False).astype(float)
        b = np.asarray(want[name], dtype=float)
        if not np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True):
            return f"{name} differs by {np.nanmax(np.abs(a - b)):.3g}"
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    from rankwise.spark import evaluate

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(args.master)
        .appName("rankwise-parity")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")
    problems: list[str] = []
    kinds: Counter = Counter()
    evaluations = 0
    start = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.datasets):
        data = random_tables(seed)
        kinds[data["kind"]] += 1
        options = draw_options(np.random.default_rng(10_000 + seed))
        if data["table"] is not None:  # one learning-to-rank table, passed twice
            frame = spark.createDataFrame(data["table"])
            qrels_df = run_df = frame
        else:
            qrels_df = spark.createDataFrame(data["qrels"])
            run_df = spark.createDataFrame(data["run"])
        want, want_error = outcome(rw.evaluate, data["qrels"], data["run"], MEASURES, **options)
        for strategy, extra in (
            ("ranks", {}),
            ("partitions", {"num_partitions": 3, "chunk_rows": 17}),
            ("auto", {}),
        ):
            evaluations += 1
            got, error = outcome(
                evaluate, qrels_df, run_df, MEASURES, strategy=strategy, **extra, **options
            )
            where = f"seed {seed} ({data['kind']}, {options}) {strategy}"
            if error or want_error:
                if error != want_error:
                    problems.append(f"{where}: spark {error}, numpy {want_error}")
                continue
            difference = same(got, want)
            if difference:
                problems.append(f"{where}: {difference}")
            got.unpersist()
        print(f"seed {seed}: {data['kind']:<12} problems so far {len(problems)}", flush=True)
    seconds = time.perf_counter() - start
    print()
    print(
        f"{args.datasets} datasets ({dict(kinds)}), {evaluations} Spark evaluations "
        f"in {seconds:.0f} s: {len(problems)} crashes or differences"
    )
    for line in problems:
        print("  " + line)
    spark.stop()
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
