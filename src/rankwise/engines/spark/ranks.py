"""The ``ranks`` strategy: Spark SQL finds the ranks of judged documents only.

Most measures need, per query, the number of documents retrieved and the
rank and grade of each judged document retrieved. The rank of a judged
document is 1 + the number of documents of its query that sort before it
(a higher score, or an equal score and a greater document id in byte
order). Three scans of the run compute all of that, each a partial
aggregation or a map-side join with a small broadcast table: the run's rows
are never shuffled nor sorted (only per-partition partial counts move), and
no Python runs on the executors:

1. run grouped by query, then by judged query: the row counts and the
   checks (non-finite scores, null ids);
2. run JOIN broadcast(judgments) ON (query, doc): the judged documents
   retrieved, with their scores and grades (collected: O(judgments));
3. run JOIN broadcast(those hits) ON query AND (run score >= hit score),
   grouped by hit: how many documents score higher, how many tie (the tie
   group, for every tie policy) and how many of those have a greater
   document id (trec_eval's order inside the group).

The driver then holds O(judgments) data and runs the numpy kernels on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankwise.engines.spark._assemble import judged_only_ranks, tied_ranking
from rankwise.engines.spark._frames import create_frame, to_arrow
from rankwise.exceptions import DuplicateEntryError, InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame

    from rankwise.data import Qrels
    from rankwise.kernels.ranking import TiedRanking

__all__ = [
    "RunSummary",
    "check_run",
    "collect_judgments",
    "rank_hits",
    "ranked_by_counts",
    "summarize_run",
]


def _finite(name: str) -> Column:
    from pyspark.sql import functions as sf

    value = sf.col(name)
    return value.isNotNull() & ~sf.isnan(value) & (sf.abs(value) != sf.lit(float("inf")))


def collect_judgments(qrels: DataFrame) -> Qrels:
    """Collect the projected judgments (``q, d, g``) and check them like the numpy engine."""
    from rankwise.data import Qrels

    table = to_arrow(qrels)
    return Qrels.from_arrow(table["q"], table["d"], table["g"], source="qrels_df")


class RunSummary:
    """What the first two scans of the run found.

    Attributes
    ----------
    queries : Arrow string array
        The judged queries present in the run.
    counts : ndarray of int64
        Rows of each of them.
    unjudged_queries : int
        Queries of the run that have no judgments (ignored).
    hit_query, hit_doc : Arrow string arrays
        Query and document of each judged document retrieved.
    hit_score, hit_grade : ndarrays of float64
        Its score and grade.
    bad_scores, null_docs, null_queries : int
        Rows of the run with a score that is not a finite number, with a null
        document id, with a null query id.
    """

    def __init__(self, counts: pa.Table, hits: pa.Table) -> None:
        import pyarrow.compute as pc

        judged = pc.is_valid(counts["key"])
        summary = counts.filter(judged)
        self.queries: pa.Array = summary["key"].combine_chunks()
        self.counts = summary["n"].to_numpy().astype(np.int64)
        unjudged = counts.filter(pc.invert(judged))
        self.unjudged_queries = int(pc.sum(unjudged["queries"]).as_py() or 0)
        self.bad_scores = int(pc.sum(counts["bad"]).as_py() or 0)
        self.null_docs = int(pc.sum(counts["null_docs"]).as_py() or 0)
        self.null_queries = int(pc.sum(counts["null_queries"]).as_py() or 0)
        self.hit_query: pa.Array = hits["q"].combine_chunks()
        self.hit_doc: pa.Array = hits["d"].combine_chunks()
        self.hit_score = hits["s"].to_numpy().astype(np.float64)
        self.hit_grade = hits["g"].to_numpy().astype(np.float64)


def summarize_run(run: DataFrame, qrels: DataFrame) -> RunSummary:
    """Scans 1 and 2: per judged query its row count, the checks; the judged hits.

    The counts are a two-level aggregation (by query, then by judged query
    or "unjudged"): only per-partition partial counts are shuffled. The hits
    are a map-side join with the broadcast judgments.
    """
    from pyspark.sql import functions as sf

    per_query = run.groupBy("q").agg(
        sf.count(sf.lit(1)).alias("n"),
        sf.sum(sf.when(_finite("s"), 0).otherwise(1)).alias("bad"),
        sf.sum(sf.when(sf.col("d").isNull(), 1).otherwise(0)).alias("null_docs"),
    )
    judged_queries = qrels.select("q").distinct().withColumn("_judged", sf.lit(True))
    counts = (
        per_query.join(sf.broadcast(judged_queries), "q", "left")
        .groupBy(sf.when(sf.col("_judged"), sf.col("q")).alias("key"))
        .agg(
            sf.sum("n").alias("n"),
            sf.sum("bad").alias("bad"),
            sf.sum("null_docs").alias("null_docs"),
            sf.sum(sf.when(sf.col("q").isNull(), sf.col("n")).otherwise(0)).alias("null_queries"),
            sf.count(sf.col("q")).alias("queries"),
        )
    )
    counted = to_arrow(counts)
    hits = run.join(sf.broadcast(qrels), ["q", "d"], "inner").select("q", "d", "s", "g")
    return RunSummary(counted, to_arrow(hits))


def check_run(run: DataFrame, summary: RunSummary) -> None:
    """Raise on what the first scan found wrong, naming an offending row.

    Raises
    ------
    InputFormatError
        A null query or document id, or a score that is null, NaN or infinite.
    DuplicateEntryError
        A judged document listed twice for one query.
    """
    from pyspark.sql import functions as sf

    if summary.null_queries:
        raise InputFormatError(f"run_df: {summary.null_queries} rows have a null query id")
    if summary.null_docs:
        example = run.filter(sf.col("d").isNull()).select("q").limit(1).collect()
        where = f" (for example in query {example[0][0]!r})" if example else ""
        raise InputFormatError(f"run_df: {summary.null_docs} rows have a null document id{where}")
    if summary.bad_scores:
        rows = run.filter(~_finite("s")).limit(1).collect()
        shown = (
            f", for example {rows[0][2]!r} for document {rows[0][1]!r} of query {rows[0][0]!r}"
            if rows
            else ""
        )
        raise InputFormatError(
            f"run_df: {summary.bad_scores} scores are not finite numbers{shown}; "
            "scores must not be null, NaN or infinite"
        )
    _check_duplicate_hits(summary)


def _check_duplicate_hits(summary: RunSummary) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(summary.hit_doc) < 2:
        return
    pairs = pa.table({"q": summary.hit_query, "d": summary.hit_doc})
    counted = pairs.group_by(["q", "d"]).aggregate([([], "count_all")])
    twice = counted.filter(pc.greater(counted["count_all"], 1))
    if twice.num_rows:
        raise DuplicateEntryError(
            f"document {twice['d'][0].as_py()!r} appears twice for query "
            f"{twice['q'][0].as_py()!r}; a run lists each document once per query",
            "run_df",
        )


def rank_hits(run: DataFrame, summary: RunSummary) -> dict[str, np.ndarray]:
    """Third scan: the rank and the tie group of each hit of *summary* in its query.

    Every run row with a score >= the hit's is joined to it; per hit, the
    rows with a higher score, the rows with the same score (itself included)
    and those among them with a greater document id are counted.

    Returns
    -------
    dict
        ``rank`` (1-based), ``above`` and ``size``, one entry per hit.
    """
    import pyarrow as pa
    from pyspark.sql import functions as sf
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    n_hits = len(summary.hit_doc)
    empty = np.zeros(0, dtype=np.int64)
    if n_hits == 0:
        return {"rank": empty, "above": empty, "size": empty}
    hits_table = pa.table(
        {
            "hq": summary.hit_query,
            "hd": summary.hit_doc,
            "hs": summary.hit_score,
            "hid": np.arange(n_hits, dtype=np.int64),
        }
    )
    schema = StructType(
        [
            StructField("hq", StringType(), False),
            StructField("hd", StringType(), False),
            StructField("hs", DoubleType(), False),
            StructField("hid", LongType(), False),
        ]
    )
    hits = create_frame(run.sparkSession, hits_table, schema)
    not_below = (sf.col("q") == sf.col("hq")) & (sf.col("s") >= sf.col("hs"))
    tied = sf.col("s") == sf.col("hs")
    counts = (
        run.join(sf.broadcast(hits), not_below, "inner")
        .groupBy("hid")
        .agg(
            sf.count(sf.when(~tied, 1)).alias("above"),
            sf.count(sf.when(tied, 1)).alias("size"),
            sf.count(sf.when(tied & (sf.col("d") > sf.col("hd")), 1)).alias("first"),
        )
    )
    table = to_arrow(counts)
    hid = table["hid"].to_numpy()
    above = np.zeros(n_hits, dtype=np.int64)
    size = np.ones(n_hits, dtype=np.int64)
    first = np.zeros(n_hits, dtype=np.int64)
    above[hid] = table["above"].to_numpy()
    size[hid] = table["size"].to_numpy()
    first[hid] = table["first"].to_numpy()
    return {"rank": above + first + 1, "above": above, "size": size}


def ranked_by_counts(
    run: DataFrame,
    qrels_frame: DataFrame,
    qrels: Qrels,
    *,
    depth: int | None,
    missing: str,
    judged_only: bool,
) -> tuple[TiedRanking, RunSummary]:
    """Run both scans and assemble the kernels' input on the driver.

    Returns the :class:`~rankwise.kernels.ranking.TiedRanking` and the
    summary of the run (for counts in messages).
    """
    import pyarrow as pa

    summary = summarize_run(run, qrels_frame)
    check_run(run, summary)
    if judged_only:
        codes = _query_codes(summary)
        usable = summary.hit_grade >= 0
        if depth is not None:  # trec_eval cuts at the depth first, then drops the unjudged
            usable &= rank_hits(run, summary)["rank"] <= depth
        kept, rank, above, size = judged_only_ranks(
            codes, summary.hit_doc, summary.hit_score, np.where(usable, summary.hit_grade, -1.0)
        )
        counts = np.bincount(codes[kept], minlength=len(summary.queries)).astype(np.int64)
        hits = {
            "query": summary.hit_query.filter(pa.array(kept)),
            "grade": summary.hit_grade[kept],
            "rank": rank,
            "above": above,
            "size": size,
        }
    else:
        counts = summary.counts
        hits = {"query": summary.hit_query, "grade": summary.hit_grade, **rank_hits(run, summary)}
    ranking = tied_ranking(
        qrels, summary.queries, counts, hits, depth=depth, missing=missing, judged_only=judged_only
    )
    return ranking, summary


def _query_codes(summary: RunSummary) -> np.ndarray:
    """Index into ``summary.queries`` of each hit's query."""
    import pyarrow.compute as pc

    return (
        pc.index_in(summary.hit_query, value_set=summary.queries)
        .to_numpy(zero_copy_only=False)
        .astype(np.int64)
    )
