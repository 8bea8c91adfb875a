"""Files to DataFrames for the command line: Parquet (any Spark path) or TREC text.

Paths go to Spark unchanged, so ``s3a://bucket/run.parquet``,
``hdfs:///logs/qrels`` and local paths all work (the cluster needs the
matching Hadoop connector and credentials, as for any Spark job).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.exceptions import InputFormatError, InvalidParameterError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


__all__ = ["FORMATS", "file_format", "read_qrels", "read_run"]

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
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {list(FORMATS)}, got {fmt!r}")
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
    from pyspark.sql import functions as sf

    lines = spark.read.text(path)
    text = sf.trim(sf.col("value"))
    fields = lines.filter((text != "") & ~text.startswith("#")).select(
        sf.split(text, r"\s+").alias("f")
    )
    bad = fields.filter(sf.size("f") < expected).first()
    if bad is not None:
        raise InputFormatError(
            f"expected {expected} fields in a TREC {what} line, got {len(bad['f'])}: "
            f"{' '.join(bad['f'])!r}",
            path,
        )
    return fields


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
            sf.col("f")[4].cast("double").alias("score"),
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
) -> DataFrame:
    """Judgments as a DataFrame ``query_id, doc_id, relevance`` (Parquet columns renamed)."""
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import column

    if file_format(path, fmt) == "trec":
        fields = _trec_fields(spark, path, 4, "qrels")
        grade = sf.col("f")[3]
        frame = fields.select(
            sf.col("f")[0].alias("query_id"),
            sf.col("f")[2].alias("doc_id"),
            grade.cast("double").alias("relevance"),
            grade.alias("text"),
        )
        bad = frame.filter(sf.col("relevance").isNull()).first()
        if bad is not None:
            raise InputFormatError(f"relevance must be a number, got {bad['text']!r}", path)
        return frame.drop("text")
    table = spark.read.parquet(path)
    return table.select(
        column(_pick(table, query, _QUERY_NAMES, "query", path)).alias("query_id"),
        column(_pick(table, doc, _DOC_NAMES, "document", path)).alias("doc_id"),
        column(_pick(table, label, _LABEL_NAMES, "relevance", path)).alias("relevance"),
    )
