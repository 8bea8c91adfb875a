"""The choice of plan: what the driver can hold, and what each scan will cost.

``strategy="auto"`` decides twice. Before touching the run, from the
judgments' size: ``ranks`` collects and broadcasts them, so they must fit
comfortably in what the driver may collect (:func:`result_budget`, half of
``spark.driver.maxResultSize``); above that, ``partitions``. After the first
scan, from what it found per query: when every retrieved document of every
judged query is judged (learning-to-rank logs), the driver already holds
all it needs; otherwise the second scan's cost is estimated from the
intervals its grid offers each run row (:func:`offered_per_row`), and when
that is more than :data:`MAX_OFFERED_PER_ROW`, ``partitions`` is cheaper.
The reasons are kept in ``SparkResults.plan``.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "COLLECT_FIRST_SHARE",
    "MAX_OFFERED_PER_ROW",
    "RESULT_FRACTION",
    "ROWS_PER_PARTITION",
    "collected_if_small",
    "count_and_size",
    "offered_per_row",
    "parse_size",
    "partitions_for",
    "refused",
    "result_budget",
]

RESULT_FRACTION = 0.5
"""``ranks`` collects at most this fraction of ``spark.driver.maxResultSize``."""
MAX_OFFERED_PER_ROW = 32.0
"""Above this many intervals offered per run row in the second scan, ``auto``
uses ``partitions``: each offer is a random probe of the broadcast table."""
ROWS_PER_PARTITION = 2_000_000
"""``partitions`` shuffles into ``ceil(rows / ROWS_PER_PARTITION)`` partitions by
default (at least ``spark.default.parallelism``): 2M rows of ``(q, d, s, g)``
are ~100 MB of shuffle, and one task's Python worker holds a chunk of them."""

