"""The ``jvm`` strategy: one pass of rankwise's JVM code per partition ranks the judged documents.

The run must be grouped by query: the rows of a query consecutive, a query
split across partitions only at their ends (a run read from a TREC file or
from Parquet written in query order is; one shuffled by a join or
``repartition`` is not). ``java/RanksPass.java`` (built and loaded by
:mod:`rankwise.engines.spark.jar`) then walks each partition once, with the
judged (query, document) pairs in memory, and for each query hashes and
copies its document ids, refuses one listed twice (equal hashes confirmed on
the ids), finds its judged documents (confirmed on the ids), and counts for
each the rows above it, the rows of its score and those of them with a
greater id: its rank (trec_eval's order, or ``ties="ascending"``) and its
tie group follow. Nothing is shuffled or sorted, no Python runs on the
executors, and the driver gets per judged query a row count and per judged
document retrieved six numbers; the other queries are only counted, except
each partition's first and last, written whole: O(judged queries + hits +
partitions x the largest query).

A query split across partitions has its first and last fragments written
whole (scores and ids); :func:`merge` recounts its hits over all of them
without a loop per query. A query found in a fragment away from a
partition's ends in two places means the run is not grouped:
:class:`NotGroupedError` (``strategy="auto"`` then runs the Spark SQL plan).
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.engines.spark.ranks import RanksScan, check_run
from rankwise.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

    from rankwise.data import Qrels

__all__ = ["JvmScan", "NotGroupedError", "decode", "merge", "recount"]


class NotGroupedError(InvalidParameterError):
    """The run's rows of one query are not consecutive: the ``jvm`` strategy cannot rank it."""


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


def _strings(count: int, offsets: np.ndarray, data: bytes) -> pa.Array:
    import pyarrow as pa

    if offsets[-1] >= 2**31:
        return pa.LargeStringArray.from_buffers(
            count, pa.py_buffer(offsets.astype("<i8").tobytes()), pa.py_buffer(data)
        ).cast(pa.string())
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(offsets.astype("<i4").tobytes()), pa.py_buffer(data)
    )


def decode(blob: bytes) -> dict[str, Any]:
    """One partition's columns (``RanksPass.Out.toBytes``), read without a loop over rows."""
    header = [int(v) for v in np.frombuffer(blob, "<i8", 10)]
    f, h, b, query_bytes, row_bytes, null_queries, null_docs, quiet, quiet_rows, _ = header
    at = 80

    def take(count: int, dtype: str) -> np.ndarray:
        nonlocal at
        values = np.frombuffer(blob, dtype, count, at)
        at += values.nbytes
        return values

    rows, bad, twice, flags = (take(f, "<i8") for _ in range(4))
    query_offsets = take(f + 1, "<i8")
    queries = blob[at:at + query_bytes]
    at += (query_bytes + 7) & ~7
    fragment, judgment, above, size, greater = (take(h, "<i8") for _ in range(5))
    score = take(h, "<f8")
    row_fragment, row_score, row_offsets = take(b, "<i8"), take(b, "<f8"), take(b + 1, "<i8")
    return {
        "null_queries": null_queries, "null_docs": null_docs,
        "quiet": quiet, "quiet_rows": quiet_rows,
        "rows": rows, "bad": bad, "twice": twice, "flags": flags,
        "query": _strings(f, query_offsets, queries),
        "fragment": fragment, "judgment": judgment, "above": above, "size": size,
        "greater": greater, "score": score,
        "row_fragment": row_fragment, "row_score": row_score,
        "row_id": _strings(b, row_offsets, blob[at:at + row_bytes]),
    }


def _dense_codes(strings: pa.Array) -> np.ndarray:
    """Each string's rank among the distinct ones, in byte order (equal strings alike).

    Examples
    --------
    >>> import pyarrow as pa
    >>> _dense_codes(pa.array(["b", "a", "b", "é", "Z"])).tolist()
    [2, 1, 2, 3, 0]
    """
    import pyarrow.compute as pc

    n = len(strings)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = pc.sort_indices(strings).to_numpy()
    ranked = strings.take(order)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = pc.not_equal(ranked[1:], ranked[:-1]).to_numpy(zero_copy_only=False)
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes


