"""From a run and judgments to the ranks of the judged documents.

Most measures need only, per query, the number of documents retrieved and
the rank and grade of each judged document that was retrieved. This module
computes exactly that, for all queries at once:

1. the judged rows of the run are found by a hash lookup of the run's
   document ids in the (small) set of judged ids, then confirmed per query
   (:mod:`rankwise.ranking.judged`);
2. the run is ordered by score descending within each query, ties by docno
   descending in byte order (trec_eval's rule). Runs written in rank order
   are detected and not sorted; only the tie groups that hold a judged
   document have their docnos compared (:mod:`rankwise.ranking._order`).
   Runs grouped by query but not in rank order (dicts, frames) are not
   sorted either: the rank of a judged document is 1 + the documents of its
   query that sort before it, counted per query by
   :mod:`rankwise.ranking._crank` (:mod:`rankwise.ranking._counted`; the
   sort stays as the path without C, for interleaved queries and for runs
   of massive ties);
3. :func:`rankwise.ranking.assemble.assemble_ranking` makes the
   :class:`~rankwise.ranking.tied.TiedRanking` every kernel reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankwise._validation import OneOf, check
from rankwise.data._arrow import array_to_numpy, numpy_to_array
from rankwise.data._names import name_codes
from rankwise.exceptions import InvalidParameterError
from rankwise.options import EVAL_CONSTRAINTS, Missing, Ties
from rankwise.ranking._counted import find_and_rank
from rankwise.ranking._order import RowOrder, ranks_of
from rankwise.ranking.assemble import assemble_ranking
from rankwise.ranking.judged import find_judged
from rankwise.ranking.tied import RankedJudgments, TiedRanking

if TYPE_CHECKING:

    from rankwise.data import Qrels, Run

__all__ = ["TIE_ORDER", "TIE_ORDERS", "rank_all_ties", "rank_judgments", "rank_rows"]


def rank_judgments(
    qrels: Qrels,
    run: Run,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
) -> RankedJudgments:
    """Join *run* with *qrels* and rank the judged documents of every query.

    Equivalent to ``rank_all_ties(...).view(ties)``.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    run : Run
        The scored results.
    depth, missing, judged_only, ties
        As in :class:`rankwise.options.EvalOptions`.

    Returns
    -------
    RankedJudgments
    """
    return rank_all_ties(
        qrels, run, depth=depth, missing=missing, judged_only=judged_only,
        by_rank=ties == "rank", ascending=ties == "ascending",
    ).view(ties)


TIE_ORDERS = ("docno", "input", "ranx")
"""The order of tied documents a ranking can follow: docno descending, input order, or
ranx's (numba's quicksort of the run's rows: :mod:`rankwise.ranking._quicksort`)."""
TIE_ORDER = OneOf(TIE_ORDERS)
"""What ``tie_order=`` must be (one of :data:`TIE_ORDERS`)."""


def rank_all_ties(
    qrels: Qrels,
    run: Run,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    by_rank: bool = False,
    tie_order: str = "docno",
    float32: bool = False,
    drop_self: bool = False,
    ascending: bool = False,
) -> TiedRanking:
    """Rank the judged documents and describe the tie groups they sit in.

    Any tie policy can then be applied with :meth:`TiedRanking.view`
    without ranking the run again. With *by_rank*, the run's rank column
    orders the documents instead of the scores. With *ascending*, tied
    documents come by docno ascending (``ties="ascending"``), not
    descending (trec_eval's rule). With *judged_only* and
    *depth*, the ranking is cut at *depth* first and unjudged documents are
    dropped after (trec_eval's ``-J -M``, form_res_rels.c).

    The other tools' rankings (see :mod:`rankwise.measures.dialects`): with
    ``tie_order="input"`` tied documents keep the order of the run's rows (a
    stable sort by score), instead of docno descending; with
    ``tie_order="ranx"`` they come as ranx 0.3.21 orders them (numba's
    quicksort of each query's rows by score: input order up to 15 rows, its
    own order beyond), sorted once when the run holds exactly the judged
    queries (ranx's ``evaluate`` refuses other runs without
    ``make_comparable=True``) and twice otherwise (``make_comparable`` sorts
    the run again); with *float32* the
    scores are compared after rounding to float32 (distinct float64 scores
    can then tie); with *drop_self* a document whose id is its query's id is
    not retrieved (BEIR's ``ignore_identical_ids``).
    """
    check("missing", missing, EVAL_CONSTRAINTS["missing"])
    check("tie_order", tie_order, TIE_ORDER)
    check("depth", depth, EVAL_CONSTRAINTS["depth"])
    if drop_self:
        run = _without_self(run)
    by_row: RowOrder = tie_order in ("input", "ranx")
    run_to_qrels = name_codes(qrels.query_ids, run.query_ids)
    scores = _order_values(run, by_rank)
    if float32:
        scores = scores.astype(np.float32).astype(np.float64)
    if tie_order == "ranx":
        by_row = _ranx_order(run, scores, set(run.query_ids) == set(qrels.query_ids))
    counted = None
    # not in rank order: count, do not sort (the counting kernel breaks ties by docno descending)
    if not by_row and not ascending and (by_rank or run.rank_order_blocks is None):
        counted = find_and_rank(qrels, run, run_to_qrels, scores)
    if counted is not None:
        judged_rows, judged_qrels_row, full_ranks = counted
    else:
        judged_rows, judged_qrels_row = find_judged(qrels, run, run_to_qrels)
    if judged_only:
        usable = qrels.grades[judged_qrels_row] >= 0
        if depth is not None:  # trec_eval cuts at the depth first, then drops the unjudged
            full = (
                full_ranks if counted is not None
                else ranks_of(run, scores, judged_rows, None, by_rank, by_row, ascending)
            )
            usable &= full.rank <= depth
        kept_rows = judged_rows[usable]
        judged_qrels_row = judged_qrels_row[usable]
        ranked = ranks_of(
            run, scores, np.arange(len(kept_rows)), kept_rows, by_rank, by_row, ascending
        )
        hit_rows = kept_rows
    else:
        ranked = (
            full_ranks if counted is not None
            else ranks_of(run, scores, judged_rows, None, by_rank, by_row, ascending)
        )
        hit_rows = judged_rows
    counts = np.full(qrels.n_queries, -1, dtype=np.int64)
    block_query = run_to_qrels[ranked.block_codes]
    in_qrels = block_query >= 0
    counts[block_query[in_qrels]] = ranked.block_sizes[in_qrels]
    in_run = np.zeros(len(counts), dtype=bool)
    in_run[run_to_qrels[run_to_qrels >= 0]] = True
    counts[in_run & (counts < 0)] = 0  # in the run, but -J left nothing of it to rank
    return assemble_ranking(
        qrels,
        counts,
        hit_query=block_query[ranked.block],
        hit_rank=ranked.rank,
        hit_grade=qrels.grades[judged_qrels_row],
        tie_above=ranked.above,
        tie_size=ranked.size,
        depth=depth,
        missing=missing,
        judged_only=judged_only,
        hit_score=scores[hit_rows],
        hit_row=judged_qrels_row,
    )


