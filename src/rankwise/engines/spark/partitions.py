"""The ``partitions`` strategy: the numpy engine itself, on the executors.

Run rows and judgments are put in one stream (a union tagged by side),
shuffled by query and sorted by query within each partition, so that every
query's rows are contiguous. ``mapInArrow`` hands each partition to Python
as Arrow batches; rows are accumulated into chunks of about ``chunk_rows``
and every chunk's complete queries are evaluated by
:func:`rankwise.ranking.rank_all_ties` and the kernels, exactly as the
numpy engine does. The last query of a chunk may continue in the next
batch: it is carried over. Output: one row per evaluated query.

This strategy needs rankwise (with numpy and pyarrow) on the executors, and
shuffles the whole run; it is the one that scales when the judgments are as
large as the run (learning-to-rank logs where every row is labelled).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

    from rankwise.options import EvalOptions

__all__ = [
    "ERROR_COLUMN",
    "MISSING_COLUMN",
    "UNJUDGED_COLUMN",
    "evaluate_chunk",
    "evaluate_partition",
    "per_query_frame",
]

# Besides one row per query, a chunk may emit one row with an error message,
# or one row counting the queries it ignored (run only) and left out
# (judgments only); those rows have null measure values.
ERROR_COLUMN = "__rankwise_error"
UNJUDGED_COLUMN = "__rankwise_unjudged"
MISSING_COLUMN = "__rankwise_missing"
_RUN, _QRELS, _BOTH = 0, 1, 2  # the side of a row: run, judgments, or both (one table)


def _output_schema(query: str, names: list[str], text: list[bool]) -> Any:
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    fields = [StructField(query, StringType(), False)]
    fields += [
        StructField(name, StringType() if is_text else DoubleType(), True)
        for name, is_text in zip(names, text)
    ]
    fields.append(StructField(ERROR_COLUMN, StringType(), True))
    fields.append(StructField(UNJUDGED_COLUMN, LongType(), True))
    fields.append(StructField(MISSING_COLUMN, LongType(), True))
    return StructType(fields)


def _arrow_schema(query: str, names: list[str], text: list[bool]) -> pa.Schema:
    import pyarrow as pa

    fields = [pa.field(query, pa.string(), nullable=False)]
    fields += [
        pa.field(name, pa.string() if is_text else pa.float64())
        for name, is_text in zip(names, text)
    ]
    fields.append(pa.field(ERROR_COLUMN, pa.string()))
    fields.append(pa.field(UNJUDGED_COLUMN, pa.int64()))
    fields.append(pa.field(MISSING_COLUMN, pa.int64()))
    return pa.schema(fields)


def _special_batch(
    schema: pa.Schema, error: str | None = None, counts: tuple[int, int] | None = None
) -> pa.RecordBatch:
    """One row with an error message, or with the counts of ignored and left-out queries."""
    import pyarrow as pa

    columns = [pa.array([""], pa.string())]
    columns += [pa.nulls(1, field.type) for field in list(schema)[1:-3]]
    columns.append(pa.array([error], pa.string()))
    columns.append(pa.array([None if counts is None else counts[0]], pa.int64()))
    columns.append(pa.array([None if counts is None else counts[1]], pa.int64()))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _check_scores(table: pa.Table) -> str | None:
    """A message for the first run row whose score is null, NaN or infinite."""
    scores = table["s"].to_numpy(zero_copy_only=False).astype(np.float64)
    bad = ~np.isfinite(scores)
    if not bad.any():
        return None
    row = int(np.flatnonzero(bad)[0])
    return (
        f"InputFormatError: run_df: score {table['s'][row].as_py()!r} of document "
        f"{table['d'][row].as_py()!r} for query {table['q'][row].as_py()!r} is not a finite "
        "number; scores must not be null, NaN or infinite"
    )


_POSITION = re.compile(r"\{position (\d+)\}")
"""A row of the run or the judgments by its position (``monotonically_increasing_id``), in an
error row."""


def _at_positions(error: Any, run_rows: pa.Table, qrels_rows: pa.Table) -> str:
    """A duplicate's message, its chunk's lines as its table's positions (:func:`run_rows_in`).

    A run's duplicate is placed by the run rows' positions, a judgment's by the
    judgment rows' (in one learning-to-rank table both are the table's rows).
    """
    rows = {"run_df": run_rows, "qrels_df": qrels_rows}.get(str(error.path))
    if rows is None or "p" not in rows.column_names or error.line is None:
        return f"{type(error).__name__}: {error}"
    positions = rows["p"]
    message = re.sub(r"first at line (\d+)",
                     lambda found: f"first at line {{position {positions[int(found[1]) - 1]}}}",
                     error.message)
    return (f"{type(error).__name__}: {error.path}:{{position {positions[error.line - 1]}}}: "
            f"{message}")


def run_rows_in(message: str, run: DataFrame, qrels: DataFrame | None = None) -> str:
    """*message* with each ``{position N}`` an executor wrote as its table's row number.

    The table is the judgments when the message is about ``qrels_df`` (and
    *qrels* is a table of its own), else the run. The rows are counted
    partition after partition (one job, only for an error), as the numpy
    engine counts the rows of a table.
    """
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._pieces import row_numbers

    found = [int(p) for p in _POSITION.findall(message)]
    if not found:
        return message
    table = qrels if qrels is not None and ": qrels_df:" in message else run
    counts = table.select(sf.spark_partition_id().alias("i")).groupBy("i").count().collect()
    rows_read = np.zeros(table.rdd.getNumPartitions(), np.int64)
    for row in counts:
        rows_read[row["i"]] = row["count"]
    rows = row_numbers(np.array(found, np.int64), rows_read)
    lookup = dict(zip(found, rows.tolist()))
    return _POSITION.sub(lambda match: str(lookup[int(match[1])]), message)


def evaluate_chunk(
    table: pa.Table,
    measures: list[Any],
    schema: pa.Schema,
    *,
    options: EvalOptions,
) -> list[pa.RecordBatch]:
    """Evaluate the complete queries in *table* (columns ``q, d, s, g, side``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import Qrels, Run
    from rankwise.engines.core import compute
    from rankwise.exceptions import DuplicateEntryError, RankwiseError
    from rankwise.ranking.rank import rank_all_ties

    run_rows = table.filter(pc.not_equal(table["side"], _QRELS))
    # judgments: the judgments' rows, and the labelled rows of one learning-to-rank table
    qrels_rows = table.filter(
        pc.or_(
            pc.equal(table["side"], _QRELS),
            pc.and_(pc.equal(table["side"], _BOTH), pc.is_valid(table["g"])),
        )
    )
    topics = qrels_rows["t"] if "t" in qrels_rows.column_names else None
    problem = _check_scores(run_rows)
    if problem is not None:
        return [_special_batch(schema, error=problem)]
    try:
        qrels = Qrels.from_arrow(
            qrels_rows["q"], qrels_rows["d"], qrels_rows["g"], source="qrels_df",
            subtopics=topics,
        )
        run = Run.from_arrow(run_rows["q"], run_rows["d"], run_rows["s"], source="run_df")
        ranking = rank_all_ties(
            qrels,
            run,
            depth=options.depth,
            missing=options.missing,
            judged_only=options.judged_only,
            ascending=options.ties == "ascending",
        )
        values = compute(ranking, measures, options)
        columns = [pa.array(ranking.query_ids, pa.string())]
        for measure, field in zip(measures, list(schema)[1:-3]):
            array = values[measure]
            columns.append(
                pa.array(array.tolist() if array.dtype == object else array, field.type)
            )
    except DuplicateEntryError as error:
        return [_special_batch(schema, error=_at_positions(error, run_rows, qrels_rows))]
    except RankwiseError as error:
        return [_special_batch(schema, error=f"{type(error).__name__}: {error}")]
    except Exception as error:  # any other failure comes back as a rankwise error too
        return [_special_batch(schema, error=f"{type(error).__name__}: {error}")]
    n = len(ranking.query_ids)
    columns += [pa.nulls(n, pa.string()), pa.nulls(n, pa.int64()), pa.nulls(n, pa.int64())]
    batches = [pa.RecordBatch.from_arrays(columns, schema=schema)]
    run_queries, judged_queries = set(run.query_ids), set(qrels.query_ids)
    counts = (len(run_queries - judged_queries), len(judged_queries - run_queries))
    if any(counts):
        batches.append(_special_batch(schema, counts=counts))
    return batches


def evaluate_partition(
    batches: Iterator[pa.RecordBatch],
    *,
    measures: list[str],
    query: str,
    text: list[bool],
    options: EvalOptions,
    chunk_rows: int,
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: batches sorted by query in, one row per query out.

    Batches are accumulated until they hold at least *chunk_rows* rows; then
    all queries but the last are evaluated, and the last one's rows are
    carried into the next chunk (it may continue in the next batch).
    """
    from rankwise.measures import parse

    parsed = [parse(name) for name in measures]
    schema = _arrow_schema(query, measures, text)

    def evaluate(table: pa.Table) -> list[pa.RecordBatch]:
        return evaluate_chunk(table, parsed, schema, options=options)

    try:
        yield from _chunks(batches, evaluate, chunk_rows)
    except Exception as error:  # never a raw PythonException: an error row for the driver
        yield _special_batch(schema, error=f"{type(error).__name__}: {error}")


def _chunks(
    batches: Iterator[pa.RecordBatch],
    evaluate: Any,
    chunk_rows: int,
) -> Iterator[pa.RecordBatch]:
    """Accumulate *batches* into chunks of whole queries and evaluate each."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pending: list[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        rows += batch.num_rows
        if rows < chunk_rows:
            continue
        table = pa.Table.from_batches(pending)
        last_query = table["q"][-1]
        cut = pc.index(table["q"], last_query).as_py()
        if cut > 0:
            yield from evaluate(table.slice(0, cut))
            table = table.slice(cut)
        pending = table.to_batches()
        rows = table.num_rows
    if rows:
        yield from evaluate(pa.Table.from_batches(pending))


def _require_pandas() -> None:
    """Pyspark's ``mapInArrow`` imports pandas: say so as rankwise does, before any job."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        from rankwise.exceptions import MissingDependencyError

        raise MissingDependencyError(
            "strategy='partitions' hands each partition to the numpy engine through pyspark's "
            "mapInArrow, which needs pandas (not installed): pip install 'rankwise[spark]' "
            "(pyspark with its sql extra: pandas and pyarrow)"
        ) from None


def per_query_frame(
    run: DataFrame,
    qrels: DataFrame | None,
    measures: list[Any],
    *,
    query: str,
    options: EvalOptions,
    num_partitions: int | None,
    chunk_rows: int,
) -> DataFrame:
    """The (lazy) DataFrame of per-query values, with an error column.

    Rows whose error column is not null report bad input found by an executor.
    With *qrels* None, *run* holds both a score ``s`` and a grade ``g`` on
    every row (one learning-to-rank table): it is shuffled once, not twice.
    """
    import functools
    import warnings

    from pyspark.sql import functions as sf

    _require_pandas()
    names = [str(measure) for measure in measures]
    text = [measure.family.text_valued for measure in measures]
    position = sf.monotonically_increasing_id().alias("p")  # the run's rows, for errors
    if qrels is None:
        both = run.select("q", "d", "s", "g", sf.lit(_BOTH).cast("byte").alias("side"),
                          position)
    else:
        topics = "t" in qrels.columns  # diversity judgments: their subtopic column too
        both = run.select(
            "q",
            "d",
            "s",
            sf.lit(None).cast("double").alias("g"),
            sf.lit(_RUN).cast("byte").alias("side"),
            *([sf.lit(None).cast("string").alias("t")] if topics else []),
            position,
        ).unionByName(
            qrels.select(
                "q",
                "d",
                sf.lit(None).cast("double").alias("s"),
                "g",
                sf.lit(_QRELS).cast("byte").alias("side"),
                *(["t"] if topics else []),
                position,  # the judgments' own rows, for errors
            )
        )
    shuffled = both.repartition(num_partitions, "q") if num_partitions else both.repartition("q")
    body = functools.partial(
        evaluate_partition,
        measures=names,
        query=query,
        text=text,
        options=options,
        chunk_rows=chunk_rows,
    )
    with warnings.catch_warnings():
        # pyspark warns about pandas versions even though mapInArrow never uses pandas
        warnings.filterwarnings("ignore", message=".*pandas.*", category=FutureWarning)
        # by position too: a table's rows of one query in its order, so the first of two
        # rows given twice is the numpy engine's first
        return shuffled.sortWithinPartitions("q", "p").mapInArrow(
            body, _output_schema(query, names, text)
        )
