"""One evaluation on Spark: its inputs, the plan chosen by cost, and running the plan.

:class:`SparkInputs` holds the run and the judgments projected to the
engine's columns (``q, d, s`` and ``q, d, g``); :func:`choose` picks the
strategy (``docs/spark.md``, "The plan, chosen by cost") and says why, in a
:class:`SparkPlan` that keeps the scans it made to decide (a plan never
scans twice for what it already knows); :func:`run` runs that plan. pyspark
is imported inside the functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankwise._wording import counted
from rankwise.exceptions import InputFormatError, InvalidParameterError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from rankwise.engines.spark.results import SparkResults
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions
    from rankwise.results import Results

__all__ = ["SparkInputs", "SparkPlan", "choose", "run"]


@dataclass
class SparkInputs:
    """The run and the judgments of one evaluation, projected, and what was made to hold them.

    Attributes
    ----------
    run : DataFrame
        The run as ``q, d, s`` (one learning-to-rank table: ``q, d, s, g``).
    qrels : DataFrame or None
        The judgments as ``q, d, g`` (with ``t``, the subtopic, for
        diversity judgments); None for one table holding both.
    query : str
        The name of the query column of the per-query results.
    from_text : bool
        The run is parsed from TREC text: a plan that reads it twice persists it.
    held : list of DataFrame
        Caches made for this evaluation, released by :meth:`release`.
    """

    run: DataFrame
    qrels: DataFrame | None
    query: str = "query_id"
    from_text: bool = False
    held: list[DataFrame] = field(default_factory=list)
    _run_persisted: bool = False

    @property
    def judgments(self) -> DataFrame:
        """The frame that holds the grades (the one table, or the judgments)."""
        return self.run if self.qrels is None else self.qrels

    def read_twice(self) -> DataFrame:
        """The run, persisted when it is parsed text (released by :meth:`release`)."""
        if not self.from_text or self._run_persisted:
            return self.run
        from pyspark import StorageLevel

        self.run = self.run.persist(StorageLevel.MEMORY_AND_DISK)
        self.held.append(self.run)
        self._run_persisted = True
        return self.run

    def release(self) -> None:
        """Unpersist the caches made for this evaluation."""
        for frame in self.held:
            frame.unpersist()
        self.held.clear()


@dataclass
class SparkPlan:
    """The strategy chosen, why, and what the choice already computed.

    Attributes
    ----------
    strategy : {"driver", "jvm", "ranks", "partitions"}
        ``driver``: one small table collected and ranked on the driver.
    text : str
        What :attr:`SparkResults.plan` says: the strategy, the sizes and costs
        that chose it.
    scan : object, optional
        The ``jvm`` pass or the ``ranks`` first scan, done while choosing.
    rows : int, optional
        Rows of run and judgments, when a scan counted them.
    """

    strategy: str
    text: str
    scan: Any = None
    rows: int | None = None


def choose(inputs: SparkInputs, measures: list[Measure], options: EvalOptions, *, strategy: str,
           check_duplicates: bool) -> SparkPlan:
    """Choose the plan by cost (``docs/spark.md``, "The plan, chosen by cost").

    A plan other than ``partitions`` collects the judgments to the driver:
    they are counted and sized first. ``jvm`` needs a JDK; ``ranks`` is kept
    when its second scan is cheap (or not needed). A plan that cannot compute
    one of *measures* is refused (before any job when the strategy is given).
    """
    if strategy in ("ranks", "partitions"):
        _refuse(measures, strategy)  # before any job
    plan = _chosen(inputs, measures, options, strategy=strategy,
                   check_duplicates=check_duplicates)
    if plan.strategy == "partitions":
        _refuse(measures, "partitions", plan.text.partition(": ")[2])
    return plan


def _chosen(inputs: SparkInputs, measures: list[Measure], options: EvalOptions, *,
            strategy: str, check_duplicates: bool) -> SparkPlan:
    if strategy == "partitions":
        if inputs.judgments.isEmpty():
            raise _no_judgments(inputs.qrels is None)
        return SparkPlan("partitions", "partitions")
    ahead = None
    if strategy in ("auto", "jvm") and inputs.qrels is not None:
        from rankwise.engines.spark.ahead import LayoutAhead

        # chosen while the judgments are counted and collected
        ahead = LayoutAhead(inputs.run, ordered=_input_ordered(measures))
    try:
        return _sized(inputs, measures, options, strategy=strategy,
                      check_duplicates=check_duplicates, ahead=ahead)
    finally:
        if ahead is not None:
            ahead.wait()


def _sized(inputs: SparkInputs, measures: list[Measure], options: EvalOptions, *,
           strategy: str, check_duplicates: bool, ahead: Any) -> SparkPlan:
    """The judgments counted and sized: the driver's plans when they fit its result limit.

    Judgments Spark estimates small are collected at once and sized from what came
    (:func:`~rankwise.engines.spark.plan.collected_if_small`): one job, not two.
    """
    from rankwise.engines.spark.plan import (
        collected_if_small,
        count_and_size,
        describe_bytes,
        result_budget,
        size_of_table,
    )

    budget = result_budget(inputs.run.sparkSession)
    table = None if inputs.qrels is None else collected_if_small(inputs.qrels, budget)
    rows, size = (count_and_size(inputs.judgments) if table is None
                  else size_of_table(table))
    if rows == 0:
        raise _no_judgments(inputs.qrels is None)
    what = "the table" if inputs.qrels is None else "the judgments"
    sized = f"{what}: {counted(rows, 'row', grouped=True)}, ~{describe_bytes(size)}"
    if size > budget:
        if options.bounds:
            raise InvalidParameterError(
                f"unjudged='bounds' is computed on the driver, which collects {what}, "
                f"but {sized} is more than half of spark.driver.maxResultSize "
                f"({describe_bytes(2 * budget)}): raise spark.driver.maxResultSize"
            )
        if strategy in ("ranks", "jvm"):
            raise InvalidParameterError(
                f"strategy={strategy!r} collects {what} to the driver, but {sized} is more "
                f"than half of spark.driver.maxResultSize ({describe_bytes(2 * budget)}): "
                "use strategy='partitions' (or 'auto'), or raise spark.driver.maxResultSize"
            )
        return SparkPlan("partitions", "partitions: " + (
            f"{sized} > {describe_bytes(budget)} (half the driver's result limit)"))
    if inputs.qrels is None:
        return SparkPlan("driver", f"ranks: {sized}")
    return _scanned(inputs, measures, options, sized, rows, strategy=strategy,
                    check_duplicates=check_duplicates, ahead=ahead, collected=table)


def _scanned(inputs: SparkInputs, measures: list[Measure], options: EvalOptions, sized: str,
             rows: int, *, strategy: str, check_duplicates: bool, ahead: Any,
             collected: Any) -> SparkPlan:
    """Judgments small enough for the driver: ``jvm``, else ``ranks`` unless its cost says not.

    *collected*: the judgments as Arrow when they were collected to be sized.
    """
    from rankwise.engines.spark.plan import MAX_OFFERED_PER_ROW
    from rankwise.engines.spark.ranks import RanksScan, collect_judgments

    assert inputs.qrels is not None
    judged = collect_judgments(inputs.qrels, collected)
    if strategy in ("auto", "jvm"):
        found = _jvm_scan(inputs.run, judged, options, required=strategy == "jvm", ahead=ahead)
        if not isinstance(found, str):
            return SparkPlan("jvm", f"jvm: {sized}; one pass over {found.layout}", found)
        sized = f"{sized}; not jvm: {found}"
        _refuse(measures, "ranks", found)
    scan = RanksScan(
        inputs.read_twice(), inputs.qrels, judged, ascending=options.ties == "ascending",
        check_duplicates=check_duplicates,
    )
    second_scan = not scan.covered and not (options.judged_only and options.depth is None)
    offered = scan.offered_per_row() if second_scan else 0.0
    # unjudged="bounds" is computed on the driver: the ranks plan whatever it costs
    if strategy == "auto" and offered > MAX_OFFERED_PER_ROW and not options.bounds:
        return SparkPlan("partitions", (
            f"partitions: {sized}; the second scan would offer ~{offered:.0f} intervals per "
            f"row (> {MAX_OFFERED_PER_ROW:.0f})"), rows=scan.summary.rows + rows)
    text = f"ranks: {sized}; " + (
        f"second scan offers ~{offered:.1f} intervals per row"
        if second_scan
        else "no second scan ("
        + ("every retrieved document judged)" if scan.covered else "judged_only)")
    )
    return SparkPlan("ranks", text, scan)


def _input_ordered(measures: list[Measure]) -> str | None:
    """The first of *measures* that ranks tied documents in the run's input order, or None."""
    from rankwise.engines.core import plan_of

    return next((str(m) for m in measures if plan_of(m).key[0] == "input"), None)


