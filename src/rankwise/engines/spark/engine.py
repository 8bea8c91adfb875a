"""``evaluate`` on Spark DataFrames: checks, the choice of strategy, the results."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from rankwise._validation import POSITIVE_INT, OneOf, Text, check, optional
from rankwise._wording import counted
from rankwise.engines.spark._session import require_pyspark
from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.options import EvalOptions, Missing, Ties, Unjudged, options_from

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from rankwise.engines.spark.results import SparkResults
    from rankwise.measures import Measure
    from rankwise.results import Results

__all__ = ["STRATEGIES", "SparkEngine", "evaluate", "evaluate_paths"]

STRATEGIES = ("auto", "jvm", "ranks", "partitions")
_STRATEGY = OneOf(STRATEGIES)

# Whether the run of the evaluation under way was parsed from TREC text (set by the
# callers that read paths): a plan that reads the run twice persists it first, and
# the jvm pass, which reads it once, does not pay for a cache.
_RUN_FROM_TEXT: ContextVar[bool] = ContextVar("rankwise_spark_run_from_text", default=False)


def evaluate(
    qrels_df: DataFrame,
    run_df: DataFrame,
    measures: str | Measure | Iterable[str | Measure],
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    score: str = "score",
    label: str = "relevance",
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    options: EvalOptions | None = None,
    strategy: str = "auto",
    num_partitions: int | None = None,
    chunk_rows: int = 500_000,
    check_duplicates: bool = True,
    subtopic: str | None = None,
) -> SparkResults:
    """Evaluate a run against judgments, both Spark DataFrames.

    The same measure language, argument order and contract as
    :func:`rankwise.evaluate`: score descending, ties by document id
    descending in byte order; R counted in the judgments; relevant means
    grade >= *rel*; the queries are those of the judgments. The per-query
    values are those of the numpy engine.

    Parameters
    ----------
    qrels_df : pyspark.sql.DataFrame
        The judgments: one row per (query, document) with a relevance label.
        It may be the same DataFrame as *run_df* (learning-to-rank logs,
        where every row has both a score and a label).
    run_df : pyspark.sql.DataFrame
        The scored results: one row per (query, document) with a score.
        (Before 0.2 the run came first; that order still works, with a
        ``DeprecationWarning``, when the frames' columns tell them apart.)
    measures : str, Measure or list of them
        ``["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]``; trec_eval's
        names work too.
    query, doc, score, label : str
        Column names; ids may be strings or integers, scores and labels
        numbers (labels may be booleans).
    rel, depth, missing, judged_only, ties, exclude_self, unjudged, options
        As in :func:`rankwise.evaluate` (:class:`~rankwise.options.EvalOptions`);
        ``ties="rank"``, which needs the run's rank column, is not supported here;
        ``unjudged="bounds"`` needs the ``ranks`` strategy (``auto`` picks it).
    strategy : {"auto", "jvm", "ranks", "partitions"}
        ``"jvm"``: one pass over each partition of the run, in rankwise's
        own JVM code (a small jar compiled with the JDK's ``javac`` on first
        use and cached, see :mod:`rankwise.engines.spark.jar`), computes the
        ranks of judged documents; the driver runs the numpy kernels on them.
        It needs each query's rows next to each other within a partition (as
        a run file read in order gives them; a query may span the boundary
        between partitions) and always checks for duplicate documents.
        ``"ranks"``: Spark SQL computes only the ranks of judged documents
        (two map-side scans of the run, the judgments broadcast, no Python
        on the executors) and the driver runs the numpy kernels on them.
        ``"partitions"``: the run and the judgments are shuffled by query
        and each partition is evaluated by the numpy engine on the executors
        (rankwise must import there: see :func:`rankwise.spark.ship`).
        ``"auto"`` chooses by cost: when the judgments fit in half of
        ``spark.driver.maxResultSize``, ``jvm`` if a JDK is found and the run
        is grouped by query, else ``ranks`` when, after its first scan, the
        second one is cheap; else ``partitions``. ``SparkResults.plan`` says
        why. See ``docs/spark.md``.
    num_partitions : int, optional
        Partitions of the shuffle by query (``partitions`` strategy); default
        one per ``ROWS_PER_PARTITION`` (2M) rows of run and judgments, at
        least ``spark.default.parallelism``.
    chunk_rows : int
        Rows handed to the numpy engine at a time on an executor
        (``partitions`` strategy).
    check_duplicates : bool
        Refuse a document listed twice for one query, as the numpy engine
        does. The ``ranks`` strategy finds judged duplicates for free;
        unjudged ones are found by its first scan, whose aggregation by query
        then also lists a 64-bit hash of each document id (built map-side:
        8 bytes a row, in one task up to the largest query's rows): pass False
        to skip that when the run is known to list each document once per
        query. ``jvm`` and ``partitions`` always check.
    subtopic : str, optional
        The judgments' subtopic column (diversity judgments: a grade per
        subtopic of the query, for the diversity measures); by default a
        column ``subtopic`` or ``intent`` when there is one.

    Returns
    -------
    SparkResults
        ``.per_query`` (a DataFrame: the query id column and one column per
        canonical measure name) and ``.mean`` (a dict).

    Raises
    ------
    MissingDependencyError
        pyspark is not installed.
    InputFormatError
        A column is missing or of the wrong type; a null id; a score that is
        null, NaN or infinite; a document listed twice for one query.
    MissingDependencyError
        ``partitions``: rankwise, numpy or pyarrow cannot be imported on the
        executors (checked by one tiny task before any shuffle).
    InvalidParameterError
        ``strategy="ranks"`` with judgments too large for the driver.
    MeasureSyntaxError, UnknownMeasureError, UnsupportedMeasureError
        A measure that cannot be parsed or computed.

    Examples
    --------
    >>> from rankwise.spark import evaluate  # doctest: +SKIP
    >>> results = evaluate(qrels_df, run_df, ["ndcg@10", "map"])  # doctest: +SKIP
    >>> results.mean  # doctest: +SKIP
    {'ndcg@10': 0.7891, 'map': 0.6667}
    >>> results.per_query.show()  # doctest: +SKIP
    """
    require_pyspark()
    from rankwise.engines.core import prepare_measures, warn_coverage
    from rankwise.engines.spark._errors import rankwise_errors
    from rankwise.engines.spark._frames import (
        project_one_table,
        project_qrels,
        project_run,
        subtopic_column,
    )

    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self,
        unjudged=unjudged,
    )
    if _in_old_order(qrels_df, run_df, score=score, label=label):
        import warnings

        warnings.warn(
            "rankwise.spark.evaluate(run_df, qrels_df, ...) is deprecated: pass the "
            "judgments first, evaluate(qrels_df, run_df, ...), as rankwise.evaluate does",
            DeprecationWarning,
            stacklevel=2,
        )
        qrels_df, run_df = run_df, qrels_df
    if measures is None:
        raise InvalidParameterError("measures is required, for example ['ndcg@10', 'map']")
    parsed = prepare_measures(measures, chosen)
    SparkEngine().check(parsed, chosen)
    _check_strategy(strategy, num_partitions, chunk_rows)
    check("query", query, Text(words="a column name (a non-empty str)"))
    if chosen.bounds and strategy == "partitions":
        raise InvalidParameterError(
            "unjudged='bounds' needs strategy='ranks' (or 'auto'): the bounds are computed "
            "on the driver"
        )
    one_table = qrels_df is run_df and not chosen.exclude_self
    if one_table:  # one learning-to-rank table: read and shuffled once, not twice
        run = project_one_table(run_df, query=query, doc=doc, score=score, label=label)
        qrels: DataFrame | None = None
    else:
        run = project_run(run_df, query=query, doc=doc, score=score)
        if chosen.exclude_self:  # as the numpy engine: the run only, the judgments as given
            run = run.where(run["q"] != run["d"])
        topic = subtopic_column(qrels_df, subtopic) if qrels_df is not run_df else subtopic
        qrels = project_qrels(qrels_df, query=query, doc=doc, label=label, subtopic=topic)
    held: list[DataFrame] = []  # caches the plan made, released here
    try:
        with rankwise_errors():
            results = _plan_and_evaluate(
                run,
                qrels,
                parsed,
                query,
                chosen,
                strategy=strategy,
                num_partitions=num_partitions,
                chunk_rows=chunk_rows,
                check_duplicates=check_duplicates,
                held=held,
            )
    finally:
        for frame in held:
            frame.unpersist()
    warn_coverage(results, chosen.missing, "run_df")
    return results


def _columns_of(frame: Any) -> list[str]:
    try:
        return list(frame.columns)
    except Exception:  # not a DataFrame: the projection says what is wrong
        return []


def _in_old_order(first: Any, second: Any, *, score: str, label: str) -> bool:
    """Whether the run came first (the order before 0.2), as the columns tell."""
    if first is second:
        return False
    a, b = _columns_of(first), _columns_of(second)
    return score in a and label not in a and label in b and score not in b


class SparkEngine:
    """The Spark engine as an :class:`~rankwise.engines.base.Engine`.

    Takes Spark DataFrames or paths (Parquet or TREC text, local,
    ``s3a://``, ``hdfs://``) and returns :class:`~rankwise.Results`
    (the per-query values collected to the driver). For the lazy, per-query
    DataFrame, use :func:`rankwise.spark.evaluate`.

    Parameters
    ----------
    master : str, optional
        Spark master of a session it starts (``local[2]``, ``yarn``, ...).
    strategy : str
        How ties and judgments are joined (see :func:`rankwise.spark.evaluate`).
    config : dict, optional
        Extra Spark settings of the session (``--spark-conf``).
    num_partitions : int, optional
        Partitions of the ``partitions`` strategy (``--spark-partitions``).
    log_level : {"error", "warn", "info", "debug"}, optional
        Console log level of a session it starts (``rankwise --quiet``:
        ``error``); None keeps Spark's own settings.
    """

    name = "spark"
    install = "pyspark and Java 17 or later: pip install 'rankwise[spark]'"

    def __init__(
        self,
        master: str | None = None,
        strategy: str = "auto",
        *,
        config: dict[str, str] | None = None,
        num_partitions: int | None = None,
        log_level: str | None = None,
        qrels_format: str | None = None,
    ) -> None:
        self.master = master
        self.strategy = strategy
        self.config = dict(config or {})
        self.num_partitions = num_partitions
        self.log_level = log_level
        self.qrels_format = qrels_format  # "diversity": TREC text with subtopics

    def available(self) -> bool:
        """Whether pyspark is installed (Java is checked when a session starts)."""
        import importlib.util

        return importlib.util.find_spec("pyspark") is not None

    def check(self, measures: Sequence[Measure], options: EvalOptions) -> None:
        """Every measure has a kernel under *options*; ``ties="rank"`` is not supported."""
        from rankwise.engines.core import check_supported

        if options.ties == "rank":
            raise InvalidParameterError(
                "ties='rank' (the run's rank column) is not supported by the Spark engine; "
                "use trec, average, worst or best, or the numpy engine"
            )
        if options.columns:
            raise InvalidParameterError(
                "columns= (a column map) is not supported by the Spark engine; rename the "
                "DataFrame's columns (query_id, doc_id, score, relevance: "
                "DataFrame.withColumnRenamed) or use the numpy engine"
            )
        check_supported(measures, options)
        from rankwise.engines.spark.plan import refused

        reason = refused(measures, "auto")
        if reason is not None:
            from rankwise.exceptions import UnsupportedMeasureError

            raise UnsupportedMeasureError(reason)

    def evaluate(
        self,
        qrels: Any,
        run: Any,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        name: str | None = None,
    ) -> Results:
        """Evaluate DataFrames or paths on Spark, and collect the per-query values."""
        import os

        from rankwise.engines.spark._session import get_session
        from rankwise.engines.spark.paths import cache_text, file_format, read_qrels, read_run

        run_name = name
        cached = []
        from_text = False
        if isinstance(qrels, (str, os.PathLike)) or isinstance(run, (str, os.PathLike)):
            spark = get_session(self.master, config=self.config, log_level=self.log_level)
            if isinstance(qrels, (str, os.PathLike)):
                path = os.fspath(qrels)
                qrels = _read_path(read_qrels, spark, path,
                                   subtopics=self.qrels_format == "diversity")
                cached.append(cache_text(qrels, path))
                qrels = cached[-1] or qrels
            if isinstance(run, (str, os.PathLike)):
                path = os.fspath(run)
                run_name = run_name or _run_name_of_path(path)
                run = _read_path(read_run, spark, path)
                from_text = file_format(path) == "trec"
        try:
            with _run_from_text(from_text):
                results = evaluate(
                    qrels,
                    run,
                    list(measures),
                    options=options,
                    strategy=self.strategy,
                    num_partitions=self.num_partitions,
                )
                local = results.to_results(run_name=run_name or "run")
        finally:
            for frame in cached:
                if frame is not None:
                    frame.unpersist()
        results.unpersist()
        return local


def _read_path(read: Any, spark: Any, path: str, **options: Any) -> Any:
    """``read(spark, path)``, with Spark's "path does not exist" said as rankwise says it."""
    from pyspark.errors import AnalysisException

    try:
        return read(spark, path, **options)
    except AnalysisException as error:
        if "PATH_NOT_FOUND" not in str(error):
            raise
        raise InputFormatError("no such file (as Spark sees it)", path) from None


def _run_name_of_path(path: str) -> str:
    """A run file's name as the numpy engine gives it: a local TREC file's run id, else its stem."""
    import os

    from rankwise.io.coerce import file_stem
    from rankwise.io.tables import table_format

    if table_format(path) is None and os.path.isfile(path) and not path.endswith(".parquet"):
        from rankwise.io._source import FileView
        from rankwise.io.trec import _last_run_id

        run_id = _last_run_id(FileView(path))
        if run_id:
            return run_id
    return file_stem(path)


def _check_strategy(strategy: Any, partitions: Any, chunk_rows: Any) -> None:
    check("strategy", strategy, _STRATEGY)
    check("num_partitions", partitions, optional(POSITIVE_INT))
    check("chunk_rows", chunk_rows, POSITIVE_INT)


def _result_schema(query: str, measures: list[Measure]) -> Any:
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    fields = [StructField(query, StringType(), False)]
    fields += [
        StructField(str(m), StringType() if m.family.text_valued else DoubleType(), True)
        for m in measures
    ]
    return StructType(fields)


def _read_twice(run: DataFrame, held: list[DataFrame]) -> DataFrame:
    """*run*, persisted when it is parsed text (and listed in *held*, to unpersist)."""
    if not _RUN_FROM_TEXT.get() or held:
        return run
    from pyspark import StorageLevel

    held.append(run.persist(StorageLevel.MEMORY_AND_DISK))
    return held[-1]


@contextmanager
def _run_from_text(from_text: bool) -> Iterator[None]:
    """Tell the plan whether the run is parsed text (worth a cache if read twice)."""
    token = _RUN_FROM_TEXT.set(from_text)
    try:
        yield
    finally:
        _RUN_FROM_TEXT.reset(token)


def _plan_and_evaluate(
    run: DataFrame,
    qrels: DataFrame | None,
    measures: list[Measure],
    query: str,
    options: EvalOptions,
    *,
    strategy: str,
    num_partitions: int | None,
    chunk_rows: int,
    check_duplicates: bool,
    held: list[DataFrame],
) -> SparkResults:
    """Choose the plan (``docs/spark.md``, "The plan, chosen by cost") and run it.

    A run parsed from TREC text is persisted only by a plan that reads it twice
    (listed in *held*, for the caller to unpersist: the results never read it
    again, since ``ranks`` and ``jvm`` collect and ``partitions`` persists its
    own output).
    """
    from rankwise.engines.spark.plan import (
        MAX_OFFERED_PER_ROW,
        describe_bytes,
        estimate_bytes,
        result_budget,
    )

    if strategy in ("ranks", "partitions"):
        _refuse(measures, strategy)  # before any job
    reasons: list[str] = []
    rows_known: int | None = None  # rows of run and judgments, when a scan has counted them
    judgments = run if qrels is None else qrels
    if strategy != "partitions":
        rows = judgments.count()
        if rows == 0:
            raise _no_judgments(qrels is None)
        size = estimate_bytes(judgments, rows)
        budget = result_budget(run.sparkSession)
        what = "the table" if qrels is None else "the judgments"
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
            reasons.append(f"{sized} > {describe_bytes(budget)} (half the driver's result limit)")
        elif qrels is None:
            return _evaluate_table_on_driver(run, measures, query, options, f"ranks: {sized}")
        else:
            from rankwise.engines.spark.ranks import RanksScan, collect_judgments

            judged = collect_judgments(qrels)
            if strategy in ("auto", "jvm"):
                found = _jvm_scan(run, judged, options, required=strategy == "jvm")
                if not isinstance(found, str):
                    plan = f"jvm: {sized}; one pass over {found.layout}"
                    return _evaluate_ranks(found, measures, query, options, plan, "jvm")
                sized = f"{sized}; not jvm: {found}"
                _refuse(measures, "ranks", found)
            run = _read_twice(run, held)
            scan = RanksScan(
                run, qrels, judged, ascending=options.ties == "ascending",
                check_duplicates=check_duplicates,
            )
            second_scan = not scan.covered and not (options.judged_only and options.depth is None)
            offered = scan.offered_per_row() if second_scan else 0.0
            # unjudged="bounds" is computed on the driver: the ranks plan whatever it costs
            if strategy == "auto" and offered > MAX_OFFERED_PER_ROW and not options.bounds:
                rows_known = scan.summary.rows + rows
                reasons.append(
                    f"{sized}; the second scan would offer ~{offered:.0f} intervals per row "
                    f"(> {MAX_OFFERED_PER_ROW:.0f})"
                )
            else:
                plan = f"ranks: {sized}; " + (
                    f"second scan offers ~{offered:.1f} intervals per row"
                    if second_scan
                    else "no second scan ("
                    + ("every retrieved document judged)" if scan.covered else "judged_only)")
                )
                return _evaluate_ranks(scan, measures, query, options, plan)
    elif judgments.isEmpty():
        raise _no_judgments(qrels is None)
    _refuse(measures, "partitions", "; ".join(reasons))
    plan = "partitions" + (": " + "; ".join(reasons) if reasons else "")
    run = _read_twice(run, held)
    return _evaluate_partitions(
        run, qrels, measures, query, options, num_partitions, chunk_rows, plan, rows_known
    )


def _jvm_scan(run: DataFrame, judged: Any, options: EvalOptions, *, required: bool) -> Any:
    """The ``jvm`` strategy's scan, or (unless *required*) why it cannot run here."""
    from rankwise.engines.spark.jar import JvmUnavailableError
    from rankwise.engines.spark.jvm import JvmScan

    try:
        return JvmScan(run, judged, ascending=options.ties == "ascending")
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
    table: DataFrame, measures: list[Measure], query: str, options: EvalOptions, plan: str
) -> SparkResults:
    """One learning-to-rank table small enough for the driver: collect it, rank it there."""
    from rankwise.engines.core import evaluate_ranking
    from rankwise.engines.spark._frames import to_arrow
    from rankwise.engines.spark.ranks import check_table, rank_on_driver

    collected = to_arrow(table)
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
        table.sparkSession,
        local,
        measures,
        query,
        plan + "; ranked on the driver",
        coverage.unjudged_queries,
    )