COLLECT_FIRST_SHARE = 1 / 256
"""The judgments are collected at once, and counted and sized from what came, when Spark
estimates them (its plan's ``sizeInBytes``: a file's bytes on disk) at most this share of
:func:`result_budget`: a judgments file would have to grow 256-fold from its compressed
bytes to reach the budget, and ``spark.driver.maxResultSize`` still bounds the collection."""

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def parse_size(text: str) -> int:
    """Bytes in a Spark size setting (``"1g"``, ``"512m"``, ``"4096"``; units of 1024).

    Examples
    --------
    >>> parse_size("1g"), parse_size("512M"), parse_size("0"), parse_size("2kb")
    (1073741824, 536870912, 0, 2048)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)b?\s*", str(text).lower())
    if match is None:
        raise InvalidParameterError(f"not a Spark size: {text!r} (expected e.g. '1g', '512m')")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def result_budget(spark: SparkSession) -> int:
    """Bytes the ``ranks`` strategy may collect to the driver.

    :data:`RESULT_FRACTION` of ``spark.driver.maxResultSize`` (default 1g);
    when that is 0 (unlimited), half of ``spark.driver.memory`` (default 1g).
    """
    conf = spark.sparkContext.getConf()
    limit = parse_size(conf.get("spark.driver.maxResultSize", "1g"))
    if limit == 0:
        limit = parse_size(conf.get("spark.driver.memory", "1g"))
    return int(limit * RESULT_FRACTION)


def count_and_size(frame: DataFrame) -> tuple[int, int]:
    """Rows of *frame* (``q, d`` and numbers) and its bytes collected as Arrow: one job.

    Each row costs its ids' UTF-8 bytes, 8 bytes of offsets per id and 8
    bytes per number column. The rows and their ids' bytes are summed by one
    aggregation (a count and a sample of the rows were two jobs each).
    """
    from pyspark.sql import functions as sf

    numbers = len(frame.columns) - 2
    row = frame.agg(
        sf.count(sf.lit(1)).alias("rows"),
        sf.sum(sf.octet_length("q") + sf.octet_length("d")).alias("ids"),
    ).collect()[0]
    rows = int(row["rows"])
    return rows, int(row["ids"] or 0) + rows * (16 + 8 * numbers)


def size_of_table(table: Any) -> tuple[int, int]:
    """:func:`count_and_size` of a table already collected (``q, d`` and numbers).

    The same sum as Spark's: a row whose query or document is null adds no id bytes.

    Examples
    --------
    >>> import pyarrow as pa
    >>> size_of_table(pa.table({"q": ["1", "2", None], "d": ["ab", "c", "d"], "g": [1, 0, 2]}))
    (3, 77)
    """
    import pyarrow.compute as pc

    rows = table.num_rows
    both = pc.and_(pc.is_valid(table["q"]), pc.is_valid(table["d"]))
    ids = pc.sum(pc.if_else(both, pc.add(pc.binary_length(table["q"]),
                                         pc.binary_length(table["d"])), 0)).as_py()
    return rows, int(ids or 0) + rows * (16 + 8 * (table.num_columns - 2))


def collected_if_small(frame: DataFrame, budget: int) -> Any:
    """*frame* collected as Arrow when Spark estimates it small, else None (nothing run).

    Small: Spark's estimate of its bytes at most :data:`COLLECT_FIRST_SHARE` of
    *budget*, and ``spark.driver.maxResultSize`` set (not 0, unlimited), so that
    Spark bounds what comes. Then one job collects the frame and
    :func:`size_of_table` sizes it, instead of a job to size it and one to
    collect it. A collection Spark stops at ``spark.driver.maxResultSize`` gives
    None: the frame is sized by :func:`count_and_size` as any other.
    """
    from rankwise.engines.spark._frames import to_arrow

    conf = frame.sparkSession.sparkContext.getConf()
    if parse_size(conf.get("spark.driver.maxResultSize", "1g")) == 0:
        return None
    estimate = int(str(frame._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))
    if estimate > budget * COLLECT_FIRST_SHARE:
        return None
    try:
        return to_arrow(frame)
    except Exception as error:  # py4j's, or pyspark's own class of the Java exception
        if "is bigger than spark.driver.maxResultSize" in str(error):  # Spark's stop (a cause)
            return None
        raise


def offered_per_row(query: np.ndarray, cell: np.ndarray) -> float:
    """Intervals the second scan's grid offers a run row, on average (an estimate).

    A run row is offered every entry of its (query, cell); taking the rows
    to spread over the cells as the entries do, that is the sum of squared
    entries per key over the number of entries.

    Examples
    --------
    >>> offered_per_row(np.array([0, 0, 0, 1]), np.array([5, 5, 6, 5]))
    1.5
    """
    if len(query) == 0:
        return 0.0
    keys = np.stack([np.asarray(query, np.int64), np.asarray(cell, np.int64)], axis=1)
    _, per_key = np.unique(keys, axis=0, return_counts=True)
    return float(np.sum(per_key.astype(np.float64) ** 2) / len(query))


def partitions_for(rows: int, parallelism: int) -> int:
    """Partitions of the shuffle by query for *rows* rows: :data:`ROWS_PER_PARTITION` each.

    Examples
    --------
    >>> partitions_for(7_000_000, 2), partitions_for(10_000_000_000, 200), partitions_for(10, 8)
    (4, 5000, 8)
    """
    return max(int(parallelism), 1, math.ceil(rows / ROWS_PER_PARTITION))


def describe_bytes(size: float) -> str:
    """A size for messages.

    Examples
    --------
    >>> describe_bytes(3.5e9), describe_bytes(2048), describe_bytes(10)
    ('3.3 GiB', '2.0 KiB', '10 bytes')
    """
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return counted(int(size), "byte")


def refused(measures: Any, strategy: str) -> str | None:
    """Why *strategy* cannot compute one of *measures* (None: it can).

    Every strategy computes rankwise's own measures and the measures of other
    tools' dialects that rank the run as trec_eval does. Another ranking (ties in
    input order, scores rounded to float32, a query's own id dropped) is made by
    the ``jvm`` pass only; ranx's order of tied documents by none (it is a
    quicksort of each query's rows in their input order). The queries a measure
    leaves out or adds (``empty="skip"``, ``missing="zero"``) are counted on the
    driver: not by ``partitions``, which takes the means in Spark.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> refused([parse("ndcg@10"), parse("map(dialect=sklearn)")], "partitions") is None
    True
    >>> print(refused([parse("ndcg@10(dialect=spark)")], "ranks"))  # doctest: +ELLIPSIS
    ndcg@10(dialect=spark) ranks tied documents in the run's input order, which only the jvm ...
    >>> print(refused([parse("ndcg@10(dialect=ranx)")], "auto"))  # doctest: +ELLIPSIS
    ndcg@10(dialect=ranx) ranks tied documents as ranx does (a quicksort of each query's rows ...
    """
    from rankwise.engines.core import DEFAULT_KEY, plan_of

    for measure in measures:
        plan = plan_of(measure)
        order, float32, drop_self = plan.key
        if order == "ranx":
            return (
                f"{measure} ranks tied documents as ranx does (a quicksort of each query's rows "
                "in their input order), which needs the whole query in one place: the Spark "
                "engine does not; use the numpy engine"
            )
        if plan.key != DEFAULT_KEY and strategy in ("ranks", "partitions"):
            how = ("ranks tied documents in the run's input order" if order == "input"
                   else "compares scores rounded to float32" if float32
                   else "drops a query's own id from its ranking" if drop_self else "")
            return (f"{measure} {how}, which only the jvm strategy does (strategy='auto' or "
                    "'jvm', with Java on the driver)")
        conventions = plan.conventions
        if strategy == "partitions" and (conventions.missing == "zero"
                                         or conventions.empty == "skip"):
            return (f"{measure} counts queries its own way (judged queries the run lacks, or "
                    "queries left out of the mean), which the partitions strategy does not: "
                    "strategy='auto', 'jvm' or 'ranks' do")
    return None
