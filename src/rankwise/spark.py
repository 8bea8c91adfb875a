"""Evaluate rankings on Spark: :func:`evaluate` over Spark DataFrames.

Spark is one engine (:class:`~rankwise.engines.spark.SparkEngine`): reached
by ``rankwise.evaluate(..., engine="spark")``, by a Spark DataFrame given to
any front door, by ``--engine spark``, and by the functions here, which are
that same call with the engine's settings named (its per-query values left
in a DataFrame: :class:`SparkResults`).

Needs the optional extra ``pip install 'rankwise[spark]'`` and Java 17 or
later. Importing this module does not import pyspark.

Examples
--------
>>> from rankwise.spark import evaluate  # doctest: +SKIP
>>> results = evaluate(qrels_df, run_df, ["ndcg@10", "map", "mrr@10"])  # doctest: +SKIP
>>> results.mean  # doctest: +SKIP
{'ndcg@10': 0.41, 'map': 0.35, 'mrr@10': 0.33}

:func:`evaluate_recommendations` is the recommender front door
(:func:`rankwise.evaluate_recommendations`) on Spark DataFrames.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rankwise.engines.spark import (
    SparkEngine,
    SparkResults,
    check_executors,
    get_session,
    read_qrels,
    read_run,
    require_pyspark,
    ship,
)
from rankwise.evaluation import evaluate as _evaluate
from rankwise.options import EvalOptions, Missing, Ties, Unjudged
from rankwise.recommenders.spark import SparkRecommenderResults, evaluate_recommendations

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from rankwise.measures import Measure

__all__ = [
    "SparkRecommenderResults",
    "SparkResults",
    "check_executors",
    "evaluate",
    "evaluate_paths",
    "evaluate_recommendations",
    "get_session",
    "read_qrels",
    "read_run",
    "ship",
]

_SETTINGS = ("strategy", "num_partitions", "chunk_rows", "check_duplicates", "subtopic",
             "query", "doc", "score", "label")
"""The keywords of :func:`evaluate` that set the engine up (the others are the evaluation's)."""


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

    ``rankwise.evaluate(qrels_df, run_df, measures, engine="spark")``, the
    per-query values left in a DataFrame (:class:`SparkResults`): the same
    call, measure language, argument order and contract (score descending,
    ties by document id descending in byte order; R counted in the
    judgments; relevant means grade >= *rel*; the queries are those of the
    judgments), and the per-query values of the numpy engine. The keywords
    besides the evaluation's set the Spark engine up.

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
    require_pyspark()  # first: without it nothing else can be said of the DataFrames
    engine = SparkEngine(strategy=strategy, num_partitions=num_partitions, chunk_rows=chunk_rows,
                         check_duplicates=check_duplicates, query=query, doc=doc, score=score,
                         label=label, subtopic=subtopic, collect=False)
    results: SparkResults = _evaluate(  # type: ignore[assignment]
        qrels_df, run_df, measures, rel=rel, depth=depth, missing=missing,
        judged_only=judged_only, ties=ties, exclude_self=exclude_self, unjudged=unjudged,
        options=options, engine=engine)
    return results


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
    """Evaluate a run file against a judgments file on Spark.

    ``rankwise.evaluate(qrels_path, run_path, measures, engine="spark")``, the
    per-query values left in a DataFrame.

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
        As in :func:`evaluate` (``rel``, ``depth``, ``missing``,
        ``judged_only``, ``strategy``, ...).

    Returns
    -------
    SparkResults
    """
    require_pyspark()
    settings = {name: options.pop(name) for name in _SETTINGS if name in options}
    engine = SparkEngine(master=master, config=spark_config, fmt=fmt, collect=False, **settings)
    results: SparkResults = _evaluate(qrels_path, run_path, measures,  # type: ignore[assignment]
                                      engine=engine, **options)
    return results
