"""Recommender evaluation on Spark: the numpy path's numbers, for logs that outgrow one machine.

:func:`evaluate_recommendations` takes Spark DataFrames of held-out
interactions, recommendations (``user, item, score`` or ``rank``, or rows in
order) and optional training interactions, and does on Spark what
:func:`rankwise.evaluate_recommendations` does with numpy:

1. order each user's list (score descending or rank ascending, ties by the
   DataFrame's row order, ``monotonically_increasing_id``), refuse (or with
   ``duplicates="first"`` drop the worse copies of) an item listed twice;
2. remove the items each user saw (``exclude=``, an anti-join), renumber,
   cut at ``k``;
3. accuracy measures through the Spark ranking engine
   (:func:`rankwise.spark.evaluate`, score = -position);
4. beyond-accuracy measures as Spark aggregations over the evaluated users'
   lists: per user (novelty, ARP, APLT, EPC) as grouped means, per item
   (exposure) collected (one row per recommended item) for coverage, Gini
   and entropy, personalisation from per-item sums of 1/sqrt(|L_u|),
   PopREO from four counts, serendipity from a join with the baseline's
   lists. Item popularity (one row per training item) is collected to find
   the long tail.

Serendipity against ``baseline=`` joins the baseline's lists (made as the
lists are). With ``segments=`` the per-user values are collected and the
segment means and test computed on the driver, the whole-set measures on
Spark per segment's lists.

Per-user values equal the numpy path's to 1e-12 (``tests/engines/spark/
test_recommenders.py``). ILD joins each list row with its item's vector
and runs the numpy kernel on whole users in ``applyInArrow``
(:mod:`rankwise.recommenders.spark_vectors`), and so does the Recommenders'
serendipity, with the user's training rows in the same group. The long
tail orders items of equal popularity by id, as the numpy path does.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import DEPRECATED, renamed
from rankwise._wording import counted
from rankwise.exceptions import (
    DuplicateEntryError,
    InputFormatError,
    InvalidParameterError,
    RankwiseWarning,
)
from rankwise.options import (
    Duplicates,
    Missing,
    RecommenderOptions,
    SegmentTest,
    recommender_options_from,
)
from rankwise.recommenders import beyond, spark_vectors
from rankwise.recommenders.evaluation import (
    TEST_RENAMED,
    BeyondMeasure,
    RecommenderResults,
    SegmentResults,
    _DefaultCatalogue,
    _required_measures,
    parse_beyond,
    recbole_tail,
)
from rankwise.recommenders.inputs import argument, column_named, find_column, numbers_of
from rankwise.suggest import did_you_mean

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from rankwise.engines.spark.results import SparkResults
    from rankwise.report.tables import Table

__all__ = ["SPARK_BEYOND", "SparkRecommenderResults", "evaluate_collected",
           "evaluate_recommendations", "is_spark_frame"]

SPARK_BEYOND = ("coverage", "gini", "entropy", "novelty", "epc", "arp", "aplt", "popreo",
                "personalisation", "serendipity", "ild")
"""The beyond-accuracy measures computed on Spark."""

USER, ITEM, POS = "_u", "_i", "_pos"


def is_spark_frame(obj: Any) -> bool:
    """True for a pyspark DataFrame (classic or Connect), without importing pyspark."""
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pyspark")


class SparkRecommenderResults(Tabular):
    """What :func:`evaluate_recommendations` on Spark returns.

    Like every result it has ``to_dict``, ``to_pandas`` and ``to_polars``
    (one row per user, as :class:`RecommenderResults`: they collect
    :attr:`per_user`), ``to_table`` and :meth:`table` (no collect), shows as a
    table in a notebook, and pickles: a pickled copy holds the values
    collected (:meth:`to_results`), its :attr:`per_user` is None.

    Attributes
    ----------
    per_user : pyspark.sql.DataFrame
        One row per evaluated user: ``user`` (the ids as given) and one
        column per per-user measure (accuracy measures by canonical name,
        beyond-accuracy ones as written, e.g. ``novelty@10``); null where a
        measure leaves a user out.
    mean : dict
        As :attr:`rankwise.recommenders.RecommenderResults.mean`: means over
        users (nulls ignored) and the whole-set values (coverage, Gini, ...).
    accuracy : SparkResults or None
        The Spark ranking engine's results for the accuracy measures.
    users : int
        The number of evaluated users.
    segments : SegmentResults or None
        With ``segments=``: every measure per segment, and the test.
    notes : list of str
        As :attr:`rankwise.recommenders.RecommenderResults.notes` (the
        default catalogue).
    """

    def __init__(self, per_user: DataFrame, mean: dict[str, float], measures: list[str],
                 users: int, accuracy: SparkResults | None,
                 segments: SegmentResults | None = None) -> None:
        self.per_user, self.mean, self.users = per_user, mean, users
        self.measures = measures
        self.accuracy = accuracy
        self.segments = segments
        self.notes: list[str] = []
        self._local: RecommenderResults | None = None

    def to_results(self) -> RecommenderResults:
        """Collect the per-user values: a :class:`RecommenderResults` (users sorted by id)."""
        if self._local is not None:
            return self._local
        table = self.per_user.orderBy("user").toArrow()
        per_user = {
            name: np.asarray(table.column(name).to_numpy(zero_copy_only=False),
                             dtype=np.float64)
            for name in self.measures
        }
        accuracy = self.accuracy.to_results() if self.accuracy is not None else None
        self._local = RecommenderResults(table.column("user").to_pylist(), per_user,
                                         dict(self.mean), accuracy, segments=self.segments,
                                         notes=list(self.notes))
        return self._local

    def to_dict(self) -> dict[str, Any]:
        """As ``RecommenderResults.to_dict`` (collects the per-user values)."""
        return self.to_results().to_dict()

    def to_pandas(self) -> Any:
        """One row per user, as ``RecommenderResults.to_pandas`` (collects)."""
        return self.to_results().to_pandas()

    def to_polars(self) -> Any:
        """One row per user, as ``RecommenderResults.to_polars`` (collects)."""
        return self.to_results().to_polars()

    def table(self) -> Table:
        """One row: the users evaluated, then every measure's value (no collect)."""
        from rankwise.report.tables import Table

        names = list(self.mean)
        return Table(["users", *names], ["int", *["float"] * len(names)],
                     [[self.users, *(self.mean[name] for name in names)]])

    def _caption(self) -> str:
        return f"SparkRecommenderResults({counted(self.users, 'user')})"

    def __getstate__(self) -> dict[str, Any]:
        """The values collected; the Spark DataFrames stay in their session."""
        state = dict(self.__dict__)
        state["_local"] = self.to_results()
        state["per_user"] = None
        return state

    def unpersist(self) -> None:
        """Release what the evaluation cached on the cluster."""
        self.per_user.unpersist()
        if self.accuracy is not None:
            self.accuracy.unpersist()

    def __repr__(self) -> str:
        width = max([len(name) for name in self.mean] + [7])
        lines = [self._caption()]
        lines += [f"  {name:<{width}}  {value:.4f}" for name, value in self.mean.items()]
        return "\n".join(lines)


