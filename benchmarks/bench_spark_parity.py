#!/usr/bin/env python3
"""Random differential of the Spark engine against the numpy engine (issue 21's parity target).

For each seed, ``tests/strategies.random_tables`` draws a dataset of one of
its kinds (mixed, unjudged queries only, deep judgments, one learning-to-rank
table, sparse, judged queries mostly unretrieved) and the script draws the
options (ties trec/average/worst/best, depth, judged_only, missing, rel; bpref,
which has no expected value over ties, left out with ``average``);
then every strategy (``ranks``, ``partitions`` with a few partitions and
tiny chunks, ``auto``, and ``jvm`` on the run sorted by query in 5 partitions, so
that queries are split across them; it needs a JDK) must give the numpy engine's per-query values
to 1e-12 (or the same error). Crashes and differences are listed; the exit
status is 1 if there is any.

Run from the repository root (``local[2]``; ~1-3 s per evaluation on a quiet
2-core machine, 20-60 s on a busy one)::

    PYTHONPATH=src python benchmarks/bench_spark_parity.py --datasets 200
    PYTHONPATH=src python benchmarks/bench_spark_parity.py --datasets 200 --batch 10

``--batch N`` evaluates N datasets in one Spark evaluation (their query ids
prefixed ``d<seed>:``, one draw of the options per batch) and compares each
query with the numpy engine run on its own dataset: the same per-query
check, N times fewer Spark jobs. A dataset the numpy engine refuses (an
error expected from Spark too) is evaluated alone.

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
AVERAGE = [m for m in MEASURES if m != "bpref"]  # bpref has no expected value over ties

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


def same(got, want: rw.Results | Expected) -> str | None:
    table = got.per_query.toArrow()
    where = {q: n for n, q in enumerate(table["query_id"].to_pylist())}
    if set(where) != set(want.query_ids):
        return "queries differ"
    rows = pa.array([where[q] for q in want.query_ids], pa.int64())
    table = table.take(rows)
    for name in want:
        a = table[str(name)].to_numpy(zero_copy_only=False).astype(float)
        b = np.asarray(want[name], dtype=float)
        if not np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True):
            return f"{name} differs by {np.nanmax(np.abs(a - b)):.3g}"
    return None


def prefixed(table: pa.Table, prefix: str) -> pa.Table:
    """*table* with every query id prefixed (datasets of one batch never share a query)."""
    import pyarrow.compute as pc

    ids = pc.binary_join_element_wise(pa.scalar(prefix), table["query_id"], "")
    return table.set_column(table.schema.get_field_index("query_id"), "query_id", ids)


def frame(spark, table: pa.Table):
    """A Spark DataFrame of *table*, its chunks combined first: pyspark 4.3's
    ``createDataFrame`` loses rows of a table whose columns are chunked differently
    (empty chunks of empty datasets, dropped by ``binary_join_element_wise``)."""
    return spark.createDataFrame(table.combine_chunks())


def grouped_frame(spark, table: pa.Table, slices: int = 5):
    """*table* sorted by query (as a run file is) in *slices* partitions, in order, so that
    the ``jvm`` strategy applies and queries are split across partitions at their ends."""
    table = table.combine_chunks()
    table = table.take(pa.array(np.argsort(
        [str(q).encode() for q in table["query_id"].to_pylist()], kind="stable"
    )))
    schema = spark.createDataFrame(table.slice(0, 0)).schema
    rows = list(zip(*(table[name].to_pylist() for name in table.column_names)))
    return spark.sparkContext.parallelize(rows, slices).toDF(schema)


def combined(results: list[rw.Results], prefixes: list[str]) -> Expected:
    """The per-query values of several datasets' numpy results, query ids prefixed."""
    return Expected(
        query_ids=[p + q for r, p in zip(results, prefixes) for q in r.query_ids],
        values={
            name: np.concatenate([np.asarray(r[name], dtype=float) for r in results])
            for name in results[0]
        },
    )