def recount(
    row_key: np.ndarray, row_score: np.ndarray, row_id: np.ndarray,
    hit_key: np.ndarray, hit_score: np.ndarray, hit_id: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hit, the rows of its key scoring higher, tied with it, and tied with a greater id.

    Ids are codes in byte order.

    Examples
    --------
    >>> rows = np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 5.0]), np.array([0, 1, 2, 3])
    >>> hits = np.array([0, 0]), np.array([1.0, 2.0]), np.array([1, 0])
    >>> [a.tolist() for a in recount(*rows, *hits)]
    [[1, 0], [2, 1], [1, 0]]
    """
    r, h = len(row_key), len(hit_key)
    key = np.concatenate([row_key, hit_key])
    score = np.concatenate([row_score, hit_score])
    ident = np.concatenate([row_id, hit_id])
    is_row = np.concatenate([np.ones(r, np.int64), np.zeros(h, np.int64)])
    # by key, score descending, id descending, a hit before the row of its own id
    order = np.lexsort((is_row, -ident, -score, key))
    key, score, is_row = key[order], score[order], is_row[order]
    before = np.concatenate([[0], np.cumsum(is_row)])  # rows before each position
    n = r + h
    new_key = np.ones(n, dtype=bool)
    new_group = np.ones(n, dtype=bool)
    if n > 1:
        new_key[1:] = key[1:] != key[:-1]
        new_group[1:] = new_key[1:] | (score[1:] != score[:-1])
    key_start = np.flatnonzero(new_key)[np.cumsum(new_key) - 1]
    group_starts = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    group_start = group_starts[group]
    group_end = np.append(group_starts[1:], n)[group]
    at = np.flatnonzero(is_row == 0)
    above = before[group_start[at]] - before[key_start[at]]
    size = before[group_end[at]] - before[group_start[at]]
    greater = before[at] - before[group_start[at]]
    placed = [np.empty(h, dtype=np.int64) for _ in range(3)]
    for out, values in zip(placed, (above, size, greater)):
        out[order[at] - r] = values
    return placed[0], placed[1], placed[2]


def merge(parts: list[dict[str, Any]], judged_doc: pa.Array) -> dict[str, Any]:
    """Every partition's fragments as one answer: per query, per hit, per check.

    A query in several fragments (split across partitions) is merged from the
    rows its fragments wrote: its rows and hits summed, its hits recounted
    over all of them (:func:`recount`), a document in two of them found.

    Raises
    ------
    NotGroupedError
        A query in several fragments, one of them away from its partition's
        ends: the run is not grouped by query.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    first = np.cumsum([0] + [len(p["rows"]) for p in parts])

    def joined(key: str, shift: bool = False) -> np.ndarray:
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([p[key] + (first[i] if shift else 0) for i, p in enumerate(parts)])

    query = (
        pa.chunked_array([p["query"] for p in parts], pa.string()).combine_chunks()
        if parts else pa.array([], pa.string())
    )
    encoded = pc.dictionary_encode(query)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    names = encoded.dictionary
    n_queries = len(names)
    flags = joined("flags")
    split = np.bincount(codes, minlength=n_queries) > 1
    inside = (split[codes] & ((flags & 3) == 0)) | ((flags & 4) != 0)
    if inside.any():
        raise NotGroupedError(
            f"the run's rows of query {query[int(np.flatnonzero(inside)[0])].as_py()!r} are "
            "not consecutive: the jvm strategy needs a run grouped by query (a file written "
            "in query order, or run_df.repartitionByRange(q).sortWithinPartitions(q)); "
            "or use strategy='ranks'"
        )
    twice = np.bincount(codes, joined("twice"), n_queries) > 0
    fragment, judgment = joined("fragment", True), joined("judgment")
    score = joined("score")
    above, size, greater = joined("above").copy(), joined("size").copy(), joined("greater").copy()
    hit_query = codes[fragment] if len(fragment) else np.zeros(0, np.int64)
    if split.any():
        row_fragment = joined("row_fragment", True)
        row_query = codes[row_fragment]
        keep = split[row_query]
        row_ids = pa.chunked_array([p["row_id"] for p in parts], pa.string()).combine_chunks()
        row_ids = row_ids.filter(pa.array(keep))
        row_query, row_score = row_query[keep], joined("row_score")[keep]
        mine = np.flatnonzero(split[hit_query])
        ids = _dense_codes(pa.concat_arrays(
            [row_ids, judged_doc.take(pa.array(judgment[mine])).cast(pa.string())]
        ))
        row_id, hit_id = ids[: len(row_ids)], ids[len(row_ids):]
        order = np.lexsort((row_id, row_query))
        same = (row_query[order][1:] == row_query[order][:-1]) & (
            row_id[order][1:] == row_id[order][:-1]
        )
        twice[row_query[order][1:][same]] = True
        above[mine], size[mine], greater[mine] = recount(
            row_query, row_score, row_id, hit_query[mine], score[mine], hit_id
        )
    return {
        "names": names,
        "rows": np.bincount(codes, joined("rows"), n_queries).astype(np.int64),
        "bad": int(joined("bad").sum()),
        "twice": twice,
        "split": int(split.sum()),
        "null_queries": sum(int(p["null_queries"]) for p in parts),
        "null_docs": sum(int(p["null_docs"]) for p in parts),
        "quiet": sum(int(p["quiet"]) for p in parts),
        "quiet_rows": sum(int(p["quiet_rows"]) for p in parts),
        "hit_query": hit_query, "judgment": judgment, "score": score,
        "above": above, "size": size, "greater": greater,
    }


