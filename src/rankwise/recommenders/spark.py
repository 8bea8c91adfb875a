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

The call is validate -> plan -> compute: the options checked once and the
measures split (:func:`_split_measures`), the frames made once into a
:class:`~rankwise.recommenders.spark_frames.SparkPlan` (:func:`_plan`, the
readers in :mod:`~rankwise.recommenders.spark_frames`), then the measures
(:func:`_compute`; the beyond-accuracy ones in
:mod:`~rankwise.recommenders.spark_beyond`). It is the Spark engine's
recommender capability (:data:`SPARK_PASS`, named by
``SparkEngine.capabilities.recommenders``), which the front doors
:func:`rankwise.evaluate_recommendations` and
:func:`rankwise.compare_recommendations` hand the evaluation to, with
:func:`shared_catalogue`, the one default catalogue of a comparison.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import DEPRECATED, renamed
from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError, RankwiseWarning
from rankwise.options import (
    Duplicates,
    Missing,
    RecommenderOptions,
    SegmentTest,
    recommender_options_from,
)
from rankwise.recommenders.evaluation import (
    TEST_RENAMED,
    BeyondMeasure,
    RecommenderResults,
    SegmentResults,
    _required_measures,
    emptied_notes,
    no_list_message,
    parse_beyond,
)
from rankwise.recommenders.spark_beyond import SparkBeyond
from rankwise.recommenders.spark_frames import (
    ITEM,
    POS,
    USER,
    SparkPlan,
    column_of,
    grade_numbers,
    interactions,
    is_spark_frame,
    local_frame,
    one,
    order_numbers,
)
from rankwise.recommenders.spark_frames import lists as ordered_lists

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from rankwise.engines.spark.results import SparkResults
    from rankwise.report.tables import Table

__all__ = ["SPARK_BEYOND", "SPARK_PASS", "SparkRecommenderPass", "SparkRecommenderResults",
           "evaluate_collected", "evaluate_recommendations", "is_spark_frame",
           "shared_catalogue"]

SPARK_BEYOND = ("coverage", "gini", "entropy", "novelty", "epc", "arp", "aplt", "popreo",
                "personalisation", "serendipity", "ild")
"""The beyond-accuracy measures computed on Spark."""

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
    # validate: the options checked once, the measures split (those without Spark code refused)
    test = renamed("evaluate_recommendations", "test", "held_out", test, held_out, None,
                   note=TEST_RENAMED)  # the body calls them "test", the table's name in messages
    listed = _required_measures(recommendations, measures)
    chosen = recommender_options_from(options, k=k, rel=rel, missing=missing,
                                      duplicates=duplicates, relevance=relevance,
                                      segment_test=segment_test)
    accuracy, wanted = _split_measures(listed, test is not None)
    # plan: the frames, made once
    plan = _plan(spark, test, recommendations, exclude=exclude, train=train, baseline=baseline,
                 users=users, columns=columns, options=chosen)
    # compute: accuracy through the Spark engine, the others as aggregations
    try:
        return _compute(plan, listed, accuracy, SparkBeyond(plan, catalogue, features),
                        wanted, chosen, strategy=strategy, segments=segments)
    finally:
        plan.release()


def _split_measures(measures: list[Any], with_test: bool
                    ) -> tuple[list[str], list[BeyondMeasure]]:
    """The accuracy measures (checked) and the beyond-accuracy ones (each with Spark code)."""
    from rankwise.measures import parse

    wanted: list[BeyondMeasure] = []
    accuracy: list[str] = []
    for text in measures:
        parsed = parse_beyond(text)
        if parsed is None:
            parse(text)  # an unknown measure is said here
            accuracy.append(text)
            continue
        if parsed.name not in SPARK_BEYOND:
            raise _refuse(str(parsed), "it has no Spark implementation")
        wanted.append(parsed)
    if accuracy and not with_test:
        raise InvalidParameterError(f"{accuracy} need the held-out interactions (held_out=)")
    return accuracy, wanted


def _session(spark: SparkSession | None, *inputs: Any) -> SparkSession:
    """The session given, else that of the first Spark DataFrame among *inputs*, else the active."""
    from rankwise.engines.spark._session import get_session

    if spark is not None:
        return spark
    frames = [frame for frame in inputs if is_spark_frame(frame)]
    return cast("SparkSession", frames[0].sparkSession) if frames else get_session()