class Expected:
    """Per-query values: ``query_ids`` and ``{measure: array}`` (what ``same`` reads)."""

    def __init__(self, query_ids: list[str], values: dict[str, np.ndarray]) -> None:
        self.query_ids, self.values = query_ids, values

    def __iter__(self):
        return iter(self.values)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument(
        "--batch",
        type=int,
        default=1,
        help="datasets per Spark evaluation (query ids prefixed per dataset; one draw of "
        "the options per batch; a dataset the numpy engine refuses is run alone)",
    )
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
    seeds = list(range(args.first_seed, args.first_seed + args.datasets))
    drawn = {seed: random_tables(seed) for seed in seeds}
    for data in drawn.values():
        kinds[data["kind"]] += 1
    # batches: one learning-to-rank table per batch of ltr datasets, separate tables else
    groups: list[list[int]] = []
    for ltr in (False, True):
        chosen = [s for s in seeds if (drawn[s]["table"] is not None) == ltr]
        groups += [chosen[i : i + args.batch] for i in range(0, len(chosen), args.batch)]
    numpy_refused = 0
    refusals: Counter = Counter()
    for group in groups:
        options = draw_options(np.random.default_rng(10_000 + group[0]))
        measures = AVERAGE if options["ties"] == "average" else MEASURES
        wants = {s: outcome(rw.evaluate, drawn[s]["qrels"], drawn[s]["run"], measures,
                            **options) for s in group}
        alone = [[s] for s in group if wants[s][1] is not None]  # refused: run by itself
        numpy_refused += len(alone)
        refusals.update(wants[s][1] for s in group if wants[s][1] is not None)
        together = [s for s in group if wants[s][1] is None]
        for members in ([together] if together else []) + alone:
            prefixes = [f"d{s}:" if len(members) > 1 else "" for s in members]
            first = drawn[members[0]]
            kinds_here = sorted({drawn[s]["kind"] for s in members})
            if first["table"] is not None:  # one learning-to-rank table, passed twice
                table = pa.concat_tables(
                    [prefixed(drawn[s]["table"], p) for s, p in zip(members, prefixes)]
                )
                qrels_df = run_df = frame(spark, table)
            else:
                qrels_df = frame(spark, pa.concat_tables(
                    [prefixed(drawn[s]["qrels"], p) for s, p in zip(members, prefixes)]))
                run_table = pa.concat_tables(
                    [prefixed(drawn[s]["run"], p) for s, p in zip(members, prefixes)])
                run_df = frame(spark, run_table)
                grouped_run = grouped_frame(spark, run_table)
            if len(members) == 1:
                want, want_error = wants[members[0]]
            else:
                want, want_error = combined([wants[s][0] for s in members], prefixes), None
            runs = {"jvm": run_df if first["table"] is not None else grouped_run}
            for strategy, extra in (
                ("ranks", {}),
                ("partitions", {"num_partitions": 3, "chunk_rows": 17}),
                ("auto", {}),
                ("jvm", {}),
            ):
                evaluations += 1
                got, error = outcome(
                    evaluate, qrels_df, runs.get(strategy, run_df), measures,
                    strategy=strategy, **extra, **options,
                )
                where = f"seeds {members} ({kinds_here}, {options}) {strategy}"
                if error or want_error:
                    if error != want_error:
                        problems.append(f"{where}: spark {error}, numpy {want_error}")
                        print(f"  {where}: spark {error}, numpy {want_error}", flush=True)
                    continue
                difference = same(got, want)
                if difference:
                    problems.append(f"{where}: {difference}")
                    print(f"  {where}: {difference}", flush=True)
                got.unpersist()
            print(
                f"seeds {members[0]}..{members[-1]} ({len(members)}): {','.join(kinds_here)}"
                f" {options} problems so far {len(problems)}",
                flush=True,
            )
    seconds = time.perf_counter() - start
    print()
    print(
        f"{args.datasets} datasets ({dict(kinds)}; {numpy_refused} refused by numpy "
        f"{dict(refusals)}, run alone), batches of {args.batch}, {evaluations} Spark evaluations "
        f"in {seconds:.0f} s: {len(problems)} crashes or differences"
    )
    for line in problems:
        print("  " + line)
    spark.stop()
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
