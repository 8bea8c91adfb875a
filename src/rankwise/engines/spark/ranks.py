"""The ``ranks`` strategy: Spark SQL finds the ranks of judged documents only.

Most measures need, per query, the number of documents retrieved and the
rank and grade of each judged document retrieved. The rank of a judged
document is 1 + the number of documents of its query that sort before it
(a higher score, or an equal score and a greater document id in byte
order). Two scans of the run compute all of that, each a map-side join with
a small broadcast table and a partial aggregation: the run's rows are never
shuffled nor sorted (only partial aggregates move), and no Python runs on
the executors:

1. the first scan (:func:`summarize_run`): the run joined with the
   broadcast judgments on (query, doc), grouped by query and judged
   document, then by judged query: per judged query its row count and top
   score, the judged documents retrieved ("hits") with their scores and
   grades (collected: O(judgments)), and the checks (non-finite scores,
   null ids, documents listed twice);
2. the second scan: the hits of each query cut its order into intervals
   (:class:`~rankwise.engines.spark._assemble.HitIntervals`); each run row
   finds the one interval that holds it by an equi-join on (query, grid
   cell), and the rows of each interval are counted. Every hit's rank and
   tie group (for every tie policy) follow from those counts on the driver.

When every retrieved document of every judged query is judged (one
learning-to-rank table), the hits are the whole of those queries: the
driver ranks them itself and the second scan is skipped. Documents listed
twice for a query are found inside the first scan (the aggregation by query
also lists a 64-bit hash of each document id, map-side), as the numpy engine
refuses them.

The driver then holds O(judgments) data and runs the numpy kernels on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted, plural
from rankwise.engines.spark._assemble import judged_only_ranks, tied_ranking
from rankwise.engines.spark._frames import create_frame, to_arrow
from rankwise.exceptions import DuplicateEntryError, InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame

    from rankwise.data import Qrels
    from rankwise.engines.core import Coverage
    from rankwise.options import Missing
    from rankwise.ranking.tied import TiedRanking

GRID_ENTRIES_PER_INTERVAL = 3
"""The grid of the second scan lists at most this many entries per interval."""

__all__ = [
    "GRID_ENTRIES_PER_INTERVAL",
    "RanksScan",
    "RunSummary",
    "check_duplicates_in",
    "check_run",
    "check_table",
    "collect_judgments",
    "per_document",
    "rank_hits",
    "rank_on_driver",
    "summarize_run",
]


def _finite(name: str) -> Column:
    from pyspark.sql import functions as sf

    value = sf.col(name)
    return value.isNotNull() & ~sf.isnan(value) & (sf.abs(value) != sf.lit(float("inf")))


def collect_judgments(qrels: DataFrame, collected: Any = None) -> Qrels:
    """Collect the projected judgments (``q, d, g``; ``t``: subtopics) and check them.

    *collected*: the Arrow table of *qrels*, when it is on the driver already.
    """
    from rankwise.data import Qrels

    table = to_arrow(qrels) if collected is None else collected
    topics = table["t"] if "t" in table.column_names else None
    return Qrels.from_arrow(table["q"], table["d"], table["g"], source="qrels_df",
                            subtopics=topics)


def per_document(qrels: DataFrame) -> DataFrame:
    """One row per (query, document): diversity judgments graded by their maximum over subtopics."""
    from pyspark.sql import functions as sf

    if "t" not in qrels.columns:
        return qrels
    return qrels.groupBy("q", "d").agg(sf.max("g").alias("g"))


class RunSummary:
    """What the first scan of the run found.

    Attributes
    ----------
    queries : Arrow string array
        The judged queries present in the run.
    counts : ndarray of int64
        Rows of each of them.
    top_scores : ndarray of float64
        The highest score of each of them.
    unjudged_queries : int
        Queries of the run that have no judgments (ignored).
    hit_query, hit_doc : Arrow string arrays
        Query and document of each judged document retrieved.
    hit_score, hit_grade : ndarrays of float64
        Its score and grade.
    bad_scores, null_docs, null_queries : int
        Rows of the run with a score that is not a finite number, with a null
        document id, with a null query id.
    rows : int
        Rows of the run.
    suspects : int
        Queries of the run (judged or not) holding two rows whose document
        ids hash alike (64-bit): listed twice, or a rare collision; 0 when
        the scan did not look (``check_duplicates=False``).
    suspect_query : str or None
        One of them.
    twice_hit : tuple of str, or None
        A judged document listed twice for one query, ``(query, document)``.
    """

    def __init__(self, table: pa.Table) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        judged = table.filter(pc.is_valid(table["key"]))
        per_query = judged.group_by("key", use_threads=False).aggregate(
            [("n", "sum"), ("top", "max")]
        )
        self.queries: pa.Array = per_query["key"].combine_chunks()
        self.counts = per_query["n_sum"].to_numpy().astype(np.int64)
        self.top_scores = per_query["top_max"].to_numpy(zero_copy_only=False).astype(np.float64)
        unjudged = table.filter(pc.is_null(table["key"]))
        self.unjudged_queries = int(pc.sum(unjudged["queries"]).as_py() or 0)
        self.bad_scores = int(pc.sum(table["bad"]).as_py() or 0)
        self.null_docs = int(pc.sum(table["null_docs"]).as_py() or 0)
        self.null_queries = int(pc.sum(table["null_queries"]).as_py() or 0)
        self.rows = int(pc.sum(table["n"]).as_py() or 0)
        if "suspects" in table.column_names:
            self.suspects = int(pc.sum(table["suspects"]).as_py() or 0)
            named = pc.drop_null(table["suspect"])
            self.suspect_query: str | None = named[0].as_py() if len(named) else None
        else:
            self.suspects, self.suspect_query = 0, None
        hits = judged.filter(pc.is_valid(judged["hd"]))
        twice = hits.filter(pc.greater(hits["n"], 1))
        self.twice_hit: tuple[str, str] | None = (
            (twice["key"][0].as_py(), twice["hd"][0].as_py()) if twice.num_rows else None
        )
        self.hit_query: pa.Array = pa.array(hits["key"].combine_chunks(), pa.string())
        self.hit_doc: pa.Array = pa.array(hits["hd"].combine_chunks(), pa.string())
        self.hit_score = hits["top"].to_numpy().astype(np.float64)
        self.hit_grade = hits["g"].to_numpy().astype(np.float64)


def summarize_run(
    run: DataFrame, qrels: DataFrame, *, check_duplicates: bool = False
) -> RunSummary:
    """The first scan: per judged query its row count, the checks, the judged hits.

    One aggregation of the run joined with the broadcast judgments (a
    map-side join on a 64-bit hash of query and document, the ids compared
    too), keyed by query and, for a judged document, the document
    too: every query gives one group of its unjudged rows and one per judged
    document retrieved (its score and grade). A second aggregation, of one
    row per group, keeps the judged queries apart and sums up the others
    ("unjudged"). Only per-partition partial aggregates are shuffled.

    With *check_duplicates*, each group also lists a 64-bit hash of its
    rows' document ids, and the queries whose list holds a hash twice are
    counted (``RunSummary.suspects``): the lists are built map-side (8 bytes
    a row, no row of its own in the shuffle), so the check costs no scan nor
    shuffle of its own. :func:`check_run` confirms a suspect on the ids. The
    memory it needs: 8 bytes per row of the largest query, in one task. A
    judged document listed twice is found either way (its group counts two
    rows).
    """
    from pyspark.sql import functions as sf

    # joined on one 64-bit key, a hash of (query, document): the broadcast table is then
    # keyed by longs, probed without building a key of two strings per run row (about a
    # sixth less CPU for the scan). The ids are still compared, as a range (a >= b and
    # a <= b) that Spark keeps out of the join key: a hash collision never matches.
    q, d = sf.col("q"), sf.col("d")
    judged = qrels.select(
        sf.xxhash64("q", "d").alias("_jh"), q.alias("_jq"), d.alias("_jd"), "g",
        sf.lit(True).alias("_hit"),
    )
    same = (
        (sf.xxhash64("q", "d") == sf.col("_jh"))
        & (q >= sf.col("_jq")) & (q <= sf.col("_jq"))
        & (d >= sf.col("_jd")) & (d <= sf.col("_jd"))
    )
    joined = run.join(sf.broadcast(judged), same, "left")
    hit_doc = sf.when(sf.col("_hit"), sf.col("d")).alias("hd")
    aggregates = [
        sf.count(sf.lit(1)).alias("n"),
        sf.max("s").alias("top"),
        sf.max("g").alias("g"),
        sf.sum(sf.when(_finite("s"), 0).otherwise(1)).alias("bad"),
        sf.sum(sf.when(sf.col("d").isNull(), 1).otherwise(0)).alias("null_docs"),
    ]
    if check_duplicates:
        aggregates.append(sf.collect_list(sf.xxhash64("d")).alias("hashes"))
    groups = joined.groupBy("q", hit_doc).agg(*aggregates)
    totals = []
    if check_duplicates:
        twice = sf.size("hashes") > sf.size(sf.array_distinct("hashes"))
        groups = groups.withColumn("twice", twice).drop("hashes")
        totals = [
            sf.sum(sf.col("twice").cast("long")).alias("suspects"),
            sf.first(sf.when(sf.col("twice"), sf.col("q")), ignorenulls=True).alias("suspect"),
        ]
    judged_queries = qrels.select("q").distinct().withColumn("_judged", sf.lit(True))
    key = sf.when(sf.col("_judged"), sf.col("q")).alias("key")
    summary = (
        groups.join(sf.broadcast(judged_queries), "q", "left")
        .groupBy(key, sf.when(sf.col("_judged"), sf.col("hd")).alias("hd"))
        .agg(
            sf.sum("n").alias("n"),
            sf.max("top").alias("top"),
            sf.max("g").alias("g"),
            sf.sum("bad").alias("bad"),
            sf.sum("null_docs").alias("null_docs"),
            sf.sum(sf.when(sf.col("q").isNull(), sf.col("n")).otherwise(0)).alias("null_queries"),
            sf.count(sf.col("q")).alias("queries"),
            *totals,
        )
    )
    return RunSummary(to_arrow(summary))


def check_run(run: DataFrame, summary: RunSummary) -> None:
    """Raise on what the first scan found wrong, naming an offending row.

    Raises
    ------
    InputFormatError
        A null query or document id, or a score that is null, NaN or infinite.
    DuplicateEntryError
        A document listed twice for one query: judged (the hits show it), or
        any when the scan looked (``summarize_run(check_duplicates=True)``).
    """
    from pyspark.sql import functions as sf

    if summary.null_queries:
        raise InputFormatError(f"run_df: {counted(summary.null_queries, 'row')} "
                               f"{plural('has', summary.null_queries)} a null query id")
    if summary.null_docs:
        example = run.filter(sf.col("d").isNull()).select("q").limit(1).collect()
        where = f" (for example in query {example[0][0]!r})" if example else ""
        raise InputFormatError(f"run_df: {counted(summary.null_docs, 'row')} "
                               f"{plural('has', summary.null_docs)} a null document id{where}")
    if summary.bad_scores:
        rows = run.filter(~_finite("s")).limit(1).collect()
        shown = (
            f", for example {rows[0][2]!r} for document {rows[0][1]!r} of query {rows[0][0]!r}"
            if rows
            else ""
        )
        raise InputFormatError(
            f"run_df: {counted(summary.bad_scores, 'score')} "
            f"{plural('is', summary.bad_scores)} not finite{shown}; "
            "scores must not be null, NaN or infinite"
        )
    _check_duplicate_hits(summary)
    if summary.suspects:
        _confirm_duplicates(run, summary)


def _confirm_duplicates(run: DataFrame, summary: RunSummary) -> None:
    """Name a document listed twice in the suspect query; else (a collision) check it all."""
    from pyspark.sql import functions as sf

    found = (
        run.filter(sf.col("q") == sf.lit(summary.suspect_query))
        .groupBy("d")
        .count()
        .filter(sf.col("count") > 1)
        .limit(1)
        .collect()
    )
    if found:
        raise DuplicateEntryError(
            f"document {found[0]['d']!r} appears twice for query {summary.suspect_query!r}; "
            "a run lists each document once per query",
            "run_df",
        )
    check_duplicates_in(run)  # two document ids of that query hash alike: look everywhere


def _check_duplicate_hits(summary: RunSummary) -> None:
    if summary.twice_hit is not None:
        query, doc = summary.twice_hit
        raise DuplicateEntryError(
            f"document {doc!r} appears twice for query {query!r}; "
            "a run lists each document once per query",
            "run_df",
        )


def rank_hits(
    run: DataFrame,
    summary: RunSummary,
    *,
    grid: tuple[Any, float, np.ndarray, np.ndarray] | None = None,
    ascending: bool = False,
) -> dict[str, np.ndarray]:
    """Second scan: the rank and the tie group of each hit of *summary* in its query.

    The hits of each query cut its order into intervals
    (:class:`~rankwise.engines.spark._assemble.HitIntervals`); the intervals
    are broadcast and every run row scoring at least as high as its query's
    lowest hit is matched to the one interval that holds it, then counted per
    interval. At most one row per run row leaves the join (the plan of
    rankwise 0.1 emitted one per hit and document above it: quadratic in the
    judged documents of a query), and one row per interval is collected.
    With *ascending* (``ties="ascending"``), tied documents go by document id
    ascending: the order inside a query is then (score, document id
    descending), and the intervals and the join follow it (*grid* must have
    been built the same way).

    Returns
    -------
    dict
        ``rank`` (1-based), ``above`` and ``size``, one entry per hit.
    """
    import pyarrow as pa
    from pyspark.sql import functions as sf
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    from rankwise.engines.spark._assemble import CELL_LIMIT, HitIntervals

    if grid is None:
        intervals = HitIntervals(
            _query_codes(summary), summary.hit_doc, summary.hit_score, ascending=ascending
        )
        budget = GRID_ENTRIES_PER_INTERVAL * len(intervals)
        grid = (intervals, *intervals.grid(summary.top_scores, budget))
    intervals, scale, entry, cell = grid
    if len(intervals) == 0:
        return intervals.ranks(np.zeros(0), np.zeros(0), np.zeros(0))
    high = intervals.high_score[entry]
    table = pa.table(
        {
            "iq": summary.queries.take(pa.array(intervals.query[entry])),
            "ic": cell,
            "ls": intervals.low_score[entry],
            "ld": intervals.low_doc.take(pa.array(entry)),
            "hs": pa.array(high, mask=np.isnan(high)),
            "hd": intervals.high_doc.take(pa.array(entry)),
            "iid": entry,
        }
    )
    schema = StructType(
        [
            StructField("iq", StringType(), False),
            StructField("ic", LongType(), False),
            StructField("ls", DoubleType(), False),
            StructField("ld", StringType(), True),
            StructField("hs", DoubleType(), True),
            StructField("hd", StringType(), True),
            StructField("iid", LongType(), False),
        ]
    )
    frame = create_frame(run.sparkSession, table, schema)
    s, d = sf.col("s"), sf.col("d")
    limit = sf.lit(CELL_LIMIT)
    row_cell = sf.floor(sf.least(sf.greatest(s * sf.lit(scale), -limit), limit))
    # the order inside a query: (score, document id), the id descending with ascending ties
    at_or_after_low = (d <= sf.col("ld")) if ascending else (d >= sf.col("ld"))
    before_high = (d > sf.col("hd")) if ascending else (d < sf.col("hd"))
    above_low = (s > sf.col("ls")) | (
        (s == sf.col("ls")) & (sf.col("ld").isNull() | at_or_after_low)
    )
    below_high = (
        sf.col("hs").isNull()
        | (s < sf.col("hs"))
        | ((s == sf.col("hs")) & before_high)
    )
    matched = (sf.col("q") == sf.col("iq")) & (row_cell == sf.col("ic")) & above_low & below_high
    counts = (
        run.join(sf.broadcast(frame), matched)
        .groupBy("iid")
        .agg(
            sf.count(sf.lit(1)).alias("n"),
            sf.count(sf.when(s == sf.col("ls"), 1)).alias("low"),
            sf.count(sf.when(s == sf.col("hs"), 1)).alias("high"),
        )
    )
    got = to_arrow(counts)
    size = len(intervals)
    where = got["iid"].to_numpy()
    count, low, high_equal = (np.zeros(size, dtype=np.int64) for _ in range(3))
    count[where] = got["n"].to_numpy()
    low[where] = got["low"].to_numpy()
    high_equal[where] = got["high"].to_numpy()
    return intervals.ranks(count, low, high_equal)


class RanksScan:
    """The first scan of the run, checked, and what the second will cost.

    Parameters
    ----------
    run, qrels_frame : DataFrame
        The projected run (``q, d, s``) and judgments (``q, d, g``).
    qrels : Qrels
        The judgments, collected.
    ascending : bool
        ``ties="ascending"``: tied documents by id ascending.
    check_duplicates : bool
        Refuse a document listed twice for one query (judged or not), found
        by the first scan; without it only judged ones are refused.

    Raises
    ------
    InputFormatError, DuplicateEntryError
        As :func:`check_run`.
    """

    def __init__(
        self,
        run: DataFrame,
        qrels_frame: DataFrame,
        qrels: Qrels,
        *,
        ascending: bool = False,
        check_duplicates: bool = True,
    ) -> None:
        self.run = run
        self.qrels = qrels
        self.ascending = ascending  # ties="ascending": tied documents by id ascending
        # diversity judgments: one row per (query, document), the best grade over subtopics
        self.summary = summarize_run(
            run, per_document(qrels_frame), check_duplicates=check_duplicates
        )
        check_run(run, self.summary)
        self._grid: tuple[Any, float, np.ndarray, np.ndarray] | None = None

    @property
    def covered(self) -> bool:
        """Whether every retrieved document of every judged query is judged.

        The hits are then all the rows of those queries: the driver ranks
        them, with no second scan (and they hold no unjudged duplicate).
        """
        summary = self.summary
        codes = _query_codes(summary)
        hits = np.bincount(codes, minlength=len(summary.queries))
        return bool(np.array_equal(hits, summary.counts))

    def grid(self) -> tuple[Any, float, np.ndarray, np.ndarray]:
        """The intervals and the second scan's grid: ``(intervals, scale, entry, cell)``."""
        if self._grid is None:
            from rankwise.engines.spark._assemble import HitIntervals

            summary = self.summary
            intervals = HitIntervals(
                _query_codes(summary), summary.hit_doc, summary.hit_score,
                ascending=self.ascending,
            )
            budget = GRID_ENTRIES_PER_INTERVAL * len(intervals)
            scale, entry, cell = intervals.grid(summary.top_scores, budget)
            self._grid = (intervals, scale, entry, cell)
        return self._grid

    def offered_per_row(self) -> float:
        """Intervals the second scan will offer a run row, on average (an estimate)."""
        from rankwise.engines.spark.plan import offered_per_row

        intervals, _, entry, cell = self.grid()
        if len(entry) == 0:
            return 0.0
        return offered_per_row(intervals.query[entry], cell)

    def ranking(
        self,
        *,
        depth: int | None,
        missing: Missing,
        judged_only: bool,
    ) -> TiedRanking:
        """The second scan (when needed), and the kernels' input assembled on the driver."""
        import pyarrow as pa

        summary = self.summary
        if self.covered:
            return self._ranking_of_hits(depth=depth, missing=missing, judged_only=judged_only)
        if judged_only:
            codes = _query_codes(summary)
            usable = summary.hit_grade >= 0
            if depth is not None:  # trec_eval cuts at the depth first, then drops the unjudged
                usable &= self._rank_hits()["rank"] <= depth
            kept, rank, above, size = judged_only_ranks(
                codes,
                summary.hit_doc,
                summary.hit_score,
                np.where(usable, summary.hit_grade, -1.0),
                ascending=self.ascending,
            )
            counts = np.bincount(codes[kept], minlength=len(summary.queries)).astype(np.int64)
            hits = {
                "query": summary.hit_query.filter(pa.array(kept)),
                "doc": summary.hit_doc.filter(pa.array(kept)),
                "grade": summary.hit_grade[kept],
                "rank": rank,
                "above": above,
                "size": size,
            }
        else:
            counts = summary.counts
            hits = {"query": summary.hit_query, "doc": summary.hit_doc,
                    "grade": summary.hit_grade, **self._rank_hits()}
        return tied_ranking(
            self.qrels,
            summary.queries,
            counts,
            hits,
            depth=depth,
            missing=missing,
            judged_only=judged_only,
        )

    def _rank_hits(self) -> dict[str, np.ndarray]:
        intervals, scale, entry, cell = self.grid()
        return rank_hits(
            self.run, self.summary, grid=(intervals, scale, entry, cell), ascending=self.ascending
        )

    def _ranking_of_hits(
        self, *, depth: int | None, missing: Missing, judged_only: bool
    ) -> TiedRanking:
        """Rank the hits on the driver: they are every row of the judged queries."""
        from rankwise.data import Run
        from rankwise.ranking.rank import rank_all_ties

        summary = self.summary
        run = Run.from_arrow(
            summary.hit_query, summary.hit_doc, summary.hit_score, source="run_df"
        )
        return rank_all_ties(
            self.qrels, run, depth=depth, missing=missing, judged_only=judged_only,
            ascending=self.ascending,
        )