def _plan(spark: SparkSession | None, test: Any, recommendations: Any, *, exclude: Any,
          train: Any, baseline: Any, users: Any, columns: Mapping[str, str] | None,
          options: RecommenderOptions) -> SparkPlan:
    """The frames of the evaluation: inputs read, lists made, the users evaluated."""
    relevance = options.relevance
    spark = _session(spark, test, recommendations, exclude, train)
    recs = local_frame(spark, recommendations, "recommendations", users,
                       numbers=lambda table: order_numbers(table, columns))
    user_type = recs.schema[str(column_of(recs, "user", columns, "recommendations"))].dataType
    truth = interactions(local_frame(
        spark, test, "test", numbers=lambda table: grade_numbers(table, relevance)), columns,
        "test", relevance) if test is not None else None
    history_source = train if train is not None else exclude
    history = interactions(local_frame(spark, history_source, "train"), columns, "train") \
        if history_source is not None else None
    if exclude is None:
        seen = None
    elif train is None or exclude is train:
        seen = history
    else:
        seen = interactions(local_frame(spark, exclude, "exclude"), columns, "exclude")
    made = ordered_lists(recs, columns, options.duplicates, seen, options.k).persist()
    cached: list[DataFrame] = [made]
    base_lists = None
    if baseline is not None:
        base_lists = ordered_lists(local_frame(spark, baseline, "baseline"), columns,
                                   options.duplicates, seen, options.k).persist()
        cached.append(base_lists)
    evaluated = _evaluated(made, truth, options.missing).persist()
    cached.append(evaluated)
    n_evaluated = evaluated.count()
    emptied = 0  # test users whose whole list exclude= removed (said when left out)
    if seen is not None and truth is not None and (options.missing == "skip" or
                                                   n_evaluated == 0):
        from pyspark.sql import functions as sf

        user = str(column_of(recs, "user", columns, "recommendations"))
        listed = recs.select(sf.col(user).cast("string").alias(USER)).distinct()
        emptied = truth.select(USER).distinct().join(listed, USER, "left_semi").join(
            made.select(USER).distinct(), USER, "left_anti").count()
    if n_evaluated == 0:
        raise InvalidParameterError(
            no_list_message(emptied) if truth is not None else "the recommendations are empty")
    item_type = recs.schema[str(column_of(recs, "item", columns, "recommendations"))].dataType
    plan = SparkPlan(spark, recs, columns, truth, history, seen, made, base_lists, evaluated,
                     n_evaluated, made.join(evaluated, USER, "left_semi"), user_type,
                     item_type.typeName() in ("integer", "long", "short", "byte"), cached)
    plan.emptied = emptied if options.missing == "skip" else 0
    return plan


def _evaluated(lists: DataFrame, truth: DataFrame | None, missing: str) -> DataFrame:
    """``_u``: the test users with a list (all of them with ``missing="zero"``), or the listed."""
    listed = lists.select(USER).distinct()
    if truth is None:
        return listed
    test_users = truth.select(USER).distinct()
    return test_users.join(listed, USER, "left_semi") if missing == "skip" else test_users


def _compute(plan: SparkPlan, listed: list[Any], accuracy_names: list[str],
             shared: SparkBeyond, wanted: list[BeyondMeasure], options: RecommenderOptions,
             *, strategy: str, segments: Any) -> SparkRecommenderResults:
    """Every measure over the plan's lists: the per-user values stay a DataFrame."""
    per_user, accuracy = _accuracy(plan, accuracy_names, options, strategy)
    found, totals = shared.on(plan.kept, wanted)
    per_user += found
    frame, names, mean = _per_user(plan, per_user, accuracy, totals, listed)
    by_segments = None
    if segments is not None:
        set_level = [m for m in wanted if str(m) in totals]
        by_segments = _segment_results(plan.spark, segments, plan.columns, frame, names,
                                       plan.kept, lambda lists: shared.on(lists, set_level)[1],
                                       [str(m) for m in set_level], list(mean),
                                       options.segment_test)
    results = SparkRecommenderResults(frame, mean, names, plan.n_evaluated, accuracy,
                                      by_segments)
    results.notes.extend(shared.notes(wanted))
    results.notes.extend(emptied_notes(plan.emptied))
    return results