def _evaluate_partitions(
    run: DataFrame,
    qrels: DataFrame | None,
    measures: list[Measure],
    query: str,
    options: EvalOptions,
    num_partitions: int | None,
    chunk_rows: int,
    plan: str,
    rows: int | None = None,
) -> SparkResults:
    from pyspark import StorageLevel
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column
    from rankwise.engines.spark.executors import check_executors
    from rankwise.engines.spark.partitions import (
        ERROR_COLUMN,
        MISSING_COLUMN,
        UNJUDGED_COLUMN,
        per_query_frame,
        run_rows_in,
    )
    from rankwise.engines.spark.plan import partitions_for
    from rankwise.engines.spark.results import SparkResults
    from rankwise.results import MIN_GEOMETRIC_VALUE

    spark = run.sparkSession
    check_executors(spark)  # one tiny task, before the shuffle
    if num_partitions is None:
        if rows is None:  # not counted by a first scan
            rows = run.count() + (0 if qrels is None else qrels.count())
        num_partitions = partitions_for(rows, spark.sparkContext.defaultParallelism)
        plan += (f"; {counted(num_partitions, 'partition')} for "
                 f"{counted(rows, 'row', grouped=True)}")
    else:
        plan += f"; {counted(num_partitions, 'partition')}"
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key, None)
    spark.conf.set(key, str(min(chunk_rows, 100_000)))
    try:
        frame = per_query_frame(
            run,
            qrels,
            measures,
            query=query,
            options=options,
            num_partitions=num_partitions,
            chunk_rows=chunk_rows,
        ).persist(StorageLevel.MEMORY_AND_DISK)
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
        row = frame.agg(*aggregates).collect()[0]
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    if row["error"] is not None:
        frame.unpersist()
        _raise_executor_error(run_rows_in(row["error"], run))
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
        query=query,
        cached=frame,
        plan=plan,
        unjudged_queries=int(row["unjudged"] or 0),
        missing_queries=int(row["missing"] or 0),
    )


