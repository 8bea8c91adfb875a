"""How the run is laid out, and whether the ``jvm`` pass reads it as it is or shuffled by query.

The pass merges a query's pieces wherever they are (:mod:`rankwise.engines.spark.jvm`),
but a query in a piece per partition (a round-robin ``repartition``, a model's or a
join's output written as files) costs a second pass over the whole run and a shuffle
of a hash per row. There a shuffle by query first brings each query whole to one
partition (7M rows in 64 shuffled files on ``local[2]``: 8.1-8.6 CPU seconds against
9.0-10.4 for the merge; after a ``repartition(64)`` a tie, docs/spark.md).
:func:`choose_layout` decides without reading the run
when Spark's plan says how the rows were placed, and else from the first rows of a few
partitions (:data:`SAMPLED_PARTITIONS`, :data:`HEAD_ROWS` each): the share of their
queries found in more than one of them.

A round-robin ``repartition(n)`` in the run's plan (no columns: not by a column or a
range, not a ``coalesce``) deals the rows to partitions arbitrarily, and no value of a
query depends on where its rows are: :func:`choose_layout` reads the run below it
(:func:`below_round_robin`), and chooses for that as for any run, a shuffle by query then
into at least *n* partitions. Spark's shuffle of every row is not run, and the run is
shuffled once (by query) instead of twice. Unless what is above it depends on where the
rows are (anything but aliases and deterministic columns and filters), it is cached, or a
measure ranks tied documents in input order (which the repartition sets).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["HEAD_ROWS", "SAMPLED_PARTITIONS", "SPREAD_SHARE", "Layout", "choose_layout",
           "spread_share"]

SAMPLED_PARTITIONS = 4
"""Partitions whose first rows are read to measure the layout."""
HEAD_ROWS = 10_000
"""Rows read at the start of each sampled partition."""
SPREAD_SHARE = 0.5
"""A shuffle by query first when at least this share of the sampled queries is in
several sampled partitions."""
UNKNOWN_SIZE = 1 << 62
"""Spark's size estimate at or above this: not known (``spark.sql.defaultSizeInBytes``)."""
BYTES_PER_ROW = 8
"""A run row takes at least this many bytes in Spark's size estimate (Parquet compresses
a row of the benchmarks' runs to 16): rows are at most the size over this."""


@dataclass(frozen=True)
class Layout:
    """The choice: ``shuffle`` partitions of a shuffle by query first (0: none), and why.

    ``rows``: the run's RDD as the pass reads it unshuffled, when the probe made it.
    ``run``: the run read instead of the one given (below its round-robin repartition),
    or None.
    """

    shuffle: int
    reason: str
    rows: Any = field(default=None, compare=False)
    run: Any = field(default=None, compare=False)


