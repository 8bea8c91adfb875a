"""``evaluate`` on Spark DataFrames: checks, the choice of strategy, the results."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.engines.spark._session import require_pyspark
from rankwise.exceptions import InputFormatError, InvalidParameterError, UnsupportedMeasureError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from rankwise.engines.spark.results import SparkResults
    from rankwise.measures import Measure

__all__ = ["RANKS_MAX_JUDGMENTS", "STRATEGIES", "evaluate"]

STRATEGIES = ("auto", "ranks", "partitions")
RANKS_MAX_JUDGMENTS = 2_000_000
"""``strategy="auto"`` uses ``ranks`` up to this many judgments, ``partitions`` above."""


def evaluate(
    run_df: DataFrame,
    qrels_df: DataFrame,
    measures: str | Measure | Iterable[str | Measure],
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    score: str = "score",
    label: str = "relevance",
    rel: float | None = 1,
    depth: int | None = None,
    missing: str = "skip",
    judged_only: bool = False,
    ties: str = "trec",
    strategy: str = "auto",
    num_partitions: int | None = None,
    chunk_rows: int = 500_000,
) -> SparkResults:
    """Evaluate a run against judgments, both Spark DataFrames.

    The same measure language and the same contract as
    :func:`rankwise.evaluate`: score descending, ties by document id
    descending in byte order; R counted in the judgments; relevant means
    grade >= *rel*; the queries are those of the judgments. The per-query
    values are those of the numpy engine.

    Parameters
    ----------
    run_df : pyspark.sql.DataFrame
        The scored results: one row per (query, document) with a score.
    qrels_df : pyspark.sql.DataFrame
        The judgments: one row per (query, document) with a relevance label.
        It may be the same DataFrame as *run_df* (learning-to-rank logs,
        where every row has both a score and a label).
    measures : str, Measure or list of them
        ``["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]``; trec_eval's
        names work too.
    query, doc, score, label : str
        Column names; ids may be strings or integers, scores and labels
        numbers (labels may be booleans).
    rel : float, optional
        Minimum grade that counts as relevant (default 1), for every measure
        that does not set its own.
    depth : int, optional
        Evaluate only the first *depth* documents of each query (trec_eval ``-M``).
    missing : {"skip", "zero"}
        A judged query absent from the run is left out (default) or scores as
        an empty ranking (trec_eval ``-c``).
    judged_only : bool
        Drop unjudged documents, and those judged below zero, before ranking
        (trec_eval ``-J``).
    ties : {"trec", "average", "worst", "best"}
        How documents with equal scores are ordered, as in
        :func:`rankwise.evaluate` (``"rank"``, which needs the run's rank
        column, is not supported here).
    strategy : {"auto", "ranks", "partitions"}
        ``"ranks"``: Spark SQL computes only the ranks of judged documents
        (two map-side scans of the run, the judgments broadcast) and the
        driver runs the numpy kernels on them. ``"partitions"``: the run and
        the judgments are shuffled by query and each partition is evaluated
        by the numpy engine on the executors (needs rankwise installed
        there). ``"auto"`` picks ``ranks`` when there are at most
        ``RANKS_MAX_JUDGMENTS`` judgments. See ``docs/spark.md``.
    num_partitions : int, optional
        Partitions of the shuffle by query (``partitions`` strategy); default
        ``spark.sql.shuffle.partitions``.
    chunk_rows : int
        Rows handed to the numpy engine at a time on an executor
        (``partitions`` strategy).

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
    MeasureSyntaxError, UnknownMeasureError, UnsupportedMeasureError
        A measure that cannot be parsed or computed.

    Examples
    --------
    >>> from rankwise.spark import evaluate  # doctest: +SKIP
    >>> results = evaluate(run_df, qrels_df, ["ndcg@10", "map"])  # doctest: +SKIP
    >>> results.mean  # doctest: +SKIP
    {'ndcg@10': 0.7891, 'map': 0.6667}
    >>> results.per_query.show()  # doctest: +SKIP
    """
    require_pyspark()
    from rankwise.engines.spark._frames import project_one_table, project_qrels, project_run

    parsed = _parse(measures, rel)
    _check_options(depth, missing, judged_only, strategy, num_partitions, chunk_rows)
    _check_ties(ties)
    if not isinstance(query, str) or not query:
        raise InvalidParameterError(f"query must be a column name, got {query!r}")
    run = project_run(run_df, query=query, doc=doc, score=score)
    qrels = project_qrels(qrels_df, query=query, doc=doc, label=label)
    if strategy == "auto":
        strategy = "ranks" if qrels.count() <= RANKS_MAX_JUDGMENTS else "partitions"
    if strategy == "ranks":
        results = _evaluate_ranks(run, qrels, parsed, query, depth, missing, judged_only, ties)
    else:
        both: DataFrame | None = qrels
        if qrels_df is run_df:  # one learning-to-rank table: shuffle it once
            run = project_one_table(run_df, query=query, doc=doc, score=score, label=label)
            both = None
        results = _evaluate_partitions(
            run, both, parsed, query, depth, missing, judged_only, ties, num_partitions, chunk_rows
        )
    from rankwise.evaluation import warn_coverage

    warn_coverage(
        results.unjudged_queries or 0, results.missing_queries or 0, missing, "run_df", 2
    )
    return results


def _parse(measures: Any, rel: float | None) -> list[Measure]:
    from rankwise.evaluation import parse_measures
    from rankwise.kernels import KERNELS

    if measures is None:
        raise InvalidParameterError("measures is required, for example ['ndcg@10', 'map']")
    parsed = [m for m in parse_measures(measures, rel) if m is not None]  # None: trec's runid
    if not parsed:
        raise InvalidParameterError(f"no measure to compute in {measures!r}")
    for measure in parsed:
        if measure.name not in KERNELS:
            raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented yet")
    return parsed


def _check_options(
    depth: Any, missing: Any, judged_only: Any, strategy: Any, partitions: Any, chunk_rows: Any
) -> None:
    def positive(value: Any) -> bool:
        return bool(
            isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
        )

    if missing not in ("skip", "zero"):
        raise InvalidParameterError(f"missing must be 'skip' or 'zero', got {missing!r}")
    if depth is not None and not positive(depth):
        raise InvalidParameterError(f"depth must be a positive integer or None, got {depth!r}")
    if not isinstance(judged_only, bool):
        raise InvalidParameterError(f"judged_only must be True or False, got {judged_only!r}")
    if strategy not in STRATEGIES:
        raise InvalidParameterError(f"strategy must be one of {list(STRATEGIES)}, got {strategy!r}")
    if partitions is not None and not positive(partitions):
        raise InvalidParameterError(
            f"num_partitions must be a positive integer or None, got {partitions!r}"
        )
    if not positive(chunk_rows):
        raise InvalidParameterError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")


def _check_ties(ties: Any) -> None:
    from rankwise.kernels.ranking import TIE_POLICIES

    supported = [policy for policy in TIE_POLICIES if policy != "rank"]
    if ties == "rank":
        raise InvalidParameterError(
            "ties='rank' (the run's rank column) is not supported by the Spark engine; "
            f"use one of {supported}, or rankwise.evaluate on a local copy"
        )
    if ties not in supported:
        raise InvalidParameterError(f"ties must be one of {supported}, got {ties!r}")


def _result_schema(query: str, measures: list[Measure]) -> Any:
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    fields = [StructField(query, StringType(), False)]
    fields += [
        StructField(str(m), StringType() if m.family.text_valued else DoubleType(), True)
        for m in measures
    ]
    return StructType(fields)


def _evaluate_ranks(
    run: DataFrame,
    qrels_frame: DataFrame,
    measures: list[Measure],
    query: str,
    depth: int | None,
    missing: str,
    judged_only: bool,
    ties: str,
) -> SparkResults:
    import pyarrow as pa

    from rankwise.engines.spark._frames import create_frame
    from rankwise.engines.spark.ranks import collect_judgments, ranked_by_counts
    from rankwise.engines.spark.results import SparkResults
    from rankwise.evaluation import evaluate_ranking, kernel_for

    for m in measures:
        kernel_for(m, ties, depth)  # unsupported measures fail before Spark does any work
    qrels = collect_judgments(qrels_frame)
    ranking, summary = ranked_by_counts(
        run, qrels_frame, qrels, depth=depth, missing=missing, judged_only=judged_only
    )
    local = evaluate_ranking(
        ranking,
        measures,
        ties=ties,
        run_name="",
        missing_queries=len(qrels.query_ids) - len(summary.queries),
        unjudged_queries=summary.unjudged_queries,
    )
    columns: dict[str, Any] = {query: pa.array(local.query_ids, pa.string())}
    for m in measures:
        array = local[m]
        columns[str(m)] = array.tolist() if array.dtype == object else array
    per_query = create_frame(run.sparkSession, pa.table(columns), _result_schema(query, measures))
    return SparkResults(
        per_query,
        dict(local.mean),
        measures,
        strategy="ranks",
        query=query,
        local=local,
        unjudged_queries=summary.unjudged_queries,
        missing_queries=local.missing_queries,
    )


def _evaluate_partitions(
    run: DataFrame,
    qrels: DataFrame | None,
    measures: list[Measure],
    query: str,
    depth: int | None,
    missing: str,
    judged_only: bool,
    ties: str,
    num_partitions: int | None,
    chunk_rows: int,
) -> SparkResults:
    from pyspark import StorageLevel
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column
    from rankwise.engines.spark.partitions import (
        ERROR_COLUMN,
        MISSING_COLUMN,
        UNJUDGED_COLUMN,
        per_query_frame,
    )
    from rankwise.engines.spark.results import SparkResults
    from rankwise.results import MIN_GEOMETRIC_VALUE

    spark = run.sparkSession
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key, None)
    spark.conf.set(key, str(min(chunk_rows, 100_000)))
    try:
        frame = per_query_frame(
            run,
            qrels,
            measures,
            query=query,
            depth=depth,
            missing=missing,
            judged_only=judged_only,
            ties=ties,
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
        _raise_executor_error(row["error"])
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
        unjudged_queries=int(row["unjudged"] or 0),
        missing_queries=int(row["missing"] or 0),
    )


def _raise_executor_error(message: str) -> None:
    import rankwise.exceptions as errors

    name, _, text = message.partition(": ")
    kind = getattr(errors, name, None)
    if isinstance(kind, type) and issubclass(kind, errors.RankwiseError):
        raise kind(text)
    raise InputFormatError(message)