def _accuracy(plan: SparkPlan, names: list[str], options: RecommenderOptions, strategy: str
              ) -> tuple[list[tuple[str, DataFrame]], SparkResults | None]:
    """The accuracy measures through the Spark engine (score = -position): per user, lazily."""
    from pyspark.sql import functions as sf

    from rankwise.engines.spark import SparkEngine
    from rankwise.evaluation import evaluate

    if not names or plan.truth is None:
        return [], None
    qrels_df = plan.truth.select(sf.col(USER).alias("query_id"), sf.col(ITEM).alias("doc_id"),
                                 sf.col("_r").alias("relevance"))
    run_df = plan.lists.select(sf.col(USER).alias("query_id"), sf.col(ITEM).alias("doc_id"),
                               (-sf.col(POS).cast("double")).alias("score"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        accuracy = cast("SparkResults", evaluate(  # collect=False: lazy
            qrels_df, run_df, names, rel=options.rel, missing=options.missing,
            engine=SparkEngine(strategy=strategy, check_duplicates=False, collect=False)))
    per_user = [(str(measure), accuracy.per_query.select(
        sf.col("query_id").alias(USER), sf.col(f"`{measure}`").alias("_value")))
        for measure in accuracy.measures]
    return per_user, accuracy


def _per_user(plan: SparkPlan, per_user: list[tuple[str, DataFrame]],
              accuracy: SparkResults | None, totals: dict[str, float], listed: list[Any]
              ) -> tuple[DataFrame, list[str], dict[str, float]]:
    """One row per evaluated user (persisted), its measures, and the means in the order asked."""
    from pyspark.sql import functions as sf

    frame = plan.evaluated
    for name, values in per_user:
        frame = frame.join(values.withColumnRenamed("_value", name), USER, "left")
    names = [name for name, _ in per_user]
    frame = frame.select(sf.col(USER).cast(plan.user_type).alias("user"),
                         *[sf.col(f"`{name}`").cast("double").alias(name) for name in names])
    frame = frame.persist()
    means_row = one(frame.agg(*[sf.avg(sf.col(f"`{name}`")).alias(name) for name in names]
                              )) if names else None
    mean: dict[str, float] = {
        name: float("nan") if means_row is None or means_row[name] is None
        else float(means_row[name]) for name in names}
    if accuracy is not None:
        mean.update({name: float(value) for name, value in accuracy.mean.items()})
    mean.update(totals)
    order = {text: n for n, text in enumerate(listed)}
    return frame, names, {name: mean[name] for name in
                          sorted(mean, key=lambda x: order.get(x, len(order)))}


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


def evaluate_collected(held_out: Any, recommendations: Any, measures: str | Iterable[str], *,
                       engine: Any = None, **options: Any) -> RecommenderResults:
    """``rankwise.evaluate_recommendations(..., engine="spark")``: on Spark, then collected.

    *engine*: the Spark engine asked for (its strategy computes the accuracy measures).
    """
    from rankwise.engines.spark import SparkEngine

    known = set(inspect.signature(evaluate_recommendations).parameters)
    for name, given in options.items():
        if name not in known and given is not None:
            raise _refuse(f"{name}=", "item vectors are compared by the numpy engine only")
    if isinstance(engine, SparkEngine):
        options.setdefault("strategy", engine.strategy)
    results = evaluate_recommendations(held_out, recommendations, measures, **{
        name: value for name, value in options.items() if name in known})
    try:
        return results.to_results()
    finally:
        results.unpersist()


def shared_catalogue(held_out: Any, models: Mapping[str, Any], history: Any, *,
                     users: Any = None, columns: Mapping[str, str] | None = None,
                     spark: SparkSession | None = None) -> tuple[DataFrame, int]:
    """One default catalogue for several models: every item of their tables, on Spark.

    The items of the held-out and training interactions and of every model's
    recommendations (as the numpy path's ``compare_recommendations`` counts
    them), ids as text: a DataFrame of one ``item`` column, checkpointed
    (each model's evaluation reads it as the catalogue given), and its size.
    """
    import functools

    from pyspark.sql import functions as sf

    spark = _session(spark, held_out, history, *models.values())
    tables = [(what, local_frame(spark, table, what)) for what, table in
              (("test", held_out), ("train", history)) if table is not None]
    tables += [("recommendations", local_frame(spark, recs, "recommendations", users))
               for recs in models.values()]
    items = [frame.select(sf.col(str(column_of(frame, "item", columns, what)))
                          .cast("string").alias("item")) for what, frame in tables]
    union = functools.reduce(lambda a, b: a.union(b), items).distinct().localCheckpoint()
    return union, int(union.count())


class SparkRecommenderPass:
    """The recommender capability of the Spark engine (``Capabilities.recommenders``).

    The recommender front doors hand it the whole evaluation when the engine
    is Spark's (``engine="spark"``, or Spark DataFrames given):
    :meth:`evaluate` is :func:`rankwise.evaluate_recommendations` on Spark,
    :meth:`catalogue` the default catalogue :func:`rankwise.compare_recommendations`
    shares between models. It follows
    :class:`rankwise.engines.base.RecommenderPass`.
    """

    def evaluate(self, engine: Any, held_out: Any, recommendations: Any,
                 measures: str | Iterable[str], **arguments: Any) -> RecommenderResults:
        """The evaluation on Spark, collected (see :func:`evaluate_collected`)."""
        return evaluate_collected(held_out, recommendations, measures, engine=engine,
                                  **arguments)

    def catalogue(self, held_out: Any, models: Mapping[str, Any], history: Any, *,
                  users: Any = None, columns: Mapping[str, str] | None = None
                  ) -> tuple[DataFrame, int]:
        """Every item of the held-out, training and models' tables (:func:`shared_catalogue`)."""
        return shared_catalogue(held_out, models, history, users=users, columns=columns)


SPARK_PASS = SparkRecommenderPass()
"""The Spark engine's recommender pass (named by its capability ``recommenders``)."""
