"""A run given as a dict of dicts, ranked in one pass without building the run.

:func:`rank_run_dict` walks ``{query_id: {doc_id: score}}`` in C
(:mod:`rankwise.ranking._cdict`): each document id is looked up among the
judged ids of its query and the judged ones are ranked as they come, as
:func:`rankwise.ranking.rank.rank_all_ties` ranks the run read by
:meth:`rankwise.Run.from_dict`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores
from rankwise.ranking import _counted
from rankwise.ranking.assemble import assemble_ranking

if TYPE_CHECKING:

    from rankwise.data import Qrels
    from rankwise.options import Missing
    from rankwise.ranking.tied import TiedRanking

__all__ = ["rank_run_dict"]


def rank_run_dict(
    qrels: Qrels,
    results: Any,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judgment_rows: bool = True,
) -> tuple[TiedRanking, int, int] | None:
    """Rank a run given as ``{query_id: {doc_id: score}}`` without building the run.

    One pass over the dict in C (:mod:`rankwise.ranking._cdict`): each
    document id is looked up among the judged ids of its query, and the rank
    of each judged document found is 1 + the documents of its query that
    sort before it (trec_eval's order, docnos compared only among equal
    scores), as :func:`rank_all_ties` ranks the run read by
    :meth:`rankwise.Run.from_dict`. On a machine of two cores or
    more, for runs of 65,536 documents or more, a second thread (plain C,
    without the GIL) reads and ranks the second half of the queries while
    the thread holding the GIL reads and ranks the first: reading dicts is
    mostly waiting for memory, and two threads wait in parallel. The second
    thread reads only keys that are exact str of ASCII text and scores that
    are exact floats; on anything else, the GIL holder reads that half
    itself. The documents of unjudged queries are only counted.

    With *judgment_rows* false, the ranking leaves out each judgment's
    row (``judged_rows``, ``hit_judged``: ordering them costs a sort), which
    only the diversity measures read.

    Returns
    -------
    (TiedRanking, int, int) or None
        The ranking, the judged queries the run does not hold and the
        queries of the run the judgments do not hold; None when the C
        module is off or the dict needs the general path: an entry it does
        not accept (the general path raises the error), ids that may collide
        (``1`` and ``"1"``), or ties too many to count.
    """
    if not enabled() or not len(qrels) or not isinstance(results, dict):
        return None
    native = load("rankwise.ranking._cdict")  # loaded here: reading files does not need it
    if native is None:
        return None
    grouped = _counted.judgments_by_query(qrels)
    if grouped is None:
        return None
    from rankwise.data._dicts import ID_TYPES, NUMBER_TYPES

    ids = grouped.ids
    read = native.run_dict_ranks(
        results, ID_TYPES, NUMBER_TYPES, qrels.query_ids, grouped.query_offsets,
        grouped.judgments, grouped.judged_doc, ids.offsets, ids.data,
        _counted.TIE_BUDGET_PER_ROW, _counted.TIE_BUDGET_BASE, min(2, cores()),
    )
    if read is None:
        return None
    _, *blocks = read
    block_query, block_size, judgment, rank, above, size, block = (
        np.frombuffer(buffer, dtype=np.int64) for buffer in blocks[:7]
    )
    score = np.frombuffer(blocks[7], dtype=np.float64)
    counts = np.full(qrels.n_queries, -1, dtype=np.int64)
    in_qrels = block_query >= 0
    counts[block_query[in_qrels]] = block_size[in_qrels]
    ranking = assemble_ranking(
        qrels,
        counts,
        hit_query=block_query[block],
        hit_rank=rank,
        hit_grade=qrels.grades[judgment],
        tie_above=above,
        tie_size=size,
        depth=depth,
        missing=missing,
        hit_score=score,
        hit_row=judgment if judgment_rows else None,
    )
    return ranking, int((counts < 0).sum()), int((~in_qrels).sum())
