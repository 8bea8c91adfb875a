"""The ``jvm`` strategy: one pass of rankwise's JVM code per partition ranks the judged documents.

The run may come in any layout: grouped by query (a TREC file, Parquet written in
query order), several Parquet files packed into partitions by Spark, shuffled
(a join's or a model's output, ``repartition``). ``java/RanksPass.java`` (built
and loaded by :mod:`rankwise.engines.spark.jar`) reads each partition once, in
windows of :data:`WINDOW_ROWS` rows grouped by query in memory, with the judged
(query, document) pairs at hand: for each piece of a query (its rows in one
window) it hashes and copies the document ids, refuses one listed twice (equal
hashes confirmed on the ids), finds the judged documents (confirmed on the ids),
and counts for each the rows above it, the rows of its score, those of them
with a greater id (trec_eval's order) and those read before it (input order,
for the dialects that rank so). Nothing is shuffled or sorted, and no Python
runs on the executors.

A query in several pieces (split across partitions or windows) is merged:
the pieces at an edge (a partition's or a window's ends, a change of input
file) are written whole when they fit the driver's share (:data:`SHIP_ROWS`
rows in all) and recounted on the driver (:mod:`~rankwise.engines.spark._pieces`);
the queries left (a shuffled run, one query of millions of rows) are recounted
by a second pass, ``RanksPass.recount``, which sums each hit's counts over the
partitions (Spark adds them up) and shuffles a 64-bit hash per row of those
queries to find a document listed twice: the driver never holds more than a
bounded slice of any query's rows. The plan says which happened
(:attr:`JvmScan.layout`).
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted, plural
from rankwise.engines.spark._pieces import Merged, decode, merge, row_numbers
from rankwise.engines.spark.layout import Layout, choose_layout
from rankwise.engines.spark.ranks import RanksScan
from rankwise.exceptions import DuplicateEntryError, InputFormatError, InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

    from rankwise.data import Qrels
    from rankwise.options import Missing
    from rankwise.ranking.tied import TiedRanking

__all__ = ["SHIP_ROWS", "WINDOW_ROWS", "JvmScan", "judged_pairs", "run_pass"]

WINDOW_ROWS = 1_000_000
"""Rows a task reads before grouping them by query (about 40 bytes each plus the ids)."""
SHIP_ROWS = 1_000_000
"""Rows of pieces written whole that the driver takes, over all partitions (each
partition's share: this divided by the partitions); a split query whose pieces do
not all fit goes to the second pass."""


def _utf8(strings: pa.Array) -> tuple[bytes, bytes]:
    """The UTF-8 bytes of *strings* and their offsets as little-endian int64."""
    import pyarrow as pa

    strings = pa.array(strings, pa.string()) if not isinstance(strings, pa.Array) else strings
    strings = strings.cast(pa.string())
    if strings.null_count:
        raise InvalidParameterError("the judgments hold a null id")
    offsets = np.frombuffer(
        strings.buffers()[1], np.int32, len(strings) + 1, strings.offset * 4
    ).astype("<i8")
    data = strings.buffers()[2]
    body = data.to_pybytes()[offsets[0]:offsets[-1]] if data is not None else b""
    return body, (offsets - offsets[0]).tobytes()


def _int64s(values: Any) -> bytes:
    return np.asarray(values, dtype="<i8").tobytes()


class Settings:
    """What a pass ranks: the scores rounded to float32, the self documents dropped."""

    def __init__(self, *, float32: bool = False, drop_self: bool = False,
                 window_rows: int | None = None, ship_rows: int | None = None,
                 positions: bool = False) -> None:
        self.float32 = float32
        self.drop_self = drop_self
        self.positions = positions  # the rows carry their position before a shuffle (``p``)
        # the module's values when the pass is made (a test lowers them to make pieces)
        self.window_rows = WINDOW_ROWS if window_rows is None else window_rows
        self.ship_rows = SHIP_ROWS if ship_rows is None else ship_rows

    def encoded(self, partitions: int) -> bytes:
        """``RanksPass``'s settings: window, partition's share, float32, drop_self, positions."""
        share = self.ship_rows // max(partitions, 1)
        return _int64s([self.window_rows, share, self.float32, self.drop_self, self.positions])


def judged_pairs(qrels: Qrels) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """Query id, document id and grade of each judgment (one per query and document).

    Examples
    --------
    >>> from rankwise.data import Qrels
    >>> query, doc, grade = judged_pairs(Qrels.from_dict({"q1": {"a": 2, "b": 0}, "q2": {"a": 1}}))
    >>> query.to_pylist(), doc.to_pylist(), grade.tolist()
    (['q1', 'q1', 'q2'], ['a', 'b', 'a'], [2.0, 0.0, 1.0])
    """
    import pyarrow as pa

    def whole(values: Any) -> pa.Array:
        return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values

    ids, index = qrels.judged_doc_text()
    query = pa.array(qrels.query_ids, pa.string()).take(pa.array(qrels.query_codes))
    doc = whole(ids.to_arrow()).take(pa.array(index)).cast(pa.string())
    return whole(query), whole(doc), np.asarray(qrels.grades, dtype=np.float64)


def _read_parts(data: bytes) -> list[dict[str, Any]]:
    parts, at = [], 0
    while at < len(data):
        length = int(np.frombuffer(data, "<i8", 1, at)[0])
        parts.append(decode(data[at + 8:at + 8 + length]))
        at += 8 + length
    return parts


def _through_file(call: Any) -> bytes:
    """What *call* (given a path) writes to a file of a new private folder."""
    with tempfile.TemporaryDirectory(prefix="rankwise-jvm-") as folder:
        path = os.path.join(folder, "out")
        call(path)
        with open(path, "rb") as file:
            return file.read()


def run_pass(rows: Any, ranks_pass: Any, pair_query: pa.Array, pair_doc: pa.Array,
             settings: bytes) -> list[dict[str, Any]]:
    """The pass over *rows* (the run's RDD of internal rows): each partition's columns."""
    query_bytes, query_offsets = _utf8(pair_query)
    doc_bytes, doc_offsets = _utf8(pair_doc)
    return _read_parts(_through_file(
        lambda path: ranks_pass.scan(rows, query_bytes, query_offsets, doc_bytes, doc_offsets,
                                     settings, path)
    ))


class JvmScan(RanksScan):
    """The run ranked by the pass of rankwise's JVM code: checked, every hit ranked.

    It serves the engine as :class:`~rankwise.engines.spark.ranks.RanksScan`
    does (``summary``, ``ranking``), and ranks the run for other tools' dialects
    too (:meth:`rankings`: ties in input order, scores in float32, a query's own
    id dropped).

    A round-robin ``repartition(n)`` in *run*'s plan is skipped when that is safe
    (:func:`~rankwise.engines.spark.layout.choose_layout`): the pass then reads the run
    below it (:attr:`run`), and the rows the errors name are that run's. *ordered* names a
    measure that ranks tied documents in input order (which the repartition sets: it is
    kept), or is None.

    Raises
    ------
    JvmUnavailableError
        The JVM code cannot be built or loaded (:mod:`rankwise.engines.spark.jar`).
    InputFormatError, DuplicateEntryError
        A null id, a score that is not a finite number, a document listed twice.
    """

    def __init__(self, run: DataFrame, qrels: Qrels, *, ascending: bool = False,
                 settings: Settings | None = None, source: str = "run_df",
                 layout: Layout | None = None, ordered: str | None = None) -> None:
        import pyarrow as pa

        from rankwise.engines.spark.jar import load_jar

        self.qrels = qrels
        self.ascending = ascending
        self.source = source
        self.settings = settings or Settings()
        self._pass = load_jar(run.sparkSession)
        self.seconds: dict[str, float] = {}  # wall seconds of each step, for benchmarks
        clock = time.perf_counter()
        self.layout_choice = layout or choose_layout(run, self._pass,
                                                     self.settings.window_rows, ordered=ordered)
        if self.layout_choice.run is not None:  # below a round-robin repartition skipped
            run = self.layout_choice.run
        self.run = run
        if self.layout_choice.shuffle:  # each query whole in one partition, positions kept
            self.settings.positions = True
            from pyspark.sql import functions as sf

            shuffled = run.select("q", "d", "s", sf.monotonically_increasing_id().alias("p"))
            self._rows = self._pass.rows(
                shuffled.repartition(self.layout_choice.shuffle, "q")._jdf)
        else:
            self._rows = (self.layout_choice.rows if self.layout_choice.rows is not None
                          else self._pass.rows(run.select("q", "d", "s")._jdf))
        self.partitions = int(self._rows.getNumPartitions())
        self._source_rows_read: np.ndarray | None = None
        self._pairs = judged_pairs(qrels)
        self.seconds["layout"] = time.perf_counter() - clock
        clock = time.perf_counter()
        parts = run_pass(self._rows, self._pass, self._pairs[0], self._pairs[1],
                         self.settings.encoded(self.partitions))
        self.seconds["pass"] = time.perf_counter() - clock
        merged = merge(parts, pa.array(qrels.query_ids, pa.string()), self._pairs[1])
        self._check(merged)
        self.seconds["merge"] = time.perf_counter() - clock - self.seconds["pass"]
        clock = time.perf_counter()
        self.second = self._second_pass(merged)
        self.seconds["second pass"] = time.perf_counter() - clock
        self.merged = merged
        self.pass_summary = PassSummary(merged, self._pairs)
        self.summary = self.pass_summary  # type: ignore[assignment]
        self._others: dict[tuple[bool, bool], JvmScan] = {}

    @property
    def layout(self) -> str:
        """What the plan says of the run's layout: pieces, and how split queries were merged."""
        m = self.merged
        text = (f"{counted(self.partitions, 'partition')}, "
                f"{counted(m.pieces, 'piece', grouped=True)} of "
                # judged queries by name, the others by hash (an unjudged name is among both)
                f"{counted(int(m.judged.sum()) + m.unjudged_queries, 'query', grouped=True)} "
                f"(the run {self.layout_choice.reason})")
        if not m.split:
            return text
        text += f"; {counted(m.split, 'query', grouped=True)} in several pieces: "
        parts = []
        if m.merged_here:
            parts.append(f"{m.merged_here:,} merged on the driver")
        if self.second:
            parts.append(f"{self.second:,} recounted by a second pass")
        return text + ", ".join(parts)

    def _check(self, merged: Merged) -> None:
        """Raise on bad input the pass found, naming the run's row (as the numpy engine)."""
        where = self.source
        if merged.null_queries:
            row = self._row(merged, merged.null_query_at)
            raise InputFormatError(
                f"{counted(merged.null_queries, 'row')} {plural('has', merged.null_queries)} "
                f"a null query id (row {row})", where)
        if merged.null_docs and merged.null_doc is not None:
            at, query = merged.null_doc
            raise InputFormatError(
                f"{counted(merged.null_docs, 'row')} {plural('has', merged.null_docs)} a null "
                f"document id (for example in query {query!r}, row {self._row(merged, at)})",
                where)
        if merged.bad and merged.bad_row is not None:
            at, score, query, doc = merged.bad_row
            raise InputFormatError(
                f"{counted(merged.bad, 'score')} {plural('is', merged.bad)} not finite, for "
                f"example {score!r} for document {doc!r} of query {query!r} (row "
                f"{self._row(merged, at)}); scores must not be null, NaN or infinite", where)
        self._raise_twice(merged)

    def _raise_twice(self, merged: Merged) -> None:
        if merged.twice is None:
            return
        first, second, query, doc = merged.twice
        raise DuplicateEntryError(
            f"document {doc!r} appears twice for query {query!r} (first at line "
            f"{self._row(merged, first)}); a run lists each document once per query",
            self.source, self._row(merged, second),
        )

    def _row(self, merged: Merged, position: int | None) -> int:
        """The run's row at *position*, counted partition after partition as numpy counts."""
        if position is None:
            return 0
        rows_read = merged.rows_read
        if self.settings.positions:  # positions of the run before the shuffle: its partitions
            if self._source_rows_read is None:
                from pyspark.sql import functions as sf

                counts = (self.run.select(sf.spark_partition_id().alias("i")).groupBy("i")
                          .count().collect())
                read = np.zeros(self.run.rdd.getNumPartitions(), np.int64)
                for row in counts:
                    read[row["i"]] = row["count"]
                self._source_rows_read = read
            rows_read = self._source_rows_read
        return int(row_numbers(np.array([position]), rows_read)[0])

    def _second_pass(self, merged: Merged) -> int:
        """Recount the hits of the split queries left, and check their documents; their count."""
        import pyarrow as pa

        codes, hashes = merged.second_codes, merged.second_hashes
        if not len(codes) and not len(hashes):
            return 0
        ids = merged.names.take(pa.array(codes)).to_pylist() + list(merged.second_ids)
        known = [True] * len(codes) + [i is not None for i in merged.second_ids]
        query_bytes, query_offsets = _utf8(pa.array([i or "" for i in ids], pa.string()))
        all_hashes = np.concatenate([merged.query_hash[codes], hashes])
        index = np.full(len(merged.names), -1, np.int64)
        index[codes] = np.arange(len(codes))
        mine = np.flatnonzero(index[merged.hit_query] >= 0) if len(merged.hit_query) else \
            np.zeros(0, np.int64)
        doc_bytes, doc_offsets = _utf8(
            self._pairs[1].take(pa.array(merged.judgment[mine])).cast(pa.string()))
        data = _through_file(lambda path: self._pass.recount(
            self._rows, _int64s(all_hashes), _int64s(known), query_bytes, query_offsets,
            _int64s(index[merged.hit_query[mine]]),
            np.asarray(merged.hit_score[mine], "<f8").tobytes(), doc_bytes, doc_offsets,
            _int64s(merged.hit_position[mine]), self.settings.encoded(self.partitions), path))
        counts = np.frombuffer(data, "<i8", 4 * len(mine)).reshape(-1, 4)
        (merged.above[mine], merged.size[mine], merged.greater[mine],
         merged.earlier[mine]) = counts.T.copy()
        suspects = np.frombuffer(data, "<i8", int(np.frombuffer(data, "<i8", 1, 32 * len(mine))[0]),
                                 32 * len(mine) + 8)
        if len(suspects):
            self._confirm(merged, suspects)
        return len(codes) + len(hashes)

    def _confirm(self, merged: Merged, suspects: np.ndarray) -> None:
        """Raise when two rows whose (query, document) hash is among *suspects* are one pair."""
        from pyspark.sql import functions as sf

        frame = self.run.select("q", "d", sf.monotonically_increasing_id().alias("p"))
        found = (
            frame.where(sf.xxhash64("q", "d").isin([int(v) for v in suspects[:10_000]]))
            .groupBy("q", "d")
            .agg(sf.count(sf.lit(1)).alias("n"), sf.min("p").alias("first"),
                 sf.sort_array(sf.collect_list("p")).getItem(1).alias("second"))
            .where(sf.col("n") > 1)
            .orderBy("second")
            .limit(1)
            .collect()
        )
        if found:
            row = found[0]
            merged.twice = (int(row["first"]), int(row["second"]), row["q"], row["d"])
            self._raise_twice(merged)

    def offered_per_row(self) -> float:
        """No interval scan: 0."""
        return 0.0

    def _ranks(self, tie_order: str) -> np.ndarray:
        m = self.merged
        before = m.earlier if tie_order == "input" else (
            m.size - 1 - m.greater if self.ascending else m.greater)
        ranks: np.ndarray = 1 + m.above + before
        return ranks

    def _rank_hits(self) -> dict[str, np.ndarray]:
        return {"rank": self._ranks("docno"), "above": self.merged.above, "size": self.merged.size}

    @property
    def covered(self) -> bool:
        """Never: the pass ranked every hit already."""
        return False

    def ranking(self, *, depth: int | None, missing: Missing, judged_only: bool,
                tie_order: str = "docno") -> TiedRanking:
        """The kernels' input: ties by document id (``docno``) or in input order (``input``)."""
        import pyarrow as pa

        from rankwise.engines.spark._assemble import judged_only_ranks, tied_ranking

        summary = self.pass_summary
        m = self.merged
        rank = self._ranks(tie_order)
        codes = np.asarray(summary.hit_code, np.int64)
        counts = summary.counts
        hits: dict[str, Any] = {"query": summary.hit_query, "doc": summary.hit_doc,
                                "grade": summary.hit_grade, "score": summary.hit_score,
                                "rank": rank, "above": m.above, "size": m.size}
        if judged_only:
            usable = summary.hit_grade >= 0
            if depth is not None:  # trec_eval cuts at the depth first, then drops the unjudged
                usable &= rank <= depth
            kept, rank, above, size = judged_only_ranks(
                codes, summary.hit_doc, summary.hit_score,
                np.where(usable, summary.hit_grade, -1.0), ascending=self.ascending,
                position=m.hit_position if tie_order == "input" else None,
            )
            counts = np.bincount(codes[kept], minlength=len(summary.queries)).astype(np.int64)
            hits = {key: value.filter(pa.array(kept)) if isinstance(value, pa.Array)
                    else value[kept] for key, value in hits.items()
                    if key in ("query", "doc", "grade", "score")}
            hits.update(rank=rank, above=above, size=size)
        return tied_ranking(self.qrels, summary.queries, counts, hits, depth=depth,
                            missing=missing, judged_only=judged_only)

    def rankings(self, key: tuple[str, bool, bool], *, depth: int | None, missing: Missing,
                 judged_only: bool) -> TiedRanking:
        """The run ranked as another tool's dialect needs (see ``rankwise.engines.core``).

        Ties in input order come from this pass; scores rounded to float32 or a
        query's own id dropped need a pass of their own (made once).
        """
        from rankwise.exceptions import UnsupportedMeasureError

        tie_order, float32, drop_self = key
        if tie_order not in ("docno", "input"):
            raise UnsupportedMeasureError(
                f"ties in {tie_order}'s order need a query's rows in their input order in one "
                "place; the Spark engine does not rank so: use the numpy engine")
        scan: JvmScan = self
        if float32 or drop_self:
            if (float32, drop_self) not in self._others:
                settings = Settings(float32=float32, drop_self=drop_self,
                                    window_rows=self.settings.window_rows,
                                    ship_rows=self.settings.ship_rows)
                self._others[(float32, drop_self)] = JvmScan(
                    self.run, self.qrels, ascending=self.ascending, settings=settings,
                    source=self.source, layout=self.layout_choice)
            scan = self._others[(float32, drop_self)]
        return scan.ranking(depth=depth, missing="zero" if drop_self else missing,
                            judged_only=judged_only, tie_order=tie_order)


class PassSummary:
    """What the pass found, as the checks and the assembly read it.

    It has the attributes of :class:`~rankwise.engines.spark.ranks.RunSummary` that they
    read (``top_scores`` is not known: no grid is built).
    """

    def __init__(self, merged: Merged, pairs: tuple[pa.Array, pa.Array, np.ndarray]) -> None:
        import pyarrow as pa

        judged = merged.judged
        self.queries: pa.Array = merged.names.filter(pa.array(judged))
        self.counts = merged.rows[judged]
        self.top_scores = np.zeros(len(self.queries))
        self.unjudged_queries = merged.unjudged_queries
        self.bad_scores = merged.bad
        self.null_docs = merged.null_docs
        self.null_queries = merged.null_queries
        self.rows = merged.total_rows
        self.suspects = 0
        self.suspect_query: str | None = None
        self.twice_hit: tuple[str, str] | None = None
        pair_query, pair_doc, pair_grade = pairs
        taken = pa.array(merged.judgment)
        self.hit_query: pa.Array = pair_query.take(taken)
        self.hit_doc: pa.Array = pair_doc.take(taken)
        self.hit_score = np.asarray(merged.hit_score, dtype=np.float64)
        self.hit_grade = np.asarray(pair_grade, dtype=np.float64)[merged.judgment]
        # each hit's query among self.queries
        position = np.cumsum(judged) - 1
        self.hit_code = position[merged.hit_query] if len(merged.hit_query) else \
            np.zeros(0, np.int64)
