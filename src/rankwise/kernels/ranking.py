"""From a run and judgments to the ranks of the judged documents.

Most measures need only, per query, the number of documents retrieved and
the rank and grade of each judged document that was retrieved. This module
computes exactly that, for all queries at once:

1. the judged rows of the run are found by a hash lookup of the run's
   document ids in the (small) set of judged ids, then confirmed per query;
2. the run is ordered by score descending within each query, ties by docno
   descending in byte order (trec_eval's rule). Runs written in rank order
   are detected and not sorted; only the tie groups that hold a judged
   document have their docnos compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankwise.exceptions import DuplicateEntryError, InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = ["RankedJudgments", "rank_judgments"]


@dataclass(frozen=True)
class RankedJudgments:
    """What the kernels need about one run against the judgments.

    Attributes
    ----------
    query_ids : list of str
        The evaluated queries, in byte order of their ids.
    num_ret : ndarray of int64
        Documents retrieved per query (after the depth cut).
    hit_query, hit_rank, hit_grade : ndarrays
        One entry per judged document that was retrieved: its query (index
        into ``query_ids``), its 1-based rank and its grade, sorted by
        (query, rank).
    judged_offsets, judged_grades : ndarrays
        All judgments of each query (CSR): the grades of query ``q`` are
        ``judged_grades[judged_offsets[q]:judged_offsets[q + 1]]``, sorted
        descending.
    tie_above, tie_size : ndarrays or None
        Per hit, documents with a strictly higher score and the size of its
        tie group (itself included); for tie-aware policies.
    """

    query_ids: list[str]
    num_ret: np.ndarray
    hit_query: np.ndarray
    hit_rank: np.ndarray
    hit_grade: np.ndarray
    judged_offsets: np.ndarray
    judged_grades: np.ndarray
    in_run: np.ndarray

    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
        return len(self.query_ids)


def _byte_order(names: list[str]) -> np.ndarray:
    return np.array(sorted(range(len(names)), key=lambda i: names[i].encode("utf-8")), dtype=np.int64)


def _blocks(codes: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Order rows so that each query is one contiguous block.

    Returns the permutation (None when the run is already grouped), and the
    start and code of each block.
    """
    n = len(codes)
    if n == 0:
        return None, np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = None
    if (codes[1:] < codes[:-1]).any():
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
    starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
    return order, starts.astype(np.int64), codes[starts].astype(np.int64)


def _sort_blocks_by_score(
    scores: np.ndarray, starts: np.ndarray, n: int
) -> np.ndarray | None:
    """Permutation that sorts each block by score descending (stable), or None if sorted."""
    block_of_row = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    rising = np.flatnonzero(scores[1:] > scores[:-1])
    if len(rising) == 0 or not (block_of_row[rising] == block_of_row[rising + 1]).any():
        return None
    by_score = np.argsort(-scores, kind="stable")
    return by_score[np.argsort(block_of_row[by_score], kind="stable")]