def _ranx_order(run: Run, scores: np.ndarray, same_queries: bool) -> RowOrder:
    """The key of ranx's order of tied rows (see :func:`rank_all_ties`)."""
    from rankwise.ranking._quicksort import ranx_positions

    codes = run.query_codes

    def key(rows: np.ndarray) -> np.ndarray:
        return ranx_positions(codes, scores, rows, passes=1 if same_queries else 2)

    return key


def _without_self(run: Run) -> Run:
    """The run without the rows whose document id is their query's id."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import Run as RunType

    queries = pa.array(run.query_ids, pa.string()).take(numpy_to_array(run.query_codes))
    docs = run.doc_ids.combine_chunks()
    same = pc.fill_null(pc.equal(docs, queries), False)
    keep = ~array_to_numpy(same, np.bool_) if len(run) else np.zeros(0, dtype=bool)
    if keep.all():
        return run
    rows = np.flatnonzero(keep)
    return RunType.from_arrow(
        queries.take(numpy_to_array(rows)),
        docs.take(numpy_to_array(rows)),
        run.scores[rows],
        name=run.name,
        source=run.source,
        check_duplicates=False,
    )



def _order_values(run: Run, by_rank: bool) -> np.ndarray:
    """What orders a query's documents, higher first: the score, or minus the rank."""
    if not by_rank:
        return run.scores
    ranks = run.ranks
    if ranks is None:
        raise InvalidParameterError(
            "ties='rank' needs the run's rank column: read the run with "
            "rankwise.read_run(path, keep_rank=True) or pass the file's path"
        )
    return -ranks


def rank_rows(run: Run, scores: np.ndarray | None = None) -> np.ndarray:
    """The 1-based rank of every row of *run* within its query, in trec_eval's order.

    Score descending, ties by document id descending (byte order). With
    *scores* (one per row), those order the rows instead of the run's own.

    Examples
    --------
    >>> from rankwise.data import Run
    >>> run = Run.from_dict({"q1": {"a": 1.0, "b": 2.0, "c": 1.0}, "q2": {"x": 0.5}})
    >>> rank_rows(run).tolist()
    [3, 1, 2, 1]
    >>> rank_rows(run, -run.scores).tolist()
    [2, 3, 1, 1]
    """
    blocks = run.rank_order_blocks
    if scores is None and blocks is not None:
        return _ranks_in_rank_order(run, blocks)
    values = run.scores if scores is None else np.asarray(scores, dtype=np.float64)
    # rank order blocks are the run's own: with other scores, order from scratch
    ranked = ranks_of(run, values, np.arange(len(run)), None, scores is not None)
    return ranked.rank


def _ranks_in_rank_order(run: Run, blocks: np.ndarray) -> np.ndarray:
    """Ranks of a run written in rank order: positions, then docno order inside tie groups."""
    n = len(run)
    starts = blocks.astype(np.int64)
    lengths = np.diff(np.append(starts, n))
    rank = np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, lengths)
    if n < 2:
        return rank
    scores = run.scores
    tied = scores[1:] == scores[:-1]
    tied[starts[1:] - 1] = False  # a new query is never a tie
    if not tied.any():
        return rank
    members = np.zeros(n, dtype=bool)
    members[1:] |= tied
    members[:-1] |= tied
    rows = np.flatnonzero(members)
    ranked = ranks_of(run, scores, rows, None, False)
    rank[rows] = ranked.rank
    return rank