def _column(frame: DataFrame, role: str, columns: Mapping[str, str] | None, what: str,
            *, required: bool = True) -> str | None:
    """The column of a Spark DataFrame playing *role* (as ``inputs.find_column``)."""
    return column_named(list(frame.columns), role, columns, what, required=required)


def _interactions(frame: DataFrame, columns: Mapping[str, str] | None, what: str,
                  rating: str | None = None) -> DataFrame:
    """``_u, _i, _r, _n``: one row per (user, item), ratings their maximum, _n the rows."""
    from pyspark.sql import functions as sf

    user = _column(frame, "user", columns, what)
    item = _column(frame, "item", columns, what)
    if rating is not None and rating not in frame.columns:
        raise InvalidParameterError(
            f"relevance={rating!r} names no column of {what}; columns are {frame.columns}"
            + did_you_mean(rating, frame.columns))
    if rating is not None:
        _refuse_bad_numbers(frame, str(user), str(item), rating, "grade", what)
    grade = sf.col(rating).cast("double") if rating is not None else sf.lit(1.0)
    return (frame.select(sf.col(str(user)).cast("string").alias(USER),
                         sf.col(str(item)).cast("string").alias(ITEM), grade.alias("_r"))
            .groupBy(USER, ITEM).agg(sf.max("_r").alias("_r"), sf.count(sf.lit(1)).alias("_n")))