class PassSummary:
    """What the pass found, as the checks and the assembly read it.

    It has the attributes of :class:`~rankwise.engines.spark.ranks.RunSummary` that they
    read (``top_scores`` is not known: no grid is built).
    """

    def __init__(self, merged: dict[str, Any], pairs: tuple[pa.Array, pa.Array, np.ndarray],
                 qrels: Qrels) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        names = merged["names"]
        judged = pc.is_in(names, value_set=pa.array(qrels.query_ids, pa.string()))
        judged = judged.to_numpy(zero_copy_only=False).astype(bool)
        self.queries: pa.Array = names.filter(pa.array(judged))
        self.counts = merged["rows"][judged]
        self.top_scores = np.zeros(len(self.queries))
        self.unjudged_queries = int((~judged).sum()) + merged["quiet"]
        self.bad_scores = merged["bad"]
        self.null_docs = merged["null_docs"]
        self.null_queries = merged["null_queries"]
        self.rows = int(merged["rows"].sum()) + merged["quiet_rows"]
        twice = np.flatnonzero(merged["twice"])
        self.suspects = len(twice)
        self.suspect_query: str | None = names[int(twice[0])].as_py() if len(twice) else None
        self.twice_hit: tuple[str, str] | None = None
        pair_query, pair_doc, pair_grade = pairs
        taken = pa.array(merged["judgment"])
        self.hit_query: pa.Array = pair_query.take(taken)
        self.hit_doc: pa.Array = pair_doc.take(taken)
        self.hit_score = np.asarray(merged["score"], dtype=np.float64)
        self.hit_grade = np.asarray(pair_grade, dtype=np.float64)[merged["judgment"]]


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


def run_pass(run: DataFrame, pair_query: pa.Array, pair_doc: pa.Array) -> list[dict[str, Any]]:
    """The pass over *run* (``q, d, s``): each partition's columns, decoded."""
    from rankwise.engines.spark.jar import load_jar

    ranks_pass = load_jar(run.sparkSession)
    query_bytes, query_offsets = _utf8(pair_query)
    doc_bytes, doc_offsets = _utf8(pair_doc)
    with tempfile.TemporaryDirectory(prefix="rankwise-jvm-") as folder:
        path = os.path.join(folder, "ranks")
        ranks_pass.run(run.select("q", "d", "s")._jdf, query_bytes, query_offsets, doc_bytes,
                       doc_offsets, path)
        with open(path, "rb") as file:
            data = file.read()
    parts, at = [], 0
    while at < len(data):
        length = int(np.frombuffer(data, "<i8", 1, at)[0])
        parts.append(decode(data[at + 8:at + 8 + length]))
        at += 8 + length
    return parts


class JvmScan(RanksScan):
    """The run ranked by one pass of rankwise's JVM code: checked, every hit ranked.

    It serves the engine as :class:`~rankwise.engines.spark.ranks.RanksScan`
    does (``summary``, ``covered``, ``ranking``), with no second scan.

    Raises
    ------
    JvmUnavailableError
        The JVM code cannot be built or loaded (:mod:`rankwise.engines.spark.jar`).
    NotGroupedError
        The run is not grouped by query.
    InputFormatError, DuplicateEntryError
        As :func:`~rankwise.engines.spark.ranks.check_run`.
    """

    def __init__(self, run: DataFrame, qrels: Qrels, *, ascending: bool = False) -> None:
        self.run = run
        self.qrels = qrels
        self.ascending = ascending
        pairs = judged_pairs(qrels)
        merged = merge(run_pass(run, pairs[0], pairs[1]), pairs[1])
        self.split_queries = merged["split"]
        self.summary = PassSummary(merged, pairs, qrels)  # type: ignore[assignment]
        check_run(run, self.summary)
        above, size, greater = merged["above"], merged["size"], merged["greater"]
        before = size - 1 - greater if ascending else greater  # tied rows ranked before it
        self._ranks = {"rank": 1 + above + before, "above": above, "size": size}
        self._grid = None

    def offered_per_row(self) -> float:
        """No second scan: 0."""
        return 0.0

    def _rank_hits(self) -> dict[str, np.ndarray]:
        return self._ranks