def _jvm_scan(run: DataFrame, judged: Any, options: EvalOptions, *, required: bool,
              ahead: Any) -> Any:
    """The ``jvm`` strategy's scan, or (unless *required*) why it cannot run here.

    *ahead*: the run's layout, chosen meanwhile (:class:`.ahead.LayoutAhead`).
    """
    from rankwise.engines.spark.jar import JvmUnavailableError
    from rankwise.engines.spark.jvm import JvmScan

    try:
        return JvmScan(run, judged, ascending=options.ties == "ascending", layout=ahead.result())
    except JvmUnavailableError as error:
        if required:
            raise
        return str(error)


def _refuse(measures: list[Measure], strategy: str, why: str | None = None) -> None:
    """Raise when *strategy*, the one the plan came to, cannot compute one of *measures*."""
    from rankwise.engines.spark.plan import refused
    from rankwise.exceptions import UnsupportedMeasureError

    reason = refused(measures, strategy)
    if reason is not None:
        raise UnsupportedMeasureError(reason + (f" (the plan: {why})" if why else ""))


def _no_judgments(one_table: bool) -> InputFormatError:
    """The numpy engine's error for judgments without a row (same type, Spark's names)."""
    what = "the table (passed as both qrels_df and run_df)" if one_table else "qrels_df"
    return InputFormatError(
        f"{what}: the judgments hold no rows: expected at least one judged document (rows of "
        "query, document, grade); nothing can be evaluated without them"
    )