def _refuse_bad_numbers(frame: DataFrame, user: str, item: str, column: str, role: str,
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


def _lists(frame: DataFrame, columns: Mapping[str, str] | None, duplicates: str,
           seen: DataFrame | None, k: int | None) -> DataFrame:
    """``_u, _i, _pos``: lists ordered, duplicates handled, seen items removed, cut at k."""
    from pyspark.sql import Window
    from pyspark.sql import functions as sf

    what = "recommendations"
    user = str(_column(frame, "user", columns, what))
    item = str(_column(frame, "item", columns, what))
    rank = _column(frame, "rank", columns, what, required=False)
    score = None if rank else _column(frame, "score", columns, what, required=False)
    rows = frame.select(sf.col(user).cast("string").alias(USER),
                        sf.col(item).cast("string").alias(ITEM),
                        *([sf.col(rank or str(score)).cast("double").alias("_v")]
                          if rank or score else []),
                        sf.monotonically_increasing_id().alias("_row"))
    if rank or score:
        _refuse_bad_numbers(frame, user, item, str(rank or score), "rank" if rank else "score",
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
                f"{twice[0][USER]!r}; give each pair once, or pass duplicates='first' to keep "
                "the best-ranked one")
    kept = ordered.filter(sf.col("_copy") == 1).select(USER, ITEM, "_first")
    if seen is not None:
        kept = kept.join(seen.select(USER, ITEM), [USER, ITEM], "left_anti")
    cut = kept.withColumn(POS, sf.row_number().over(Window.partitionBy(USER).orderBy("_first")))
    if k is not None:
        cut = cut.filter(sf.col(POS) <= k)
    return cut.select(USER, ITEM, POS)


def _local_frame(spark: SparkSession, obj: Any, what: str, users: Any = None, *,
                 numbers: Callable[[pa.Table], object] | None = None) -> DataFrame:
    """A Spark DataFrame from what the numpy path accepts (tables, top-k lists, 2-D arrays).

    *numbers* checks a local table's number columns as the numpy path does
    (its errors name the file and line of a table read from a file).
    """
    import pyarrow as pa

    from rankwise.recommenders.inputs import _columns_like, as_table

    if is_spark_frame(obj):
        return obj
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


def _order_numbers(table: pa.Table, columns: Mapping[str, str] | None) -> None:
    """The numpy path's checks of a local table's rank or score column (its messages)."""
    what = "recommendations"
    rank = find_column(table, "rank", columns, what, required=False)
    score = None if rank else find_column(table, "score", columns, what, required=False)
    if rank or score:
        numbers_of(table, str(rank or score), "rank" if rank else "score", what)


def _grade_numbers(table: pa.Table, relevance: str | None) -> None:
    """The numpy path's check of a local test table's grades (``relevance=``), if any."""
    if relevance is not None and relevance in table.column_names:
        numbers_of(table, relevance, "grade", "test", booleans=True)


def _catalogue_given(spark: SparkSession, catalogue: Any, columns: Mapping[str, str] | None
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
    frame = _local_frame(spark, catalogue, "catalogue")
    item = _column(frame, "item", columns, "catalogue")
    items = frame.select(sf.col(str(item)).cast("string").alias(ITEM)).distinct()
    return int(items.count()), items


def _one(frame: DataFrame) -> Any:
    """The one row of an aggregation."""
    row = frame.first()
    if row is None:  # pragma: no cover - an aggregation without grouping has one row
        raise RuntimeError("an aggregation returned no row")
    return row


def _refuse(name: str, why: str) -> InvalidParameterError:
    return InvalidParameterError(
        f"{name} is not available with the Spark engine ({why}); the measures computed on "
        f"Spark are the accuracy measures and {', '.join(SPARK_BEYOND)}: evaluate {name} "
        "with engine='numpy' on a sample, or collect the lists")


def evaluate_recommendations(
    held_out: Any = None,
    recommendations: Any = None,
    measures: str | Iterable[str] | None = None,
    *,
    k: int | None = None,
    exclude: Any = None,
    train: Any = None,
    catalogue: Any = None,
    features: Any = None,
    baseline: Any = None,
    segments: Any = None,
    segment_test: SegmentTest = "welch",
    users: Any = None,
    duplicates: Duplicates = "error",
    columns: Mapping[str, str] | None = None,
    relevance: str | None = None,
    rel: float = 1,
    missing: Missing = "skip",
    strategy: str = "auto",
    spark: SparkSession | None = None,
    options: RecommenderOptions | None = None,
    test: Any = DEPRECATED,
) -> SparkRecommenderResults:
    """Evaluate recommendation lists on Spark, with the numpy path's numbers.

    Parameters
    ----------
    held_out, recommendations, exclude, train : pyspark.sql.DataFrame (or local tables)
        As in :func:`rankwise.evaluate_recommendations`: held-out
        interactions (``user, item``, optional grades named by
        ``relevance=``), recommendations (``user, item, score`` or ``rank``;
        neither: the DataFrame's row order), items to remove per user before
        cutting at *k*, training interactions (popularity; defaults to
        *exclude*). Local tables, ``{user: [items]}`` and 2-D arrays are
        turned into DataFrames of the active session.
    measures : str or list of str
        Accuracy measures (through :func:`rankwise.spark.evaluate`) and
        :data:`SPARK_BEYOND`, with ``@k`` and ``(dialect=...)`` as in the
        numpy path.
    k, catalogue, users, duplicates, columns, relevance, rel, missing
        As in :func:`rankwise.evaluate_recommendations` (*catalogue*: a
        number, item ids, or a DataFrame with an item column).
    features : DataFrame or local item vectors, optional
        For ``ild``: as in :func:`rankwise.evaluate_recommendations` (a
        Spark DataFrame of features is collected: one row per item); without
        them items are compared by co-occurrence in *train*. The vectors are
        joined to the list rows and ILD is computed per user by the numpy
        kernel inside ``applyInArrow`` (whole users per group).
    baseline : DataFrame or local recommendations, optional
        A baseline recommender's lists (same forms as *recommendations*),
        for ``serendipity``: ordered, seen items removed and cut at *k* as
        the lists are.
    segments, segment_test
        As in :func:`rankwise.evaluate_recommendations` (*segments* may be a
        DataFrame of user and segment too): every measure per segment. The
        per-user means and the test between segments are computed on the
        driver from the per-user values (collected: one row per user); the
        whole-set measures (coverage, Gini, ...) on Spark, segment by segment.
    strategy : {"auto", "jvm", "ranks", "partitions"}
        The Spark ranking engine's strategy for the accuracy measures.
    spark : SparkSession, optional
        For local inputs; default: the active session (or a new one).
    options : RecommenderOptions, optional
        The options as one object (keywords given as well override it).
    test : DataFrame, optional
        Deprecated: the old name of *held_out* (a ``FutureWarning``).

    Returns
    -------
    SparkRecommenderResults
        ``per_user`` (a DataFrame), ``mean``, ``segments`` (with
        *segments*); ``to_results()`` collects a
        :class:`~rankwise.recommenders.RecommenderResults`.

    Notes
    -----
    Ties of score keep the DataFrame's row order, as the numpy path keeps
    the input's row order; a DataFrame read from several files orders its
    rows by partition. Give a ``rank`` column (or distinct scores) for lists
    whose order must not depend on how the data was written.

    Examples
    --------
    >>> from rankwise.spark import evaluate_recommendations  # doctest: +SKIP
    >>> r = evaluate_recommendations(test_df, recs_df, ["ndcg@10", "coverage@10", "gini@10"],
    ...                              k=100, exclude=train_df)  # doctest: +SKIP
    >>> r.mean  # doctest: +SKIP
    {'ndcg@10': 0.071, 'coverage@10': 0.42, 'gini@10': 0.87}
    """
    from pyspark.sql import functions as sf

    from rankwise.engines.spark import SparkEngine
    from rankwise.engines.spark._session import get_session
    from rankwise.evaluation import evaluate as engine_evaluate
    from rankwise.measures import parse

    # the body calls the held-out interactions "test", the name of the table in messages
    test = renamed("evaluate_recommendations", "test", "held_out", test, held_out, None,
                   note=TEST_RENAMED)
    measures = _required_measures(recommendations, measures)
    chosen = recommender_options_from(options, k=k, rel=rel, missing=missing,
                                      duplicates=duplicates, relevance=relevance,
                                      segment_test=segment_test)  # checked once, there
    k, rel, missing = chosen.k, chosen.rel, chosen.missing
    duplicates, relevance, segment_test = chosen.duplicates, chosen.relevance, \
        chosen.segment_test
    beyond_measures: list[BeyondMeasure] = []
    accuracy_names: list[str] = []
    for text in measures:
        parsed = parse_beyond(text)
        if parsed is None:
            parse(text)  # an unknown measure is said here
            accuracy_names.append(text)
            continue
        if parsed.name not in SPARK_BEYOND:
            raise _refuse(str(parsed), "it has no Spark implementation")
        beyond_measures.append(parsed)
    if accuracy_names and test is None:
        raise InvalidParameterError(f"{accuracy_names} need the held-out interactions (held_out=)")

    if spark is None:
        frames = [f for f in (test, recommendations, exclude, train) if is_spark_frame(f)]
        spark = frames[0].sparkSession if frames else get_session()
    recs = _local_frame(spark, recommendations, "recommendations", users,
                        numbers=lambda table: _order_numbers(table, columns))
    user_type = recs.schema[str(_column(recs, "user", columns, "recommendations"))].dataType
    truth = _interactions(_local_frame(
        spark, test, "test", numbers=lambda table: _grade_numbers(table, relevance)), columns,
        "test", relevance) if test is not None else None
    history_source = train if train is not None else exclude
    history = _interactions(_local_frame(spark, history_source, "train"), columns, "train") \
        if history_source is not None else None
    if exclude is None:
        seen = None
    elif train is None or exclude is train:
        seen = history
    else:
        seen = _interactions(_local_frame(spark, exclude, "exclude"), columns, "exclude")
    lists = _lists(recs, columns, duplicates, seen, k).persist()
    cached: list[DataFrame] = [lists]
    base_lists = None
    if baseline is not None:
        base_lists = _lists(_local_frame(spark, baseline, "baseline"), columns, duplicates,
                            seen, k).persist()
        cached.append(base_lists)

    listed = lists.select(USER).distinct()
    if truth is not None:
        test_users = truth.select(USER).distinct()
        evaluated = test_users.join(listed, USER, "left_semi") if missing == "skip" \
            else test_users
    else:
        evaluated = listed
    evaluated = evaluated.persist()
    cached.append(evaluated)
    n_evaluated = evaluated.count()
    if n_evaluated == 0:
        raise InvalidParameterError(
            "no user to evaluate: no test user has a recommendation list"
            if truth is not None else "the recommendations are empty")
    kept = lists.join(evaluated, USER, "left_semi")

    per_user: list[tuple[str, DataFrame]] = []  # (measure, frame of _u, _value)
    totals: dict[str, float] = {}
    accuracy = None
    if accuracy_names and truth is not None:
        qrels_df = truth.select(sf.col(USER).alias("query_id"), sf.col(ITEM).alias("doc_id"),
                                sf.col("_r").alias("relevance"))
        run_df = lists.select(sf.col(USER).alias("query_id"), sf.col(ITEM).alias("doc_id"),
                              (-sf.col(POS).cast("double")).alias("score"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankwiseWarning)
            accuracy = cast("SparkResults", engine_evaluate(  # collect=False: lazy
                qrels_df, run_df, accuracy_names, rel=rel, missing=missing,
                engine=SparkEngine(strategy=strategy, check_duplicates=False, collect=False)))
        for measure in accuracy.measures:
            name = str(measure)
            per_user.append((name, accuracy.per_query.select(
                sf.col("query_id").alias(USER), sf.col(f"`{name}`").alias("_value"))))

    stats = None  # per training item: _users (distinct users), _rows (interactions)
    if history is not None:
        stats = history.groupBy(ITEM).agg(sf.count(sf.lit(1)).alias("_users"),
                                       sf.sum("_n").cast("double").alias("_rows")).persist()
        cached.append(stats)
    popularity: dict[str, Any] = {}

    item_type = recs.schema[str(_column(recs, "item", columns, "recommendations"))].dataType
    numeric_items = item_type.typeName() in ("integer", "long", "short", "byte")
    catalogues: dict[str, Any] = {}  # "given": (size, items), "default": _DefaultCatalogue
    checked: set[str] = set()  # measures whose lists the catalogue given holds

    def default_catalogue(m: BeyondMeasure) -> _DefaultCatalogue:
        """Every item of the test, the lists and the training (as the numpy path counts)."""
        if "default" not in catalogues:
            made = _DefaultCatalogue(0, truth is not None, history is not None)
            made.available(m)  # only recommendations: no catalogue
            items = recs.select(sf.col(str(_column(recs, "item", columns, "recommendations")))
                                .cast("string").alias(ITEM))
            for frame in (truth, history, None if seen is history else seen):
                if frame is not None:
                    items = items.union(frame.select(ITEM))
            catalogues["default"] = replace(made, size=int(items.distinct().count()))
        known: _DefaultCatalogue = catalogues["default"]
        return known

    def catalogue_size(m: BeyondMeasure, counts_frame: DataFrame, recommended: int) -> int:
        """The catalogue's size, checked to hold every item recommended (once per measure)."""
        if catalogue is None:
            return default_catalogue(m).size
        if "given" not in catalogues:
            catalogues["given"] = _catalogue_given(spark, catalogue, columns)
        size, items = catalogues["given"]
        if str(m) in checked:  # checked on all the lists: a segment's are a part of them
            return int(size)
        outside, examples = 0, []
        if items is not None:
            missing = counts_frame.select(ITEM).join(items, ITEM, "left_anti")
            outside = missing.count()
            key = sf.col(ITEM).cast("long") if numeric_items else sf.col(ITEM)
            examples = [int(row[0]) if numeric_items else row[0]
                        for row in missing.orderBy(key).limit(5).collect()] if outside else []
        beyond.check_catalogue(recommended, int(size), outside=outside, examples=examples,
                               measure=str(m))
        checked.add(str(m))
        return int(size)

    def need_history(m: BeyondMeasure) -> DataFrame:
        if stats is None:
            raise InvalidParameterError(
                f"{m} needs the training interactions: give {argument('train')} (or "
                f"{argument('exclude')})")
        return stats

    def item_popularity(m: BeyondMeasure) -> tuple[list[str], np.ndarray]:
        """Training items (ids as text) and their interactions, collected once."""
        if "items" not in popularity:
            table = need_history(m).select(ITEM, "_rows").toArrow()
            popularity["items"] = table.column(ITEM).to_pylist()
            popularity["rows"] = np.asarray(table.column("_rows").to_numpy(), dtype=np.float64)
        return popularity["items"], popularity["rows"]

    def tail_frame(m: BeyondMeasure) -> DataFrame:
        """``_i, _tail, _head`` for the training items (the numpy path's long tail)."""
        items, rows = item_popularity(m)
        # ties of popularity by item id (numbers by value, text by bytes), as numpy's
        keys = [int(x) for x in items] if numeric_items else [x.encode() for x in items]
        order = np.argsort(np.array(keys, dtype=object), kind="stable")
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        if m.param("dialect") == "recbole":
            tail = recbole_tail(rows, rows > 0, m.param("tail"), ties=ranks)
        else:
            tail = beyond.long_tail(rows, head=m.param("head", 0.8), ties=ranks)
        head = (rows > 0) & ~tail
        return spark.createDataFrame(
            [(i, bool(t), bool(h)) for i, t, h in zip(items, tail, head)],
            schema=f"{ITEM} string, _tail boolean, _head boolean")

    vectors: list[tuple[DataFrame, int | None]] = []

    def item_vectors() -> tuple[DataFrame, int | None]:
        """The items' vectors (features, or co-occurrence in training), made once."""
        if not vectors:
            spark_vectors.need_vectors(features, history)
            if features is not None:
                frame, width = spark_vectors.features_frame(spark, features, columns, recs.schema[
                    str(_column(recs, "item", columns, "recommendations"))].dataType)
            else:
                frame, width = spark_vectors.cooccurrence_frame(history), None  # type: ignore[arg-type]
            vectors.append((frame, width))
        return vectors[0]

    train_users: list[float] = []

    def n_train_users() -> float:
        if not train_users:
            train_users.append(float(history.select(USER).distinct().count()))  # type: ignore[union-attr]
        return train_users[0]

    def beyond_on(lists_of: DataFrame, chosen: list[BeyondMeasure]
                  ) -> tuple[list[tuple[str, DataFrame]], dict[str, float]]:
        """The beyond-accuracy measures *chosen* over the lists *lists_of*."""
        per_user: list[tuple[str, DataFrame]] = []
        totals: dict[str, float] = {}
        for m in chosen:
            name = str(m)
            cut = lists_of if m.cutoff is None else lists_of.filter(sf.col(POS) <= m.cutoff)
            dialect = m.param("dialect")
            if m.name in ("coverage", "gini", "entropy"):
                counts_frame = cut.groupBy(ITEM).agg(sf.count(sf.lit(1)).alias("_c"))
                counts = np.asarray(counts_frame.select("_c").toArrow().column("_c").to_numpy(),
                                    dtype=np.float64)
                if m.name == "coverage":
                    size = catalogue_size(m, counts_frame, len(counts))
                    if size <= 0:
                        raise InvalidParameterError(f"the catalogue is empty (size {size})")
                    totals[name] = float(len(counts) / size)
                elif m.name == "gini":
                    size = catalogue_size(m, counts_frame, len(counts))
                    totals[name] = beyond.gini(counts, size,
                                               form="recbole" if dialect == "recbole" else
                                               "handbook")
                elif dialect == "recbole":
                    totals[name] = beyond.shannon_entropy(counts, base=math.e, per_item=True)
                else:
                    totals[name] = beyond.shannon_entropy(counts)
            elif m.name == "personalisation":
                lengths = cut.groupBy(USER).agg(sf.count(sf.lit(1)).alias("_len"))
                n = lengths.count()
                if n < 2:
                    totals[name] = float("nan")
                    continue
                weighted = cut.join(lengths, USER).withColumn(
                    "_w", 1 / sf.sqrt(sf.col("_len").cast("double")))
                per_item = weighted.groupBy(ITEM).agg(sf.sum("_w").alias("_s"),
                                                   sf.sum(sf.col("_w") * sf.col("_w")).alias("_s2"))
                overlap = _one(per_item.agg(sf.sum(sf.col("_s") * sf.col("_s") - sf.col("_s2"))))[0]
                totals[name] = 1 - float(overlap or 0.0) / (n * (n - 1))
            elif m.name == "novelty":
                item_stats = need_history(m)
                joined = cut.join(item_stats, ITEM, "left")
                if dialect == "recommenders":
                    total = _one(need_history(m).agg(sf.sum("_rows")))[0]
                    row = _one(joined.agg(
                        sf.sum(sf.when(sf.col("_rows") > 0,
                                       -sf.log2(sf.col("_rows") / sf.lit(float(total))))),
                        sf.count(sf.lit(1))))
                    totals[name] = float(row[0] or 0.0) / max(int(row[1]), 1)
                else:
                    population = n_train_users()
                    information = -sf.log2(sf.coalesce(sf.col("_users").cast("double"),
                                                       sf.lit(1.0)) / sf.lit(population))
                    per_user.append((name, joined.groupBy(USER).agg(
                        sf.avg(information).alias("_value"))))
            elif m.name in ("arp", "aplt"):
                if m.name == "arp":
                    joined = cut.join(need_history(m), ITEM, "left")
                    value = sf.coalesce(sf.col("_rows"), sf.lit(0.0))
                else:
                    joined = cut.join(tail_frame(m), ITEM, "left")
                    value = sf.coalesce(sf.col("_tail"), sf.lit(False)).cast("double")
                cutoff = m.cutoff if dialect == "recbole" else None
                aggregate = sf.sum(value) / sf.lit(float(cutoff)) if cutoff is not None \
                    else sf.avg(value)
                per_user.append((name, joined.groupBy(USER).agg(aggregate.alias("_value"))))
            elif m.name == "epc":
                if truth is None:
                    raise InvalidParameterError(f"{m} needs the held-out interactions (held_out=)")
                relevant = truth.filter(sf.col("_r") >= 1).select(
                    USER, ITEM, sf.lit(1.0).alias("_rel"))
                share = sf.coalesce(sf.col("_users").cast("double"), sf.lit(0.0)) / sf.lit(
                    n_train_users())
                disc = 1 / sf.log2(sf.col(POS).cast("double") + 1.0)
                joined = cut.join(need_history(m), ITEM, "left").join(
                    relevant, [USER, ITEM], "left")
                gain = disc * sf.coalesce(sf.col("_rel"), sf.lit(0.0)) * (1 - share)
                per_user.append((name, joined.groupBy(USER).agg(
                    (sf.sum(gain) / sf.sum(disc)).alias("_value"))))
            elif m.name == "ild":
                per_user.append((name, spark_vectors.ild_frame(
                    cut, *item_vectors(), max(n_evaluated, 1))))
            elif m.name == "serendipity" and dialect == "recommenders":
                if truth is None:
                    raise InvalidParameterError(f"{m} needs the held-out interactions (held_out=)")
                need_history(m)  # numpy's error without training interactions
                trained: DataFrame = history  # type: ignore[assignment]
                per_user.append((name, spark_vectors.history_serendipity_frame(
                    cut, trained, truth, *item_vectors(), max(n_evaluated, 1))))
            elif m.name == "serendipity":
                if base_lists is None:
                    raise InvalidParameterError(
                        f"{m} needs a baseline recommender's lists: give "
                        f"{argument('baseline')}")
                if truth is None:
                    raise InvalidParameterError(f"{m} needs the held-out interactions (held_out=)")
                base_cut = base_lists if m.cutoff is None else base_lists.filter(
                    sf.col(POS) <= m.cutoff)
                useful = truth.filter(sf.col("_r") >= 1).select(
                    USER, ITEM, sf.lit(True).alias("_useful"))
                joined = cut.join(base_cut.select(USER, ITEM, sf.lit(True).alias("_base")),
                                  [USER, ITEM], "left").join(useful, [USER, ITEM], "left")
                value = (sf.col("_base").isNull() & sf.col("_useful").isNotNull()).cast(
                    "double")  # unexpected and useful
                per_user.append((name, joined.groupBy(USER).agg(sf.avg(value).alias("_value"))))
            elif m.name == "popreo":
                if truth is None:
                    raise InvalidParameterError(f"{m} needs the held-out interactions (held_out=)")
                groups = tail_frame(m)
                relevant = truth.filter(sf.col("_r") >= 1).select(USER, ITEM)
                fresh = relevant.join(history.select(USER, ITEM), [USER, ITEM], "left_anti")  # type: ignore[union-attr]
                hits = cut.select(USER, ITEM).join(fresh, [USER, ITEM], "left_semi")

                def by_group(frame: DataFrame, groups: DataFrame = groups) -> tuple[int, int]:
                    row = _one(frame.join(groups, ITEM, "left").agg(
                        sf.sum(sf.coalesce(sf.col("_head"), sf.lit(False)).cast("long")),
                        sf.sum(sf.coalesce(sf.col("_tail"), sf.lit(False)).cast("long"))))
                    return int(row[0] or 0), int(row[1] or 0)

                denominators, numerators = by_group(fresh), by_group(hits)
                if 0 in denominators:
                    totals[name] = float("nan")
                    continue
                p = np.asarray(numerators, dtype=np.float64) / np.asarray(denominators)
                totals[name] = float(np.std(p) / np.mean(p)) if np.mean(p) > 0 else float("nan")

        return per_user, totals

    found, found_totals = beyond_on(kept, beyond_measures)
    per_user += found
    totals.update(found_totals)

    frame = evaluated
    for name, values in per_user:
        frame = frame.join(values.withColumnRenamed("_value", name), USER, "left")
    names = [name for name, _ in per_user]
    frame = frame.select(sf.col(USER).cast(user_type).alias("user"),
                         *[sf.col(f"`{name}`").cast("double").alias(name) for name in names])
    frame = frame.persist()
    means_row = _one(frame.agg(*[sf.avg(sf.col(f"`{name}`")).alias(name) for name in names]
                               )) if names else None
    mean: dict[str, float] = {
        name: float("nan") if means_row is None or means_row[name] is None
        else float(means_row[name]) for name in names}
    if accuracy is not None:
        mean.update({name: float(value) for name, value in accuracy.mean.items()})
    mean.update(totals)
    order = {text: n for n, text in enumerate(measures)}
    mean = {name: mean[name] for name in sorted(mean, key=lambda x: order.get(x, len(order)))}
    by_segments = None
    if segments is not None:
        set_level = [m for m in beyond_measures if str(m) in totals]
        by_segments = _segment_results(spark, segments, columns, frame, names, kept,
                                       lambda lists: beyond_on(lists, set_level)[1],
                                       [str(m) for m in set_level], list(mean), segment_test)
    for frame_cached in cached:
        frame_cached.unpersist()
    results = SparkRecommenderResults(frame, mean, names, n_evaluated, accuracy, by_segments)
    if catalogue is None and "default" in catalogues:
        results.notes.extend(catalogues["default"].notes(beyond_measures))
    return results


def _segment_results(spark: SparkSession, segments: Any, columns: Mapping[str, str] | None,
                     per_user: DataFrame, names: list[str], kept: DataFrame,
                     set_level: Callable[[DataFrame], dict[str, float]],
                     set_level_names: list[str], order: list[str], test: str
                     ) -> SegmentResults:
    """Every measure per segment: per-user values collected, whole-set ones on Spark.

    The segments' labels and users are read as the numpy path reads them
    (:func:`~rankwise.recommenders.evaluation.segment_labels`; a Spark
    DataFrame is collected first: one row per user), users matched by their
    ids as text (as the lists are).
    """
    import pyarrow as pa

    from rankwise.recommenders.evaluation import by_segment, segment_labels

    if is_spark_frame(segments):
        segments = segments.toArrow()
    ids, labels = segment_labels(segments, columns)
    ids = ids.to_pylist() if isinstance(ids, (pa.Array, pa.ChunkedArray)) else list(ids)
    segment_names = sorted(set(labels), key=lambda x: (str(type(x)), x))
    index = {name: n for n, name in enumerate(segment_names)}
    of_user = {str(user): index[label] for user, label in zip(ids, labels)}  # the last wins
    table = per_user.toArrow()
    users = [str(user) for user in table.column("user").to_pylist()]
    segment_of = np.fromiter((of_user.get(user, -1) for user in users), dtype=np.int64,
                             count=len(users))
    values = {name: np.asarray(table.column(name).to_numpy(zero_copy_only=False),
                               dtype=np.float64) for name in names}
    membership = spark.createDataFrame(pa.table({
        USER: pa.array(users, pa.string()), "_seg": pa.array(segment_of, pa.int64())}))

    def set_level_of(members: np.ndarray) -> dict[str, float]:
        nothing = {name: float("nan") for name in set_level_names}
        if not set_level_names or not members.any():
            return nothing
        segment = int(segment_of[members][0])
        who = membership.filter(membership["_seg"] == segment).select(USER)
        lists = kept.join(who, USER, "left_semi")
        return set_level(lists) if lists.limit(1).count() else nothing  # no list: NaN

    return by_segment(segment_of, segment_names, np.ones(len(users), dtype=bool), values,
                      set_level_of, order, test)


def evaluate_collected(held_out: Any, recommendations: Any, measures: str | Iterable[str],
                       **options: Any) -> RecommenderResults:
    """``rankwise.evaluate_recommendations(..., engine="spark")``: on Spark, then collected."""
    known = set(inspect.signature(evaluate_recommendations).parameters)
    for name, given in options.items():
        if name not in known and given is not None:
            raise _refuse(f"{name}=", "item vectors are compared by the numpy engine only")
    results = evaluate_recommendations(held_out, recommendations, measures, **{
        name: value for name, value in options.items() if name in known})
    try:
        return results.to_results()
    finally:
        results.unpersist()
