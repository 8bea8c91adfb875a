"""Spark DataFrames from the recommender inputs: interactions, ordered lists, the catalogue.

The readers of :mod:`rankwise.recommenders.spark`: each input (a Spark
DataFrame, or a local table, ``{user: [items]}`` or 2-D array made into one)
becomes a frame of ids as text (``_u``, ``_i``), checked by the numpy
path's rules and with its messages: numbers present and finite, an item
listed twice refused (or the worse copies dropped), seen items removed,
lists renumbered and cut at ``k``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import DuplicateEntryError, InputFormatError, InvalidParameterError
from rankwise.recommenders.inputs import column_named, find_column, numbers_of
from rankwise.suggest import did_you_mean

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["ITEM", "POS", "USER", "SparkPlan", "catalogue_given", "column_of", "grade_numbers",
           "interactions", "is_spark_frame", "lists", "local_frame", "one", "order_numbers"]

USER, ITEM, POS = "_u", "_i", "_pos"
"""The columns of the frames made here: user and item ids as text, position in the list."""


@dataclass
class SparkPlan:
    """The frames of one evaluation on Spark, made once (the plan the measures are computed on).

    Attributes
    ----------
    spark : SparkSession
    recs : DataFrame
        The recommendations as given (their item column's type, the default catalogue).
    columns : dict or None
        The column map.
    truth, history, seen : DataFrame or None
        ``_u, _i, _r, _n``: held-out, training (popularity) and excluded interactions.
    lists, base_lists : DataFrame
        ``_u, _i, _pos``: the lists ordered, seen items removed, cut at k (and the
        baseline's, for serendipity).
    evaluated : DataFrame
        ``_u``: the users evaluated; *n_evaluated* of them.
    kept : DataFrame
        The lists of the evaluated users.
    user_type : DataType
        The type of the user ids as given (the results' ``user`` column).
    numeric_items : bool
        The item ids are integers (ties of the long tail ordered by value).
    cached : list of DataFrame
        What the evaluation persisted, released at its end.
    """

    spark: SparkSession
    recs: DataFrame
    columns: Mapping[str, str] | None
    truth: DataFrame | None
    history: DataFrame | None
    seen: DataFrame | None
    lists: DataFrame
    base_lists: DataFrame | None
    evaluated: DataFrame
    n_evaluated: int
    kept: DataFrame
    user_type: Any
    numeric_items: bool
    cached: list[DataFrame] = field(default_factory=list)
    emptied: int = 0  # test users left out (missing="skip") as exclusion emptied their lists

    def release(self) -> None:
        """Unpersist what the evaluation cached."""
        for frame in self.cached:
            frame.unpersist()


def is_spark_frame(obj: Any) -> bool:
    """True for a pyspark DataFrame (classic or Connect), without importing pyspark."""
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pyspark")


def column_of(frame: DataFrame, role: str, columns: Mapping[str, str] | None, what: str,
              *, required: bool = True) -> str | None:
    """The column of a Spark DataFrame playing *role* (as ``inputs.find_column``)."""
    return column_named(list(frame.columns), role, columns, what, required=required)


def interactions(frame: DataFrame, columns: Mapping[str, str] | None, what: str,
                 rating: str | None = None) -> DataFrame:
    """``_u, _i, _r, _n``: one row per (user, item), ratings their maximum, _n the rows."""
    from pyspark.sql import functions as sf

    user = column_of(frame, "user", columns, what)
    item = column_of(frame, "item", columns, what)
    if rating is not None and rating not in frame.columns:
        raise InvalidParameterError(
            f"relevance={rating!r} names no column of {what}; columns are {frame.columns}"
            + did_you_mean(rating, frame.columns))
    if rating is not None:
        refuse_bad_numbers(frame, str(user), str(item), rating, "grade", what)
    grade = sf.col(rating).cast("double") if rating is not None else sf.lit(1.0)
    return (frame.select(sf.col(str(user)).cast("string").alias(USER),
                         sf.col(str(item)).cast("string").alias(ITEM), grade.alias("_r"))
            .groupBy(USER, ITEM).agg(sf.max("_r").alias("_r"), sf.count(sf.lit(1)).alias("_n")))


def refuse_bad_numbers(frame: DataFrame, user: str, item: str, column: str, role: str,
                        what: str) -> None:
    """The numpy path's rule on a Spark column: numbers (or decimal text), present, finite.

    The first bad row is named by its user and item, with the value as given.
    """
    from pyspark.sql import functions as sf

    value = sf.col(column).try_cast("double")  # null for text that is no number
    bad = frame.select(sf.col(user).cast("string").alias(USER),
                       sf.col(item).cast("string").alias(ITEM),
                       sf.col(column).cast("string").alias("_raw"), value.alias("_v")).filter(
        sf.isnan("_v") | sf.col("_v").isNull() | (sf.abs("_v") == float("inf"))
    ).limit(1).collect()
    if not bad:
        return
    label = role if column == role else f"{role} (column {column!r})"
    row = bad[0]
    if row["_raw"] is None:
        problem = "is missing (null)"
    elif row["_v"] is None:
        problem = f"must be a number, got {row['_raw']!r}"
    else:
        problem = f"must be a finite number, got {row['_v']}"
    raise InputFormatError(f"{what}: {label} {problem} (user {row[USER]!r}, item "
                           f"{row[ITEM]!r})")


def lists(frame: DataFrame, columns: Mapping[str, str] | None, duplicates: str,
          seen: DataFrame | None, k: int | None) -> DataFrame:
    """``_u, _i, _pos``: lists ordered, duplicates handled, seen items removed, cut at k."""
    from pyspark.sql import Window
    from pyspark.sql import functions as sf

    what = "recommendations"
    user = str(column_of(frame, "user", columns, what))
    item = str(column_of(frame, "item", columns, what))
    rank = column_of(frame, "rank", columns, what, required=False)
    score = None if rank else column_of(frame, "score", columns, what, required=False)
    rows = frame.select(sf.col(user).cast("string").alias(USER),
                        sf.col(item).cast("string").alias(ITEM),
                        *([sf.col(rank or str(score)).cast("double").alias("_v")]
                          if rank or score else []),
                        sf.monotonically_increasing_id().alias("_row"))
    if rank or score:
        refuse_bad_numbers(frame, user, item, str(rank or score), "rank" if rank else "score",
                            what)
        key = [sf.col("_v").asc() if rank else sf.col("_v").desc(), sf.col("_row").asc()]
    else:
        key = [sf.col("_row").asc()]
    ordered = rows.withColumn("_first", sf.row_number().over(
        Window.partitionBy(USER).orderBy(*key)))
    copies = sf.row_number().over(Window.partitionBy(USER, ITEM).orderBy("_first"))
    ordered = ordered.withColumn("_copy", copies)
    if duplicates == "error":
        twice = ordered.filter(sf.col("_copy") > 1).limit(1).collect()
        if twice:
            raise DuplicateEntryError(
                f"{what}: item {twice[0][ITEM]!r} is recommended twice to user "
                f"{twice[0][USER]!r}; give each pair once, or keep the best-ranked one with "
                "duplicates='first'")
    kept = ordered.filter(sf.col("_copy") == 1).select(USER, ITEM, "_first")
    if seen is not None:
        kept = kept.join(seen.select(USER, ITEM), [USER, ITEM], "left_anti")
    cut = kept.withColumn(POS, sf.row_number().over(Window.partitionBy(USER).orderBy("_first")))
    if k is not None:
        cut = cut.filter(sf.col(POS) <= k)
    return cut.select(USER, ITEM, POS)


def local_frame(spark: SparkSession, obj: Any, what: str, users: Any = None, *,
                numbers: Callable[[pa.Table], object] | None = None) -> DataFrame:
    """A Spark DataFrame from what the numpy path accepts (tables, top-k lists, 2-D arrays).

    *numbers* checks a local table's number columns as the numpy path does
    (its errors name the file and line of a table read from a file).
    """
    import pyarrow as pa

    from rankwise.recommenders.inputs import _columns_like, as_table

    if is_spark_frame(obj):
        return cast("DataFrame", obj)
    if isinstance(obj, np.ndarray) or (isinstance(obj, (list, tuple)) and len(obj)
                                       and isinstance(obj[0], (list, tuple, np.ndarray))):
        matrix = np.asarray(obj)
        if matrix.ndim != 2:
            raise InputFormatError(f"{what}: a 2-D array of item ids (one row per user) was "
                                   f"expected, got {counted(matrix.ndim, 'dimension')}")
        index = np.arange(len(matrix)) if users is None else np.asarray(users)
        width = matrix.shape[1]
        table = pa.table({"user": np.repeat(index, width), "item": matrix.reshape(-1),
                          "rank": np.tile(np.arange(1, width + 1), len(matrix))})
    elif isinstance(obj, Mapping) and obj and all(
            isinstance(v, (list, tuple, np.ndarray)) for v in obj.values()) and \
            not _columns_like(obj, None):
        lengths = [len(v) for v in obj.values()]
        table = pa.table({
            "user": pa.array([u for u, n in zip(obj, lengths) for _ in range(n)]),
            "item": pa.array([x for v in obj.values()
                              for x in (v.tolist() if isinstance(v, np.ndarray) else v)]),
            "rank": pa.array([r + 1 for n in lengths for r in range(n)], pa.int64())})
    else:
        table = as_table(obj, what)
        if numbers is not None:
            numbers(table)
    # combined: pyspark 4.3 loses rows of a table whose columns are chunked differently
    return spark.createDataFrame(table.combine_chunks())


def order_numbers(table: pa.Table, columns: Mapping[str, str] | None) -> None:
    """The numpy path's checks of a local table's rank or score column (its messages)."""
    what = "recommendations"
    rank = find_column(table, "rank", columns, what, required=False)
    score = None if rank else find_column(table, "score", columns, what, required=False)
    if rank or score:
        numbers_of(table, str(rank or score), "rank" if rank else "score", what)


def grade_numbers(table: pa.Table, relevance: str | None) -> None:
    """The numpy path's check of a local test table's grades (``relevance=``), if any."""
    if relevance is not None and relevance in table.column_names:
        numbers_of(table, relevance, "grade", "test", booleans=True)


def catalogue_given(spark: SparkSession, catalogue: Any, columns: Mapping[str, str] | None
                    ) -> tuple[int, DataFrame | None]:
    """The size of the catalogue given, and its items (``_i``, text, distinct) unless a number."""
    from pyspark.sql import functions as sf

    if isinstance(catalogue, (int, np.integer)) and not isinstance(catalogue, bool):
        return int(catalogue), None
    if isinstance(catalogue, (list, tuple, np.ndarray)) or type(catalogue).__name__ in (
            "Series", "Array", "ChunkedArray", "Index"):
        import pyarrow as pa

        ids = sorted({str(x) for x in list(catalogue)})
        return len(ids), spark.createDataFrame(pa.table({ITEM: pa.array(ids, pa.string())}))
    frame = local_frame(spark, catalogue, "catalogue")
    item = column_of(frame, "item", columns, "catalogue")
    items = frame.select(sf.col(str(item)).cast("string").alias(ITEM)).distinct()
    return int(items.count()), items


def one(frame: DataFrame) -> Any:
    """The one row of an aggregation."""
    row = frame.first()
    if row is None:  # pragma: no cover - an aggregation without grouping has one row
        raise RuntimeError("an aggregation returned no row")
    return row