def run(plan: SparkPlan, inputs: SparkInputs, measures: list[Measure], options: EvalOptions,
        *, num_partitions: int | None, chunk_rows: int) -> SparkResults:
    """Run *plan*: the driver ranks (``driver``, ``jvm``, ``ranks``) or the executors evaluate.

    A run parsed from TREC text is persisted only by a plan that reads it
    twice (``ranks``, ``partitions``; listed in ``inputs.held``): the results
    never read it again, since ``ranks`` and ``jvm`` collect and
    ``partitions`` persists its own output.
    """
    if plan.strategy == "driver":
        return _evaluate_table_on_driver(inputs, measures, options, plan.text)
    if plan.strategy in ("jvm", "ranks"):
        return _evaluate_ranks(plan.scan, measures, inputs.query, options, plan.text,
                               plan.strategy)
    inputs.read_twice()
    return _evaluate_partitions(inputs, measures, options, num_partitions, chunk_rows,
                                plan.text, plan.rows)


def _result_schema(query: str, measures: list[Measure]) -> Any:
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    fields = [StructField(query, StringType(), False)]
    fields += [
        StructField(str(m), StringType() if m.family.text_valued else DoubleType(), True)
        for m in measures
    ]
    return StructType(fields)


def _local_results(
    spark: Any,
    local: Results,
    measures: list[Measure],
    query: str,
    plan: str,
    unjudged: int,
    strategy: str = "ranks",
) -> SparkResults:
    import pyarrow as pa

    from rankwise.engines.spark._frames import create_frame
    from rankwise.engines.spark.results import SparkResults

    columns: dict[str, Any] = {query: pa.array(local.query_ids, pa.string())}
    for m in measures:
        array = local[m]
        columns[str(m)] = array.tolist() if array.dtype == object else array
    per_query = create_frame(spark, pa.table(columns), _result_schema(query, measures))
    return SparkResults(
        per_query,
        dict(local.mean),
        measures,
        strategy=strategy,
        query=query,
        local=local,
        unjudged_queries=unjudged,
        missing_queries=local.missing_queries,
        plan=plan,
    )


def _evaluate_ranks(
    scan: Any,
    measures: list[Measure],
    query: str,
    options: EvalOptions,
    plan: str,
    strategy: str = "ranks",
) -> SparkResults:
    from rankwise.engines.core import Coverage, evaluate_ranking, ranking_missing

    missing = ranking_missing(measures, options)
    ranking = scan.ranking(depth=options.depth, missing=missing, judged_only=options.judged_only)
    summary = scan.summary
    rankings = getattr(scan, "rankings", None)
    local = evaluate_ranking(
        ranking,
        measures,
        options,
        run_name="",
        coverage=Coverage(
            missing_queries=len(scan.qrels.query_ids) - len(summary.queries),
            unjudged_queries=summary.unjudged_queries,
        ),
        rankings=None if rankings is None else lambda key: rankings(
            key, depth=options.depth, missing=missing, judged_only=options.judged_only),
    )
    return _local_results(
        scan.run.sparkSession, local, measures, query, plan, summary.unjudged_queries, strategy
    )


def _evaluate_table_on_driver(
    inputs: SparkInputs, measures: list[Measure], options: EvalOptions, plan: str
) -> SparkResults:
    """One learning-to-rank table small enough for the driver: collect it, rank it there."""
    from rankwise.engines.core import evaluate_ranking
    from rankwise.engines.spark._frames import to_arrow
    from rankwise.engines.spark.ranks import check_table, rank_on_driver

    collected = to_arrow(inputs.run)
    check_table(collected)
    ranking, coverage = rank_on_driver(
        collected,
        depth=options.depth,
        missing=options.missing,
        judged_only=options.judged_only,
        ascending=options.ties == "ascending",
    )
    local = evaluate_ranking(ranking, measures, options, run_name="", coverage=coverage)
    return _local_results(
        inputs.run.sparkSession,
        local,
        measures,
        inputs.query,
        plan + "; ranked on the driver",
        coverage.unjudged_queries,
    )


