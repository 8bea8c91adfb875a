"""Files to DataFrames for the command line: Parquet (any Spark path) or TREC text.

Paths go to Spark unchanged, so ``s3a://bucket/run.parquet``,
``hdfs:///logs/qrels`` and local paths all work (the cluster needs the
matching Hadoop connector and credentials, as for any Spark job).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise._validation import OneOf, check
from rankwise.exceptions import InputFormatError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


__all__ = ["FORMATS", "cache_text", "file_format", "read_qrels", "read_run"]

FORMATS = ("auto", "parquet", "trec")
_TREC_SUFFIXES = (".run", ".qrels", ".trec", ".txt", ".test")
_QUERY_NAMES = ("query_id", "qid", "query")
_DOC_NAMES = ("doc_id", "docno", "docid", "doc")
_LABEL_NAMES = ("relevance", "label", "grade", "rel")
_SCORE_NAMES = ("score",)


def file_format(path: str, fmt: str = "auto") -> str:
    """``"trec"`` for TREC text files (by suffix, ``.gz`` allowed), else ``"parquet"``.

    Examples
    --------
    >>> file_format("s3a://bucket/runs/bm25.parquet")
    'parquet'
    >>> file_format("hdfs:///eval/qrels.txt.gz")
    'trec'
    >>> file_format("/data/run", "trec")
    'trec'
    """
    check("format", fmt, OneOf(FORMATS))
    if fmt != "auto":
        return fmt
    name = path.lower().removesuffix(".gz").removesuffix(".bz2")
    return "trec" if name.endswith(_TREC_SUFFIXES) else "parquet"


def _pick(
    frame: DataFrame, wanted: str | None, candidates: tuple[str, ...], role: str, path: str
) -> str:
    if wanted is not None:
        return wanted
    for name in candidates:
        if name in frame.columns:
            return name
    raise InputFormatError(
        f"no {role} column: expected one of {list(candidates)}, columns are {frame.columns}", path
    )


def _trec_fields(spark: SparkSession, path: str, expected: int, what: str) -> DataFrame:
    """The fields of each TREC line; a short line fails the first scan that reads it.

    No pass of its own: the check is part of the projection (Spark's
    ``raise_error``), so it runs inside the engine's first scan, and the
    error comes back as ``InputFormatError`` (``engine.rankwise_errors``).
    """
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._errors import marker

    names = "qid Q0 docno rank score runid" if what == "run" else "qid iter docno rel"
    lines = spark.read.text(path)
    text = sf.trim(sf.col("value"))
    fields = sf.split(text, r"\s+")
    problem = sf.concat(
        sf.lit(f"{path}: expected {expected} fields ({names}) in a TREC {what} line, got "),
        sf.size(fields).cast("string"),
        sf.lit(": '"),
        text,
        sf.lit("'"),
    )
    checked = sf.when(sf.size(fields) < expected, marker("InputFormatError", problem)).otherwise(
        fields
    )
    return lines.filter((text != "") & ~text.startswith("#")).select(checked.alias("f"))


def _number(field: Column, path: str, what: str) -> Column:
    """*field* as a double; text that is not a number fails the scan with its value."""
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._errors import marker

    value = field.try_cast("double")
    problem = sf.concat(sf.lit(f"{path}: {what} must be a number, got '"), field, sf.lit("'"))
    return sf.when(value.isNull(), marker("InputFormatError", problem)).otherwise(value)


def read_run(
    spark: SparkSession,
    path: str,
    *,
    fmt: str = "auto",
    query: str | None = None,
    doc: str | None = None,
    score: str | None = None,
) -> DataFrame:
    """A run as a DataFrame ``query_id, doc_id, score`` (Parquet columns renamed)."""
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column

    if file_format(path, fmt) == "trec":
        fields = _trec_fields(spark, path, 6, "run")
        return fields.select(
            sf.col("f")[0].alias("query_id"),
            sf.col("f")[2].alias("doc_id"),
            _number(sf.col("f")[4], path, "score").alias("score"),
        )
    frame = spark.read.parquet(path)
    return frame.select(
        column(_pick(frame, query, _QUERY_NAMES, "query", path)).alias("query_id"),
        column(_pick(frame, doc, _DOC_NAMES, "document", path)).alias("doc_id"),
        column(_pick(frame, score, _SCORE_NAMES, "score", path)).alias("score"),
    )


def read_qrels(
    spark: SparkSession,
    path: str,
    *,
    fmt: str = "auto",
    query: str | None = None,
    doc: str | None = None,
    label: str | None = None,
    subtopics: bool = False,
) -> DataFrame:
    """Judgments as a DataFrame ``query_id, doc_id, relevance`` (Parquet columns renamed).

    Diversity judgments keep a ``subtopic`` column: TREC text with *subtopics*
    (its second field), Parquet with a ``subtopic`` or ``intent`` column.
    """
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column

    if file_format(path, fmt) == "trec":
        fields = _trec_fields(spark, path, 4, "qrels")
        return fields.select(
            sf.col("f")[0].alias("query_id"),
            sf.col("f")[2].alias("doc_id"),
            _number(sf.col("f")[3], path, "relevance").alias("relevance"),
            *([sf.col("f")[1].alias("subtopic")] if subtopics else []),
        )
    table = spark.read.parquet(path)
    topic = next((name for name in ("subtopic", "intent") if name in table.columns), None)
    return table.select(
        column(_pick(table, query, _QUERY_NAMES, "query", path)).alias("query_id"),
        column(_pick(table, doc, _DOC_NAMES, "document", path)).alias("doc_id"),
        column(_pick(table, label, _LABEL_NAMES, "relevance", path)).alias("relevance"),
        *([column(topic).alias("subtopic")] if topic is not None else []),
    )


def cache_text(frame: DataFrame, path: str, fmt: str = "auto") -> DataFrame | None:
    """Persist *frame* when it was parsed from TREC text; return it (None for Parquet).

    For the judgments, which are counted and then collected: TREC text is
    parsed by the first read (which also checks every line) and served from
    the cache after. (A run is persisted by the plan instead, only when the
    plan reads it twice.) Call ``unpersist()`` on what this returns when done.
    """
    from pyspark import StorageLevel

    if file_format(path, fmt) != "trec":
        return None
    return frame.persist(StorageLevel.MEMORY_AND_DISK)