def spread_share(heads: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """The share of queries in more than one head, and the largest share of a head one query fills.

    *heads*: per sampled partition, the hashes of its first rows' queries and their rows.

    Examples
    --------
    >>> a = (np.array([1, 2, 3]), np.array([5, 1, 1]))
    >>> b = (np.array([3, 4]), np.array([2, 2]))
    >>> spread_share([a, b])
    (0.25, 0.7142857142857143)
    """
    hashes = [h for h, _ in heads if len(h)]
    if not hashes:
        return 0.0, 0.0
    _, per_query = np.unique(np.concatenate(hashes), return_counts=True)
    fills = max(float(c.max() / c.sum()) for h, c in heads if len(h))
    return float(np.mean(per_query > 1)), fills


def _heads(context: Any, ranks_pass: Any, rows: Any, partitions: list[int]
           ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The queries of the first :data:`HEAD_ROWS` rows of each of *partitions* (one job)."""
    which = context._gateway.new_array(context._jvm.int, len(partitions))
    for i, p in enumerate(partitions):
        which[i] = p
    with tempfile.TemporaryDirectory(prefix="rankwise-jvm-") as folder:
        path = os.path.join(folder, "heads")
        ranks_pass.heads(rows, which, HEAD_ROWS, path)
        with open(path, "rb") as file:
            data = np.frombuffer(file.read(), "<i8")
    out, at = [], 0
    while at < len(data):
        n = int(data[at])
        out.append((data[at + 1:at + 1 + n], data[at + 1 + n:at + 1 + 2 * n]))
        at += 1 + 2 * n
    return out


def _shuffle_partitions(run: DataFrame, partitions: int, window_rows: int) -> int | None:
    """Partitions of a shuffle by query holding at most half a window each (None: size unknown)."""
    size = int(str(run._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))
    if size >= UNKNOWN_SIZE:
        return None
    parallelism = int(run.sparkSession.sparkContext.defaultParallelism)
    wanted = math.ceil(size / BYTES_PER_ROW / max(window_rows // 2, 1))
    return max(partitions, parallelism, min(wanted, 16 * max(partitions, parallelism)))


def below_round_robin(run: DataFrame, ranks_pass: Any, ordered: str | None
                      ) -> tuple[DataFrame | None, int, str]:
    """*run* without the round-robin ``repartition(n)`` of its plan, *n*, and what the plan says.

    ``(None, 0, "")`` when there is none (a ``repartition(n, "q")``, a ``coalesce`` or
    none at all); ``(None, n, why)`` when it is kept: something above it depends on
    where the rows are (``RanksPass.withoutRoundRobin``), it is cached, or *ordered* (a
    measure) ranks tied documents in input order, which the repartition sets.
    """
    from pyspark.sql import DataFrame

    found = ranks_pass.withoutRoundRobin(run._jdf)
    n = int(found.partitions())
    if n == 0:
        return None, 0, ""
    kept = found.kept()
    if kept is None and ordered is not None:
        kept = f"{ordered} ranks tied documents in input order, which the repartition sets"
    if kept is not None:
        return None, n, f"with its round-robin repartition({n}) kept ({kept}); then "
    return (DataFrame(found.frame(), run.sparkSession), n,
            f"without its round-robin repartition({n}) (skipped: no value depends on where "
            "the rows are placed); then ")


def choose_layout(run: DataFrame, ranks_pass: Any, window_rows: int, *,
                  ordered: str | None = None) -> Layout:
    """Whether the pass reads *run* (``q, d, s``) as it is, or shuffled by query first; and why.

    A round-robin ``repartition(n)`` in the run's plan is skipped when that is safe
    (:func:`below_round_robin`; *ordered*: a measure that ranks tied documents in input
    order, which keeps it), and the choice made for the run below it, a shuffle into at
    least *n* partitions. Spark's plan decides when it says how the rows were placed
    (round-robin: every query in every partition; by a column or a range: read as it is,
    the plan's work is not run twice); else (files, a local table) the first rows of a
    few partitions are read. Nothing runs before this choice: the run's own shuffle, if
    any, runs once.
    """
    below, n, note = below_round_robin(run, ranks_pass, ordered)
    if not note:
        return _placed(run, ranks_pass, window_rows, 0)
    if below is None:
        choice = _placed(run, ranks_pass, window_rows, 0)
        return Layout(choice.shuffle, note + choice.reason, choice.rows)
    choice = _placed(below, ranks_pass, window_rows, n)
    return Layout(choice.shuffle, note + choice.reason, choice.rows, below)


def _placed(run: DataFrame, ranks_pass: Any, window_rows: int, at_least: int) -> Layout:
    """:func:`choose_layout` for *run* as it is; a shuffle into at least *at_least* partitions."""
    placed = str(run._jdf.queryExecution().sparkPlan().outputPartitioning().toString())
    kind = placed.split("(")[0].lower()
    if kind == "roundrobinpartitioning":
        partitions = int(placed.split("(")[1].rstrip(")"))
        how = (f"Spark's plan deals the rows round-robin ({placed}): every query is in every "
               "partition")
        rows = None
    elif kind != "unknownpartitioning":
        return Layout(0, f"read as it is, pieces merged: Spark's plan places the rows by {placed} "
                         "(a shuffle by query would run the plan's work again)")
    else:
        rows = ranks_pass.rows(run.select("q", "d", "s")._jdf)
        partitions = int(rows.getNumPartitions())
        if partitions <= 1:
            return Layout(0, "read as it is: one partition", rows)
        k = min(SAMPLED_PARTITIONS, partitions)
        sampled = [i * partitions // k for i in range(k)]  # spread over the partitions
        share, fills = spread_share(_heads(run.sparkSession.sparkContext, ranks_pass,
                                                  rows, sampled))
        how = (f"{share:.0%} of the queries of the first "
               f"{counted(HEAD_ROWS, 'row', grouped=True)} of "
               f"{counted(len(sampled), 'partition')} are in several of them")
        if share < SPREAD_SHARE:
            return Layout(0, f"read as it is, pieces merged: {how} (< {SPREAD_SHARE:.0%})", rows)
        if fills >= 0.5:
            return Layout(0, f"read as it is, pieces merged: {how}, but one query fills "
                             f"{fills:.0%} of a partition's first rows (too large for a shuffle "
                             "to bring it whole into one window)", rows)
    if partitions <= 1:
        return Layout(0, "read as it is: one partition", rows)
    shuffle = _shuffle_partitions(run, max(partitions, at_least), window_rows)
    if shuffle is None:
        return Layout(0, f"read as it is, pieces merged: {how}, but Spark does not know the "
                         "run's size (to choose the partitions of a shuffle)", rows)
    into = counted(shuffle, "partition")
    return Layout(shuffle, f"shuffled by query first into {into} (cheaper than merging a "
                           f"piece per partition of every query): {how}")