def _partitions_of(inputs: SparkInputs, num_partitions: int | None, rows: int | None
                   ) -> tuple[int, str]:
    """The partitions of the shuffle by query, and what the plan says of them."""
    from rankwise.engines.spark.plan import partitions_for

    if num_partitions is not None:
        return num_partitions, f"; {counted(num_partitions, 'partition')}"
    if rows is None:  # not counted by a first scan
        rows = inputs.run.count() + (0 if inputs.qrels is None else inputs.qrels.count())
    spark = inputs.run.sparkSession
    chosen = partitions_for(rows, spark.sparkContext.defaultParallelism)
    return chosen, (f"; {counted(chosen, 'partition')} for "
                    f"{counted(rows, 'row', grouped=True)}")


def _aggregates(measures: list[Measure]) -> list[Any]:
    """The Spark aggregates of the partitions' per-query frame: errors, counts, the means."""
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column
    from rankwise.engines.spark.partitions import ERROR_COLUMN, MISSING_COLUMN, UNJUDGED_COLUMN
    from rankwise.results import MIN_GEOMETRIC_VALUE

    aggregates = [
        sf.first(column(ERROR_COLUMN), ignorenulls=True).alias("error"),
        sf.sum(column(UNJUDGED_COLUMN)).alias("unjudged"),
        sf.sum(column(MISSING_COLUMN)).alias("missing"),
    ]
    for i, m in enumerate(measures):
        value = column(str(m))
        kind = m.family.aggregate
        if kind == "sum":
            aggregates.append(sf.sum(value).alias(f"m{i}"))
        elif kind == "gmean":
            # greatest() skips nulls: keep the null of the special rows null
            floor = sf.greatest(value, sf.lit(MIN_GEOMETRIC_VALUE))
            log = sf.when(value.isNotNull(), sf.log(floor))
            aggregates.append(sf.exp(sf.avg(log)).alias(f"m{i}"))
        elif kind == "none":
            aggregates.append(sf.lit(None).cast("double").alias(f"m{i}"))
        else:
            aggregates.append(sf.avg(value).alias(f"m{i}"))
    return aggregates


def _evaluate_partitions(
    inputs: SparkInputs,
    measures: list[Measure],
    options: EvalOptions,
    num_partitions: int | None,
    chunk_rows: int,
    plan: str,
    rows: int | None = None,
) -> SparkResults:
    from pyspark import StorageLevel

    from rankwise.engines.spark._frames import column
    from rankwise.engines.spark.executors import check_executors
    from rankwise.engines.spark.partitions import (
        ERROR_COLUMN,
        MISSING_COLUMN,
        UNJUDGED_COLUMN,
        per_query_frame,
        run_rows_in,
    )
    from rankwise.engines.spark.results import SparkResults

    spark = inputs.run.sparkSession
    check_executors(spark)  # one tiny task, before the shuffle
    num_partitions, said = _partitions_of(inputs, num_partitions, rows)
    plan += said
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key, None)
    spark.conf.set(key, str(min(chunk_rows, 100_000)))
    try:
        frame = per_query_frame(
            inputs.run,
            inputs.qrels,
            measures,
            query=inputs.query,
            options=options,
            num_partitions=num_partitions,
            chunk_rows=chunk_rows,
        ).persist(StorageLevel.MEMORY_AND_DISK)
        row = frame.agg(*_aggregates(measures)).collect()[0]
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    if row["error"] is not None:
        frame.unpersist()
        raise_executor_error(run_rows_in(row["error"], inputs.run, inputs.qrels))
    mean: dict[str, float] = {}
    for i, m in enumerate(measures):
        got = row[f"m{i}"]
        if got is None:
            got = 0.0 if m.family.aggregate == "sum" else math.nan
        mean[str(m)] = float(got)
    per_query = frame.filter(column(ERROR_COLUMN).isNull() & column(UNJUDGED_COLUMN).isNull()).drop(
        ERROR_COLUMN, UNJUDGED_COLUMN, MISSING_COLUMN
    )
    return SparkResults(
        per_query,
        mean,
        measures,
        strategy="partitions",
        query=inputs.query,
        cached=frame,
        plan=plan,
        unjudged_queries=int(row["unjudged"] or 0),
        missing_queries=int(row["missing"] or 0),
    )


def raise_executor_error(message: str) -> None:
    """Raise the rankwise error an executor reported (its class by name), else a RankwiseError."""
    import rankwise.exceptions as errors

    name, _, text = message.partition(": ")
    kind = getattr(errors, name, None)
    if isinstance(kind, type) and issubclass(kind, errors.RankwiseError):
        raise kind(text)
    raise errors.RankwiseError(f"an executor failed evaluating a partition: {message}")