def _order_ties_by_docno(
    scores: np.ndarray,
    block_of_row: np.ndarray,
    judged_rows: np.ndarray,
    doc_ids: pa.ChunkedArray,
    row_to_source: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Place the judged rows that sit in tie groups by docno, descending.

    Returns a mask over *judged_rows* of those in a tie group, the first
    position of their group, and their offset inside it (0 for the greatest
    docno in byte order, which trec_eval ranks first).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(scores)
    same_as_next = np.zeros(n, dtype=bool)
    same_as_next[:-1] = (scores[1:] == scores[:-1]) & (block_of_row[1:] == block_of_row[:-1])
    same_as_previous = np.concatenate(([False], same_as_next[:-1]))
    tied = same_as_next[judged_rows] | same_as_previous[judged_rows]
    tied_rows = judged_rows[tied]
    if len(tied_rows) == 0:
        return tied, np.zeros(0, np.int64), np.zeros(0, np.int64)
    group_starts = np.flatnonzero(~same_as_previous)
    group_ends = np.append(group_starts[1:], n)
    group_of_row = np.cumsum(~same_as_previous) - 1
    wanted = np.unique(group_of_row[tied_rows])
    lengths = group_ends[wanted] - group_starts[wanted]
    before = np.cumsum(lengths) - lengths
    local = np.arange(int(lengths.sum())) - np.repeat(before, lengths)
    member_rows = np.repeat(group_starts[wanted], lengths) + local
    docs = doc_ids.take(pa.array(row_to_source[member_rows]))
    table = pa.table({"group": pa.array(np.repeat(np.arange(len(wanted)), lengths)), "doc": docs})
    ordered = pc.sort_indices(table, sort_keys=[("group", "ascending"), ("doc", "descending")])
    offset_of_member = np.empty(len(member_rows), dtype=np.int64)
    offset_of_member[ordered.to_numpy()] = local
    member_index = np.searchsorted(member_rows, tied_rows)
    first = group_starts[group_of_row[tied_rows]]
    return tied, first, offset_of_member[member_index]


def rank_judgments(
    qrels: Qrels,
    run: Run,
    *,
    depth: int | None = None,
    missing: str = "skip",
    judged_only: bool = False,
) -> RankedJudgments:
    """Join *run* with *qrels* and rank the judged documents of every query.

    Parameters
    ----------
    qrels, run : Qrels, Run
    depth : int, optional
        Keep only the first *depth* documents of each query (trec_eval ``-M``).
    missing : {"skip", "zero"}
        Judged queries absent from the run are left out, or evaluated as
        empty rankings (trec_eval ``-c``).
    judged_only : bool
        Drop unjudged documents before ranking (trec_eval ``-J``).

    Returns
    -------
    RankedJudgments
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if missing not in ("skip", "zero"):
        raise InvalidParameterError(f"missing must be 'skip' or 'zero', got {missing!r}")
    if depth is not None and (not isinstance(depth, (int, np.integer)) or depth < 1):
        raise InvalidParameterError(f"depth must be a positive integer or None, got {depth!r}")

    qrels_query_index = {name: i for i, name in enumerate(qrels.query_ids)}
    run_to_qrels = np.array(
        [qrels_query_index.get(name, -1) for name in run.query_ids], dtype=np.int64
    )
    present = np.zeros(len(qrels.query_ids), dtype=bool)
    present[run_to_qrels[run_to_qrels >= 0]] = True
    evaluated = np.arange(len(qrels.query_ids)) if missing == "zero" else np.flatnonzero(present)
    names = [qrels.query_ids[i] for i in evaluated]
    order = _byte_order(names)
    evaluated = evaluated[order]
    query_ids = [names[i] for i in order]
    eval_of_qrels = np.full(len(qrels.query_ids), -1, dtype=np.int64)
    eval_of_qrels[evaluated] = np.arange(len(evaluated))
    n_eval = len(evaluated)

    # --- judgments of evaluated queries, CSR with grades descending
    judged_query = eval_of_qrels[qrels.query_codes]
    keep = judged_query >= 0
    judged_query = judged_query[keep]
    judged_grade_all = qrels.grades[keep]
    by_query = np.lexsort((-judged_grade_all, judged_query))
    judged_grades = judged_grade_all[by_query]
    judged_offsets = np.concatenate(
        ([0], np.cumsum(np.bincount(judged_query, minlength=n_eval)))
    ).astype(np.int64)

    # --- which run rows are judged: (evaluated query, qrels row)
    row_query = eval_of_qrels[np.where(run_to_qrels >= 0, run_to_qrels, 0)][run.query_codes]
    row_query = np.where(run_to_qrels[run.query_codes] >= 0, row_query, -1)
    doc_code = pc.index_in(run.doc_ids, value_set=pa.array(qrels.doc_ids, pa.string()))
    doc_code_np = _index_to_numpy(doc_code)
    candidates = np.flatnonzero((doc_code_np >= 0) & (row_query >= 0))
    n_docs = max(1, len(qrels.doc_ids))
    qrels_keys = qrels.query_codes.astype(np.int64) * n_docs + qrels.doc_codes
    key_order = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[key_order]
    candidate_keys = run_to_qrels[run.query_codes[candidates]] * n_docs + doc_code_np[candidates]
    position = np.searchsorted(sorted_keys, candidate_keys)
    position = np.minimum(position, max(len(sorted_keys) - 1, 0))
    found = (sorted_keys[position] == candidate_keys) if len(sorted_keys) else np.zeros(0, bool)
    judged_rows = candidates[found]
    judged_qrels_row = key_order[position[found]]

    # --- restrict to evaluated queries (and to judged rows with -J)
    scope = row_query >= 0
    if judged_only:
        scope = np.zeros(len(run), dtype=bool)
        scope[judged_rows] = True
    rows = np.flatnonzero(scope)
    codes = row_query[rows]
    scores = run.scores[rows]
    local_of_source = np.full(len(run), -1, dtype=np.int64)
    local_of_source[rows] = np.arange(len(rows))

    block_order, starts, block_query = _blocks(codes)
    if block_order is not None:
        rows = rows[block_order]
        scores = scores[block_order]
        local_of_source[rows] = np.arange(len(rows))
    score_order = _sort_blocks_by_score(scores, starts, len(rows))
    if score_order is not None:
        rows = rows[score_order]
        scores = scores[score_order]
        local_of_source[rows] = np.arange(len(rows))
    sizes = np.diff(np.append(starts, len(rows)))
    block_of_row = np.repeat(np.arange(len(starts)), sizes)

    local_judged = local_of_source[judged_rows]
    in_scope = local_judged >= 0
    local_judged = local_judged[in_scope]
    judged_qrels_row = judged_qrels_row[in_scope]
    rank = local_judged - starts[block_of_row[local_judged]] + 1

    tied, group_first, tie_offsets = _order_ties_by_docno(
        scores, block_of_row, local_judged, run.doc_ids, rows
    )
    if len(group_first):
        rank = rank.copy()
        rank[tied] = group_first - starts[block_of_row[local_judged[tied]]] + 1 + tie_offsets

    hit_query = block_query[block_of_row[local_judged]]
    num_ret = np.zeros(n_eval, dtype=np.int64)
    num_ret[block_query] = sizes
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
        kept = rank <= depth
        hit_query, rank, judged_qrels_row, local_judged = (
            hit_query[kept], rank[kept], judged_qrels_row[kept], local_judged[kept]
        )
    _check_judged_duplicates(hit_query, judged_qrels_row, rows[local_judged], run, qrels)
    sort = np.lexsort((rank, hit_query))
    in_run = np.zeros(n_eval, dtype=bool)
    in_run[block_query] = True
    return RankedJudgments(
        query_ids=query_ids,
        num_ret=num_ret,
        hit_query=hit_query[sort],
        hit_rank=rank[sort].astype(np.int64),
        hit_grade=qrels.grades[judged_qrels_row[sort]],
        judged_offsets=judged_offsets,
        judged_grades=judged_grades,
        in_run=in_run,
    )


def _index_to_numpy(codes: pa.ChunkedArray | pa.Array) -> np.ndarray:
    import pyarrow as pa

    chunks = codes.chunks if isinstance(codes, pa.ChunkedArray) else [codes]
    parts = [chunk.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64) for chunk in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _check_judged_duplicates(
    hit_query: np.ndarray, qrels_row: np.ndarray, source_rows: np.ndarray, run: Run, qrels: Qrels
) -> None:
    """A judged document retrieved twice for one query (runs built without checks)."""
    if len(qrels_row) < 2:
        return
    order = np.argsort(qrels_row, kind="stable")
    same = np.flatnonzero(qrels_row[order][1:] == qrels_row[order][:-1])
    if len(same) == 0:
        return
    a, b = sorted((int(source_rows[order[same[0]]]), int(source_rows[order[same[0] + 1]])))
    doc = qrels.doc_ids[qrels.doc_codes[qrels_row[order[same[0]]]]]
    query = run.query_ids[int(run.query_codes[b])]
    raise DuplicateEntryError(
        f"document {doc!r} appears twice for query {query!r} (first at line {run.line_of(a)}); "
        "a run lists each document once per query",
        run.source or "<run>",
        run.line_of(b),
    )