def _raise_executor_error(message: str) -> None:
    import rankwise.exceptions as errors

    name, _, text = message.partition(": ")
    kind = getattr(errors, name, None)
    if isinstance(kind, type) and issubclass(kind, errors.RankwiseError):
        raise kind(text)
    raise errors.RankwiseError(f"an executor failed evaluating a partition: {message}")


def evaluate_paths(
    qrels_path: str,
    run_path: str,
    measures: str | Measure | Iterable[str | Measure],
    *,
    master: str | None = None,
    spark_config: dict[str, str] | None = None,
    fmt: str = "auto",
    **options: Any,
) -> SparkResults:
    """Evaluate a run file against a judgments file on Spark (what the CLI calls).

    Parameters
    ----------
    qrels_path, run_path : str
        Parquet files or folders, or TREC text files; local, ``s3a://``,
        ``hdfs://``: any path Spark reads.
    measures : str, Measure or list of them
        What to compute, as for :func:`rankwise.evaluate`.
    master : str, optional
        Spark master (``local[2]``, ``yarn``, ``spark://host:7077``); default:
        the active session, or Spark's own default.
    spark_config : dict, optional
        Extra Spark settings for a new session.
    fmt : {"auto", "parquet", "trec"}
        File format of both files; ``auto`` goes by the suffix.
    **options
        Passed to :func:`rankwise.spark.evaluate` (``rel``, ``depth``,
        ``missing``, ``judged_only``, ``strategy``, ...).

    Returns
    -------
    SparkResults
    """
    from rankwise.engines.spark._session import get_session
    from rankwise.engines.spark.paths import cache_text, file_format, read_qrels, read_run

    spark = get_session(master, config=spark_config)
    qrels = read_qrels(spark, qrels_path, fmt=fmt)
    run = read_run(spark, run_path, fmt=fmt)
    cached = cache_text(qrels, qrels_path, fmt)
    try:
        with _run_from_text(file_format(run_path, fmt) == "trec"):
            return evaluate(cached or qrels, run, measures, **options)
    finally:
        if cached is not None:
            cached.unpersist()