def check_table(table: pa.Table) -> None:
    """Raise on a null id or a score that is not a finite number in a collected run table.

    Raises
    ------
    InputFormatError
        Naming the count and one offending row.
    """
    for name, what in (("q", "query"), ("d", "document")):
        nulls = table[name].null_count
        if nulls:
            raise InputFormatError(f"run_df: {counted(nulls, 'row')} {plural('has', nulls)} "
                                   f"a null {what} id")
    scores = table["s"].to_numpy(zero_copy_only=False).astype(np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputFormatError(
            f"run_df: {counted(int(bad.sum()), 'score')} {plural('is', int(bad.sum()))} "
            "not finite, for example "
            f"{table['s'][row].as_py()!r} for document {table['d'][row].as_py()!r} of query "
            f"{table['q'][row].as_py()!r}; scores must not be null, NaN or infinite"
        )


def rank_on_driver(
    table: pa.Table,
    *,
    depth: int | None,
    missing: Missing,
    judged_only: bool,
    ascending: bool = False,
) -> tuple[TiedRanking, Coverage]:
    """Rank one collected learning-to-rank table (``q, d, s, g``) with the numpy engine.

    Rows whose grade is null are retrieved but not judged. Returns the
    ranking and the coverage of the judged queries by the run's.
    """
    import pyarrow.compute as pc

    from rankwise.data import Qrels, Run
    from rankwise.engines.core import Coverage
    from rankwise.ranking.rank import rank_all_ties

    judged = table.filter(pc.is_valid(table["g"]))
    qrels = Qrels.from_arrow(judged["q"], judged["d"], judged["g"], source="qrels_df")
    run = Run.from_arrow(table["q"], table["d"], table["s"], source="run_df")
    ranking = rank_all_ties(
        qrels, run, depth=depth, missing=missing, judged_only=judged_only, ascending=ascending
    )
    return ranking, Coverage.between(qrels.query_ids, run.query_ids)


def check_duplicates_in(run: DataFrame) -> None:
    """Raise when a document is listed twice for one query of *run* (a scan of its own).

    The first scan finds suspects itself (:func:`summarize_run`); this is
    the fallback when a suspect was two document ids hashing alike. One
    aggregation on a 64-bit hash of (query, document), skipping the
    map-side partial aggregation (it cannot reduce distinct keys) where
    Spark offers that (``spark.sql.execution.bypassPartialAggregation``,
    Spark 4.1 and later); hashes seen twice are confirmed on the ids.

    Raises
    ------
    DuplicateEntryError
        Naming the document and the query.
    """
    from pyspark.sql import functions as sf

    spark = run.sparkSession
    key = "spark.sql.execution.bypassPartialAggregation"
    before = spark.conf.get(key, None)
    try:
        spark.conf.set(key, "true")
        changed = True
    except Exception:  # an older Spark without the setting
        changed = False
    try:
        hashed = run.select(sf.xxhash64("q", "d").alias("h"))
        twice = (
            hashed.groupBy("h")
            .agg(sf.count(sf.lit(1)).alias("n"))
            .filter(sf.col("n") > 1)
            .select("h")
            .limit(10_000)
            .collect()
        )
    finally:  # restored as found: left on, it would skip every later partial aggregation
        if changed:
            if before is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, before)
    if not twice:
        return
    suspects = run.sparkSession.createDataFrame([(row["h"],) for row in twice], "h long")
    found = (
        run.withColumn("h", sf.xxhash64("q", "d"))
        .join(sf.broadcast(suspects), "h", "left_semi")
        .groupBy("q", "d")
        .count()
        .filter(sf.col("count") > 1)
        .limit(1)
        .collect()
    )
    if found:
        raise DuplicateEntryError(
            f"document {found[0]['d']!r} appears twice for query {found[0]['q']!r}; "
            "a run lists each document once per query",
            "run_df",
        )


def _query_codes(summary: RunSummary) -> np.ndarray:
    """Index into ``summary.queries`` of each hit's query."""
    import pyarrow.compute as pc

    codes: np.ndarray = (
        pc.index_in(summary.hit_query, value_set=summary.queries)
        .to_numpy(zero_copy_only=False)
        .astype(np.int64)
    )
    return codes
