"""The ranks of judged documents counted per query, without a sort (the C path).

The rank of a judged document is 1 + the documents of its query that sort
before it (trec_eval's order: score descending, ties by docno descending);
:mod:`rankwise.ranking._crank` finds the judged rows of each query and counts,
for runs grouped by query. The sort (:mod:`rankwise.ranking._order`) stays
as the path without C, for interleaved queries and for runs of massive ties.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads
from rankwise.data._strings import StringChunk, string_chunks
from rankwise.ranking._order import Ranked

if TYPE_CHECKING:

    from rankwise.data import Qrels, Run

__all__ = ["TIE_BUDGET_BASE", "TIE_BUDGET_PER_ROW", "ByQuery", "find_and_rank",
           "judgments_by_query"]


_crank = load("rankwise.ranking._crank")

TIE_BUDGET_PER_ROW = 16
TIE_BUDGET_BASE = 1 << 20
"""Docno comparisons the counting kernel may spend on ties (per row, and at least) before
the run is sorted instead (a run of massive ties: a sort compares fewer)."""


def find_and_rank(
    qrels: Qrels, run: Run, run_to_qrels: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray, Ranked] | None:
    """The judged rows of a run grouped by query, their judgments and ranks, without a sort.

    The rank of a document is 1 + the documents of its query that sort before
    it (trec_eval's order); :mod:`rankwise.ranking._crank` finds the judged
    rows of each query and counts, for the queries holding judgments only.
    Gives what :func:`~rankwise.ranking.judged.find_judged` and
    :func:`~rankwise.ranking._order.ranks_of` give. None when the
    C module is not available, the run is not grouped by query (a query in
    two places), or ties are so many that sorting is cheaper: the caller then
    takes the general path.
    """
    native = _crank if enabled() else None
    n = len(scores)
    if native is None or n == 0 or len(qrels) == 0:
        return None
    starts, codes = run.query_blocks
    if len(codes) > 1 and not (codes[1:] > codes[:-1]).all():
        return None  # a query in two places
    if np.isnan(scores).any():  # scores are finite; ranks (ties="rank") may not be
        return None
    bounds = np.append(starts, n).astype(np.int64)
    block_query = np.ascontiguousarray(run_to_qrels[codes], dtype=np.int64)
    grouped = judgments_by_query(qrels)
    if grouped is None:
        return None
    per_query, query_offsets, judgments, judged_doc, id_chunk = grouped
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    docs = [chunk.as_buffers() for chunk in string_chunks(run.doc_column)]
    # per block, at most its query's judgments are found: each thread gets its share
    found_at_most = np.where(block_query >= 0, per_query[np.maximum(block_query, 0)], 0)
    parts = _block_ranges(bounds)
    room = np.concatenate(([0], np.cumsum(found_at_most))).astype(np.int64)
    total = int(room[-1])
    outputs = [np.empty(total, dtype=np.int64) for _ in range(6)]
    budget = TIE_BUDGET_PER_ROW * n // len(parts) + TIE_BUDGET_BASE
    counts = [0] * len(parts)

    def work(index: int) -> None:
        first, last = parts[index]
        lo, hi = int(room[first]), int(room[last])
        counts[index] = native.judged_ranks(
            bounds, block_query, scores, docs, query_offsets, judgments, judged_doc,
            id_chunk.as_buffers(), first, last, budget, *(out[lo:hi] for out in outputs),
        )

    run_threads(work, len(parts))
    if min(counts) < 0:
        return None
    spans = [
        (int(room[first]), int(room[first]) + count) for (first, _), count in zip(parts, counts)
    ]
    rows, judged, rank, above, size, block = (
        out[spans[0][0] : spans[0][1]] if len(spans) == 1
        else np.concatenate([out[lo:hi] for lo, hi in spans])
        for out in outputs
    )
    ranked = Ranked(
        rank=rank,
        above=above,
        size=size,
        block=block,
        block_codes=codes.astype(np.int64),
        block_sizes=np.diff(bounds),
    )
    return rows, judged, ranked


class ByQuery(NamedTuple):
    """The judgments grouped by query, as the counting kernels read them."""

    per_query: np.ndarray  # judgments of each query
    query_offsets: np.ndarray  # int64: query q has judgments[offsets[q]:offsets[q + 1]]
    judgments: np.ndarray  # int64 rows of the judgments
    judged_doc: np.ndarray  # int32 per row, its document: an index into the ids
    ids: StringChunk  # the distinct judged document ids


def judgments_by_query(qrels: Qrels) -> ByQuery | None:
    """The judgments grouped by query, or None when their ids are not in one chunk."""
    id_column, judged_doc = qrels.judged_doc_text()
    id_chunks = string_chunks(id_column)
    if len(id_chunks) != 1:
        return None
    query_codes = qrels.query_codes
    per_query = np.bincount(query_codes, minlength=qrels.n_queries)
    query_offsets = np.concatenate(([0], np.cumsum(per_query))).astype(np.int64)
    if len(query_codes) < 2 or (query_codes[1:] >= query_codes[:-1]).all():
        judgments = np.arange(len(query_codes), dtype=np.int64)  # grouped by query already
    else:
        judgments = np.argsort(query_codes, kind="stable").astype(np.int64)
    judged_doc = np.ascontiguousarray(judged_doc, dtype=np.int32)
    return ByQuery(per_query, query_offsets, judgments, judged_doc, id_chunks[0])


_ROWS_PER_THREAD = 1 << 20


def _block_ranges(bounds: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of blocks, about equal in rows, one per thread worth starting."""
    n_blocks = len(bounds) - 1
    parts = max(1, min(cores(), 8, int(bounds[-1]) // _ROWS_PER_THREAD, n_blocks))
    if parts == 1:
        return [(0, n_blocks)]
    cuts = np.searchsorted(bounds, np.arange(1, parts) * (bounds[-1] / parts), side="left")
    edges = [0, *sorted(set(np.clip(cuts, 1, n_blocks - 1).tolist())), n_blocks]
    return [(a, b) for a, b in pairwise(edges) if b > a]
