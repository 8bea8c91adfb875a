"""Checking and projecting the user's DataFrames; Arrow in and out of Spark.

Every DataFrame is projected once, at the boundary, to the engine's own
column names: ``q`` (query id, string), ``d`` (document id, string) and
``s`` (score, double) or ``g`` (grade, double).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = [
    "column",
    "create_frame",
    "project_one_table",
    "project_qrels",
    "project_run",
    "subtopic_column",
    "to_arrow",
]

_ID_TYPES = ("StringType", "VarcharType", "CharType")
_INTEGER_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType")
_NUMBER_TYPES = (*_INTEGER_TYPES, "FloatType", "DoubleType", "DecimalType")


def column(name: str) -> Column:
    """A top-level column by its exact name (dots, ``@`` and parentheses need no escaping).

    Examples
    --------
    >>> column("ndcg@10")  # doctest: +SKIP
    Column<'ndcg@10'>
    """
    from pyspark.sql import functions as sf

    return sf.col("`" + name.replace("`", "``") + "`")


def _field(frame: DataFrame, name: str, role: str, parameter: str, what: str) -> Any:
    if not isinstance(name, str):
        raise InputFormatError(f"{parameter}= must be a column name (str), got {name!r}")
    fields = {field.name: field for field in frame.schema.fields}
    if name not in fields:
        raise InputFormatError(
            f"{what} has no {role} column {name!r}; its columns are {list(fields)}: "
            f"pass {parameter}= to name it"
        )
    return fields[name]


def _check_type(field: Any, allowed: tuple[str, ...], expected: str, what: str) -> None:
    kind = type(field.dataType).__name__
    if kind not in allowed:
        raise InputFormatError(
            f"{what} column {field.name!r} must hold {expected}, got Spark type "
            f"{field.dataType.simpleString()}"
        )


def _ids(frame: DataFrame, name: str, role: str, parameter: str, what: str) -> Column:
    field = _field(frame, name, role, parameter, what)
    _check_type(field, _ID_TYPES + _INTEGER_TYPES, "strings or integers", what)
    return column(name).cast("string")


def project_run(frame: Any, *, query: str, doc: str, score: str) -> DataFrame:
    """Return *frame* as columns ``q, d, s`` after checking names and types.

    Raises
    ------
    InputFormatError
        A column is missing, or holds the wrong type.
    """
    _require_frame(frame, "run_df")
    what = "run_df"
    field = _field(frame, score, "score", "score", what)
    _check_type(field, _NUMBER_TYPES, "numbers", what)
    projected: DataFrame = frame.select(
        _ids(frame, query, "query", "query", what).alias("q"),
        _ids(frame, doc, "document", "doc", what).alias("d"),
        column(score).cast("double").alias("s"),
    )
    return projected


def project_qrels(
    frame: Any, *, query: str, doc: str, label: str, subtopic: str | None = None
) -> DataFrame:
    """Return *frame* as columns ``q, d, g`` (and ``t``) after checking names and types.

    With *subtopic* (a column name), diversity judgments: the subtopic of
    each judgment as column ``t``.

    Raises
    ------
    InputFormatError
        A column is missing, or holds the wrong type.
    """
    _require_frame(frame, "qrels_df")
    what = "qrels_df"
    field = _field(frame, label, "relevance label", "label", what)
    _check_type(field, (*_NUMBER_TYPES, "BooleanType"), "numbers (or booleans)", what)
    columns = [
        _ids(frame, query, "query", "query", what).alias("q"),
        _ids(frame, doc, "document", "doc", what).alias("d"),
        column(label).cast("double").alias("g"),
    ]
    if subtopic is not None:
        columns.append(_ids(frame, subtopic, "subtopic", "subtopic", what).alias("t"))
    projected: DataFrame = frame.select(*columns)
    return projected


def subtopic_column(frame: Any, subtopic: str | None) -> str | None:
    """The subtopic column of a judgments frame: the one named, else ``subtopic`` or ``intent``."""
    if subtopic is not None:
        return subtopic
    names = [field.name for field in frame.schema.fields] if hasattr(frame, "schema") else []
    return next((name for name in ("subtopic", "intent") if name in names), None)


def project_one_table(frame: Any, *, query: str, doc: str, score: str, label: str) -> DataFrame:
    """Return one learning-to-rank table as columns ``q, d, s, g`` (checked as above)."""
    project_run(frame, query=query, doc=doc, score=score)  # checks names and types
    project_qrels(frame, query=query, doc=doc, label=label)
    projected: DataFrame = frame.select(
        column(query).cast("string").alias("q"),
        column(doc).cast("string").alias("d"),
        column(score).cast("double").alias("s"),
        column(label).cast("double").alias("g"),
    )
    return projected


def _require_frame(frame: Any, what: str) -> None:
    if not (hasattr(frame, "schema") and hasattr(frame, "sparkSession")):
        raise InputFormatError(
            f"{what} must be a Spark DataFrame, got {type(frame).__module__}."
            f"{type(frame).__name__}; for pandas, polars or Arrow tables use rankwise.evaluate"
        )


def to_arrow(frame: DataFrame) -> pa.Table:
    """Collect *frame* to the driver as one Arrow table (Spark 4: ``toArrow``)."""
    import pyarrow as pa

    if hasattr(frame, "toArrow"):
        return frame.toArrow()  # pyspark >= 4
    batches = frame._collect_as_arrow()  # type: ignore[operator, unused-ignore]  # pyspark 3.x
    if batches:
        return pa.Table.from_batches(batches)
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(frame.schema).empty_table()


def create_frame(spark: SparkSession, table: pa.Table, schema: Any) -> DataFrame:
    """A DataFrame holding the driver-side Arrow *table*, with the Spark *schema*.

    The chunks are combined first: pyspark 4.3's ``createDataFrame`` loses
    rows of a table whose columns are chunked differently (found by
    ``benchmarks/bench_spark_parity.py``; an empty chunk in one column is enough).
    """
    import pyspark

    if int(pyspark.__version__.split(".")[0]) >= 4:
        return spark.createDataFrame(table.combine_chunks(), schema=schema)
    return spark.createDataFrame(table.to_pandas(), schema=schema)  # pragma: no cover
